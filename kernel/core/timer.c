/*
 * Timers: a wheel of PR_CONFIG_TIMER_SLOTS lists. A timer due at tick e sits
 * in slot e mod SLOTS, at the tail (so timers due at the same tick fire in
 * the order they were armed: the trace is deterministic).
 *
 * Costs (docs/costs.md): arm O(1), cancel O(1). The tick scans one slot:
 * O(timers in that slot), and fires the due ones, each O(its action). With
 * every timeout shorter than SLOTS ticks, every timer in the slot is due.
 * At most 3 timers per task exist (timeout, release, deadline), and one
 * per software timer.
 */
#include "timer.h"

pr_link_t pr_wheel[PR_CONFIG_TIMER_SLOTS];
int pr_timers_armed;

void timers_reset(void)
{
    for (int i = 0; i < PR_CONFIG_TIMER_SLOTS; i++)
        list_init(&pr_wheel[i]);
    pr_timers_armed = 0;
}

void timer_init(pr_timer_t *tm, void (*fire)(void *owner), void *owner)
{
    tm->link.next = tm->link.prev = NULL; /* not armed */
    tm->expiry = 0;
    tm->fire = fire;
    tm->owner = owner;
}

void timer_arm(pr_timer_t *tm, pr_ticks_t expiry)
{
    timer_cancel(tm);
    tm->expiry = expiry;
    list_push_back(timer_slot(expiry), &tm->link);
    pr_timers_armed++;
}

/* Whether a timer is due at `tick`: one in its slot with that expiry (the
 * others there are due in later laps). O(timers in the slot), as the
 * tick's own scan of it. */
int timers_due_at(pr_ticks_t tick)
{
    pr_link_t *slot = timer_slot(tick);
    for (pr_link_t *l = slot->next; l != slot; l = l->next)
        if (container_of(l, pr_timer_t, link)->expiry == tick)
            return 1;
    return 0;
}

/* The earliest expiry among the armed timers, 0 when none is armed: one
 * pass over the wheel, O(PR_CONFIG_TIMER_SLOTS + armed timers). */
pr_ticks_t timers_next_expiry(void)
{
    pr_ticks_t earliest = 0;
    for (int i = 0; i < PR_CONFIG_TIMER_SLOTS; i++) {
        for (pr_link_t *l = pr_wheel[i].next; l != &pr_wheel[i]; l = l->next) {
            pr_ticks_t expiry = container_of(l, pr_timer_t, link)->expiry;
            if (earliest == 0 || expiry < earliest)
                earliest = expiry;
        }
    }
    return earliest;
}

/*
 * Fires the timers due at `now`. They are first moved, in order, to a local
 * list, because firing one may cancel or re-arm others of the same slot (a
 * deadline miss wakes a watchdog and cancels its timeout); a cancelled timer
 * simply leaves the local list.
 */
void timers_fire_slot(pr_link_t *slot, pr_ticks_t now)
{
    pr_link_t *first = slot->next;
    /* The usual slot: one timer. Due, it is fired last, by a tail call, and
     * nothing is left to scan: the local list would change nothing, and
     * this needs no stack frame. */
    if (first != slot && first->next == slot) {
        pr_timer_t *tm = container_of(first, pr_timer_t, link);
        if (tm->expiry != now)
            return;
        timer_unlink(tm);
        tm->fire(tm->owner);
        return;
    }
    pr_link_t due;
    list_init(&due);

    for (pr_link_t *l = slot->next, *next; l != slot; l = next) {
        next = l->next;
        if (container_of(l, pr_timer_t, link)->expiry == now) {
            list_remove(l);
            list_push_back(&due, l);
        }
    }
    while (!list_empty(&due)) {
        pr_timer_t *tm = container_of(due.next, pr_timer_t, link);
        timer_cancel(tm);
        tm->fire(tm->owner);
    }
}
