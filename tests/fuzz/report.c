/*
 * The history of the last calls, and how a failure is reported (fuzz.h).
 *
 * Every call is kept in a ring as it is issued; its result is filled in when
 * it returns, or, if other calls came in between (it waited), added as a
 * line of its own. A failure prints the seed, the call number, what failed,
 * the ring, the command that replays it, and exits with status 1. A crash
 * (a kernel assertion that aborts, a signal, a sanitizer report) and a run
 * that takes too long in real time are reported the same way from their
 * handlers: the process is single-threaded and lost anyway, so they print
 * with stdio.
 */
#define _DEFAULT_SOURCE /* sigaltstack, SA_ONSTACK */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fuzz.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define FZ_SANITIZER 1
#endif

#define HISTORY 4096 /* entries kept: calls, and the returns of those that waited */

typedef struct entry {
    fz_call_t call;
    int result;
    int returned;      /* the result is known */
    int is_return;     /* a line for the return of a call issued earlier */
    uint64_t time_ns;
} entry_t;

static entry_t ring[HISTORY];
static uint64_t ring_next; /* entries written so far */
static const char *fz_argv0 = "fuzz_kernel";
static int reporting;
uint64_t *fz_calls_sink;
int fz_history_lines = 60;
int fz_trace_lines;

void fz_history_call(const fz_call_t *c)
{
    entry_t *e = &ring[ring_next++ % HISTORY];
    e->call = *c;
    e->returned = 0;
    e->is_return = 0;
    e->time_ns = pr_host_now();
}

void fz_history_return(const fz_call_t *c, int result)
{
    entry_t *last = &ring[(ring_next - 1) % HISTORY];
    if (ring_next > 0 && !last->is_return && last->call.no == c->no) {
        last->result = result;
        last->returned = 1;
        return;
    }
    entry_t *e = &ring[ring_next++ % HISTORY];
    e->call = *c;
    e->result = result;
    e->returned = 1;
    e->is_return = 1;
    e->time_ns = pr_host_now();
}

static const char *protocol_name(int p)
{
    static const char *const names[] = {"none", "pip", "pcp", "ipcp", "npcs", "rcs"};
    return p >= 0 && p < PR_PROTOCOL_COUNT ? names[p] : "?";
}

static void print_timeout(FILE *out, int64_t t)
{
    if ((pr_timeout_t)t == PR_FOREVER)
        fprintf(out, "FOREVER");
    else if (t == PR_NO_WAIT)
        fprintf(out, "NO_WAIT");
    else
        fprintf(out, "%lld", (long long)t);
}

/* A semaphore as "s3" plus what it was when the run last knew it. */
static void print_sem(FILE *out, int64_t s)
{
    fprintf(out, "s%lld", (long long)s);
    if (s < 0 || s >= FZ_SEMS)
        return;
    const pr_sem_attr_t *a = &fz.sem[s].attr;
    if (a->flags & PR_SEM_MUTEX)
        fprintf(out, "[%s%s%s%s", protocol_name(a->protocol), (a->flags & PR_SEM_RECURSIVE) ? " rec" : "",
                fz.sem[s].recovery ? " recovery" : "",
                a->protocol == PR_PROTOCOL_PCP || a->protocol == PR_PROTOCOL_IPCP ? "" : "]");
    else
        fprintf(out, "[%s]", (a->flags & PR_SEM_BINARY) ? "binary" : "counting");
    if ((a->flags & PR_SEM_MUTEX) && (a->protocol == PR_PROTOCOL_PCP || a->protocol == PR_PROTOCOL_IPCP))
        fprintf(out, " c%d]", a->ceiling);
}

static void print_call(FILE *out, const fz_call_t *c)
{
    int64_t a0 = c->arg[0];
    const char *null = c->null ? ", NULL" : "";
    fprintf(out, "%s(", fz_op_name(c->op));
    switch (c->op) {
    case FZ_TASK_CREATE: {
        const pr_task_attr_t *a = &c->task_attr;
        if (c->null == 1) {
            fprintf(out, "NULL");
            break;
        }
        fprintf(out,
                "%s prio=%d nice=%d group=%d period=%llu phase=%llu deadline=%llu watchdog=%d flags=%u mit=%llu "
                "jitter=%llu offset=%llu%s%s%s",
                a->sched_class == PR_CLASS_REALTIME ? "rt" : a->sched_class == PR_CLASS_TIMESHARE ? "ts" : "class?",
                a->priority, a->nice, a->priv_group, (unsigned long long)a->period, (unsigned long long)a->phase,
                (unsigned long long)a->deadline, a->watchdog, a->flags, (unsigned long long)a->min_interarrival,
                (unsigned long long)a->jitter, (unsigned long long)a->offset, a->entry == NULL ? " entry=NULL" : "",
                a->name != NULL && strlen(a->name) >= PR_CONFIG_NAME_LEN ? " name=too-long" : "",
                c->null == 2 ? ", id=NULL" : "");
        break;
    }
    case FZ_SEM_ALLOC: {
        const pr_sem_attr_t *a = &c->sem_attr;
        if (c->null == 1) {
            fprintf(out, "NULL");
            break;
        }
        fprintf(out, "value=%d max=%d flags=%#x protocol=%s ceiling=%d%s%s", a->value, a->max, a->flags,
                protocol_name((int)a->protocol), a->ceiling,
                a->name != NULL && strlen(a->name) >= PR_CONFIG_NAME_LEN ? " name=too-long" : "",
                c->null == 2 ? ", id=NULL" : "");
        break;
    }
    case FZ_SEM_DOWN:
        print_sem(out, a0);
        fprintf(out, ", ");
        print_timeout(out, c->arg[1]);
        break;
    case FZ_SEM_TRYDOWN: case FZ_SEM_UP: case FZ_SEM_FREE:
        print_sem(out, a0);
        break;
    case FZ_SEM_STATS: case FZ_SEM_STATUS: case FZ_SEM_ATTR_GET:
        print_sem(out, a0);
        fprintf(out, "%s", null);
        break;
    case FZ_SEM_CONTROL:
        print_sem(out, a0);
        if (c->arg[1] == PR_SEM_CTL_RECOVERY)
            fprintf(out, ", RECOVERY, %s", c->null ? "NULL" : c->arg[2] ? "set" : "removed");
        else
            fprintf(out, ", cmd=%lld%s", (long long)c->arg[1], null);
        break;
    case FZ_COND_WAIT:
        fprintf(out, "c%lld, ", (long long)a0);
        print_sem(out, c->arg[1]);
        fprintf(out, ", ");
        print_timeout(out, c->arg[2]);
        break;
    case FZ_COND_FREE: case FZ_COND_SIGNAL: case FZ_COND_BROADCAST:
        fprintf(out, "c%lld", (long long)a0);
        break;
    case FZ_COND_STATUS:
        fprintf(out, "c%lld%s", (long long)a0, null);
        break;
    case FZ_COND_ALLOC:
        fprintf(out, "%s", c->null ? "id=NULL" : "");
        break;
    case FZ_TASK_DELETE: case FZ_TASK_SUSPEND: case FZ_TASK_RESUME: case FZ_TASK_RELEASE:
        fprintf(out, "%lld", (long long)a0);
        break;
    case FZ_TASK_STATUS:
        fprintf(out, "%lld%s", (long long)a0, null);
        break;
    case FZ_TASK_SET_PRIO:
        fprintf(out, "%lld, %lld", (long long)a0, (long long)c->arg[1]);
        break;
    case FZ_TASK_DELAY: case FZ_TASK_WAIT_MISS:
        print_timeout(out, a0);
        fprintf(out, "%s", c->op == FZ_TASK_WAIT_MISS ? null : "");
        break;
    case FZ_SET_QUANTUM: case FZ_NAMES:
        fprintf(out, "%lld", (long long)a0);
        break;
    case FZ_TRACE_KEEP:
        fprintf(out, "0x%llx", (unsigned long long)a0);
        break;
    case FZ_CONSUME:
        fprintf(out, "%lld ns", (long long)a0);
        break;
    case FZ_KERNEL_STATS:
        fprintf(out, "%s", c->null ? "NULL" : "");
        break;
    default:
        if (fz_is_bands_op(c->op))
            fz_print_bands_call(out, c);
        else
            fz_print_services_call(out, c);
        break;
    }
    fprintf(out, ")");
}

static void print_who(FILE *out, int who)
{
    if (who == FZ_ISR)
        fprintf(out, "isr   ");
    else if (who == FZ_DRIVER)
        fprintf(out, "driver");
    else
        fprintf(out, "task %-2d", who);
}

static void print_result(FILE *out, const fz_call_t *c, int r)
{
    if (c->op == FZ_TASK_SELF || c->op == FZ_SEM_ABORTED || (c->op == FZ_TASK_WAIT_MISS && r > 0))
        fprintf(out, "%d", r);
    else
        fprintf(out, "%s", pr_errname(r));
}

static void print_history(FILE *out)
{
    uint64_t lines = fz_history_lines < HISTORY ? (uint64_t)fz_history_lines : HISTORY;
    uint64_t first = ring_next > lines ? ring_next - lines : 0;
    fprintf(out, "last calls (tick.fraction, caller, call -> result):\n");
    for (uint64_t i = first; i < ring_next; i++) {
        const entry_t *e = &ring[i % HISTORY];
        fprintf(out, "  %8.3f #%-6llu ", (double)e->time_ns / FZ_TICK_NS, (unsigned long long)e->call.no);
        print_who(out, e->call.who);
        fprintf(out, " %s", e->is_return ? "<- " : "");
        print_call(out, &e->call);
        if (e->returned) {
            fprintf(out, " -> ");
            print_result(out, &e->call, e->result);
        } else {
            fprintf(out, " ...");
        }
        fprintf(out, "\n");
    }
}

/* The kernel's own account of the last events, by id (the run's names do
 * not tell tasks apart); empty if tracing is compiled out. */
static void print_trace(FILE *out)
{
    size_t count;
    const pr_trace_record_t *recs = pr_host_trace(&count);
    size_t first = count > (size_t)fz_trace_lines ? count - (size_t)fz_trace_lines : 0;
    fprintf(out, "last kernel trace records (tick.fraction, event, task, object, result, arg0, arg1, value):\n");
    for (size_t i = first; i < count; i++) {
        const pr_trace_record_t *r = &recs[i];
        fprintf(out, "  %8.3f %-12s task=%-3d obj=%-3d %-12s arg0=%-3d arg1=%-3d value=%d\n",
                (double)r->time / FZ_TICK_NS, pr_trace_event_name(r->event), r->task == PR_TRACE_NONE ? -1 : r->task,
                r->object == PR_TRACE_NONE ? -1 : r->object, pr_errname(r->result), r->arg0, r->arg1, (int)r->value);
    }
}

static void report(const char *what)
{
    FILE *out = stdout;
    if (fz_calls_sink != NULL)
        *fz_calls_sink = fz.calls;
    fflush(stdout);
    fprintf(out, "FAIL seed %llu call %llu (tick %llu): %s\n", (unsigned long long)fz.seed,
            (unsigned long long)fz.calls, (unsigned long long)pr_ticks_now(), what);
    print_history(out);
    if (fz_trace_lines > 0)
        print_trace(out);
    fprintf(out, "replay: %s --seed %llu --calls %llu\n", fz_argv0, (unsigned long long)fz.seed,
            (unsigned long long)fz.calls);
    fflush(out);
}

void fz_fail(const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    reporting = 1;
    report(what);
    if (fz_calls_sink == NULL)
        fz_print_summary(1);
    _exit(1);
}

static void on_signal(int sig)
{
    char what[160];
    if (reporting) /* the report itself crashed */
        _exit(1);
    reporting = 1;
    if (sig == SIGALRM)
        snprintf(what, sizeof what, "the seed ran too long in real time: a hang");
    else
        snprintf(what, sizeof what, "signal %d (%s)%s", sig, strsignal(sig),
                 sig == SIGABRT ? ": the kernel aborted (a failed assertion?)" : "");
    report(what);
    if (fz_calls_sink == NULL)
        fz_print_summary(1);
    _exit(1);
}

#ifdef FZ_SANITIZER
static void on_sanitizer_death(void)
{
    if (reporting)
        return;
    reporting = 1;
    report("the sanitizer reported an error (above)");
    if (fz_calls_sink == NULL)
        fz_print_summary(1);
}
#endif

/* Handlers on their own stack: a fault may come from a task's stack. */
void fz_report_init(const char *argv0)
{
    static char altstack[1 << 16];
    stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0};
    struct sigaction sa;
#ifdef FZ_SANITIZER /* the sanitizer reports faults itself, then calls on_sanitizer_death */
    static const int SIGNALS[] = {SIGABRT, SIGALRM};
#else
    static const int SIGNALS[] = {SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGALRM};
#endif

    fz_argv0 = argv0;
    sigaltstack(&ss, NULL);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof SIGNALS / sizeof *SIGNALS; i++)
        sigaction(SIGNALS[i], &sa, NULL);
#ifdef FZ_SANITIZER
    __sanitizer_set_death_callback(on_sanitizer_death);
#endif
}

void fz_history_reset(void)
{
    ring_next = 0;
    reporting = 0;
}
