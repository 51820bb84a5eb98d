/*
 * Event flags, message queues and software timers under the fuzzer: what
 * their calls may return in the state the last check read (fuzz.h,
 * services.c, docs/fuzzing.md), and the chains of waits that decide
 * PR_EDEADLK and the lends of inheriting queues.
 */
#include <string.h>
#include "fuzz.h"

#define E(x) FZ_ERR(PR_##x)

static unsigned id_err(int64_t id, int pool, int alive)
{
    if (id < 0 || id >= pool)
        return E(EBADID);
    return alive ? 0 : E(ENOTALLOC);
}

static unsigned events_err(int64_t id) { return id_err(id, FZ_EVENTS, id >= 0 && id < FZ_EVENTS && fz.events[id].alive); }
static unsigned msgq_err(int64_t id) { return id_err(id, FZ_MSGQS, id >= 0 && id < FZ_MSGQS && fz.msgq[id].alive); }
static unsigned timer_err(int64_t id) { return id_err(id, FZ_TIMERS, id >= 0 && id < FZ_TIMERS && fz.timer[id].alive); }

static size_t name_len(const char *name) { return name != NULL ? strlen(name) : 0; }

/* ---- chains of waits (PR_EDEADLK) ---- */

/* h's wait lends on to: the holder of the mutex it waits for, or the server
 * of the inheriting queue it waits to send to; PR_NO_TASK if it waits for
 * nothing that lends; -2 if it is not known (a pcp wait). */
int fz_lends_on(int h)
{
    if (!fz_live(h))
        return PR_NO_TASK;
    const pr_task_status_t *st = &fz.snap.task[h];
    if (st->state == PR_TASK_BLOCKED) {
        pr_id_t m = st->blocked_on;
        if (m < 0 || m >= FZ_SEMS || !fz.sem[m].alive || !fz_is_mutex(m))
            return PR_NO_TASK;
        return fz_is_pcp(m) ? -2 : fz.snap.sem[m].holder;
    }
    if (st->state == PR_TASK_WAIT_SEND) {
        pr_id_t q = st->msgq_on;
        if (q < 0 || q >= FZ_MSGQS || !fz.msgq[q].alive || !fz_inherits(q))
            return PR_NO_TASK;
        return fz.snap.msgq[q].server;
    }
    return PR_NO_TASK;
}

/* Whether the chain of waits from h reaches t: 1 yes, 0 no, -1 not known. */
int fz_chain_reaches(int h, int t)
{
    for (int steps = 0; steps <= FZ_TASKS; steps++) {
        if (h == t)
            return 1;
        if (h == -2)
            return -1;
        if (h < 0)
            return 0;
        h = fz_lends_on(h);
    }
    return -1;
}

/* What the inheriting queues t serves lend it: at least the return value
 * (its waiting senders), at most *high (and the priority of the message
 * it received last, which the status does not show: at most the most
 * urgent sent to that queue). */
pr_prio_t fz_queue_lend(int t, pr_prio_t *high)
{
    pr_prio_t low = -1;
    *high = -1;
    for (int q = 0; q < FZ_MSGQS; q++) {
        if (!fz.msgq[q].alive || !fz_inherits(q) || fz.snap.msgq[q].server != t)
            continue;
        for (int u = 0; u <= fz.task_hi && u < FZ_TASKS; u++) {
            const pr_task_status_t *us = &fz.snap.task[u];
            if (fz.snap.task_ok[u] && us->state == PR_TASK_WAIT_SEND && us->msgq_on == q &&
                us->effective_priority > low)
                low = us->effective_priority;
        }
        const pr_task_status_t *me = &fz.snap.task[t];
        int waits_here = me->state == PR_TASK_WAIT_RECEIVE && me->msgq_on == q; /* its last message's lend ended */
        int known = fz.msgq[q].served_no == fz.msgq[q].last_server_change;
        if (known && fz.msgq[q].served_prio > low) /* the message it was given last is known */
            low = fz.msgq[q].served_prio;
        if (!waits_here && !known && fz.msgq[q].max_prio > *high)
            *high = fz.msgq[q].max_prio;
    }
    if (low > *high)
        *high = low;
    return low;
}

/* ---- predictions ---- */

static unsigned predict_msgq_alloc(const fz_call_t *c)
{
    const pr_msgq_attr_t *a = &c->msgq_attr;
    if (c->null || a->msg_size < 1 || a->msg_size > PR_CONFIG_MSG_MAX_SIZE || a->length < 1 ||
        (a->flags & ~7u) != 0 || c->bad != 0 || name_len(a->name) >= PR_CONFIG_NAME_LEN)
        return E(EINVAL);
    /* Refused by the implementation, not (yet) by msgq.h: inheritance
     * lends the most urgent waiting sender's priority, so senders must wait
     * in priority order (reported by the fuzzer's author as a gap). */
    if ((a->flags & PR_MSGQ_INHERIT) && (a->flags & PR_MSGQ_FIFO_WAITERS))
        return E(EINVAL);
    return fz.msgq_free.count == 0 ? E(ENOSPC) : E(OK);
}

static unsigned predict_send(const fz_call_t *c, int who)
{
    int64_t q = c->arg[0], prio = c->arg[1];
    pr_timeout_t timeout = (pr_timeout_t)c->arg[2];
    unsigned err = msgq_err(q);
    if (err != 0)
        return err;
    if (c->null || prio < PR_MSG_PRIO_SENDER || prio > PR_PRIO_MAX)
        return E(EINVAL);
    const pr_msgq_status_t *st = &fz.snap.msgq[q];
    if (st->receivers_waiting > 0 || st->messages < st->length)
        return E(OK);
    if (timeout == PR_NO_WAIT)
        return E(EAGAIN);
    if (who < 0)
        return E(ECONTEXT);
    unsigned waited = E(OK) | (timeout != PR_FOREVER ? E(ETIMEDOUT) : 0);
    if (!fz_inherits((int)q))
        return waited;
    int cycle = fz_chain_reaches(st->server, who);
    if (cycle != 0)
        snprintf(fz_why_buffer(), FZ_WHY_SIZE, "the chain of waits from its server s%d %s the caller", st->server,
                 cycle == 1 ? "reaches" : "may reach (through a pcp wait)");
    return cycle == 1 ? E(EDEADLK) : cycle == 0 ? waited : waited | E(EDEADLK);
}

unsigned fz_services_predict(const fz_call_t *c, int who)
{
    int64_t id = c->arg[0];
    unsigned err;
    switch (c->op) {
    case FZ_EVENTS_ALLOC:
        if (c->null || name_len(c->name) >= PR_CONFIG_NAME_LEN)
            return E(EINVAL);
        return fz.events_free.count == 0 ? E(ENOSPC) : E(OK);
    case FZ_EVENTS_FREE:
        if ((err = events_err(id)) != 0)
            return err;
        return fz.snap.events[id].waiters > 0 ? E(EBUSY) : E(OK);
    case FZ_EVENTS_SET:
    case FZ_EVENTS_CLEAR:
        return (err = events_err(id)) != 0 ? err : E(OK);
    case FZ_EVENTS_WAIT: {
        uint32_t mask = (uint32_t)c->arg[1];
        unsigned options = (unsigned)c->arg[2];
        pr_timeout_t timeout = (pr_timeout_t)c->arg[3];
        if ((err = events_err(id)) != 0)
            return err;
        if (mask == 0 || (options & ~3u) != 0)
            return E(EINVAL);
        if (fz_satisfied(fz.events[id].flags, mask, options))
            return E(OK);
        if (timeout == PR_NO_WAIT)
            return E(EAGAIN);
        if (who < 0)
            return E(ECONTEXT);
        return E(OK) | (timeout != PR_FOREVER ? E(ETIMEDOUT) : 0);
    }
    case FZ_EVENTS_STATUS:
    case FZ_MSGQ_STATUS:
    case FZ_TIMER_STATUS:
        err = c->op == FZ_EVENTS_STATUS ? events_err(id) : c->op == FZ_MSGQ_STATUS ? msgq_err(id) : timer_err(id);
        return err != 0 ? err : c->null ? E(EINVAL) : E(OK);
    case FZ_MSGQ_ALLOC:
        return predict_msgq_alloc(c);
    case FZ_MSGQ_FREE:
        if ((err = msgq_err(id)) != 0)
            return err;
        return fz.snap.msgq[id].senders_waiting > 0 || fz.snap.msgq[id].receivers_waiting > 0 ? E(EBUSY) : E(OK);
    case FZ_MSGQ_SEND:
        return predict_send(c, who);
    case FZ_MSGQ_RECEIVE: {
        pr_timeout_t timeout = (pr_timeout_t)c->arg[1];
        if ((err = msgq_err(id)) != 0)
            return err;
        if (c->null == 1)
            return E(EINVAL);
        if (fz.snap.msgq[id].messages > 0)
            return E(OK);
        if (timeout == PR_NO_WAIT)
            return E(EAGAIN);
        if (who < 0)
            return E(ECONTEXT);
        return E(OK) | (timeout != PR_FOREVER ? E(ETIMEDOUT) : 0);
    }
    case FZ_TIMER_SERVICE_START: {
        if (id < 0 || id > PR_PRIO_MAX)
            return E(EINVAL);
        if (fz.service >= 0 && fz.task[fz.service].alive)
            return E(ESTATE);
        { /* then pr_task_create's checks: a real-time task of the caller's group */
            pr_task_attr_t a;
            pr_task_attr_init(&a);
            a.priority = (pr_prio_t)id;
            if (!fz_realtime(id))
                return E(EINVAL);
            unsigned refused = fz_create_privs(&a, who);
            if (refused != 0)
                return refused;
        }
        int alive = 0;
        for (int i = 0; i < FZ_TASKS; i++)
            alive += fz.task[i].alive;
        return alive == FZ_TASKS ? E(ENOSPC) : alive == FZ_TASKS - 1 ? E(OK) | E(ENOSPC) : E(OK);
    }
    case FZ_TIMER_ALLOC: {
        const pr_timer_attr_t *a = &c->timer_attr;
        if (c->null || a->action == NULL || a->priority < 0 || a->priority > PR_PRIO_MAX || a->period > UINT32_MAX ||
            name_len(a->name) >= PR_CONFIG_NAME_LEN)
            return E(EINVAL);
        return fz.timer_free.count == 0 ? E(ENOSPC) : E(OK);
    }
    case FZ_TIMER_FREE:
    case FZ_TIMER_STOP:
        return (err = timer_err(id)) != 0 ? err : E(OK);
    case FZ_TIMER_START:
        if ((err = timer_err(id)) != 0)
            return err;
        return c->arg[1] == 0 || (pr_timeout_t)c->arg[1] == PR_FOREVER ? E(EINVAL) : E(OK);
    default:
        return E(OK);
    }
}

