/*
 * What the documentation allows a call to return (fuzz.h).
 *
 * Before a call, fz_predict says which results docs/api.md allows for it in
 * the state the last check read: nothing in the kernel moves between that
 * check and the call, as no other code runs in between. Where the outcome
 * is determined (a bad id, a NULL pointer, a free mutex, a value above 0)
 * that is one code; where the call may wait, it is every way the wait can
 * end; where the status calls cannot tell (which list a pcp waiter sits in,
 * whether a woken task has run yet) it is each possibility.
 */
#include <limits.h>
#include <string.h>
#include "fuzz.h"

/* ---- the calls and their documented results ---- */

typedef struct op_info {
    const char *name;
    unsigned documented; /* every result its documentation lists (FZ_ERR bits) */
} op_info_t;

#define E(x) FZ_ERR(PR_##x)
static const op_info_t OPS[FZ_OPS] = {
    [FZ_TASK_CREATE] = {"task_create", E(OK) | E(EINVAL) | E(EBADID) | E(ENOTALLOC) | E(ENOSPC) | E(EPRIV_RT) |
                                           E(EPRIV_PRIO) | E(EPRIV_GROUP)},
    [FZ_TASK_DELETE] = {"task_delete", E(OK) | E(EBADID) | E(ENOTALLOC) | E(EBUSY)},
    [FZ_TASK_SUSPEND] = {"task_suspend", E(OK) | E(EBADID) | E(ENOTALLOC) | E(ESTATE)},
    [FZ_TASK_RESUME] = {"task_resume", E(OK) | E(EBADID) | E(ENOTALLOC) | E(ESTATE)},
    [FZ_TASK_DELAY] = {"task_delay", E(OK) | E(ECONTEXT) | E(EINVAL) | E(EJOBABORTED)},
    [FZ_TASK_YIELD] = {"task_yield", E(OK) | E(ECONTEXT)},
    [FZ_TASK_SET_PRIO] = {"task_set_priority", E(OK) | E(EBADID) | E(ENOTALLOC) | E(EINVAL) | E(ESTATE) |
                                                   E(EPRIV_RT) | E(EPRIV_PRIO)},
    [FZ_TASK_WAIT_PERIOD] = {"task_wait_period", E(OK) | E(ECONTEXT) | E(ESTATE)},
    [FZ_TASK_WAIT_MISS] = {"task_wait_miss", FZ_POSITIVE | E(ECONTEXT) | E(EAGAIN) | E(ETIMEDOUT)},
    [FZ_TASK_SELF] = {"task_self", 0},
    [FZ_TASK_RELEASE] = {"task_release", E(OK) | E(EBADID) | E(ENOTALLOC) | E(ESTATE) | E(EAGAIN) | E(EOVERFLOW)},
    [FZ_TASK_ABORTED] = {"task_aborted", E(OK) | FZ_POSITIVE}, /* 0, or 1 (positive) */
    [FZ_TASK_STATUS] = {"task_status", E(OK) | E(EBADID) | E(ENOTALLOC) | E(EINVAL)},
    [FZ_SEM_ALLOC] = {"sem_alloc", E(OK) | E(EINVAL) | E(ENOSPC) | E(EPRIV_CEILING)},
    [FZ_SEM_FREE] = {"sem_free", E(OK) | E(EBADID) | E(ENOTALLOC) | E(EBUSY)},
    [FZ_SEM_DOWN] = {"sem_down", E(OK) | E(EBADID) | E(ENOTALLOC) | E(ECONTEXT) | E(EABORTED) | E(EHELD) |
                                     E(EOVERFLOW) | E(ECEILING) | E(EAGAIN) | E(EDEADLK) | E(ETIMEDOUT) |
                                     E(EJOBABORTED)},
    [FZ_SEM_TRYDOWN] = {"sem_trydown", E(OK) | E(EBADID) | E(ENOTALLOC) | E(ECONTEXT) | E(EABORTED) | E(EHELD) |
                                           E(EOVERFLOW) | E(ECEILING) | E(EAGAIN) | E(EDEADLK)},
    [FZ_SEM_UP] = {"sem_up", E(OK) | E(EBADID) | E(ENOTALLOC) | E(ECONTEXT) | E(EABORTED) | E(EPERM) | E(EOVERFLOW)},
    [FZ_SEM_ABORTED] = {"sem_aborted", 0},
    [FZ_SEM_STATS] = {"sem_stats", E(OK) | E(EBADID) | E(ENOTALLOC) | E(EINVAL)},
    [FZ_SEM_STATUS] = {"sem_status", E(OK) | E(EBADID) | E(ENOTALLOC) | E(EINVAL)},
    [FZ_SEM_ATTR_GET] = {"sem_attr_get", E(OK) | E(EBADID) | E(ENOTALLOC) | E(EINVAL)},
    [FZ_SEM_CONTROL] = {"sem_control", E(OK) | E(EBADID) | E(ENOTALLOC) | E(EINVAL)},
    [FZ_COND_ALLOC] = {"cond_alloc", E(OK) | E(EINVAL) | E(ENOSPC)},
    [FZ_COND_FREE] = {"cond_free", E(OK) | E(EBADID) | E(ENOTALLOC) | E(EBUSY)},
    [FZ_COND_WAIT] = {"cond_wait", E(OK) | E(EBADID) | E(ENOTALLOC) | E(ECONTEXT) | E(EINVAL) | E(EABORTED) |
                                       E(EPERM) | E(EDEADLK) | E(ECEILING) | E(ETIMEDOUT) | E(EJOBABORTED)},
    [FZ_COND_SIGNAL] = {"cond_signal", E(OK) | E(EBADID) | E(ENOTALLOC) | E(ECONTEXT)},
    [FZ_COND_BROADCAST] = {"cond_broadcast", E(OK) | E(EBADID) | E(ENOTALLOC) | E(ECONTEXT)},
    [FZ_COND_STATUS] = {"cond_status", E(OK) | E(EBADID) | E(ENOTALLOC) | E(EINVAL)},
    [FZ_KERNEL_STATS] = {"kernel_stats", 0},
    [FZ_KERNEL_CHECK] = {"kernel_check", E(OK)},
    [FZ_SET_QUANTUM] = {"sched_set_quantum", 0},
    [FZ_SCHED_LOCK] = {"sched_lock", E(OK) | E(ECONTEXT) | E(EOVERFLOW)},
    [FZ_SCHED_UNLOCK] = {"sched_unlock", E(OK) | E(ECONTEXT) | E(ESTATE)},
    [FZ_TICKS_NOW] = {"ticks_now", 0},
    [FZ_NAMES] = {"strerror/errname/trace_event_name", 0},
    [FZ_TRACE_KEEP] = {"host_trace_keep", 0},
    [FZ_CONSUME] = {"consume", 0},
    [FZ_EXIT] = {"return", 0},
    [FZ_TASK_RTPRIO] = {"task_rtprio", E(OK) | E(EBADID) | E(ENOTALLOC) | E(EINVAL) | E(ESTATE) | E(EPRIV_RT) |
                                           E(EPRIV_PRIO)},
    [FZ_TASK_SET_NICE] = {"task_set_nice", E(OK) | E(EBADID) | E(ENOTALLOC) | E(EINVAL) | E(ESTATE) | E(EPRIV_PRIO)},
    [FZ_PRIV_GROUP_SET] = {"priv_group_set", E(OK) | E(EINVAL) | E(EPRIV_GROUP)},
    [FZ_PRIV_GROUP_GET] = {"priv_group_get", E(OK) | E(EINVAL)},
    [FZ_TASK_SET_GROUP] = {"task_set_group", E(OK) | E(EBADID) | E(ENOTALLOC) | E(EINVAL) | E(EPRIV_GROUP)},
    [FZ_TASK_PRIVS] = {"task_privs", E(OK) | E(EBADID) | E(ENOTALLOC) | E(EINVAL)},
    [FZ_EVENTS_ALLOC] = {"events_alloc", E(OK) | E(EINVAL) | E(ENOSPC)},
    [FZ_EVENTS_FREE] = {"events_free", E(OK) | E(EBADID) | E(ENOTALLOC) | E(EBUSY)},
    [FZ_EVENTS_SET] = {"events_set", E(OK) | E(EBADID) | E(ENOTALLOC)},
    [FZ_EVENTS_CLEAR] = {"events_clear", E(OK) | E(EBADID) | E(ENOTALLOC)},
    [FZ_EVENTS_WAIT] = {"events_wait", E(OK) | E(EBADID) | E(ENOTALLOC) | E(EINVAL) | E(EAGAIN) | E(ECONTEXT) |
                                           E(ETIMEDOUT) | E(EJOBABORTED)},
    [FZ_EVENTS_STATUS] = {"events_status", E(OK) | E(EBADID) | E(ENOTALLOC) | E(EINVAL)},
    [FZ_MSGQ_ALLOC] = {"msgq_alloc", E(OK) | E(EINVAL) | E(ENOSPC)},
    [FZ_MSGQ_FREE] = {"msgq_free", E(OK) | E(EBADID) | E(ENOTALLOC) | E(EBUSY)},
    [FZ_MSGQ_SEND] = {"msgq_send", E(OK) | E(EBADID) | E(ENOTALLOC) | E(EINVAL) | E(EAGAIN) | E(ECONTEXT) |
                                       E(EDEADLK) | E(ETIMEDOUT) | E(EJOBABORTED)},
    [FZ_MSGQ_RECEIVE] = {"msgq_receive", E(OK) | E(EBADID) | E(ENOTALLOC) | E(EINVAL) | E(EAGAIN) | E(ECONTEXT) |
                                             E(ETIMEDOUT) | E(EJOBABORTED)},
    [FZ_MSGQ_STATUS] = {"msgq_status", E(OK) | E(EBADID) | E(ENOTALLOC) | E(EINVAL)},
    /* pr_task_create's errors: PR_ENOSPC, and the privileges to create a real-time task */
    [FZ_TIMER_SERVICE_START] = {"timer_service_start", E(OK) | E(EINVAL) | E(ESTATE) | E(ENOSPC) | E(EPRIV_RT) |
                                                           E(EPRIV_PRIO)},
    [FZ_TIMER_ALLOC] = {"timer_alloc", E(OK) | E(EINVAL) | E(ENOSPC)},
    [FZ_TIMER_FREE] = {"timer_free", E(OK) | E(EBADID) | E(ENOTALLOC)},
    [FZ_TIMER_START] = {"timer_start", E(OK) | E(EBADID) | E(ENOTALLOC) | E(EINVAL)},
    [FZ_TIMER_STOP] = {"timer_stop", E(OK) | E(EBADID) | E(ENOTALLOC)},
    [FZ_TIMER_STATUS] = {"timer_status", E(OK) | E(EBADID) | E(ENOTALLOC) | E(EINVAL)},
};

const char *fz_op_name(fz_op_t op) { return op < FZ_OPS ? OPS[op].name : "?"; }

unsigned fz_documented(fz_op_t op) { return op < FZ_OPS ? OPS[op].documented : 0; }

/* Why the prediction is what it is, when that is not plain (for the report). */
static char why[FZ_WHY_SIZE];

const char *fz_why(void) { return why; }
char *fz_why_buffer(void) { return why; }

/* ---- predictions ---- */

static unsigned task_id_err(int64_t id)
{
    if (id < 0 || id >= FZ_TASKS)
        return E(EBADID);
    return fz.task[id].alive ? 0 : E(ENOTALLOC);
}

static unsigned sem_id_err(int64_t id)
{
    if (id < 0 || id >= FZ_SEMS)
        return E(EBADID);
    return fz.sem[id].alive ? 0 : E(ENOTALLOC);
}

static unsigned cond_id_err(int64_t id)
{
    if (id < 0 || id >= FZ_CONDS)
        return E(EBADID);
    return fz.cond_alive[id] ? 0 : E(ENOTALLOC);
}

static size_t name_len(const char *name) { return name != NULL ? strlen(name) : 0; }

/* pr_sem_alloc's attribute checks, all PR_EINVAL (docs/api.md's list). */
static int sem_attr_valid(const pr_sem_attr_t *a)
{
    unsigned f = a->flags;
    int mutex = (f & PR_SEM_MUTEX) != 0, prio_mutex = mutex && (f & PR_SEM_PRIO);
    if ((f & ~0xFu) != 0 || a->value < 0 || ((f & PR_SEM_RECURSIVE) && !mutex))
        return 0;
    if ((f & PR_SEM_BINARY) && (mutex || a->value > 1 || a->max > 1))
        return 0;
    if (mutex && (a->value != 1 || a->max != 0))
        return 0;
    if (a->max < 0 || (a->max != 0 && a->value > a->max))
        return 0;
    if ((int)a->protocol < 0 || a->protocol >= PR_PROTOCOL_COUNT || (a->protocol != PR_PROTOCOL_NONE && !mutex))
        return 0;
    if (name_len(a->name) >= PR_CONFIG_NAME_LEN)
        return 0;
    switch (a->protocol) {
    case PR_PROTOCOL_PIP:
    case PR_PROTOCOL_RCS:
        return prio_mutex && a->ceiling == 0;
    case PR_PROTOCOL_PCP:
    case PR_PROTOCOL_IPCP:
        return prio_mutex && a->ceiling >= 0 && a->ceiling <= PR_PRIO_MAX;
    default:
        return a->ceiling == 0;
    }
}

/* The arrival attributes as docs/api.md states them (pr_task_create). */
static int arrival_attr_ok(const pr_task_attr_t *a)
{
    const int sporadic = (a->flags & PR_TASK_SPORADIC) != 0;
    if ((a->flags & ~(PR_TASK_SPORADIC | PR_TASK_DEFER_EARLY | PR_TASK_HARD)) != 0 || a->jitter > UINT32_MAX ||
        a->min_interarrival > UINT32_MAX || a->abort_time > UINT32_MAX || a->offset > UINT32_MAX)
        return 0;
    if (sporadic)
        if (a->period != 0 || a->phase != 0 || a->min_interarrival == 0 || a->deadline > a->min_interarrival)
            return 0;
    if (!sporadic && (a->min_interarrival != 0 || (a->flags & PR_TASK_DEFER_EARLY)))
        return 0;
    const pr_ticks_t gap = sporadic ? a->min_interarrival : a->period;
    const pr_ticks_t deadline = a->deadline != 0 ? a->deadline : gap;
    if (a->abort_time != 0 && ((a->flags & PR_TASK_HARD) || (gap != 0 && a->abort_time > gap)))
        return 0;
    const pr_ticks_t latest = a->offset + a->jitter; /* the release, after the arrival */
    return latest == 0 || ((gap == 0 || latest < gap) && (deadline == 0 || latest < deadline));
}

static unsigned predict_create(const fz_call_t *c, int who)
{
    const pr_task_attr_t *a = &c->task_attr;
    if (c->null || a->entry == NULL || !fz_task_attr_valid(a) ||
        name_len(a->name) >= PR_CONFIG_NAME_LEN || a->period > UINT32_MAX || a->deadline > UINT32_MAX ||
        !arrival_attr_ok(a))
        return E(EINVAL);
    if (a->watchdog != PR_NO_TASK) {
        unsigned err = task_id_err(a->watchdog);
        if (err != 0)
            return err;
    }
    unsigned refused = fz_create_privs(a, who);
    if (refused != 0)
        return refused;
    int alive = 0;
    for (int i = 0; i < FZ_TASKS; i++)
        alive += fz.task[i].alive;
    /* a current task deleted from an interrupt keeps its slot until the next switch */
    return alive == FZ_TASKS ? E(ENOSPC) : alive == FZ_TASKS - 1 ? E(OK) | E(ENOSPC) : E(OK);
}

/* Whether t waiting on m closes a cycle of waits: 1 yes, 0 no, -1 not
 * known (the chain passes a pcp wait, whose wait list status does not
 * show). The chain goes through mutexes' holders and through inheriting
 * message queues' servers (services.c). */
static int closes_cycle(int t, pr_id_t m) { return fz_chain_reaches(fz.snap.sem[m].holder, t); }

static unsigned predict_mutex_down(int t, pr_id_t m, pr_timeout_t timeout)
{
    const fz_task_t *w = &fz.task[t];
    const pr_task_status_t *me = &fz.snap.task[t];
    const pr_sem_attr_t *a = &fz.sem[m].attr;
    unsigned waited = E(OK) | (timeout != PR_FOREVER ? E(ETIMEDOUT) : 0);
    if (w->aborted[m])
        return E(EABORTED);
    if (w->depth[m] > 0) /* or its recovery point, if its section is being aborted */
        return ((a->flags & PR_SEM_RECURSIVE) ? E(OK) : E(EHELD)) | (fz_recovering(t, m) ? E(EABORTED) : 0);
    if ((a->protocol == PR_PROTOCOL_PCP || a->protocol == PR_PROTOCOL_IPCP) && me->base_priority > a->ceiling)
        return E(ECEILING);
    pr_id_t h = fz.snap.sem[m].holder;
    if (a->protocol == PR_PROTOCOL_PCP) {
        if (!fz_blocked_by_ceiling(t, me->effective_priority) && h == PR_NO_TASK)
            return E(OK);
        /* a retry may find a cycle, or a base raised above the ceiling meanwhile */
        return timeout == PR_NO_WAIT ? E(EAGAIN) : waited | E(EDEADLK) | E(ECEILING);
    }
    if (h == PR_NO_TASK)
        return E(OK);
    if (a->protocol == PR_PROTOCOL_RCS && me->effective_priority > fz.snap.task[h].effective_priority &&
        !fz.sem[m].recovery)
        return E(OK); /* taken over; with a recovery it aborts the holder and waits */
    if (timeout == PR_NO_WAIT)
        return E(EAGAIN);
    int cycle = closes_cycle(t, m);
    return cycle == 1 ? E(EDEADLK) : cycle == 0 ? waited : waited | E(EDEADLK);
}

static unsigned predict_down(const fz_call_t *c, int who)
{
    pr_id_t s = (pr_id_t)c->arg[0];
    pr_timeout_t timeout = c->op == FZ_SEM_TRYDOWN ? PR_NO_WAIT : (pr_timeout_t)c->arg[1];
    unsigned err = sem_id_err(s);
    if (err != 0)
        return err;
    int mutex = fz_is_mutex(s);
    if (who < 0 && (timeout != PR_NO_WAIT || mutex))
        return E(ECONTEXT);
    if (mutex)
        return predict_mutex_down(who, s, timeout);
    if (fz.snap.sem[s].value > 0)
        return E(OK);
    if (timeout == PR_NO_WAIT)
        return E(EAGAIN);
    return E(OK) | (timeout != PR_FOREVER ? E(ETIMEDOUT) : 0);
}

static unsigned predict_up(pr_id_t s, int who)
{
    unsigned err = sem_id_err(s);
    if (err != 0)
        return err;
    if (fz_is_mutex(s)) {
        if (who < 0)
            return E(ECONTEXT);
        if (fz.task[who].aborted[s])
            return E(EABORTED);
        if (fz.task[who].depth[s] == 0)
            return E(EPERM);
        return E(OK) | (fz_recovering(who, s) ? E(EABORTED) : 0);
    }
    const pr_sem_attr_t *a = &fz.sem[s].attr;
    int max = (a->flags & PR_SEM_BINARY) ? 1 : a->max > 0 ? a->max : INT_MAX;
    return fz.snap.sem[s].value >= max ? E(EOVERFLOW) : E(OK);
}

/* Free: refused while a documented reason holds; allowed when nothing at
 * all is under way on it; otherwise (a task inside a call on it that may
 * be over: woken, not run yet) either. A cond_wait's task woken and not
 * yet run keeps its mutex from being freed, but whether it has run again
 * (and now waits to lock it like any locker) does not show in its status. */
static unsigned predict_sem_free(pr_id_t s)
{
    unsigned err = sem_id_err(s);
    if (err != 0)
        return err;
    const pr_sem_status_t *st = &fz.snap.sem[s];
    int idle = 1;
    if (st->holder != PR_NO_TASK || st->waiters > 0 || st->value < 0)
        snprintf(why, sizeof why, "holder %d, %d waiters", st->holder, st->waiters);
    for (int t = 0; t < FZ_TASKS; t++) {
        const fz_task_t *w = &fz.task[t];
        if (!w->alive)
            continue;
        if (fz.snap.task_ok[t] && fz.snap.task[t].blocked_on == s)
            snprintf(why, sizeof why, "task %d is blocked on it (state %d)", t, (int)fz.snap.task[t].state);
        else if (w->aborted[s])
            snprintf(why, sizeof why, "task %d was taken over from it (rcs) and not told yet", t);
        else if (w->call == FZ_COND_WAIT && w->call_sem == s && fz.snap.task[t].state == PR_TASK_WAIT_COND)
            snprintf(why, sizeof why, "task %d waits in cond_wait with it", t);
        if (w->depth[s] > 0 || (w->call != FZ_OPS && w->call_sem == s))
            idle = 0;
    }
    return why[0] != '\0' ? E(EBUSY) : idle ? E(OK) : E(OK) | E(EBUSY);
}

static unsigned predict_cond_wait(const fz_call_t *c, int who)
{
    pr_id_t cv = (pr_id_t)c->arg[0], m = (pr_id_t)c->arg[1];
    pr_timeout_t timeout = (pr_timeout_t)c->arg[2];
    unsigned err = cond_id_err(cv);
    if (err == 0)
        err = sem_id_err(m);
    if (err != 0)
        return err;
    if (who < 0)
        return E(ECONTEXT);
    pr_id_t used = fz.snap.cond[cv].mutex;
    if (timeout == PR_NO_WAIT || !fz_is_mutex(m) || (fz.snap.cond[cv].waiters > 0 && used != m))
        return E(EINVAL);
    if (fz.task[who].aborted[m])
        return E(EABORTED);
    if (fz.task[who].depth[m] == 0)
        return E(EPERM);
    unsigned waited = E(OK) | E(EDEADLK) | E(ECEILING) | (timeout != PR_FOREVER ? E(ETIMEDOUT) : 0);
    if (fz_recovering(who, m))
        waited |= E(EABORTED);
    return used != PR_NO_SEM && used != m ? waited | E(EINVAL) : waited;
}

unsigned fz_predict(const fz_call_t *c, int who)
{
    why[0] = '\0';
    int64_t id = c->arg[0];
    const pr_task_status_t *st = id >= 0 && id < FZ_TASKS ? &fz.snap.task[id] : NULL;
    unsigned err;
    switch (c->op) {
    case FZ_TASK_CREATE:
        return predict_create(c, who);
    case FZ_TASK_DELETE:
        if ((err = task_id_err(id)) != 0)
            return err;
        return st->mutexes_held > 0 ? E(EBUSY) : E(OK);
    case FZ_TASK_SUSPEND:
        if ((err = task_id_err(id)) != 0)
            return err;
        return st->suspended || st->state == PR_TASK_DONE ? E(ESTATE) : E(OK);
    case FZ_TASK_RESUME:
        if ((err = task_id_err(id)) != 0)
            return err;
        return st->suspended ? E(OK) : E(ESTATE);
    case FZ_TASK_DELAY:
        return who < 0 ? E(ECONTEXT) : (pr_timeout_t)id == PR_FOREVER ? E(EINVAL) : E(OK);
    case FZ_TASK_YIELD:
        return who < 0 ? E(ECONTEXT) : E(OK);
    case FZ_TASK_SET_PRIO:
        if ((err = task_id_err(id)) != 0)
            return err;
        if (!fz_realtime(c->arg[1]))
            return E(EINVAL);
        if (st->state == PR_TASK_DONE || st->sched_class == PR_CLASS_TIMESHARE)
            return E(ESTATE);
        if ((err = fz_rt_privs(who)) == 0)
            err = fz_set_priority_privs(who, id, c->arg[1] > st->base_priority);
        return err != 0 ? err : E(OK);
    case FZ_TASK_WAIT_PERIOD:
        return who < 0                                                                           ? E(ECONTEXT)
               : fz.snap.task[who].period == 0 && !(fz.snap.task[who].flags & PR_TASK_SPORADIC) ? E(ESTATE)
                                                                                                 : E(OK);
    case FZ_TASK_ABORTED: /* the caller's job, as the last check read it */
        if (who < 0)
            return E(OK);
        return !fz.snap.task_ok[who] ? E(OK) | FZ_POSITIVE : fz.snap.task[who].job_aborted ? FZ_POSITIVE : E(OK);
    case FZ_TASK_RELEASE:
        if ((err = task_id_err(id)) != 0)
            return err;
        if (!(st->flags & PR_TASK_SPORADIC) || st->state == PR_TASK_DONE)
            return E(ESTATE);
        return (st->flags & PR_TASK_DEFER_EARLY) ? E(OK) : E(OK) | E(EAGAIN);
    case FZ_TASK_WAIT_MISS:
        if (who < 0)
            return E(ECONTEXT);
        return FZ_POSITIVE | ((pr_timeout_t)id == PR_NO_WAIT ? E(EAGAIN)
                           : (pr_timeout_t)id != PR_FOREVER ? E(ETIMEDOUT) : 0);
    case FZ_TASK_STATUS:
        if ((err = task_id_err(id)) != 0)
            return err;
        return c->null ? E(EINVAL) : E(OK);
    case FZ_SEM_ALLOC:
        if (c->null || !sem_attr_valid(&c->sem_attr))
            return E(EINVAL);
        if ((err = fz_ceiling_privs(&c->sem_attr, who)) != 0)
            return err;
        return fz.sem_free.count == 0 ? E(ENOSPC) : E(OK);
    case FZ_SEM_FREE:
        return predict_sem_free((pr_id_t)id);
    case FZ_SEM_DOWN:
    case FZ_SEM_TRYDOWN:
        return predict_down(c, who);
    case FZ_SEM_UP:
        return predict_up((pr_id_t)id, who);
    case FZ_SEM_STATS:
    case FZ_SEM_STATUS:
    case FZ_SEM_ATTR_GET:
        if ((err = sem_id_err(id)) != 0)
            return err;
        return c->null ? E(EINVAL) : E(OK);
    case FZ_SEM_CONTROL:
        if ((err = sem_id_err(id)) != 0)
            return err;
        if (c->null)
            return E(EINVAL);
        if (c->arg[1] == PR_SEM_CTL_RECOVERY) /* rcs only; an older kernel knows no such command */
            return FZ_HAS_RECOVERY && fz_is_mutex(id) && fz.sem[id].attr.protocol == PR_PROTOCOL_RCS ? E(OK)
                                                                                                      : E(EINVAL);
        return c->arg[1] == PR_SEM_CTL_PROTOCOL_NAME ? E(OK) : E(EINVAL);
    case FZ_COND_ALLOC:
        if (c->null || name_len(c->name) >= PR_CONFIG_NAME_LEN)
            return E(EINVAL);
        return fz.cond_free.count == 0 ? E(ENOSPC) : E(OK);
    case FZ_COND_FREE:
        if ((err = cond_id_err(id)) != 0)
            return err;
        return fz.snap.cond[id].waiters > 0 ? E(EBUSY) : E(OK);
    case FZ_COND_WAIT:
        return predict_cond_wait(c, who);
    case FZ_COND_SIGNAL:
    case FZ_COND_BROADCAST:
        if ((err = cond_id_err(id)) != 0)
            return err;
        return who < 0 ? E(ECONTEXT) : E(OK);
    case FZ_COND_STATUS:
        if ((err = cond_id_err(id)) != 0)
            return err;
        return c->null ? E(EINVAL) : E(OK);
    case FZ_SCHED_LOCK:
        return who < 0 ? E(ECONTEXT) : fz.task[who].sched_locks >= 255 ? E(EOVERFLOW) : E(OK);
    case FZ_SCHED_UNLOCK:
        return who < 0 ? E(ECONTEXT) : fz.task[who].sched_locks == 0 ? E(ESTATE) : E(OK);
    default:
        if (fz_is_bands_op(c->op))
            return fz_bands_predict(c, who);
        return c->op >= FZ_EVENTS_ALLOC ? fz_services_predict(c, who) : E(OK);
    }
}
