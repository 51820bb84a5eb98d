/*
 * One scenario under all six locking protocols, with the exact schedule of
 * each: who runs when, who is raised to what, who blocks on what, who is
 * aborted (docs/protocols.md draws the same six schedules).
 *
 * Two mutexes, S (used by L and H) and T (used by H only); under pcp and
 * ipcp both have ceiling 3, H's priority.
 *   L (1), released at 0: LOCK S, COMPUTE 4, UNLOCK S, COMPUTE 1
 *   H (3), released at 1: LOCK T, COMPUTE 1, UNLOCK T, LOCK S, COMPUTE 1, UNLOCK S
 *   M (2), released at 2: COMPUTE 2 (no lock)
 *   U (4), released at 3: COMPUTE 1 (no lock: the most urgent task)
 *
 * H finishes at: none 9, pip 7, pcp 7, ipcp 7, npcs 7, rcs 3.
 * U finishes at 4 everywhere but under npcs (5): nothing preempts L's
 * section there. L finishes at 10 everywhere but under rcs (11): its
 * section was aborted and run again.
 */
#include "harness.h"

enum { S = 0, T = 1 };

static const pr_action_t L_body[] = {A_LOCK(S), A_COMPUTE(4), A_UNLOCK(S), A_COMPUTE(1)};
static const pr_action_t H_body[] = {A_LOCK(T), A_COMPUTE(1), A_UNLOCK(T), A_LOCK(S), A_COMPUTE(1), A_UNLOCK(S)};
static const pr_action_t M_body[] = {A_COMPUTE(2)};
static const pr_action_t U_body[] = {A_COMPUTE(1)};

static pr_script_t sl, sh, sm, su;
static pr_id_t tl, th, tm, tu;

#define EV_FAMILY (EV_SCHED | EV(PR_EV_ABORT) | EV(PR_EV_CEILING) | EV(PR_EV_TASK_EXIT))

static void run(pr_protocol_t protocol)
{
    harness_reset(0);
    sl = SCRIPT(L_body);
    sh = SCRIPT(H_body);
    sm = SCRIPT(M_body);
    su = SCRIPT(U_body);
    pr_prio_t ceiling = (protocol == PR_PROTOCOL_PCP || protocol == PR_PROTOCOL_IPCP) ? 3 : 0;
    CHECK_EQ(mutex_ceiling("S", protocol, ceiling), S);
    CHECK_EQ(mutex_ceiling("T", protocol, ceiling), T);
    tl = script_task("L", 1, 0, &sl);
    th = script_task("H", 3, 1, &sh);
    tm = script_task("M", 2, 2, &sm);
    tu = script_task("U", 4, 3, &su);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
}

static void expect_ends(long l, long h, long m, long u)
{
    CHECK_EQ(trace_tick_of(PR_EV_TASK_EXIT, tl, 0), l);
    CHECK_EQ(trace_tick_of(PR_EV_TASK_EXIT, th, 0), h);
    CHECK_EQ(trace_tick_of(PR_EV_TASK_EXIT, tm, 0), m);
    CHECK_EQ(trace_tick_of(PR_EV_TASK_EXIT, tu, 0), u);
    CHECK_EQ(sl.errors + sh.errors + sm.errors + su.errors, 0);
}

/*
 * none: H blocks on S at 2 and waits while M and U, which need no lock, run
 * ahead of L: the unbounded inversion. H waits 2..8.
 */
static void none_lets_medium_task_delay_the_urgent_one(void)
{
    run(PR_PROTOCOL_NONE);
    EXPECT_TRACE(EV_FAMILY,
                 "0 SWITCH L<-idle",
                 "1 SWITCH H<-L",
                 "2 BLOCK H S ok",
                 "2 SWITCH L<-H",
                 "2 SWITCH M<-L",
                 "3 SWITCH U<-M",
                 "4 TASK_EXIT U",
                 "4 SWITCH M<-U",
                 "5 TASK_EXIT M",
                 "5 SWITCH L<-M",
                 "8 WAKE H S ok",
                 "8 SWITCH H<-L",
                 "9 TASK_EXIT H",
                 "9 SWITCH L<-H",
                 "10 TASK_EXIT L",
                 "10 SWITCH idle<-L");
    expect_ends(10, 9, 5, 4);
}

/*
 * pip: H gets the free T at 1 and blocks on S at 2; L inherits 3, so M
 * waits; only U, more urgent than H, preempts L. H waits 2..6.
 */
static void pip_raises_holder_when_urgent_task_blocks(void)
{
    run(PR_PROTOCOL_PIP);
    EXPECT_TRACE(EV_FAMILY,
                 "0 SWITCH L<-idle",
                 "1 SWITCH H<-L",
                 "2 BLOCK H S ok",
                 "2 PRIO L 1->3 inherit S",
                 "2 SWITCH L<-H",
                 "3 SWITCH U<-L",
                 "4 TASK_EXIT U",
                 "4 SWITCH L<-U",
                 "6 PRIO L 3->1 release S",
                 "6 WAKE H S ok",
                 "6 SWITCH H<-L",
                 "7 TASK_EXIT H",
                 "7 SWITCH M<-H",
                 "9 TASK_EXIT M",
                 "9 SWITCH L<-M",
                 "10 TASK_EXIT L",
                 "10 SWITCH idle<-L");
    expect_ends(10, 7, 9, 4);
}

/*
 * pcp: at 1 H asks for T, which is free, but L holds S, whose ceiling (3)
 * is not below H's priority: H is blocked by the system ceiling at once
 * (CEILING), and L inherits 3. When L unlocks S at 5, H is woken to try
 * again (WAKE ... PR_EAGAIN), gets T, then S: it is blocked once, 1..5,
 * and never on S.
 */
static void pcp_blocks_urgent_task_at_ceiling_on_a_free_mutex(void)
{
    run(PR_PROTOCOL_PCP);
    EXPECT_TRACE(EV_FAMILY,
                 "0 SWITCH L<-idle",
                 "1 SWITCH H<-L",
                 "1 BLOCK H T ok",
                 "1 CEILING H T ceiling=3 holder=L",
                 "1 PRIO L 1->3 inherit S",
                 "1 SWITCH L<-H",
                 "3 SWITCH U<-L",
                 "4 TASK_EXIT U",
                 "4 SWITCH L<-U",
                 "5 PRIO L 3->1 release S",
                 "5 WAKE H T PR_EAGAIN",
                 "5 SWITCH H<-L",
                 "7 TASK_EXIT H",
                 "7 SWITCH M<-H",
                 "9 TASK_EXIT M",
                 "9 SWITCH L<-M",
                 "10 TASK_EXIT L",
                 "10 SWITCH idle<-L");
    expect_ends(10, 7, 9, 4);
    CHECK_EQ(trace_count(PR_EV_BLOCK, th), 1);
    EXPECT_TRACE(EV(PR_EV_SEM_DOWN),
                 "0 DOWN L S ok value=0",
                 "5 DOWN H T ok value=0",
                 "6 DOWN H S ok value=0");
}

/*
 * ipcp: L runs at the ceiling 3 from its lock on, so H, released at 1,
 * never gets the CPU while L is inside; no task ever blocks. Only U, above
 * the ceiling, preempts L.
 */
static void ipcp_raises_locker_to_ceiling_at_once(void)
{
    run(PR_PROTOCOL_IPCP);
    EXPECT_TRACE(EV_FAMILY,
                 "0 SWITCH L<-idle",
                 "0 PRIO L 1->3 ceiling S",
                 "3 SWITCH U<-L",
                 "4 TASK_EXIT U",
                 "4 SWITCH L<-U",
                 "5 PRIO L 3->1 release S",
                 "5 SWITCH H<-L",
                 "7 TASK_EXIT H",
                 "7 SWITCH M<-H",
                 "9 TASK_EXIT M",
                 "9 SWITCH L<-M",
                 "10 TASK_EXIT L",
                 "10 SWITCH idle<-L");
    expect_ends(10, 7, 9, 4);
    CHECK_EQ(trace_count(PR_EV_BLOCK, PR_TRACE_NONE), 0);
}

/*
 * npcs: L runs its whole section at PR_PRIO_MAX: not even U preempts it.
 * U waits 3..4, and runs at 4, when L unlocks; H's sections run at 31 too.
 */
static void npcs_lets_nobody_preempt_the_section(void)
{
    run(PR_PROTOCOL_NPCS);
    EXPECT_TRACE(EV_FAMILY,
                 "0 SWITCH L<-idle",
                 "0 PRIO L 1->31 ceiling S",
                 "4 PRIO L 31->1 release S",
                 "4 SWITCH U<-L",
                 "5 TASK_EXIT U",
                 "5 SWITCH H<-U",
                 "5 PRIO H 3->31 ceiling T",
                 "6 PRIO H 31->3 release T",
                 "6 PRIO H 3->31 ceiling S",
                 "7 PRIO H 31->3 release S",
                 "7 TASK_EXIT H",
                 "7 SWITCH M<-H",
                 "9 TASK_EXIT M",
                 "9 SWITCH L<-M",
                 "10 TASK_EXIT L",
                 "10 SWITCH idle<-L");
    expect_ends(10, 7, 9, 5);
}

/*
 * rcs: at 2 H asks for S, held by the less urgent L: L's section is
 * aborted (ABORT) and H takes S at once; H never waits and ends at 3. L
 * runs again at 6: its compute returns at once, its UNLOCK reports
 * PR_EABORTED, and the section restarts from its LOCK (6..10): the one tick
 * it had done inside (0..1) is lost.
 */
static void rcs_aborts_less_urgent_holder(void)
{
    run(PR_PROTOCOL_RCS);
    EXPECT_TRACE(EV_FAMILY,
                 "0 SWITCH L<-idle",
                 "1 SWITCH H<-L",
                 "2 ABORT L S by=H",
                 "3 TASK_EXIT H",
                 "3 SWITCH M<-H",
                 "3 SWITCH U<-M",
                 "4 TASK_EXIT U",
                 "4 SWITCH M<-U",
                 "6 TASK_EXIT M",
                 "6 SWITCH L<-M",
                 "11 TASK_EXIT L",
                 "11 SWITCH idle<-L");
    EXPECT_TRACE(EV(PR_EV_SEM_DOWN) | EV(PR_EV_SEM_UP),
                 "0 DOWN L S ok value=0",
                 "1 DOWN H T ok value=0",
                 "2 UP H T ok value=1",
                 "2 DOWN H S ok value=0",
                 "3 UP H S ok value=1",
                 "6 UP L S PR_EABORTED value=1",
                 "6 DOWN L S ok value=0",
                 "10 UP L S ok value=1");
    expect_ends(11, 3, 6, 4);
    CHECK_EQ(sl.aborts, 1);
    CHECK_EQ(sl.lost, TICKS(1));
    CHECK_EQ(sh.aborts, 0);
    CHECK_EQ(status_of(tl).aborts, 1);
    CHECK_EQ(status_of(tl).aborts_pending, 0);
    pr_sem_stats_t st;
    CHECK_EQ(pr_sem_stats(S, &st), PR_OK);
    CHECK_EQ(st.aborts, 1);
    CHECK_EQ(st.downs, 3); /* L, H, L again */
    CHECK_EQ(st.ups, 2);   /* H's and L's second; L's first up was the report of the abort */
}

/* Each mutex tells its policy's name. */
static void each_protocol_has_its_name(void)
{
    static const char *const names[] = {"none", "pip", "pcp", "ipcp", "npcs", "rcs"};
    harness_reset(0);
    for (int p = 0; p < PR_PROTOCOL_COUNT; p++) {
        pr_prio_t ceiling = (p == PR_PROTOCOL_PCP || p == PR_PROTOCOL_IPCP) ? 3 : 0;
        pr_id_t m = mutex_ceiling(names[p], (pr_protocol_t)p, ceiling);
        const char *name = NULL;
        CHECK_EQ(pr_sem_control(m, PR_SEM_CTL_PROTOCOL_NAME, &name), PR_OK);
        CHECK(name != NULL && strcmp(name, names[p]) == 0);
        pr_sem_attr_t back;
        CHECK_EQ(pr_sem_attr_get(m, &back), PR_OK);
        CHECK_EQ(back.protocol, p);
        CHECK_EQ(back.ceiling, ceiling);
    }
}

HARNESS_MAIN(TEST_CASE(none_lets_medium_task_delay_the_urgent_one),
             TEST_CASE(pip_raises_holder_when_urgent_task_blocks),
             TEST_CASE(pcp_blocks_urgent_task_at_ceiling_on_a_free_mutex),
             TEST_CASE(ipcp_raises_locker_to_ceiling_at_once),
             TEST_CASE(npcs_lets_nobody_preempt_the_section),
             TEST_CASE(rcs_aborts_less_urgent_holder),
             TEST_CASE(each_protocol_has_its_name))
