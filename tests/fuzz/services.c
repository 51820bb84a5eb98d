/*
 * Event flags, message queues and software timers under the fuzzer (fuzz.h,
 * docs/fuzzing.md): issuing their calls, what each does at once, the shadow
 * of each object and the messages' fates. Their predictions are in
 * services_predict.c; the timers' model, the timer action and the
 * invariants read through their status calls in services_check.c.
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

/* ---- free lists (the kernel's, full at first: fz_fifo_take in shadow.c) ---- */
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

/* A message's bytes: its serial, then bytes that depend on it and their place. */
static void fill_msg(unsigned char *buf, size_t size, uint32_t serial)
{
    memcpy(buf, &serial, sizeof serial);
    for (size_t i = sizeof serial; i < size; i++)
        buf[i] = (unsigned char)(serial * 131u + i * 7u + 0x5Au);
}

/* A message's fate changes; its queue counts those surely and maybe in it. */
void fz_services_set_state(fz_msg_t *m, fz_msg_state_t state)
{
    fz_msgq_t *q = &fz.msgq[m->q];
    if (q->alive && m->gen == q->gen) {
        q->nqueued += (state == FZ_MSG_QUEUED) - (m->state == FZ_MSG_QUEUED);
        q->nmaybe += (state == FZ_MSG_MAYBE) - (m->state == FZ_MSG_MAYBE);
    }
    m->state = (uint8_t)state;
}

/* Its queue is freed: what was in it, or may have been, is dropped. */
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
        if (!fz_live(u) || us->state != PR_TASK_WAIT_RECEIVE || us->msgq_on != q)
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
        fz_services_set_state(m, FZ_MSG_QUEUED);
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
        if (!fz_live(u) || us->state != PR_TASK_WAIT_EVENTS || us->events_on != e || w->call != FZ_EVENTS_WAIT)
            continue;
        uint32_t wmask = (uint32_t)w->call_args[1];
        unsigned options = (unsigned)w->call_args[2];
        if (!fz_satisfied(flags, wmask, options))
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
            (expected == E(OK) && fz_satisfied(fz.events[id].flags, (uint32_t)c->arg[1], (unsigned)c->arg[2]))) {
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
        c->arg[3] = c->arg[2] = 0;
        if (!fz_msgq_alive(id))
            break;
        c->arg[2] = fz.msgq[id].gen; /* the queue may be freed while the call is under way */
        if (w != NULL) /* a server from when its call starts (a send may hand it one) */
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
        c->arg[3] = (int64_t)(fz_tick_of_now() + (pr_ticks_t)c->arg[1]);
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
            fz_services_set_state(m, FZ_MSG_QUEUED);
            m->entry_hi = fz.calls;
        }
        return;
    }
    if (m->state == FZ_MSG_RECEIVED)
        fz_fail("message #%d was received, but its send returned %s", n, pr_errname(r));
    fz_services_set_state(m, FZ_MSG_REFUSED);
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
    fz_services_set_state(m, FZ_MSG_RECEIVED);
    if (immediate && same && fz.msgq[q].last_server_change == c->no) { /* it serves this message */
        fz.msgq[q].served_no = c->no;
        fz.msgq[q].served_prio = m->prio;
    }
    pr_msgq_status_t st;
    if (immediate && fz_inherits(q) && fz.msgq[q].alive && fz.msgq[q].last_server_change == c->no &&
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
        } else if (r == PR_OK && waited && (!w->events_woken || seen != expect || !fz_satisfied(seen, mask, options))) {
            fz_fail("events_wait(e%lld, %#x) returned PR_OK with flags %#x; %s", (long long)a0, (unsigned)mask,
                    (unsigned)seen, w->events_woken ? "the set that woke it left other flags"
                                                    : "no set satisfied it while it waited");
        } else if ((r == PR_OK && !waited) || r == PR_EAGAIN) {
            if (seen != expect)
                fz_fail("events_wait(e%lld) returned %s with flags %#x; they were %#x", (long long)a0, pr_errname(r),
                        (unsigned)seen, (unsigned)expect);
        } else if (r == PR_ETIMEDOUT || r == PR_EJOBABORTED) { /* its wait abandoned, with the flags then */
            if (fz_satisfied(seen, mask, options) || (w != NULL && w->events_woken))
                fz_fail("events_wait(e%lld, %#x) returned %s, but %s", (long long)a0, (unsigned)mask, pr_errname(r),
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
        fz_services_set_state(&fz.msgs[w->msg], w->was_wait_send ? FZ_MSG_REFUSED : FZ_MSG_MAYBE);
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

