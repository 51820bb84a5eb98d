/*
 * What every semaphore wait shares, whatever its kind: the timeout, the
 * ways a wait ends other than an up (a timeout, a deletion, a wakeup to try
 * again), the cycle check, and the trace records that end a down or an up.
 */
#include "../policy/policy.h"

/* The wait's timer, at its absolute tick. Not inlined, so that a wait
 * without a timeout (the common case) carries none of its 64-bit tick
 * arithmetic. */
__attribute__((noinline)) void sem_arm_timeout(pr_task_t *t, pr_ticks_t expiry) { timer_arm(&t->timeout, expiry); }

/* The absolute tick a wait of `timeout` ticks from now ends at. Apart for
 * the same reason. */
__attribute__((noinline)) pr_ticks_t expiry_after(pr_timeout_t timeout) { return tick_now() + timeout; }

/*
 * A waiter leaves q without the semaphore it asked for (waitq.h: abandon):
 * its timeout fired or it is being deleted. Its down kept no unit
 * (unreserved); a mutex's policy hears of it (abandoned), and so re-lends
 * what the queue lends now.
 */
static void sem_waiter_abandon(pr_waitq_t *q, pr_task_t *t, int result, int cause)
{
    pr_sem_t *s = t->down_on;
    uint8_t sem = (uint8_t)s->index; /* what it asked for, wherever it waited */
    if (cause == PR_CAUSE_TIMEOUT)
        trace_emit(PR_EV_TIMEOUT, trace_who(t), sem, PR_ETIMEDOUT, 0, 0, 0);
    s->unreserved++;
    if (!sem_is_mutex(s)) {
        sem_wait_end(q, s, t, result, 0, 1, 1);
    } else {
        sem_wait_end(q, s, t, result, 0, 0, q == s->waitq);
        s->policy->abandoned(s, t, q, cause);
    }
    if (cause == PR_CAUSE_TIMEOUT || cause == PR_CAUSE_ABORT)
        trace_emit(PR_EV_WAKE, trace_who(t), sem, result, 0, 0, 0);
}

const pr_waitq_ops_t sem_waitq_ops = {.abandon = sem_waiter_abandon};

/*
 * t, waiting in a queue its policy named (or in another mutex's), is woken
 * to try its down again: it leaves the queue but stays in its down (still
 * counted in remote); its down's loop tries again when it runs (sem_mutex.c),
 * with the same timeout tick. What the queue lends is re-read: its first
 * waiter left.
 */
void sem_wake_to_retry(pr_task_t *t, int cause)
{
    pr_waitq_t *q = task_waitq(t);
    pr_sem_t *s = t->down_on;
    PR_ASSERT(q != NULL && s != NULL && sem_is_mutex(s));
    waitq_remove(q, t);
    if (q == s->waitq) { /* it waited in its mutex's own queue: now it waits elsewhere */
        s->waiters--;
        sem_more(s)->remote++;
    }
    wait_finish(t, WAIT_AGAIN);
    trace_emit(PR_EV_WAKE, trace_who(t), s->trace_tag, PR_EAGAIN, 0, 0, 0);
    if (q->lender != NULL && q->lender->holder != NULL)
        prio_relend(q, cause);
    sched_make_ready(t);
}

/*
 * t (not running: deleted, or its body returned) leaves what its calls left
 * pending on semaphores: a down woken to try again that it will never try
 * (its policy hears of it, so that whoever waits behind it is examined), a
 * condition wait's mutex it will not lock again, aborts it was not told of.
 * A wait in a queue is ended before (waitq_abandon).
 */
void sem_task_gone(pr_task_t *t, int cause)
{
    PR_ASSERT(task_waitq(t) == NULL);
    pr_sem_t *s = t->down_on;
    if (s != NULL) {
        t->down_on = NULL;
        sem_more(s)->remote--;
        s->unreserved++;
        s->policy->abandoned(s, t, NULL, cause);
    }
    if (t->relock != NULL) {
        sem_more(t->relock)->relockers--;
        t->relock = NULL;
    }
    sem_abort_forget_all(t);
}

