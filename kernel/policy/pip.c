/*
 * "pip": basic priority inheritance [Sha-Rajkumar-Lehoczky
 * 1990; Pessolani; Tokuda-Nakajima 1993's BPI].
 *
 * A mutex lends its holder the effective priority of its most urgent waiter.
 * The holder's effective priority is the maximum of its base priority and
 * what each mutex it still holds lends it, so:
 *  - a waiter that blocks raises the holder (waiting), and if the
 *    holder itself waits on a mutex the raise travels down the chain (the
 *    mechanism's chain walk, core/priority.c);
 *  - a waiter that leaves (abandoned: timeout or deletion) lowers the holder to
 *    what remains, at once;
 *  - on release the mutex stops lending to the old holder (the mechanism
 *    withdraws it) and, handed to its most urgent waiter, lends that new
 *    holder the priority of the waiters still queued (acquired).
 * No priority is ever saved and restored: it is recomputed from what is held.
 *
 * Inheritance needs a holder and a priority-ordered wait list, so it is
 * refused at allocation on a counting or FIFO semaphore [Pessolani].
 */
#include "policy.h"

static int pip_check_attr(const pr_sem_attr_t *attr)
{
    int err = policy_needs_prio_mutex(attr);
    return err != PR_OK ? err : policy_refuse_ceiling(attr);
}

const pr_policy_t pr_policy_pip = {
    .name = "pip",
    .protocol = PR_PROTOCOL_PIP,
    .check_attr = pip_check_attr,
    .admit = policy_admit,
    .conflict = policy_allow_wait, /* a conflict simply waits */
    .acquired = policy_relend_acquired,
    .waiting = policy_relend_waiting,
    /* On release the mechanism has already withdrawn what the mutex lent:
     * nothing was saved, so nothing is left to restore. */
    .release = policy_ignore,
    .abandoned = policy_relend_abandoned,
    .lend = policy_lend_first_waiter,
    .control = policy_no_commands,
    .lenders = NULL,
    /* Nobody waits: nothing to inherit, nothing lent; with waiters, the
     * mechanism re-lends the first one's priority itself. */
    .fast = POLICY_FAST_INHERIT,
};
