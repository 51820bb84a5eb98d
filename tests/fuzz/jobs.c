/*
 * Jobs (fuzz.h): a new task's arrival attributes, and its hard or soft
 * deadlines, importance and abort time (docs/semantics.md, "Hard and soft
 * deadlines, importance, abort times").
 *
 * The generator gives tasks periods, deadlines, sporadic arrivals and
 * release jitter, and PR_TASK_HARD, an importance and (soft ones) an
 * abort time, valid or not; pr_task_create's result is predicted exactly
 * (predict.c). Which job a miss aborts depends on timing the fuzzer does
 * not model, so a task's job may be aborted when the rules let it be: it
 * has an abort time, or it is hard, or it is less important than a hard
 * task created in the seed. For such a task every wait it is in may end
 * with PR_EJOBABORTED, unless its job was aborted already when the call
 * began (a job is aborted once). A task whose job is aborted gives up its
 * mutexes and ends the job, as the semantics ask of it (now and then it
 * goes on a while instead: its calls then behave as usual). After every
 * call: jobs_aborted never decreases and grows by at most one per job,
 * job_aborted is 0 or 1 and stays 1 until the task ends its job,
 * hard_misses counts only a hard task's misses (all of them), and only a
 * task that may be aborted ever is.
 */
#include "fuzz.h"

#define E(x) FZ_ERR(PR_##x)

/* Periodic or one job, sporadic (refusing or deferring early releases),
 * jittered, with a phase offset, sometimes with a bad attribute or
 * combination. */
static void gen_arrivals(pr_task_attr_t *a)
{
    if (fz_chance(fz.profile.periodic_percent)) {
        a->period = (pr_ticks_t)fz_range(3, 40);
        a->deadline = fz_chance(50) ? 0 : (pr_ticks_t)fz_range(2, 50);
    } else if (fz_chance(10)) {
        a->deadline = (pr_ticks_t)fz_range(1, 30);
    }
    if (fz_chance(25)) { /* sporadic: released by pr_task_release, sometimes with a bad attribute */
        a->flags = PR_TASK_SPORADIC | (fz_chance(50) ? PR_TASK_DEFER_EARLY : 0u);
        a->period = fz_chance(5) ? 10 : 0;
        a->min_interarrival = (pr_ticks_t)fz_range(fz_chance(5) ? 0 : 1, 12);
        a->deadline = fz_chance(50) ? 0 : (pr_ticks_t)fz_range(1, 14);
    } else if (fz_chance(2)) {
        a->flags = fz_chance(50) ? PR_TASK_DEFER_EARLY : 8u; /* without PR_TASK_SPORADIC, or unknown */
    }
    if (fz_chance(15)) /* release jitter, sometimes not below the period or deadline */
        a->jitter = (pr_ticks_t)fz_range(1, 15);
    a->jitter_seed = (uint32_t)fz_range(0, 1000);
    if (fz_chance(10)) /* a phase offset, sometimes with the jitter not below the period or deadline */
        a->offset = fz_chance(2) ? (pr_ticks_t)UINT32_MAX + 1 : (pr_ticks_t)fz_range(1, 12);
    if (fz_chance(1))
        a->period = (pr_ticks_t)UINT32_MAX + 1;
    if (fz_chance(25))
        a->phase = pr_ticks_now() + (pr_ticks_t)fz_range(0, 10);
}

void fz_gen_task_attr_jobs(pr_task_attr_t *a)
{
    gen_arrivals(a);
    if (fz_chance(60))
        a->importance = (uint32_t)fz_range(0, 4);
    const int sporadic = (a->flags & PR_TASK_SPORADIC) != 0;
    const pr_ticks_t gap = sporadic ? a->min_interarrival : a->period;
    if (fz_chance(20)) { /* hard: give it a deadline to miss, most of the time */
        a->flags |= PR_TASK_HARD;
        if (a->deadline == 0 && gap == 0 && fz_chance(70))
            a->deadline = (pr_ticks_t)fz_range(1, 20);
        if (fz_chance(5)) /* an abort time on a hard task: refused */
            a->abort_time = (pr_ticks_t)fz_range(1, 10);
    } else if (fz_chance(20)) { /* an abort time, at most the period (or the interarrival time) */
        a->abort_time = gap != 0 ? (pr_ticks_t)fz_range(1, (int)(gap < 40 ? gap : 40)) : (pr_ticks_t)fz_range(1, 25);
        if (gap != 0 && fz_chance(10)) /* above it: refused */
            a->abort_time = gap + (pr_ticks_t)fz_range(1, 5);
        if (fz_chance(2))
            a->abort_time = (pr_ticks_t)UINT32_MAX + 1;
    }
}

/* A sporadic task that is alive and not done, three times in four when
 * there is one (so that releases come early, refused or deferred, often
 * enough), else any task id (fz_pick_task: a bad one now and then). */
int64_t fz_pick_release(int self)
{
    int ids[FZ_TASKS], n = 0;
    for (int t = 0; t < FZ_TASKS; t++)
        if (fz.task[t].alive && fz.snap.task_ok[t] && (fz.snap.task[t].flags & PR_TASK_SPORADIC) &&
            fz.snap.task[t].state != PR_TASK_DONE)
            ids[n++] = t;
    if (n > 0 && fz_chance(75))
        return ids[fz_below(n)];
    return fz_pick_task(self);
}

/* The create may make a hard task: from its issue on, the tasks less
 * important than it may see their jobs aborted (before it returns too: the
 * new task may run and miss before its creator runs again). */
void fz_aborts_before(const fz_call_t *c, unsigned expected)
{
    if (c->op == FZ_TASK_CREATE && (expected & E(OK)) && (c->task_attr.flags & PR_TASK_HARD) &&
        (int64_t)c->task_attr.importance > fz.hard_importance)
        fz.hard_importance = (int64_t)c->task_attr.importance;
}

/* Whether the rules may ever abort a job of t (its status in the snapshot). */
int fz_abortable(int t)
{
    if (t < 0 || t >= FZ_TASKS || !fz.snap.task_ok[t])
        return 0;
    const pr_task_status_t *st = &fz.snap.task[t];
    return st->abort_time != 0 || (st->flags & PR_TASK_HARD) || (int64_t)st->importance < fz.hard_importance;
}

/* Whether the call, made by a task, may be a wait (so that an abort can end it). */
static int may_wait(const fz_call_t *c, int who, unsigned expected)
{
    const fz_task_t *w = &fz.task[who];
    int64_t s = c->arg[0];
    switch (c->op) {
    case FZ_SEM_DOWN:
        if ((pr_timeout_t)c->arg[1] == PR_NO_WAIT || s < 0 || s >= FZ_SEMS || !fz.sem[s].alive)
            return 0;
        if (!fz_is_mutex((pr_id_t)s))
            return fz.snap.sem[s].value <= 0;
        return fz.snap.sem[s].holder != PR_NO_TASK || fz_is_pcp((pr_id_t)s);
    case FZ_COND_WAIT:
        return (expected & (E(OK) | E(ETIMEDOUT))) != 0;
    case FZ_TASK_DELAY:
        return c->arg[0] > 0 && (pr_timeout_t)c->arg[0] != PR_FOREVER;
    case FZ_EVENTS_WAIT:
        return w->call_waits;
    case FZ_MSGQ_SEND: /* full, no receiver waiting */
        return fz_msgq_alive(s) && (pr_timeout_t)c->arg[2] != PR_NO_WAIT && fz.snap.msgq[s].receivers_waiting == 0 &&
               fz.snap.msgq[s].messages >= fz.snap.msgq[s].length;
    case FZ_MSGQ_RECEIVE: /* empty */
        return fz_msgq_alive(s) && (pr_timeout_t)c->arg[1] != PR_NO_WAIT && fz.snap.msgq[s].messages == 0;
    default:
        return 0;
    }
}

/* At the call's issue: whether an abort may end it (fz_aborts_allowed). */
void fz_aborts_issue(const fz_call_t *c, int who, unsigned expected)
{
    if (who < 0)
        return;
    fz_task_t *w = &fz.task[who];
    w->abort_may_end = fz.snap.task_ok[who] && !fz.snap.task[who].job_aborted && may_wait(c, who, expected);
    if (c->op == FZ_TASK_DELAY) /* the tick it ends at, if nothing ends it before */
        w->delay_end = fz_tick_of_now() + (pr_ticks_t)c->arg[0];
}

/* After the call: PR_EJOBABORTED is allowed if the call was a wait an abort
 * could end (the task may be aborted; its job was not aborted when it began);
 * then its job is aborted now, and pr_task_aborted() says so. */
unsigned fz_aborts_allowed(const fz_call_t *c, int who, int r)
{
    if (c->op == FZ_TASK_DELAY && who >= 0 && r == PR_OK && c->arg[0] > 0 && pr_ticks_now() < fz.task[who].delay_end)
        fz_fail("task_delay(%lld) returned PR_OK at tick %llu; it ends at tick %llu (an abort of its job ends it "
                "with PR_EJOBABORTED)", (long long)c->arg[0], (unsigned long long)pr_ticks_now(),
                (unsigned long long)fz.task[who].delay_end);
    if (who < 0 || !fz.task[who].abort_may_end || !fz_abortable(who))
        return 0;
    if (r == PR_EJOBABORTED) {
        pr_task_status_t st;
        if (pr_task_aborted() != 1 || pr_task_status(who, &st) != PR_OK || st.job_aborted != 1)
            fz_fail("%s returned PR_EJOBABORTED; pr_task_aborted() is %d and the status's job_aborted %d",
                    fz_op_name(c->op), pr_task_aborted(), pr_task_status(who, &st) == PR_OK ? st.job_aborted : -1);
    }
    return E(EJOBABORTED);
}

/* cond_wait ended by an abort: while it waited on the variable (it locked
 * the mutex again), or while it waited to lock it (it holds it not). When
 * it does not hold an rcs mutex now, a take-over may have followed the
 * lock: its abort pending does not show which mutex it is for, so the task
 * asks, as an aborted job does: its up of the mutex returns PR_EABORTED (it
 * was taken over; now told) or PR_EPERM (never locked again), or
 * PR_ENOTALLOC if it was freed since (refused while an abort is pending). */
int fz_aborts_cond_relocked(int who, pr_id_t m)
{
    pr_sem_status_t st;
    if (pr_sem_status(m, &st) == PR_OK && st.holder == who)
        return 1;
    if (fz.sem[m].attr.protocol != PR_PROTOCOL_RCS)
        return 0;
    fz_call_t up = {.op = FZ_SEM_UP, .arg = {m}, .no = ++fz.calls, .who = who};
    uint32_t recoveries = fz.task[who].recoveries;
    fz_history_call(&up);
    int r = pr_sem_up(m);
    fz_history_return(&up, r);
    fz.task[who].recoveries = recoveries; /* a recovery its up ran is the section's own */
    if (r != PR_EABORTED && r != PR_EPERM && !(r == PR_ENOTALLOC && !fz.sem[m].alive)) /* freed: nothing pending */
        fz_fail("cond_wait(s%d) returned PR_EJOBABORTED without the mutex; the caller's up of it returned %s", m,
                pr_errname(r));
    return 0;
}

/* The task's job is aborted: it gives up its mutexes (the most recent
 * first), then ends the job; one job only: it returns, or goes on. One
 * time in ten it makes some other call first. 1 if a call was chosen. */
int fz_gen_abort_reaction(int self, fz_call_t *c)
{
    const fz_task_t *w = &fz.task[self];
    if (!fz.snap.task_ok[self] || !fz.snap.task[self].job_aborted || fz_chance(10))
        return 0;
    const pr_task_status_t *st = &fz.snap.task[self];
    if (w->nheld > 0) {
        c->op = FZ_SEM_UP;
        c->arg[0] = w->order[w->nheld - 1];
    } else if (st->period != 0 || (st->flags & PR_TASK_SPORADIC)) {
        c->op = FZ_TASK_WAIT_PERIOD;
    } else if (fz_chance(30)) {
        c->op = FZ_EXIT;
    } else {
        return 0;
    }
    return 1;
}

/* A wait an abort ended, had it come then: each of these waits once per
 * call (a pcp down may wait again after a retry, a cond wait to lock its
 * mutex again after it was woken, and an abort may come between). */
static int still_waiting(const fz_task_t *w, const pr_task_status_t *st)
{
    switch (st->state) {
    case PR_TASK_WAIT_COND: case PR_TASK_WAIT_EVENTS: case PR_TASK_WAIT_SEND: case PR_TASK_WAIT_RECEIVE:
    case PR_TASK_DELAYED:
        return 1;
    case PR_TASK_BLOCKED:
        return w->call == FZ_SEM_DOWN && !w->call_pcp;
    default:
        return 0;
    }
}

void fz_aborts_check(void)
{
    for (int t = 0; t <= fz.task_hi && t < FZ_TASKS; t++) {
        fz_task_t *w = &fz.task[t];
        if (!w->alive || !fz.snap.task_ok[t])
            continue;
        const pr_task_status_t *st = &fz.snap.task[t];
        const int hard = (st->flags & PR_TASK_HARD) != 0;
        if (st->job_aborted != 0 && st->job_aborted != 1)
            fz_fail("task %d: job_aborted is %d", t, st->job_aborted);
        if (hard ? st->hard_misses != st->deadline_misses : st->hard_misses != 0)
            fz_fail("task %d (%s): hard_misses %u, deadline_misses %u", t, hard ? "hard" : "soft",
                    (unsigned)st->hard_misses, (unsigned)st->deadline_misses);
        if ((st->job_aborted || st->jobs_aborted != 0) && !fz_abortable(t))
            fz_fail("task %d (importance %u, no abort time, soft) had a job aborted; the most important hard task "
                    "of the seed has importance %lld", t, (unsigned)st->importance, (long long)fz.hard_importance);
        if (st->state == PR_TASK_DONE && st->job_aborted)
            fz_fail("task %d is done, and its job is still aborted", t);
        uint32_t aborted = st->jobs_aborted - w->seen_jobs_aborted, ended = st->jobs_completed - w->seen_completed;
        if ((int32_t)aborted < 0)
            fz_fail("task %d: jobs_aborted went down from %u to %u", t, (unsigned)w->seen_jobs_aborted,
                    (unsigned)st->jobs_aborted);
        /* each job is aborted once: the one current at the last check, if not aborted then, and those begun since */
        if (aborted > ended + 1 - (uint32_t)w->seen_job_aborted)
            fz_fail("task %d: %u jobs aborted and %u ended since the last check (its job was %saborted then)", t,
                    (unsigned)aborted, (unsigned)ended, w->seen_job_aborted ? "" : "not ");
        if (ended == 0 && w->seen_job_aborted && !st->job_aborted)
            fz_fail("task %d: its aborted job is no longer aborted, and it has not ended it", t);
        if (ended == 0 && !w->seen_job_aborted && st->job_aborted && aborted != 1)
            fz_fail("task %d: its job is aborted now, and jobs_aborted went up by %u", t, (unsigned)aborted);
        if (!w->seen_job_aborted && st->job_aborted && w->abort_may_end && w->call != FZ_OPS && still_waiting(w, st))
            fz_fail("task %d's job was aborted inside its %s, which still waits (state %d)", t, fz_op_name(w->call),
                    (int)st->state);
        w->seen_jobs_aborted = st->jobs_aborted;
        w->seen_completed = st->jobs_completed;
        w->seen_job_aborted = st->job_aborted;
    }
}
