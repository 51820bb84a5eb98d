/*
 * Task calls: create, delete, suspend, resume, delay, yield, set priority,
 * watchdog wait, status; and the timed-wait timer that serves delays,
 * semaphore timeouts and watchdog timeouts.
 */
#include <string.h>
#include "../policy/policy.h"
#include "msgq_impl.h"
#include "swtimer_impl.h"
#include "privilege_impl.h"
#include "timeshare_impl.h"

int task_lookup(pr_id_t id, pr_task_t **out)
{
    if (id < 0 || id >= PR_CONFIG_MAX_TASKS)
        return PR_EBADID;
    if (pr_tasks[id].state == PR_TASK_FREE)
        return PR_ENOTALLOC;
    *out = &pr_tasks[id];
    return PR_OK;
}

pr_id_t pr_task_self(void) { return in_task_context() ? pr_k.current->id : PR_NO_TASK; }

/* The timed-wait timer fired: a delay is over, a wait in a queue (a
 * semaphore's, a condition variable's, one a policy named) or a watchdog's
 * wait timed out. */
static void timeout_fire(void *owner)
{
    pr_task_t *t = owner;
    switch (t->state) {
    case PR_TASK_BLOCKED:
    case PR_TASK_WAIT_COND:
    case PR_TASK_WAIT_EVENTS:
    case PR_TASK_WAIT_SEND:
    case PR_TASK_WAIT_RECEIVE:
        waitq_abandon(t, PR_ETIMEDOUT, PR_CAUSE_TIMEOUT);
        break;
    case PR_TASK_DELAYED:
        trace_emit(PR_EV_DELAY_END, trace_who(t), PR_TRACE_NONE, PR_OK, 0, 0, 0);
        t->wait_result = PR_OK;
        break;
    case PR_TASK_WAIT_MISS:
        trace_emit(PR_EV_TIMEOUT, trace_who(t), PR_TRACE_NONE, PR_ETIMEDOUT, 0, 0, 0);
        t->wait_result = PR_ETIMEDOUT;
        break;
    default: /* the timer is cancelled when the wait ends */
        PR_UNREACHABLE();
        return;
    }
    sched_make_ready(t);
}

/* The task's body returned: its last job is complete and it is done. A
 * mutex it still holds is released as by pr_sem_up (its most urgent waiter
 * gets it), or its waiters would wait forever; TASK_EXIT's value says how
 * many there were. Aborts of its sections it was never told of are forgotten. */
static void task_start(void)
{
    pr_task_t *t = pr_k.current;
    t->entry(t->arg);

    (void)pr_port_irq_save(); /* never restored: this task never runs again */
    int released = 0;
    for (pr_sem_t *s; (s = sem_first_held(t)) != NULL; released++) {
        sem_more(s)->depth = 1; /* a recursive mutex is released whatever its depth */
        /* PR_EABORTED: its section on s was aborted, and the up ran the
         * recovery before it gave s up (sem_abort_report) */
        int err = pr_sem_up(s->index);
        PR_ASSERT(err == PR_OK || err == PR_EABORTED); /* it holds s: s is allocated and its to give */
        if (sem_holder(s) == t)
            break;
    }
    sem_task_gone(t, PR_CAUSE_DELETE);
    msgq_task_gone(t);
    periodic_job_done(t);
    periodic_stop(t);
    trace_emit(PR_EV_TASK_EXIT, trace_who(t), PR_TRACE_NONE, PR_OK, 0, 0, released);
    sched_make_unready(t, PR_TASK_DONE);
    sched_reschedule(); /* never comes back */
}

void pr_task_attr_init(pr_task_attr_t *attr)
{
    if (attr == NULL)
        return;
    memset(attr, 0, sizeof *attr);
    attr->watchdog = PR_NO_TASK;
}

static int check_task_attr(const pr_task_attr_t *attr)
{
    if (attr->entry == NULL)
        return PR_EINVAL;
    if (attr->sched_class == PR_CLASS_REALTIME ? !realtime_priority(attr->priority)
                                               : attr->sched_class != PR_CLASS_TIMESHARE || pr_ts.levels == 0)
        return PR_EINVAL;
    if (attr->nice < PR_NICE_MIN || attr->nice > PR_NICE_MAX)
        return PR_EINVAL;
    if (attr->priv_group != PR_GROUP_CREATOR && !group_valid(attr->priv_group))
        return PR_EINVAL;
    if (attr->name != NULL && strlen(attr->name) >= PR_CONFIG_NAME_LEN)
        return PR_EINVAL;
    if (attr->period > UINT32_MAX || attr->deadline > UINT32_MAX)
        return PR_EINVAL;
    if (periodic_check_attr(attr) != PR_OK)
        return PR_EINVAL;
    if (attr->watchdog != PR_NO_TASK) {
        pr_task_t *wd;
        int err = task_lookup(attr->watchdog, &wd);
        if (err != PR_OK)
            return err;
    }
    return PR_OK;
}

/* What the creator must be allowed (privilege.h): a real-time task at all,
 * a priority above its own (a real-time one, or a nice value below 0), a
 * group not its own. */
static int check_task_privileges(const pr_task_attr_t *attr)
{
    int err = PR_OK;
    if (attr->sched_class == PR_CLASS_REALTIME)
        err = caller_may(PR_PRIV_RTPRIO, PR_EPRIV_RT);
    int raises = attr->sched_class == PR_CLASS_REALTIME ? attr->priority > caller_base() : attr->nice < 0;
    if (err == PR_OK && raises)
        err = caller_may(PR_PRIV_SETPRIO, PR_EPRIV_PRIO);
    if (err == PR_OK && attr->priv_group != PR_GROUP_CREATOR && attr->priv_group != caller_group())
        err = caller_may(PR_PRIV_GROUPS, PR_EPRIV_GROUP);
    return err;
}

static int task_create(const pr_task_attr_t *attr, pr_id_t *id)
{
    if (attr == NULL || id == NULL)
        return PR_EINVAL;
    int err = check_task_attr(attr);
    if (err == PR_OK)
        err = check_task_privileges(attr);
    if (err != PR_OK)
        return err;

    pr_task_t *t = NULL;
    /* The lowest free id; never the current task's descriptor: a task deleted
     * from an interrupt or from outside stays current until the next switch,
     * which still reads it. */
    for (int i = 0; i < PR_CONFIG_MAX_TASKS && t == NULL; i++)
        if (pr_tasks[i].state == PR_TASK_FREE && &pr_tasks[i] != pr_k.current)
            t = &pr_tasks[i];
    if (t == NULL)
        return PR_ENOSPC;

    pr_id_t tid = t->id;
    if (tid >= pr_task_slots_used)
        pr_task_slots_used = tid + 1; /* the next reset clears it */
    memset(t, 0, sizeof *t);
    t->id = tid;
    t->trace_tag = trace_task_tag(tid);
    trace_task_words(t);
    t->ctx = pr_port_ctx(tid);
    name_copy(t->name, attr->name);
    list_init(&t->qlink);
    t->entry = attr->entry;
    t->arg = attr->arg;
    t->priv_group = (uint8_t)(attr->priv_group != PR_GROUP_CREATOR ? attr->priv_group : caller_group());
    t->nice = (int8_t)attr->nice;
    t->base = attr->priority;
    if (attr->sched_class == PR_CLASS_TIMESHARE)
        timeshare_join(t); /* its base: its level */
    t->effective = t->base;
    t->period = attr->period;
    t->phase = attr->phase;
    t->rel_deadline = attr->deadline != 0 ? attr->deadline : attr->period;
    t->flags = attr->flags;
    t->min_interarrival = attr->min_interarrival;
    t->jitter = attr->jitter;
    t->offset = attr->offset;
    t->jitter_state = attr->jitter_seed != 0 ? attr->jitter_seed : 1u;
    if (t->flags & PR_TASK_SPORADIC && attr->deadline == 0)
        t->rel_deadline = t->min_interarrival;
    t->importance = attr->importance;
    t->abort_time = attr->abort_time;
    t->watchdog = attr->watchdog;
    t->miss_who = PR_NO_TASK;
    timer_init(&t->timeout, timeout_fire, t);
    pr_port_context_init(t->id, task_start);

    trace_emit(PR_EV_TASK_CREATE, trace_who(t), caller_trace_id(), PR_OK, (uint8_t)t->base, 0,
               t->period > INT32_MAX ? INT32_MAX : (int32_t)t->period); /* saturated */
    periodic_setup(t); /* first release now or at its phase */
    *id = t->id;
    sched_reschedule();
    return PR_OK;
}

static int task_delete(pr_id_t id)
{
    pr_task_t *t;
    int err = task_lookup(id, &t);
    if (err == PR_OK && sem_first_held(t) != NULL)
        err = PR_EBUSY;
    if (err != PR_OK)
        return err;

    trace_emit(PR_EV_TASK_DELETE, trace_who(t), caller_trace_id(), PR_OK, 0, 0, 0);
    if (t->timeshare)
        timeshare_leave(t);
    timer_cancel(&t->timeout);
    periodic_stop(t);
    if (task_waitq(t) != NULL)
        waitq_abandon(t, PR_ENOTALLOC, PR_CAUSE_DELETE);
    sem_task_gone(t, PR_CAUSE_DELETE);
    msgq_task_gone(t);
    swtimer_task_gone(t);
    sched_make_unready(t, PR_TASK_FREE);
    for (int i = 0; i < PR_CONFIG_MAX_TASKS; i++) /* forget it as a watchdog */
        if (pr_tasks[i].watchdog == id)
            pr_tasks[i].watchdog = PR_NO_TASK;
    sched_reschedule(); /* if t was the caller, this never returns */
    return PR_OK;
}

static int task_suspend(pr_id_t id)
{
    pr_task_t *t;
    int err = task_lookup(id, &t);
    if (err == PR_OK && (t->suspended || t->state == PR_TASK_DONE))
        err = PR_ESTATE;
    if (err != PR_OK)
        return err;
    t->suspended = 1;
    if (t->queue == &pr_k.ready) {
        pr_task_state_t state = t->state;
        sched_make_unready(t, state);
    }
    trace_emit(PR_EV_SUSPEND, trace_who(t), caller_trace_id(), PR_OK, 0, 0, 0);
    sched_reschedule();
    return PR_OK;
}

static int task_resume(pr_id_t id)
{
    pr_task_t *t;
    int err = task_lookup(id, &t);
    if (err == PR_OK && !t->suspended)
        err = PR_ESTATE;
    if (err != PR_OK)
        return err;
    t->suspended = 0;
    trace_emit(PR_EV_RESUME, trace_who(t), caller_trace_id(), PR_OK, 0, 0, 0);
    if (t->state == PR_TASK_READY)
        sched_make_ready(t);
    sched_reschedule();
    return PR_OK;
}

static int task_delay(pr_timeout_t ticks)
{
    if (!in_task_context())
        return PR_ECONTEXT;
    if (ticks == PR_FOREVER)
        return PR_EINVAL;
    if (ticks == 0)
        return pr_task_yield();
    pr_task_t *me = pr_k.current;
    trace_emit(PR_EV_DELAY, trace_who(me), PR_TRACE_NONE, PR_OK, 0, 0, (int32_t)ticks);
    me->wait_result = PR_OK;
    sched_make_unready(me, PR_TASK_DELAYED);
    timer_arm(&me->timeout, tick_now() + ticks);
    sched_reschedule();
    return me->wait_result; /* PR_OK, or PR_EJOBABORTED: an abort of its job ended the delay (periodic.c) */
}

static int task_set_priority(pr_id_t id, pr_prio_t priority)
{
    pr_task_t *t = NULL;
    int err = task_lookup(id, &t);
    if (err == PR_OK && !realtime_priority(priority))
        err = PR_EINVAL;
    if (err == PR_OK && (t->state == PR_TASK_DONE || t->timeshare))
        err = PR_ESTATE;
    if (err == PR_OK)
        err = caller_may(PR_PRIV_RTPRIO, PR_EPRIV_RT);
    if (err == PR_OK)
        err = caller_may_set_priority(t, priority > t->base);
    trace_emit(PR_EV_PRIO_SET, trace_task_of(id), caller_trace_id(), err,
               err == PR_OK ? (uint8_t)t->base : 0, (uint8_t)priority, 0);
    if (err != PR_OK)
        return err;
    t->base = priority;
    prio_task_base_changed(t, PR_CAUSE_SET);
    sched_reschedule();
    return PR_OK;
}

static int task_wait_miss(pr_timeout_t timeout, pr_id_t *who)
{
    if (!in_task_context())
        return PR_ECONTEXT;
    pr_task_t *me = pr_k.current;
    if (me->misses_pending == 0) {
        if (timeout == PR_NO_WAIT)
            return PR_EAGAIN;
        me->wait_result = PR_OK;
        sched_make_unready(me, PR_TASK_WAIT_MISS);
        if (timeout != PR_FOREVER)
            timer_arm(&me->timeout, tick_now() + timeout);
        sched_reschedule();
        if (me->wait_result != PR_OK)
            return me->wait_result;
    }
    int n = (int)me->misses_pending;
    me->misses_pending = 0;
    if (who != NULL)
        *who = me->miss_who;
    return n;
}

static int task_status(pr_id_t id, pr_task_status_t *st)
{
    pr_task_t *t;
    int err = task_lookup(id, &t);
    if (err != PR_OK)
        return err;
    if (st == NULL)
        return PR_EINVAL;
    memset(st, 0, sizeof *st);
    st->id = t->id;
    memcpy(st->name, t->name, PR_CONFIG_NAME_LEN);
    st->state = t->state;
    st->suspended = t->suspended;
    st->base_priority = t->base;
    st->effective_priority = t->effective;
    st->blocked_on = t->state == PR_TASK_BLOCKED ? t->down_on->index : PR_NO_SEM;
    st->cond_on = t->state == PR_TASK_WAIT_COND ? task_waitq(t)->id : PR_NO_COND;
    st->events_on = t->state == PR_TASK_WAIT_EVENTS ? task_waitq(t)->id : PR_NO_EVENTS;
    st->msgq_on = (t->state == PR_TASK_WAIT_SEND || t->state == PR_TASK_WAIT_RECEIVE) ? task_waitq(t)->id : PR_NO_MSGQ;
    st->aborts = t->aborts;
    st->aborts_pending = t->aborts_pending;
    st->mutexes_held = sem_held_count(t);
    st->jobs_released = t->released;
    st->jobs_completed = t->completed;
    st->deadline_misses = t->misses;
    st->cpu_time = t->cpu_time;
    /* The current task's time since its dispatch is not in cpu_time yet.
     * That holds outside the kernel too: a port that paused the kernel
     * (host: the driver between runs) left that task current, and its time
     * stopped when the port went outside (pr_kernel_set_outside). */
    if (t == pr_k.current)
        st->cpu_time += (pr_stamp_t)((pr_k.outside ? pr_k.left_at : pr_port_stamp()) - t->dispatched_at);
    st->cpu_time = pr_port_stamp_time(st->cpu_time);
    st->period = t->period;
    st->phase = t->phase;
    st->deadline = t->rel_deadline;
    st->watchdog = t->watchdog;
    st->sched_class = t->timeshare ? PR_CLASS_TIMESHARE : PR_CLASS_REALTIME;
    st->nice = t->nice;
    st->usage = t->usage;
    st->priv_group = t->priv_group;
    st->flags = t->flags;
    st->min_interarrival = t->min_interarrival;
    st->jitter = t->jitter;
    st->arrivals = t->arrivals;
    st->releases_refused = t->refused;
    st->releases_deferred = t->deferred;
    st->releases_pending = t->pending;
    st->max_jitter = t->max_jitter;
    st->importance = t->importance;
    st->abort_time = t->abort_time;
    st->hard_misses = t->hard_misses;
    st->jobs_aborted = t->jobs_aborted;
    st->job_aborted = t->job_aborted;
    st->offset = t->offset;
    return PR_OK;
}

static int task_release(pr_id_t id)
{
    pr_task_t *t;
    int err = task_lookup(id, &t);
    return err != PR_OK ? err : periodic_release(t);
}

/* ---- the calls: each does its work with interrupts masked (kernel_impl.h) ---- */

int pr_task_create(const pr_task_attr_t *attr, pr_id_t *id) { MASKED_CALL(task_create(attr, id)); }
int pr_task_delete(pr_id_t id) { MASKED_CALL(task_delete(id)); }
int pr_task_suspend(pr_id_t id) { MASKED_CALL(task_suspend(id)); }
int pr_task_resume(pr_id_t id) { MASKED_CALL(task_resume(id)); }
int pr_task_delay(pr_timeout_t ticks) { MASKED_CALL(task_delay(ticks)); }
int pr_task_set_priority(pr_id_t id, pr_prio_t priority) { MASKED_CALL(task_set_priority(id, priority)); }
int pr_task_wait_miss(pr_timeout_t timeout, pr_id_t *who) { MASKED_CALL(task_wait_miss(timeout, who)); }
int pr_task_status(pr_id_t id, pr_task_status_t *st) { MASKED_CALL(task_status(id, st)); }
int pr_task_release(pr_id_t id) { MASKED_CALL(task_release(id)); }
