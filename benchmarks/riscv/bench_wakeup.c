/*
 * Costs against the number of waiters k = 1 .. K (K = 64 when the kernel is
 * built with room for it: bench.py builds this program with
 * PR_CONFIG_MAX_TASKS=66; with fewer tasks K is what fits). All of them
 * must be flat: Priora's wait lists are per-priority FIFOs with a bitmap.
 * The waiters all have the same priority (10): a list sorted on insertion
 * (FreeRTOS) walks past every equal waiter to reach the tail.
 *
 * Run 1, a counting semaphore S with priority wakeup. The controller C
 * (priority 0) creates waiter j, which preempts it, reads the counter and
 * blocks on S as its (j+1)-th waiter; the switch returns to C, which reads
 * the counter:
 *   block k=..  waiter's read to C's read: the blocking down, the switch,
 *               the end of C's pr_task_create
 * Then C raises itself above the waiters (priority 20) and ups S K times,
 * each with a counter read on both sides; the up wakes the first waiter,
 * which stays ready (less urgent than C):
 *   wake k=..   pr_sem_up with k waiters (k = K .. 1)
 *
 * Run 2, a pip mutex M held by L (priority 1, parked on a semaphore).
 * Waiters block on M one by one as above (the first raises L to 10). After
 * each, C moves the first waiter to priority 11 and back to 10 with
 * pr_task_set_priority: the waiter moves in M's wait list, M lends 11 then
 * 10, L is raised and lowered with it (L moves in its own wait list):
 *   prio k=..   the two pr_task_set_priority calls with k waiters on M
 *
 * One line per point: "BENCH wakeup_<series> k=<k> instr=<n>"; then per
 * series "BENCH wakeup_<series>_range min=.. max=..".
 */
#include "bench.h"

#define K_WANTED 64
/* C and L besides the waiters. */
#define K ((PR_CONFIG_MAX_TASKS - 2) < K_WANTED ? (PR_CONFIG_MAX_TASKS - 2) : K_WANTED)
#define WAITER_PRIO 10

static pr_id_t sem, mutex, park;
static pr_id_t waiter_ids[K];
static unsigned long a_read;
static unsigned long block_cost[K + 1], wake_cost[K + 1], prio_cost[K + 1];

static void waiter(void *arg)
{
    pr_id_t on = (pr_id_t)(uintptr_t)arg;
    a_read = bench_instret();
    pr_sem_down(on, PR_FOREVER);
}

static void holder(void *arg)
{
    (void)arg;
    bench_check(pr_sem_down(mutex, PR_FOREVER), "take M");
    pr_sem_down(park, PR_FOREVER); /* never upped */
}

/* Creates waiter j on `on` and returns the window of its blocking down. */
static unsigned long add_waiter(int j, pr_id_t on)
{
    bench_trace_discard();
    bench_tick_mask();
    waiter_ids[j] = bench_task("W", WAITER_PRIO, waiter, (void *)(uintptr_t)on);
    unsigned long b = bench_instret();
    bench_tick_unmask();
    return b - a_read - 1;
}

static void run1(void *arg)
{
    (void)arg;
    const pr_id_t s = sem;
    for (int j = 0; j < K; j++)
        block_cost[j + 1] = add_waiter(j, s);
    bench_check(pr_task_set_priority(pr_task_self(), 20), "raise C");
    for (int k = K; k >= 1; k--) {
        bench_trace_discard();
        bench_tick_mask();
        unsigned long a = bench_instret();
        pr_sem_up(s);
        unsigned long b = bench_instret();
        bench_tick_unmask();
        wake_cost[k] = b - a - 1;
    }
}

static void run2(void *arg)
{
    (void)arg;
    for (int j = 0; j < K; j++) {
        add_waiter(j, mutex);
        const pr_id_t first = waiter_ids[0];
        bench_trace_discard();
        bench_tick_mask();
        unsigned long a = bench_instret();
        pr_task_set_priority(first, WAITER_PRIO + 1);
        pr_task_set_priority(first, WAITER_PRIO);
        unsigned long b = bench_instret();
        bench_tick_unmask();
        prio_cost[j + 1] = b - a - 1;
    }
}

static void series(const char *name, const char *range, const unsigned long *cost)
{
    unsigned long lo = ~0ul, hi = 0;
    for (int k = 1; k <= K; k++) {
        bench_line(name);
        bench_kv("k", (uint64_t)k);
        bench_kv("instr", cost[k]);
        bench_eol();
        lo = cost[k] < lo ? cost[k] : lo;
        hi = cost[k] > hi ? cost[k] : hi;
    }
    bench_line(range);
    bench_kv("kmax", K);
    bench_kv("min", lo);
    bench_kv("max", hi);
    bench_eol();
}

int main(void)
{
    bench_begin("bench_wakeup");
    bench_init();
    sem = bench_sem("S", PR_SEM_PRIO, PR_PROTOCOL_NONE, 0);
    bench_task("C", 0, run1, NULL);
    bench_run();

    bench_init();
    mutex = bench_sem("M", PR_SEM_MUTEX | PR_SEM_PRIO, PR_PROTOCOL_PIP, 1);
    park = bench_sem("park", PR_SEM_PRIO, PR_PROTOCOL_NONE, 0);
    bench_task("L", 1, holder, NULL);
    bench_task("C", 0, run2, NULL);
    bench_run();

    series("wakeup_block", "wakeup_block_range", block_cost);
    series("wakeup_wake", "wakeup_wake_range", wake_cost);
    series("wakeup_prio", "wakeup_prio_range", prio_cost);
    bench_end("bench_wakeup");
    return 0;
}
