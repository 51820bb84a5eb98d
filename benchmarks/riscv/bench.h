/*
 * What the RISC-V microbenchmarks share (benchmarks/riscv/bench_*.c; the
 * driver is benchmarks/riscv/bench.py, the figures docs/performance.md).
 *
 * The unit is the instruction. Under QEMU's -icount shift=0 the counters
 * minstret and mcycle both count retired instructions (bench_sem checks that
 * they agree), so every figure is an exact, repeatable integer: the same
 * method as the FreeRTOS figures of shared/research/freertos-on-qemu.md.
 *
 * The rules every benchmark follows:
 *  - the tick interrupt is masked inside a timed window (mie.MTIE cleared;
 *    a tick that falls due meanwhile is taken just after the window);
 *  - the loop's own instructions are removed: the same loop with an empty
 *    body is timed the same way and subtracted;
 *  - the caller's side of a call is included (argument set-up, the call,
 *    the return), as a C caller pays it;
 *  - with tracing compiled in, the kernel's ring (PR_CONFIG_TRACE_RECORDS
 *    records) is emptied before each window and a window never holds more
 *    records than the ring: draining prints over the UART, which is the
 *    port's cost, not the kernel's. Windows are BENCH_CHUNK iterations.
 *
 * Output, one line per figure, over the UART (bench.py parses it):
 *   BENCH-BEGIN <program> isa=rv32 trace=0
 *   BENCH <name> key=value ...
 *   BENCH-END <program>
 */
#ifndef PRIORA_BENCH_H
#define PRIORA_BENCH_H

#include "priora/priora.h"
#include "priora/riscv.h"

#ifndef BENCH_N
#define BENCH_N 10000u /* iterations of a single-operation loop, rounds of a two-task loop */
#endif
#define BENCH_CHUNK 50u  /* iterations per timed window (see above) */
#define BENCH_WARMUP 16u /* untimed iterations first, as in the FreeRTOS method */

/* The instruction counter (its low XLEN bits: every window is far shorter). */
static inline unsigned long bench_instret(void)
{
    unsigned long v;
    __asm__ volatile("csrr %0, minstret" : "=r"(v)::"memory");
    return v;
}

static inline unsigned long bench_cycle(void)
{
    unsigned long v;
    __asm__ volatile("csrr %0, mcycle" : "=r"(v)::"memory");
    return v;
}

/* The tick interrupt off and on (mie.MTIE): around every timed window. */
static inline void bench_tick_mask(void) { __asm__ volatile("csrc mie, %0" ::"r"(0x80ul) : "memory"); }
static inline void bench_tick_unmask(void) { __asm__ volatile("csrs mie, %0" ::"r"(0x80ul) : "memory"); }

/* A value the compiler cannot see through: keeps a loop bound from being
 * folded, so that an empty timed loop is not unrolled or removed. */
static inline uint32_t bench_opaque(uint32_t v)
{
    __asm__ volatile("" : "+r"(v));
    return v;
}

/* Empties the trace ring without printing it (no-op with tracing out). */
static inline void bench_trace_discard(void)
{
#if PR_CONFIG_TRACE
    static pr_trace_record_t sink[16];
    while (pr_trace_drain(sink, sizeof sink / sizeof sink[0]) > 0)
        ;
#endif
}

/*
 * Times `n` iterations of `body` (a statement) in windows of BENCH_CHUNK
 * iterations, and stores the sum of the windows' instruction counts in
 * `result`. n must be a multiple of BENCH_CHUNK. The same macro with an
 * empty body gives the loop's own cost, to subtract.
 */
#define BENCH_TIME(result, n, body)                                                                \
    do {                                                                                           \
        unsigned long sum_ = 0;                                                                    \
        uint32_t chunk_ = bench_opaque(BENCH_CHUNK);                                               \
        for (uint32_t done_ = 0; done_ < (n); done_ += BENCH_CHUNK) {                              \
            bench_trace_discard();                                                                 \
            bench_tick_mask();                                                                     \
            unsigned long t0_ = bench_instret();                                                   \
            for (uint32_t i_ = 0; i_ < chunk_; i_++) {                                             \
                body;                                                                              \
            }                                                                                      \
            unsigned long t1_ = bench_instret();                                                   \
            bench_tick_unmask();                                                                   \
            sum_ += t1_ - t0_;                                                                     \
        }                                                                                          \
        (result) = sum_;                                                                           \
    } while (0)

/* The empty loop: the cost BENCH_TIME adds around its body. */
#define BENCH_EMPTY(result, n) BENCH_TIME(result, n, __asm__ volatile(""))

/*
 * A two-task benchmark's partner (the task that does not time) runs its
 * own counted loop, `for (uint32_t i = 0; i < bench_opaque(n); i++)`, one
 * iteration per round of the timed loop and inside its windows; the figures
 * subtract its control. Per iteration: the count, a fresh copy of the bound
 * (bench_opaque's asm may change the register it is given) and the branch
 * (objdump -d of task_b in bench_switch, high in bench_pingpong, consumer
 * in bench_prodcons):
 *   RV32  add s0,s0,1; mv a5,s1; bltu s0,a5           3
 *   RV64  addw s0,s0,1; mv a5,s1; sext.w a5,a5; bltu  4 (the 32-bit bound
 *         is sign-extended again after the asm)
 * BENCH_EMPTY does not give it: the timed loop's bound stays in a register
 * and its control is 2 (add, bne).
 */
#define BENCH_PARTNER_LOOP (__riscv_xlen == 64 ? 4u : 3u)

/*
 * Each call of a mutex's down + up pair alone, BENCH_N times, in windows of
 * BENCH_CHUNK: a counter read on each side of each call, and the
 * instructions strictly between two reads = their difference - 1 (two reads
 * in a row differ by exactly 1). Stores the totals over BENCH_N.
 */
static inline void bench_split_pair(pr_id_t m, unsigned long *down_total, unsigned long *up_total)
{
    unsigned long down = 0, up = 0;
    for (uint32_t done = 0; done < BENCH_N; done += BENCH_CHUNK) {
        bench_trace_discard();
        bench_tick_mask();
        for (uint32_t i = 0; i < BENCH_CHUNK; i++) {
            unsigned long a = bench_instret();
            pr_sem_down(m, PR_FOREVER);
            unsigned long b = bench_instret();
            pr_sem_up(m);
            unsigned long c = bench_instret();
            down += b - a - 1;
            up += c - b - 1;
        }
        bench_tick_unmask();
    }
    *down_total = down;
    *up_total = up;
}

/* ---- output ---- */

static inline void bench_begin(const char *program)
{
    pr_riscv_puts("BENCH-BEGIN ");
    pr_riscv_puts(program);
    pr_riscv_puts(__riscv_xlen == 64 ? " isa=rv64" : " isa=rv32");
    pr_riscv_puts(PR_CONFIG_TRACE ? " trace=1\n" : " trace=0\n");
}

static inline void bench_end(const char *program)
{
    pr_riscv_puts("BENCH-END ");
    pr_riscv_puts(program);
    pr_riscv_putc('\n');
}

/* A line is "BENCH <name>", then " key=value" pairs, then bench_eol(). */
static inline void bench_line(const char *name)
{
    pr_riscv_puts("BENCH ");
    pr_riscv_puts(name);
}

static inline void bench_kv(const char *key, uint64_t value)
{
    pr_riscv_putc(' ');
    pr_riscv_puts(key);
    pr_riscv_putc('=');
    pr_riscv_put_dec(value);
}

static inline void bench_kv_signed(const char *key, int64_t value)
{
    pr_riscv_putc(' ');
    pr_riscv_puts(key);
    pr_riscv_putc('=');
    if (value < 0)
        pr_riscv_putc('-');
    pr_riscv_put_dec(value < 0 ? (uint64_t)-value : (uint64_t)value);
}

/* num / den with two decimals, rounded (num >= 0). */
static inline void bench_kv_ratio(const char *key, uint64_t num, uint64_t den)
{
    uint64_t hundredths = (num * 100 + den / 2) / den;
    pr_riscv_putc(' ');
    pr_riscv_puts(key);
    pr_riscv_putc('=');
    pr_riscv_put_dec(hundredths / 100);
    pr_riscv_putc('.');
    pr_riscv_putc((char)('0' + hundredths / 10 % 10));
    pr_riscv_putc((char)('0' + hundredths % 10));
}

static inline void bench_eol(void) { pr_riscv_putc('\n'); }

/* The usual line of a timed loop: n iterations, raw total, the empty
 * loop's total, and (total - loop) / (n * per_iter) as `per_op`. */
static inline void bench_report(const char *name, uint32_t n, unsigned long total, unsigned long loop,
                                uint32_t per_iter)
{
    bench_line(name);
    bench_kv("n", n);
    bench_kv("total", total);
    bench_kv("loop", loop);
    bench_kv("ops_per_iter", per_iter);
    bench_kv_ratio("per_op", (uint64_t)(total - loop), (uint64_t)n * per_iter);
    bench_eol();
}

/* ---- set-up helpers: any failure stops the program (QEMU exits 1) ---- */

static inline void bench_check(int err, const char *what)
{
    if (err == PR_OK)
        return;
    pr_riscv_puts("BENCH-ERROR ");
    pr_riscv_puts(what);
    pr_riscv_puts(": ");
    pr_riscv_puts(pr_errname(err));
    pr_riscv_putc('\n');
    pr_riscv_exit(1);
}

static inline void bench_init(void)
{
    pr_kernel_config_t cfg = {.tick_hz = 1000, .quantum = 0};
    bench_check(pr_riscv_init(&cfg), "pr_riscv_init");
}

static inline pr_id_t bench_task(const char *name, pr_prio_t prio, pr_entry_t entry, void *arg)
{
    pr_task_attr_t attr;
    pr_id_t id = PR_NO_TASK;
    pr_task_attr_init(&attr);
    attr.name = name;
    attr.priority = prio;
    attr.entry = entry;
    attr.arg = arg;
    bench_check(pr_task_create(&attr, &id), name);
    return id;
}

/* flags: PR_SEM_PRIO, PR_SEM_MUTEX; value is ignored for a mutex. */
static inline pr_id_t bench_sem(const char *name, unsigned flags, pr_protocol_t protocol, int value)
{
    pr_sem_attr_t attr;
    pr_id_t id = PR_NO_SEM;
    pr_sem_attr_init(&attr);
    attr.name = name;
    attr.flags = flags;
    attr.protocol = protocol;
    attr.value = (flags & PR_SEM_MUTEX) ? 1 : value;
    bench_check(pr_sem_alloc(&attr, &id), name);
    return id;
}

/* Runs the tasks to quiescence; a run that stops otherwise is a failure. */
static inline void bench_run(void)
{
    if (pr_riscv_run(0) != PR_RISCV_QUIESCENT) {
        pr_riscv_puts("BENCH-ERROR the run did not end quiescent\n");
        pr_riscv_exit(1);
    }
}

#endif /* PRIORA_BENCH_H */
