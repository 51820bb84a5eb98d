/*
 * Determinism: the same inputs give the same trace, byte for byte. One
 * non-trivial scenario (inheritance along a chain, timeouts, a counting and
 * a FIFO semaphore, periodic tasks with misses and a watchdog, round robin)
 * runs three times in this process, with pr_host_init in between; the three
 * record arrays are compared with memcmp. The record is 24 bytes, its
 * sequence numbers are consecutive, and nothing is lost when the trace is
 * longer than the kernel's ring.
 */
#include <stddef.h>
#include <stdlib.h>
#include "harness.h"

_Static_assert(sizeof(pr_trace_record_t) == 24, "a trace record is 24 bytes");

enum { A = 0, B = 1, C = 2, F = 3 };

static const pr_action_t P1_body[] = {A_LOCK(A), A_COMPUTE(1), A_LOCK_TO(B, 2), A_COMPUTE(1), A_UNLOCK(B),
                                      A_UNLOCK(A), A_DOWN(C, 1), A_COMPUTE(1), A_UP(C)};
static const pr_action_t P2_body[] = {A_LOCK(B), A_COMPUTE(3), A_UNLOCK(B), A_DOWN(F, 4), A_COMPUTE(1)};
static const pr_action_t P3_body[] = {A_DOWN(C, PR_FOREVER), A_COMPUTE(2), A_UP(C), A_UP(F), A_LOCK(A),
                                      A_COMPUTE(2), A_UNLOCK(A)};
static const pr_action_t RR_body[] = {A_COMPUTE(3), A_DELAY(2), A_COMPUTE(3), A_DELAY(2), A_COMPUTE(3)};

static pr_script_t s1, s2, s3, r1, r2;

static void watchdog_body(void *arg)
{
    (void)arg;
    for (;;) {
        pr_id_t who;
        if (pr_task_wait_miss(7, &who) < 0)
            pr_host_consume(TICKS(1) / 4);
    }
}

static pr_id_t periodic(const char *name, pr_prio_t prio, pr_ticks_t period, pr_ticks_t phase,
                        pr_ticks_t deadline, pr_id_t wd, pr_script_t *sc)
{
    return watched_task(name, prio, period, phase, deadline, wd, pr_script_body, sc);
}

/* Runs the scenario for 600 ticks and returns a copy of its trace. */
static pr_trace_record_t *run_scenario(size_t *count)
{
    harness_reset(2);
    s1 = SCRIPT(P1_body);
    s2 = SCRIPT(P2_body);
    s3 = SCRIPT(P3_body);
    r1 = SCRIPT(RR_body);
    r2 = SCRIPT(RR_body);
    CHECK_EQ(mutex("A", PR_PROTOCOL_PIP), A);
    CHECK_EQ(mutex("B", PR_PROTOCOL_PIP), B);
    CHECK_EQ(counting("C", 1, PR_SEM_PRIO), C);
    CHECK_EQ(counting("F", 0, 0), F);
    pr_id_t wd = task_at("Wd", 9, 0, watchdog_body, NULL);
    periodic("P1", 6, 10, 1, 4, wd, &s1);
    periodic("P2", 4, 17, 0, 0, wd, &s2);
    periodic("P3", 2, 23, 2, 9, wd, &s3);
    task_at("R1", 1, 0, pr_script_body, &r1);
    task_at("R2", 1, 0, pr_script_body, &r2);
    CHECK_EQ(pr_host_run_ticks(600), PR_HOST_REACHED);

    size_t n;
    const pr_trace_record_t *recs = pr_host_trace(&n);
    pr_trace_record_t *copy = malloc(n * sizeof *copy);
    if (copy == NULL) {
        harness_failed = 1;
        *count = 0;
        return NULL;
    }
    memcpy(copy, recs, n * sizeof *copy);
    *count = n;
    return copy;
}

static void same_scenario_gives_identical_traces(void)
{
    size_t n1, n2, n3;
    pr_trace_record_t *t1 = run_scenario(&n1);
    pr_trace_record_t *t2 = run_scenario(&n2);
    pr_trace_record_t *t3 = run_scenario(&n3);
    CHECK_EQ(n2, n1);
    CHECK_EQ(n3, n1);
    if (t1 != NULL && t2 != NULL && t3 != NULL && n1 == n2 && n1 == n3) {
        CHECK(memcmp(t1, t2, n1 * sizeof *t1) == 0);
        CHECK(memcmp(t1, t3, n1 * sizeof *t1) == 0);
    }
    /* The scenario is not trivial: longer than the ring, and every kind of
     * event this test is meant to cover is in it. */
    CHECK(n1 > PR_CONFIG_TRACE_RECORDS);
    size_t seen[32] = {0};
    for (size_t i = 0; t1 != NULL && i < n1; i++)
        seen[t1[i].event & 31]++;
    CHECK(seen[PR_EV_PRIO] > 0);
    CHECK(seen[PR_EV_TIMEOUT] > 0);
    CHECK(seen[PR_EV_DEADLINE_MISS] > 0);
    CHECK(seen[PR_EV_WATCHDOG] > 0);
    CHECK(seen[PR_EV_BLOCK] > 0);
    CHECK(seen[PR_EV_DELAY_END] > 0);
    CHECK_EQ(seen[PR_EV_LOST], 0);
    free(t1);
    free(t2);
    free(t3);
}

/* The printed timelines are identical too (names resolved, times in
 * ticks). */
static void printed_timelines_identical(void)
{
    size_t n1, n2;
    pr_trace_record_t *t1 = run_scenario(&n1);
    /* Still the kernel state of the first run: print its lines now. */
    char (*lines)[160] = malloc(n1 * sizeof *lines);
    for (size_t i = 0; lines != NULL && i < n1; i++)
        pr_host_trace_line(&t1[i], lines[i], sizeof lines[i]);
    pr_trace_record_t *t2 = run_scenario(&n2);
    CHECK_EQ(n2, n1);
    char line[160];
    size_t differ = 0;
    for (size_t i = 0; lines != NULL && t2 != NULL && i < n1 && i < n2; i++)
        if (strcmp(pr_host_trace_line(&t2[i], line, sizeof line), lines[i]) != 0)
            differ++;
    CHECK_EQ(differ, 0);
    CHECK(lines != NULL);
    free(lines);
    free(t1);
    free(t2);
}

/* The record layout: 24 bytes, fields at fixed offsets (docs/trace-format.md). */
static void record_layout_is_fixed(void)
{
    CHECK_EQ(sizeof(pr_trace_record_t), 24);
    CHECK_EQ(offsetof(pr_trace_record_t, time), 0);
    CHECK_EQ(offsetof(pr_trace_record_t, seq), 8);
    CHECK_EQ(offsetof(pr_trace_record_t, value), 12);
    CHECK_EQ(offsetof(pr_trace_record_t, event), 16);
    CHECK_EQ(offsetof(pr_trace_record_t, task), 17);
    CHECK_EQ(offsetof(pr_trace_record_t, object), 18);
    CHECK_EQ(offsetof(pr_trace_record_t, result), 19);
    CHECK_EQ(offsetof(pr_trace_record_t, arg0), 20);
    CHECK_EQ(offsetof(pr_trace_record_t, arg1), 21);
    CHECK_EQ(offsetof(pr_trace_record_t, ids_high), 22);
}

/*
 * Sequence numbers start at 0 after pr_host_init and go up by one per
 * record, with no gap, across many drains of the ring; times never go
 * back; ids_high is 0 (every id is below 255).
 */
static void sequence_numbers_consecutive(void)
{
    size_t n;
    pr_trace_record_t *t = run_scenario(&n);
    size_t gaps = 0, back = 0, not_zero = 0;
    for (size_t i = 0; t != NULL && i < n; i++) {
        if (t[i].seq != (uint32_t)i)
            gaps++;
        if (i > 0 && t[i].time < t[i - 1].time)
            back++;
        if (t[i].ids_high != 0) /* ids below 255: no high bits */
            not_zero++;
    }
    CHECK(n > PR_CONFIG_TRACE_RECORDS);
    CHECK_EQ(gaps, 0);
    CHECK_EQ(back, 0);
    CHECK_EQ(not_zero, 0);
    CHECK_EQ(pr_trace_lost(), 0);
    free(t);
}

HARNESS_MAIN(TEST_CASE(same_scenario_gives_identical_traces),
             TEST_CASE(printed_timelines_identical),
             TEST_CASE(record_layout_is_fixed),
             TEST_CASE(sequence_numbers_consecutive))
