/*
 * Transitive priority inheritance: the boost walks a chain of holders to its
 * end, and unwinds exactly, one step per release. A waiter whose priority
 * changes while it waits moves in its wait list, and the walk continues
 * from there.
 */
#include "harness.h"

enum { A = 0, B = 1, C = 2 };

#define EV_CHAIN (EV_SCHED | EV(PR_EV_PRIO_SET))

/* ---- a chain of depth 3: T1 holds A; T2 holds B, waits A; T3 holds C, waits B; T4 waits C ---- */

static const pr_action_t T1_body[] = {A_LOCK(A), A_COMPUTE(4), A_UNLOCK(A), A_COMPUTE(1)};
static const pr_action_t T2_body[] = {A_LOCK(B), A_LOCK(A), A_COMPUTE(1), A_UNLOCK(A), A_COMPUTE(1), A_UNLOCK(B)};
static const pr_action_t T3_body[] = {A_LOCK(C), A_LOCK(B), A_COMPUTE(1), A_UNLOCK(B), A_COMPUTE(1), A_UNLOCK(C)};
static const pr_action_t T4_body[] = {A_LOCK(C), A_COMPUTE(1), A_UNLOCK(C)};

static pr_script_t s1, s2, s3, s4;
static pr_id_t t1, t2, t3, t4;

static void chain_setup(void)
{
    harness_reset(0);
    s1 = SCRIPT(T1_body);
    s2 = SCRIPT(T2_body);
    s3 = SCRIPT(T3_body);
    s4 = SCRIPT(T4_body);
    CHECK_EQ(mutex("A", PR_PROTOCOL_PIP), A);
    CHECK_EQ(mutex("B", PR_PROTOCOL_PIP), B);
    CHECK_EQ(mutex("C", PR_PROTOCOL_PIP), C);
    t1 = script_task("T1", 1, 0, &s1);
    t2 = script_task("T2", 2, 1, &s2);
    t3 = script_task("T3", 3, 2, &s3);
    t4 = script_task("T4", 4, 3, &s4);
}

static void expect_effective(int p1, int p2, int p3, int p4)
{
    CHECK_EQ(status_of(t1).effective_priority, p1);
    CHECK_EQ(status_of(t2).effective_priority, p2);
    CHECK_EQ(status_of(t3).effective_priority, p3);
    CHECK_EQ(status_of(t4).effective_priority, p4);
}

/*
 * 0: T1 locks A and computes (4 ticks of work).
 * 1: T2 preempts, locks B, blocks on A: T1 1->2.
 * 2: T3 preempts, locks C, blocks on B: T2 2->3, and through A T1 2->3.
 * 3: T4 preempts, blocks on C: T3 3->4, T2 3->4, T1 3->4 - the end of the
 *    chain. T1 has done 3 ticks; it computes its last one 3..4.
 * 4: T1 unlocks A: T1 4->1 (A was its only mutex); T2 gets A and keeps 4
 *    through B; it preempts T1. T2 computes 4..5, unlocks A at 5 (A lends
 *    nothing: no change), computes 5..6.
 * 6: T2 unlocks B: T2 4->2; T3 gets B, keeps 4 through C, preempts. T3
 *    computes 6..7, unlocks B at 7 (no change), computes 7..8.
 * 8: T3 unlocks C: T3 4->3; T4 gets C and runs 8..9, ends at 9. T3 and T2
 *    ended when their last action, the unlock, did (at 8 and 6: a job ends
 *    when its work does); T1 computes its last tick 9..10.
 */
static void boost_reaches_end_of_chain_and_unwinds_step_by_step(void)
{
    chain_setup();
    pr_host_run_until(TICKS(3) + TICKS(1) / 2);
    expect_effective(4, 4, 4, 4);
    CHECK_EQ(status_of(t2).blocked_on, A);
    CHECK_EQ(status_of(t3).blocked_on, B);
    CHECK_EQ(status_of(t4).blocked_on, C);
    CHECK_EQ(status_of(t1).mutexes_held, 1);
    CHECK_EQ(status_of(t2).mutexes_held, 1);
    CHECK_EQ(status_of(t3).mutexes_held, 1);
    CHECK_EQ(status_of(t4).mutexes_held, 0);

    pr_host_run_until(TICKS(4) + TICKS(1) / 2); /* A released */
    expect_effective(1, 4, 4, 4);
    pr_host_run_until(TICKS(6) + TICKS(1) / 2); /* B released */
    expect_effective(1, 2, 4, 4);
    pr_host_run_until(TICKS(8) + TICKS(1) / 2); /* C released */
    expect_effective(1, 2, 3, 4);

    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SCHED,
                 "0 SWITCH T1<-idle",
                 "1 SWITCH T2<-T1",
                 "1 BLOCK T2 A ok",
                 "1 PRIO T1 1->2 inherit A",
                 "1 SWITCH T1<-T2",
                 "2 SWITCH T3<-T1",
                 "2 BLOCK T3 B ok",
                 "2 PRIO T2 2->3 inherit B",
                 "2 PRIO T1 2->3 inherit A",
                 "2 SWITCH T1<-T3",
                 "3 SWITCH T4<-T1",
                 "3 BLOCK T4 C ok",
                 "3 PRIO T3 3->4 inherit C",
                 "3 PRIO T2 3->4 inherit B",
                 "3 PRIO T1 3->4 inherit A",
                 "3 SWITCH T1<-T4",
                 "4 PRIO T1 4->1 release A",
                 "4 WAKE T2 A ok",
                 "4 SWITCH T2<-T1",
                 "6 PRIO T2 4->2 release B",
                 "6 WAKE T3 B ok",
                 "6 SWITCH T3<-T2",
                 "8 PRIO T3 4->3 release C",
                 "8 WAKE T4 C ok",
                 "8 SWITCH T4<-T3",
                 "9 SWITCH T1<-T4",
                 "10 SWITCH idle<-T1");
    CHECK_EQ(trace_count(PR_EV_PRIO, PR_TRACE_NONE), 9);
    CHECK_EQ(trace_tick_of(PR_EV_TASK_EXIT, t4, 0), 9);
    CHECK_EQ(trace_tick_of(PR_EV_TASK_EXIT, t1, 0), 10);
}

/* The same chain with protocol none: nobody's priority ever moves, and T1
 * runs its critical section at priority 1 (here nobody else competes, so the
 * order of the releases is the same, but no PRIO record appears). */
static void no_boost_along_chain_without_inheritance(void)
{
    harness_reset(0);
    s1 = SCRIPT(T1_body);
    s2 = SCRIPT(T2_body);
    s3 = SCRIPT(T3_body);
    s4 = SCRIPT(T4_body);
    CHECK_EQ(mutex("A", PR_PROTOCOL_NONE), A);
    CHECK_EQ(mutex("B", PR_PROTOCOL_NONE), B);
    CHECK_EQ(mutex("C", PR_PROTOCOL_NONE), C);
    t1 = script_task("T1", 1, 0, &s1);
    t2 = script_task("T2", 2, 1, &s2);
    t3 = script_task("T3", 3, 2, &s3);
    t4 = script_task("T4", 4, 3, &s4);
    pr_host_run_until(TICKS(3) + TICKS(1) / 2);
    expect_effective(1, 2, 3, 4);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    CHECK_EQ(trace_count(PR_EV_PRIO, PR_TRACE_NONE), 0);
    CHECK_EQ(trace_tick_of(PR_EV_WAKE, t2, 0), 4);
}

/* ---- a waiter's priority changes while it waits ---- */

/*
 * T1 (1) holds A; T2 (2) holds B and waits on A; W1 (3) and W2 (4) wait on
 * B. A controller (10) released at 4 changes one waiter's base priority.
 */
static const pr_action_t P1_body[] = {A_LOCK(A), A_COMPUTE(6), A_UNLOCK(A), A_COMPUTE(1)};
static const pr_action_t P2_body[] = {A_LOCK(B), A_LOCK(A), A_COMPUTE(1), A_UNLOCK(A), A_COMPUTE(1), A_UNLOCK(B)};
static const pr_action_t W_body[] = {A_LOCK(B), A_COMPUTE(1), A_UNLOCK(B)};

static pr_script_t p1, p2, w1, w2;
static pr_id_t tw1, tw2;
static pr_id_t ctl_target;
static pr_prio_t ctl_prio;

static void ctl_body(void *arg)
{
    (void)arg;
    CHECK_EQ(pr_task_set_priority(ctl_target, ctl_prio), PR_OK);
}

static void waiter_setup(void)
{
    harness_reset(0);
    p1 = SCRIPT(P1_body);
    p2 = SCRIPT(P2_body);
    w1 = SCRIPT(W_body);
    w2 = SCRIPT(W_body);
    CHECK_EQ(mutex("A", PR_PROTOCOL_PIP), A);
    CHECK_EQ(mutex("B", PR_PROTOCOL_PIP), B);
    t1 = script_task("T1", 1, 0, &p1);
    t2 = script_task("T2", 2, 1, &p2);
    tw1 = script_task("W1", 3, 2, &w1);
    tw2 = script_task("W2", 4, 3, &w2);
    task_at("Ctl", 10, 4, ctl_body, NULL);
}

/*
 * 1: T2 blocks on A: T1 1->2. 2: W1 blocks on B: T2 2->3, T1 2->3.
 * 3: W2 blocks on B, ahead of W1: T2 3->4, T1 3->4.
 *    T1 has done 4 of its 6 ticks by 4 (0..1, 1..2, 2..3, 3..4).
 * 4: Ctl raises W1 to 6. W1 moves to the head of B's wait list; B now lends
 *    6: T2 4->6, and through A, T1 4->6. Ctl ends; T1 computes its last 2
 *    ticks 4..6.
 * 6: T1 unlocks A: 6->1; T2 gets A (keeps 6 through B), computes 6..7,
 *    unlocks A, computes 7..8.
 * 8: T2 unlocks B: 6->2; B goes to W1 - not W2, which arrived later but was
 *    more urgent before the change. W1 (6, lent 4 by W2: no change) runs
 *    8..9 and hands B to W2 at 9; W2 runs 9..10; T2 ended at 8, with its
 *    unlock; T1 computes its last tick 10..11.
 */
static void raised_waiter_moves_ahead_and_chain_follows(void)
{
    waiter_setup();
    ctl_target = tw1;
    ctl_prio = 6;
    pr_host_run_until(TICKS(4) + TICKS(1) / 2);
    CHECK_EQ(status_of(tw1).base_priority, 6);
    CHECK_EQ(status_of(tw1).effective_priority, 6);
    CHECK_EQ(status_of(t2).effective_priority, 6);
    CHECK_EQ(status_of(t1).effective_priority, 6);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_CHAIN,
                 "0 SWITCH T1<-idle",
                 "1 SWITCH T2<-T1",
                 "1 BLOCK T2 A ok",
                 "1 PRIO T1 1->2 inherit A",
                 "1 SWITCH T1<-T2",
                 "2 SWITCH W1<-T1",
                 "2 BLOCK W1 B ok",
                 "2 PRIO T2 2->3 inherit B",
                 "2 PRIO T1 2->3 inherit A",
                 "2 SWITCH T1<-W1",
                 "3 SWITCH W2<-T1",
                 "3 BLOCK W2 B ok",
                 "3 PRIO T2 3->4 inherit B",
                 "3 PRIO T1 3->4 inherit A",
                 "3 SWITCH T1<-W2",
                 "4 SWITCH Ctl<-T1",
                 "4 PRIO_SET W1 3->6 ok",
                 "4 PRIO W1 3->6 set -",
                 "4 PRIO T2 4->6 inherit B",
                 "4 PRIO T1 4->6 inherit A",
                 "4 SWITCH T1<-Ctl",
                 "6 PRIO T1 6->1 release A",
                 "6 WAKE T2 A ok",
                 "6 SWITCH T2<-T1",
                 "8 PRIO T2 6->2 release B",
                 "8 WAKE W1 B ok",
                 "8 SWITCH W1<-T2",
                 "9 WAKE W2 B ok",
                 "9 SWITCH W2<-W1",
                 "10 SWITCH T1<-W2",
                 "11 SWITCH idle<-T1");
}

/*
 * The other direction: at 4 Ctl lowers W2, B's most urgent waiter, from 4
 * to 1. W2 moves behind W1 in B's wait list; B now lends W1's 3: T2 4->3 and
 * through A T1 4->3 (the chain walk continues from W2's wait list).
 * T1 computes 4..6 (2 ticks left, as above).
 * 6: T1 unlocks A: 3->1, T2 runs 6..8 and unlocks B at 8: 3->2; B goes to W1
 * (3; W2 still waits with 1, which lends W1 nothing above its base). W1 runs
 * 8..9 and hands B to W2. W1 and T2 end at 9. T1 (preempted while running,
 * at the head of level 1) computes 9..10 and ends before W2 (queued at the
 * tail of level 1 at 9), which runs 10..11.
 */
static void lowered_waiter_moves_back_and_chain_follows(void)
{
    waiter_setup();
    ctl_target = tw2;
    ctl_prio = 1;
    pr_host_run_until(TICKS(4) + TICKS(1) / 2);
    CHECK_EQ(status_of(tw2).effective_priority, 1);
    CHECK_EQ(status_of(t2).effective_priority, 3);
    CHECK_EQ(status_of(t1).effective_priority, 3);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_CHAIN,
                 "0 SWITCH T1<-idle",
                 "1 SWITCH T2<-T1",
                 "1 BLOCK T2 A ok",
                 "1 PRIO T1 1->2 inherit A",
                 "1 SWITCH T1<-T2",
                 "2 SWITCH W1<-T1",
                 "2 BLOCK W1 B ok",
                 "2 PRIO T2 2->3 inherit B",
                 "2 PRIO T1 2->3 inherit A",
                 "2 SWITCH T1<-W1",
                 "3 SWITCH W2<-T1",
                 "3 BLOCK W2 B ok",
                 "3 PRIO T2 3->4 inherit B",
                 "3 PRIO T1 3->4 inherit A",
                 "3 SWITCH T1<-W2",
                 "4 SWITCH Ctl<-T1",
                 "4 PRIO_SET W2 4->1 ok",
                 "4 PRIO W2 4->1 set -",
                 "4 PRIO T2 4->3 inherit B",
                 "4 PRIO T1 4->3 inherit A",
                 "4 SWITCH T1<-Ctl",
                 "6 PRIO T1 3->1 release A",
                 "6 WAKE T2 A ok",
                 "6 SWITCH T2<-T1",
                 "8 PRIO T2 3->2 release B",
                 "8 WAKE W1 B ok",
                 "8 SWITCH W1<-T2",
                 "9 WAKE W2 B ok",
                 "9 SWITCH T1<-W1",
                 "10 SWITCH W2<-T1",
                 "11 SWITCH idle<-W2");
}

HARNESS_MAIN(TEST_CASE(boost_reaches_end_of_chain_and_unwinds_step_by_step),
             TEST_CASE(no_boost_along_chain_without_inheritance),
             TEST_CASE(raised_waiter_moves_ahead_and_chain_follows),
             TEST_CASE(lowered_waiter_moves_back_and_chain_follows))
