/*
 * Table 2 of [Tokuda-Nakajima 1993] for Priora: the cost of the locking
 * primitives under each protocol, in instructions, caller's call and
 * return included:
 *
 *   acquired      pr_sem_down on a free mutex (the lock is taken at once);
 *   unlock        pr_sem_up of that mutex, nobody waiting;
 *   not_acquired  a more urgent task's pr_sem_down on a mutex that a less
 *                 urgent task holds, up to the holder running again: the
 *                 down's checks, the policy's reaction (inheritance: the
 *                 holder raised to the requester's priority; pcp: the
 *                 system ceiling's test and the wait on it), the block and
 *                 the switch, and the end of the holder's interrupted call
 *                 (the same boundaries as bench_inherit's part A);
 *   taken_over    rcs only: that down aborts the holder's section and
 *                 returns owning the mutex, with no switch.
 *
 * The paper's "lock and not acquired" counts only the policy's notacquired
 * function; here it is the whole path to the holder, which is what a
 * requester waits for. Under ipcp and npcs a more urgent task cannot ask
 * for a mutex a less urgent one holds while that holder is running: the
 * holder runs at the ceiling (npcs: at the top priority), so the requester
 * is not even scheduled; "not acquired" does not occur there (the
 * requester's wait is its release delay, not a lock call), and those cells
 * are absent. Under rcs the more urgent requester takes the mutex over.
 *
 * The one-task figures split the pair with a counter read on each side of
 * each call (minus the read itself); the two-task path is read in the
 * requester before its down and in the holder when it runs again.
 */
#include "bench.h"

#define ITER (BENCH_N / 10)
#define LOW_PRIO 2
#define HIGH_PRIO 4

static const struct {
    const char *name;
    pr_protocol_t protocol;
} protocols[] = {
    {"none", PR_PROTOCOL_NONE}, {"npcs", PR_PROTOCOL_NPCS}, {"pip", PR_PROTOCOL_PIP},
    {"pcp", PR_PROTOCOL_PCP},   {"ipcp", PR_PROTOCOL_IPCP}, {"rcs", PR_PROTOCOL_RCS},
};

static pr_id_t m, go;
static pr_protocol_t protocol;
static unsigned long acquired, unlocked;     /* totals over BENCH_N */
static unsigned long path_min, path_max;     /* the two-task path */
static unsigned long high_read;              /* HIGH's read before its down */

static pr_id_t mutex(pr_protocol_t p)
{
    pr_sem_attr_t attr;
    pr_id_t id = PR_NO_SEM;
    pr_sem_attr_init(&attr);
    attr.name = "M";
    attr.value = 1;
    attr.flags = PR_SEM_MUTEX | PR_SEM_PRIO;
    attr.protocol = p;
    /* The ceiling protocols: the most urgent task that locks M. */
    attr.ceiling = (p == PR_PROTOCOL_PCP || p == PR_PROTOCOL_IPCP) ? HIGH_PRIO : 0;
    bench_check(pr_sem_alloc(&attr, &id), "alloc M");
    return id;
}

/* ---- one task: acquired and unlock ---- */

static void single(void *arg)
{
    (void)arg;
    const pr_id_t mm = m;
    bench_check(pr_sem_down(mm, PR_FOREVER), "down M");
    bench_check(pr_sem_up(mm), "up M");
    for (uint32_t i = 0; i < BENCH_WARMUP; i++) {
        pr_sem_down(mm, PR_FOREVER);
        pr_sem_up(mm);
    }
    bench_split_pair(mm, &acquired, &unlocked);
}

/* ---- two tasks: not acquired (or taken over, rcs) ---- */

static void record(unsigned long path)
{
    path_min = path < path_min ? path : path_min;
    path_max = path > path_max ? path : path_max;
}

static void high(void *arg)
{
    (void)arg;
    const pr_id_t mm = m, g = go;
    for (uint32_t i = 0; i < bench_opaque(ITER + 1); i++) {
        pr_sem_down(g, PR_FOREVER);
        high_read = bench_instret();
        int err = pr_sem_down(mm, PR_FOREVER);
        unsigned long b = bench_instret();
        if (protocol == PR_PROTOCOL_RCS && i > 0) /* iteration 0 is untimed */
            record(b - high_read - 1);
        bench_check(err, "HIGH's down M");
        bench_check(pr_sem_up(mm), "HIGH's up M");
    }
}

static void low(void *arg)
{
    (void)arg;
    const pr_id_t mm = m, g = go;
    bench_tick_mask();
    for (uint32_t i = 0; i < ITER + 1; i++) {
        bench_trace_discard();
        pr_sem_down(mm, PR_FOREVER);
        pr_sem_up(g); /* HIGH runs now, and asks for M */
        unsigned long mid = bench_instret();
        if (protocol != PR_PROTOCOL_RCS && i > 0)
            record(mid - high_read - 1);
        /* rcs: M was taken over; this up learns it (PR_EABORTED). */
        int err = pr_sem_up(mm);
        if (protocol == PR_PROTOCOL_RCS ? err != PR_EABORTED : err != PR_OK)
            bench_check(err == PR_OK ? PR_EINVAL : err, "LOW's up M");
    }
    bench_tick_unmask();
}

int main(void)
{
    bench_begin("bench_protocols");
    for (size_t k = 0; k < sizeof protocols / sizeof protocols[0]; k++) {
        protocol = protocols[k].protocol;

        bench_init();
        m = mutex(protocol);
        bench_task("T", HIGH_PRIO, single, NULL);
        bench_run();
        bench_line("lock_acquired");
        bench_kv_ratio("per_op", acquired, BENCH_N);
        pr_riscv_puts(" protocol=");
        pr_riscv_puts(protocols[k].name);
        bench_eol();
        bench_line("unlock");
        bench_kv_ratio("per_op", unlocked, BENCH_N);
        pr_riscv_puts(" protocol=");
        pr_riscv_puts(protocols[k].name);
        bench_eol();

        if (protocol == PR_PROTOCOL_IPCP || protocol == PR_PROTOCOL_NPCS)
            continue; /* the requester never runs while the holder holds M */
        bench_init();
        m = mutex(protocol);
        go = bench_sem("Go", PR_SEM_PRIO, PR_PROTOCOL_NONE, 0);
        path_min = ~0ul;
        path_max = 0;
        bench_task("HIGH", HIGH_PRIO, high, NULL);
        bench_task("LOW", LOW_PRIO, low, NULL);
        bench_run();
        bench_line(protocol == PR_PROTOCOL_RCS ? "lock_taken_over" : "lock_not_acquired");
        bench_kv("n", ITER);
        bench_kv("min", path_min);
        bench_kv("max", path_max);
        bench_kv("per_op", path_min);
        pr_riscv_puts(" protocol=");
        pr_riscv_puts(protocols[k].name);
        bench_eol();
    }
    bench_end("bench_protocols");
    return 0;
}
