/*
 * Exact disinheritance with several mutexes held: after releasing one, the
 * holder's effective priority is the maximum of its base and the most
 * urgent waiter of every mutex it still holds - not "back to base", and not
 * "unchanged until the last one". Both release orders: LIFO (the last
 * locked first) and non-LIFO.
 *
 * L (priority 1, released at 0) locks M1 then M2, computes 4, releases one,
 * computes 2, releases the other, computes 1. Two waiters, each on one of
 * the mutexes: W3 (priority 3) released at 1, W5 (priority 5) released at
 * 2 (the less urgent one first, so that both get to block). A waiter's body:
 * lock its mutex, compute 1, unlock.
 */
#include "harness.h"

enum { M1 = 0, M2 = 1 };

static const pr_action_t L_lifo[] = {A_LOCK(M1), A_LOCK(M2), A_COMPUTE(4), A_UNLOCK(M2),
                                     A_COMPUTE(2), A_UNLOCK(M1), A_COMPUTE(1)};
static const pr_action_t L_nonlifo[] = {A_LOCK(M1), A_LOCK(M2), A_COMPUTE(4), A_UNLOCK(M1),
                                        A_COMPUTE(2), A_UNLOCK(M2), A_COMPUTE(1)};
static const pr_action_t W_on_M1[] = {A_LOCK(M1), A_COMPUTE(1), A_UNLOCK(M1)};
static const pr_action_t W_on_M2[] = {A_LOCK(M2), A_COMPUTE(1), A_UNLOCK(M2)};

static pr_script_t sL, s3, s5;
static pr_id_t tL, t3, t5;

/* lifo: L's release order; w3_mutex: the mutex W3 waits on (W5 the other). */
static void setup(int lifo, int w3_mutex)
{
    harness_reset(0);
    sL = lifo ? SCRIPT(L_lifo) : SCRIPT(L_nonlifo);
    s3 = w3_mutex == M1 ? SCRIPT(W_on_M1) : SCRIPT(W_on_M2);
    s5 = w3_mutex == M1 ? SCRIPT(W_on_M2) : SCRIPT(W_on_M1);
    CHECK_EQ(mutex("M1", PR_PROTOCOL_PIP), M1);
    CHECK_EQ(mutex("M2", PR_PROTOCOL_PIP), M2);
    tL = script_task("L", 1, 0, &sL);
    t3 = script_task("W3", 3, 1, &s3);
    t5 = script_task("W5", 5, 2, &s5);
}

/*
 * LIFO, W3 on M1 and W5 on M2. 1: W3 blocks on M1: L 1->3. 2: W5 blocks on
 * M2: L 3->5. L computes 2..4 and unlocks M2 at 4: it drops to 3 (M1 still
 * lends W3's 3), not to its base 1. W5 gets M2 and runs 4..5; L (3) runs
 * 5..7 ahead of nobody else (W3 waits), unlocks M1 at 7: 3->1; W3 runs
 * 7..8; L ends 8..9.
 */
static void lifo_release_drops_to_remaining_waiter_then_base(void)
{
    setup(1, M1);
    pr_host_run_until(TICKS(4) + TICKS(1) / 2);
    CHECK_EQ(status_of(tL).effective_priority, 3);
    CHECK_EQ(status_of(tL).base_priority, 1);
    CHECK_EQ(status_of(tL).mutexes_held, 1);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SCHED,
                 "0 SWITCH L<-idle",
                 "1 SWITCH W3<-L",
                 "1 BLOCK W3 M1 ok",
                 "1 PRIO L 1->3 inherit M1",
                 "1 SWITCH L<-W3",
                 "2 SWITCH W5<-L",
                 "2 BLOCK W5 M2 ok",
                 "2 PRIO L 3->5 inherit M2",
                 "2 SWITCH L<-W5",
                 "4 PRIO L 5->3 release M2",
                 "4 WAKE W5 M2 ok",
                 "4 SWITCH W5<-L",
                 "5 SWITCH L<-W5",
                 "7 PRIO L 3->1 release M1",
                 "7 WAKE W3 M1 ok",
                 "7 SWITCH W3<-L",
                 "8 SWITCH L<-W3",
                 "9 SWITCH idle<-L");
    CHECK_EQ(status_of(tL).effective_priority, 1);
    CHECK_EQ(status_of(tL).mutexes_held, 0);
}

/* Non-LIFO, W3 on M2 and W5 on M1: L releases M1 (the first locked) first.
 * Same times as above with the mutexes swapped: 5->3 at 4, 3->1 at 7. */
static void nonlifo_release_drops_to_remaining_waiter_then_base(void)
{
    setup(0, M2);
    pr_host_run_until(TICKS(4) + TICKS(1) / 2);
    CHECK_EQ(status_of(tL).effective_priority, 3);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SCHED,
                 "0 SWITCH L<-idle",
                 "1 SWITCH W3<-L",
                 "1 BLOCK W3 M2 ok",
                 "1 PRIO L 1->3 inherit M2",
                 "1 SWITCH L<-W3",
                 "2 SWITCH W5<-L",
                 "2 BLOCK W5 M1 ok",
                 "2 PRIO L 3->5 inherit M1",
                 "2 SWITCH L<-W5",
                 "4 PRIO L 5->3 release M1",
                 "4 WAKE W5 M1 ok",
                 "4 SWITCH W5<-L",
                 "5 SWITCH L<-W5",
                 "7 PRIO L 3->1 release M2",
                 "7 WAKE W3 M2 ok",
                 "7 SWITCH W3<-L",
                 "8 SWITCH L<-W3",
                 "9 SWITCH idle<-L");
}

/*
 * LIFO, W3 on M2 and W5 on M1: the first release (M2, at 4) frees the less
 * urgent waiter: L keeps 5 (M1 lends it) - no PRIO record - and W3, handed
 * M2, does not preempt it. L computes 4..6, unlocks M1 at 6: 5->1; W5 runs
 * 6..7, W3 7..8, L 8..9.
 */
static void lifo_release_of_lesser_waiter_keeps_priority(void)
{
    setup(1, M2);
    pr_host_run_until(TICKS(4) + TICKS(1) / 2);
    CHECK_EQ(status_of(tL).effective_priority, 5);
    CHECK_EQ(status_of(t3).state, PR_TASK_READY);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SCHED,
                 "0 SWITCH L<-idle",
                 "1 SWITCH W3<-L",
                 "1 BLOCK W3 M2 ok",
                 "1 PRIO L 1->3 inherit M2",
                 "1 SWITCH L<-W3",
                 "2 SWITCH W5<-L",
                 "2 BLOCK W5 M1 ok",
                 "2 PRIO L 3->5 inherit M1",
                 "2 SWITCH L<-W5",
                 "4 WAKE W3 M2 ok",
                 "6 PRIO L 5->1 release M1",
                 "6 WAKE W5 M1 ok",
                 "6 SWITCH W5<-L",
                 "7 SWITCH W3<-W5",
                 "8 SWITCH L<-W3",
                 "9 SWITCH idle<-L");
}

/* Non-LIFO, W3 on M1 and W5 on M2: the mirror image of the test above. */
static void nonlifo_release_of_lesser_waiter_keeps_priority(void)
{
    setup(0, M1);
    pr_host_run_until(TICKS(4) + TICKS(1) / 2);
    CHECK_EQ(status_of(tL).effective_priority, 5);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SCHED,
                 "0 SWITCH L<-idle",
                 "1 SWITCH W3<-L",
                 "1 BLOCK W3 M1 ok",
                 "1 PRIO L 1->3 inherit M1",
                 "1 SWITCH L<-W3",
                 "2 SWITCH W5<-L",
                 "2 BLOCK W5 M2 ok",
                 "2 PRIO L 3->5 inherit M2",
                 "2 SWITCH L<-W5",
                 "4 WAKE W3 M1 ok",
                 "6 PRIO L 5->1 release M2",
                 "6 WAKE W5 M2 ok",
                 "6 SWITCH W5<-L",
                 "7 SWITCH W3<-W5",
                 "8 SWITCH L<-W3",
                 "9 SWITCH idle<-L");
}

/*
 * Two mutexes lending the same level: Wa and Wb (both 4) are released at 1.
 * Wa runs first, blocks on M1: L 1->4 (L, not running, goes to the tail of
 * level 4, behind Wb). Wb runs and blocks on M2: M2 lends 4 as well - no
 * change. L computes 1..4, unlocks M2 at 4: still 4 (M1 lends it); Wb, handed
 * M2, is only as urgent as L and waits. L computes 4..6, unlocks M1 at 6:
 * 4->1; Wb (ready since 4) runs 6..7, then Wa 7..8, then L 8..9.
 */
static void two_mutexes_lending_same_level(void)
{
    harness_reset(0);
    sL = SCRIPT(L_lifo);
    s3 = SCRIPT(W_on_M1);
    s5 = SCRIPT(W_on_M2);
    CHECK_EQ(mutex("M1", PR_PROTOCOL_PIP), M1);
    CHECK_EQ(mutex("M2", PR_PROTOCOL_PIP), M2);
    tL = script_task("L", 1, 0, &sL);
    script_task("Wa", 4, 1, &s3);
    script_task("Wb", 4, 1, &s5);
    pr_host_run_until(TICKS(4) + TICKS(1) / 2);
    CHECK_EQ(status_of(tL).effective_priority, 4);
    CHECK_EQ(status_of(tL).mutexes_held, 1);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SCHED,
                 "0 SWITCH L<-idle",
                 "1 SWITCH Wa<-L",
                 "1 BLOCK Wa M1 ok",
                 "1 PRIO L 1->4 inherit M1",
                 "1 SWITCH Wb<-Wa",
                 "1 BLOCK Wb M2 ok",
                 "1 SWITCH L<-Wb",
                 "4 WAKE Wb M2 ok",
                 "6 PRIO L 4->1 release M1",
                 "6 WAKE Wa M1 ok",
                 "6 SWITCH Wb<-L",
                 "7 SWITCH Wa<-Wb",
                 "8 SWITCH L<-Wa",
                 "9 SWITCH idle<-L");
}

HARNESS_MAIN(TEST_CASE(lifo_release_drops_to_remaining_waiter_then_base),
             TEST_CASE(nonlifo_release_drops_to_remaining_waiter_then_base),
             TEST_CASE(lifo_release_of_lesser_waiter_keeps_priority),
             TEST_CASE(nonlifo_release_of_lesser_waiter_keeps_priority),
             TEST_CASE(two_mutexes_lending_same_level))
