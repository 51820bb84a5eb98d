/*
 * "pip": basic priority inheritance (Sha, Rajkumar, Lehoczky; seed 000
 * section 6; seed 003's BPI).
 *
 * A mutex lends its holder the effective priority of its most urgent waiter.
 * The holder's effective priority is the maximum of its base priority and
 * what each mutex it still holds lends it, so:
 *  - a waiter that blocks raises the holder (not_acquired), and if the
 *    holder itself waits on a mutex the raise travels down the chain (the
 *    mechanism's chain walk, core/priority.c);
 *  - a waiter that leaves (abort: timeout or deletion) lowers the holder to
 *    what remains, at once;
 *  - on release the mutex stops lending to the old holder (the mechanism
 *    withdraws it) and, handed to its most urgent waiter, lends that new
 *    holder the priority of the waiters still queued (acquired).
 * No priority is ever saved and restored: it is recomputed from what is held.
 *
 * Inheritance needs a holder and a priority-ordered wait list, so it is
 * refused at allocation on a counting or FIFO semaphore (seed 000, 5.1).
 */
#include "policy.h"

static int pip_check_attr(const pr_sem_attr_t *attr)
{
    const unsigned needed = PR_SEM_MUTEX | PR_SEM_PRIO;
    if ((attr->flags & needed) != needed)
        return PR_EINVAL;
    return policy_refuse_ceiling(attr);
}

static void pip_acquired(pr_sem_t *m, pr_task_t *t)
{
    (void)t;
    prio_relend(m, PR_CAUSE_ACQUIRE);
}

static void pip_not_acquired(pr_sem_t *m, pr_task_t *t)
{
    (void)t;
    prio_relend(m, PR_CAUSE_INHERIT);
}

static void pip_abort(pr_sem_t *m, pr_task_t *t, int cause)
{
    (void)t;
    prio_relend(m, cause);
}

static pr_prio_t pip_lend(const pr_sem_t *m)
{
    const pr_task_t *top = sem_first_waiter(m);
    return top != NULL ? top->effective : PRIO_NONE;
}

const pr_policy_t pr_policy_pip = {
    .name = "pip",
    .check_attr = pip_check_attr,
    .conflict = policy_allow_block, /* a conflict simply blocks */
    .acquired = pip_acquired,
    .not_acquired = pip_not_acquired,
    /* On release the mechanism has already withdrawn what the mutex lent:
     * nothing was saved, so nothing is left to restore. */
    .release = policy_ignore,
    .abort = pip_abort,
    .lend = pip_lend,
    .control = policy_no_commands,
    /* Nobody waits: nothing to inherit, nothing lent (pip_lend). */
    .quiet_uncontended = 1,
};
