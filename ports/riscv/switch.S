/*
 * The context switch: void riscv_switch(uintptr_t *save_sp, uintptr_t load_sp).
 *
 * Called as a C function, so the caller has already saved whatever
 * caller-saved registers it needs: only the callee-saved ones (s0..s11),
 * the return address and the stack pointer make up a suspended context.
 * They are pushed on the current stack, sp is stored in *save_sp, sp
 * becomes load_sp, and the other context's registers are popped from its
 * stack; `ret` then returns into the other context, where its own call to
 * riscv_switch returned (or, for a new context, into the entry that
 * context.c put in its frame).
 *
 * Frame layout (REGBYTES each): ra s0 s1 ... s11.
 */
#include "asm.h"

#define SLOT(n) ((n) * REGBYTES)

    .section .text
    .globl riscv_switch
riscv_switch:
    addi sp, sp, -SWITCH_FRAME
    REG_S ra, SLOT(0)(sp)
    REG_S s0, SLOT(1)(sp)
    REG_S s1, SLOT(2)(sp)
    REG_S s2, SLOT(3)(sp)
    REG_S s3, SLOT(4)(sp)
    REG_S s4, SLOT(5)(sp)
    REG_S s5, SLOT(6)(sp)
    REG_S s6, SLOT(7)(sp)
    REG_S s7, SLOT(8)(sp)
    REG_S s8, SLOT(9)(sp)
    REG_S s9, SLOT(10)(sp)
    REG_S s10, SLOT(11)(sp)
    REG_S s11, SLOT(12)(sp)
    REG_S sp, 0(a0)

    mv sp, a1
    REG_L ra, SLOT(0)(sp)
    REG_L s0, SLOT(1)(sp)
    REG_L s1, SLOT(2)(sp)
    REG_L s2, SLOT(3)(sp)
    REG_L s3, SLOT(4)(sp)
    REG_L s4, SLOT(5)(sp)
    REG_L s5, SLOT(6)(sp)
    REG_L s6, SLOT(7)(sp)
    REG_L s7, SLOT(8)(sp)
    REG_L s8, SLOT(9)(sp)
    REG_L s9, SLOT(10)(sp)
    REG_L s10, SLOT(11)(sp)
    REG_L s11, SLOT(12)(sp)
    addi sp, sp, SWITCH_FRAME
    ret
