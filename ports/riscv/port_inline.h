/*
 * The RISC-V port's inline functions for the kernel (port.h, PR_PORT_INLINE):
 * the Makefile passes -DPR_PORT_INLINE='"port_inline.h"', so every kernel
 * call masks interrupts with one instruction and unmasks them with another,
 * instead of two calls. irq.c holds the external definitions.
 *
 * mstatus.MIE is the machine-mode global interrupt enable. save clears it
 * and returns mstatus as it was (one csrrci); restore sets back the bits
 * that were set (csrs: MIE only if it was set, nothing for a state with MIE
 * clear). The other bits of the old value that csrs sets again are MPP
 * (always machine mode here) and MPIE, which only the trap vector's mret
 * reads, after writing the whole mstatus of its frame back: so restoring
 * them is harmless, even after a switch inside the masked section let other
 * tasks take traps. The "memory" clobbers make both compiler barriers: no
 * load or store of kernel data moves out of the masked section.
 */
#ifndef PRIORA_RISCV_PORT_INLINE_H
#define PRIORA_RISCV_PORT_INLINE_H

#define PR_PORT_INLINE_IRQ 1

inline pr_irq_state_t pr_port_irq_save(void)
{
    pr_irq_state_t old;
    __asm__ volatile("csrrci %0, mstatus, 8" : "=r"(old)::"memory");
    return old;
}

inline void pr_port_irq_restore(pr_irq_state_t state)
{
    __asm__ volatile("csrs mstatus, %0" ::"r"(state) : "memory");
}

#endif
