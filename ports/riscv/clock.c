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

/* The program's code in the tick interrupt (pr_riscv_set_tick_hook). */
static void (*tick_hook)(void *arg);
static void *tick_hook_arg;

/* The external definitions of the inline functions (C99 inline). */
extern uint64_t riscv_mtime(void);
extern uint64_t riscv_kernel_mtime(void);
extern pr_stamp_t pr_port_stamp(void);
extern uint64_t pr_port_stamp_time(uint64_t stamps);
extern uint64_t pr_port_now(void);

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



/* The timer interrupt reprograms mtimecmp before the tick's work, so a tick
 * whose count mtime has reached is one not taken yet (interrupts masked). */
int pr_port_tick_due(void) { return riscv_kernel_mtime() >= clk.next_count; }
uint64_t pr_riscv_now(void) { return pr_port_now(); }

static inline void advance(void)
{
    clk.next_count += clk.step;
    if (clk.rem == 0) /* a rate that divides 10^7 (1000 Hz): no fraction to carry */
        return;
    clk.frac += clk.rem;
    if (clk.frac >= clk.hz) {
        clk.frac -= clk.hz;
        clk.next_count++;
    }
}

/* After pr_kernel_init: time 0 is now, the next tick is tick 1. */
void riscv_clock_reset(void)
{
    tick_hook = NULL;
    tick_hook_arg = NULL;
    clk.hz = pr_tick_hz();
    clk.step = MTIME_HZ / clk.hz;
    clk.rem = MTIME_HZ % clk.hz;
    clk.frac = 0;
    clk.epoch = clk.next_count = clk.stopped = riscv_mtime();
    clk.running = 0;
    advance();
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
 * UINT64_MAX) is decided by one load. mtime read after its high half can
 * only be larger, so a smaller high half means not reached. */
static inline int tick_reached(uint64_t until_count)
{
#if __riscv_xlen == 32
    if (mmio_read32(CLINT_MTIME + 4) < (uint32_t)(until_count >> 32))
        return 0;
#endif
    return riscv_mtime() >= until_count;
}

/* The machine timer interrupt (trap.c), interrupts masked. */
void riscv_timer_interrupt(void)
{
    if (tick_reached(clk.until)) {
        /* The run's end comes before the tick due at the same instant (as
         * on the host port); the tick stays pending for the next run. */
        riscv_run_stop(PR_RISCV_REACHED);
        return;
    }
    advance();
    set_mtimecmp(next_interrupt());
    if (tick_hook == NULL) {
        pr_kernel_tick_isr(); /* may switch to another task: see vector.S */
        return;
    }
    pr_isr_enter(); /* as the host port: the hook after the tick's work */
    pr_kernel_tick();
    tick_hook(tick_hook_arg);
    pr_isr_exit(); /* may switch to another task */
}

void pr_riscv_set_tick_hook(void (*fn)(void *arg), void *arg)
{
    pr_irq_state_t irq = pr_port_irq_save();
    tick_hook = fn;
    tick_hook_arg = arg;
    pr_port_irq_restore(irq);
}
