/*
 * Assembly helpers shared by the .S files: one source for RV32 and RV64.
 * A register is XLEN bits wide; these macros pick the matching load, store
 * and size, so the trap vector and the context switch are written once.
 */
#ifndef PRIORA_RISCV_ASM_H
#define PRIORA_RISCV_ASM_H

#if __riscv_xlen == 64
#define REG_S sd
#define REG_L ld
#define REGBYTES 8
#elif __riscv_xlen == 32
#define REG_S sw
#define REG_L lw
#define REGBYTES 4
#else
#error "unsupported XLEN"
#endif

/* Frames keep sp 16-byte aligned, as the psABI requires at every call. */
#define ALIGN16(n) (((n) + 15) & ~15)

/* Context switch frame (switch.S): ra, s0..s11, under the saved sp. */
#define SWITCH_REGS 13
#define SWITCH_FRAME ALIGN16(SWITCH_REGS * REGBYTES)

/* Trap frame (vector.S): ra, t0..t6, a0..a7 (the caller-saved registers),
 * then mepc. */
#define TRAP_REGS 17
#define TRAP_FRAME ALIGN16(TRAP_REGS * REGBYTES)

#endif
