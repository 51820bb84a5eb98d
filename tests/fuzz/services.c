/*
 * Event flags, message queues and software timers under the fuzzer (fuzz.h,
 * docs/fuzzing.md): their calls' documented results and predictions, the
 * shadow of each object, the messages' fates, the timers' expiries, and the
 * invariants read through their status calls.
 *
 * Event flags are known exactly: every set, clear and clearing wait is a
 * call, and a set's effect (which waiters it wakes, what they see, what it
 * clears) is worked out before it is issued from the waiters the last
 * check saw.
 *
 * Every message carries its serial number and bytes derived from it; the
 * receiver checks them all. A message's fate is known to the shadow: sent
 * into the queue (its place in the order known to within the calls between
 * which it entered), handed to a waiting receiver (one of the most urgent
 * waiting, or the first in FIFO order), received, refused (its send
 * failed), or dropped with its queue. A message received twice, one whose
 * send failed, one of another queue, a corrupted one, one received out of
 * order (a more urgent one, or an older one of the same urgency, was
 * surely in the queue), and a count of messages outside what the fates
 * allow are failures.
 *
 * Software timers are modelled tick by tick: at each tick interrupt the
 * timers whose expiry it is become due (or their expiry is dropped, if the
 * last one has not run), periodic ones re-armed on their grid. Each action
 * checks that it runs in the service task, for the allocation it was given,
 * for a due timer, and that no more urgent (or older equally urgent) due
 * timer waits.
 */
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"

#define E(x) FZ_ERR(PR_##x)
#define FZ_POISON 0xA5u
#define FZ_FLAGS_POISON 0xDEADBEEFu
#define FZ_PRIO_POISON (-999)

/* What a call of this file fills through its pointers. */
typedef struct svc_out {
    uint32_t flags;
    int prio;
    unsigned char msg[PR_CONFIG_MSG_MAX_SIZE];
    pr_events_status_t es;
    pr_msgq_status_t ms;
    pr_timer_status_t ts;
} svc_out_t;

_Static_assert(sizeof(svc_out_t) <= 1024, "calls.c's call_out_t keeps 1024 bytes for it");

/* ---- free lists (the kernel's: freed ids go to the tail) ---- */

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

static void fifo_init(fz_fifo_t *f, int size)
{
    for (int i = 0; i < size; i++)
        f->id[i] = i;
    f->head = 0;
    f->count = size;
}

void fz_services_reset(void)
{
    fifo_init(&fz.events_free, FZ_EVENTS);
    fifo_init(&fz.msgq_free, FZ_MSGQS);
    fifo_init(&fz.timer_free, FZ_TIMERS);
    fz.service = -1;
    for (int t = 0; t < FZ_TASKS; t++)
        fz.task[t].msg = -1;
}

/* The queues' buffers of the last run (the kernel is reset with them). */
void fz_services_release(void)
{
    for (int q = 0; q < FZ_MSGQS; q++) {
        free(fz.msgq[q].buffer);
        fz.msgq[q].buffer = NULL;
    }
}

/* ---- small helpers ---- */

static int satisfied(uint32_t flags, uint32_t mask, unsigned options)
{
    return (options & PR_EVENTS_ALL) ? (flags & mask) == mask : (flags & mask) != 0;
}

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

static int live(int t) { return t >= 0 && t < FZ_TASKS && fz.task[t].alive && fz.snap.task_ok[t]; }

static int inherits(int q) { return (fz.msgq[q].attr.flags & PR_MSGQ_INHERIT) != 0; }

/* The tick a call made now belongs to (kernel_impl.h: tick_now): a tick due
 * at this instant and not yet taken counts. */
static pr_ticks_t tick_of_now(void)
{
    pr_ticks_t k = pr_ticks_now();
    return k + (pr_host_now() >= (k + 1) * (uint64_t)FZ_TICK_NS ? 1 : 0);
}

/* A message's bytes: its serial, then bytes that depend on it and their place. */
static void fill_msg(unsigned char *buf, size_t size, uint32_t serial)
{
    memcpy(buf, &serial, sizeof serial);
    for (size_t i = sizeof serial; i < size; i++)
        buf[i] = (unsigned char)(serial * 131u + i * 7u + 0x5Au);
}

/* ---- chains of waits (PR_EDEADLK) ---- */

/* h's wait lends on to: the holder of the mutex it waits for, or the server
 * of the inheriting queue it waits to send to; PR_NO_TASK if it waits for
 * nothing that lends; -2 if it is not known (a pcp wait). */
int fz_lends_on(int h)
{
    if (!live(h))
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
        if (q < 0 || q >= FZ_MSGQS || !fz.msgq[q].alive || !inherits(q))
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
        if (!fz.msgq[q].alive || !inherits(q) || fz.snap.msgq[q].server != t)
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
    if (!inherits((int)q))
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
        if (satisfied(fz.events[id].flags, mask, options))
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

/* A message's fate changes; its queue counts those surely and maybe in it. */
static void set_state(fz_msg_t *m, fz_msg_state_t state)
{
    fz_msgq_t *q = &fz.msgq[m->q];
    if (q->alive && m->gen == q->gen) {
        q->nqueued += (state == FZ_MSG_QUEUED) - (m->state == FZ_MSG_QUEUED);
        q->nmaybe += (state == FZ_MSG_MAYBE) - (m->state == FZ_MSG_MAYBE);
    }
    m->state = (uint8_t)state;
}

static void drop_messages(int q)
{
    for (int n = 0; n < fz.nmsgs; n++) {
        fz_msg_t *m = &fz.msgs[n];
        if (m->q == q && m->gen == fz.msgq[q].gen &&
            (m->state == FZ_MSG_QUEUED || m->state == FZ_MSG_SENDING || m->state == FZ_MSG_MAYBE))
            m->state = FZ_MSG_DROPPED;
    }
    fz.msgq[q].nqueued = fz.msgq[q].nmaybe = 0;
}

/* ---- before the call: what it does at once, learnt before a switch can hide it ---- */

/* The waiting receivers of q a message sent now goes to: the first in FIFO
 * order, or the most urgent (any of them among equals). */
static uint32_t first_receivers(int q)
{
    uint32_t set = 0;
    int fifo = (fz.msgq[q].attr.flags & PR_MSGQ_FIFO_WAITERS) != 0;
    pr_prio_t best = -1;
    uint64_t oldest = UINT64_MAX;
    for (int u = 0; u <= fz.task_hi && u < FZ_TASKS; u++) {
        const pr_task_status_t *us = &fz.snap.task[u];
        if (!live(u) || us->state != PR_TASK_WAIT_RECEIVE || us->msgq_on != q)
            continue;
        if (fifo ? fz.task[u].call_no < oldest : us->effective_priority > best) {
            set = 0;
            best = us->effective_priority;
            oldest = fz.task[u].call_no;
        }
        if (fifo ? fz.task[u].call_no == oldest : us->effective_priority == best)
            set |= 1u << u;
    }
    return set;
}

static void before_send(fz_call_t *c, int who)
{
    int q = (int)c->arg[0];
    const pr_msgq_status_t *st = &fz.snap.msgq[q];
    if (fz.nmsgs >= FZ_MSGS)
        fz_fail("more than %d messages in one seed", FZ_MSGS);
    int n = fz.nmsgs++;
    fz_msg_t *m = &fz.msgs[n];
    c->arg[3] = n;
    m->q = (uint8_t)q;
    m->gen = fz.msgq[q].gen;
    m->size = (uint16_t)fz.msgq[q].attr.msg_size;
    m->prio = (int16_t)(c->arg[1] != PR_MSG_PRIO_SENDER ? c->arg[1] : who >= 0 ? fz.snap.task[who].effective_priority : 0);
    if (m->prio > fz.msgq[q].max_prio)
        fz.msgq[q].max_prio = m->prio;
    m->entry_lo = c->no;
    if (st->receivers_waiting > 0) {
        m->state = FZ_MSG_HANDED;
        m->receivers = first_receivers(q);
        fz.msgq[q].last_server_change = fz.msgq[q].served_no = c->no; /* it serves this message */
        fz.msgq[q].served_prio = m->prio;
    } else if (st->messages < st->length) {
        set_state(m, FZ_MSG_QUEUED);
        m->entry_hi = c->no;
    } else {
        m->state = FZ_MSG_SENDING;
        m->entry_hi = UINT64_MAX;
    }
    if (who >= 0)
        fz.task[who].msg = n;
}

/* A set: every waiter the new flags satisfy is woken and sees them; the
 * flags they asked to clear are cleared after. */
static void before_set(int e, uint32_t mask)
{
    fz_events_t *ev = &fz.events[e];
    uint32_t flags = ev->flags | mask, clear = 0;
    ev->sets++;
    for (int u = 0; u <= fz.task_hi && u < FZ_TASKS && mask != 0; u++) {
        fz_task_t *w = &fz.task[u];
        const pr_task_status_t *us = &fz.snap.task[u];
        if (!live(u) || us->state != PR_TASK_WAIT_EVENTS || us->events_on != e || w->call != FZ_EVENTS_WAIT)
            continue;
        uint32_t wmask = (uint32_t)w->call_args[1];
        unsigned options = (unsigned)w->call_args[2];
        if (!satisfied(flags, wmask, options))
            continue;
        if (options & PR_EVENTS_CLEAR)
            clear |= wmask;
        w->events_woken = 1;
        w->events_flags = flags;
        ev->wakeups++;
    }
    ev->flags = flags & ~clear;
}

static uint32_t nontask_expect; /* an interrupt's or the driver's immediate wait: the flags it must see */

void fz_services_before(fz_call_t *c, int who, unsigned expected)
{
    fz_task_t *w = who >= 0 ? &fz.task[who] : NULL;
    int64_t id = c->arg[0];
    if (w != NULL) {
        w->call_no = c->no;
        w->events_woken = 0;
        w->call_waits = 0;
    }
    switch (c->op) {
    case FZ_EVENTS_SET:
        if (expected == E(OK))
            before_set((int)id, (uint32_t)c->arg[1]);
        break;
    case FZ_EVENTS_CLEAR:
        if (expected == E(OK))
            fz.events[id].flags &= ~(uint32_t)c->arg[1];
        break;
    case FZ_EVENTS_WAIT: /* FOREVER's prediction is E(OK) too: whether it waits is in the flags */
        if (expected == E(EAGAIN) ||
            (expected == E(OK) && satisfied(fz.events[id].flags, (uint32_t)c->arg[1], (unsigned)c->arg[2]))) {
            uint32_t flags = fz.events[id].flags;
            if (w != NULL)
                w->events_flags = flags;
            else
                nontask_expect = flags;
            if (expected == E(OK) && (c->arg[2] & PR_EVENTS_CLEAR))
                fz.events[id].flags &= ~(uint32_t)c->arg[1];
        } else if (w != NULL && (expected & E(OK))) {
            w->call_waits = 1;
        }
        break;
    case FZ_MSGQ_FREE: /* done before it returns: ending its server's lend may switch */
        if (expected == E(OK)) {
            drop_messages((int)id);
            fz.msgq[id].alive = 0;
            free(fz.msgq[id].buffer); /* the kernel no longer reads it (msgq.h) */
            fz.msgq[id].buffer = NULL;
            fz_fifo_put(&fz.msgq_free, FZ_MSGQS, (int)id);
        }
        break;
    case FZ_MSGQ_SEND:
        c->arg[3] = -1;
        if (expected & E(OK))
            before_send(c, who);
        break;
    case FZ_MSGQ_RECEIVE:
        c->arg[3] = 0;
        c->arg[2] = msgq_err(id) == 0 ? fz.msgq[id].gen : 0; /* the queue may be freed while the call is under way */
        if (w != NULL && msgq_err(id) == 0) /* a server from when its call starts (a send may hand it one) */
            fz.msgq[id].received_by |= 1u << who;
        if (expected == E(OK) && fz.snap.msgq[id].messages > 0) { /* a message taken at once */
            c->arg[3] = 1;
            if (w != NULL)
                fz.msgq[id].inflight++;
            fz.msgq[id].last_server_change = c->no;
        } else if (w != NULL && (expected & E(OK))) {
            w->call_waits = 1;
            if (fz.snap.msgq[id].server == who) { /* the server waits: its last message's lend ends */
                fz.msgq[id].last_server_change = fz.msgq[id].served_no = c->no;
                fz.msgq[id].served_prio = -1;
            }
        }
        break;
    case FZ_TIMER_ALLOC:
        c->timer_attr.arg = (void *)++fz.cookies;
        break;
    case FZ_TIMER_START: /* the tick this instant belongs to, plus the delay */
        c->arg[3] = (int64_t)(tick_of_now() + (pr_ticks_t)c->arg[1]);
        break;
    default:
        break;
    }
    if (w != NULL)
        memcpy(w->call_args, c->arg, sizeof w->call_args);
}

/* ---- issuing ---- */

int fz_services_issue(fz_call_t *c, pr_id_t *out_id, void *out_)
{
    svc_out_t *out = out_;
    int64_t a0 = c->arg[0], a1 = c->arg[1], a2 = c->arg[2], a3 = c->arg[3];
    pr_id_t id = (pr_id_t)a0;
    switch (c->op) {
    case FZ_EVENTS_ALLOC: return pr_events_alloc(c->name, c->null ? NULL : out_id);
    case FZ_EVENTS_FREE: return pr_events_free(id);
    case FZ_EVENTS_SET: return pr_events_set(id, (uint32_t)a1);
    case FZ_EVENTS_CLEAR: return pr_events_clear(id, (uint32_t)a1);
    case FZ_EVENTS_WAIT:
        out->flags = FZ_FLAGS_POISON;
        return pr_events_wait(id, (uint32_t)a1, (unsigned)a2, (pr_timeout_t)a3, c->null ? NULL : &out->flags);
    case FZ_EVENTS_STATUS: return pr_events_status(id, c->null ? NULL : &out->es);
    case FZ_MSGQ_ALLOC: {
        pr_msgq_attr_t a = c->msgq_attr;
        size_t size = a.msg_size >= 1 && a.msg_size <= PR_CONFIG_MSG_MAX_SIZE ? a.msg_size : 8;
        size_t bytes = PR_MSGQ_BUFFER_BYTES(size, a.length >= 1 ? a.length : 1);
        unsigned char *buffer = malloc(bytes + sizeof(void *));
        if (buffer == NULL)
            fz_fail("out of memory");
        a.buffer = c->bad == 1 ? NULL : c->bad == 2 ? buffer + 1 : buffer;
        a.buffer_bytes = c->bad == 3 ? bytes - 1 : bytes;
        int r = pr_msgq_alloc(c->null == 1 ? NULL : &a, c->null == 2 ? NULL : out_id);
        if (r == PR_OK && c->null == 0 && *out_id >= 0 && *out_id < FZ_MSGQS && fz.msgq[*out_id].buffer == NULL)
            fz.msgq[*out_id].buffer = buffer;
        else if (r != PR_OK)
            free(buffer);
        else
            fz_fail("msgq_alloc gave q%d, whose buffer the kernel still owns", *out_id);
        return r;
    }
    case FZ_MSGQ_FREE: return pr_msgq_free(id);
    case FZ_MSGQ_SEND: { /* the message lives here while its sender waits */
        unsigned char msg[PR_CONFIG_MSG_MAX_SIZE];
        fill_msg(msg, sizeof msg, (uint32_t)(a3 >= 0 ? a3 : 0xFFFFFF));
        if (a3 >= 0)
            fill_msg(msg, fz.msgq[id].attr.msg_size, (uint32_t)a3);
        return pr_msgq_send(id, c->null ? NULL : msg, (int)a1, (pr_timeout_t)a2);
    }
    case FZ_MSGQ_RECEIVE:
        memset(out->msg, FZ_POISON, sizeof out->msg);
        out->prio = FZ_PRIO_POISON;
        return pr_msgq_receive(id, c->null == 1 ? NULL : out->msg, c->null == 2 ? NULL : &out->prio,
                               (pr_timeout_t)a1);
    case FZ_MSGQ_STATUS: return pr_msgq_status(id, c->null ? NULL : &out->ms);
    case FZ_TIMER_SERVICE_START: return pr_timer_service_start((pr_prio_t)a0, c->null ? NULL : out_id);
    case FZ_TIMER_ALLOC:
        return pr_timer_alloc(c->null == 1 ? NULL : &c->timer_attr, c->null == 2 ? NULL : out_id);
    case FZ_TIMER_FREE: return pr_timer_free(id);
    case FZ_TIMER_START: return pr_timer_start(id, (pr_timeout_t)a1);
    case FZ_TIMER_STOP: return pr_timer_stop(id);
    case FZ_TIMER_STATUS: return pr_timer_status(id, c->null ? NULL : &out->ts);
    default: return 0;
    }
}

/* ---- after the call: what its result says ---- */


static void learn_send(const fz_call_t *c, int who, int r)
{
    int n = (int)c->arg[3];
    if (who >= 0)
        fz.task[who].msg = -1;
    if (n < 0)
        return;
    fz_msg_t *m = &fz.msgs[n];
    if (r == PR_OK) {
        if (m->state == FZ_MSG_SENDING) { /* it waited, and a receive took it in */
            set_state(m, FZ_MSG_QUEUED);
            m->entry_hi = fz.calls;
        }
        return;
    }
    if (m->state == FZ_MSG_RECEIVED)
        fz_fail("message #%d was received, but its send returned %s", n, pr_errname(r));
    set_state(m, FZ_MSG_REFUSED);
}

/* m, received now from q at call `no`, left before every message that was
 * surely in the queue and comes after it. */
static void check_order(int q, int n, uint64_t no)
{
    const fz_msg_t *m = &fz.msgs[n];
    int fifo = (fz.msgq[q].attr.flags & PR_MSGQ_FIFO_MESSAGES) != 0;
    for (int k = 0; k < fz.nmsgs; k++) {
        const fz_msg_t *o = &fz.msgs[k];
        if (k == n || o->q != q || o->gen != m->gen || o->state != FZ_MSG_QUEUED)
            continue;
        if (!fifo && o->prio > m->prio && o->entry_hi < no)
            fz_fail("q%d (priority order) gave message #%d of priority %d while #%d of priority %d was waiting in it",
                    q, n, m->prio, k, o->prio);
        if ((fifo || o->prio == m->prio) && o->entry_hi < m->entry_lo)
            fz_fail("q%d gave message #%d (sent at call %llu) before #%d (in the queue by call %llu)%s", q, n,
                    (unsigned long long)m->entry_lo, k, (unsigned long long)o->entry_hi,
                    fifo ? "" : ", of the same priority");
    }
}

static void learn_receive(const fz_call_t *c, int who, int r, const svc_out_t *out)
{
    int q = (int)c->arg[0], immediate = c->arg[3] == 1;
    if (c->arg[0] < 0 || c->arg[0] >= FZ_MSGQS)
        return;
    int same = fz.msgq[q].alive && fz.msgq[q].gen == (uint32_t)c->arg[2]; /* not freed meanwhile */
    if (immediate && who >= 0 && same)
        fz.msgq[q].inflight--;
    if (r != PR_OK) {
        for (size_t i = 0; i < sizeof out->msg; i++)
            if (out->msg[i] != FZ_POISON)
                fz_fail("msgq_receive returned %s and wrote byte %zu of the message buffer", pr_errname(r), i);
        if (out->prio != FZ_PRIO_POISON)
            fz_fail("msgq_receive returned %s and wrote the priority", pr_errname(r));
        return;
    }
    uint32_t serial;
    memcpy(&serial, out->msg, sizeof serial);
    if (serial >= (uint32_t)fz.nmsgs)
        fz_fail("q%d delivered a message nobody sent (serial %u)", q, (unsigned)serial);
    fz_msg_t *m = &fz.msgs[serial];
    size_t size = m->size;
    unsigned char want[PR_CONFIG_MSG_MAX_SIZE];
    fill_msg(want, size, serial);
    if (m->q != q)
        fz_fail("q%d delivered message #%u, sent to q%d", q, (unsigned)serial, m->q);
    if (memcmp(want, out->msg, size) != 0)
        fz_fail("q%d delivered message #%u corrupted", q, (unsigned)serial);
    for (size_t i = size; i < sizeof out->msg; i++)
        if (out->msg[i] != FZ_POISON)
            fz_fail("q%d wrote byte %zu of the receive buffer, beyond its message size %zu", q, i, size);
    if (c->null != 2 && out->prio != m->prio)
        fz_fail("q%d delivered message #%u with priority %d; it was sent with %d", q, (unsigned)serial, out->prio,
                m->prio);
    if (immediate) {
        if (m->state != FZ_MSG_QUEUED && m->state != FZ_MSG_SENDING && m->state != FZ_MSG_MAYBE &&
            !(m->state == FZ_MSG_DROPPED && !same)) /* taken, then the queue freed before the call returned */
            fz_fail("a receive from q%d took message #%u, which is not in the queue (state %d: 4 received, 5 "
                    "refused, 7 dropped, 3 handed)", q, (unsigned)serial, m->state);
        if (same && !fz.msgq[q].tainted && fz.msgq[q].inflight == 0)
            check_order(q, (int)serial, c->no);
    } else {
        if (m->state != FZ_MSG_HANDED)
            fz_fail("task %d waited on q%d and was given message #%u, which was not handed to a waiting receiver "
                    "(state %d)", who, q, (unsigned)serial, m->state);
        if (who >= 0 && !(m->receivers & (1u << who)))
            fz_fail("message #%u went to task %d; the receivers first in line were %#x", (unsigned)serial, who,
                    (unsigned)m->receivers);
    }
    set_state(m, FZ_MSG_RECEIVED);
    if (immediate && same && fz.msgq[q].last_server_change == c->no) { /* it serves this message */
        fz.msgq[q].served_no = c->no;
        fz.msgq[q].served_prio = m->prio;
    }
    pr_msgq_status_t st;
    if (immediate && inherits(q) && fz.msgq[q].alive && fz.msgq[q].last_server_change == c->no &&
        pr_msgq_status(q, &st) == PR_OK && st.server != (who >= 0 ? who : PR_NO_TASK))
        fz_fail("q%d's server is %d right after %s received from it", q, st.server, who >= 0 ? "a task" : "no task");
}

static void learn_status(const fz_call_t *c, int r, const svc_out_t *out)
{
    int64_t id = c->arg[0];
    if (r != PR_OK || c->null)
        return;
    if (c->op == FZ_EVENTS_STATUS && (out->es.index != id || out->es.flags != fz.events[id].flags))
        fz_fail("events_status(%lld): index %d, flags %#x (the calls say %#x)", (long long)id, out->es.index,
                (unsigned)out->es.flags, (unsigned)fz.events[id].flags);
    if (c->op == FZ_MSGQ_STATUS && (out->ms.index != id || out->ms.length != fz.msgq[id].attr.length))
        fz_fail("msgq_status(%lld): index %d, length %d", (long long)id, out->ms.index, out->ms.length);
    if (c->op == FZ_TIMER_STATUS && (out->ts.index != id || out->ts.priority != fz.timer[id].prio))
        fz_fail("timer_status(%lld): index %d, priority %d", (long long)id, out->ts.index, out->ts.priority);
}

/* The service task (its id not returned when the pointer was NULL): the
 * task slot named "timers" that no task_create made. */
static int find_service(void)
{
    for (int t = 0; t < FZ_TASKS; t++) {
        pr_task_status_t st;
        if ((!fz.task[t].alive || t == fz.service) && pr_task_status(t, &st) == PR_OK &&
            strcmp(st.name, "timers") == 0) /* (an action may have run already, and adopted it) */
            return t;
    }
    return -1;
}

void fz_services_learn(fz_call_t *c, int who, int r, pr_id_t id, const void *out_)
{
    const svc_out_t *out = out_;
    int64_t a0 = c->arg[0];
    fz_task_t *w = who >= 0 ? &fz.task[who] : NULL;
    switch (c->op) {
    case FZ_EVENTS_ALLOC:
        if (r == PR_OK && !c->null) {
            fz_fifo_take(&fz.events_free, FZ_EVENTS, id, "events_alloc");
            fz.events[id] = (fz_events_t){.alive = 1};
        }
        break;
    case FZ_EVENTS_FREE:
        if (r == PR_OK) {
            fz.events[a0].alive = 0;
            fz_fifo_put(&fz.events_free, FZ_EVENTS, (int)a0);
        }
        break;
    case FZ_EVENTS_WAIT: {
        uint32_t mask = (uint32_t)c->arg[1], seen = out->flags;
        unsigned options = (unsigned)c->arg[2];
        int waited = w != NULL && w->call_waits;
        uint32_t expect = w != NULL ? w->events_flags : nontask_expect;
        if (c->null) {
            if (seen != FZ_FLAGS_POISON)
                fz_fail("events_wait wrote through a NULL flags pointer");
        } else if (r == PR_OK && waited && (!w->events_woken || seen != expect || !satisfied(seen, mask, options))) {
            fz_fail("events_wait(e%lld, %#x) returned PR_OK with flags %#x; %s", (long long)a0, (unsigned)mask,
                    (unsigned)seen, w->events_woken ? "the set that woke it left other flags"
                                                    : "no set satisfied it while it waited");
        } else if ((r == PR_OK && !waited) || r == PR_EAGAIN) {
            if (seen != expect)
                fz_fail("events_wait(e%lld) returned %s with flags %#x; they were %#x", (long long)a0, pr_errname(r),
                        (unsigned)seen, (unsigned)expect);
        } else if (r == PR_ETIMEDOUT) {
            if (satisfied(seen, mask, options) || (w != NULL && w->events_woken))
                fz_fail("events_wait(e%lld, %#x) timed out, but %s", (long long)a0, (unsigned)mask,
                        w != NULL && w->events_woken ? "a set satisfied it while it waited"
                                                     : "the flags it returned satisfy it");
        } else if (r != PR_OK && seen != FZ_FLAGS_POISON) {
            fz_fail("events_wait returned %s and wrote the flags", pr_errname(r));
        }
        if (w != NULL)
            w->events_woken = 0;
        break;
    }
    case FZ_MSGQ_ALLOC:
        if (r == PR_OK && !c->null) {
            fz_fifo_take(&fz.msgq_free, FZ_MSGQS, id, "msgq_alloc");
            fz_msgq_t *q = &fz.msgq[id];
            void *buffer = q->buffer;
            *q = (fz_msgq_t){.alive = 1, .gen = q->gen + 1, .attr = c->msgq_attr, .buffer = buffer, .max_prio = -1,
                             .served_no = UINT64_MAX};
            q->attr.name = NULL;
        }
        break;
    case FZ_MSGQ_SEND: learn_send(c, who, r); break;
    case FZ_MSGQ_RECEIVE: learn_receive(c, who, r, out); break;
    case FZ_TIMER_SERVICE_START:
        if (r == PR_OK) { /* it may have been deleted already, while the call was under way */
            int t = c->null ? find_service() : id;
            pr_task_status_t st;
            if (!c->null && (t < 0 || t >= FZ_TASKS))
                fz_fail("timer_service_start gave task %d", t);
            if (t >= 0 && pr_task_status(t, &st) == PR_OK && strcmp(st.name, "timers") == 0) {
                fz_task_adopt(t);
                fz.service = t;
            }
        }
        break;
    case FZ_TIMER_ALLOC:
        if (r == PR_OK && !c->null) {
            fz_fifo_take(&fz.timer_free, FZ_TIMERS, id, "timer_alloc");
            fz.timer[id] = (fz_timer_t){.alive = 1, .cookie = (uintptr_t)c->timer_attr.arg,
                                        .prio = c->timer_attr.priority, .period = c->timer_attr.period};
        }
        break;
    case FZ_TIMER_FREE:
        if (r == PR_OK) {
            fz.timer[a0].alive = 0;
            fz_fifo_put(&fz.timer_free, FZ_TIMERS, (int)a0);
        }
        break;
    case FZ_TIMER_START:
        if (r == PR_OK) {
            fz.timer[a0].armed = 1;
            fz.timer[a0].next_expiry = (pr_ticks_t)c->arg[3];
            fz.timer[a0].due = 0;
        }
        break;
    case FZ_TIMER_STOP:
        if (r == PR_OK)
            fz.timer[a0].armed = fz.timer[a0].due = 0;
        break;
    case FZ_EVENTS_STATUS: case FZ_MSGQ_STATUS: case FZ_TIMER_STATUS:
        learn_status(c, r, out);
        break;
    default:
        break;
    }
}

/* A task is gone (deleted): its message under way is lost if it still
 * waited to send, else it may have been taken in; an immediate receive it
 * had not returned from took a message the shadow cannot name. */
void fz_services_task_gone(int t)
{
    fz_task_t *w = &fz.task[t];
    if (w->msg >= 0 && fz.msgs[w->msg].state == FZ_MSG_SENDING)
        set_state(&fz.msgs[w->msg], w->was_wait_send ? FZ_MSG_REFUSED : FZ_MSG_MAYBE);
    w->msg = -1;
    int q = (int)w->call_args[0];
    if (w->call == FZ_MSGQ_RECEIVE && w->call_args[3] == 1 && q >= 0 && q < FZ_MSGQS && fz.msgq[q].alive &&
        fz.msgq[q].gen == (uint32_t)w->call_args[2]) {
        fz.msgq[q].inflight--;
        fz.msgq[q].tainted++;
    }
    if (t == fz.service)
        fz.service = -1;
}

/* A task nobody created: the service a start under way made (it runs at
 * once if more urgent than the caller, which may then wait long before
 * its call returns). From then on the service is started. */
int fz_services_adopt(int t)
{
    int starting = 0;
    for (int u = 0; u <= fz.task_hi && u < FZ_TASKS; u++)
        starting |= fz.task[u].alive && fz.task[u].call == FZ_TIMER_SERVICE_START;
    if (!starting || strcmp(fz.snap.task[t].name, "timers") != 0)
        return 0;
    fz_task_adopt(t);
    fz.service = t;
    return 1;
}

/* ---- the timers' expiries (the tick interrupt, before its check) ---- */

void fz_services_tick(void)
{
    pr_ticks_t now = pr_ticks_now();
    for (int i = 0; i < FZ_TIMERS; i++) {
        fz_timer_t *tm = &fz.timer[i];
        if (!tm->alive || !tm->armed || tm->next_expiry > now)
            continue;
        if (tm->next_expiry < now)
            fz_fail("timer %d should have expired at tick %llu; it is tick %llu", i,
                    (unsigned long long)tm->next_expiry, (unsigned long long)now);
        if (tm->period != 0)
            tm->next_expiry += tm->period;
        else
            tm->armed = 0;
        if (tm->due) {
            tm->dropped++;
            continue;
        }
        tm->due = 1;
        tm->due_expiry = now;
        tm->due_seq = fz.due_seq + 1; /* the wheel's order among timers of one tick is not documented */
    }
    fz.due_seq++;
}

/* Every action: in the service task, never in an interrupt, for the timer
 * it was allocated for, due, and the most urgent due one (the oldest among
 * equals). Now and then it makes a call itself (never one that waits). */
void fz_timer_action(pr_id_t id, void *arg)
{
    int self = pr_task_self();
    if (fz.in_isr || fz.in_driver || self < 0)
        fz_fail("timer %d's action runs in %s", id, fz.in_isr ? "the tick interrupt" : "no task");
    if (fz.service >= 0 && self != fz.service)
        fz_fail("timer %d's action runs in task %d; the service is task %d", id, self, fz.service);
    fz_task_adopt(self);
    fz.service = self;
    if (id < 0 || id >= FZ_TIMERS || !fz.timer[id].alive || fz.timer[id].cookie != (uintptr_t)arg)
        fz_fail("an action ran for timer %d (argument %p), which is %s", id, arg,
                id >= 0 && id < FZ_TIMERS && fz.timer[id].alive ? "another allocation" : "freed");
    fz_timer_t *tm = &fz.timer[id];
    if (!tm->due)
        fz_fail("timer %d's action ran, but no expiry of it is due (stopped, restarted, or run already)", id);
    for (int i = 0; i < FZ_TIMERS; i++) {
        const fz_timer_t *o = &fz.timer[i];
        if (i != id && o->alive && o->due &&
            (o->prio > tm->prio || (o->prio == tm->prio && o->due_seq < tm->due_seq)))
            fz_fail("timer %d's action (priority %d) ran before timer %d's (priority %d, due %s)", id, tm->prio, i,
                    o->prio, o->due_seq < tm->due_seq ? "earlier" : "later");
    }
    tm->due = 0;
    tm->expiries++;
    pr_ticks_t lateness = tick_of_now() - tm->due_expiry;
    if (lateness > tm->max_lateness)
        tm->max_lateness = lateness;
    fz.actions++;
    fz_check(); /* the service was switched to without a call of its own returning */
    if (fz.calls < fz.budget && fz_chance(30)) {
        fz_call_t c;
        memset(&c, 0, sizeof c);
        fz_gen_services_isr(&c); /* what an interrupt may call, a task may: without waiting */
        if (c.op == FZ_EVENTS_WAIT || c.op == FZ_MSGQ_SEND || c.op == FZ_MSGQ_RECEIVE)
            c.arg[c.op == FZ_EVENTS_WAIT ? 3 : c.op == FZ_MSGQ_SEND ? 2 : 1] = PR_NO_WAIT;
        if (fz_chance(20)) { /* on itself */
            c.op = fz_chance(50) ? FZ_TIMER_FREE : fz_chance(50) ? FZ_TIMER_STOP : FZ_TIMER_START;
            c.arg[0] = id;
            c.arg[1] = fz_range(1, 4);
        }
        fz_do(&c);
    }
}

/* ---- reading the kernel and the invariants ---- */

void fz_services_read(int sweep)
{
    fz_snap_t *s = &fz.snap;
    for (int i = 0; i < FZ_EVENTS; i++) {
        if (!fz.events[i].alive && !sweep)
            continue;
        int r = pr_events_status(i, &s->events[i]);
        if ((r == PR_OK) != fz.events[i].alive || (r != PR_OK && r != PR_ENOTALLOC))
            fz_fail("events_status(%d) returned %s; the calls say it is %s", i, pr_errname(r),
                    fz.events[i].alive ? "allocated" : "free");
    }
    for (int i = 0; i < FZ_MSGQS; i++) {
        if (!fz.msgq[i].alive && !sweep)
            continue;
        int r = pr_msgq_status(i, &s->msgq[i]);
        if ((r == PR_OK) != fz.msgq[i].alive || (r != PR_OK && r != PR_ENOTALLOC))
            fz_fail("msgq_status(%d) returned %s; the calls say it is %s", i, pr_errname(r),
                    fz.msgq[i].alive ? "allocated" : "free");
    }
}

static void check_events(const int *nwait)
{
    for (int e = 0; e < FZ_EVENTS; e++) {
        const pr_events_status_t *st = &fz.snap.events[e];
        const fz_events_t *ev = &fz.events[e];
        if (!ev->alive)
            continue;
        if (st->index != e || st->flags != ev->flags || st->waiters != nwait[e] || st->sets != ev->sets ||
            st->wakeups != ev->wakeups)
            fz_fail("e%d: index %d, flags %#x, %d waiters, %u sets, %u wakeups; the calls say flags %#x, %d tasks "
                    "wait, %u sets, %u wakeups", e, st->index, (unsigned)st->flags, st->waiters, (unsigned)st->sets,
                    (unsigned)st->wakeups, (unsigned)ev->flags, nwait[e], (unsigned)ev->sets, (unsigned)ev->wakeups);
    }
}

static void check_msgqs(const int *nsend, const int *nrecv)
{
    int sure[FZ_MSGQS], maybe[FZ_MSGQS];
    for (int q = 0; q < FZ_MSGQS; q++) {
        sure[q] = fz.msgq[q].nqueued;
        maybe[q] = fz.msgq[q].nmaybe;
    }
    for (int t = 0; t <= fz.task_hi && t < FZ_TASKS; t++) { /* taken in, or timed out: its send has not returned */
        const fz_task_t *w = &fz.task[t];
        if (w->alive && w->msg >= 0 && fz.msgs[w->msg].state == FZ_MSG_SENDING &&
            !(fz.snap.task[t].state == PR_TASK_WAIT_SEND && fz.snap.task[t].msgq_on == fz.msgs[w->msg].q))
            maybe[fz.msgs[w->msg].q]++;
    }
    for (int q = 0; q < FZ_MSGQS; q++) {
        const pr_msgq_status_t *st = &fz.snap.msgq[q];
        const fz_msgq_t *sq = &fz.msgq[q];
        if (!sq->alive)
            continue;
        if (st->index != q || st->length != sq->attr.length || st->msg_size != sq->attr.msg_size ||
            st->flags != sq->attr.flags)
            fz_fail("q%d: index %d, length %d, size %zu, flags %#x differ from its allocation", q, st->index,
                    st->length, st->msg_size, st->flags);
        if (st->messages < 0 || st->messages > st->length || st->most_messages < st->messages ||
            st->most_messages > st->length || st->sends - st->receives != (uint32_t)st->messages)
            fz_fail("q%d: %d messages of %d, most %d, %u sends, %u receives", q, st->messages, st->length,
                    st->most_messages, (unsigned)st->sends, (unsigned)st->receives);
        if ((st->senders_waiting > 0 && st->messages != st->length) ||
            (st->receivers_waiting > 0 && st->messages != 0))
            fz_fail("q%d: %d senders and %d receivers wait with %d messages of %d", q, st->senders_waiting,
                    st->receivers_waiting, st->messages, st->length);
        if (st->senders_waiting != nsend[q] || st->receivers_waiting != nrecv[q])
            fz_fail("q%d: %d senders and %d receivers wait; the tasks' states say %d and %d", q, st->senders_waiting,
                    st->receivers_waiting, nsend[q], nrecv[q]);
        pr_id_t s = st->server;
        if (s != PR_NO_TASK && (!inherits(q) || !live(s) || fz.snap.task[s].state == PR_TASK_DONE ||
                                !(sq->received_by & (1u << s))))
            fz_fail("q%d's server is %d: %s", q, s,
                    !inherits(q) ? "the queue does not inherit"
                    : !live(s) || fz.snap.task[s].state == PR_TASK_DONE ? "not a live task"
                                                                        : "a task that never received from it");
        int lo = sure[q] - sq->inflight - sq->tainted, hi = sure[q] + maybe[q];
        if (st->messages < lo || st->messages > hi)
            fz_fail("q%d holds %d messages; the sends and receives say %d to %d (%d surely in it, %d receives under "
                    "way): a message %s", q, st->messages, lo < 0 ? 0 : lo, hi, sure[q], sq->inflight,
                    st->messages < lo ? "was lost" : "was duplicated or a refused one kept");
    }
}

static void check_timers(void)
{
    for (int i = 0; i < FZ_TIMERS; i++) {
        const fz_timer_t *tm = &fz.timer[i];
        pr_timer_status_t st;
        if (!tm->alive && !fz.in_driver) /* free ones: in the driver's checks only */
            continue;
        int r = pr_timer_status(i, &st);
        if ((r == PR_OK) != tm->alive)
            fz_fail("timer_status(%d) returned %s; the calls say it is %s", i, pr_errname(r),
                    tm->alive ? "allocated" : "free");
        if (!tm->alive)
            continue;
        pr_ticks_t expiry = tm->armed ? tm->next_expiry : tm->due ? tm->due_expiry : 0;
        if (st.armed != (tm->armed || tm->due) || st.expiry != expiry || st.expiries != tm->expiries ||
            st.dropped != tm->dropped || st.max_lateness != tm->max_lateness || st.period != tm->period)
            fz_fail("timer %d: armed %d, expiry %llu, %u expiries run, %u dropped, lateness up to %llu; the model "
                    "says %d, %llu, %u, %u, %llu", i, st.armed, (unsigned long long)st.expiry, (unsigned)st.expiries,
                    (unsigned)st.dropped, (unsigned long long)st.max_lateness, tm->armed || tm->due,
                    (unsigned long long)expiry, (unsigned)tm->expiries, (unsigned)tm->dropped,
                    (unsigned long long)tm->max_lateness);
    }
}

void fz_services_check(void)
{
    int nwait[FZ_EVENTS] = {0}, nsend[FZ_MSGQS] = {0}, nrecv[FZ_MSGQS] = {0};
    for (int t = 0; t <= fz.task_hi && t < FZ_TASKS; t++) {
        fz_task_t *w = &fz.task[t];
        const pr_task_status_t *st = &fz.snap.task[t];
        if (!live(t))
            continue;
        int ev = st->state == PR_TASK_WAIT_EVENTS, mq = st->state == PR_TASK_WAIT_SEND || st->state == PR_TASK_WAIT_RECEIVE;
        if (ev != (st->events_on != PR_NO_EVENTS) || mq != (st->msgq_on != PR_NO_MSGQ))
            fz_fail("task %d: state %d, events_on %d, msgq_on %d", t, (int)st->state, st->events_on, st->msgq_on);
        fz_op_t want = ev ? FZ_EVENTS_WAIT : st->state == PR_TASK_WAIT_SEND ? FZ_MSGQ_SEND : FZ_MSGQ_RECEIVE;
        pr_id_t on = ev ? st->events_on : st->msgq_on;
        if ((ev || mq) && (w->call != want || w->call_args[0] != on))
            fz_fail("task %d waits in state %d on %d, but it is inside %s(%lld)", t, (int)st->state, on,
                    fz_op_name(w->call), (long long)w->call_args[0]);
        if (ev) {
            if (on < 0 || on >= FZ_EVENTS || !fz.events[on].alive)
                fz_fail("task %d waits on e%d, which is not allocated", t, on);
            nwait[on]++;
            if (satisfied(fz.events[on].flags, (uint32_t)w->call_args[1], (unsigned)w->call_args[2]))
                fz_fail("task %d waits on e%d for %#x (%s), which its flags %#x satisfy", t, on,
                        (unsigned)w->call_args[1], (w->call_args[2] & PR_EVENTS_ALL) ? "all" : "any",
                        (unsigned)fz.events[on].flags);
        }
        if (mq) {
            if (on < 0 || on >= FZ_MSGQS || !fz.msgq[on].alive)
                fz_fail("task %d waits on q%d, which is not allocated", t, on);
            (st->state == PR_TASK_WAIT_SEND ? nsend : nrecv)[on]++;
        }
    }
    check_events(nwait);
    check_msgqs(nsend, nrecv);
    check_timers();
    for (int t = 0; t <= fz.task_hi && t < FZ_TASKS; t++)
        fz.task[t].was_wait_send = live(t) && fz.snap.task[t].state == PR_TASK_WAIT_SEND;
}
