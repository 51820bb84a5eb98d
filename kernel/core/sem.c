/*
 * The semaphore mechanism: the system pool, values, holders, wait lists,
 * blocking and wakeup (seed 000, sections 4-6). How priorities react is the
 * policy's business (kernel/policy/); this file calls its hooks.
 *
 * Invariants, true whenever no kernel call is running:
 *  - value < 0  <=>  -value tasks wait (waiters == -value); value >= 0
 *    means nobody waits.
 *  - a mutex with value 1 has no holder; with value <= 0 it has one.
 *  - an up that finds waiters wakes exactly one and hands it the unit
 *    (for a mutex: the ownership); nobody can take the unit in between.
 *
 * What is stored and what is derived (so that the fast paths at the end
 * store as little as they can):
 *  - a counting semaphore stores its value; a mutex does not: its value is
 *    1 without a holder and -waiters with one (sem_value);
 *  - a task's held mutexes are the mutexes whose holder it is. Each mutex
 *    keeps the number of its holder's take (pr_task.takes) that got it, so
 *    the end of a task releases them in the order it became their holder;
 *  - of the statistics, downs and max_waiters are counted, and ups follows
 *    from the value: every unit an up adds is still there, was taken by a
 *    down, or waits with a waiter, so ups = value - initial value + the
 *    downs that kept their unit (all the downs but `unreserved`: refused
 *    ones and waits that ended without the semaphore).
 *
 * Every call is O(1) in the number of waiters (plist.h); the policy's chain
 * walk adds O(chain length) for mutexes (priority.c).
 */
#include <limits.h>
#include <string.h>
#include "../policy/policy.h"

_Static_assert(sizeof(pr_sem_t) == SEM_BYTES, "a semaphore descriptor is SEM_BYTES (internal.h)");

static pr_sem_t sems[PR_CONFIG_MAX_SEMS];
pr_sem_t *pr_sem_pool = sems;
static pr_plist_t waitqs[PR_CONFIG_MAX_SEMS]; /* each semaphore's wait list, by index */
static pr_link_t free_list;                   /* freed descriptors go to the tail: reused last */
static pr_link_t alloc_list;

void sems_reset(void)
{
    list_init(&free_list);
    list_init(&alloc_list);
    for (int i = 0; i < PR_CONFIG_MAX_SEMS; i++) {
        pr_sem_t *s = &sems[i];
        memset(s, 0, sizeof *s);
        s->index = i;
        s->waitq = &waitqs[i];
        list_push_back(&free_list, &s->pool_link);
    }
}

static int sem_lookup(pr_id_t id, pr_sem_t **out)
{
    if (id < 0 || id >= PR_CONFIG_MAX_SEMS)
        return PR_EBADID;
    if (!sems[id].allocated)
        return PR_ENOTALLOC;
    *out = &sems[id];
    return PR_OK;
}

/* sem_lookup for what the fast paths hand the general paths: the id's
 * descriptor, or NULL for an id outside the pool. */
static inline int sem_checked(const pr_sem_t *s)
{
    if (s == NULL)
        return PR_EBADID;
    return s->allocated ? PR_OK : PR_ENOTALLOC;
}

/* The value as the API gives it (sem.h). */
static int sem_value(const pr_sem_t *s)
{
    if (!sem_is_mutex(s))
        return s->value;
    return s->holder != NULL ? -s->waiters : 1;
}

/* ---- wait lists ---- */

static pr_plist_t *waitq_of(const pr_sem_t *s) { return s->waitq; }

pr_task_t *sem_first_waiter(const pr_sem_t *s)
{
    pr_link_t *first = plist_first(waitq_of(s));
    return first != NULL ? container_of(first, pr_task_t, qlink) : NULL;
}

/* Priority order: the level of the waiter's effective priority, FIFO within
 * it. FIFO order: everybody at level 0, in arrival order. */
static inline void waitq_insert(pr_sem_t *s, pr_task_t *t)
{
    int level = sem_is_prio(s) ? t->effective : 0;
    plist_push_back(waitq_of(s), level, &t->qlink);
    t->queue = waitq_of(s);
    t->queued_level = level;
}

static inline void waitq_remove(pr_sem_t *s, pr_task_t *t)
{
    plist_remove(waitq_of(s), t->queued_level, &t->qlink);
    t->queue = NULL;
}

void sem_waiter_requeue(pr_task_t *t)
{
    pr_sem_t *s = t->blocked_on;
    if (!sem_is_prio(s) || t->queued_level == t->effective)
        return;
    waitq_remove(s, t);
    waitq_insert(s, t);
}

/* ---- holders ---- */

/* a < b for take numbers. */
static int taken_before(pr_count64_t a, pr_count64_t b) { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo); }

/* t's held mutex that it became the holder of first, or NULL. O(S). */
pr_sem_t *sem_first_held(const pr_task_t *t)
{
    pr_sem_t *first = NULL;
    for (int i = 0; i < PR_CONFIG_MAX_SEMS; i++) {
        pr_sem_t *s = &sems[i];
        if (s->holder == t && (first == NULL || taken_before(s->taken, first->taken)))
            first = s;
    }
    return first;
}

int sem_held_count(const pr_task_t *t)
{
    int n = 0;
    for (int i = 0; i < PR_CONFIG_MAX_SEMS; i++)
        n += sems[i].holder == t;
    return n;
}

static void take(pr_sem_t *s, pr_task_t *t)
{
    if (++t->takes.lo == 0)
        t->takes.hi++;
    s->holder = t;
    s->taken = t->takes;
    s->policy->acquired(s, t);
}

static void give(pr_sem_t *s, pr_task_t *t)
{
    prio_withdraw(s, PR_CAUSE_RELEASE);
    s->holder = NULL;
    s->policy->release(s, t);
}

/* ---- allocation ---- */

void pr_sem_attr_init(pr_sem_attr_t *attr)
{
    if (attr == NULL)
        return;
    memset(attr, 0, sizeof *attr);
    attr->protocol = PR_PROTOCOL_NONE;
}

static int check_attr(const pr_sem_attr_t *attr)
{
    const unsigned known = PR_SEM_PRIO | PR_SEM_MUTEX;
    if ((attr->flags & ~known) != 0 || attr->value < 0)
        return PR_EINVAL;
    if ((attr->flags & PR_SEM_MUTEX) && (attr->value != 1 || attr->max != 0))
        return PR_EINVAL;
    if (attr->max < 0 || (attr->max != 0 && attr->value > attr->max))
        return PR_EINVAL;
    const pr_policy_t *policy = policy_of(attr->protocol);
    if (policy == NULL)
        return PR_EINVAL;
    if (attr->protocol != PR_PROTOCOL_NONE && !(attr->flags & PR_SEM_MUTEX))
        return PR_EINVAL;
    if (attr->name != NULL && strlen(attr->name) >= PR_CONFIG_NAME_LEN)
        return PR_EINVAL;
    return policy->check_attr(attr);
}

static int sem_alloc(const pr_sem_attr_t *attr, pr_id_t *id)
{
    int err = (attr == NULL || id == NULL) ? PR_EINVAL : check_attr(attr);
    if (err == PR_OK && list_empty(&free_list))
        err = PR_ENOSPC;
    if (err != PR_OK) {
        trace_emit(PR_EV_SEM_ALLOC, caller_trace_id(), PR_TRACE_NONE, err, 0, 0, attr ? attr->value : 0);
        return err;
    }

    pr_sem_t *s = container_of(free_list.next, pr_sem_t, pool_link);
    list_remove(&s->pool_link);
    list_push_back(&alloc_list, &s->pool_link);

    s->allocated = 1;
    s->flags = attr->flags;
    s->protocol = attr->protocol;
    s->policy = policy_of(attr->protocol);
    if (!sem_is_mutex(s))
        s->fast = SEM_FAST_COUNTING;
    else
        s->fast = s->policy->quiet_uncontended ? SEM_FAST_MUTEX : SEM_FAST_NONE;
    s->value = sem_is_mutex(s) ? 0 : attr->value; /* a mutex's is derived (sem_value) */
    s->init_value = attr->value;
    s->max = attr->max != 0 ? attr->max : INT_MAX;
    s->waiters = 0;
    s->ceiling = attr->ceiling;
    s->owner = in_task_context() ? pr_k.current->id : PR_NO_TASK;
    s->holder = NULL;
    s->taken = (pr_count64_t){0, 0};
    s->lent = PRIO_NONE;
    s->downs = s->unreserved = s->max_waiters = 0;
    memset(s->name, 0, sizeof s->name);
    if (attr->name != NULL)
        strcpy(s->name, attr->name);
    plist_init(waitq_of(s));

    *id = s->index;
    trace_emit(PR_EV_SEM_ALLOC, caller_trace_id(), (uint8_t)s->index, PR_OK, 0, 0, sem_value(s));
    return PR_OK;
}

static int sem_free(pr_id_t id)
{
    pr_sem_t *s = NULL;
    int err = sem_lookup(id, &s);
    if (err == PR_OK && (s->waiters > 0 || s->holder != NULL))
        err = PR_EBUSY;
    trace_emit(PR_EV_SEM_FREE, caller_trace_id(), sem_trace_id(id), err, 0, 0, 0);
    if (err != PR_OK)
        return err;

    s->allocated = 0;
    s->fast = SEM_FAST_NONE;
    list_remove(&s->pool_link);
    list_push_back(&free_list, &s->pool_link);
    return PR_OK;
}

/* ---- down ---- */

/* Would `t` waiting on mutex m close a cycle? Follows holder -> the mutex it
 * waits on -> its holder ... (at most PR_CONFIG_MAX_TASKS steps: the chain
 * has no cycle yet). */
static int closes_cycle(const pr_sem_t *m, const pr_task_t *t)
{
    const pr_task_t *h = m->holder;
    for (int step = 0; h != NULL && step < PR_CONFIG_MAX_TASKS; step++) {
        if (h == t)
            return 1;
        const pr_sem_t *next = h->blocked_on;
        if (next == NULL || !sem_is_mutex(next))
            return 0;
        h = next->holder;
    }
    return 0;
}

static int down_result(pr_sem_t *s, pr_id_t id, int err, int blocked)
{
    trace_emit(PR_EV_SEM_DOWN, caller_trace_id(), sem_trace_id(id), err, (uint8_t)blocked, 0,
               s != NULL ? sem_value(s) : 0);
    return err;
}

/* A validated down that keeps no unit (refused, or a wait that ends
 * without the semaphore): counted in downs, not in ups (see the top). */
static int down_refused(pr_sem_t *s, pr_id_t id, int err)
{
    s->unreserved++;
    return down_result(s, id, err, 0);
}

/* What sem_down returns when the caller has been queued: the caller then
 * switches away (down_general) and finishes with down_woken. Not an error
 * code (errors.h): it never leaves this file. */
#define DOWN_BLOCKED 1

/* A wait of `timeout` ticks from now. Apart, so that a wait without a
 * timeout (the common case) carries none of its 64-bit tick arithmetic. */
static __attribute__((noinline)) void arm_timeout(pr_task_t *me, pr_timeout_t timeout)
{
    timer_arm(&me->timeout, tick_now() + timeout);
}

/* Queues the caller on s, one more waiter: the value goes one further below
 * zero (a mutex's is derived). The caller then switches away. `mutex` is
 * sem_is_mutex(s), a constant where this is inlined. */
static inline void block_on(pr_sem_t *s, pr_id_t id, pr_task_t *me, pr_timeout_t timeout, int mutex)
{
    if (!mutex)
        s->value--;
    s->waiters++;
    if ((uint32_t)s->waiters > s->max_waiters)
        s->max_waiters = (uint32_t)s->waiters;
    me->blocked_on = s;
    me->wait_result = PR_OK;
    ready_leave(me, PR_TASK_BLOCKED);
    waitq_insert(s, me);
    if (timeout != PR_FOREVER)
        arm_timeout(me, timeout);
    trace_emit(PR_EV_BLOCK, trace_id(me), sem_trace_id(id), PR_OK, 0, 0, (int32_t)timeout);
    if (mutex)
        s->policy->not_acquired(s, me);
}

/* A down on a mutex, validated but for its own checks. */
static __attribute__((noinline)) int down_mutex(pr_sem_t *s, pr_id_t id, pr_timeout_t timeout)
{
    pr_task_t *me = pr_k.current;
    /* A down on a mutex the caller holds is refused like an up by a
     * non-holder: it does not pass validation, so it is not counted. */
    if (s->holder == me)
        return down_result(s, id, PR_EHELD, 0);
    s->downs++;
    if (s->holder == NULL) { /* free: take it */
        take(s, me);
        return down_result(s, id, PR_OK, 0);
    }
    if (timeout == PR_NO_WAIT)
        return down_refused(s, id, PR_EAGAIN);
    if (closes_cycle(s, me))
        return down_refused(s, id, PR_EDEADLK);
    int err = s->policy->conflict(s, me);
    if (err != PR_OK)
        return down_refused(s, id, err);
    block_on(s, id, me, timeout, 1);
    return DOWN_BLOCKED;
}

/* The down's result, or DOWN_BLOCKED once the caller is queued. s is the
 * id's descriptor, or NULL outside the pool. */
static int sem_down(pr_sem_t *s, pr_id_t id, pr_timeout_t timeout)
{
    int err = sem_checked(s);
    if (err != PR_OK)
        return down_result(NULL, id, err, 0);
    if (!in_task_context() && (timeout != PR_NO_WAIT || sem_is_mutex(s)))
        return down_result(s, id, PR_ECONTEXT, 0);
    if (sem_is_mutex(s))
        return down_mutex(s, id, timeout);

    s->downs++;
    if (s->value > 0) { /* available: take it */
        s->value--;
        return down_result(s, id, PR_OK, 0);
    }
    if (timeout == PR_NO_WAIT)
        return down_refused(s, id, PR_EAGAIN);
    block_on(s, id, pr_k.current, timeout, 0);
    return DOWN_BLOCKED;
}

/* After the switch back: the caller was woken by an up, or by its timeout. */
static int down_woken(pr_sem_t *s, pr_id_t id)
{
    pr_task_t *me = pr_k.current;
    return down_result(s, id, me->wait_result, 1);
}

/* A waiter leaves without the semaphore: its timeout fired (result
 * PR_ETIMEDOUT) or it is being deleted. */
void sem_waiter_abort(pr_task_t *t, int result, int cause)
{
    pr_sem_t *s = t->blocked_on;
    waitq_remove(s, t);
    s->waiters--;
    if (!sem_is_mutex(s))
        s->value++;
    s->unreserved++;
    t->blocked_on = NULL;
    t->wait_result = result;
    timer_cancel(&t->timeout);
    if (sem_is_mutex(s))
        s->policy->abort(s, t, cause);
}

/* ---- up ---- */

/* Why an up is refused, or PR_OK. */
static int up_check(const pr_sem_t *s)
{
    if (sem_is_mutex(s)) {
        if (!in_task_context())
            return PR_ECONTEXT;
        if (s->holder != pr_k.current)
            return PR_EPERM;
    }
    return sem_value(s) >= s->max ? PR_EOVERFLOW : PR_OK;
}

static int up_refused(const pr_sem_t *s, pr_id_t id, int err)
{
    trace_emit(PR_EV_SEM_UP, caller_trace_id(), sem_trace_id(id), err, PR_TRACE_NONE, 0, s ? sem_value(s) : 0);
    return err;
}

/* The first waiter gets the unit (for a mutex: the ownership) and is ready.
 * `mutex` is sem_is_mutex(s), a constant where this is inlined. */
static inline pr_task_t *wake_first(pr_sem_t *s, pr_id_t id, int mutex)
{
    pr_task_t *woken = sem_first_waiter(s);
    waitq_remove(s, woken);
    s->waiters--;
    timer_cancel(&woken->timeout);
    woken->blocked_on = NULL;
    woken->wait_result = PR_OK;
    trace_emit(PR_EV_WAKE, trace_id(woken), sem_trace_id(id), PR_OK, 0, 0, 0);
    if (mutex)
        take(s, woken);
    ready_add(woken);
    return woken;
}

/* A validated up of a mutex: its holder gives it up, and its first waiter,
 * if any, gets it. */
static __attribute__((noinline)) int up_mutex(pr_sem_t *s, pr_id_t id)
{
    pr_task_t *woken = NULL;
    give(s, pr_k.current);
    if (s->waiters > 0)
        woken = wake_first(s, id, 1);
    trace_emit(PR_EV_SEM_UP, caller_trace_id(), sem_trace_id(id), PR_OK, trace_id(woken), 0, sem_value(s));
    return PR_OK;
}

/* The up's work; the caller reschedules after a success (up_general). s is
 * the id's descriptor, or NULL outside the pool. */
static int sem_up(pr_sem_t *s, pr_id_t id)
{
    pr_task_t *woken = NULL;
    int err = sem_checked(s);
    if (err == PR_OK)
        err = up_check(s);
    if (err != PR_OK)
        return up_refused(s, id, err);
    if (sem_is_mutex(s))
        return up_mutex(s, id);

    s->value++;
    if (s->waiters > 0)
        woken = wake_first(s, id, 0);
    trace_emit(PR_EV_SEM_UP, caller_trace_id(), sem_trace_id(id), PR_OK, trace_id(woken), 0, s->value);
    return PR_OK;
}

/* ---- statistics and status ---- */

static int sem_stats(pr_id_t id, pr_sem_stats_t *stats)
{
    pr_sem_t *s;
    int err = sem_lookup(id, &s);
    if (err != PR_OK)
        return err;
    if (stats == NULL)
        return PR_EINVAL;
    /* In modular arithmetic, like the counters themselves. */
    stats->ups = (uint32_t)sem_value(s) - (uint32_t)s->init_value + s->downs - s->unreserved;
    stats->downs = s->downs;
    stats->max_waiters = s->max_waiters;
    return PR_OK;
}

static int sem_status(pr_id_t id, pr_sem_status_t *status)
{
    pr_sem_t *s;
    int err = sem_lookup(id, &s);
    if (err != PR_OK)
        return err;
    if (status == NULL)
        return PR_EINVAL;
    status->index = s->index;
    status->owner = s->owner;
    status->holder = s->holder != NULL ? s->holder->id : PR_NO_TASK;
    status->waiters = s->waiters;
    status->value = sem_value(s);
    return PR_OK;
}

static int sem_attr_get(pr_id_t id, pr_sem_attr_t *attr)
{
    pr_sem_t *s;
    int err = sem_lookup(id, &s);
    if (err != PR_OK)
        return err;
    if (attr == NULL)
        return PR_EINVAL;
    attr->value = s->init_value;
    attr->max = s->max == INT_MAX ? 0 : s->max;
    attr->flags = s->flags;
    attr->protocol = s->protocol;
    attr->ceiling = s->ceiling;
    attr->name = s->name;
    return PR_OK;
}

static int sem_control(pr_id_t id, int cmd, void *arg)
{
    pr_sem_t *s;
    int err = sem_lookup(id, &s);
    if (err != PR_OK)
        return err;
    if (cmd == PR_SEM_CTL_PROTOCOL_NAME) {
        if (arg == NULL)
            return PR_EINVAL;
        *(const char **)arg = s->policy->name;
        return PR_OK;
    }
    return s->policy->control(s, cmd, arg);
}

/* ---- the fast paths ----
 *
 * What tasks do most, without the general paths above: a down that finds a
 * unit at once (a counting semaphore above 0, a free mutex) and an up that
 * wakes nobody (a counting semaphore below its maximum that nobody waits
 * on, a mutex that the caller holds and nobody waits on). In these cases
 * the general path changes exactly what the fast path changes and writes
 * the same trace record, and it does not switch: nobody is woken, and no
 * priority changes, because the mutex's policy is quiet while nobody waits
 * (policy.h: quiet_uncontended; `fast` says so). Every other case, a bad id
 * included, returns 0 and goes to the general path, which checks
 * everything itself. These run on every call, so each test and store
 * counts: the sign of `fast` is the test of the kind (internal.h), the
 * descriptor's size is a power of two (one shift finds it), and a mutex's
 * value and ups are not stored (see the top).
 */

static inline int down_fast(pr_sem_t *s)
{
    pr_task_t *me = pr_self;
    if (s->fast < 0) { /* counting; outside a task the general path decides (PR_ECONTEXT) */
        if (unlikely(s->value <= 0 || me == &pr_idle))
            return 0;
        s->value--;
    } else if (s->fast > 0) { /* mutex; not for "no task" (pr_self): its n is 0 */
        uint32_t n = me->takes.lo + 1;
        if (unlikely(s->holder != NULL || n == 0)) /* n == 0: a carry, the general path's */
            return 0;
        s->holder = me;
        me->takes.lo = n;
        s->taken.lo = n;
        s->taken.hi = me->takes.hi;
    } else {
        return 0;
    }
    s->downs++;
    trace_emit(PR_EV_SEM_DOWN, (uint8_t)me->id, (uint8_t)s->index, PR_OK, 0, 0, sem_value(s));
    return 1;
}

static inline int up_fast(pr_sem_t *s)
{
    if (s->fast < 0) { /* counting: as unsigned, a value below 0 (waiters) is above max too */
        if (unlikely((unsigned)s->value >= (unsigned)s->max))
            return 0;
        s->value++;
    } else if (s->fast > 0) { /* mutex: held by the caller (so a task), nobody waiting */
        if (unlikely(s->holder != pr_self || s->waiters != 0))
            return 0;
        s->holder = NULL;
    } else {
        return 0;
    }
    trace_emit(PR_EV_SEM_UP, caller_trace_id(), (uint8_t)s->index, PR_OK, PR_TRACE_NONE, 0, sem_value(s));
    return 1;
}

/* ---- the calls: each does its work with interrupts masked (internal.h) ---- */

/* The general paths, with the masked call's end: they restore the caller's
 * interrupt state themselves, so that the public call's call to them is a
 * tail call and the fast path needs no stack frame. Not inlined, for the
 * same reason. */
static __attribute__((noinline)) int down_general(pr_id_t id, pr_timeout_t timeout, pr_irq_state_t irq)
{
    pr_sem_t *s = (unsigned)id < PR_CONFIG_MAX_SEMS ? &sems[id] : NULL;
    int err = sem_down(s, id, timeout);
    if (err == DOWN_BLOCKED) {
        switch_to_most_urgent(); /* returns once woken: by an up, or by the timeout */
        err = down_woken(s, id);
    }
    pr_port_irq_restore(irq);
    return err;
}

static __attribute__((noinline)) int up_general(pr_id_t id, pr_irq_state_t irq)
{
    int err = sem_up((unsigned)id < PR_CONFIG_MAX_SEMS ? &sems[id] : NULL, id);
    if (err == PR_OK)
        sched_reschedule();
    pr_port_irq_restore(irq);
    return err;
}

/* The fast paths take an id in the pool; the general paths check it. */
static inline int in_pool(pr_id_t id) { return (unsigned)id < PR_CONFIG_MAX_SEMS; }

int pr_sem_down(pr_id_t id, pr_timeout_t timeout)
{
    pr_irq_state_t irq = pr_port_irq_save();
    if (unlikely(!in_pool(id) || !down_fast(&pr_sem_pool[id])))
        return down_general(id, timeout, irq);
    pr_port_irq_restore(irq);
    return PR_OK;
}

int pr_sem_trydown(pr_id_t id)
{
    pr_irq_state_t irq = pr_port_irq_save();
    if (unlikely(!in_pool(id) || !down_fast(&pr_sem_pool[id])))
        return down_general(id, PR_NO_WAIT, irq);
    pr_port_irq_restore(irq);
    return PR_OK;
}

int pr_sem_up(pr_id_t id)
{
    pr_irq_state_t irq = pr_port_irq_save();
    if (unlikely(!in_pool(id) || !up_fast(&pr_sem_pool[id])))
        return up_general(id, irq);
    pr_port_irq_restore(irq);
    return PR_OK;
}

int pr_sem_alloc(const pr_sem_attr_t *attr, pr_id_t *id) { MASKED_CALL(sem_alloc(attr, id)); }
int pr_sem_free(pr_id_t id) { MASKED_CALL(sem_free(id)); }
int pr_sem_stats(pr_id_t id, pr_sem_stats_t *stats) { MASKED_CALL(sem_stats(id, stats)); }
int pr_sem_status(pr_id_t id, pr_sem_status_t *status) { MASKED_CALL(sem_status(id, status)); }
int pr_sem_attr_get(pr_id_t id, pr_sem_attr_t *attr) { MASKED_CALL(sem_attr_get(id, attr)); }
int pr_sem_control(pr_id_t id, int cmd, void *arg) { MASKED_CALL(sem_control(id, cmd, arg)); }
