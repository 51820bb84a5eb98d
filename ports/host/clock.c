/*
 * Host port, part 2: the virtual clock, the tick interrupt, CPU consumption,
 * idling, and running the kernel for a while from the driver.
 *
 * host.now only moves forward in pr_host_consume (a task computes), in
 * pr_port_idle (nobody is ready), and by the overheads of pr_host_set_costs
 * (0 unless asked for). Before each step forward, the due
 * "interrupts" are taken: first the stop request (time reached the driver's
 * limit: back to the driver), then the tick whose time has come. A step
 * never crosses the next tick or the limit.
 */
#include "host_internal.h"

static struct {
    uint64_t now;
    uint64_t until;
    pr_ticks_t next_tick;      /* number of the next tick interrupt */
    uint64_t next_tick_time;
    pr_host_stop_t stop;
    pr_host_costs_t costs;
} host;

uint64_t pr_host_tick_time(pr_ticks_t k)
{
    /* k * 1e9 / hz without overflow for any realistic k, and exact. */
    uint64_t hz = pr_tick_hz();
    return (k / hz) * 1000000000u + (k % hz) * 1000000000u / hz;
}

int pr_host_init(const pr_kernel_config_t *config)
{
    int err = pr_kernel_init(config);
    if (err != PR_OK)
        return err;
    host.now = 0;
    host.until = 0;
    host.next_tick = 1;
    host.next_tick_time = pr_host_tick_time(1);
    host.costs = (pr_host_costs_t){0, 0};
    host_trace_reset();
    return PR_OK;
}

uint64_t pr_port_now(void) { return host.now; }

void pr_host_set_costs(const pr_host_costs_t *costs) { host.costs = costs != NULL ? *costs : (pr_host_costs_t){0, 0}; }

/* A switch's cost, charged inside the kernel call that switches: the tick
 * interrupts it makes due are taken when time next advances (as a real CPU
 * takes them when the call unmasks). */
void host_charge_switch(void) { host.now += host.costs.switch_ns; }

/* A call made at a tick's instant runs before that tick is taken. */
int pr_port_tick_due(void) { return host.now >= host.next_tick_time; }

/* The host's interrupts (the tick) are only taken when virtual time
 * advances, in pr_host_consume or idle, never inside a kernel call: there is
 * nothing to mask. */
pr_irq_state_t pr_port_irq_save(void) { return 0; }
void pr_port_irq_restore(pr_irq_state_t state) { (void)state; }
uint64_t pr_host_now(void) { return host.now; }

static void back_to_driver(pr_host_stop_t why)
{
    host.stop = why;
    host_context_switch(pr_kernel_current_slot(), MAIN_SLOT);
}

/* Takes every interrupt due at the current instant. May switch to another
 * task or to the driver; returns when the caller may advance time. */
static void take_interrupts(void)
{
    for (;;) {
        if (host.now >= host.until) {
            back_to_driver(PR_HOST_REACHED);
        } else if (host.now >= host.next_tick_time) {
            host.next_tick++;
            host.next_tick_time = pr_host_tick_time(host.next_tick);
            pr_isr_enter();
            pr_kernel_tick();
            host.now += host.costs.tick_ns;
            pr_isr_exit();
        } else {
            return;
        }
    }
}

static uint64_t next_event_time(void)
{
    return host.next_tick_time < host.until ? host.next_tick_time : host.until;
}

/* A task whose critical section was aborted (rcs) stops computing at once,
 * also when the abort happened while it was preempted in here. */
void pr_port_consume(uint64_t amount)
{
    while (amount > 0 && pr_sem_aborted() == 0) {
        take_interrupts();
        if (pr_sem_aborted() != 0)
            return;
        uint64_t step = next_event_time() - host.now;
        if (step > amount)
            step = amount;
        host.now += step;
        amount -= step;
    }
}

void pr_host_consume(uint64_t ns) { pr_port_consume(ns); }

void pr_port_idle(void)
{
    take_interrupts();
    if (pr_kernel_timers_armed() == 0) {
        back_to_driver(PR_HOST_QUIESCENT);
        return;
    }
    host.now = next_event_time();
}

pr_host_stop_t pr_host_run_until(uint64_t until_ns)
{
    host.until = until_ns;
    if (host.now >= until_ns)
        return PR_HOST_REACHED;
    pr_kernel_set_outside(0);
    host_charge_switch();
    host_context_switch(MAIN_SLOT, pr_kernel_dispatch());
    pr_kernel_set_outside(1);
    return host.stop;
}

pr_host_stop_t pr_host_run_ticks(pr_ticks_t tick) { return pr_host_run_until(pr_host_tick_time(tick)); }
