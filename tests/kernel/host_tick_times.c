/*
 * The host port finds each next tick's time with one addition and a carry
 * (next_tick_advance in ports/host/clock.c), not a division: at rates that
 * do not divide 10^9 the times it takes its ticks at must still be exactly
 * pr_host_tick_time(k) = floor(k * 10^9 / hz). A task that watches the tick
 * count while it computes sees each tick taken at that time. Host only.
 */
#include "harness.h"

static pr_ticks_t last_seen;
static long mismatches;

/* Computes in steps of 1 ns and notes the time at which each new tick
 * count appears: the instant of that tick's interrupt. */
static void watcher(void *arg)
{
    pr_ticks_t until = *(const pr_ticks_t *)arg;
    last_seen = pr_ticks_now();
    while (last_seen < until) {
        pr_host_consume(1);
        pr_ticks_t now = pr_ticks_now();
        if (now != last_seen) {
            /* the tick came at the instant it was due: at most 1 ns before now */
            uint64_t due = pr_host_tick_time(now);
            if (!(due <= pr_host_now() && pr_host_now() - due <= 1))
                mismatches++;
            last_seen = now;
        }
    }
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
