/*
 * The host port finds each next tick's time with one addition and a carry
 * (next_tick_advance in ports/host/clock.c), not a division: at rates that
 * do not divide 10^9 the times it takes its ticks at must still be exactly
 * pr_host_tick_time(k) = floor(k * 10^9 / hz). A task computing up to each
 * tick's time sees it come exactly then, never a ns early or late. Host only.
 */
#include "harness.h"

static pr_ticks_t last_seen;
static long mismatches;

/* Computes up to each tick's time, where the count must still be the one
 * before (the tick has not come early), then 1 ns more, where it must be
 * that tick's (it came at its time). Two steps a tick, whatever the rate. */
static void watcher(void *arg)
{
    pr_ticks_t until = *(const pr_ticks_t *)arg;
    for (pr_ticks_t k = pr_ticks_now() + 1; k <= until; k++) {
        uint64_t due = pr_host_tick_time(k);
        pr_host_consume(due - pr_host_now());
        if (pr_ticks_now() != k - 1)
            mismatches++;
        pr_host_consume(1);
        if (pr_ticks_now() != k || pr_host_now() != due + 1)
            mismatches++;
    }
    last_seen = pr_ticks_now();
}

static void ticks_at(uint32_t hz, pr_ticks_t ticks)
{
    pr_kernel_config_t config = {.tick_hz = hz, .quantum = 0};
    CHECK_EQ(pr_host_init(&config), PR_OK);
    mismatches = 0;
    task_at("W", 1, 0, watcher, &ticks);
    CHECK_EQ(pr_host_run_until(pr_host_tick_time(ticks) + 10), PR_HOST_QUIESCENT);
    CHECK_EQ(last_seen, ticks);
    CHECK_EQ(mismatches, 0);
}

static void each_tick_comes_at_its_exact_time(void)
{
    ticks_at(7, 50);          /* 142857142.857... ns apart */
    ticks_at(3000, 3500);     /* 333333.333... ns: the carry every third tick */
    ticks_at(999983, 2000);   /* a prime rate near 1 MHz */
    ticks_at(1000, 20);       /* exact: no carry at all */
}

HARNESS_MAIN(TEST_CASE(each_tick_comes_at_its_exact_time))
