/*
 * What each task did over time, from a kernel trace (intervals.h).
 *
 * One pass in record order, one state per task (its row):
 *   executions        SWITCH in .. SWITCH out (0xFF is the idle task)
 *   critical sections a mutex is held from a WAKE ok on it (handed over by an
 *                     up; that WAKE comes before the releaser's UP, so holds
 *                     are kept per task, never one holder per mutex), or else
 *                     from its holder's DOWN ok, to the holder's UP ok or the
 *                     ABORT of its section (rcs)
 *   blocked           BLOCK .. WAKE (PR_ETIMEDOUT: a timeout); a CEILING
 *                     record after the BLOCK: pcp's system ceiling
 *   recoveries        rcs: RECOVER .. the holder's UP with PR_EABORTED
 *   boosts            the effective priority (PRIO) above the base
 *                     (TASK_CREATE, PRIO_SET), one span per value, with the
 *                     cause of the change that set it; a change of the base
 *                     alone keeps the cause
 *   waits             MSGQ_WAIT, or an EVENTS_WAIT that waits, .. MSGQ_WAKE /
 *                     EVENTS_WAKE
 *   instants          RELEASE (and the deadline: release + relative deadline),
 *                     JOB_DONE, ABORT, PRIO, SEND / RECEIVE ok, EVENTS_SET ok
 *                     that sets, TIMER_EXPIRE (on the timer service's row)
 * Empty spans are dropped: they mark a decision taken at one instant, not
 * time spent; an execution (or a boost at one value) that resumes at the
 * instant it stopped goes on as one span. Spans still open at the end close
 * there. A task's held mutexes and recoveries close in the order they began.
 */
#include <stdlib.h>
#include "priora/priora.h"
#include "intervals.h"

#define NONE (-1)

typedef struct since_of {
    int object;
    int other; /* a recovery's waiter */
    uint64_t since;
} since_of_t;

typedef struct row {
    int base, effective;
    int running;               /* running_since is set */
    uint64_t running_since;
    since_of_t *holding;       /* in the order taken */
    int nholding;
    since_of_t *recovering;
    int nrecovering;
    int blocked_on;            /* semaphore, or NONE */
    uint64_t blocked_since;
    int ceiling, ceiling_holder; /* pcp: of the current wait, or NONE */
    int boosted;
    uint64_t boosted_since;
    int boost_cause;
    int wait_object, wait_what; /* NONE: not waiting */
    uint64_t wait_since;
    long last_exec, last_boost; /* their spans, or NONE */
} row_t;

typedef struct pass {
    const pr_lab_objects_t *o;
    row_t *rows;
    int running;               /* row, or NONE */
    pr_lab_span_t *out;
    size_t count, max;
    int full;
} pass_t;

static pr_lab_span_t *emit(pass_t *p, int kind, int task, uint64_t start, uint64_t end)
{
    static pr_lab_span_t spare;
    if (p->count == p->max) {
        p->full = 1;
        return &spare;
    }
    pr_lab_span_t *s = &p->out[p->count++];
    *s = (pr_lab_span_t){.start = start, .end = end, .a = 0, .b = 0, .task = task, .kind = (uint8_t)kind,
                         .object = PR_TRACE_NONE, .flag = 0, .cause = 0};
    return s;
}

static int find(const since_of_t *list, int n, int object)
{
    for (int i = 0; i < n; i++)
        if (list[i].object == object)
            return i;
    return NONE;
}

static since_of_t take(since_of_t *list, int *n, int at)
{
    since_of_t item = list[at];
    for (int i = at + 1; i < *n; i++)
        list[i - 1] = list[i];
    (*n)--;
    return item;
}

static void hold(row_t *r, int sem, uint64_t now)
{
    int at = find(r->holding, r->nholding, sem);
    if (at != NONE)
        r->holding[at].since = now;
    else
        r->holding[r->nholding++] = (since_of_t){sem, 0, now};
}

static void end_hold(pass_t *p, int task, int at, uint64_t now, int aborted)
{
    row_t *r = &p->rows[task];
    since_of_t h = take(r->holding, &r->nholding, at);
    if (now > h.since) {
        pr_lab_span_t *s = emit(p, PR_SPAN_HOLD, task, h.since, now);
        s->object = (uint8_t)h.object;
        s->flag = (uint8_t)aborted;
    }
}

static void end_recovery(pass_t *p, int task, int at, uint64_t now)
{
    row_t *r = &p->rows[task];
    since_of_t h = take(r->recovering, &r->nrecovering, at);
    if (now > h.since) {
        pr_lab_span_t *s = emit(p, PR_SPAN_RECOVERY, task, h.since, now);
        s->object = (uint8_t)h.object;
        s->a = h.other;
    }
}

static void end_block(pass_t *p, int task, uint64_t now, int timed_out)
{
    row_t *r = &p->rows[task];
    int ceiling = r->ceiling, holder = r->ceiling_holder;
    r->ceiling = r->ceiling_holder = NONE;
    if (r->blocked_on == NONE)
        return;
    int sem = r->blocked_on;
    r->blocked_on = NONE;
    if (now > r->blocked_since) {
        pr_lab_span_t *s = emit(p, PR_SPAN_BLOCKED, task, r->blocked_since, now);
        s->object = (uint8_t)sem;
        s->flag = (uint8_t)timed_out;
        s->a = ceiling;
        s->b = holder;
    }
}

static void end_wait(pass_t *p, int task, uint64_t now, int timed_out)
{
    row_t *r = &p->rows[task];
    if (r->wait_object == NONE)
        return;
    int object = r->wait_object;
    r->wait_object = NONE;
    if (now > r->wait_since) {
        pr_lab_span_t *s = emit(p, PR_SPAN_WAIT, task, r->wait_since, now);
        s->object = (uint8_t)object;
        s->flag = (uint8_t)r->wait_what;
        s->b = timed_out;
    }
}

static void end_boost(pass_t *p, int task, uint64_t now)
{
    row_t *r = &p->rows[task];
    if (r->boosted && now > r->boosted_since) {
        pr_lab_span_t *last = r->last_boost != NONE ? &p->out[r->last_boost] : NULL;
        /* a value left and taken back at one instant is one boost */
        if (last != NULL && last->end == r->boosted_since && last->a == r->effective) {
            last->end = now;
        } else {
            pr_lab_span_t *s = emit(p, PR_SPAN_BOOST, task, r->boosted_since, now);
            s->a = r->effective;
            s->cause = (uint8_t)r->boost_cause;
            if (!p->full)
                r->last_boost = (long)(p->count - 1);
        }
    }
    r->boosted = 0;
}

/* After every change of the base or the effective priority; cause NONE
 * (a change of the base alone) keeps the boost's cause. */
static void start_boost(row_t *r, uint64_t now, int cause)
{
    if (cause != NONE)
        r->boost_cause = cause;
    if (r->effective > r->base) {
        r->boosted = 1;
        r->boosted_since = now;
    }
}

static void end_run(pass_t *p, uint64_t now)
{
    if (p->running == NONE)
        return;
    int task = p->running;
    row_t *r = &p->rows[task];
    if (r->running && now > r->running_since) {
        pr_lab_span_t *last = r->last_exec != NONE ? &p->out[r->last_exec] : NULL;
        /* switched out and back in at one instant: one span, as it looks */
        if (last != NULL && last->end == r->running_since) {
            last->end = now;
        } else {
            emit(p, PR_SPAN_EXEC, task, r->running_since, now);
            if (!p->full)
                r->last_exec = (long)(p->count - 1);
        }
    }
    r->running = 0;
    p->running = NONE;
}

static void close_row(pass_t *p, int task, uint64_t now)
{
    row_t *r = &p->rows[task];
    while (r->nholding > 0)
        end_hold(p, task, 0, now, 0);
    while (r->nrecovering > 0)
        end_recovery(p, task, 0, now);
    end_block(p, task, now, 0);
    end_wait(p, task, now, 0);
    end_boost(p, task, now);
}

static int is_mutex(const pr_lab_objects_t *o, int sem) { return sem < o->nsems && o->is_mutex[sem]; }

static void service(pass_t *p, const pr_trace_record_t *e, int task, int kind, int64_t detail)
{
    int row = task != NONE ? task : (e->task == PR_TRACE_NONE ? -1 : -2);
    if (row == -2)
        return; /* a task outside the rows */
    pr_lab_span_t *s = emit(p, PR_SPAN_SERVICE, row, e->time, e->time);
    s->flag = (uint8_t)kind;
    s->object = e->object;
    s->a = detail;
}

static void feed(pass_t *p, const pr_trace_record_t *e)
{
    const pr_lab_objects_t *o = p->o;
    uint64_t now = e->time;
    pr_id_t id = pr_trace_task_id(e, PR_TRACE_TASK); /* task ids may be wider than the byte (trace.h) */
    int task = id != PR_NO_TASK && id < o->ntasks ? id : NONE;
    row_t *r = task != NONE ? &p->rows[task] : NULL;
    int sem = e->object;
    pr_lab_span_t *s;
    switch (e->event) {
    case PR_EV_TASK_CREATE:
        if (r != NULL)
            r->base = r->effective = e->arg0;
        break;
    case PR_EV_TASK_DELETE:
        if (r != NULL)
            close_row(p, task, now);
        break;
    case PR_EV_RELEASE:
        if (r == NULL)
            break;
        emit(p, PR_SPAN_RELEASE, task, now, now)->a = e->value;
        if (o->rel_deadline[task] != 0) {
            uint64_t at = now + o->rel_deadline[task];
            emit(p, PR_SPAN_DEADLINE, task, at, at)->a = e->value;
        }
        break;
    case PR_EV_SWITCH:
        end_run(p, now);
        if (r != NULL) {
            p->running = task;
            r->running = 1;
            r->running_since = now;
        }
        break;
    case PR_EV_BLOCK:
        if (r != NULL) {
            r->blocked_on = sem;
            r->blocked_since = now;
            r->ceiling = r->ceiling_holder = NONE;
        }
        break;
    case PR_EV_CEILING: /* pcp: right after its BLOCK, the wait is on the system ceiling */
        if (r != NULL) {
            r->ceiling = e->arg0;
            r->ceiling_holder = pr_trace_task_id(e, PR_TRACE_ARG1);
        }
        break;
    case PR_EV_WAKE:
        if (r == NULL)
            break;
        end_block(p, task, now, e->result == PR_ETIMEDOUT);
        if (e->result == PR_OK && is_mutex(o, sem)) /* handed over (PR_EAGAIN: to try again) */
            hold(r, sem, now);
        break;
    case PR_EV_SEM_DOWN: /* taken in the call, unless a WAKE handed it over already */
        if (r != NULL && e->result == PR_OK && is_mutex(o, sem) && find(r->holding, r->nholding, sem) == NONE)
            hold(r, sem, now);
        break;
    case PR_EV_SEM_UP: {
        if (r == NULL)
            break;
        int at = find(r->holding, r->nholding, sem);
        if (e->result == PR_OK && at != NONE)
            end_hold(p, task, at, now, 0);
        at = find(r->recovering, r->nrecovering, sem);
        if (e->result == PR_EABORTED && at != NONE)
            end_recovery(p, task, at, now); /* restored, and handed over */
        break;
    }
    case PR_EV_ABORT: {
        if (r == NULL || !is_mutex(o, sem))
            break;
        int at = find(r->holding, r->nholding, sem);
        if (at != NONE)
            end_hold(p, task, at, now, 1);
        s = emit(p, PR_SPAN_ABORT, task, now, now);
        s->object = (uint8_t)sem;
        s->a = pr_trace_task_id(e, PR_TRACE_ARG0); /* the task that took it */
        break;
    }
    case PR_EV_RECOVER:
        if (r == NULL || !is_mutex(o, sem))
            break;
        if (find(r->recovering, r->nrecovering, sem) == NONE)
            r->recovering[r->nrecovering++] = (since_of_t){sem, pr_trace_task_id(e, PR_TRACE_ARG0), now};
        else
            r->recovering[find(r->recovering, r->nrecovering, sem)] =
                (since_of_t){sem, pr_trace_task_id(e, PR_TRACE_ARG0), now};
        break;
    case PR_EV_MSGQ_SEND:
    case PR_EV_MSGQ_RECEIVE:
        if (e->result == PR_OK && sem < o->nqueues)
            service(p, e, task, e->event == PR_EV_MSGQ_SEND ? 0 : 1, e->arg0);
        break;
    case PR_EV_EVENTS_SET:
        if (e->result == PR_OK && e->arg0 == 1 && sem < o->nevents)
            service(p, e, task, 2, (int64_t)(uint32_t)e->value);
        break;
    case PR_EV_TIMER_EXPIRE:
        if (sem < o->ntimers) {
            s = emit(p, PR_SPAN_SERVICE, o->timer_row, now, now);
            s->flag = 3;
            s->object = (uint8_t)sem;
            s->a = (int64_t)(uint32_t)e->value;
        }
        break;
    case PR_EV_MSGQ_WAIT:
    case PR_EV_EVENTS_WAIT: {
        int queue = e->event == PR_EV_MSGQ_WAIT;
        if (!queue && e->arg1 != 1)
            break; /* an EVENTS_WAIT satisfied at once */
        if (r != NULL && sem < (queue ? o->nqueues : o->nevents)) {
            r->wait_object = sem;
            r->wait_what = queue ? (e->arg0 == 1 ? 0 : 1) : 2;
            r->wait_since = now;
        }
        break;
    }
    case PR_EV_MSGQ_WAKE:
    case PR_EV_EVENTS_WAKE:
        if (r != NULL)
            end_wait(p, task, now, e->result == PR_ETIMEDOUT);
        break;
    case PR_EV_PRIO:
        if (r == NULL)
            break;
        s = emit(p, PR_SPAN_CHANGE, task, now, now);
        s->a = e->arg0;
        s->b = e->arg1;
        s->cause = (uint8_t)(e->value & 0xFF);
        s->object = e->object;
        s->flag = ((e->value >> 8) & 0xFF) == PR_OBJ_MSGQ;
        end_boost(p, task, now);
        r->effective = e->arg1;
        start_boost(r, now, e->value & 0xFF);
        break;
    case PR_EV_PRIO_SET:
        if (r == NULL || e->result != PR_OK)
            break;
        end_boost(p, task, now);
        r->base = e->arg1;
        start_boost(r, now, NONE);
        break;
    case PR_EV_JOB_DONE:
        if (r != NULL)
            emit(p, PR_SPAN_FINISH, task, now, now)->a = e->value;
        break;
    }
}

size_t pr_lab_spans_bound(const pr_trace_record_t *records, size_t n, const pr_lab_objects_t *objects)
{
    /* at most 2 spans per record, but a delete and the end close a row */
    size_t deletes = 0, per_row = 2 * (size_t)objects->nsems + 3;
    for (size_t i = 0; i < n; i++)
        deletes += records[i].event == PR_EV_TASK_DELETE;
    return 2 * n + (deletes + (size_t)objects->ntasks + 1) * per_row;
}

long pr_lab_spans(const pr_trace_record_t *records, size_t n, const pr_lab_objects_t *o, uint64_t end,
                  pr_lab_span_t *out, size_t max)
{
    pass_t p = {o, calloc((size_t)o->ntasks + 1, sizeof(row_t)), NONE, out, 0, max, 0};
    since_of_t *lists = calloc(2 * (size_t)o->ntasks * ((size_t)o->nsems + 1) + 1, sizeof *lists);
    if (p.rows == NULL || lists == NULL) {
        free(p.rows);
        free(lists);
        return -1;
    }
    for (int t = 0; t < o->ntasks; t++) {
        row_t *r = &p.rows[t];
        r->base = r->effective = o->base[t];
        r->holding = lists + 2 * (size_t)t * ((size_t)o->nsems + 1);
        r->recovering = r->holding + o->nsems + 1;
        r->blocked_on = r->ceiling = r->ceiling_holder = r->wait_object = NONE;
        r->boost_cause = PR_CAUSE_INHERIT;
        r->last_exec = r->last_boost = NONE;
    }
    for (size_t i = 0; i < n; i++)
        feed(&p, &records[i]);
    end_run(&p, end);
    for (int t = 0; t < o->ntasks; t++)
        close_row(&p, t, end);
    free(p.rows);
    free(lists);
    return p.full ? -1 : (long)p.count;
}
