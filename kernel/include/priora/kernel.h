/*
 * Kernel life cycle, time and scheduling configuration.
 *
 * A port calls pr_kernel_init(), lets the application create tasks and
 * semaphores, then starts the scheduler (the port calls pr_kernel_dispatch).
 * Time is kept in ticks; the port calls pr_kernel_tick() from its timer
 * interrupt, bracketed by pr_isr_enter()/pr_isr_exit().
 */
#ifndef PRIORA_KERNEL_H
#define PRIORA_KERNEL_H

#include "priora/types.h"

typedef struct pr_kernel_config {
    uint32_t tick_hz;      /* tick rate, for the port's timer: 1 .. 1000000 */
    pr_ticks_t quantum;    /* round-robin quantum in ticks; 0 = run until it blocks */
    /* The time-sharing band (timeshare.h): levels 0 .. timeshare_levels-1;
     * 0 = none, every level is real-time. Below PR_CONFIG_PRIORITIES. */
    int timeshare_levels;
    pr_ticks_t timeshare_quantum; /* a time-sharing slice, ticks; 0 = 10 */
    pr_ticks_t timeshare_decay;   /* the usage's decay period, ticks; 0 = tick_hz (a second) */
} pr_kernel_config_t;

/* Resets every pool and the clock. Errors: PR_EINVAL (NULL, tick_hz out of
 * range, timeshare_levels outside 0 .. PR_CONFIG_PRIORITIES-1). Calling it again discards all kernel state (for tests). */
int pr_kernel_init(const pr_kernel_config_t *config);

/* The tick count since start, and the configured tick rate. */
pr_ticks_t pr_ticks_now(void);
uint32_t pr_tick_hz(void);

/* Changes the round-robin quantum (ticks, 0 = off); the running task's
 * current slice is refilled to the new quantum. */
void pr_sched_set_quantum(pr_ticks_t quantum);

/* The scheduler lock: while the calling task holds it and runs, no other
 * task preempts it, however urgent: a switch that a wakeup, a hand-off, an
 * interrupt or the round-robin tick calls for waits for the outermost
 * pr_sched_unlock, which makes it. Interrupts still run. It nests (up to
 * 255 levels) and belongs to the task: a task that blocks or yields while
 * it holds the lock lets others run, and the lock applies again when it
 * runs again (Zephyr's k_sched_lock; FreeRTOS's vTaskSuspendAll instead
 * forbids blocking). A task's locks end with it. Cost: O(1); the unlock
 * adds at most one switch.
 * Errors: PR_ECONTEXT (not a task), PR_EOVERFLOW (255 levels held:
 * nothing changes); pr_sched_unlock: PR_ECONTEXT, PR_ESTATE (the caller
 * holds no scheduler lock). */
int pr_sched_lock(void);
int pr_sched_unlock(void);

/* Interrupt bracketing, called by ports. Inside, calls that would block fail
 * with PR_ECONTEXT and rescheduling waits for the outermost pr_isr_exit. */
void pr_isr_enter(void);
void pr_isr_exit(void);

/* pr_isr_enter(); handler(); pr_isr_exit(); in one call: an interrupt's
 * handler run as interrupt code, for a port's vector (RISC-V: the software
 * interrupt). */
void pr_isr_call(void (*handler)(void));

/* The timer interrupt's work: advances the tick count, fires the timers due
 * (releases, deadlines, timeouts, delays) and charges the round-robin
 * quantum. Called by the port between pr_isr_enter and pr_isr_exit. */
void pr_kernel_tick(void);

/* The program's own code in the tick interrupt, for a port whose tick
 * handler is pr_kernel_tick_isr (port.h; the RISC-V port): fn(arg) runs at
 * every tick, inside the interrupt, after the tick's own work and before
 * the switch it may cause, as a device's handler would (its calls are
 * interrupt-context calls). NULL removes it. Without a hook the ticks that
 * have nothing to do cost what they did; with one every tick takes the
 * full path. Any context. */
void pr_kernel_set_tick_hook(void (*fn)(void *arg), void *arg);

/* Scheduler counters (for reports). */
typedef struct pr_kernel_stats {
    uint64_t context_switches;
    uint64_t priority_changes;
    uint64_t ticks;
} pr_kernel_stats_t;
void pr_kernel_stats(pr_kernel_stats_t *stats);

/* Checks every kernel invariant (queues, values, holders, the effective
 * priorities against what is lent) and stops through the port's panic if
 * one fails: the debug and sanitizer builds (PR_CONFIG_ASSERT=1), for tests
 * and the fuzzer. Without the checks compiled in it does nothing. Returns
 * PR_OK. O(T * P + S * P); not for production use. */
int pr_kernel_check(void);

#endif /* PRIORA_KERNEL_H */
