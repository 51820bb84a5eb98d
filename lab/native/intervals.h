/*
 * What each task did over time, read from a kernel trace in one pass: the
 * intervals and instants that the lab's charts, Perfetto, CTF and HTML draw
 * (lab/priora/trace/timeline.py turns them into its dataclasses, naming the
 * objects). The job rows and totals are metrics.h's; the misses are those
 * rows'. docs/trace-format.md, "Reading the trace", gives the rules.
 */
#ifndef PRIORA_LAB_INTERVALS_H
#define PRIORA_LAB_INTERVALS_H

#include <stddef.h>
#include <stdint.h>
#include "priora/trace.h"

typedef enum pr_lab_span_kind {
    PR_SPAN_EXEC = 0,     /* [start, end): the task ran */
    PR_SPAN_HOLD = 1,     /* it held mutex `object`; flag 1: its section was aborted (rcs) at end */
    PR_SPAN_BLOCKED = 2,  /* it waited on semaphore `object`; flag 1: timed out; a: pcp's system
                             ceiling it waited on (-1: none), b: the task whose mutex set it (-1) */
    PR_SPAN_RECOVERY = 3, /* rcs: it recovered mutex `object`'s state for task a */
    PR_SPAN_BOOST = 4,    /* its effective priority was a, above its base; cause: why (pr_prio_cause_t) */
    PR_SPAN_ABORT = 5,    /* instant: its section on mutex `object` was aborted, task a took it */
    PR_SPAN_CHANGE = 6,   /* instant: a PRIO record, a -> b, cause; object: through it (0xFF none);
                             flag 1: object is a message queue */
    PR_SPAN_RELEASE = 7,  /* instant: job a released */
    PR_SPAN_DEADLINE = 8, /* instant: job a's absolute deadline */
    PR_SPAN_FINISH = 9,   /* instant: job a done */
    PR_SPAN_WAIT = 10,    /* it waited on a queue or event flags `object`; flag: 0 for room, 1 for a
                             message, 2 for flags; b 1: timed out */
    PR_SPAN_SERVICE = 11, /* instant: flag 0 a send, 1 a receive (a: the message's priority), 2 a
                             set (a: the flags after), 3 a timer's expiry (a: its tick); task -1: made
                             in an interrupt */
    PR_SPAN_KINDS = 12
} pr_lab_span_kind_t;

typedef struct pr_lab_span {
    uint64_t start; /* ns */
    uint64_t end;   /* ns; = start for an instant */
    int64_t a, b;   /* by kind, above */
    int32_t task;   /* its row: a kernel task id, or -1 (an interrupt's service) */
    uint8_t kind;   /* pr_lab_span_kind_t */
    uint8_t object;
    uint8_t flag;
    uint8_t cause;
} pr_lab_span_t;

/* The objects of the run, as the model has them. */
typedef struct pr_lab_objects {
    int ntasks;                   /* rows 0 .. ntasks-1: the file's tasks, then the timer service */
    const int32_t *base;          /* per row: its base priority before its TASK_CREATE */
    const uint64_t *rel_deadline; /* per row: relative deadline in ns, 0 = none */
    int nsems;
    const uint8_t *is_mutex;      /* per semaphore */
    int nqueues, nevents, ntimers;
    int timer_row;                /* the timer service's row (its expiries go there) */
} pr_lab_objects_t;

/*
 * records, n   the trace, in order
 * end          where intervals still open close (ns)
 * out, max     the spans, in the order they close (a task's executions and
 *              boosts in time order, merged where one resumes at the instant
 *              it stopped); max >= pr_lab_spans_bound
 * Returns the number written, or -1 when out of memory or max is too small.
 */
long pr_lab_spans(const pr_trace_record_t *records, size_t n, const pr_lab_objects_t *objects, uint64_t end,
                  pr_lab_span_t *out, size_t max);

/* Room enough for pr_lab_spans of these records. */
size_t pr_lab_spans_bound(const pr_trace_record_t *records, size_t n, const pr_lab_objects_t *objects);

#endif
