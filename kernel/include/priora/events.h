/*
 * Event flags: a word of 32 flags per object that tasks wait on
 * ([Tokuda-Nakajima 1993]'s rt_event_send and rt_event_receive; the event
 * groups of FreeRTOS and Zephyr).
 *
 * Any context sets and clears flags, interrupts included. A task waits for
 * any or for all of a mask of flags, optionally clearing them when its wait
 * is satisfied, with a timeout. A set wakes every waiter that the flags now
 * satisfy, most urgent first (FIFO among equals): each is judged against the
 * flags as the set left them, and the flags that the woken waiters asked to
 * clear are cleared once all of them are judged, so one set never satisfies
 * one waiter at the expense of another (docs/semantics.md).
 *
 * Nobody holds event flags, so no priority is inherited through them: which
 * task will set a flag is not known in advance.
 */
#ifndef PRIORA_EVENTS_H
#define PRIORA_EVENTS_H

#include "priora/types.h"

/* pr_events_wait's options, or-ed. */
#define PR_EVENTS_ANY 0u   /* satisfied when any flag of the mask is set (the default) */
#define PR_EVENTS_ALL 1u   /* satisfied when every flag of the mask is set */
#define PR_EVENTS_CLEAR 2u /* the flags of the mask are cleared when the wait is satisfied */

/* Allocates an event flags object, every flag clear; its id goes to *id.
 * name: up to PR_CONFIG_NAME_LEN-1 characters, or NULL. Errors: PR_EINVAL
 * (id NULL, name too long), PR_ENOSPC (pool exhausted). Any context. */
int pr_events_alloc(const char *name, pr_id_t *id);

/* Returns it to the pool. Errors: PR_EBADID, PR_ENOTALLOC, PR_EBUSY (tasks
 * wait on it: nothing changes). Any context. */
int pr_events_free(pr_id_t id);

/* Sets the flags of `mask` and wakes every waiter they satisfy (see above).
 * A mask of 0 changes nothing and wakes nobody. Errors: PR_EBADID,
 * PR_ENOTALLOC. Any context, interrupts included: the woken tasks run when
 * the interrupt ends if they are more urgent. */
int pr_events_set(pr_id_t id, uint32_t mask);

/* Clears the flags of `mask`; wakes nobody. Errors: PR_EBADID, PR_ENOTALLOC.
 * Any context. */
int pr_events_clear(pr_id_t id, uint32_t mask);

/* Waits until the flags satisfy `mask` under `options` (PR_EVENTS_ANY or
 * PR_EVENTS_ALL, optionally | PR_EVENTS_CLEAR), or the timeout ends
 * (PR_NO_WAIT: do not wait; PR_FOREVER; or n ticks: at tick k + n, k the
 * tick the calling instant belongs to). If already satisfied, returns at
 * once. On PR_OK *flags (if not NULL) receives the flags that satisfied the
 * wait, before any clearing; on PR_ETIMEDOUT and PR_EAGAIN the flags at
 * that instant. Errors, nothing changed: PR_EBADID, PR_ENOTALLOC, PR_EINVAL
 * (mask 0, unknown option bits), PR_EAGAIN (PR_NO_WAIT and not satisfied),
 * PR_ECONTEXT (it would wait and the caller is not a task). After a wait:
 * PR_ETIMEDOUT. */
int pr_events_wait(pr_id_t id, uint32_t mask, unsigned options, pr_timeout_t timeout, uint32_t *flags);

typedef struct pr_events_status {
    pr_id_t index;                 /* the object's id */
    char name[PR_CONFIG_NAME_LEN];
    uint32_t flags;                /* the flags now */
    int waiters;                   /* tasks waiting on it now */
    uint32_t sets;                 /* pr_events_set calls on it (mod 2^32) */
    uint32_t wakeups;              /* waits it satisfied by a set (mod 2^32) */
} pr_events_status_t;

/* Errors: PR_EBADID, PR_ENOTALLOC, PR_EINVAL (NULL). Any context. */
int pr_events_status(pr_id_t id, pr_events_status_t *status);

#endif /* PRIORA_EVENTS_H */
