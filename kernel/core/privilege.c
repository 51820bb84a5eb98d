/*
 * Privilege groups: their privileges, and which group a task is in
 * (privilege.h has the rules). The checks themselves are where the calls
 * they guard are (privilege_impl.h: caller_may).
 */
#include "privilege_impl.h"
#include "trace_impl.h"

void privileges_reset(void)
{
    for (int g = 0; g <= PR_CONFIG_PRIV_GROUPS; g++)
        pr_priv_groups[g] = 0;
    pr_priv_groups[PR_GROUP_SYSTEM] = PR_PRIV_ALL;
}

static int priv_group_set(int group, pr_privs_t privs)
{
    int err = PR_OK;
    if (!group_valid(group) || group == PR_GROUP_SYSTEM || (privs & ~PR_PRIV_ALL) != 0)
        err = PR_EINVAL;
    else
        err = caller_may(PR_PRIV_GROUPS, PR_EPRIV_GROUP);
    trace_emit(PR_EV_PRIV_GROUP, pr_self, group_valid(group) ? (uint8_t)group : PR_TRACE_NONE, err, 0, 0,
               (int32_t)privs);
    if (err != PR_OK)
        return err;
    pr_priv_groups[group] = privs;
    return PR_OK;
}

static int priv_group_get(int group, pr_privs_t *privs)
{
    if (!group_valid(group) || privs == NULL)
        return PR_EINVAL;
    *privs = pr_priv_groups[group];
    return PR_OK;
}

static int task_set_group(pr_id_t id, int group)
{
    pr_task_t *t = NULL;
    int err = task_lookup(id, &t);
    if (err == PR_OK && !group_valid(group))
        err = PR_EINVAL;
    if (err == PR_OK)
        err = caller_may(PR_PRIV_GROUPS, PR_EPRIV_GROUP);
    trace_emit(PR_EV_TASK_GROUP, trace_task_of(id), caller_trace_id(), err,
               t != NULL ? t->priv_group : 0, group_valid(group) ? (uint8_t)group : 0, 0);
    if (err != PR_OK)
        return err;
    t->priv_group = (uint8_t)group;
    return PR_OK;
}

static int task_privs(pr_id_t id, int *group, pr_privs_t *privs)
{
    pr_task_t *t;
    int err = task_lookup(id, &t);
    if (err != PR_OK)
        return err;
    if (group == NULL && privs == NULL)
        return PR_EINVAL;
    if (group != NULL)
        *group = t->priv_group;
    if (privs != NULL)
        *privs = pr_priv_groups[t->priv_group];
    return PR_OK;
}

int pr_priv_group_set(int group, pr_privs_t privs) { MASKED_CALL(priv_group_set(group, privs)); }
int pr_priv_group_get(int group, pr_privs_t *privs) { MASKED_CALL(priv_group_get(group, privs)); }
int pr_task_set_group(pr_id_t id, int group) { MASKED_CALL(task_set_group(id, group)); }
int pr_task_privs(pr_id_t id, int *group, pr_privs_t *privs) { MASKED_CALL(task_privs(id, group, privs)); }
