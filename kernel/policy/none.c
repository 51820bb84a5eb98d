/*
 * "none": waiters queue in the semaphore's order and no priority ever
 * changes ([Tokuda-Nakajima 1993]'s basic priority protocol, BP, when the semaphore is
 * priority-ordered). Every hook is a default one: a ceiling is refused, the
 * mutex lends nothing, nothing else happens.
 */
#include "policy.h"

const pr_policy_t pr_policy_none = {
    .name = "none",
    .protocol = PR_PROTOCOL_NONE,
    .check_attr = policy_refuse_ceiling,
    .admit = policy_admit,
    .conflict = policy_allow_wait,
    .acquired = policy_ignore,
    .waiting = policy_ignore_waiting,
    .release = policy_ignore,
    .abandoned = policy_ignore_abandoned,
    .lend = policy_lend_nothing,
    .control = policy_no_commands,
    .lenders = NULL,
    .fast = POLICY_FAST_QUIET, /* lends nothing, does nothing */
};
