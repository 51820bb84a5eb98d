/*
 * Effective priorities, lenders and one pass of the chain walk (private;
 * priority.c has the rules and the walk itself).
 *
 * A task's effective priority is the maximum of its base priority and what
 * every lender whose holder it is lends it. A lender is what a mutex (or a
 * queue a policy keeps) has to lend a priority: its holder and what it
 * lends now (PRIO_NONE: nothing). The task keeps one counter per level, how
 * many of its lenders lend that level, and a bitmap of the non-zero
 * counters, so the maximum is found in O(1) however many it holds, and
 * dropping one leaves exactly what the others lend.
 */
#ifndef PRIORA_PRIORITY_H
#define PRIORA_PRIORITY_H

#include "sched.h"
#include "trace_impl.h"
#include "waitq.h"

typedef struct pr_lender {
    pr_task_t *holder;  /* who receives what it lends, or NULL */
    pr_prio_t lent;     /* what it lends its holder now; PRIO_NONE without a holder */
} pr_lender_t;

/* One more of t's lenders lends p (PRIO_NONE: nothing to count). */
static inline void lent_add(pr_task_t *t, pr_prio_t p)
{
    if (p == PRIO_NONE)
        return;
    if (t->lent_count[p]++ == 0)
        prio_bitmap_set(&t->lent_bitmap, p);
}

/* One fewer lends p. */
static inline void lent_remove(pr_task_t *t, pr_prio_t p)
{
    if (p == PRIO_NONE)
        return;
    uint16_t n = t->lent_count[p]; /* compared before the decrement: no 16-bit wrap to take */
    PR_ASSERT(n > 0);
    t->lent_count[p] = (uint16_t)(n - 1);
    if (n == 1)
        prio_bitmap_remove(&t->lent_bitmap, p);
}

static inline pr_prio_t effective_of(const pr_task_t *t)
{
    if (prio_bitmap_empty(&t->lent_bitmap)) /* nothing lent: no search */
        return t->base;
    pr_prio_t top = prio_bitmap_highest(&t->lent_bitmap);
    return top > t->base ? top : t->base;
}

/* The queue a holder's inheritance travels on through: the one it waits
 * in, if that queue has a lender; else NULL (the walk ends with it). */
static inline pr_waitq_t *lending_queue_of(const pr_task_t *t)
{
    pr_waitq_t *q = task_waitq(t);
    return (q != NULL && q->lender != NULL) ? q : NULL;
}

/* t's effective priority becomes `now`, which differs from it: counted,
 * traced (through the queue `via`, whose owner the record names, or NULL;
 * unless `record` is 0: the caller writes the PRIO record itself, in a
 * merged slot, trace_impl.h), and t moves to its place for it: in the
 * ready queue, or in the queue it waits in (a waiter whose priority changes
 * must move in its wait queue: Zephyr #89331, FreeRTOS #1364). */
static inline __attribute__((always_inline)) void set_effective(pr_task_t *t, pr_prio_t now, int cause,
                                                                const pr_waitq_t *via, int record)
{
    PR_ASSERT(now != t->effective && now >= t->base);
    pr_prio_t old = t->effective;
    t->effective = now;
    count64_add1(&pr_k.priority_changes);
    if (record)
        trace_emit(PR_EV_PRIO, t, via != NULL ? via->id : PR_TRACE_NONE, PR_OK, (uint8_t)old, (uint8_t)now,
                   cause | (via != NULL ? via->kind << 8 : 0));
    if (t->queue == &pr_k.ready)
        sched_requeue(t);
    else if (t->queue != NULL)
        waitq_requeue((pr_waitq_t *)(uintptr_t)t->queue, t);
}

/*
 * One pass of the chain walk (priority.c, steps [2] to [6]): q's lender now
 * lends `lend`. Its share of its holder's counters moves, the holder's
 * effective priority is recomputed and, if it changed, the holder moves.
 * Returns the queue the walk goes on with (lending_queue_of the holder), or
 * NULL when it stops. `lend` == PRIO_NONE withdraws what it lent.
 *
 * When the lender lent nothing before (a first waiter has just come, or a
 * fixed level starts to count), adding a lend can only raise the holder, to the
 * larger of its priority and the lend: no search of its counters. `record`
 * as set_effective's.
 */
static inline __attribute__((always_inline)) pr_waitq_t *lend_step(pr_waitq_t *q, pr_prio_t lend, int cause,
                                                                   int record)
{
    PR_ASSERT(lend == PRIO_NONE || (lend >= 0 && lend <= PR_PRIO_MAX));
    pr_lender_t *l = q->lender;
    pr_task_t *holder = l->holder;
    pr_prio_t lent = l->lent;
    if (lend == lent || holder == NULL)                        /* [2]; nobody to lend to */
        return NULL;
    l->lent = lend;
    pr_prio_t now;
    if (lent == PRIO_NONE) {
        lent_add(holder, lend);                                /* [3] */
        if (lend <= holder->effective)                         /* [4] */
            return NULL;
        now = lend;
    } else {
        lent_remove(holder, lent);                             /* [3] */
        lent_add(holder, lend);
        now = effective_of(holder);                            /* [4] */
        if (now == holder->effective)
            return NULL;
    }
    set_effective(holder, now, cause, q, record);              /* [5] */
    return lending_queue_of(holder);                           /* [6] */
}

/* The walk from q, each pass asking the queue what it lends ([1]). */
void prio_relend(pr_waitq_t *q, int cause);
/* q's lender's holder gives it up: it lends nothing any more, and the
 * holder drops to what its base and its other lenders give it. The caller
 * then sets a new holder (or none). */
void prio_withdraw(pr_waitq_t *q, int cause);
/* t's base priority changed: its effective one follows, and the walk goes
 * on from the queue it waits in. */
void prio_task_base_changed(pr_task_t *t, int cause);
/* Checks t's lend bookkeeping against `lent`, the lends counted by walking
 * every lender whose holder it is (PR_ASSERT). */
/* Would t waiting in q (a queue with a lender) close a cycle of lends?
 * Every wait in a lending queue asks first, and is refused if so
 * (PR_EDEADLK): chains stay acyclic, which bounds the walk. */
int prio_closes_cycle(const pr_waitq_t *q, const pr_task_t *t);
void prio_check_task(const pr_task_t *t, const uint16_t lent[PR_CONFIG_PRIORITIES]);

#endif /* PRIORA_PRIORITY_H */
