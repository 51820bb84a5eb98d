/*
 * Condition variables ([Tokuda-Nakajima 1993], section 3.1: rt_condition_wait and
 * rt_condition_signal over a lock variable).
 *
 * A condition variable is a wait list used with a mutex: a task that holds
 * the mutex and finds that it must wait for some condition calls
 * pr_cond_wait, which releases the mutex and blocks; another task makes the
 * condition true under the mutex and calls pr_cond_signal (wakes the most
 * urgent waiter) or pr_cond_broadcast (wakes them all, most urgent first).
 * A woken waiter locks the mutex again, through the mutex's own protocol,
 * before pr_cond_wait returns - also when it returns on its timeout.
 *
 * Condition variables live in their own pool (PR_CONFIG_MAX_CONDS). No
 * priority is inherited through a condition variable: nobody holds it, and
 * which task will signal is not known in advance. A waiter lends nothing
 * while it waits; once woken, it waits for the mutex like any locker and the
 * mutex's protocol applies (docs/semantics.md).
 */
#ifndef PRIORA_COND_H
#define PRIORA_COND_H

#include "priora/types.h"

/* Allocates a condition variable; its id goes to *id. name: up to
 * PR_CONFIG_NAME_LEN-1 characters, or NULL. Errors: PR_EINVAL (id NULL, name
 * too long), PR_ENOSPC (pool exhausted). Any context. */
int pr_cond_alloc(const char *name, pr_id_t *id);

/* Returns it to the pool. Errors: PR_EBADID, PR_ENOTALLOC, PR_EBUSY (tasks
 * wait on it: nothing changes). Any context. */
int pr_cond_free(pr_id_t id);

/* Releases `mutex` (which the caller holds; a recursive mutex whatever its
 * depth) and waits on the condition variable until it is signalled or the
 * timeout ends (PR_FOREVER, or n ticks: at tick k + n, k the tick the
 * calling instant belongs to). Then locks the mutex again, waiting for it
 * as long as needed and as its protocol says (a recursive mutex gets its
 * depth back), and returns PR_OK (signalled) or PR_ETIMEDOUT; the caller
 * holds the mutex in both cases. Errors, nothing changed: PR_EBADID,
 * PR_ENOTALLOC (cond, then mutex), PR_ECONTEXT (not a task), PR_EINVAL
 * (timeout PR_NO_WAIT, the semaphore is not a mutex, or other waiters of the
 * cond use another mutex), PR_EABORTED (rcs: the caller's section on that
 * mutex was aborted), PR_EPERM (the caller does not hold the mutex). Errors
 * after the wait, without the mutex: what locking it again returned
 * (PR_EDEADLK, PR_ECEILING). PR_EJOBABORTED (task.h): the caller's job was
 * aborted; if that ended its wait on the variable, it locked the mutex
 * again and holds it; if it ended the wait to lock it again, it does not
 * (pr_sem_status tells which). */
int pr_cond_wait(pr_id_t cond, pr_id_t mutex, pr_timeout_t timeout);

/* Wakes the most urgent waiter (FIFO among equals), if any. Errors:
 * PR_EBADID, PR_ENOTALLOC, PR_ECONTEXT (not a task: an interrupt cannot
 * hold the mutex that guards the condition; it ups a counting or binary
 * semaphore instead). */
int pr_cond_signal(pr_id_t cond);

/* Wakes every waiter, most urgent first. Errors: as pr_cond_signal. */
int pr_cond_broadcast(pr_id_t cond);

typedef struct pr_cond_status {
    pr_id_t index;                 /* the condition variable's id */
    char name[PR_CONFIG_NAME_LEN];
    int waiters;                   /* tasks waiting on it now */
    pr_id_t mutex;                 /* the mutex its waiters released, or PR_NO_SEM */
} pr_cond_status_t;

/* Errors: PR_EBADID, PR_ENOTALLOC, PR_EINVAL (NULL). Any context. */
int pr_cond_status(pr_id_t id, pr_cond_status_t *status);

#endif /* PRIORA_COND_H */
