/*
 * The shadow model and the invariants (fuzz.h).
 *
 * The shadow keeps what the return codes told: which mutexes each task holds
 * and how deep (its downs that returned PR_OK, its ups), which semaphores
 * and tasks are allocated, which rcs sections were taken over. fz_check
 * reads the kernel's status of every task, semaphore and condition variable
 * (the snapshot the next call's prediction uses) and checks it against
 * itself, against the shadow, and against the rules of docs/semantics.md:
 *
 *  - values and waiters agree; a mutex is free (1, no holder, depth 0) or
 *    held (value -waiters, depth >= 1); mutexes_held counts the holders;
 *  - blocked_on only in PR_TASK_BLOCKED, cond_on only in PR_TASK_WAIT_COND;
 *  - effective = max(base, what each mutex held lends), exactly for a task
 *    that holds no pcp mutex, within bounds for one that does (which list a
 *    pcp waiter sits in does not show): a task that holds nothing runs at
 *    its base, which catches a priority lent and never withdrawn;
 *  - the kernel's holders are the shadow's, but for calls under way and
 *    rcs take-overs (which the shadow then learns);
 *  - no task waits on a free mutex unless pcp's system ceiling blocks it or
 *    a task woken to try again has not run yet (a lost wakeup);
 *  - the running task is the most urgent ready one (no switch waits).
 */
#include <string.h>
#include "fuzz.h"

void fz_take(int t, pr_id_t m, int depth)
{
    fz_task_t *w = &fz.task[t];
    if (w->depth[m] == 0)
        w->order[w->nheld++] = m;
    w->depth[m] = depth;
}

void fz_give(int t, pr_id_t m)
{
    fz_task_t *w = &fz.task[t];
    if (w->depth[m] == 0 || --w->depth[m] > 0)
        return;
    for (int i = 0; i < w->nheld; i++)
        if (w->order[i] == m) {
            memmove(&w->order[i], &w->order[i + 1], (size_t)(w->nheld - i - 1) * sizeof w->order[0]);
            w->nheld--;
            break;
        }
}

static void drop_all(int t)
{
    fz_task_t *w = &fz.task[t];
    while (w->nheld > 0) {
        w->depth[w->order[w->nheld - 1]] = 1;
        fz_give(t, w->order[w->nheld - 1]);
    }
    memset(w->aborted, 0, sizeof w->aborted);
    w->naborted = 0;
    w->sched_locks = 0; /* a task's scheduler locks end with it */
}

/* A free list of ids, as the kernel's: the next allocation must give its
 * head; a freed id goes to the tail. */
int fz_fifo_take(fz_fifo_t *f, int size, int expect_id, const char *what)
{
    int head = f->id[f->head];
    if (expect_id != head)
        fz_fail("%s gave id %d; the free list's head is %d", what, expect_id, head);
    f->head = (f->head + 1) % size;
    f->count--;
    return head;
}

void fz_fifo_put(fz_fifo_t *f, int size, int id) { f->id[(f->head + f->count++) % size] = id; }

/* The call it is inside may have given m up (its up, its cond_wait, the
 * recovery an rcs holder's down runs) or taken it (a down, a cond_wait's
 * lock), or its body returned. */
static int releasing(const fz_task_t *w, pr_id_t m)
{
    return w->exiting || ((w->call == FZ_SEM_UP || w->call == FZ_COND_WAIT || w->call == FZ_SEM_DOWN ||
                           w->call == FZ_SEM_TRYDOWN) && w->call_sem == m);
}

static int acquiring(const fz_task_t *w, pr_id_t m)
{
    return (w->call == FZ_SEM_DOWN || w->call == FZ_SEM_TRYDOWN || w->call == FZ_COND_WAIT) && w->call_sem == m;
}

/* A task the kernel deleted (pr_task_delete said PR_OK). It held no mutex:
 * the shadow must agree, but for calls under way on them. */
void fz_forget_task(int t)
{
    fz_task_t *w = &fz.task[t];
    fz_services_task_gone(t);
    for (int i = 0; i < w->nheld; i++) {
        pr_id_t m = w->order[i];
        if (!releasing(w, m) && fz.sem[m].alive)
            fz_fail("task_delete(%d) succeeded; the task holds s%d (its down returned PR_OK, no up since)", t, m);
    }
    drop_all(t);
    w->alive = 0;
    w->call = FZ_OPS;
    w->self_delete = 0;
}

void fz_shadow_reset(void)
{
    memset(fz.task, 0, sizeof fz.task);
    memset(fz.sem, 0, sizeof fz.sem);
    memset(fz.cond_alive, 0, sizeof fz.cond_alive);
    for (int i = 0; i < FZ_TASKS; i++)
        fz.task[i].call = FZ_OPS;
    for (int i = 0; i < FZ_SEMS; i++)
        fz.sem_free.id[i] = i;
    fz.sem_free.head = 0;
    fz.sem_free.count = FZ_SEMS;
    for (int i = 0; i < FZ_CONDS; i++)
        fz.cond_free.id[i] = i;
    fz.cond_free.head = 0;
    fz.cond_free.count = FZ_CONDS;
    fz.task_hi = fz.sem_hi = 0;
    fz.last_time = 0;
    fz.calls_at_time = 0;
    fz.kernel_ticks = fz.kernel_switches = 0;
    fz.hard_importance = -1;
    fz_services_reset();
    fz_bands_reset();
}

/* pcp's test on a free mutex, at priority prio: a held pcp mutex of another
 * task with a ceiling at least prio blocks t. */
int fz_blocked_by_ceiling(int t, pr_prio_t prio)
{
    for (int m = 0; m < fz.sem_hi; m++) {
        const pr_sem_status_t *st = &fz.snap.sem[m];
        if (fz.sem[m].alive && fz_is_pcp(m) && st->holder != PR_NO_TASK && st->holder != t &&
            fz.sem[m].attr.ceiling >= prio)
            return 1;
    }
    return 0;
}

/* t is inside a down on a pcp mutex (freed since, may be) and waits on no
 * list: woken to try again (or handed its mutex, or timed out) and not yet
 * run, suspended may be. */
int fz_retrier(int t)
{
    const fz_task_t *w = &fz.task[t];
    if (!w->alive || !fz.snap.task_ok[t] || (w->call != FZ_SEM_DOWN && w->call != FZ_COND_WAIT) || !w->call_pcp)
        return 0;
    pr_task_state_t state = fz.snap.task[t].state;
    return state != PR_TASK_BLOCKED && state != PR_TASK_WAIT_COND;
}

/* rcs with a recovery: the holder's section is aborted while it still
 * holds the mutex, and its next call on it recovers (fn runs), gives the
 * mutex up and returns PR_EABORTED. Which of its mutexes an abort pending
 * in its status is for does not show: any held one that has a recovery. */
int fz_recoverable(int t)
{
    int n = 0;
    for (int i = 0; i < fz.task[t].nheld; i++)
        n += fz.sem[fz.task[t].order[i]].recovery;
    return n;
}

int fz_recovering(int t, pr_id_t m)
{
    const fz_task_t *w = &fz.task[t];
    return fz.sem[m].recovery && w->depth[m] > 0 && fz.snap.task_ok[t] &&
           fz.snap.task[t].aborts_pending > (uint32_t)w->naborted;
}

/* ---- reading the kernel ---- */

/* The status of every task slot ever used, and of every allocated
 * semaphore and condition variable. The driver's checks (a few per slice)
 * also read every free descriptor, which must say PR_ENOTALLOC; the others
 * skip them, as each status call of a debug kernel checks that object's
 * invariants too and the check runs after every call. */
static void read_kernel(void)
{
    fz_snap_t *s = &fz.snap;
    int sweep = fz.in_driver;
    for (int i = 0; i < FZ_TASKS; i++) {
        if (fz.task[i].alive && i >= fz.task_hi)
            fz.task_hi = i + 1;
        if (i > fz.task_hi) { /* never allocated in this seed */
            s->task_ok[i] = 0;
            continue;
        }
        int r = pr_task_status(i, &s->task[i]);
        if (r != PR_OK && r != PR_ENOTALLOC)
            fz_fail("task_status(%d) returned %s", i, pr_errname(r));
        s->task_ok[i] = r == PR_OK;
    }
    for (int i = 0; i < FZ_SEMS; i++) {
        if (fz.sem[i].alive && i >= fz.sem_hi)
            fz.sem_hi = i + 1;
        s->sem_ok[i] = 0;
        if (i > fz.sem_hi || (!fz.sem[i].alive && !sweep))
            continue;
        int r = pr_sem_status(i, &s->sem[i]);
        if (r != PR_OK && r != PR_ENOTALLOC)
            fz_fail("sem_status(%d) returned %s", i, pr_errname(r));
        s->sem_ok[i] = r == PR_OK;
        if (s->sem_ok[i] != fz.sem[i].alive)
            fz_fail("sem_status(%d) says %s; the calls say it is %s", i, s->sem_ok[i] ? "allocated" : "free",
                    fz.sem[i].alive ? "allocated" : "free");
    }
    for (int i = 0; i < FZ_CONDS; i++) {
        s->cond_ok[i] = 0;
        if (!fz.cond_alive[i] && !sweep)
            continue;
        int r = pr_cond_status(i, &s->cond[i]);
        if (r != PR_OK && r != PR_ENOTALLOC)
            fz_fail("cond_status(%d) returned %s", i, pr_errname(r));
        s->cond_ok[i] = r == PR_OK;
        if (s->cond_ok[i] != fz.cond_alive[i])
            fz_fail("cond_status(%d) says %s", i, s->cond_ok[i] ? "allocated" : "free");
    }
    fz_services_read(sweep);
}

/* Tasks that died or ended, and tasks nobody created. */
static void reconcile_tasks(void)
{
    int creating = 0;
    uint8_t deleting[FZ_TASKS] = {0}; /* a pr_task_delete under way may have deleted it already */
    for (int t = 0; t < FZ_TASKS; t++) {
        const fz_task_t *w = &fz.task[t];
        creating |= w->alive && (w->call == FZ_TASK_CREATE || w->call == FZ_TIMER_SERVICE_START);
        if (w->alive && w->call == FZ_TASK_DELETE && w->call_arg >= 0 && w->call_arg < FZ_TASKS)
            deleting[w->call_arg] = 1;
    }
    for (int t = 0; t <= fz.task_hi && t < FZ_TASKS; t++) {
        fz_task_t *w = &fz.task[t];
        if (!w->alive && fz.snap.task_ok[t] && fz_services_adopt(t))
            continue;
        if (!w->alive) {
            if (fz.snap.task_ok[t] && !creating)
                fz_fail("task %d exists, but no task_create returned it", t);
            continue;
        }
        if (!fz.snap.task_ok[t]) {
            if (!w->self_delete && !deleting[t])
                fz_fail("task %d is gone, but no task_delete of it succeeded", t);
            fz_services_task_gone(t);
            w->alive = 0;
            drop_all(t);
            w->call = FZ_OPS;
            w->self_delete = 0;
            continue;
        }
        if (fz.snap.task[t].state == PR_TASK_DONE) {
            if (!w->exiting)
                fz_fail("task %d is PR_TASK_DONE, but its body has not returned", t);
            drop_all(t);
            w->call = FZ_OPS;
        }
    }
}

static void check_sems(const int *nblocked)
{
    for (int m = 0; m < FZ_SEMS; m++) {
        const pr_sem_status_t *st = &fz.snap.sem[m];
        const pr_sem_attr_t *a = &fz.sem[m].attr;
        if (m > fz.sem_hi)
            break;
        if (!fz.sem[m].alive)
            continue;
        if (st->index != m || st->waiters < 0 || (uint32_t)st->waiters > FZ_TASKS)
            fz_fail("s%d: status index %d, waiters %d", m, st->index, st->waiters);
        if (!fz_is_mutex(m)) {
            int max = (a->flags & PR_SEM_BINARY) ? 1 : a->max > 0 ? a->max : 0x7FFFFFFF;
            if (st->holder != PR_NO_TASK || st->depth != 0 || st->value > max ||
                (st->value < 0 ? -st->value != st->waiters : st->waiters != 0))
                fz_fail("s%d (counting): value %d, waiters %d, holder %d, depth %d", m, st->value, st->waiters,
                        st->holder, st->depth);
            if (nblocked[m] != st->waiters)
                fz_fail("s%d: %d waiters, but %d tasks are blocked on it", m, st->waiters, nblocked[m]);
            continue;
        }
        if (st->holder == PR_NO_TASK) {
            if (st->value != 1 || st->depth != 0 || st->waiters != 0)
                fz_fail("s%d (mutex) has no holder: value %d, depth %d, waiters %d", m, st->value, st->depth,
                        st->waiters);
        } else {
            pr_id_t h = st->holder;
            if (st->value != -st->waiters || st->depth < 1 || (!(a->flags & PR_SEM_RECURSIVE) && st->depth != 1))
                fz_fail("s%d (mutex) held by %d: value %d, depth %d, waiters %d", m, h, st->value, st->depth,
                        st->waiters);
            if (h < 0 || h >= FZ_TASKS || !fz.snap.task_ok[h] || fz.snap.task[h].state == PR_TASK_DONE)
                fz_fail("s%d is held by %d, which is not a live task", m, h);
        }
        if (!fz_is_pcp(m) && nblocked[m] != st->waiters)
            fz_fail("s%d: %d waiters, but %d tasks are blocked on it", m, st->waiters, nblocked[m]);
    }
}

/* What m lends its holder (docs/semantics.md, "Definition"); -1 nothing. */
static pr_prio_t lend(pr_id_t m, const pr_prio_t *wait_max)
{
    const pr_sem_attr_t *a = &fz.sem[m].attr;
    switch (a->protocol) {
    case PR_PROTOCOL_PIP:
    case PR_PROTOCOL_RCS:
        return wait_max[m];
    case PR_PROTOCOL_IPCP:
        return wait_max[m] > a->ceiling ? wait_max[m] : a->ceiling;
    case PR_PROTOCOL_NPCS:
        return PR_PRIO_MAX;
    default:
        return -1;
    }
}

static void check_task(int t, const pr_prio_t *wait_max)
{
    const pr_task_status_t *st = &fz.snap.task[t];
    if (st->id != t || st->base_priority < 0 || st->base_priority > PR_PRIO_MAX ||
        st->effective_priority < st->base_priority || st->effective_priority > PR_PRIO_MAX)
        fz_fail("task %d: id %d, base %d, effective %d", t, st->id, st->base_priority, st->effective_priority);
    if (st->state < PR_TASK_READY || st->state > PR_TASK_WAIT_RECEIVE || st->suspended < 0 || st->suspended > 1)
        fz_fail("task %d: state %d, suspended %d", t, (int)st->state, st->suspended);
    if ((st->state == PR_TASK_BLOCKED) != (st->blocked_on != PR_NO_SEM))
        fz_fail("task %d: state %d, blocked_on %d", t, (int)st->state, st->blocked_on);
    if (st->blocked_on != PR_NO_SEM && (st->blocked_on < 0 || st->blocked_on >= FZ_SEMS || !fz.sem[st->blocked_on].alive))
        fz_fail("task %d is blocked on s%d, which is not allocated", t, st->blocked_on);
    if ((st->state == PR_TASK_WAIT_COND) != (st->cond_on != PR_NO_COND))
        fz_fail("task %d: state %d, cond_on %d", t, (int)st->state, st->cond_on);
    if (st->cond_on != PR_NO_COND && (st->cond_on < 0 || st->cond_on >= FZ_CONDS || !fz.cond_alive[st->cond_on]))
        fz_fail("task %d waits on c%d, which is not allocated", t, st->cond_on);
    if (st->aborts_pending > st->aborts)
        fz_fail("task %d: %u aborts pending of %u", t, (unsigned)st->aborts_pending, (unsigned)st->aborts);

    int held = 0, pcp = 0;
    pr_prio_t low = st->base_priority;
    for (int m = 0; m < fz.sem_hi; m++) {
        if (!fz.sem[m].alive || fz.snap.sem[m].holder != t)
            continue;
        held++;
        if (fz_is_pcp(m)) {
            pcp = 1;
            continue;
        }
        pr_prio_t l = lend(m, wait_max);
        if (l > low)
            low = l;
    }
    pr_prio_t queue_high, queue_low = fz_queue_lend(t, &queue_high); /* inheriting queues it serves */
    if (queue_low > low)
        low = queue_low;
    if (held != st->mutexes_held)
        fz_fail("task %d: mutexes_held %d, but it is the holder of %d mutexes", t, st->mutexes_held, held);
    if (st->state == PR_TASK_DONE && (held != 0 || st->aborts_pending != 0))
        fz_fail("task %d is done and still holds %d mutexes (%u aborts pending)", t, held,
                (unsigned)st->aborts_pending);
    if (!pcp && queue_high <= low) {
        if (st->effective_priority != low)
            fz_fail("task %d: effective priority %d; base %d and what its %d mutexes and the queues it serves lend "
                    "give %d%s", t, st->effective_priority, st->base_priority, held, low,
                    held == 0 && queue_high < 0 ? " (it holds nothing: a priority lent and never withdrawn)" : "");
        return;
    }
    /* A pcp holder may inherit from any task waiting for a pcp mutex (its
     * own waiters, or the system ceiling's), and from nothing else. */
    pr_prio_t high = queue_high > low ? queue_high : low; /* the message it received last: at most this */
    for (int u = 0; u <= fz.task_hi && u < FZ_TASKS && pcp; u++) {
        const pr_task_status_t *us = &fz.snap.task[u];
        if (u != t && fz.snap.task_ok[u] && us->state == PR_TASK_BLOCKED && us->blocked_on >= 0 &&
            us->blocked_on < FZ_SEMS && fz_is_pcp(us->blocked_on) && us->effective_priority > high)
            high = us->effective_priority;
    }
    if (st->effective_priority < low || st->effective_priority > high)
        fz_fail("task %d: effective priority %d, outside %d..%d (its base, its mutexes' lends, pcp waiters, the "
                "queues it serves)", t,
                st->effective_priority, low, high);
}

/* The kernel's holders against the shadow's; rcs take-overs learnt here. */
static void check_holders(void)
{
    for (int m = 0; m < fz.sem_hi; m++) {
        if (!fz.sem[m].alive || !fz_is_mutex(m))
            continue;
        pr_id_t k = fz.snap.sem[m].holder;
        for (int t = 0; t <= fz.task_hi && t < FZ_TASKS; t++) {
            fz_task_t *w = &fz.task[t];
            if (!w->alive || w->depth[m] == 0 || releasing(w, m))
                continue;
            if (k == t) {
                if (fz.snap.sem[m].depth != w->depth[m] && !acquiring(w, m))
                    fz_fail("s%d: depth %d; task %d locked it %d times", m, fz.snap.sem[m].depth, t, w->depth[m]);
                continue;
            }
            if (fz.sem[m].attr.protocol != PR_PROTOCOL_RCS)
                fz_fail("task %d holds s%d (its down returned PR_OK, no up since), but the holder is %d", t, m, k);
            w->depth[m] = 1; /* taken over: it will be told on its next call on m */
            fz_give(t, (pr_id_t)m);
            w->aborted[m] = 1;
            w->naborted++;
        }
        if (k != PR_NO_TASK && k >= 0 && k < FZ_TASKS && fz.task[k].depth[m] == 0 && !acquiring(&fz.task[k], m))
            fz_fail("task %d is the holder of s%d, but no call of it took s%d", k, m, m);
    }
}

/* Aborts pending: one per section taken over and not told, plus at most one
 * per held mutex whose recovery is under way. */
static void check_aborts(void)
{
    for (int t = 0; t <= fz.task_hi && t < FZ_TASKS; t++) {
        const fz_task_t *w = &fz.task[t];
        if (!w->alive || w->exiting)
            continue;
        uint32_t pending = fz.snap.task[t].aborts_pending, told = (uint32_t)w->naborted;
        int settled = !(acquiring(w, w->call_sem) && w->call_sem >= 0 && w->call_sem < FZ_SEMS &&
                        fz.sem[w->call_sem].attr.protocol == PR_PROTOCOL_RCS);
        if (pending < told || (settled && pending > told + (uint32_t)fz_recoverable(t)))
            fz_fail("task %d: %u aborts pending, but %d of its rcs sections were taken over and not told", t,
                    (unsigned)pending, w->naborted);
    }
}

/* No task waits on a mutex that nobody holds, but for pcp: the system
 * ceiling blocks it, or a task woken to try again has not tried yet (one
 * is woken at a time). The ceiling test takes the lowest base priority the
 * waiter had since it called, the weaker test: a waiter raised meanwhile
 * is examined again at the next pcp lock or unlock, not at once. */
static void check_wakeups(void)
{
    int retrier = -1;
    for (int t = 0; t <= fz.task_hi && t < FZ_TASKS; t++) {
        fz_task_t *w = &fz.task[t];
        if (w->alive && w->call != FZ_OPS && fz.snap.task[t].base_priority < w->call_base)
            w->call_base = fz.snap.task[t].base_priority;
    }
    for (int t = 0; t <= fz.task_hi && t < FZ_TASKS && retrier < 0; t++)
        if (fz_retrier(t))
            retrier = t;
    for (int t = 0; t <= fz.task_hi && t < FZ_TASKS; t++) {
        const pr_task_status_t *st = &fz.snap.task[t];
        if (!fz.task[t].alive || st->state != PR_TASK_BLOCKED || !fz_is_mutex(st->blocked_on))
            continue;
        pr_id_t m = st->blocked_on;
        if (fz.snap.sem[m].holder != PR_NO_TASK)
            continue;
        if (!fz_is_pcp(m))
            fz_fail("lost wakeup: task %d is blocked on s%d, which is free", t, m);
        pr_prio_t prio = fz.task[t].call != FZ_OPS ? fz.task[t].call_base : st->base_priority;
        if (retrier < 0 && !fz_blocked_by_ceiling(t, prio))
            fz_fail("lost wakeup: task %d waits for the free pcp mutex s%d; no held ceiling blocks it and no "
                    "task woken to try again is pending", t, m);
    }
}

static void check_conds(void)
{
    for (int c = 0; c < FZ_CONDS; c++) {
        const pr_cond_status_t *st = &fz.snap.cond[c];
        if (!fz.cond_alive[c])
            continue;
        int n = 0;
        for (int t = 0; t <= fz.task_hi && t < FZ_TASKS; t++) {
            const pr_task_status_t *ts = &fz.snap.task[t];
            if (!fz.task[t].alive || ts->cond_on != c)
                continue;
            n++;
            if (fz.task[t].call == FZ_COND_WAIT && st->mutex != fz.task[t].call_sem)
                fz_fail("c%d: its mutex is s%d, but task %d waits on it with s%d", c, st->mutex, t,
                        fz.task[t].call_sem);
        }
        if (n != st->waiters)
            fz_fail("c%d: %d waiters, but %d tasks wait on it", c, st->waiters, n);
    }
}

/* The running task is ready and, unless it holds the scheduler lock, no
 * ready task is more urgent. */
static void check_running(int self)
{
    const pr_task_status_t *me = &fz.snap.task[self];
    if (!fz.snap.task_ok[self] || me->state != PR_TASK_READY || me->suspended)
        fz_fail("task %d runs, but its status says state %d, suspended %d", self, (int)me->state, me->suspended);
    if (fz.task[self].sched_locks > 0)
        return;
    for (int t = 0; t <= fz.task_hi && t < FZ_TASKS; t++) {
        const pr_task_status_t *st = &fz.snap.task[t];
        if (t != self && fz.snap.task_ok[t] && st->state == PR_TASK_READY && !st->suspended &&
            st->effective_priority > me->effective_priority)
            fz_fail("task %d runs at %d while task %d is ready at %d: a switch was missed", self,
                    me->effective_priority, t, st->effective_priority);
    }
}

void fz_check(void)
{
    int nblocked[FZ_SEMS];
    pr_prio_t wait_max[FZ_SEMS];
    uint64_t now = pr_host_now();

    if (now < fz.last_time)
        fz_fail("virtual time went back from %llu to %llu ns", (unsigned long long)fz.last_time,
                (unsigned long long)now);
    if (now != fz.last_time) {
        fz.last_time = now;
        fz.calls_at_time = fz.calls;
    } else if (fz.calls - fz.calls_at_time > 50000) {
        fz_fail("no progress: 50000 calls at the same instant");
    }
    if (fz.stray_recoveries != 0)
        fz_fail("an rcs recovery ran outside any task");
    read_kernel();
    reconcile_tasks();
    for (int m = 0; m < FZ_SEMS; m++) {
        nblocked[m] = 0;
        wait_max[m] = -1;
    }
    for (int t = 0; t <= fz.task_hi && t < FZ_TASKS; t++) {
        const pr_task_status_t *st = &fz.snap.task[t];
        if (!fz.snap.task_ok[t] || st->state != PR_TASK_BLOCKED || st->blocked_on < 0 || st->blocked_on >= FZ_SEMS)
            continue;
        nblocked[st->blocked_on]++;
        if (st->effective_priority > wait_max[st->blocked_on])
            wait_max[st->blocked_on] = st->effective_priority;
    }
    check_sems(nblocked);
    for (int t = 0; t <= fz.task_hi && t < FZ_TASKS; t++)
        if (fz.task[t].alive)
            check_task(t, wait_max);
    check_holders();
    check_aborts();
    check_wakeups();
    check_conds();
    fz_bands_check();
    fz_aborts_check();
    fz_services_check();
    int self = fz_caller();
    if (self >= 0)
        check_running(self);
}

/* The driver's run ended quiescent: idle ran with no timer armed. */
void fz_check_quiescent(void)
{
    for (int t = 0; t <= fz.task_hi && t < FZ_TASKS; t++) {
        const pr_task_status_t *st = &fz.snap.task[t];
        if (fz.snap.task_ok[t] && st->state == PR_TASK_READY && !st->suspended)
            fz_fail("quiescent with task %d ready at %d: idle ran instead", t, st->effective_priority);
    }
}
