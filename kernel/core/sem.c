/*
 * The semaphore mechanism: the system pool, values, holders, wait lists,
 * blocking and wakeup (seed 000, sections 4-6), for every kind: counting,
 * binary, mutex and recursive mutex. How priorities react, and whether a
 * task may lock at all, is the policy's business (kernel/policy/); this file
 * calls its hooks (policy.h) and carries out what they decide: block, take,
 * wait elsewhere, or take the mutex over from an aborted holder.
 *
 * Invariants, true whenever no kernel call is running:
 *  - value < 0  <=>  -value tasks wait (waiters == -value); value >= 0
 *    means nobody waits.
 *  - a mutex with value 1 has no holder; with value <= 0 it has one.
 *  - an up that finds waiters wakes exactly one and hands it the unit
 *    (for a mutex: the ownership); nobody can take the unit in between.
 *    The one exception: a task that waits on this mutex for another one
 *    (pcp, outside its assumptions) is woken to try again instead.
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
 *    ones, waits that ended without the semaphore, and a holder's down whose
 *    section was aborted) - the downs still waiting elsewhere for it (pcp:
 *    they are not in its value). A recursive mutex's relock and the up that
 *    undoes it change no value and are not counted.
 *  - what the fast paths never read (the system ceiling's link, a recursive
 *    mutex's depth, the counts of the protocols) sits beside the descriptor
 *    (pr_sem_more_t), like the wait list, so the descriptor stays SEM_BYTES.
 *
 * Every call is O(1) in the number of waiters (plist.h); the policy's chain
 * walk adds O(chain length) for mutexes (priority.c).
 */
#include <limits.h>
#include <string.h>
#include "../policy/policy.h"
#include "priority.h"

_Static_assert(sizeof(pr_sem_t) == SEM_BYTES, "a semaphore descriptor is SEM_BYTES (internal.h)");
_Static_assert((int)POLICY_FAST_QUIET == SEM_FAST_MUTEX && (int)POLICY_FAST_INHERIT == SEM_FAST_INHERIT,
               "a mutex's `fast` is its policy's (policy.h)");

/* The pool, and one more descriptor after it that no id reaches: the wait
 * list of the tasks blocked by the system ceiling (sem_ceiling_queue). */
#define GATE PR_CONFIG_MAX_SEMS
static pr_sem_t sems[PR_CONFIG_MAX_SEMS + 1];
pr_sem_t *pr_sem_pool = sems;
static pr_plist_t waitqs[PR_CONFIG_MAX_SEMS + 1]; /* each semaphore's wait list, by index */
static pr_sem_more_t mores[PR_CONFIG_MAX_SEMS + 1];
static pr_link_t free_list;                       /* freed descriptors go to the tail: reused last */
static pr_link_t alloc_list;

void sems_reset(void)
{
    list_init(&free_list);
    list_init(&alloc_list);
    for (int i = 0; i <= PR_CONFIG_MAX_SEMS; i++) {
        pr_sem_t *s = &sems[i];
        memset(s, 0, sizeof *s);
        memset(&mores[i], 0, sizeof mores[i]);
        s->index = i;
        s->waitq = &waitqs[i];
        mores[i].sem = s;
        list_init(&mores[i].ceiling_link);
        if (i < PR_CONFIG_MAX_SEMS)
            list_push_back(&free_list, &s->pool_link);
    }
    pr_sem_t *gate = &sems[GATE];
    gate->allocated = 1;
    gate->flags = PR_SEM_MUTEX | PR_SEM_PRIO;
    gate->lent = PRIO_NONE;
    mores[GATE].trace_as = PR_TRACE_NONE;
    plist_init(&waitqs[GATE]);
    ceiling_reset();
    policies_reset();
}

pr_sem_t *sem_ceiling_queue(const struct pr_policy *policy)
{
    sems[GATE].policy = policy;
    return &sems[GATE];
}

pr_sem_more_t *sem_more(const pr_sem_t *s) { return &mores[s->index]; }

uint8_t sem_trace_via(const pr_sem_t *m)
{
    return (uint8_t)(m->index != GATE ? m->index : mores[GATE].trace_as);
}

int sem_lookup(pr_id_t id, pr_sem_t **out)
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

static int sem_is_recursive(const pr_sem_t *s) { return (s->flags & PR_SEM_RECURSIVE) != 0; }

/* The value as the API gives it (sem.h). */
static int sem_value(const pr_sem_t *s)
{
    if (!sem_is_mutex(s))
        return s->value;
    return s->holder != NULL ? -s->waiters : 1;
}

/* Times the holder has locked it (sem.h: pr_sem_status.depth). */
static int sem_depth(const pr_sem_t *s)
{
    if (s->holder == NULL)
        return 0;
    return sem_is_recursive(s) ? mores[s->index].depth : 1;
}

/* ---- wait lists ---- */

static pr_plist_t *waitq_of(const pr_sem_t *s) { return s->waitq; }

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

/* The wait's timer, at its absolute tick. Apart, so that a wait without a
 * timeout (the common case) carries none of its 64-bit tick arithmetic. */
static __attribute__((noinline)) void arm_timeout(pr_task_t *t, pr_ticks_t expiry) { timer_arm(&t->timeout, expiry); }

/* t, the calling task, joins q's wait list, asking for s (q is s, or where
 * s's policy sent it), and unless the timeout is PR_FOREVER its timer is
 * armed for the tick `expiry` (computed by the caller when the call began).
 * One more waiter: a counting value goes one further below zero. A mutex's
 * caller then tells its policy (not_acquired), and the caller switches
 * away. `mutex` is sem_is_mutex(q), a constant where this is inlined. No
 * wait result is stored: whatever ends the wait stores it (leave), before
 * t runs again. */
static inline __attribute__((always_inline)) void block(pr_sem_t *q, pr_sem_t *s, pr_task_t *t,
                                                        pr_timeout_t timeout, pr_ticks_t expiry, int mutex)
{
    if (!mutex)
        q->value--;
    q->waiters++;
    if ((uint32_t)q->waiters > q->max_waiters)
        q->max_waiters = (uint32_t)q->waiters;
    if (q != s)
        mores[s->index].remote_waiters++;
    t->blocked_on = q;
    t->wants = s;
    t->state = PR_TASK_BLOCKED;
    ready_unlink(&pr_k.ready, t); /* it runs, so it is there; t->queue is the wait list's from here */
    waitq_insert(q, t);
    if (timeout != PR_FOREVER)
        arm_timeout(t, expiry);
    trace_emit(PR_EV_BLOCK, trace_id(t), (uint8_t)s->index, PR_OK, 0, 0, (int32_t)timeout);
}

/* t leaves its wait list; with_unit: it got the unit (an up handed it
 * over), else it gives its place in the value back. Returns the list.
 * `mutex` is sem_is_mutex of the list, a constant where the caller knows
 * it: only a mutex's waiters may ask for another semaphore (pcp). */
static inline __attribute__((always_inline)) pr_sem_t *leave(pr_task_t *t, int result, int with_unit, int mutex)
{
    pr_sem_t *q = t->blocked_on;
    waitq_remove(q, t);
    q->waiters--;
    if (!mutex && !with_unit)
        q->value++;
    if (mutex && t->wants != q)
        mores[t->wants->index].remote_waiters--;
    t->blocked_on = NULL;
    t->wants = NULL;
    t->wait_result = result;
    timer_cancel(&t->timeout);
    return q;
}

/* A waiter leaves without the semaphore: its timeout fired (result
 * PR_ETIMEDOUT) or it is being deleted. */
void sem_waiter_abort(pr_task_t *t, int result, int cause)
{
    t->wants->unreserved++;
    if (!sem_is_mutex(t->blocked_on)) {
        leave(t, result, 0, 0);
        return;
    }
    pr_sem_t *q = leave(t, result, 0, 1);
    q->policy->abort(q, t, cause);
}

/* The waiter's down runs its lock again when it runs (mutex_down's loop);
 * the tick its wait times out at is kept in wait_expiry. Only the priority
 * the list lent is re-read here, not the policy's abort hook: a policy
 * wakes waiters one at a time, from its own hooks. */
void sem_waiter_retry(pr_task_t *t, int cause)
{
    pr_sem_t *m = t->wants;
    pr_sem_t *q = leave(t, WAIT_RETRY, 0, 1);
    trace_emit(PR_EV_WAKE, trace_id(t), (uint8_t)m->index, PR_EAGAIN, 0, 0, 0);
    if (q->holder != NULL)
        prio_relend(q, cause);
    sched_make_ready(t);
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

/* t becomes s's holder: its next take number is s's. */
static inline void hold(pr_sem_t *s, pr_task_t *t)
{
    uint32_t lo = count64_add1(&t->takes);
    s->holder = t;
    s->taken.lo = lo;
    s->taken.hi = t->takes.hi;
}

static void take(pr_sem_t *s, pr_task_t *t)
{
    hold(s, t);
    mores[s->index].depth = 1;
    if (s->policy->system_ceiling)
        ceiling_add(s);
    s->policy->acquired(s, t);
}

/* The holder stops holding s. The caller runs the policy's release hook
 * once the mutex is in its new hands (free, handed over, or taken over). */
static void give(pr_sem_t *s)
{
    if (s->policy->system_ceiling)
        ceiling_remove(s);
    prio_withdraw(s, PR_CAUSE_RELEASE);
    s->holder = NULL;
}

/* ---- restartable critical sections (rcs) ---- */

int sem_abort_pending(const pr_task_t *t, const pr_sem_t *m)
{
    /* aborts_pending counts the bits set: most tasks have none. */
    return t->aborts_pending != 0 && ((t->aborted_on[m->index / 32] >> (m->index % 32)) & 1u);
}

int sem_abort_tell(pr_task_t *t, pr_sem_t *m)
{
    t->aborted_on[m->index / 32] &= ~(1u << (m->index % 32));
    t->aborts_pending--;
    mores[m->index].abort_marks--;
    return PR_EABORTED;
}

void sem_task_forget_aborts(pr_task_t *t)
{
    for (int w = 0; w < SEM_WORDS && t->aborts_pending > 0; w++)
        while (t->aborted_on[w] != 0)
            sem_abort_tell(t, &sems[w * 32 + __builtin_ctz(t->aborted_on[w])]);
}

/*
 * The policy answered POLICY_TAKE_OVER: t takes s at once from its holder h,
 * whose critical section is aborted. h is not interrupted in what it does
 * (it is not running: t is); it learns of the abort at its recovery point:
 * its next call on s returns PR_EABORTED, and until then pr_sem_aborted()
 * counts it and pr_port_consume returns at once. The mutex goes from held to
 * held and its waiters stay queued, now behind t; h's down no longer keeps
 * its unit (unreserved, for the derived ups). O(1) plus the re-lending.
 */
static void take_over(pr_sem_t *s, pr_task_t *t)
{
    pr_task_t *h = s->holder;
    pr_sem_more_t *more = &mores[s->index];
    h->aborted_on[s->index / 32] |= 1u << (s->index % 32);
    h->aborts++;
    h->aborts_pending++;
    more->abort_marks++;
    more->aborts++;
    s->unreserved++;
    trace_emit(PR_EV_ABORT, trace_id(h), (uint8_t)s->index, PR_OK, trace_id(t), (uint8_t)sem_depth(s),
               (int32_t)h->aborts_pending);
    give(s);
    s->policy->release(s, h);
    take(s, t);
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
    const unsigned known = PR_SEM_PRIO | PR_SEM_MUTEX | PR_SEM_RECURSIVE | PR_SEM_BINARY;
    const unsigned flags = attr->flags;
    if ((flags & ~known) != 0 || attr->value < 0)
        return PR_EINVAL;
    if ((flags & PR_SEM_RECURSIVE) && !(flags & PR_SEM_MUTEX))
        return PR_EINVAL;
    if ((flags & PR_SEM_BINARY) && ((flags & PR_SEM_MUTEX) || attr->value > 1 || attr->max > 1))
        return PR_EINVAL;
    if ((flags & PR_SEM_MUTEX) && (attr->value != 1 || attr->max != 0))
        return PR_EINVAL;
    if (attr->max < 0 || (attr->max != 0 && attr->value > attr->max))
        return PR_EINVAL;
    const pr_policy_t *policy = policy_of(attr->protocol);
    if (policy == NULL)
        return PR_EINVAL;
    if (attr->protocol != PR_PROTOCOL_NONE && !(flags & PR_SEM_MUTEX))
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
    /* A recursive mutex takes the general paths: the fast up would release
     * it at any depth. */
    if (!sem_is_mutex(s))
        s->fast = SEM_FAST_COUNTING;
    else
        s->fast = sem_is_recursive(s) ? SEM_FAST_NONE : (int8_t)s->policy->fast;
    s->value = sem_is_mutex(s) ? 0 : attr->value; /* a mutex's is derived (sem_value) */
    s->init_value = attr->value;
    if (attr->flags & PR_SEM_BINARY)
        s->max = 1;
    else
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
    pr_sem_more_t *more = &mores[s->index];
    more->depth = more->remote_waiters = more->cond_waiters = more->abort_marks = 0;
    more->aborts = 0;

    *id = s->index;
    trace_emit(PR_EV_SEM_ALLOC, caller_trace_id(), (uint8_t)s->index, PR_OK, 0, 0, sem_value(s));
    return PR_OK;
}

static int sem_free(pr_id_t id)
{
    pr_sem_t *s = NULL;
    int err = sem_lookup(id, &s);
    if (err == PR_OK) {
        const pr_sem_more_t *more = &mores[s->index];
        if (s->waiters > 0 || s->holder != NULL || more->remote_waiters > 0 || more->cond_waiters > 0 ||
            more->abort_marks > 0)
            err = PR_EBUSY;
    }
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
static int down_refused(pr_sem_t *s, pr_id_t id, int err, int blocked)
{
    s->unreserved++;
    return down_result(s, id, err, blocked);
}

/* The absolute tick a wait of `timeout` ticks from now ends at, 0 for
 * none. Apart, for the same reason as arm_timeout. */
static __attribute__((noinline)) pr_ticks_t expiry_after(pr_timeout_t timeout) { return tick_now() + timeout; }

static inline pr_ticks_t expiry_of(pr_timeout_t timeout)
{
    return (timeout == PR_NO_WAIT || timeout == PR_FOREVER) ? 0 : expiry_after(timeout);
}

/* What sem_down returns when the caller, a task, must wait on a counting
 * semaphore: down_general then calls counting_wait, which does it all. Not
 * an error code (errors.h): it never leaves this file. A mutex down waits
 * and finishes itself (mutex_down: it may try again). */
#define DOWN_WAIT 1

static int counting_down(pr_sem_t *s, pr_id_t id, pr_timeout_t timeout)
{
    if (s->value <= 0 && timeout != PR_NO_WAIT)
        return DOWN_WAIT;
    s->downs++;
    if (s->value > 0) {
        s->value--;
        return down_result(s, id, PR_OK, 0);
    }
    return down_refused(s, id, PR_EAGAIN, 0);
}

/* A mutex locked by its holder: a recursive one counts one level more (not
 * counted in downs: it changes no value); any other is refused. */
static int relock(pr_sem_t *s, pr_id_t id)
{
    pr_sem_more_t *more = &mores[s->index];
    if (!sem_is_recursive(s))
        return down_result(s, id, PR_EHELD, 0);
    if (more->depth == INT_MAX)
        return down_result(s, id, PR_EOVERFLOW, 0);
    more->depth++;
    return down_result(s, id, PR_OK, 0);
}

/*
 * A mutex down. The policy's admit decides first (refuse, wait elsewhere,
 * or go on); then a free mutex is taken, and a held one meets its holder
 * through the policy's conflict (block, or take it over). A waiter woken to
 * try again (WAIT_RETRY) goes round once more, with the same timeout tick;
 * one that gives up then tells the policy (abort), so that the next may go.
 */
static __attribute__((noinline)) int mutex_down(pr_sem_t *s, pr_id_t id, pr_timeout_t timeout)
{
    pr_task_t *me = pr_k.current;
    if (sem_abort_pending(me, s))
        return down_result(s, id, sem_abort_tell(me, s), 0);
    if (s->holder == me)
        return relock(s, id);
    pr_sem_t *wait_on = NULL;
    int err = s->policy->admit(s, me, &wait_on);
    if (err != PR_OK) /* refused like a relock: not counted */
        return down_result(s, id, err, 0);
    s->downs++;
    me->wait_expiry = expiry_of(timeout);

    for (int retry = 0;; retry = 1) {
        if (retry)
            err = s->policy->admit(s, me, &wait_on);
        if (err == PR_OK && wait_on == NULL) {
            if (s->holder == NULL) { /* free: take it */
                take(s, me);
                sched_reschedule(); /* a policy may have woken somebody */
                return down_result(s, id, PR_OK, retry);
            }
            err = s->policy->conflict(s, me);
            if (err == POLICY_TAKE_OVER) {
                take_over(s, me);
                sched_reschedule();
                return down_result(s, id, PR_OK, retry);
            }
            wait_on = s;
        }
        if (err == PR_OK && timeout == PR_NO_WAIT)
            err = PR_EAGAIN;
        if (err == PR_OK && closes_cycle(wait_on, me))
            err = PR_EDEADLK;
        if (err == PR_OK && retry && me->wait_expiry != 0 && me->wait_expiry <= pr_k.ticks)
            err = PR_ETIMEDOUT; /* its timeout tick passed before it could try again */
        if (err != PR_OK) {
            s->unreserved++;
            if (retry)
                s->policy->abort(s, me, err == PR_ETIMEDOUT ? PR_CAUSE_TIMEOUT : PR_CAUSE_RELEASE);
            return down_result(s, id, err, retry);
        }
        block(wait_on, s, me, timeout, me->wait_expiry, 1); /* wait_on is a mutex: s, or the ceiling's list */
        wait_on->policy->not_acquired(wait_on, me);
        switch_to_most_urgent(); /* returns once woken: handed the mutex, timed out, or to try again */
        if (me->wait_result != WAIT_RETRY)
            return down_result(s, id, me->wait_result, 1);
    }
}

/* The down's result, or DOWN_WAIT if the caller must wait on a counting
 * semaphore. s is the id's descriptor, or NULL outside the pool. */
static int sem_down(pr_sem_t *s, pr_id_t id, pr_timeout_t timeout)
{
    int err = sem_checked(s);
    if (err != PR_OK)
        return down_result(NULL, id, err, 0);
    if (!in_task_context() && (timeout != PR_NO_WAIT || sem_is_mutex(s)))
        return down_result(s, id, PR_ECONTEXT, 0);
    return sem_is_mutex(s) ? mutex_down(s, id, timeout) : counting_down(s, id, timeout);
}

int sem_mutex_lock(pr_sem_t *m, pr_timeout_t timeout) { return mutex_down(m, m->index, timeout); }

/* ---- up ---- */

/* The first waiter gets the unit: for a mutex, it becomes the holder. A
 * waiter of a mutex that asks for another one (pcp) is woken to try again.
 * `mutex` is sem_is_mutex(s), a constant where this is inlined: a counting
 * semaphore's waiters all ask for it (only a mutex's policy sends a waiter
 * elsewhere), so its wake is one pass with no call. */
static inline __attribute__((always_inline)) pr_task_t *wake_first(pr_sem_t *s, int mutex)
{
    while (s->waiters > 0) {
        pr_task_t *woken = sem_first_waiter(s);
        if (mutex && woken->wants != s) {
            sem_waiter_retry(woken, PR_CAUSE_RELEASE);
            continue;
        }
        leave(woken, PR_OK, 1, mutex);
        trace_emit(PR_EV_WAKE, trace_id(woken), (uint8_t)s->index, PR_OK, 0, 0, 0);
        if (mutex)
            take(s, woken);
        ready_add_waiter(woken);
        return woken;
    }
    return NULL;
}

/* The holder gives the mutex up whatever its depth; the first waiter that
 * asks for it is handed it; then the policy hears of the release. */
static __attribute__((noinline)) pr_task_t *mutex_release(pr_sem_t *s, pr_task_t *me)
{
    give(s);
    pr_task_t *woken = wake_first(s, 1);
    s->policy->release(s, me);
    return woken;
}

static int up_result(pr_sem_t *s, pr_id_t id, int err, pr_task_t *woken)
{
    trace_emit(PR_EV_SEM_UP, caller_trace_id(), sem_trace_id(id), err, trace_id(woken), 0, s ? sem_value(s) : 0);
    return err;
}

void sem_mutex_release(pr_sem_t *m)
{
    pr_task_t *woken = mutex_release(m, pr_k.current);
    up_result(m, m->index, PR_OK, woken);
}

/* The up's work; the caller reschedules after a success (up_general). s is
 * the id's descriptor, or NULL outside the pool. */
static int sem_up(pr_sem_t *s, pr_id_t id)
{
    pr_task_t *me = pr_k.current;
    int err = sem_checked(s);
    if (err == PR_OK && sem_is_mutex(s)) {
        if (!in_task_context())
            err = PR_ECONTEXT;
        else if (sem_abort_pending(me, s))
            err = sem_abort_tell(me, s);
        else if (s->holder != me)
            err = PR_EPERM;
    }
    if (err == PR_OK && sem_value(s) >= s->max)
        err = PR_EOVERFLOW;
    if (err != PR_OK)
        return up_result(s, id, err, NULL);

    pr_task_t *woken;
    if (sem_is_mutex(s) && sem_depth(s) > 1) { /* a recursive mutex: one level less */
        mores[s->index].depth--;
        return up_result(s, id, PR_OK, NULL);
    }
    if (sem_is_mutex(s)) {
        woken = mutex_release(s, me);
    } else {
        s->value++;
        woken = wake_first(s, 0);
    }
    return up_result(s, id, PR_OK, woken);
}

static int sem_aborted(void) { return in_task_context() ? (int)pr_k.current->aborts_pending : 0; }

/* ---- statistics and status ---- */

static int sem_stats(pr_id_t id, pr_sem_stats_t *stats)
{
    pr_sem_t *s;
    int err = sem_lookup(id, &s);
    if (err != PR_OK)
        return err;
    if (stats == NULL)
        return PR_EINVAL;
    const pr_sem_more_t *more = &mores[s->index];
    /* In modular arithmetic, like the counters themselves. */
    stats->ups = (uint32_t)sem_value(s) - (uint32_t)s->init_value + s->downs - s->unreserved -
                 (uint32_t)more->remote_waiters;
    stats->downs = s->downs;
    stats->max_waiters = s->max_waiters;
    stats->aborts = more->aborts;
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
    status->depth = sem_depth(s);
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
 * What tasks do most, without the general paths above: each serves one
 * case, with the changes and the trace records that the general path would
 * make for it, in the same order, and skips only what that case makes
 * trivial (each says what and why). Any other case, a bad id included,
 * goes to the general path, which checks everything itself.
 *
 *  - down_fast and up_fast: a down that finds a unit at once (a counting
 *    semaphore above 0, a free mutex) and an up that wakes nobody (a
 *    counting semaphore below its maximum that nobody waits on, a mutex
 *    that the caller holds and nobody waits on). Neither switches: nobody
 *    is woken, and no priority changes, because the mutex's policy is
 *    quiet while nobody waits (policy.h: fast).
 *  - counting_wait and counting_wake: a task's down that must wait on a
 *    counting semaphore, and an up that hands a unit to its first waiter.
 *    A counting semaphore has no policy, and its waiters all ask for it.
 *  - mutex_wait and mutex_handoff: a task's down that must wait, without a
 *    timeout, on a mutex another task holds, and the holder's up that hands
 *    the mutex to its first waiter, under the policies whose hooks the fast
 *    paths may carry out themselves (none and pip: policy.h, fast).
 *
 * These run on every call, so each test and store counts: the sign of
 * `fast` is the test of the kind (internal.h), the descriptor's size is a
 * power of two (one shift finds it), a mutex's value and ups are not stored
 * (see the top), and each wait and wake is a function of its own that the
 * public call reaches by a tail call.
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

/* The general paths' entries (with the calls, below), for a case a fast
 * path finds it does not serve. */
static int down_general(pr_id_t id, pr_timeout_t timeout, pr_irq_state_t irq);

/*
 * The end of a down whose caller `me` has just been queued on s (by
 * counting_wait or mutex_wait): the switch away and, once woken (handed the
 * unit or the mutex, or timed out), the down's result with the caller's
 * interrupt state back.
 */
static inline __attribute__((always_inline)) int wait_woken(pr_sem_t *s, pr_task_t *me, pr_irq_state_t irq)
{
    switch_to_most_urgent(); /* returns once woken */
    int err = down_result(s, s->index, me->wait_result, 1);
    pr_port_irq_restore(irq);
    return err;
}

/*
 * A down that waits on a counting semaphore: `me` is the calling task, s's
 * value is 0 or below and the timeout is not PR_NO_WAIT (pr_sem_down checks
 * that itself; so does the general path, which comes here too). It queues
 * the task, switches away, and once woken (by an up, or by its timeout)
 * returns the down's result with the caller's interrupt state back: the
 * work of counting_down's general case, whole. Its expiry is not kept
 * (wait_expiry): only a mutex waiter's retry reads it.
 *
 * counting_wait is the public call's tail call. A wait without a timeout,
 * the usual one, keeps nothing across the switch but the caller and its
 * interrupt state; a timed one, whose tick counts from the call's instant
 * (computed before anything changes, as the general path does), is apart.
 */
static inline __attribute__((always_inline)) int counting_wait_until(pr_sem_t *s, pr_task_t *me,
                                                                     pr_timeout_t timeout, pr_ticks_t expiry,
                                                                     pr_irq_state_t irq)
{
    s->downs++;
    block(s, s, me, timeout, expiry, 0);
    return wait_woken(s, me, irq);
}

static __attribute__((noinline)) int counting_wait_timed(pr_sem_t *s, pr_task_t *me, pr_timeout_t timeout,
                                                         pr_irq_state_t irq)
{
    return counting_wait_until(s, me, timeout, expiry_after(timeout), irq);
}

static __attribute__((noinline)) int counting_wait(pr_sem_t *s, pr_task_t *me, pr_timeout_t timeout,
                                                   pr_irq_state_t irq)
{
    if (timeout != PR_FOREVER)
        return counting_wait_timed(s, me, timeout, irq);
    return counting_wait_until(s, me, PR_FOREVER, 0, irq);
}

/*
 * The end of an up that has made a waiter ready: the switch to it if it is
 * more urgent than the caller and the caller may switch (not in an
 * interrupt, not outside: sched_reschedule), then the caller's interrupt
 * state back.
 */
static inline __attribute__((always_inline)) int woken_reschedule(pr_irq_state_t irq)
{
    sched_reschedule();
    pr_port_irq_restore(irq);
    return PR_OK;
}

/*
 * An up that hands its unit to the first waiter of a counting semaphore
 * (its value is below 0, so somebody waits and the maximum is not in the
 * way; pr_sem_up checks that itself, so that it comes here without the
 * general path): sem_up's changes and records, for that case only, then
 * the switch if the woken task is more urgent. From a task or an interrupt.
 */
static __attribute__((noinline)) int counting_wake(pr_sem_t *s, pr_irq_state_t irq)
{
    s->value++;
    pr_task_t *woken = wake_first(s, 0);
    up_result(s, s->index, PR_OK, woken);
    return woken_reschedule(irq);
}

/*
 * A down that waits without a timeout on a held mutex whose policy the fast
 * paths may serve (`fast` > 0: none or pip, not recursive; policy.h). `me`
 * is the calling task, not the holder: pr_sem_down checks that itself.
 * This is mutex_down's work for that case, without what its policy makes
 * trivial: admit lets it go on, conflict lets it wait, not_acquired
 * re-lends the mutex (pip) or does nothing (none), and its waiters are
 * never woken to try again (only pcp's are), so after the switch the wait's
 * result is the down's. A wait that would close a cycle goes to the general
 * path before anything changes, which refuses it; so does a wait with a
 * timeout (less usual, and kept apart from this one's code).
 */
static __attribute__((noinline)) int mutex_wait(pr_sem_t *s, pr_task_t *me, pr_irq_state_t irq)
{
    /* The cycle check's first step inline: a holder that waits on nothing
     * (the usual case) closes no cycle (pr_sem_down checked it is not me). */
    if (unlikely(s->holder->blocked_on != NULL && closes_cycle(s, me)))
        return down_general(s->index, PR_FOREVER, irq);
    s->downs++;
    block(s, s, me, PR_FOREVER, 0, 1);
    if (s->fast == SEM_FAST_INHERIT) {
        /* not_acquired re-lends s, which lends its first waiter's priority.
         * The usual case inline: s starts lending (the caller is its only
         * waiter), so the pass is a raise of the holder and no search.
         * Otherwise the general walk: the same lend, asked of the policy. */
        pr_sem_t *next = NULL;
        if (s->lent == PRIO_NONE && s->waiters == 1)
            next = prio_start_lending(s, me->effective, PR_CAUSE_INHERIT);
        else
            prio_relend(s, PR_CAUSE_INHERIT);
        if (unlikely(next != NULL)) /* the holder waits on a mutex: on down the chain */
            prio_relend(next, PR_CAUSE_INHERIT);
    }
    return wait_woken(s, me, irq); /* handed the mutex */
}

/*
 * An up by the holder of a mutex that tasks wait on, whose policy the fast
 * paths may serve (`fast` > 0; pr_sem_up checks that the caller holds it
 * and that it has waiters). This is sem_up's and mutex_release's work for
 * that case: what the mutex lent the caller is withdrawn (pip), the first
 * waiter leaves the list and is handed the mutex, the mutex lends it what
 * the waiters left behind lend (pip: acquired re-lends), it becomes ready,
 * and the CPU goes to it if it is more urgent. Left out is only what the
 * case makes trivial: the caller is a task that runs, so an unboost is its
 * move to the head of a lower level and no walk goes on from it (it waits
 * on nothing); release does nothing under these policies; the mutex's
 * waiters all ask for it (only pcp's may ask for another); a mutex that is
 * not recursive has no depth to keep; and only pcp's mutexes are in the
 * system ceiling.
 */
static __attribute__((noinline)) int mutex_handoff(pr_sem_t *s, pr_irq_state_t irq)
{
    if (s->fast == SEM_FAST_INHERIT) /* the holder is the caller, which runs */
        prio_unlend_running(s, PR_CAUSE_RELEASE);
    pr_task_t *woken = sem_first_waiter(s);
    leave(woken, PR_OK, 1, 0);
    trace_emit(PR_EV_WAKE, trace_id(woken), (uint8_t)s->index, PR_OK, 0, 0, 0);
    hold(s, woken);
    /* acquired re-lends s to its new holder (pip); without waiters left s
     * lends nothing, as it does now (unlent above). */
    if (s->fast == SEM_FAST_INHERIT && s->waiters > 0)
        prio_relend(s, PR_CAUSE_ACQUIRE);
    ready_add_waiter(woken);
    up_result(s, s->index, PR_OK, woken);
    switch_to_most_urgent(); /* the caller is a task: it may switch (sched_reschedule's test) */
    pr_port_irq_restore(irq);
    return PR_OK;
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
    if (err == DOWN_WAIT)
        return counting_wait(s, pr_k.current, timeout, irq);
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
    if (likely(in_pool(id))) {
        pr_sem_t *s = &pr_sem_pool[id];
        if (likely(down_fast(s))) {
            pr_port_irq_restore(irq);
            return PR_OK;
        }
        pr_task_t *me = pr_self;
        if (timeout != PR_NO_WAIT && me != &pr_idle) {
            if (s->fast < 0 && s->value <= 0)
                return counting_wait(s, me, timeout, irq);
            if (s->fast > 0 && s->holder != NULL && s->holder != me && timeout == PR_FOREVER)
                return mutex_wait(s, me, irq);
        }
    }
    return down_general(id, timeout, irq);
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
    if (likely(in_pool(id))) {
        pr_sem_t *s = &pr_sem_pool[id];
        if (likely(up_fast(s))) {
            pr_port_irq_restore(irq);
            return PR_OK;
        }
        if (s->fast < 0 && s->value < 0)
            return counting_wake(s, irq);
        if (s->fast > 0 && s->holder == pr_self && s->waiters > 0)
            return mutex_handoff(s, irq);
    }
    return up_general(id, irq);
}

int pr_sem_alloc(const pr_sem_attr_t *attr, pr_id_t *id) { MASKED_CALL(sem_alloc(attr, id)); }
int pr_sem_free(pr_id_t id) { MASKED_CALL(sem_free(id)); }
int pr_sem_aborted(void) { MASKED_CALL(sem_aborted()); }
int pr_sem_stats(pr_id_t id, pr_sem_stats_t *stats) { MASKED_CALL(sem_stats(id, stats)); }
int pr_sem_status(pr_id_t id, pr_sem_status_t *status) { MASKED_CALL(sem_status(id, status)); }
int pr_sem_attr_get(pr_id_t id, pr_sem_attr_t *attr) { MASKED_CALL(sem_attr_get(id, attr)); }
int pr_sem_control(pr_id_t id, int cmd, void *arg) { MASKED_CALL(sem_control(id, cmd, arg)); }
