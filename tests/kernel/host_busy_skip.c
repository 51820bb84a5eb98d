/*
 * While a task computes, the host port counts the ticks that would change
 * nothing at once (skip_quiet_ticks in ports/host/clock.c, over
 * pr_kernel_skip_quiet_ticks) instead of taking them one by one. A tick
 * hook turns that off (its code runs at every tick), so the same scenario
 * run with an empty hook takes every tick: both runs must give the same
 * trace, byte for byte, the same time and the same counts. Host only.
 */
#include <stdlib.h>
#include "harness.h"
#include "priora/port.h"

static void empty_hook(void *arg) { (void)arg; }

/* What a run leaves: its trace, its end, the kernel's counts. */
typedef struct outcome {
    pr_trace_record_t *records;
    size_t count;
    uint64_t now;
    pr_kernel_stats_t stats;
    pr_ticks_t at_limit[1000]; /* the tick count at the end of each slice */
    int slices;
} outcome_t;

static void keep(outcome_t *o)
{
    const pr_trace_record_t *recs = pr_host_trace(&o->count);
    o->records = malloc((o->count + 1) * sizeof *recs);
    memcpy(o->records, recs, o->count * sizeof *recs);
    o->now = pr_host_now();
    pr_kernel_stats(&o->stats);
}

static void check_same(const outcome_t *skipped, const outcome_t *every)
{
    CHECK_EQ(skipped->count, every->count);
    CHECK(skipped->count == every->count &&
          memcmp(skipped->records, every->records, every->count * sizeof *every->records) == 0);
    CHECK_EQ(skipped->now, every->now);
    CHECK_EQ(skipped->stats.ticks, every->stats.ticks);
    CHECK_EQ(skipped->stats.context_switches, every->stats.context_switches);
    CHECK_EQ(skipped->stats.priority_changes, every->stats.priority_changes);
    CHECK_EQ(skipped->slices, every->slices);
    for (int i = 0; i < every->slices && i < skipped->slices; i++)
        CHECK_EQ(skipped->at_limit[i], every->at_limit[i]);
}

/* A long computation under periodic tasks whose timers share its wheel
 * slots with timers of later laps (periods 70 and 64 + 64: the wheel has
 * PR_CONFIG_TIMER_SLOTS 64), a mutex and a delay that end mid-step, and
 * computations that end between ticks and at tick instants. */
static pr_action_t long_actions[] = {A_COMPUTE(150), A_LOCK(0), A_COMPUTE(40), A_UNLOCK(0), A_COMPUTE(100)};
static pr_action_t short_actions[] = {A_LOCK(0), A_COMPUTE(2), A_UNLOCK(0), A_WAIT_PERIOD};
static pr_action_t lap_actions[] = {{PR_ACT_COMPUTE, 0, 0, 0, TICKS(5) / 2}, A_WAIT_PERIOD};
static pr_action_t delay_actions[] = {A_DELAY(128), A_COMPUTE(3), A_DELAY(64), {PR_ACT_COMPUTE, 0, 0, 0, 1}};
static pr_script_t long_script, short_script, lap_script, delay_script;

static void build(pr_ticks_t quantum)
{
    harness_reset(quantum);
    pr_id_t m = mutex("M", PR_PROTOCOL_PIP);
    CHECK_EQ(m, 0);
    long_script = SCRIPT(long_actions);
    short_script = SCRIPT(short_actions);
    lap_script = SCRIPT(lap_actions);
    delay_script = SCRIPT(delay_actions);
    script_task("Long", 9, 0, &long_script);
    pr_task_attr_t attr = {.name = "Short", .priority = 3, .entry = pr_script_body, .arg = &short_script,
                           .period = 70, .phase = 5, .watchdog = PR_NO_TASK};
    task_with(&attr);
    attr = (pr_task_attr_t){.name = "Lap", .priority = 4, .entry = pr_script_body, .arg = &lap_script,
                            .period = 128, .phase = 1, .deadline = 64, .watchdog = PR_NO_TASK};
    task_with(&attr);
    script_task("Delay", 2, 0, &delay_script);
}

static pr_ticks_t ticks_counted(void)
{
    pr_kernel_stats_t stats;
    pr_kernel_stats(&stats);
    return stats.ticks;
}

/* The scenario in slices of 1 to 15 ticks (the driver's limit stops a
 * skip: the tick at the limit is the next slice's), or in one run (slice
 * 0). */
static void run(outcome_t *o, int hook, pr_ticks_t quantum, int slice)
{
    o->slices = 0;
    build(quantum);
    if (hook)
        pr_host_set_tick_hook(empty_hook, NULL);
    if (slice == 0) {
        CHECK_EQ(pr_host_run_ticks(1000), PR_HOST_REACHED);
    } else {
        for (pr_ticks_t t = 0, k = 0; t < 1000; k++) {
            t += (pr_ticks_t)(1 + (k * 7 + (unsigned)slice) % 15);
            pr_host_run_ticks(t < 1000 ? t : 1000);
            o->at_limit[o->slices++] = ticks_counted();
            if (t >= 1000)
                break;
        }
    }
    keep(o);
}

static void compare(pr_ticks_t quantum, int slice)
{
    static outcome_t skipped, every;
    run(&skipped, 0, quantum, slice);
    run(&every, 1, quantum, slice);
    CHECK(skipped.count > 100); /* the scenario ran */
    check_same(&skipped, &every);
    free(skipped.records);
    free(every.records);
}

static void a_skipped_run_is_the_run_that_takes_every_tick(void) { compare(0, 0); }

static void slices_end_skips_as_they_end_ticks(void)
{
    for (int slice = 1; slice <= 15; slice++)
        compare(0, slice);
}

/* A round-robin quantum gives every tick work: nothing is skipped, and the
 * runs are the same too. */
static void a_quantum_skips_nothing(void) { compare(2, 0); }

/* The kernel's call itself: from a task, it counts up to the tick before
 * the next timer due, and a lap of the wheel at most; from the driver,
 * with a quantum, or for none at all, it counts nothing. */
static pr_ticks_t counted[4], before[4];

static void ask(void *arg)
{
    (void)arg;
    pr_host_consume(TICKS(1) / 2); /* mid-tick 0: the next tick is 1 */
    before[0] = ticks_counted();
    counted[0] = pr_kernel_skip_quiet_ticks(0);
    counted[1] = pr_kernel_skip_quiet_ticks(1000); /* stops before tick 10, the release below */
    before[1] = ticks_counted();
    /* The kernel's count is now ahead of the port's clock: this test ends here. */
}

static void the_call_counts_up_to_the_next_timer(void)
{
    harness_reset(0);
    task_at("A", 3, 0, ask, NULL);
    task_at("B", 5, 10, ask, NULL);
    CHECK_EQ(pr_kernel_skip_quiet_ticks(5), 0); /* from the driver, outside any task */
    CHECK_EQ(ticks_counted(), 0);
    pr_host_run_ticks(1);
    CHECK_EQ(before[0], 0);
    CHECK_EQ(counted[0], 0);
    CHECK_EQ(counted[1], 9); /* ticks 1 to 9; tick 10 releases B */
    CHECK_EQ(before[1], 9);
}

static void ask_far(void *arg)
{
    (void)arg;
    counted[2] = pr_kernel_skip_quiet_ticks(1000000); /* no timer armed: one lap of the wheel */
}

static void the_call_looks_at_one_lap_at_most(void)
{
    harness_reset(0);
    task_at("A", 3, 0, ask_far, NULL);
    pr_host_run_ticks(1);
    CHECK_EQ(counted[2], PR_CONFIG_TIMER_SLOTS);
}

static void ask_with_quantum(void *arg)
{
    (void)arg;
    counted[3] = pr_kernel_skip_quiet_ticks(5);
}

static void a_quantum_refuses_the_call(void)
{
    harness_reset(2);
    task_at("A", 3, 0, ask_with_quantum, NULL);
    pr_host_run_ticks(1);
    CHECK_EQ(counted[3], 0);
    CHECK_EQ(ticks_counted(), 0);
}

HARNESS_MAIN(TEST_CASE(a_skipped_run_is_the_run_that_takes_every_tick),
             TEST_CASE(slices_end_skips_as_they_end_ticks), TEST_CASE(a_quantum_skips_nothing),
             TEST_CASE(the_call_counts_up_to_the_next_timer), TEST_CASE(the_call_looks_at_one_lap_at_most),
             TEST_CASE(a_quantum_refuses_the_call))
