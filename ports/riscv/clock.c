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

static struct {
    uint64_t epoch;          /* mtime at pr_riscv_init */
    uint64_t next_count;     /* absolute mtime count of tick next_tick */
    pr_ticks_t next_tick;
    uint32_t step, rem, hz;  /* counts per tick = step + rem / hz */
    uint32_t frac;           /* (next_tick * 10^7) mod hz */
    pr_ticks_t until;        /* stop at this tick's instant; 0 = never */
} clk;

uint64_t riscv_mtime(void)
{
#if __riscv_xlen == 64
    return *(volatile uint64_t *)CLINT_MTIME;
#else
    /* Two 32-bit halves: re-read if the high half moved in between. */
    uint32_t hi, lo;
    do {
        hi = mmio_read32(CLINT_MTIME + 4);
        lo = mmio_read32(CLINT_MTIME);
    } while (hi != mmio_read32(CLINT_MTIME + 4));
    return ((uint64_t)hi << 32) | lo;
#endif
}

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

uint64_t pr_port_now(void) { return (riscv_mtime() - clk.epoch) * NS_PER_MTIME; }

/* The timer interrupt reprograms mtimecmp before the tick's work, so a tick
 * whose count mtime has reached is one not taken yet (interrupts masked). */
int pr_port_tick_due(void) { return riscv_mtime() >= clk.next_count; }
uint64_t pr_riscv_now(void) { return pr_port_now(); }

static void advance(void)
{
    clk.next_tick++;
    clk.next_count += clk.step;
    clk.frac += clk.rem;
    if (clk.frac >= clk.hz) {
        clk.frac -= clk.hz;
        clk.next_count++;
    }
}

/* After pr_kernel_init: time 0 is now, the next tick is tick 1. */
void riscv_clock_reset(void)
{
    clk.hz = pr_tick_hz();
    clk.step = MTIME_HZ / clk.hz;
    clk.rem = MTIME_HZ % clk.hz;
    clk.frac = 0;
    clk.next_tick = 0;
    clk.epoch = clk.next_count = riscv_mtime();
    advance();
}

/* 1 if a run with this limit has nothing to do: its tick instant is here. */
int riscv_clock_reached(pr_ticks_t until_tick) { return until_tick != 0 && clk.next_tick >= until_tick; }

void riscv_timer_start(pr_ticks_t until_tick)
{
    clk.until = until_tick;
    set_mtimecmp(clk.next_count);
    csr_set(mie, MIE_MTIE);
}

void riscv_timer_stop(void)
{
    csr_clear(mie, MIE_MTIE);
    set_mtimecmp(UINT64_MAX);
}

/* The machine timer interrupt (trap.c), interrupts masked. */
void riscv_timer_interrupt(void)
{
    if (riscv_clock_reached(clk.until)) {
        /* The run's end comes before the tick due at the same instant (as
         * on the host port); the tick stays pending for the next run. */
        riscv_run_stop(PR_RISCV_REACHED);
        return;
    }
    advance();
    set_mtimecmp(clk.next_count);
    pr_isr_enter();
    pr_kernel_tick();
    pr_isr_exit(); /* may switch to another task: see vector.S */
}
