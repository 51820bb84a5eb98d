/*
 * The tick interrupt with no task switch: one task spins in a loop that
 * reads minstret and compares each reading with the previous one (four
 * instructions per turn: read, subtract, move, branch). A turn in which the
 * tick interrupt is taken is longer by exactly the interrupt's own cost:
 * from the trap to the mret, the vector, the port's clock handler and the
 * kernel's tick (count, timer wheel slot, quantum) with no timer due, no
 * quantum (round robin off) and nothing else ready. The loop stops at each
 * turn longer than THRESHOLD and records it.
 *
 *   tick           instructions per tick interrupt (turn - 4), the same for
 *                  every one of TICKS ticks (min = max)
 *   tick_rr        the same with a round-robin quantum of 1000 ticks that
 *                  never expires (the quantum is charged on every tick)
 *   tick_ts        the same with the spinner in the time-sharing band
 *                  (8 levels, slices of 1000 ticks): every tick charges its
 *                  usage and slice, brings one time-sharing task up to date
 *                  and computes a level; min is a tick whose level stays,
 *                  max one that moves it (a change of base priority, with
 *                  its PRIO record when tracing)
 */
#include "bench.h"

#define TICKS 8
#define THRESHOLD 64ul
#define TURN 4ul /* the loop's own instructions per turn (see spin) */

static unsigned long gaps[TICKS];

/* Spins until a turn takes THRESHOLD instructions or more; returns it. */
static unsigned long spin(void)
{
    unsigned long prev, now, gap;
    __asm__ volatile("csrr %0, minstret\n"
                     "1: csrr %1, minstret\n"
                     "sub %2, %1, %0\n"
                     "mv %0, %1\n"
                     "bltu %2, %3, 1b\n"
                     : "=&r"(prev), "=&r"(now), "=&r"(gap)
                     : "r"(THRESHOLD)
                     : "memory");
    return gap;
}

static void spinner(void *arg)
{
    (void)arg;
    spin(); /* the first tick may catch the task just switched in */
    for (int i = 0; i < TICKS; i++)
        gaps[i] = spin();
}

/* The time-sharing case: 23 ticks first, so that the window's 8 ticks
 * (24 .. 31, after the one the first spin absorbs) end with the one at which
 * the level moves. */
static void spinner_late(void *arg)
{
    (void)arg;
    for (int i = 0; i < 23; i++)
        spin();
    spinner(NULL);
}

static void report(const char *name)
{
    unsigned long lo = ~0ul, hi = 0;
    for (int i = 0; i < TICKS; i++) {
        lo = gaps[i] < lo ? gaps[i] : lo;
        hi = gaps[i] > hi ? gaps[i] : hi;
    }
    bench_line(name);
    bench_kv("n", TICKS);
    bench_kv("min", lo - TURN);
    bench_kv("max", hi - TURN);
    bench_kv("per_op", lo - TURN);
    bench_eol();
}

int main(void)
{
    bench_begin("bench_tick");
    bench_init();
    bench_task("spinner", 4, spinner, NULL);
    bench_run();
    report("tick");

    bench_init();
    pr_sched_set_quantum(1000);
    bench_task("spinner", 4, spinner, NULL);
    bench_run();
    report("tick_rr");

    /* The spinner's usage grows by one a tick: from 0, its level moves at
     * usage 32 (5 -> 4). Its first 31 ticks keep the level; the 32nd, in
     * the window when it starts at tick 24, moves it. */
    pr_kernel_config_t cfg = {.tick_hz = 1000, .timeshare_levels = 8, .timeshare_quantum = 1000};
    bench_check(pr_riscv_init(&cfg), "pr_riscv_init");
    pr_task_attr_t attr;
    pr_id_t id;
    pr_task_attr_init(&attr);
    attr.name = "spinner";
    attr.sched_class = PR_CLASS_TIMESHARE;
    attr.entry = spinner_late;
    bench_check(pr_task_create(&attr, &id), "pr_task_create");
    bench_run();
    report("tick_ts");
    bench_end("bench_tick");
    return 0;
}
