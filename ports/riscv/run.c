/*
 * Running the kernel from the program (main), as on the host port: the
 * program is "outside" the kernel while it sets up; pr_riscv_run starts the
 * timer and switches from the program's context to the kernel's chosen task;
 * the run ends when the kernel context switches back to the program:
 *   - at the instant of the requested tick (clock.c, from the interrupt), or
 *   - when the idle task finds nothing left to happen (no task ready, no
 *     timer armed): quiescence.
 * The interrupted kernel context stays suspended where it was, so a later
 * pr_riscv_run continues it.
 */
#include "riscv.h"

static pr_riscv_stop_t stop_reason;

int pr_riscv_init(const pr_kernel_config_t *config)
{
    riscv_timer_stop();
    int err = pr_kernel_init(config);
    if (err != PR_OK)
        return err;
    riscv_clock_reset();
    riscv_trace_reset();
    return PR_OK;
}

static pr_riscv_stop_t run_until_count(uint64_t until_count)
{
    if (riscv_clock_reached(until_count))
        return PR_RISCV_REACHED;
    pr_kernel_set_outside(0);
    riscv_timer_start(until_count);
    riscv_context_switch(MAIN_SLOT, pr_kernel_dispatch());
    pr_kernel_set_outside(1);
    return stop_reason;
}

/* The limits are converted after the clock resumes (riscv_clock_resume
 * moves the epoch they count from). */
pr_riscv_stop_t pr_riscv_run(pr_ticks_t until_tick)
{
    riscv_clock_resume();
    pr_riscv_stop_t why = run_until_count(until_tick != 0 ? riscv_tick_count(until_tick) : UINT64_MAX);
    riscv_clock_pause();
    return why;
}

pr_riscv_stop_t pr_riscv_run_until(uint64_t until_ns)
{
    riscv_clock_resume();
    pr_riscv_stop_t why = run_until_count(riscv_ns_count(until_ns));
    riscv_clock_pause();
    return why;
}

void riscv_run_stop(pr_riscv_stop_t why)
{
    riscv_timer_stop();
    stop_reason = why;
    riscv_context_switch(pr_kernel_current_slot(), MAIN_SLOT);
}

/*
 * The idle task's body (port.h). Interrupts are masked for the check and
 * the wfi: an interrupt taken between "a timer is armed" and wfi would
 * otherwise be missed and the hart would sleep past it. wfi wakes up when
 * an enabled interrupt is pending even with mstatus.MIE clear; the
 * interrupt is then taken when restore sets MIE. Under -icount with
 * sleep=off, QEMU jumps virtual time straight to the next timer event.
 */
void pr_port_idle(void)
{
    pr_irq_state_t irq = pr_port_irq_save();
    if (pr_kernel_timers_armed() == 0)
        riscv_run_stop(PR_RISCV_QUIESCENT);
    else
        __asm__ volatile("wfi");
    pr_port_irq_restore(irq);
}
