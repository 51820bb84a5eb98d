/*
 * QEMU virt's memory map as the port uses it (hw/riscv/virt.c), shared by
 * the port's files (riscv.h) and its inline functions for the kernel
 * (port_inline.h).
 */
#ifndef PRIORA_RISCV_VIRT_H
#define PRIORA_RISCV_VIRT_H

#define VIRT_TEST_BASE 0x00100000u             /* sifive_test: write to power off */
#define CLINT_BASE 0x02000000u
#define CLINT_MSIP (CLINT_BASE + 0x0u)          /* hart 0's software interrupt */
#define CLINT_MTIMECMP (CLINT_BASE + 0x4000u)   /* hart 0 */
#define CLINT_MTIME (CLINT_BASE + 0xBFF8u)
#define UART0_BASE 0x10000000u                  /* NS16550A */
#define MTIME_HZ 10000000u                      /* virt's mtime: 10 MHz, 100 ns per count */
#define NS_PER_MTIME (1000000000u / MTIME_HZ)

#endif
