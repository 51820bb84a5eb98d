/*
 * Interrupt-to-task latency: from the first instruction of the trap vector
 * to the first instruction of the woken task after its kernel call returns.
 *
 * The interrupt is raised by a store from a less urgent task L, at an exact
 * instruction: L reads the counter (a) and, in the very next instruction,
 * stores to the interrupt's register; the interrupt is taken right after
 * that store, so the vector's first instruction is instruction a + 2. The
 * woken task H reads the counter (b) as soon as its call returns: the
 * latency is b - a - 2.
 *
 *   irq_sem       H (priority 4) waits in pr_sem_down(S); the interrupt is
 *                 the machine software interrupt (CLINT msip) and its
 *                 handler calls pr_sem_up(S): vector, trap dispatch,
 *                 pr_isr_enter, the up (wake H), pr_isr_exit (switch to H),
 *                 the end of H's down. The tick is masked meanwhile.
 *   irq_tick      H (priority 4, period 1 tick) waits in
 *                 pr_task_wait_period(); the interrupt is the machine timer
 *                 (L sets mtimecmp to 0), the port's tick handler: the
 *                 kernel's tick releases H (its release timer fires), the
 *                 switch, the end of H's wait. At 1 Hz, so that no tick of
 *                 the clock's own comes in between.
 * Each is the same in all ITER iterations (min = max).
 */
#include "bench.h"
#include "riscv.h"

#define ITER 100

static pr_id_t sem;
static unsigned long a_reads[ITER + 1], b_reads[ITER + 1];
static volatile int h_done;

static void up_handler(void) { pr_sem_up(sem); }

/* Reads the counter, then raises the interrupt with the next instruction. */
static inline unsigned long read_and_store(uintptr_t reg, unsigned long value)
{
    unsigned long a;
    __asm__ volatile("csrr %0, minstret\n"
                     "sw %2, 0(%1)\n"
                     : "=&r"(a)
                     : "r"(reg), "r"(value)
                     : "memory");
    return a;
}

static void h_sem(void *arg)
{
    (void)arg;
    const pr_id_t s = sem;
    for (int i = 0; i < ITER; i++) {
        pr_sem_down(s, PR_FOREVER);
        b_reads[i] = bench_instret();
    }
}

static void l_sem(void *arg)
{
    (void)arg;
    bench_tick_mask();
    for (int i = 0; i < ITER; i++) {
        bench_trace_discard();
        a_reads[i] = read_and_store(CLINT_MSIP, 1);
    }
    bench_tick_unmask();
}

static void h_tick(void *arg)
{
    (void)arg;
    for (int i = 0; i <= ITER; i++) { /* the first wait is for the second release */
        pr_task_wait_period();
        b_reads[i] = bench_instret();
    }
    h_done = 1;
}

static void l_tick(void *arg)
{
    (void)arg;
    for (int i = 0; !h_done; i++) {
        bench_trace_discard();
        a_reads[i] = read_and_store(CLINT_MTIMECMP, 0);
    }
}

static void report(const char *name)
{
    unsigned long lo = ~0ul, hi = 0;
    for (int i = 0; i < ITER; i++) {
        unsigned long v = b_reads[i] - a_reads[i] - 2;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    bench_line(name);
    bench_kv("n", ITER);
    bench_kv("min", lo);
    bench_kv("max", hi);
    bench_kv("per_op", lo);
    bench_eol();
}

int main(void)
{
    bench_begin("bench_latency");
    bench_init();
    sem = bench_sem("S", PR_SEM_PRIO, PR_PROTOCOL_NONE, 0);
    riscv_soft_irq_handler(up_handler);
    bench_task("H", 4, h_sem, NULL);
    bench_task("L", 2, l_sem, NULL);
    bench_run();
    riscv_soft_irq_handler(NULL);
    report("irq_sem");

    pr_kernel_config_t cfg = {.tick_hz = 1, .quantum = 0};
    bench_check(pr_riscv_init(&cfg), "pr_riscv_init");
    pr_task_attr_t attr;
    pr_id_t id;
    pr_task_attr_init(&attr);
    attr.name = "H";
    attr.priority = 4;
    attr.entry = h_tick;
    attr.period = 1;
    bench_check(pr_task_create(&attr, &id), "H");
    bench_task("L", 2, l_tick, NULL);
    bench_run();
    report("irq_tick");
    bench_end("bench_latency");
    return 0;
}
