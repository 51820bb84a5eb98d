/*
 * The ready queue: the tasks that may run, by effective priority, FIFO
 * within a priority; the running task stays in it, at the head of its level
 * (sched.c has the placement rules). Every operation is O(1).
 *
 * Unlike a wait list (plist.h), each level is a ring without a list head:
 * head[level + 1] points to the first task's link, and the links of the
 * level's tasks form a circle (the last one's next is the first), NULL for
 * an empty level. What that buys is the rotation: moving the running task
 * from the head of its level to its tail (a yield, the end of a quantum) is
 * one store, head = its next, where a list with a head link moves six
 * links. The cost is one test more when a level empties or fills (the
 * head is then NULL or set).
 *
 * The queue also remembers where its highest non-empty level is (top: the
 * address of that level's head), so choosing the next task is two loads,
 * not a search of the bitmap: the search runs only when a removal empties
 * that level. And head[0], "the level below level 0", always holds the
 * idle task, which runs when nothing else can: top points there when the
 * queue is empty, and the task to run is *top, with no test. The heads are
 * in the order of their levels, so comparing levels is comparing their
 * heads' addresses.
 *
 * Included by internal.h, between the task descriptor and the kernel's
 * state, which holds the queue (pr_k.ready): these functions take it.
 */
#ifndef PRIORA_READY_H
#define PRIORA_READY_H

typedef struct pr_ready {
    pr_link_t **top;                              /* head of the highest non-empty level, or head[0] */
    uint32_t bitmap;                              /* bit p set while level p is not empty */
    pr_link_t *head[PR_CONFIG_PRIORITIES + 1];    /* [level + 1]; [0] is the idle task's link */
} pr_ready_t;

/* The slot of a level's first task. */
static inline pr_link_t **ready_head(pr_ready_t *rq, int level) { return rq->head + 1 + level; }

/* The most urgent task: the head of the top level, the idle task if empty. */
static inline pr_task_t *ready_first(const pr_ready_t *rq) { return container_of(*rq->top, pr_task_t, qlink); }

/* The head of the highest non-empty level (head[0] if there is none). */
static inline pr_link_t **ready_top_of(pr_ready_t *rq)
{
    return ready_head(rq, rq->bitmap != 0 ? plist_highest_bit(rq->bitmap) : PRIO_NONE);
}

/* t joins `level` at its tail (or, with front, at its head). */
static inline void ready_insert(pr_ready_t *rq, pr_task_t *t, int level, int front)
{
    pr_link_t **head = ready_head(rq, level);
    pr_link_t *first = *head;
    if (first == NULL) { /* alone: a ring of one */
        t->qlink.next = t->qlink.prev = &t->qlink;
        *head = &t->qlink;
        rq->bitmap |= 1u << level;
    } else {
        list_insert_after(first->prev, &t->qlink); /* behind the last: the tail */
        if (front)
            *head = &t->qlink;
    }
    t->queue = rq;
    t->queued_level = level;
    if (head > rq->top)
        rq->top = head;
}

/* t leaves its level, which it was inserted at (queued_level). Its link is
 * left stale, as by plist_remove. `refind`: find the top again if t leaves
 * the top level empty (a caller that inserts t higher at once need not). */
static inline void ready_unlink(pr_ready_t *rq, pr_task_t *t, int refind)
{
    int level = t->queued_level;
    pr_link_t **head = ready_head(rq, level);
    pr_link_t *next = t->qlink.next;
    if (next == &t->qlink) { /* it was alone: the level empties */
        *head = NULL;
        rq->bitmap &= ~(1u << level);
        if (refind && head == rq->top)
            rq->top = ready_top_of(rq);
        return;
    }
    list_unlink(&t->qlink);
    if (*head == &t->qlink)
        *head = next;
}

static inline void ready_remove(pr_ready_t *rq, pr_task_t *t)
{
    ready_unlink(rq, t, 1);
    t->queue = NULL;
}

/* t moves to the tail of its level: one store when it is at the head (the
 * running task), else out and in again before the head. */
static inline void ready_rotate(pr_ready_t *rq, pr_task_t *t)
{
    pr_link_t **head = ready_head(rq, t->queued_level);
    if (*head == &t->qlink) {
        *head = t->qlink.next; /* itself if alone: nothing moves */
        return;
    }
    list_unlink(&t->qlink);
    list_insert_after((*head)->prev, &t->qlink);
}

#endif
