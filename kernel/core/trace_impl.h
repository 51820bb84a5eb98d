/*
 * Writing trace records (private; trace.c holds the ring and its drain).
 * Every call site passes ids as tags (pr_trace_tag_t): a task's trace_tag,
 * an object's index, or PR_TRACE_NONE; one byte unless PR_TRACE_WIDE_IDS.
 *
 * A record in the ring is a trace_slot_t: the port's raw stamp
 * (pr_port_stamp: on RV32 the low word of mtime) and the event's fields
 * packed into words, 16 bytes on a 32-bit CPU (24 where the stamp is 64
 * bits). pr_trace_drain turns each slot into a pr_trace_record_t (time in
 * port units, sequence number); docs/trace-format.md gives both layouts.
 *
 * The writer is inline: one compare of the write pointer with a limit the
 * slow path keeps, the stamp, four stores, the pointer moved on. The limit
 * is the end of the free room before the ring's end, or the write pointer
 * itself when the next record must go the slow way (trace.c,
 * trace_emit_slow: the ring's wrap, a full ring, a LOST record or a clock
 * mark owed).
 */
#ifndef PRIORA_TRACE_IMPL_H
#define PRIORA_TRACE_IMPL_H

#include "kernel_impl.h"

#if PR_CONFIG_TRACE
typedef struct trace_slot {
    pr_stamp_t stamp; /* pr_port_stamp() when written */
    int32_t value;
    uint32_t what;    /* event | (uint8_t)result << 8 | arg1 << 16 | arg0 << 24 */
#if PR_TRACE_WIDE_IDS
    uint16_t task;    /* the task's 12-bit tag, and arg0's high 4 bits in bits 12-15 */
    uint16_t object;  /* the object's 12-bit tag, and arg1's high 4 bits in bits 12-15 */
#else
    uint8_t task;
    uint8_t unused;   /* keeps task and object apart: two byte stores, not a merged halfword */
    uint8_t object;
#endif
} trace_slot_t;

/* The slot's task and object fields: with wide ids, each carries the high
 * nibble of an argument that may be a task's tag (arg0 with task, arg1 with
 * object); the drain unpacks them (trace.c). */
#if PR_TRACE_WIDE_IDS
#define TRACE_SLOT_ID(id, arg) ((uint16_t)((id) | ((arg) >> 8) << 12))
#else
#define TRACE_SLOT_ID(id, arg) (id)
#endif

/* pr_k.trace_next: where the next record goes; the fast way writes while
 * it is not pr_k.trace_limit (kernel_impl.h). */

void trace_reset(void);
void trace_emit_slow(uint8_t event, pr_trace_tag_t task, pr_trace_tag_t object, int result, pr_trace_tag_t arg0,
                     pr_trace_tag_t arg1, int32_t value);

/* Port time and the stamp stop going together (pr_kernel_set_outside), or
 * the stamp may soon wrap (the tick's fold): the next record is preceded by
 * a clock mark, which the drain converts the stamps after it from. */
void trace_clock_changed(void);

/* The fields that are most often constants at a call site (the event,
 * the result, the arguments) share a word, which is then one constant;
 * arg0, the one most often not constant, is its top byte, which a shift
 * alone puts in place. */
static inline uint32_t trace_pack(uint8_t event, int result, pr_trace_tag_t arg0, pr_trace_tag_t arg1)
{
    return (uint32_t)event | (uint32_t)(uint8_t)result << 8 | (uint32_t)(uint8_t)arg1 << 16 |
           (uint32_t)(uint8_t)arg0 << 24;
}

/* 1 if the next record may be written the fast way, with trace_put. A
 * fast path that writes one record asks first and leaves the rare case to
 * its general path, so that it calls nothing (and needs no stack frame). */
static inline int trace_room(void) { return pr_k.trace_next != pr_k.trace_limit; }

/* The record, written the fast way at the stamp `stamp`: trace_room() holds. */
static inline void trace_put_at(pr_stamp_t stamp, uint8_t event, pr_trace_tag_t task, pr_trace_tag_t object, int result,
                                pr_trace_tag_t arg0, pr_trace_tag_t arg1, int32_t value)
{
    trace_slot_t *s = pr_k.trace_next;
    s->stamp = stamp;
    s->value = value;
    s->what = trace_pack(event, result, arg0, arg1);
    s->task = TRACE_SLOT_ID(task, arg0);
    s->object = TRACE_SLOT_ID(object, arg1);
    pr_k.trace_next = s + 1;
    pr_port_traced(event, task, object, result, arg0, arg1, value);
}

static inline void trace_put(uint8_t event, pr_trace_tag_t task, pr_trace_tag_t object, int result,
                             pr_trace_tag_t arg0, pr_trace_tag_t arg1, int32_t value)
{
    trace_put_at(pr_port_stamp(), event, task, object, result, arg0, arg1, value);
}

/* A record at the instant `stamp` (pr_port_stamp(), just read): a caller
 * that reads the stamp anyway (the switch) does not read it twice. */
static inline void trace_emit_at(pr_stamp_t stamp, uint8_t event, pr_trace_tag_t task, pr_trace_tag_t object, int result,
                                 pr_trace_tag_t arg0, pr_trace_tag_t arg1, int32_t value)
{
    if (unlikely(!trace_room()))
        trace_emit_slow(event, task, object, result, arg0, arg1, value);
    else
        trace_put_at(stamp, event, task, object, result, arg0, arg1, value);
}

static inline void trace_emit(uint8_t event, pr_trace_tag_t task, pr_trace_tag_t object, int result,
                              pr_trace_tag_t arg0, pr_trace_tag_t arg1, int32_t value)
{
    if (unlikely(!trace_room()))
        trace_emit_slow(event, task, object, result, arg0, arg1, value);
    else
        trace_put(event, task, object, result, arg0, arg1, value);
}
#else /* compiled out: empty functions the compiler removes with their arguments */
static inline void trace_reset(void) {}
static inline void trace_clock_changed(void) {}
static inline int trace_room(void) { return 1; }
static inline void trace_emit(uint8_t event, pr_trace_tag_t task, pr_trace_tag_t object, int result,
                              pr_trace_tag_t arg0, pr_trace_tag_t arg1, int32_t value)
{
    (void)event, (void)task, (void)object, (void)result, (void)arg0, (void)arg1, (void)value;
}
static inline void trace_put(uint8_t event, pr_trace_tag_t task, pr_trace_tag_t object, int result,
                             pr_trace_tag_t arg0, pr_trace_tag_t arg1, int32_t value)
{
    trace_emit(event, task, object, result, arg0, arg1, value);
}
static inline void trace_emit_at(pr_stamp_t stamp, uint8_t event, pr_trace_tag_t task, pr_trace_tag_t object, int result,
                                 pr_trace_tag_t arg0, pr_trace_tag_t arg1, int32_t value)
{
    (void)stamp;
    trace_emit(event, task, object, result, arg0, arg1, value);
}
static inline void trace_put_at(pr_stamp_t stamp, uint8_t event, pr_trace_tag_t task, pr_trace_tag_t object, int result,
                                pr_trace_tag_t arg0, pr_trace_tag_t arg1, int32_t value)
{
    trace_emit_at(stamp, event, task, object, result, arg0, arg1, value);
}
#endif

/* An id as given by a caller, for a one-byte trace field: PR_TRACE_NONE if
 * it is outside its pool (a truncated id would name another object). */
static inline uint8_t trace_id_of(pr_id_t id, int pool_size)
{
    return (id >= 0 && id < pool_size) ? (uint8_t)id : PR_TRACE_NONE;
}

/* The tag of task id `id` (in the pool): the id itself, or with wide ids
 * the id + 1 from 255 on (priora/trace.h: 0xFF stays "none"). */
#if PR_TRACE_WIDE_IDS
#define trace_task_tag(id) ((pr_trace_tag_t)((id) < PR_TRACE_NONE ? (id) : (id) + 1))
#else
#define trace_task_tag(id) ((uint8_t)(id))
#endif

/* A task id as given by a caller: its tag, or PR_TRACE_NONE outside the pool. */
static inline pr_trace_tag_t trace_task_id_of(pr_id_t id)
{
    return (id >= 0 && id < PR_CONFIG_MAX_TASKS) ? trace_task_tag(id) : PR_TRACE_NONE;
}

static inline pr_trace_tag_t trace_id(const pr_task_t *t) { return t == NULL ? PR_TRACE_NONE : t->trace_tag; }

/* The calling task's id, or PR_TRACE_NONE outside a task (pr_self is then
 * the idle task). */
static inline pr_trace_tag_t caller_trace_id(void) { return pr_self->trace_tag; }

#endif /* PRIORA_TRACE_IMPL_H */
