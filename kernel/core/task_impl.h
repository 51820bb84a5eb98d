/*
 * The task descriptor (private). A task is in at most one queue at a time,
 * named by `queue`: the ready queue (ready.h), one wait queue (waitq.h), or
 * none (delayed, waiting for a release, suspended, done). The rest of its
 * state is grouped by the module that owns it; each field says which.
 */
#ifndef PRIORA_TASK_IMPL_H
#define PRIORA_TASK_IMPL_H

#include <string.h>
#include "priora/priora.h"
#include "priora/port.h"
#include "check.h"
#include "list.h"
#include "prio_bitmap.h"
#include "timer.h"

/* A condition that is rarely true, for the compiler's code layout: the
 * fast paths keep their common case straight, without jumps. */
#define unlikely(x) __builtin_expect(!!(x), 0)
#define likely(x) __builtin_expect(!!(x), 1)

/* "No priority": what a lender lends when it lends nothing. */
#define PRIO_NONE (-1)

/* Words of a bitmap with one bit per semaphore. */
#define SEM_WORDS ((PR_CONFIG_MAX_SEMS + 31) / 32)

/* A 64-bit count in two words, low word first. Adding 1 is one load, one
 * add and one store of the low word, plus a branch taken once in 2^32 (a
 * 32-bit CPU adds a uint64_t with a carry every time); the semaphore fast
 * paths even leave that carry to the general path (sem.c). */
typedef struct pr_count64 {
    uint32_t lo, hi;
} pr_count64_t;

/* Returns the new low word. */
static inline uint32_t count64_add1(pr_count64_t *c)
{
    uint32_t lo = ++c->lo;
    if (lo == 0)
        c->hi++;
    return lo;
}

static inline uint64_t count64_value(pr_count64_t c) { return ((uint64_t)c.hi << 32) | c.lo; }

/* a < b */
static inline int count64_before(pr_count64_t a, pr_count64_t b) { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo); }

struct pr_sem;

typedef struct pr_task {
    /* Queues (sched.c, waitq.c). qlink comes first: its address is the task's. */
    pr_link_t qlink;
    const void *queue;          /* &pr_k.ready, the pr_waitq_t it waits in, or NULL */
    int queued_level;           /* the level qlink was inserted at */

    pr_id_t id;
    pr_trace_tag_t trace_tag;   /* its id in trace records (trace_task_tag), PR_TRACE_NONE for idle */
#if PR_CONFIG_TRACE
    uint32_t trace_word;        /* its tag in a trace slot's head, and its SWITCH slot's (trace_task_words) */
    uint32_t trace_switch_word;
#endif
    pr_port_ctx_t ctx;          /* its slot's context, as pr_port_switch takes it (port.h) */
    char name[PR_CONFIG_NAME_LEN];
    pr_task_state_t state;
    int suspended;
    pr_entry_t entry;
    void *arg;

    /* Priorities (priority.c). effective = max(base, highest level in
     * lent_bitmap); lent_count[p] counts the lenders that lend it p. */
    pr_prio_t base;
    pr_prio_t effective;
    uint16_t lent_count[PR_CONFIG_PRIORITIES];
    pr_prio_bitmap_t lent_bitmap;
    int preempt_locks;          /* preemption locks held: nothing preempts it while it runs (sched.c) */
    int sched_locks;            /* of those, the ones pr_sched_lock took */

    /* Mutexes (sem_mutex.c). The task holds the mutexes whose holder it is;
     * each keeps the number of this task's take that got it. */
    pr_count64_t takes;

    /* A wait (waitq.c, sem_*.c, cond.c). down_on is the semaphore whose
     * down the task is in while it waits for it, in its wait queue or in
     * one its policy named, or is woken to try again. */
    struct pr_sem *down_on;
    struct pr_sem *relock;      /* the mutex its pr_cond_wait locks again, until it runs */
    int wait_result;            /* PR_OK, an error, or WAIT_AGAIN (sem_impl.h) */
    pr_ticks_t wait_expiry;     /* absolute tick a mutex down times out at, 0 = never */
    pr_timer_t timeout;         /* a wait's timeout, a delay, a watchdog's wait */
    union {                     /* what a wait on a message queue or event flags is for */
        struct {                /* msgq.c */
            const void *from;   /* a send: the message to take in */
            void *to;           /* a receive: where the message goes */
            int prio;           /* the message's priority (a receive: set when one is handed over) */
        } msg;
        struct {                /* events.c */
            uint32_t mask;
            unsigned options;
            uint32_t flags;     /* the flags that satisfied it, or the flags when it timed out */
        } events;
    } wait_for;

    /* Aborted critical sections (sem_mutex.c): one bit per mutex whose
     * section was aborted and whose abort the task has not been told of. */
    uint32_t aborted_on[SEM_WORDS];
    uint32_t aborts, aborts_pending;

    /* Jobs (periodic.c). */
    pr_ticks_t period, phase, rel_deadline;
    pr_ticks_t next_release;    /* tick of the arrival after the last one (periodic) */
    pr_ticks_t deadline_release;/* arrival tick of the job the deadline timer checks */
    pr_ticks_t arrival;         /* arrival tick of the latest job that arrived */
    pr_ticks_t jitter, min_interarrival, max_jitter;
    pr_ticks_t offset;          /* each release is this long after its arrival, plus the jitter drawn */
    unsigned flags;             /* PR_TASK_* */
    uint32_t jitter_state;      /* xorshift32 state, never 0 */
    int release_due;            /* release_timer is armed for a jittered release, not an arrival */
    uint32_t arrivals, refused, deferred, pending;
    uint32_t importance, hard_misses, jobs_aborted;
    pr_ticks_t abort_time;
    int job_aborted;            /* its current job is aborted and not ended */
    uint32_t abort_job;         /* the job the abort timer checks (wraps with released) */
    pr_ticks_t abort_arrival;   /* ... and its arrival */
    pr_timer_t abort_timer;
    uint32_t released, completed, misses;
    uint32_t deadline_job;      /* that job's number (wraps with released) */
    pr_timer_t release_timer;
    pr_timer_t deadline_timer;
    pr_id_t watchdog;
    uint32_t misses_pending;    /* for a watchdog: misses not yet reported */
    pr_id_t miss_who;

    /* Scheduling accounting (sched.c). slice_left also as two words: a
     * 64-bit store of 0 on a 32-bit CPU takes two registers first (GCC 12),
     * two word stores of 0 do not (sched.h: slice_give_full). */
    union {
        pr_ticks_t slice_left;
        pr_count64_t slice_words;
    };
    /* CPU time in port stamp units (port.h), also as two words, so that a
     * stamp narrower than the total (RV32) is added to the low word with a
     * carry only when it wraps (sched.c: cpu_time_add). */
    union {
        uint64_t cpu_time;
        pr_count64_t cpu_time_words;
    };
    pr_stamp_t dispatched_at;   /* stamp of its last switch in (or of a fold, sched.c) */

    /* Time sharing (timeshare.c): in the band while `timeshare`; its base
     * priority is then the kernel's, from usage and nice. */
    uint8_t timeshare;
    int8_t nice;
    uint8_t usage;              /* recent CPU usage in ticks, decayed */
    uint8_t priv_group;         /* privilege.c */
    uint8_t kernel_service;     /* the timer service task (swtimer.c): no hard miss aborts its job */
    uint8_t release_delayed;    /* an offset or a jitter: releases come after arrivals (periodic.c) */
    uint8_t arrival_traced;     /* ... or sporadic: each arrival writes an ARRIVAL record */
    uint32_t decay_epoch;       /* the decay periods applied to usage so far */
    pr_ticks_t ts_slice_left;   /* ticks left of its time-sharing slice */
    pr_link_t tslink;           /* in the list of time-sharing tasks */
} pr_task_t;

/* Task calls that other modules make (task.c). */
int task_lookup(pr_id_t id, pr_task_t **out);   /* PR_EBADID / PR_ENOTALLOC */

/* An object's name into its descriptor: zero-filled, "" for NULL;
 * PR_EINVAL if it is too long (nothing copied then). */
static inline int name_copy(char *dst, const char *src)
{
    memset(dst, 0, PR_CONFIG_NAME_LEN);
    if (src == NULL)
        return PR_OK;
    if (strlen(src) >= PR_CONFIG_NAME_LEN)
        return PR_EINVAL;
    strcpy(dst, src);
    return PR_OK;
}

/* Jobs (periodic.c). */
int periodic_check_attr(const pr_task_attr_t *attr); /* PR_EINVAL: see pr_task_create */
void periodic_setup(pr_task_t *t);
void periodic_stop(pr_task_t *t);
void periodic_job_done(pr_task_t *t);
int periodic_release(pr_task_t *t); /* pr_task_release's work on an allocated task */

#endif /* PRIORA_TASK_IMPL_H */
