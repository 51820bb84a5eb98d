/*
 * Locking policies, separated from the lock mechanism (seed 003, section
 * 3.2). The mechanism (core/sem.c, with core/priority.c and core/ceiling.c)
 * owns the value, the holder, the wait lists, the blocking, the system
 * ceiling and the effective priorities; a policy decides how they react. The
 * mechanism calls a policy at these points, always with the kernel's state
 * consistent:
 *
 *   check_attr    at allocation: may refuse attributes it cannot serve.
 *   admit         a task asks for a mutex it does not hold, free or not:
 *                 the test on a free mutex. An error fails the down (nothing
 *                 has changed: PR_ECEILING); PR_OK with *wait_on set makes
 *                 the task wait on that wait list even if the mutex is free
 *                 (pcp: blocked by the system ceiling); PR_OK with *wait_on
 *                 NULL lets the mechanism go on: take a free mutex, or meet
 *                 its holder (conflict).
 *   conflict      the mutex is held by another task: an error fails the
 *                 down, PR_OK lets the task block (or fail with PR_EAGAIN
 *                 if it may not wait), POLICY_TAKE_OVER makes the mechanism
 *                 abort the holder's critical section and hand the mutex to
 *                 the task at once (rcs).
 *   acquired      a task has just become the holder (free mutex, handed over
 *                 by an up, or taken over from an aborted holder).
 *   not_acquired  a task has just been queued on the wait list (the mutex's,
 *                 or the one admit named).
 *   release       the holder has just given the mutex up: it is free, or
 *                 already handed to its next holder (whose acquired ran);
 *                 what the mutex lent the old holder is withdrawn.
 *   abort         a waiter has just left the wait list without the mutex
 *                 (cause: PR_CAUSE_TIMEOUT, PR_CAUSE_DELETE, or
 *                 PR_CAUSE_RELEASE when woken to try again).
 *   lend          what priority the wait list lends its holder now
 *                 (PRIO_NONE for nothing); read by the mechanism's chain walk
 *                 (core/priority.c) each time it passes through the mutex.
 *   control       policy-specific commands (PR_EINVAL for unknown ones).
 *
 * system_ceiling: the mutexes of this policy count in the system ceiling
 * (core/ceiling.c) while they are held.
 *
 * fast: what the mechanism's fast paths (core/sem.c) may assume of the
 * policy, so that they carry out its decisions without calling its hooks:
 *   POLICY_FAST_QUIET    admit lets every task go on, conflict lets it
 *                        wait, lend gives PRIO_NONE, and no other hook does
 *                        anything (none);
 *   POLICY_FAST_INHERIT  the same, except that lend gives the first
 *                        waiter's effective priority (policy_lend_first_
 *                        waiter) and acquired, not_acquired and abort do
 *                        nothing but re-lend (prio_relend) (pip).
 * Either way, while nobody waits acquired and release do nothing and lend
 * gives PRIO_NONE: the fast paths take and give an uncontended mutex, and
 * block on and hand over a contended one, with the changes the general
 * paths would make through the hooks, in the same order. A policy that acts
 * on an uncontended mutex (the ceiling protocols lend or count a ceiling
 * from the take on, npcs too) is POLICY_FAST_NEVER (0), and its hooks are
 * called on every take and give; so is rcs, whose locks must first tell an
 * aborted task of its abort (the fast paths do not look), and whose conflict
 * may take the mutex over.
 *
 * A protocol is a file in this folder, its number in sem.h (pr_protocol_t),
 * its pr_policy_t declared below and mapped in policy.c, and its file in
 * CMakeLists.txt (the RISC-V Makefile takes every file of this folder).
 */
#ifndef PRIORA_POLICY_H
#define PRIORA_POLICY_H

#include "../core/internal.h"

/* conflict's answer: abort the holder's section and take the mutex. */
#define POLICY_TAKE_OVER 1

/* pr_policy_t.fast (above); the values are those of enum sem_fast for a
 * mutex (core/internal.h), which a descriptor copies. */
enum policy_fast { POLICY_FAST_NEVER = 0, POLICY_FAST_QUIET = 1, POLICY_FAST_INHERIT = 2 };

typedef struct pr_policy {
    const char *name;
    int system_ceiling;
    int (*check_attr)(const pr_sem_attr_t *attr);
    int (*admit)(pr_sem_t *m, pr_task_t *t, pr_sem_t **wait_on);
    int (*conflict)(pr_sem_t *m, pr_task_t *t);
    void (*acquired)(pr_sem_t *m, pr_task_t *t);
    void (*not_acquired)(pr_sem_t *m, pr_task_t *t);
    void (*release)(pr_sem_t *m, pr_task_t *t);
    void (*abort)(pr_sem_t *m, pr_task_t *t, int cause);
    pr_prio_t (*lend)(const pr_sem_t *m);
    int (*control)(pr_sem_t *m, int cmd, void *arg);
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

/* Resets every policy's own state (pcp's ceiling gate); at kernel init. */
void policies_reset(void);
void pcp_reset(void);

/* Default hooks, for a policy with nothing to do at that point (policy.c);
 * policy_refuse_ceiling refuses a ceiling, which such a policy ignores. */
int policy_refuse_ceiling(const pr_sem_attr_t *attr);         /* check_attr: no ceiling allowed */
int policy_admit(pr_sem_t *m, pr_task_t *t, pr_sem_t **wait_on); /* admit: go on */
int policy_allow_block(pr_sem_t *m, pr_task_t *t);             /* conflict: PR_OK */
void policy_ignore(pr_sem_t *m, pr_task_t *t);                 /* acquired, not_acquired, release */
void policy_ignore_abort(pr_sem_t *m, pr_task_t *t, int cause);/* abort */
pr_prio_t policy_lend_nothing(const pr_sem_t *m);              /* lend: PRIO_NONE */
int policy_no_commands(pr_sem_t *m, int cmd, void *arg);       /* control: PR_EINVAL */

/* Shared pieces of the protocols that lend priorities. */
pr_prio_t policy_lend_first_waiter(const pr_sem_t *m);         /* lend: the first waiter's priority */
void policy_relend_acquired(pr_sem_t *m, pr_task_t *t);        /* re-lend, cause ACQUIRE */
void policy_relend_inherit(pr_sem_t *m, pr_task_t *t);         /* re-lend, cause INHERIT */
void policy_relend_abort(pr_sem_t *m, pr_task_t *t, int cause);/* re-lend, the cause given */
int policy_needs_prio_mutex(const pr_sem_attr_t *attr);        /* PR_SEM_MUTEX | PR_SEM_PRIO */
int policy_check_ceiling(const pr_sem_attr_t *attr);           /* 0 .. PR_PRIO_MAX */
int policy_admit_below_ceiling(pr_sem_t *m, pr_task_t *t,
                               pr_sem_t **wait_on);            /* admit: PR_ECEILING above it */

#endif /* PRIORA_POLICY_H */
