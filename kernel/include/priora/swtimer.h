/*
 * Software timers: one-shot and periodic, whose actions run in a timer
 * service task, in priority order ([Pessolani]'s virtual timers; HP-UX's
 * interval timers; FreeRTOS's timer daemon).
 *
 * A timer armed for tick e expires at the tick interrupt of tick e; the
 * interrupt only moves it to the service's list of due timers (O(1) per
 * timer) and makes the service task ready. The service task runs the due
 * timers' actions, most urgent timer first (FIFO among equals: the order
 * they expired in), never in the interrupt. The service's own priority is
 * set when it starts: it is an ordinary task, preempted by more urgent
 * ones, and its actions are late by whatever runs before it; each
 * expiry's lateness (the tick the action starts at minus the expiry tick)
 * is counted in the timer's status.
 *
 * A periodic timer is re-armed at expiry + period when it expires, so its
 * expiries stay on the grid of its first one however late its actions run.
 * An action runs with the timer's id and argument, in the service task:
 * it must not wait (its calls take PR_NO_WAIT), or the timers behind it
 * run late.
 */
#ifndef PRIORA_SWTIMER_H
#define PRIORA_SWTIMER_H

#include "priora/types.h"

typedef void (*pr_timer_action_t)(pr_id_t timer, void *arg);

typedef struct pr_timer_attr {
    const char *name;          /* up to PR_CONFIG_NAME_LEN-1 characters; NULL = "" */
    pr_timer_action_t action;  /* required */
    void *arg;                 /* passed to the action */
    pr_prio_t priority;        /* order among timers due at once, 0 .. PR_PRIO_MAX */
    pr_ticks_t period;         /* 0: one-shot; else ticks between expiries (<= UINT32_MAX) */
} pr_timer_attr_t;

/* Fills *attr with defaults: no name, no action, priority 0, one-shot. */
void pr_timer_attr_init(pr_timer_attr_t *attr);

/* Creates the timer service task at `priority` (0 .. PR_PRIO_MAX) and
 * returns its id in *task (if not NULL). Timers may be allocated and armed
 * before; their actions run once it is started. Errors: PR_EINVAL
 * (priority out of range), PR_ESTATE (already started), and pr_task_create's
 * (PR_ENOSPC). Any context. */
int pr_timer_service_start(pr_prio_t priority, pr_id_t *task);

/* Allocates a timer, not armed. Errors: PR_EINVAL (attr or id NULL, no
 * action, priority out of range, period above UINT32_MAX, name too long),
 * PR_ENOSPC (pool exhausted). Any context. */
int pr_timer_alloc(const pr_timer_attr_t *attr, pr_id_t *id);

/* Disarms it (if armed) and returns it to the pool; an expiry already due
 * but not yet run is dropped. Errors: PR_EBADID, PR_ENOTALLOC. Any
 * context; from its own action too. */
int pr_timer_free(pr_id_t id);

/* Arms it to expire `delay` ticks from now (at tick k + delay, k the tick
 * the calling instant belongs to: delay >= 1), then every period ticks if
 * it is periodic. An armed timer is re-armed (its pending expiry, due or
 * not, is dropped). Errors: PR_EBADID, PR_ENOTALLOC, PR_EINVAL (delay 0 or
 * PR_FOREVER). Any context, interrupts included. */
int pr_timer_start(pr_id_t id, pr_timeout_t delay);

/* Disarms it: no further expiry, and one already due but not yet run is
 * dropped. Stopping a timer that is not armed changes nothing. Errors:
 * PR_EBADID, PR_ENOTALLOC. Any context. */
int pr_timer_stop(pr_id_t id);

typedef struct pr_timer_status {
    pr_id_t index;                 /* the timer's id */
    char name[PR_CONFIG_NAME_LEN];
    int armed;                     /* 1 while an expiry is to come or due */
    pr_ticks_t expiry;             /* its next expiry tick, while armed */
    pr_prio_t priority;
    pr_ticks_t period;
    uint32_t expiries;             /* expiries whose action ran (mod 2^32) */
    uint32_t dropped;              /* expiries dropped: the previous one's action had not run yet */
    pr_ticks_t max_lateness;       /* the largest lateness of an action, in ticks */
} pr_timer_status_t;

/* Errors: PR_EBADID, PR_ENOTALLOC, PR_EINVAL (NULL). Any context. */
int pr_timer_status(pr_id_t id, pr_timer_status_t *status);

#endif /* PRIORA_SWTIMER_H */
