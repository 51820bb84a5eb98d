/*
 * The kernel trace: one fixed-size binary record per scheduling or
 * synchronization event, in a ring buffer that the port drains. The format is
 * the same on every port; docs/trace-format.md describes every field of every
 * event. Compile with PR_CONFIG_TRACE=0 to remove every trace point.
 */
#ifndef PRIORA_TRACE_H
#define PRIORA_TRACE_H

#include "priora/types.h"

/* Event codes (the record's `event` byte). Values are stable. */
typedef enum pr_trace_event {
    PR_EV_TASK_CREATE = 1,  /* task; arg0 = base priority; value = period (saturated at INT32_MAX) */
    PR_EV_TASK_DELETE = 2,  /* task = deleted task; object = caller */
    PR_EV_RELEASE = 3,      /* task; value = job number */
    PR_EV_SWITCH = 4,       /* task = task switched in (0xFF idle); object = task switched out (0xFF idle); arg0 = state of the task switched out */
    PR_EV_BLOCK = 5,        /* task; object = semaphore; value = timeout ticks (0xFFFFFFFF forever) */
    PR_EV_WAKE = 6,         /* task; object = semaphore; result = PR_OK or PR_ETIMEDOUT */
    PR_EV_PRIO = 7,         /* task; arg0 = old, arg1 = new effective priority; object = the semaphore or
                               queue it came through, or 0xFF; value = cause (pr_prio_cause) | the
                               object's kind (pr_trace_object) << 8 */
    PR_EV_TIMEOUT = 8,      /* task; object = semaphore (0xFF: a watchdog's pr_task_wait_miss) */
    PR_EV_DEADLINE_MISS = 9,/* task; value = job number; object = watchdog or 0xFF */
    PR_EV_JOB_DONE = 10,    /* task; value = job number */
    PR_EV_SEM_ALLOC = 11,   /* task = caller; object = semaphore (0xFF on error); result; value = initial value */
    PR_EV_SEM_FREE = 12,    /* task = caller; object; result */
    PR_EV_SEM_DOWN = 13,    /* task; object; result; value = semaphore value after; arg0 = 1 if the call blocked */
    PR_EV_SEM_UP = 14,      /* task = caller (0xFF interrupt); object; result; value = value after; arg0 = task woken or 0xFF */
    PR_EV_DELAY = 15,       /* task; value = ticks */
    PR_EV_SUSPEND = 16,     /* task = suspended; object = caller */
    PR_EV_RESUME = 17,      /* task = resumed; object = caller */
    PR_EV_TASK_EXIT = 18,   /* task (its body returned); value = mutexes it still held, released */
    PR_EV_LOST = 19,        /* value = records lost before this one (ring full) */
    PR_EV_WATCHDOG = 20,    /* task = watchdog woken; object = task that missed */
    PR_EV_DELAY_END = 21,   /* task (its pr_task_delay is over) */
    PR_EV_PRIO_SET = 22,    /* task = target; object = caller; arg0 = old base, arg1 = new base; result */
    PR_EV_ABORT = 23,       /* rcs: task = holder whose section is aborted; object = mutex; arg0 = task
                               taking it over; arg1 = lock depth lost; value = the holder's pending aborts */
    PR_EV_CEILING = 24,     /* pcp: task blocked by the system ceiling; object = mutex asked for;
                               arg0 = the system ceiling; arg1 = its holder; value = the mutex setting it */
    PR_EV_COND_WAIT = 25,   /* task = caller; object = condition variable; arg0 = mutex (0xFF if bad);
                               result; value = timeout ticks */
    PR_EV_COND_WAKE = 26,   /* task leaving a condition variable; object = it; result = PR_OK
                               (signalled) or PR_ETIMEDOUT */
    PR_EV_COND_SIGNAL = 27, /* task = caller; object = condition variable; arg0 = 0 signal, 1 broadcast;
                               result; value = tasks woken */
    PR_EV_SCHED_LOCK = 28,  /* task = caller; arg0 = 1 pr_sched_lock, 0 pr_sched_unlock; value = the
                               caller's scheduler-lock depth after the call */
    PR_EV_RECOVER = 29,     /* rcs: task = aborted holder starting its section's recovery; object =
                               mutex; arg0 = the task that waits for the mutex (0xFF if none) */
    PR_EV_EVENTS_SET = 30,  /* task = caller (0xFF: interrupt); object = event flags; result; arg0 = 1
                               pr_events_set, 0 pr_events_clear; arg1 = tasks woken; value = the flags after */
    PR_EV_EVENTS_WAIT = 31, /* task = caller; object = event flags; result; arg0 = options; arg1 = 1 if
                               it waits; value = the mask */
    PR_EV_EVENTS_WAKE = 32, /* task leaving an event flags wait; object; result = PR_OK (satisfied) or
                               PR_ETIMEDOUT; value = the flags that satisfied it (or the flags then) */
    PR_EV_MSGQ_WAIT = 33,   /* task starts to wait on a message queue; object = it; arg0 = 1 for room
                               (a send), 0 for a message (a receive); value = timeout ticks */
    PR_EV_MSGQ_WAKE = 34,   /* task leaving a message queue wait; object; result = PR_OK (its message
                               was taken in, or one was handed to it) or PR_ETIMEDOUT */
    PR_EV_MSGQ_SEND = 35,   /* task = caller (0xFF: interrupt); object = queue; result; arg0 = message
                               priority; arg1 = 1 if the call waited; value = messages in the queue after */
    PR_EV_MSGQ_RECEIVE = 36,/* task = caller (0xFF: interrupt); object = queue; result; arg0 = message
                               priority; arg1 = 1 if the call waited; value = messages in the queue after */
    PR_EV_TIMER_START = 37, /* task = caller (0xFF: interrupt); object = software timer; result; arg0 = 1
                               pr_timer_start, 0 pr_timer_stop; value = the expiry tick (low 32 bits) */
    PR_EV_TIMER_EXPIRE = 38,/* object = software timer expiring at this tick; arg0 = 1 if its previous
                               expiry had not run yet (this one is dropped) */
    PR_EV_TIMER_RUN = 39,   /* task = timer service; object = software timer whose action starts;
                               value = its lateness in ticks */
    PR_EV_RTPRIO = 40,      /* task = target; object = caller; result; arg0 = old, arg1 = new real-time
                               priority (0 on a time-sharing side); value = nice + 20, | 0x100 if it
                               was time-sharing, | 0x200 if it moves to time sharing */
    PR_EV_NICE = 41,        /* task = target; object = caller; result; arg0 = old, arg1 = new nice + 20 */
    PR_EV_PRIV_GROUP = 42,  /* task = caller; object = group; result; value = the group's new privileges */
    PR_EV_TASK_GROUP = 43,  /* task = target; object = caller; result; arg0 = old, arg1 = new group */
    PR_EV_ARRIVAL = 44,     /* a job arrives (sporadic tasks, tasks with jitter): task; object = caller
                               of pr_task_release (0xFF: interrupt, outside, or the kernel's timer);
                               result = PR_OK or PR_EAGAIN (too early: refused); arg0 = 1 deferred;
                               value = arrived: its jitter j (RELEASE follows j ticks later);
                               deferred or refused: the earliest allowed tick (low 32 bits) */
    PR_EV_JOB_ABORT = 45    /* task whose current job is aborted; object = the hard task whose miss
                               chose it (itself too), 0xFF for its abort time; arg0 = 1 abort time,
                               0 hard miss; value = the job's number */
} pr_trace_event_t;

#define PR_EV_LAST PR_EV_JOB_ABORT /* the largest event code */

/* Why an effective priority changed (PR_EV_PRIO value). */
typedef enum pr_prio_cause {
    PR_CAUSE_SET = 1,      /* pr_task_set_priority on this task */
    PR_CAUSE_INHERIT = 2,  /* a waiter's priority reached it through a mutex (block or chain) */
    PR_CAUSE_RELEASE = 3,  /* it released a mutex */
    PR_CAUSE_ACQUIRE = 4,  /* it was handed a mutex that has waiters */
    PR_CAUSE_TIMEOUT = 5,  /* a waiter of one of its mutexes timed out */
    PR_CAUSE_DELETE = 6,   /* a waiter of one of its mutexes was deleted */
    PR_CAUSE_CEILING = 7,  /* it locked a mutex that lends its ceiling at once (ipcp, npcs) */
    PR_CAUSE_MESSAGE = 8,  /* it received a message from a queue that lends (msgq.h: inheritance) */
    PR_CAUSE_DECAY = 9,    /* time sharing: its usage or nice moved its level (timeshare.h) */
    PR_CAUSE_ABORT = 10    /* a waiter of one of its mutexes left the wait: its job was aborted */
} pr_prio_cause_t;

/* What a PR_EV_PRIO record's object names (its value's second byte). */
typedef enum pr_trace_object {
    PR_OBJ_SEM = 0,  /* a semaphore (or none: object 0xFF) */
    PR_OBJ_MSGQ = 1  /* a message queue (msgq.h: inheritance through the queue) */
} pr_trace_object_t;

#define PR_TRACE_NONE 0xFF /* "no task / no object" in the one-byte fields */

/* Task ids in records. Up to 254 tasks a task's id is its byte, as every
 * other object's. With more (PR_CONFIG_MAX_TASKS 255..4094) a record names a
 * task by a 12-bit tag: the byte holds its low 8 bits and the record's
 * ids_high nibble of that field the high 4; the tag is the id below 255 and
 * the id + 1 from 255 on, so that 0xFF (nibble 0) stays "none" in every
 * build (docs/trace-format.md, "Task ids beyond 254"). */
#define PR_TRACE_WIDE_IDS (PR_CONFIG_MAX_TASKS > 254)
#if PR_TRACE_WIDE_IDS
typedef uint16_t pr_trace_tag_t;
#else
typedef uint8_t pr_trace_tag_t;
#endif

/* One record as pr_trace_drain gives it: 24 bytes, in the CPU's byte order
 * (little-endian on the x86-64 host port and on RISC-V). The ring holds a
 * shorter form with the port's raw stamp; the drain converts it
 * (docs/trace-format.md). */
typedef struct pr_trace_record {
    uint64_t time;   /* port time (ns on both ports) */
    uint32_t seq;    /* record number since init; a gap means records were lost */
    int32_t value;   /* event-specific */
    uint8_t event;   /* pr_trace_event_t */
    uint8_t task;    /* subject task id, or PR_TRACE_NONE */
    uint8_t object;  /* semaphore or second task id, or PR_TRACE_NONE */
    int8_t result;   /* PR_OK or a pr_err_t code */
    uint8_t arg0;
    uint8_t arg1;
    uint16_t ids_high; /* bits 8-11 of the task (bits 0-3), object (4-7), arg0 (8-11) and arg1 (12-15)
                          tags; 0 unless PR_TRACE_WIDE_IDS */
} pr_trace_record_t;

/* The fields of a record that may name a task, for pr_trace_task_id. */
enum { PR_TRACE_TASK = 0, PR_TRACE_OBJECT = 1, PR_TRACE_ARG0 = 2, PR_TRACE_ARG1 = 3 };

/* The task id that field `field` of r names, when the event puts a task
 * there (docs/trace-format.md); PR_NO_TASK for 0xFF (none, or the idle task
 * in a SWITCH). The tag is the byte and its ids_high nibble; tags from 0x100
 * on are the id + 1. */
static inline pr_id_t pr_trace_task_id(const pr_trace_record_t *r, int field)
{
    const uint8_t bytes[4] = {r->task, r->object, r->arg0, r->arg1};
    unsigned tag = bytes[field & 3] | ((unsigned)r->ids_high >> (4 * (field & 3)) & 0xFu) << 8;
    return tag == PR_TRACE_NONE ? PR_NO_TASK : (pr_id_t)(tag < PR_TRACE_NONE ? tag : tag - 1);
}

/* Copies up to max records out of the ring (oldest first) and removes them.
 * Returns the number copied. Ports call it; it never blocks. O(records
 * removed). */
size_t pr_trace_drain(pr_trace_record_t *out, size_t max);

/* Every event, as a pr_trace_drain_events filter. */
#define PR_TRACE_ALL (~UINT64_C(0))
/* As pr_trace_drain, keeping only the records of the events in `events`
 * (bit e for event e: UINT64_C(1) << PR_EV_RELEASE | ...), and LOST
 * records whatever the filter. The others are removed from the ring too,
 * and keep their sequence numbers: a kept record's seq is the one it has
 * in the whole trace, so a gap in a filtered drain is the records left
 * out (and those lost, which a LOST record tells). A drain that reads a
 * few kinds (the lab's verdict) decodes only those. */
size_t pr_trace_drain_events(pr_trace_record_t *out, size_t max, uint64_t events);

/* Records dropped because the ring was full and the port could not drain. */
uint32_t pr_trace_lost(void);

/* A short name of an event code ("SWITCH"), for tools. */
const char *pr_trace_event_name(int event);

#endif /* PRIORA_TRACE_H */
