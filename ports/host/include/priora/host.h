/*
 * The host port: the Priora kernel as a library on Linux, with a virtual
 * clock in nanoseconds. Nothing depends on real time: the same program gives
 * the same trace, byte for byte, every run.
 *
 * Time only advances when a task consumes CPU time (pr_host_consume) or when
 * the CPU is idle. The tick interrupt of tick k is due at time
 * k * 1e9 / tick_hz; it is taken as soon as time has reached it and the CPU
 * is about to advance further, so a kernel call made at the very instant of
 * a tick (a job completing exactly at its deadline) runs before that tick.
 *
 * The program that calls pr_host_run_* is "outside" the kernel: it creates
 * tasks and semaphores, runs the kernel for a while, inspects it, and may
 * run it again.
 */
#ifndef PRIORA_HOST_H
#define PRIORA_HOST_H

#include <stdio.h>
#include "priora/priora.h"

/* Initializes the kernel (pr_kernel_init) and the virtual clock (time 0),
 * and empties the collected trace. */
int pr_host_init(const pr_kernel_config_t *config);

typedef enum pr_host_stop {
    PR_HOST_REACHED = 0,  /* the requested time was reached */
    PR_HOST_QUIESCENT = 1 /* idle with no timer armed: nothing can happen any more */
} pr_host_stop_t;

/* Runs the kernel until virtual time `until_ns` (or quiescence). */
pr_host_stop_t pr_host_run_until(uint64_t until_ns);

/* Runs until the instant of tick `tick` (before its interrupt is taken). */
pr_host_stop_t pr_host_run_ticks(pr_ticks_t tick);

/* Virtual time now (ns), and the time of tick k. */
uint64_t pr_host_now(void);
uint64_t pr_host_tick_time(pr_ticks_t k);

/*
 * Overheads charged in virtual time (all 0 after pr_host_init: kernel work
 * takes no time). A real CPU spends time in every context switch and every
 * tick interrupt, so on hardware a compute that would end exactly at a
 * tick's instant ends a little after it, and the tick is taken first. A
 * nonzero cost reproduces that order on the host: with costs, the host's
 * sequence of events (ignoring times) is the RISC-V port's.
 *   switch_ns  added at every context switch, including the start of a run
 *   tick_ns    added by every tick interrupt, after the kernel's tick work
 */
typedef struct pr_host_costs {
    uint64_t switch_ns;
    uint64_t tick_ns;
} pr_host_costs_t;

/* Sets the overheads (NULL: none). Call after pr_host_init. */
void pr_host_set_costs(const pr_host_costs_t *costs);

/* Consumes ns of CPU time in the calling task (= pr_port_consume); stops at
 * once while the task has an abort it has not been told of (pr_sem_aborted). */
void pr_host_consume(uint64_t ns);

/* Every trace record since pr_host_init (drains the kernel's ring). The
 * pointer stays valid until the next kernel activity. */
const pr_trace_record_t *pr_host_trace(size_t *count);

/* One record as a line of text, times in ticks ("2", "2.5"), names of tasks
 * and semaphores resolved. Returns buf. */
char *pr_host_trace_line(const pr_trace_record_t *r, char *buf, size_t size);

/* Prints every collected record whose event is in `events` (a bit mask of
 * 1u << PR_EV_..., 0 = all), one per line. */
void pr_host_trace_print(FILE *out, uint32_t events);

#endif /* PRIORA_HOST_H */
