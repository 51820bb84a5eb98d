/*
 * Condition variables (cond.h): a pool of wait queues, each used with a
 * mutex.
 *
 * pr_cond_wait releases the mutex (the full release of an up: its first
 * waiter is handed it), queues the caller by effective priority, and
 * blocks. A signal wakes the first waiter, a broadcast every waiter in
 * order; a timeout wakes the one waiter it belongs to. Each woken waiter
 * locks the mutex again in its own pr_cond_wait, through the mutex's
 * protocol, as any locker would (sem_mutex_lock): the protocol's rules
 * (whatever they decide for any locker) apply to it unchanged, and waking costs
 * O(1) per waiter. Woken in priority order and made ready at the tail of
 * their levels, the waiters run, and so lock, most urgent first.
 *
 * Nobody holds a condition variable, so its queue has no lender: a waiter
 * lends nothing while it waits (cond.h).
 */
#include <string.h>
#include "cond_impl.h"
#include "sem_impl.h"

typedef struct pr_cond {
    pr_link_t pool_link;        /* in the free list */
    pr_id_t index;
    int allocated;
    int waiters;
    pr_sem_t *mutex;            /* the mutex its waiters released, while it has waiters */
    char name[PR_CONFIG_NAME_LEN];
    pr_waitq_t waitq;           /* by effective priority, FIFO among equals */
} pr_cond_t;

static pr_cond_t conds[PR_CONFIG_MAX_CONDS];
static pr_link_t free_list; /* freed descriptors go to the tail: reused last */

static int cond_lookup(pr_id_t id, pr_cond_t **out)
{
    if (id < 0 || id >= PR_CONFIG_MAX_CONDS)
        return PR_EBADID;
    if (!conds[id].allocated)
        return PR_ENOTALLOC;
    *out = &conds[id];
    return PR_OK;
}

#define cond_trace_id(id) trace_id_of((id), PR_CONFIG_MAX_CONDS)

/* ---- the wait queue ---- */

/* t leaves c's queue with `result` (the caller makes it ready). */
static void leave(pr_cond_t *c, pr_task_t *t, int result)
{
    waitq_remove(&c->waitq, t);
    wait_finish(t, result);
    if (--c->waiters == 0)
        c->mutex = NULL;
    trace_emit(PR_EV_COND_WAKE, trace_who(t), (uint8_t)c->index, result, 0, 0, 0);
}

/* Its timeout fired, or it is deleted (waitq.h: abandon). */
static void cond_waiter_abandon(pr_waitq_t *q, pr_task_t *t, int result, int cause)
{
    (void)cause;
    leave(container_of(q, pr_cond_t, waitq), t, result);
}

static const pr_waitq_ops_t cond_waitq_ops = {.abandon = cond_waiter_abandon};

void conds_reset(void)
{
    list_init(&free_list);
    for (int i = 0; i < PR_CONFIG_MAX_CONDS; i++) {
        pr_cond_t *c = &conds[i];
        memset(c, 0, sizeof *c);
        c->index = i;
        waitq_init(&c->waitq, &cond_waitq_ops, 0, (uint8_t)i);
        list_push_back(&free_list, &c->pool_link);
    }
}

/* ---- the calls ---- */

static int cond_alloc(const char *name, pr_id_t *id)
{
    if (id == NULL || (name != NULL && strlen(name) >= PR_CONFIG_NAME_LEN))
        return PR_EINVAL;
    if (list_empty(&free_list))
        return PR_ENOSPC;
    pr_cond_t *c = container_of(free_list.next, pr_cond_t, pool_link);
    list_remove(&c->pool_link);
    c->allocated = 1;
    c->waiters = 0;
    c->mutex = NULL;
    name_copy(c->name, name);
    waitq_init(&c->waitq, &cond_waitq_ops, 0, (uint8_t)c->index);
    *id = c->index;
    return PR_OK;
}

static int cond_free(pr_id_t id)
{
    pr_cond_t *c;
    int err = cond_lookup(id, &c);
    if (err != PR_OK)
        return err;
    if (c->waiters > 0)
        return PR_EBUSY;
    c->allocated = 0;
    list_push_back(&free_list, &c->pool_link);
    return PR_OK;
}

static int wait_checks(pr_id_t cid, pr_id_t mid, pr_timeout_t timeout, pr_cond_t **c, pr_sem_t **m)
{
    int err = cond_lookup(cid, c);
    if (err == PR_OK)
        err = sem_lookup(mid, m);
    if (err != PR_OK)
        return err;
    if (!in_task_context())
        return PR_ECONTEXT;
    if (timeout == PR_NO_WAIT || !sem_is_mutex(*m) || ((*c)->waiters > 0 && (*c)->mutex != *m))
        return PR_EINVAL;
    if (sem_abort_pending(pr_k.current, *m))
        return PR_EABORTED; /* reported by cond_wait: it may have a recovery to run */
    if (sem_holder(*m) != pr_k.current)
        return PR_EPERM;
    return PR_OK;
}

static int cond_wait(pr_id_t cid, pr_id_t mid, pr_timeout_t timeout, pr_irq_state_t *irq)
{
    pr_cond_t *c = NULL;
    pr_sem_t *m = NULL;
    pr_task_t *me = pr_k.current;
    int err = wait_checks(cid, mid, timeout, &c, &m);
    trace_emit(PR_EV_COND_WAIT, pr_self, cond_trace_id(cid), err, trace_id_of(mid, PR_CONFIG_MAX_SEMS),
               0, (int32_t)timeout);
    if (err == PR_EABORTED) { /* its recovery point on m */
        pr_task_t *woken;
        err = sem_abort_report(m, me, irq, &woken);
        sched_reschedule();
        return err;
    }
    if (err != PR_OK)
        return err;

    int depth = sem_more(m)->depth; /* a recursive mutex's, given back below */
    sem_mutex_release(m);
    sem_more(m)->relockers++; /* until it runs again: the mutex cannot be freed meanwhile */
    me->relock = m;
    c->mutex = m;
    c->waiters++;
    sched_make_unready(me, PR_TASK_WAIT_COND);
    waitq_insert(&c->waitq, me);
    if (timeout != PR_FOREVER)
        timer_arm(&me->timeout, tick_now() + timeout);
    sched_reschedule(); /* returns once signalled or timed out */

    int result = me->wait_result;
    sem_more(m)->relockers--;
    me->relock = NULL;
    err = sem_mutex_lock(m, PR_FOREVER);
    if (err != PR_OK)
        return err;
    /* Its depth back, if it still holds m: a more urgent task may have
     * taken m over (its abort is then pending) while the lock rescheduled. */
    if (sem_is_recursive(m) && sem_holder(m) == me)
        sem_more(m)->depth = depth;
    return result;
}

static int cond_wake(pr_id_t cid, int all)
{
    pr_cond_t *c = NULL;
    int err = cond_lookup(cid, &c);
    if (err == PR_OK && !in_task_context())
        err = PR_ECONTEXT;
    int woken = 0;
    if (err == PR_OK) {
        pr_task_t *t;
        while ((all || woken == 0) && (t = waitq_first(&c->waitq)) != NULL) {
            leave(c, t, PR_OK);
            sched_make_ready(t);
            woken++;
        }
    }
    trace_emit(PR_EV_COND_SIGNAL, pr_self, cond_trace_id(cid), err, (uint8_t)all, 0, woken);
    if (err == PR_OK)
        sched_reschedule();
    return err;
}

static int cond_status(pr_id_t id, pr_cond_status_t *st)
{
    pr_cond_t *c;
    int err = cond_lookup(id, &c);
    if (err != PR_OK)
        return err;
    if (st == NULL)
        return PR_EINVAL;
    PR_ASSERT(waitq_check(&c->waitq) == c->waiters);
    st->index = c->index;
    memcpy(st->name, c->name, PR_CONFIG_NAME_LEN);
    st->waiters = c->waiters;
    st->mutex = c->mutex != NULL ? c->mutex->index : PR_NO_SEM;
    return PR_OK;
}

/* ---- the calls: each does its work with interrupts masked (kernel_impl.h) ---- */

int pr_cond_alloc(const char *name, pr_id_t *id) { MASKED_CALL(cond_alloc(name, id)); }
int pr_cond_free(pr_id_t id) { MASKED_CALL(cond_free(id)); }
int pr_cond_wait(pr_id_t cond, pr_id_t mutex, pr_timeout_t timeout)
{
    pr_irq_state_t irq = pr_port_irq_save(); /* a recovery runs with it restored */
    int err = cond_wait(cond, mutex, timeout, &irq);
    pr_port_irq_restore(irq);
    return err;
}
int pr_cond_signal(pr_id_t cond) { MASKED_CALL(cond_wake(cond, 0)); }
int pr_cond_broadcast(pr_id_t cond) { MASKED_CALL(cond_wake(cond, 1)); }
int pr_cond_status(pr_id_t id, pr_cond_status_t *status) { MASKED_CALL(cond_status(id, status)); }
