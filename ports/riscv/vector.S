/*
 * The trap vector: every interrupt and exception enters here (mtvec, direct
 * mode), in machine mode, with mstatus.MIE cleared by the hardware (the
 * previous MIE is in mstatus.MPIE) and the interrupted pc in mepc.
 *
 * The trap frame goes on the interrupted task's own stack, not on a shared
 * interrupt stack. That is what lets the handler switch tasks: when the
 * tick makes a more urgent task ready, the kernel calls pr_port_switch
 * from inside the handler, and the interrupted task stays suspended right
 * here, its frame on its stack, until some later switch resumes it; then
 * the handler returns, and the frame is popped into the registers.
 *
 * Only the caller-saved registers are saved: the C handler preserves the
 * callee-saved ones (s0..s11), as any C function does, and the context
 * switch saves those of a task it suspends. gp and tp never change.
 * mepc is saved too: while this task is suspended, other tasks take traps
 * of their own, which overwrite it. mstatus is not saved but rebuilt for
 * mret, because what mret needs of it is always the same here: MPP =
 * machine mode (the only mode the port runs in) and MPIE = 1 (an interrupt
 * is only taken with MIE set, so the interrupted code had it set; an
 * exception is a bug and never returns). Other tasks' traps and mrets may
 * have changed both fields meanwhile, so both are set again before mret.
 *
 * Frame layout (REGBYTES each): ra t0 t1 t2 a0..a7 t3 t4 t5 t6 mepc.
 */
#include "asm.h"

#define SLOT(n) ((n) * REGBYTES)
#define MSTATUS_MPIE_MPP 0x1880 /* MPIE (bit 7) and MPP = 3 (bits 11-12) */

    .section .text
    .balign 4                 /* mtvec's low two bits are the mode */
    .globl riscv_trap_vector
riscv_trap_vector:
    addi sp, sp, -TRAP_FRAME
    REG_S ra, SLOT(0)(sp)
    REG_S t0, SLOT(1)(sp)
    REG_S t1, SLOT(2)(sp)
    REG_S t2, SLOT(3)(sp)
    REG_S a0, SLOT(4)(sp)
    REG_S a1, SLOT(5)(sp)
    REG_S a2, SLOT(6)(sp)
    REG_S a3, SLOT(7)(sp)
    REG_S a4, SLOT(8)(sp)
    REG_S a5, SLOT(9)(sp)
    REG_S a6, SLOT(10)(sp)
    REG_S a7, SLOT(11)(sp)
    REG_S t3, SLOT(12)(sp)
    REG_S t4, SLOT(13)(sp)
    REG_S t5, SLOT(14)(sp)
    REG_S t6, SLOT(15)(sp)
    csrr a1, mepc
    REG_S a1, SLOT(16)(sp)

    /* riscv_trap(mcause, mepc): trap.c */
    csrr a0, mcause
    call riscv_trap

    /* Back in this task (maybe much later, after other tasks ran). */
    REG_L t0, SLOT(16)(sp)
    csrw mepc, t0
    li t0, MSTATUS_MPIE_MPP
    csrs mstatus, t0
    REG_L ra, SLOT(0)(sp)
    REG_L t0, SLOT(1)(sp)
    REG_L t1, SLOT(2)(sp)
    REG_L t2, SLOT(3)(sp)
    REG_L a0, SLOT(4)(sp)
    REG_L a1, SLOT(5)(sp)
    REG_L a2, SLOT(6)(sp)
    REG_L a3, SLOT(7)(sp)
    REG_L a4, SLOT(8)(sp)
    REG_L a5, SLOT(9)(sp)
    REG_L a6, SLOT(10)(sp)
    REG_L a7, SLOT(11)(sp)
    REG_L t3, SLOT(12)(sp)
    REG_L t4, SLOT(13)(sp)
    REG_L t5, SLOT(14)(sp)
    REG_L t6, SLOT(15)(sp)
    addi sp, sp, TRAP_FRAME
    mret
