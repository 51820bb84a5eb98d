/*
 * MINIX4RT's experiment ([Pessolani], section 7): 10000 rounds of a
 * producer/consumer in which each task does two downs and two ups per
 * round, in the four setups of its Table 1:
 *
 *   TEST1  no timeout   priority list  no inheritance
 *   TEST2  timeout      priority list  no inheritance
 *   TEST3  no timeout   priority list  inheritance (BPIP)
 *   TEST4  timeout      priority list  inheritance (BPIP)
 *
 * The paper does not list the four operations. Here they are the textbook
 * bounded buffer (one slot), which gives exactly two downs and two ups per
 * task per round and a mutex for the inheritance setups:
 *
 *   producer (priority 2): down(empty); down(mutex); up(mutex); up(full)
 *   consumer (priority 4): down(full);  down(mutex); up(mutex); up(empty)
 *
 * empty starts at 1, full at 0; all three wake in priority order; the
 * mutex's protocol is none (TEST1, TEST2) or pip (TEST3, TEST4). "Timeout"
 * is a timeout of 1000 ticks on every down (it never expires; a blocking
 * down arms its timer and the up that wakes it cancels it), else
 * PR_FOREVER. One round: the producer's up(full) wakes the consumer, which
 * preempts; the consumer's down(full) then blocks and the producer goes on:
 * 4 downs, 4 ups, 2 context switches per round. The producer times the
 * rounds; both tasks' loop control is removed.
 *
 * The paper's Table 2 gives the time of a down-up pair; here a pair is a
 * round / 4 (each round has four down-up pairs, two per task).
 *   prodcons_testN  per_round, per_pair
 */
#include "bench.h"

#define ROUNDS (BENCH_WARMUP + BENCH_N + 1)
#define TIMEOUT 1000u

static pr_id_t empty, full, mutex;
static pr_timeout_t timeout;
static unsigned long loop_cost, total;

static void consumer(void *arg)
{
    (void)arg;
    const pr_id_t e = empty, f = full, m = mutex;
    const pr_timeout_t to = timeout;
    for (uint32_t i = 0; i < bench_opaque(ROUNDS); i++) {
        pr_sem_down(f, to);
        pr_sem_down(m, to);
        pr_sem_up(m);
        pr_sem_up(e);
    }
}

static void producer(void *arg)
{
    (void)arg;
    const pr_id_t e = empty, f = full, m = mutex;
    const pr_timeout_t to = timeout;
    for (uint32_t i = 0; i < BENCH_WARMUP; i++) {
        pr_sem_down(e, to);
        pr_sem_down(m, to);
        pr_sem_up(m);
        pr_sem_up(f);
    }
    BENCH_EMPTY(loop_cost, BENCH_N);
    BENCH_TIME(total, BENCH_N, {
        pr_sem_down(e, to);
        pr_sem_down(m, to);
        pr_sem_up(m);
        pr_sem_up(f);
    });
    pr_sem_up(f); /* the consumer's last round: it ends */
}

static void test(const char *name, int with_timeout, pr_protocol_t protocol)
{
    bench_init();
    empty = bench_sem("empty", PR_SEM_PRIO, PR_PROTOCOL_NONE, 1);
    full = bench_sem("full", PR_SEM_PRIO, PR_PROTOCOL_NONE, 0);
    mutex = bench_sem("mutex", PR_SEM_MUTEX | PR_SEM_PRIO, protocol, 1);
    timeout = with_timeout ? TIMEOUT : PR_FOREVER;
    bench_task("consumer", 4, consumer, NULL);
    bench_task("producer", 2, producer, NULL);
    bench_run();

    unsigned long partner_loop = BENCH_PARTNER_LOOP; /* the consumer's loop control (bench.h) */
    uint64_t net = (uint64_t)(total - loop_cost - partner_loop * BENCH_N);
    bench_line(name);
    bench_kv("timeout", (uint64_t)with_timeout);
    bench_kv("pip", protocol == PR_PROTOCOL_PIP);
    bench_kv("n", BENCH_N);
    bench_kv("total", total);
    bench_kv("loop", loop_cost);
    bench_kv("partner_loop", partner_loop);
    bench_kv_ratio("per_round", net, BENCH_N);
    bench_kv_ratio("per_pair", net, 4 * (uint64_t)BENCH_N);
    bench_eol();
}

int main(void)
{
    bench_begin("bench_prodcons");
    test("prodcons_test1", 0, PR_PROTOCOL_NONE);
    test("prodcons_test2", 1, PR_PROTOCOL_NONE);
    test("prodcons_test3", 0, PR_PROTOCOL_PIP);
    test("prodcons_test4", 1, PR_PROTOCOL_PIP);
    bench_end("bench_prodcons");
    return 0;
}
