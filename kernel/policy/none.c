/*
 * "none": waiters queue in the semaphore's order and no priority ever
 * changes (seed 003's basic priority protocol, BP, when the semaphore is
 * priority-ordered). Every hook does nothing; the mutex lends nothing.
 */
#include "policy.h"

static int none_check_attr(const pr_sem_attr_t *attr)
{
    (void)attr;
    return PR_OK;
}

static int none_conflict(pr_sem_t *m, pr_task_t *t)
{
    (void)m;
    (void)t;
    return PR_OK;
}

static void none_event(pr_sem_t *m, pr_task_t *t)
{
    (void)m;
    (void)t;
}

static void none_abort(pr_sem_t *m, pr_task_t *t, int cause)
{
    (void)m;
    (void)t;
    (void)cause;
}

static pr_prio_t none_lend(const pr_sem_t *m)
{
    (void)m;
    return PRIO_NONE;
}

static int none_control(pr_sem_t *m, int cmd, void *arg)
{
    (void)m;
    (void)cmd;
    (void)arg;
    return PR_EINVAL;
}

const pr_policy_t pr_policy_none = {
    .name = "none",
    .check_attr = none_check_attr,
    .conflict = none_conflict,
    .acquired = none_event,
    .not_acquired = none_event,
    .release = none_event,
    .abort = none_abort,
    .lend = none_lend,
    .control = none_control,
};
