/*
 * The trace ring's format at its edges (docs/trace-format.md), on a ring of
 * 8 slots over a fake port (fake_port.h) whose 32-bit stamp wraps like
 * RV32's: records written the fast way and the slow way decode to the
 * fields they were given; a stamp that wraps between a mark and a record;
 * a mark owed by the fold, where the stamps alone could not tell how many
 * wraps passed; records written while port time stands still; a full ring
 * whose port cannot drain (LOST with the right count and sequence numbers);
 * a port that drains when the ring is full (nothing lost over many laps).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trace_impl.h"

/* What trace.c needs of the rest of the kernel. */
struct fake_clock fake;
pr_kernel_t pr_k;
pr_task_t *pr_self;
pr_task_t pr_idle;
pr_task_t pr_tasks[PR_CONFIG_MAX_TASKS];

static int failed, passed;
#define CHECK_EQ(a, b)                                                                             \
    do {                                                                                           \
        unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);             \
        if (a_ != b_) {                                                                            \
            printf("%s:%d: %s is %llu, expected %llu\n", __FILE__, __LINE__, #a, a_, b_);          \
            failed++;                                                                              \
        }                                                                                          \
    } while (0)

#if PR_CONFIG_ASSERT
void pr_assert_failed(const char *file, int line, const char *expr)
{
    printf("%s:%d: assertion failed: %s\n", file, line, expr);
    fflush(stdout);
    abort();
}
#endif

/* The port's side: a drain into `sink` when the ring is full, if allowed. */
static pr_trace_record_t sink[64];
static size_t sunk;
static int port_drains, full_calls, traced_calls;

void pr_port_trace_full(void)
{
    full_calls++;
    if (port_drains)
        sunk += pr_trace_drain(&sink[sunk], sizeof sink / sizeof sink[0] - sunk);
}

void pr_port_traced(uint8_t event, pr_trace_tag_t task, pr_trace_tag_t object, int result, pr_trace_tag_t arg0,
                    pr_trace_tag_t arg1, int32_t value)
{
    (void)event, (void)task, (void)object, (void)result, (void)arg0, (void)arg1, (void)value;
    traced_calls++;
}

/* A fresh ring; the clock runs from `counts`, port time 0 at counts 0. */
static void reset(uint64_t counts)
{
    fake = (struct fake_clock){.counts = counts, .epoch = 0, .stopped = counts, .running = 1};
    pr_k.outside = 0;
    pr_idle.trace_tag = PR_TRACE_NONE;
    trace_task_words(&pr_idle);
    for (int i = 0; i < PR_CONFIG_MAX_TASKS; i++) {
        pr_tasks[i].trace_tag = (pr_trace_tag_t)i;
        trace_task_words(&pr_tasks[i]);
    }
    pr_k.current = pr_self = &pr_idle;
    trace_reset();
    sunk = 0;
    port_drains = full_calls = traced_calls = 0;
}

static void emit(uint8_t event, int32_t value) { trace_emit(event, &pr_tasks[1], 2, PR_OK, 3, 4, value); }

static size_t drain_all(pr_trace_record_t *out, size_t max) { return pr_trace_drain(out, max); }

static void fields_survive_both_ways(void)
{
    pr_trace_record_t r[4];
    reset(1000);
    trace_emit(PR_EV_PRIO_SET, &pr_tasks[7], 0xFF, PR_EBADID, 0xFE, 0x80, -123456); /* the slow way: the mark is owed */
    fake.counts += 5;
    trace_emit(PR_EV_SEM_DOWN, &pr_idle, 63, PR_ETIMEDOUT, 1, 0, INT32_MIN); /* the fast way */
    CHECK_EQ(drain_all(r, 4), 2);
    const pr_trace_record_t want[2] = {
        {.time = 100000, .seq = 0, .value = -123456, .event = PR_EV_PRIO_SET, .task = 7, .object = 0xFF,
         .result = PR_EBADID, .arg0 = 0xFE, .arg1 = 0x80, .ids_high = 0},
        {.time = 100500, .seq = 1, .value = INT32_MIN, .event = PR_EV_SEM_DOWN, .task = 0xFF, .object = 63,
         .result = PR_ETIMEDOUT, .arg0 = 1, .arg1 = 0, .ids_high = 0},
    };
    for (int i = 0; i < 2; i++) {
        CHECK_EQ(r[i].time, want[i].time);
        CHECK_EQ(r[i].seq, want[i].seq);
        CHECK_EQ(r[i].value, want[i].value);
        CHECK_EQ(r[i].event, want[i].event);
        CHECK_EQ(r[i].task, want[i].task);
        CHECK_EQ(r[i].object, want[i].object);
        CHECK_EQ(r[i].result, want[i].result);
        CHECK_EQ(r[i].arg0, want[i].arg0);
        CHECK_EQ(r[i].arg1, want[i].arg1);
        CHECK_EQ(r[i].ids_high, 0);
    }
    CHECK_EQ(traced_calls, 2);
}

/* The mark at counts 2^32 - 10, records at 2^32 - 4 and 2^32 + 20 (their
 * stamps 0xFFFFFFFC and 20): the second's difference from the mark wraps. */
static void stamp_wraps_after_its_mark(void)
{
    pr_trace_record_t r[4];
    uint64_t wrap = (uint64_t)1 << 32;
    reset(wrap - 10);
    trace_clock_changed();
    fake.counts = wrap - 4;
    emit(PR_EV_SWITCH, 0);
    fake.counts = wrap + 20;
    emit(PR_EV_SWITCH, 0);
    CHECK_EQ(drain_all(r, 4), 2);
    CHECK_EQ(r[0].time, (wrap - 4) * 100);
    CHECK_EQ(r[1].time, (wrap + 20) * 100);
}

/* Three wraps of the stamp in all, but a fold (trace_clock_changed) every
 * 2^31 counts: each record is converted from a mark less than a wrap old. */
static void folds_keep_long_runs_exact(void)
{
    pr_trace_record_t r[8];
    uint64_t half = (uint64_t)1 << 31;
    reset(7);
    emit(PR_EV_RELEASE, 1);
    for (int i = 0; i < 6; i++) {
        fake.counts += half;
        trace_clock_changed(); /* as the tick's fold every PR_PORT_STAMP_FOLD_TICKS ticks */
        fake.counts += 3;
        emit(PR_EV_RELEASE, 2 + i);
        CHECK_EQ(drain_all(r, 8), i == 0 ? 2 : 1);
        const pr_trace_record_t *last = &r[i == 0 ? 1 : 0];
        CHECK_EQ(last->time, fake.counts * 100);
        CHECK_EQ(last->seq, (uint32_t)(i + 1));
        CHECK_EQ(last->value, 2 + i);
    }
}

/* Outside the kernel's tasks port time stands still: records written then
 * have the time it stopped at, while the stamp runs on; back inside, time
 * goes on from there (the port moved its epoch by the pause). */
static void time_stands_still_outside(void)
{
    pr_trace_record_t r[8];
    reset(500);
    emit(PR_EV_RELEASE, 1);
    fake.counts = 800;
    fake.stopped = 800;
    fake.running = 0;
    pr_k.outside = 1;
    trace_clock_changed();
    fake.counts = 5000;
    emit(PR_EV_TASK_CREATE, 2);
    fake.counts = 9000;
    emit(PR_EV_TASK_CREATE, 3);
    fake.epoch += 9000 - 800; /* the run resumes: the pause is no port time */
    fake.running = 1;
    pr_k.outside = 0;
    trace_clock_changed();
    fake.counts = 9010;
    emit(PR_EV_SWITCH, 4);
    CHECK_EQ(drain_all(r, 8), 4);
    CHECK_EQ(r[0].time, 50000);
    CHECK_EQ(r[1].time, 80000);
    CHECK_EQ(r[2].time, 80000);
    CHECK_EQ(r[3].time, 81000);
    for (int i = 0; i < 4; i++)
        CHECK_EQ(r[i].seq, (uint32_t)i);
}

/* 8 slots, the first of them the mark: 7 records fit, the next 5 are lost
 * (the port is asked each time and cannot drain). After a drain, the next
 * record is preceded by LOST with the count, which takes the number after
 * the lost ones. */
static void full_ring_loses_and_says_so(void)
{
    pr_trace_record_t r[8];
    reset(100);
    for (int i = 0; i < 12; i++)
        emit(PR_EV_RELEASE, i);
    CHECK_EQ(pr_trace_lost(), 5);
    CHECK_EQ(full_calls, 5);
    CHECK_EQ(traced_calls, 7);
    CHECK_EQ(drain_all(r, 8), 7);
    for (int i = 0; i < 7; i++) {
        CHECK_EQ(r[i].seq, (uint32_t)i);
        CHECK_EQ(r[i].value, i);
    }
    fake.counts += 1;
    emit(PR_EV_RELEASE, 12);
    emit(PR_EV_RELEASE, 13);
    CHECK_EQ(drain_all(r, 8), 3);
    CHECK_EQ(r[0].event, PR_EV_LOST);
    CHECK_EQ(r[0].value, 5);
    CHECK_EQ(r[0].seq, 12);
    CHECK_EQ(r[0].task, PR_TRACE_NONE);
    CHECK_EQ(r[0].object, PR_TRACE_NONE);
    CHECK_EQ(r[0].time, 10100);
    CHECK_EQ(r[1].seq, 13);
    CHECK_EQ(r[1].value, 12);
    CHECK_EQ(r[2].seq, 14);
    CHECK_EQ(pr_trace_lost(), 5);
}

/* A port that drains when asked: 40 records through an 8-slot ring, in
 * order, numbered 0..39, none lost; the ring wraps many times. */
static void draining_port_loses_nothing(void)
{
    reset(0);
    port_drains = 1;
    for (int i = 0; i < 40; i++) {
        fake.counts += 2;
        emit(PR_EV_RELEASE, i);
    }
    sunk += pr_trace_drain(&sink[sunk], sizeof sink / sizeof sink[0] - sunk);
    CHECK_EQ(sunk, 40);
    CHECK_EQ(pr_trace_lost(), 0);
    for (int i = 0; i < 40; i++) {
        CHECK_EQ(sink[i].seq, (uint32_t)i);
        CHECK_EQ(sink[i].value, i);
        CHECK_EQ(sink[i].time, (uint64_t)(2 * (i + 1)) * 100);
    }
}

/* A drain with room for fewer records than the ring holds takes the oldest
 * and leaves the rest, marks never counted among them. */
static void partial_drains_keep_order(void)
{
    pr_trace_record_t r[8];
    reset(0);
    for (int i = 0; i < 5; i++)
        emit(PR_EV_RELEASE, i);
    CHECK_EQ(drain_all(r, 2), 2);
    CHECK_EQ(r[0].value, 0);
    CHECK_EQ(r[1].value, 1);
    trace_clock_changed();
    emit(PR_EV_RELEASE, 5);
    CHECK_EQ(drain_all(r, 8), 4);
    for (int i = 0; i < 4; i++) {
        CHECK_EQ(r[i].value, i + 2);
        CHECK_EQ(r[i].seq, (uint32_t)(i + 2));
    }
    CHECK_EQ(drain_all(r, 8), 0);
}

int main(void)
{
    void (*const cases[])(void) = {fields_survive_both_ways,    stamp_wraps_after_its_mark,
                                   folds_keep_long_runs_exact,  time_stands_still_outside,
                                   full_ring_loses_and_says_so, draining_port_loses_nothing,
                                   partial_drains_keep_order};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int before = failed;
        cases[i]();
        if (failed == before)
            passed++;
    }
    int total = (int)(sizeof cases / sizeof cases[0]);
    printf("%d passed, %d failed\n", passed, total - passed);
    return failed != 0;
}
