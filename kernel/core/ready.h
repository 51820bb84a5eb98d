/*
 * The ready queue: the tasks that may run, by effective priority, FIFO
 * within a priority; the running task stays in it, at the head of its level
 * (sched.c has the placement rules). Every operation is O(1).
 *
 * Unlike a wait list (plist.h), each level is a ring without a list head:
 * head[level] points to the first task's link, and the links of the
 * level's tasks form a circle (the last one's next is the first), NULL for
 * an empty level. What that buys is the rotation: moving the running task
 * from the head of its level to its tail (a yield, the end of a quantum) is
 * one store, head = its next, where a list with a head link moves six
 * links. The cost is one test more when a level empties or fills (the
 * head is then NULL or set).
 *
 * The queue also remembers where its highest non-empty level is (top: the
 * address of that level's head), so choosing the next task is two loads and
 * a test, not a search of the bitmap (prio_bitmap.h: one word up to 32
 * levels, two levels of words beyond, O(1) either way). The heads are in the order of their
 * levels, so comparing levels is comparing their heads' addresses. And
 * `below`, the head of "the level below level 0" just before head[0],
 * always holds the idle task, which runs when nothing else can: top points
 * there when the queue is empty.
 *
 * The top is found again lazily: a removal that empties the top level
 * leaves top on that empty level (it is never below the highest non-empty
 * one), and the search of the bitmap runs when the next task is chosen and
 * the top level is found empty. Most often it never runs: a task that
 * blocks and lends its priority to the holder of what it waits for
 * empties its level and the holder fills it again at once, and an up by a
 * boosted holder drops it a level and fills its old level with the task it
 * hands the mutex to.
 *
 * The kernel's state holds the queue (kernel_impl.h: pr_k.ready); these
 * functions take it as an argument.
 */
#ifndef PRIORA_READY_H
#define PRIORA_READY_H

#include "plist.h"
#include "task_impl.h"

typedef struct pr_ready {
    pr_link_t **top;                              /* head of the highest non-empty level, or above */
    pr_prio_bitmap_t bitmap;                      /* level p is in it while not empty */
    pr_link_t *below;                             /* the idle task's link, for good */
    pr_link_t *head[PR_CONFIG_PRIORITIES];        /* each level's first task's link, or NULL */
} pr_ready_t;

/* The slot of a level's first task. Its address is worked out once, in a
 * register (the empty asm): every caller both reads the slot and compares
 * its address with top, and the compiler would otherwise compute it twice,
 * as an offset for the load and as a value for the comparison. */
static inline pr_link_t **ready_head(pr_ready_t *rq, int level)
{
    pr_link_t **head = &rq->head[level];
    __asm__("" : "+r"(head));
    return head;
}

/* Finds the top again: the head of the highest non-empty level (`below`,
 * the idle task's, if there is none). Returns the top's first link. */
static inline pr_link_t *ready_refind(pr_ready_t *rq)
{
    rq->top = !prio_bitmap_empty(&rq->bitmap) ? ready_head(rq, prio_bitmap_highest(&rq->bitmap)) : &rq->below;
    return *rq->top;
}

/* The most urgent task: the head of the top level, the idle task if empty. */
static inline pr_task_t *ready_first(pr_ready_t *rq)
{
    pr_link_t *first = *rq->top;
    if (unlikely(first == NULL)) /* the top level was left empty: find it again */
        first = ready_refind(rq);
    return container_of(first, pr_task_t, qlink);
}

/* t joins `level` at its tail (or, with front, at its head); the caller
 * records that it is in the ready queue (t->queue). */
static inline void ready_link(pr_ready_t *rq, pr_task_t *t, int level, int front)
{
    pr_link_t **head = ready_head(rq, level);
    pr_link_t *first = *head;
    if (likely(first == NULL)) { /* alone (most tasks have a level of their own): a ring of one */
        t->qlink.next = t->qlink.prev = &t->qlink;
        *head = &t->qlink;
        prio_bitmap_set(&rq->bitmap, level);
    } else {
        list_insert_after(first->prev, &t->qlink); /* behind the last: the tail */
        if (front)
            *head = &t->qlink;
    }
    t->queued_level = level;
    if (head > rq->top)
        rq->top = head;
}

static inline void ready_insert(pr_ready_t *rq, pr_task_t *t, int level, int front)
{
    t->queue = rq; /* before the links: ready_add (sched.h) says why */
    ready_link(rq, t, level, front);
}

/* t leaves its level, which it was inserted at (queued_level). Its link is
 * left stale, as by plist_remove; the top may be left on an empty level. */
static inline void ready_unlink(pr_ready_t *rq, pr_task_t *t)
{
    int level = t->queued_level;
    pr_link_t **head = ready_head(rq, level);
    pr_link_t *next = t->qlink.next;
    if (next == &t->qlink) { /* it was alone: the level empties */
        *head = NULL;
        prio_bitmap_remove(&rq->bitmap, level);
        return;
    }
    list_unlink(&t->qlink);
    if (*head == &t->qlink)
        *head = next;
}

static inline void ready_remove(pr_ready_t *rq, pr_task_t *t)
{
    ready_unlink(rq, t);
    t->queue = NULL;
}

/* t, in the queue, moves to the level of its effective priority: at its
 * tail, or at its head with front (sched.c: the running task). That is
 * ready_unlink and ready_link, with the bitmap written once: a boost or an
 * unboost most often empties one level and fills another. */
static inline void ready_move(pr_ready_t *rq, pr_task_t *t, int front)
{
    int from = t->queued_level, to = t->effective;
    uint32_t emptied = 0, filled = 0;
    pr_link_t **head = ready_head(rq, from);
    pr_link_t *next = t->qlink.next;
    if (next == &t->qlink) {
        *head = NULL;
        emptied = PR_PRIO_TWO_LEVEL ? 1u : 1u << from; /* a flag only, with two levels */
    } else {
        list_unlink(&t->qlink);
        if (*head == &t->qlink)
            *head = next;
    }
    head = ready_head(rq, to);
    pr_link_t *first = *head;
    if (first == NULL) {
        t->qlink.next = t->qlink.prev = &t->qlink;
        *head = &t->qlink;
        filled = PR_PRIO_TWO_LEVEL ? 1u : 1u << to;
    } else {
        list_insert_after(first->prev, &t->qlink);
        if (front)
            *head = &t->qlink;
    }
#if PR_PRIO_TWO_LEVEL
    if (emptied) /* clear before set: the two may be one level */
        prio_bitmap_clear(&rq->bitmap, from);
    if (filled)
        prio_bitmap_set(&rq->bitmap, to);
#else
    if ((emptied | filled) != 0) /* an emptied level's bit is set, a filled one's clear (or both are one) */
        rq->bitmap ^= emptied ^ filled;
#endif
    t->queued_level = to;
    if (head > rq->top)
        rq->top = head;
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
