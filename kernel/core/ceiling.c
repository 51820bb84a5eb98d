/*
 * The system ceiling: the held mutexes whose protocol counts in it (pcp),
 * ordered by ceiling (seed 003, section 3.2.2: the PCP module "has a global
 * queue to hold the currently acquired locks").
 *
 * They sit in a plist (plist.h) indexed by ceiling (through the link beside
 * each descriptor, pr_sem_more_t): one FIFO list per level,
 * in the order the mutexes were taken, and a bitmap of the non-empty levels.
 *  - Taking or giving up such a mutex is one insert or one remove: O(1)
 *    (sem.c calls ceiling_add and ceiling_remove in take and give).
 *  - The held mutex with the highest ceiling is the head of the highest
 *    level: O(1) (ceiling_top). Its holder is the task that the system
 *    ceiling belongs to.
 *
 * pcp's test compares a task's priority with the ceilings of the mutexes
 * held by *other* tasks (ceiling_blocker). The walk goes down the levels
 * from the top, as long as a level is at least the task's effective
 * priority, and stops at the first mutex held by another task. Every mutex
 * it passes is one of the task's own, so it visits at most h + 1 mutexes
 * for a task that holds h of them: O(1) for a task that holds none, and
 * never more than the levels and mutexes it holds.
 */
#include "internal.h"

static pr_plist_t held;

void ceiling_reset(void) { plist_init(&held); }

void ceiling_add(pr_sem_t *m) { plist_push_back(&held, m->ceiling, &sem_more(m)->ceiling_link); }

void ceiling_remove(pr_sem_t *m) { plist_remove(&held, m->ceiling, &sem_more(m)->ceiling_link); }

pr_sem_t *ceiling_top(void)
{
    pr_link_t *first = plist_first(&held);
    return first != NULL ? container_of(first, pr_sem_more_t, ceiling_link)->sem : NULL;
}

/* The held mutex with the highest ceiling among those t does not hold, if
 * that ceiling is at least t's effective priority (t may not lock then);
 * NULL if t's priority is above the ceilings of all of them. */
pr_sem_t *ceiling_blocker(const pr_task_t *t)
{
    uint32_t levels = held.bitmap;
    while (levels != 0) {
        int level = plist_highest_bit(levels);
        if (level < t->effective)
            return NULL;
        const pr_link_t *head = &held.level[level];
        for (pr_link_t *l = head->next; l != head; l = l->next) {
            pr_sem_t *m = container_of(l, pr_sem_more_t, ceiling_link)->sem;
            if (m->holder != t)
                return m;
        }
        levels &= ~(1u << level);
    }
    return NULL;
}
