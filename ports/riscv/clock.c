/*
 * Time and the tick: the CLINT's mtime counter (10 MHz on QEMU virt) is the
 * clock, and its hart-0 compare register mtimecmp raises the machine timer
 * interrupt (mip.MTIP) while mtime >= mtimecmp. Writing the next tick's
 * count to mtimecmp both clears the pending interrupt and arms the next.
 *
 * Port time (pr_port_now) is ns since pr_riscv_init: (mtime - epoch) * 100.
 * Tick k is due at mtime count epoch + floor(k * 10^7 / tick_hz), computed
 * incrementally without a division (an exact running remainder), so the
 * ticks never drift at any rate. Under QEMU -icount shift=0 one instruction
 * takes 1 ns of virtual time: the clock is deterministic.
 */
#include "riscv.h"

/* The clock's state. Its type is in port_inline.h, where pr_port_now reads
 * it inline; `clk` in this file. */
struct riscv_clock riscv_clk;
#define clk riscv_clk


/* The external definitions of the inline functions (C99 inline). */
extern uint64_t riscv_mtime(void);
extern uint64_t riscv_kernel_mtime(void);
extern pr_stamp_t pr_port_stamp(void);
extern uint64_t pr_port_stamp_time(uint64_t stamps);
extern uint64_t pr_port_now(void);
extern uint64_t pr_port_now_and_stamp(pr_stamp_t *stamp);
extern int pr_port_tick_due(void);

static void set_mtimecmp(uint64_t count)
{
#if __riscv_xlen == 64
    *(volatile uint64_t *)CLINT_MTIMECMP = count;
#else
    /* High half to the maximum first, so that no intermediate value (new low
     * half, old high half) is in the past and fires a spurious interrupt. */
    mmio_write32(CLINT_MTIMECMP + 4, 0xFFFFFFFFu);
    mmio_write32(CLINT_MTIMECMP, (uint32_t)count);
    mmio_write32(CLINT_MTIMECMP + 4, (uint32_t)(count >> 32));
#endif
}



uint64_t pr_riscv_now(void) { return pr_port_now(); }

/* clk.next_count moves on by one tick: step counts, and one more where the
 * running remainder carries. Returns the new count. */
static inline uint64_t advance(void)
{
    uint64_t next;
#if __riscv_xlen == 32
    /* A word at a time: the high word changes once in 2^32 counts, where a
     * 64-bit add computes its carry every time. */
    uint32_t lo = clk.next_words.lo + clk.step, hi = clk.next_words.hi;
    if (__builtin_expect(lo < clk.step, 0))
        hi++;
    next = (uint64_t)hi << 32 | lo;
#else
    next = clk.next_count + clk.step;
#endif
    if (clk.rem != 0) { /* a rate that does not divide 10^7 (1000 Hz does) */
        clk.frac += clk.rem;
        if (clk.frac >= clk.hz) {
            clk.frac -= clk.hz;
            next++;
        }
    }
    clk.next_count = next;
    return next;
}

/* After pr_kernel_init: time 0 is now, the next tick is tick 1. */
void riscv_clock_reset(void)
{
    clk.hz = pr_tick_hz();
    clk.step = MTIME_HZ / clk.hz;
    clk.rem = MTIME_HZ % clk.hz;
    clk.frac = 0;
    clk.epoch = clk.next_count = clk.stopped = riscv_mtime();
    clk.running = 0;
    (void)advance();
}

/* The absolute mtime count of tick k: epoch + floor(k * 10^7 / hz), split
 * so that the product never overflows. */
uint64_t riscv_tick_count(pr_ticks_t k)
{
    return clk.epoch + (k / clk.hz) * MTIME_HZ + (k % clk.hz) * MTIME_HZ / clk.hz;
}

/* The first mtime count at or after port time `ns` (UINT64_MAX stays). */
uint64_t riscv_ns_count(uint64_t ns)
{
    if (ns == UINT64_MAX)
        return UINT64_MAX;
    return clk.epoch + ns / NS_PER_MTIME + (ns % NS_PER_MTIME != 0 ? 1 : 0);
}

/* 1 if a run that stops at this count has nothing to do: its instant is here. */
int riscv_clock_reached(uint64_t until_count) { return riscv_mtime() >= until_count; }

static uint64_t next_interrupt(void) { return clk.next_count < clk.until ? clk.next_count : clk.until; }

/*
 * Port time stands still between runs, as on the host port: the program's
 * own work between two runs (checks, printing) must not count as the
 * kernel's time, or the ticks it makes due would fire back to back when the
 * run continues, at other points of the tasks' computations than on the
 * host. Resuming shifts the epoch, and every tick, by the pause.
 */
void riscv_clock_pause(void)
{
    clk.stopped = riscv_mtime();
    clk.running = 0;
}

void riscv_clock_resume(void)
{
    uint64_t now = riscv_mtime(), pause = now - clk.stopped;
    clk.epoch += pause;
    clk.next_count += pause;
    clk.stopped = now;
    clk.running = 1;
}

void riscv_timer_start(uint64_t until_count)
{
    clk.until = until_count;
    set_mtimecmp(next_interrupt());
    csr_set(mie, MIE_MTIE);
}

void riscv_timer_stop(void)
{
    csr_clear(mie, MIE_MTIE);
    set_mtimecmp(UINT64_MAX);
}

/* riscv_clock_reached for the tick, which asks on every tick: on RV32 the
 * high halves first, so that a limit in a later high half (no limit is
 * UINT64_MAX) is decided by one read (the timeh CSR). mtime read after its high half can
 * only be larger, so a smaller high half means not reached. */
static inline int tick_reached(uint64_t until_count)
{
#if __riscv_xlen == 32
    uint32_t high;
    __asm__ volatile("csrr %0, timeh" : "=r"(high)); /* mtime's high half, as the time CSR */
    if (high < (uint32_t)(until_count >> 32))
        return 0;
#endif
    return riscv_mtime() >= until_count;
}

/* mtimecmp moved on from `old` to a later `count`. On RV32, where the two
 * have the same high half (all but once in 2^32 counts), writing the low
 * half alone moves it at once, with no value in between. */
static inline void set_mtimecmp_later(uint64_t count, uint64_t old)
{
#if __riscv_xlen == 32
    if ((uint32_t)(count >> 32) == (uint32_t)(old >> 32)) {
        mmio_write32(CLINT_MTIMECMP, (uint32_t)count);
        return;
    }
#endif
    (void)old;
    set_mtimecmp(count);
}

/* The machine timer interrupt (trap.c), interrupts masked. Past the limit
 * test, mtimecmp holds the tick's count, clk.next_count: a limit at or
 * before it would have stopped the run. */
void riscv_timer_interrupt(void)
{
    if (tick_reached(clk.until)) {
        /* The run's end comes before the tick due at the same instant (as
         * on the host port); the tick stays pending for the next run. */
        riscv_run_stop(PR_RISCV_REACHED);
        return;
    }
    uint64_t fired = clk.next_count, next = advance();
    if (__builtin_expect(next < clk.until, 1))
        set_mtimecmp_later(next, fired);
    else
        set_mtimecmp(clk.until);
    pr_kernel_tick_isr(); /* may switch to another task: see vector.S */
}

/* The program's code in the tick interrupt: the kernel's tick hook, which
 * runs it after the tick's own work, inside the interrupt. */
void pr_riscv_set_tick_hook(void (*fn)(void *arg), void *arg) { pr_kernel_set_tick_hook(fn, arg); }
