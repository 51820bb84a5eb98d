/*
 * Message queues against FreeRTOS's queues (shared/research/freertos-on-qemu.md,
 * section 9): a queue of 8 messages of 4 bytes (a uint32_t), messages in
 * FIFO order, every message sent at priority 0.
 *
 *   msgq_pair       pr_msgq_send(q, &v, 0, PR_NO_WAIT) + pr_msgq_receive(q,
 *                   &v, NULL, PR_NO_WAIT), one task, the queue empty before
 *                   and after (FreeRTOS: xQueueSend + xQueueReceive, timeout 0)
 *   msgq_pair_forever  the same with PR_FOREVER (neither call waits)
 *   msgq_send, msgq_receive   each call of the pair alone (a counter read on
 *                   each side of each call, minus one read)
 *   msgq_pingpong   HIGH (4): loop { receive(q1); send(q2); }
 *                   LOW  (2): loop { send(q1); receive(q2); }   (LOW times)
 *                   per round: 2 sends, 2 receives, 2 switches, as the
 *                   semaphores' bench_pingpong; HIGH's loop control removed
 *   msgq_isr        an interrupt's send wakes a task: H (4) waits in
 *                   pr_msgq_receive(q, PR_FOREVER); L (2) reads the counter
 *                   and raises the machine software interrupt with the next
 *                   instruction (bench_latency.c); the handler sends one
 *                   message. From the first instruction of the trap vector
 *                   to H's first instruction after its receive returns
 *                   (b - a - 2); min = max over ITER interrupts
 *   msgq_isr_round  L's whole round per interrupt: the store, the interrupt,
 *                   H's receive, H waits again, back in L (L's loop removed)
 *   memcpy4         the port's memcpy of 4 aligned bytes, as the queue calls
 *                   it (the size not known to the compiler), call included
 */
#include <string.h>
#include "bench.h"
#include "riscv.h"

#define LENGTH 8
#define ITER 100
#define ROUNDS (BENCH_WARMUP + BENCH_N + 1)

static unsigned char buffers[3][PR_MSGQ_BUFFER_BYTES(sizeof(uint32_t), LENGTH)]
    __attribute__((aligned(sizeof(void *))));
static pr_id_t q1, q2, qi;
static unsigned long loop_cost, pair, pair_forever, send_total, receive_total, pingpong, memcpy4;
static unsigned long a_reads[ITER], b_reads[ITER], round_total, round_loop;

static pr_id_t bench_msgq(const char *name, void *buffer, size_t bytes)
{
    pr_msgq_attr_t attr;
    pr_id_t id = -1;
    pr_msgq_attr_init(&attr);
    attr.name = name;
    attr.msg_size = sizeof(uint32_t);
    attr.length = LENGTH;
    attr.flags = PR_MSGQ_FIFO_MESSAGES;
    attr.buffer = buffer;
    attr.buffer_bytes = bytes;
    bench_check(pr_msgq_alloc(&attr, &id), name);
    return id;
}

/* ---- one task ---- */

static void single(void *arg)
{
    (void)arg;
    const pr_id_t q = q1;
    uint32_t v = 7, w = 0;

    bench_check(pr_msgq_send(q, &v, 0, PR_NO_WAIT), "send");
    bench_check(pr_msgq_receive(q, &w, NULL, PR_NO_WAIT), "receive");
    if (w != v)
        bench_check(PR_EINVAL, "the message received must be the one sent");
    for (uint32_t i = 0; i < BENCH_WARMUP; i++) {
        pr_msgq_send(q, &v, 0, PR_NO_WAIT);
        pr_msgq_receive(q, &w, NULL, PR_NO_WAIT);
    }

    BENCH_EMPTY(loop_cost, BENCH_N);
    BENCH_TIME(pair, BENCH_N, {
        pr_msgq_send(q, &v, 0, PR_NO_WAIT);
        pr_msgq_receive(q, &w, NULL, PR_NO_WAIT);
    });
    BENCH_TIME(pair_forever, BENCH_N, {
        pr_msgq_send(q, &v, 0, PR_FOREVER);
        pr_msgq_receive(q, &w, NULL, PR_FOREVER);
    });
    unsigned char from[4] __attribute__((aligned(4))) = {1, 2, 3, 4}, to[4] __attribute__((aligned(4)));
    BENCH_TIME(memcpy4, BENCH_N, memcpy(to, from, bench_opaque(4)));

    for (uint32_t done = 0; done < BENCH_N; done += BENCH_CHUNK) {
        bench_trace_discard();
        bench_tick_mask();
        for (uint32_t i = 0; i < BENCH_CHUNK; i++) {
            unsigned long a = bench_instret();
            pr_msgq_send(q, &v, 0, PR_NO_WAIT);
            unsigned long b = bench_instret();
            pr_msgq_receive(q, &w, NULL, PR_NO_WAIT);
            unsigned long c = bench_instret();
            send_total += b - a - 1;
            receive_total += c - b - 1;
        }
        bench_tick_unmask();
    }
}

/* ---- ping-pong ---- */

static void pp_high(void *arg)
{
    (void)arg;
    const pr_id_t a = q1, b = q2;
    uint32_t v;
    for (uint32_t i = 0; i < bench_opaque(ROUNDS); i++) {
        pr_msgq_receive(a, &v, NULL, PR_FOREVER);
        pr_msgq_send(b, &v, 0, PR_FOREVER);
    }
}

static void pp_low(void *arg)
{
    (void)arg;
    const pr_id_t a = q1, b = q2;
    uint32_t v = 1;
    for (uint32_t i = 0; i < BENCH_WARMUP; i++) {
        pr_msgq_send(a, &v, 0, PR_FOREVER);
        pr_msgq_receive(b, &v, NULL, PR_FOREVER);
    }
    BENCH_EMPTY(loop_cost, BENCH_N);
    BENCH_TIME(pingpong, BENCH_N, {
        pr_msgq_send(a, &v, 0, PR_FOREVER);
        pr_msgq_receive(b, &v, NULL, PR_FOREVER);
    });
    pr_msgq_send(a, &v, 0, PR_FOREVER); /* HIGH's last round: it ends */
}

/* ---- an interrupt's send ---- */

static void send_handler(void)
{
    uint32_t v = 1;
    pr_msgq_send(qi, &v, 0, PR_NO_WAIT);
}

/* Reads the counter, then raises the interrupt with the next instruction. */
static inline unsigned long read_and_raise(void)
{
    unsigned long a;
    __asm__ volatile("csrr %0, minstret\n"
                     "sw %2, 0(%1)\n"
                     : "=&r"(a)
                     : "r"(CLINT_MSIP), "r"(1)
                     : "memory");
    return a;
}

static void isr_high(void *arg)
{
    (void)arg;
    const pr_id_t q = qi;
    uint32_t v;
    /* ITER timed interrupts, then BENCH_WARMUP + BENCH_N of the round. */
    for (uint32_t i = 0; i < ITER; i++) {
        pr_msgq_receive(q, &v, NULL, PR_FOREVER);
        b_reads[i] = bench_instret();
    }
    for (uint32_t i = 0; i < bench_opaque(BENCH_WARMUP + BENCH_N); i++)
        pr_msgq_receive(q, &v, NULL, PR_FOREVER);
}

static void isr_low(void *arg)
{
    (void)arg;
    bench_tick_mask();
    for (int i = 0; i < ITER; i++) {
        bench_trace_discard();
        a_reads[i] = read_and_raise();
    }
    bench_tick_unmask();
    for (uint32_t i = 0; i < BENCH_WARMUP; i++)
        riscv_soft_irq_raise();
    BENCH_EMPTY(round_loop, BENCH_N);
    BENCH_TIME(round_total, BENCH_N, __asm__ volatile("sw %1, 0(%0)" ::"r"(CLINT_MSIP), "r"(1) : "memory"));
}

/* ---- report ---- */

static void report_latency(const char *name)
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
    bench_begin("bench_msgq");
    bench_init();
    q1 = bench_msgq("Q", buffers[0], sizeof buffers[0]);
    bench_task("T", 4, single, NULL);
    bench_run();
    bench_report("msgq_pair", BENCH_N, pair, loop_cost, 1);
    bench_report("msgq_pair_forever", BENCH_N, pair_forever, loop_cost, 1);
    bench_report("memcpy4", BENCH_N, memcpy4, loop_cost, 1);
    bench_line("msgq_send");
    bench_kv_ratio("per_op", send_total, BENCH_N);
    bench_eol();
    bench_line("msgq_receive");
    bench_kv_ratio("per_op", receive_total, BENCH_N);
    bench_eol();

    bench_init();
    q1 = bench_msgq("Q1", buffers[0], sizeof buffers[0]);
    q2 = bench_msgq("Q2", buffers[1], sizeof buffers[1]);
    bench_task("HIGH", 4, pp_high, NULL);
    bench_task("LOW", 2, pp_low, NULL);
    bench_run();
    /* LOW's loop control is in loop_cost; HIGH's is BENCH_PARTNER_LOOP (bench.h). */
    unsigned long net = pingpong - loop_cost - BENCH_PARTNER_LOOP * BENCH_N;
    bench_line("msgq_pingpong");
    bench_kv("n", BENCH_N);
    bench_kv("total", pingpong);
    bench_kv("loop", loop_cost);
    bench_kv("partner_loop", BENCH_PARTNER_LOOP);
    bench_kv_ratio("per_op", net, BENCH_N);
    bench_kv_ratio("per_pair", net, 2 * BENCH_N);
    bench_eol();

    bench_init();
    qi = bench_msgq("QI", buffers[2], sizeof buffers[2]);
    riscv_soft_irq_handler(send_handler);
    bench_task("H", 4, isr_high, NULL);
    bench_task("L", 2, isr_low, NULL);
    bench_run();
    riscv_soft_irq_handler(NULL);
    report_latency("msgq_isr");
    /* L's loop is in round_loop; H's loop control is BENCH_PARTNER_LOOP. */
    unsigned long round_net = round_total - round_loop - BENCH_PARTNER_LOOP * BENCH_N;
    bench_line("msgq_isr_round");
    bench_kv("n", BENCH_N);
    bench_kv("total", round_total);
    bench_kv("loop", round_loop);
    bench_kv_ratio("per_op", round_net, BENCH_N);
    bench_eol();
    bench_end("bench_msgq");
    return 0;
}
