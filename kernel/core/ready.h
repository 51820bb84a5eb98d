/*
 * The ready queue's basic moves, inline: every block and every wakeup goes
 * through them (sched.c has the scheduler itself, and the same moves out of
 * line for the less frequent callers).
 *
 * The ready queue is a plist indexed by effective priority that also
 * remembers its highest non-empty level (pr_k.ready_top, PRIO_NONE when
 * empty), so that choosing the next task is a load, not a search of the
 * bitmap: the search (plist_top_level, a count of leading zeros) runs only
 * when a removal empties that level.
 */
#ifndef PRIORA_READY_H
#define PRIORA_READY_H

/* Included by internal.h, after the kernel's state. */

static inline void rq_push(pr_task_t *t, int front)
{
    int level = t->effective;
    if (front)
        plist_push_front(&pr_k.ready, level, &t->qlink);
    else
        plist_push_back(&pr_k.ready, level, &t->qlink);
    t->queue = &pr_k.ready;
    t->queued_level = level;
    if (level > pr_k.ready_top)
        pr_k.ready_top = level;
}

static inline void rq_remove(pr_task_t *t)
{
    int level = t->queued_level;
    plist_remove(&pr_k.ready, level, &t->qlink);
    t->queue = NULL;
    if (level == pr_k.ready_top && list_empty(&pr_k.ready.level[level]))
        pr_k.ready_top = plist_empty(&pr_k.ready) ? PRIO_NONE : plist_top_level(&pr_k.ready);
}

/* State READY, at the tail of its level (unless suspended). Inline for the
 * semaphore calls, whose blocks and wakeups are the hot ones; everybody
 * else calls sched_make_ready (sched.c), to keep the code small. */
static inline void ready_add(pr_task_t *t)
{
    t->state = PR_TASK_READY;
    t->slice_left = pr_k.quantum;
    if (!t->suspended && t->queue == NULL)
        rq_push(t, 0);
}

/* Out of the ready queue, in `state` (sched_make_unready, inline). */
static inline void ready_leave(pr_task_t *t, pr_task_state_t state)
{
    if (t->queue == &pr_k.ready)
        rq_remove(t);
    t->state = state;
}

#endif
