/*
 * "ipcp": the immediate priority ceiling protocol, or highest locker (POSIX's
 * PTHREAD_PRIO_PROTECT; one of the ceiling protocols of [Tokuda-Nakajima
 * 1993], section 2.2).
 *
 * Each mutex has a ceiling: the base priority of the most urgent task that
 * locks it (attr.ceiling). While a task holds the mutex, the mutex lends it
 * that ceiling, from the instant it is locked (acquired): no task that uses
 * the mutex can preempt the holder, so on one processor nobody ever waits for
 * it unless the holder suspends itself inside the section. The lend is the
 * mechanism's, as under pip, so the restore is exact: on unlock the holder
 * drops to what its base and the mutexes it still holds give it, nested or
 * not (core/priority.c).
 *
 * A waiter can exist (the holder delayed or blocked inside its section); it
 * is queued by priority and lends too: the mutex lends the larger of its
 * ceiling and its first waiter's priority. That waiter is more urgent than
 * the ceiling only if it inherited its priority elsewhere, and then the
 * inheritance still travels down the chain.
 *
 * A task whose base priority is above the ceiling is refused (PR_ECEILING).
 */
#include "policy.h"

static int ipcp_check_attr(const pr_sem_attr_t *attr)
{
    int err = policy_needs_prio_mutex(attr);
    return err != PR_OK ? err : policy_check_ceiling(attr);
}

static void ipcp_acquired(pr_sem_t *m, pr_task_t *t)
{
    (void)t;
    prio_relend(m->waitq, PR_CAUSE_CEILING);
}

static pr_prio_t ipcp_lend(const pr_waitq_t *q)
{
    pr_prio_t waiter = policy_lend_first_waiter(q), ceiling = sem_of_queue(q)->ceiling;
    return waiter > ceiling ? waiter : ceiling;
}

const pr_policy_t pr_policy_ipcp = {
    .name = "ipcp",
    .protocol = PR_PROTOCOL_IPCP,
    .check_attr = ipcp_check_attr,
    .admit = policy_admit_below_ceiling,
    .conflict = policy_allow_wait,
    .acquired = ipcp_acquired,
    .waiting = policy_relend_waiting,
    .release = policy_ignore, /* the mechanism withdrew the ceiling */
    .abandoned = policy_relend_abandoned,
    .lend = ipcp_lend,
    .control = policy_no_commands,
    .lenders = NULL,
    .fast = POLICY_FAST_NEVER, /* it lends its ceiling from the take on */
};
