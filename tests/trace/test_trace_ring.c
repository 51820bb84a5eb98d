/*
 * The trace ring's format at its edges (docs/trace-format.md), on a ring of
 * 8 slots over a fake port (fake_port.h) whose 32-bit stamp wraps like
 * RV32's: records written the fast way and the slow way decode to the
 * fields they were given; a stamp that wraps between a mark and a record;
 * a mark owed by the fold, where the stamps alone could not tell how many
 * wraps passed; records written while port time stands still; a full ring
 * whose port cannot drain (LOST with the right count and sequence numbers);
 * a port that drains when the ring is full (nothing lost over many laps);
 * SWITCH slots, which leave out the task switched out (the drain keeps it,
 * from SWITCH, mark and LOST slots); the records that the merged slots
 * stand for, whole and across partial drains, lost and counted; an owed
 * mark that an emptying drain carries to the ring's first slot.
 *
 * Built twice (CMakeLists.txt): with the port's cost hook, as the host
 * port, where the merged writers write their records one by one, and
 * without, as RISC-V, where they write one slot. Both must give the same
 * records.
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

#ifdef PR_PORT_TRACE_HOOK
void pr_port_traced(uint8_t event, pr_trace_tag_t task, pr_trace_tag_t object, int result, pr_trace_tag_t arg0,
                    pr_trace_tag_t arg1, int32_t value)
{
    (void)event, (void)task, (void)object, (void)result, (void)arg0, (void)arg1, (void)value;
    traced_calls++;
}
#define CHECK_TRACED(n) CHECK_EQ(traced_calls, n)
#else
#define CHECK_TRACED(n) ((void)(n)) /* no hook: nothing to count */
#endif

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
    CHECK_TRACED(2);
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
    CHECK_TRACED(7);
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

/* One record's fields, as the table's rows below give them. */
typedef struct {
    uint8_t event, task, object;
    int8_t result;
    uint8_t arg0, arg1;
    int32_t value;
} fields_t;

static void check_records(const pr_trace_record_t *r, const fields_t *want, size_t n, uint32_t first_seq,
                          uint64_t time)
{
    for (size_t i = 0; i < n; i++) {
        CHECK_EQ(r[i].event, want[i].event);
        CHECK_EQ(r[i].task, want[i].task);
        CHECK_EQ(r[i].object, want[i].object);
        CHECK_EQ(r[i].result, want[i].result);
        CHECK_EQ(r[i].arg0, want[i].arg0);
        CHECK_EQ(r[i].arg1, want[i].arg1);
        CHECK_EQ(r[i].value, want[i].value);
        CHECK_EQ(r[i].ids_high, 0);
        CHECK_EQ(r[i].seq, first_seq + i);
        CHECK_EQ(r[i].time, time);
    }
}

/* The kernel's switch: the record, then the current task changes. */
static void switch_to(int next, pr_task_state_t state)
{
    pr_task_t *t = next < 0 ? &pr_idle : &pr_tasks[next];
    pr_k.current->state = state;
    trace_emit_switch(pr_port_stamp(), t, state);
    pr_k.current = t;
}

/* SWITCH slots hold the task switched in and the state; the drain gives
 * each the task switched out: the idle task after reset, then the last
 * SWITCH's. The first goes the slow way (the mark owed since reset). */
static void switch_names_the_task_switched_out(void)
{
    pr_trace_record_t r[8];
    reset(40);
    switch_to(3, PR_TASK_READY);
    switch_to(5, PR_TASK_BLOCKED);
    switch_to(-1, PR_TASK_DELAYED);
    switch_to(3, PR_TASK_READY);
    CHECK_EQ(drain_all(r, 8), 4);
    const fields_t want[4] = {
        {PR_EV_SWITCH, 3, 0xFF, PR_OK, PR_TASK_READY, 0, 0},
        {PR_EV_SWITCH, 5, 3, PR_OK, PR_TASK_BLOCKED, 0, 0},
        {PR_EV_SWITCH, 0xFF, 5, PR_OK, PR_TASK_DELAYED, 0, 0},
        {PR_EV_SWITCH, 3, 0xFF, PR_OK, PR_TASK_READY, 0, 0},
    };
    check_records(r, want, 4, 0, 4000);
    CHECK_TRACED(4);
}

/* A SWITCH lost with a full ring: the LOST record that follows names the
 * current task, so the next SWITCH still gives the right one switched
 * out. 8 slots: the mark and 7 records; the 8th, a SWITCH to 6, is lost. */
static void lost_switch_keeps_the_task_switched_out(void)
{
    pr_trace_record_t r[8];
    reset(40);
    for (int i = 0; i < 7; i++)
        emit(PR_EV_RELEASE, i);
    switch_to(6, PR_TASK_READY); /* lost: the kernel's current task changes all the same */
    CHECK_EQ(pr_trace_lost(), 1);
    CHECK_EQ(drain_all(r, 8), 7);
    switch_to(2, PR_TASK_BLOCKED);
    CHECK_EQ(drain_all(r, 8), 2);
    const fields_t want[2] = {
        {PR_EV_LOST, 0xFF, 0xFF, PR_OK, 0, 0, 1},
        {PR_EV_SWITCH, 2, 6, PR_OK, PR_TASK_BLOCKED, 0, 0},
    };
    check_records(r, want, 2, 8, 4000);
}

/* The merged writers (trace_impl.h) give the records they stand for, in
 * order, at one instant: an up that hands its mutex over (the caller's
 * PRIO drop, WAKE, UP), an up that wakes a waiter of a counting semaphore
 * (WAKE, UP), a block that raises the holder (BLOCK, PRIO), one that does
 * not (BLOCK). They are written the fast way: the ring has room (in the
 * build with the hook, one slot a record: two drains). */
static void merged_writers_give_their_records(void)
{
    pr_trace_record_t r[16];
    reset(40);
    emit(PR_EV_RELEASE, 0); /* the mark owed since reset, the slow way */
    trace_up_woke(&pr_tasks[1], 9, &pr_tasks[4], -2, 5, 2);
    trace_up_woke(&pr_tasks[3], 7, &pr_tasks[2], 0, 0, 0);
    CHECK_EQ(drain_all(r, 16), 6);
    trace_block_lent(&pr_tasks[4], 9, -1, &pr_tasks[1], 2, 5);
    trace_block_lent(&pr_tasks[4], 8, 12, &pr_tasks[1], 3, 3);
    CHECK_EQ(drain_all(&r[6], 10), 3);
    const fields_t want[8] = {
        {PR_EV_PRIO, 1, 9, PR_OK, 5, 2, PR_CAUSE_RELEASE | PR_OBJ_SEM << 8},
        {PR_EV_WAKE, 4, 9, PR_OK, 0, 0, 0},
        {PR_EV_SEM_UP, 1, 9, PR_OK, 4, 0, -2},
        {PR_EV_WAKE, 2, 7, PR_OK, 0, 0, 0},
        {PR_EV_SEM_UP, 3, 7, PR_OK, 2, 0, 0},
        {PR_EV_BLOCK, 4, 9, PR_OK, 0, 0, -1},
        {PR_EV_PRIO, 1, 9, PR_OK, 2, 5, PR_CAUSE_INHERIT | PR_OBJ_SEM << 8},
        {PR_EV_BLOCK, 4, 8, PR_OK, 0, 0, 12},
    };
    check_records(&r[1], want, 8, 1, 4000);
    CHECK_TRACED(9);
}

/* A merged slot's records across drains with room for fewer: the drain
 * keeps the rest for the next one, in order. */
static void merged_records_across_partial_drains(void)
{
    pr_trace_record_t r[4];
    reset(40);
    emit(PR_EV_RELEASE, 0);
    trace_up_woke(&pr_tasks[1], 9, &pr_tasks[4], -2, 5, 2);
    emit(PR_EV_RELEASE, 1);
    CHECK_EQ(drain_all(r, 2), 2);
    CHECK_EQ(r[0].event, PR_EV_RELEASE);
    CHECK_EQ(r[1].event, PR_EV_PRIO);
    CHECK_EQ(drain_all(r, 1), 1);
    CHECK_EQ(r[0].event, PR_EV_WAKE);
    CHECK_EQ(r[0].seq, 2);
    CHECK_EQ(drain_all(r, 4), 2);
    CHECK_EQ(r[0].event, PR_EV_SEM_UP);
    CHECK_EQ(r[0].seq, 3);
    CHECK_EQ(r[1].event, PR_EV_RELEASE);
    CHECK_EQ(r[1].seq, 4);
    CHECK_EQ(drain_all(r, 4), 0);
}

/* A full ring loses a merged slot as the records it stands for: the LOST
 * record counts them, and the sequence numbers skip them. The merged
 * writers write the fast way, so the full ring is made with a trace_emit
 * of the merged kind, as the slow way would be reached. */
static void lost_merged_slot_counts_its_records(void)
{
    pr_trace_record_t r[8];
    reset(40);
    for (int i = 0; i < 7; i++)
        emit(PR_EV_RELEASE, i);
#if TRACE_MERGED
    trace_emit(TRACE_UP_WOKE, &pr_tasks[1], 9, 2, 4, 5, -2); /* PRIO 5 -> 2, WAKE, UP: lost */
    CHECK_EQ(pr_trace_lost(), 3);
#else
    trace_emit(PR_EV_PRIO, &pr_tasks[1], 9, PR_OK, 5, 2, PR_CAUSE_RELEASE);
    trace_emit(PR_EV_WAKE, &pr_tasks[4], 9, PR_OK, 0, 0, 0);
    trace_emit(PR_EV_SEM_UP, &pr_tasks[1], 9, PR_OK, 4, 0, -2);
    CHECK_EQ(pr_trace_lost(), 3);
#endif
    CHECK_EQ(drain_all(r, 8), 7);
    emit(PR_EV_RELEASE, 7);
    CHECK_EQ(drain_all(r, 8), 2);
    CHECK_EQ(r[0].event, PR_EV_LOST);
    CHECK_EQ(r[0].value, 3);
    CHECK_EQ(r[0].seq, 10);
    CHECK_EQ(r[1].seq, 11);
    CHECK_EQ(r[1].value, 7);
}

/* A mark owed when a drain empties the ring: the writer starts again at
 * the ring's first slot, and the mark still comes first (the time of a
 * record after time stood still is the mark's). */
static void owed_mark_survives_an_emptying_drain(void)
{
    pr_trace_record_t r[8];
    reset(0);
    emit(PR_EV_RELEASE, 0);
    emit(PR_EV_RELEASE, 1);
    fake.counts = 300;
    fake.stopped = 300;
    fake.running = 0;
    pr_k.outside = 1;
    trace_clock_changed();
    CHECK_EQ(drain_all(r, 8), 2);
    fake.counts = 900;
    emit(PR_EV_RELEASE, 2);
    emit(PR_EV_RELEASE, 3);
    CHECK_EQ(drain_all(r, 8), 2);
    CHECK_EQ(r[0].time, 30000);
    CHECK_EQ(r[1].time, 30000);
    CHECK_EQ(r[0].seq, 2);
    for (int i = 0; i < 12; i++) /* laps of the ring: no stale stop anywhere */
        emit(PR_EV_RELEASE, 10 + i), (void)((i & 3) == 3 && drain_all(r, 8));
    CHECK_EQ(pr_trace_lost(), 0);
}

int main(void)
{
    void (*const cases[])(void) = {fields_survive_both_ways,
                                   stamp_wraps_after_its_mark,
                                   folds_keep_long_runs_exact,
                                   time_stands_still_outside,
                                   full_ring_loses_and_says_so,
                                   draining_port_loses_nothing,
                                   partial_drains_keep_order,
                                   switch_names_the_task_switched_out,
                                   lost_switch_keeps_the_task_switched_out,
                                   merged_writers_give_their_records,
                                   merged_records_across_partial_drains,
                                   lost_merged_slot_counts_its_records,
                                   owed_mark_survives_an_emptying_drain};
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
