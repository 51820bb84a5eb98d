/*
 * What every policy shares: the table from protocol numbers to policy
 * modules, and the hooks of a policy that does nothing at that point.
 */
#include "policy.h"

const pr_policy_t *policy_of(pr_protocol_t protocol)
{
    switch (protocol) {
    case PR_PROTOCOL_NONE: return &pr_policy_none;
    case PR_PROTOCOL_PIP:  return &pr_policy_pip;
    }
    return NULL;
}

int policy_refuse_ceiling(const pr_sem_attr_t *attr)
{
    return attr->ceiling == 0 ? PR_OK : PR_EINVAL;
}

int policy_allow_block(pr_sem_t *m, pr_task_t *t)
{
    (void)m;
    (void)t;
    return PR_OK;
}

void policy_ignore(pr_sem_t *m, pr_task_t *t)
{
    (void)m;
    (void)t;
}

void policy_ignore_abort(pr_sem_t *m, pr_task_t *t, int cause)
{
    (void)m;
    (void)t;
    (void)cause;
}

pr_prio_t policy_lend_nothing(const pr_sem_t *m)
{
    (void)m;
    return PRIO_NONE;
}

int policy_no_commands(pr_sem_t *m, int cmd, void *arg)
{
    (void)m;
    (void)cmd;
    (void)arg;
    return PR_EINVAL;
}
