/*
 * The trap vector: mtvec in vectored mode points at riscv_trap_table, so an
 * interrupt of cause n enters at table + 4n and an exception at the table's
 * first entry, in machine mode, with mstatus.MIE cleared by the hardware
 * (the previous MIE is in mstatus.MPIE) and the interrupted pc in mepc.
 * The machine timer interrupt (cause 7) goes straight to riscv_tick_vector,
 * which calls the tick's handler without reading mcause, and the machine
 * software interrupt (cause 3) to riscv_soft_vector, which calls the
 * program's handler the same way; every other trap goes to
 * riscv_trap_vector, which hands mcause to riscv_trap (trap.c).
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
#define MSIP 0x02000000         /* CLINT_MSIP (virt.h, whose constants are C's) */

/* The caller-saved registers and mepc into a new frame on the stack. */
.macro TRAP_ENTER
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
.endm

/* Back in this task (maybe much later, after other tasks ran): the frame
 * out, mstatus rebuilt for mret (see above), return. */
.macro TRAP_LEAVE
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
.endm

    .section .text
    /* The table: one 4-byte jump per cause, up to the machine external
     * interrupt (11); no compressed jumps, so that entry n is at 4n. mtvec's
     * low two bits are the mode: the table is 4-byte aligned (64 where some
     * cores want it). */
    .balign 64
    .globl riscv_trap_table
riscv_trap_table:
    .option push
    .option norvc
    j riscv_trap_vector       /* 0: exceptions */
    j riscv_trap_vector       /* 1: supervisor software interrupt */
    j riscv_trap_vector       /* 2 */
    j riscv_soft_vector       /* 3: machine software interrupt */
    j riscv_trap_vector       /* 4: supervisor timer interrupt */
    j riscv_trap_vector       /* 5 */
    j riscv_trap_vector       /* 6 */
    j riscv_tick_vector       /* 7: machine timer interrupt */
    j riscv_trap_vector       /* 8: supervisor external interrupt */
    j riscv_trap_vector       /* 9 */
    j riscv_trap_vector       /* 10 */
    j riscv_trap_vector       /* 11: machine external interrupt */
    .option pop

    .globl riscv_tick_vector
riscv_tick_vector:
    TRAP_ENTER
    call riscv_timer_interrupt /* clock.c */
    TRAP_LEAVE

    /* The machine software interrupt: CLINT msip back to 0 (acknowledged
     * before the handler, which may raise it again), then the program's
     * handler as interrupt code through the kernel's one call,
     * pr_isr_call(handler), which may switch to the task the handler woke.
     * No mcause, no dispatch in C: each costs this path (an interrupt that
     * wakes a task) about 20 instructions. Without a handler the interrupt
     * is enabled never (trap.c), so one taken anyway is reported as any
     * unexpected trap. */
    .globl riscv_soft_vector
riscv_soft_vector:
    TRAP_ENTER
    REG_L a0, riscv_soft_handler
    beqz a0, riscv_trap_vector_entered
    li t0, MSIP
    sw zero, 0(t0)
    call pr_isr_call            /* kernel.c */
    TRAP_LEAVE

    .globl riscv_trap_vector
riscv_trap_vector:
    TRAP_ENTER
riscv_trap_vector_entered:
    TRAP_ENTER
    /* riscv_trap(mcause, mepc): trap.c */
    csrr a0, mcause
    call riscv_trap
    TRAP_LEAVE
