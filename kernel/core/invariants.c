/*
 * The kernel's invariants checked as a whole (pr_kernel_check): every
 * task's queue membership, the ready queue's bitmap, every semaphore's
 * value, waiters and holder (sem_check), and every task's lend bookkeeping
 * against the lenders that lend to it. O(T * P + S * P): for the debug
 * builds' tests and the fuzzer, after each call, never in a kernel call.
 */
#include <string.h>
#include "../policy/policy.h"
#include "events_impl.h"
#include "privilege_impl.h"
#include "timeshare_impl.h"
#include "msgq_impl.h"
#include "swtimer_impl.h"

#if PR_CONFIG_ASSERT

static void check_ready_queue(void)
{
    const pr_ready_t *rq = &pr_k.ready;
    for (int level = 0; level < PR_CONFIG_PRIORITIES; level++) {
        const pr_link_t *head = rq->head[level];
        PR_ASSERT(prio_bitmap_test(&rq->bitmap, level) == (head != NULL));
        if (head == NULL)
            continue;
        const pr_link_t *l = head;
        do {
            const pr_task_t *t = container_of(l, pr_task_t, qlink);
            PR_ASSERT(t->queue == rq && t->queued_level == level && t->effective == level);
            PR_ASSERT(t->state == PR_TASK_READY && !t->suspended);
            l = l->next;
        } while (l != head);
    }
    PR_ASSERT(prio_bitmap_consistent(&rq->bitmap));
    PR_ASSERT(prio_bitmap_empty(&rq->bitmap) || *rq->top == NULL ||
              rq->top >= &rq->head[prio_bitmap_highest(&rq->bitmap)]);
}

static void check_task(const pr_task_t *t)
{
    pr_waitq_t *q = task_waitq(t);
    switch (t->state) {
    case PR_TASK_READY:
        PR_ASSERT(q == NULL && (t->queue == &pr_k.ready) == !t->suspended);
        break;
    case PR_TASK_BLOCKED:
        PR_ASSERT(q != NULL && t->down_on != NULL && t->down_on->allocated);
        break;
    case PR_TASK_WAIT_COND:
    case PR_TASK_WAIT_EVENTS:
    case PR_TASK_WAIT_SEND:
    case PR_TASK_WAIT_RECEIVE:
        PR_ASSERT(q != NULL && t->down_on == NULL);
        break;
    default:
        PR_ASSERT(t->queue == NULL && t->down_on == NULL);
    }
    PR_ASSERT(t->effective >= t->base && t->base >= 0 && t->base <= PR_PRIO_MAX);
    PR_ASSERT(t->preempt_locks >= 0);
    /* The bands: a time-sharing task's base is a level of the band, a
     * real-time task's is above it; its group is a group. */
    PR_ASSERT(t->timeshare ? t->base < pr_ts.levels : t->base >= pr_ts.levels);
    PR_ASSERT(t->nice >= PR_NICE_MIN && t->nice <= PR_NICE_MAX);
    PR_ASSERT(group_valid(t->priv_group));
    (void)q;
}

/* The list of time-sharing tasks holds exactly the tasks in the band. */
static void check_timeshare_list(void)
{
    int listed = 0, cursor_seen = pr_ts.cursor == &pr_ts.tasks;
    for (const pr_link_t *l = pr_ts.tasks.next; l != &pr_ts.tasks; l = l->next) {
        const pr_task_t *t = container_of(l, pr_task_t, tslink);
        PR_ASSERT(t->timeshare && t->state != PR_TASK_FREE);
        cursor_seen |= l == pr_ts.cursor;
        listed++;
    }
    int in_band = 0;
    for (int i = 0; i < PR_CONFIG_MAX_TASKS; i++)
        in_band += pr_tasks[i].state != PR_TASK_FREE && pr_tasks[i].timeshare;
    PR_ASSERT(listed == pr_ts.count && in_band == pr_ts.count && cursor_seen);
    PR_ASSERT(((pr_k.tick_work_every & TICK_EVERY_TIMESHARE) != 0) == (pr_ts.count > 0));
    (void)listed, (void)in_band, (void)cursor_seen;
}

/* The lends counted from the lenders' side, per task. */
static uint16_t lent_seen[PR_CONFIG_MAX_TASKS][PR_CONFIG_PRIORITIES];

static void count_lender(const pr_lender_t *l, void *arg)
{
    (void)arg;
    if (l->holder == NULL) {
        PR_ASSERT(l->lent == PRIO_NONE);
        return;
    }
    PR_ASSERT(l->holder != &pr_idle && l->holder->state != PR_TASK_FREE);
    if (l->lent != PRIO_NONE)
        lent_seen[l->holder->id][l->lent]++;
}

int pr_kernel_check(void)
{
    pr_irq_state_t irq = pr_port_irq_save();
    check_ready_queue();
    check_timeshare_list();
    memset(lent_seen, 0, sizeof lent_seen);
    for (int i = 0; i < PR_CONFIG_MAX_SEMS; i++) {
        const pr_sem_t *s = &pr_sem_pool[i];
        if (!s->allocated) {
            PR_ASSERT(s->lender.holder == NULL && s->waiters == 0 && waitq_empty(s->waitq));
            continue;
        }
        sem_check(s);
        PR_ASSERT(s->fast == SEM_FAST_COUNTING || s->fast == SEM_FAST_NONE || s->fast == (int8_t)s->policy->fast);
        count_lender(&s->lender, NULL);
    }
    for (int p = 0; p < PR_PROTOCOL_COUNT; p++) {
        const pr_policy_t *policy = policy_of((pr_protocol_t)p);
        if (policy->lenders != NULL)
            policy->lenders(count_lender, NULL);
    }
    msgq_lenders(count_lender, NULL);
    events_check();
    msgq_check();
    swtimer_check();
    for (int i = 0; i < PR_CONFIG_MAX_TASKS; i++) {
        const pr_task_t *t = &pr_tasks[i];
        if (t->state == PR_TASK_FREE)
            continue;
        check_task(t);
        prio_check_task(t, lent_seen[i]);
    }
    pr_port_irq_restore(irq);
    return PR_OK;
}

#else

int pr_kernel_check(void) { return PR_OK; }

#endif
