/*
 * Host port, part 2: the virtual clock, the tick interrupt, CPU consumption,
 * idling, and running the kernel for a while from the driver.
 *
 * host.now only moves forward in pr_host_consume (a task computes), in
 * pr_port_idle (nobody is ready), and by the overheads of pr_host_set_costs
 * (0 unless asked for). Before each step forward, the due
 * "interrupts" are taken: first the stop request (time reached the driver's
 * limit: back to the driver), then the tick whose time has come. A step
 * never crosses the next tick or the limit. The ticks that would change
 * nothing are counted rather than taken: idle, those before the next timer
 * (skip_idle_ticks); while a task computes, those before the next tick with
 * work to do (skip_quiet_ticks). The trace, the times and the tick count
 * are those of taking every tick.
 */
#include <string.h>
#include "host_internal.h"

static struct {
    uint64_t now;
    uint64_t until;
    pr_ticks_t next_tick;      /* number of the next tick interrupt */
    uint64_t next_tick_time;   /* its time: next_tick * 1e9 / hz, rounded down */
    uint64_t next_tick_rest;   /* next_tick * 1e9 mod hz: the next one's time is one add away */
    uint64_t tick_ns, tick_rest; /* 1e9 / hz and 1e9 mod hz */
    pr_host_stop_t stop;
    pr_host_costs_t costs;
    int running;               /* inside pr_host_run_until: records are charged */
    int charging;              /* some per-operation cost is not 0 */
    uint64_t preempt_cost;
    uint64_t sem_cost[PR_CONFIG_MAX_SEMS][PR_HOST_OPS];
    uint64_t event_cost[PR_EV_LAST + 1];
    pr_host_tick_hook_t tick_hook; /* the driver's code in the tick interrupt, or NULL */
    void *tick_hook_arg;
} host;

/* The next tick interrupt is tick k: its time, and what the times of the
 * ticks after it are computed from without a division (next_tick_advance). */
static void next_tick_set(pr_ticks_t k)
{
    uint64_t hz = pr_tick_hz();
    host.tick_ns = 1000000000u / hz;
    host.tick_rest = 1000000000u % hz;
    host.next_tick = k;
    host.next_tick_time = pr_host_tick_time(k);
    host.next_tick_rest = (k % hz) * 1000000000u % hz;
}

/* The next tick interrupt is the one after: floor((k + 1) * 1e9 / hz) is
 * floor(k * 1e9 / hz) + 1e9 / hz, plus one when the remainders carry. */
static void next_tick_advance(void)
{
    host.next_tick++;
    host.next_tick_time += host.tick_ns;
    host.next_tick_rest += host.tick_rest;
    if (host.next_tick_rest >= pr_tick_hz()) {
        host.next_tick_rest -= pr_tick_hz();
        host.next_tick_time++;
    }
}

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
    next_tick_set(1);
    host.costs = (pr_host_costs_t){0, 0};
    host.running = 0;
    host.charging = 0;
    host.preempt_cost = 0;
    memset(host.sem_cost, 0, sizeof host.sem_cost);
    memset(host.event_cost, 0, sizeof host.event_cost);
    host.tick_hook = NULL;
    host.tick_hook_arg = NULL;
    host_trace_reset();
    return PR_OK;
}

uint64_t pr_port_now(void) { return host.now; }

void pr_host_set_costs(const pr_host_costs_t *costs) { host.costs = costs != NULL ? *costs : (pr_host_costs_t){0, 0}; }

void pr_host_set_tick_hook(pr_host_tick_hook_t fn, void *arg)
{
    host.tick_hook = fn;
    host.tick_hook_arg = arg;
}

int pr_host_set_sem_cost(pr_id_t sem, int op, uint64_t ns)
{
    if (sem < 0 || sem >= PR_CONFIG_MAX_SEMS)
        return PR_EBADID;
    if (op < 0 || op >= PR_HOST_OPS)
        return PR_EINVAL;
    host.sem_cost[sem][op] = ns;
    host.charging |= ns != 0;
    return PR_OK;
}

int pr_host_set_event_cost(int event, uint64_t ns)
{
    if (event <= 0 || event > PR_EV_LAST || event == PR_EV_SWITCH || event == PR_EV_SEM_DOWN ||
        event == PR_EV_BLOCK || event == PR_EV_SEM_UP)
        return PR_EINVAL;
    host.event_cost[event] = ns;
    host.charging |= ns != 0;
    return PR_OK;
}

void pr_host_set_preempt_cost(uint64_t ns)
{
    host.preempt_cost = ns;
    host.charging |= ns != 0;
}

#ifdef PR_PORT_TRACE_HOOK
/* The kernel's hook (port.h): the cost of the operation a record stands for,
 * added to virtual time inside the call that wrote it. A build without the
 * hook (CMakeLists.txt: priora_host_merged, for tests) charges no costs. */
void pr_port_traced(uint8_t event, pr_trace_tag_t task, pr_trace_tag_t object, int result, pr_trace_tag_t arg0,
                    pr_trace_tag_t arg1, int32_t value)
{
    (void)task, (void)arg1, (void)value;
    if (!host.charging || !host.running)
        return;
    int op;
    switch (event) {
    case PR_EV_SEM_DOWN:
        if (arg0 != 0)
            return; /* the end of a wait: charged at its BLOCK */
        op = result == PR_OK ? PR_HOST_OP_TAKE : PR_HOST_OP_TAKE_FAILED;
        break;
    case PR_EV_BLOCK:
        op = PR_HOST_OP_BLOCK;
        break;
    case PR_EV_SEM_UP:
        if (result != PR_OK)
            return;
        op = arg0 != PR_TRACE_NONE ? PR_HOST_OP_GIVE_WAKE : PR_HOST_OP_GIVE;
        break;
    case PR_EV_SWITCH:
        if (object != PR_TRACE_NONE && arg0 == PR_TASK_READY)
            host.now += host.preempt_cost;
        return;
    default:
        if (event <= PR_EV_LAST)
            host.now += host.event_cost[event];
        return;
    }
    if (object < PR_CONFIG_MAX_SEMS)
        host.now += host.sem_cost[object][op];
}
#endif

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
            next_tick_advance();
            if (host.tick_hook == NULL && host.costs.tick_ns == 0) {
                /* Nothing to run inside the interrupt but the kernel's
                 * tick: the one-call form a hardware port uses, which only
                 * counts a tick with nothing due (most of them). */
                pr_kernel_tick_isr();
                continue;
            }
            pr_isr_enter();
            pr_kernel_tick();
            if (host.tick_hook != NULL) /* after the tick's work, as a driver's own interrupt handler */
                host.tick_hook(host.tick_hook_arg);
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

/* The last tick whose time is before `ns` (0: none): ceil(ns * hz / 1e9) - 1,
 * in two parts so that nothing overflows. */
static pr_ticks_t last_tick_before(uint64_t ns)
{
    uint64_t hz = pr_tick_hz();
    pr_ticks_t ticks = (ns / 1000000000u) * hz + ((ns % 1000000000u) * hz + 999999999u) / 1000000000u;
    return ticks > 0 ? ticks - 1 : 0;
}

/* A task computes for `amount` more: of the ticks it would take on the way
 * (those before its end and before the driver's limit), the next ones that
 * would change nothing are counted at once (pr_kernel_skip_quiet_ticks),
 * not taken one by one. Most ticks of a computation are such ticks. Not
 * with a tick hook or a tick cost, which every tick runs or pays. */
static void skip_quiet_ticks(uint64_t amount)
{
    uint64_t limit = amount < host.until - host.now ? host.now + amount : host.until;
    if (host.next_tick_time >= limit || host.tick_hook != NULL || host.costs.tick_ns != 0)
        return;
    pr_ticks_t n = pr_kernel_skip_quiet_ticks(last_tick_before(limit) - host.next_tick + 1);
    if (n > 0)
        next_tick_set(host.next_tick + n);
}

/* A task whose critical section was aborted (rcs), or whose job was
 * (task.h: pr_task_aborted), stops computing at once, also when the abort
 * happened while it was preempted in here. */
void pr_port_consume(uint64_t amount)
{
    while (amount > 0 && pr_sem_aborted() == 0 && pr_task_aborted() == 0) {
        take_interrupts();
        if (pr_sem_aborted() != 0 || pr_task_aborted() != 0)
            return;
        skip_quiet_ticks(amount);
        uint64_t step = next_event_time() - host.now;
        if (step > amount)
            step = amount;
        host.now += step;
        amount -= step;
    }
}

void pr_host_consume(uint64_t ns) { pr_port_consume(ns); }

/* Nothing is ready: the ticks before the next timer's only count, so they
 * are counted at once rather than taken one by one (a phase or a delay of
 * 10^12 ticks is one step). Not with a tick hook, whose code runs at every
 * tick; the ticks at or after the driver's limit stay for its next run. The
 * skipped ticks' costs would fall in idle time, so no time is lost. */
static void skip_idle_ticks(void)
{
    if (host.tick_hook != NULL)
        return;
    pr_ticks_t last = pr_kernel_next_timer() - 1; /* a timer is armed: at least next_tick */
    pr_ticks_t limit = last_tick_before(host.until);
    if (last > limit)
        last = limit;
    if (last < host.next_tick || pr_kernel_skip_ticks(last - host.next_tick + 1) != PR_OK)
        return;
    next_tick_set(last + 1);
}

void pr_port_idle(void)
{
    take_interrupts();
    if (pr_kernel_timers_armed() == 0) {
        back_to_driver(PR_HOST_QUIESCENT);
        return;
    }
    skip_idle_ticks();
    host.now = next_event_time();
}

pr_host_stop_t pr_host_run_until(uint64_t until_ns)
{
    host.until = until_ns;
    if (host.now >= until_ns)
        return PR_HOST_REACHED;
    pr_kernel_set_outside(0);
    host.running = 1;
    host_charge_switch();
    host_context_switch(MAIN_SLOT, pr_kernel_dispatch());
    host.running = 0;
    pr_kernel_set_outside(1);
    return host.stop;
}

pr_host_stop_t pr_host_run_ticks(pr_ticks_t tick) { return pr_host_run_until(pr_host_tick_time(tick)); }
