/*
 * The trace ring: PR_CONFIG_TRACE_RECORDS slots (trace_impl.h). The kernel
 * writes at pr_k.trace_next, inline; everything that is not "room here, write"
 * comes here, to trace_emit_slow:
 *  - the ring's end: the write pointer goes back to slot 0 (a new lap);
 *  - a full ring: the port is asked to drain it (pr_port_trace_full); if it
 *    is still full the record is dropped and counted, and a PR_EV_LOST
 *    record with the count is written as soon as there is room again;
 *  - a clock mark owed (trace_clock_changed): a slot of event 0 that holds
 *    port time and the stamp of one instant, and whether port time stands
 *    still from there (the port is outside the kernel's tasks).
 * The drain turns each slot into a pr_trace_record_t: its time is the last
 * mark's port time plus the stamps since that mark (or the mark's time,
 * where time stands still), and the sequence number counts records, the
 * lost ones included. A mark is owed at init, whenever the kernel goes
 * outside or comes back, and every PR_PORT_STAMP_FOLD_TICKS ticks, so a
 * record is never a wrap of the stamp after its mark.
 */
#include "trace_impl.h"

#if PR_CONFIG_TRACE

#define RING_SIZE PR_CONFIG_TRACE_RECORDS
#define CLOCK_MARK 0 /* a slot's event byte: a clock mark, never drained as a record */

static trace_slot_t ring[RING_SIZE];
static trace_slot_t *oldest; /* the next slot to drain */
static uint32_t lap_base;    /* slots written before ring[0] in this lap */
static uint32_t drained;     /* slots drained since reset; free-running like the count written */
static uint32_t lost_total, lost_owed;
static int mark_owed;

/* What the drain carries from slot to slot. */
static struct {
    pr_stamp_t mark_stamp; /* the last mark's stamp and port time */
    uint64_t mark_time;
    int standing;          /* port time stands still after the last mark */
    uint32_t seq;          /* the next record's sequence number */
} from;

static uint32_t written(void) { return lap_base + (uint32_t)(pr_k.trace_next - ring); }

static uint32_t room(void) { return RING_SIZE - (written() - drained); }

/* The fast way may write up to the end of the room or of the ring; not at
 * all while a LOST record or a mark is owed. */
static void set_limit(void)
{
    uint32_t to_end = (uint32_t)(ring + RING_SIZE - pr_k.trace_next);
    if (lost_owed != 0 || mark_owed)
        pr_k.trace_limit = pr_k.trace_next;
    else
        pr_k.trace_limit = pr_k.trace_next + (room() < to_end ? room() : to_end);
}

void trace_reset(void)
{
    pr_k.trace_next = oldest = ring;
    lap_base = drained = 0;
    lost_total = lost_owed = 0;
    from.seq = 0;
    mark_owed = 1; /* the first slot is a mark */
    set_limit();
}

void trace_clock_changed(void)
{
    mark_owed = 1;
    pr_k.trace_limit = pr_k.trace_next;
}

/* Writes one slot at pr_k.trace_next (there is room), after the ring's end
 * going back to its start. */
static void put(pr_stamp_t stamp, uint32_t what, pr_trace_tag_t task, pr_trace_tag_t object, int32_t value)
{
    PR_ASSERT(room() > 0);
    if (pr_k.trace_next == ring + RING_SIZE) {
        lap_base += RING_SIZE;
        pr_k.trace_next = ring;
    }
    trace_slot_t *s = pr_k.trace_next++;
    s->stamp = stamp;
    s->value = value;
    s->what = what;
    s->task = task;
    s->object = object;
}

/* A mark: the stamp and port time of one instant. The time's low word is
 * the value, its high word the bytes arg1, arg0, task, object (from the
 * lowest), and the result byte is 1 where port time stands still. */
static void put_mark(void)
{
    pr_stamp_t stamp;
    uint64_t time = pr_port_now_and_stamp(&stamp);
    uint32_t high = (uint32_t)(time >> 32);
    put(stamp, trace_pack(CLOCK_MARK, pr_k.outside != 0, (uint8_t)(high >> 8), (uint8_t)high),
        (uint8_t)(high >> 16), (uint8_t)(high >> 24), (int32_t)(uint32_t)time);
    mark_owed = 0;
}

void trace_emit_slow(uint8_t event, pr_trace_tag_t task, pr_trace_tag_t object, int result, pr_trace_tag_t arg0,
                     pr_trace_tag_t arg1, int32_t value)
{
    uint32_t needed = 1u + (lost_owed != 0) + (mark_owed != 0);
    if (room() < needed)
        pr_port_trace_full();
    if (room() < needed) {
        lost_total++;
        lost_owed++;
        set_limit();
        return;
    }
    if (mark_owed)
        put_mark();
    if (lost_owed != 0) {
        put(pr_port_stamp(), trace_pack(PR_EV_LOST, PR_OK, 0, 0), PR_TRACE_NONE, PR_TRACE_NONE,
            (int32_t)lost_owed);
        lost_owed = 0;
    }
    put(pr_port_stamp(), trace_pack(event, result, arg0, arg1), TRACE_SLOT_ID(task, arg0), TRACE_SLOT_ID(object, arg1),
        value);
    set_limit();
    pr_port_traced(event, task, object, result, arg0, arg1, value);
}

/* Turns the slot `s` into the record `r`, or takes it as the new mark
 * (returns 0). */
static int decode(const trace_slot_t *s, pr_trace_record_t *r)
{
    uint8_t event = (uint8_t)s->what;
    if (event == CLOCK_MARK) {
        uint32_t high = s->what >> 16 | (uint32_t)(uint8_t)s->task << 16 | (uint32_t)(uint8_t)s->object << 24;
        from.mark_stamp = s->stamp;
        from.mark_time = (uint64_t)high << 32 | (uint32_t)s->value;
        from.standing = (uint8_t)(s->what >> 8);
        return 0;
    }
    r->time = from.mark_time;
    if (!from.standing)
        r->time += pr_port_stamp_time((pr_stamp_t)(s->stamp - from.mark_stamp));
    if (event == PR_EV_LOST) /* the lost records had the numbers before it */
        from.seq += (uint32_t)s->value;
    r->seq = from.seq++;
    r->value = s->value;
    r->event = event;
    r->task = (uint8_t)s->task;
    r->object = (uint8_t)s->object;
    r->result = (int8_t)(uint8_t)(s->what >> 8);
    r->arg1 = (uint8_t)(s->what >> 16);
    r->arg0 = (uint8_t)(s->what >> 24);
#if PR_TRACE_WIDE_IDS /* the tags' high nibbles: the slot's ids' bits 8-11, then the arguments' (12-15) */
    r->ids_high = (uint16_t)((s->task >> 8 & 0xFu) | (s->object >> 8 & 0xFu) << 4 | (uint32_t)(s->task >> 12) << 8 |
                             (uint32_t)(s->object >> 12) << 12);
#else
    r->ids_high = 0;
#endif
    return 1;
}

/* An emptied ring starts again at its first slot, so that the records
 * written until the next drain wrap around its end as late as possible. */
size_t pr_trace_drain(pr_trace_record_t *out, size_t max)
{
    pr_irq_state_t irq = pr_port_irq_save();
    size_t n = 0;
    while (n < max && drained != written()) {
        const trace_slot_t *s = oldest++;
        if (oldest == ring + RING_SIZE)
            oldest = ring;
        drained++;
        n += (size_t)decode(s, &out[n]);
    }
    PR_ASSERT(written() - drained <= RING_SIZE && pr_k.trace_limit >= pr_k.trace_next);
    if (drained == written()) {
        lap_base = drained;
        pr_k.trace_next = oldest = ring;
    }
    set_limit();
    pr_port_irq_restore(irq);
    return n;
}

uint32_t pr_trace_lost(void) { return lost_total; }

#else /* tracing compiled out */

size_t pr_trace_drain(pr_trace_record_t *out, size_t max)
{
    (void)out;
    (void)max;
    return 0;
}

uint32_t pr_trace_lost(void) { return 0; }

#endif
const char *pr_trace_event_name(int event)
{
    static const char *const names[] = {
        [PR_EV_TASK_CREATE] = "TASK_CREATE", [PR_EV_TASK_DELETE] = "TASK_DELETE",
        [PR_EV_RELEASE] = "RELEASE",         [PR_EV_SWITCH] = "SWITCH",
        [PR_EV_BLOCK] = "BLOCK",             [PR_EV_WAKE] = "WAKE",
        [PR_EV_PRIO] = "PRIO",               [PR_EV_TIMEOUT] = "TIMEOUT",
        [PR_EV_DEADLINE_MISS] = "MISS",      [PR_EV_JOB_DONE] = "JOB_DONE",
        [PR_EV_SEM_ALLOC] = "SEM_ALLOC",     [PR_EV_SEM_FREE] = "SEM_FREE",
        [PR_EV_SEM_DOWN] = "DOWN",           [PR_EV_SEM_UP] = "UP",
        [PR_EV_DELAY] = "DELAY",             [PR_EV_SUSPEND] = "SUSPEND",
        [PR_EV_RESUME] = "RESUME",           [PR_EV_TASK_EXIT] = "TASK_EXIT",
        [PR_EV_LOST] = "LOST",               [PR_EV_WATCHDOG] = "WATCHDOG",
        [PR_EV_DELAY_END] = "DELAY_END",     [PR_EV_PRIO_SET] = "PRIO_SET",
        [PR_EV_ABORT] = "ABORT",             [PR_EV_CEILING] = "CEILING",
        [PR_EV_COND_WAIT] = "COND_WAIT",     [PR_EV_COND_WAKE] = "COND_WAKE",
        [PR_EV_COND_SIGNAL] = "COND_SIGNAL", [PR_EV_SCHED_LOCK] = "SCHED_LOCK",
        [PR_EV_RECOVER] = "RECOVER",         [PR_EV_EVENTS_SET] = "EVENTS_SET",
        [PR_EV_EVENTS_WAIT] = "EVENTS_WAIT", [PR_EV_EVENTS_WAKE] = "EVENTS_WAKE",
        [PR_EV_MSGQ_WAIT] = "MSGQ_WAIT",     [PR_EV_MSGQ_WAKE] = "MSGQ_WAKE",
        [PR_EV_MSGQ_SEND] = "SEND",          [PR_EV_MSGQ_RECEIVE] = "RECEIVE",
        [PR_EV_TIMER_START] = "TIMER_START", [PR_EV_TIMER_EXPIRE] = "TIMER_EXPIRE",
        [PR_EV_TIMER_RUN] = "TIMER_RUN", [PR_EV_RTPRIO] = "RTPRIO", [PR_EV_NICE] = "NICE",
        [PR_EV_PRIV_GROUP] = "PRIV_GROUP", [PR_EV_TASK_GROUP] = "TASK_GROUP",
    };
    if (event <= 0 || (size_t)event >= sizeof names / sizeof names[0] || names[event] == NULL)
        return "?";
    return names[event];
}
