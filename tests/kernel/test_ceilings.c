/*
 * The ceiling protocols in detail: ipcp's exact restore with nested
 * mutexes, in both release orders; pcp's system ceiling (its own holder is
 * not blocked by it, a waiter blocked by it is counted where it asked, its
 * priority travels to the holder, its timeout lowers the holder again).
 */
#include "harness.h"

enum { A = 0, B = 1, T = 2 };

#define EV_CEIL (EV_SCHED | EV(PR_EV_CEILING) | EV(PR_EV_PRIO_SET))

/* ---- ipcp: nested sections, exact restore ---- */

/* L (1) locks A (ceiling 3) then B (ceiling 5); unlocks in the order given. */
static const pr_action_t Lifo_body[] = {A_LOCK(A), A_COMPUTE(1), A_LOCK(B), A_COMPUTE(1), A_UNLOCK(B), A_COMPUTE(1), A_UNLOCK(A), A_COMPUTE(1)};
static const pr_action_t Cross_body[] = {A_LOCK(A), A_COMPUTE(1), A_LOCK(B), A_COMPUTE(1), A_UNLOCK(A), A_COMPUTE(1), A_UNLOCK(B), A_COMPUTE(1)};

static void ipcp_nested_restore(const pr_action_t *body, size_t n)
{
    harness_reset(0);
    pr_script_t s = {body, (uint32_t)n, 0, 0, PR_OK, 0, 0, 0, 0, 0, 0};
    CHECK_EQ(mutex_ceiling("A", PR_PROTOCOL_IPCP, 3), A);
    CHECK_EQ(mutex_ceiling("B", PR_PROTOCOL_IPCP, 5), B);
    script_task("L", 1, 0, &s);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
}

/* LIFO: 1 -> 3 (A) -> 5 (B) -> 3 (B released: A still lends 3) -> 1. */
static void ipcp_lifo_release_restores_each_level(void)
{
    ipcp_nested_restore(Lifo_body, sizeof Lifo_body / sizeof *Lifo_body);
    EXPECT_TRACE(EV(PR_EV_PRIO),
                 "0 PRIO L 1->3 ceiling A",
                 "1 PRIO L 3->5 ceiling B",
                 "2 PRIO L 5->3 release B",
                 "3 PRIO L 3->1 release A");
}

/* Not LIFO: A released first while B (ceiling 5) is held: no change (B
 * still lends 5), then B: straight back to 1. */
static void ipcp_crossing_release_keeps_higher_ceiling(void)
{
    ipcp_nested_restore(Cross_body, sizeof Cross_body / sizeof *Cross_body);
    EXPECT_TRACE(EV(PR_EV_PRIO),
                 "0 PRIO L 1->3 ceiling A",
                 "1 PRIO L 3->5 ceiling B",
                 "3 PRIO L 5->1 release B");
}

/*
 * A waiter on an ipcp mutex exists only if the holder suspends itself in
 * its section: L (1) locks A (ceiling 3) and delays 2; W (2), released at
 * 1, asks for A and blocks; A lends L max(3, 2) = 3: no change. At 2 L runs
 * (3 > 2), unlocks A at 3, and W gets A at its ceiling.
 */
static const pr_action_t Sleepy_body[] = {A_LOCK(A), A_DELAY(2), A_COMPUTE(1), A_UNLOCK(A)};
static const pr_action_t W_body[] = {A_LOCK(A), A_COMPUTE(1), A_UNLOCK(A)};

static void ipcp_waiter_of_a_suspended_holder(void)
{
    harness_reset(0);
    pr_script_t sl = SCRIPT(Sleepy_body), sw = SCRIPT(W_body);
    CHECK_EQ(mutex_ceiling("A", PR_PROTOCOL_IPCP, 3), A);
    script_task("L", 1, 0, &sl);
    script_task("W", 2, 1, &sw);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SCHED,
                 "0 SWITCH L<-idle",
                 "0 PRIO L 1->3 ceiling A",
                 "0 SWITCH idle<-L",
                 "1 SWITCH W<-idle",
                 "1 BLOCK W A ok",
                 "1 SWITCH idle<-W",
                 "2 SWITCH L<-idle",
                 "3 PRIO L 3->1 release A",
                 "3 WAKE W A ok",
                 "3 PRIO W 2->3 ceiling A",
                 "3 SWITCH W<-L",
                 "4 PRIO W 3->2 release A",
                 "4 SWITCH idle<-W");
}

/* ---- pcp: the system ceiling ---- */

/* Z (1) holds A (ceiling 5) and computes; its own ceiling does not block
 * it: it locks T (ceiling 2) inside, at 1. */
static const pr_action_t Z_body[] = {A_LOCK(A), A_COMPUTE(1), A_LOCK(T), A_COMPUTE(1), A_UNLOCK(T), A_COMPUTE(3), A_UNLOCK(A)};

static void pcp_holder_of_the_ceiling_is_not_blocked_by_it(void)
{
    harness_reset(0);
    pr_script_t sz = SCRIPT(Z_body);
    CHECK_EQ(mutex_ceiling("A", PR_PROTOCOL_PCP, 5), A);
    CHECK_EQ(mutex_ceiling("B", PR_PROTOCOL_PCP, 5), B);
    CHECK_EQ(mutex_ceiling("T", PR_PROTOCOL_PCP, 2), T);
    script_task("Z", 1, 0, &sz);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    CHECK_EQ(sz.errors + sz.timeouts, 0);
    CHECK_EQ(trace_count(PR_EV_BLOCK, PR_TRACE_NONE), 0);
}

/*
 * Y (2) asks for T (free, ceiling 2) at 1 while Z holds A (ceiling 5): it
 * waits for the system ceiling, and is counted where it asked: T shows no
 * waiter and its value 1 (it is free), Y's status says it is blocked on T,
 * T cannot be freed, and its statistics count the down but no up. Ctl (6)
 * raises Y to 4 at 2: Y's priority travels to Z through the ceiling (Z
 * 2->4, through A). At 5 Z unlocks A: Y tries again and gets T.
 */
static const pr_action_t Zlong_body[] = {A_LOCK(A), A_COMPUTE(5), A_UNLOCK(A), A_COMPUTE(1)};
static const pr_action_t Y_body[] = {A_LOCK(T), A_COMPUTE(1), A_UNLOCK(T)};
static pr_id_t ty;

static void set_y_4(void *arg)
{
    (void)arg;
    CHECK_EQ(pr_task_set_priority(ty, 4), PR_OK);
}

static void pcp_waiter_counts_where_it_asked_and_lends_to_the_holder(void)
{
    harness_reset(0);
    pr_script_t sz = SCRIPT(Zlong_body), sy = SCRIPT(Y_body);
    CHECK_EQ(mutex_ceiling("A", PR_PROTOCOL_PCP, 5), A);
    CHECK_EQ(mutex_ceiling("B", PR_PROTOCOL_PCP, 5), B);
    CHECK_EQ(mutex_ceiling("T", PR_PROTOCOL_PCP, 4), T);
    pr_id_t z = script_task("Z", 1, 0, &sz);
    ty = script_task("Y", 2, 1, &sy);
    task_at("Ctl", 6, 2, set_y_4, NULL);
    pr_host_run_until(TICKS(1) + TICKS(1) / 2);
    CHECK_EQ(status_of(ty).state, PR_TASK_BLOCKED);
    CHECK_EQ(status_of(ty).blocked_on, T);
    CHECK_EQ(status_of(z).effective_priority, 2);
    CHECK_EQ(sem_status_of(T).waiters, 0);
    CHECK_EQ(sem_status_of(T).value, 1);
    CHECK_EQ(sem_status_of(T).holder, PR_NO_TASK);
    pr_sem_stats_t st;
    CHECK_EQ(pr_sem_stats(T, &st), PR_OK);
    CHECK_EQ(st.downs, 1);
    CHECK_EQ(st.ups, 0);
    CHECK_EQ(pr_sem_free(T), PR_EBUSY);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_CEIL,
                 "0 SWITCH Z<-idle",
                 "1 SWITCH Y<-Z",
                 "1 BLOCK Y T ok",
                 "1 CEILING Y T ceiling=5 holder=Z",
                 "1 PRIO Z 1->2 inherit A",
                 "1 SWITCH Z<-Y",
                 "2 SWITCH Ctl<-Z",
                 "2 PRIO_SET Y 2->4 ok",
                 "2 PRIO Y 2->4 set -",
                 "2 PRIO Z 2->4 inherit A",
                 "2 SWITCH Z<-Ctl",
                 "5 PRIO Z 4->1 release A",
                 "5 WAKE Y T PR_EAGAIN",
                 "5 SWITCH Y<-Z",
                 "6 SWITCH Z<-Y",
                 "7 SWITCH idle<-Z");
    CHECK_EQ(pr_sem_stats(T, &st), PR_OK);
    CHECK_EQ(st.downs, 1);
    CHECK_EQ(st.ups, 1);
    CHECK_EQ(pr_sem_free(T), PR_OK);
}

/*
 * A waiter blocked by the ceiling times out: Y asks for T with timeout 2 at
 * 1; at 3 it gives up (PR_ETIMEDOUT) and Z drops back to its base, in that
 * tick.
 */
static const pr_action_t Yto_body[] = {A_LOCK_TO(T, 2), A_COMPUTE(1), A_UNLOCK(T)};

static void pcp_waiter_timeout_lowers_the_holder(void)
{
    harness_reset(0);
    pr_script_t sz = SCRIPT(Zlong_body), sy = SCRIPT(Yto_body);
    CHECK_EQ(mutex_ceiling("A", PR_PROTOCOL_PCP, 5), A);
    CHECK_EQ(mutex_ceiling("B", PR_PROTOCOL_PCP, 5), B);
    CHECK_EQ(mutex_ceiling("T", PR_PROTOCOL_PCP, 4), T);
    script_task("Z", 1, 0, &sz);
    ty = script_task("Y", 2, 1, &sy);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_CEIL | EV(PR_EV_SEM_DOWN),
                 "0 SWITCH Z<-idle",
                 "0 DOWN Z A ok value=0",
                 "1 SWITCH Y<-Z",
                 "1 BLOCK Y T ok",
                 "1 CEILING Y T ceiling=5 holder=Z",
                 "1 PRIO Z 1->2 inherit A",
                 "1 SWITCH Z<-Y",
                 "3 TIMEOUT Y T PR_ETIMEDOUT",
                 "3 PRIO Z 2->1 timeout A",
                 "3 WAKE Y T PR_ETIMEDOUT",
                 "3 SWITCH Y<-Z",
                 "3 DOWN Y T PR_ETIMEDOUT value=1",
                 "3 SWITCH Z<-Y",
                 "6 SWITCH idle<-Z");
    CHECK_EQ(sy.timeouts, 1);
    pr_sem_stats_t st;
    CHECK_EQ(pr_sem_stats(T, &st), PR_OK);
    CHECK_EQ(st.downs, 1);
    CHECK_EQ(st.ups, 0);
    CHECK_EQ(pr_sem_free(T), PR_OK);
}

/* L (1, at 0) locks A (ceiling 1) for 3; M (2, at 1) locks S (ceiling 3)
 * for 2; H1 and H2 (3, at 2) each lock S for 1. At 2 both H wait on the
 * system ceiling (S, held by M), and M inherits 3. When M unlocks S at 3,
 * the ceiling is A's (1): it blocks neither H. H1 is woken to try again;
 * H2, still on the ceiling's wait list, must lend L nothing (a regression:
 * it lent L 3, which then ran above its ceiling and blocked H1 and H2 a
 * second time). H1 locks S at 3 and runs [3,4); H2, woken when H1's unlock
 * settles the ceiling, runs [4,5); M ends its job at 5 (its unlock was at 3)
 * and L runs its last 2 ticks [5,7). */
static const pr_action_t gate_l_body[] = {A_LOCK(0), A_COMPUTE(3), A_UNLOCK(0)};
static const pr_action_t gate_m_body[] = {A_LOCK(1), A_COMPUTE(2), A_UNLOCK(1)};
static const pr_action_t gate_h_body[] = {A_LOCK(1), A_COMPUTE(1), A_UNLOCK(1)};
static pr_script_t gate_l, gate_m, gate_h1, gate_h2;

static void pcp_waiters_the_ceiling_no_longer_blocks_lend_nothing(void)
{
    harness_reset(0);
    gate_l = SCRIPT(gate_l_body);
    gate_m = SCRIPT(gate_m_body);
    gate_h1 = SCRIPT(gate_h_body);
    gate_h2 = SCRIPT(gate_h_body);
    CHECK_EQ(mutex_ceiling("A", PR_PROTOCOL_PCP, 1), 0);
    CHECK_EQ(mutex_ceiling("S", PR_PROTOCOL_PCP, 3), 1);
    pr_id_t l = script_task("L", 1, 0, &gate_l);
    script_task("M", 2, 1, &gate_m);
    pr_id_t h1 = script_task("H1", 3, 2, &gate_h1);
    pr_id_t h2 = script_task("H2", 3, 2, &gate_h2);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    CHECK_EQ(trace_count(PR_EV_PRIO, l), 0);
    CHECK_EQ(trace_tick_of(PR_EV_TASK_EXIT, h1, 0), 4);
    CHECK_EQ(trace_tick_of(PR_EV_TASK_EXIT, h2, 0), 5);
    CHECK_EQ(trace_tick_of(PR_EV_TASK_EXIT, l, 0), 7);
    EXPECT_TRACE(EV(PR_EV_WAKE) | EV(PR_EV_PRIO), "2 PRIO M 2->3 inherit S", "3 PRIO M 3->2 release S",
                 "3 WAKE H1 S PR_EAGAIN", "4 WAKE H2 S PR_EAGAIN");
}

HARNESS_MAIN(TEST_CASE(ipcp_lifo_release_restores_each_level), TEST_CASE(ipcp_crossing_release_keeps_higher_ceiling),
             TEST_CASE(ipcp_waiter_of_a_suspended_holder), TEST_CASE(pcp_holder_of_the_ceiling_is_not_blocked_by_it),
             TEST_CASE(pcp_waiter_counts_where_it_asked_and_lends_to_the_holder),
             TEST_CASE(pcp_waiter_timeout_lowers_the_holder),
             TEST_CASE(pcp_waiters_the_ceiling_no_longer_blocks_lend_nothing))
