/*
 * A small test harness for the kernel on the host port.
 *
 * Each test builds a scenario, runs the kernel on the virtual clock and
 * asserts exact behaviour: the trace (event order and times), task and
 * semaphore status, error codes. Times in expected trace lines are in ticks;
 * the harness runs the kernel at 1000 Hz, so one tick is 1 ms (TICKS(n) in
 * nanoseconds for compute amounts).
 */
#ifndef PRIORA_HARNESS_H
#define PRIORA_HARNESS_H

#include <stdio.h>
#include <string.h>
#include "priora/host.h"
#include "priora/scenario.h"

#define TICKS(n) ((uint64_t)(n) * 1000000u)

/* Event masks for EXPECT_TRACE. */
#define EV(e) (UINT64_C(1) << (e))
#define EV_SCHED (EV(PR_EV_SWITCH) | EV(PR_EV_PRIO) | EV(PR_EV_BLOCK) | EV(PR_EV_WAKE) | EV(PR_EV_TIMEOUT))
#define EV_ALL 0u

extern int harness_failed;

/* Starts a fresh kernel: 1000 Hz tick, round-robin quantum (0 = off). */
void harness_reset(pr_ticks_t quantum);
/* The same with a whole configuration (the time-sharing band's). */
void harness_reset_config(const pr_kernel_config_t *cfg);

/* Shorthands that fail the test if the kernel refuses. */
pr_id_t task_at(const char *name, pr_prio_t prio, pr_ticks_t phase, pr_entry_t entry, void *arg);
pr_id_t periodic_task(const char *name, pr_prio_t prio, pr_ticks_t period, pr_ticks_t phase,
                      pr_ticks_t deadline, pr_entry_t entry, void *arg);
/* The same with a watchdog task (PR_NO_TASK for none). */
pr_id_t watched_task(const char *name, pr_prio_t prio, pr_ticks_t period, pr_ticks_t phase,
                     pr_ticks_t deadline, pr_id_t watchdog, pr_entry_t entry, void *arg);
pr_id_t script_task(const char *name, pr_prio_t prio, pr_ticks_t phase, pr_script_t *script);
pr_id_t mutex(const char *name, pr_protocol_t protocol);
/* A priority-ordered mutex with a ceiling (pcp, ipcp; 0 for the others). */
pr_id_t mutex_ceiling(const char *name, pr_protocol_t protocol, pr_prio_t ceiling);
pr_id_t counting(const char *name, int value, unsigned flags);
/* pr_task_create with the test failing on a refusal. */
pr_id_t task_with(const pr_task_attr_t *attr);

/* Compares the collected trace, filtered to the events in `mask` (0 = all),
 * with the expected lines. On a mismatch prints both and fails. */
void expect_trace_at(const char *file, int line, uint64_t mask, const char *const *lines, size_t n);
#define EXPECT_TRACE(mask, ...)                                                                    \
    do {                                                                                           \
        static const char *const expected_[] = {__VA_ARGS__};                                     \
        expect_trace_at(__FILE__, __LINE__, (mask), expected_, sizeof expected_ / sizeof *expected_); \
    } while (0)

/* Prints the collected trace (for writing a test). */
void dump_trace(uint64_t mask);

/* Queries on the collected trace. `task` is a task id, or PR_TRACE_NONE for
 * any task. trace_tick_of returns the time (in ticks, rounded down) of the
 * nth (0-based) matching record, or -1 if there is none. */
long trace_tick_of(int event, int task, size_t nth);
size_t trace_count(int event, int task);

/* A task body that downs a semaphore and records the result: computes
 * `before` ns, calls pr_sem_down(sem, timeout), stores the result in rc,
 * the tick count it returned at in at and the virtual time in at_ns (a call
 * at the instant of tick k, before its interrupt, sees the count k - 1);
 * if it got the semaphore, computes
 * `hold` ns and, if `up` is set, ups it (result in rc_up). */
typedef struct downer {
    pr_id_t sem;
    pr_timeout_t timeout;
    uint64_t before, hold;
    int up;
    int rc, rc_up;
    long at;
    uint64_t at_ns;
} downer_t;
#define DOWNER(s, t, b, h, u) ((downer_t){(s), (t), (b), (h), (u), 1, 1, -1, 0})
void downer_body(void *arg);

/* Script actions, for pr_script_t bodies given as data. */
#define A_COMPUTE(n) {PR_ACT_COMPUTE, 0, 0, 0, TICKS(n)}
#define A_LOCK(s) {PR_ACT_LOCK, (s), PR_FOREVER, 0, 0}
#define A_LOCK_TO(s, t) {PR_ACT_LOCK, (s), (t), 0, 0}
#define A_UNLOCK(s) {PR_ACT_UNLOCK, (s), 0, 0, 0}
#define A_DOWN(s, t) {PR_ACT_DOWN, (s), (t), 0, 0}
#define A_UP(s) {PR_ACT_UP, (s), 0, 0, 0}
#define A_DELAY(n) {PR_ACT_DELAY, 0, 0, 0, (n)}
#define A_WAIT_PERIOD {PR_ACT_WAIT_PERIOD, 0, 0, 0, 0}
#define A_SET_PRIORITY(p) {PR_ACT_SET_PRIORITY, 0, 0, 0, (p)}
#define SCRIPT(actions) ((pr_script_t){(actions), sizeof(actions) / sizeof *(actions), 0, 0, PR_OK, 0, 0, 0, 0, 0, 0})

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);              \
            harness_failed = 1;                                                                    \
        }                                                                                          \
    } while (0)

#define CHECK_EQ(actual, expected)                                                                 \
    do {                                                                                           \
        long long a_ = (long long)(actual), e_ = (long long)(expected);                            \
        if (a_ != e_) {                                                                            \
            fprintf(stderr, "%s:%d: %s is %lld, expected %lld (%s)\n", __FILE__, __LINE__, #actual, \
                    a_, e_, #expected);                                                            \
            harness_failed = 1;                                                                    \
        }                                                                                          \
    } while (0)

/* A task's status (the test fails if it cannot be read). */
pr_task_status_t status_of(pr_id_t id);
pr_sem_status_t sem_status_of(pr_id_t id);

/* Runs each test function, prints one line per test and a summary line
 * "N passed, N failed"; returns the process exit code.
 *
 * Trace mode (`test_x --trace` on the host; always on QEMU, where the same
 * programs are built over tests/riscv/kernel/host_shim.c): the port charges
 * a cost for every switch and tick (pr_host_set_costs, as real hardware
 * spends time there), the checks are not verdicts (their expected times
 * assume zero costs), and every kernel run's whole trace is printed in the
 * RISC-V port's text format (docs/riscv-port.md), one frame per
 * harness_reset, labelled "<case>.<n>". tests/riscv/compare_kernel_tests.py
 * compares the host's frames with QEMU's, ignoring times. */
typedef struct harness_case {
    const char *name;
    void (*fn)(void);
} harness_case_t;
int harness_main(const harness_case_t *cases, size_t n, int trace_mode);
#define TEST_CASE(f) {#f, f}
#ifdef PRIORA_HARNESS_RISCV
#define HARNESS_MAIN(...)                                                                          \
    int main(void)                                                                                 \
    {                                                                                              \
        static const harness_case_t cases_[] = {__VA_ARGS__};                                     \
        return harness_main(cases_, sizeof cases_ / sizeof *cases_, 1);                            \
    }
#else
#define HARNESS_MAIN(...)                                                                          \
    int main(int argc, char **argv)                                                                \
    {                                                                                              \
        static const harness_case_t cases_[] = {__VA_ARGS__};                                     \
        int trace_ = argc == 2 && strcmp(argv[1], "--trace") == 0;                                 \
        if (argc > 1 && !trace_) {                                                                 \
            fprintf(stderr, "usage: %s [--trace]\n", argv[0]);                                     \
            return 2;                                                                              \
        }                                                                                          \
        return harness_main(cases_, sizeof cases_ / sizeof *cases_, trace_);                       \
    }
#endif

#endif
