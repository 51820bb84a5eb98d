/*
 * The generator: the seed's profile, the run's set-up, and the next call of
 * a task, of the tick interrupt or of the driver (fuzz.h).
 *
 * Every choice reads the last snapshot and the shadow, never real time, so a
 * seed gives one sequence. Runs are small on purpose (3 to 8 tasks, 2 to 5
 * mutexes, priorities from a narrow range) so that tasks meet on the same
 * mutexes all the time, and each seed leans one way: most mutexes pcp, or
 * rcs, or all six protocols mixed. The hard paths get extra weight: a task
 * woken to try again by pcp is the favourite target of deletes, suspends,
 * priority changes, frees and competing locks, while it has not run yet.
 */
#include <limits.h>
#include "fuzz.h"

uint64_t fz_next(void)
{
    uint64_t z = (fz.rng += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

int fz_below(int n) { return n <= 1 ? 0 : (int)(fz_next() % (uint64_t)n); }
int fz_range(int lo, int hi) { return lo + fz_below(hi - lo + 1); }
int fz_chance(int percent) { return fz_below(100) < percent; }

static const int64_t BAD_IDS[] = {-1, -2, -1000, INT_MIN};

/* A weighted choice: weights[i] for choice i, n choices. */
static int pick_weighted(const int *weights, int n)
{
    int total = 0;
    for (int i = 0; i < n; i++)
        total += weights[i];
    int x = fz_below(total);
    for (int i = 0; i < n; i++) {
        if (x < weights[i])
            return i;
        x -= weights[i];
    }
    return n - 1;
}

/* ---- the profile ---- */

static void choose_profile(void)
{
    fz_profile_t *p = &fz.profile;
    static const int LEANS[][PR_PROTOCOL_COUNT] = {
        {1, 1, 12, 1, 1, 1}, /* pcp */
        {1, 1, 1, 1, 1, 12}, /* rcs */
        {1, 3, 6, 1, 1, 6},  /* the two, with inheritance */
        {2, 2, 2, 2, 2, 2},  /* all six */
    };
    int lean = pick_weighted((const int[]){4, 2, 2, 2}, 4);
    for (int i = 0; i < PR_PROTOCOL_COUNT; i++)
        p->protocol_weight[i] = LEANS[lean][i];
    p->prio_lo = fz.ts_levels + fz_range(0, 3); /* real-time priorities: in the real-time band */
    p->prio_hi = p->prio_lo + fz_range(2, 6);
    p->max_workers = fz_range(3, 8);
    p->periodic_percent = fz_chance(40) ? 0 : fz_range(10, 50);
    p->deep_nesting = fz_chance(50);
    p->hunt_retriers = fz_chance(60); /* the others go deeper where the hunt would stop a run early */
}

/* ---- arguments ---- */

static int64_t bad_id(int pool)
{
    return fz_chance(50) ? BAD_IDS[fz_below(4)] : pool + fz_below(3) * 50;
}

static int64_t pick_task(int self);
int64_t fz_pick_task(int self) { return pick_task(self); }

static int live_task(int t) { return fz.task[t].alive && fz.snap.task_ok[t]; }

/* Tasks that may still run (not done). */
static int running_tasks(void)
{
    int n = 0;
    for (int t = 0; t <= fz.task_hi && t < FZ_TASKS; t++)
        n += live_task(t) && fz.snap.task[t].state != PR_TASK_DONE;
    return n;
}

/* A task id: a live one (the interesting ones more often), or now and then
 * a bad id or a slot that is free. */
static int64_t pick_task(int self)
{
    int ids[FZ_TASKS], n = 0, hot[FZ_TASKS], nhot = 0;
    if (fz_chance(2))
        return bad_id(FZ_TASKS);
    for (int t = 0; t <= fz.task_hi && t < FZ_TASKS; t++) {
        if (!live_task(t))
            continue;
        ids[n++] = t;
        const pr_task_status_t *st = &fz.snap.task[t];
        if (t != self && (fz_retrier(t) || st->state == PR_TASK_BLOCKED || st->mutexes_held > 0))
            hot[nhot++] = t;
    }
    if (fz_chance(3) || n == 0) {
        for (int t = 0; t < FZ_TASKS; t++)
            if (!fz.task[t].alive)
                return t;
    }
    if (nhot > 0 && fz_chance(60))
        return hot[fz_below(nhot)];
    return ids[fz_below(n)];
}

enum { ANY_SEM, A_MUTEX, A_COUNTING, A_FREE_MUTEX };

static int64_t pick_sem(int want)
{
    int ids[FZ_SEMS], n = 0;
    if (fz_chance(2))
        return bad_id(FZ_SEMS);
    if (fz_chance(2)) {
        for (int s = fz_below(fz.sem_hi + 1); s < FZ_SEMS; s++)
            if (!fz.sem[s].alive)
                return s;
    }
    for (int s = 0; s < fz.sem_hi; s++) {
        if (!fz.sem[s].alive)
            continue;
        int mutex = fz_is_mutex(s);
        if ((want == A_MUTEX && !mutex) || (want == A_COUNTING && mutex))
            continue;
        if (want == A_FREE_MUTEX && (!mutex || fz.snap.sem[s].holder != PR_NO_TASK))
            continue;
        ids[n++] = s;
    }
    if (n == 0)
        return want == A_FREE_MUTEX ? pick_sem(A_MUTEX) : fz.sem_hi > 0 ? fz_below(fz.sem_hi) : 0;
    return ids[fz_below(n)];
}

static int64_t pick_cond(void)
{
    int ids[FZ_CONDS], n = 0;
    if (fz_chance(3))
        return fz_chance(50) ? bad_id(FZ_CONDS) : fz_below(FZ_CONDS);
    for (int c = 0; c < FZ_CONDS; c++)
        if (fz.cond_alive[c])
            ids[n++] = c;
    return n > 0 ? ids[fz_below(n)] : fz_below(FZ_CONDS);
}

static pr_timeout_t pick_timeout(void)
{
    int k = pick_weighted((const int[]){20, 25, 55}, 3);
    return k == 0 ? PR_NO_WAIT : k == 1 ? PR_FOREVER : (pr_timeout_t)fz_range(1, 6);
}

static pr_prio_t pick_prio(void)
{
    if (fz_chance(3))
        return fz_chance(50) ? -1 : PR_PRIO_MAX + 1 + fz_below(3);
    if (fz_chance(5))
        return fz_chance(50) ? 0 : PR_PRIO_MAX;
    if (fz.ts_levels > 0 && fz_chance(3)) /* a time-sharing level: not a real-time priority */
        return fz_below(fz.ts_levels);
    return fz_range(fz.profile.prio_lo, fz.profile.prio_hi);
}

/* A task woken by pcp to try again, not yet run (the favourite victim). */
static int pick_retrier(int self)
{
    for (int t = 0; t <= fz.task_hi && t < FZ_TASKS; t++)
        if (t != self && fz_retrier(t))
            return t;
    return -1;
}

/* ---- calls ---- */

static const char *const NAMES[] = {"w", "worker", "a-task-name-too-long", NULL};

static void make_create(fz_call_t *c)
{
    pr_task_attr_t *a = &c->task_attr;
    c->op = FZ_TASK_CREATE;
    pr_task_attr_init(a);
    a->name = NAMES[pick_weighted((const int[]){60, 30, 2, 8}, 4)];
    a->entry = fz_chance(2) ? NULL : fz_worker_body;
    a->priority = fz_chance(3) ? pick_prio() : fz_range(fz.profile.prio_lo, fz.profile.prio_hi);
    fz_gen_task_attr_jobs(a); /* period, deadline, arrivals, hard or soft, importance, abort time */
    if (fz_chance(15))
        a->watchdog = (pr_id_t)pick_task(PR_NO_TASK);
    fz_gen_task_attr_bands(a);
    c->null = fz_chance(2) ? fz_range(1, 2) : 0;
}

static void make_alloc(fz_call_t *c)
{
    pr_sem_attr_t *a = &c->sem_attr;
    const fz_profile_t *p = &fz.profile;
    c->op = FZ_SEM_ALLOC;
    pr_sem_attr_init(a);
    a->name = NAMES[pick_weighted((const int[]){50, 30, 2, 18}, 4)];
    int kind = pick_weighted((const int[]){70, 18, 12}, 3);
    if (kind == 0) {
        a->value = 1;
        a->protocol = (pr_protocol_t)pick_weighted(p->protocol_weight, PR_PROTOCOL_COUNT);
        a->flags = PR_SEM_MUTEX | PR_SEM_PRIO | (fz_chance(25) ? PR_SEM_RECURSIVE : 0u);
        if ((a->protocol == PR_PROTOCOL_NONE || a->protocol == PR_PROTOCOL_NPCS) && fz_chance(40))
            a->flags &= ~PR_SEM_PRIO;
        if (a->protocol == PR_PROTOCOL_PCP || a->protocol == PR_PROTOCOL_IPCP)
            a->ceiling = fz_chance(70) ? p->prio_hi : fz_range(p->prio_lo, p->prio_hi);
    } else if (kind == 1) {
        a->value = fz_range(0, 2);
        a->max = fz_chance(50) ? 0 : a->value + fz_range(0, 3);
        a->flags = fz_chance(50) ? PR_SEM_PRIO : 0u;
    } else {
        a->value = fz_range(0, 1);
        a->flags = PR_SEM_BINARY | (fz_chance(50) ? PR_SEM_PRIO : 0u);
    }
    if (fz_chance(5)) { /* one attribute wrong */
        switch (fz_below(8)) {
        case 0: a->value = -1; break;
        case 1: a->flags |= 0x10u; break;
        case 2: a->flags = PR_SEM_RECURSIVE; break;
        case 3: a->value = 2; break;
        case 4: a->ceiling = PR_PRIO_MAX + 1; break;
        case 5: a->protocol = (pr_protocol_t)PR_PROTOCOL_COUNT; break;
        case 6: a->max = -1; break;
        default: a->flags &= ~PR_SEM_PRIO; a->protocol = PR_PROTOCOL_PIP; break;
        }
    }
    c->null = fz_chance(2) ? fz_range(1, 2) : 0;
}

/* A status-like call: every read-only call, with NULL now and then. */
static void make_query(fz_call_t *c, int self)
{
    static const fz_op_t QUERIES[] = {FZ_TASK_STATUS, FZ_TASK_SELF, FZ_SEM_STATS, FZ_SEM_STATUS, FZ_SEM_ATTR_GET,
                                      FZ_SEM_CONTROL, FZ_SEM_ABORTED, FZ_COND_STATUS, FZ_KERNEL_STATS, FZ_TICKS_NOW,
                                      FZ_NAMES};
    c->op = QUERIES[fz_below((int)(sizeof QUERIES / sizeof *QUERIES))];
    if (c->op == FZ_KERNEL_STATS && FZ_HAS_KERNEL_CHECK && fz_chance(50))
        c->op = FZ_KERNEL_CHECK;
    c->null = fz_chance(5);
    if (c->op == FZ_TASK_STATUS)
        c->arg[0] = pick_task(self);
    else if (c->op == FZ_COND_STATUS)
        c->arg[0] = pick_cond();
    else if (c->op >= FZ_SEM_STATS && c->op <= FZ_SEM_CONTROL)
        c->arg[0] = pick_sem(ANY_SEM);
    if (c->op == FZ_SEM_CONTROL) /* the name, or a command nobody knows (the recovery: make_recovery) */
        c->arg[1] = fz_chance(85) ? PR_SEM_CTL_PROTOCOL_NAME : fz_chance(20) ? 0 : fz_range(PR_SEM_CTL_RECOVERY + 1, 9);
    if (c->op == FZ_NAMES)
        c->arg[0] = fz_range(-20, 40);
}

/* An rcs mutex's recovery set, or removed while nobody holds the mutex (a
 * section being aborted keeps the recovery it was aborted under). */
static void make_recovery(fz_call_t *c)
{
    c->op = FZ_SEM_CONTROL;
    c->arg[0] = pick_sem(A_MUTEX);
    c->arg[1] = PR_SEM_CTL_RECOVERY;
    c->arg[2] = 1;
    c->null = fz_chance(3);
    if (c->arg[0] >= 0 && c->arg[0] < FZ_SEMS && fz.sem[c->arg[0]].alive &&
        fz.snap.sem[c->arg[0]].holder == PR_NO_TASK && fz_chance(30))
        c->arg[2] = 0;
}

/* A call any caller may make (the rest of the time, each its own). */
static void make_common(fz_call_t *c, int self)
{
    switch (fz_below(20)) {
    case 17: c->op = fz_chance(80) ? FZ_TASK_RELEASE : FZ_TASK_ABORTED; c->arg[0] = fz_pick_release(self); break;
    case 0:
        if (running_tasks() < fz.profile.max_workers)
            make_create(c);
        else
            make_query(c, self);
        break;
    case 1: c->op = FZ_TASK_DELETE; c->arg[0] = pick_task(self); break;
    case 2: c->op = FZ_TASK_SUSPEND; c->arg[0] = pick_task(self); break;
    case 3: case 4: c->op = FZ_TASK_RESUME; c->arg[0] = pick_task(self); break;
    case 5: c->op = FZ_TASK_SET_PRIO; c->arg[0] = pick_task(self); c->arg[1] = pick_prio(); break;
    case 6: c->op = FZ_SEM_FREE; c->arg[0] = pick_sem(ANY_SEM); break;
    case 7: make_alloc(c); break;
    case 8: c->op = FZ_COND_ALLOC; c->name = NAMES[fz_below(4)]; c->null = fz_chance(3); break;
    case 9: c->op = FZ_COND_FREE; c->arg[0] = pick_cond(); break;
    case 10: c->op = FZ_SET_QUANTUM; c->arg[0] = fz_chance(50) ? 0 : fz_range(1, 4); break;
    case 11: c->op = FZ_SEM_UP; c->arg[0] = pick_sem(A_COUNTING); break;
    case 12: c->op = FZ_SEM_TRYDOWN; c->arg[0] = pick_sem(ANY_SEM); break;
    case 13: c->op = FZ_SEM_DOWN; c->arg[0] = pick_sem(ANY_SEM); c->arg[1] = pick_timeout(); break;
    case 14: make_recovery(c); break;
    case 15: case 16: fz_gen_bands(c, self); break;
    default: make_query(c, self); break;
    }
}

/* A call aimed at a task pcp woke to try again, in the window before it
 * runs: it is deleted, suspended, resumed, re-prioritised, loses its mutex
 * to a free, or meets a competing lock. 1 if such a call was chosen. */
static int attack_retrier(fz_call_t *c, int self, int percent)
{
    int r = fz.profile.hunt_retriers ? pick_retrier(self) : -1;
    if (r < 0 || !fz_chance(percent))
        return 0;
    pr_id_t m = fz.task[r].call_sem;
    switch (fz_below(6)) {
    case 0: c->op = FZ_TASK_DELETE; c->arg[0] = r; break;
    case 1: c->op = FZ_TASK_SUSPEND; c->arg[0] = r; break;
    case 2: c->op = FZ_TASK_SET_PRIO; c->arg[0] = r; c->arg[1] = pick_prio(); break;
    case 3: c->op = FZ_SEM_FREE; c->arg[0] = m; break;
    case 4: c->op = FZ_TASK_RESUME; c->arg[0] = r; break;
    default: c->op = self >= 0 ? FZ_SEM_DOWN : FZ_SEM_FREE; c->arg[0] = m; c->arg[1] = pick_timeout(); break;
    }
    return 1;
}

enum { T_LOCK, T_UNLOCK, T_COMPUTE, T_COUNT, T_SLEEP, T_PRIO, T_SUSPEND, T_DELETE, T_CREATE, T_COND, T_SEMS,
       T_PERIOD, T_QUERY, T_EXIT, T_SELF, T_SCHED, T_COMMON, T_SERVICES, T_BANDS, T_KINDS };

static void task_lock(fz_call_t *c, int self)
{
    const fz_task_t *w = &fz.task[self];
    c->op = fz_chance(10) ? FZ_SEM_TRYDOWN : FZ_SEM_DOWN;
    c->arg[1] = pick_timeout();
    if (w->nheld > 0 && fz_chance(8))
        c->arg[0] = w->order[fz_below(w->nheld)]; /* again: EHELD, or a recursive relock */
    else
        c->arg[0] = pick_sem(fz_chance(60) ? A_FREE_MUTEX : A_MUTEX);
}

static void task_unlock(fz_call_t *c, int self)
{
    const fz_task_t *w = &fz.task[self];
    c->op = FZ_SEM_UP;
    if (w->nheld == 0 || fz_chance(5))
        c->arg[0] = pick_sem(ANY_SEM);
    else
        c->arg[0] = fz_chance(75) ? w->order[w->nheld - 1] : w->order[fz_below(w->nheld)];
}

static void task_cond(fz_call_t *c, int self)
{
    const fz_task_t *w = &fz.task[self];
    int k = fz_below(10);
    if (k < 5 && (w->nheld > 0 || fz_chance(10))) {
        c->op = FZ_COND_WAIT;
        c->arg[0] = pick_cond();
        c->arg[1] = w->nheld > 0 && fz_chance(90) ? w->order[fz_below(w->nheld)] : pick_sem(ANY_SEM);
        c->arg[2] = fz_chance(5) ? PR_NO_WAIT : fz_chance(30) ? PR_FOREVER : (pr_timeout_t)fz_range(1, 8);
        /* the cond's waiters all use one mutex: follow them, mostly */
        if (c->arg[0] >= 0 && c->arg[0] < FZ_CONDS && fz.snap.cond[c->arg[0]].waiters > 0 && fz_chance(80))
            c->arg[1] = fz.snap.cond[c->arg[0]].mutex;
    } else {
        c->op = k < 8 ? FZ_COND_SIGNAL : FZ_COND_BROADCAST;
        c->arg[0] = pick_cond();
    }
}

static void task_compute(fz_call_t *c)
{
    c->op = FZ_CONSUME;
    if (fz.quiet && fz_chance(40)) /* over several ticks: the port's skip (main.c) */
        c->arg[0] = (int64_t)FZ_TICK_NS * fz_range(2, 8) + fz_below(FZ_TICK_NS);
    else
        c->arg[0] = fz_chance(20) ? (int64_t)FZ_TICK_NS * fz_range(1, 2) : fz_range(50, 1500) * 1000;
}

void fz_gen_task(int self, fz_call_t *c)
{
    const fz_task_t *w = &fz.task[self];
    int weights[T_KINDS] = {
        [T_LOCK] = fz.profile.deep_nesting ? 240 : 170, [T_UNLOCK] = w->nheld > 0 ? 190 : 10,
        [T_COMPUTE] = 110, [T_COUNT] = 60, [T_SLEEP] = 45, [T_PRIO] = 40, [T_SUSPEND] = 30,
        [T_DELETE] = 20, [T_CREATE] = running_tasks() < fz.profile.max_workers ? 20 : 1, [T_COND] = 45, [T_SEMS] = 10, [T_PERIOD] = 25, [T_QUERY] = 40,
        [T_EXIT] = 4, [T_SELF] = 6, [T_COMMON] = 30, [T_SERVICES] = 260, /* events, queues, timers */
        [T_BANDS] = 40, /* time sharing, nice, privileges */
        /* the scheduler lock: taken now and then, given back soon (a holder runs alone) */
        [T_SCHED] = !FZ_HAS_RECOVERY ? 0 : w->sched_locks > 0 ? 120 : 8,
    };
    c->null = 0;
    if (fz_gen_abort_reaction(self, c))
        return;
    if (attack_retrier(c, self, 40))
        return;
    switch (pick_weighted(weights, T_KINDS)) {
    case T_LOCK: task_lock(c, self); break;
    case T_UNLOCK: task_unlock(c, self); break;
    case T_COMPUTE: task_compute(c); break;
    case T_COUNT:
        c->op = fz_chance(50) ? FZ_SEM_UP : FZ_SEM_DOWN;
        c->arg[0] = pick_sem(A_COUNTING);
        c->arg[1] = pick_timeout();
        break;
    case T_SLEEP:
        c->op = fz_chance(60) ? FZ_TASK_DELAY : FZ_TASK_YIELD;
        c->arg[0] = fz_chance(3) ? (int64_t)PR_FOREVER : fz_range(0, 3);
        break;
    case T_PRIO:
        c->op = FZ_TASK_SET_PRIO;
        c->arg[0] = fz_chance(30) ? self : pick_task(self);
        c->arg[1] = pick_prio();
        break;
    case T_SUSPEND:
        c->op = fz_chance(50) ? FZ_TASK_SUSPEND : FZ_TASK_RESUME;
        c->arg[0] = pick_task(self);
        break;
    case T_DELETE: c->op = FZ_TASK_DELETE; c->arg[0] = pick_task(self); break;
    case T_CREATE: make_create(c); break;
    case T_COND: task_cond(c, self); break;
    case T_SEMS:
        if (fz_chance(50)) {
            c->op = FZ_SEM_FREE;
            c->arg[0] = pick_sem(ANY_SEM);
        } else {
            make_alloc(c);
        }
        break;
    case T_PERIOD:
        c->op = fz_chance(70) ? FZ_TASK_WAIT_PERIOD : FZ_TASK_WAIT_MISS;
        c->arg[0] = pick_weighted((const int[]){30, 5, 65}, 3) == 0 ? PR_NO_WAIT
                    : fz_chance(10) ? PR_FOREVER : (pr_timeout_t)fz_range(1, 10);
        c->null = fz_chance(30);
        break;
    case T_QUERY: make_query(c, self); break;
    case T_EXIT: c->op = FZ_EXIT; break;
    case T_SCHED:
        c->op = w->sched_locks > 0 ? (fz_chance(85) ? FZ_SCHED_UNLOCK : FZ_SCHED_LOCK)
                                   : (fz_chance(80) ? FZ_SCHED_LOCK : FZ_SCHED_UNLOCK);
        break;
    case T_SELF:
        c->op = fz_chance(40) ? FZ_TASK_DELETE : FZ_TASK_SUSPEND;
        c->arg[0] = self;
        break;
    case T_SERVICES: fz_gen_services(c, self); break;
    case T_BANDS: fz_gen_bands(c, self); break;
    default: make_common(c, self); break;
    }
}

void fz_gen_isr(fz_call_t *c)
{
    c->null = 0;
    if (attack_retrier(c, PR_NO_TASK, 50))
        return;
    if (fz_chance(35)) { /* events, queues and timers, as an interrupt may use them */
        fz_gen_services_isr(c);
        return;
    }
    if (fz_chance(30)) { /* an interrupt gives a counting or binary semaphore */
        c->op = FZ_SEM_UP;
        c->arg[0] = pick_sem(A_COUNTING);
        return;
    }
    if (fz_chance(10)) { /* and may not block, wait or touch a mutex */
        static const fz_op_t REFUSED[] = {FZ_TASK_DELAY, FZ_TASK_YIELD, FZ_TASK_WAIT_PERIOD, FZ_TASK_WAIT_MISS,
                                          FZ_COND_WAIT, FZ_COND_SIGNAL, FZ_COND_BROADCAST, FZ_SEM_UP,
                                          FZ_SCHED_LOCK, FZ_SCHED_UNLOCK};
        c->op = REFUSED[fz_below(FZ_HAS_RECOVERY ? 10 : 8)];
        c->arg[0] = c->op == FZ_SEM_UP ? pick_sem(A_MUTEX) : c->op >= FZ_COND_WAIT ? pick_cond() : fz_range(0, 3);
        c->arg[1] = pick_sem(A_MUTEX);
        c->arg[2] = (pr_timeout_t)fz_range(1, 3);
        return;
    }
    make_common(c, PR_NO_TASK);
}

void fz_gen_driver(fz_call_t *c)
{
    c->null = 0;
    int alive = 0, suspended = -1, done = -1;
    for (int t = 0; t <= fz.task_hi && t < FZ_TASKS; t++) {
        if (!live_task(t))
            continue;
        const pr_task_status_t *st = &fz.snap.task[t];
        alive += st->state != PR_TASK_DONE;
        if (st->suspended)
            suspended = t;
        if (st->state == PR_TASK_DONE)
            done = t;
    }
    if (alive < 2 || (alive < fz.profile.max_workers && fz_chance(10))) {
        make_create(c);
        c->null = 0;
        c->task_attr.entry = fz_worker_body;
        c->task_attr.name = "w";
        return;
    }
    if (done >= 0 && fz_chance(50)) { /* make room */
        c->op = FZ_TASK_DELETE;
        c->arg[0] = done;
        return;
    }
    if (suspended >= 0 && fz_chance(40)) { /* nobody else may resume it */
        c->op = FZ_TASK_RESUME;
        c->arg[0] = suspended;
        return;
    }
    if (attack_retrier(c, PR_NO_TASK, 70))
        return;
    if (fz_chance(2)) { /* the trace from now on: some events, or every one */
        c->op = FZ_TRACE_KEEP;
        c->arg[0] = fz_chance(30) ? (int64_t)PR_TRACE_ALL : (int64_t)fz_next();
        return;
    }
    if (fz_chance(25)) {
        c->op = FZ_SEM_UP;
        c->arg[0] = pick_sem(A_COUNTING);
        return;
    }
    if (fz_chance(25)) {
        fz_gen_services(c, PR_NO_TASK);
        return;
    }
    make_common(c, PR_NO_TASK);
}

/* ---- set-up: semaphores, condition variables and tasks, from outside ---- */

static void issue_until(fz_call_t *c, int want_ok)
{
    for (int tries = 0; tries < 8; tries++)
        if (fz_do(c) == PR_OK || !want_ok)
            return;
}

/* The pools' ends: every descriptor taken (the next alloc or create fails
 * with PR_ENOSPC), then all given back, in an order that shuffles the free
 * lists. The tasks' first release is far away: they never run. */
static void fill_pools(void)
{
    fz_call_t c;
    pr_id_t ids[FZ_TASKS];
    int n = 0;
    do {
        c = (fz_call_t){.op = FZ_SEM_ALLOC};
        pr_sem_attr_init(&c.sem_attr);
    } while (fz_do(&c) == PR_OK);
    for (int i = 0; i < FZ_SEMS; i++) {
        c = (fz_call_t){.op = FZ_SEM_FREE, .arg = {(i * 7) % FZ_SEMS}};
        fz_do(&c);
    }
    do {
        c = (fz_call_t){.op = FZ_TASK_CREATE};
        pr_task_attr_init(&c.task_attr);
        c.task_attr.entry = fz_worker_body;
        c.task_attr.phase = (pr_ticks_t)1 << 40;
    } while (fz_do(&c) == PR_OK && n++ < FZ_TASKS);
    for (int t = 0; t < FZ_TASKS; t++)
        ids[t] = (pr_id_t)((t * 5) % FZ_TASKS);
    for (int t = 0; t < FZ_TASKS; t++) {
        c = (fz_call_t){.op = FZ_TASK_DELETE, .arg = {ids[t]}};
        fz_do(&c);
    }
}

void fz_gen_setup(void)
{
    fz_call_t c = {0};
    choose_profile();
    fz_gen_bands_setup();
    int mutexes = fz_range(2, 5), counting = fz_range(1, 2), conds = fz_range(1, 2), tasks = fz_range(3, 8);
    if (tasks > fz.profile.max_workers)
        tasks = fz.profile.max_workers;
    if (fz_chance(4)) {
        fill_pools();
        fz_gen_services_fill();
    }
    for (int i = 0; i < mutexes + counting; i++) {
        int attempts = 0;
        do {
            make_alloc(&c);
            if (i < mutexes && !(c.sem_attr.flags & PR_SEM_MUTEX) && attempts < 20)
                continue;
            if (fz_do(&c) == PR_OK)
                break;
        } while (++attempts < 40);
    }
    for (int s = 0; s < fz.sem_hi && FZ_HAS_RECOVERY; s++) { /* half the rcs mutexes recover */
        if (fz.sem[s].alive && fz_is_mutex(s) && fz.sem[s].attr.protocol == PR_PROTOCOL_RCS && fz_chance(50)) {
            c = (fz_call_t){.op = FZ_SEM_CONTROL, .arg = {s, PR_SEM_CTL_RECOVERY, 1}};
            fz_do(&c);
        }
    }
    for (int i = 0; i < conds; i++) {
        c = (fz_call_t){.op = FZ_COND_ALLOC, .name = "cv"};
        issue_until(&c, 1);
    }
    fz_gen_services_setup();
    for (int i = 0; i < tasks; i++) {
        make_create(&c);
        c.null = 0;
        c.task_attr.entry = fz_worker_body;
        c.task_attr.name = "w";
        issue_until(&c, 0);
    }
}
