/*
 * A trace record as one line of text (trace_text.h). It reads nothing but
 * the record, the tick rate and the names it is given, so that a dump read
 * back anywhere prints the lines the host port prints.
 */
#include <stdio.h>
#include "priora/errors.h"
#include "priora/trace_text.h"

#define NAME_SIZE 40 /* a name as printed: PR_CONFIG_NAME_LEN or a default */

typedef struct namer {
    pr_trace_namer_t fn;
    void *ctx;
} namer_t;

/* An object's name; id PR_TRACE_NONE (PR_NO_TASK for a task) is none. */
static const char *object_name(const namer_t *n, int kind, long id, char *buf, size_t size)
{
    static const char *const prefix[PR_NAME_KINDS] = {"T", "S", "C", "E", "Q", "TM"};
    if (kind == PR_NAME_TASK ? id == PR_NO_TASK : id == PR_TRACE_NONE)
        return kind == PR_NAME_TASK ? "idle" : "-";
    const char *name = n->fn != NULL ? n->fn(n->ctx, kind, (unsigned)id, buf, size) : NULL;
    if (name != NULL && name[0] != '\0')
        return name;
    snprintf(buf, size, "%s%ld", prefix[kind], id);
    return buf;
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
    case PR_CAUSE_DECAY: return "decay";
    case PR_CAUSE_ABORT: return "abort";
    }
    return "?";
}

static const char *events_options(unsigned options)
{
    static const char *const names[] = {"any", "all", "any+clear", "all+clear"};
    return names[options & 3u];
}

/* An RTPRIO record's side: a real-time priority, or "ts" for the
 * time-sharing band (its bit in the record's value, trace.h). */
static const char *rtprio_name(int timeshare, unsigned prio, char *buf, size_t size)
{
    if (timeshare)
        return "ts";
    snprintf(buf, size, "%u", prio);
    return buf;
}

/* Tick k's instant, floor(k * 1e9 / hz), as the host port's clock has it. */
static uint64_t tick_time(uint64_t k, uint64_t hz)
{
    return (k / hz) * 1000000000u + (k % hz) * 1000000000u / hz;
}

/* t ns as ticks with up to 3 decimals: t * hz / 1e9 computed without
 * overflow, rounded to the nearest thousandth. The instant of tick k prints
 * as exactly k at any tick rate. */
static void format_time(uint64_t t, uint64_t hz, char *buf, size_t size)
{
    const uint64_t ns = 1000000000u;
    uint64_t whole = (t / ns) * hz + (t % ns) * hz / ns;
    uint64_t rem = (t % ns) * hz % ns;                   /* fraction of a tick, in 1e-9 */
    uint64_t part = (rem * 1000 + ns / 2) / ns;          /* in thousandths, rounded */
    if (rem != 0 && tick_time(whole + 1, hz) == t)       /* a tick instant, rounded down */
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

char *pr_trace_format(const pr_trace_record_t *r, uint32_t tick_hz, pr_trace_namer_t fn, void *ctx,
                      char *buf, size_t size)
{
    namer_t n = {fn, ctx};
    char when[32], tbuf[NAME_SIZE], o[NAME_SIZE], x[NAME_SIZE];
    const char *ev = pr_trace_event_name(r->event);
    const char *res = r->result != 0 ? pr_errname(r->result) : "ok";
    format_time(r->time, tick_hz ? tick_hz : 1, when, sizeof when);
    /* In a SWITCH, "no task" is the idle task; elsewhere it is a caller
     * outside any task (an interrupt, or the program driving the host). */
    const char *t = (r->task == PR_TRACE_NONE && r->event != PR_EV_SWITCH)
                        ? "-"
                        : object_name(&n, PR_NAME_TASK, pr_trace_task_id(r, PR_TRACE_TASK), tbuf, sizeof tbuf);
    /* A task named by field f of the record (its id may be wider than the byte: trace.h). */
#define TASK(f) object_name(&n, PR_NAME_TASK, pr_trace_task_id(r, (f)), x, sizeof x)
#define OBJ(kind) object_name(&n, (kind), r->object, o, sizeof o)
#define OBJ_TASK() object_name(&n, PR_NAME_TASK, pr_trace_task_id(r, PR_TRACE_OBJECT), o, sizeof o)
#define SEM() OBJ(PR_NAME_SEM)

    switch (r->event) {
    case PR_EV_SWITCH:
        snprintf(buf, size, "%s %s %s<-%s", when, ev, t, OBJ_TASK());
        break;
    case PR_EV_RELEASE:
    case PR_EV_JOB_DONE:
    case PR_EV_DEADLINE_MISS:
        snprintf(buf, size, "%s %s %s job=%d", when, ev, t, r->value);
        break;
    case PR_EV_PRIO:
        snprintf(buf, size, "%s %s %s %u->%u %s %s", when, ev, t, r->arg0, r->arg1, cause_name(r->value & 0xFF),
                 (r->value >> 8) == PR_OBJ_MSGQ ? OBJ(PR_NAME_MSGQ) : SEM());
        break;
    case PR_EV_PRIO_SET:
        snprintf(buf, size, "%s %s %s %u->%u %s", when, ev, t, r->arg0, r->arg1, res);
        break;
    case PR_EV_BLOCK:
    case PR_EV_WAKE:
    case PR_EV_TIMEOUT:
    case PR_EV_SEM_ALLOC:
    case PR_EV_SEM_FREE:
        snprintf(buf, size, "%s %s %s %s %s", when, ev, t, SEM(), res);
        break;
    case PR_EV_SEM_DOWN:
    case PR_EV_SEM_UP:
        snprintf(buf, size, "%s %s %s %s %s value=%d", when, ev, t, SEM(), res, r->value);
        break;
    case PR_EV_DELAY:
    case PR_EV_LOST:
        snprintf(buf, size, "%s %s %s %d", when, ev, t, r->value);
        break;
    case PR_EV_WATCHDOG:
        snprintf(buf, size, "%s %s %s missed=%s", when, ev, t, OBJ_TASK());
        break;
    case PR_EV_ABORT:
        snprintf(buf, size, "%s %s %s %s by=%s", when, ev, t, SEM(), TASK(PR_TRACE_ARG0));
        break;
    case PR_EV_CEILING:
        snprintf(buf, size, "%s %s %s %s ceiling=%u holder=%s", when, ev, t, SEM(), r->arg0, TASK(PR_TRACE_ARG1));
        break;
    case PR_EV_COND_WAIT:
        snprintf(buf, size, "%s %s %s %s %s %s", when, ev, t, OBJ(PR_NAME_COND),
                 object_name(&n, PR_NAME_SEM, r->arg0, x, sizeof x), res);
        break;
    case PR_EV_COND_WAKE:
        snprintf(buf, size, "%s %s %s %s %s", when, ev, t, OBJ(PR_NAME_COND), res);
        break;
    case PR_EV_COND_SIGNAL:
        snprintf(buf, size, "%s %s %s %s %s woken=%d", when, r->arg0 ? "COND_BROADCAST" : ev, t, OBJ(PR_NAME_COND),
                 res, r->value);
        break;
    case PR_EV_RECOVER:
        snprintf(buf, size, "%s %s %s %s for=%s", when, ev, t, SEM(), TASK(PR_TRACE_ARG0));
        break;
    case PR_EV_SCHED_LOCK:
        snprintf(buf, size, "%s %s %s depth=%d", when, r->arg0 ? "SCHED_LOCK" : "SCHED_UNLOCK", t, r->value);
        break;
    case PR_EV_EVENTS_SET:
        snprintf(buf, size, "%s %s %s %s %s flags=0x%x woken=%u", when, r->arg0 ? "EVENTS_SET" : "EVENTS_CLEAR", t,
                 OBJ(PR_NAME_EVENTS), res, (unsigned)r->value, r->arg1);
        break;
    case PR_EV_EVENTS_WAIT:
        snprintf(buf, size, "%s %s %s %s %s mask=0x%x %s%s", when, ev, t, OBJ(PR_NAME_EVENTS), res,
                 (unsigned)r->value, events_options(r->arg0), r->arg1 ? " waits" : "");
        break;
    case PR_EV_EVENTS_WAKE:
        snprintf(buf, size, "%s %s %s %s %s flags=0x%x", when, ev, t, OBJ(PR_NAME_EVENTS), res, (unsigned)r->value);
        break;
    case PR_EV_MSGQ_WAIT:
        snprintf(buf, size, "%s %s %s %s %s", when, ev, t, OBJ(PR_NAME_MSGQ), r->arg0 ? "for-room" : "for-message");
        break;
    case PR_EV_MSGQ_WAKE:
        snprintf(buf, size, "%s %s %s %s %s", when, ev, t, OBJ(PR_NAME_MSGQ), res);
        break;
    case PR_EV_MSGQ_SEND:
    case PR_EV_MSGQ_RECEIVE:
        snprintf(buf, size, "%s %s %s %s %s prio=%u messages=%d%s", when, ev, t, OBJ(PR_NAME_MSGQ), res, r->arg0,
                 r->value, r->arg1 ? " waited" : "");
        break;
    case PR_EV_TIMER_START:
        if (r->arg0)
            snprintf(buf, size, "%s %s %s %s %s at=%u", when, ev, t, OBJ(PR_NAME_TIMER), res, (unsigned)r->value);
        else
            snprintf(buf, size, "%s TIMER_STOP %s %s %s", when, t, OBJ(PR_NAME_TIMER), res);
        break;
    case PR_EV_TIMER_EXPIRE:
        snprintf(buf, size, "%s %s %s%s", when, ev, OBJ(PR_NAME_TIMER), r->arg0 ? " dropped" : "");
        break;
    case PR_EV_TIMER_RUN:
        snprintf(buf, size, "%s %s %s %s late=%d", when, ev, t, OBJ(PR_NAME_TIMER), r->value);
        break;
    case PR_EV_RTPRIO: /* 0xFF: the time-sharing band */
        snprintf(buf, size, "%s %s %s %s %s->%s nice=%d", when, ev, t, res,
                 rtprio_name((r->value & 0x100) != 0, r->arg0, o, sizeof o),
                 rtprio_name((r->value & 0x200) != 0, r->arg1, x, sizeof x), (r->value & 0xFF) - 20);
        break;
    case PR_EV_NICE:
        snprintf(buf, size, "%s %s %s %s %d->%d", when, ev, t, res, r->arg0 - 20, r->arg1 - 20);
        break;
    case PR_EV_PRIV_GROUP:
        snprintf(buf, size, "%s %s %s group=%u %s privs=0x%x", when, ev, t, r->object, res, (unsigned)r->value);
        break;
    case PR_EV_TASK_GROUP:
        snprintf(buf, size, "%s %s %s %s %u->%u", when, ev, t, res, r->arg0, r->arg1);
        break;
    case PR_EV_JOB_ABORT:
        snprintf(buf, size, "%s %s %s job=%d %s%s", when, ev, t, r->value, r->arg0 ? "abort-time" : "by=",
                 r->arg0 ? "" : OBJ_TASK());
        break;
    case PR_EV_ARRIVAL:
        if (r->result != 0)
            snprintf(buf, size, "%s %s %s %s earliest=%u", when, ev, t, res, (unsigned)r->value);
        else if (r->arg0)
            snprintf(buf, size, "%s %s %s deferred to=%u", when, ev, t, (unsigned)r->value);
        else
            snprintf(buf, size, "%s %s %s delay=%d", when, ev, t, r->value);
        break;
    default:
        snprintf(buf, size, "%s %s %s", when, ev, t);
    }
#undef TASK
#undef OBJ
#undef OBJ_TASK
#undef SEM
    return buf;
}

typedef struct table {
    const char *const *names;
    unsigned per_kind;
} table_t;

static const char *table_name(void *ctx, int kind, unsigned id, char *buf, size_t size)
{
    (void)buf;
    (void)size;
    const table_t *t = ctx;
    return id < t->per_kind ? t->names[(size_t)kind * t->per_kind + id] : NULL;
}

char *pr_trace_format_table(const pr_trace_record_t *r, uint32_t tick_hz, const char *const *names,
                            unsigned per_kind, char *buf, size_t size)
{
    table_t t = {names, per_kind};
    return pr_trace_format(r, tick_hz, names != NULL ? table_name : NULL, &t, buf, size);
}
