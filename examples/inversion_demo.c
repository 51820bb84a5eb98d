/*
 * The classic priority inversion, run on the host port twice: once with a
 * plain priority-ordered mutex (protocol "none") and once with basic priority
 * inheritance ("pip"). Prints, for each run, a chart with one row per task
 * and one column per tick, the kernel's trace, and what it cost the urgent
 * task.
 *
 * The task set is examples/scenarios/inversion.h:
 *   L (priority 1, released at 0): lock S, compute 4, unlock S, compute 1
 *   H (priority 3, released at 1): compute 1, lock S, compute 1, unlock S, compute 1
 *   M (priority 2, released at 2): compute 5 (never touches S)
 *
 * Build and run: ./scripts/demo.sh (or build/examples/inversion_demo).
 */
#include <stdio.h>
#include <string.h>
#include "priora/host.h"
#include "priora/scenario.h"
#include "scenarios/inversion.h"

#define TICK_NS INVERSION_TICK_NS /* 1000 Hz: one tick is 1 ms */
#define T(n) INVERSION_TICKS(n)
#define HORIZON 14
#define NTASKS INVERSION_TASKS

/* What each task did in each tick, from the trace. */
enum { IDLE_ = ' ', READY = '.', RUN = '=', RUN_CS = '#', BLOCKED = 'b' };

typedef struct row {
    const char *name;
    pr_prio_t base;
    char cells[HORIZON + 1];
    int released, running, blocked, done, holding;
    int boost_from, boost_to, boost_prio; /* one boost interval, enough here */
    uint64_t release_time, finish_time, blocked_since, blocked_total;
} row_t;

static int run(pr_protocol_t protocol, row_t rows[NTASKS])
{
    static pr_script_t scripts[NTASKS];
    pr_kernel_config_t cfg = {.tick_hz = 1000, .quantum = 0};
    pr_sem_attr_t sattr;
    pr_task_attr_t tattr;
    pr_id_t sem, id;

    if (pr_host_init(&cfg) != PR_OK)
        return 1;
    pr_sem_attr_init(&sattr);
    sattr.name = "S";
    sattr.value = 1;
    sattr.flags = PR_SEM_MUTEX | PR_SEM_PRIO;
    sattr.protocol = protocol;
    if (pr_sem_alloc(&sattr, &sem) != PR_OK || sem != 0)
        return 1;

    const inversion_task_t *tasks = inversion_tasks;

    for (int i = 0; i < NTASKS; i++) {
        scripts[i] = (pr_script_t){tasks[i].body, tasks[i].actions, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        pr_task_attr_init(&tattr);
        tattr.name = tasks[i].name;
        tattr.priority = tasks[i].priority;
        tattr.phase = tasks[i].phase;
        tattr.entry = pr_script_body;
        tattr.arg = &scripts[i];
        if (pr_task_create(&tattr, &id) != PR_OK || id != i)
            return 1;
        memset(&rows[i], 0, sizeof rows[i]);
        rows[i].name = tasks[i].name;
        rows[i].base = tasks[i].priority;
        rows[i].boost_from = -1;
    }
    pr_host_run_ticks(100); /* ends long before: quiescent */
    return 0;
}

static char cell_of(const row_t *r)
{
    if (!r->released || r->done)
        return IDLE_;
    if (r->blocked)
        return BLOCKED;
    if (r->running)
        return r->holding ? RUN_CS : RUN;
    return READY;
}

/* Replays the trace: the state during tick k is the state after every
 * event at time <= k (all events of this scenario fall on tick times). */
static void chart(row_t rows[NTASKS])
{
    size_t n, i = 0;
    const pr_trace_record_t *recs = pr_host_trace(&n);
    for (int k = 0; k < HORIZON; k++) {
        for (; i < n && recs[i].time <= T(k); i++) {
            const pr_trace_record_t *e = &recs[i];
            row_t *r = e->task < NTASKS ? &rows[e->task] : NULL;
            switch (e->event) {
            case PR_EV_RELEASE: r->released = 1; r->release_time = e->time; break;
            case PR_EV_SWITCH:
                for (int j = 0; j < NTASKS; j++)
                    rows[j].running = (j == e->task);
                break;
            case PR_EV_BLOCK: r->blocked = 1; r->blocked_since = e->time; break;
            case PR_EV_WAKE: r->blocked = 0; r->blocked_total += e->time - r->blocked_since; break;
            case PR_EV_SEM_DOWN: if (r && e->result == PR_OK) r->holding = 1; break;
            case PR_EV_SEM_UP: if (r) r->holding = 0; break;
            case PR_EV_JOB_DONE: r->done = 1; r->finish_time = e->time; break;
            case PR_EV_PRIO:
                if (e->arg1 > e->arg0) { r->boost_from = k; r->boost_prio = e->arg1; }
                else r->boost_to = k;
                break;
            }
        }
        for (int j = 0; j < NTASKS; j++)
            rows[j].cells[k] = cell_of(&rows[j]);
    }
}

static void report(const char *title, pr_protocol_t protocol)
{
    row_t rows[NTASKS];
    if (run(protocol, rows) != 0) {
        fprintf(stderr, "demo: the kernel refused the scenario\n");
        return;
    }
    chart(rows);

    printf("\n=== %s ===\n\n", title);
    printf("  tick    ");
    for (int k = 0; k < HORIZON; k++)
        printf("%d", k % 10);
    printf("\n");
    const int order[NTASKS] = {1, 2, 0}; /* H, M, L */
    for (int o = 0; o < NTASKS; o++) {
        const row_t *r = &rows[order[o]];
        printf("  %s (p%d)  %s", r->name, r->base, r->cells);
        if (r->boost_from >= 0)
            printf("   inherits priority %d from tick %d to %d", r->boost_prio, r->boost_from, r->boost_to);
        printf("\n");
    }
    printf("\n  = running   # running, holding S   b blocked on S   . ready, waiting for the CPU\n\n");

    printf("  Kernel trace (scheduling and synchronization events, times in ticks):\n");
    size_t n;
    const pr_trace_record_t *recs = pr_host_trace(&n);
    char line[160];
    for (size_t i = 0; i < n; i++) {
        int ev = recs[i].event;
        if (ev == PR_EV_TASK_CREATE || ev == PR_EV_SEM_ALLOC || ev == PR_EV_TASK_EXIT)
            continue;
        printf("    %s\n", pr_host_trace_line(&recs[i], line, sizeof line));
    }
    const row_t *h = &rows[1];
    printf("\n  H: released at %llu, finished at %llu: response %llu ticks, blocked on S for %llu ticks\n",
           (unsigned long long)(h->release_time / TICK_NS), (unsigned long long)(h->finish_time / TICK_NS),
           (unsigned long long)((h->finish_time - h->release_time) / TICK_NS),
           (unsigned long long)(h->blocked_total / TICK_NS));
}

int main(void)
{
    printf("Priora: priority inversion on the host port (virtual clock, 1 tick = 1 ms)\n");
    printf("  L (p1, at 0): lock S, compute 4, unlock S, compute 1\n");
    printf("  H (p3, at 1): compute 1, lock S, compute 1, unlock S, compute 1\n");
    printf("  M (p2, at 2): compute 5\n");
    report("Without inheritance (protocol none): M delays H through L", PR_PROTOCOL_NONE);
    report("With basic priority inheritance (protocol pip): H waits only for L's critical section",
           PR_PROTOCOL_PIP);
    return 0;
}
