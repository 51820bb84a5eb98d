/*
 * The semaphore pool (MINIX4RT's system pool [Pessolani]): allocation, free,
 * lookups, statistics, status and attributes, for every kind.
 *
 * What is stored and what is derived, so that the fast paths store as
 * little as they can:
 *  - a counting semaphore stores its value; a mutex does not: its value is
 *    1 without a holder and -waiters with one (sem_value);
 *  - a task's held mutexes are the mutexes whose holder it is, each with
 *    the number of its holder's take that got it, so that the end of a task
 *    releases them in the order it took them;
 *  - of the statistics, downs and max_waiters are counted and ups follows
 *    from the value: every unit an up adds is still there, was taken by a
 *    down, or waits with a waiter, so ups = value - initial value + the
 *    downs that kept their unit (all but `unreserved`: refused ones, waits
 *    that ended without the semaphore, a holder's down whose section was
 *    aborted) - the downs still under way outside its queue (`remote`: not
 *    in its value). A recursive mutex's relock and the up that undoes it
 *    change no value and are not counted.
 */
#include <limits.h>
#include <string.h>
#include "../policy/policy.h"
#include "privilege_impl.h"

_Static_assert(sizeof(pr_sem_t) == SEM_BYTES, "a semaphore descriptor is SEM_BYTES (sem_impl.h)");
_Static_assert((int)POLICY_FAST_QUIET == SEM_FAST_MUTEX && (int)POLICY_FAST_INHERIT == SEM_FAST_INHERIT,
               "a mutex's `fast` is its policy's (policy.h)");

static pr_link_t free_list;                   /* freed descriptors go to the tail: reused last */
static pr_link_t alloc_list;

void sems_reset(void)
{
    list_init(&free_list);
    list_init(&alloc_list);
    for (int i = 0; i < PR_CONFIG_MAX_SEMS; i++) {
        pr_sem_t *s = &pr_sem_pool[i];
        memset(s, 0, sizeof *s);
        memset(&pr_sem_mores[i], 0, sizeof pr_sem_mores[i]);
        s->index = i;
        s->trace_tag = (uint8_t)i;
        s->waitq = &pr_sem_waitqs[i];
        s->lender.lent = PRIO_NONE;
        waitq_init(&pr_sem_waitqs[i], &sem_waitq_ops, 1, (uint8_t)i);
        list_push_back(&free_list, &s->pool_link);
    }
    policies_reset();
}

int sem_lookup(pr_id_t id, pr_sem_t **out)
{
    if (id < 0 || id >= PR_CONFIG_MAX_SEMS)
        return PR_EBADID;
    if (!pr_sem_pool[id].allocated)
        return PR_ENOTALLOC;
    *out = &pr_sem_pool[id];
    return PR_OK;
}

/* Times the holder has locked it (sem.h: pr_sem_status.depth). */
static int sem_depth(const pr_sem_t *s)
{
    if (s->lender.holder == NULL)
        return 0;
    return sem_is_recursive(s) ? pr_sem_mores[s->index].depth : 1;
}

pr_sem_t *sem_first_held(const pr_task_t *t)
{
    pr_sem_t *first = NULL;
    for (int i = 0; i < PR_CONFIG_MAX_SEMS; i++) {
        pr_sem_t *s = &pr_sem_pool[i];
        if (s->lender.holder == t && (first == NULL || count64_before(s->taken, first->taken)))
            first = s;
    }
    return first;
}

int sem_held_count(const pr_task_t *t)
{
    int n = 0;
    for (int i = 0; i < PR_CONFIG_MAX_SEMS; i++)
        n += pr_sem_pool[i].lender.holder == t;
    return n;
}

/* The tasks in s's queue that wait for s itself (not for another mutex
 * their policy made them wait for here). */
static int own_waiters(const pr_sem_t *s)
{
    int n = 0;
    for (int level = 0; level < PR_CONFIG_PRIORITIES; level++) {
        const pr_link_t *head = &s->waitq->list.level[level];
        for (const pr_link_t *l = head->next; l != head; l = l->next)
            n += container_of(l, pr_task_t, qlink)->down_on == s;
    }
    return n;
}

void sem_check(const pr_sem_t *s)
{
    const pr_sem_more_t *more = &pr_sem_mores[s->index];
    PR_ASSERT(waitq_check(s->waitq) >= s->waiters && own_waiters(s) == s->waiters);
    PR_ASSERT(more->remote >= 0 && more->relockers >= 0 && more->abort_marks >= 0);
    if (!sem_is_mutex(s)) {
        PR_ASSERT(s->value <= s->max);
        PR_ASSERT(s->value < 0 ? s->waiters == -s->value : s->waiters == 0);
        PR_ASSERT(s->lender.holder == NULL && s->lender.lent == PRIO_NONE);
        return;
    }
    PR_ASSERT(s->lender.holder != NULL || (s->waiters == 0 && s->lender.lent == PRIO_NONE));
    PR_ASSERT(s->lender.holder == NULL || !sem_is_recursive(s) || more->depth >= 1);
    PR_ASSERT(s->lender.holder != &pr_idle);
    (void)more;
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

/* The fast paths' class of a semaphore (sem_impl.h: enum sem_fast): the
 * policy's declaration, or none for a recursive mutex (the fast up would
 * release it at any depth). */
static int8_t fast_class(const pr_sem_t *s)
{
    if (!sem_is_mutex(s))
        return SEM_FAST_COUNTING;
    return sem_is_recursive(s) ? SEM_FAST_NONE : (int8_t)s->policy->fast;
}

static int sem_alloc(const pr_sem_attr_t *attr, pr_id_t *id)
{
    int err = (attr == NULL || id == NULL) ? PR_EINVAL : check_attr(attr);
    /* A ceiling above the caller's own priority would lift it above what
     * it may use (privilege.h); a policy may fix it whatever attr says. */
    if (err == PR_OK && (attr->flags & PR_SEM_MUTEX)) {
        const pr_policy_t *policy = policy_of(attr->protocol);
        pr_prio_t ceiling = policy->ceiling != NULL ? policy->ceiling(attr) : attr->ceiling;
        if (ceiling > caller_base())
            err = caller_may(PR_PRIV_CEILING, PR_EPRIV_CEILING);
    }
    if (err == PR_OK && list_empty(&free_list))
        err = PR_ENOSPC;
    if (err != PR_OK) {
        trace_emit(PR_EV_SEM_ALLOC, pr_self, PR_TRACE_NONE, err, 0, 0, attr ? attr->value : 0);
        return err;
    }

    pr_sem_t *s = container_of(free_list.next, pr_sem_t, pool_link);
    list_remove(&s->pool_link);
    list_push_back(&alloc_list, &s->pool_link);

    s->allocated = 1;
    s->flags = attr->flags;
    s->policy = policy_of(attr->protocol);
    s->fast = fast_class(s);
    s->value = sem_is_mutex(s) ? 0 : attr->value; /* a mutex's is derived (sem_value) */
    s->init_value = attr->value;
    if (attr->flags & PR_SEM_BINARY)
        s->max = 1;
    else
        s->max = attr->max != 0 ? attr->max : INT_MAX;
    s->waiters = 0;
    s->ceiling = attr->ceiling;
    s->owner = in_task_context() ? pr_k.current->id : PR_NO_TASK;
    s->lender.holder = NULL;
    s->lender.lent = PRIO_NONE;
    s->taken = (pr_count64_t){0, 0};
    s->downs = s->unreserved = s->max_waiters = 0;
    memset(s->name, 0, sizeof s->name);
    if (attr->name != NULL)
        strcpy(s->name, attr->name);
    pr_waitq_t *q = s->waitq;
    waitq_init(q, &sem_waitq_ops, !(attr->flags & PR_SEM_PRIO), (uint8_t)s->index);
    if (sem_is_mutex(s)) { /* its waiters lend its holder what its protocol says */
        q->lender = &s->lender;
        q->lend = s->policy->lend;
    }
    memset(&pr_sem_mores[s->index], 0, sizeof pr_sem_mores[s->index]);

    *id = s->index;
    trace_emit(PR_EV_SEM_ALLOC, pr_self, s->trace_tag, PR_OK, 0, 0, sem_value(s));
    return PR_OK;
}

/* A semaphore is in use while anything refers to it: a holder, a waiter in
 * its queue, a down under way elsewhere or about to try again, a condition
 * waiter that will lock it again, or a holder not yet told of its abort. */
static int sem_in_use(const pr_sem_t *s)
{
    const pr_sem_more_t *more = &pr_sem_mores[s->index];
    return s->waiters > 0 || s->lender.holder != NULL || more->remote > 0 || more->relockers > 0 ||
           more->abort_marks > 0;
}

static int sem_free(pr_id_t id)
{
    pr_sem_t *s = NULL;
    int err = sem_lookup(id, &s);
    if (err == PR_OK && sem_in_use(s))
        err = PR_EBUSY;
    trace_emit(PR_EV_SEM_FREE, pr_self, trace_id_of(id, PR_CONFIG_MAX_SEMS), err, 0, 0, 0);
    if (err != PR_OK)
        return err;

    s->allocated = 0;
    s->fast = SEM_FAST_NONE;
    list_remove(&s->pool_link);
    list_push_back(&free_list, &s->pool_link);
    return PR_OK;
}

/* ---- statistics, status, attributes, control ---- */

static int sem_stats(pr_id_t id, pr_sem_stats_t *stats)
{
    pr_sem_t *s;
    int err = sem_lookup(id, &s);
    if (err != PR_OK)
        return err;
    if (stats == NULL)
        return PR_EINVAL;
    const pr_sem_more_t *more = &pr_sem_mores[s->index];
    /* In modular arithmetic, like the counters themselves. */
    stats->ups = (uint32_t)sem_value(s) - (uint32_t)s->init_value + s->downs - s->unreserved -
                 (uint32_t)more->remote;
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
    sem_check(s);
    status->index = s->index;
    status->owner = s->owner;
    status->holder = s->lender.holder != NULL ? s->lender.holder->id : PR_NO_TASK;
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
    attr->protocol = s->policy->protocol;
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

/* ---- the calls: each does its work with interrupts masked (kernel_impl.h) ---- */

int pr_sem_alloc(const pr_sem_attr_t *attr, pr_id_t *id) { MASKED_CALL(sem_alloc(attr, id)); }
int pr_sem_free(pr_id_t id) { MASKED_CALL(sem_free(id)); }
int pr_sem_stats(pr_id_t id, pr_sem_stats_t *stats) { MASKED_CALL(sem_stats(id, stats)); }
int pr_sem_status(pr_id_t id, pr_sem_status_t *status) { MASKED_CALL(sem_status(id, status)); }
int pr_sem_attr_get(pr_id_t id, pr_sem_attr_t *attr) { MASKED_CALL(sem_attr_get(id, attr)); }
int pr_sem_control(pr_id_t id, int cmd, void *arg) { MASKED_CALL(sem_control(id, cmd, arg)); }
