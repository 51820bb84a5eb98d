/*
 * The time-sharing band: tasks scheduled below every real-time priority.
 *
 * A kernel configured with `timeshare_levels` = K > 0 (kernel.h) splits its
 * priority levels in two bands, as HP-UX splits its priorities:
 *  - levels K .. PR_PRIO_MAX are the real-time band. A real-time task's
 *    priority is fixed by whoever sets it and never fluctuates;
 *  - levels 0 .. K-1 are the time-sharing band. A time-sharing task's
 *    priority is the kernel's, computed from its recent CPU usage and its
 *    nice value by the decay-usage rule of 4.3BSD [Leffler et al. 1989]:
 *
 *        usage   += 1 for each tick the task runs (at most 255)
 *        usage   := usage * 2/3 once per decay period (kernel.h:
 *                   timeshare_decay ticks; 4.3BSD's decay at a load of 1)
 *        penalty  = min(127, usage / 4 + 2 * (nice + 20))
 *        level    = K - 1 - penalty * K / 128
 *
 *    so a task that computes sinks, a task that sleeps rises again, and a
 *    larger nice value means a lower level for the same usage. Tasks at the
 *    same time-sharing level share the CPU in slices of timeshare_quantum
 *    ticks (round robin).
 *
 * No time-sharing task ever runs while a real-time task is ready, except
 * one that holds what a real-time task waits for: then the locking protocol
 * lends it the waiter's priority or the mutex's ceiling, which lifts it
 * into the real-time band for exactly as long as the protocol's rules
 * say, with its time-sharing level kept underneath (docs/semantics.md:
 * "Two bands"). With K = 0 (the default) there is no time-sharing band and
 * every priority is real-time, as before.
 *
 * The decay runs in the tick, in O(1): each tick charges the running task,
 * and applies the periods that have passed to one more time-sharing task,
 * in turn; a task's level is brought up to date when it is charged and at
 * least once every N ticks for N time-sharing tasks (docs/costs.md).
 */
#ifndef PRIORA_TIMESHARE_H
#define PRIORA_TIMESHARE_H

#include "priora/types.h"

typedef enum pr_sched_class {
    PR_CLASS_REALTIME = 0,  /* a fixed priority in the real-time band (the default) */
    PR_CLASS_TIMESHARE = 1  /* the time-sharing band, by decayed usage and nice */
} pr_sched_class_t;

#define PR_NICE_MIN (-20)
#define PR_NICE_MAX 19

/* pr_task_rtprio's special priorities. */
#define PR_RTPRIO_NOCHG (-1) /* read only: *old gets the task's real-time priority */
#define PR_RTPRIO_RTOFF (-2) /* the task leaves the real-time band: time sharing */

/* rtprio's semantics: moves task `id` into the real-time band at `prio`
 * (K .. PR_PRIO_MAX; a real-time task changes priority), or out of it with
 * PR_RTPRIO_RTOFF, or reads with PR_RTPRIO_NOCHG. *old (if not NULL) gets
 * the priority before the call: its real-time priority, or
 * PR_RTPRIO_RTOFF for a time-sharing task.
 *
 * A task that holds mutexes keeps them, and keeps what their waiters or
 * ceilings lend it: its effective priority is the maximum of its new base
 * and those. A task waiting on a mutex (or another object in priority
 * order) moves to its new place in the wait queue, and the holder it lends
 * to, and that holder's chain, follow (docs/semantics.md). A task that
 * leaves the band starts in the time-sharing band with its usage and nice
 * as they were.
 *
 * Errors: PR_EBADID, PR_ENOTALLOC, PR_EINVAL (prio not in the real-time
 * band nor special, or PR_RTPRIO_RTOFF without a time-sharing band),
 * PR_ESTATE (the task is done), PR_EPRIV_RT (moving into or within the
 * band, and the caller lacks PR_PRIV_RTPRIO), PR_EPRIV_PRIO (another task,
 * or raising its own, without PR_PRIV_SETPRIO: privilege.h). */
int pr_task_rtprio(pr_id_t id, pr_prio_t prio, pr_prio_t *old);

/* Sets a task's nice value (PR_NICE_MIN .. PR_NICE_MAX; 0 at creation
 * unless its attributes say otherwise); *old (if not NULL) gets the value
 * before. Real-time tasks keep theirs for when they return to time sharing.
 * Errors: PR_EBADID, PR_ENOTALLOC, PR_EINVAL (out of range), PR_ESTATE
 * (done), PR_EPRIV_PRIO (another task, or a lower nice value for its own,
 * without PR_PRIV_SETPRIO). */
int pr_task_set_nice(pr_id_t id, int nice, int *old);

#endif /* PRIORA_TIMESHARE_H */
