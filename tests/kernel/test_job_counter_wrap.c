/*
 * A periodic task keeps being released when its 32-bit job counters wrap
 * (after 2^32 jobs: 49.7 days at one job per millisecond). Release and
 * deadline ticks are kept as 64-bit ticks, never computed from a job
 * number: a release computed from a wrapped number would be armed far from
 * now and never fire, and the task would silently stop.
 *
 * Running 2^32 jobs is out of reach for a test, so this one is white-box:
 * after two jobs it moves the task's counters (released, completed, the job
 * the deadline timer checks) to two jobs before the wrap, all by the same
 * amount, as if 2^32 - 4 jobs had run, and checks that the releases, job
 * ends and deadline checks go on every period across the wrap.
 */
#include "harness.h"
#include "../../kernel/core/kernel_impl.h"

#define EV_JOBS (EV(PR_EV_RELEASE) | EV(PR_EV_JOB_DONE) | EV(PR_EV_DEADLINE_MISS))

static void half_tick_jobs(void *arg)
{
    (void)arg;
    for (;;) {
        pr_host_consume(TICKS(1) / 2);
        pr_task_wait_period();
    }
}

static void releases_go_on_across_the_wrap(void)
{
    harness_reset(0);
    pr_id_t p = periodic_task("P", 3, 2, 0, 2, half_tick_jobs, NULL);
    CHECK_EQ(pr_host_run_ticks(3), PR_HOST_REACHED); /* jobs 1 and 2 released at 0 and 2 */
    pr_task_t *t = &pr_tasks[p];
    CHECK_EQ(t->released, 2);
    CHECK_EQ(t->completed, 2); /* job 2 ended at 2.5 */
    uint32_t shift = UINT32_MAX - 3u; /* released becomes 2^32 - 2: the wrap is two jobs away */
    t->released += shift;
    t->completed += shift;
    t->deadline_job += shift;
    CHECK_EQ(pr_host_run_ticks(11), PR_HOST_REACHED);
    pr_task_status_t st = status_of(p);
    CHECK_EQ(st.jobs_released, 2u); /* 2^32 - 2 + four releases (4, 6, 8, 10), modulo 2^32 */
    CHECK_EQ(st.jobs_completed, 2u);
    CHECK_EQ(st.deadline_misses, 0u);
    CHECK_EQ(trace_count(PR_EV_RELEASE, p), 6);
    CHECK_EQ(trace_count(PR_EV_DEADLINE_MISS, PR_TRACE_NONE), 0);
    EXPECT_TRACE(EV_JOBS,
                 "0 RELEASE P job=1",
                 "0.5 JOB_DONE P job=1",
                 "2 RELEASE P job=2",
                 "2.5 JOB_DONE P job=2",
                 "4 RELEASE P job=-1",
                 "4.5 JOB_DONE P job=-1",
                 "6 RELEASE P job=0",
                 "6.5 JOB_DONE P job=0",
                 "8 RELEASE P job=1",
                 "8.5 JOB_DONE P job=1",
                 "10 RELEASE P job=2",
                 "10.5 JOB_DONE P job=2");
}

HARNESS_MAIN(TEST_CASE(releases_go_on_across_the_wrap))
