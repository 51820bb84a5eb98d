/*
 * The trace ring: PR_CONFIG_TRACE_RECORDS fixed-size records. The kernel
 * writes at the head; the port drains from the tail. When the ring is full
 * the kernel asks the port to drain it (pr_port_trace_full); if it is still
 * full, the record is dropped and counted, and a PR_EV_LOST record with the
 * count is written as soon as there is room again. Each record carries a
 * sequence number, so a reader also sees a gap.
 */
#include "trace_impl.h"

#if PR_CONFIG_TRACE

#define RING_MASK (PR_CONFIG_TRACE_RECORDS - 1u)

static pr_trace_record_t ring[PR_CONFIG_TRACE_RECORDS];
static uint32_t head, tail;   /* free-running: used = head - tail */
static uint32_t seq;
static uint32_t lost_total, lost_unreported;

void trace_reset(void)
{
    head = tail = seq = 0;
    lost_total = lost_unreported = 0;
}

static void put(uint8_t event, uint8_t task, uint8_t object, int result, uint8_t arg0, uint8_t arg1,
                int32_t value)
{
    pr_trace_record_t *r = &ring[head & RING_MASK];
    r->time = pr_port_now();
    r->seq = seq++;
    r->value = value;
    r->event = event;
    r->task = task;
    r->object = object;
    r->result = (int8_t)result;
    r->arg0 = arg0;
    r->arg1 = arg1;
    r->tick_low = (uint16_t)pr_k.ticks;
    head++;
}

void trace_emit(uint8_t event, uint8_t task, uint8_t object, int result, uint8_t arg0, uint8_t arg1,
                int32_t value)
{
    uint32_t needed = lost_unreported ? 2u : 1u;
    if (PR_CONFIG_TRACE_RECORDS - (head - tail) < needed)
        pr_port_trace_full();
    if (PR_CONFIG_TRACE_RECORDS - (head - tail) < needed) {
        lost_total++;
        lost_unreported++;
        seq++;
        return;
    }
    if (lost_unreported) {
        put(PR_EV_LOST, PR_TRACE_NONE, PR_TRACE_NONE, PR_OK, 0, 0, (int32_t)lost_unreported);
        lost_unreported = 0;
    }
    put(event, task, object, result, arg0, arg1, value);
    pr_port_traced(&ring[(head - 1u) & RING_MASK]);
}

size_t pr_trace_drain(pr_trace_record_t *out, size_t max)
{
    pr_irq_state_t irq = pr_port_irq_save();
    size_t n = 0;
    while (n < max && tail != head)
        out[n++] = ring[tail++ & RING_MASK];
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
        [PR_EV_TIMER_RUN] = "TIMER_RUN",
    };
    if (event <= 0 || (size_t)event >= sizeof names / sizeof names[0] || names[event] == NULL)
        return "?";
    return names[event];
}
