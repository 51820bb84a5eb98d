/*
 * Interrupt masking (port.h): mstatus.MIE is the machine-mode global
 * interrupt enable. save clears it and returns its previous value (one
 * csrrci); restore sets it again only if it was set (csrs of the saved bit:
 * a no-op for 0). Restoring with csrs rather than writing mstatus back whole
 * touches no other field: a switch inside the masked section may have run
 * other tasks' traps, which change MPIE and MPP.
 *
 * The "memory" clobbers make each a compiler barrier: no load or store of
 * kernel data moves out of the masked section.
 */
#include "riscv.h"

pr_irq_state_t pr_port_irq_save(void)
{
    pr_irq_state_t old;
    __asm__ volatile("csrrci %0, mstatus, %1" : "=r"(old) : "i"(MSTATUS_MIE) : "memory");
    return old & MSTATUS_MIE;
}

void pr_port_irq_restore(pr_irq_state_t state)
{
    __asm__ volatile("csrs mstatus, %0" ::"r"(state) : "memory");
}
