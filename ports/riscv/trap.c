/*
 * The C side of the trap vector (vector.S): decides what the trap was. The
 * port enables two interrupts: the machine timer (the tick) and, once a
 * program installs a handler, the machine software interrupt (CLINT msip),
 * which lets a program raise an interrupt of its own at an exact
 * instruction (benchmarks/riscv/bench_latency.c: an interrupt that ups a
 * semaphore). Every exception (an illegal instruction, a bad address, an
 * ecall) is a bug: the port prints what the hardware reported and powers
 * QEMU off.
 */
#include "riscv.h"

/* Read by the software interrupt's own entry, riscv_soft_vector. */
void (*riscv_soft_handler)(void);

void riscv_soft_irq_handler(void (*handler)(void))
{
    riscv_soft_handler = handler;
    mmio_write32(CLINT_MSIP, 0);
    if (handler != NULL)
        csr_set(mie, MIE_MSIE);
    else
        csr_clear(mie, MIE_MSIE);
}

void riscv_soft_irq_raise(void) { mmio_write32(CLINT_MSIP, 1); }

static void put_field(const char *name, uintptr_t v)
{
    pr_riscv_puts(name);
    pr_riscv_puts("=0x");
    pr_riscv_put_hex(v, __riscv_xlen / 4);
}

/* Every trap but the machine timer interrupt and the software interrupt
 * with a handler, which have their own entries in the vector table
 * (vector.S: the software interrupt is acknowledged, msip back to 0, before
 * its handler, which runs as interrupt code, pr_isr_call: kernel calls never
 * block, and a task it wakes runs when it returns): all are unexpected. */
void riscv_trap(uintptr_t mcause, uintptr_t mepc)
{
    uintptr_t tval; /* read here: the vector does not, for the tick's sake */
    csr_read(mtval, tval);
    pr_riscv_puts("\nunexpected trap: ");
    put_field("mcause", mcause);
    put_field(" mepc", mepc);
    put_field(" mtval", tval);
    pr_riscv_puts(" slot=");
    pr_riscv_put_dec((uint64_t)pr_kernel_current_slot());
    pr_riscv_puts("\n");
    pr_riscv_exit(EXIT_BAD_TRAP);
}
