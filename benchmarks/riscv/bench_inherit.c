/*
 * A contended mutex with priority inheritance, as one path (FreeRTOS's
 * benchmark 5 in shared/research/freertos-on-qemu.md, same boundaries):
 *
 *   LOW (priority 2) holds M and ups Go; HIGH (priority 4), waiting on Go,
 *   preempts, reads the counter (a) and calls pr_sem_down(M): it blocks,
 *   LOW inherits priority 4, the CPU switches to LOW; LOW's up(Go) returns,
 *   LOW calls pr_sem_up(M): it gives M up, drops back to 2, hands M to HIGH
 *   and switches to it; HIGH's down returns owning M and HIGH reads the
 *   counter (b). The path is b - a - 1: every instruction strictly between
 *   HIGH's two reads, including LOW's return from up(Go) and its up(M).
 *
 *   pi_path        with inheritance (pip): HIGH blocks -> owns M
 *   nopi_path      the same with protocol none (no priority change)
 *   pi_split       A = HIGH's read to LOW's read just before its up(M)
 *                  (block, inherit, switch, LOW's return from up(Go)),
 *                  B = the rest (release, unboost, hand-off, switch, the
 *                  end of HIGH's down); from a second pass in which LOW
 *                  reads the counter too (its own read and store removed)
 *
 * Each figure is the same in every one of the BENCH_N / 10 iterations: the
 * program checks it (min = max). A first, untimed iteration checks that
 * LOW runs at priority 4 while HIGH waits and at 2 after its up(M).
 */
#include "bench.h"

#define ITER (BENCH_N / 10)

static pr_id_t m, go;
static pr_id_t low_id;
static volatile int split;          /* second pass: LOW reads the counter */
static unsigned long mid_read;
static unsigned long path_min, path_max, split_a_min, split_a_max;
static int boosted_ok = 1;

static void high(void *arg)
{
    (void)arg;
    const pr_id_t mm = m, g = go;
    path_min = ~0ul;
    path_max = 0;
    split_a_min = ~0ul;
    split_a_max = 0;
    for (uint32_t i = 0; i < bench_opaque(ITER + 1); i++) {
        pr_sem_down(g, PR_FOREVER);
        unsigned long a = bench_instret();
        pr_sem_down(mm, PR_FOREVER);
        unsigned long b = bench_instret();
        if (i > 0) { /* iteration 0 is the untimed check */
            unsigned long path = b - a - 1;
            path_min = path < path_min ? path : path_min;
            path_max = path > path_max ? path : path_max;
            if (split) {
                unsigned long sa = mid_read - a - 1;
                split_a_min = sa < split_a_min ? sa : split_a_min;
                split_a_max = sa > split_a_max ? sa : split_a_max;
            }
        }
        pr_sem_up(mm);
    }
}

static pr_prio_t priority_of(pr_id_t id)
{
    pr_task_status_t st;
    bench_check(pr_task_status(id, &st), "status");
    return st.effective_priority;
}

static void low(void *arg)
{
    (void)arg;
    const pr_id_t mm = m, g = go;
    /* The check: HIGH blocked on M lends LOW its priority. */
    pr_sem_down(mm, PR_FOREVER);
    pr_sem_up(g);
    if (priority_of(low_id) != 4)
        boosted_ok = 0;
    pr_sem_up(mm);
    if (priority_of(low_id) != 2)
        boosted_ok = 0;

    /* Two loops, so that the plain pass runs no instrumentation at all. */
    bench_tick_mask();
    if (split) {
        for (uint32_t i = 0; i < ITER; i++) {
            bench_trace_discard();
            pr_sem_down(mm, PR_FOREVER);
            pr_sem_up(g);
            mid_read = bench_instret();
            pr_sem_up(mm);
        }
    } else {
        for (uint32_t i = 0; i < ITER; i++) {
            bench_trace_discard();
            pr_sem_down(mm, PR_FOREVER);
            pr_sem_up(g);
            pr_sem_up(mm);
        }
    }
    bench_tick_unmask();
}

static void pass(pr_protocol_t protocol, int with_split)
{
    bench_init();
    m = bench_sem("M", PR_SEM_MUTEX | PR_SEM_PRIO, protocol, 1);
    go = bench_sem("Go", PR_SEM_PRIO, PR_PROTOCOL_NONE, 0);
    split = with_split;
    boosted_ok = 1;
    bench_task("HIGH", 4, high, NULL);
    low_id = bench_task("LOW", 2, low, NULL);
    bench_run();
    if (protocol == PR_PROTOCOL_PIP && !boosted_ok)
        bench_check(PR_EINVAL, "LOW was not boosted to 4 and back to 2");
}

int main(void)
{
    bench_begin("bench_inherit");
    unsigned long pi, nopi;

    pass(PR_PROTOCOL_PIP, 0);
    pi = path_min;
    bench_line("pi_path");
    bench_kv("n", ITER);
    bench_kv("min", path_min);
    bench_kv("max", path_max);
    bench_kv("per_op", path_min);
    bench_eol();

    pass(PR_PROTOCOL_NONE, 0);
    nopi = path_min;
    bench_line("nopi_path");
    bench_kv("n", ITER);
    bench_kv("min", path_min);
    bench_kv("max", path_max);
    bench_kv("per_op", path_min);
    bench_eol();

    pass(PR_PROTOCOL_PIP, 1);
    bench_line("pi_split");
    bench_kv("a", split_a_min);
    bench_kv("a_max", split_a_max);
    bench_kv("b", pi - split_a_min);
    bench_kv("instrumentation", path_min - pi);
    bench_eol();

    bench_line("pi_cost");
    bench_kv_signed("per_op", (int64_t)pi - (int64_t)nopi);
    bench_eol();
    bench_end("bench_inherit");
    return 0;
}
