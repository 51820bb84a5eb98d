/*
 * Task ids in trace records, for every task of a full pool: with the
 * default 32 tasks each id is its byte; with the lab's 1,024 ids from 255
 * on are 12-bit tags (the id + 1) split between the byte and the record's
 * ids_high (priora/trace.h, docs/trace-format.md). CMake builds this
 * program with both limits.
 *
 * The pool is filled: `waiter` (the last id, priority 2) blocks on S at
 * once; workers 0 .. N-3 (priority 1) compute a tick each, in id order;
 * `upper` (id N-2) ups S, which wakes the waiter over it. Every record's
 * task is checked as written (byte and nibble) and as decoded
 * (pr_trace_task_id), and every worker's SWITCH line names both tasks.
 */
#include "harness.h"

#define N PR_CONFIG_MAX_TASKS

static char names[N][PR_CONFIG_NAME_LEN];
static const pr_action_t Work[] = {A_COMPUTE(1)};
static const pr_action_t Wait[] = {A_DOWN(0, PR_FOREVER), A_COMPUTE(1)};
static const pr_action_t Up[] = {A_UP(0), A_COMPUTE(1)};
static pr_script_t scripts[N];

/* Appends s, then the decimal v if v >= 0, at p; returns the new end. (No
 * snprintf: the program also runs bare metal, tests/riscv/kernel.) */
static char *put(char *p, const char *s, int v)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    p += n;
    if (v >= 0) {
        char digits[12];
        int k = 0;
        do
            digits[k++] = (char)('0' + v % 10);
        while ((v /= 10) != 0);
        while (k > 0)
            *p++ = digits[--k];
    }
    *p = '\0';
    return p;
}

/* The tag of id as the kernel writes it: byte and high nibble. */
static unsigned tag_of(pr_id_t id) { return (unsigned)(N > 254 && id >= 255 ? id + 1 : id); }

static void every_id_of_a_full_pool_is_decoded(void)
{
    harness_reset(0);
    CHECK_EQ(counting("S", 0, PR_SEM_PRIO), 0);
    for (int i = 0; i < N; i++) {
        put(names[i], i == N - 1 ? "waiter" : i == N - 2 ? "upper" : "t", i < N - 2 ? i : -1);
        if (i == N - 1)
            scripts[i] = SCRIPT(Wait);
        else if (i == N - 2)
            scripts[i] = SCRIPT(Up);
        else
            scripts[i] = SCRIPT(Work);
        CHECK_EQ(script_task(names[i], i == N - 1 ? 2 : 1, 0, &scripts[i]), i);
    }
    CHECK_EQ(pr_task_set_priority(N - 3, 1), PR_OK); /* a PRIO_SET naming the last worker */
    CHECK_EQ(pr_host_run_ticks(10 * N), PR_HOST_QUIESCENT);

    size_t count;
    const pr_trace_record_t *r = pr_host_trace(&count);
    pr_id_t order[N + 2];
    size_t switches = 0, prio_sets = 0, ups = 0, creates = 0;
    for (size_t i = 0; i < count; i++) {
        pr_id_t task = pr_trace_task_id(&r[i], PR_TRACE_TASK);
        if (task != PR_NO_TASK) { /* the byte and nibble the kernel wrote */
            CHECK_EQ(r[i].task, tag_of(task) & 0xFF);
            CHECK_EQ(r[i].ids_high & 0xF, tag_of(task) >> 8);
        }
        switch (r[i].event) {
        case PR_EV_TASK_CREATE:
            CHECK_EQ(task, (pr_id_t)creates);
            creates++;
            break;
        case PR_EV_SWITCH:
            if (task != PR_NO_TASK && switches < N + 2)
                order[switches++] = task;
            if (task >= 0 && task <= N - 3) { /* a worker: in at tick `task`, after the one before it */
                char line[160], expected[160];
                char *e = put(expected, "", task);
                e = put(e, " SWITCH ", -1);
                e = put(e, names[task], -1);
                e = put(e, "<-", -1);
                put(e, task == 0 ? "waiter" : names[task - 1], -1);
                CHECK(strcmp(pr_host_trace_line(&r[i], line, sizeof line), expected) == 0);
            }
            break;
        case PR_EV_PRIO_SET:
            CHECK_EQ(task, N - 3);
            prio_sets++;
            break;
        case PR_EV_SEM_UP:
            CHECK_EQ(task, N - 2);
            CHECK_EQ(pr_trace_task_id(&r[i], PR_TRACE_ARG0), N - 1); /* the task it woke */
            ups++;
            break;
        }
    }
    CHECK_EQ(creates, N);
    CHECK_EQ(prio_sets, 1);
    CHECK_EQ(ups, 1);
    /* waiter, the workers in id order, upper, the woken waiter, upper again */
    CHECK_EQ(switches, N + 2);
    CHECK_EQ(order[0], N - 1);
    for (int i = 0; i < N - 1; i++)
        CHECK_EQ(order[1 + i], i);
    CHECK_EQ(order[N], N - 1);
    CHECK_EQ(order[N + 1], N - 2);
}

HARNESS_MAIN(TEST_CASE(every_id_of_a_full_pool_is_decoded))
