/*
 * Locking policies, separated from the lock mechanism [Tokuda-Nakajima
 * 1993]. The mechanism (kernel/core: sem_mutex.c, with priority.c and
 * waitq.c) owns the holder, the wait queues, the blocking, the lenders and
 * the effective priorities; a policy decides how they react, and owns the
 * state its protocol needs beyond them. The mechanism calls a policy at
 * these points, always with the kernel's state consistent:
 *
 *   check_attr  at allocation: may refuse attributes it cannot serve.
 *   admit       a task asks for a mutex it does not hold, free or not: the
 *               test on a free mutex. An error fails the down (nothing has
 *               changed: PR_ECEILING); PR_OK with *wait_in set makes the
 *               task wait in that queue even if the mutex is free (one the
 *               policy keeps, or another mutex's); PR_OK with *wait_in NULL
 *               lets the mechanism go on: take a free mutex, or meet its
 *               holder (conflict).
 *   conflict    the mutex is held by another task: an error fails the
 *               down, PR_OK lets the task wait in the mutex's queue (or
 *               fail with PR_EAGAIN if it may not wait), POLICY_TAKE_OVER
 *               makes the mechanism abort the holder's critical section and
 *               hand the mutex to the task at once, POLICY_ABORT_AND_WAIT
 *               aborts the section and lets the task wait while the holder
 *               runs the section's recovery (sem.h: pr_sem_recovery_t).
 *   acquired    a task has just become the holder (free mutex, handed over
 *               by an up, or taken over from an aborted holder).
 *   waiting     a task has just joined a queue in a down on this mutex
 *               (the mutex's own, or the one admit named).
 *   release     the holder has just given the mutex up: it is free, or
 *               already in its next holder's hands (whose acquired ran);
 *               what the mutex lent the old holder is withdrawn.
 *   abandoned   a task in a down on this mutex left it without the mutex:
 *               it left queue q (its timeout, its deletion: cause
 *               PR_CAUSE_TIMEOUT, PR_CAUSE_DELETE), or, q NULL, it had been
 *               woken to try again and gave up or was deleted.
 *   lend        what the mutex's waiters lend its holder now (PRIO_NONE for
 *               nothing): the rule of its queue (waitq.h), read by the chain
 *               walk (priority.c) each time it passes through the mutex.
 *   control     policy-specific commands (PR_EINVAL for unknown ones).
 *   lenders     the lenders the policy keeps itself, if any, for the
 *               kernel's invariant checks (invariants.c); NULL for none.
 *   ceiling     the mutex's ceiling, if the policy fixes it whatever the
 *               attributes say (at allocation, for the privilege that
 *               guards ceilings: privilege.h); NULL: attr->ceiling.
 *
 * fast: what the mechanism's fast paths (core/sem.c) may assume of the
 * policy, so that they carry out its decisions without calling its hooks:
 *   POLICY_FAST_QUIET    admit lets every task go on, conflict lets it
 *                        wait, lend gives PRIO_NONE, and no other hook does
 *                        anything;
 *   POLICY_FAST_INHERIT  the same, except that lend gives the first
 *                        waiter's effective priority (policy_lend_first_
 *                        waiter) and acquired, waiting and abandoned do
 *                        nothing but re-lend (prio_relend).
 * Either way, while nobody waits acquired and release do nothing and lend
 * gives PRIO_NONE. A policy that acts on an uncontended mutex (a ceiling
 * lent or counted from the take on), or that must look at every lock (an
 * aborted holder to tell, a take-over), is POLICY_FAST_NEVER (0): its hooks
 * are called on every take and give.
 *
 * A protocol is a file in this folder, its number in sem.h (pr_protocol_t),
 * its pr_policy_t declared below and mapped in policy.c, and its file in
 * CMakeLists.txt (the RISC-V Makefile takes every file of this folder).
 */
#ifndef PRIORA_POLICY_H
#define PRIORA_POLICY_H

#include "../core/sem_impl.h"

/* conflict's answers: abort the holder's section and take the mutex at
 * once; or abort it and wait while the holder recovers (it inherits the
 * waiter's priority, and gives the mutex up after its recovery). */
#define POLICY_TAKE_OVER 1
#define POLICY_ABORT_AND_WAIT 2

/* pr_policy_t.fast (above); a descriptor copies it (sem_impl.h: sem_fast). */
enum policy_fast { POLICY_FAST_NEVER = 0, POLICY_FAST_QUIET = 1, POLICY_FAST_INHERIT = 2 };

typedef struct pr_policy {
    const char *name;
    pr_protocol_t protocol;
    int (*check_attr)(const pr_sem_attr_t *attr);
    int (*admit)(pr_sem_t *m, pr_task_t *t, pr_waitq_t **wait_in);
    int (*conflict)(pr_sem_t *m, pr_task_t *t);
    void (*acquired)(pr_sem_t *m, pr_task_t *t);
    void (*waiting)(pr_sem_t *m, pr_task_t *t, pr_waitq_t *q);
    void (*release)(pr_sem_t *m, pr_task_t *t);
    void (*abandoned)(pr_sem_t *m, pr_task_t *t, pr_waitq_t *q, int cause);
    pr_prio_t (*lend)(const pr_waitq_t *q);
    int (*control)(pr_sem_t *m, int cmd, void *arg);
    void (*lenders)(void (*visit)(const pr_lender_t *l, void *arg), void *arg);
    pr_prio_t (*ceiling)(const pr_sem_attr_t *attr);
    enum policy_fast fast;
} pr_policy_t;

extern const pr_policy_t pr_policy_none;
extern const pr_policy_t pr_policy_pip;
extern const pr_policy_t pr_policy_pcp;
extern const pr_policy_t pr_policy_ipcp;
extern const pr_policy_t pr_policy_npcs;
extern const pr_policy_t pr_policy_rcs;

/* The policy of a protocol number, or NULL if unknown. */
const pr_policy_t *policy_of(pr_protocol_t protocol);

/* Resets every policy's own state; at kernel init. */
void policies_reset(void);
void pcp_reset(void);

/* Default hooks, for a policy with nothing to do at that point (policy.c);
 * policy_refuse_ceiling refuses a ceiling, which such a policy ignores. */
int policy_refuse_ceiling(const pr_sem_attr_t *attr);                /* check_attr: no ceiling */
int policy_admit(pr_sem_t *m, pr_task_t *t, pr_waitq_t **wait_in);   /* admit: go on */
int policy_allow_wait(pr_sem_t *m, pr_task_t *t);                    /* conflict: PR_OK */
void policy_ignore(pr_sem_t *m, pr_task_t *t);                       /* acquired, release */
void policy_ignore_waiting(pr_sem_t *m, pr_task_t *t, pr_waitq_t *q);/* waiting */
void policy_ignore_abandoned(pr_sem_t *m, pr_task_t *t, pr_waitq_t *q, int cause);
pr_prio_t policy_lend_nothing(const pr_waitq_t *q);                  /* lend: PRIO_NONE */
int policy_no_commands(pr_sem_t *m, int cmd, void *arg);             /* control: PR_EINVAL */

/* Shared pieces of the protocols that lend priorities. */
pr_prio_t policy_lend_first_waiter(const pr_waitq_t *q);             /* lend: the first waiter's */
void policy_relend_acquired(pr_sem_t *m, pr_task_t *t);              /* acquired: re-lend */
void policy_relend_waiting(pr_sem_t *m, pr_task_t *t, pr_waitq_t *q);/* waiting: re-lend q */
void policy_relend_abandoned(pr_sem_t *m, pr_task_t *t, pr_waitq_t *q, int cause);
int policy_needs_prio_mutex(const pr_sem_attr_t *attr);              /* PR_SEM_MUTEX | PR_SEM_PRIO */
int policy_check_ceiling(const pr_sem_attr_t *attr);                 /* 0 .. PR_PRIO_MAX */
int policy_admit_below_ceiling(pr_sem_t *m, pr_task_t *t,
                               pr_waitq_t **wait_in);                /* admit: PR_ECEILING above it */

#endif /* PRIORA_POLICY_H */
