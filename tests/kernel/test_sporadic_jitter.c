/*
 * Arrivals and releases: release jitter (each job released at its arrival
 * plus a seeded draw in [0, J], its deadline counted from the arrival) and
 * sporadic tasks (jobs arrive by pr_task_release, a minimum interarrival
 * time apart: an early one refused or deferred). The draws are xorshift32:
 * seed 1 with J = 3 gives 1, 1, 1, 3, 1, 0; seed 7 with J = 4 gives 3, 0,
 * 2, 0, 2, 1 (each state modulo J + 1).
 */
#include "harness.h"

#define EV_JOBS (EV(PR_EV_ARRIVAL) | EV(PR_EV_RELEASE) | EV(PR_EV_JOB_DONE) | EV(PR_EV_DEADLINE_MISS))

/* Each job computes `work` ns, then ends with pr_task_wait_period. */
static void job_body(void *arg)
{
    const uint64_t *work = arg;
    do
        pr_host_consume(*work);
    while (pr_task_wait_period() == PR_OK);
}

static pr_task_attr_t attr_of(const char *name, pr_prio_t prio, const uint64_t *work)
{
    pr_task_attr_t a;
    pr_task_attr_init(&a);
    a.name = name;
    a.priority = prio;
    a.entry = job_body;
    a.arg = (void *)work;
    return a;
}

static pr_id_t create_ok(const pr_task_attr_t *a)
{
    pr_id_t id = PR_NO_TASK;
    CHECK_EQ(pr_task_create(a, &id), PR_OK);
    return id;
}

/* A least urgent task that computes until `until` ticks: it keeps the
 * clock going while the program outside the kernel calls pr_task_release
 * (without it the host port stops when nothing is due). */
static void keep_clock_until(pr_ticks_t until)
{
    static uint64_t work;
    work = TICKS(until);
    pr_task_attr_t b = attr_of("B", 0, &work);
    create_ok(&b);
}

/* Period 10, J = 3, seed 1: arrivals at 0, 10, 20, 30, 40, 50; releases
 * 1, 1, 1, 3, 1, 0 ticks after them. A job with no jitter drawn is released
 * at the instant of its arrival, right after its ARRIVAL record. */
static void jittered_releases_follow_the_seeded_draws(void)
{
    harness_reset(0);
    static const uint64_t work = TICKS(1);
    pr_task_attr_t a = attr_of("P", 2, &work);
    a.period = 10;
    a.jitter = 3;
    a.jitter_seed = 1;
    pr_id_t p = create_ok(&a);
    CHECK_EQ(pr_host_run_ticks(55), PR_HOST_REACHED);
    EXPECT_TRACE(EV(PR_EV_ARRIVAL) | EV(PR_EV_RELEASE),
                 "0 ARRIVAL P delay=1", "1 RELEASE P job=1",
                 "10 ARRIVAL P delay=1", "11 RELEASE P job=2",
                 "20 ARRIVAL P delay=1", "21 RELEASE P job=3",
                 "30 ARRIVAL P delay=3", "33 RELEASE P job=4",
                 "40 ARRIVAL P delay=1", "41 RELEASE P job=5",
                 "50 ARRIVAL P delay=0", "50 RELEASE P job=6");
    pr_task_status_t st = status_of(p);
    CHECK_EQ(st.arrivals, 6);
    CHECK_EQ(st.jobs_released, 6);
    CHECK_EQ(st.jobs_completed, 6);
    CHECK_EQ(st.max_jitter, 3);
    CHECK_EQ(st.jitter, 3);
    CHECK_EQ(st.deadline_misses, 0);
}

/* The deadline counts from the arrival, not the release. Period 10, D 5,
 * J 4, seed 7, 3 ticks a job: job 1 arrives at 0, is released at 3 and
 * misses its deadline at 5 (done at 6); job 3, released at 22, completes at
 * 25, the instant of its deadline: not a miss. */
static void deadline_counts_from_the_arrival(void)
{
    harness_reset(0);
    static const uint64_t work = TICKS(3);
    pr_task_attr_t a = attr_of("P", 2, &work);
    a.period = 10;
    a.deadline = 5;
    a.jitter = 4;
    a.jitter_seed = 7;
    pr_id_t p = create_ok(&a);
    CHECK_EQ(pr_host_run_ticks(35), PR_HOST_REACHED);
    EXPECT_TRACE(EV_JOBS,
                 "0 ARRIVAL P delay=3", "3 RELEASE P job=1", "5 MISS P job=1", "6 JOB_DONE P job=1",
                 "10 ARRIVAL P delay=0", "10 RELEASE P job=2", "13 JOB_DONE P job=2",
                 "20 ARRIVAL P delay=2", "22 RELEASE P job=3", "25 JOB_DONE P job=3",
                 "30 ARRIVAL P delay=0", "30 RELEASE P job=4", "33 JOB_DONE P job=4");
    CHECK_EQ(status_of(p).deadline_misses, 1);
    CHECK_EQ(status_of(p).max_jitter, 3);
}

/* Real-Time Mach's phase offset O [Tokuda-Nakajima 1993]: each job is
 * ready O ticks after its arrival, then its jitter; the deadline counts
 * from the arrival, so the offset takes from it. Period 10, D 8, O 2, J 3,
 * seed 1 (draws 1, 1, 1, 3), 4 ticks a job: releases 3, 13, 23 and 35,
 * ARRIVAL values (the delay to the release) 3, 3, 3, 5; job 4, preempted
 * by Q at 37, ends at 40, after its deadline 38. max_jitter counts the jitter alone (3). A task
 * started at 5 (phase) with O 2 is released at 7 and 17, due at 13, 23: a
 * phase and an offset are two different things. */
static void phase_offset_delays_each_release(void)
{
    harness_reset(0);
    static const uint64_t work = TICKS(4), short_work = TICKS(1);
    pr_task_attr_t a = attr_of("P", 2, &work);
    a.period = 10;
    a.deadline = 8;
    a.offset = 2;
    a.jitter = 3;
    a.jitter_seed = 1;
    pr_id_t p = create_ok(&a);
    pr_task_attr_t b = attr_of("Q", 3, &short_work);
    b.period = 10;
    b.phase = 5;
    b.deadline = 8;
    b.offset = 2;
    pr_id_t q = create_ok(&b);
    CHECK_EQ(pr_host_run_ticks(40), PR_HOST_REACHED);
    EXPECT_TRACE(EV_JOBS,
                 "0 ARRIVAL P delay=3", "3 RELEASE P job=1", "5 ARRIVAL Q delay=2", "7 JOB_DONE P job=1",
                 "7 RELEASE Q job=1", "8 JOB_DONE Q job=1",
                 "10 ARRIVAL P delay=3", "13 RELEASE P job=2", "15 ARRIVAL Q delay=2", "17 JOB_DONE P job=2",
                 "17 RELEASE Q job=2", "18 JOB_DONE Q job=2",
                 "20 ARRIVAL P delay=3", "23 RELEASE P job=3", "25 ARRIVAL Q delay=2", "27 JOB_DONE P job=3",
                 "27 RELEASE Q job=3", "28 JOB_DONE Q job=3",
                 "30 ARRIVAL P delay=5", "35 ARRIVAL Q delay=2", "35 RELEASE P job=4", "37 RELEASE Q job=4",
                 "38 JOB_DONE Q job=4", "38 MISS P job=4", "40 JOB_DONE P job=4");
    pr_task_status_t st = status_of(p);
    CHECK_EQ(st.offset, 2);
    CHECK_EQ(st.max_jitter, 3);
    CHECK_EQ(st.deadline_misses, 1);
    CHECK_EQ(status_of(q).max_jitter, 0);
    CHECK_EQ(status_of(q).phase, 5);
}

/* A sporadic task (minimum interarrival 5) is released by pr_task_release
 * only: from outside the kernel at 1 (arrives), 3 (too early: refused,
 * earliest 6), 6 and 13. Its deadline defaults to the minimum interarrival
 * time. */
static void sporadic_early_release_refused(void)
{
    harness_reset(0);
    static const uint64_t work = TICKS(2);
    pr_task_attr_t a = attr_of("S", 3, &work);
    a.flags = PR_TASK_SPORADIC;
    a.min_interarrival = 5;
    pr_id_t s = create_ok(&a);
    keep_clock_until(30);
    CHECK_EQ(status_of(s).state, PR_TASK_WAIT_RELEASE);
    CHECK_EQ(status_of(s).deadline, 5);
    CHECK_EQ(pr_host_run_ticks(1), PR_HOST_REACHED);
    CHECK_EQ(pr_task_release(s), PR_OK);
    CHECK_EQ(pr_host_run_ticks(3), PR_HOST_REACHED);
    CHECK_EQ(pr_task_release(s), PR_EAGAIN);
    CHECK_EQ(pr_host_run_ticks(6), PR_HOST_REACHED);
    CHECK_EQ(pr_task_release(s), PR_OK);
    CHECK_EQ(pr_host_run_ticks(13), PR_HOST_REACHED);
    CHECK_EQ(pr_task_release(s), PR_OK);
    CHECK_EQ(pr_host_run_ticks(20), PR_HOST_REACHED);
    EXPECT_TRACE(EV_JOBS,
                 "0 RELEASE B job=1",
                 "1 ARRIVAL S delay=0", "1 RELEASE S job=1", "3 JOB_DONE S job=1",
                 "3 ARRIVAL S PR_EAGAIN earliest=6",
                 "6 ARRIVAL S delay=0", "6 RELEASE S job=2", "8 JOB_DONE S job=2",
                 "13 ARRIVAL S delay=0", "13 RELEASE S job=3", "15 JOB_DONE S job=3");
    pr_task_status_t st = status_of(s);
    CHECK_EQ(st.arrivals, 3);
    CHECK_EQ(st.releases_refused, 1);
    CHECK_EQ(st.releases_deferred, 0);
    CHECK_EQ(st.jobs_completed, 3);
}

/* With PR_TASK_DEFER_EARLY, early releases queue: asked at 1, 2 and 4, the
 * jobs arrive at 1, 6 and 11 (each one minimum interarrival time after the
 * one before). A job that overruns its deadline (3) misses, counted from
 * its arrival. */
static void sporadic_early_release_deferred(void)
{
    harness_reset(0);
    static const uint64_t work = TICKS(4);
    pr_task_attr_t a = attr_of("S", 3, &work);
    a.flags = PR_TASK_SPORADIC | PR_TASK_DEFER_EARLY;
    a.min_interarrival = 5;
    a.deadline = 3;
    pr_id_t s = create_ok(&a);
    keep_clock_until(30);
    CHECK_EQ(pr_host_run_ticks(1), PR_HOST_REACHED);
    CHECK_EQ(pr_task_release(s), PR_OK);
    CHECK_EQ(pr_host_run_ticks(2), PR_HOST_REACHED);
    CHECK_EQ(pr_task_release(s), PR_OK);
    CHECK_EQ(pr_host_run_ticks(4), PR_HOST_REACHED);
    CHECK_EQ(pr_task_release(s), PR_OK);
    CHECK_EQ(status_of(s).releases_pending, 2);
    CHECK_EQ(pr_host_run_ticks(20), PR_HOST_REACHED);
    EXPECT_TRACE(EV_JOBS,
                 "0 RELEASE B job=1",
                 "1 ARRIVAL S delay=0", "1 RELEASE S job=1",
                 "2 ARRIVAL S deferred to=6",
                 "4 ARRIVAL S deferred to=11", /* the call at 4 comes before tick 4's interrupt */
                 "4 MISS S job=1",
                 "5 JOB_DONE S job=1",
                 "6 ARRIVAL S delay=0", "6 RELEASE S job=2", "9 MISS S job=2", "10 JOB_DONE S job=2",
                 "11 ARRIVAL S delay=0", "11 RELEASE S job=3", "14 MISS S job=3", "15 JOB_DONE S job=3");
    pr_task_status_t st = status_of(s);
    CHECK_EQ(st.arrivals, 3);
    CHECK_EQ(st.releases_deferred, 2);
    CHECK_EQ(st.releases_pending, 0);
    CHECK_EQ(st.deadline_misses, 3);
}

/* A release deferred while the previous job's jittered release is still
 * due (J 3, seed 1: draws 1, 1): asked at 1 and at 2, before tick 2's
 * interrupt; job 1 arrives at 1, is released at 2; job 2 arrives at 6
 * (1 + 5) and is released at 7. */
static void deferred_release_behind_a_jittered_one(void)
{
    harness_reset(0);
    static const uint64_t work = TICKS(1);
    pr_task_attr_t a = attr_of("S", 3, &work);
    a.flags = PR_TASK_SPORADIC | PR_TASK_DEFER_EARLY;
    a.min_interarrival = 5;
    a.jitter = 3;
    a.jitter_seed = 1;
    pr_id_t s = create_ok(&a);
    keep_clock_until(20);
    CHECK_EQ(pr_host_run_ticks(1), PR_HOST_REACHED);
    CHECK_EQ(pr_task_release(s), PR_OK);
    CHECK_EQ(pr_host_run_ticks(2), PR_HOST_REACHED);
    CHECK_EQ(pr_task_release(s), PR_OK);
    CHECK_EQ(pr_host_run_ticks(12), PR_HOST_REACHED);
    EXPECT_TRACE(EV_JOBS,
                 "0 RELEASE B job=1",
                 "1 ARRIVAL S delay=1",
                 "2 ARRIVAL S deferred to=6",
                 "2 RELEASE S job=1", "3 JOB_DONE S job=1",
                 "6 ARRIVAL S delay=1", "7 RELEASE S job=2", "8 JOB_DONE S job=2");
    CHECK_EQ(status_of(s).max_jitter, 1);
    CHECK_EQ(status_of(s).deadline_misses, 0);
}

/* From the tick interrupt: at ticks 2 and 9 an interrupt releases S (more
 * urgent than the background task B), with jitter J 2, seed 1 (draws 0,
 * 1): S preempts B when the interrupt ends at 2, and at its release at 10. */
static pr_id_t irq_target;
static void release_at_2_and_9(void *arg)
{
    (void)arg;
    pr_ticks_t now = pr_ticks_now();
    if (now == 2 || now == 9)
        CHECK_EQ(pr_task_release(irq_target), PR_OK);
}

static void sporadic_released_from_an_interrupt(void)
{
    harness_reset(0);
    static const uint64_t work = TICKS(1), background = TICKS(12);
    pr_task_attr_t a = attr_of("S", 3, &work);
    a.flags = PR_TASK_SPORADIC;
    a.min_interarrival = 5;
    a.jitter = 2;
    a.jitter_seed = 1;
    irq_target = create_ok(&a);
    pr_task_attr_t b = attr_of("B", 1, &background);
    create_ok(&b);
    pr_host_set_tick_hook(release_at_2_and_9, NULL);
    CHECK_EQ(pr_host_run_ticks(16), PR_HOST_QUIESCENT); /* B done at 14 */
    pr_host_set_tick_hook(NULL, NULL);
    EXPECT_TRACE(EV_JOBS | EV(PR_EV_SWITCH),
                 "0 RELEASE B job=1", "0 SWITCH B<-idle",
                 "2 ARRIVAL S delay=0",
                 "2 RELEASE S job=1", "2 SWITCH S<-B", "3 JOB_DONE S job=1", "3 SWITCH B<-S",
                 "9 ARRIVAL S delay=1",
                 "10 RELEASE S job=2", "10 SWITCH S<-B", "11 JOB_DONE S job=2", "11 SWITCH B<-S",
                 "14 JOB_DONE B job=1", "14 SWITCH idle<-B");
}

/* Same seed, same draws: two runs give the same releases. */
static void same_seed_same_releases(void)
{
    long first[6], second[6];
    for (int run = 0; run < 2; run++) {
        harness_reset(0);
        static const uint64_t work = TICKS(1);
        pr_task_attr_t a = attr_of("P", 2, &work);
        a.period = 7;
        a.jitter = 6;
        a.jitter_seed = 12345;
        create_ok(&a);
        CHECK_EQ(pr_host_run_ticks(42), PR_HOST_REACHED);
        for (size_t k = 0; k < 6; k++)
            (run == 0 ? first : second)[k] = trace_tick_of(PR_EV_RELEASE, PR_TRACE_NONE, k);
    }
    for (size_t k = 0; k < 6; k++) {
        CHECK_EQ(first[k], second[k]);
        CHECK_EQ(first[k] >= (long)(7 * k) && first[k] <= (long)(7 * k + 6), 1);
    }
}

/* Attributes refused with PR_EINVAL, nothing created; pr_task_release on a
 * task that is not sporadic, or done, is PR_ESTATE. */
static void bad_attributes_and_release_errors(void)
{
    harness_reset(0);
    static const uint64_t work = TICKS(1);
    pr_task_attr_t base = attr_of("X", 1, &work);
    pr_id_t id = 77;
    struct { pr_ticks_t period, phase, deadline, mit, jitter; unsigned flags; pr_ticks_t offset; } bad[] = {
        {10, 0, 0, 0, 10, 0, 0},                          /* jitter not below the period */
        {10, 0, 4, 0, 4, 0, 0},                           /* jitter not below the deadline */
        {0, 0, 0, 0, 0, PR_TASK_SPORADIC, 0},             /* sporadic without a minimum interarrival */
        {10, 0, 0, 5, 0, PR_TASK_SPORADIC, 0},            /* sporadic with a period */
        {0, 3, 0, 5, 0, PR_TASK_SPORADIC, 0},             /* sporadic with a phase */
        {0, 0, 6, 5, 0, PR_TASK_SPORADIC, 0},             /* deadline beyond the minimum interarrival */
        {0, 0, 0, 5, 5, PR_TASK_SPORADIC, 0},             /* jitter not below the minimum interarrival */
        {10, 0, 0, 5, 0, 0, 0},                           /* a minimum interarrival without sporadic */
        {10, 0, 0, 0, 0, PR_TASK_DEFER_EARLY, 0},         /* deferral without sporadic */
        {10, 0, 0, 0, 0, 8, 0},                           /* unknown flag */
        {10, 0, 0, 0, (pr_ticks_t)UINT32_MAX + 1, 0, 0},  /* jitter beyond 32 bits */
        {10, 0, 0, 0, 3, 0, 7},                           /* offset + jitter not below the period */
        {10, 0, 5, 0, 0, 0, 5},                           /* offset not below the deadline */
        {0, 0, 4, 5, 0, PR_TASK_SPORADIC, 4},             /* sporadic: the same, with its deadline */
        {10, 0, 0, 0, 0, 0, (pr_ticks_t)UINT32_MAX + 1},  /* offset beyond 32 bits */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        pr_task_attr_t a = base;
        a.period = bad[i].period;
        a.phase = bad[i].phase;
        a.deadline = bad[i].deadline;
        a.min_interarrival = bad[i].mit;
        a.jitter = bad[i].jitter;
        a.flags = bad[i].flags;
        a.offset = bad[i].offset;
        CHECK_EQ(pr_task_create(&a, &id), PR_EINVAL);
        CHECK_EQ(id, 77);
    }
    pr_task_attr_t one = base;
    pr_id_t once = create_ok(&one); /* one job, done at 1 */
    pr_task_attr_t per = base;
    per.period = 10;
    pr_id_t p = create_ok(&per);
    CHECK_EQ(pr_task_release(p), PR_ESTATE);
    CHECK_EQ(pr_task_release(-1), PR_EBADID);
    CHECK_EQ(pr_task_release(PR_CONFIG_MAX_TASKS), PR_EBADID);
    CHECK_EQ(pr_task_release(PR_CONFIG_MAX_TASKS - 1), PR_ENOTALLOC);
    CHECK_EQ(pr_host_run_ticks(5), PR_HOST_REACHED);
    CHECK_EQ(status_of(once).state, PR_TASK_DONE);
    CHECK_EQ(pr_task_release(once), PR_ESTATE);
    CHECK_EQ(trace_count(PR_EV_ARRIVAL, PR_TRACE_NONE), 0);
}

/* The interpreter draws each job's ratio r in [65536 - spread, 65536]
 * (spread 32768, seed 1: 40985, 65010, 60719, 62629) and runs COMPUTE 4
 * ticks as floor(4 ms * r / 65536): 2.501525, 3.967895, 3.705993 and
 * 3.82257 ms. Jobs arrive every 10 ticks. */
static void script_jobs_draw_their_execution_times(void)
{
    harness_reset(0);
    static const pr_action_t body[] = {{PR_ACT_COMPUTE, 0, 0, 0, TICKS(4)}};
    static pr_script_t sc;
    sc = SCRIPT(body);
    sc.exec_spread = 32768;
    sc.exec_state = 1;
    CHECK_EQ(pr_script_check(&sc, NULL), PR_OK);
    pr_id_t p = periodic_task("P", 2, 10, 0, 0, pr_script_body, &sc);
    CHECK_EQ(pr_host_run_ticks(40), PR_HOST_REACHED);
    EXPECT_TRACE(EV(PR_EV_JOB_DONE), "2.502 JOB_DONE P job=1", "13.968 JOB_DONE P job=2",
                 "23.706 JOB_DONE P job=3", "33.823 JOB_DONE P job=4");
    CHECK_EQ(status_of(p).cpu_time, 2501525u + 3967895u + 3705993u + 3822570u);
    CHECK_EQ(sc.exec_ratio, 62629);
    pr_script_t too_wide = sc;
    too_wide.exec_spread = 65537;
    uint32_t bad = 9;
    CHECK_EQ(pr_script_check(&too_wide, &bad), PR_EINVAL);
}

/* A RELEASE action in a scenario interrupt (at 3, then every 4 ticks)
 * releases the sporadic task S (minimum interarrival 5): the arrivals at 3
 * and 11 are taken; those at 7 and 15 are refused, counted as timeouts of
 * the interrupt's script. */
static void release_action_in_an_interrupt(void)
{
    harness_reset(0);
    static const uint64_t work = TICKS(1);
    pr_task_attr_t a = attr_of("S", 3, &work);
    a.flags = PR_TASK_SPORADIC;
    a.min_interarrival = 5;
    pr_id_t s = create_ok(&a);
    keep_clock_until(20);
    static pr_action_t once[1];
    once[0] = (pr_action_t){PR_ACT_RELEASE, s, 0, 0, 0};
    static pr_script_interrupt_t irq;
    irq = (pr_script_interrupt_t){3, 4, SCRIPT(once), 0};
    CHECK_EQ(pr_script_check_once(&irq.script, NULL), PR_OK);
    static pr_script_interrupts_t irqs;
    irqs = (pr_script_interrupts_t){&irq, 1};
    pr_host_set_tick_hook(pr_script_interrupts_tick, &irqs);
    CHECK_EQ(pr_host_run_ticks(17), PR_HOST_REACHED);
    pr_host_set_tick_hook(NULL, NULL);
    EXPECT_TRACE(EV(PR_EV_ARRIVAL) | EV(PR_EV_RELEASE),
                 "0 RELEASE B job=1",
                 "3 ARRIVAL S delay=0", "3 RELEASE S job=1",
                 "7 ARRIVAL S PR_EAGAIN earliest=8",
                 "11 ARRIVAL S delay=0", "11 RELEASE S job=2",
                 "15 ARRIVAL S PR_EAGAIN earliest=16");
    CHECK_EQ(irq.fired, 4);
    CHECK_EQ(irq.script.timeouts, 2);
    CHECK_EQ(status_of(s).releases_refused, 2);
}

HARNESS_MAIN(TEST_CASE(script_jobs_draw_their_execution_times), TEST_CASE(phase_offset_delays_each_release),
             TEST_CASE(release_action_in_an_interrupt),
             TEST_CASE(jittered_releases_follow_the_seeded_draws),
             TEST_CASE(deadline_counts_from_the_arrival),
             TEST_CASE(sporadic_early_release_refused),
             TEST_CASE(sporadic_early_release_deferred),
             TEST_CASE(deferred_release_behind_a_jittered_one),
             TEST_CASE(sporadic_released_from_an_interrupt),
             TEST_CASE(same_seed_same_releases),
             TEST_CASE(bad_attributes_and_release_errors))
