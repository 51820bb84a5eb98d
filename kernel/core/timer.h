/*
 * Timers: a wheel of PR_CONFIG_TIMER_SLOTS lists (timer.c). A timer due at
 * tick e sits in slot e mod SLOTS, at the tail, so timers due at the same
 * tick fire in the order they were armed (the trace is deterministic).
 * Every task owns its timers (a wait's timeout, its release, its deadline),
 * and every software timer one (swtimer.c): none is ever allocated.
 */
#ifndef PRIORA_TIMER_H
#define PRIORA_TIMER_H

#include "priora/types.h"
#include "list.h"

typedef struct pr_timer {
    pr_link_t link;           /* in its wheel slot while armed; link.next is NULL when not */
    pr_ticks_t expiry;        /* absolute tick */
    void (*fire)(void *owner);
    void *owner;              /* the task or software timer it belongs to */
} pr_timer_t;

/* The wheel, and how many timers are armed in it. An empty slot means
 * nothing is due at that tick: the tick tests that first (kernel.c). */
extern pr_link_t pr_wheel[PR_CONFIG_TIMER_SLOTS];
extern int pr_timers_armed;

static inline pr_link_t *timer_slot(pr_ticks_t tick) { return &pr_wheel[tick & (PR_CONFIG_TIMER_SLOTS - 1)]; }
static inline int timer_armed(const pr_timer_t *tm) { return tm->link.next != NULL; }

void timer_init(pr_timer_t *tm, void (*fire)(void *owner), void *owner);
void timer_arm(pr_timer_t *tm, pr_ticks_t expiry);  /* expiry > now; re-arms an armed one */
void timers_reset(void);
void timers_fire_slot(pr_link_t *slot, pr_ticks_t now); /* slot = timer_slot(now), known to the caller */
static inline void timers_fire_due(pr_ticks_t now) { timers_fire_slot(timer_slot(now), now); }
pr_ticks_t timers_next_expiry(void); /* 0: no timer armed */
int timers_due_at(pr_ticks_t tick);  /* 1: a timer in tick's slot expires at tick */

/* An armed timer leaves the wheel, not armed any more. */
static inline void timer_unlink(pr_timer_t *tm)
{
    list_unlink(&tm->link);
    tm->link.next = NULL;
    pr_timers_armed--;
}

/* Cancels a timer (nothing if it is not armed). Inline: every wakeup of a
 * task that waited with a timeout cancels one: a test of one word when it
 * is not armed (the wait had no timeout), where a link that pointed to
 * itself would need its own address too. */
static inline void timer_cancel(pr_timer_t *tm)
{
    if (timer_armed(tm))
        timer_unlink(tm);
}

#endif /* PRIORA_TIMER_H */
