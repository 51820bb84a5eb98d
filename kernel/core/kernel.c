/*
 * The kernel's life cycle, interrupts and the tick.
 */
#include <string.h>
#include "cond_impl.h"
#include "events_impl.h"
#include "msgq_impl.h"
#include "sem_impl.h"
#include "swtimer_impl.h"
#include "privilege_impl.h"
#include "timeshare_impl.h"

static void idle_start(void)
{
    for (;;)
        pr_port_idle();
}

/* The program's own code in the tick interrupt (pr_kernel_set_tick_hook). */
static void (*tick_hook)(void *arg);
static void *tick_hook_arg;

static void set_quantum(pr_ticks_t quantum)
{
    pr_k.quantum = quantum;
    tick_work_set(TICK_EVERY_QUANTUM, quantum != 0);
}

void pr_kernel_set_tick_hook(void (*fn)(void *arg), void *arg)
{
    pr_irq_state_t irq = pr_port_irq_save();
    tick_hook = fn;
    tick_hook_arg = arg;
    tick_work_set(TICK_EVERY_HOOK, fn != NULL);
    pr_port_irq_restore(irq);
}

int pr_kernel_init(const pr_kernel_config_t *config)
{
    if (config == NULL || config->tick_hz < 1 || config->tick_hz > 1000000)
        return PR_EINVAL;
    if (config->timeshare_levels < 0 || config->timeshare_levels >= PR_CONFIG_PRIORITIES)
        return PR_EINVAL;

    memset(&pr_k, 0, sizeof pr_k);
    memset(pr_tasks, 0, (size_t)pr_task_slots_used * sizeof pr_tasks[0]); /* the rest: as the last reset */
    memset(&pr_idle, 0, sizeof pr_idle);
    pr_k.tick_hz = config->tick_hz;
    tick_hook = NULL;
    tick_hook_arg = NULL;
    set_quantum(config->quantum);
    pr_k.outside = 1;
    pr_k.defers = 1; /* outside */
    sched_reset();
    timers_reset();
    sems_reset();
    conds_reset();
    events_reset();
    msgqs_reset();
    swtimers_reset();
    timeshare_reset(config->timeshare_levels, config->timeshare_quantum, config->timeshare_decay);
    privileges_reset();
    trace_reset();

    for (int i = 0; i < pr_task_slots_used; i++) {
        pr_task_t *t = &pr_tasks[i];
        t->id = i;
        t->trace_tag = trace_task_tag(i);
        trace_task_words(t);
        t->ctx = pr_port_ctx(i);
        t->state = PR_TASK_FREE;
        list_init(&t->qlink);
    }
    pr_task_slots_used = 0;
    pr_task_t *idle = idle_task();
    idle->id = PR_IDLE_SLOT;
    idle->trace_tag = PR_TRACE_NONE;
    trace_task_words(idle);
    idle->ctx = pr_port_ctx(PR_IDLE_SLOT);
    list_init(&idle->qlink);
    memcpy(idle->name, "idle", 5);
    idle->state = PR_TASK_READY; /* never in the ready queue: chosen when it is empty */
    idle->base = idle->effective = PRIO_NONE;
    idle->takes.lo = UINT32_MAX; /* it stands for "no task": see pr_self (kernel_impl.h) */
    pr_port_context_init(PR_IDLE_SLOT, idle_start);
    pr_k.current = idle;
    self_update();
    return PR_OK;
}

pr_ticks_t pr_ticks_now(void)
{
    pr_irq_state_t irq = pr_port_irq_save(); /* 64 bits: two loads on a 32-bit CPU */
    pr_ticks_t now = pr_k.ticks;
    pr_port_irq_restore(irq);
    return now;
}

uint32_t pr_tick_hz(void) { return pr_k.tick_hz; }

void pr_sched_set_quantum(pr_ticks_t quantum)
{
    pr_irq_state_t irq = pr_port_irq_save();
    sched_quantum_changes(pr_k.quantum);
    set_quantum(quantum);
    pr_k.current->slice_left = quantum;
    pr_port_irq_restore(irq);
}

void pr_isr_enter(void)
{
    pr_k.defers++;
    pr_self = &pr_idle;
}

/* Leaving the outermost interrupt: whatever it made ready (a release, a
 * wakeup, an up) runs now if it is more urgent than the interrupted task
 * (sched_isr_leave). */
void pr_isr_exit(void)
{
    if (pr_k.defers == pr_k.outside) /* unbalanced: there is no interrupt to leave */
        return;
    sched_isr_leave();
}

/* An interrupt's handler as one call (kernel.h): the port's vector calls it
 * with its handler, and pays one call instead of three. It entered the
 * interrupt itself, so its exit needs no test of the balance. */
void pr_isr_call(void (*handler)(void))
{
    pr_isr_enter();
    handler();
    sched_isr_leave();
}

/* pr_k.ticks + 1, a word at a time where the words are in memory order.
 * Returns the new count's low word (at least its low 32 bits). */
static inline uint32_t tick_count_add1(void)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return count64_add1(&pr_k.ticks_words);
#else
    return (uint32_t)++pr_k.ticks;
#endif
}

/*
 * One tick: the count advances, the timers due at the new count fire (in the
 * order they were armed), then the running task is charged one tick of its
 * round-robin quantum. A switch this causes happens at pr_isr_exit.
 */
void pr_kernel_tick(void)
{
    uint32_t now = tick_count_add1();
    timers_fire_due(pr_k.ticks);
    sched_tick();
    if (pr_k.tick_work_every & TICK_EVERY_TIMESHARE)
        timeshare_tick();
    sched_fold(now);
}

/* A tick whose only work is the timers in its slot: the usual tick at which
 * a timer expires, without the calls that would find nothing to do. */
static __attribute__((noinline)) void tick_timers(pr_link_t *slot)
{
    pr_isr_enter();
    timers_fire_slot(slot, pr_k.ticks);
    sched_isr_leave();
}

/* A tick with work to do: timers in its slot of the wheel, a round-robin
 * quantum to charge or CPU time to fold; as pr_isr_enter();
 * pr_kernel_tick(); pr_isr_exit() after the count. */
static __attribute__((noinline)) void tick_work(uint32_t now)
{
    pr_isr_enter();
    timers_fire_due(pr_k.ticks);
    sched_tick();
    if (pr_k.tick_work_every & TICK_EVERY_TIMESHARE)
        timeshare_tick();
    sched_fold(now);
    if (tick_hook != NULL) /* after the tick's own work, as a device's handler would run */
        tick_hook(tick_hook_arg);
    sched_isr_leave();
}

/*
 * The timer interrupt's kernel work in one call, as a port's tick handler
 * would make it: pr_isr_enter(); pr_kernel_tick(); pr_isr_exit(). Most ticks
 * have nothing to do but count: no timer in their slot of the wheel, no
 * round-robin quantum to charge, no CPU time to fold. Such a tick changes
 * nothing that anything between the enter and the exit would read, or that
 * the exit's scheduling would act on (the running task stays the most
 * urgent), so it only counts.
 */
void pr_kernel_tick_isr(void)
{
    uint32_t now = tick_count_add1(); /* the slot depends on the low bits only */
    int others = (now & pr_k.tick_work_mask) == 0; /* work besides the timers (tick_work_update) */
    pr_link_t *slot = timer_slot(now);
    if (unlikely(!list_empty(slot))) {
        if (others)
            tick_work(now);
        else
            tick_timers(slot);
    } else if (unlikely(others)) {
        tick_work(now);
    }
}

void pr_kernel_stats(pr_kernel_stats_t *stats)
{
    pr_irq_state_t irq = pr_port_irq_save();
    if (stats != NULL) {
        stats->context_switches = count64_value(pr_k.context_switches);
        stats->priority_changes = count64_value(pr_k.priority_changes);
        stats->ticks = pr_k.ticks; /* one per tick since init, as the count itself */
    }
    pr_port_irq_restore(irq);
}

/* In the debug builds, the kernel's invariants are checked each time the
 * port goes outside (host: at the end of every run). Time spent outside is
 * no task's CPU time. The stamp may go on meanwhile
 * (port.h: only port time stands still), so coming back moves the current
 * task's switch-in stamp on by the time spent outside: what it ran before
 * and what it runs after add up as if no time had passed. */
void pr_kernel_set_outside(int outside)
{
    if (PR_CONFIG_ASSERT && outside) /* between runs: everything must hold (invariants.c) */
        pr_kernel_check();
    if (outside && !pr_k.outside)
        pr_k.left_at = pr_port_stamp();
    else if (!outside && pr_k.outside)
        pr_k.current->dispatched_at += (pr_stamp_t)(pr_port_stamp() - pr_k.left_at);
    outside = outside != 0;
    if (outside != pr_k.outside) { /* port time stops or goes on again */
        trace_clock_changed();
        pr_k.defers += outside ? 1 : -1;
    }
    pr_k.outside = outside;
    self_update();
}

int pr_kernel_timers_armed(void) { return pr_timers_armed; }

pr_ticks_t pr_kernel_next_timer(void) { return timers_next_expiry(); }

/*
 * `count` ticks counted at once, for a port whose idle task has nothing to do
 * until the next timer (the host port over a far phase or a long delay).
 * Such ticks only count: no timer is due in them, the idle task has no
 * quantum, and stamps that never wrap (PR_PORT_STAMP_FOLD_TICKS 0) need no
 * fold. Anything else is refused, nothing changed.
 */
int pr_kernel_skip_ticks(pr_ticks_t count)
{
    pr_ticks_t next = timers_next_expiry();
    if (PR_PORT_STAMP_FOLD_TICKS != 0 || pr_k.current != idle_task() || pr_k.defers != 0 ||
        (next != 0 && count >= next - pr_k.ticks))
        return PR_EINVAL;
    pr_k.ticks += count;
    return PR_OK;
}

/*
 * Up to `max` of the next ticks counted at once, as long as each of them
 * only counts: no timer is due at it, and no tick has other work (no
 * round-robin quantum, tick hook or time-sharing task: tick_work_every 0;
 * stamps that never wrap). Any task may be running: for a port that
 * simulates time, while a task computes (the host port), a tick that would
 * change nothing is counted rather than taken. The count stops at the
 * first tick with a timer due, and after one lap of the wheel, so that
 * each slot is looked at once: O(min(max, PR_CONFIG_TIMER_SLOTS) + the
 * timers in those slots).
 */
pr_ticks_t pr_kernel_skip_quiet_ticks(pr_ticks_t max)
{
    if (PR_PORT_STAMP_FOLD_TICKS != 0 || pr_k.tick_work_every != 0 || pr_k.defers != 0)
        return 0;
    if (max > PR_CONFIG_TIMER_SLOTS)
        max = PR_CONFIG_TIMER_SLOTS;
    pr_ticks_t n = 0;
    while (n < max && !timers_due_at(pr_k.ticks + n + 1))
        n++;
    pr_k.ticks += n;
    return n;
}

int pr_kernel_current_slot(void) { return pr_k.current->id; }
