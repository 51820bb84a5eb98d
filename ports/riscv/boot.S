/*
 * Boot: the first instructions QEMU runs. With `-bios none`, QEMU's reset
 * code jumps to the start of RAM (0x80000000) in machine mode; link.ld puts
 * this section there. Before any C code can run we need:
 *   - one hart only: the kernel is single-core, other harts park in wfi;
 *   - gp = __global_pointer$, so that the linker's gp-relative accesses to
 *     small globals (.sdata/.sbss) hit them. It is loaded with relaxation
 *     off, or the linker would "relax" this very load against gp itself;
 *   - sp = the top of the boot stack (the program's stack: main runs on it);
 *   - .bss zeroed (C's static storage starts at 0; QEMU does not clear RAM
 *     for us, and a reset must not keep the previous values);
 *   - mtvec = the trap table, vectored mode (vector.S);
 * then main(), whose return value powers QEMU off.
 */
#include "asm.h"

    .section .text.boot, "ax"
    .globl _start
_start:
    csrr t0, mhartid
    bnez t0, park

    .option push
    .option norelax
    la gp, __global_pointer$
    .option pop

    la sp, __boot_stack_top

    la t0, __bss_start
    la t1, __bss_end
1:  bgeu t0, t1, 2f
    REG_S zero, 0(t0)
    addi t0, t0, REGBYTES
    j 1b
2:
    la t0, riscv_trap_table
    ori t0, t0, 1             /* mode 1 (vectored): interrupt n enters at table + 4n */
    csrw mtvec, t0

    call riscv_main           /* main.c: runs main(), then powers off */

park:
    wfi
    j park
