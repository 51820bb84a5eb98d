/*
 * Locking policies, separated from the lock mechanism (seed 003, section
 * 3.2). The mechanism (core/sem.c) owns the value, the holder, the wait list
 * and the blocking; a policy decides how priorities react. The mechanism
 * calls a policy at these points, always with the kernel's state consistent:
 *
 *   check_attr    at allocation: may refuse attributes it cannot serve.
 *   conflict      a task asks for a mutex that another task holds, before
 *                 it blocks: returning an error fails the down (nothing has
 *                 changed), PR_OK lets it block.
 *   acquired      a task has just become the holder (free mutex, or handed
 *                 over by an up).
 *   not_acquired  a task has just been queued on the mutex.
 *   release       the holder has just given the mutex up; the mechanism has
 *                 already withdrawn what the mutex lent it.
 *   abort         a waiter has just left the wait list without the mutex
 *                 (cause: PR_CAUSE_TIMEOUT or PR_CAUSE_DELETE).
 *   lend          what priority the mutex lends its holder now (PRIO_NONE
 *                 for nothing); read by the mechanism's chain walk
 *                 (core/priority.c) each time it passes through the mutex.
 *   control       policy-specific commands (PR_EINVAL for unknown ones).
 *
 * And one property, quiet_uncontended: 1 if, while nobody waits on a mutex,
 * acquired and release do nothing and lend gives PRIO_NONE (none and pip).
 * The mechanism then takes and gives such a mutex on its fast paths,
 * without calling them (core/sem.c). A policy that acts on an uncontended
 * mutex (immediate ceiling lends its ceiling from the take on) sets 0, and
 * its hooks are called on every take and give.
 *
 * A protocol that needs only these points is a new file in this folder, its
 * number in sem.h (pr_protocol_t), its pr_policy_t declared above and mapped in
 * policy.c, and its file in CMakeLists.txt. What the ceiling protocols and restartable critical
 * sections need beyond them (a ceiling attribute - refused by check_attr
 * today; a test on a free mutex, for the original priority ceiling
 * protocol; aborting a holder) is added to the mechanism with them.
 */
#ifndef PRIORA_POLICY_H
#define PRIORA_POLICY_H

#include "../core/internal.h"

typedef struct pr_policy {
    const char *name;
    int (*check_attr)(const pr_sem_attr_t *attr);
    int (*conflict)(pr_sem_t *m, pr_task_t *t);
    void (*acquired)(pr_sem_t *m, pr_task_t *t);
    void (*not_acquired)(pr_sem_t *m, pr_task_t *t);
    void (*release)(pr_sem_t *m, pr_task_t *t);
    void (*abort)(pr_sem_t *m, pr_task_t *t, int cause);
    pr_prio_t (*lend)(const pr_sem_t *m);
    int (*control)(pr_sem_t *m, int cmd, void *arg);
    int quiet_uncontended;
} pr_policy_t;

extern const pr_policy_t pr_policy_none;
extern const pr_policy_t pr_policy_pip;

/* The policy of a protocol number, or NULL if unknown. */
const pr_policy_t *policy_of(pr_protocol_t protocol);

/* Default hooks, for a policy with nothing to do at that point (policy.c);
 * policy_refuse_ceiling refuses a ceiling, which such a policy ignores. */
int policy_refuse_ceiling(const pr_sem_attr_t *attr);         /* check_attr: no ceiling allowed */
int policy_allow_block(pr_sem_t *m, pr_task_t *t);             /* conflict: PR_OK */
void policy_ignore(pr_sem_t *m, pr_task_t *t);                 /* acquired, not_acquired, release */
void policy_ignore_abort(pr_sem_t *m, pr_task_t *t, int cause);/* abort */
pr_prio_t policy_lend_nothing(const pr_sem_t *m);              /* lend: PRIO_NONE */
int policy_no_commands(pr_sem_t *m, int cmd, void *arg);       /* control: PR_EINVAL */

#endif /* PRIORA_POLICY_H */
