/*
 * Mutexes: a holder, a wait queue whose waiters lend the holder a priority
 * (priority.h), and a locking protocol that decides how the mechanism acts
 * (kernel/policy/policy.h): whether a task may lock at all, whether it
 * waits here or in a queue its protocol names, what the waiters lend, and
 * whether a conflict aborts the holder's section instead of waiting.
 *
 * A down: the policy admits the task (or refuses it, or names a queue to
 * wait in), then a free mutex is taken; a held one meets its holder through
 * the policy's conflict hook (wait, or take the mutex over). A task woken
 * to try again (its policy made it wait for something that is gone) goes
 * round once more, with the same timeout tick; if it gives up then, its
 * policy hears of it, so that whoever waits behind it is examined.
 *
 * An up by the holder: what the mutex lent it is withdrawn, the mutex goes
 * to its first waiter that asks for it (or becomes free), and the policy
 * hears of the release once the mutex is in its new hands.
 *
 * Every step is O(1) in the number of waiters; the chain walk adds O(chain
 * length) (priority.c). The fast paths for the protocols that allow them
 * (sem.c) are built from the same pieces: mutex_wait and mutex_handoff
 * below are this file's general paths with the case they serve known.
 */
#include <limits.h>
#include "../policy/policy.h"

/* ---- holders ---- */

/* t takes the free mutex s. */
static void take(pr_sem_t *s, pr_task_t *t)
{
    sem_hold(s, t);
    sem_more(s)->depth = 1;
    s->policy->acquired(s, t);
}

/* The holder stops holding s: what s lent it is withdrawn. The caller
 * gives s to its next holder (or leaves it free), then tells the policy. */
static void give(pr_sem_t *s)
{
    prio_withdraw(s->waitq, PR_CAUSE_RELEASE);
    s->lender.holder = NULL;
}

/*
 * The policy answered POLICY_TAKE_OVER: t takes s at once from its holder
 * h, whose critical section is aborted (sem_abort.c: h learns of it at its
 * next call on s). The mutex goes from held to held and its waiters stay
 * queued, now behind t; h's down no longer keeps its unit (unreserved).
 * O(1) plus the re-lending.
 */
static void take_over(pr_sem_t *s, pr_task_t *t)
{
    pr_task_t *h = sem_holder(s);
    int depth = sem_is_recursive(s) ? sem_more(s)->depth : 1;
    sem_abort_mark(h, s);
    s->unreserved++;
    trace_emit(PR_EV_ABORT, trace_who(h), s->trace_tag, PR_OK, trace_id(t), (uint8_t)depth,
               (int32_t)h->aborts_pending);
    give(s);
    s->policy->release(s, h);
    take(s, t);
}

/* The policy answered POLICY_ABORT_AND_WAIT, and t is about to wait for s:
 * the holder's section is aborted (sem_abort.c) and it will recover while
 * it inherits t's priority, then give s up (sem_abort_report). */
static void abort_for_recovery(pr_sem_t *s, pr_task_t *t)
{
    pr_task_t *h = sem_holder(s);
    int depth = sem_is_recursive(s) ? sem_more(s)->depth : 1;
    sem_abort_mark(h, s);
    trace_emit(PR_EV_ABORT, trace_who(h), s->trace_tag, PR_OK, trace_id(t), (uint8_t)depth,
               (int32_t)h->aborts_pending);
}

/* The first waiter that asks for s is handed it and made ready. A waiter
 * that asks for another mutex (its policy made it wait here) is woken to
 * try again instead. Returns the task handed s, or NULL. Inline in its one
 * caller whatever the compiler's estimate: an up that wakes nobody makes
 * no call for it. */
static inline __attribute__((always_inline)) pr_task_t *hand_to_first(pr_sem_t *s)
{
    pr_task_t *w;
    while ((w = waitq_first(s->waitq)) != NULL) {
        if (w->down_on != s) {
            sem_wake_to_retry(w, PR_CAUSE_RELEASE);
            continue;
        }
        sem_wait_end(s->waitq, s, w, PR_OK, 1, 0, 1);
        trace_emit(PR_EV_WAKE, trace_who(w), s->trace_tag, PR_OK, 0, 0, 0);
        take(s, w);
        ready_add(w);
        return w;
    }
    return NULL;
}

/* The holder gives s up whatever its depth; returns the task handed it. */
static pr_task_t *mutex_release(pr_sem_t *s, pr_task_t *me)
{
    give(s);
    pr_task_t *woken = hand_to_first(s);
    s->policy->release(s, me);
    return woken;
}

/* ---- down ---- */

/* The holder locks s again: a recursive mutex counts one level more (not
 * counted in downs: it changes no value); any other is refused. */
static int relock(pr_sem_t *s, pr_id_t id)
{
    pr_sem_more_t *more = sem_more(s);
    if (!sem_is_recursive(s))
        return sem_down_result(s, id, PR_EHELD, 0);
    if (more->depth == INT_MAX)
        return sem_down_result(s, id, PR_EOVERFLOW, 0);
    more->depth++;
    return sem_down_result(s, id, PR_OK, 0);
}

/* A task woken to try again is back in its down's loop: it is no longer
 * waiting for s anywhere (it takes s, waits anew, or gives up). */
static void retry_begins(pr_task_t *me, pr_sem_t *s)
{
    PR_ASSERT(me->down_on == s && task_waitq(me) == NULL);
    me->down_on = NULL;
    sem_more(s)->remote--;
}

int mutex_down(pr_sem_t *s, pr_id_t id, pr_timeout_t timeout)
{
    pr_task_t *me = pr_k.current;
    PR_ASSERT(!sem_abort_pending(me, s)); /* the calls report an abort first (sem_abort_report) */
    if (sem_holder(s) == me)
        return relock(s, id);
    pr_waitq_t *wait_in = NULL;
    int err = s->policy->admit(s, me, &wait_in);
    if (err != PR_OK) /* refused like a relock: not counted */
        return sem_down_result(s, id, err, 0);
    s->downs++;
    me->wait_expiry = (timeout == PR_NO_WAIT || timeout == PR_FOREVER) ? 0 : expiry_after(timeout);

    for (int again = 0;; again = 1) {
        int abort_holder = 0;
        if (again) {
            retry_begins(me, s);
            err = s->policy->admit(s, me, &wait_in);
        }
        if (err == PR_OK && wait_in == NULL) {
            if (sem_holder(s) == NULL) { /* free: take it */
                take(s, me);
                sched_reschedule(); /* a policy may have woken somebody */
                return sem_down_result(s, id, PR_OK, again);
            }
            err = s->policy->conflict(s, me);
            if (err == POLICY_TAKE_OVER) {
                take_over(s, me);
                sched_reschedule();
                return sem_down_result(s, id, PR_OK, again);
            }
            if (err == POLICY_ABORT_AND_WAIT) { /* once nothing refuses the wait */
                abort_holder = 1;
                err = PR_OK;
            }
            wait_in = s->waitq;
        }
        if (err == PR_OK && timeout == PR_NO_WAIT)
            err = PR_EAGAIN;
        if (err == PR_OK && prio_closes_cycle(wait_in, me))
            err = PR_EDEADLK;
        if (err == PR_OK && again && me->wait_expiry != 0 && me->wait_expiry <= pr_k.ticks)
            err = PR_ETIMEDOUT; /* its timeout tick passed before it could try again */
        if (err != PR_OK) {
            s->unreserved++;
            if (again) { /* whoever its policy made wait behind it may go now */
                s->policy->abandoned(s, me, NULL, err == PR_ETIMEDOUT ? PR_CAUSE_TIMEOUT : PR_CAUSE_RELEASE);
                sched_reschedule();
            }
            return sem_down_result(s, id, err, again);
        }
        if (abort_holder)
            abort_for_recovery(s, me);
        sem_wait_begin(wait_in, s, me, timeout, me->wait_expiry, 0, wait_in == s->waitq, 1);
        s->policy->waiting(s, me, wait_in);
        switch_to_most_urgent(); /* returns once woken: handed the mutex, timed out, or to try again */
        if (me->wait_result != WAIT_AGAIN)
            return sem_down_result(s, id, me->wait_result, 1);
    }
}

int sem_mutex_lock(pr_sem_t *m, pr_timeout_t timeout) { return mutex_down(m, m->index, timeout); }

/* ---- up ---- */

int mutex_up(pr_sem_t *s, pr_id_t id, pr_task_t **woken)
{
    pr_task_t *me = pr_k.current;
    int err = PR_OK;
    PR_ASSERT(!in_task_context() || !sem_abort_pending(me, s)); /* reported first (sem_abort_report) */
    if (!in_task_context())
        err = PR_ECONTEXT;
    else if (sem_holder(s) != me)
        err = PR_EPERM;
    if (err != PR_OK)
        return sem_up_result(s, id, err, NULL);
    if (sem_is_recursive(s) && sem_more(s)->depth > 1) { /* one level less */
        sem_more(s)->depth--;
        return sem_up_result(s, id, PR_OK, NULL);
    }
    *woken = mutex_release(s, me);
    return sem_up_result(s, id, PR_OK, *woken);
}

/*
 * me, whose section on m was aborted, makes its next call on m: it is told
 * (PR_EABORTED). If m was taken over, that is all. If it still holds m (m
 * has a recovery: the requester waits), its recovery runs now, in its
 * context, with the caller's interrupt state back (user code must not run
 * with interrupts masked) and at the priority it inherits; then m is given
 * up whatever its depth, and handed to its first waiter. *woken is that
 * waiter (NULL if none). The caller traces the call's result and
 * reschedules.
 */
int sem_abort_report(pr_sem_t *m, pr_task_t *me, pr_irq_state_t *irq, pr_task_t **woken)
{
    *woken = NULL;
    int err = sem_abort_tell(me, m);
    if (sem_holder(m) != me) /* taken over */
        return err;
    pr_sem_more_t *more = sem_more(m);
    trace_emit(PR_EV_RECOVER, trace_who(me), m->trace_tag, PR_OK, trace_id(waitq_first(m->waitq)), 0, 0);
    if (more->recovery.fn != NULL) {
        more->recovering = 1;
        pr_port_irq_restore(*irq);
        more->recovery.fn(m->index, more->recovery.arg);
        *irq = pr_port_irq_save();
        more->recovering = 0;
    }
    if (sem_holder(m) == me) /* its recovery may have given m up itself */
        *woken = mutex_release(m, me);
    return err;
}

void sem_mutex_release(pr_sem_t *m)
{
    pr_task_t *woken = mutex_release(m, pr_k.current);
    sem_up_result(m, m->index, PR_OK, woken);
}

/* ---- the general paths with the case known (sem.c's fast paths) ---- */

/*
 * A task's down that waits, without a timeout, on a mutex another task
 * holds, under a policy whose decisions the fast paths may carry out
 * (policy.h: fast): admit lets it go on, conflict lets it wait in the
 * mutex's own queue, and `waiting` re-lends the queue (the first waiter's
 * priority, POLICY_FAST_INHERIT) or does nothing (POLICY_FAST_QUIET); its
 * waiters are never woken to try again. So this is mutex_down for that
 * case: the same pieces, without the hooks' calls. A wait that would close
 * a cycle goes to the general path before anything changes.
 */
__attribute__((noinline)) int mutex_wait(pr_sem_t *s, pr_task_t *me, pr_irq_state_t irq)
{
    PR_ASSERT(s->fast == (int8_t)s->policy->fast && s->fast > 0 && sem_holder(s) != me);
    pr_waitq_t *q = s->waitq;
    /* The cycle check's first step inline: a holder in the ready queue (the
     * usual case) waits on nothing, so closes no cycle. */
    if (unlikely(sem_holder(s)->queue != &pr_k.ready && prio_closes_cycle(q, me))) {
        int err = mutex_down(s, s->index, PR_FOREVER); /* which refuses it */
        pr_port_irq_restore(irq);
        return err;
    }
    s->downs++;
    sem_wait_begin(q, s, me, PR_FOREVER, 0, 0, 1, 0); /* its BLOCK record below */
    if (s->fast == SEM_FAST_INHERIT) {
        /* The queue lends its first waiter's priority: the caller's, when
         * it is the only one. One pass of the walk, and the rest of the
         * walk only if the holder itself waits. The BLOCK record and the
         * holder's PRIO in one (trace_block_lent), before the rest. */
        pr_task_t *holder = sem_holder(s);
        pr_prio_t was = holder->effective;
        pr_prio_t lend = s->waiters == 1 ? me->effective : waitq_first(q)->effective;
        pr_waitq_t *next = lend_step(q, lend, PR_CAUSE_INHERIT, 0);
        trace_block_lent(me, s->trace_tag, PR_FOREVER, holder, was, holder->effective);
        if (unlikely(next != NULL))
            prio_relend(next, PR_CAUSE_INHERIT);
    } else {
        trace_emit(PR_EV_BLOCK, me, s->trace_tag, PR_OK, 0, 0, PR_FOREVER);
    }
    switch_to_most_urgent(); /* returns once handed the mutex */
    int err = me->wait_result;
    trace_emit(PR_EV_SEM_DOWN, me, s->trace_tag, err, 1, 0, mutex_value(s)); /* sem_down_result's */
    pr_port_irq_restore(irq);
    return err;
}

/*
 * The holder's up on a mutex that tasks wait on, under the same policies:
 * mutex_release for that case. The caller, which runs, is unlent (it waits
 * on nothing, so the walk ends with it); the first waiter (they all ask for
 * the mutex) leaves the queue and takes it; the queue re-lends to its new
 * holder what the waiters left behind lend (POLICY_FAST_INHERIT, if any are
 * left); the release hook does nothing under these policies; a mutex that
 * is not recursive keeps no depth. The caller's PRIO, the WAKE and the UP
 * are one slot (trace_up_woke) unless waiters are left to re-lend
 * (handoff_relend).
 */
static __attribute__((noinline)) int handoff_relend(pr_sem_t *s, pr_task_t *woken, pr_prio_t was,
                                                    pr_irq_state_t irq);

/* The end of a hand-off: the switch to the task handed the mutex if it is
 * more urgent, the caller's interrupt state back. */
static inline int handoff_end(pr_irq_state_t irq)
{
    if (sched_may_preempt(pr_self)) /* the caller is a task: no interrupt, not outside */
        switch_preempting();
    pr_port_irq_restore(irq);
    return PR_OK;
}

__attribute__((noinline)) int mutex_handoff(pr_sem_t *s, pr_irq_state_t irq)
{
    PR_ASSERT(s->fast == (int8_t)s->policy->fast && s->fast > 0 && s->waiters > 0);
    pr_waitq_t *q = s->waitq;
    pr_prio_t was = pr_self->effective; /* the caller's: for its PRIO record */
    if (s->fast == SEM_FAST_INHERIT) /* its PRIO record below, with the WAKE and the UP */
        (void)lend_step(q, PRIO_NONE, PR_CAUSE_RELEASE, 0); /* the caller waits on nothing: no further pass */
    pr_task_t *woken = waitq_first(q);
    sem_wait_end(q, s, woken, PR_OK, 1, 0, 1);
    sem_hold(s, woken);
    if (unlikely(s->fast == SEM_FAST_INHERIT && s->waiters > 0))
        return handoff_relend(s, woken, was, irq);
    ready_add(woken);
    trace_up_woke(pr_self, s->trace_tag, woken, -s->waiters, was, pr_self->effective);
    return handoff_end(irq);
}

/* mutex_handoff's end with waiters left: the queue re-lends to the new
 * holder `woken`, whose PRIO records come between the WAKE and the UP,
 * which then go apart; `was` is the caller's effective priority before. */
static __attribute__((noinline)) int handoff_relend(pr_sem_t *s, pr_task_t *woken, pr_prio_t was,
                                                    pr_irq_state_t irq)
{
    if (was != pr_self->effective)
        trace_emit(PR_EV_PRIO, pr_self, s->trace_tag, PR_OK, (uint8_t)was, (uint8_t)pr_self->effective,
                   PR_CAUSE_RELEASE | PR_OBJ_SEM << 8);
    trace_emit(PR_EV_WAKE, woken, s->trace_tag, PR_OK, 0, 0, 0);
    prio_relend(s->waitq, PR_CAUSE_ACQUIRE);
    ready_add(woken);
    trace_emit(PR_EV_SEM_UP, pr_self, s->trace_tag, PR_OK, woken->trace_tag, 0, -s->waiters);
    return handoff_end(irq);
}
