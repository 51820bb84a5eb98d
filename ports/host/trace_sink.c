/*
 * Host port, part 3: where the trace goes. The kernel's ring is drained into
 * a growing array (the host port may allocate; the kernel never does), and
 * records can be printed as a readable timeline.
 */
#include <stdlib.h>
#include <string.h>
#include "host_internal.h"

static pr_trace_record_t *records;
static size_t count, capacity;

void host_trace_reset(void) { count = 0; }

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
        size_t got = pr_trace_drain(records + count, capacity - count);
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

static const char *task_name(uint8_t id, char *buf, size_t size)
{
    pr_task_status_t st;
    if (id == PR_TRACE_NONE)
        return "idle";
    if (pr_task_status(id, &st) == PR_OK && st.name[0] != '\0')
        return strcpy(buf, st.name);
    snprintf(buf, size, "T%u", id);
    return buf;
}

static const char *sem_name(uint8_t id, char *buf, size_t size)
{
    pr_sem_attr_t attr;
    if (id == PR_TRACE_NONE)
        return "-";
    if (pr_sem_attr_get(id, &attr) == PR_OK && attr.name[0] != '\0')
        return strcpy(buf, attr.name);
    snprintf(buf, size, "S%u", id);
    return buf;
}

static const char *cond_name(uint8_t id, char *buf, size_t size)
{
    pr_cond_status_t st;
    if (id == PR_TRACE_NONE)
        return "-";
    if (pr_cond_status(id, &st) == PR_OK && st.name[0] != '\0')
        return strcpy(buf, st.name);
    snprintf(buf, size, "C%u", id);
    return buf;
}

static const char *events_name(uint8_t id, char *buf, size_t size)
{
    pr_events_status_t st;
    if (id == PR_TRACE_NONE)
        return "-";
    if (pr_events_status(id, &st) == PR_OK && st.name[0] != '\0')
        return strcpy(buf, st.name);
    snprintf(buf, size, "E%u", id);
    return buf;
}

static const char *msgq_name(uint8_t id, char *buf, size_t size)
{
    pr_msgq_status_t st;
    if (id == PR_TRACE_NONE)
        return "-";
    if (pr_msgq_status(id, &st) == PR_OK && st.name[0] != '\0')
        return strcpy(buf, st.name);
    snprintf(buf, size, "Q%u", id);
    return buf;
}

static const char *timer_name(uint8_t id, char *buf, size_t size)
{
    pr_timer_status_t st;
    if (id == PR_TRACE_NONE)
        return "-";
    if (pr_timer_status(id, &st) == PR_OK && st.name[0] != '\0')
        return strcpy(buf, st.name);
    snprintf(buf, size, "TM%u", id);
    return buf;
}

static const char *events_options(unsigned options)
{
    static const char *const names[] = {"any", "all", "any+clear", "all+clear"};
    return names[options & 3u];
}

/* t ns as ticks with up to 3 decimals: t * hz / 1e9 computed without
 * overflow, rounded to the nearest thousandth. The instant of tick k (k * 1e9
 * / hz rounded down to a ns) prints as exactly k at any tick rate. */
static void format_time(uint64_t t, char *buf, size_t size)
{
    const uint64_t ns = 1000000000u, hz = pr_tick_hz();
    uint64_t whole = (t / ns) * hz + (t % ns) * hz / ns;
    uint64_t rem = (t % ns) * hz % ns;                 /* fraction of a tick, in 1e-9 */
    uint64_t part = (rem * 1000 + ns / 2) / ns;        /* in thousandths, rounded */
    if (rem != 0 && pr_host_tick_time(whole + 1) == t) /* a tick instant, rounded down */
        part = 1000;
    if (part == 1000) {
        whole++;
        part = 0;
    }
    if (part == 0)
        snprintf(buf, size, "%llu", (unsigned long long)whole);
    else if (part % 100 == 0)
        snprintf(buf, size, "%llu.%llu", (unsigned long long)whole, (unsigned long long)(part / 100));
    else
        snprintf(buf, size, "%llu.%03llu", (unsigned long long)whole, (unsigned long long)part);
}

static const char *cause_name(int cause)
{
    switch (cause) {
    case PR_CAUSE_SET: return "set";
    case PR_CAUSE_INHERIT: return "inherit";
    case PR_CAUSE_RELEASE: return "release";
    case PR_CAUSE_ACQUIRE: return "acquire";
    case PR_CAUSE_TIMEOUT: return "timeout";
    case PR_CAUSE_DELETE: return "delete";
    case PR_CAUSE_CEILING: return "ceiling";
    case PR_CAUSE_MESSAGE: return "message";
    case PR_CAUSE_ABORT: return "abort";
    }
    return "?";
}

char *pr_host_trace_line(const pr_trace_record_t *r, char *buf, size_t size)
{
    char when[32], tbuf[PR_CONFIG_NAME_LEN + 8], o[PR_CONFIG_NAME_LEN + 8], x[PR_CONFIG_NAME_LEN + 8];
    const char *ev = pr_trace_event_name(r->event);
    const char *res = r->result != PR_OK ? pr_errname(r->result) : "ok";
    format_time(r->time, when, sizeof when);
    /* In a SWITCH, "no task" is the idle task; elsewhere it is a caller
     * outside any task (an interrupt, or the program driving the host). */
    const char *t = (r->task == PR_TRACE_NONE && r->event != PR_EV_SWITCH) ? "-" : task_name(r->task, tbuf, sizeof tbuf);

    switch (r->event) {
    case PR_EV_SWITCH:
        snprintf(buf, size, "%s %s %s<-%s", when, ev, t, task_name(r->object, o, sizeof o));
        break;
    case PR_EV_RELEASE:
    case PR_EV_JOB_DONE:
        snprintf(buf, size, "%s %s %s job=%d", when, ev, t, r->value);
        break;
    case PR_EV_DEADLINE_MISS:
        snprintf(buf, size, "%s %s %s job=%d", when, ev, t, r->value);
        break;
    case PR_EV_PRIO:
        snprintf(buf, size, "%s %s %s %u->%u %s %s", when, ev, t, r->arg0, r->arg1, cause_name(r->value & 0xFF),
                 (r->value >> 8) == PR_OBJ_MSGQ ? msgq_name(r->object, o, sizeof o) : sem_name(r->object, o, sizeof o));
        break;
    case PR_EV_PRIO_SET:
        snprintf(buf, size, "%s %s %s %u->%u %s", when, ev, t, r->arg0, r->arg1, res);
        break;
    case PR_EV_BLOCK:
    case PR_EV_WAKE:
    case PR_EV_TIMEOUT:
    case PR_EV_SEM_ALLOC:
    case PR_EV_SEM_FREE:
        snprintf(buf, size, "%s %s %s %s %s", when, ev, t, sem_name(r->object, o, sizeof o), res);
        break;
    case PR_EV_SEM_DOWN:
    case PR_EV_SEM_UP:
        snprintf(buf, size, "%s %s %s %s %s value=%d", when, ev, t, sem_name(r->object, o, sizeof o), res,
                 r->value);
        break;
    case PR_EV_DELAY:
    case PR_EV_LOST:
        snprintf(buf, size, "%s %s %s %d", when, ev, t, r->value);
        break;
    case PR_EV_WATCHDOG:
        snprintf(buf, size, "%s %s %s missed=%s", when, ev, t, task_name(r->object, o, sizeof o));
        break;
    case PR_EV_ABORT:
        snprintf(buf, size, "%s %s %s %s by=%s", when, ev, t, sem_name(r->object, o, sizeof o),
                 task_name(r->arg0, x, sizeof x));
        break;
    case PR_EV_CEILING:
        snprintf(buf, size, "%s %s %s %s ceiling=%u holder=%s", when, ev, t, sem_name(r->object, o, sizeof o),
                 r->arg0, task_name(r->arg1, x, sizeof x));
        break;
    case PR_EV_COND_WAIT:
        snprintf(buf, size, "%s %s %s %s %s %s", when, ev, t, cond_name(r->object, o, sizeof o),
                 sem_name(r->arg0, x, sizeof x), res);
        break;
    case PR_EV_COND_WAKE:
        snprintf(buf, size, "%s %s %s %s %s", when, ev, t, cond_name(r->object, o, sizeof o), res);
        break;
    case PR_EV_COND_SIGNAL:
        snprintf(buf, size, "%s %s %s %s %s woken=%d", when, r->arg0 ? "COND_BROADCAST" : ev, t,
                 cond_name(r->object, o, sizeof o), res, r->value);
        break;
    case PR_EV_RECOVER:
        snprintf(buf, size, "%s %s %s %s for=%s", when, ev, t, sem_name(r->object, o, sizeof o),
                 task_name(r->arg0, x, sizeof x));
        break;
    case PR_EV_SCHED_LOCK:
        snprintf(buf, size, "%s %s %s depth=%d", when, r->arg0 ? "SCHED_LOCK" : "SCHED_UNLOCK", t, r->value);
        break;
    case PR_EV_EVENTS_SET:
        snprintf(buf, size, "%s %s %s %s %s flags=0x%x woken=%u", when, r->arg0 ? "EVENTS_SET" : "EVENTS_CLEAR", t,
                 events_name(r->object, o, sizeof o), res, (unsigned)r->value, r->arg1);
        break;
    case PR_EV_EVENTS_WAIT:
        snprintf(buf, size, "%s %s %s %s %s mask=0x%x %s%s", when, ev, t, events_name(r->object, o, sizeof o), res,
                 (unsigned)r->value, events_options(r->arg0), r->arg1 ? " waits" : "");
        break;
    case PR_EV_EVENTS_WAKE:
        snprintf(buf, size, "%s %s %s %s %s flags=0x%x", when, ev, t, events_name(r->object, o, sizeof o), res,
                 (unsigned)r->value);
        break;
    case PR_EV_MSGQ_WAIT:
        snprintf(buf, size, "%s %s %s %s %s", when, ev, t, msgq_name(r->object, o, sizeof o),
                 r->arg0 ? "for-room" : "for-message");
        break;
    case PR_EV_MSGQ_WAKE:
        snprintf(buf, size, "%s %s %s %s %s", when, ev, t, msgq_name(r->object, o, sizeof o), res);
        break;
    case PR_EV_MSGQ_SEND:
    case PR_EV_MSGQ_RECEIVE:
        snprintf(buf, size, "%s %s %s %s %s prio=%u messages=%d%s", when, ev, t, msgq_name(r->object, o, sizeof o),
                 res, r->arg0, r->value, r->arg1 ? " waited" : "");
        break;
    case PR_EV_TIMER_START:
        if (r->arg0)
            snprintf(buf, size, "%s %s %s %s %s at=%u", when, ev, t, timer_name(r->object, o, sizeof o), res,
                     (unsigned)r->value);
        else
            snprintf(buf, size, "%s TIMER_STOP %s %s %s", when, t, timer_name(r->object, o, sizeof o), res);
        break;
    case PR_EV_TIMER_EXPIRE:
        snprintf(buf, size, "%s %s %s%s", when, ev, timer_name(r->object, o, sizeof o), r->arg0 ? " dropped" : "");
        break;
    case PR_EV_TIMER_RUN:
        snprintf(buf, size, "%s %s %s %s late=%d", when, ev, t, timer_name(r->object, o, sizeof o), r->value);
        break;
    case PR_EV_JOB_ABORT:
        snprintf(buf, size, "%s %s %s job=%d %s%s", when, ev, t, r->value, r->arg0 ? "abort-time" : "by=",
                 r->arg0 ? "" : task_name(r->object, o, sizeof o));
        break;
    case PR_EV_ARRIVAL:
        if (r->result != PR_OK)
            snprintf(buf, size, "%s %s %s %s earliest=%u", when, ev, t, res, (unsigned)r->value);
        else if (r->arg0)
            snprintf(buf, size, "%s %s %s deferred to=%u", when, ev, t, (unsigned)r->value);
        else
            snprintf(buf, size, "%s %s %s jitter=%d", when, ev, t, r->value);
        break;
    default:
        snprintf(buf, size, "%s %s %s", when, ev, t);
    }
    return buf;
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
