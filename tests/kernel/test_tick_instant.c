/*
 * Relative waits made at the very instant of a tick. On the host port a call
 * made when a compute ends exactly at tick k runs before tick k's interrupt
 * (so a job completing at its deadline instant meets it), but the instant
 * belongs to tick k: a wait of n ticks made there ends at tick k + n, exactly
 * n ticks later, never n - 1.
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

HARNESS_MAIN(TEST_CASE(delay_after_compute_lasts_exactly_n_ticks),
             TEST_CASE(timeout_after_compute_lasts_exactly_n_ticks))
