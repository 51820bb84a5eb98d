/*
 * The scheduler: fixed priorities, preemptive, round-robin among equals.
 *
 * The ready queue (ready.h) is indexed by effective priority; the running
 * task stays in it, at the head of its level. The next task to run is the
 * head of the highest non-empty level, found in O(1); the idle task runs
 * when the queue is empty.
 *
 * Placement rules (they decide who runs among equals):
 *  - a task that becomes ready goes to the tail of its level;
 *  - a task preempted by a more urgent one stays at the head of its level;
 *  - a task whose effective priority changes goes to the tail of its new
 *    level, except the running task, which goes to the head (a boost or an
 *    unboost never makes it yield to an equal);
 *  - at the end of its quantum (if the quantum is not 0), or on a yield, the
 *    running task goes to the tail of its level.
 *
 * A switch happens at the instant a more urgent task becomes ready: in the
 * call that readied it, or at the end of the interrupt that did.
 */
#include "sched.h"
#include "trace_impl.h"

void sched_make_ready(pr_task_t *t) { ready_add(t); }

void sched_make_unready(pr_task_t *t, pr_task_state_t state)
{
    if (t->queue == &pr_k.ready)
        ready_remove(&pr_k.ready, t);
    t->state = state;
}

void sched_reset(void)
{
    pr_ready_t *rq = &pr_k.ready;
    prio_bitmap_init(&rq->bitmap);
    for (int level = 0; level < PR_CONFIG_PRIORITIES; level++)
        *ready_head(rq, level) = NULL;
    rq->below = &idle_task()->qlink;
    rq->top = &rq->below;
}

/* To the tail of its level: the level stays as it is (same tasks, same
 * bitmap, same top), only the order changes. The new slice is the quantum
 * itself (as SLICE_FULL would be): the tick that ends a slice has it at
 * hand. */
static inline void rotate(pr_task_t *t)
{
    t->slice_left = pr_k.quantum;
    if (t->queue != &pr_k.ready)
        return;
    ready_rotate(&pr_k.ready, t);
}

void sched_rotate(pr_task_t *t) { rotate(t); }

/* t's CPU time grows by `stamps`. A stamp narrower than the 64-bit total
 * (RV32: 32 bits) is added to the total's low word, with a carry into the
 * high word only when the low word wraps: a 64-bit add on a 32-bit CPU
 * would carry every time. */
static inline void cpu_time_add(pr_task_t *t, pr_stamp_t stamps)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (sizeof(pr_stamp_t) <= sizeof(uint32_t)) {
        uint32_t lo = t->cpu_time_words.lo + (uint32_t)stamps;
        t->cpu_time_words.lo = lo;
        if (unlikely(lo < (uint32_t)stamps))
            t->cpu_time_words.hi++;
        return;
    }
#endif
    t->cpu_time += stamps;
}

/* Makes `next` the current task; the caller switches the CPU to it. Only
 * where the kernel may switch: no interrupt to leave, not outside, so that
 * next is also the calling task (pr_self; the idle task stands for none).
 * `state` is the current task's (a constant where the caller knows it).
 * fast_record: trace_room() holds, the SWITCH record is written the fast
 * way. */
static inline __attribute__((always_inline)) void account_switch(pr_task_t *prev, pr_task_t *next,
                                                                 pr_task_state_t state, int fast_record)
{
    PR_ASSERT(prev == pr_k.current && state == prev->state);
    pr_stamp_t now = pr_port_stamp();

    if (fast_record) /* first: the write pointer is then used before any branch (RISC-V: tp, not a copy) */
        trace_put_switch(now, next, state);
    else
        trace_emit_switch(now, next, state);
    cpu_time_add(prev, (pr_stamp_t)(now - prev->dispatched_at)); /* less than a wrap: sched_fold */
    next->dispatched_at = now;
    count64_add1(&pr_k.context_switches);
    pr_k.current = next;
    pr_self = next;
}

/* A switch whose SWITCH record must go the slow way (trace.c): apart, so
 * that the usual switch calls nothing before the port's switch and needs
 * no stack frame. */
static __attribute__((noinline)) void switch_to_slow(pr_task_t *prev, pr_task_t *next)
{
    account_switch(prev, next, prev->state, 0);
    pr_port_switch(prev->ctx, next->ctx);
}

/* The switch itself: account it, then the port saves prev's registers and
 * resumes next's. Returns when prev runs again. */
static inline __attribute__((always_inline)) void switch_to(pr_task_t *prev, pr_task_t *next, pr_task_state_t state)
{
    if (unlikely(!trace_room())) {
        switch_to_slow(prev, next);
        return;
    }
    account_switch(prev, next, state, 1);
    pr_port_switch(prev->ctx, next->ctx);
}

/* Switches to the most urgent ready task if it is not the current one. For
 * a task that may switch (no interrupt to leave, not outside the kernel):
 * sched_reschedule checks that, a task blocking in its own call need not.
 * switch_preempting: the same for a current task that stays ready (its
 * state a constant in the SWITCH record). */
static inline __attribute__((always_inline)) void switch_most_urgent(int ready)
{
    pr_task_t *prev = pr_k.current;
    pr_task_t *next = ready_first(&pr_k.ready);
    if (next == prev)
        return;
    switch_to(prev, next, ready ? PR_TASK_READY : prev->state);
}

void switch_to_most_urgent(void) { switch_most_urgent(0); }
#if PR_CONFIG_TRACE
void switch_preempting(void) { switch_most_urgent(1); }
#endif

/* The end of an interrupt the caller entered: one level of nesting less,
 * and at the end of the outermost, self_update and sched_reschedule in one
 * step: every interrupt that wakes a task pays it. Outside, the nesting
 * never ends (pr_k.defers): the port's next pr_kernel_dispatch switches.
 * A switch sets pr_self itself (account_switch). */
void sched_isr_leave(void)
{
    PR_ASSERT(pr_k.defers > pr_k.outside);
    if (--pr_k.defers != 0) /* pr_self stays the idle task (pr_isr_enter) */
        return;
    pr_task_t *prev = pr_k.current;
    if (sched_may_preempt(prev)) {
        pr_task_t *next = ready_first(&pr_k.ready);
        if (next != prev) {
            switch_to(prev, next, prev->state);
            return;
        }
    }
    pr_self = prev;
}

void sched_reschedule(void)
{
    /* In an interrupt, pr_isr_exit reschedules; outside the kernel, the
     * port's next pr_kernel_dispatch does; under a preemption lock, its
     * last unlock does. */
    if (pr_k.defers != 0 || !sched_may_preempt(pr_k.current))
        return;
    switch_to_most_urgent();
}

/* sched_reschedule_return's call in task context (sched.h). */
int sched_reschedule_restore(pr_irq_state_t irq)
{
    sched_reschedule();
    pr_port_irq_restore(irq);
    return PR_OK;
}

/* pr_task_yield's general case: a caller not at the head of the top level
 * (its scheduler lock holds back a more urgent task), or not a task. */
static __attribute__((noinline)) int yield_general(void)
{
    if (!in_task_context())
        return PR_ECONTEXT;
    rotate(pr_k.current);
    switch_to_most_urgent();
    return PR_OK;
}

/*
 * Here, not in task.c, so that the rotation and the switch are one
 * function. The usual case: the caller runs at the head of the top level (a
 * task in its own call is the most urgent one). Rotating it is then one
 * store, and the new head is the most urgent task: the choice needs no
 * other look. All that rotate and switch_to_most_urgent would do, and
 * nothing else. That case needs no test of the context either: outside a
 * task pr_self is the idle task, which is at the head of the top level
 * only when no task is ready (ready.h: `below`), and then alone, its link
 * a ring of one; the caller alone at its level goes on, or learns that it
 * is no task.
 */
int pr_task_yield(void)
{
    pr_irq_state_t irq = pr_port_irq_save();
    pr_task_t *me = pr_self;
    pr_link_t **head = pr_k.ready.top;
    int err = PR_OK;
    if (likely(*head == &me->qlink)) {
        pr_link_t *next = me->qlink.next;
        if (next != &me->qlink) {
            slice_give_full(me);
            *head = next;
            switch_to(me, container_of(next, pr_task_t, qlink), PR_TASK_READY);
        } else if (in_task_context()) { /* alone at its level: it goes on */
            slice_give_full(me);
        } else {
            err = PR_ECONTEXT;
        }
    } else {
        err = yield_general();
    }
    pr_port_irq_restore(irq);
    return err;
}

int pr_kernel_dispatch(void)
{
    pr_task_t *next = sched_may_preempt(pr_k.current) ? ready_first(&pr_k.ready) : pr_k.current;
    if (next != pr_k.current)
        account_switch(pr_k.current, next, pr_k.current->state, 0);
    return next->id;
}

/* Adds the running task's time since its switch in (or since the last fold)
 * to its total, every PR_PORT_STAMP_FOLD_TICKS ticks, so that no two stamps
 * the kernel subtracts are a wrap of the stamp apart (port.h). At the end of
 * the tick's work: the tick's own test of "switched in at this very
 * instant" (sched_tick) reads the stamp of the switch, not of the fold. */
void sched_fold(uint32_t tick)
{
    if (PR_PORT_STAMP_FOLD_TICKS == 0 || (tick & (PR_PORT_STAMP_FOLD_TICKS - 1)) != 0)
        return;
    pr_task_t *t = pr_k.current;
    pr_stamp_t now = pr_port_stamp();
    cpu_time_add(t, (pr_stamp_t)(now - t->dispatched_at));
    t->dispatched_at = now;
    trace_clock_changed(); /* the trace's stamps, too, are at most one fold from a clock mark */
}

/* Round robin: charge the running task one tick of its quantum. */
void sched_tick(void)
{
    pr_task_t *t = pr_k.current;
    /* A time-sharing task's slices are the band's (timeshare.c). */
    if (pr_k.quantum == 0 || t == idle_task() || t->queue != &pr_k.ready || t->timeshare)
        return;
    /* Under a preemption lock nothing preempts it, not the end of its
     * slice either: it keeps running. */
    if (t->preempt_locks > 0)
        return;
    /* Switched in at this very instant (a task blocked, yielded or ended at
     * the instant of the tick, before the tick was taken): it has not run
     * during the tick that just ended, so that tick is not its to pay.
     * Charging it would cut a slice that starts at a tick instant short. */
    if (t->dispatched_at == pr_port_stamp())
        return;
    /* A full slice (SLICE_FULL) starts now. A slice given under another
     * quantum (pr_sched_set_quantum changed it since: sched_quantum_changes)
     * is cut to the current quantum. */
    if (t->slice_left == SLICE_FULL || t->slice_left > pr_k.quantum)
        t->slice_left = pr_k.quantum;
    if (t->slice_left > 1) {
        t->slice_left--;
        return;
    }
    sched_rotate(t); /* refills the slice; a no-op for the order if it is alone */
    sched_reschedule();
}

/* The quantum changes from `old` (pr_sched_set_quantum): every full slice
 * given under it becomes `old` ticks, as a slice counted from the quantum
 * of its time; one given while the quantum was off (0) starts full under
 * any quantum (the largest count, which sched_tick cuts to the quantum).
 * O(PR_CONFIG_MAX_TASKS); the idle task has no slice, a free slot none either
 * (pr_task_create clears it, and a reset leaves the slots no task used). */
void sched_quantum_changes(pr_ticks_t old)
{
    for (int i = 0; i < PR_CONFIG_MAX_TASKS; i++)
        if (pr_tasks[i].state != PR_TASK_FREE && pr_tasks[i].slice_left == SLICE_FULL)
            pr_tasks[i].slice_left = old != 0 ? old : UINT64_MAX;
}

/* ---- the scheduler lock (kernel.h) ---- */

/* How deep pr_sched_lock nests: a bound, so that the count cannot wrap. */
#define SCHED_LOCK_MAX 255

static int sched_lock(void)
{
    if (!in_task_context())
        return PR_ECONTEXT;
    pr_task_t *me = pr_k.current;
    if (me->sched_locks == SCHED_LOCK_MAX)
        return PR_EOVERFLOW;
    me->sched_locks++;
    sched_lock_preemption(me);
    trace_emit(PR_EV_SCHED_LOCK, trace_who(me), PR_TRACE_NONE, PR_OK, 1, 0, me->sched_locks);
    return PR_OK;
}

static int sched_unlock(void)
{
    if (!in_task_context())
        return PR_ECONTEXT;
    pr_task_t *me = pr_k.current;
    if (me->sched_locks == 0)
        return PR_ESTATE;
    me->sched_locks--;
    sched_unlock_preemption(me);
    trace_emit(PR_EV_SCHED_LOCK, trace_who(me), PR_TRACE_NONE, PR_OK, 0, 0, me->sched_locks);
    sched_reschedule(); /* the switches it held back, if this was the last lock */
    return PR_OK;
}

int pr_sched_lock(void) { MASKED_CALL(sched_lock()); }
int pr_sched_unlock(void) { MASKED_CALL(sched_unlock()); }
