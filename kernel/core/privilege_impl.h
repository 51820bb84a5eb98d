/*
 * Privileges (private; privilege.h has the rules, privilege.c the calls).
 * The groups' privileges are one small table, pr_priv_groups (state.c),
 * read by every call that a privilege guards: a test is one load and one
 * mask.
 */
#ifndef PRIORA_PRIVILEGE_IMPL_H
#define PRIORA_PRIVILEGE_IMPL_H

#include "kernel_impl.h"

/* By group, 1 .. PR_CONFIG_PRIV_GROUPS (entry 0 unused); [PR_GROUP_SYSTEM]
 * is PR_PRIV_ALL for good. */
extern pr_privs_t pr_priv_groups[PR_CONFIG_PRIV_GROUPS + 1];

void privileges_reset(void);

static inline int group_valid(int group) { return group >= 1 && group <= PR_CONFIG_PRIV_GROUPS; }

/* The privileges the caller acts with: its group's, or every one for an
 * interrupt or code outside the kernel. */
static inline pr_privs_t caller_privs(void)
{
    return in_task_context() ? pr_priv_groups[pr_k.current->priv_group] : PR_PRIV_ALL;
}

/* The caller's group, for a task it creates in its own. */
static inline int caller_group(void) { return in_task_context() ? pr_k.current->priv_group : PR_GROUP_SYSTEM; }

/* The caller's base priority, which its privileges are measured against:
 * none above it for an interrupt or code outside the kernel. */
static inline pr_prio_t caller_base(void) { return in_task_context() ? pr_k.current->base : PR_PRIO_MAX; }

/* PR_OK if the caller holds `priv`, else `refusal`. */
static inline int caller_may(pr_privs_t priv, int refusal) { return (caller_privs() & priv) != 0 ? PR_OK : refusal; }

/* May the caller change t's priority: its own (`raises`: upward), or
 * another task's at all? PR_OK or PR_EPRIV_PRIO. */
static inline int caller_may_set_priority(const pr_task_t *t, int raises)
{
    if (!in_task_context() || (t == pr_k.current && !raises))
        return PR_OK;
    return caller_may(PR_PRIV_SETPRIO, PR_EPRIV_PRIO);
}

#endif /* PRIORA_PRIVILEGE_IMPL_H */
