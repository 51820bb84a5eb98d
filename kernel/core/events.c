/*
 * Event flags (events.h): a pool of flag words, each with a wait queue.
 *
 * A waiter keeps its mask and options in its descriptor (wait_for.events).
 * A set walks the queue once, most urgent first, and wakes every waiter
 * the new flags satisfy; the flags the woken waiters asked to clear are
 * gathered and cleared after the walk, so that every waiter is judged
 * against the same flags (the flags the set left), whatever its place in
 * the queue. The walk is O(waiters of the object): each is tested once,
 * whether it is woken or not; a clear and a wait that is satisfied at
 * once are O(1).
 *
 * Nobody holds event flags, so the queue has no lender (events.h).
 */
#include <string.h>
#include "events_impl.h"
#include "sched.h"
#include "trace_impl.h"
#include "waitq.h"

#define KNOWN_OPTIONS (PR_EVENTS_ALL | PR_EVENTS_CLEAR)

typedef struct pr_events {
    pr_link_t pool_link;        /* in the free list */
    pr_id_t index;
    int allocated;
    uint32_t flags;
    int waiters;
    uint32_t sets, wakeups;
    char name[PR_CONFIG_NAME_LEN];
    pr_waitq_t waitq;           /* by effective priority, FIFO among equals */
} pr_events_t;

static pr_events_t pool[PR_CONFIG_MAX_EVENTS];
static pr_link_t free_list; /* freed descriptors go to the tail: reused last */

static int events_lookup(pr_id_t id, pr_events_t **out)
{
    if (id < 0 || id >= PR_CONFIG_MAX_EVENTS)
        return PR_EBADID;
    if (!pool[id].allocated)
        return PR_ENOTALLOC;
    *out = &pool[id];
    return PR_OK;
}

#define events_trace_id(id) trace_id_of((id), PR_CONFIG_MAX_EVENTS)

/* 1 if `flags` satisfy a wait for `mask` under `options`. */
static int satisfied(uint32_t flags, uint32_t mask, unsigned options)
{
    return (options & PR_EVENTS_ALL) ? (flags & mask) == mask : (flags & mask) != 0;
}

/* ---- the wait queue ---- */

/* t leaves e's queue with `result`, `flags` the flags it sees (the caller
 * makes it ready). */
static inline __attribute__((always_inline)) void leave(pr_events_t *e, pr_task_t *t, int result, uint32_t flags)
{
    waitq_remove(&e->waitq, t);
    wait_finish(t, result);
    e->waiters--;
    t->wait_for.events.flags = flags;
    trace_emit(PR_EV_EVENTS_WAKE, trace_who(t), (uint8_t)e->index, result, 0, 0, (int32_t)flags);
}

/* Its timeout fired, or it is deleted (waitq.h: abandon). */
static void events_waiter_abandon(pr_waitq_t *q, pr_task_t *t, int result, int cause)
{
    (void)cause;
    pr_events_t *e = container_of(q, pr_events_t, waitq);
    leave(e, t, result, e->flags);
}

static const pr_waitq_ops_t events_waitq_ops = {.abandon = events_waiter_abandon};

void events_reset(void)
{
    list_init(&free_list);
    for (int i = 0; i < PR_CONFIG_MAX_EVENTS; i++) {
        pr_events_t *e = &pool[i];
        memset(e, 0, sizeof *e);
        e->index = i;
        waitq_init(&e->waitq, &events_waitq_ops, 0, (uint8_t)i);
        list_push_back(&free_list, &e->pool_link);
    }
}

/* ---- the calls ---- */

static int events_alloc(const char *name, pr_id_t *id)
{
    if (id == NULL || (name != NULL && strlen(name) >= PR_CONFIG_NAME_LEN))
        return PR_EINVAL;
    if (list_empty(&free_list))
        return PR_ENOSPC;
    pr_events_t *e = container_of(free_list.next, pr_events_t, pool_link);
    list_remove(&e->pool_link);
    e->allocated = 1;
    e->flags = 0;
    e->waiters = 0;
    e->sets = e->wakeups = 0;
    name_copy(e->name, name);
    *id = e->index;
    return PR_OK;
}

static int events_free(pr_id_t id)
{
    pr_events_t *e;
    int err = events_lookup(id, &e);
    if (err != PR_OK)
        return err;
    if (e->waiters > 0)
        return PR_EBUSY;
    e->allocated = 0;
    list_push_back(&free_list, &e->pool_link);
    return PR_OK;
}

/* Wakes every waiter the flags satisfy, most urgent first; returns how
 * many. The flags to clear are gathered first and cleared after. */
static int wake_satisfied(pr_events_t *e)
{
    uint32_t flags = e->flags, to_clear = 0;
    int woken = 0;
    pr_task_t *next;
    for (pr_task_t *t = waitq_first(&e->waitq); t != NULL; t = next) {
        next = waitq_next(&e->waitq, t); /* before t leaves the queue */
        uint32_t mask = t->wait_for.events.mask;
        unsigned options = t->wait_for.events.options;
        if (!satisfied(flags, mask, options))
            continue;
        if (options & PR_EVENTS_CLEAR)
            to_clear |= mask;
        leave(e, t, PR_OK, flags);
        sched_make_ready(t);
        woken++;
    }
    e->flags = flags & ~to_clear;
    e->wakeups += (uint32_t)woken;
    return woken;
}

static int events_change(pr_id_t id, uint32_t mask, int set)
{
    pr_events_t *e = NULL;
    int err = events_lookup(id, &e);
    int woken = 0;
    if (err == PR_OK && set) {
        e->flags |= mask;
        e->sets++;
        if (mask != 0 && e->waiters > 0)
            woken = wake_satisfied(e);
    } else if (err == PR_OK) {
        e->flags &= ~mask;
    }
    trace_emit(PR_EV_EVENTS_SET, pr_self, events_trace_id(id), err, (uint8_t)set,
               (uint8_t)woken, err == PR_OK ? (int32_t)e->flags : 0);
    if (woken > 0)
        sched_reschedule(); /* in an interrupt, deferred to its end */
    return err;
}

static int wait_checks(pr_id_t id, uint32_t mask, unsigned options, pr_events_t **e)
{
    int err = events_lookup(id, e);
    if (err != PR_OK)
        return err;
    if (mask == 0 || (options & ~KNOWN_OPTIONS) != 0)
        return PR_EINVAL;
    return PR_OK;
}

/* The caller, a task, waits on e until satisfied or timed out (the wait's
 * trace record first, as every wait's). */
static inline __attribute__((always_inline)) int wait_blocking(pr_events_t *e, uint32_t mask, unsigned options,
                                                              pr_timeout_t timeout, uint32_t *flags)
{
    pr_task_t *me = pr_k.current;
    trace_emit(PR_EV_EVENTS_WAIT, trace_who(me), (uint8_t)e->index, PR_OK, (uint8_t)options, 1, (int32_t)mask);
    me->wait_for.events.mask = mask;
    me->wait_for.events.options = options;
    e->waiters++;
    sched_make_unready(me, PR_TASK_WAIT_EVENTS);
    waitq_insert(&e->waitq, me);
    if (timeout != PR_FOREVER)
        timer_arm(&me->timeout, tick_now() + timeout);
    sched_reschedule(); /* returns once satisfied or timed out */
    if (flags != NULL)
        *flags = me->wait_for.events.flags;
    return me->wait_result;
}

/* A wait that the flags satisfy at once. */
static inline void wait_satisfied(pr_events_t *e, uint32_t mask, unsigned options, uint32_t *flags)
{
    if (flags != NULL)
        *flags = e->flags;
    if (options & PR_EVENTS_CLEAR)
        e->flags &= ~mask;
    trace_emit(PR_EV_EVENTS_WAIT, pr_self, (uint8_t)e->index, PR_OK, (uint8_t)options, 0, (int32_t)mask);
}

static int events_wait(pr_id_t id, uint32_t mask, unsigned options, pr_timeout_t timeout, uint32_t *flags)
{
    pr_events_t *e = NULL;
    int err = wait_checks(id, mask, options, &e);
    if (err == PR_OK && satisfied(e->flags, mask, options)) {
        wait_satisfied(e, mask, options, flags);
        return PR_OK;
    }
    if (err == PR_OK && timeout != PR_NO_WAIT && in_task_context())
        return wait_blocking(e, mask, options, timeout, flags);
    if (err == PR_OK)
        err = timeout == PR_NO_WAIT ? PR_EAGAIN : PR_ECONTEXT;
    trace_emit(PR_EV_EVENTS_WAIT, pr_self, events_trace_id(id), err, (uint8_t)options, 0, (int32_t)mask);
    if (err == PR_EAGAIN && flags != NULL)
        *flags = e->flags;
    return err;
}

static int events_status(pr_id_t id, pr_events_status_t *st)
{
    pr_events_t *e;
    int err = events_lookup(id, &e);
    if (err != PR_OK)
        return err;
    if (st == NULL)
        return PR_EINVAL;
    PR_ASSERT(waitq_check(&e->waitq) == e->waiters);
    st->index = e->index;
    memcpy(st->name, e->name, PR_CONFIG_NAME_LEN);
    st->flags = e->flags;
    st->waiters = e->waiters;
    st->sets = e->sets;
    st->wakeups = e->wakeups;
    return PR_OK;
}

#if PR_CONFIG_ASSERT
/* Every object's invariants (pr_kernel_check): its waiters are counted, and
 * none of them is satisfied by the flags (a set wakes every one it
 * satisfies; a clear satisfies nobody). */
void events_check(void)
{
    for (int i = 0; i < PR_CONFIG_MAX_EVENTS; i++) {
        const pr_events_t *e = &pool[i];
        if (!e->allocated) {
            PR_ASSERT(e->waiters == 0 && waitq_empty(&e->waitq));
            continue;
        }
        PR_ASSERT(waitq_check(&e->waitq) == e->waiters);
        for (const pr_task_t *t = waitq_first(&e->waitq); t != NULL; t = waitq_next(&e->waitq, t))
            PR_ASSERT(t->state == PR_TASK_WAIT_EVENTS &&
                      !satisfied(e->flags, t->wait_for.events.mask, t->wait_for.events.options));
    }
}
#endif

/* ---- the calls: each does its work with interrupts masked (kernel_impl.h) ---- */

int pr_events_alloc(const char *name, pr_id_t *id) { MASKED_CALL(events_alloc(name, id)); }
int pr_events_free(pr_id_t id) { MASKED_CALL(events_free(id)); }
int pr_events_clear(pr_id_t id, uint32_t mask) { MASKED_CALL(events_change(id, mask, 0)); }

/*
 * Set and wait. In front of the general paths, with PR_CONFIG_FAST_PATHS,
 * the fast paths serve what tasks and interrupts do most, each the general
 * path with its case known in advance, built from the same pieces, and
 * falling to the general path for anything else (a bad id included): a set
 * on an object nobody waits on (it wakes nobody) or one task waits on, a
 * wait that the flags satisfy at once, and a task's wait that blocks. The general paths
 * restore the caller's interrupt state themselves, so that the public call
 * reaches them by a tail call and a fast path needs no stack frame, as the
 * semaphores' (sem.c).
 */
static __attribute__((noinline)) int set_general(pr_id_t id, uint32_t mask, pr_irq_state_t irq)
{
    int err = events_change(id, mask, 1);
    pr_port_irq_restore(irq);
    return err;
}

static __attribute__((noinline)) int wait_general(pr_id_t id, uint32_t mask, unsigned options, pr_timeout_t timeout,
                                                  uint32_t *flags, pr_irq_state_t irq)
{
    int err = events_wait(id, mask, options, timeout, flags);
    pr_port_irq_restore(irq);
    return err;
}

#if PR_CONFIG_FAST_PATHS

static __attribute__((noinline)) int wait_block(pr_events_t *e, uint32_t mask, unsigned options, pr_timeout_t timeout,
                                                uint32_t *flags, pr_irq_state_t irq)
{
    int err = wait_blocking(e, mask, options, timeout, flags);
    pr_port_irq_restore(irq);
    return err;
}

/* A set on an object with one waiter: wake_satisfied for one. */
static __attribute__((noinline)) int set_one_waiter(pr_events_t *e, uint32_t mask, pr_irq_state_t irq)
{
    uint32_t flags = e->flags | mask;
    pr_task_t *t = waitq_first(&e->waitq);
    uint32_t wanted = t->wait_for.events.mask;
    unsigned options = t->wait_for.events.options;
    int woken = satisfied(flags, wanted, options); /* a mask of 0 satisfies nobody new (events_check) */
    e->sets++;
    if (woken) {
        leave(e, t, PR_OK, flags);
        sched_make_ready(t);
        e->wakeups++;
        if (options & PR_EVENTS_CLEAR)
            flags &= ~wanted;
    }
    e->flags = flags;
    trace_emit(PR_EV_EVENTS_SET, pr_self, (uint8_t)e->index, PR_OK, 1, (uint8_t)woken, (int32_t)flags);
    if (woken)
        sched_reschedule(); /* in an interrupt, deferred to its end */
    pr_port_irq_restore(irq);
    return PR_OK;
}

int pr_events_set(pr_id_t id, uint32_t mask)
{
    pr_irq_state_t irq = pr_port_irq_save();
    if (likely((unsigned)id < PR_CONFIG_MAX_EVENTS)) {
        pr_events_t *e = &pool[id];
        if (likely(e->allocated && e->waiters == 0)) { /* events_change with nobody to wake */
            e->flags |= mask;
            e->sets++;
            trace_emit(PR_EV_EVENTS_SET, pr_self, (uint8_t)id, PR_OK, 1, 0, (int32_t)e->flags);
            pr_port_irq_restore(irq);
            return PR_OK;
        }
        if (e->allocated && e->waiters == 1)
            return set_one_waiter(e, mask, irq);
    }
    return set_general(id, mask, irq);
}

int pr_events_wait(pr_id_t id, uint32_t mask, unsigned options, pr_timeout_t timeout, uint32_t *flags)
{
    pr_irq_state_t irq = pr_port_irq_save();
    if (likely((unsigned)id < PR_CONFIG_MAX_EVENTS)) {
        pr_events_t *e = &pool[id];
        if (likely(e->allocated && mask != 0 && (options & ~KNOWN_OPTIONS) == 0)) { /* wait_checks */
            if (likely(satisfied(e->flags, mask, options))) {
                wait_satisfied(e, mask, options, flags);
                pr_port_irq_restore(irq);
                return PR_OK;
            }
            if (timeout != PR_NO_WAIT && in_task_context())
                return wait_block(e, mask, options, timeout, flags, irq);
        }
    }
    return wait_general(id, mask, options, timeout, flags, irq);
}

#else /* every call takes the general path */

int pr_events_set(pr_id_t id, uint32_t mask) { return set_general(id, mask, pr_port_irq_save()); }
int pr_events_wait(pr_id_t id, uint32_t mask, unsigned options, pr_timeout_t timeout, uint32_t *flags)
{
    return wait_general(id, mask, options, timeout, flags, pr_port_irq_save());
}

#endif

int pr_events_status(pr_id_t id, pr_events_status_t *status) { MASKED_CALL(events_status(id, status)); }
