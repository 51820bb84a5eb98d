/*
 * Single-task semaphore calls, uncontended, in a loop of BENCH_N:
 *   mutex_pair      pr_sem_down(m, PR_FOREVER) + pr_sem_up(m) on a free
 *                   mutex with inheritance (pip), as FreeRTOS's mutexes
 *                   have; mutex_pair_none the same without a protocol;
 *   mutex_down, mutex_up   each call of the pair alone (a counter read on
 *                   each side of each call, minus one read);
 *   counting_pair   pr_sem_up(s) + pr_sem_down(s, PR_FOREVER): 0 -> 1 -> 0,
 *                   as FreeRTOS's give + take;
 *   trydown_fail    pr_sem_trydown on a semaphore at 0 (PR_EAGAIN);
 *   alloc_free      pr_sem_alloc + pr_sem_free of a counting semaphore.
 * Also counters: minstret and mcycle over the same loop (under -icount
 * shift=0 both count instructions: they agree).
 * Every call's result is checked once before the timed loops.
 */
#include "bench.h"

static unsigned long loop_cost, mutex_pair, mutex_pair_none, counting_pair, trydown_fail, alloc_free;
static unsigned long mutex_down, mutex_up, counter_instret, counter_cycle;
static pr_id_t mutex_pip, mutex_none, counting, empty;

static void body(void *arg)
{
    (void)arg;
    const pr_id_t m = mutex_pip, n = mutex_none, s = counting, z = empty;
    pr_sem_attr_t attr;
    pr_sem_attr_init(&attr);

    /* Correctness once: the loops below repeat exactly these calls. */
    bench_check(pr_sem_down(m, PR_FOREVER), "down mutex");
    bench_check(pr_sem_up(m), "up mutex");
    bench_check(pr_sem_up(s), "up counting");
    bench_check(pr_sem_down(s, PR_FOREVER), "down counting");
    if (pr_sem_trydown(z) != PR_EAGAIN)
        bench_check(PR_EINVAL, "trydown must fail with PR_EAGAIN");
    pr_id_t id;
    bench_check(pr_sem_alloc(&attr, &id), "alloc");
    bench_check(pr_sem_free(id), "free");

    for (uint32_t i = 0; i < BENCH_WARMUP; i++) {
        pr_sem_down(m, PR_FOREVER);
        pr_sem_up(m);
    }

    BENCH_EMPTY(loop_cost, BENCH_N);
    BENCH_TIME(mutex_pair, BENCH_N, {
        pr_sem_down(m, PR_FOREVER);
        pr_sem_up(m);
    });
    BENCH_TIME(mutex_pair_none, BENCH_N, {
        pr_sem_down(n, PR_FOREVER);
        pr_sem_up(n);
    });
    BENCH_TIME(counting_pair, BENCH_N, {
        pr_sem_up(s);
        pr_sem_down(s, PR_FOREVER);
    });
    BENCH_TIME(trydown_fail, BENCH_N, pr_sem_trydown(z));
    BENCH_TIME(alloc_free, BENCH_N, {
        pr_id_t sid;
        pr_sem_alloc(&attr, &sid);
        pr_sem_free(sid);
    });
    bench_split_pair(m, &mutex_down, &mutex_up);

    /* The two counters over one loop, each read in the same order at both
     * ends, so that both windows have the same length. */
    bench_tick_mask();
    unsigned long i0 = bench_instret(), c0 = bench_cycle();
    for (uint32_t i = 0; i < bench_opaque(1000); i++)
        __asm__ volatile("");
    unsigned long i1 = bench_instret(), c1 = bench_cycle();
    bench_tick_unmask();
    counter_instret = i1 - i0;
    counter_cycle = c1 - c0;
}

int main(void)
{
    bench_begin("bench_sem");
    bench_init();
    mutex_pip = bench_sem("m_pip", PR_SEM_MUTEX | PR_SEM_PRIO, PR_PROTOCOL_PIP, 1);
    mutex_none = bench_sem("m_none", PR_SEM_MUTEX | PR_SEM_PRIO, PR_PROTOCOL_NONE, 1);
    counting = bench_sem("count", PR_SEM_PRIO, PR_PROTOCOL_NONE, 0);
    empty = bench_sem("empty", PR_SEM_PRIO, PR_PROTOCOL_NONE, 0);
    bench_task("T", 4, body, NULL);
    bench_run();

    bench_report("mutex_pair", BENCH_N, mutex_pair, loop_cost, 1);
    bench_report("mutex_pair_none", BENCH_N, mutex_pair_none, loop_cost, 1);
    bench_report("counting_pair", BENCH_N, counting_pair, loop_cost, 1);
    bench_report("trydown_fail", BENCH_N, trydown_fail, loop_cost, 1);
    bench_report("alloc_free", BENCH_N, alloc_free, loop_cost, 1);
    bench_line("mutex_down");
    bench_kv_ratio("per_op", mutex_down, BENCH_N);
    bench_eol();
    bench_line("mutex_up");
    bench_kv_ratio("per_op", mutex_up, BENCH_N);
    bench_eol();
    bench_line("counters");
    bench_kv("instret", counter_instret);
    bench_kv("cycle", counter_cycle);
    bench_eol();
    bench_end("bench_sem");
    return 0;
}
