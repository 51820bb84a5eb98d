/*
 * Tasks: creation, deletion, suspension, delays, priorities, periodic jobs.
 *
 * A task has a base priority (set by its creator or pr_task_set_priority) and
 * an effective priority, which the scheduler uses. The effective priority is
 * never stored as a snapshot: it is always recomputed as the maximum of the
 * base priority and what every mutex the task still holds lends it (under
 * priority inheritance: the effective priority of that mutex's most urgent
 * waiter). See docs/semantics.md.
 *
 * Periodic tasks: a task with period T > 0 is released at its phase and every
 * T ticks after it. Job k (k = 1, 2, ...) is released at phase + (k-1) T and
 * has the absolute deadline phase + (k-1) T + D. The task's body ends a job
 * with pr_task_wait_period(). A task with period 0 has exactly one job,
 * released at its phase, which ends when its entry function returns.
 *
 * Arrival and release: job k arrives at phase + (k-1) T and is released at
 * that arrival + O + j_k, O the task's phase offset and j_k in [0, J] drawn
 * from the task's seeded generator (J = 0: j_k = 0); its deadline counts
 * from its arrival. A
 * sporadic task's jobs arrive by pr_task_release, at least its minimum
 * interarrival time apart ([Tokuda-Nakajima 1993], section 2.1). See
 * docs/semantics.md.
 *
 * A deadline miss is detected at the deadline tick of a job that has not
 * completed: it is counted, traced, and the task's watchdog (if any) is woken.
 */
#ifndef PRIORA_TASK_H
#define PRIORA_TASK_H

#include "priora/types.h"

typedef void (*pr_entry_t)(void *arg);

typedef struct pr_task_attr {
    const char *name;     /* up to PR_CONFIG_NAME_LEN-1 characters; NULL = "" */
    pr_prio_t priority;   /* base priority, in the real-time band (timeshare.h: K .. PR_PRIO_MAX);
                             ignored for a time-sharing task */
    pr_entry_t entry;     /* the task's body; required */
    void *arg;            /* passed to entry */
    pr_ticks_t period;    /* ticks; 0 = one job only */
    pr_ticks_t phase;     /* absolute tick of the first release; 0 or past = at once */
    pr_ticks_t deadline;  /* relative, ticks; 0 = the period (no deadline if both are 0) */
    pr_id_t watchdog;     /* task woken on each deadline miss, or PR_NO_TASK */
    int sched_class;      /* PR_CLASS_REALTIME (0) or PR_CLASS_TIMESHARE (timeshare.h) */
    int nice;             /* PR_NICE_MIN .. PR_NICE_MAX, 0 by default (timeshare.h) */
    int priv_group;       /* PR_GROUP_CREATOR (0), or 1 .. PR_CONFIG_PRIV_GROUPS (privilege.h) */
    unsigned flags;       /* PR_TASK_SPORADIC, PR_TASK_DEFER_EARLY; 0 = periodic (or one job) */
    pr_ticks_t min_interarrival; /* sporadic: least ticks from one arrival to the next, >= 1 */
    pr_ticks_t jitter;    /* release jitter bound J, ticks: each job is released at its
                             arrival + j, j drawn in [0, J]; 0 = released at its arrival */
    uint32_t jitter_seed; /* seed of the task's draws of j (xorshift32); 0 is taken as 1 */
    uint32_t importance;  /* chooses the job to abort at a hard miss: the least important first */
    pr_ticks_t abort_time;/* soft: a job still running this long after its arrival is aborted; 0 = never */
    pr_ticks_t offset;    /* phase offset O ([Tokuda-Nakajima 1993]): each job is ready O ticks after
                             its arrival, before its jitter; its deadline counts from the arrival */
} pr_task_attr_t;

/* pr_task_attr_t.flags */
#define PR_TASK_SPORADIC 1u    /* jobs arrive only by pr_task_release (period and phase 0) */
#define PR_TASK_DEFER_EARLY 2u /* sporadic: a release before the minimum interarrival time has
                                  passed is deferred to the earliest allowed tick (else refused) */
#define PR_TASK_HARD 4u        /* hard deadlines: a miss aborts a job (the least important one) */

/* Fills *attr with defaults: no name, priority 0, no entry, one job at once,
 * no deadline, no watchdog, real-time, nice 0, the creator's privilege group,
 * not sporadic, no jitter, no phase offset. */
void pr_task_attr_init(pr_task_attr_t *attr);

typedef enum pr_task_state {
    PR_TASK_FREE = 0,     /* not allocated */
    PR_TASK_READY,        /* ready or running */
    PR_TASK_BLOCKED,      /* waiting on a semaphore */
    PR_TASK_DELAYED,      /* in pr_task_delay */
    PR_TASK_WAIT_RELEASE, /* waiting for its next (or first) release */
    PR_TASK_WAIT_MISS,    /* a watchdog waiting in pr_task_wait_miss */
    PR_TASK_DONE,         /* its body returned: nothing more will run */
    PR_TASK_WAIT_COND,    /* waiting on a condition variable (cond.h) */
    PR_TASK_WAIT_EVENTS,  /* waiting on event flags (events.h) */
    PR_TASK_WAIT_SEND,    /* waiting for room in a message queue (msgq.h) */
    PR_TASK_WAIT_RECEIVE  /* waiting for a message (msgq.h) */
} pr_task_state_t;

typedef struct pr_task_status {
    pr_id_t id;
    char name[PR_CONFIG_NAME_LEN];
    pr_task_state_t state;
    int suspended;             /* 1 if suspended (whatever the state) */
    pr_prio_t base_priority;
    pr_prio_t effective_priority;
    pr_id_t blocked_on;        /* semaphore waited on (pcp: the mutex asked for, also when
                                  the system ceiling blocks it), or PR_NO_SEM */
    int mutexes_held;
    uint32_t jobs_released;
    uint32_t jobs_completed;
    uint32_t deadline_misses;
    uint64_t cpu_time;         /* in port time units (ns on the host port) */
    pr_ticks_t period, phase, deadline;
    pr_id_t watchdog;
    pr_id_t cond_on;           /* condition variable waited on, or PR_NO_COND */
    uint32_t aborts;           /* rcs: its critical sections aborted so far */
    uint32_t aborts_pending;   /* rcs: aborts it has not yet been told of (pr_sem_aborted) */
    pr_id_t events_on;         /* event flags waited on, or PR_NO_EVENTS */
    pr_id_t msgq_on;           /* message queue waited on (to send or to receive), or PR_NO_MSGQ */
    int sched_class;           /* PR_CLASS_REALTIME or PR_CLASS_TIMESHARE (timeshare.h) */
    int nice;
    uint32_t usage;            /* time sharing: its decayed recent CPU usage, ticks (timeshare.h) */
    int priv_group;            /* privilege.h */
    unsigned flags;            /* as created (PR_TASK_*) */
    pr_ticks_t min_interarrival, jitter;
    uint32_t arrivals;         /* jobs arrived (released, or waiting for their jittered release) */
    uint32_t releases_refused; /* sporadic: pr_task_release calls refused as too early */
    uint32_t releases_deferred;/* sporadic: early releases deferred so far (arrived or not) */
    uint32_t releases_pending; /* sporadic: deferred releases that have not arrived yet */
    pr_ticks_t max_jitter;     /* the largest release - arrival - offset seen, ticks */
    uint32_t importance;
    pr_ticks_t abort_time;
    uint32_t hard_misses;      /* of deadline_misses, those of a hard task (the rest are soft) */
    uint32_t jobs_aborted;     /* its jobs aborted (a hard miss chose it, or its abort time) */
    int job_aborted;           /* 1 while its current job is aborted and not ended */
    pr_ticks_t offset;         /* as created */
} pr_task_status_t;

/* Creates a task from the pool and returns its id in *id. A deadline with
 * period 0 gives the single job that deadline.
 * Errors: PR_EINVAL (attr or id NULL, no entry, priority out of range or
 * below the real-time band, name too long, period or deadline above
 * UINT32_MAX, class unknown or time sharing without the band, nice or
 * group out of range; see docs/api.md), PR_EBADID (watchdog id outside the
 * pool), PR_ENOTALLOC (watchdog not allocated), PR_ENOSPC (no free
 * descriptor), PR_EPRIV_RT / PR_EPRIV_PRIO / PR_EPRIV_GROUP (a real-time
 * task, a priority above the creator's, a group not the creator's, without
 * the privilege: privilege.h). Callable from a task, an interrupt or outside the kernel; a
 * created task more urgent than the caller preempts it at once. */
int pr_task_create(const pr_task_attr_t *attr, pr_id_t *id);

/* Deletes a task (possibly the caller). A task waiting on a semaphore is
 * removed from its wait list, and the holder's priority is recomputed.
 * Errors: PR_EBADID, PR_ENOTALLOC, PR_EBUSY (the task holds a mutex: its
 * waiters would wait forever; release first). */
int pr_task_delete(pr_id_t id);

/* Suspends a task (possibly the caller) until pr_task_resume. A suspended
 * task that is woken (its semaphore, its delay) stays suspended. Errors:
 * PR_EBADID, PR_ENOTALLOC, PR_ESTATE (already suspended or done). */
int pr_task_suspend(pr_id_t id);
int pr_task_resume(pr_id_t id); /* PR_ESTATE if not suspended */

/* Blocks the caller for `ticks` ticks: it becomes ready at tick k + ticks, k
 * the tick the calling instant belongs to (port.h: pr_port_tick_due).
 * 0 yields to the other ready tasks of its priority. Errors: PR_ECONTEXT
 * (not called from a task), PR_EINVAL (PR_FOREVER), PR_EJOBABORTED (its
 * job was aborted while it waited: the delay ends then). */
int pr_task_delay(pr_timeout_t ticks);

/* Puts the caller behind the other ready tasks of its priority. */
int pr_task_yield(void);

/* Sets a real-time task's base priority; the effective priority is
 * recomputed and the task moves to its new place in the ready queue or in
 * the wait list it sits in; inheritance along a chain follows. Errors:
 * PR_EBADID, PR_ENOTALLOC, PR_EINVAL (priority out of range or below the
 * real-time band), PR_ESTATE (task done, or time-sharing: timeshare.h's
 * pr_task_rtprio moves it), PR_EPRIV_RT, PR_EPRIV_PRIO (privilege.h). */
int pr_task_set_priority(pr_id_t id, pr_prio_t priority);

/* Ends the caller's current job and waits for its next release. Returns at
 * once if that release is already due (an overrun). Errors: PR_ECONTEXT,
 * PR_ESTATE (the caller is neither periodic nor sporadic). */
int pr_task_wait_period(void);

/* A job of a sporadic task arrives now (its release follows after its
 * jitter, drawn as for a periodic task). Arrivals are at least the task's
 * minimum interarrival time apart: one that comes earlier is refused
 * (PR_EAGAIN, counted in releases_refused) or, with PR_TASK_DEFER_EARLY,
 * deferred to the earliest allowed tick (returns PR_OK; deferred ones
 * queue, each min_interarrival after the one before). The job's deadline
 * counts from its arrival. Any context (task, interrupt, timer action,
 * outside the kernel). O(1). Errors: PR_EBADID, PR_ENOTALLOC, PR_ESTATE
 * (not sporadic, or done), PR_EAGAIN, PR_EOVERFLOW (2^32-1 deferred
 * releases pending). */
int pr_task_release(pr_id_t id);

/* 1 if the calling task's current job was aborted (a hard miss chose it,
 * or its abort time came) and the task has not ended it yet
 * (pr_task_wait_period, or its body's return); 0 otherwise, and outside a
 * task. An aborted job should release its mutexes and end: the kernel
 * never takes them (docs/semantics.md). Any context; O(1). */
int pr_task_aborted(void);

/* For a watchdog: waits until a task that names the caller as its watchdog
 * misses a deadline. Returns the number of misses reported since the last
 * call (>= 1) and stores the id of the latest missing task in *who (if not
 * NULL). Errors: PR_ECONTEXT, PR_EAGAIN (PR_NO_WAIT and no miss pending),
 * PR_ETIMEDOUT. */
int pr_task_wait_miss(pr_timeout_t timeout, pr_id_t *who);

/* The calling task's id, or PR_NO_TASK outside a task (interrupt, before the
 * kernel started, the idle task). */
pr_id_t pr_task_self(void);

/* Reads a task's status. Errors: PR_EBADID, PR_ENOTALLOC, PR_EINVAL (NULL). */
int pr_task_status(pr_id_t id, pr_task_status_t *status);

#endif /* PRIORA_TASK_H */
