/*
 * Hard and soft deadlines, importance and abort times ([Tokuda-Nakajima
 * 1993], section 2.1). A soft miss is counted and the job goes on; a hard
 * miss aborts the unfinished job of least importance among the missing
 * task's and those of less important tasks. An abort is cooperative: a
 * wait ends with PR_EJOBABORTED, computing stops, and the body ends the job
 * (the scenario interpreter first gives up the mutexes it holds).
 */
#include "harness.h"

#define EV_JOBS (EV(PR_EV_RELEASE) | EV(PR_EV_JOB_DONE) | EV(PR_EV_DEADLINE_MISS) | EV(PR_EV_JOB_ABORT))

typedef struct job {
    uint64_t work;
    int aborted_seen; /* pr_task_aborted() before the last pr_task_wait_period */
    int aborted_after; /* ... and after it returned */
    int down_rc;       /* waiter_body: the down's result */
    pr_id_t sem;
} job_t;

static void job_body(void *arg)
{
    job_t *j = arg;
    do {
        pr_host_consume(j->work);
        j->aborted_seen = pr_task_aborted();
    } while (pr_task_wait_period() == PR_OK && (j->aborted_after = pr_task_aborted(), 1));
}

static void waiter_body(void *arg)
{
    job_t *j = arg;
    j->down_rc = pr_sem_down(j->sem, PR_FOREVER);
    j->aborted_seen = pr_task_aborted();
    (void)pr_task_wait_period();
    j->aborted_after = pr_task_aborted();
}

static pr_id_t create(const char *name, pr_prio_t prio, pr_ticks_t period, pr_ticks_t deadline, unsigned flags,
                      uint32_t importance, pr_ticks_t abort_time, pr_entry_t entry, void *arg)
{
    pr_task_attr_t a;
    pr_task_attr_init(&a);
    a.name = name;
    a.priority = prio;
    a.period = period;
    a.deadline = deadline;
    a.flags = flags;
    a.importance = importance;
    a.abort_time = abort_time;
    a.entry = entry;
    a.arg = arg;
    pr_id_t id = PR_NO_TASK;
    CHECK_EQ(pr_task_create(&a, &id), PR_OK);
    return id;
}

/* P hard (period 10, deadline 4, 6 ticks a job): each job misses at its
 * deadline and, the least important candidate being itself, is aborted:
 * its computing stops and it ends at once. */
static void hard_miss_aborts_the_job(void)
{
    harness_reset(0);
    job_t j = {TICKS(6), 0, 0, 0, 0};
    pr_id_t p = create("P", 2, 10, 4, PR_TASK_HARD, 0, 0, job_body, &j);
    CHECK_EQ(pr_host_run_ticks(20), PR_HOST_REACHED);
    EXPECT_TRACE(EV_JOBS,
                 "0 RELEASE P job=1", "4 MISS P job=1", "4 JOB_ABORT P job=1 by=P", "4 JOB_DONE P job=1",
                 "10 RELEASE P job=2", "14 MISS P job=2", "14 JOB_ABORT P job=2 by=P", "14 JOB_DONE P job=2");
    pr_task_status_t st = status_of(p);
    CHECK_EQ(st.deadline_misses, 2);
    CHECK_EQ(st.hard_misses, 2);
    CHECK_EQ(st.jobs_aborted, 2);
    CHECK_EQ(st.jobs_completed, 2);
    CHECK_EQ(st.job_aborted, 0);
    CHECK_EQ(j.aborted_seen, 1);
    CHECK_EQ(j.aborted_after, 0);
    CHECK_EQ(st.cpu_time, TICKS(8));
}

/* The timer service task (importance 0, one job that never ends) is never
 * the job a hard miss sheds: with it and P alone, P's own job is aborted. */
static void the_timer_service_is_never_shed(void)
{
    harness_reset(0);
    pr_id_t service = PR_NO_TASK;
    CHECK_EQ(pr_timer_service_start(1, &service), PR_OK);
    job_t j = {TICKS(6), 0, 0, 0, 0};
    create("P", 2, 10, 4, PR_TASK_HARD, 5, 0, job_body, &j);
    CHECK_EQ(pr_host_run_ticks(10), PR_HOST_REACHED);
    EXPECT_TRACE(EV(PR_EV_JOB_ABORT), "4 JOB_ABORT P job=1 by=P");
    CHECK_EQ(status_of(service).jobs_aborted, 0);
}

/* A soft miss is counted, and the job goes on. */
static void soft_miss_goes_on(void)
{
    harness_reset(0);
    job_t j = {TICKS(6), 0, 0, 0, 0};
    pr_id_t p = create("P", 2, 10, 4, 0, 0, 0, job_body, &j);
    CHECK_EQ(pr_host_run_ticks(10), PR_HOST_REACHED);
    EXPECT_TRACE(EV_JOBS, "0 RELEASE P job=1", "4 MISS P job=1", "6 JOB_DONE P job=1");
    CHECK_EQ(status_of(p).hard_misses, 0);
    CHECK_EQ(status_of(p).jobs_aborted, 0);
}

/* X (4, one job of 3 ticks) delays H (3, hard, deadline 3, importance 5):
 * H misses at 3. L (1, importance 1, 5 ticks, unfinished) is less
 * important: its job is aborted, and H's goes on to 5. L then runs and ends
 * its aborted job at once. With L as important as H (5), H's own job is
 * aborted instead. */
static void hard_miss_aborts_the_least_important_job(void)
{
    for (int round = 0; round < 2; round++) {
        harness_reset(0);
        job_t x = {TICKS(3), 0, 0, 0, 0}, h = {TICKS(2), 0, 0, 0, 0}, l = {TICKS(5), 0, 0, 0, 0};
        create("X", 4, 0, 0, 0, 9, 0, job_body, &x);
        pr_id_t hid = create("H", 3, 20, 3, PR_TASK_HARD, 5, 0, job_body, &h);
        pr_id_t lid = create("L", 1, 20, 0, 0, round == 0 ? 1 : 5, 0, job_body, &l);
        CHECK_EQ(pr_host_run_ticks(10), PR_HOST_REACHED);
        if (round == 0) {
            EXPECT_TRACE(EV(PR_EV_JOB_DONE) | EV(PR_EV_DEADLINE_MISS) | EV(PR_EV_JOB_ABORT),
                         "3 JOB_DONE X job=1", "3 MISS H job=1", "3 JOB_ABORT L job=1 by=H", "5 JOB_DONE H job=1",
                         "5 JOB_DONE L job=1");
            CHECK_EQ(status_of(lid).jobs_aborted, 1);
            CHECK_EQ(status_of(hid).jobs_aborted, 0);
        } else {
            EXPECT_TRACE(EV(PR_EV_JOB_DONE) | EV(PR_EV_DEADLINE_MISS) | EV(PR_EV_JOB_ABORT),
                         "3 JOB_DONE X job=1", "3 MISS H job=1", "3 JOB_ABORT H job=1 by=H", "3 JOB_DONE H job=1",
                         "8 JOB_DONE L job=1");
            CHECK_EQ(status_of(lid).jobs_aborted, 0);
            CHECK_EQ(status_of(hid).jobs_aborted, 1);
        }
        CHECK_EQ(status_of(hid).hard_misses, 1);
    }
}

/* A soft task's abort time (5 after each arrival, deadline 10): a job of 7
 * ticks is aborted at 5, before its deadline: no miss. */
static void abort_time_ends_a_soft_job(void)
{
    harness_reset(0);
    job_t j = {TICKS(7), 0, 0, 0, 0};
    pr_id_t p = create("S", 2, 10, 0, 0, 0, 5, job_body, &j);
    CHECK_EQ(pr_host_run_ticks(20), PR_HOST_REACHED);
    EXPECT_TRACE(EV_JOBS,
                 "0 RELEASE S job=1", "5 JOB_ABORT S job=1 abort-time", "5 JOB_DONE S job=1",
                 "10 RELEASE S job=2", "15 JOB_ABORT S job=2 abort-time", "15 JOB_DONE S job=2");
    CHECK_EQ(status_of(p).deadline_misses, 0);
    CHECK_EQ(status_of(p).jobs_aborted, 2);
    CHECK_EQ(status_of(p).abort_time, 5);
}

/* W (hard, deadline 3) waits forever on an empty counting semaphore: the
 * abort ends its wait with PR_EJOBABORTED at 3. */
static void abort_ends_a_wait(void)
{
    harness_reset(0);
    pr_id_t c = counting("C", 0, PR_SEM_PRIO);
    job_t j = {0, 0, 0, 0, c};
    pr_id_t w = create("W", 2, 10, 3, PR_TASK_HARD, 0, 0, waiter_body, &j);
    CHECK_EQ(pr_host_run_ticks(5), PR_HOST_REACHED);
    EXPECT_TRACE(EV_JOBS | EV(PR_EV_WAKE) | EV(PR_EV_BLOCK),
                 "0 RELEASE W job=1", "0 BLOCK W C ok", "3 MISS W job=1", "3 JOB_ABORT W job=1 by=W",
                 "3 WAKE W C PR_EJOBABORTED", "3 JOB_DONE W job=1");
    CHECK_EQ(j.down_rc, PR_EJOBABORTED);
    CHECK_EQ(j.aborted_seen, 1);
    CHECK_EQ(j.aborted_after, 0);
    CHECK_EQ(sem_status_of(c).waiters, 0);
    CHECK_EQ(status_of(w).jobs_aborted, 1);
}

static void delayer_body(void *arg)
{
    job_t *j = arg;
    j->down_rc = pr_task_delay(6);
    j->aborted_seen = pr_task_aborted();
    (void)pr_task_wait_period();
}

/* D (abort time 3) delays 6 ticks from 0: the abort at 3 ends the delay,
 * which returns PR_EJOBABORTED (it returned PR_OK, the abort untold). */
static void abort_ends_a_delay(void)
{
    harness_reset(0);
    job_t j = {0, 0, 0, 0, PR_NO_SEM};
    pr_id_t d = create("D", 2, 10, 0, 0, 0, 3, delayer_body, &j);
    CHECK_EQ(pr_host_run_ticks(5), PR_HOST_REACHED);
    EXPECT_TRACE(EV_JOBS | EV(PR_EV_DELAY_END), "0 RELEASE D job=1", "3 JOB_ABORT D job=1 abort-time",
                 "3 DELAY_END D", "3 JOB_DONE D job=1");
    CHECK_EQ(j.down_rc, PR_EJOBABORTED);
    CHECK_EQ(j.aborted_seen, 1);
    CHECK_EQ(status_of(d).jobs_aborted, 1);
}

/* The interpreter: L (hard, deadline 4) locks M and computes 6 ticks; H
 * (more urgent, from 1) waits for M. At 4 L's job is aborted: it gives M up
 * (H gets it) and ends. */
static void interpreter_gives_the_mutexes_up(void)
{
    harness_reset(0);
    pr_id_t m = mutex("M", PR_PROTOCOL_PIP);
    static pr_action_t lbody[3], hbody[3];
    lbody[0] = (pr_action_t)A_LOCK(m);
    lbody[1] = (pr_action_t)A_COMPUTE(6);
    lbody[2] = (pr_action_t)A_UNLOCK(m);
    hbody[0] = (pr_action_t)A_LOCK(m);
    hbody[1] = (pr_action_t)A_COMPUTE(1);
    hbody[2] = (pr_action_t)A_UNLOCK(m);
    static pr_script_t ls, hs;
    ls = SCRIPT(lbody);
    hs = SCRIPT(hbody);
    pr_id_t l = create("L", 1, 10, 4, PR_TASK_HARD, 0, 0, pr_script_body, &ls);
    script_task("H", 3, 1, &hs);
    CHECK_EQ(pr_host_run_ticks(8), PR_HOST_REACHED);
    EXPECT_TRACE(EV_JOBS | EV(PR_EV_SEM_UP),
                 "0 RELEASE L job=1", "1 RELEASE H job=1", "4 MISS L job=1", "4 JOB_ABORT L job=1 by=L",
                 "4 UP L M ok value=0", "4 JOB_DONE L job=1", "5 UP H M ok value=1", "5 JOB_DONE H job=1");
    CHECK_EQ(status_of(l).mutexes_held, 0);
    CHECK_EQ(ls.errors, 0);
}

/*
 * A hard miss does both of its documented things, in this order: the miss
 * is counted and reported to the task's watchdog (Wd, waiting in
 * pr_task_wait_miss, is woken: WATCHDOG), then a job is aborted (JOB_ABORT).
 * Wd (priority 5) runs first; P, its job aborted, ends it when it runs
 * again. A soft task S (less urgent, 12 ticks a job) with the same
 * watchdog is only reported, and goes on.
 */
static struct {
    int calls, count[3];
    pr_id_t who[3];
} wd_seen;

static void watchdog_body(void *arg)
{
    (void)arg;
    while (wd_seen.calls < 3) {
        pr_id_t who = PR_NO_TASK;
        int n = pr_task_wait_miss(PR_FOREVER, &who);
        wd_seen.count[wd_seen.calls] = n;
        wd_seen.who[wd_seen.calls++] = who;
    }
}

static void hard_miss_reports_to_the_watchdog_then_aborts(void)
{
    harness_reset(0);
    wd_seen.calls = 0;
    pr_id_t wd = task_at("Wd", 5, 0, watchdog_body, NULL);
    job_t hard = {TICKS(6), 0, 0, 0, 0}, soft = {TICKS(12), 0, 0, 0, 0};
    pr_task_attr_t a;
    pr_task_attr_init(&a);
    a.name = "P";
    a.priority = 2;
    a.period = 10;
    a.deadline = 4;
    a.flags = PR_TASK_HARD;
    a.watchdog = wd;
    a.entry = job_body;
    a.arg = &hard;
    pr_id_t p = task_with(&a);
    a.name = "S";
    a.priority = 1;
    a.deadline = 0;
    a.flags = 0;
    a.phase = 10;
    a.arg = &soft;
    pr_id_t sid = task_with(&a);
    CHECK_EQ(pr_host_run_ticks(25), PR_HOST_REACHED);
    EXPECT_TRACE(EV_JOBS | EV(PR_EV_WATCHDOG),
                 "0 RELEASE Wd job=1", "0 RELEASE P job=1", "4 MISS P job=1", "4 WATCHDOG Wd missed=P",
                 "4 JOB_ABORT P job=1 by=P", "4 JOB_DONE P job=1", "10 RELEASE P job=2", "10 RELEASE S job=1",
                 "14 MISS P job=2", "14 WATCHDOG Wd missed=P", "14 JOB_ABORT P job=2 by=P", "14 JOB_DONE P job=2",
                 "20 RELEASE P job=3", "20 MISS S job=1", "20 WATCHDOG Wd missed=S", "20 RELEASE S job=2",
                 "20 JOB_DONE Wd job=1", "24 MISS P job=3", "24 JOB_ABORT P job=3 by=P", "24 JOB_DONE P job=3");
    CHECK_EQ(wd_seen.calls, 3);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(wd_seen.count[i], 1);
    CHECK_EQ(wd_seen.who[0], p);
    CHECK_EQ(wd_seen.who[1], p);
    CHECK_EQ(wd_seen.who[2], sid);
    CHECK_EQ(status_of(p).hard_misses, 3);
    CHECK_EQ(status_of(sid).deadline_misses, 1);
    CHECK_EQ(status_of(sid).hard_misses, 0);
    CHECK_EQ(status_of(sid).jobs_aborted, 0);
}

/* Refused: an abort time on a hard task, or beyond the period. */
static void bad_abort_attributes(void)
{
    harness_reset(0);
    pr_task_attr_t a;
    pr_task_attr_init(&a);
    a.entry = job_body;
    a.period = 10;
    a.abort_time = 5;
    a.flags = PR_TASK_HARD;
    pr_id_t id = 77;
    CHECK_EQ(pr_task_create(&a, &id), PR_EINVAL);
    a.flags = 0;
    a.abort_time = 11;
    CHECK_EQ(pr_task_create(&a, &id), PR_EINVAL);
    a.abort_time = (pr_ticks_t)UINT32_MAX + 1;
    a.period = 0;
    CHECK_EQ(pr_task_create(&a, &id), PR_EINVAL);
    CHECK_EQ(id, 77);
    CHECK_EQ(pr_task_aborted(), 0); /* outside a task */
}

HARNESS_MAIN(TEST_CASE(hard_miss_aborts_the_job), TEST_CASE(the_timer_service_is_never_shed), TEST_CASE(soft_miss_goes_on),
             TEST_CASE(hard_miss_aborts_the_least_important_job), TEST_CASE(abort_time_ends_a_soft_job),
             TEST_CASE(abort_ends_a_wait), TEST_CASE(abort_ends_a_delay), TEST_CASE(interpreter_gives_the_mutexes_up),
             TEST_CASE(hard_miss_reports_to_the_watchdog_then_aborts),
             TEST_CASE(bad_abort_attributes))
