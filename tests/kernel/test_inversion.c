/*
 * The classic priority inversion ([Pessolani], section 6;
 * [Tokuda-Nakajima 1993], section 1).
 *
 * L (priority 1, released at 0): lock S, compute 4, unlock S, compute 1
 * H (priority 3, released at 1): compute 1, lock S, compute 1, unlock S, compute 1
 * M (priority 2, released at 2): compute m (5, or 8 to show the growth)
 *
 * Without inheritance H's blocking is L's remaining critical section plus
 * all of M's work; with basic inheritance it is L's remaining critical
 * section only, whatever M does.
 */
#include "harness.h"

enum { S = 0 };

static const pr_action_t L_body[] = {A_LOCK(S), A_COMPUTE(4), A_UNLOCK(S), A_COMPUTE(1)};
static const pr_action_t H_body[] = {A_COMPUTE(1), A_LOCK(S), A_COMPUTE(1), A_UNLOCK(S), A_COMPUTE(1)};
static const pr_action_t M5_body[] = {A_COMPUTE(5)};
static const pr_action_t M8_body[] = {A_COMPUTE(8)};

static pr_script_t L, H, M;
static pr_id_t tL, tH, tM;

static void setup(pr_protocol_t protocol, int m_work)
{
    harness_reset(0);
    L = SCRIPT(L_body);
    H = SCRIPT(H_body);
    M = m_work == 5 ? SCRIPT(M5_body) : SCRIPT(M8_body);
    CHECK_EQ(mutex("S", protocol), S);
    tL = script_task("L", 1, 0, &L);
    tH = script_task("H", 3, 1, &H);
    tM = script_task("M", 2, 2, &M);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
}

/* H's blocking: from its BLOCK on S to its WAKE. */
static long h_blocking(void) { return trace_tick_of(PR_EV_WAKE, tH, 0) - trace_tick_of(PR_EV_BLOCK, tH, 0); }

/* H's response time: from its release to the end of its job. */
static long h_response(void)
{
    return trace_tick_of(PR_EV_JOB_DONE, tH, 0) - trace_tick_of(PR_EV_RELEASE, tH, 0);
}

/*
 * Protocol none. L locks S at 0 and computes; H is released at 1 and
 * preempts L; H computes 1..2 and blocks on S at 2 (L keeps priority 1).
 * L is switched in at 2, but the tick-2 interrupt releases M (priority 2),
 * which preempts L at once and computes 2..7. L resumes at 7 with 3 ticks of
 * its critical section left: 7..10. At 10 L's up hands S to H, which
 * preempts L: H computes 10..11, unlocks at 11, computes 11..12 and ends.
 * L computes its last tick 12..13. H is blocked from 2 to 10 (8 ticks) and
 * its response time is 12 - 1 = 11.
 */
static void without_inheritance_medium_task_prolongs_blocking(void)
{
    setup(PR_PROTOCOL_NONE, 5);
    EXPECT_TRACE(EV_ALL,
                 "0 SEM_ALLOC - S ok",
                 "0 TASK_CREATE L",
                 "0 RELEASE L job=1",
                 "0 TASK_CREATE H",
                 "0 TASK_CREATE M",
                 "0 SWITCH L<-idle",
                 "0 DOWN L S ok value=0",
                 "1 RELEASE H job=1",
                 "1 SWITCH H<-L",
                 "2 BLOCK H S ok",
                 "2 SWITCH L<-H",
                 "2 RELEASE M job=1",
                 "2 SWITCH M<-L",
                 "7 JOB_DONE M job=1",
                 "7 TASK_EXIT M",
                 "7 SWITCH L<-M",
                 "10 WAKE H S ok",
                 "10 UP L S ok value=0",
                 "10 SWITCH H<-L",
                 "10 DOWN H S ok value=0",
                 "11 UP H S ok value=1",
                 "12 JOB_DONE H job=1",
                 "12 TASK_EXIT H",
                 "12 SWITCH L<-H",
                 "13 JOB_DONE L job=1",
                 "13 TASK_EXIT L",
                 "13 SWITCH idle<-L");
    CHECK_EQ(h_blocking(), 8);
    CHECK_EQ(h_response(), 11);
    CHECK_EQ(trace_count(PR_EV_PRIO, PR_TRACE_NONE), 0); /* no priority ever changes */
    CHECK_EQ(status_of(tL).effective_priority, 1);
}

/*
 * Same, with M computing 8 instead of 5: M runs 2..10, L finishes its
 * critical section 10..13, H gets S at 13: H's blocking grows by exactly
 * the 3 extra ticks of M (8 -> 11), its response time too (11 -> 14).
 */
static void without_inheritance_blocking_grows_with_medium_work(void)
{
    setup(PR_PROTOCOL_NONE, 5);
    long blocking5 = h_blocking(), response5 = h_response();
    setup(PR_PROTOCOL_NONE, 8);
    EXPECT_TRACE(EV_SCHED,
                 "0 SWITCH L<-idle",
                 "1 SWITCH H<-L",
                 "2 BLOCK H S ok",
                 "2 SWITCH L<-H",
                 "2 SWITCH M<-L",
                 "10 SWITCH L<-M",
                 "13 WAKE H S ok",
                 "13 SWITCH H<-L",
                 "15 SWITCH L<-H",
                 "16 SWITCH idle<-L");
    CHECK_EQ(h_blocking(), 11);
    CHECK_EQ(h_blocking() - blocking5, 3);
    CHECK_EQ(h_response() - response5, 3);
}

/*
 * Protocol pip. H blocks on S at 2 and L inherits 3 at that instant
 * (PRIO L 1->3 inherit). M, released at 2 with priority 2, does not preempt
 * the boosted L, which finishes its critical section 2..5. At 5 L's up
 * withdraws the boost (PRIO L 3->1 release) before S is handed to H, which
 * preempts L: H computes 5..6, unlocks at 6, computes 6..7 and ends. Then
 * M (2) runs 7..12 and L its last tick 12..13. H's blocking is 3 ticks (what
 * was left of L's 4-tick critical section), its response time 7 - 1 = 6.
 */
static void with_inheritance_blocking_bounded_by_critical_section(void)
{
    setup(PR_PROTOCOL_PIP, 5);
    EXPECT_TRACE(EV_ALL,
                 "0 SEM_ALLOC - S ok",
                 "0 TASK_CREATE L",
                 "0 RELEASE L job=1",
                 "0 TASK_CREATE H",
                 "0 TASK_CREATE M",
                 "0 SWITCH L<-idle",
                 "0 DOWN L S ok value=0",
                 "1 RELEASE H job=1",
                 "1 SWITCH H<-L",
                 "2 BLOCK H S ok",
                 "2 PRIO L 1->3 inherit S",
                 "2 SWITCH L<-H",
                 "2 RELEASE M job=1",
                 "5 PRIO L 3->1 release S",
                 "5 WAKE H S ok",
                 "5 UP L S ok value=0",
                 "5 SWITCH H<-L",
                 "5 DOWN H S ok value=0",
                 "6 UP H S ok value=1",
                 "7 JOB_DONE H job=1",
                 "7 TASK_EXIT H",
                 "7 SWITCH M<-H",
                 "12 JOB_DONE M job=1",
                 "12 TASK_EXIT M",
                 "12 SWITCH L<-M",
                 "13 JOB_DONE L job=1",
                 "13 TASK_EXIT L",
                 "13 SWITCH idle<-L");
    CHECK_EQ(h_blocking(), 3);
    CHECK(h_blocking() <= 4); /* L's whole critical section */
    CHECK_EQ(h_response(), 6);
}

/*
 * Same with M computing 8: up to H's end nothing changes (M cannot run while
 * L is boosted); H's blocking stays 3 and its response 6. M runs 7..15 and
 * L ends at 16.
 */
static void with_inheritance_blocking_independent_of_medium_work(void)
{
    setup(PR_PROTOCOL_PIP, 8);
    EXPECT_TRACE(EV_SCHED,
                 "0 SWITCH L<-idle",
                 "1 SWITCH H<-L",
                 "2 BLOCK H S ok",
                 "2 PRIO L 1->3 inherit S",
                 "2 SWITCH L<-H",
                 "5 PRIO L 3->1 release S",
                 "5 WAKE H S ok",
                 "5 SWITCH H<-L",
                 "7 SWITCH M<-H",
                 "15 SWITCH L<-M",
                 "16 SWITCH idle<-L");
    CHECK_EQ(h_blocking(), 3);
    CHECK_EQ(h_response(), 6);
    CHECK_EQ(status_of(tL).effective_priority, 1);
    CHECK_EQ(status_of(tL).base_priority, 1);
}

HARNESS_MAIN(TEST_CASE(without_inheritance_medium_task_prolongs_blocking),
             TEST_CASE(without_inheritance_blocking_grows_with_medium_work),
             TEST_CASE(with_inheritance_blocking_bounded_by_critical_section),
             TEST_CASE(with_inheritance_blocking_independent_of_medium_work))
