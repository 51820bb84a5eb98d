/*
 * Effective priorities and the inheritance chain walk.
 *
 * A task's effective priority is the maximum of its base priority and what
 * each lender whose holder it is lends it (priority.h). It is never saved
 * and restored: it is always recomputed from that definition (RIOT, NuttX
 * and Zephyr all had bugs from an "original priority" saved at lock time).
 *
 * A lender belongs to a wait queue (waitq.h): the waiters of a mutex lend
 * through the mutex's lender to its holder; what they lend is the queue's
 * rule (q->lend, for a mutex its protocol's: the first waiter's priority, a
 * fixed level, nothing). The walk runs whenever what a queue lends may have
 * changed: a task joined it or left it (timeout, deletion), a waiter's
 * priority changed, or the lender changed hands. Step by step:
 *
 *   [1] Ask q what its waiters lend now (q->lend).
 *   [2] If that is what q's lender already lends, stop: nothing changes.
 *   [3] Move the lender's share of its holder's counters from the old
 *       level to the new one.
 *   [4] Recompute the holder's effective priority. If it did not change
 *       (its base or another lender already gives it as much), stop.
 *   [5] Put the holder in its new place: in the ready queue, or in the
 *       queue it waits in.
 *   [6] If that queue has a lender, its waiters' lend may have changed: go
 *       back to [1] with it.
 *
 * Steps [2] to [6] are one inline function, lend_step (priority.h), which
 * the semaphore fast paths use too: there is one pass, whoever walks.
 *
 * Bound: each pass moves to the holder of the next lender. A wait that
 * would close a cycle is refused (PR_EDEADLK, sem_mutex.c), so the holders
 * of a chain are all different tasks and the walk makes at most
 * PR_CONFIG_MAX_TASKS passes, each O(1).
 */
#include "priority.h"

static void chain_walk(pr_waitq_t *q, int cause)
{
    for (int pass = 0; q != NULL; pass++) {
        PR_ASSERT(pass <= PR_CONFIG_MAX_TASKS); /* no cycle: at most one pass per task */
        if (pass > PR_CONFIG_MAX_TASKS)
            return;
        q = lend_step(q, q->lend(q), cause, 1);
    }
}

void prio_relend(pr_waitq_t *q, int cause) { chain_walk(q, cause); }

void prio_withdraw(pr_waitq_t *q, int cause)
{
    pr_waitq_t *next = lend_step(q, PRIO_NONE, cause, 1);
    if (next != NULL)
        chain_walk(next, cause);
}

void prio_task_base_changed(pr_task_t *t, int cause)
{
    pr_prio_t now = effective_of(t);
    if (now == t->effective)
        return;
    set_effective(t, now, cause, NULL, 1);
    pr_waitq_t *q = lending_queue_of(t);
    if (q != NULL)
        chain_walk(q, PR_CAUSE_INHERIT);
}

void prio_check_task(const pr_task_t *t, const uint16_t lent[PR_CONFIG_PRIORITIES])
{
    for (int p = 0; p < PR_CONFIG_PRIORITIES; p++) {
        PR_ASSERT(t->lent_count[p] == lent[p]);
        PR_ASSERT(prio_bitmap_test(&t->lent_bitmap, p) == (lent[p] != 0));
    }
    PR_ASSERT(prio_bitmap_consistent(&t->lent_bitmap));
    PR_ASSERT(t->effective == effective_of(t));
    (void)t, (void)lent;
}

/* Would t waiting in q close a cycle? Follows the lender's holder -> the
 * queue it waits in -> that queue's lender's holder ... (at most
 * PR_CONFIG_MAX_TASKS steps: the chain has no cycle yet). */
int prio_closes_cycle(const pr_waitq_t *q, const pr_task_t *t)
{
    const pr_task_t *h = q->lender != NULL ? q->lender->holder : NULL;
    for (int step = 0; h != NULL && step <= PR_CONFIG_MAX_TASKS; step++) {
        if (h == t)
            return 1;
        const pr_waitq_t *next = lending_queue_of(h);
        if (next == NULL)
            return 0;
        h = next->lender->holder;
    }
    PR_ASSERT(h == NULL); /* every chain ends within the task pool: no cycle was ever let in */
    return 0;
}
