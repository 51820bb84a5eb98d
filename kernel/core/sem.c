/*
 * The semaphore calls: down, try-down and up, for every kind ([Pessolani]:
 * MINIX4RT's real-time semaphores). Each call checks its
 * arguments and goes to its kind's general path (sem_counting.c,
 * sem_mutex.c). In front of them, with PR_CONFIG_FAST_PATHS, the fast
 * paths serve what tasks do most; each is the general path with its case
 * known in advance, built from the same pieces (sem_impl.h), and falls to
 * the general path for anything else, a bad id included:
 *
 *  - down_fast and up_fast: a down that finds a unit at once (a counting
 *    semaphore above 0, a free mutex) and an up that wakes nobody (a
 *    counting semaphore below its maximum that nobody waits on, a mutex
 *    that the caller holds and nobody waits on). Neither switches: nobody
 *    is woken, and no priority changes, because the mutex's policy is
 *    quiet while nobody waits (policy.h: fast).
 *  - counting_wait and counting_wake (sem_counting.c): a task's down that
 *    waits on a counting semaphore, an up that hands a unit to a waiter.
 *  - mutex_wait and mutex_handoff (sem_mutex.c): a task's down that waits
 *    without a timeout on a mutex another task holds, and the holder's up
 *    that hands it to its first waiter, under the policies whose decisions
 *    the fast paths may carry out (policy.h: fast).
 *
 * These run on every call, so each test and store counts: the sign of
 * `fast` is the test of the kind (sem_impl.h), a descriptor's size is a
 * power of two (one shift finds it), a mutex's value and ups are not stored
 * (sem_pool.c), and each wait and wake is a function of its own that the
 * public call reaches by a tail call.
 */
#include "sem_impl.h"

/* The general paths, with the masked call's end: they restore the caller's
 * interrupt state themselves, so that the public call's call to them is a
 * tail call and a fast path needs no stack frame. s is the id's
 * descriptor, or NULL for an id outside the pool. */
static __attribute__((noinline)) int down_general(pr_id_t id, pr_timeout_t timeout, pr_irq_state_t irq)
{
    pr_sem_t *s = NULL;
    int err = sem_lookup(id, &s);
    if (err == PR_OK && !in_task_context() && (timeout != PR_NO_WAIT || sem_is_mutex(s)))
        err = PR_ECONTEXT;
    if (err != PR_OK) {
        err = sem_down_result(err == PR_ECONTEXT ? s : NULL, id, err, 0);
    } else if (sem_is_mutex(s) && sem_abort_pending(pr_k.current, s)) { /* its recovery point */
        pr_task_t *woken;
        err = sem_down_result(s, id, sem_abort_report(s, pr_k.current, &irq, &woken), 0);
        sched_reschedule();
    } else if (sem_is_mutex(s)) {
        err = mutex_down(s, id, timeout);
    } else if ((err = counting_down(s, id, timeout)) == DOWN_WAIT) {
        return counting_wait(s, pr_k.current, timeout, irq);
    }
    pr_port_irq_restore(irq);
    return err;
}

static __attribute__((noinline)) int up_general(pr_id_t id, pr_irq_state_t irq)
{
    pr_sem_t *s = NULL;
    pr_task_t *woken = NULL;
    int err = sem_lookup(id, &s);
    if (err != PR_OK) {
        err = sem_up_result(NULL, id, err, NULL);
    } else if (sem_is_mutex(s) && in_task_context() && sem_abort_pending(pr_k.current, s)) { /* its recovery point */
        err = sem_abort_report(s, pr_k.current, &irq, &woken);
        err = sem_up_result(s, id, err, woken);
    } else {
        err = sem_is_mutex(s) ? mutex_up(s, id, &woken) : counting_up(s, id, &woken);
    }
    if (err == PR_OK || err == PR_EABORTED) /* a recovery hands the mutex over */
        sched_reschedule();
    pr_port_irq_restore(irq);
    return err;
}

#if PR_CONFIG_FAST_PATHS

/* down_fast and up_fast write their one record the fast way: they leave
 * the rare case of a record that must go the slow way to the general path
 * (trace_room), so that they call nothing. With tracing compiled in, both
 * kinds end in one copy of the record's code, which one of them reaches by
 * a jump: the counting kind is laid out to fall through (its trace-on
 * figure is the tighter one, docs/performance.md); without, each kind has
 * its own short end and the mutex keeps the layout it had. */
#define counting_first(test) (PR_CONFIG_TRACE ? likely(test) : (test))
static inline int down_fast(pr_sem_t *s, pr_id_t id)
{
    pr_task_t *me = pr_self;
    int32_t value;
    if (counting_first(s->fast < 0)) { /* counting; outside a task the general path decides (PR_ECONTEXT) */
        if (unlikely(s->value <= 0 || me == &pr_idle || !trace_room()))
            return 0;
        value = --s->value;
    } else if (s->fast > 0) { /* mutex; not for "no task" (pr_self): its n is 0 */
        uint32_t n = me->takes.lo + 1;
        if (unlikely(s->lender.holder != NULL || n == 0 || !trace_room())) /* n == 0: a carry, the general path's */
            return 0;
        /* sem_hold without the carry; take's depth is a recursive mutex's
         * only, and acquired does nothing while nobody waits (policy.h) */
        s->lender.holder = me;
        me->takes.lo = n;
        s->taken.lo = n;
        s->taken.hi = me->takes.hi;
        value = 0; /* held, nobody waits (sem_value) */
    } else {
        return 0;
    }
    s->downs++;
    trace_put(PR_EV_SEM_DOWN, me, (uint8_t)id, PR_OK, 0, 0, value);
    return 1;
}

static inline int up_fast(pr_sem_t *s, pr_id_t id)
{
    int32_t value;
    if (counting_first(s->fast < 0)) { /* counting: as unsigned, a value below 0 (waiters) is above max too */
        if (unlikely((unsigned)s->value >= (unsigned)s->max || !trace_room()))
            return 0;
        value = ++s->value;
    } else if (s->fast > 0) { /* mutex: held by the caller (so a task), nobody waiting */
        if (unlikely(s->lender.holder != pr_self || s->waiters != 0 || !trace_room()))
            return 0;
        /* give: nobody waits, so it lent nothing; release does nothing */
        s->lender.holder = NULL;
        value = 1; /* free (sem_value) */
    } else {
        return 0;
    }
    trace_put(PR_EV_SEM_UP, pr_self, (uint8_t)id, PR_OK, PR_TRACE_NONE, 0, value);
    return 1;
}

/* The fast paths take an id in the pool; the general paths check it. */
static inline int in_pool(pr_id_t id) { return (unsigned)id < PR_CONFIG_MAX_SEMS; }

int pr_sem_down(pr_id_t id, pr_timeout_t timeout)
{
    pr_irq_state_t irq = pr_port_irq_save();
    if (likely(in_pool(id))) {
        pr_sem_t *s = &pr_sem_pool[id];
        if (likely(down_fast(s, id))) {
            pr_port_irq_restore(irq);
            return PR_OK;
        }
        pr_task_t *me = pr_self;
        if (timeout != PR_NO_WAIT && me != &pr_idle) {
            if (s->fast < 0 && s->value <= 0)
                return counting_wait(s, me, timeout, irq);
            if (s->fast > 0 && s->lender.holder != NULL && s->lender.holder != me && timeout == PR_FOREVER &&
                trace_room()) /* its first record the fast way (trace_block_lent) */
                return mutex_wait(s, me, irq);
        }
    }
    return down_general(id, timeout, irq);
}

int pr_sem_trydown(pr_id_t id)
{
    pr_irq_state_t irq = pr_port_irq_save();
    if (unlikely(!in_pool(id) || !down_fast(&pr_sem_pool[id], id)))
        return down_general(id, PR_NO_WAIT, irq);
    pr_port_irq_restore(irq);
    return PR_OK;
}

int pr_sem_up(pr_id_t id)
{
    pr_irq_state_t irq = pr_port_irq_save();
    if (likely(in_pool(id))) {
        pr_sem_t *s = &pr_sem_pool[id];
        if (likely(up_fast(s, id))) {
            pr_port_irq_restore(irq);
            return PR_OK;
        }
        if (s->fast < 0 && s->value < 0 && trace_room()) /* their first record the fast way (trace_up_woke) */
            return counting_wake(s, irq);
        if (s->fast > 0 && s->lender.holder == pr_self && s->waiters > 0 && trace_room())
            return mutex_handoff(s, irq);
    }
    return up_general(id, irq);
}

#else /* every call takes the general path */

int pr_sem_down(pr_id_t id, pr_timeout_t timeout) { return down_general(id, timeout, pr_port_irq_save()); }
int pr_sem_trydown(pr_id_t id) { return down_general(id, PR_NO_WAIT, pr_port_irq_save()); }
int pr_sem_up(pr_id_t id) { return up_general(id, pr_port_irq_save()); }

#endif
