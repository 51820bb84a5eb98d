/*
 * The classic priority inversion (seed 000 section 6, seed 003 section 1).
 *
 * L (priority 1, released at 0): lock S, compute 4, unlock S, compute 1
 * H (priority 3, released at 1): compute 1, lock S, compute 1, unlock S, compute 1
 * M (priority 2, released at 2): compute 5
 */
#include "harness.h"

static const pr_action_t L_body[] = {
    {PR_ACT_LOCK, 0, PR_FOREVER, 0},  {PR_ACT_COMPUTE, 0, 0, TICKS(4)},
    {PR_ACT_UNLOCK, 0, 0, 0},         {PR_ACT_COMPUTE, 0, 0, TICKS(1)},
};
static const pr_action_t H_body[] = {
    {PR_ACT_COMPUTE, 0, 0, TICKS(1)}, {PR_ACT_LOCK, 0, PR_FOREVER, 0}, {PR_ACT_COMPUTE, 0, 0, TICKS(1)},
    {PR_ACT_UNLOCK, 0, 0, 0},         {PR_ACT_COMPUTE, 0, 0, TICKS(1)},
};
static const pr_action_t M_body[] = {{PR_ACT_COMPUTE, 0, 0, TICKS(5)}};

static pr_script_t L, H, M;

static void setup(pr_protocol_t protocol)
{
    harness_reset(0);
    L = (pr_script_t){L_body, 4, 0, 0, 0, 0};
    H = (pr_script_t){H_body, 5, 0, 0, 0, 0};
    M = (pr_script_t){M_body, 1, 0, 0, 0, 0};
    CHECK_EQ(mutex("S", protocol), 0);
    script_task("L", 1, 0, &L);
    script_task("H", 3, 1, &H);
    script_task("M", 2, 2, &M);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
}

static void dump(void) { dump_trace(0); }

static void without_inheritance(void)
{
    setup(PR_PROTOCOL_NONE);
    dump();
}

static void with_inheritance(void)
{
    setup(PR_PROTOCOL_PIP);
    dump();
}

HARNESS_MAIN(TEST_CASE(without_inheritance), TEST_CASE(with_inheritance))
