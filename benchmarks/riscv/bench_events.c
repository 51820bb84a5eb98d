/*
 * Event flags against FreeRTOS's event groups (shared/research/freertos-on-qemu.md,
 * section 9):
 *
 *   events_pair     pr_events_set(e, 1) + pr_events_wait(e, 1, PR_EVENTS_ANY
 *                   | PR_EVENTS_CLEAR, PR_FOREVER, NULL), one task, nobody
 *                   waiting, the flag clear before and after (FreeRTOS:
 *                   xEventGroupSetBits + xEventGroupWaitBits with the bit
 *                   set, wait for any, clear on exit)
 *   events_set, events_wait   each call of the pair alone (a counter read on
 *                   each side of each call, minus one read)
 *   events_wake     HIGH (4): loop { wait(e, 1, ANY | CLEAR, PR_FOREVER); }
 *                   LOW  (2): loop { set(e, 1); }            (LOW times)
 *                   per round: a set that wakes HIGH (who clears the flag),
 *                   HIGH's wait returns, HIGH waits again: 1 set, 1 wait,
 *                   2 switches; HIGH's loop control removed
 */
#include "bench.h"

#define ROUNDS (BENCH_WARMUP + BENCH_N + 1)

static pr_id_t ev;
static unsigned long loop_cost, pair, set_total, wait_total, wake;

static pr_id_t bench_events(const char *name)
{
    pr_id_t id = -1;
    bench_check(pr_events_alloc(name, &id), name);
    return id;
}

static void single(void *arg)
{
    (void)arg;
    const pr_id_t e = ev;
    uint32_t flags = 0;

    bench_check(pr_events_set(e, 1), "set");
    bench_check(pr_events_wait(e, 1, PR_EVENTS_ANY | PR_EVENTS_CLEAR, PR_FOREVER, &flags), "wait");
    if (flags != 1 || pr_events_wait(e, 1, PR_EVENTS_ANY, PR_NO_WAIT, NULL) != PR_EAGAIN)
        bench_check(PR_EINVAL, "the wait must see the flag and clear it");
    for (uint32_t i = 0; i < BENCH_WARMUP; i++) {
        pr_events_set(e, 1);
        pr_events_wait(e, 1, PR_EVENTS_ANY | PR_EVENTS_CLEAR, PR_FOREVER, NULL);
    }

    BENCH_EMPTY(loop_cost, BENCH_N);
    BENCH_TIME(pair, BENCH_N, {
        pr_events_set(e, 1);
        pr_events_wait(e, 1, PR_EVENTS_ANY | PR_EVENTS_CLEAR, PR_FOREVER, NULL);
    });
    for (uint32_t done = 0; done < BENCH_N; done += BENCH_CHUNK) {
        bench_trace_discard();
        bench_tick_mask();
        for (uint32_t i = 0; i < BENCH_CHUNK; i++) {
            unsigned long a = bench_instret();
            pr_events_set(e, 1);
            unsigned long b = bench_instret();
            pr_events_wait(e, 1, PR_EVENTS_ANY | PR_EVENTS_CLEAR, PR_FOREVER, NULL);
            unsigned long c = bench_instret();
            set_total += b - a - 1;
            wait_total += c - b - 1;
        }
        bench_tick_unmask();
    }
}

static void high(void *arg)
{
    (void)arg;
    const pr_id_t e = ev;
    for (uint32_t i = 0; i < bench_opaque(ROUNDS); i++)
        pr_events_wait(e, 1, PR_EVENTS_ANY | PR_EVENTS_CLEAR, PR_FOREVER, NULL);
}

static void low(void *arg)
{
    (void)arg;
    const pr_id_t e = ev;
    for (uint32_t i = 0; i < BENCH_WARMUP; i++)
        pr_events_set(e, 1);
    BENCH_EMPTY(loop_cost, BENCH_N);
    BENCH_TIME(wake, BENCH_N, pr_events_set(e, 1));
    pr_events_set(e, 1); /* HIGH's last round: it ends */
}

int main(void)
{
    bench_begin("bench_events");
    bench_init();
    ev = bench_events("E");
    bench_task("T", 4, single, NULL);
    bench_run();
    bench_report("events_pair", BENCH_N, pair, loop_cost, 1);
    bench_line("events_set");
    bench_kv_ratio("per_op", set_total, BENCH_N);
    bench_eol();
    bench_line("events_wait");
    bench_kv_ratio("per_op", wait_total, BENCH_N);
    bench_eol();

    bench_init();
    ev = bench_events("E");
    bench_task("HIGH", 4, high, NULL);
    bench_task("LOW", 2, low, NULL);
    bench_run();
    /* LOW's loop control is in loop_cost; HIGH's is BENCH_PARTNER_LOOP (bench.h). */
    unsigned long net = wake - loop_cost - BENCH_PARTNER_LOOP * BENCH_N;
    bench_line("events_wake");
    bench_kv("n", BENCH_N);
    bench_kv("total", wake);
    bench_kv("loop", loop_cost);
    bench_kv("partner_loop", BENCH_PARTNER_LOOP);
    bench_kv_ratio("per_op", net, BENCH_N);
    bench_eol();
    bench_end("bench_events");
    return 0;
}
