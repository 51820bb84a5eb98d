/*
 * "npcs": the non-preemptive critical section ([Tokuda-Nakajima 1993]'s
 * kernelized monitor, KM): no task preempts the holder
 * while it is inside the section, not even the most urgent one.
 *
 * It is ipcp with the highest ceiling there is, PR_PRIO_MAX, plus the
 * scheduler's preemption lock. Why a priority, and not the lock alone:
 *  - a priority is what the scheduler already obeys everywhere (at wakeups,
 *    at interrupt exits, at creations), so nothing in the scheduler's fast
 *    paths changes; a task never preempts an equal, so at PR_PRIO_MAX no
 *    task can preempt the holder;
 *  - it is the mechanism's lend, so nested sections (npcs or not) and the
 *    exact restore on unlock come for free, and the trace shows it (PRIO
 *    L 1->31 ceiling);
 *  - a holder that suspends itself inside the section (a delay, a wait)
 *    lets others run, and when it is ready again it runs at once, ahead of
 *    whoever runs then: a preemption count would leave it waiting behind
 *    more urgent tasks.
 * The one preemption a priority cannot stop is round-robin among equals at
 * PR_PRIO_MAX: the holder takes a preemption lock (core/sched.h) for its
 * section, and the end of its round-robin slice does not rotate it.
 *
 * A ceiling attribute is refused: the ceiling is always PR_PRIO_MAX, so no
 * task is ever above it. Waiters may be queued by priority or FIFO: the
 * mutex lends PR_PRIO_MAX whoever waits.
 */
#include "policy.h"

static int npcs_check_attr(const pr_sem_attr_t *attr)
{
    if (!(attr->flags & PR_SEM_MUTEX))
        return PR_EINVAL;
    return policy_refuse_ceiling(attr);
}

static void npcs_acquired(pr_sem_t *m, pr_task_t *t)
{
    sched_lock_preemption(t);
    prio_relend(m->waitq, PR_CAUSE_CEILING);
}

static void npcs_release(pr_sem_t *m, pr_task_t *t)
{
    (void)m;
    sched_unlock_preemption(t);
}

static pr_prio_t npcs_lend(const pr_waitq_t *q)
{
    (void)q;
    return PR_PRIO_MAX;
}

/* What the holder is lent from the lock on: a task may allocate such a
 * mutex only if it may hold a ceiling of PR_PRIO_MAX (privilege.h). */
static pr_prio_t npcs_ceiling(const pr_sem_attr_t *attr)
{
    (void)attr;
    return PR_PRIO_MAX;
}

const pr_policy_t pr_policy_npcs = {
    .name = "npcs",
    .protocol = PR_PROTOCOL_NPCS,
    .check_attr = npcs_check_attr,
    .admit = policy_admit,
    .conflict = policy_allow_wait,
    .acquired = npcs_acquired,
    .waiting = policy_ignore_waiting, /* it already lends the most there is */
    .release = npcs_release,
    .abandoned = policy_ignore_abandoned,
    .lend = npcs_lend,
    .control = policy_no_commands,
    .lenders = NULL,
    .ceiling = npcs_ceiling,
    .fast = POLICY_FAST_NEVER, /* it lends PR_PRIO_MAX from the take on */
};
