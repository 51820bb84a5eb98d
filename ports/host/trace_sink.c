/*
 * Host port, part 3: where the trace goes. The kernel's ring is drained into
 * a growing array (the host port may allocate; the kernel never does), and
 * records can be printed as a readable timeline.
 */
#include <stdlib.h>
#include <string.h>
#include "host_internal.h"
#include "priora/trace_text.h"

static pr_trace_record_t *records;
static size_t count, capacity;
static uint64_t kept = PR_TRACE_ALL; /* pr_host_trace_keep */

void host_trace_reset(void)
{
    count = 0;
    kept = PR_TRACE_ALL;
}

void pr_host_trace_keep(uint64_t events) { kept = events; }

static void drain_all(void)
{
    for (;;) {
        if (count == capacity) {
            size_t more = capacity ? capacity * 2 : 4096;
            pr_trace_record_t *grown = realloc(records, more * sizeof *records);
            if (grown == NULL)
                return; /* the kernel counts what it cannot keep */
            records = grown;
            capacity = more;
        }
        size_t got = pr_trace_drain_events(records + count, capacity - count, kept);
        count += got;
        if (got == 0)
            return;
    }
}

void pr_port_trace_full(void) { drain_all(); }

const pr_trace_record_t *pr_host_trace(size_t *n)
{
    drain_all();
    *n = count;
    return records;
}

/* Names from the live kernel: looked up when a line is printed, not when its
 * record was written (a deleted task's slot prints T<id>, or its new name). */
static const char *live_name(void *ctx, int kind, unsigned id, char *buf, size_t size)
{
    (void)ctx;
    const char *name = NULL;
    pr_task_status_t task;
    pr_sem_attr_t sem;
    pr_cond_status_t cond;
    pr_events_status_t events;
    pr_msgq_status_t msgq;
    pr_timer_status_t timer;
    switch (kind) {
    case PR_NAME_TASK:
        name = pr_task_status((pr_id_t)id, &task) == PR_OK ? task.name : NULL;
        break;
    case PR_NAME_SEM:
        name = pr_sem_attr_get((pr_id_t)id, &sem) == PR_OK ? sem.name : NULL;
        break;
    case PR_NAME_COND:
        name = pr_cond_status((pr_id_t)id, &cond) == PR_OK ? cond.name : NULL;
        break;
    case PR_NAME_EVENTS:
        name = pr_events_status((pr_id_t)id, &events) == PR_OK ? events.name : NULL;
        break;
    case PR_NAME_MSGQ:
        name = pr_msgq_status((pr_id_t)id, &msgq) == PR_OK ? msgq.name : NULL;
        break;
    case PR_NAME_TIMER:
        name = pr_timer_status((pr_id_t)id, &timer) == PR_OK ? timer.name : NULL;
        break;
    }
    if (name == NULL)
        return NULL;
    snprintf(buf, size, "%s", name); /* the status structures are this function's */
    return buf;
}

char *pr_host_trace_line(const pr_trace_record_t *r, char *buf, size_t size)
{
    return pr_trace_format(r, pr_tick_hz(), live_name, NULL, buf, size);
}

void pr_host_trace_print(FILE *out, uint64_t events)
{
    size_t n;
    const pr_trace_record_t *recs = pr_host_trace(&n);
    char line[160];
    for (size_t i = 0; i < n; i++)
        if (events == 0 || (events & (UINT64_C(1) << recs[i].event)))
            fprintf(out, "%s\n", pr_host_trace_line(&recs[i], line, sizeof line));
}
