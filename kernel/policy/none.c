/*
 * "none": waiters queue in the semaphore's order and no priority ever
 * changes (seed 003's basic priority protocol, BP, when the semaphore is
 * priority-ordered). Every hook is a default one: a ceiling is refused, the
 * mutex lends nothing, nothing else happens.
 */
#include "policy.h"

const pr_policy_t pr_policy_none = {
    .name = "none",
    .system_ceiling = 0,
    .check_attr = policy_refuse_ceiling,
    .admit = policy_admit,
    .conflict = policy_allow_block,
    .acquired = policy_ignore,
    .not_acquired = policy_ignore,
    .release = policy_ignore,
    .abort = policy_ignore_abort,
    .lend = policy_lend_nothing,
    .control = policy_no_commands,
    .fast = POLICY_FAST_QUIET, /* lends nothing, does nothing */
};
