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
    bench_end("bench_tick");
    return 0;
}
