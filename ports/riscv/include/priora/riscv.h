/*
 * The RISC-V port: the Priora kernel bare metal on QEMU's `virt` machine
 * (RV32 or RV64, machine mode, one hart), with real traps, the CLINT timer
 * as the tick and the UART as console. docs/riscv-port.md describes it.
 *
 * A program is main(): it calls pr_riscv_init, creates tasks and semaphores
 * ("outside" the kernel, as on the host port), then pr_riscv_run, which
 * starts the tasks and returns when the run is over. It may inspect the
 * kernel, drain the trace and run again. main's return value powers QEMU
 * off: 0 = pass, anything else = fail (QEMU's exit status).
 *
 * Time is port time in ns since pr_riscv_init, read from mtime (10 MHz: the
 * unit is 100 ns). Tick k is due at mtime count floor(k * 10^7 / tick_hz)
 * after init.
 */
#ifndef PRIORA_RISCV_H
#define PRIORA_RISCV_H

#include "priora/priora.h"

/* Initializes the kernel (pr_kernel_init) and the port: the clock restarts
 * at 0, the tick timer is off until pr_riscv_run. Call it again to start
 * over (it discards every task and semaphore). */
int pr_riscv_init(const pr_kernel_config_t *config);

typedef enum pr_riscv_stop {
    PR_RISCV_REACHED = 0,  /* the tick limit was reached */
    PR_RISCV_QUIESCENT = 1 /* idle with no timer armed: nothing can happen any more */
} pr_riscv_stop_t;

/* Runs the kernel's tasks until the instant of tick `until_tick` (before
 * its interrupt is taken; 0 = no limit) or until quiescence. Runs again
 * after a PR_RISCV_REACHED continue where it stopped. Port time stands
 * still between runs, as on the host port: the program's own work between
 * two runs is not the kernel's time. */
pr_riscv_stop_t pr_riscv_run(pr_ticks_t until_tick);

/* The same with the limit in port time: the run stops at the first instant
 * at or after `until_ns` (mtime's resolution is 100 ns), before a tick due
 * at that instant. UINT64_MAX = no limit. */
pr_riscv_stop_t pr_riscv_run_until(uint64_t until_ns);

/* Code of the program's own in the tick interrupt, as the host port's
 * pr_host_set_tick_hook: after the tick's kernel work (pr_kernel_tick) and
 * before pr_isr_exit, in interrupt context. NULL: none (the default, and
 * after pr_riscv_init). With a hook every tick takes the full path
 * (pr_isr_enter, pr_kernel_tick, the hook, pr_isr_exit). */
void pr_riscv_set_tick_hook(void (*fn)(void *arg), void *arg);

/* Port time now (ns since pr_riscv_init). */
uint64_t pr_riscv_now(void);

/* Console (UART 16550 at 0x10000000), polled. */
void pr_riscv_putc(char c);
void pr_riscv_puts(const char *s);
void pr_riscv_put_dec(uint64_t v);
void pr_riscv_put_hex(uint64_t v, int digits);

/*
 * The trace over the UART (the format is in docs/riscv-port.md):
 *   PRIORA-TRACE BEGIN <label> tick_hz=<hz>
 *   T <48 hex digits: one pr_trace_record_t, its 24 bytes in memory order>
 *   N T <id> <name>         (every task), N S <id> <name> (every semaphore)
 *   PRIORA-TRACE END <label> records=<n> lost=<n>
 * T lines may also come out in the middle of a run, when the kernel's ring
 * is full (pr_port_trace_full). begin prints the header; end drains what is
 * left and prints the names and the footer.
 */
void pr_riscv_trace_begin(const char *label);
void pr_riscv_trace_end(const char *label);

/*
 * The trace kept in RAM during a run, for programs that the UART must not
 * disturb (the scenario runner, the kernel's test programs). By default the
 * sink prints records as soon as the kernel's ring is full, from inside the
 * kernel call that found it full, and every UART write takes virtual time.
 * Once a program gives the sink a buffer, a full ring is moved into the
 * buffer instead, a few records at a time, and nothing is printed before
 * pr_riscv_trace_end, which prints the buffer, then the rest of the ring. A
 * full buffer is not drained: the kernel then drops records and counts them
 * (pr_trace_lost), and the END line says so.
 */

/* Keep records in `buffer` (room for `capacity` records) from now on; NULL
 * prints them over the UART again. pr_riscv_init empties the buffer but
 * keeps it. */
void pr_riscv_trace_store(pr_trace_record_t *buffer, size_t capacity);

/* Records in the buffer now. */
size_t pr_riscv_trace_stored(void);

/* Powers QEMU off through the virt test device: code 0 = pass (QEMU exits
 * with 0), else fail (QEMU exits with `code`, at most 0xFFFF). */
_Noreturn void pr_riscv_exit(int code);

#endif /* PRIORA_RISCV_H */
