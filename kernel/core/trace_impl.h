/*
 * Writing trace records (private; trace.c holds the ring and its drain).
 * A record names its task by its descriptor (the idle task for none: see
 * trace_who), every other id by its tag (pr_trace_tag_t): a task's
 * trace_tag, an object's index, or PR_TRACE_NONE.
 *
 * A record in the ring is a trace_slot_t: the port's raw stamp
 * (pr_port_stamp: on RV32 the low word of mtime), the value, and the other
 * fields packed into two words, 16 bytes on a 32-bit CPU (24 where the
 * stamp is 64 bits). pr_trace_drain turns each slot into one or more
 * pr_trace_record_t (time in port units, sequence number);
 * docs/trace-format.md gives both layouts.
 *
 * The writer is inline: a test of the slot at the write pointer (free: its
 * head is 0), the stamp, three or four stores, the pointer moved on. A
 * slot that is not free sends the record the slow way (trace.c,
 * trace_emit_slow: the ring's end, a full ring, a LOST record or a clock
 * mark owed). A port may keep the write pointer in a register of its own
 * for the whole image (PR_PORT_TRACE_REGISTER: RISC-V's tp), so that a
 * record neither loads nor stores it. The writers address the slot through
 * pr_trace_next itself, never a copy: a copy of a register variable is an
 * instruction more.
 */
#ifndef PRIORA_TRACE_IMPL_H
#define PRIORA_TRACE_IMPL_H

#include "kernel_impl.h"

#if PR_CONFIG_TRACE

/*
 * A slot. Its two words, from their lowest byte: the head holds the kind
 * (an event code, a merged kind below, or 0 for a clock mark), arg0 and
 * the task's tag; the tail the object's tag, arg1 and the result. A tag
 * has 12 bits (priora/trace.h); the 4 bits above the task's are arg0's
 * high ones, those above the object's arg1's, for an argument that names
 * a task beyond 254. A task's tag in its place in the head is one word of
 * its descriptor (trace_word), so that most heads are one load and one or.
 */
typedef struct trace_slot {
    pr_stamp_t stamp; /* pr_port_stamp() when written */
    int32_t value;
    union {
        uint32_t head; /* kind | arg0 << 8 | task << 16 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        struct { uint16_t task; uint8_t arg0, kind; } h;
#else
        struct { uint8_t kind, arg0; uint16_t task; } h;
#endif
    };
    union {
        uint32_t tail; /* object | arg1 << 16 | result << 24 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        struct { int8_t result; uint8_t arg1; uint16_t object; } t;
#else
        struct { uint16_t object; uint8_t arg1; int8_t result; } t;
#endif
    };
} trace_slot_t;

/* An argument's high nibble: the bits of a tag above its byte, beyond 254
 * tasks; with fewer, every argument is its byte. */
#if PR_TRACE_WIDE_IDS
#define TRACE_HI(arg) ((uint32_t)(arg) >> 8 & 0xFu)
#else
#define TRACE_HI(arg) 0u
#endif

#define TRACE_HEAD(kind, arg0, task)                                                               \
    ((uint32_t)(kind) | (uint32_t)(uint8_t)(arg0) << 8 | ((uint32_t)(task) | TRACE_HI(arg0) << 12) << 16)
#define TRACE_TAIL(object, arg1, result)                                                           \
    ((uint32_t)(object) | TRACE_HI(arg1) << 12 | (uint32_t)(uint8_t)(arg1) << 16 | (uint32_t)(uint8_t)(result) << 24)

/*
 * Merged kinds: records that always come together on the semaphores' hot
 * paths, in one slot, which the drain turns back into the records (in
 * this order, at the slot's time). A port that charges each record's cost
 * in its time (PR_PORT_TRACE_HOOK: the host port) needs each record's own
 * instant, and writes them one by one; either way a reader gets the same
 * records.
 *  - TRACE_UP_WOKE: an up that hands its unit (its mutex) to a waiter. The
 *    fields are the UP record's, arg0 the task woken; arg1 and result hold
 *    the caller's effective priority before and after: when they differ, a
 *    PRIO record (cause RELEASE, through the semaphore) comes first. Then
 *    WAKE of arg0 on the object, then the UP.
 *  - TRACE_BLOCK_LENT: a down that blocks on a mutex whose holder rises.
 *    The fields are the BLOCK record's, arg0 the holder; arg1 and result
 *    its effective priority before and after. BLOCK, then PRIO of arg0
 *    (cause INHERIT, through the semaphore) if they differ.
 */
#define TRACE_UP_WOKE 0x40
#define TRACE_BLOCK_LENT 0x41

/* A kind's top bit: arg0 is PR_TRACE_NONE, and its byte 0. An up that
 * wakes nobody then has a head of one load and one or, where 0xFF in arg0
 * would take two instructions more to build. */
#define TRACE_ARG0_NONE 0x80
#ifdef PR_PORT_TRACE_HOOK
#define TRACE_MERGED 0
#else
#define TRACE_MERGED 1
#endif

/* Where the next record goes: the fast way writes there while the slot's
 * head is 0 (trace.c keeps that true only of slots it may write). */
#ifdef PR_PORT_TRACE_REGISTER
/* volatile: GCC then addresses the slot through the register itself where
 * it would otherwise keep a copy of it in another register (a move more). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wvolatile-register-var"
__extension__ register trace_slot_t *volatile pr_trace_next __asm__(PR_PORT_TRACE_REGISTER);
#pragma GCC diagnostic pop
#else
extern trace_slot_t *pr_trace_next;
#endif

/* The head of a slot the fast way must not write (trace.c): a LOST record
 * or a clock mark is owed first. */
#define TRACE_STOP 0x7E

void trace_reset(void);
/* Writes the slot the slow way; returns 0 if it was dropped for want of
 * room. The fields are a record's (kind: its event) or a merged kind's. */
int trace_emit_slow(uint8_t kind, pr_trace_tag_t task, pr_trace_tag_t object, int result, unsigned arg0,
                    unsigned arg1, int32_t value);

/* Port time and the stamp stop going together (pr_kernel_set_outside), or
 * the stamp may soon wrap (the tick's fold): the next record is preceded by
 * a clock mark, which the drain converts the stamps after it from. */
void trace_clock_changed(void);

/* 1 if the next record may be written the fast way, with trace_put. A
 * fast path that writes one record asks first and leaves the rare case to
 * its general path, so that it calls nothing (and needs no stack frame). */
static inline int trace_room(void) { return pr_trace_next->head == 0; }

/* A field that is a constant where the record is written: it goes into its
 * word's constant. Any other argument is stored as a byte after its word,
 * one store, where shifting it into the word would take two or three. */
#define TRACE_CONST(x) __builtin_constant_p(x)

/* The record, written the fast way at the stamp `stamp`: trace_room() holds. */
static inline __attribute__((always_inline)) void trace_put_at(pr_stamp_t stamp, uint8_t kind, const pr_task_t *task,
                                                               pr_trace_tag_t object, int result, unsigned arg0,
                                                               unsigned arg1, int32_t value)
{
    int arg0_fixed = TRACE_CONST(arg0), arg1_fixed = TRACE_CONST(arg1), result_fixed = TRACE_CONST(result);
    pr_trace_next->stamp = stamp;
    pr_trace_next->value = value;
    int arg0_none = arg0_fixed && arg0 == PR_TRACE_NONE;
    uint32_t head = task->trace_word | TRACE_HEAD(kind | (arg0_none ? TRACE_ARG0_NONE : 0),
                                                  arg0_fixed && !arg0_none ? arg0 : 0, 0);
    if (!arg0_fixed)
        head |= TRACE_HI(arg0) << 28;
    pr_trace_next->head = head;
    if (!arg0_fixed)
        pr_trace_next->h.arg0 = (uint8_t)arg0;
    pr_trace_next->tail = TRACE_TAIL(object, arg1_fixed ? arg1 : 0, result_fixed ? result : 0) |
                          (arg1_fixed ? 0 : TRACE_HI(arg1) << 12);
    if (!arg1_fixed)
        pr_trace_next->t.arg1 = (uint8_t)arg1;
    if (!result_fixed)
        pr_trace_next->t.result = (int8_t)result;
    pr_trace_next = pr_trace_next + 1;
    pr_port_traced(kind, task->trace_tag, object, result, arg0, arg1, value);
}

static inline __attribute__((always_inline)) void trace_put(uint8_t event, const pr_task_t *task,
                                                            pr_trace_tag_t object, int result, unsigned arg0,
                                                            unsigned arg1, int32_t value)
{
    trace_put_at(pr_port_stamp(), event, task, object, result, arg0, arg1, value);
}

static inline __attribute__((always_inline)) void trace_emit(uint8_t event, const pr_task_t *task,
                                                             pr_trace_tag_t object, int result, unsigned arg0,
                                                             unsigned arg1, int32_t value)
{
    if (unlikely(!trace_room()))
        (void)trace_emit_slow(event, task->trace_tag, object, result, arg0, arg1, value);
    else
        trace_put(event, task, object, result, arg0, arg1, value);
}

/*
 * The SWITCH record of a switch from the current task, in state `state`,
 * to `next`, at the stamp `stamp`. Its head is next's switch_word (the
 * state READY), with the state stored over it when it may be another; the
 * task switched out is not stored: the drain knows it (the task of the
 * last SWITCH, or of the last clock mark or LOST record, which name the
 * current task), and the value is 0.
 */
static inline __attribute__((always_inline)) void trace_put_switch(pr_stamp_t stamp, const pr_task_t *next,
                                                                   pr_task_state_t state)
{
    pr_trace_next->stamp = stamp;
    pr_trace_next->head = next->trace_switch_word;
    if (!(TRACE_CONST(state) && state == PR_TASK_READY))
        pr_trace_next->h.arg0 = (uint8_t)state;
    pr_trace_next = pr_trace_next + 1;
    pr_port_traced(PR_EV_SWITCH, next->trace_tag, pr_k.current->trace_tag, PR_OK, (uint8_t)state, 0, 0);
}

static inline __attribute__((always_inline)) void trace_emit_switch(pr_stamp_t stamp, const pr_task_t *next,
                                                                    pr_task_state_t state)
{
    if (unlikely(!trace_room()))
        (void)trace_emit_slow(PR_EV_SWITCH, next->trace_tag, pr_k.current->trace_tag, PR_OK, (uint8_t)state, 0, 0);
    else
        trace_put_switch(stamp, next, state);
}

/* The merged kinds' writers (above): one slot, written the fast way (the
 * fast paths that write one ask trace_room() first and leave the rare case
 * to their general path, so that they call nothing), or, where TRACE_MERGED
 * is 0, the records one by one. `was` and `now` are the priorities before
 * and after; equal, there is no PRIO record. */
static inline __attribute__((always_inline)) void trace_up_woke(const pr_task_t *caller, pr_trace_tag_t sem,
                                                                const pr_task_t *woken, int32_t value, pr_prio_t was,
                                                                pr_prio_t now)
{
#if TRACE_MERGED
    trace_put(TRACE_UP_WOKE, caller, sem, now, woken->trace_tag, (unsigned)was, value); /* bytes: 0..255 */
#else
    if (was != now)
        trace_emit(PR_EV_PRIO, caller, sem, PR_OK, (uint8_t)was, (uint8_t)now, PR_CAUSE_RELEASE | PR_OBJ_SEM << 8);
    trace_emit(PR_EV_WAKE, woken, sem, PR_OK, 0, 0, 0);
    trace_emit(PR_EV_SEM_UP, caller, sem, PR_OK, woken->trace_tag, 0, value);
#endif
}

static inline __attribute__((always_inline)) void trace_block_lent(const pr_task_t *t, pr_trace_tag_t sem,
                                                                   int32_t timeout, const pr_task_t *holder,
                                                                   pr_prio_t was, pr_prio_t now)
{
#if TRACE_MERGED
    trace_put(TRACE_BLOCK_LENT, t, sem, now, holder->trace_tag, (unsigned)was, timeout); /* bytes: 0..255 */
#else
    trace_emit(PR_EV_BLOCK, t, sem, PR_OK, 0, 0, timeout);
    if (was != now)
        trace_emit(PR_EV_PRIO, holder, sem, PR_OK, (uint8_t)was, (uint8_t)now, PR_CAUSE_INHERIT | PR_OBJ_SEM << 8);
#endif
}

/* The words a task's records are built from (trace_word, switch_word):
 * its tag in the head, alone and in a SWITCH that switches to it. */
static inline void trace_task_words(pr_task_t *t)
{
    t->trace_word = TRACE_HEAD(0, 0, t->trace_tag);
    t->trace_switch_word = TRACE_HEAD(PR_EV_SWITCH, PR_TASK_READY, t->trace_tag);
}
#else /* compiled out: empty functions the compiler removes with their arguments */
static inline void trace_reset(void) {}
static inline void trace_clock_changed(void) {}
static inline int trace_room(void) { return 1; }
static inline void trace_emit(uint8_t event, const pr_task_t *task, pr_trace_tag_t object, int result,
                              unsigned arg0, unsigned arg1, int32_t value)
{
    (void)event, (void)task, (void)object, (void)result, (void)arg0, (void)arg1, (void)value;
}
static inline void trace_put(uint8_t event, const pr_task_t *task, pr_trace_tag_t object, int result,
                             unsigned arg0, unsigned arg1, int32_t value)
{
    trace_emit(event, task, object, result, arg0, arg1, value);
}
static inline void trace_put_switch(pr_stamp_t stamp, const pr_task_t *next, pr_task_state_t state)
{
    (void)stamp, (void)next, (void)state;
}
static inline void trace_emit_switch(pr_stamp_t stamp, const pr_task_t *next, pr_task_state_t state)
{
    (void)stamp, (void)next, (void)state;
}
static inline void trace_up_woke(const pr_task_t *caller, pr_trace_tag_t sem, const pr_task_t *woken, int32_t value,
                                 pr_prio_t was, pr_prio_t now)
{
    (void)caller, (void)sem, (void)woken, (void)value, (void)was, (void)now;
}
static inline void trace_block_lent(const pr_task_t *t, pr_trace_tag_t sem, int32_t timeout, const pr_task_t *holder,
                                    pr_prio_t was, pr_prio_t now)
{
    (void)t, (void)sem, (void)timeout, (void)holder, (void)was, (void)now;
}
static inline void trace_task_words(pr_task_t *t) { (void)t; }
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

/* A record's task (the task parameter of the writers): t, or, for NULL,
 * the idle task, whose tag is PR_TRACE_NONE (outside a task, pr_self is the
 * idle task too, so the caller is always pr_self). */
static inline const pr_task_t *trace_who(const pr_task_t *t) { return t == NULL ? &pr_idle : t; }

/* The task of id `id` as a caller gives it: its descriptor, or the idle
 * task (none) outside the pool. */
static inline const pr_task_t *trace_task_of(pr_id_t id)
{
    return (id >= 0 && id < PR_CONFIG_MAX_TASKS) ? &pr_tasks[id] : &pr_idle;
}

/* A task as an id in another field (object, arg0, arg1): its tag, or
 * PR_TRACE_NONE for NULL. */
static inline pr_trace_tag_t trace_id(const pr_task_t *t) { return t == NULL ? PR_TRACE_NONE : t->trace_tag; }

/* A task id as given by a caller, in another field: its tag, or
 * PR_TRACE_NONE outside the pool. */
static inline pr_trace_tag_t trace_task_id_of(pr_id_t id)
{
    return (id >= 0 && id < PR_CONFIG_MAX_TASKS) ? trace_task_tag(id) : PR_TRACE_NONE;
}

/* The calling task's id in another field, or PR_TRACE_NONE outside a task
 * (pr_self is then the idle task). */
static inline pr_trace_tag_t caller_trace_id(void) { return pr_self->trace_tag; }

#endif /* PRIORA_TRACE_IMPL_H */
