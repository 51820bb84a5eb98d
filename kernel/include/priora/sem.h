/*
 * The real-time semaphore facility (MINIX4RT's model [Pessolani], sections 4-6).
 *
 * Semaphores live in a system pool sized at build time. A semaphore has a
 * value: a down decrements it and blocks the caller when the result is
 * negative, so a negative value counts the waiters; an up increments it and
 * wakes one waiter if there was any. A mutex starts at 1 and has a holder:
 * only the holder may up it, and an up that wakes a waiter hands the mutex
 * straight to that waiter.
 *
 * Kinds: counting (the default; an optional maximum), binary (PR_SEM_BINARY:
 * a counting semaphore whose value is 0 or 1), mutex (PR_SEM_MUTEX) and
 * recursive mutex (PR_SEM_MUTEX | PR_SEM_RECURSIVE: the holder may lock it
 * again and unlocks it as many times). Condition variables are their own
 * objects (cond.h).
 *
 * Wakeup order is chosen per semaphore: priority order (most urgent waiter
 * first, FIFO among equals; found in O(1) through a bitmap of per-priority
 * lists), or plain FIFO (arrival order).
 *
 * A mutex has a locking protocol (policy), plugged into the mechanism through
 * hooks (kernel/policy/policy.h; docs/protocols.md compares them):
 * PR_PROTOCOL_NONE (waiters queue, no priority change), PR_PROTOCOL_PIP
 * (basic priority inheritance), PR_PROTOCOL_PCP (the original priority
 * ceiling protocol), PR_PROTOCOL_IPCP (immediate ceiling), PR_PROTOCOL_NPCS
 * (non-preemptive critical section) and PR_PROTOCOL_RCS (restartable
 * critical section).
 */
#ifndef PRIORA_SEM_H
#define PRIORA_SEM_H

#include "priora/types.h"

/* Flags of pr_sem_attr_t.flags. */
#define PR_SEM_PRIO      0x1u /* wake in priority order (else FIFO) */
#define PR_SEM_MUTEX     0x2u /* a mutex: initial value 1, has a holder */
#define PR_SEM_RECURSIVE 0x4u /* with PR_SEM_MUTEX: the holder may lock it again */
#define PR_SEM_BINARY    0x8u /* a binary semaphore: counting, value 0 or 1 */

typedef enum pr_protocol {
    PR_PROTOCOL_NONE = 0, /* no priority change ([Tokuda-Nakajima 1993]'s basic priority, BP) */
    PR_PROTOCOL_PIP = 1,  /* basic priority inheritance (BPI) */
    PR_PROTOCOL_PCP = 2,  /* original priority ceiling protocol (PCP); needs a ceiling */
    PR_PROTOCOL_IPCP = 3, /* immediate ceiling (highest locker); needs a ceiling */
    PR_PROTOCOL_NPCS = 4, /* non-preemptive critical section ([Tokuda-Nakajima 1993]'s kernelized monitor, KM) */
    PR_PROTOCOL_RCS = 5   /* restartable critical section (RCS) */
} pr_protocol_t;
#define PR_PROTOCOL_COUNT 6

typedef struct pr_sem_attr {
    int value;              /* initial value: >= 0; exactly 1 for a mutex; 0 or 1 for a binary */
    int max;                /* counting: largest value (an up beyond it fails with
                               PR_EOVERFLOW); 0 = INT_MAX; 0 or 1 for a binary
                               (its maximum is 1); must be 0 for a mutex */
    unsigned flags;         /* PR_SEM_PRIO, PR_SEM_MUTEX, PR_SEM_RECURSIVE, PR_SEM_BINARY */
    pr_protocol_t protocol; /* PR_PROTOCOL_NONE unless a mutex; all but none and npcs
                               need PR_SEM_PRIO */
    pr_prio_t ceiling;      /* pcp, ipcp: the mutex's ceiling, 0 .. PR_PRIO_MAX (the
                               base priority of the most urgent task that locks it);
                               must be 0 for the other protocols */
    const char *name;       /* up to PR_CONFIG_NAME_LEN-1 characters; NULL = "" */
} pr_sem_attr_t;

/* Defaults: value 0, FIFO, counting, no protocol, no name. */
void pr_sem_attr_init(pr_sem_attr_t *attr);

/* Allocates a semaphore from the pool; its id goes to *id. Its owner is the
 * calling task (PR_NO_TASK outside a task). Errors: PR_EINVAL (NULL pointer,
 * unknown flag or protocol, negative value, mutex whose value is not 1,
 * PR_SEM_RECURSIVE without PR_SEM_MUTEX, PR_SEM_BINARY with PR_SEM_MUTEX or
 * with a value or max above 1, a protocol on a counting semaphore, a protocol
 * other than none and npcs without PR_SEM_PRIO, name too long, a ceiling
 * outside 0 .. PR_PRIO_MAX for pcp and ipcp or not 0 for the others, max
 * negative, below the value, or set on a mutex), PR_EPRIV_CEILING (a
 * mutex whose ceiling is above the calling task's base priority, an npcs
 * mutex's being PR_PRIO_MAX, without PR_PRIV_CEILING: privilege.h),
 * PR_ENOSPC (pool exhausted: nothing is allocated). */
int pr_sem_alloc(const pr_sem_attr_t *attr, pr_id_t *id);

/* Returns a semaphore to the pool. Refused with PR_EBUSY if tasks wait on it
 * or for it (pcp: blocked by the system ceiling), a task holds it, or a task
 * aborted from it (rcs) has not yet recovered (nothing changes: free it once
 * they are gone). Errors: PR_EBADID, PR_ENOTALLOC, PR_EBUSY. */
int pr_sem_free(pr_id_t id);

/* Decrements the value; blocks while the result is negative. On a mutex
 * the protocol decides too: pcp blocks a caller whose priority is not above
 * the system ceiling even on a free mutex; rcs takes the mutex at once from a
 * less urgent holder, whose critical section is aborted.
 * timeout: PR_NO_WAIT (fail with PR_EAGAIN rather than block), PR_FOREVER,
 * or n ticks: the wait ends with PR_ETIMEDOUT at tick (k + n), k the tick
 * the calling instant belongs to (port.h: pr_port_tick_due), if the
 * semaphore was not obtained before. Errors: PR_EBADID, PR_ENOTALLOC,
 * PR_ECONTEXT (a blocking down, or any mutex down, outside a task),
 * PR_EABORTED (rcs: the caller's section on this mutex was aborted; this
 * call reports it and does nothing else), PR_EHELD (the caller holds this
 * mutex, not recursive), PR_EOVERFLOW (a recursive mutex locked INT_MAX
 * times), PR_ECEILING (pcp, ipcp: the caller's base priority is above the
 * ceiling), PR_EAGAIN, PR_EDEADLK (the holder chain leads back to the
 * caller), PR_ETIMEDOUT. */
int pr_sem_down(pr_id_t id, pr_timeout_t timeout);

/* pr_sem_down(id, PR_NO_WAIT): the try-lock of every kind. */
int pr_sem_trydown(pr_id_t id);

/* Increments the value; wakes the first waiter (priority or FIFO order) if
 * there is one; for a mutex, hands it to that waiter and recomputes the
 * caller's priority. A recursive mutex locked n times is released by the
 * n-th up; the others only count down. Errors: PR_EBADID, PR_ENOTALLOC,
 * PR_ECONTEXT (mutex up outside a task), PR_EABORTED (rcs: the caller's
 * section on this mutex was aborted; reported once, nothing else happens),
 * PR_EPERM (mutex not held by the caller), PR_EOVERFLOW (the value is at its
 * maximum: attr.max, 1 for a binary semaphore, or INT_MAX). */
int pr_sem_up(pr_id_t id);

/* rcs: the number of the caller's critical sections that were aborted and
 * whose abort it has not yet been told of (by PR_EABORTED from a call on
 * that mutex); 0 outside a task. While it is not 0, pr_port_consume (the
 * scenario interpreter's compute) returns at once: an aborted section stops
 * computing. Never fails. */
int pr_sem_aborted(void);

typedef struct pr_sem_stats {
    uint32_t ups;         /* pr_sem_up calls that succeeded (each added one unit, or
                             unlocked a recursive mutex one level) */
    uint32_t downs;       /* pr_sem_down/trydown calls that passed validation, whatever their
                             outcome (obtained, PR_EAGAIN, PR_ETIMEDOUT, PR_EDEADLK) */
    uint32_t max_waiters; /* most tasks ever waiting at once */
    uint32_t aborts;      /* rcs: holders whose critical section was aborted */
} pr_sem_stats_t;

typedef struct pr_sem_status {
    pr_id_t index;   /* the semaphore's id */
    pr_id_t owner;   /* the task that allocated it, or PR_NO_TASK */
    pr_id_t holder;  /* mutex holder, or PR_NO_TASK */
    int waiters;     /* tasks waiting now in its wait list (pcp: not those
                        blocked by the system ceiling) */
    int value;       /* current value (negative: -waiters) */
    int depth;       /* mutex: times the holder has locked it (more than 1 only
                        for a recursive mutex); 0 when free or counting */
} pr_sem_status_t;

/* Errors for the three calls below: PR_EBADID, PR_ENOTALLOC, PR_EINVAL (NULL). */
int pr_sem_stats(pr_id_t id, pr_sem_stats_t *stats);
int pr_sem_status(pr_id_t id, pr_sem_status_t *status);
/* The attributes given at allocation (name points into the descriptor). */
int pr_sem_attr_get(pr_id_t id, pr_sem_attr_t *attr);

/* Commands of pr_sem_control. The mechanism answers the generic ones; any
 * other goes to the semaphore's policy (its control hook), which answers
 * PR_EINVAL to commands it does not know. */
#define PR_SEM_CTL_PROTOCOL_NAME 1 /* arg: const char ** <- the policy's name ("none", "pip",
                                      "pcp", "ipcp", "npcs", "rcs") */
#define PR_SEM_CTL_RECOVERY 2      /* rcs only; arg: const pr_sem_recovery_t * -> the mutex's
                                      recovery (below); fn NULL removes it */

/*
 * The recovery of a restartable critical section (rcs) [Tokuda-Nakajima
 * 1993]. Without one, a more urgent task that asks for an rcs mutex held by
 * a less urgent task takes it over at once: the holder learns of the abort
 * at its next call on the mutex (PR_EABORTED). With one, the requester
 * waits instead, and the holder inherits its priority while it recovers:
 * the holder's computing stops (pr_port_consume returns), and its next
 * call on the mutex (an up, a down, a condition wait) runs fn(mutex, arg)
 * in the holder's context, with interrupts enabled, at the inherited
 * priority, to restore the shared state the section was changing; then
 * gives the mutex up (the requester is handed it) and returns PR_EABORTED.
 * The holder then locks again and restarts its section. fn must not block
 * on the mutex; it may compute, and call the kernel on other objects.
 */
typedef struct pr_sem_recovery {
    void (*fn)(pr_id_t mutex, void *arg);
    void *arg;
} pr_sem_recovery_t;

/* Controls a semaphore's policy ([Tokuda-Nakajima 1993]'s control operation).
 * Errors: PR_EBADID, PR_ENOTALLOC, PR_EINVAL (NULL arg, or a command neither
 * the mechanism nor the policy knows). */
int pr_sem_control(pr_id_t id, int cmd, void *arg);

#endif /* PRIORA_SEM_H */
