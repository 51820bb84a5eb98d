/*
 * "pcp": the original priority ceiling protocol [Sha-Rajkumar-Lehoczky
 * 1990; Tokuda-Nakajima 1993].
 *
 * Each mutex has a ceiling: the base priority of the most urgent task that
 * locks it (attr.ceiling; a task above it is refused with PR_ECEILING). The
 * rule: a task may lock a mutex only if its effective priority is strictly
 * higher than the ceiling of every mutex held by *other* tasks; otherwise it
 * waits, even for a free mutex, and the task holding the mutex with the
 * highest such ceiling inherits its priority. Under this rule chains of
 * blocking and deadlocks cannot form, and a job is blocked at most once, by
 * at most one critical section of a less urgent task.
 *
 * This file owns what the rule needs beyond the mechanism:
 *  - the system ceiling: the held pcp mutexes ordered by ceiling, one FIFO
 *    list per level in the order they were taken, and a bitmap of the
 *    non-empty levels (plist.h; [Tokuda-Nakajima 1993]: the PCP module's
 *    global queue of the acquired locks). A take or a release is O(1); so
 *    is the mutex with the highest ceiling (ceiling_top), whose holder
 *    holds the system ceiling;
 *  - the gate: a wait queue of the tasks that the system ceiling blocks, in
 *    priority order, whose lender's holder is the holder of the system
 *    ceiling. Its waiters lend through the mechanism's chain walk, so the
 *    inheritance is transitive and the cycle check covers it.
 *
 * The hooks apply the rule to them:
 *  - admit: ceiling_blocker(t) is the mutex held by another task with the
 *    highest ceiling, if that ceiling is at least t's priority. If it is
 *    the system ceiling's mutex, t waits at the gate. Otherwise t itself
 *    holds the system ceiling and waits in that blocker's own queue (only
 *    when priorities moved since the mutexes were locked, outside the
 *    protocol's assumptions; the blocker's release wakes it to try again).
 *  - settle, after every lock, release, wait and departure: the gate follows the
 *    system ceiling to its new holder (what it lent the old one is
 *    withdrawn); a task that waits at the gate and is on the chain of what
 *    the new holder waits for tries again (it cannot wait behind itself,
 *    and a longer cycle is a deadlock its retry reports); and if the mutex
 *    that blocks the gate's first waiter is no longer the system ceiling's,
 *    that waiter is woken to try again (it is not handed a mutex: when it
 *    runs, it passes the test or waits again). One waiter per settle: the next one is examined
 *    when that one has tried, given up or been deleted (each settles
 *    again), which keeps every call O(1) in the number of waiters. Waking
 *    rather than handing over keeps "blocked at most once": a waiter handed
 *    a mutex before it can run would hold it against a more urgent task
 *    that runs first and needs it. A woken waiter that is suspended before
 *    it runs holds the examination up until it is resumed.
 *  - While the system ceiling no longer blocks the gate's first waiter,
 *    the gate lends nothing: that waiter is about to try again, and its
 *    priority would raise the ceiling's new holder above every ceiling it
 *    holds, blocking a more urgent job a second time.
 */
#include "policy.h"

/* ---- the system ceiling ---- */

static pr_plist_t held;                             /* held pcp mutexes, by ceiling */
static pr_link_t ceiling_link[PR_CONFIG_MAX_SEMS];  /* each mutex's place there, by id */

static pr_sem_t *mutex_at(const pr_link_t *l) { return &pr_sem_pool[l - ceiling_link]; }

static void ceiling_add(pr_sem_t *m) { plist_push_back(&held, m->ceiling, &ceiling_link[m->index]); }

static void ceiling_remove(pr_sem_t *m)
{
    pr_link_t *l = &ceiling_link[m->index];
    if (!link_linked(l))
        return;
    plist_remove(&held, m->ceiling, l);
    list_init(l);
}

/* The held mutex with the highest ceiling (the first taken among equals). */
static pr_sem_t *ceiling_top(void)
{
    pr_link_t *first = plist_first(&held);
    return first != NULL ? mutex_at(first) : NULL;
}

/* The held mutex with the highest ceiling among those t does not hold, if
 * that ceiling is at least t's effective priority (t may not lock then);
 * NULL if t's priority is above the ceilings of all of them. The walk goes
 * down from the top and every mutex it passes is one of t's own: O(h + 1)
 * for a task holding h pcp mutexes. */
static pr_sem_t *ceiling_blocker(const pr_task_t *t)
{
    pr_prio_bitmap_t levels = held.bitmap;
    while (!prio_bitmap_empty(&levels)) {
        int level = prio_bitmap_highest(&levels);
        if (level < t->effective)
            return NULL;
        const pr_link_t *head = &held.level[level];
        for (pr_link_t *l = head->next; l != head; l = l->next) {
            pr_sem_t *m = mutex_at(l);
            if (sem_holder(m) != t)
                return m;
        }
        prio_bitmap_remove(&levels, level);
    }
    return NULL;
}

/* ---- the gate ---- */

static pr_waitq_t gate;
static pr_lender_t gate_lender;

static pr_prio_t gate_lend(const pr_waitq_t *q)
{
    const pr_task_t *first = waitq_first(q);
    if (first == NULL || ceiling_blocker(first) != ceiling_top())
        return PRIO_NONE;
    return first->effective;
}

void pcp_reset(void)
{
    plist_init(&held);
    for (int i = 0; i < PR_CONFIG_MAX_SEMS; i++)
        list_init(&ceiling_link[i]);
    waitq_init(&gate, &sem_waitq_ops, 0, PR_TRACE_NONE);
    gate_lender.holder = NULL;
    gate_lender.lent = PRIO_NONE;
    gate.lender = &gate_lender;
    gate.lend = gate_lend;
}

/*
 * The gate has just passed to `holder`. If holder waits, the chain of
 * holders from it (holder, the holder of what it waits for, ...) may reach
 * a task that waits at the gate: a cycle, which the move made without any
 * task asking to wait (the cycle check runs when a task waits). That task
 * (holder itself, if it waits at the gate) tries again: it cannot wait
 * behind itself; another one finds the cycle when it waits again and gets
 * PR_EDEADLK, the deadlock it is in. O(d).
 */
static void retry_a_gate_waiter_on_the_chain_of(pr_task_t *holder, int cause)
{
    for (int step = 0; holder != NULL && step <= PR_CONFIG_MAX_TASKS; step++) {
        pr_waitq_t *q = lending_queue_of(holder);
        if (q == NULL)
            return;
        if (q == &gate) {
            sem_wake_to_retry(holder, cause);
            return;
        }
        holder = q->lender->holder;
    }
}

/* The gate follows the system ceiling, and its first waiter tries again if
 * what blocked it is gone (see the top). */
static void settle(int cause)
{
    pr_sem_t *top = ceiling_top();
    pr_task_t *holder = top != NULL ? sem_holder(top) : NULL;
    int moved = holder != gate_lender.holder;
    if (moved) {
        prio_withdraw(&gate, cause);
        gate_lender.holder = holder;
        retry_a_gate_waiter_on_the_chain_of(holder, cause);
    }
    if (top != NULL) /* PRIO records through the gate name the mutex that sets the ceiling */
        gate.id = (uint8_t)top->index;
    pr_task_t *first = waitq_first(&gate);
    if (first != NULL && (top == NULL || ceiling_blocker(first) != top))
        sem_wake_to_retry(first, cause);
    if (gate_lender.holder != NULL) /* a new holder inherits the waiters; an old one keeps what remains */
        prio_relend(&gate, moved ? PR_CAUSE_INHERIT : cause);
}

/* ---- the hooks ---- */

static int pcp_check_attr(const pr_sem_attr_t *attr)
{
    int err = policy_needs_prio_mutex(attr);
    return err != PR_OK ? err : policy_check_ceiling(attr);
}

static int pcp_admit(pr_sem_t *m, pr_task_t *t, pr_waitq_t **wait_in)
{
    if (t->base > m->ceiling)
        return PR_ECEILING;
    pr_sem_t *blocker = ceiling_blocker(t);
    if (blocker == NULL)
        *wait_in = NULL;
    else
        *wait_in = blocker == ceiling_top() ? &gate : blocker->waitq;
    return PR_OK;
}

/* m joins the system ceiling at the tail of its level (handed over, it
 * moves there from its old holder's place). */
static void pcp_acquired(pr_sem_t *m, pr_task_t *t)
{
    (void)t;
    ceiling_remove(m);
    ceiling_add(m);
    prio_relend(m->waitq, PR_CAUSE_ACQUIRE);
    settle(PR_CAUSE_ACQUIRE);
}

/* Every wait settles: a waiter woken to try again that now waits in a
 * mutex's own queue has tried, and the gate's next waiter is examined. */
static void pcp_waiting(pr_sem_t *m, pr_task_t *t, pr_waitq_t *q)
{
    if (q == &gate) {
        const pr_sem_t *top = ceiling_top();
        trace_emit(PR_EV_CEILING, trace_who(t), m->trace_tag, PR_OK, (uint8_t)top->ceiling,
                   trace_id(sem_holder(top)), top->index);
    }
    prio_relend(q, PR_CAUSE_INHERIT);
    settle(PR_CAUSE_INHERIT);
}

static void pcp_release(pr_sem_t *m, pr_task_t *t)
{
    (void)t;
    if (sem_holder(m) == NULL) /* free now, not handed over */
        ceiling_remove(m);
    settle(PR_CAUSE_RELEASE);
}

/* A waiter left the gate or a mutex's queue without the mutex (timeout,
 * deletion), or a waiter woken to try again gave up or was deleted: the
 * gate's next waiter may go. */
static void pcp_abandoned(pr_sem_t *m, pr_task_t *t, pr_waitq_t *q, int cause)
{
    (void)m, (void)t;
    if (q != NULL)
        prio_relend(q, cause);
    settle(cause);
}

static void pcp_lenders(void (*visit)(const pr_lender_t *l, void *arg), void *arg) { visit(&gate_lender, arg); }

const pr_policy_t pr_policy_pcp = {
    .name = "pcp",
    .protocol = PR_PROTOCOL_PCP,
    .check_attr = pcp_check_attr,
    .admit = pcp_admit,
    .conflict = policy_allow_wait,
    .acquired = pcp_acquired,
    .waiting = pcp_waiting,
    .release = pcp_release,
    .abandoned = pcp_abandoned,
    .lend = policy_lend_first_waiter,
    .control = policy_no_commands,
    .lenders = pcp_lenders,
    .fast = POLICY_FAST_NEVER, /* every take and give moves the system ceiling */
};
