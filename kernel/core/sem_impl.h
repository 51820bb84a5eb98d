/*
 * The semaphore descriptor (private) and the inline pieces that both the
 * general paths (sem_counting.c, sem_mutex.c) and the fast paths (sem.c)
 * are built from: a wait begins (sem_wait_begin), a wait ends
 * (sem_wait_end), a unit or a mutex changes hands (sem_hold). A fast path
 * is a general path with the case it serves known in advance, never a copy.
 *
 * Invariants, true whenever no kernel call is running (sem_check):
 *  - counting: value < 0  <=>  -value tasks wait (waiters == -value), and
 *    value <= max;
 *  - mutex: no holder  =>  value 1 and nobody waits; a holder  =>  value
 *    -waiters (derived, sem_value), depth >= 1;
 *  - waiters == the tasks in its wait queue, each with down_on == it;
 *    remote == the tasks with down_on == it that are not in its queue
 *    (waiting in a queue its policy named, or woken to try again);
 *  - an up that finds waiters hands the unit (the mutex) to exactly one:
 *    nobody can take it in between.
 */
#ifndef PRIORA_SEM_IMPL_H
#define PRIORA_SEM_IMPL_H

#include "priority.h"

struct pr_policy;

/* What the fast paths (sem.c) may do with a semaphore: the sign is the
 * test. Negative: a counting semaphore. Positive: a mutex whose policy
 * declares that the fast paths may carry out its decisions themselves
 * (policy.h: fast; 2 if it lends its first waiter's priority, 1 if it lends
 * nothing). 0: neither (a free descriptor, a recursive mutex, a mutex whose
 * policy acts on every take and give). A copy of the policy's declaration,
 * made at allocation (PR_ASSERT checks it on the fast paths), so that the
 * test is one load from the descriptor. */
enum sem_fast { SEM_FAST_COUNTING = -1, SEM_FAST_NONE = 0, SEM_FAST_MUTEX = 1, SEM_FAST_INHERIT = 2 };

/* The wait result of a task woken to try its down again (its policy made it
 * wait for something that is gone); never returned by a call. */
#define WAIT_AGAIN 1

/* A descriptor's size: a power of two, so that finding one by id is a shift
 * (the fast paths do it on every call). Its wait queue, the largest part,
 * and what the fast paths never read live beside it (sem_pool.c). */
#define SEM_BYTES (PR_CONFIG_NAME_LEN <= 32 ? 128 : PR_CONFIG_NAME_LEN <= 160 ? 256 : 1024)

typedef struct pr_sem {
    /* First the fields the fast paths use. */
    _Alignas(SEM_BYTES) int value; /* counting: the value; a mutex's is derived (sem_value) */
    int8_t fast;                /* enum sem_fast */
    uint8_t allocated;          /* in the allocated list, not the free one */
    uint8_t trace_tag;          /* its index, as a trace record's object byte */
    pr_lender_t lender;         /* mutex: its holder, and what its waiters lend it */
    int max;                    /* largest value an up may reach (INT_MAX if none given) */
    int waiters;                /* tasks in its wait queue */
    pr_count64_t taken;         /* mutex: the holder's take number that got it */
    uint32_t downs;             /* statistics: pr_sem_stats_t.downs */
    pr_waitq_t *waitq;          /* its wait queue (beside the pool, by index) */

    uint32_t unreserved;        /* downs that kept no unit (sem_pool.c: ups is derived) */
    uint32_t max_waiters;
    pr_link_t pool_link;        /* in the free list or the allocated list */
    pr_id_t index;
    unsigned flags;
    const struct pr_policy *policy;
    pr_prio_t ceiling;
    int init_value;
    pr_id_t owner;
    char name[PR_CONFIG_NAME_LEN];
} pr_sem_t;

/* Beside each descriptor: what the fast paths never read. */
typedef struct pr_sem_more {
    int depth;                  /* mutex: times its holder locked it */
    int remote;                 /* see the invariants above */
    int relockers;              /* tasks in pr_cond_wait that will lock it again */
    int abort_marks;            /* holders whose section on it was aborted, not yet told */
    uint32_t aborts;            /* statistics: pr_sem_stats_t.aborts */
    pr_sem_recovery_t recovery; /* its sections' recovery (sem.h), fn NULL for none */
    int recovering;             /* its holder is running the recovery */
} pr_sem_more_t;

/* The pool and what lies beside it, by index (state.c). */
extern pr_sem_t *pr_sem_pool;
extern pr_waitq_t pr_sem_waitqs[PR_CONFIG_MAX_SEMS];
extern pr_sem_more_t pr_sem_mores[PR_CONFIG_MAX_SEMS];

static inline pr_sem_more_t *sem_more(const pr_sem_t *s) { return &pr_sem_mores[s->index]; }

static inline int sem_is_mutex(const pr_sem_t *s) { return (s->flags & PR_SEM_MUTEX) != 0; }
static inline int sem_is_recursive(const pr_sem_t *s) { return (s->flags & PR_SEM_RECURSIVE) != 0; }
static inline pr_task_t *sem_holder(const pr_sem_t *s) { return s->lender.holder; }

/* The value as the API gives it (sem.h); mutex_value for a mutex. */
static inline int mutex_value(const pr_sem_t *s) { return s->lender.holder != NULL ? -s->waiters : 1; }

static inline int sem_value(const pr_sem_t *s)
{
    if (!sem_is_mutex(s))
        return s->value;
    return mutex_value(s);
}

/* The semaphore whose queue q is (for a mutex's policy: m->waitq's). */
static inline pr_sem_t *sem_of_queue(const pr_waitq_t *q) { return &pr_sem_pool[q->id]; }

/* ---- the pieces ---- */

/*
 * t, the calling task, begins to wait in a down on s: it joins q (s's own
 * queue, or one s's policy named) and, unless the timeout is PR_FOREVER,
 * its timer is armed for the tick `expiry` (computed when the call began).
 * A counting value goes one further below zero. The caller then switches
 * away. `counting` and `own` (q is s's queue) are constants where the
 * caller knows them; so is `record`, 0 where the caller writes the BLOCK
 * record itself (in a merged slot, trace_impl.h).
 */
void sem_arm_timeout(pr_task_t *t, pr_ticks_t expiry);
static inline __attribute__((always_inline)) void sem_wait_begin(pr_waitq_t *q, pr_sem_t *s, pr_task_t *t,
                                                                 pr_timeout_t timeout, pr_ticks_t expiry,
                                                                 int counting, int own, int record)
{
    if (counting)
        s->value--;
    if (own) {
        s->waiters++;
        if ((uint32_t)s->waiters > s->max_waiters)
            s->max_waiters = (uint32_t)s->waiters;
    } else {
        sem_more(s)->remote++;
    }
    t->down_on = s;
    t->state = PR_TASK_BLOCKED;
    ready_remove(&pr_k.ready, t); /* it runs, so it is there */
    waitq_insert(q, t);
    if (timeout != PR_FOREVER)
        sem_arm_timeout(t, expiry);
    if (record)
        trace_emit(PR_EV_BLOCK, t, s->trace_tag, PR_OK, 0, 0, (int32_t)timeout);
}

/*
 * t's wait in a down on s ends: it leaves q (s's own queue when `own`, a
 * constant where the caller knows it) with `result`. with_unit: an up
 * handed it the unit (or the mutex); else a counting semaphore's value
 * gets its place back. The caller makes it ready.
 */
static inline __attribute__((always_inline)) void sem_wait_end(pr_waitq_t *q, pr_sem_t *s, pr_task_t *t,
                                                               int result, int with_unit, int counting, int own)
{
    waitq_remove(q, t);
    if (own)
        s->waiters--;
    else
        sem_more(s)->remote--;
    if (counting && !with_unit)
        s->value++;
    t->down_on = NULL;
    wait_finish(t, result);
}

/* t becomes the holder of mutex s: its next take number is s's. */
static inline void sem_hold(pr_sem_t *s, pr_task_t *t)
{
    uint32_t lo = count64_add1(&t->takes);
    s->lender.holder = t;
    s->taken.lo = lo;
    s->taken.hi = t->takes.hi;
}

/* The trace records that end a down and an up, with their results. Inline:
 * with tracing compiled out they are nothing at all. s is NULL for an id
 * that names no semaphore of the pool; else s is id's. */
static inline int sem_down_result(pr_sem_t *s, pr_id_t id, int err, int waited)
{
    trace_emit(PR_EV_SEM_DOWN, pr_self, s != NULL ? s->trace_tag : trace_id_of(id, PR_CONFIG_MAX_SEMS),
               err, (uint8_t)waited, 0, s != NULL ? sem_value(s) : 0);
    return err;
}

static inline int sem_up_result(pr_sem_t *s, pr_id_t id, int err, pr_task_t *woken)
{
    trace_emit(PR_EV_SEM_UP, pr_self, s != NULL ? s->trace_tag : trace_id_of(id, PR_CONFIG_MAX_SEMS),
               err, trace_id(woken), 0, s != NULL ? sem_value(s) : 0);
    return err;
}

/* ---- what the other files share ---- */

/* sem_pool.c */
int sem_lookup(pr_id_t id, pr_sem_t **out);      /* PR_EBADID / PR_ENOTALLOC */
int sem_held_count(const pr_task_t *t);          /* O(S) */
pr_sem_t *sem_first_held(const pr_task_t *t);    /* the one it took first, or NULL; O(S) */
void sems_reset(void);
void sem_check(const pr_sem_t *s);               /* PR_ASSERT its invariants; O(waiters) */

/* sem_counting.c: a down that must wait on a counting semaphore, and an up
 * that hands its unit to the first waiter (both also the fast paths'). */
int counting_down(pr_sem_t *s, pr_id_t id, pr_timeout_t timeout);
int counting_up(pr_sem_t *s, pr_id_t id, pr_task_t **woken);
int counting_wait(pr_sem_t *s, pr_task_t *me, pr_timeout_t timeout, pr_irq_state_t irq);
int counting_wake(pr_sem_t *s, pr_irq_state_t irq);
#define DOWN_WAIT 1 /* counting_down: the caller must wait (counting_wait); not an error code */

/* sem_abort.c: aborted critical sections */
int sem_abort_pending(const pr_task_t *t, const pr_sem_t *m);
void sem_abort_mark(pr_task_t *holder, pr_sem_t *m);
int sem_abort_tell(pr_task_t *t, pr_sem_t *m);          /* returns PR_EABORTED */
void sem_abort_forget_all(pr_task_t *t);                /* the task ends or is deleted */

/* A mutex's aborted holder, at its next call on it (sem_mutex.c): told,
 * and if it still holds the mutex, its recovery runs with the caller's
 * interrupt state `irq` back, then the mutex is released. Returns
 * PR_EABORTED, with interrupts masked again. */
int sem_abort_report(pr_sem_t *m, pr_task_t *me, pr_irq_state_t *irq, pr_task_t **woken);

/* sem_mutex.c */
int mutex_down(pr_sem_t *s, pr_id_t id, pr_timeout_t timeout);
int mutex_up(pr_sem_t *s, pr_id_t id, pr_task_t **woken);
int sem_mutex_lock(pr_sem_t *m, pr_timeout_t timeout);  /* cond.c: as pr_sem_down */
void sem_mutex_release(pr_sem_t *m);                    /* cond.c: whatever its depth */
int mutex_wait(pr_sem_t *s, pr_task_t *me, pr_irq_state_t irq);   /* sem.c's fast paths */
int mutex_handoff(pr_sem_t *s, pr_irq_state_t irq);
/* A task leaves the kernel's sight (deleted, or its body returned): what
 * its calls left pending on semaphores is undone. */
void sem_task_gone(pr_task_t *t, int cause);
/* The wait queue operations of every semaphore's queue (waitq.h). */
extern const pr_waitq_ops_t sem_waitq_ops;
pr_ticks_t expiry_after(pr_timeout_t timeout);

/* For policies (policy.h): a task waiting in a queue its policy named is
 * woken to try its down again; it stays in the down. */
void sem_wake_to_retry(pr_task_t *t, int cause);

#endif /* PRIORA_SEM_IMPL_H */
