/*
 * Chained blocking: an urgent task that needs two resources, each held by a
 * different less urgent task, is blocked once per resource under pip, and
 * at most once under pcp ([Tokuda-Nakajima 1993], section 2.2: PCP "prevents
 * deadlock, and chained blocking").
 *   L1 (1), released at 0: LOCK S1, COMPUTE 3, UNLOCK S1
 *   L2 (2), released at 1: LOCK S2, COMPUTE 3, UNLOCK S2
 *   H  (3), released at 2: LOCK S1, COMPUTE 1, UNLOCK S1, LOCK S2, COMPUTE 1, UNLOCK S2
 * Ceilings (pcp): S1 = S2 = 3.
 */
#include "harness.h"

enum { S1 = 0, S2 = 1 };

static const pr_action_t L1_body[] = {A_LOCK(S1), A_COMPUTE(3), A_UNLOCK(S1)};
static const pr_action_t L2_body[] = {A_LOCK(S2), A_COMPUTE(3), A_UNLOCK(S2)};
static const pr_action_t H_body[] = {A_LOCK(S1), A_COMPUTE(1), A_UNLOCK(S1), A_LOCK(S2), A_COMPUTE(1), A_UNLOCK(S2)};

static pr_script_t s1, s2, sh;
static pr_id_t l1, l2, h;

#define EV_CHAINED (EV_SCHED | EV(PR_EV_CEILING) | EV(PR_EV_TASK_EXIT))

static void run(pr_protocol_t protocol, pr_prio_t ceiling)
{
    harness_reset(0);
    s1 = SCRIPT(L1_body);
    s2 = SCRIPT(L2_body);
    sh = SCRIPT(H_body);
    CHECK_EQ(mutex_ceiling("S1", protocol, ceiling), S1);
    CHECK_EQ(mutex_ceiling("S2", protocol, ceiling), S2);
    l1 = script_task("L1", 1, 0, &s1);
    l2 = script_task("L2", 2, 1, &s2);
    h = script_task("H", 3, 2, &sh);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
}

/*
 * pip: L2 takes S2 at 1 (nothing stops it), so when H arrives both
 * resources are held: H blocks on S1 (2..4, behind L1's section) and then
 * on S2 (5..7, behind L2's): two blockings, H ends at 8.
 */
static void pip_blocks_once_per_resource(void)
{
    run(PR_PROTOCOL_PIP, 0);
    EXPECT_TRACE(EV_CHAINED,
                 "0 SWITCH L1<-idle",
                 "1 SWITCH L2<-L1",
                 "2 SWITCH H<-L2",
                 "2 BLOCK H S1 ok",
                 "2 PRIO L1 1->3 inherit S1",
                 "2 SWITCH L1<-H",
                 "4 PRIO L1 3->1 release S1",
                 "4 WAKE H S1 ok",
                 "4 TASK_EXIT L1",
                 "4 SWITCH H<-L1",
                 "5 BLOCK H S2 ok",
                 "5 PRIO L2 2->3 inherit S2",
                 "5 SWITCH L2<-H",
                 "7 PRIO L2 3->2 release S2",
                 "7 WAKE H S2 ok",
                 "7 TASK_EXIT L2",
                 "7 SWITCH H<-L2",
                 "8 TASK_EXIT H",
                 "8 SWITCH idle<-H");
    CHECK_EQ(trace_count(PR_EV_BLOCK, h), 2);
}

/*
 * pcp: L2 cannot take S2 at 1: L1 holds S1, ceiling 3, not below L2's 2.
 * L2 is blocked by the ceiling (L1 inherits 2). H, at 2, is blocked too
 * (L1 inherits 3), once: when L1 unlocks S1 at 3, H is woken first and
 * finds both resources free. L2 is woken when H unlocks S1 at 4, but H,
 * more urgent, goes on and takes S2 before L2 runs. H ends at 5.
 */
static void pcp_blocks_at_most_once(void)
{
    run(PR_PROTOCOL_PCP, 3);
    EXPECT_TRACE(EV_CHAINED,
                 "0 SWITCH L1<-idle",
                 "1 SWITCH L2<-L1",
                 "1 BLOCK L2 S2 ok",
                 "1 CEILING L2 S2 ceiling=3 holder=L1",
                 "1 PRIO L1 1->2 inherit S1",
                 "1 SWITCH L1<-L2",
                 "2 SWITCH H<-L1",
                 "2 BLOCK H S1 ok",
                 "2 CEILING H S1 ceiling=3 holder=L1",
                 "2 PRIO L1 2->3 inherit S1",
                 "2 SWITCH L1<-H",
                 "3 PRIO L1 3->1 release S1",
                 "3 WAKE H S1 PR_EAGAIN",
                 "3 TASK_EXIT L1",
                 "3 SWITCH H<-L1",
                 "4 WAKE L2 S2 PR_EAGAIN",
                 "5 TASK_EXIT H",
                 "5 SWITCH L2<-H",
                 "8 TASK_EXIT L2",
                 "8 SWITCH idle<-L2");
    CHECK_EQ(trace_count(PR_EV_BLOCK, h), 1);
    CHECK_EQ(trace_count(PR_EV_BLOCK, l2), 1);
    CHECK_EQ(sh.errors + s1.errors + s2.errors, 0);
}

HARNESS_MAIN(TEST_CASE(pip_blocks_once_per_resource), TEST_CASE(pcp_blocks_at_most_once))
