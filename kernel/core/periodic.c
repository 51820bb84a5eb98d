/*
 * Jobs: releases, completions, deadlines and watchdogs [Pessolani;
 * Tokuda-Nakajima 1993].
 *
 * Job k (k = 1, 2, ...) of a task is released at phase + (k-1) * period and
 * must complete by that release + the relative deadline. Releases follow
 * the nominal times whatever the task does: if a job is still running when
 * the next one is released, the next one starts as soon as it completes
 * (pr_task_wait_period returns at once). A task with period 0 has one job.
 *
 * Each task has two timers: the release timer (armed for the next release)
 * and the deadline timer (armed for the deadline of the oldest job whose
 * deadline has not been checked). When the deadline timer fires and that
 * job has not completed, it is a miss: counted, traced, and the watchdog
 * woken. Both timers cost O(1) per job.
 *
 * Release ticks are kept as 64-bit ticks (next_release, deadline_release),
 * never computed from a job number: the 32-bit job counters wrap after
 * 2^32 jobs (49.7 days at one job per millisecond), and a release computed
 * from a wrapped number would be armed in the past and never fire. The
 * counters themselves are compared by their difference, which wraps too.
 */
#include "sched.h"
#include "trace_impl.h"

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
        trace_emit(PR_EV_WATCHDOG, trace_id(wd), trace_id(t), PR_OK, 0, 0, 0);
        sched_make_ready(wd);
    }
}

static void deadline_fire(void *owner)
{
    pr_task_t *t = owner;
    uint32_t job = t->deadline_job;
    if (jobs_after(job, t->completed)) {
        t->misses++;
        trace_emit(PR_EV_DEADLINE_MISS, trace_id(t),
                   t->watchdog != PR_NO_TASK ? trace_task_tag(t->watchdog) : PR_TRACE_NONE, PR_OK, 0, 0,
                   (int32_t)job);
        notify_watchdog(t);
    }
    t->deadline_job = job + 1;
    t->deadline_release += t->period;
    if (!jobs_after(t->deadline_job, t->released)) /* already released: check it too */
        timer_arm(&t->deadline_timer, t->deadline_release + t->rel_deadline);
}

/* The release due at t->next_release (now). */
static void release(pr_task_t *t)
{
    pr_ticks_t at = t->next_release;
    t->released++;
    trace_emit(PR_EV_RELEASE, trace_id(t), PR_TRACE_NONE, PR_OK, 0, 0, (int32_t)t->released);
    if (t->rel_deadline != 0 && !timer_armed(&t->deadline_timer)) {
        t->deadline_job = t->released;
        t->deadline_release = at;
        timer_arm(&t->deadline_timer, at + t->rel_deadline);
    }
    if (t->period != 0) {
        t->next_release = at + t->period;
        timer_arm(&t->release_timer, t->next_release);
    }
    if (t->state == PR_TASK_WAIT_RELEASE)
        sched_make_ready(t);
}

static void release_fire(void *owner) { release(owner); }

void periodic_setup(pr_task_t *t)
{
    timer_init(&t->release_timer, release_fire, t);
    timer_init(&t->deadline_timer, deadline_fire, t);
    t->state = PR_TASK_WAIT_RELEASE;
    if (t->phase <= tick_now())
        t->phase = tick_now();
    t->next_release = t->phase;
    if (t->phase == tick_now())
        release(t);
    else
        timer_arm(&t->release_timer, t->phase);
}

void periodic_stop(pr_task_t *t)
{
    timer_cancel(&t->release_timer);
    timer_cancel(&t->deadline_timer);
}

void periodic_job_done(pr_task_t *t)
{
    t->completed++;
    trace_emit(PR_EV_JOB_DONE, trace_id(t), PR_TRACE_NONE, PR_OK, 0, 0, (int32_t)t->completed);
}

static int task_wait_period(void)
{
    if (!in_task_context())
        return PR_ECONTEXT;
    pr_task_t *me = pr_k.current;
    if (me->period == 0)
        return PR_ESTATE;
    periodic_job_done(me);
    if (jobs_after(me->released, me->completed)) /* overrun: the next job is already due */
        return PR_OK;
    sched_make_unready(me, PR_TASK_WAIT_RELEASE);
    sched_reschedule();
    return PR_OK;
}

/* ---- the calls: each does its work with interrupts masked (kernel_impl.h) ---- */

int pr_task_wait_period(void) { MASKED_CALL(task_wait_period()); }
