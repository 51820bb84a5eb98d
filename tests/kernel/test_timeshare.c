/*
 * The time-sharing band (timeshare.h): decay-usage levels below every
 * real-time priority, slices among equals, nice, the protocols lifting a
 * time-sharing holder into the real-time band, and rtprio's moves.
 *
 * Most cases use 8 time-sharing levels (0..7; real-time 8..31), a slice
 * of 100 ticks (so that the levels, not the slices, decide) and a decay
 * period of 100 ticks. A new task with nice 0 starts at level 5 (penalty
 * 40: 7 - 40*8/128); it sinks to 4 when its usage reaches 32 (penalty 48),
 * to 3 at 96 (64). A decay multiplies the usage by 2/3.
 */
#include "harness.h"

#define EV_TS (EV(PR_EV_SWITCH) | EV(PR_EV_PRIO))

static void band(pr_ticks_t slice)
{
    pr_kernel_config_t cfg = {
        .tick_hz = 1000, .timeshare_levels = 8, .timeshare_quantum = slice, .timeshare_decay = 100};
    harness_reset_config(&cfg);
}

static pr_id_t ts_task(const char *name, int nice, pr_ticks_t phase, pr_entry_t entry, void *arg)
{
    pr_task_attr_t attr;
    pr_task_attr_init(&attr);
    attr.name = name;
    attr.sched_class = PR_CLASS_TIMESHARE;
    attr.nice = nice;
    attr.phase = phase;
    attr.entry = entry;
    attr.arg = arg;
    return task_with(&attr);
}

static void compute(void *arg) { pr_host_consume(TICKS((uintptr_t)arg)); }

/* A periodic body: 4 jobs of `arg` ticks each, then its end. */
static void jobs4(void *arg)
{
    for (int job = 0; job < 4; job++) {
        pr_host_consume(TICKS((uintptr_t)arg));
        if (job < 3)
            pr_task_wait_period();
    }
}

#define FOR(n) ((void *)(uintptr_t)(n))

/* Levels at creation follow nice: 7 - (2 * (nice + 20)) * 8 / 128. */
static void levels_at_creation_follow_nice(void)
{
    band(100);
    pr_id_t a = ts_task("A", 0, 0, compute, FOR(1));
    pr_id_t b = ts_task("B", 10, 0, compute, FOR(1));
    pr_id_t c = ts_task("C", -20, 0, compute, FOR(1));
    pr_id_t d = ts_task("D", 19, 0, compute, FOR(1));
    CHECK_EQ(status_of(a).base_priority, 5);
    CHECK_EQ(status_of(b).base_priority, 4);
    CHECK_EQ(status_of(c).base_priority, 7);
    CHECK_EQ(status_of(d).base_priority, 3);
    CHECK_EQ(status_of(a).sched_class, PR_CLASS_TIMESHARE);
    CHECK_EQ(status_of(b).nice, 10);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV(PR_EV_SWITCH), "0 SWITCH C<-idle", "1 SWITCH A<-C", "2 SWITCH B<-A", "3 SWITCH D<-B",
                 "4 SWITCH idle<-D");
}

/*
 * A and B compute 150 ticks each, nice 0, both at level 5. A runs first; at
 * tick 32 its usage is 32 and it sinks to 4: B runs. At 64 B sinks to 4
 * too, and keeps the CPU (a running task that changes level goes to the
 * head of its new one). The decay period ends at 100; the tick of 101
 * brings A up to date (the tick decays one task in turn: B at even ticks,
 * A at odd ones): 32 -> 21, level 5 again, and A preempts B.
 */
static void usage_sinks_a_task_and_decay_raises_it(void)
{
    band(1000);
    pr_id_t a = ts_task("A", 0, 0, compute, FOR(150));
    ts_task("B", 0, 0, compute, FOR(150));
    CHECK_EQ(pr_host_run_ticks(102), PR_HOST_REACHED);
    EXPECT_TRACE(EV_TS, "0 SWITCH A<-idle", "32 PRIO A 5->4 decay -", "32 SWITCH B<-A", "64 PRIO B 5->4 decay -",
                 "101 PRIO A 4->5 decay -", "101 SWITCH A<-B");
    CHECK_EQ(status_of(a).usage, 21);
}

/*
 * Real time is never delayed by time sharing: R (priority 10, period 10,
 * computing 3) preempts the time-sharing tasks at each release and
 * finishes 3 ticks later, every time. A and B (20 ticks each, slices of
 * 5) share the rest; a preempted one keeps the rest of its slice: B
 * 8..10 and 13..16, A 16..20 and 23..24.
 */
static void realtime_preempts_time_sharing_at_once(void)
{
    band(5);
    pr_id_t r = periodic_task("R", 10, 10, 0, 10, jobs4, FOR(3));
    ts_task("A", 0, 0, compute, FOR(20));
    ts_task("B", 0, 0, compute, FOR(20));
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    CHECK_EQ(status_of(r).deadline_misses, 0);
    EXPECT_TRACE(EV_TS, "0 SWITCH R<-idle", "3 SWITCH A<-R", "8 SWITCH B<-A", "10 SWITCH R<-B", "13 SWITCH B<-R",
                 "16 SWITCH A<-B", "20 SWITCH R<-A", "23 SWITCH A<-R", "24 SWITCH B<-A", "29 SWITCH A<-B",
                 "30 SWITCH R<-A", "33 SWITCH A<-R", "37 SWITCH B<-A", "42 SWITCH A<-B", "47 SWITCH B<-A",
                 "52 SWITCH idle<-B");
}

/*
 * A time-sharing task holding a mutex is lifted into the real-time band by
 * inheritance for exactly its section: L (time sharing) locks M at 0 and
 * holds it 4 ticks; H (priority 20) asks for M at 1; M (priority 9), ready
 * at 1, would otherwise run first. L runs at 20 from 1 to 4.
 */
static const pr_action_t l_body[] = {A_LOCK(0), A_COMPUTE(4), A_UNLOCK(0), A_COMPUTE(2)};
static const pr_action_t h_body[] = {A_LOCK(0), A_COMPUTE(1), A_UNLOCK(0)};
static const pr_action_t m_body[] = {A_COMPUTE(3)};

static void inheritance_lifts_a_time_sharing_holder(void)
{
    band(100);
    pr_id_t m = mutex("M", PR_PROTOCOL_PIP);
    CHECK_EQ(m, 0);
    pr_script_t l = SCRIPT(l_body), h = SCRIPT(h_body), md = SCRIPT(m_body);
    pr_task_attr_t attr;
    pr_task_attr_init(&attr);
    attr.name = "L";
    attr.sched_class = PR_CLASS_TIMESHARE;
    attr.entry = pr_script_body;
    attr.arg = &l;
    task_with(&attr);
    script_task("H", 20, 1, &h);
    script_task("Md", 9, 1, &md);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_TS, "0 SWITCH L<-idle", "1 SWITCH H<-L", "1 PRIO L 5->20 inherit M", "1 SWITCH L<-H",
                 "4 PRIO L 20->5 release M", "4 SWITCH H<-L", "5 SWITCH Md<-H", "8 SWITCH L<-Md", "10 SWITCH idle<-L");
}

/*
 * The seed example's shape: a real-time task meets every deadline while
 * three CPU-bound time-sharing tasks, nice 0, 5 and 10, share the rest
 * (2,000 ticks, slices of 10, decay every 100): the smaller the nice value,
 * the larger the share (880, 610 and 490 ticks: what the decay-usage rule
 * gives them, tick for tick), and together they use every tick the
 * real-time task leaves.
 */
static void nice_values_order_the_shares(void)
{
    pr_kernel_config_t cfg = {.tick_hz = 1000, .timeshare_levels = 8, .timeshare_quantum = 10, .timeshare_decay = 100};
    harness_reset_config(&cfg);
    pr_id_t r = periodic_task("R", 12, 20, 0, 20, jobs4, FOR(5));
    pr_id_t a = ts_task("N0", 0, 0, compute, FOR(5000));
    pr_id_t b = ts_task("N5", 5, 0, compute, FOR(5000));
    pr_id_t c = ts_task("N10", 10, 0, compute, FOR(5000));
    CHECK_EQ(pr_host_run_ticks(2000), PR_HOST_REACHED);
    CHECK_EQ(status_of(r).deadline_misses, 0);
    CHECK_EQ(status_of(r).jobs_completed, 4);
    uint64_t ta = status_of(a).cpu_time, tb = status_of(b).cpu_time, tc = status_of(c).cpu_time;
    CHECK_EQ(ta + tb + tc, TICKS(2000 - 20));
    CHECK_EQ(ta, TICKS(880));
    CHECK_EQ(tb, TICKS(610));
    CHECK_EQ(tc, TICKS(490));
}

/*
 * rtprio's moves, for a task that waits on a mutex: T (time sharing,
 * level 5) waits for M, held by L (real-time 9). Moved to real-time 15, T
 * lends L 15 through M at once; moved back to time sharing, it lends
 * nothing any more and L drops to 9. NOCHG reads without a record.
 */
static const pr_action_t hold_body[] = {A_LOCK(0), A_COMPUTE(10), A_UNLOCK(0)};
static const pr_action_t want_body[] = {A_LOCK(0), A_UNLOCK(0)};

static void rtprio_moves_a_waiter_and_its_lend_follows(void)
{
    band(100);
    mutex("M", PR_PROTOCOL_PIP);
    pr_script_t l = SCRIPT(hold_body), t = SCRIPT(want_body);
    pr_id_t lid = script_task("L", 9, 0, &l);
    pr_task_attr_t attr;
    pr_task_attr_init(&attr);
    attr.name = "T";
    attr.sched_class = PR_CLASS_TIMESHARE;
    attr.entry = pr_script_body;
    attr.arg = &t;
    attr.phase = 1;
    pr_id_t tid = task_with(&attr);
    CHECK_EQ(pr_host_run_ticks(2), PR_HOST_REACHED); /* L holds M and runs; T is not even chosen */
    CHECK_EQ(status_of(tid).state, PR_TASK_READY);
    pr_prio_t old = 0;
    CHECK_EQ(pr_task_rtprio(tid, 15, &old), PR_OK);
    CHECK_EQ(old, PR_RTPRIO_RTOFF);
    CHECK_EQ(pr_host_run_ticks(3), PR_HOST_REACHED); /* T runs, blocks on M, lends L 15 */
    CHECK_EQ(status_of(lid).effective_priority, 15);
    CHECK_EQ(pr_task_rtprio(tid, PR_RTPRIO_NOCHG, &old), PR_OK);
    CHECK_EQ(old, 15);
    CHECK_EQ(pr_task_rtprio(tid, PR_RTPRIO_RTOFF, &old), PR_OK);
    CHECK_EQ(old, 15);
    CHECK_EQ(status_of(lid).effective_priority, 9);
    CHECK_EQ(status_of(tid).sched_class, PR_CLASS_TIMESHARE);
    CHECK_EQ(status_of(tid).base_priority, 5);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_TS | EV(PR_EV_RTPRIO) | EV(PR_EV_BLOCK), "0 SWITCH L<-idle", "2 RTPRIO T ok ts->15 nice=0",
                 "2 PRIO T 5->15 set -", "2 SWITCH T<-L", "2 BLOCK T M ok", "2 PRIO L 9->15 inherit M",
                 "2 SWITCH L<-T", "3 RTPRIO T ok 15->ts nice=0", "3 PRIO T 15->5 set -", "3 PRIO L 15->9 inherit M",
                 "10 SWITCH T<-L", "10 SWITCH idle<-T");
}

/*
 * A holder moves: L (real-time 9) holds M (pip) and H (20) waits for it, so
 * L runs at 20. Moved out of the band (RTOFF) it keeps M and the lend: its
 * effective priority stays 20 and only its base becomes its level (no PRIO
 * record: the effective priority did not change). At its unlock it drops
 * to its level, 5, at the head (it is running), and H takes M; when H is
 * done, L, preempted at the head of level 5, runs before B, which waited
 * there since 0 (the placement rules, docs/semantics.md).
 */
static const pr_action_t hold5_body[] = {A_LOCK(0), A_COMPUTE(5), A_UNLOCK(0), A_COMPUTE(2)};
static const pr_action_t wait_body[] = {A_LOCK(0), A_COMPUTE(1), A_UNLOCK(0)};

static void a_holder_leaving_the_band_keeps_its_lend(void)
{
    band(100);
    mutex("M", PR_PROTOCOL_PIP);
    pr_script_t l = SCRIPT(hold5_body), h = SCRIPT(wait_body);
    pr_id_t lid = script_task("L", 9, 0, &l);
    script_task("H", 20, 1, &h);
    ts_task("B", 0, 0, compute, FOR(3));
    CHECK_EQ(pr_host_run_ticks(2), PR_HOST_REACHED);
    CHECK_EQ(status_of(lid).effective_priority, 20);
    CHECK_EQ(pr_task_rtprio(lid, PR_RTPRIO_RTOFF, NULL), PR_OK);
    pr_task_status_t st = status_of(lid);
    CHECK_EQ(st.sched_class, PR_CLASS_TIMESHARE);
    CHECK_EQ(st.base_priority, 5);
    CHECK_EQ(st.effective_priority, 20);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_TS | EV(PR_EV_RTPRIO), "0 SWITCH L<-idle", "1 SWITCH H<-L", "1 PRIO L 9->20 inherit M",
                 "1 SWITCH L<-H", "2 RTPRIO L ok 9->ts nice=0", "5 PRIO L 20->5 release M", "5 SWITCH H<-L",
                 "6 SWITCH L<-H", "8 SWITCH B<-L", "11 SWITCH idle<-B");
}

/*
 * Under ipcp a time-sharing task is lifted at the lock itself, to the
 * mutex's ceiling (12, from the real-time R that also locks it), and the
 * real-time R released meanwhile at priority 10 waits for the section's
 * end: the ceiling protocol's bound, one section.
 */
static const pr_action_t ceil_body[] = {A_LOCK(0), A_COMPUTE(3), A_UNLOCK(0), A_COMPUTE(1)};
static const pr_action_t r_body[] = {A_LOCK(0), A_COMPUTE(1), A_UNLOCK(0)};
static const pr_action_t mid_body[] = {A_COMPUTE(1)};

static void a_ceiling_lifts_a_time_sharing_holder_at_the_lock(void)
{
    band(100);
    mutex_ceiling("M", PR_PROTOCOL_IPCP, 12);
    pr_script_t t = SCRIPT(ceil_body), r = SCRIPT(r_body), mid = SCRIPT(mid_body);
    pr_task_attr_t attr;
    pr_task_attr_init(&attr);
    attr.name = "T";
    attr.sched_class = PR_CLASS_TIMESHARE;
    attr.entry = pr_script_body;
    attr.arg = &t;
    task_with(&attr);
    script_task("R", 12, 1, &r);
    script_task("Mid", 10, 1, &mid);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_TS, "0 SWITCH T<-idle", "0 PRIO T 5->12 ceiling M", "3 PRIO T 12->5 release M",
                 "3 SWITCH R<-T", "4 SWITCH Mid<-R", "5 SWITCH T<-Mid", "6 SWITCH idle<-T");
}

/*
 * rtprio's moves of a task that waits, along a chain: L2 (9) holds M2 and
 * sleeps in its section; L1 (10) holds M1 and waits for M2 (L2 runs at 10);
 * W (time sharing, level 5), the only task left to run, waits for M1. W
 * moved into the band at 20 lends 20 to L1 through M1 and, through L1's
 * wait, to L2; moved within the band to 15, both follow it down. Each move
 * is W's base only: RTPRIO, then PRIO W set, then the chain's inherits.
 */
static const pr_action_t l2_body[] = {A_LOCK(1), A_DELAY(5), A_COMPUTE(2), A_UNLOCK(1)};
static const pr_action_t l1_body[] = {A_LOCK(0), A_LOCK(1), A_COMPUTE(1), A_UNLOCK(1), A_UNLOCK(0)};
static const pr_action_t w_body[] = {A_LOCK(0), A_COMPUTE(1), A_UNLOCK(0)};

static pr_id_t ts_script_task(const char *name, pr_ticks_t phase, pr_script_t *script)
{
    pr_task_attr_t attr;
    pr_task_attr_init(&attr);
    attr.name = name;
    attr.sched_class = PR_CLASS_TIMESHARE;
    attr.entry = pr_script_body;
    attr.arg = script;
    attr.phase = phase;
    return task_with(&attr);
}

static void rtprio_moves_a_waiter_and_its_chain_follows(void)
{
    band(100);
    mutex("M1", PR_PROTOCOL_PIP);
    mutex("M2", PR_PROTOCOL_PIP);
    pr_script_t l2 = SCRIPT(l2_body), l1 = SCRIPT(l1_body), w = SCRIPT(w_body);
    pr_id_t l2id = script_task("L2", 9, 0, &l2);
    pr_id_t l1id = script_task("L1", 10, 1, &l1);
    pr_id_t wid = ts_script_task("W", 2, &w);
    CHECK_EQ(pr_host_run_ticks(3), PR_HOST_REACHED);
    CHECK_EQ(status_of(wid).state, PR_TASK_BLOCKED);
    CHECK_EQ(status_of(l2id).effective_priority, 10);
    CHECK_EQ(pr_task_rtprio(wid, 20, NULL), PR_OK);
    CHECK_EQ(status_of(l1id).effective_priority, 20);
    CHECK_EQ(status_of(l2id).effective_priority, 20);
    CHECK_EQ(pr_host_run_ticks(4), PR_HOST_REACHED);
    pr_prio_t old = 0;
    CHECK_EQ(pr_task_rtprio(wid, 15, &old), PR_OK);
    CHECK_EQ(old, 20);
    CHECK_EQ(status_of(l1id).effective_priority, 15);
    CHECK_EQ(status_of(l2id).effective_priority, 15);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_TS | EV(PR_EV_RTPRIO) | EV(PR_EV_BLOCK) | EV(PR_EV_WAKE), "0 SWITCH L2<-idle",
                 "0 SWITCH idle<-L2", "1 SWITCH L1<-idle", "1 BLOCK L1 M2 ok", "1 PRIO L2 9->10 inherit M2",
                 "1 SWITCH idle<-L1", "2 SWITCH W<-idle", "2 BLOCK W M1 ok", "2 SWITCH idle<-W",
                 "3 RTPRIO W ok ts->20 nice=0", "3 PRIO W 5->20 set -", "3 PRIO L1 10->20 inherit M1",
                 "3 PRIO L2 10->20 inherit M2", "4 RTPRIO W ok 20->15 nice=0", "4 PRIO W 20->15 set -",
                 "4 PRIO L1 20->15 inherit M1", "4 PRIO L2 20->15 inherit M2", "5 SWITCH L2<-idle",
                 "7 PRIO L2 15->9 release M2", "7 WAKE L1 M2 ok", "7 SWITCH L1<-L2", "8 PRIO L1 15->10 release M1",
                 "8 WAKE W M1 ok", "8 SWITCH W<-L1", "9 SWITCH idle<-W");
    CHECK_EQ(status_of(wid).sched_class, PR_CLASS_REALTIME);
    CHECK_EQ(status_of(wid).base_priority, 15);
}

/*
 * A waiter's move changes its place in the wait queue: A (12) and W (time
 * sharing) wait for M, held by L (9), which sleeps in its section; A is
 * first. Moved into the band at 14, W goes ahead of A (L inherits 14) and
 * is handed M first. In the second round W leaves the band again at 3
 * (L falls back to A's 12) and A is handed M first.
 */
static const pr_action_t sleepy_holder[] = {A_LOCK(0), A_DELAY(4), A_COMPUTE(1), A_UNLOCK(0)};
static const pr_action_t one_section[] = {A_LOCK(0), A_COMPUTE(1), A_UNLOCK(0)};

static void rtprio_moves_a_waiter_in_its_wait_queue(void)
{
    for (int round = 0; round < 2; round++) {
        band(100);
        mutex("M", PR_PROTOCOL_PIP);
        pr_script_t l = SCRIPT(sleepy_holder), a = SCRIPT(one_section), w = SCRIPT(one_section);
        pr_id_t lid = script_task("L", 9, 0, &l);
        script_task("A", 12, 1, &a);
        pr_id_t wid = ts_script_task("W", 1, &w);
        CHECK_EQ(pr_host_run_ticks(2), PR_HOST_REACHED);
        CHECK_EQ(sem_status_of(0).waiters, 2);
        CHECK_EQ(pr_task_rtprio(wid, 14, NULL), PR_OK);
        CHECK_EQ(status_of(lid).effective_priority, 14);
        CHECK_EQ(pr_host_run_ticks(3), PR_HOST_REACHED);
        if (round == 1) {
            CHECK_EQ(pr_task_rtprio(wid, PR_RTPRIO_RTOFF, NULL), PR_OK);
            CHECK_EQ(status_of(lid).effective_priority, 12);
        }
        CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
        if (round == 0)
            EXPECT_TRACE(EV(PR_EV_RTPRIO) | EV(PR_EV_PRIO) | EV(PR_EV_WAKE) | EV(PR_EV_JOB_DONE),
                         "1 PRIO L 9->12 inherit M", "2 RTPRIO W ok ts->14 nice=0", "2 PRIO W 5->14 set -",
                         "2 PRIO L 12->14 inherit M", "5 PRIO L 14->9 release M", "5 WAKE W M ok", "5 JOB_DONE L job=1", "6 WAKE A M ok", "6 JOB_DONE W job=1",
                         "7 JOB_DONE A job=1");
        else
            EXPECT_TRACE(EV(PR_EV_RTPRIO) | EV(PR_EV_PRIO) | EV(PR_EV_WAKE) | EV(PR_EV_JOB_DONE),
                         "1 PRIO L 9->12 inherit M", "2 RTPRIO W ok ts->14 nice=0", "2 PRIO W 5->14 set -",
                         "2 PRIO L 12->14 inherit M", "3 RTPRIO W ok 14->ts nice=0", "3 PRIO W 14->5 set -",
                         "3 PRIO L 14->12 inherit M", "5 PRIO L 12->9 release M", "5 WAKE A M ok",
                         "5 JOB_DONE L job=1", "6 WAKE W M ok", "6 JOB_DONE A job=1", "7 JOB_DONE W job=1");
    }
}

/*
 * A holder moves into and within the band while a lend lifts it: L (time
 * sharing) holds M (pip) and H (20) waits, so L runs at 20. Moved into the
 * band at 12, its base is 12 and it stays at 20 (no PRIO record); moved to
 * 25, above the lend, it runs at 25; moved down to 15, it falls back to the
 * lend, 20, not to 15; at its unlock it drops to 15. Under ipcp the same
 * holds for a ceiling: T (9) runs at M's ceiling 12; moved out of the band
 * it keeps 12 until its unlock, then drops to its level.
 */
static const pr_action_t long_section[] = {A_LOCK(0), A_COMPUTE(6), A_UNLOCK(0), A_COMPUTE(2)};

static void rtprio_moves_a_holder_and_its_lends_stay(void)
{
    band(100);
    mutex("M", PR_PROTOCOL_PIP);
    pr_script_t l = SCRIPT(long_section), h = SCRIPT(one_section);
    pr_id_t lid = ts_script_task("L", 0, &l);
    script_task("H", 20, 1, &h);
    CHECK_EQ(pr_host_run_ticks(2), PR_HOST_REACHED);
    CHECK_EQ(pr_task_rtprio(lid, 12, NULL), PR_OK);
    CHECK_EQ(status_of(lid).base_priority, 12);
    CHECK_EQ(status_of(lid).effective_priority, 20);
    CHECK_EQ(pr_host_run_ticks(3), PR_HOST_REACHED);
    CHECK_EQ(pr_task_rtprio(lid, 25, NULL), PR_OK);
    CHECK_EQ(status_of(lid).effective_priority, 25);
    CHECK_EQ(pr_host_run_ticks(4), PR_HOST_REACHED);
    CHECK_EQ(pr_task_rtprio(lid, 15, NULL), PR_OK);
    CHECK_EQ(status_of(lid).effective_priority, 20);
    CHECK_EQ(status_of(lid).mutexes_held, 1);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_TS | EV(PR_EV_RTPRIO), "0 SWITCH L<-idle", "1 SWITCH H<-L", "1 PRIO L 5->20 inherit M",
                 "1 SWITCH L<-H", "2 RTPRIO L ok ts->12 nice=0", "3 RTPRIO L ok 12->25 nice=0",
                 "3 PRIO L 20->25 set -", "4 RTPRIO L ok 25->15 nice=0", "4 PRIO L 25->20 set -",
                 "6 PRIO L 20->15 release M", "6 SWITCH H<-L", "7 SWITCH L<-H", "9 SWITCH idle<-L");

    band(100);
    mutex_ceiling("M", PR_PROTOCOL_IPCP, 12);
    pr_script_t t = SCRIPT(long_section);
    pr_id_t tid = script_task("T", 9, 0, &t);
    CHECK_EQ(pr_host_run_ticks(2), PR_HOST_REACHED);
    CHECK_EQ(pr_task_rtprio(tid, PR_RTPRIO_RTOFF, NULL), PR_OK);
    CHECK_EQ(status_of(tid).base_priority, 5);
    CHECK_EQ(status_of(tid).effective_priority, 12);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_TS | EV(PR_EV_RTPRIO), "0 SWITCH T<-idle", "0 PRIO T 9->12 ceiling M",
                 "2 RTPRIO T ok 9->ts nice=0", "6 PRIO T 12->5 release M", "8 SWITCH idle<-T");
}

/*
 * A time-sharing holder under each protocol: L (time sharing) holds M for 4
 * ticks from 0; H (20) asks for M at 1; Md (9), ready at 1, computes 3.
 * Under none Md runs first (the inversion the band alone cannot stop);
 * pip and pcp lift L to 20 from H's block to its unlock; ipcp (ceiling 20)
 * and npcs (the top level) from the lock; rcs aborts L's section and H
 * takes M at once. In every case but none, H is done by 5 and Md runs
 * after it.
 */
#if PR_CONFIG_PRIORITIES == 32
#define TOP "31" /* PR_PRIO_MAX, npcs's ceiling, as the trace prints it */
#elif PR_CONFIG_PRIORITIES == 256
#define TOP "255"
#endif

static void every_protocol_bounds_a_time_sharing_holder(void)
{
    static const struct {
        pr_protocol_t protocol;
        const char *trace[12];
    } cases[] = {
        {PR_PROTOCOL_NONE, {"0 SWITCH L<-idle", "1 SWITCH H<-L", "1 SWITCH Md<-H", "4 SWITCH L<-Md", "7 SWITCH H<-L",
                            "8 SWITCH L<-H", "10 SWITCH idle<-L"}},
        {PR_PROTOCOL_PIP, {"0 SWITCH L<-idle", "1 SWITCH H<-L", "1 PRIO L 5->20 inherit M", "1 SWITCH L<-H",
                           "4 PRIO L 20->5 release M", "4 SWITCH H<-L", "5 SWITCH Md<-H", "8 SWITCH L<-Md",
                           "10 SWITCH idle<-L"}},
        {PR_PROTOCOL_PCP, {"0 SWITCH L<-idle", "1 SWITCH H<-L", "1 PRIO L 5->20 inherit M", "1 SWITCH L<-H",
                           "4 PRIO L 20->5 release M", "4 SWITCH H<-L", "5 SWITCH Md<-H", "8 SWITCH L<-Md",
                           "10 SWITCH idle<-L"}},
        {PR_PROTOCOL_IPCP, {"0 SWITCH L<-idle", "0 PRIO L 5->20 ceiling M", "4 PRIO L 20->5 release M",
                            "4 SWITCH H<-L", "5 SWITCH Md<-H", "8 SWITCH L<-Md", "10 SWITCH idle<-L"}},
        {PR_PROTOCOL_NPCS, {"0 SWITCH L<-idle", "0 PRIO L 5->" TOP " ceiling M", "4 PRIO L " TOP "->5 release M",
                            "4 SWITCH H<-L", "4 PRIO H 20->" TOP " ceiling M", "5 PRIO H " TOP "->20 release M",
                            "5 SWITCH Md<-H", "8 SWITCH L<-Md", "10 SWITCH idle<-L"}},
        {PR_PROTOCOL_RCS, {"0 SWITCH L<-idle", "1 SWITCH H<-L", "2 SWITCH Md<-H", "5 SWITCH L<-Md",
                           "11 SWITCH idle<-L"}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        band(100);
        pr_protocol_t p = cases[i].protocol;
        mutex_ceiling("M", p, p == PR_PROTOCOL_PCP || p == PR_PROTOCOL_IPCP ? 20 : 0);
        pr_script_t l = SCRIPT(l_body), h = SCRIPT(h_body), md = SCRIPT(m_body);
        ts_script_task("L", 0, &l);
        script_task("H", 20, 1, &h);
        script_task("Md", 9, 1, &md);
        CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
        size_t n = 0;
        while (n < 12 && cases[i].trace[n] != NULL)
            n++;
        expect_trace_at(__FILE__, __LINE__, EV_TS, cases[i].trace, n);
    }
}

/* The band's configuration and attributes, refused with nothing changed. */
static void band_arguments_are_checked(void)
{
    pr_kernel_config_t cfg = {.tick_hz = 1000, .timeshare_levels = PR_CONFIG_PRIORITIES};
    CHECK_EQ(pr_kernel_init(&cfg), PR_EINVAL);
    cfg.timeshare_levels = -1;
    CHECK_EQ(pr_kernel_init(&cfg), PR_EINVAL);
    harness_reset(0); /* no band: every task is real-time */
    pr_task_attr_t attr;
    pr_task_attr_init(&attr);
    attr.entry = compute;
    attr.sched_class = PR_CLASS_TIMESHARE;
    pr_id_t id = 99;
    CHECK_EQ(pr_task_create(&attr, &id), PR_EINVAL);
    CHECK_EQ(id, 99);
    band(100);
    CHECK_EQ(pr_task_create(&attr, &id), PR_OK);
    CHECK_EQ(pr_task_set_priority(id, 9), PR_ESTATE); /* time sharing: rtprio moves it */
    attr.sched_class = PR_CLASS_REALTIME;
    attr.priority = 7; /* in the time-sharing band */
    CHECK_EQ(pr_task_create(&attr, &id), PR_EINVAL);
    attr.sched_class = 2;
    attr.priority = 9;
    CHECK_EQ(pr_task_create(&attr, &id), PR_EINVAL);
    attr.sched_class = PR_CLASS_TIMESHARE;
    attr.nice = 20;
    CHECK_EQ(pr_task_create(&attr, &id), PR_EINVAL);
    attr.nice = 0;
    attr.priv_group = PR_CONFIG_PRIV_GROUPS + 1;
    CHECK_EQ(pr_task_create(&attr, &id), PR_EINVAL);
    CHECK_EQ(pr_task_rtprio(0, 7, NULL), PR_EINVAL);
    CHECK_EQ(pr_task_rtprio(0, PR_PRIO_MAX + 1, NULL), PR_EINVAL);
    CHECK_EQ(pr_task_rtprio(0, -3, NULL), PR_EINVAL);
    CHECK_EQ(pr_task_rtprio(PR_CONFIG_MAX_TASKS, 9, NULL), PR_EBADID);
    CHECK_EQ(pr_task_rtprio(5, 9, NULL), PR_ENOTALLOC);
    CHECK_EQ(pr_task_set_nice(0, -21, NULL), PR_EINVAL);
    CHECK_EQ(pr_task_set_nice(0, 20, NULL), PR_EINVAL);
    CHECK_EQ(status_of(0).base_priority, 5);
    CHECK_EQ(status_of(0).nice, 0);
}

HARNESS_MAIN(TEST_CASE(a_holder_leaving_the_band_keeps_its_lend), TEST_CASE(rtprio_moves_a_waiter_and_its_chain_follows),
             TEST_CASE(rtprio_moves_a_waiter_in_its_wait_queue), TEST_CASE(rtprio_moves_a_holder_and_its_lends_stay),
             TEST_CASE(every_protocol_bounds_a_time_sharing_holder),
             TEST_CASE(a_ceiling_lifts_a_time_sharing_holder_at_the_lock), TEST_CASE(nice_values_order_the_shares), TEST_CASE(rtprio_moves_a_waiter_and_its_lend_follows),
             TEST_CASE(band_arguments_are_checked), TEST_CASE(levels_at_creation_follow_nice), TEST_CASE(usage_sinks_a_task_and_decay_raises_it),
             TEST_CASE(realtime_preempts_time_sharing_at_once), TEST_CASE(inheritance_lifts_a_time_sharing_holder))
