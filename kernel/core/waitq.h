/*
 * The wait queue: where every blocking object keeps the tasks that wait on
 * it (semaphores of every kind, condition variables, and any queue a
 * policy keeps, such as the tasks a protocol holds back).
 *
 * A queue is in priority order (the waiters by effective priority, FIFO
 * among equals: one list per level and a bitmap, plist.h) or in FIFO order
 * (every waiter at level 0). Its operations are O(1) in the number of
 * waiters: insert at the tail of a level, remove, find the first, move a
 * waiter whose priority changed.
 *
 * Everything that is not the queue's own business reaches the owning
 * object through the queue, never through a switch on the object's kind:
 *  - ops->abandon: a waiter leaves without the object waking it (its
 *    timeout fired, or it is deleted); the object undoes what the wait
 *    counted (waitq_abandon);
 *  - lender and lend: the waiters of a queue with a lender lend it a
 *    priority (priority.h): lend(q) says what they lend now (the object's
 *    rule, for a mutex its protocol's), and lender->holder receives it. The
 *    inheritance chain walk goes from a task to the queue it waits in, to
 *    that queue's lender's holder, to the queue it waits in, and so on.
 *
 * Invariants (waitq_check): a task is in at most one queue (task->queue),
 * and a task in a wait queue is in none of the ready queue; a task in a
 * priority-ordered queue sits at the level of its effective priority; the
 * bitmap's bit p is set iff level p is not empty.
 */
#ifndef PRIORA_WAITQ_H
#define PRIORA_WAITQ_H

#include "kernel_impl.h"
#include "plist.h"
#include "timer.h"

typedef struct pr_waitq pr_waitq_t;
struct pr_lender;

typedef struct pr_waitq_ops {
    /* t, in q, leaves it without the object's wakeup: `result` is what its
     * call returns (PR_ETIMEDOUT, or PR_ENOTALLOC when it is deleted) and
     * `cause` why (PR_CAUSE_TIMEOUT or PR_CAUSE_DELETE). It removes t from
     * q (waitq_remove) and undoes what the wait counted. */
    void (*abandon)(pr_waitq_t *q, pr_task_t *t, int result, int cause);
} pr_waitq_ops_t;

struct pr_waitq {
    pr_plist_t list;
    const pr_waitq_ops_t *ops;
    struct pr_lender *lender;               /* NULL: its waiters lend nothing */
    pr_prio_t (*lend)(const pr_waitq_t *q); /* with a lender: what its waiters lend now */
    uint8_t fifo;                           /* 1: FIFO order, else priority order */
    uint8_t id;                             /* the owner's id: in task status and trace records */
    uint8_t kind;                           /* the owner's kind, for trace records (pr_trace_object_t) */
};

void waitq_init(pr_waitq_t *q, const pr_waitq_ops_t *ops, int fifo, uint8_t id);

/* The queue t waits in, or NULL. */
static inline pr_waitq_t *task_waitq(const pr_task_t *t)
{
    return (t->queue != NULL && t->queue != &pr_k.ready) ? (pr_waitq_t *)(uintptr_t)t->queue : NULL;
}

/* t joins q at the tail of its level. It is in no queue. */
static inline void waitq_insert(pr_waitq_t *q, pr_task_t *t)
{
    PR_ASSERT(t->queue == NULL);
    int level = q->fifo ? 0 : t->effective;
    plist_push_back(&q->list, level, &t->qlink);
    t->queue = q;
    t->queued_level = level;
}

/* t leaves q, which it is in. */
static inline void waitq_remove(pr_waitq_t *q, pr_task_t *t)
{
    PR_ASSERT(t->queue == q);
    plist_remove(&q->list, t->queued_level, &t->qlink);
    t->queue = NULL;
}

/* waitq_remove of q's only waiter, which q's owner knows it is (it counts
 * the waiters): plist_remove_only. */
static inline void waitq_remove_only(pr_waitq_t *q, pr_task_t *t)
{
    PR_ASSERT(t->queue == q && t->qlink.next == &q->list.level[t->queued_level]);
    plist_remove_only(&q->list, &t->qlink);
    t->queue = NULL;
}

/* The first waiter (the most urgent; FIFO: the oldest), or NULL. */
static inline pr_task_t *waitq_first(const pr_waitq_t *q)
{
    pr_link_t *first = plist_first(&q->list);
    return first != NULL ? container_of(first, pr_task_t, qlink) : NULL;
}

/* waitq_first of a queue known to have waiters: no test for none. */
static inline pr_task_t *waitq_first_waiter(const pr_waitq_t *q)
{
    PR_ASSERT(!plist_empty(&q->list));
    return container_of(q->list.level[plist_top_level(&q->list)].next, pr_task_t, qlink);
}

static inline int waitq_empty(const pr_waitq_t *q) { return plist_empty(&q->list); }

/* The waiter after t in q's order (the next of its level, else the first
 * of the next lower non-empty level), or NULL: a walk over every waiter,
 * most urgent first, in O(1) per step. */
static inline pr_task_t *waitq_next(const pr_waitq_t *q, const pr_task_t *t)
{
    const pr_link_t *head = &q->list.level[t->queued_level];
    if (t->qlink.next != head)
        return container_of(t->qlink.next, pr_task_t, qlink);
#if PR_PRIO_TWO_LEVEL
    int below = prio_bitmap_highest_below(&q->list.bitmap, t->queued_level);
    return below >= 0 ? container_of(q->list.level[below].next, pr_task_t, qlink) : NULL;
#else
    uint32_t below = q->list.bitmap & ((1u << t->queued_level) - 1u);
    return below != 0 ? container_of(q->list.level[plist_highest_bit(below)].next, pr_task_t, qlink) : NULL;
#endif
}

/* t, in q, moves to the place of its new effective priority (nothing to
 * do in a FIFO queue, or at the same level). */
static inline void waitq_requeue(pr_waitq_t *q, pr_task_t *t)
{
    if (q->fifo || t->queued_level == t->effective)
        return;
    waitq_remove(q, t);
    waitq_insert(q, t);
}

/* The task's wait ends without its object's wakeup (its timeout, its
 * deletion): its queue's owner takes it out (ops->abandon). */
static inline void waitq_abandon(pr_task_t *t, int result, int cause)
{
    pr_waitq_t *q = task_waitq(t);
    PR_ASSERT(q != NULL);
    q->ops->abandon(q, t, result, cause);
    PR_ASSERT(t->queue == NULL);
}

/* The end of every wait, whoever ends it: the result the task's call
 * returns, and its timeout cancelled. */
static inline void wait_finish(pr_task_t *t, int result)
{
    t->wait_result = result;
    timer_cancel(&t->timeout);
}

/* Checks q's invariants (PR_ASSERT); returns its number of waiters. O(n):
 * for the debug builds' checks and the status calls, never on a fast path. */
int waitq_check(const pr_waitq_t *q);

#endif /* PRIORA_WAITQ_H */
