/*
 * The textbook deadlock: two tasks lock two mutexes in opposite orders.
 *   T2 (1), released at 0: LOCK B, COMPUTE 2, LOCK A, COMPUTE 1, UNLOCK A, UNLOCK B
 *   T1 (2), released at 1: LOCK A, COMPUTE 2, LOCK B, COMPUTE 1, UNLOCK B, UNLOCK A
 * Under none and pip the waits close a cycle; the kernel refuses the wait
 * that would close it (PR_EDEADLK) and never hangs. Under pcp and ipcp the
 * cycle cannot form (ceilings A = B = 2): both tasks finish with no error.
 * Nor under npcs (T1 cannot preempt T2's section) or rcs (T1, the more
 * urgent, takes B over instead of waiting).
 */
#include "harness.h"

enum { A = 0, B = 1 };

static const pr_action_t T1_body[] = {A_LOCK(A), A_COMPUTE(2), A_LOCK(B), A_COMPUTE(1), A_UNLOCK(B), A_UNLOCK(A)};
static const pr_action_t T2_body[] = {A_LOCK(B), A_COMPUTE(2), A_LOCK(A), A_COMPUTE(1), A_UNLOCK(A), A_UNLOCK(B)};

static pr_script_t s1, s2;
static pr_id_t t1, t2;

#define EV_DL (EV_SCHED | EV(PR_EV_SEM_DOWN) | EV(PR_EV_CEILING) | EV(PR_EV_TASK_EXIT))

static void run(pr_protocol_t protocol, pr_prio_t ceiling)
{
    harness_reset(0);
    s1 = SCRIPT(T1_body);
    s2 = SCRIPT(T2_body);
    CHECK_EQ(mutex_ceiling("A", protocol, ceiling), A);
    CHECK_EQ(mutex_ceiling("B", protocol, ceiling), B);
    t2 = script_task("T2", 1, 0, &s2);
    t1 = script_task("T1", 2, 1, &s1);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT); /* never hangs */
    CHECK_EQ(status_of(t1).state, PR_TASK_DONE);
    CHECK_EQ(status_of(t2).state, PR_TASK_DONE);
    CHECK_EQ(sem_status_of(A).holder, PR_NO_TASK);
    CHECK_EQ(sem_status_of(B).holder, PR_NO_TASK);
}

/*
 * pip: T2 holds B; T1 preempts at 1 and takes A; at 3 T1 blocks on B (T2
 * inherits 2); at 4 T2 asks for A, held by T1, which waits for B, held by
 * T2: PR_EDEADLK, and T2's script skips that section and unlocks B, so T1
 * goes on.
 */
static void pip_reports_the_cycle(void)
{
    run(PR_PROTOCOL_PIP, 0);
    EXPECT_TRACE(EV_DL,
                 "0 SWITCH T2<-idle",
                 "0 DOWN T2 B ok value=0",
                 "1 SWITCH T1<-T2",
                 "1 DOWN T1 A ok value=0",
                 "3 BLOCK T1 B ok",
                 "3 PRIO T2 1->2 inherit B",
                 "3 SWITCH T2<-T1",
                 "4 DOWN T2 A PR_EDEADLK value=0",
                 "4 PRIO T2 2->1 release B",
                 "4 WAKE T1 B ok",
                 "4 TASK_EXIT T2",
                 "4 SWITCH T1<-T2",
                 "4 DOWN T1 B ok value=0",
                 "5 TASK_EXIT T1",
                 "5 SWITCH idle<-T1");
    CHECK_EQ(s2.errors, 1);
    CHECK_EQ(s2.last_error, PR_EDEADLK);
    CHECK_EQ(s1.errors, 0);
}

static void none_reports_the_cycle(void)
{
    run(PR_PROTOCOL_NONE, 0);
    CHECK_EQ(s2.last_error, PR_EDEADLK);
    CHECK_EQ(s1.errors, 0);
}

/*
 * pcp: at 1 T1 asks for the free A, but T2 holds B with ceiling 2, not
 * below T1's 2: T1 is blocked by the system ceiling and T2 inherits 2. T2
 * is the system ceiling's holder, so it takes A at 2 and finishes both
 * sections; T1 then runs them. No cycle, no error.
 */
static void pcp_prevents_the_cycle(void)
{
    run(PR_PROTOCOL_PCP, 2);
    EXPECT_TRACE(EV_DL,
                 "0 SWITCH T2<-idle",
                 "0 DOWN T2 B ok value=0",
                 "1 SWITCH T1<-T2",
                 "1 BLOCK T1 A ok",
                 "1 CEILING T1 A ceiling=2 holder=T2",
                 "1 PRIO T2 1->2 inherit B",
                 "1 SWITCH T2<-T1",
                 "2 DOWN T2 A ok value=0",
                 "3 PRIO T2 2->1 release B",
                 "3 WAKE T1 A PR_EAGAIN",
                 "3 TASK_EXIT T2",
                 "3 SWITCH T1<-T2",
                 "3 DOWN T1 A ok value=0",
                 "5 DOWN T1 B ok value=0",
                 "6 TASK_EXIT T1",
                 "6 SWITCH idle<-T1");
    CHECK_EQ(s1.errors + s2.errors, 0);
}

/*
 * ipcp: T2 runs its whole section at the ceiling 2 from 0, so T1 (2) does
 * not preempt it; T1 runs once T2 has unlocked both. Nobody ever blocks.
 */
static void ipcp_prevents_the_cycle(void)
{
    run(PR_PROTOCOL_IPCP, 2);
    EXPECT_TRACE(EV_DL,
                 "0 SWITCH T2<-idle",
                 "0 PRIO T2 1->2 ceiling B",
                 "0 DOWN T2 B ok value=0",
                 "2 DOWN T2 A ok value=0",
                 "3 PRIO T2 2->1 release B",
                 "3 TASK_EXIT T2",
                 "3 SWITCH T1<-T2",
                 "3 DOWN T1 A ok value=0",
                 "5 DOWN T1 B ok value=0",
                 "6 TASK_EXIT T1",
                 "6 SWITCH idle<-T1");
    CHECK_EQ(s1.errors + s2.errors, 0);
    CHECK_EQ(trace_count(PR_EV_BLOCK, PR_TRACE_NONE), 0);
}

/* npcs: T2's section runs at PR_PRIO_MAX from 0; T1 waits for the CPU. */
static void npcs_prevents_the_cycle(void)
{
    run(PR_PROTOCOL_NPCS, 0);
    CHECK_EQ(s1.errors + s2.errors, 0);
    CHECK_EQ(trace_count(PR_EV_BLOCK, PR_TRACE_NONE), 0);
    CHECK_EQ(trace_tick_of(PR_EV_TASK_EXIT, t1, 0), 6);
}

/*
 * rcs: at 3 T1 asks for B, held by the less urgent T2: it takes B over
 * (T2's section is aborted) and finishes at 4. T2 runs again, takes A (its
 * compute stops at once: its abort is pending), learns of the abort at its
 * UNLOCK B and restarts B's section from its LOCK: no wait, no cycle.
 */
static void rcs_prevents_the_cycle(void)
{
    run(PR_PROTOCOL_RCS, 0);
    EXPECT_TRACE(EV(PR_EV_ABORT) | EV(PR_EV_SEM_DOWN) | EV(PR_EV_SEM_UP) | EV(PR_EV_TASK_EXIT),
                 "0 DOWN T2 B ok value=0",
                 "1 DOWN T1 A ok value=0",
                 "3 ABORT T2 B by=T1",
                 "3 DOWN T1 B ok value=0",
                 "4 UP T1 B ok value=1",
                 "4 UP T1 A ok value=1",
                 "4 TASK_EXIT T1",
                 "4 DOWN T2 A ok value=0",
                 "4 UP T2 A ok value=1",
                 "4 UP T2 B PR_EABORTED value=1",
                 "4 DOWN T2 B ok value=0",
                 "6 DOWN T2 A ok value=0",
                 "7 UP T2 A ok value=1",
                 "7 UP T2 B ok value=1",
                 "7 TASK_EXIT T2");
    CHECK_EQ(s1.errors + s2.errors, 0);
    CHECK_EQ(s2.aborts, 1);
    CHECK_EQ(trace_count(PR_EV_BLOCK, PR_TRACE_NONE), 0);
}

HARNESS_MAIN(TEST_CASE(pip_reports_the_cycle), TEST_CASE(none_reports_the_cycle), TEST_CASE(pcp_prevents_the_cycle),
             TEST_CASE(ipcp_prevents_the_cycle), TEST_CASE(npcs_prevents_the_cycle), TEST_CASE(rcs_prevents_the_cycle))
