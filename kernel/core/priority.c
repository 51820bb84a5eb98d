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
#include "priority.h"

/* Steps [4] and [5] for a change that is not a lend's (a base priority).
 * Returns 1 if the effective priority changed. */
static int update_effective(pr_task_t *t, int cause, const pr_sem_t *via)
{
    pr_prio_t now = effective_of(t);
    if (now == t->effective)
        return 0;
    set_effective(t, now, cause, via);
    return 1;
}

/* The walk from m: [1] asks m's policy what m lends now; prio_pass
 * (priority.h) does [2] to [6]. */
static void chain_walk(pr_sem_t *m, int cause)
{
    for (int pass = 0; m != NULL && pass < PR_CONFIG_MAX_TASKS; pass++)
        m = prio_pass(m, m->policy->lend(m), cause);
}

void prio_relend(pr_sem_t *m, int cause) { chain_walk(m, cause); }

/* m's holder is giving m up: m stops lending to it, and the holder drops to
 * what its base and its other mutexes give it (prio_unlend); if it waits
 * on a mutex, the walk goes on from there. */
void prio_withdraw(pr_sem_t *m, int cause)
{
    pr_sem_t *next = prio_unlend(m, cause);
    if (next != NULL)
        chain_walk(next, cause);
}

void prio_task_base_changed(pr_task_t *t)
{
    if (update_effective(t, PR_CAUSE_SET, NULL) && t->blocked_on != NULL)
        chain_walk(t->blocked_on, PR_CAUSE_INHERIT);
}
