/*
 * What every policy shares: the table from protocol numbers to policy
 * modules, the hooks of a policy that does nothing at that point, and the
 * pieces that the protocols lending priorities have in common.
 */
#include "policy.h"

const pr_policy_t *policy_of(pr_protocol_t protocol)
{
    switch (protocol) {
    case PR_PROTOCOL_NONE: return &pr_policy_none;
    case PR_PROTOCOL_PIP:  return &pr_policy_pip;
    case PR_PROTOCOL_PCP:  return &pr_policy_pcp;
    case PR_PROTOCOL_IPCP: return &pr_policy_ipcp;
    case PR_PROTOCOL_NPCS: return &pr_policy_npcs;
    case PR_PROTOCOL_RCS:  return &pr_policy_rcs;
    }
    return NULL;
}

void policies_reset(void) { pcp_reset(); }

/* ---- hooks that do nothing ---- */

int policy_refuse_ceiling(const pr_sem_attr_t *attr)
{
    return attr->ceiling == 0 ? PR_OK : PR_EINVAL;
}

int policy_admit(pr_sem_t *m, pr_task_t *t, pr_waitq_t **wait_in)
{
    (void)m, (void)t;
    *wait_in = NULL;
    return PR_OK;
}

int policy_allow_wait(pr_sem_t *m, pr_task_t *t)
{
    (void)m, (void)t;
    return PR_OK;
}

void policy_ignore(pr_sem_t *m, pr_task_t *t) { (void)m, (void)t; }

void policy_ignore_waiting(pr_sem_t *m, pr_task_t *t, pr_waitq_t *q) { (void)m, (void)t, (void)q; }

void policy_ignore_abandoned(pr_sem_t *m, pr_task_t *t, pr_waitq_t *q, int cause)
{
    (void)m, (void)t, (void)q, (void)cause;
}

pr_prio_t policy_lend_nothing(const pr_waitq_t *q)
{
    (void)q;
    return PRIO_NONE;
}

int policy_no_commands(pr_sem_t *m, int cmd, void *arg)
{
    (void)m, (void)cmd, (void)arg;
    return PR_EINVAL;
}

/* ---- shared by the protocols that lend ---- */

pr_prio_t policy_lend_first_waiter(const pr_waitq_t *q)
{
    const pr_task_t *top = waitq_first(q);
    return top != NULL ? top->effective : PRIO_NONE;
}

void policy_relend_acquired(pr_sem_t *m, pr_task_t *t)
{
    (void)t;
    prio_relend(m->waitq, PR_CAUSE_ACQUIRE);
}

void policy_relend_waiting(pr_sem_t *m, pr_task_t *t, pr_waitq_t *q)
{
    (void)m, (void)t;
    prio_relend(q, PR_CAUSE_INHERIT);
}

/* A waiter that left without the mutex lent through the queue it left:
 * that queue re-lends. One woken to try again (q NULL) lends nothing. */
void policy_relend_abandoned(pr_sem_t *m, pr_task_t *t, pr_waitq_t *q, int cause)
{
    (void)m, (void)t;
    if (q != NULL && q->lender != NULL)
        prio_relend(q, cause);
}

/* Inheritance needs a holder and a priority-ordered wait queue [Pessolani]:
 * the first waiter must be the most urgent. */
int policy_needs_prio_mutex(const pr_sem_attr_t *attr)
{
    const unsigned needed = PR_SEM_MUTEX | PR_SEM_PRIO;
    return (attr->flags & needed) == needed ? PR_OK : PR_EINVAL;
}

int policy_check_ceiling(const pr_sem_attr_t *attr)
{
    return attr->ceiling >= 0 && attr->ceiling <= PR_PRIO_MAX ? PR_OK : PR_EINVAL;
}

/*
 * A ceiling is the base priority of the most urgent task that may lock the
 * mutex. A task above it breaks the assumption both ceiling protocols rest
 * on (ipcp would run it *below* its own priority inside the section; pcp's
 * bound on blocking no longer holds), so its lock is refused, never served
 * quietly. The base priority is compared, not the effective one: a task
 * lifted above the ceiling by what it inherits through another mutex is
 * still a task the ceiling was computed for.
 */
int policy_admit_below_ceiling(pr_sem_t *m, pr_task_t *t, pr_waitq_t **wait_in)
{
    *wait_in = NULL;
    return t->base > m->ceiling ? PR_ECEILING : PR_OK;
}
