/*
 * Software timers (swtimer.h): a pool of timers, each with a kernel timer
 * in the wheel (timer.h), and the timer service task that runs their
 * actions.
 *
 * At the tick of an expiry the wheel fires the kernel timer (expire): the
 * software timer becomes due, a periodic one is re-armed at expiry +
 * period, and the service task is made ready if it sleeps. That is all the
 * tick interrupt does: O(1) per timer due, so a tick with k software
 * timers due costs O(k) on top of the wheel's own work, k <= the timers
 * allocated (PR_CONFIG_MAX_TIMERS). The actions run in the service task,
 * one at a time, the most urgent due timer first.
 *
 * The due timers are the due list, a priority list by the timers'
 * priority (FIFO among equals: their order of expiry), and with
 * PR_CONFIG_FAST_PATHS the one handed to the service: a timer that expires
 * while the service sleeps is the only one due, and it is given to the
 * service as such, without the list. It stays ahead of the list: it is
 * put on the list first, at the tail of its level, when another expires
 * before the service took it, so the order is the list's own either way.
 *
 * The service sleeps in PR_TASK_WAIT_RELEASE, and is `sleeper` while it
 * does: for it, a due timer is a release. It is an ordinary task
 * otherwise (a pool slot, a priority, a stack; swtimer_service.c creates
 * it); deleting it stops the actions until pr_timer_service_start makes
 * another.
 */
#include <string.h>
#include "swtimer_impl.h"
#include "sched.h"
#include "trace_impl.h"

enum { DUE_LISTED = 1, DUE_HANDED = 2 }; /* how a timer is due: in the due list, or handed */

typedef struct pr_swtimer {
    pr_link_t pool_link;        /* in the free list */
    pr_link_t due_link;         /* in the due list, while due */
    pr_id_t index;
    int allocated;
    int due;                    /* its action is to run: DUE_LISTED or DUE_HANDED, else 0 */
    pr_ticks_t due_expiry;      /* while due: the expiry it is due for */
    pr_timer_action_t action;
    void *arg;
    pr_prio_t priority;
    pr_ticks_t period;
    uint32_t expiries, dropped;
    pr_ticks_t max_lateness;
    char name[PR_CONFIG_NAME_LEN];
    pr_timer_t kernel_timer;    /* in the wheel while armed */
} pr_swtimer_t;

static pr_swtimer_t pool[PR_CONFIG_MAX_TIMERS];
static pr_link_t free_list; /* freed descriptors go to the tail: reused last */
static pr_plist_t due_list; /* by the timers' priority, FIFO among equals */
static pr_swtimer_t *handed; /* the due timer ahead of the due list (then empty), or NULL */
static pr_task_t *sleeper;  /* the service task while it sleeps, else NULL */

static int swtimer_lookup(pr_id_t id, pr_swtimer_t **out)
{
    if (id < 0 || id >= PR_CONFIG_MAX_TIMERS)
        return PR_EBADID;
    if (!pool[id].allocated)
        return PR_ENOTALLOC;
    *out = &pool[id];
    return PR_OK;
}

#define swtimer_trace_id(id) trace_id_of((id), PR_CONFIG_MAX_TIMERS)

/* ---- the due timers ---- */

/* tm, due, joins the tail of its level of the due list, behind the handed
 * timer if there is one (which goes first). */
static void due_push(pr_swtimer_t *tm)
{
    if (handed != NULL) {
        handed->due = DUE_LISTED;
        plist_push_back(&due_list, handed->priority, &handed->due_link);
        handed = NULL;
    }
    tm->due = DUE_LISTED;
    plist_push_back(&due_list, tm->priority, &tm->due_link);
}

/* tm becomes due for `expiry`, in the tick interrupt: if the service
 * sleeps, nothing else is due, and tm is handed to it (the list with the
 * fast paths compiled out); the service is made ready inline. */
static inline void due_add(pr_swtimer_t *tm, pr_ticks_t expiry)
{
    tm->due_expiry = expiry;
    pr_task_t *s = sleeper;
    if (s == NULL) {
        due_push(tm);
        return;
    }
    PR_ASSERT(handed == NULL && plist_empty(&due_list));
    if (PR_CONFIG_FAST_PATHS) {
        tm->due = DUE_HANDED;
        handed = tm;
    } else {
        due_push(tm);
    }
    sleeper = NULL;
    ready_add(s);
}

/* The most urgent due timer, no longer due; NULL if none is. */
static inline pr_swtimer_t *due_take(void)
{
    pr_swtimer_t *tm = handed;
    if (tm != NULL) {
        handed = NULL;
    } else if (!plist_empty(&due_list)) {
        int level = plist_top_level(&due_list);
        tm = container_of(due_list.level[level].next, pr_swtimer_t, due_link);
        plist_remove(&due_list, level, &tm->due_link);
    } else {
        return NULL;
    }
    tm->due = 0;
    return tm;
}

/* tm's due expiry, if it has one, is dropped. */
static void undue(pr_swtimer_t *tm)
{
    int due = tm->due;
    if (due == 0)
        return;
    if (due == DUE_HANDED)
        handed = NULL;
    else
        plist_remove(&due_list, tm->priority, &tm->due_link);
    tm->due = 0;
}

/* The service task ends (task.c: it is deleted): it sleeps no more. */
void swtimer_task_gone(pr_task_t *t)
{
    if (sleeper == t)
        sleeper = NULL;
}

/* The kernel timer fired, in the tick interrupt (timer.c). A periodic
 * timer is re-armed last, by a tail call: the expiry calls nothing else
 * and needs no stack frame. */
static void expire(void *owner)
{
    pr_swtimer_t *tm = owner;
    pr_ticks_t expiry = tm->kernel_timer.expiry;
    int overrun = tm->due != 0; /* its last expiry's action has not run yet */
    trace_emit(PR_EV_TIMER_EXPIRE, trace_who(NULL), (uint8_t)tm->index, PR_OK, (uint8_t)overrun, 0, (int32_t)expiry);
    if (overrun)
        tm->dropped++;
    else
        due_add(tm, expiry);
    if (tm->period != 0)
        timer_arm(&tm->kernel_timer, expiry + tm->period);
}

void swtimers_reset(void)
{
    list_init(&free_list);
    plist_init(&due_list);
    handed = NULL;
    sleeper = NULL;
    for (int i = 0; i < PR_CONFIG_MAX_TIMERS; i++) {
        pr_swtimer_t *tm = &pool[i];
        memset(tm, 0, sizeof *tm);
        tm->index = i;
        timer_init(&tm->kernel_timer, expire, tm);
        list_push_back(&free_list, &tm->pool_link);
    }
}

/* ---- the service task ---- */

/* Runs the due timers' actions, most urgent first, for ever. Between two
 * actions it takes the next due timer with interrupts masked; an action
 * runs with them restored, as any task code. */
void swtimer_service_body(void *arg)
{
    (void)arg;
    pr_task_t *me = pr_k.current;
    for (;;) {
        pr_irq_state_t irq = pr_port_irq_save();
        pr_swtimer_t *tm;
        while ((tm = due_take()) == NULL) {
            sleeper = me;
            sched_make_unready(me, PR_TASK_WAIT_RELEASE);
            sched_reschedule(); /* returns when a timer is due (due_add) */
        }
        /* Its lateness: the tick this instant belongs to (tick_now), minus
         * the expiry. Most often the action runs in the tick of its expiry,
         * with no tick pending: no lateness, and no maximum to compare. */
        pr_ticks_t lateness = 0;
        if (pr_k.ticks != tm->due_expiry || pr_port_tick_due()) {
            lateness = tick_now() - tm->due_expiry;
            if (lateness > tm->max_lateness)
                tm->max_lateness = lateness;
        }
        tm->expiries++;
        trace_emit(PR_EV_TIMER_RUN, trace_who(me), (uint8_t)tm->index, PR_OK, 0, 0, (int32_t)lateness);
        pr_timer_action_t action = tm->action;
        void *action_arg = tm->arg;
        pr_port_irq_restore(irq);
        action(tm->index, action_arg);
    }
}

/* ---- the calls ---- */

void pr_timer_attr_init(pr_timer_attr_t *attr)
{
    if (attr != NULL)
        memset(attr, 0, sizeof *attr);
}

static int swtimer_alloc(const pr_timer_attr_t *a, pr_id_t *id)
{
    if (a == NULL || id == NULL || a->action == NULL || a->priority < 0 || a->priority > PR_PRIO_MAX ||
        a->period > UINT32_MAX || (a->name != NULL && strlen(a->name) >= PR_CONFIG_NAME_LEN))
        return PR_EINVAL;
    if (list_empty(&free_list))
        return PR_ENOSPC;
    pr_swtimer_t *tm = container_of(free_list.next, pr_swtimer_t, pool_link);
    list_remove(&tm->pool_link);
    tm->allocated = 1;
    tm->due = 0;
    tm->action = a->action;
    tm->arg = a->arg;
    tm->priority = a->priority;
    tm->period = a->period;
    tm->expiries = tm->dropped = 0;
    tm->max_lateness = 0;
    name_copy(tm->name, a->name);
    *id = tm->index;
    return PR_OK;
}

static int swtimer_free(pr_id_t id)
{
    pr_swtimer_t *tm;
    int err = swtimer_lookup(id, &tm);
    if (err != PR_OK)
        return err;
    timer_cancel(&tm->kernel_timer);
    undue(tm);
    tm->allocated = 0;
    list_push_back(&free_list, &tm->pool_link);
    return PR_OK;
}

static int swtimer_start(pr_id_t id, pr_timeout_t delay, int start)
{
    pr_swtimer_t *tm = NULL;
    int err = swtimer_lookup(id, &tm);
    if (err == PR_OK && start && (delay == 0 || delay == PR_FOREVER))
        err = PR_EINVAL;
    pr_ticks_t expiry = 0;
    if (err == PR_OK) {
        timer_cancel(&tm->kernel_timer);
        undue(tm);
        if (start) {
            expiry = tick_now() + delay;
            timer_arm(&tm->kernel_timer, expiry);
        }
    }
    trace_emit(PR_EV_TIMER_START, pr_self, swtimer_trace_id(id), err, (uint8_t)start, 0, (int32_t)expiry);
    return err;
}

static int swtimer_status(pr_id_t id, pr_timer_status_t *st)
{
    pr_swtimer_t *tm;
    int err = swtimer_lookup(id, &tm);
    if (err != PR_OK)
        return err;
    if (st == NULL)
        return PR_EINVAL;
    st->index = tm->index;
    memcpy(st->name, tm->name, PR_CONFIG_NAME_LEN);
    st->armed = timer_armed(&tm->kernel_timer) || tm->due;
    st->expiry = timer_armed(&tm->kernel_timer) ? tm->kernel_timer.expiry : tm->due ? tm->due_expiry : 0;
    st->priority = tm->priority;
    st->period = tm->period;
    st->expiries = tm->expiries;
    st->dropped = tm->dropped;
    st->max_lateness = tm->max_lateness;
    return PR_OK;
}

#if PR_CONFIG_ASSERT
/* The due list and the handed timer hold exactly the allocated timers
 * marked due; a handed timer has the list empty behind it, a sleeping
 * service nothing due (pr_kernel_check). */
void swtimer_check(void)
{
    int due = 0, listed = handed != NULL;
    PR_ASSERT(handed == NULL || (handed->due == DUE_HANDED && handed->allocated && plist_empty(&due_list)));
    PR_ASSERT(PR_CONFIG_FAST_PATHS || handed == NULL);
    PR_ASSERT(sleeper == NULL || (sleeper->entry == swtimer_service_body && sleeper->state == PR_TASK_WAIT_RELEASE &&
                                  handed == NULL && plist_empty(&due_list)));
    for (int i = 0; i < PR_CONFIG_MAX_TIMERS; i++) {
        const pr_swtimer_t *tm = &pool[i];
        PR_ASSERT(tm->allocated || (!tm->due && !timer_armed(&tm->kernel_timer)));
        PR_ASSERT(tm->period != 0 || !(tm->due && timer_armed(&tm->kernel_timer))); /* a one-shot: one or the other */
        due += tm->due != 0;
    }
    for (int level = 0; level < PR_CONFIG_PRIORITIES; level++) {
        const pr_link_t *head = &due_list.level[level];
        PR_ASSERT(prio_bitmap_test(&due_list.bitmap, level) == !list_empty(head));
        for (const pr_link_t *l = head->next; l != head; l = l->next) {
            const pr_swtimer_t *tm = container_of(l, pr_swtimer_t, due_link);
            PR_ASSERT(tm->due == DUE_LISTED && tm->allocated && tm->priority == level);
            listed++;
        }
    }
    PR_ASSERT(due == listed);
}
#endif

int pr_timer_alloc(const pr_timer_attr_t *attr, pr_id_t *id) { MASKED_CALL(swtimer_alloc(attr, id)); }
int pr_timer_free(pr_id_t id) { MASKED_CALL(swtimer_free(id)); }
int pr_timer_start(pr_id_t id, pr_timeout_t delay) { MASKED_CALL(swtimer_start(id, delay, 1)); }
int pr_timer_stop(pr_id_t id) { MASKED_CALL(swtimer_start(id, 0, 0)); }
int pr_timer_status(pr_id_t id, pr_timer_status_t *status) { MASKED_CALL(swtimer_status(id, status)); }
