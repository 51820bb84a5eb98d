/*
 * Software timers against FreeRTOS's (shared/research/freertos-on-qemu.md,
 * section 9). A task T (priority 6) and the timer service (priority 7, above
 * it, as FreeRTOS's daemon above its caller):
 *
 *   timer_start     pr_timer_start(t, 1000) of a one-shot timer that is not
 *                   armed: the whole call (a counter read on each side,
 *                   minus one read). Priora arms the timer in the caller's
 *                   call; the service task is not involved until it expires
 *                   (FreeRTOS's xTimerStart sends a command to its daemon,
 *                   which preempts the caller to act on it).
 *   timer_stop      pr_timer_stop(t) of the armed timer, the same way
 *   timer_start_stop   the two calls in one loop (start, then stop)
 *   timer_callback  the tick at which a one-shot timer expires, to the first
 *                   instruction of its action: L (2) starts the timer with a
 *                   delay of 1 tick, reads the counter and in the next
 *                   instruction sets mtimecmp to 0, which raises the tick at
 *                   once (bench_latency.c's irq_tick, at 1 Hz so that no
 *                   tick of the clock's own comes in between); the tick
 *                   fires the timer and wakes the service, which runs the
 *                   action, whose first instruction reads the counter (it is
 *                   written in assembly for that). From the first
 *                   instruction of the trap vector to the action's first
 *                   (b - a - 2); min = max over ITER ticks.
 */
#include "bench.h"
#include "riscv.h"

#define ITER 100
#define SERVICE_PRIO 7

static pr_id_t timer;
static unsigned long loop_cost, start_total, stop_total, pair;
static unsigned long a_reads[ITER];
unsigned long bench_action_reads[ITER];
volatile unsigned long bench_action_count;

static void count_action(pr_id_t t, void *arg)
{
    (void)t;
    (void)arg;
}

/* The action of timer_callback: its first instruction reads the counter;
 * it stores the reading at bench_action_reads[bench_action_count++]. */
void bench_read_action(pr_id_t t, void *arg);
#if __riscv_xlen == 64
#define STORE_WORD "sd"
#define LOAD_WORD "ld"
#define WORD_SHIFT "3"
#else
#define STORE_WORD "sw"
#define LOAD_WORD "lw"
#define WORD_SHIFT "2"
#endif
__asm__(".text\n"
        ".globl bench_read_action\n"
        "bench_read_action:\n"
        "  csrr t0, minstret\n"
        "  lla t1, bench_action_count\n"
        "  " LOAD_WORD " t2, 0(t1)\n"
        "  addi t3, t2, 1\n"
        "  " STORE_WORD " t3, 0(t1)\n"
        "  slli t2, t2, " WORD_SHIFT "\n"
        "  lla t1, bench_action_reads\n"
        "  add t1, t1, t2\n"
        "  " STORE_WORD " t0, 0(t1)\n"
        "  ret\n");

static pr_id_t bench_timer(pr_timer_action_t action)
{
    pr_timer_attr_t attr;
    pr_id_t id = -1;
    pr_timer_attr_init(&attr);
    attr.name = "t";
    attr.action = action;
    bench_check(pr_timer_alloc(&attr, &id), "pr_timer_alloc");
    return id;
}

static void controller(void *arg)
{
    (void)arg;
    const pr_id_t t = timer;
    bench_check(pr_timer_start(t, 1000), "start");
    bench_check(pr_timer_stop(t), "stop");
    for (uint32_t i = 0; i < BENCH_WARMUP; i++) {
        pr_timer_start(t, 1000);
        pr_timer_stop(t);
    }
    BENCH_EMPTY(loop_cost, BENCH_N);
    BENCH_TIME(pair, BENCH_N, {
        pr_timer_start(t, 1000);
        pr_timer_stop(t);
    });
    for (uint32_t done = 0; done < BENCH_N; done += BENCH_CHUNK) {
        bench_trace_discard();
        bench_tick_mask();
        for (uint32_t i = 0; i < BENCH_CHUNK; i++) {
            unsigned long a = bench_instret();
            pr_timer_start(t, 1000);
            unsigned long b = bench_instret();
            pr_timer_stop(t);
            unsigned long c = bench_instret();
            start_total += b - a - 1;
            stop_total += c - b - 1;
        }
        bench_tick_unmask();
    }
}

static void ticker(void *arg)
{
    (void)arg;
    const pr_id_t t = timer;
    for (int i = 0; i < ITER; i++) {
        bench_trace_discard();
        pr_timer_start(t, 1);
        __asm__ volatile("csrr %0, minstret\n"
                         "sw zero, 0(%1)\n"
                         : "=&r"(a_reads[i])
                         : "r"(CLINT_MTIMECMP)
                         : "memory");
    }
}

int main(void)
{
    bench_begin("bench_swtimer");
    bench_init();
    bench_check(pr_timer_service_start(SERVICE_PRIO, NULL), "pr_timer_service_start");
    timer = bench_timer(count_action);
    bench_task("T", 6, controller, NULL);
    bench_run();
    bench_report("timer_start_stop", BENCH_N, pair, loop_cost, 1);
    bench_line("timer_start");
    bench_kv_ratio("per_op", start_total, BENCH_N);
    bench_eol();
    bench_line("timer_stop");
    bench_kv_ratio("per_op", stop_total, BENCH_N);
    bench_eol();

    pr_kernel_config_t cfg = {.tick_hz = 1, .quantum = 0};
    bench_check(pr_riscv_init(&cfg), "pr_riscv_init");
    bench_check(pr_timer_service_start(SERVICE_PRIO, NULL), "pr_timer_service_start");
    timer = bench_timer(bench_read_action);
    bench_task("L", 2, ticker, NULL);
    bench_run();
    if (bench_action_count != ITER)
        bench_check(PR_EINVAL, "every tick must run the action once");
    unsigned long lo = ~0ul, hi = 0;
    for (int i = 0; i < ITER; i++) {
        unsigned long v = bench_action_reads[i] - a_reads[i] - 2;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    bench_line("timer_callback");
    bench_kv("n", ITER);
    bench_kv("min", lo);
    bench_kv("max", hi);
    bench_kv("per_op", lo);
    bench_eol();
    bench_end("bench_swtimer");
    return 0;
}
