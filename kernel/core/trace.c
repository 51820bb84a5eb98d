/*
 * The trace ring: PR_CONFIG_TRACE_RECORDS slots (trace_impl.h). The kernel
 * writes at pr_trace_next, inline; everything that is not "room here, write"
 * comes here, to trace_emit_slow:
 *  - the ring's end: the write pointer goes back to slot 0 (a new lap);
 *  - a full ring: the port is asked to drain it (pr_port_trace_full); if it
 *    is still full the record is dropped and counted, and a PR_EV_LOST
 *    record with the count is written as soon as there is room again;
 *  - a clock mark owed (trace_clock_changed): a slot of event 0 that holds
 *    port time and the stamp of one instant, and whether port time stands
 *    still from there (the port is outside the kernel's tasks).
 * The drain turns each slot into its records (one, or those of a merged
 * kind): their time is the last mark's port time plus the stamps since that
 * mark (or the mark's time, where time stands still), and the sequence
 * number counts records, the lost ones included. A SWITCH slot leaves out
 * the task switched out: the drain keeps the current task's tag, from each
 * SWITCH, mark and LOST slot (the last two name it). A mark is owed at init, whenever the kernel goes
 * outside or comes back, and every PR_PORT_STAMP_FOLD_TICKS ticks, so a
 * record is never a wrap of the stamp after its mark.
 */
#include <string.h>
#include "trace_impl.h"

#if PR_CONFIG_TRACE

#define RING_SIZE PR_CONFIG_TRACE_RECORDS
#define CLOCK_MARK 0x7F /* a slot's kind: a clock mark, never drained as a record */
#define GUARD (ring + RING_SIZE)

_Static_assert(PR_EV_LAST < TRACE_UP_WOKE && TRACE_BLOCK_LENT < TRACE_STOP && TRACE_STOP < CLOCK_MARK &&
                   CLOCK_MARK < TRACE_ARG0_NONE,
               "a kind: an event code, a merged kind, the stop or a mark, below the flag bit");

/* The slots, and after them the guard: a slot whose head is never 0, so
 * that the fast way stops at the ring's end. */
static trace_slot_t ring[RING_SIZE + 1];
#ifndef PR_PORT_TRACE_REGISTER
trace_slot_t *pr_trace_next;
#endif
static trace_slot_t *oldest; /* the next slot to drain */
static uint32_t lap_base;    /* slots written before ring[0] in this lap */
static uint32_t drained;     /* slots drained since reset; free-running like the count written */
static uint32_t lost_total, lost_owed;
static int mark_owed;

/* What the drain carries from slot to slot. */
static struct {
    pr_stamp_t mark_stamp;  /* the last mark's stamp and port time */
    uint64_t mark_time;
    int standing;           /* port time stands still after the last mark */
    uint32_t seq;           /* the next record's sequence number */
    uint32_t current;       /* the current task's tag, which a SWITCH slot leaves out */
    pr_trace_record_t held[2]; /* a merged slot's records that did not fit the last drain */
    size_t held_n;
} from;

static uint32_t written(void) { return lap_base + (uint32_t)(pr_trace_next - ring); }

static uint32_t room(void) { return RING_SIZE - (written() - drained); }

/* The fast way writes where the slot's head is 0 (trace_room): the free
 * slots from the write pointer on, up to the oldest slot not drained yet
 * or the guard. Not at all while a LOST record or a mark is owed: the slot
 * at the write pointer is then marked with the stop. */
static void stop_if_owed(void)
{
    if ((lost_owed != 0 || mark_owed) && pr_trace_next->head == 0)
        pr_trace_next->head = TRACE_STOP;
}

void trace_reset(void)
{
    memset(ring, 0, sizeof ring);
    GUARD->head = TRACE_STOP;
    pr_trace_next = oldest = ring;
    lap_base = drained = 0;
    lost_total = lost_owed = 0;
    from.seq = 0;
    from.current = PR_TRACE_NONE; /* the kernel starts in the idle task */
    from.held_n = 0;
    mark_owed = 1; /* the first slot is a mark */
    stop_if_owed();
}

void trace_clock_changed(void)
{
    mark_owed = 1;
    stop_if_owed();
}

/* Writes one slot at pr_trace_next (there is room), after the ring's end
 * going back to its start. */
static void put(pr_stamp_t stamp, uint32_t head, uint32_t tail, int32_t value)
{
    PR_ASSERT(room() > 0 && head != 0);
    if (pr_trace_next == GUARD) {
        lap_base += RING_SIZE;
        pr_trace_next = ring;
    }
    trace_slot_t *s = pr_trace_next++;
    s->stamp = stamp;
    s->value = value;
    s->head = head;
    s->tail = tail;
}

/* A mark: the stamp and port time of one instant, the time's low word in
 * the value and its high word in the tail; arg0 is 1 where port time
 * stands still, and the task the current one, as in a LOST record. */
static void put_mark(void)
{
    pr_stamp_t stamp;
    uint64_t time = pr_port_now_and_stamp(&stamp);
    put(stamp, TRACE_HEAD(CLOCK_MARK, pr_k.outside != 0, pr_k.current->trace_tag), (uint32_t)(time >> 32),
        (int32_t)(uint32_t)time);
    mark_owed = 0;
}

/* How many records a slot's fields stand for. */
static uint32_t records_of(uint8_t kind, unsigned arg1, int result)
{
    if (kind == TRACE_UP_WOKE)
        return 2u + ((uint8_t)arg1 != (uint8_t)result);
    if (kind == TRACE_BLOCK_LENT)
        return 1u + ((uint8_t)arg1 != (uint8_t)result);
    return 1;
}

int trace_emit_slow(uint8_t kind, pr_trace_tag_t task, pr_trace_tag_t object, int result, unsigned arg0,
                    unsigned arg1, int32_t value)
{
    uint32_t needed = 1u + (lost_owed != 0) + (mark_owed != 0);
    if (room() < needed)
        pr_port_trace_full();
    if (room() < needed) {
        uint32_t n = records_of(kind, arg1, result);
        lost_total += n;
        lost_owed += n;
        stop_if_owed();
        return 0;
    }
    if (mark_owed)
        put_mark();
    if (lost_owed != 0) { /* it names the current task, as a mark does: the SWITCH slots after it leave it out */
        put(pr_port_stamp(), TRACE_HEAD(PR_EV_LOST, 0, pr_k.current->trace_tag),
            TRACE_TAIL(PR_TRACE_NONE, 0, PR_OK), (int32_t)lost_owed);
        lost_owed = 0;
    }
    put(pr_port_stamp(), TRACE_HEAD(kind, arg0, task), TRACE_TAIL(object, arg1, result), value);
    pr_port_traced(kind, task, object, result, arg0, arg1, value);
    return 1;
}

/* A record of the fields given, at the time and with the next sequence
 * number; the tags' high nibbles go to ids_high (trace.h). */
static pr_trace_record_t record(uint64_t time, uint8_t event, uint32_t task, uint32_t object, int result,
                                uint32_t arg0, uint32_t arg1, int32_t value)
{
    pr_trace_record_t r = {
        .time = time,
        .seq = from.seq++,
        .value = value,
        .event = event,
        .task = (uint8_t)task,
        .object = (uint8_t)object,
        .result = (int8_t)result,
        .arg0 = (uint8_t)arg0,
        .arg1 = (uint8_t)arg1,
        .ids_high = (uint16_t)((task >> 8 & 0xFu) | (object >> 8 & 0xFu) << 4 | (arg0 >> 8 & 0xFu) << 8 |
                               (arg1 >> 8 & 0xFu) << 12),
    };
    return r;
}

/* A slot left out of a drain (pr_trace_drain_events): its records are
 * numbered all the same, and a SWITCH still names the current task. */
static size_t skip(uint8_t kind, uint32_t task)
{
    from.seq += 1;
    if (kind == PR_EV_SWITCH)
        from.current = task;
    return 0;
}

/* The records of out[0..n) whose events are in `events`, moved to its
 * front; returns how many (a merged kind's, which a filter may split). */
static size_t keep_only(pr_trace_record_t *out, size_t n, uint64_t events)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (events >> out[i].event & 1)
            out[kept++] = out[i];
    return kept;
}

/* Turns the slot `s` into its records of the events in `events` (up to 3:
 * a merged kind), or takes it as the new mark; returns how many. A LOST
 * record is always kept: a reader must know of records that are gone. */
static size_t decode(const trace_slot_t *s, pr_trace_record_t out[3], uint64_t events)
{
    uint8_t kind = (uint8_t)s->head;
    uint32_t task = s->head >> 16 & 0xFFFu, object = s->tail & 0xFFFu;
    uint32_t arg0 = (s->head >> 8 & 0xFFu) | (s->head >> 28) << 8;
    uint32_t arg1 = (s->tail >> 16 & 0xFFu) | (s->tail >> 12 & 0xFu) << 8;
    int result = (int8_t)(uint8_t)(s->tail >> 24);
    if (kind & TRACE_ARG0_NONE) {
        kind &= (uint8_t)~TRACE_ARG0_NONE;
        arg0 = PR_TRACE_NONE;
    }
    if (kind == CLOCK_MARK) {
        from.mark_stamp = s->stamp;
        from.mark_time = (uint64_t)s->tail << 32 | (uint32_t)s->value;
        from.standing = (int)arg0;
        from.current = task;
        return 0;
    }
    if (kind <= PR_EV_LAST && kind != PR_EV_LOST && !(events >> kind & 1))
        return skip(kind, task);
    uint64_t time = from.mark_time;
    if (!from.standing)
        time += pr_port_stamp_time((pr_stamp_t)(s->stamp - from.mark_stamp));
    switch (kind) {
    case PR_EV_LOST: /* the lost records had the numbers before it */
        from.seq += (uint32_t)s->value;
        from.current = task;
        out[0] = record(time, kind, PR_TRACE_NONE, PR_TRACE_NONE, PR_OK, 0, 0, s->value);
        return 1;
    case PR_EV_SWITCH:
        out[0] = record(time, kind, task, from.current, PR_OK, arg0, 0, 0);
        from.current = task;
        return 1;
    case TRACE_UP_WOKE: {
        size_t n = 0;
        if ((uint8_t)arg1 != (uint8_t)result)
            out[n++] = record(time, PR_EV_PRIO, task, object, PR_OK, arg1, (uint8_t)result,
                              PR_CAUSE_RELEASE | PR_OBJ_SEM << 8);
        out[n++] = record(time, PR_EV_WAKE, arg0, object, PR_OK, 0, 0, 0);
        out[n++] = record(time, PR_EV_SEM_UP, task, object, PR_OK, arg0, 0, s->value);
        return keep_only(out, n, events);
    }
    case TRACE_BLOCK_LENT:
        out[0] = record(time, PR_EV_BLOCK, task, object, PR_OK, 0, 0, s->value);
        if ((uint8_t)arg1 == (uint8_t)result)
            return keep_only(out, 1, events);
        out[1] = record(time, PR_EV_PRIO, arg0, object, PR_OK, arg1, (uint8_t)result,
                        PR_CAUSE_INHERIT | PR_OBJ_SEM << 8);
        return keep_only(out, 2, events);
    default:
        out[0] = record(time, kind, task, object, result, arg0, arg1, s->value);
        return 1;
    }
}

/* Hands out the records of the slots written since the last drain, oldest
 * first, up to `max`, of the events in `events` (bit e for event e): the
 * others are numbered but left out. A merged slot's records that do not
 * fit wait in from.held for the next drain. An emptied ring starts again
 * at its first slot, so that the records written until the next drain wrap
 * around its end as late as possible. */
size_t pr_trace_drain_events(pr_trace_record_t *out, size_t max, uint64_t events)
{
    pr_irq_state_t irq = pr_port_irq_save();
    size_t n = 0;
    for (size_t i = 0; n < max && i < from.held_n; i++) /* a merged slot's rest, first */
        out[n++] = from.held[i];
    if (n > 0) {
        from.held_n -= n;
        for (size_t i = 0; i < from.held_n; i++)
            from.held[i] = from.held[i + n];
    }
    while (n < max && drained != written()) {
        trace_slot_t *s = oldest++;
        if (oldest == GUARD)
            oldest = ring;
        drained++;
        pr_trace_record_t r[3];
        size_t k = decode(s, r, events);
        s->head = 0; /* free again */
        for (size_t i = 0; i < k; i++) {
            if (n < max)
                out[n++] = r[i];
            else
                from.held[from.held_n++] = r[i];
        }
    }
    PR_ASSERT(written() - drained <= RING_SIZE && from.held_n <= 2);
    if (drained == written()) {
        if (pr_trace_next != GUARD)
            pr_trace_next->head = 0; /* a stop, or already free */
        lap_base = drained;
        pr_trace_next = oldest = ring;
    }
    stop_if_owed();
    pr_port_irq_restore(irq);
    return n;
}

uint32_t pr_trace_lost(void) { return lost_total; }

#else /* tracing compiled out */

size_t pr_trace_drain_events(pr_trace_record_t *out, size_t max, uint64_t events)
{
    (void)out;
    (void)max;
    (void)events;
    return 0;
}

uint32_t pr_trace_lost(void) { return 0; }

#endif

size_t pr_trace_drain(pr_trace_record_t *out, size_t max) { return pr_trace_drain_events(out, max, PR_TRACE_ALL); }

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
        [PR_EV_ARRIVAL] = "ARRIVAL", [PR_EV_JOB_ABORT] = "JOB_ABORT",
    };
    if (event <= 0 || (size_t)event >= sizeof names / sizeof names[0] || names[event] == NULL)
        return "?";
    return names[event];
}
