/*
 * Counting and binary semaphores: a value, and a wait queue for the tasks
 * that found it at 0 or below ([Pessolani]'s semaphores: a negative value
 * counts the waiters). They have no holder and no policy: an up may come
 * from any task or interrupt, and a waiter always waits in the semaphore's
 * own queue for the semaphore itself.
 */
#include "sem_impl.h"

/* The general down, up to the point where the caller must wait: then
 * DOWN_WAIT, and the caller (sem.c) goes on with counting_wait. */
int counting_down(pr_sem_t *s, pr_id_t id, pr_timeout_t timeout)
{
    if (s->value <= 0 && timeout != PR_NO_WAIT)
        return DOWN_WAIT;
    s->downs++;
    if (s->value > 0) {
        s->value--;
        return sem_down_result(s, id, PR_OK, 0);
    }
    s->unreserved++;
    return sem_down_result(s, id, PR_EAGAIN, 0);
}

/*
 * A task's down that waits: `me` is the caller, s's value is 0 or below and
 * the timeout is not PR_NO_WAIT. It queues the task, switches away and,
 * once woken (handed a unit by an up, or by its timeout), returns the
 * down's result with the caller's interrupt state back.
 *
 * The general path and the fast path both end here, by a tail call. A wait
 * without a timeout, the usual one, keeps nothing across the switch but the
 * caller and its interrupt state; a timed one, whose tick counts from the
 * call's instant (computed before anything changes), is apart.
 */
static inline __attribute__((always_inline)) int counting_wait_until(pr_sem_t *s, pr_task_t *me,
                                                                     pr_timeout_t timeout, pr_ticks_t expiry,
                                                                     pr_irq_state_t irq)
{
    s->downs++;
    sem_wait_begin(s->waitq, s, me, timeout, expiry, 1, 1, 1);
    switch_to_most_urgent(); /* returns once woken */
    int err = me->wait_result;
    trace_emit(PR_EV_SEM_DOWN, me, s->trace_tag, err, 1, 0, s->value);
    pr_port_irq_restore(irq);
    return err;
}

static __attribute__((noinline)) int counting_wait_timed(pr_sem_t *s, pr_task_t *me, pr_timeout_t timeout,
                                                         pr_irq_state_t irq)
{
    return counting_wait_until(s, me, timeout, expiry_after(timeout), irq);
}

__attribute__((noinline)) int counting_wait(pr_sem_t *s, pr_task_t *me, pr_timeout_t timeout, pr_irq_state_t irq)
{
    if (timeout != PR_FOREVER)
        return counting_wait_timed(s, me, timeout, irq);
    return counting_wait_until(s, me, PR_FOREVER, 0, irq);
}

/* The unit an up has just added goes to the first waiter, if there is one
 * (the value was below 0): it leaves the queue with it and becomes ready.
 * Its WAKE record unless `record` is 0 (a constant): the caller writes it
 * with the up's (trace_up_woke). */
static inline __attribute__((always_inline)) pr_task_t *counting_hand_over(pr_sem_t *s, int record)
{
    pr_task_t *woken = waitq_first(s->waitq);
    if (woken == NULL)
        return NULL;
    sem_wait_end(s->waitq, s, woken, PR_OK, 1, 1, 1);
    if (record)
        trace_emit(PR_EV_WAKE, woken, s->trace_tag, PR_OK, 0, 0, 0);
    ready_add(woken);
    return woken;
}

/* The general up: a unit more, handed to the first waiter if there is one.
 * The caller reschedules. */
int counting_up(pr_sem_t *s, pr_id_t id, pr_task_t **woken)
{
    if (s->value >= s->max)
        return sem_up_result(s, id, PR_EOVERFLOW, NULL);
    s->value++;
    *woken = counting_hand_over(s, 1);
    return sem_up_result(s, id, PR_OK, *woken);
}

/*
 * The fast path's up that finds waiters (the value is below 0, so the
 * maximum is not in the way: sem.c checked it): counting_up's work for that
 * case, then the switch to the woken task if it is more urgent and the
 * caller may switch (sched_reschedule: not in an interrupt, not outside).
 */
__attribute__((noinline)) int counting_wake(pr_sem_t *s, pr_irq_state_t irq)
{
    PR_ASSERT(s->value < 0 && s->fast == SEM_FAST_COUNTING);
    s->value++;
    pr_task_t *woken = counting_hand_over(s, 0); /* not NULL: the value was below 0 */
    trace_up_woke(pr_self, s->trace_tag, woken, s->value, 0, 0);
    sched_reschedule();
    pr_port_irq_restore(irq);
    return PR_OK;
}
