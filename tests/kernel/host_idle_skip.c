/*
 * The host port counts an idle stretch's ticks at once (skip_idle_ticks in
 * ports/host/clock.c, over pr_kernel_skip_ticks): a phase or a delay of
 * 10^12 ticks is one step, with the same events, times and tick count as
 * taking every tick. Host only: QEMU takes every tick of a stretch.
 */
#include "harness.h"
#include "priora/port.h"

#define FAR 1000000000000ull /* 10^12 ticks: about 32 years at 1000 Hz */

static void one_tick(void *arg)
{
    (void)arg;
    pr_host_consume(TICKS(1));
}

static void delay_far_then_tick(void *arg)
{
    (void)arg;
    pr_host_consume(TICKS(1));
    CHECK_EQ(pr_task_delay((pr_timeout_t)4000000000u), PR_OK);
    pr_host_consume(TICKS(1));
}

static pr_ticks_t ticks_counted(void)
{
    pr_kernel_stats_t stats;
    pr_kernel_stats(&stats);
    return stats.ticks;
}

static void a_far_phase_is_one_step(void)
{
    harness_reset(0);
    pr_id_t a = task_at("A", 3, FAR, one_tick, NULL);
    CHECK_EQ(pr_host_run_until(UINT64_MAX / 2), PR_HOST_QUIESCENT);
    CHECK_EQ(trace_tick_of(PR_EV_RELEASE, a, 0), (long)FAR);
    CHECK_EQ(trace_tick_of(PR_EV_TASK_EXIT, a, 0), (long)FAR + 1);
    CHECK_EQ(pr_host_now(), TICKS(FAR + 1));
    CHECK_EQ(ticks_counted(), FAR + 1); /* every tick to the exit's, as taken one by one */
}

static void a_long_delay_is_one_step(void)
{
    harness_reset(0);
    pr_id_t a = task_at("A", 3, 0, delay_far_then_tick, NULL);
    CHECK_EQ(pr_host_run_until(UINT64_MAX / 2), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV(PR_EV_DELAY) | EV(PR_EV_DELAY_END) | EV(PR_EV_TASK_EXIT),
                 "1 DELAY A -294967296", /* the record's value is an int32 */
                 "4000000001 DELAY_END A",
                 "4000000002 TASK_EXIT A");
    CHECK_EQ(trace_count(PR_EV_DELAY_END, a), 1);
}

/* The driver's limit stops a skip: the ticks at or after it are taken in the
 * next run, and the count is the same as with every tick taken. */
static void the_limit_stops_a_skip(void)
{
    harness_reset(0);
    pr_id_t a = task_at("A", 3, FAR, one_tick, NULL);
    CHECK_EQ(pr_host_run_ticks(1000), PR_HOST_REACHED);
    CHECK_EQ(pr_host_now(), TICKS(1000));
    CHECK_EQ(ticks_counted(), 999); /* the tick at the limit belongs to the next run */
    CHECK_EQ(pr_host_run_ticks(FAR / 2), PR_HOST_REACHED);
    CHECK_EQ(ticks_counted(), FAR / 2 - 1);
    CHECK_EQ(pr_host_run_until(UINT64_MAX / 2), PR_HOST_QUIESCENT);
    CHECK_EQ(trace_tick_of(PR_EV_RELEASE, a, 0), (long)FAR);
    CHECK_EQ(ticks_counted(), FAR + 1);
}

static int hook_calls;
static void count_hook(void *arg)
{
    (void)arg;
    hook_calls++;
}

/* With a tick hook, the driver's code runs at every tick: none is skipped. */
static void a_tick_hook_sees_every_tick(void)
{
    harness_reset(0);
    hook_calls = 0;
    pr_host_set_tick_hook(count_hook, NULL);
    pr_id_t a = task_at("A", 3, 500, one_tick, NULL);
    CHECK_EQ(pr_host_run_until(UINT64_MAX / 2), PR_HOST_QUIESCENT);
    CHECK_EQ(trace_tick_of(PR_EV_RELEASE, a, 0), 500);
    CHECK_EQ(hook_calls, 501);
    CHECK_EQ(ticks_counted(), 501); /* as a_far_phase_is_one_step counts its skipped ticks */
}

/* Outside the idle task, or over a timer, the kernel refuses to skip and
 * changes nothing. */
static void a_skip_over_a_timer_is_refused(void)
{
    harness_reset(0);
    task_at("A", 3, 10, one_tick, NULL);
    CHECK_EQ(pr_kernel_next_timer(), 10);
    CHECK_EQ(pr_kernel_skip_ticks(1), PR_EINVAL); /* from the driver, outside any task */
    CHECK_EQ(ticks_counted(), 0);
    CHECK_EQ(pr_host_run_until(UINT64_MAX / 2), PR_HOST_QUIESCENT);
    CHECK_EQ(pr_kernel_next_timer(), 0); /* nothing armed any more */
}

HARNESS_MAIN(TEST_CASE(a_far_phase_is_one_step), TEST_CASE(a_long_delay_is_one_step),
             TEST_CASE(the_limit_stops_a_skip), TEST_CASE(a_tick_hook_sees_every_tick),
             TEST_CASE(a_skip_over_a_timer_is_refused))
