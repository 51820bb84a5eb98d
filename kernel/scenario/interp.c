/*
 * The scenario interpreter (scenario.h): a task body driven by data.
 */
#include "priora/priora.h"
#include "priora/port.h"
#include "priora/scenario.h"

/* Index of the UNLOCK that closes the LOCK at `lock`; count if none. */
static uint32_t matching_unlock(const pr_script_t *sc, uint32_t lock)
{
    for (uint32_t i = lock + 1; i < sc->count; i++)
        if (sc->actions[i].kind == PR_ACT_UNLOCK && sc->actions[i].sem == sc->actions[lock].sem)
            return i;
    return sc->count;
}

/* The ranges of a SEND's priority and of an event mask and its options. */
static int object_action_ok(const pr_action_t *a)
{
    switch (a->kind) {
    case PR_ACT_SEND:
        return (a->options & ~PR_ACT_SEND_PRIORITY) == 0 &&
               (!(a->options & PR_ACT_SEND_PRIORITY) || a->amount <= PR_PRIO_MAX);
    case PR_ACT_EVENTS_SET:
    case PR_ACT_EVENTS_CLEAR:
        return a->options == 0 && a->amount <= UINT32_MAX;
    case PR_ACT_EVENTS_WAIT:
        return (a->options & ~(PR_EVENTS_ALL | PR_EVENTS_CLEAR)) == 0 && a->amount != 0 &&
               a->amount <= UINT32_MAX;
    default:
        return 0;
    }
}

int pr_script_check_once(const pr_script_t *sc, uint32_t *bad_action)
{
    if (sc == NULL || (sc->actions == NULL && sc->count > 0))
        return PR_EINVAL;
    for (uint32_t i = 0; i < sc->count; i++) {
        const pr_action_t *a = &sc->actions[i];
        int ok = a->kind == PR_ACT_UP || a->kind == PR_ACT_SEND || a->kind == PR_ACT_EVENTS_SET ||
                 a->kind == PR_ACT_EVENTS_CLEAR || a->kind == PR_ACT_RELEASE;
        if (ok && a->kind != PR_ACT_UP && a->kind != PR_ACT_RELEASE)
            ok = object_action_ok(a);
        if (!ok) {
            if (bad_action != NULL)
                *bad_action = i;
            return PR_EINVAL;
        }
    }
    return PR_OK;
}

int pr_script_check(const pr_script_t *sc, uint32_t *bad_action)
{
    if (sc == NULL || (sc->actions == NULL && sc->count > 0) || sc->exec_spread > 65536u)
        return PR_EINVAL;
    /* Which mutexes the body holds at each point: a small set of ids. */
    pr_id_t held[PR_CONFIG_MAX_SEMS];
    int nheld = 0;
    for (uint32_t i = 0; i < sc->count; i++) {
        const pr_action_t *a = &sc->actions[i];
        int ok = 1;
        int at = -1;
        for (int h = 0; h < nheld; h++)
            if (held[h] == a->sem)
                at = h;
        switch (a->kind) {
        case PR_ACT_LOCK:
            ok = at < 0 && nheld < PR_CONFIG_MAX_SEMS && matching_unlock(sc, i) < sc->count;
            if (ok)
                held[nheld++] = a->sem;
            break;
        case PR_ACT_UNLOCK:
            ok = at >= 0;
            if (ok)
                held[at] = held[--nheld];
            break;
        case PR_ACT_WAIT_PERIOD:
            ok = nheld == 0; /* a job must not end inside a critical section */
            break;
        case PR_ACT_SET_PRIORITY:
            ok = a->amount <= PR_PRIO_MAX;
            break;
        case PR_ACT_RTPRIO:
            ok = a->amount <= PR_PRIO_MAX || a->amount == PR_ACT_RTPRIO_OFF;
            break;
        case PR_ACT_NICE:
            ok = a->amount <= PR_NICE_MAX - PR_NICE_MIN;
            break;
        case PR_ACT_DELAY:
            ok = a->amount < PR_FOREVER;
            break;
        case PR_ACT_COMPUTE:
        case PR_ACT_DOWN:
        case PR_ACT_UP:
        case PR_ACT_RECEIVE:
        case PR_ACT_RELEASE:
            break;
        case PR_ACT_SEND:
        case PR_ACT_EVENTS_SET:
        case PR_ACT_EVENTS_CLEAR:
        case PR_ACT_EVENTS_WAIT:
            ok = object_action_ok(a);
            break;
        default:
            ok = 0;
        }
        if (!ok) {
            if (bad_action != NULL)
                *bad_action = i;
            return PR_EINVAL;
        }
    }
    if (nheld != 0) {
        if (bad_action != NULL)
            *bad_action = sc->count;
        return PR_EINVAL;
    }
    return PR_OK;
}

static void note_result(pr_script_t *sc, uint32_t action, int err)
{
    if (err == PR_EJOBABORTED) /* the kernel counts the job's abort (jobs_aborted) */
        return;
    if (err == PR_ETIMEDOUT || err == PR_EAGAIN) {
        sc->timeouts++;
    } else if (err != PR_OK) {
        sc->errors++;
        sc->last_error = err;
        sc->last_error_action = action;
    }
}

static int in_pool(pr_id_t sem) { return sem >= 0 && sem < PR_CONFIG_MAX_SEMS; }

static int held_by_me(pr_id_t sem)
{
    pr_sem_status_t st;
    return pr_sem_status(sem, &st) == PR_OK && st.holder == pr_task_self();
}

static uint64_t cpu_now(void)
{
    pr_task_status_t st;
    return pr_task_status(pr_task_self(), &st) == PR_OK ? st.cpu_time : 0;
}

/*
 * A LOCK failed: the job skips its critical section and goes on after the
 * matching UNLOCK, whose index this returns. Sections may cross (LOCK A,
 * LOCK B, UNLOCK A, UNLOCK B: hand-over-hand locking), so the skipped range
 * is read once:
 *  - an UNLOCK of a mutex the task holds closes a section opened before the
 *    failed LOCK: it is done now, or the job would end holding the mutex;
 *  - a LOCK opens a section that is skipped in full: `skipped` remembers it,
 *    so its UNLOCK is skipped too, even when it comes after the range.
 * A section both opened and closed inside the range leaves no mark.
 */
static uint32_t skip_section(pr_script_t *sc, uint32_t lock, uint8_t *skipped)
{
    uint32_t end = matching_unlock(sc, lock);
    for (uint32_t k = lock + 1; k < end; k++) {
        const pr_action_t *a = &sc->actions[k];
        if (!in_pool(a->sem)) /* its own call fails with PR_EBADID when it runs */
            continue;
        if (a->kind == PR_ACT_LOCK)
            skipped[a->sem] = 1;
        else if (a->kind == PR_ACT_UNLOCK && skipped[a->sem])
            skipped[a->sem] = 0;
        else if (a->kind == PR_ACT_UNLOCK && held_by_me(a->sem))
            note_result(sc, k, pr_sem_up(a->sem));
    }
    return end;
}

/*
 * The UNLOCK at u reported PR_EABORTED (rcs): the section opened by the
 * last LOCK of that mutex before u restarts at that LOCK, whose index this
 * returns. The replay of the actions between them must find the task as it
 * was at the LOCK:
 *  - a section opened in between and still held is unlocked now (its LOCK
 *    runs again on the replay);
 *  - a section opened before the LOCK and closed in between (crossing
 *    sections) is closed already: its UNLOCK is skipped on the replay.
 * Work is CPU time less the task's recoveries (pr_script_body): a recovery
 * restores, it is never lost. The work lost is the work from the LOCK
 * (mark: that work less the work lost before it) to `until`, the work done
 * when the section ended: where the UNLOCK returned, or where it was called
 * when it ran a recovery. So a restart inside a section that restarts in
 * turn is counted once.
 */
static uint32_t restart_section(pr_script_t *sc, uint32_t u, uint8_t *skipped, const uint64_t *mark,
                                uint64_t until)
{
    const pr_id_t sem = sc->actions[u].sem;
    uint32_t lock = u;
    while (lock > 0 && !(sc->actions[lock].kind == PR_ACT_LOCK && sc->actions[lock].sem == sem))
        lock--;
    uint8_t opened[PR_CONFIG_MAX_SEMS] = {0};
    for (uint32_t k = lock + 1; k < u; k++) {
        const pr_action_t *a = &sc->actions[k];
        if (!in_pool(a->sem))
            continue;
        if (a->kind == PR_ACT_LOCK)
            opened[a->sem] = 1;
        else if (a->kind == PR_ACT_UNLOCK && opened[a->sem])
            opened[a->sem] = 0;
        else if (a->kind == PR_ACT_UNLOCK)
            skipped[a->sem] = 1;
    }
    for (pr_id_t s = 0; s < PR_CONFIG_MAX_SEMS; s++)
        if (opened[s] && held_by_me(s))
            note_result(sc, u, pr_sem_up(s));
    sc->aborts++;
    sc->lost = until - mark[sem];
    return lock;
}

/* The job was aborted (task.h: pr_task_aborted) after the action at i: it
 * gives up every mutex it holds, in id order, and skips to its end (the
 * next WAIT_PERIOD, or the body's end), whose index less one this returns
 * (the loop's i++ lands on it). */
static uint32_t end_aborted_job(pr_script_t *sc, uint32_t i)
{
    for (pr_id_t s = 0; s < PR_CONFIG_MAX_SEMS; s++)
        if (held_by_me(s))
            note_result(sc, i, pr_sem_up(s));
    uint32_t end = i + 1;
    while (end < sc->count && sc->actions[end].kind != PR_ACT_WAIT_PERIOD)
        end++;
    return end - 1;
}

/* 1 if the action at i is the last of its job: the body's last, or the one
 * before a PR_ACT_WAIT_PERIOD. */
static int ends_job(const pr_script_t *sc, uint32_t i)
{
    return i + 1 == sc->count || sc->actions[i + 1].kind == PR_ACT_WAIT_PERIOD;
}

/* 1 for an action that is a kernel call which can make a more urgent task
 * run before it returns (a hand-off, a priority that drops, a wait). */
static int may_yield_the_cpu(pr_action_kind_t kind)
{
    return kind == PR_ACT_LOCK || kind == PR_ACT_UNLOCK || kind == PR_ACT_DOWN || kind == PR_ACT_UP ||
           kind == PR_ACT_SET_PRIORITY || kind == PR_ACT_SEND || kind == PR_ACT_RECEIVE ||
           kind == PR_ACT_EVENTS_SET || kind == PR_ACT_EVENTS_WAIT || kind == PR_ACT_RELEASE ||
           kind == PR_ACT_RTPRIO || kind == PR_ACT_NICE;
}

/*
 * A job completes at the instant its last action completes: if that action
 * is a call that hands the CPU to a more urgent task (an unlock that wakes
 * a waiter or drops an inherited priority), the job must not wait for that
 * task to end before it is counted complete. So the last action runs under
 * the scheduler lock, the job ends (pr_task_wait_period's JOB_DONE record,
 * at the same instant), and the lock is released when the task runs again
 * (the lock belongs to the task: its wait lets the others run). A compute or
 * a delay needs none: nothing runs between its end and the job's.
 */
static int lock_for_job_end(const pr_script_t *sc, uint32_t i)
{
    const pr_action_t *a = &sc->actions[i];
    if (!ends_job(sc, i) || !may_yield_the_cpu(a->kind))
        return 0;
    /* An aborted section whose holder still holds the mutex (rcs with a
     * recovery) does not end the job here: the UNLOCK runs the recovery at
     * the requester's priority, which a more urgent task must preempt, and
     * the section restarts. */
    if (a->kind == PR_ACT_UNLOCK && pr_sem_aborted() != 0 && held_by_me(a->sem))
        return 0;
    return pr_sched_lock() == PR_OK;
}

/* The calls on queues and event flags, with the given timeout (the bodies
 * that run once pass PR_NO_WAIT). */
static int object_call(const pr_action_t *a, pr_timeout_t timeout)
{
    switch (a->kind) {
    case PR_ACT_SEND: {
        const pr_id_t self = pr_task_self();
        const uint32_t msg = (uint32_t)self; /* PR_NO_TASK from an interrupt */
        const int priority = (a->options & PR_ACT_SEND_PRIORITY) ? (int)a->amount : PR_MSG_PRIO_SENDER;
        return pr_msgq_send(a->sem, &msg, priority, timeout);
    }
    case PR_ACT_RECEIVE: {
        uint32_t msg;
        return pr_msgq_receive(a->sem, &msg, NULL, timeout);
    }
    case PR_ACT_EVENTS_SET:
        return pr_events_set(a->sem, (uint32_t)a->amount);
    case PR_ACT_EVENTS_CLEAR:
        return pr_events_clear(a->sem, (uint32_t)a->amount);
    case PR_ACT_EVENTS_WAIT:
        return pr_events_wait(a->sem, (uint32_t)a->amount, a->options, timeout, NULL);
    default:
        return PR_EINVAL;
    }
}

void pr_script_run_once(pr_script_t *sc)
{
    for (uint32_t i = 0; i < sc->count; i++) {
        const pr_action_t *a = &sc->actions[i];
        const int err = a->kind == PR_ACT_UP        ? pr_sem_up(a->sem)
                        : a->kind == PR_ACT_RELEASE ? pr_task_release(a->sem)
                                                    : object_call(a, PR_NO_WAIT);
        note_result(sc, i, err);
    }
}

void pr_script_timer_action(pr_id_t timer, void *script)
{
    (void)timer;
    pr_script_run_once(script);
}

void pr_script_interrupts_tick(void *arg)
{
    pr_script_interrupts_t *irqs = arg;
    const pr_ticks_t now = pr_ticks_now();
    for (uint32_t i = 0; i < irqs->count; i++) {
        pr_script_interrupt_t *irq = &irqs->list[i];
        const int due = now == irq->phase ||
                        (irq->period != 0 && now > irq->phase && (now - irq->phase) % irq->period == 0);
        if (due) {
            irq->fired++;
            pr_script_run_once(&irq->script);
        }
    }
}

/* A job starts: its ratio r, uniform in [65536 - exec_spread, 65536]
 * (xorshift32 [Marsaglia 2003], modulo the range's size). */
static void draw_exec_ratio(pr_script_t *sc)
{
    if (sc->exec_spread == 0) {
        sc->exec_ratio = 65536u;
        return;
    }
    uint32_t x = sc->exec_state != 0 ? sc->exec_state : 1u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    sc->exec_state = x;
    sc->exec_ratio = 65536u - sc->exec_spread + (uint32_t)((uint64_t)x % ((uint64_t)sc->exec_spread + 1));
}

/* floor(amount * r / 65536) without a 128-bit product: r <= 65536. */
static uint64_t scaled(uint64_t amount, uint32_t r)
{
    return (amount >> 16) * r + (((amount & 0xFFFFu) * r) >> 16);
}

void pr_script_recover(pr_id_t mutex, void *arg)
{
    (void)mutex;
    pr_port_consume(*(const uint64_t *)arg);
}

void pr_script_body(void *arg)
{
    pr_script_t *sc = arg;
    int locked = 0; /* the scheduler lock lock_for_job_end took, until the next job starts */
    uint8_t skipped[PR_CONFIG_MAX_SEMS]; /* sections this job skips in full */
    uint64_t mark[PR_CONFIG_MAX_SEMS];   /* at each LOCK: work less work lost (restart_section) */
    uint64_t recovered = 0;              /* CPU time of the task's recoveries: not work */
    for (;;) {
        draw_exec_ratio(sc);
        for (int s = 0; s < PR_CONFIG_MAX_SEMS; s++)
            skipped[s] = 0;
        for (uint32_t i = 0; i < sc->count; i++) {
            const pr_action_t *a = &sc->actions[i];
            const uint32_t at = i; /* a failed LOCK moves i past its section */
            int err = PR_OK;
            if (!locked)
                locked = lock_for_job_end(sc, i);
            switch (a->kind) {
            case PR_ACT_COMPUTE:
                pr_port_consume(scaled(a->amount, sc->exec_ratio));
                break;
            case PR_ACT_LOCK:
                err = pr_sem_down(a->sem, a->timeout);
                if (err != PR_OK)
                    i = skip_section(sc, i, skipped);
                else if (in_pool(a->sem))
                    mark[a->sem] = cpu_now() - recovered - sc->lost;
                break;
            case PR_ACT_DOWN:
                err = pr_sem_down(a->sem, a->timeout);
                break;
            case PR_ACT_UNLOCK: {
                if (in_pool(a->sem) && skipped[a->sem]) { /* its LOCK was skipped */
                    skipped[a->sem] = 0;
                    continue;
                }
                /* An aborted holder that kept the mutex (rcs with a
                 * recovery) recovers in this call: its section's work ends
                 * before it. Taken over, it ends where the call returns. */
                const int recovers = pr_sem_aborted() != 0 && held_by_me(a->sem);
                const uint64_t before = recovers ? cpu_now() : 0;
                err = pr_sem_up(a->sem);
                if (err == PR_EABORTED) {
                    const uint64_t until = (recovers ? before : cpu_now()) - recovered;
                    if (recovers)
                        recovered += cpu_now() - before;
                    i = restart_section(sc, i, skipped, mark, until) - 1; /* the loop's i++ lands on the LOCK */
                    err = PR_OK;
                }
                break;
            }
            case PR_ACT_UP:
                err = pr_sem_up(a->sem);
                break;
            case PR_ACT_RELEASE:
                err = pr_task_release(a->sem);
                break;
            case PR_ACT_DELAY:
                err = pr_task_delay((pr_timeout_t)a->amount);
                break;
            case PR_ACT_WAIT_PERIOD:
                err = pr_task_wait_period();
                draw_exec_ratio(sc); /* the next job has started */
                if (locked)
                    locked = pr_sched_unlock() != PR_OK;
                break;
            case PR_ACT_SET_PRIORITY:
                err = pr_task_set_priority(pr_task_self(), (pr_prio_t)a->amount);
                break;
            case PR_ACT_RTPRIO:
                err = pr_task_rtprio(pr_task_self(),
                                     a->amount == PR_ACT_RTPRIO_OFF ? PR_RTPRIO_RTOFF : (pr_prio_t)a->amount, NULL);
                break;
            case PR_ACT_NICE:
                err = pr_task_set_nice(pr_task_self(), (int)a->amount + PR_NICE_MIN, NULL);
                break;
            case PR_ACT_SEND:
            case PR_ACT_RECEIVE:
            case PR_ACT_EVENTS_SET:
            case PR_ACT_EVENTS_CLEAR:
            case PR_ACT_EVENTS_WAIT:
                err = object_call(a, a->timeout);
                break;
            }
            if (locked && i != at && a->kind != PR_ACT_WAIT_PERIOD) /* a restart: the job goes on */
                locked = pr_sched_unlock() != PR_OK;
            note_result(sc, at, err);
            if (pr_task_aborted()) { /* the job ends as its mutexes are given up (lock_for_job_end) */
                if (!locked)
                    locked = pr_sched_lock() == PR_OK;
                for (int s = 0; s < PR_CONFIG_MAX_SEMS; s++)
                    skipped[s] = 0;
                i = end_aborted_job(sc, i);
            }
        }
        if (pr_task_wait_period() != PR_OK)
            return; /* not periodic: the single job is over (the lock ends with the task) */
        if (locked)
            locked = pr_sched_unlock() != PR_OK;
    }
}
