/*
 * Ping-pong between two tasks with two semaphores: the producer/consumer
 * round that FreeRTOS's figures use (shared/research/freertos-on-qemu.md,
 * benchmark 4), so that the two kernels compare one to one.
 *
 *   HIGH (priority 4): loop { down(S1); up(S2); }
 *   LOW  (priority 2): loop { up(S1); down(S2); }   (LOW does the timing)
 *
 * One round: LOW's up(S1) wakes HIGH, which preempts (switch 1); HIGH's
 * down returns, its up(S2) finds no waiter, its next down(S1) blocks
 * (switch 2); LOW's up returns and its down(S2) succeeds at once. So a
 * round is 2 downs, 2 ups and 2 context switches. Both tasks' loop control
 * is removed (each is the same counted loop as the empty loop timed here).
 * S1 and S2 are counting semaphores with priority wakeup (FreeRTOS used
 * binary semaphores, its counting ones cost the same).
 *
 *   pingpong_round  instructions per round; per_pair = round / 2 (a down-up
 *                   pair with one switch)
 * With PR_CONFIG_TRACE the ring is emptied between windows by LOW while
 * HIGH waits (bench.h).
 */
#include "bench.h"

#define ROUNDS (BENCH_WARMUP + BENCH_N + 1)

static pr_id_t s1, s2;
static unsigned long loop_cost, total;

static void high(void *arg)
{
    (void)arg;
    const pr_id_t a = s1, b = s2;
    /* ROUNDS downs: the last one is LOW's final up, after the timing. */
    for (uint32_t i = 0; i < bench_opaque(ROUNDS); i++) {
        pr_sem_down(a, PR_FOREVER);
        pr_sem_up(b);
    }
}

static void low(void *arg)
{
    (void)arg;
    const pr_id_t a = s1, b = s2;
    for (uint32_t i = 0; i < BENCH_WARMUP; i++) {
        pr_sem_up(a);
        pr_sem_down(b, PR_FOREVER);
    }
    BENCH_EMPTY(loop_cost, BENCH_N);
    BENCH_TIME(total, BENCH_N, {
        pr_sem_up(a);
        pr_sem_down(b, PR_FOREVER);
    });
    pr_sem_up(a); /* HIGH's last round: it ends */
}

int main(void)
{
    bench_begin("bench_pingpong");
    bench_init();
    s1 = bench_sem("S1", PR_SEM_PRIO, PR_PROTOCOL_NONE, 0);
    s2 = bench_sem("S2", PR_SEM_PRIO, PR_PROTOCOL_NONE, 0);
    bench_task("HIGH", 4, high, NULL);
    bench_task("LOW", 2, low, NULL);
    bench_run();

    /* Per round: LOW's loop control is in `loop_cost`; HIGH's, one
     * iteration per round, is BENCH_PARTNER_LOOP (bench.h). */
    unsigned long high_loop = BENCH_PARTNER_LOOP;
    bench_line("pingpong_round");
    bench_kv("n", BENCH_N);
    bench_kv("total", total);
    bench_kv("loop", loop_cost);
    bench_kv("partner_loop", high_loop);
    bench_kv_ratio("per_op", (uint64_t)(total - loop_cost - high_loop * BENCH_N), BENCH_N);
    bench_kv_ratio("per_pair", (uint64_t)(total - loop_cost - high_loop * BENCH_N), 2 * BENCH_N);
    bench_eol();
    bench_end("bench_pingpong");
    return 0;
}
