/*
 * "rcs": the restartable critical section [Tokuda-Nakajima 1993, sections
 * 2.2, 2.3 and 3.2.2].
 *
 * A task that asks for a mutex held by a less urgent task (a strictly lower
 * effective priority) aborts the holder's critical section. The paper's
 * protocol: the holder recovers the shared state at the requester's
 * priority (inherited, as under pip), then the requester enters the
 * section, and the holder waits for the mutex and restarts its section
 * from the beginning. That is what happens when the mutex has a recovery
 * (sem.h: PR_SEM_CTL_RECOVERY, which this policy's control hook sets):
 * conflict answers POLICY_ABORT_AND_WAIT, the requester waits, and the
 * holder's next call on the mutex runs the recovery and gives the mutex up
 * (core/sem_mutex.c: sem_abort_report). Without a recovery (nothing to
 * restore), conflict answers POLICY_TAKE_OVER: the requester takes the
 * mutex at once (core/sem_mutex.c: take_over) and the holder learns of the
 * abort at its next call on it (PR_EABORTED).
 *
 * Either way, pr_sem_aborted() counts the aborts the holder has not yet
 * been told of, and while that count is not 0 its computing
 * (pr_port_consume) returns at once: an aborted section stops. The scenario
 * interpreter then restarts the section from its LOCK action.
 *
 * A task that is not more urgent than the holder waits, and the holder
 * inherits its priority as under pip, so the blocking of the equally or
 * less urgent is bounded as under pip.
 */
#include "policy.h"

static int rcs_check_attr(const pr_sem_attr_t *attr)
{
    int err = policy_needs_prio_mutex(attr);
    return err != PR_OK ? err : policy_refuse_ceiling(attr);
}

/* A less urgent holder's section is aborted: taken over at once, or, if
 * the mutex has a recovery, the requester waits while the holder recovers
 * (an abort already under way is not repeated). */
static int rcs_conflict(pr_sem_t *m, pr_task_t *t)
{
    pr_task_t *holder = sem_holder(m);
    if (t->effective <= holder->effective)
        return PR_OK;
    const pr_sem_more_t *more = sem_more(m);
    if (more->recovery.fn == NULL)
        return POLICY_TAKE_OVER;
    return (more->recovering || sem_abort_pending(holder, m)) ? PR_OK : POLICY_ABORT_AND_WAIT;
}

static int rcs_control(pr_sem_t *m, int cmd, void *arg)
{
    if (cmd != PR_SEM_CTL_RECOVERY || arg == NULL)
        return PR_EINVAL;
    sem_more(m)->recovery = *(const pr_sem_recovery_t *)arg;
    return PR_OK;
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
    .control = rcs_control,
    .lenders = NULL,
    .fast = POLICY_FAST_NEVER, /* a lock must first tell an aborted task (sem.c) */
};
