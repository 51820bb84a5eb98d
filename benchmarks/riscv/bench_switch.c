/*
 * Context switch between two tasks of equal priority: A and B (priority 4)
 * both loop on pr_task_yield(). Each of A's yields puts A behind B and
 * switches to B, whose yield switches back: one iteration of A's timed loop
 * is two switches, each a whole pr_task_yield (call, rotation, choice,
 * switch, return). Both loops' control is removed.
 *
 *   yield_switch   instructions per switch
 *   yield_alone    pr_task_yield with no other task at its priority (no
 *                  switch: the call and the rotation of a level of one)
 */
#include "bench.h"

static unsigned long loop_cost, total, alone, alone_loop;

static void task_b(void *arg)
{
    (void)arg;
    for (uint32_t i = 0; i < bench_opaque(BENCH_WARMUP + BENCH_N); i++)
        pr_task_yield();
}

static void task_a(void *arg)
{
    (void)arg;
    for (uint32_t i = 0; i < BENCH_WARMUP; i++)
        pr_task_yield();
    BENCH_EMPTY(loop_cost, BENCH_N);
    BENCH_TIME(total, BENCH_N, pr_task_yield());
}

/* After A and B: one task alone at its priority. */
static void task_alone(void *arg)
{
    (void)arg;
    BENCH_EMPTY(alone_loop, BENCH_N);
    BENCH_TIME(alone, BENCH_N, pr_task_yield());
}

int main(void)
{
    bench_begin("bench_switch");
    bench_init();
    bench_task("A", 4, task_a, NULL);
    bench_task("B", 4, task_b, NULL);
    bench_run();
    bench_init();
    bench_task("alone", 4, task_alone, NULL);
    bench_run();

    unsigned long partner_loop = BENCH_PARTNER_LOOP; /* B's loop control (bench.h) */
    bench_line("yield_switch");
    bench_kv("n", BENCH_N);
    bench_kv("total", total);
    bench_kv("loop", loop_cost);
    bench_kv("partner_loop", partner_loop);
    bench_kv_ratio("per_op", (uint64_t)(total - loop_cost - partner_loop * BENCH_N), 2 * (uint64_t)BENCH_N);
    bench_eol();
    bench_report("yield_alone", BENCH_N, alone, alone_loop, 1);
    bench_end("bench_switch");
    return 0;
}
