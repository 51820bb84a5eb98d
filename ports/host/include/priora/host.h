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

/*
 * The driver's own code in the tick interrupt (NULL after pr_host_init: the
 * interrupt runs the kernel's tick work only). fn(arg) is called at every
 * tick, after pr_kernel_tick and before the tick's cost and pr_isr_exit, so
 * its kernel calls are made from interrupt context, as a device's handler
 * would make them: what it makes ready runs at the interrupt's exit. It must
 * not call pr_host_run_* or pr_host_consume. tests/fuzz uses it.
 */
typedef void (*pr_host_tick_hook_t)(void *arg);
void pr_host_set_tick_hook(pr_host_tick_hook_t fn, void *arg);

/*
 * Per-operation costs (docs/cost-model.md), all 0 after pr_host_init. The
 * kernel hands the host port every trace record it writes (pr_port_traced,
 * port.h), and the port adds the cost of the operation that record stands
 * for to virtual time at once, inside the kernel call, as it adds a switch's
 * cost: the records written after it, and the task's CPU time, include it.
 * Only records written while the kernel runs (inside pr_host_run_*) are
 * charged: the driver's set-up (tasks created, their first release,
 * semaphores allocated) takes no time.
 *
 * The semaphore operations, each with a cost per semaphore (its kind and
 * protocol decide it):
 *   PR_HOST_OP_TAKE         DOWN with arg0 = 0 and PR_OK: taken without waiting
 *                           (a unit, a free mutex, an rcs take-over)
 *   PR_HOST_OP_TAKE_FAILED  DOWN with arg0 = 0 and an error: a down that did not
 *                           wait and got nothing (no-wait, PR_EABORTED, ...)
 *   PR_HOST_OP_BLOCK        BLOCK: the caller is about to wait (again at every
 *                           pcp retry that waits)
 *   PR_HOST_OP_GIVE         UP with PR_OK that woke nobody
 *   PR_HOST_OP_GIVE_WAKE    UP with PR_OK that woke a waiter (handed it the mutex)
 * A DOWN with arg0 = 1 (the end of a wait) and an UP that failed cost nothing.
 */
typedef enum pr_host_op {
    PR_HOST_OP_TAKE = 0,
    PR_HOST_OP_TAKE_FAILED = 1,
    PR_HOST_OP_BLOCK = 2,
    PR_HOST_OP_GIVE = 3,
    PR_HOST_OP_GIVE_WAKE = 4,
    PR_HOST_OPS = 5
} pr_host_op_t;

/* The cost of `op` on semaphore `sem` (0..PR_CONFIG_MAX_SEMS-1, allocated or
 * not). PR_EBADID for another id, PR_EINVAL for another op. */
int pr_host_set_sem_cost(pr_id_t sem, int op, uint64_t ns);

/* The cost of every record of `event` (pr_trace_event_t), e.g. PR_EV_RELEASE,
 * PR_EV_JOB_DONE, PR_EV_PRIO, PR_EV_ABORT. PR_EINVAL for an unknown event and
 * for those charged otherwise: SWITCH (pr_host_set_costs), DOWN, BLOCK and UP
 * (pr_host_set_sem_cost). */
int pr_host_set_event_cost(int event, uint64_t ns);

/* The cost of a preemption, on top of switch_ns: charged at every SWITCH
 * whose task switched out (not the idle task) is still ready (preempted, or
 * it yielded), where a kernel spends more than at a switch away from a task
 * that blocked (whose blocking operation has its own cost). */
void pr_host_set_preempt_cost(uint64_t ns);

/* Consumes ns of CPU time in the calling task (= pr_port_consume); stops at
 * once while the task has an abort it has not been told of (pr_sem_aborted). */
void pr_host_consume(uint64_t ns);

/* Every trace record since pr_host_init (drains the kernel's ring). The
 * pointer stays valid until the next kernel activity. */
const pr_trace_record_t *pr_host_trace(size_t *count);

/* From now until the next pr_host_init, pr_host_trace keeps only the
 * records of these events (pr_trace_drain_events: bit e for event e, LOST
 * records always): a run read for a few kinds of records keeps and
 * converts only those. pr_host_init sets PR_TRACE_ALL. Records already
 * kept stay. */
void pr_host_trace_keep(uint64_t events);

/* One record as a line of text, times in ticks ("2", "2.5"), names of tasks
 * and semaphores resolved. Returns buf. */
char *pr_host_trace_line(const pr_trace_record_t *r, char *buf, size_t size);

/* Prints every collected record whose event is in `events` (a bit mask of
 * 1u << PR_EV_..., 0 = all), one per line. */
void pr_host_trace_print(FILE *out, uint64_t events);

/* Writes every collected record to `out` as one trace dump (docs/trace-format.md,
 * "The trace dump"): the frame the RISC-V port prints over its UART, with the
 * names of the tasks and semaphores that exist now, and the time now. `label`
 * names the run (no spaces). `priora trace FILE` reads it. */
void pr_host_trace_dump(FILE *out, const char *label);

#endif /* PRIORA_HOST_H */
