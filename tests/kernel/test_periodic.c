/*
 * Periodic tasks: job k is released at phase + (k-1) T and must complete by
 * that release + D. A job still incomplete at its deadline tick is a miss:
 * counted, traced (MISS), and the task's watchdog is woken with the number
 * of misses and the id of the task that missed. A job that completes at the
 * very instant of its deadline tick is not a miss (the host port takes the
 * tick after the calls made at that instant). A job that overruns its period
 * is followed at once by the next one, already released.
 */
#include "harness.h"

#define EV_JOBS (EV(PR_EV_RELEASE) | EV(PR_EV_JOB_DONE) | EV(PR_EV_DEADLINE_MISS) | EV(PR_EV_WATCHDOG))

/* A periodic body: job k computes work[k-1] ns (the last entry for every
 * later job), then ends the job with pr_task_wait_period. */
typedef struct jobs {
    const uint64_t *work;
    size_t n;
    int wait_rc; /* the last pr_task_wait_period result */
} jobs_t;

static void jobs_body(void *arg)
{
    jobs_t *j = arg;
    for (size_t k = 0;; k++) {
        pr_host_consume(j->work[k < j->n ? k : j->n - 1]);
        j->wait_rc = pr_task_wait_period();
        if (j->wait_rc != PR_OK)
            return; /* not periodic: returning ends the only job */
    }
}

/* A watchdog: records what each pr_task_wait_miss returns. */
typedef struct watch {
    pr_timeout_t timeout;
    int calls;
    int rc[8];
    pr_id_t who[8];
    long at[8];
} watch_t;

static void watch_body(void *arg)
{
    watch_t *w = arg;
    while (w->calls < 8) {
        pr_id_t who = -7;
        int rc = pr_task_wait_miss(w->timeout, &who);
        w->rc[w->calls] = rc;
        w->who[w->calls] = who;
        w->at[w->calls] = (long)pr_ticks_now();
        w->calls++;
    }
}

static pr_id_t periodic_with_watchdog(const char *name, pr_prio_t prio, pr_ticks_t period, pr_ticks_t phase,
                                      pr_ticks_t deadline, pr_id_t watchdog, jobs_t *jobs)
{
    return watched_task(name, prio, period, phase, deadline, watchdog, jobs_body, jobs);
}

/*
 * P (period 5, phase 3, each job 1 tick): released at 3, 8, 13, 18; each
 * job runs at once and completes one tick later. At 20: 4 released, 4
 * completed, no miss, waiting for its next release.
 */
static void releases_at_phase_plus_k_periods(void)
{
    harness_reset(0);
    static const uint64_t work[] = {TICKS(1)};
    jobs_t j = {work, 1, 1};
    pr_id_t p = periodic_task("P", 2, 5, 3, 0, jobs_body, &j);
    CHECK_EQ(status_of(p).state, PR_TASK_WAIT_RELEASE);
    CHECK_EQ(pr_host_run_ticks(20), PR_HOST_REACHED);
    EXPECT_TRACE(EV_JOBS | EV(PR_EV_SWITCH),
                 "3 RELEASE P job=1",
                 "3 SWITCH P<-idle",
                 "4 JOB_DONE P job=1",
                 "4 SWITCH idle<-P",
                 "8 RELEASE P job=2",
                 "8 SWITCH P<-idle",
                 "9 JOB_DONE P job=2",
                 "9 SWITCH idle<-P",
                 "13 RELEASE P job=3",
                 "13 SWITCH P<-idle",
                 "14 JOB_DONE P job=3",
                 "14 SWITCH idle<-P",
                 "18 RELEASE P job=4",
                 "18 SWITCH P<-idle",
                 "19 JOB_DONE P job=4",
                 "19 SWITCH idle<-P");
    pr_task_status_t st = status_of(p);
    CHECK_EQ(st.jobs_released, 4);
    CHECK_EQ(st.jobs_completed, 4);
    CHECK_EQ(st.deadline_misses, 0);
    CHECK_EQ(st.state, PR_TASK_WAIT_RELEASE);
    CHECK_EQ(j.wait_rc, PR_OK);
}

/*
 * A periodic task created with a phase in the past is released at once, and
 * its phase becomes the current tick. Created at 7.5 (tick 7): released at
 * 7.5, then at 11 and 15. Created at the instant of tick 7, before its
 * interrupt (where pr_host_run_ticks(7) stops), the tick count is still 6,
 * but the instant belongs to tick 7 (pr_port_tick_due): the phase is 7 and
 * the next releases are 11 and 15 (a full period each).
 */
static void phase_in_past_releases_at_once(void)
{
    harness_reset(0);
    static const uint64_t work[] = {TICKS(1)};
    jobs_t j = {work, 1, 1}, k = {work, 1, 1};
    task_at("X", 1, 7, jobs_body, &j); /* keeps the clock going until 7 */
    CHECK_EQ(pr_host_run_until(TICKS(7) + TICKS(1) / 2), PR_HOST_REACHED);
    pr_id_t p = periodic_task("P", 2, 4, 2, 0, jobs_body, &k);
    CHECK_EQ(status_of(p).phase, 7);
    CHECK_EQ(pr_host_run_ticks(16), PR_HOST_REACHED);
    EXPECT_TRACE(EV(PR_EV_RELEASE), "7 RELEASE X job=1", "7.5 RELEASE P job=1", "11 RELEASE P job=2",
                 "15 RELEASE P job=3");

    harness_reset(0);
    task_at("X", 1, 7, jobs_body, &j);
    CHECK_EQ(pr_host_run_ticks(7), PR_HOST_REACHED);
    CHECK_EQ(pr_ticks_now(), 6);
    p = periodic_task("P", 2, 4, 2, 0, jobs_body, &k);
    CHECK_EQ(status_of(p).phase, 7);
    CHECK_EQ(pr_host_run_ticks(16), PR_HOST_REACHED);
    EXPECT_TRACE(EV(PR_EV_RELEASE), "7 RELEASE P job=1", "7 RELEASE X job=1", "11 RELEASE P job=2",
                 "15 RELEASE P job=3");
}

/*
 * P (2, period 10, deadline 4) with watchdog Wd (9). Job 1 computes 6: at
 * its deadline tick 4 it is not done: MISS job=1, and Wd, waiting, wakes
 * at once (it is more urgent) with 1 miss by P; it waits again. Job 1 ends
 * at 6. Job 2 (released at 10) computes 3 and ends at 13, before its
 * deadline 14: no miss.
 */
static void deadline_miss_counted_traced_and_watchdog_woken(void)
{
    harness_reset(0);
    static const uint64_t work[] = {TICKS(6), TICKS(3)};
    jobs_t j = {work, 2, 1};
    watch_t w = {PR_FOREVER, 0, {0}, {0}, {0}};
    pr_id_t wd = task_at("Wd", 9, 0, watch_body, &w);
    pr_id_t p = periodic_with_watchdog("P", 2, 10, 0, 4, wd, &j);
    CHECK_EQ(pr_host_run_ticks(20), PR_HOST_REACHED);
    EXPECT_TRACE(EV_JOBS | EV(PR_EV_SWITCH),
                 "0 RELEASE Wd job=1",
                 "0 RELEASE P job=1",
                 "0 SWITCH Wd<-idle",
                 "0 SWITCH P<-Wd",
                 "4 MISS P job=1",
                 "4 WATCHDOG Wd missed=P",
                 "4 SWITCH Wd<-P",
                 "4 SWITCH P<-Wd",
                 "6 JOB_DONE P job=1",
                 "6 SWITCH idle<-P",
                 "10 RELEASE P job=2",
                 "10 SWITCH P<-idle",
                 "13 JOB_DONE P job=2",
                 "13 SWITCH idle<-P");
    CHECK_EQ(w.calls, 1);
    CHECK_EQ(w.rc[0], 1);
    CHECK_EQ(w.who[0], p);
    CHECK_EQ(w.at[0], 4);
    pr_task_status_t st = status_of(p);
    CHECK_EQ(st.deadline_misses, 1);
    CHECK_EQ(st.jobs_released, 2);
    CHECK_EQ(st.jobs_completed, 2);
    CHECK_EQ(st.watchdog, wd);
    CHECK_EQ(st.deadline, 4);
    CHECK_EQ(status_of(wd).state, PR_TASK_WAIT_MISS);
    /* The MISS record names the watchdog. */
    size_t n;
    const pr_trace_record_t *r = pr_host_trace(&n);
    for (size_t i = 0; i < n; i++)
        if (r[i].event == PR_EV_DEADLINE_MISS)
            CHECK_EQ(r[i].object, wd);
}

/*
 * Misses pile up while the watchdog is busy. P (2, period 5, deadline 2)
 * computes 3 per job: every job misses, at 2, 7, 12, 17, ... Wd (1, less
 * urgent) computes 4.5 ticks in P's gaps (3..5, 8..10, 13..13.5), then:
 *  - pr_task_wait_miss(forever) returns at once with 3 (jobs 1-3) and P;
 *  - pr_task_wait_miss(no wait) fails with PR_EAGAIN: nothing pending;
 *  - pr_task_wait_miss(2) at tick 13 times out at 15 (the next miss is at
 *    17).
 * Then Wd ends; P's later misses are still counted and traced.
 */
static int wd2_rc[3];
static pr_id_t wd2_who;
static long wd2_at[3];
static void busy_watchdog_body(void *arg)
{
    (void)arg;
    pr_host_consume(TICKS(4) + TICKS(1) / 2);
    wd2_rc[0] = pr_task_wait_miss(PR_FOREVER, &wd2_who);
    wd2_at[0] = (long)pr_ticks_now();
    wd2_rc[1] = pr_task_wait_miss(PR_NO_WAIT, NULL);
    wd2_rc[2] = pr_task_wait_miss(2, NULL);
    wd2_at[2] = (long)pr_ticks_now();
}

static void watchdog_collects_several_misses(void)
{
    harness_reset(0);
    static const uint64_t work[] = {TICKS(3)};
    jobs_t j = {work, 1, 1};
    pr_id_t wd = task_at("Wd", 1, 0, busy_watchdog_body, NULL);
    pr_id_t p = periodic_with_watchdog("P", 2, 5, 0, 2, wd, &j);
    CHECK_EQ(pr_host_run_ticks(30), PR_HOST_REACHED);
    EXPECT_TRACE(EV(PR_EV_DEADLINE_MISS) | EV(PR_EV_WATCHDOG) | EV(PR_EV_TIMEOUT),
                 "2 MISS P job=1",
                 "7 MISS P job=2",
                 "12 MISS P job=3",
                 "15 TIMEOUT Wd - PR_ETIMEDOUT",
                 "17 MISS P job=4",
                 "22 MISS P job=5",
                 "27 MISS P job=6");
    CHECK_EQ(wd2_rc[0], 3);
    CHECK_EQ(wd2_who, p);
    CHECK_EQ(wd2_at[0], 13);
    CHECK_EQ(wd2_rc[1], PR_EAGAIN);
    CHECK_EQ(wd2_rc[2], PR_ETIMEDOUT);
    CHECK_EQ(wd2_at[2], 17); /* woken at 15, it runs when P's job 4 ends: 18.0, tick count 17 */
    CHECK_EQ(status_of(p).deadline_misses, 6);
}

/*
 * A job that completes at the very instant of its deadline tick is not a
 * miss: P (period 10, deadline 4) computes exactly 4 ticks; its
 * pr_task_wait_period at time 4 runs before the tick-4 interrupt, where the
 * deadline is checked. With 4 ticks and a nanosecond, it is a miss.
 */
static void completing_at_deadline_instant_is_not_a_miss(void)
{
    harness_reset(0);
    static const uint64_t work[] = {TICKS(4), TICKS(4) + 1};
    jobs_t j = {work, 2, 1};
    pr_id_t p = periodic_task("P", 2, 10, 0, 4, jobs_body, &j);
    CHECK_EQ(pr_host_run_ticks(20), PR_HOST_REACHED);
    EXPECT_TRACE(EV_JOBS,
                 "0 RELEASE P job=1",
                 "4 JOB_DONE P job=1",
                 "10 RELEASE P job=2",
                 "14 MISS P job=2",
                 "14 JOB_DONE P job=2");
    CHECK_EQ(status_of(p).deadline_misses, 1);
}

/*
 * Overrun: P (period 5, deadline = period) job 1 computes 7. At 5: MISS
 * job=1, then RELEASE job=2 (the deadline timer was armed first). Job 1
 * completes at 7; job 2 is already released, so pr_task_wait_period
 * returns at once and job 2 starts at 7 with no switch; it computes 2 and
 * completes at 9, before its deadline 10. Job 3 (released at 10) computes
 * 2 as well.
 */
static void overrun_job_successor_starts_at_once(void)
{
    harness_reset(0);
    static const uint64_t work[] = {TICKS(7), TICKS(2)};
    jobs_t j = {work, 2, 1};
    pr_id_t p = periodic_task("P", 2, 5, 0, 0, jobs_body, &j);
    CHECK_EQ(pr_host_run_until(TICKS(8)), PR_HOST_REACHED);
    CHECK_EQ(status_of(p).jobs_released, 2);
    CHECK_EQ(status_of(p).jobs_completed, 1);
    CHECK_EQ(status_of(p).state, PR_TASK_READY);
    CHECK_EQ(pr_host_run_ticks(12), PR_HOST_REACHED);
    EXPECT_TRACE(EV_JOBS | EV(PR_EV_SWITCH),
                 "0 RELEASE P job=1",
                 "0 SWITCH P<-idle",
                 "5 MISS P job=1",
                 "5 RELEASE P job=2",
                 "7 JOB_DONE P job=1",
                 "9 JOB_DONE P job=2",
                 "9 SWITCH idle<-P",
                 "10 RELEASE P job=3",
                 "10 SWITCH P<-idle",
                 "12 JOB_DONE P job=3",
                 "12 SWITCH idle<-P");
    CHECK_EQ(status_of(p).deadline_misses, 1);
    CHECK_EQ(j.wait_rc, PR_OK);
}

/*
 * A deadline longer than the period (D = 2T): P (period 5, deadline 10)
 * computes 7 per job. Job k runs 7(k-1)..7k and must end by 5k+5: jobs 1
 * and 2 make it (7 <= 10, 14 <= 15), job 3 misses at 20, job 4 at 25, job 5
 * at 30.
 */
static void deadline_longer_than_period(void)
{
    harness_reset(0);
    static const uint64_t work[] = {TICKS(7)};
    jobs_t j = {work, 1, 1};
    pr_id_t p = periodic_task("P", 2, 5, 0, 10, jobs_body, &j);
    CHECK_EQ(pr_host_run_until(TICKS(30) + TICKS(1) / 2), PR_HOST_REACHED);
    EXPECT_TRACE(EV(PR_EV_JOB_DONE) | EV(PR_EV_DEADLINE_MISS),
                 "7 JOB_DONE P job=1",
                 "14 JOB_DONE P job=2",
                 "20 MISS P job=3",
                 "21 JOB_DONE P job=3",
                 "25 MISS P job=4",
                 "28 JOB_DONE P job=4",
                 "30 MISS P job=5");
    CHECK_EQ(status_of(p).jobs_released, 7);
    CHECK_EQ(status_of(p).deadline_misses, 3);
}

/* A task with period 0 and a deadline has one job with that deadline:
 * released at 2 with deadline 3, computing 4: MISS at 5, done at 6. */
static void one_shot_job_with_deadline(void)
{
    harness_reset(0);
    static const uint64_t work[] = {TICKS(4)};
    jobs_t j = {work, 1, 1};
    watch_t w = {PR_FOREVER, 0, {0}, {0}, {0}};
    pr_id_t wd = task_at("Wd", 9, 0, watch_body, &w);
    pr_task_attr_t a;
    pr_task_attr_init(&a);
    a.name = "J";
    a.priority = 2;
    a.phase = 2;
    a.deadline = 3;
    a.watchdog = wd;
    a.entry = jobs_body;
    a.arg = &j;
    pr_id_t t;
    CHECK_EQ(pr_task_create(&a, &t), PR_OK);
    CHECK_EQ(pr_host_run_ticks(20), PR_HOST_QUIESCENT); /* J done, Wd waiting forever */
    EXPECT_TRACE(EV_JOBS | EV(PR_EV_TASK_EXIT),
                 "0 RELEASE Wd job=1",
                 "2 RELEASE J job=1",
                 "5 MISS J job=1",
                 "5 WATCHDOG Wd missed=J",
                 "6 JOB_DONE J job=1",
                 "6 TASK_EXIT J");
    CHECK_EQ(j.wait_rc, PR_ESTATE); /* not periodic: its body ends the job by returning */
    CHECK_EQ(w.rc[0], 1);
    CHECK_EQ(w.who[0], t);
    CHECK_EQ(status_of(t).deadline_misses, 1);
}

HARNESS_MAIN(TEST_CASE(releases_at_phase_plus_k_periods),
             TEST_CASE(phase_in_past_releases_at_once),
             TEST_CASE(deadline_miss_counted_traced_and_watchdog_woken),
             TEST_CASE(watchdog_collects_several_misses),
             TEST_CASE(completing_at_deadline_instant_is_not_a_miss),
             TEST_CASE(overrun_job_successor_starts_at_once),
             TEST_CASE(deadline_longer_than_period),
             TEST_CASE(one_shot_job_with_deadline))
