/*
 * The C side of the trap vector (vector.S): decides what the trap was. The
 * only interrupt the port enables is the machine timer (the tick). Every
 * exception (an illegal instruction, a bad address, an ecall) is a bug:
 * the port prints what the hardware reported and powers QEMU off.
 */
#include "riscv.h"

static void put_field(const char *name, uintptr_t v)
{
    pr_riscv_puts(name);
    pr_riscv_puts("=0x");
    pr_riscv_put_hex(v, __riscv_xlen / 4);
}

void riscv_trap(uintptr_t mcause, uintptr_t mepc, uintptr_t mtval)
{
    if (mcause == (MCAUSE_INTERRUPT | IRQ_M_TIMER)) {
        riscv_timer_interrupt();
        return;
    }
    pr_riscv_puts("\nunexpected trap: ");
    put_field("mcause", mcause);
    put_field(" mepc", mepc);
    put_field(" mtval", mtval);
    pr_riscv_puts(" slot=");
    pr_riscv_put_dec((uint64_t)pr_kernel_current_slot());
    pr_riscv_puts("\n");
    pr_riscv_exit(EXIT_BAD_TRAP);
}
