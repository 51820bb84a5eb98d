/*
 * What the RISC-V port's files share: the QEMU virt memory map, CSR access,
 * and the port's internal functions. Programs use priora/riscv.h instead.
 */
#ifndef PRIORA_RISCV_INTERNAL_H
#define PRIORA_RISCV_INTERNAL_H

#include "priora/priora.h"
#include "priora/port.h"
#include "priora/riscv.h"
#include "virt.h"

/* ---- QEMU virt memory map: virt.h ---- */

/* ---- CSRs ---- */
#define MSTATUS_MIE 0x8u  /* machine interrupt enable */
#define MIE_MTIE 0x80u    /* machine timer interrupt enable */
#define MIE_MSIE 0x8u     /* machine software interrupt enable */
#define MCAUSE_INTERRUPT ((uintptr_t)1 << (__riscv_xlen - 1))
#define IRQ_M_TIMER 7u
#define IRQ_M_SOFT 3u

#define csr_read(csr, var) __asm__ volatile("csrr %0, " #csr : "=r"(var))
#define csr_write(csr, v) __asm__ volatile("csrw " #csr ", %0" ::"r"((uintptr_t)(v)) : "memory")
#define csr_set(csr, v) __asm__ volatile("csrs " #csr ", %0" ::"r"((uintptr_t)(v)) : "memory")
#define csr_clear(csr, v) __asm__ volatile("csrc " #csr ", %0" ::"r"((uintptr_t)(v)) : "memory")

static inline void mmio_write32(uintptr_t addr, uint32_t v) { *(volatile uint32_t *)addr = v; }
static inline uint32_t mmio_read32(uintptr_t addr) { return *(volatile uint32_t *)addr; }
static inline void mmio_write8(uintptr_t addr, uint8_t v) { *(volatile uint8_t *)addr = v; }
static inline uint8_t mmio_read8(uintptr_t addr) { return *(volatile uint8_t *)addr; }

/* ---- the port's internals ---- */

/* The program's own context (main, on the boot stack): slot after the
 * kernel's. The kernel never names it; the port switches to it when a run
 * ends. */
#define MAIN_SLOT PR_SLOTS

/* QEMU exit codes of the port's own failures (pr_riscv_exit). */
#define EXIT_STACK_OVERFLOW 2
#define EXIT_BAD_TRAP 3
#define EXIT_BAD_CONTEXT 4

/* main.c: the program's entry, called by boot.S. */
int main(void);
void riscv_main(void);

/* context.c; pr_port_switch (port_inline.h) is the kernel's switch */
void riscv_context_reset(void);
void riscv_context_switch(int from, int to);

/* clock.c; riscv_mtime is in port_inline.h */
void riscv_clock_reset(void);
uint64_t riscv_tick_count(pr_ticks_t k);
uint64_t riscv_ns_count(uint64_t ns);
int riscv_clock_reached(uint64_t until_count);
void riscv_clock_pause(void);
void riscv_clock_resume(void);
void riscv_timer_start(uint64_t until_count);
void riscv_timer_stop(void);
void riscv_timer_interrupt(void);

/* run.c: from a kernel context, interrupts masked: back to the program. */
void riscv_run_stop(pr_riscv_stop_t why);

/* trap.c, vector.S */
void riscv_trap(uintptr_t mcause, uintptr_t mepc);
/* The machine software interrupt (CLINT msip) for programs: install a
 * handler (NULL: disable), then raise it; it is taken as soon as interrupts
 * are enabled, right after the store that raises it. The handler runs
 * between pr_isr_enter and pr_isr_exit (it may up a semaphore, say). */
void riscv_soft_irq_handler(void (*handler)(void));
void riscv_soft_irq_raise(void);
void riscv_trap_vector(void);
void riscv_tick_vector(void);
void riscv_trap_table(void);


/* uart.c, trace_sink.c */
void riscv_uart_init(void);
void riscv_trace_reset(void);

#endif
