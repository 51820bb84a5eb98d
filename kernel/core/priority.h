/*
 * The effective priority's bookkeeping, inline: what priority.c's chain walk
 * does at each pass, and what the semaphore fast paths (sem.c) do on a
 * mutex whose policy lends its first waiter's priority (policy.h:
 * POLICY_FAST_INHERIT) without calling the walk, which they only call when
 * the holder itself waits on a mutex (a chain longer than one).
 *
 * A task's effective priority is the maximum of its base priority and what
 * each mutex it holds lends it (priority.c has the rules and the walk). It
 * keeps one counter per priority level, how many of its mutexes lend that
 * level, and a bitmap of the non-zero counters.
 */
#ifndef PRIORA_PRIORITY_H
#define PRIORA_PRIORITY_H

#include "internal.h"

/* One more of t's mutexes lends p (PRIO_NONE: nothing to count). */
static inline void lent_add(pr_task_t *t, pr_prio_t p)
{
    if (p == PRIO_NONE)
        return;
    if (t->lent_count[p]++ == 0)
        t->lent_bitmap |= 1u << p;
}

/* One fewer lends p. */
static inline void lent_remove(pr_task_t *t, pr_prio_t p)
{
    if (p == PRIO_NONE)
        return;
    uint16_t n = t->lent_count[p]; /* compared before the decrement: no 16-bit wrap to take */
    t->lent_count[p] = (uint16_t)(n - 1);
    if (n == 1)
        t->lent_bitmap &= ~(1u << p);
}

static inline pr_prio_t effective_of(const pr_task_t *t)
{
    if (t->lent_bitmap == 0) /* nothing lent: no search */
        return t->base;
    pr_prio_t top = plist_highest_bit(t->lent_bitmap);
    return top > t->base ? top : t->base;
}

/* t's effective priority becomes `now`, which differs from it: counted and
 * traced (through `via`, or none). The caller puts t in its place. */
static inline void effective_becomes(pr_task_t *t, pr_prio_t now, int cause, const pr_sem_t *via)
{
    pr_prio_t old = t->effective;
    t->effective = now;
    count64_add1(&pr_k.priority_changes);
    trace_emit(PR_EV_PRIO, trace_id(t), via != NULL ? sem_trace_via(via) : PR_TRACE_NONE, PR_OK,
               (uint8_t)old, (uint8_t)now, cause);
}

/* effective_becomes, and t moves to its place for it: in the ready queue,
 * or in the list it waits in (a waiter whose priority changes must move in
 * its wait list: Zephyr #89331, FreeRTOS #1364). */
static inline __attribute__((always_inline)) void set_effective(pr_task_t *t, pr_prio_t now, int cause,
                                                                const pr_sem_t *via)
{
    effective_becomes(t, now, cause, via);
    if (t->queue == &pr_k.ready)
        sched_requeue(t);
    else if (t->blocked_on != NULL)
        sem_waiter_requeue(t);
    else if (t->cond_on != NULL)
        cond_waiter_requeue(t);
}

/*
 * One pass of the chain walk (priority.c, steps [2] to [6]) through m,
 * which lends `lend` now: m's share of its holder's counters moves, the
 * holder's effective priority is recomputed and, if it changed, the holder
 * moves. Returns the mutex the walk goes on with (the one the holder waits
 * on), or NULL when it stops.
 *
 * prio_start_lending is the pass for the usual case of a block: m lent
 * nothing (its first waiter has just come) and starts lending `lend`, not
 * PRIO_NONE. Adding a lend can only raise the holder, to the larger of its
 * priority and the lend, so the new effective priority needs no search of
 * its counters.
 */
static inline __attribute__((always_inline)) pr_sem_t *prio_start_lending(pr_sem_t *m, pr_prio_t lend, int cause)
{
    pr_task_t *holder = m->holder;
    m->lent = lend;
    if (holder == NULL)
        return NULL;
    lent_add(holder, lend);                                    /* [3] */
    if (lend <= holder->effective)                             /* [4] */
        return NULL;
    set_effective(holder, lend, cause, m);                     /* [5] */
    return holder->blocked_on;                                 /* [6] */
}

static inline __attribute__((always_inline)) pr_sem_t *prio_pass(pr_sem_t *m, pr_prio_t lend, int cause)
{
    pr_prio_t lent = m->lent;
    if (lend == lent)                                          /* [2] */
        return NULL;
    if (lent == PRIO_NONE)
        return prio_start_lending(m, lend, cause);
    pr_task_t *holder = m->holder;
    m->lent = lend;
    if (holder == NULL)
        return NULL;
    lent_remove(holder, lent);                                 /* [3] */
    lent_add(holder, lend);
    pr_prio_t now = effective_of(holder);                      /* [4] */
    if (now == holder->effective)
        return NULL;
    set_effective(holder, now, cause, m);                      /* [5] */
    return holder->blocked_on;                                 /* [6] */
}

/* prio_withdraw (priority.c), inline: m's holder gives m up, m stops
 * lending to it, and it drops to what its base and its other mutexes give
 * it: its base, without a search, when m was the only one lending. Returns
 * the mutex the walk must go on with (the one the holder waits on, if its
 * priority changed), or NULL. */
static inline __attribute__((always_inline)) pr_sem_t *prio_unlend(pr_sem_t *m, int cause)
{
    pr_prio_t lent = m->lent;
    if (lent == PRIO_NONE)
        return NULL;
    pr_task_t *holder = m->holder;
    lent_remove(holder, lent);
    m->lent = PRIO_NONE;
    pr_prio_t now = effective_of(holder);
    if (now == holder->effective)
        return NULL;
    set_effective(holder, now, cause, m);
    return holder->blocked_on;
}

/* prio_unlend when the holder is the running task, giving m up in its own
 * call: it is in the ready queue, at the head of its level, where it goes
 * at its new level too (sched.c's rule for the running task), and it waits
 * on nothing, so the walk ends with it. */
static inline __attribute__((always_inline)) void prio_unlend_running(pr_sem_t *m, int cause)
{
    pr_prio_t lent = m->lent;
    if (lent == PRIO_NONE)
        return;
    pr_task_t *holder = m->holder;
    lent_remove(holder, lent);
    m->lent = PRIO_NONE;
    pr_prio_t now = effective_of(holder);
    if (now == holder->effective)
        return;
    effective_becomes(holder, now, cause, m);
    ready_move(&pr_k.ready, holder, 1);
}

#endif
