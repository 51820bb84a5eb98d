/*
 * The verdict of a run (verdict.h): the job rows of metrics.c, kept only
 * while a job is pending and folded into its task's maxima when it ends.
 *
 * The rules are metrics.c's, for the fields a verdict reads:
 *   RELEASE   a new pending job, behind the task's older ones
 *   JOB_DONE  the task's oldest pending job finishes
 *   BLOCK / WAKE  the task's current (oldest pending) job is blocked from
 *             each BLOCK to its WAKE, whatever the WAKE's result
 *   MISS      the pending job of that number is missed
 * and at the end a job still blocked counts its wait up to the end, and a
 * job is missed if a MISS named it, it finished after its deadline, or it
 * is unfinished and its deadline is at or before the end.
 * Nothing else is tracked: no CPU time, no inversion, no holds, which is
 * what makes this pass cheaper than pr_lab_account.
 */
#include <stdlib.h>
#include "priora/priora.h"
#include "verdict.h"

#define NONE (-1)
#define NEVER UINT64_MAX

typedef struct pending_job {
    uint64_t release, deadline, blocked;
    uint32_t job;
    int missed; /* a MISS record named it */
    int64_t next; /* the task's next pending job, or NONE */
} pending_job_t;

typedef struct task_state {
    int64_t head, tail; /* oldest and newest pending jobs, or NONE */
    int blocked;
    uint64_t blocked_since;
    uint64_t arrival; /* its latest ARRIVAL not yet released, or NEVER (metrics.c's rule) */
} task_state_t;

#define EVENT(e) (UINT64_C(1) << (e))

/* The events the verdict reads: those of the switch in pr_lab_verdict, and
 * those whose task byte must name a task (metrics.c's rule, needs_task). */
#define FOLDED (EVENT(PR_EV_ARRIVAL) | EVENT(PR_EV_RELEASE) | EVENT(PR_EV_JOB_DONE) | EVENT(PR_EV_BLOCK) | \
                EVENT(PR_EV_WAKE) | EVENT(PR_EV_DEADLINE_MISS))
#define CHECKED (FOLDED | EVENT(PR_EV_TASK_CREATE) | EVENT(PR_EV_ABORT) | EVENT(PR_EV_RECOVER))

static int needs_task(uint8_t event) { return (CHECKED >> event & 1) != 0; }

uint64_t pr_lab_verdict_events(void) { return CHECKED; }

/* A job leaves the pending list: finished at `finish`, or unfinished when
 * the run ended at `end` (finish == NEVER). */
static void fold(pr_lab_verdict_t *v, const pending_job_t *j, uint64_t finish, uint64_t end, uint64_t judged)
{
    if (j->release >= judged)
        return;
    uint64_t until = finish == NEVER ? end : finish;
    int missed = j->missed;
    if (!missed && j->deadline != NEVER)
        missed = finish == NEVER ? j->deadline <= end : finish > j->deadline;
    v->jobs++;
    v->misses += missed != 0;
    if (until - j->release > v->worst_response)
        v->worst_response = until - j->release;
    if (j->blocked > v->worst_blocked)
        v->worst_blocked = j->blocked;
}

int pr_lab_verdict(const pr_trace_record_t *records, size_t n, int ntasks, const uint64_t *rel_deadline,
                   uint64_t end, uint64_t judged, pr_lab_verdict_t *verdict)
{
    size_t releases = 0;
    for (size_t i = 0; i < n; i++)
        releases += records[i].event == PR_EV_RELEASE;
    pending_job_t *jobs = malloc((releases + 1) * sizeof *jobs);
    task_state_t *tasks = malloc(((size_t)ntasks + 1) * sizeof *tasks);
    int err = jobs == NULL || tasks == NULL ? -1 : 0;
    for (int t = 0; t < ntasks && !err; t++) {
        tasks[t] = (task_state_t){NONE, NONE, 0, 0, NEVER};
        verdict[t] = (pr_lab_verdict_t){0, 0, 0, 0};
    }
    size_t used = 0;
    for (size_t i = 0; i < n && !err; i++) {
        const pr_trace_record_t *e = &records[i];
        pr_id_t id = pr_trace_task_id(e, PR_TRACE_TASK); /* ids may be wider than the byte (trace.h) */
        int task = id == PR_NO_TASK ? NONE : id;
        if (task >= ntasks || (task == NONE && needs_task(e->event))) {
            err = -1;
            break;
        }
        if (task == NONE)
            continue;
        task_state_t *ts = &tasks[task];
        switch (e->event) {
        case PR_EV_ARRIVAL: /* jitter, sporadic: the deadline counts from the arrival */
            if (e->result == PR_OK && e->arg0 == 0)
                ts->arrival = e->time;
            break;
        case PR_EV_RELEASE: {
            int64_t r = (int64_t)used++;
            uint64_t rel = rel_deadline[task];
            uint64_t arrival = ts->arrival != NEVER ? ts->arrival : e->time;
            ts->arrival = NEVER;
            jobs[r] = (pending_job_t){e->time, rel ? arrival + rel : NEVER, 0, (uint32_t)e->value, 0, NONE};
            if (ts->tail == NONE)
                ts->head = r;
            else
                jobs[ts->tail].next = r;
            ts->tail = r;
            break;
        }
        case PR_EV_JOB_DONE:
            if (ts->head != NONE) {
                fold(&verdict[task], &jobs[ts->head], e->time, end, judged);
                ts->head = jobs[ts->head].next;
                if (ts->head == NONE)
                    ts->tail = NONE;
            }
            break;
        case PR_EV_BLOCK:
            ts->blocked = 1;
            ts->blocked_since = e->time;
            break;
        case PR_EV_WAKE:
            ts->blocked = 0;
            if (ts->head != NONE)
                jobs[ts->head].blocked += e->time - ts->blocked_since;
            break;
        case PR_EV_DEADLINE_MISS:
            for (int64_t r = ts->head; r != NONE; r = jobs[r].next)
                if (jobs[r].job == (uint32_t)e->value)
                    jobs[r].missed = 1;
            break;
        }
    }
    for (int t = 0; t < ntasks && !err; t++) { /* jobs still pending when the run ended */
        if (tasks[t].blocked && tasks[t].head != NONE)
            jobs[tasks[t].head].blocked += end - tasks[t].blocked_since;
        for (int64_t r = tasks[t].head; r != NONE; r = jobs[r].next)
            fold(&verdict[t], &jobs[r], NEVER, end, judged);
    }
    free(jobs);
    free(tasks);
    return err;
}

size_t pr_lab_verdict_sizeof(void) { return sizeof(pr_lab_verdict_t); }
