/*
 * Calls made at the very instant of a tick. On the host port a call
 * made when a compute ends exactly at tick k runs before tick k's interrupt
 * (so a job completing at its deadline instant meets it), but the instant
 * belongs to tick k: a wait of n ticks made there ends at tick k + n, exactly
 * n ticks later, never n - 1. With costs charged for switches and ticks
 * (pr_host_set_costs), the compute ends a little after the instant, and the
 * tick comes first, as on hardware.
 */
#include "harness.h"

/* D (priority 2, at 0): compute 2 (ends at the instant of tick 2), delay 1,
 * compute 1, delay 3. The first delay ends at 3, the second at 4 + 3 = 7. */
static void delay_after_compute_lasts_exactly_n_ticks(void)
{
    harness_reset(0);
    static const pr_action_t body[] = {A_COMPUTE(2), A_DELAY(1), A_COMPUTE(1), A_DELAY(3)};
    static pr_script_t sc;
    sc = SCRIPT(body);
    script_task("D", 2, 0, &sc);
    CHECK_EQ(pr_host_run_ticks(20), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV(PR_EV_DELAY) | EV(PR_EV_DELAY_END) | EV(PR_EV_JOB_DONE), "2 DELAY D 1", "3 DELAY_END D",
                 "4 DELAY D 3", "7 DELAY_END D", "7 JOB_DONE D job=1");
}

/* L (1, at 0): lock S, compute 10, unlock S. H (3, at 1): compute 1, lock S
 * timeout 3: H asks at the instant of tick 2 and times out at 2 + 3 = 5,
 * blocked exactly 3 ticks; then compute 1 and it is done at 6. L ran
 * [0,1) and, boosted, [2,5): 6 ticks are left from 6, so L ends at 12. */
static void timeout_after_compute_lasts_exactly_n_ticks(void)
{
    harness_reset(0);
    pr_id_t s = mutex("S", PR_PROTOCOL_PIP);
    static const pr_action_t lbody[] = {A_LOCK(0), A_COMPUTE(10), A_UNLOCK(0)};
    static const pr_action_t hbody[] = {A_COMPUTE(1), A_LOCK_TO(0, 3), A_UNLOCK(0), A_COMPUTE(1)};
    static pr_script_t l, h;
    l = SCRIPT(lbody);
    h = SCRIPT(hbody);
    CHECK_EQ(s, 0);
    script_task("L", 1, 0, &l);
    script_task("H", 3, 1, &h);
    CHECK_EQ(pr_host_run_ticks(30), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV(PR_EV_BLOCK) | EV(PR_EV_TIMEOUT) | EV(PR_EV_PRIO) | EV(PR_EV_JOB_DONE), "2 BLOCK H S ok",
                 "2 PRIO L 1->3 inherit S", "5 TIMEOUT H S PR_ETIMEDOUT", "5 PRIO L 3->1 timeout S",
                 "6 JOB_DONE H job=1", "12 JOB_DONE L job=1");
    CHECK_EQ(h.timeouts, 1);
}

/* L (priority 1, at 0): compute 2, lock S, compute 1, unlock S. M (2, at 2):
 * compute 1. L's compute ends at the instant of tick 2, which releases M. */
static void tie_at_a_tick(const pr_host_costs_t *costs)
{
    harness_reset(0);
    pr_id_t s = mutex("S", PR_PROTOCOL_PIP);
    static const pr_action_t lbody[] = {A_COMPUTE(2), A_LOCK(0), A_COMPUTE(1), A_UNLOCK(0)};
    static const pr_action_t mbody[] = {A_COMPUTE(1)};
    static pr_script_t l, m;
    l = SCRIPT(lbody);
    m = SCRIPT(mbody);
    CHECK_EQ(s, 0);
    script_task("L", 1, 0, &l);
    script_task("M", 2, 2, &m);
    if (costs != NULL) /* else the harness's: none, except in trace mode */
        pr_host_set_costs(costs);
    CHECK_EQ(pr_host_run_ticks(30), PR_HOST_QUIESCENT);
}

/* Zero costs: L's lock, a call at the instant of tick 2, runs before the
 * tick; M preempts L inside its critical section. */
static void without_costs_a_call_at_a_tick_instant_runs_before_the_tick(void)
{
    tie_at_a_tick(NULL);
    EXPECT_TRACE(EV(PR_EV_SEM_DOWN) | EV(PR_EV_RELEASE) | EV(PR_EV_SWITCH) | EV(PR_EV_JOB_DONE), "0 RELEASE L job=1",
                 "0 SWITCH L<-idle", "2 DOWN L S ok value=0", "2 RELEASE M job=1", "2 SWITCH M<-L",
                 "3 JOB_DONE M job=1", "3 SWITCH L<-M", "4 JOB_DONE L job=1", "4 SWITCH idle<-L");
}

/* With costs (as on a real CPU), L starts half a microsecond late and tick 1
 * takes another half, so at tick 2 L still has 1 us to compute: the tick is
 * taken first and M preempts L before the lock. Every switch and tick adds
 * 0.5 us (times print rounded to the thousandth of a tick): the run's start,
 * M<-L, L<-M and idle<-L, and ticks 1 to 4, so the run ends at 4 ms + 4 us. */
static void with_costs_the_tick_comes_first(void)
{
    static const pr_host_costs_t costs = {.switch_ns = 500, .tick_ns = 500};
    tie_at_a_tick(&costs);
    EXPECT_TRACE(EV(PR_EV_SEM_DOWN) | EV(PR_EV_RELEASE) | EV(PR_EV_SWITCH) | EV(PR_EV_JOB_DONE), "0 RELEASE L job=1",
                 "0.001 SWITCH L<-idle", "2 RELEASE M job=1", "2.001 SWITCH M<-L", "3.002 JOB_DONE M job=1",
                 "3.002 SWITCH L<-M", "3.003 DOWN L S ok value=0", "4.004 JOB_DONE L job=1",
                 "4.004 SWITCH idle<-L");
    CHECK_EQ(pr_host_now(), TICKS(4) + 4 * 500 + 4 * 500);
}

HARNESS_MAIN(TEST_CASE(delay_after_compute_lasts_exactly_n_ticks),
             TEST_CASE(timeout_after_compute_lasts_exactly_n_ticks),
             TEST_CASE(without_costs_a_call_at_a_tick_instant_runs_before_the_tick),
             TEST_CASE(with_costs_the_tick_comes_first))
