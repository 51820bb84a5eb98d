/*
 * "pcp": the original priority ceiling protocol (Sha, Rajkumar, Lehoczky;
 * seed 003 sections 2.2, 2.3 and 3.2.2).
 *
 * Each mutex has a ceiling: the base priority of the most urgent task that
 * locks it (attr.ceiling; a task above it is refused with PR_ECEILING). The
 * rule: a task may lock a mutex only if its effective priority is strictly
 * higher than the ceiling of every mutex held by *other* tasks; otherwise it
 * blocks, even on a free mutex, and the task holding the mutex with the
 * highest such ceiling inherits its priority. Under this rule chains of
 * blocking and deadlocks cannot form, and a job is blocked at most once, by
 * at most one critical section of a less urgent task.
 *
 * The mechanism keeps the held pcp mutexes ordered by ceiling (the system
 * ceiling, core/ceiling.c); this file applies the rule to it:
 *
 *  - admit (the test on a free mutex): ceiling_blocker(t) is the mutex held
 *    by another task with the highest ceiling, if that ceiling is at least
 *    t's priority. If it is the system ceiling's mutex (ceiling_top), t
 *    waits on the gate below. Otherwise t is itself the holder of the
 *    system ceiling and waits on that blocker mutex directly (this happens
 *    only when priorities moved since the mutexes were locked, outside the
 *    protocol's assumptions; the mechanism wakes it to try again when that
 *    mutex is released).
 *  - The gate: one wait list, a pseudo-mutex "held" by the task that holds
 *    the system ceiling's mutex. Tasks blocked by the system ceiling wait
 *    there in priority order; the gate lends its first waiter's priority to
 *    its holder, through the mechanism's chain walk, so the inheritance is
 *    transitive and the cycle check covers it.
 *  - settle, after every pcp lock and unlock: the gate follows the system
 *    ceiling to its new holder (what it lent the old one is withdrawn, the
 *    new one inherits), and if the mutex that blocks the gate's first
 *    waiter is no longer the system ceiling's, that waiter is woken to try
 *    again (it is not handed a mutex: when it runs, it passes the test or
 *    blocks again). One waiter per settle: the next one is examined when
 *    that one has tried (its lock or its block settles again), which keeps
 *    every call O(1) in the number of waiters. Waking rather than handing
 *    over is what keeps "blocked at most once": a waiter handed a mutex
 *    before it can run would hold it against a more urgent task that runs
 *    first and needs it.
 *  - A task whose priority is above every other task's ceiling but whose
 *    mutex is held (possible only with a priority raised by inheritance
 *    above the ceilings) waits on that mutex and is handed it by the up, as
 *    under pip.
 */
#include "policy.h"

static pr_sem_t *gate; /* the mechanism's wait list of the tasks blocked by the system ceiling */

void pcp_reset(void) { gate = sem_ceiling_queue(&pr_policy_pcp); }

static int pcp_check_attr(const pr_sem_attr_t *attr)
{
    int err = policy_needs_prio_mutex(attr);
    return err != PR_OK ? err : policy_check_ceiling(attr);
}

static int pcp_admit(pr_sem_t *m, pr_task_t *t, pr_sem_t **wait_on)
{
    if (t->base > m->ceiling)
        return PR_ECEILING;
    pr_sem_t *blocker = ceiling_blocker(t);
    if (blocker == NULL)
        *wait_on = NULL;
    else
        *wait_on = blocker == ceiling_top() ? gate : blocker;
    return PR_OK;
}

/* The gate follows the system ceiling, and its first waiter tries again if
 * what blocked it is gone. */
static void settle(int cause)
{
    pr_sem_t *top = ceiling_top();
    pr_task_t *holder = top != NULL ? top->holder : NULL;
    int moved = holder != gate->holder;
    if (moved) {
        if (gate->holder != NULL)
            prio_withdraw(gate, cause);
        gate->lent = PRIO_NONE;
        gate->holder = holder;
    }
    if (top != NULL) /* PRIO records through the gate name the mutex that sets the ceiling */
        sem_more(gate)->trace_as = top->index;
    pr_task_t *first = sem_first_waiter(gate);
    if (first != NULL && (top == NULL || ceiling_blocker(first) != top))
        sem_waiter_retry(first, cause);
    if (gate->holder != NULL) /* a new holder inherits the waiters; an old one keeps what remains */
        prio_relend(gate, moved ? PR_CAUSE_INHERIT : cause);
}

static void pcp_acquired(pr_sem_t *m, pr_task_t *t)
{
    (void)t;
    prio_relend(m, PR_CAUSE_ACQUIRE);
    settle(PR_CAUSE_ACQUIRE);
}

static void pcp_not_acquired(pr_sem_t *q, pr_task_t *t)
{
    if (q == gate) {
        const pr_sem_t *top = ceiling_top();
        trace_emit(PR_EV_CEILING, trace_id(t), (uint8_t)t->wants->index, PR_OK, (uint8_t)top->ceiling,
                   trace_id(top->holder), top->index);
    }
    prio_relend(q, PR_CAUSE_INHERIT);
    if (q == gate)
        settle(PR_CAUSE_INHERIT);
}

static void pcp_release(pr_sem_t *m, pr_task_t *t)
{
    (void)m;
    (void)t;
    settle(PR_CAUSE_RELEASE);
}

/*
 * What a pcp wait list lends its holder: its first waiter's priority, as
 * under pip, except for the gate while the system ceiling no longer blocks
 * that waiter. Such a waiter is about to try again (settle wakes one waiter
 * per event; the next one is examined when that one has tried). Lending its
 * priority meanwhile would raise the ceiling's new holder above every
 * ceiling it holds, and a more urgent job would then be blocked a second
 * time. ceiling_blocker is O(h), h the pcp mutexes the waiter holds.
 */
static pr_prio_t pcp_lend(const pr_sem_t *m)
{
    if (m == gate) {
        pr_task_t *first = sem_first_waiter(m);
        if (first != NULL && ceiling_blocker(first) != ceiling_top())
            return PRIO_NONE;
    }
    return policy_lend_first_waiter(m);
}

/* A waiter left the gate or a mutex without the mutex (timeout, deletion),
 * or a waiter woken to try again gave up: the gate's next waiter may go. */
static void pcp_abort(pr_sem_t *q, pr_task_t *t, int cause)
{
    (void)t;
    if (q->holder != NULL)
        prio_relend(q, cause);
    settle(cause);
}

const pr_policy_t pr_policy_pcp = {
    .name = "pcp",
    .system_ceiling = 1,
    .check_attr = pcp_check_attr,
    .admit = pcp_admit,
    .conflict = policy_allow_block,
    .acquired = pcp_acquired,
    .not_acquired = pcp_not_acquired,
    .release = pcp_release,
    .abort = pcp_abort,
    .lend = pcp_lend,
    .control = policy_no_commands,
    .fast = POLICY_FAST_NEVER, /* every take and give moves the system ceiling */
};
