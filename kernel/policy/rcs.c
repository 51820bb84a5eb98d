/*
 * "rcs": the restartable critical section [Tokuda-Nakajima 1993] (sections 2.2, 2.3 and
 * 3.2.2).
 *
 * A task that asks for a mutex held by a less urgent task (a strictly lower
 * effective priority) does not wait: its conflict hook answers
 * POLICY_TAKE_OVER and the mechanism aborts the holder's critical section
 * and hands the mutex over at once (core/sem_mutex.c: take_over). The aborted task
 * learns of it at its recovery point: its next call on that mutex returns
 * PR_EABORTED, pr_sem_aborted() counts what it has not yet been told, and
 * while that count is not 0 its computing (pr_port_consume) returns at once.
 * It then restores the shared state and locks again (the scenario
 * interpreter restarts the section from its LOCK action).
 *
 * A task that is not more urgent than the holder waits, and the holder
 * inherits its priority as under pip ([Tokuda-Nakajima 1993]: "the higher priority
 * thread's priority is inherited like in priority inheritance protocol"),
 * so the blocking of the equally or less urgent is bounded as under pip.
 */
#include "policy.h"

static int rcs_check_attr(const pr_sem_attr_t *attr)
{
    int err = policy_needs_prio_mutex(attr);
    return err != PR_OK ? err : policy_refuse_ceiling(attr);
}

static int rcs_conflict(pr_sem_t *m, pr_task_t *t)
{
    return t->effective > sem_holder(m)->effective ? POLICY_TAKE_OVER : PR_OK;
}

const pr_policy_t pr_policy_rcs = {
    .name = "rcs",
    .protocol = PR_PROTOCOL_RCS,
    .check_attr = rcs_check_attr,
    .admit = policy_admit,
    .conflict = rcs_conflict,
    .acquired = policy_relend_acquired,
    .waiting = policy_relend_waiting,
    .release = policy_ignore,
    .abandoned = policy_relend_abandoned,
    .lend = policy_lend_first_waiter,
    .control = policy_no_commands,
    .lenders = NULL,
    .fast = POLICY_FAST_NEVER, /* a lock must first tell an aborted task (sem.c) */
};
