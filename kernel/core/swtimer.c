/*
 * Software timers (swtimer.h): a pool of timers, each with a kernel timer
 * in the wheel (timer.h), and the timer service task that runs their
 * actions.
 *
 * At the tick of an expiry the wheel fires the kernel timer (expire): the
 * software timer joins the due list, a priority list by the timer's
 * priority (FIFO among equals), a periodic one is re-armed at expiry +
 * period, and the service task is made ready if it sleeps. That is all the
 * tick interrupt does: O(1) per timer due, so a tick with k software
 * timers due costs O(k) on top of the wheel's own work, k <= the timers
 * allocated (PR_CONFIG_MAX_TIMERS). The actions run in the service task,
 * one at a time, the most urgent due timer first.
 *
 * The service sleeps in PR_TASK_WAIT_RELEASE: for it, a due timer is a
 * release. It is an ordinary task otherwise (a pool slot, a priority, a
 * stack); deleting it stops the actions until pr_timer_service_start makes
 * another.
 */
#include <string.h>
#include "swtimer_impl.h"
#include "sched.h"
#include "trace_impl.h"

typedef struct pr_swtimer {
    pr_link_t pool_link;        /* in the free list */
    pr_link_t due_link;         /* in the due list, while due */
    pr_id_t index;
    int allocated;
    int due;                    /* in the due list: its action is to run */
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
static pr_task_t *service;  /* the service task, or NULL */

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

static void service_body(void *arg);

/* 1 while the service task is alive and sleeping for a due timer. */
static int service_sleeps(void)
{
    return service != NULL && service->entry == service_body && service->state == PR_TASK_WAIT_RELEASE;
}

static void undue(pr_swtimer_t *tm)
{
    if (!tm->due)
        return;
    plist_remove(&due_list, tm->priority, &tm->due_link);
    tm->due = 0;
}

/* The kernel timer fired, in the tick interrupt (timer.c). */
static void expire(void *owner)
{
    pr_swtimer_t *tm = owner;
    pr_ticks_t expiry = tm->kernel_timer.expiry;
    int overrun = tm->due; /* its last expiry's action has not run yet */
    trace_emit(PR_EV_TIMER_EXPIRE, trace_who(NULL), (uint8_t)tm->index, PR_OK, (uint8_t)overrun, 0, (int32_t)expiry);
    if (overrun) {
        tm->dropped++;
    } else {
        tm->due = 1;
        tm->due_expiry = expiry;
        plist_push_back(&due_list, tm->priority, &tm->due_link);
    }
    /* The service made ready inline, and a periodic timer re-armed last, by
     * a tail call: the expiry calls nothing else and needs no stack frame.
     * The order does not matter: the wheel and the ready queue are apart. */
    if (!overrun && service_sleeps())
        ready_add(service);
    if (tm->period != 0)
        timer_arm(&tm->kernel_timer, expiry + tm->period);
}

void swtimers_reset(void)
{
    list_init(&free_list);
    plist_init(&due_list);
    service = NULL;
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
 * actions it takes the due list with interrupts masked; an action runs
 * with them restored, as any task code. */
static void service_body(void *arg)
{
    (void)arg;
    pr_task_t *me = pr_k.current;
    pr_irq_state_t irq = pr_port_irq_save();
    service = me; /* before its starter hears of it, if it runs first */
    pr_port_irq_restore(irq);
    for (;;) {
        irq = pr_port_irq_save();
        while (plist_empty(&due_list)) {
            sched_make_unready(me, PR_TASK_WAIT_RELEASE);
            sched_reschedule(); /* returns when a timer is due */
        }
        int level = plist_top_level(&due_list);
        pr_swtimer_t *tm = container_of(due_list.level[level].next, pr_swtimer_t, due_link);
        plist_remove(&due_list, level, &tm->due_link); /* undue(tm), which it is */
        tm->due = 0;
        pr_ticks_t lateness = tick_now() - tm->due_expiry; /* the tick this instant belongs to */
        tm->expiries++;
        if (lateness > tm->max_lateness)
            tm->max_lateness = lateness;
        trace_emit(PR_EV_TIMER_RUN, trace_who(me), (uint8_t)tm->index, PR_OK, 0, 0, (int32_t)lateness);
        pr_timer_action_t action = tm->action;
        void *action_arg = tm->arg;
        pr_port_irq_restore(irq);
        action(tm->index, action_arg);
    }
}

/* 1 if a service task exists: a live task whose body is the service's,
 * whether it has run yet or not. O(PR_CONFIG_MAX_TASKS): a start is rare. */
static int service_exists(void)
{
    for (int i = 0; i < PR_CONFIG_MAX_TASKS; i++)
        if (pr_tasks[i].state != PR_TASK_FREE && pr_tasks[i].entry == service_body)
            return 1;
    return 0;
}

/*
 * The check and the creation are one step with interrupts masked: the new
 * service may be more urgent than its starter and run at once, inside
 * pr_task_create, and its actions (or a task it lets run) may try to start
 * another; they find it, by its body, whatever became of the starter.
 */
int pr_timer_service_start(pr_prio_t priority, pr_id_t *task)
{
    if (priority < 0 || priority > PR_PRIO_MAX)
        return PR_EINVAL;
    pr_irq_state_t irq = pr_port_irq_save();
    if (service_exists()) {
        pr_port_irq_restore(irq);
        return PR_ESTATE;
    }
    pr_task_attr_t attr;
    pr_task_attr_init(&attr);
    attr.name = "timers";
    attr.priority = priority;
    attr.entry = service_body;
    pr_id_t id = PR_NO_TASK;
    int err = pr_task_create(&attr, &id);
    if (err == PR_OK) {
        service = &pr_tasks[id];
        service->kernel_service = 1; /* its one job serves every timer: never shed at a hard miss */
    }
    pr_port_irq_restore(irq);
    if (err == PR_OK && task != NULL)
        *task = id;
    return err;
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
/* The due list holds exactly the allocated timers marked due (pr_kernel_check). */
void swtimer_check(void)
{
    int due = 0, listed = 0;
    for (int i = 0; i < PR_CONFIG_MAX_TIMERS; i++) {
        const pr_swtimer_t *tm = &pool[i];
        PR_ASSERT(tm->allocated || (!tm->due && !timer_armed(&tm->kernel_timer)));
        PR_ASSERT(tm->period != 0 || !(tm->due && timer_armed(&tm->kernel_timer))); /* a one-shot: one or the other */
        due += tm->due;
    }
    for (int level = 0; level < PR_CONFIG_PRIORITIES; level++) {
        const pr_link_t *head = &due_list.level[level];
        PR_ASSERT(prio_bitmap_test(&due_list.bitmap, level) == !list_empty(head));
        for (const pr_link_t *l = head->next; l != head; l = l->next) {
            const pr_swtimer_t *tm = container_of(l, pr_swtimer_t, due_link);
            PR_ASSERT(tm->due && tm->allocated && tm->priority == level);
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
