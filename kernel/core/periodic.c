/*
 * Jobs: releases, completions, deadlines and watchdogs [Pessolani;
 * Tokuda-Nakajima 1993].
 *
 * Job k (k = 1, 2, ...) of a task arrives at phase + (k-1) * period (a
 * sporadic task's at its pr_task_release), is released its phase offset
 * plus a jitter draw later, and must complete by its arrival + the
 * relative deadline. Releases follow the nominal times whatever the task
 * does: if a job is still running when the next one is released, the next
 * one starts as soon as it completes (pr_task_wait_period returns at
 * once). A task with period 0 has one job.
 *
 * Each task has three timers: the release timer (armed for the next
 * arrival or release), the deadline timer (armed for the deadline of the
 * oldest job whose deadline has not been checked) and the abort timer
 * (its abort time). When the deadline timer fires and that job has not
 * completed, it is a miss: counted, traced, and the watchdog woken. Each
 * timer costs O(1) per job.
 *
 * Release ticks are kept as 64-bit ticks (next_release, deadline_release),
 * never computed from a job number: the 32-bit job counters wrap after
 * 2^32 jobs (49.7 days at one job per millisecond), and a release computed
 * from a wrapped number would be armed in the past and never fire. The
 * counters themselves are compared by their difference, which wraps too.
 */
#include "sched.h"
#include "trace_impl.h"
#include "waitq.h"

/* a - b > 0 for job numbers that may have wrapped (they are never 2^31 apart). */
static inline int jobs_after(uint32_t a, uint32_t b) { return (int32_t)(a - b) > 0; }

static void notify_watchdog(pr_task_t *t)
{
    if (t->watchdog == PR_NO_TASK)
        return;
    pr_task_t *wd = &pr_tasks[t->watchdog];
    wd->misses_pending++;
    wd->miss_who = t->id;
    if (wd->state == PR_TASK_WAIT_MISS) {
        timer_cancel(&wd->timeout);
        wd->wait_result = PR_OK;
        trace_emit(PR_EV_WATCHDOG, trace_who(wd), trace_id(t), PR_OK, 0, 0, 0);
        sched_make_ready(wd);
    }
}

/* t's current job is aborted (by: the hard task whose miss chose it, or
 * PR_TRACE_NONE at its abort time). The abort is cooperative: the task
 * keeps what it holds and ends the job itself (pr_task_aborted); a wait it
 * is in ends now with PR_EJOBABORTED, and its computing stops (the ports'
 * pr_port_consume), so that it gets there at once. */
static void abort_job(pr_task_t *t, uint8_t by, int at_abort_time)
{
    t->job_aborted = 1;
    t->jobs_aborted++;
    trace_emit(PR_EV_JOB_ABORT, trace_who(t), by, PR_OK, (uint8_t)at_abort_time, 0, (int32_t)(t->completed + 1));
    switch (t->state) {
    case PR_TASK_BLOCKED:
    case PR_TASK_WAIT_COND:
    case PR_TASK_WAIT_EVENTS:
    case PR_TASK_WAIT_SEND:
    case PR_TASK_WAIT_RECEIVE:
        timer_cancel(&t->timeout);
        waitq_abandon(t, PR_EJOBABORTED, PR_CAUSE_ABORT);
        sched_make_ready(t);
        break;
    case PR_TASK_DELAYED:
        timer_cancel(&t->timeout);
        trace_emit(PR_EV_DELAY_END, trace_who(t), PR_TRACE_NONE, PR_EJOBABORTED, 0, 0, 0);
        t->wait_result = PR_EJOBABORTED;
        sched_make_ready(t);
        break;
    default: /* ready or running: its computing stops at once */
        break;
    }
}

/* A hard task t missed: the job aborted is the unfinished one of least
 * importance among t's current job and those of the tasks less important
 * than t; ties go to t, then to the lowest id. A job already aborted is
 * not chosen again, nor the timer service task's, which serves every
 * timer. O(N). */
static void hard_miss(pr_task_t *t)
{
    pr_task_t *victim = t->job_aborted ? NULL : t;
    for (int i = 0; i < PR_CONFIG_MAX_TASKS; i++) {
        pr_task_t *o = &pr_tasks[i];
        if (o == t || o->state == PR_TASK_FREE || o->state == PR_TASK_DONE || o->job_aborted || o->kernel_service ||
            !jobs_after(o->released, o->completed) || o->importance >= t->importance)
            continue;
        if (victim == NULL || o->importance < victim->importance)
            victim = o;
    }
    if (victim != NULL)
        abort_job(victim, trace_id(t), 0);
}

static void deadline_fire(void *owner)
{
    pr_task_t *t = owner;
    uint32_t job = t->deadline_job;
    if (jobs_after(job, t->completed)) {
        t->misses++;
        t->hard_misses += (t->flags & PR_TASK_HARD) != 0;
        trace_emit(PR_EV_DEADLINE_MISS, trace_who(t),
                   t->watchdog != PR_NO_TASK ? trace_task_tag(t->watchdog) : PR_TRACE_NONE, PR_OK, 0, 0,
                   (int32_t)job);
        notify_watchdog(t);
        if (t->flags & PR_TASK_HARD)
            hard_miss(t);
    }
    t->deadline_job = job + 1;
    /* A sporadic task's deadline is at most its minimum interarrival time:
     * the next job, if released already, is the last one that arrived. */
    t->deadline_release = t->period != 0 ? t->deadline_release + t->period : t->arrival;
    if (!jobs_after(t->deadline_job, t->released)) /* already released: check it too */
        timer_arm(&t->deadline_timer, t->deadline_release + t->rel_deadline);
}

/* The abort time of the job t->abort_job (arrived at t->abort_arrival): the
 * task's current job is aborted if it is still running and not aborted;
 * then the next released job's abort time, if it is released already. */
static void abort_fire(void *owner)
{
    pr_task_t *t = owner;
    uint32_t job = t->abort_job;
    if (jobs_after(job, t->completed) && !t->job_aborted)
        abort_job(t, PR_TRACE_NONE, 1);
    t->abort_job = job + 1;
    t->abort_arrival = t->period != 0 ? t->abort_arrival + t->period : t->arrival;
    if (!jobs_after(t->abort_job, t->released))
        timer_arm(&t->abort_timer, t->abort_arrival + t->abort_time);
}

/* The release of the job that arrived last (at t->arrival), now: its
 * offset and its jitter after the arrival. */
static void release(pr_task_t *t)
{
    if (t->release_delayed) {
        pr_ticks_t late = tick_now() - t->arrival - t->offset;
        if (late > t->max_jitter)
            t->max_jitter = late;
    }
    t->released++;
    trace_emit(PR_EV_RELEASE, trace_who(t), PR_TRACE_NONE, PR_OK, 0, 0, (int32_t)t->released);
    if (t->rel_deadline != 0 && !timer_armed(&t->deadline_timer)) {
        t->deadline_job = t->released;
        t->deadline_release = t->arrival;
        timer_arm(&t->deadline_timer, t->arrival + t->rel_deadline);
    }
    if (t->abort_time != 0 && !timer_armed(&t->abort_timer)) {
        t->abort_job = t->released;
        t->abort_arrival = t->arrival;
        timer_arm(&t->abort_timer, t->arrival + t->abort_time);
    }
    if (t->state == PR_TASK_WAIT_RELEASE)
        sched_make_ready(t);
}

/* The task's next jitter draw, in [0, J]: xorshift32 [Marsaglia 2003], so
 * that one seed gives one sequence of releases on every port. */
static pr_ticks_t draw_jitter(pr_task_t *t)
{
    if (t->jitter == 0)
        return 0;
    uint32_t x = t->jitter_state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    t->jitter_state = x;
    return (pr_ticks_t)((uint64_t)x % ((uint64_t)t->jitter + 1));
}

/* After the release of the job that arrived at t->arrival: the release
 * timer waits for the next arrival (periodic), or for the next deferred
 * one (sporadic), or for nothing. */
static void await_next_arrival(pr_task_t *t)
{
    if (t->period != 0) {
        t->next_release = t->arrival + t->period;
        timer_arm(&t->release_timer, t->next_release);
    } else if (t->pending != 0) {
        timer_arm(&t->release_timer, t->arrival + t->min_interarrival);
    }
}

/* A job arrives now: released at once, or its release timed offset + j
 * ticks later (below the period and the minimum interarrival time: the
 * release always comes before the next arrival). Tasks with an offset,
 * jitter or sporadic trace it. */
static void arrive(pr_task_t *t, uint8_t caller)
{
    t->arrival = tick_now();
    t->arrivals++;
    pr_ticks_t delay = t->release_delayed ? t->offset + draw_jitter(t) : 0;
    if (t->arrival_traced)
        trace_emit(PR_EV_ARRIVAL, trace_who(t), caller, PR_OK, 0, 0, (int32_t)delay);
    if (delay != 0) {
        t->release_due = 1;
        timer_arm(&t->release_timer, t->arrival + delay);
        return;
    }
    release(t);
    await_next_arrival(t);
}

/* The release timer: a jittered release, else an arrival (a periodic one,
 * at t->next_release, or a deferred sporadic one). */
static void release_fire(void *owner)
{
    pr_task_t *t = owner;
    if (t->release_due) {
        t->release_due = 0;
        release(t);
        await_next_arrival(t);
        return;
    }
    if (t->flags & PR_TASK_SPORADIC)
        t->pending--;
    arrive(t, PR_TRACE_NONE);
}

int periodic_check_attr(const pr_task_attr_t *attr)
{
    const int sporadic = (attr->flags & PR_TASK_SPORADIC) != 0;
    if ((attr->flags & ~(PR_TASK_SPORADIC | PR_TASK_DEFER_EARLY | PR_TASK_HARD)) != 0 ||
        attr->jitter > UINT32_MAX || attr->min_interarrival > UINT32_MAX || attr->abort_time > UINT32_MAX ||
        attr->offset > UINT32_MAX)
        return PR_EINVAL;
    if (sporadic && (attr->period != 0 || attr->phase != 0 || attr->min_interarrival == 0 ||
                     attr->deadline > attr->min_interarrival))
        return PR_EINVAL;
    if (!sporadic && (attr->min_interarrival != 0 || (attr->flags & PR_TASK_DEFER_EARLY)))
        return PR_EINVAL;
    /* Each release comes before the next arrival and before its deadline. */
    pr_ticks_t gap = sporadic ? attr->min_interarrival : attr->period;
    pr_ticks_t deadline = attr->deadline != 0 ? attr->deadline : gap;
    pr_ticks_t latest = attr->offset + attr->jitter;
    if (latest != 0 && ((gap != 0 && latest >= gap) || (deadline != 0 && latest >= deadline)))
        return PR_EINVAL;
    /* An abort time is a soft task's; at most one job apart, so one timer serves. */
    if (attr->abort_time != 0 && ((attr->flags & PR_TASK_HARD) || (gap != 0 && attr->abort_time > gap)))
        return PR_EINVAL;
    return PR_OK;
}

void periodic_setup(pr_task_t *t)
{
    timer_init(&t->release_timer, release_fire, t);
    timer_init(&t->deadline_timer, deadline_fire, t);
    timer_init(&t->abort_timer, abort_fire, t);
    t->release_delayed = t->jitter != 0 || t->offset != 0;
    t->arrival_traced = t->release_delayed || (t->flags & PR_TASK_SPORADIC) != 0;
    t->state = PR_TASK_WAIT_RELEASE;
    if (t->flags & PR_TASK_SPORADIC)
        return; /* its jobs arrive by pr_task_release */
    if (t->phase <= tick_now())
        t->phase = tick_now();
    t->next_release = t->phase;
    if (t->phase == tick_now())
        arrive(t, PR_TRACE_NONE);
    else
        timer_arm(&t->release_timer, t->phase);
}

void periodic_stop(pr_task_t *t)
{
    timer_cancel(&t->release_timer);
    timer_cancel(&t->deadline_timer);
    timer_cancel(&t->abort_timer);
}

void periodic_job_done(pr_task_t *t)
{
    t->completed++;
    t->job_aborted = 0;
    trace_emit(PR_EV_JOB_DONE, trace_who(t), PR_TRACE_NONE, PR_OK, 0, 0, (int32_t)t->completed);
}

static int task_wait_period(void)
{
    if (!in_task_context())
        return PR_ECONTEXT;
    pr_task_t *me = pr_k.current;
    if (me->period == 0 && !(me->flags & PR_TASK_SPORADIC))
        return PR_ESTATE;
    periodic_job_done(me);
    if (jobs_after(me->released, me->completed)) /* overrun: the next job is already due */
        return PR_OK;
    sched_make_unready(me, PR_TASK_WAIT_RELEASE);
    sched_reschedule();
    return PR_OK;
}

/* A sporadic job's arrival asked for now (pr_task_release, task.c): at
 * once if the minimum interarrival time has passed since the last arrival
 * and none is deferred; else refused, or deferred behind the ones already
 * deferred. */
int periodic_release(pr_task_t *t)
{
    if (!(t->flags & PR_TASK_SPORADIC) || t->state == PR_TASK_DONE)
        return PR_ESTATE;
    const pr_ticks_t now = tick_now();
    const pr_ticks_t earliest = t->arrival + (pr_ticks_t)(t->pending + 1) * t->min_interarrival;
    if (t->arrivals == 0 || (t->pending == 0 && now >= t->arrival + t->min_interarrival)) {
        arrive(t, caller_trace_id());
        sched_reschedule();
        return PR_OK;
    }
    if (!(t->flags & PR_TASK_DEFER_EARLY)) {
        t->refused++;
        trace_emit(PR_EV_ARRIVAL, trace_who(t), caller_trace_id(), PR_EAGAIN, 0, 0, (int32_t)earliest);
        return PR_EAGAIN;
    }
    if (t->pending == UINT32_MAX)
        return PR_EOVERFLOW;
    t->pending++;
    t->deferred++;
    trace_emit(PR_EV_ARRIVAL, trace_who(t), caller_trace_id(), PR_OK, 1, 0, (int32_t)earliest);
    if (t->pending == 1 && !t->release_due) /* else armed when the jittered release is done */
        timer_arm(&t->release_timer, earliest);
    return PR_OK;
}

/* ---- the calls: each does its work with interrupts masked (kernel_impl.h) ---- */

int pr_task_wait_period(void) { MASKED_CALL(task_wait_period()); }
int pr_task_aborted(void) { MASKED_CALL(in_task_context() ? pr_k.current->job_aborted : 0); }
