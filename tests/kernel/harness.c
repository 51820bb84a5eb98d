#include "harness.h"

int harness_failed;

/* Trace mode (harness.h): the case running, and its frames so far. */
static struct {
    int on;
    const char *case_name;
    int frames;
    int open; /* a kernel was initialized since the last frame */
} trace_mode;

/* The costs charged in trace mode: any nonzero cost gives hardware's order
 * of events at tick instants; these are of the order of the RISC-V port's
 * (a few hundred instructions at 1 ns each under QEMU -icount shift=0). */
static const pr_host_costs_t TRACE_MODE_COSTS = {.switch_ns = 500, .tick_ns = 500};

/* Prints every record since the last kernel init as one frame (a trace dump:
 * tests/riscv/compare_kernel_tests.py reads it beside QEMU's). */
static void trace_frame_end(void)
{
    if (!trace_mode.on || !trace_mode.open)
        return;
    trace_mode.open = 0;
    /* "<case>.<frame>", without snprintf (the QEMU shim has none) */
    char label[96], digits[12];
    size_t n = 0, d = 0;
    for (const char *c = trace_mode.case_name; *c != '\0' && n < sizeof label - sizeof digits - 2; c++)
        label[n++] = *c;
    label[n++] = '.';
    unsigned frame = (unsigned)trace_mode.frames;
    do {
        digits[d++] = (char)('0' + frame % 10);
        frame /= 10;
    } while (frame != 0);
    while (d > 0)
        label[n++] = digits[--d];
    label[n] = '\0';
    pr_host_trace_dump(stdout, label);
    trace_mode.frames++;
}

void harness_reset(pr_ticks_t quantum)
{
    pr_kernel_config_t cfg = {.tick_hz = 1000, .quantum = quantum};
    harness_reset_config(&cfg);
}

void harness_reset_config(const pr_kernel_config_t *cfg)
{
    trace_frame_end();
    int err = pr_host_init(cfg);
    if (err != PR_OK) {
        fprintf(stderr, "pr_host_init: %s\n", pr_errname(err));
        harness_failed = 1;
    }
    if (trace_mode.on) {
        pr_host_set_costs(&TRACE_MODE_COSTS);
        trace_mode.open = 1;
    }
}

static pr_id_t create(const pr_task_attr_t *attr);
pr_id_t task_with(const pr_task_attr_t *attr) { return create(attr); }

static pr_id_t create(const pr_task_attr_t *attr)
{
    pr_id_t id = PR_NO_TASK;
    int err = pr_task_create(attr, &id);
    if (err != PR_OK) {
        fprintf(stderr, "pr_task_create(%s): %s\n", attr->name, pr_errname(err));
        harness_failed = 1;
    }
    return id;
}

pr_id_t watched_task(const char *name, pr_prio_t prio, pr_ticks_t period, pr_ticks_t phase,
                     pr_ticks_t deadline, pr_id_t watchdog, pr_entry_t entry, void *arg)
{
    pr_task_attr_t attr;
    pr_task_attr_init(&attr);
    attr.name = name;
    attr.priority = prio;
    attr.period = period;
    attr.phase = phase;
    attr.deadline = deadline;
    attr.watchdog = watchdog;
    attr.entry = entry;
    attr.arg = arg;
    return create(&attr);
}

pr_id_t periodic_task(const char *name, pr_prio_t prio, pr_ticks_t period, pr_ticks_t phase,
                      pr_ticks_t deadline, pr_entry_t entry, void *arg)
{
    return watched_task(name, prio, period, phase, deadline, PR_NO_TASK, entry, arg);
}

pr_id_t task_at(const char *name, pr_prio_t prio, pr_ticks_t phase, pr_entry_t entry, void *arg)
{
    return periodic_task(name, prio, 0, phase, 0, entry, arg);
}

pr_id_t script_task(const char *name, pr_prio_t prio, pr_ticks_t phase, pr_script_t *script)
{
    uint32_t bad = 0;
    if (pr_script_check(script, &bad) != PR_OK) {
        fprintf(stderr, "script of %s: bad action %u\n", name, (unsigned)bad);
        harness_failed = 1;
    }
    return task_at(name, prio, phase, pr_script_body, script);
}

static pr_id_t alloc(const pr_sem_attr_t *attr)
{
    pr_id_t id = PR_NO_SEM;
    int err = pr_sem_alloc(attr, &id);
    if (err != PR_OK) {
        fprintf(stderr, "pr_sem_alloc(%s): %s\n", attr->name, pr_errname(err));
        harness_failed = 1;
    }
    return id;
}

pr_id_t mutex_ceiling(const char *name, pr_protocol_t protocol, pr_prio_t ceiling)
{
    pr_sem_attr_t attr;
    pr_sem_attr_init(&attr);
    attr.name = name;
    attr.value = 1;
    attr.flags = PR_SEM_MUTEX | PR_SEM_PRIO;
    attr.protocol = protocol;
    attr.ceiling = ceiling;
    return alloc(&attr);
}

pr_id_t mutex(const char *name, pr_protocol_t protocol) { return mutex_ceiling(name, protocol, 0); }

pr_id_t counting(const char *name, int value, unsigned flags)
{
    pr_sem_attr_t attr;
    pr_sem_attr_init(&attr);
    attr.name = name;
    attr.value = value;
    attr.flags = flags;
    return alloc(&attr);
}

pr_task_status_t status_of(pr_id_t id)
{
    pr_task_status_t st;
    memset(&st, 0, sizeof st);
    int err = pr_task_status(id, &st);
    if (err != PR_OK) {
        fprintf(stderr, "pr_task_status(%d): %s\n", id, pr_errname(err));
        harness_failed = 1;
    }
    return st;
}

pr_sem_status_t sem_status_of(pr_id_t id)
{
    pr_sem_status_t st;
    memset(&st, 0, sizeof st);
    int err = pr_sem_status(id, &st);
    if (err != PR_OK) {
        fprintf(stderr, "pr_sem_status(%d): %s\n", id, pr_errname(err));
        harness_failed = 1;
    }
    return st;
}

void expect_trace_at(const char *file, int line, uint64_t mask, const char *const *lines, size_t n)
{
    size_t count;
    const pr_trace_record_t *recs = pr_host_trace(&count);
    char buf[160];
    size_t k = 0;
    int ok = 1;
    for (size_t i = 0; i < count && ok; i++) {
        if (mask != 0 && !(mask & (UINT64_C(1) << recs[i].event)))
            continue;
        pr_host_trace_line(&recs[i], buf, sizeof buf);
        if (k >= n || strcmp(buf, lines[k]) != 0)
            ok = 0;
        else
            k++;
    }
    if (ok && k == n)
        return;
    harness_failed = 1;
    fprintf(stderr, "%s:%d: trace differs. Expected:\n", file, line);
    for (size_t j = 0; j < n; j++)
        fprintf(stderr, "  %s\n", lines[j]);
    fprintf(stderr, "Actual:\n");
    dump_trace(mask);
}

void dump_trace(uint64_t mask)
{
    size_t count;
    const pr_trace_record_t *recs = pr_host_trace(&count);
    char buf[160];
    for (size_t i = 0; i < count; i++)
        if (mask == 0 || (mask & (UINT64_C(1) << recs[i].event)))
            fprintf(stderr, "  \"%s\",\n", pr_host_trace_line(&recs[i], buf, sizeof buf));
}

int harness_main(const harness_case_t *cases, size_t n, int trace)
{
    int passed = 0, failed = 0;
    trace_mode.on = trace;
    for (size_t i = 0; i < n; i++) {
        harness_failed = 0;
        trace_mode.case_name = cases[i].name;
        trace_mode.frames = 0;
        cases[i].fn();
        trace_frame_end();
        if (trace) {
            /* The checks assume zero costs: not a verdict here. */
            printf("case %s: %s\n", cases[i].name, harness_failed ? "checks differ (costs)" : "checks hold");
            passed++;
        } else if (harness_failed) {
            failed++;
            printf("FAIL %s\n", cases[i].name);
        } else {
            passed++;
            printf("ok   %s\n", cases[i].name);
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}

long trace_tick_of(int event, int task, size_t nth)
{
    size_t count;
    const pr_trace_record_t *recs = pr_host_trace(&count);
    for (size_t i = 0; i < count; i++) {
        if (recs[i].event != event || (task != PR_TRACE_NONE && recs[i].task != task))
            continue;
        if (nth-- == 0)
            return (long)(recs[i].time / TICKS(1));
    }
    return -1;
}

size_t trace_count(int event, int task)
{
    size_t count, n = 0;
    const pr_trace_record_t *recs = pr_host_trace(&count);
    for (size_t i = 0; i < count; i++)
        if (recs[i].event == event && (task == PR_TRACE_NONE || recs[i].task == task))
            n++;
    return n;
}

void downer_body(void *arg)
{
    downer_t *d = arg;
    pr_host_consume(d->before);
    d->rc = pr_sem_down(d->sem, d->timeout);
    d->at = (long)pr_ticks_now();
    d->at_ns = pr_host_now();
    if (d->rc != PR_OK)
        return;
    pr_host_consume(d->hold);
    if (d->up)
        d->rc_up = pr_sem_up(d->sem);
}
