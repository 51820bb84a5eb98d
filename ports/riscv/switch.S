/*
 * The context switch: void riscv_switch(uintptr_t *save_sp, uintptr_t load_sp).
 *
 * Called as a C function, so the caller has already saved whatever
 * caller-saved registers it needs: only the callee-saved ones (s0..s11),
 * the return address and the stack pointer make up a suspended context.
 * They are stored just below the current stack pointer, sp is stored in
 * *save_sp, and the other context's registers are loaded from just below
 * load_sp, which becomes sp; `ret` then returns into the other context,
 * where its own call to riscv_switch returned (or, for a new context, into
 * the entry that context.c put in its frame).
 *
 * Below sp, without moving sp down and up again: nothing else writes there
 * meanwhile, because interrupts are masked at every switch and a suspended
 * context's stack is its own. Two instructions fewer per switch.
 *
 * Frame layout, REGBYTES each, downwards from the saved sp: ra s0 s1 ... s11.
 */
#include "asm.h"

#define SLOT(n) (-((n) + 1) * REGBYTES)

    .section .text
    .globl riscv_switch
riscv_switch:
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

    REG_L ra, SLOT(0)(a1)
    REG_L s0, SLOT(1)(a1)
    REG_L s1, SLOT(2)(a1)
    REG_L s2, SLOT(3)(a1)
    REG_L s3, SLOT(4)(a1)
    REG_L s4, SLOT(5)(a1)
    REG_L s5, SLOT(6)(a1)
    REG_L s6, SLOT(7)(a1)
    REG_L s7, SLOT(8)(a1)
    REG_L s8, SLOT(9)(a1)
    REG_L s9, SLOT(10)(a1)
    REG_L s10, SLOT(11)(a1)
    REG_L s11, SLOT(12)(a1)
    mv sp, a1
    ret
