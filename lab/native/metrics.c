/*
 * Job accounting from a kernel trace (metrics.h).
 *
 * One pass, in record order. Between two consecutive record times the CPU
 * runs one task (or idles), and that interval is charged: to busy time, and
 * to the "lower ran" clock of every task whose base priority is higher than
 * the running task's. A job's inverted time is that clock's advance between
 * its release and its finish (or the end), so charging is O(tasks) per
 * record however many jobs are pending. Then the record updates the state:
 *   TASK_CREATE / PRIO_SET  a task's base priority
 *   RELEASE                 a new job row (pending behind the task's older ones)
 *   SWITCH                  who runs; a job runs for the first time: its start
 *   JOB_DONE                the task's oldest pending job finishes; if another
 *                           is pending (an overrun), it starts at once
 *   BLOCK / WAKE            blocked time of the task's current job: from each
 *                           BLOCK (on a semaphore, a mutex, or pcp's system
 *                           ceiling: then a CEILING record follows) to its WAKE,
 *                           whatever its result (PR_OK handed the unit,
 *                           PR_ETIMEDOUT, or PR_EAGAIN: pcp woke it to try
 *                           again; a try that blocks anew writes a new BLOCK)
 *   TIMEOUT (on a semaphore), DOWN failing with PR_EAGAIN, DOWN failing with
 *                           PR_ETIMEDOUT with no TIMEOUT record since the
 *                           task's last DOWN (pcp: woken to try again after its
 *                           timeout tick, it gives up without a timer)
 *                           one more timeout for the current job
 *   DOWN / UP with another error  one more error for the current job, but
 *                           an UP with PR_EABORTED (rcs): the interpreter
 *                           restarts that section, counted in aborts and lost
 *   MISS                    the job named is missed
 *   DOWN / WAKE / UP / ABORT  hold intervals of mutexes: from the WAKE that
 *                           hands a mutex over, or else from the holder's DOWN
 *                           ok (taken at once, after a pcp retry, or by an rcs
 *                           take-over), to its UP ok or the ABORT of its section
 *   RECOVER                 rcs with a recovery: the aborted holder still holds
 *                           the mutex (its hold goes on from its lock to the
 *                           WAKE that hands it over) and recovers until its UP
 *                           with PR_EABORTED: that CPU time is the job's and
 *                           the mutex's recovery
 * Lost work (rcs) mirrors the interpreter (kernel/scenario/interp.c): work is
 * the task's CPU time less its recoveries (RECOVER to its UP); at each lock
 * (DOWN ok on a mutex) its work less its lost work so far is marked; an UP
 * with PR_EABORTED makes the lost work the work from that mark to the
 * recovery point (its RECOVER record when it recovers, else that UP), and
 * the difference goes to the current job. CPU time is read from the SWITCH
 * records, as `busy` is.
 * A task's pending jobs are a list through `next` (oldest first), so
 * finding the current job is O(1).
 */
#include <stdlib.h>
#include <string.h>
#include "priora/priora.h"
#include "priora/scenario.h"
#include "metrics.h"
#include "intervals.h"
#include "trace_scan.h"

#define NONE (-1)

typedef struct task_state {
    int base;
    int64_t head, tail;     /* oldest and newest pending job rows, or NONE */
    int blocked;            /* waiting on a semaphore now */
    int timeout_seen;       /* a TIMEOUT record since its last DOWN */
    uint64_t blocked_since;
    uint64_t lower_ran;     /* ns during which a task of lower base priority ran */
    uint64_t cpu;           /* ns it ran */
    uint64_t lost;          /* ns of work lost in aborted sections (the interpreter's pr_script_t.lost) */
    int recovering;         /* the mutex it recovers since its RECOVER record, or NONE */
    uint64_t recover_cpu;   /* its cpu at that record */
    uint64_t recovered;     /* ns of its recoveries so far: cpu that is not work */
    uint64_t arrival;       /* its latest ARRIVAL (PR_OK, not deferred) not yet released, or NEVER */
} task_state_t;

typedef struct account {
    pr_lab_job_t *jobs;
    int64_t *next;          /* next pending row of the same task */
    uint64_t *mark;         /* per row: its task's lower_ran at its release */
    size_t njobs, max_jobs;
    task_state_t *tasks;
    int ntasks;
    int running;            /* task id, or NONE for idle */
    uint64_t last;          /* time up to which intervals are charged */
    uint64_t busy;
    int nsems;
    uint64_t *lock_mark;    /* [task * nsems + sem]: work - lost at the task's last lock of sem */
} account_t;

static void charge(account_t *a, uint64_t now)
{
    if (now <= a->last)
        return;
    uint64_t span = now - a->last;
    a->last = now;
    if (a->running == NONE)
        return;
    a->busy += span;
    a->tasks[a->running].cpu += span;
    int base = a->tasks[a->running].base;
    for (int t = 0; t < a->ntasks; t++)
        if (a->tasks[t].base > base)
            a->tasks[t].lower_ran += span;
}

static pr_lab_job_t *current_job(account_t *a, int task)
{
    int64_t r = a->tasks[task].head;
    return r == NONE ? NULL : &a->jobs[r];
}

static int release(account_t *a, int task, uint32_t job, uint64_t now, uint64_t rel_deadline)
{
    if (a->njobs == a->max_jobs)
        return -1;
    int64_t r = (int64_t)a->njobs++;
    pr_lab_job_t *j = &a->jobs[r];
    memset(j, 0, sizeof *j);
    j->task = task;
    j->job = job;
    j->release = now;
    j->start = j->finish = PR_LAB_NEVER;
    /* A job with an ARRIVAL record (jitter, sporadic) has its deadline
     * counted from its arrival; others arrive when they are released. */
    uint64_t arrival = a->tasks[task].arrival != PR_LAB_NEVER ? a->tasks[task].arrival : now;
    a->tasks[task].arrival = PR_LAB_NEVER;
    j->deadline = rel_deadline ? arrival + rel_deadline : PR_LAB_NEVER;
    a->next[r] = NONE;
    a->mark[r] = a->tasks[task].lower_ran;
    task_state_t *ts = &a->tasks[task];
    if (ts->tail == NONE)
        ts->head = r;
    else
        a->next[ts->tail] = r;
    ts->tail = r;
    return 0;
}

static void job_done(account_t *a, int task, uint64_t now)
{
    task_state_t *ts = &a->tasks[task];
    if (ts->head == NONE)
        return;
    a->jobs[ts->head].finish = now;
    a->jobs[ts->head].inverted = ts->lower_ran - a->mark[ts->head];
    ts->head = a->next[ts->head];
    if (ts->head == NONE)
        ts->tail = NONE;
    else if (a->jobs[ts->head].start == PR_LAB_NEVER) /* overrun: the next job starts now */
        a->jobs[ts->head].start = now;
}

static void mark_missed(account_t *a, int task, uint32_t job)
{
    for (int64_t r = a->tasks[task].head; r != NONE; r = a->next[r])
        if (a->jobs[r].job == job)
            a->jobs[r].missed = 1;
}

/* Records whose task byte must name a task. */
static int needs_task(uint8_t event)
{
    switch (event) {
    case PR_EV_TASK_CREATE: case PR_EV_RELEASE: case PR_EV_JOB_DONE: case PR_EV_BLOCK:
    case PR_EV_WAKE: case PR_EV_DEADLINE_MISS: case PR_EV_ABORT: case PR_EV_RECOVER: case PR_EV_ARRIVAL:
        return 1;
    }
    return 0;
}

/* A semaphore call's result, charged to the caller's current job. A
 * timeout has its own record (TIMEOUT), except a pcp waiter that gives up
 * when it tries again past its timeout tick; an unlock's PR_EABORTED is a
 * restart (abort_restart), not an error. */
static void count_result(account_t *a, int task, int result, int is_down)
{
    if (task == NONE)
        return;
    int seen = a->tasks[task].timeout_seen;
    if (is_down)
        a->tasks[task].timeout_seen = 0;
    pr_lab_job_t *j = current_job(a, task);
    if (j == NULL || result == PR_OK || (result == PR_ETIMEDOUT && seen))
        return;
    if (result == PR_EAGAIN || result == PR_ETIMEDOUT)
        j->timeouts++;
    else if (pr_lab_refused_result(result, is_down))
        j->errors++;
}

/* rcs: the task's unlock of sem returned PR_EABORTED, and the interpreter
 * restarts the section: its lost work becomes the work from the mark of
 * that lock (which excludes the work lost before it) to the recovery point,
 * as interp.c's restart_section computes it. A recovery run there is the
 * job's and the mutex's recovery time, not lost work. */
static void abort_restart(account_t *a, int task, int sem, uint64_t *recovery)
{
    task_state_t *ts = &a->tasks[task];
    uint64_t until = ts->cpu - ts->recovered, recovered = 0;
    if (ts->recovering == sem) {
        until = ts->recover_cpu - ts->recovered;
        recovered = ts->cpu - ts->recover_cpu;
        recovery[sem] += recovered;
        ts->recovered += recovered;
        ts->recovering = NONE;
    }
    uint64_t lost = until - a->lock_mark[(size_t)task * (size_t)a->nsems + (size_t)sem];
    pr_lab_job_t *j = current_job(a, task);
    if (j != NULL) {
        j->aborts++;
        j->recovery += recovered;
        if (lost > ts->lost)
            j->lost += lost - ts->lost;
    }
    ts->lost = lost;
}

static void end_hold(uint64_t *longest, const uint64_t *since, int sem, uint64_t now)
{
    if (now - since[sem] > longest[sem])
        longest[sem] = now - since[sem];
}

static void decide_missed(pr_lab_job_t *j, uint64_t end)
{
    if (j->missed == 1 || j->deadline == PR_LAB_NEVER)
        return;
    if (j->finish != PR_LAB_NEVER)
        j->missed = j->finish > j->deadline;
    else
        j->missed = j->deadline <= end ? 1 : -1;
}

int pr_lab_account(const pr_trace_record_t *records, size_t n, int ntasks, const uint64_t *rel_deadline,
                   int nsems, const uint8_t *is_mutex, uint64_t end, pr_lab_job_t *jobs, size_t max_jobs,
                   uint64_t *longest_hold, uint64_t *recovery, pr_lab_totals_t *totals)
{
    account_t a = {jobs, NULL, NULL, 0, max_jobs, NULL, ntasks, NONE, 0, 0, nsems, NULL};
    uint64_t *hold_since = calloc((size_t)nsems + 1, sizeof *hold_since);
    uint8_t *held = calloc((size_t)nsems + 1, 1);
    int *holder = calloc((size_t)nsems + 1, sizeof *holder); /* valid while held */
    /* rcs: the hold an ABORT ended, taken up again if its holder recovers */
    uint64_t *aborted_since = calloc((size_t)nsems + 1, sizeof *aborted_since);
    int *aborted_holder = calloc((size_t)nsems + 1, sizeof *aborted_holder);
    a.next = malloc((max_jobs + 1) * sizeof *a.next);
    a.mark = malloc((max_jobs + 1) * sizeof *a.mark);
    a.tasks = calloc((size_t)ntasks + 1, sizeof *a.tasks);
    a.lock_mark = calloc((size_t)ntasks * (size_t)nsems + 1, sizeof *a.lock_mark);
    int err = (hold_since == NULL || held == NULL || holder == NULL || aborted_since == NULL ||
               aborted_holder == NULL || a.next == NULL || a.mark == NULL || a.tasks == NULL ||
               a.lock_mark == NULL)
                  ? -1
                  : 0;
    for (int t = 0; t < ntasks && !err; t++) {
        a.tasks[t].head = a.tasks[t].tail = NONE;
        a.tasks[t].recovering = NONE;
        a.tasks[t].arrival = PR_LAB_NEVER;
    }
    for (int s = 0; s < nsems; s++) {
        longest_hold[s] = recovery[s] = 0;
        if (aborted_holder != NULL)
            aborted_holder[s] = NONE;
    }

    for (size_t i = 0; i < n && !err; i++) {
        const pr_trace_record_t *e = &records[i];
        pr_id_t tid = pr_trace_task_id(e, PR_TRACE_TASK); /* 12-bit tags beyond 254 tasks */
        int task = tid == PR_NO_TASK ? NONE : tid;
        /* the object byte is a semaphore in the semaphore events; elsewhere
         * this value is simply not used */
        int sem = e->object < nsems ? e->object : NONE;
        if (task >= ntasks || (task == NONE && needs_task(e->event))) {
            err = -1;
            break;
        }
        charge(&a, e->time < end ? e->time : end);
        switch (e->event) {
        case PR_EV_TASK_CREATE:
            a.tasks[task].base = e->arg0;
            break;
        case PR_EV_PRIO_SET:
            if (e->result == PR_OK && task != NONE)
                a.tasks[task].base = e->arg1;
            break;
        case PR_EV_ARRIVAL:
            if (e->result == PR_OK && e->arg0 == 0)
                a.tasks[task].arrival = e->time;
            break;
        case PR_EV_RELEASE:
            err = release(&a, task, (uint32_t)e->value, e->time, rel_deadline[task]);
            break;
        case PR_EV_SWITCH:
            a.running = task;
            if (task != NONE) {
                pr_lab_job_t *j = current_job(&a, task);
                if (j != NULL && j->start == PR_LAB_NEVER)
                    j->start = e->time;
            }
            break;
        case PR_EV_JOB_DONE:
            job_done(&a, task, e->time);
            break;
        case PR_EV_BLOCK:
            a.tasks[task].blocked = 1;
            a.tasks[task].blocked_since = e->time;
            break;
        case PR_EV_WAKE: {
            pr_lab_job_t *j = current_job(&a, task);
            a.tasks[task].blocked = 0;
            if (j != NULL)
                j->blocked += e->time - a.tasks[task].blocked_since;
            if (e->result == PR_OK && sem != NONE && is_mutex[sem]) {
                /* handed over by an up: the old holder's hold ends here (its
                 * UP record follows this WAKE), the new one's begins. A WAKE
                 * with PR_EAGAIN (pcp: try again) hands nothing over. */
                if (held[sem])
                    end_hold(longest_hold, hold_since, sem, e->time);
                hold_since[sem] = e->time;
                held[sem] = 1;
                holder[sem] = task;
            }
            break;
        }
        case PR_EV_TIMEOUT:
            if (sem != NONE && task != NONE) {
                pr_lab_job_t *j = current_job(&a, task);
                a.tasks[task].timeout_seen = 1;
                if (j != NULL)
                    j->timeouts++;
            }
            break;
        case PR_EV_ABORT:
            /* rcs: the holder's section is aborted and the mutex taken over
             * (the new holder's DOWN, taken at once, follows), unless the
             * holder recovers first (RECOVER) */
            if (sem != NONE && held[sem] && holder[sem] == task) {
                end_hold(longest_hold, hold_since, sem, e->time);
                held[sem] = 0;
                aborted_since[sem] = hold_since[sem];
                aborted_holder[sem] = task;
            }
            break;
        case PR_EV_RECOVER:
            /* rcs with a recovery: the aborted holder kept the mutex, and
             * recovers until its UP with PR_EABORTED */
            if (sem != NONE && !held[sem] && aborted_holder[sem] == task) {
                held[sem] = 1;
                hold_since[sem] = aborted_since[sem];
                holder[sem] = task;
            }
            if (sem != NONE) {
                a.tasks[task].recovering = sem;
                a.tasks[task].recover_cpu = a.tasks[task].cpu;
            }
            break;
        case PR_EV_DEADLINE_MISS:
            mark_missed(&a, task, (uint32_t)e->value);
            break;
        case PR_EV_SEM_DOWN:
            count_result(&a, task, e->result, 1);
            if (e->result == PR_OK && task != NONE && sem != NONE && is_mutex[sem]) {
                /* taken in the call (at once, after a pcp retry, or by an rcs
                 * take-over) unless a WAKE handed it over already */
                if (!(held[sem] && holder[sem] == task)) {
                    hold_since[sem] = e->time;
                    held[sem] = 1;
                    holder[sem] = task;
                }
                a.lock_mark[(size_t)task * (size_t)nsems + (size_t)sem] =
                    a.tasks[task].cpu - a.tasks[task].recovered - a.tasks[task].lost;
            }
            break;
        case PR_EV_RTPRIO: /* a band move or nice value the task asked for itself (a body's action) */
        case PR_EV_NICE:
            if (task != NONE && pr_trace_task_id(e, PR_TRACE_OBJECT) == task)
                count_result(&a, task, e->result, 0);
            break;
        case PR_EV_SEM_UP:
            count_result(&a, task, e->result, 0);
            if (e->result == PR_EABORTED && task != NONE && sem != NONE && is_mutex[sem])
                abort_restart(&a, task, sem, recovery);
            /* arg0 is the task woken: then the hand-off already ended the hold */
            if (e->result == PR_OK && sem != NONE && is_mutex[sem] && pr_trace_task_id(e, PR_TRACE_ARG0) == PR_NO_TASK &&
                held[sem] && holder[sem] == task) {
                end_hold(longest_hold, hold_since, sem, e->time);
                held[sem] = 0;
            }
            break;
        }
    }
    if (!err) {
        charge(&a, end);
        for (int t = 0; t < ntasks; t++) { /* jobs still pending when the run ended */
            pr_lab_job_t *j = current_job(&a, t);
            if (a.tasks[t].blocked && j != NULL)
                j->blocked += end - a.tasks[t].blocked_since;
            for (int64_t r = a.tasks[t].head; r != NONE; r = a.next[r])
                jobs[r].inverted = a.tasks[t].lower_ran - a.mark[r];
        }
        for (int s = 0; s < nsems; s++) /* mutexes still held */
            if (held[s])
                end_hold(longest_hold, hold_since, s, end);
        for (size_t r = 0; r < a.njobs; r++)
            decide_missed(&jobs[r], end);
        totals->busy = a.busy;
        totals->end = end;
        totals->jobs = a.njobs;
    }
    free(hold_since);
    free(held);
    free(holder);
    free(aborted_since);
    free(aborted_holder);
    free(a.lock_mark);
    free(a.mark);
    free(a.next);
    free(a.tasks);
    return err;
}

long pr_lab_limit(int which)
{
    switch (which) {
    case 0: return PR_CONFIG_MAX_TASKS;
    case 1: return PR_CONFIG_MAX_SEMS;
    case 2: return PR_CONFIG_PRIORITIES;
    case 3: return PR_CONFIG_NAME_LEN;
    }
    return -1;
}

size_t pr_lab_sizeof(int which)
{
    switch (which) {
    case 0: return sizeof(pr_trace_record_t);
    case 1: return sizeof(pr_lab_job_t);
    case 2: return sizeof(pr_lab_totals_t);
    case 3: return sizeof(pr_kernel_config_t);
    case 4: return sizeof(pr_task_attr_t);
    case 5: return sizeof(pr_task_status_t);
    case 6: return sizeof(pr_sem_attr_t);
    case 7: return sizeof(pr_sem_stats_t);
    case 8: return sizeof(pr_action_t);
    case 9: return sizeof(pr_script_t);
    case 10: return sizeof(pr_kernel_stats_t);
    case 11: return sizeof(pr_sem_recovery_t);
    case 12: return sizeof(pr_msgq_attr_t);
    case 13: return sizeof(pr_msgq_status_t);
    case 14: return sizeof(pr_events_status_t);
    case 15: return sizeof(pr_timer_attr_t);
    case 16: return sizeof(pr_timer_status_t);
    case 17: return sizeof(pr_script_interrupt_t);
    case 18: return sizeof(pr_lab_span_t);
    case 19: return sizeof(pr_lab_objects_t);
    }
    return 0;
}
