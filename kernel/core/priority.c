/*
 * Effective priorities and the inheritance chain walk.
 *
 * A task's effective priority is the maximum of its base priority and what
 * each mutex it holds lends it. It is never saved and restored: it is always
 * recomputed from that definition (RIOT, NuttX and Zephyr all had bugs from
 * an "original priority" saved at lock time).
 *
 * Each mutex m remembers what it lends (m->lent, PRIO_NONE for nothing; the
 * mutex's policy decides the value). Its holder keeps one counter per
 * priority level - how many of its mutexes lend that level - and a bitmap of
 * the non-zero counters, so the maximum is found in O(1) however many
 * mutexes it holds, and dropping one mutex leaves exactly what the others
 * lend (exact disinheritance).
 *
 * The chain walk (chain_walk below) runs whenever what a mutex lends may have
 * changed: a task blocked on it, left it (timeout, deletion), or changed
 * priority while waiting on it; or it changed hands. Step by step:
 *
 *   [1] Ask m's policy what m lends now.
 *   [2] If that is what m already lends, stop: nothing further changes.
 *   [3] Move m's share of its holder's counters from the old level to the
 *       new one.
 *   [4] Recompute the holder's effective priority. If it did not change (its
 *       base or another mutex already gives it as much), stop.
 *   [5] Put the holder in its new place: in the ready queue, or in the wait
 *       list of the semaphore it waits on (a waiter whose priority changes
 *       must move in its wait list: Zephyr #89331, FreeRTOS #1364).
 *   [6] If the holder waits on a mutex, that mutex's most urgent waiter may
 *       have changed: go back to [1] with that mutex.
 *
 * Bound: each pass through [1]-[6] moves to the holder of the next mutex.
 * pr_sem_down refuses (PR_EDEADLK) any wait that would close a cycle, so the
 * tasks of a chain are all different and the walk makes at most
 * PR_CONFIG_MAX_TASKS passes, each O(1). The loop also stops there, should
 * the invariant ever be broken.
 */
#include "../policy/policy.h"

static void lent_add(pr_task_t *t, pr_prio_t p)
{
    if (p == PRIO_NONE)
        return;
    if (t->lent_count[p]++ == 0)
        t->lent_bitmap |= 1u << p;
}

static void lent_remove(pr_task_t *t, pr_prio_t p)
{
    if (p == PRIO_NONE)
        return;
    if (--t->lent_count[p] == 0)
        t->lent_bitmap &= ~(1u << p);
}

static pr_prio_t effective_of(const pr_task_t *t)
{
    if (t->lent_bitmap == 0)
        return t->base;
    pr_prio_t top = plist_highest_bit(t->lent_bitmap);
    return top > t->base ? top : t->base;
}

/* Steps [4] and [5]. Returns 1 if the effective priority changed. */
static int update_effective(pr_task_t *t, int cause, const pr_sem_t *via)
{
    pr_prio_t old = t->effective;
    pr_prio_t now = effective_of(t);
    if (now == old)
        return 0;

    t->effective = now;
    count64_add1(&pr_k.priority_changes);
    trace_emit(PR_EV_PRIO, trace_id(t), via != NULL ? sem_trace_via(via) : PR_TRACE_NONE, PR_OK,
               (uint8_t)old, (uint8_t)now, cause);
    if (t->queue == &pr_k.ready)
        sched_requeue(t);
    else if (t->blocked_on != NULL)
        sem_waiter_requeue(t);
    else if (t->cond_on != NULL)
        cond_waiter_requeue(t);
    return 1;
}

/* Steps [2] to [6] of one pass through m, which lends `lend` now ([1]).
 * Returns the mutex to go on with, or NULL when the walk stops. */
static inline pr_sem_t *walk_pass(pr_sem_t *m, pr_prio_t lend, int cause)
{
    if (lend == m->lent)                                   /* [2] */
        return NULL;
    pr_task_t *holder = m->holder;
    if (holder != NULL) {                                  /* [3] */
        lent_remove(holder, m->lent);
        lent_add(holder, lend);
    }
    m->lent = lend;
    if (holder == NULL || !update_effective(holder, cause, m)) /* [4] [5] */
        return NULL;
    return holder->blocked_on;                             /* [6] */
}

static void chain_walk(pr_sem_t *m, int cause)
{
    for (int pass = 0; m != NULL && pass < PR_CONFIG_MAX_TASKS; pass++)
        m = walk_pass(m, m->policy->lend(m), cause);      /* [1] */
}

void prio_relend(pr_sem_t *m, int cause) { chain_walk(m, cause); }

/* prio_relend for a mutex whose policy lends its first waiter's priority
 * and does nothing else (policy.h: POLICY_FAST_INHERIT), for the fast
 * paths of sem.c. The first pass reads that priority itself instead of
 * asking the policy: the same value, without two calls. The rest of the
 * walk, from the mutex the holder waits on (whatever its policy), is
 * chain_walk's. In the usual case, a holder that waits on nothing, the
 * pass is the whole walk. */
void prio_relend_first_waiter(pr_sem_t *m, int cause)
{
    const pr_task_t *first = sem_first_waiter(m);
    pr_sem_t *next = walk_pass(m, first != NULL ? first->effective : PRIO_NONE, cause);
    if (next != NULL)
        chain_walk(next, cause);
}

/* m's holder is giving m up: m stops lending to it, and the holder drops to
 * what its base and its other mutexes give it. */
void prio_withdraw(pr_sem_t *m, int cause)
{
    pr_task_t *holder = m->holder;
    if (m->lent == PRIO_NONE)
        return;
    lent_remove(holder, m->lent);
    m->lent = PRIO_NONE;
    if (update_effective(holder, cause, m) && holder->blocked_on != NULL)
        chain_walk(holder->blocked_on, cause);
}

void prio_task_base_changed(pr_task_t *t)
{
    if (update_effective(t, PR_CAUSE_SET, NULL) && t->blocked_on != NULL)
        chain_walk(t->blocked_on, PR_CAUSE_INHERIT);
}
