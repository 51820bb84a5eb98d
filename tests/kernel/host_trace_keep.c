/*
 * A trace kept for some events only (pr_host_trace_keep, over
 * pr_trace_drain_events): the records of those events, exactly as the whole
 * trace has them (time, fields, sequence number), and every LOST record;
 * nothing else. The run is long enough for the ring to be drained many
 * times while it runs. Host only; built twice, the second time as
 * host_trace_keep_merged, against the host port without its cost hook,
 * where the kernel merges a mutex's hand-off and an inheriting block into
 * one slot each (trace_impl.h) and the filter splits their records.
 */
#include <stdlib.h>
#include "harness.h"

static pr_action_t low_actions[] = {A_LOCK(0), A_COMPUTE(3), A_UNLOCK(0), A_COMPUTE(1), A_WAIT_PERIOD};
static pr_action_t high_actions[] = {A_COMPUTE(1), A_LOCK(0), A_COMPUTE(1), A_UNLOCK(0), A_WAIT_PERIOD};
static pr_script_t low_script, high_script;

static void build(void)
{
    harness_reset(0);
    CHECK_EQ(mutex("M", PR_PROTOCOL_PIP), 0);
    low_script = SCRIPT(low_actions);
    high_script = SCRIPT(high_actions);
    pr_task_attr_t attr = {.name = "Low", .priority = 9, .entry = pr_script_body, .arg = &low_script, .period = 7, .watchdog = PR_NO_TASK};
    task_with(&attr);
    attr = (pr_task_attr_t){.name = "High", .priority = 3, .entry = pr_script_body, .arg = &high_script,
                            .period = 5, .phase = 1, .watchdog = PR_NO_TASK};
    task_with(&attr);
}

static const pr_trace_record_t *run(uint64_t kept, size_t *count)
{
    build();
    if (kept != PR_TRACE_ALL)
        pr_host_trace_keep(kept);
    CHECK_EQ(pr_host_run_ticks(3000), PR_HOST_REACHED);
    return pr_host_trace(count);
}

static pr_trace_record_t *copy(const pr_trace_record_t *recs, size_t n)
{
    pr_trace_record_t *c = malloc((n + 1) * sizeof *c);
    memcpy(c, recs, n * sizeof *c);
    return c;
}

/* The records of `all` a filter keeps, in order. */
static size_t expected(const pr_trace_record_t *all, size_t n, uint64_t kept, pr_trace_record_t *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if ((kept >> all[i].event & 1) || all[i].event == PR_EV_LOST)
            out[k++] = all[i];
    return k;
}

static void check_filter(uint64_t kept)
{
    size_t n, m;
    const pr_trace_record_t *whole = run(PR_TRACE_ALL, &n);
    pr_trace_record_t *all = copy(whole, n);
    CHECK(n > 4 * PR_CONFIG_TRACE_RECORDS); /* drained while it ran, many times */
    pr_trace_record_t *want = malloc((n + 1) * sizeof *want);
    size_t k = expected(all, n, kept, want);
    const pr_trace_record_t *got = run(kept, &m);
    CHECK_EQ(m, k);
    CHECK(m == k && memcmp(got, want, k * sizeof *want) == 0);
    free(all);
    free(want);
}

static void a_filter_keeps_its_events_as_the_whole_trace_has_them(void)
{
    check_filter(EV(PR_EV_RELEASE) | EV(PR_EV_JOB_DONE) | EV(PR_EV_BLOCK) | EV(PR_EV_WAKE));
}

/* SWITCH records name the task switched out from the drain's memory of the
 * current task, which the left-out SWITCHes still update. */
static void switches_kept_alone_name_both_tasks(void) { check_filter(EV(PR_EV_SWITCH)); }

static void everything_but_the_switches(void) { check_filter(PR_TRACE_ALL & ~EV(PR_EV_SWITCH)); }

static void no_event_keeps_nothing(void)
{
    size_t n;
    run(0, &n);
    CHECK_EQ(n, 0);
    CHECK_EQ(pr_trace_lost(), 0);
}

/* A filter changed between drains, in the middle of a run (from the tick
 * interrupt at tick 1500): the records drained before the change by the
 * old one, those after by the new. The SWITCHes left out before the change
 * still told the drain which task runs, so the first SWITCH kept after it
 * names the task it switches out. */
static struct {
    uint64_t then;   /* the filter from tick 1500 on */
    size_t boundary; /* records written before */
} change;

static void change_filter(void *arg)
{
    (void)arg;
    pr_kernel_stats_t stats;
    pr_kernel_stats(&stats);
    if (stats.ticks != 1500)
        return;
    pr_host_trace(&change.boundary); /* drains every record written so far */
    pr_host_trace_keep(change.then);
}

static void a_filter_changed_mid_run(void)
{
    size_t n, m;
    uint64_t before = PR_TRACE_ALL & ~EV(PR_EV_SWITCH);
    build();
    change.then = PR_TRACE_ALL;
    pr_host_set_tick_hook(change_filter, NULL);
    CHECK_EQ(pr_host_run_ticks(3000), PR_HOST_REACHED);
    const pr_trace_record_t *whole = pr_host_trace(&n);
    pr_trace_record_t *all = copy(whole, n);
    size_t boundary = change.boundary;
    CHECK(boundary > 0 && boundary < n);
    pr_trace_record_t *want = malloc((n + 1) * sizeof *want);
    size_t k = expected(all, boundary, before, want);
    k += expected(all + boundary, n - boundary, PR_TRACE_ALL, want + k);

    build();
    pr_host_trace_keep(before);
    pr_host_set_tick_hook(change_filter, NULL);
    CHECK_EQ(pr_host_run_ticks(3000), PR_HOST_REACHED);
    const pr_trace_record_t *got = pr_host_trace(&m);
    CHECK_EQ(m, k);
    CHECK(m == k && memcmp(got, want, k * sizeof *want) == 0);
    free(all);
    free(want);
}

/* The filter lasts until the next pr_host_init, which keeps everything. */
static void a_new_kernel_keeps_everything(void)
{
    size_t n, m;
    run(EV(PR_EV_RELEASE), &n);
    const pr_trace_record_t *whole = run(PR_TRACE_ALL, &m);
    pr_trace_record_t *all = copy(whole, m);
    CHECK(m > n);
    uint32_t gaps = 0;
    for (size_t i = 0; i < m; i++)
        gaps += all[i].seq != (uint32_t)i;
    CHECK_EQ(gaps, 0);
    free(all);
}

HARNESS_MAIN(TEST_CASE(a_filter_keeps_its_events_as_the_whole_trace_has_them),
             TEST_CASE(switches_kept_alone_name_both_tasks), TEST_CASE(everything_but_the_switches),
             TEST_CASE(no_event_keeps_nothing), TEST_CASE(a_filter_changed_mid_run),
             TEST_CASE(a_new_kernel_keeps_everything))
