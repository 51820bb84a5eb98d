/*
 * Condition variables (cond.h): a pool of wait lists, each used with a
 * mutex.
 *
 * pr_cond_wait releases the mutex (the full release of an up: its first
 * waiter is handed it), queues the caller by effective priority, and blocks.
 * A signal wakes the first waiter, a broadcast every waiter in order; a
 * timeout wakes the one waiter it belongs to. Each woken waiter locks the
 * mutex again in its own pr_cond_wait, through the mutex's protocol, as any
 * locker would (sem.c: sem_mutex_lock): the protocol's rules (ceilings,
 * inheritance, take-over) apply to it unchanged, and waking costs O(1) per
 * waiter. Woken in priority order and made ready at the tail of their
 * levels, the waiters run, and so lock, most urgent first.
 *
 * While on the condition variable a waiter is in state PR_TASK_WAIT_COND;
 * a change of its priority moves it in the list (cond_waiter_requeue).
 */
#include <string.h>
#include "internal.h"

static pr_cond_t conds[PR_CONFIG_MAX_CONDS];
static pr_link_t free_list; /* freed descriptors go to the tail: reused last */

void conds_reset(void)
{
    list_init(&free_list);
    for (int i = 0; i < PR_CONFIG_MAX_CONDS; i++) {
        pr_cond_t *c = &conds[i];
        memset(c, 0, sizeof *c);
        c->index = i;
        list_push_back(&free_list, &c->pool_link);
    }
}

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

/* ---- the wait list ---- */

static void waitq_insert(pr_cond_t *c, pr_task_t *t)
{
    plist_push_back(&c->waitq, t->effective, &t->qlink);
    t->queue = &c->waitq;
    t->queued_level = t->effective;
}

/* t leaves c's list, woken with `result`, and becomes ready. */
static void leave(pr_task_t *t, int result)
{
    pr_cond_t *c = t->cond_on;
    plist_remove(&c->waitq, t->queued_level, &t->qlink);
    t->queue = NULL;
    t->cond_on = NULL;
    t->wait_result = result;
    timer_cancel(&t->timeout);
    if (--c->waiters == 0)
        c->mutex = NULL;
    trace_emit(PR_EV_COND_WAKE, trace_id(t), (uint8_t)c->index, result, 0, 0, 0);
}

void cond_waiter_requeue(pr_task_t *t)
{
    pr_cond_t *c = t->cond_on;
    if (t->queued_level == t->effective)
        return;
    plist_remove(&c->waitq, t->queued_level, &t->qlink);
    waitq_insert(c, t);
}

/* Its timeout fired (task.c makes it ready). */
void cond_waiter_timeout(pr_task_t *t) { leave(t, PR_ETIMEDOUT); }

/* Deleted while it waits on the condition, or woken from it but not run
 * yet: it will not lock the mutex again. */
void cond_task_deleted(pr_task_t *t)
{
    if (t->cond_on != NULL)
        leave(t, PR_ENOTALLOC);
    if (t->relock != NULL) {
        sem_more(t->relock)->cond_waiters--;
        t->relock = NULL;
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
    plist_init(&c->waitq);
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
        return sem_abort_tell(pr_k.current, *m);
    if ((*m)->holder != pr_k.current)
        return PR_EPERM;
    return PR_OK;
}

static int cond_wait(pr_id_t cid, pr_id_t mid, pr_timeout_t timeout)
{
    pr_cond_t *c = NULL;
    pr_sem_t *m = NULL;
    pr_task_t *me = pr_k.current;
    int err = wait_checks(cid, mid, timeout, &c, &m);
    trace_emit(PR_EV_COND_WAIT, caller_trace_id(), cond_trace_id(cid), err, sem_trace_id(mid), 0,
               (int32_t)timeout);
    if (err != PR_OK)
        return err;

    int depth = sem_more(m)->depth; /* a recursive mutex's, given back below */
    sem_mutex_release(m);
    sem_more(m)->cond_waiters++; /* until it runs again: the mutex cannot be freed meanwhile */
    me->relock = m;
    c->mutex = m;
    c->waiters++;
    me->cond_on = c;
    me->wait_result = PR_OK;
    sched_make_unready(me, PR_TASK_WAIT_COND);
    waitq_insert(c, me);
    if (timeout != PR_FOREVER)
        timer_arm(&me->timeout, tick_now() + timeout);
    sched_reschedule(); /* returns once signalled or timed out */

    int result = me->wait_result;
    sem_more(m)->cond_waiters--;
    me->relock = NULL;
    err = sem_mutex_lock(m, PR_FOREVER);
    if (err != PR_OK)
        return err;
    if (m->flags & PR_SEM_RECURSIVE)
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
        pr_link_t *first;
        while ((first = plist_first(&c->waitq)) != NULL && (all || woken == 0)) {
            pr_task_t *t = container_of(first, pr_task_t, qlink);
            leave(t, PR_OK);
            sched_make_ready(t);
            woken++;
        }
    }
    trace_emit(PR_EV_COND_SIGNAL, caller_trace_id(), cond_trace_id(cid), err, (uint8_t)all, 0, woken);
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
    st->index = c->index;
    memcpy(st->name, c->name, PR_CONFIG_NAME_LEN);
    st->waiters = c->waiters;
    st->mutex = c->mutex != NULL ? c->mutex->index : PR_NO_SEM;
    return PR_OK;
}

/* ---- the calls: each does its work with interrupts masked (internal.h) ---- */

int pr_cond_alloc(const char *name, pr_id_t *id) { MASKED_CALL(cond_alloc(name, id)); }
int pr_cond_free(pr_id_t id) { MASKED_CALL(cond_free(id)); }
int pr_cond_wait(pr_id_t cond, pr_id_t mutex, pr_timeout_t timeout) { MASKED_CALL(cond_wait(cond, mutex, timeout)); }
int pr_cond_signal(pr_id_t cond) { MASKED_CALL(cond_wake(cond, 0)); }
int pr_cond_broadcast(pr_id_t cond) { MASKED_CALL(cond_wake(cond, 1)); }
int pr_cond_status(pr_id_t id, pr_cond_status_t *status) { MASKED_CALL(cond_status(id, status)); }
