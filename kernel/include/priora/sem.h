/*
 * The real-time semaphore facility (MINIX4RT's model, seed 000 sections 4-6).
 *
 * Semaphores live in a system pool sized at build time. A semaphore has a
 * value: a down decrements it and blocks the caller when the result is
 * negative, so a negative value counts the waiters; an up increments it and
 * wakes one waiter if there was any. A mutex starts at 1 and has a holder:
 * only the holder may up it, and an up that wakes a waiter hands the mutex
 * straight to that waiter.
 *
 * Wakeup order is chosen per semaphore: priority order (most urgent waiter
 * first, FIFO among equals; found in O(1) through a bitmap of per-priority
 * lists), or plain FIFO (arrival order).
 *
 * A mutex has a locking protocol (policy), plugged into the mechanism through
 * hooks (kernel/policy/policy.h): PR_PROTOCOL_NONE (waiters queue, no
 * priority change) or PR_PROTOCOL_PIP (basic priority inheritance,
 * transitive, with exact disinheritance).
 */
#ifndef PRIORA_SEM_H
#define PRIORA_SEM_H

#include "priora/types.h"

/* Flags of pr_sem_attr_t.flags. */
#define PR_SEM_PRIO  0x1u /* wake in priority order (else FIFO) */
#define PR_SEM_MUTEX 0x2u /* a mutex: initial value 1, has a holder */

typedef enum pr_protocol {
    PR_PROTOCOL_NONE = 0, /* no priority change (seed 003's basic priority, BP) */
    PR_PROTOCOL_PIP = 1   /* basic priority inheritance; needs PR_SEM_MUTEX | PR_SEM_PRIO */
} pr_protocol_t;
#define PR_PROTOCOL_COUNT 2

typedef struct pr_sem_attr {
    int value;              /* initial value: >= 0; exactly 1 for a mutex */
    int max;                /* counting: largest value (an up beyond it fails with
                               PR_EOVERFLOW); 0 = INT_MAX; must be 0 for a mutex */
    unsigned flags;         /* PR_SEM_PRIO, PR_SEM_MUTEX */
    pr_protocol_t protocol; /* PR_PROTOCOL_NONE unless a mutex */
    pr_prio_t ceiling;      /* reserved for ceiling protocols; must be 0 for now */
    const char *name;       /* up to PR_CONFIG_NAME_LEN-1 characters; NULL = "" */
} pr_sem_attr_t;

/* Defaults: value 0, FIFO, counting, no protocol, no name. */
void pr_sem_attr_init(pr_sem_attr_t *attr);

/* Allocates a semaphore from the pool; its id goes to *id. Its owner is the
 * calling task (PR_NO_TASK outside a task). Errors: PR_EINVAL (NULL pointer,
 * unknown flag or protocol, negative value, mutex whose value is not 1,
 * inheritance on a counting or FIFO semaphore, name too long, ceiling set,
 * max negative, below the value, or set on a mutex),
 * PR_ENOSPC (pool exhausted: nothing is allocated). */
int pr_sem_alloc(const pr_sem_attr_t *attr, pr_id_t *id);

/* Returns a semaphore to the pool. Refused with PR_EBUSY if tasks wait on it
 * or a task holds it (nothing changes: free it once they are gone).
 * Errors: PR_EBADID, PR_ENOTALLOC, PR_EBUSY. */
int pr_sem_free(pr_id_t id);

/* Decrements the value; blocks while the result is negative.
 * timeout: PR_NO_WAIT (fail with PR_EAGAIN rather than block), PR_FOREVER,
 * or n ticks: the wait ends with PR_ETIMEDOUT at tick (k + n), k the tick
 * the calling instant belongs to (port.h: pr_port_tick_due), if the
 * semaphore was not obtained before. Errors: PR_EBADID, PR_ENOTALLOC,
 * PR_EAGAIN, PR_ETIMEDOUT, PR_EHELD (the caller holds this mutex),
 * PR_EDEADLK (the holder chain leads back to the caller), PR_ECONTEXT (a
 * blocking down, or any mutex down, outside a task). */
int pr_sem_down(pr_id_t id, pr_timeout_t timeout);

/* pr_sem_down(id, PR_NO_WAIT). */
int pr_sem_trydown(pr_id_t id);

/* Increments the value; wakes the first waiter (priority or FIFO order) if
 * there is one; for a mutex, hands it to that waiter and recomputes the
 * caller's priority. Errors: PR_EBADID, PR_ENOTALLOC, PR_EPERM (mutex not
 * held by the caller), PR_ECONTEXT (mutex up outside a task), PR_EOVERFLOW
 * (the value is at its maximum: attr.max, or INT_MAX). */
int pr_sem_up(pr_id_t id);

typedef struct pr_sem_stats {
    uint32_t ups;         /* pr_sem_up calls that succeeded (each added one unit) */
    uint32_t downs;       /* pr_sem_down/trydown calls that passed validation, whatever their
                             outcome (obtained, PR_EAGAIN, PR_ETIMEDOUT, PR_EDEADLK) */
    uint32_t max_waiters; /* most tasks ever waiting at once */
} pr_sem_stats_t;

typedef struct pr_sem_status {
    pr_id_t index;   /* the semaphore's id */
    pr_id_t owner;   /* the task that allocated it, or PR_NO_TASK */
    pr_id_t holder;  /* mutex holder, or PR_NO_TASK */
    int waiters;     /* tasks waiting now */
    int value;       /* current value (negative: -waiters) */
} pr_sem_status_t;

/* Errors for the three calls below: PR_EBADID, PR_ENOTALLOC, PR_EINVAL (NULL). */
int pr_sem_stats(pr_id_t id, pr_sem_stats_t *stats);
int pr_sem_status(pr_id_t id, pr_sem_status_t *status);
/* The attributes given at allocation (name points into the descriptor). */
int pr_sem_attr_get(pr_id_t id, pr_sem_attr_t *attr);

/* Commands of pr_sem_control. The mechanism answers the generic ones; any
 * other goes to the semaphore's policy (its control hook), which answers
 * PR_EINVAL to commands it does not know. */
#define PR_SEM_CTL_PROTOCOL_NAME 1 /* arg: const char ** <- the policy's name ("none", "pip") */

/* Controls a semaphore's policy (seed 003's control operation).
 * Errors: PR_EBADID, PR_ENOTALLOC, PR_EINVAL (NULL arg, or a command neither
 * the mechanism nor the policy knows). */
int pr_sem_control(pr_id_t id, int cmd, void *arg);

#endif /* PRIORA_SEM_H */
