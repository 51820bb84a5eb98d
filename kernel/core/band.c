/*
 * Moving a task between the bands, and its nice value (timeshare.h has the
 * semantics; timeshare.c the band itself).
 *
 * A move is a change of base priority and nothing else: the task keeps the
 * mutexes it holds and what they lend it, keeps its place in whatever it
 * waits on (moved to its new priority's place), and the lends it gives
 * follow along its chain; prio_task_base_changed does all of that, as for
 * pr_task_set_priority.
 */
#include "priority.h"
#include "privilege_impl.h"
#include "timeshare_impl.h"

/* An RTPRIO record's value (trace.h): the nice value + 20 in its low byte,
 * and which side of the move is time sharing (its arg0/arg1 then 0): every
 * one of 256 levels can be a real-time priority, so no priority byte is free
 * to say "time sharing". */
#define RTPRIO_FROM_TS 0x100
#define RTPRIO_TO_TS 0x200

static int32_t rtprio_value(const pr_task_t *t, pr_prio_t prio)
{
    int32_t value = t != NULL ? t->nice + 20 : 0;
    if (t != NULL && t->timeshare)
        value |= RTPRIO_FROM_TS;
    if (prio == PR_RTPRIO_RTOFF)
        value |= RTPRIO_TO_TS;
    return value;
}

static int check_rtprio(pr_task_t *t, pr_prio_t prio)
{
    if (prio == PR_RTPRIO_NOCHG)
        return PR_OK;
    if (prio == PR_RTPRIO_RTOFF ? pr_ts.levels == 0 : !realtime_priority(prio))
        return PR_EINVAL;
    if (t->state == PR_TASK_DONE)
        return PR_ESTATE;
    if (prio == PR_RTPRIO_RTOFF) /* leaving the band lowers it: only another task's needs leave */
        return caller_may_set_priority(t, 0);
    int err = caller_may(PR_PRIV_RTPRIO, PR_EPRIV_RT);
    if (err == PR_OK)
        err = caller_may_set_priority(t, t->timeshare || prio > t->base);
    return err;
}

static int task_rtprio(pr_id_t id, pr_prio_t prio, pr_prio_t *old)
{
    pr_task_t *t = NULL;
    int err = task_lookup(id, &t);
    if (err == PR_OK)
        err = check_rtprio(t, prio);
    if (prio != PR_RTPRIO_NOCHG || err != PR_OK)
        trace_emit(PR_EV_RTPRIO, trace_task_of(id), caller_trace_id(), err,
                   t != NULL && !t->timeshare ? (uint8_t)t->base : 0, prio >= 0 ? (uint8_t)prio : 0,
                   rtprio_value(t, prio));
    if (err != PR_OK)
        return err;
    if (old != NULL)
        *old = t->timeshare ? PR_RTPRIO_RTOFF : t->base;
    if (prio == PR_RTPRIO_NOCHG)
        return PR_OK;
    if (prio == PR_RTPRIO_RTOFF) {
        if (!t->timeshare)
            timeshare_join(t); /* its base: its level, from its usage and nice */
    } else {
        if (t->timeshare)
            timeshare_leave(t);
        t->base = prio;
    }
    prio_task_base_changed(t, PR_CAUSE_SET);
    sched_reschedule();
    return PR_OK;
}

static int task_set_nice(pr_id_t id, int nice, int *old)
{
    pr_task_t *t = NULL;
    int err = task_lookup(id, &t);
    if (err == PR_OK && (nice < PR_NICE_MIN || nice > PR_NICE_MAX))
        err = PR_EINVAL;
    if (err == PR_OK && t->state == PR_TASK_DONE)
        err = PR_ESTATE;
    if (err == PR_OK)
        err = caller_may_set_priority(t, nice < t->nice);
    trace_emit(PR_EV_NICE, trace_task_of(id), caller_trace_id(), err,
               t != NULL ? (uint8_t)(t->nice + 20) : 0, (uint8_t)(nice + 20), 0);
    if (err != PR_OK)
        return err;
    if (old != NULL)
        *old = t->nice;
    timeshare_set_nice(t, nice);
    sched_reschedule();
    return PR_OK;
}

int pr_task_rtprio(pr_id_t id, pr_prio_t prio, pr_prio_t *old) { MASKED_CALL(task_rtprio(id, prio, old)); }
int pr_task_set_nice(pr_id_t id, int nice, int *old) { MASKED_CALL(task_set_nice(id, nice, old)); }
