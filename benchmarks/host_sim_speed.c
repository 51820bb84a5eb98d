/*
 * Benchmark (not a test): how fast the host port simulates.
 *
 * A ten-task periodic set without resources (periods 10..100 ticks, total
 * utilisation 0.7, rate-monotonic priorities) runs through the scenario
 * interpreter for a long horizon; the program prints simulated jobs and
 * trace events per second of wall time, with tracing collected as a user
 * would (the host port drains the ring into memory).
 *
 *   build/benchmarks/host_sim_speed [ticks]     (default 2000000)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "priora/host.h"
#include "priora/scenario.h"

#define NTASKS 10
#define TICK_NS 1000000u

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    pr_ticks_t horizon = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000000u;
    static const pr_ticks_t periods[NTASKS] = {10, 20, 25, 40, 50, 50, 80, 100, 100, 100};
    static pr_action_t actions[NTASKS][1];
    static pr_script_t scripts[NTASKS];
    pr_kernel_config_t cfg = {.tick_hz = 1000, .quantum = 0};

    if (pr_host_init(&cfg) != PR_OK)
        return 1;
    for (int i = 0; i < NTASKS; i++) {
        /* each task takes 7% of the CPU: 0.07 * period ticks of compute */
        actions[i][0] = (pr_action_t){PR_ACT_COMPUTE, 0, 0, 0, periods[i] * TICK_NS * 7 / 100};
        scripts[i] = (pr_script_t){actions[i], 1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        pr_task_attr_t attr;
        pr_task_attr_init(&attr);
        attr.priority = PR_PRIO_MAX - i; /* shorter period, more urgent */
        attr.period = periods[i];
        attr.entry = pr_script_body;
        attr.arg = &scripts[i];
        pr_id_t id;
        if (pr_task_create(&attr, &id) != PR_OK)
            return 1;
    }

    double start = seconds();
    pr_host_run_ticks(horizon);
    size_t events;
    pr_host_trace(&events);
    double wall = seconds() - start;

    uint64_t jobs = 0, misses = 0;
    for (int i = 0; i < NTASKS; i++) {
        pr_task_status_t st;
        pr_task_status(i, &st);
        jobs += st.jobs_completed;
        misses += st.deadline_misses;
    }
    pr_kernel_stats_t ks;
    pr_kernel_stats(&ks);
    printf("host simulation speed: 10 periodic tasks, U = 0.70, %llu ticks\n", (unsigned long long)horizon);
    printf("  jobs completed   %llu (misses %llu)\n", (unsigned long long)jobs, (unsigned long long)misses);
    printf("  trace events     %zu\n", events);
    printf("  context switches %llu\n", (unsigned long long)ks.context_switches);
    printf("  wall time        %.3f s\n", wall);
    printf("  jobs per second  %.0f\n", (double)jobs / wall);
    printf("  events per second %.0f\n", (double)events / wall);
    printf("  ticks per second %.0f\n", (double)horizon / wall);
    return 0;
}
