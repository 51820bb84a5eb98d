/*
 * Basic types shared by every Priora call.
 */
#ifndef PRIORA_TYPES_H
#define PRIORA_TYPES_H

#include <stdint.h>
#include <stddef.h>
#include "priora/config.h"

/* A task or semaphore is named by its index in its pool. */
typedef int pr_id_t;

/* "No task" (for example: a semaphore allocated before the kernel started
 * has no owner; a free mutex has no holder). */
#define PR_NO_TASK ((pr_id_t)-1)

/* "No semaphore" (a task that waits on nothing). */
#define PR_NO_SEM ((pr_id_t)-1)

/* "No condition variable" (a task that waits on none). */
#define PR_NO_COND ((pr_id_t)-1)

/* "No event flags object", "no message queue", "no software timer". */
#define PR_NO_EVENTS ((pr_id_t)-1)
#define PR_NO_MSGQ ((pr_id_t)-1)
#define PR_NO_TIMER ((pr_id_t)-1)

/* Priorities: 0 .. PR_PRIO_MAX, larger = more urgent. */
typedef int pr_prio_t;
#define PR_PRIO_MAX (PR_CONFIG_PRIORITIES - 1)

/* Tick counts (64-bit: never wraps in practice). */
typedef uint64_t pr_ticks_t;

/* Relative timeouts and delays, in ticks. */
typedef uint32_t pr_timeout_t;
#define PR_NO_WAIT ((pr_timeout_t)0)           /* fail at once with PR_EAGAIN */
#define PR_FOREVER ((pr_timeout_t)0xFFFFFFFFu) /* wait without a timeout */

#endif /* PRIORA_TYPES_H */
