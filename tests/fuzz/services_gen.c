/*
 * The generator's part for event flags, message queues and software timers
 * (fuzz.h, services.c): their calls from tasks, from the tick interrupt and
 * from the driver, the run's set-up of them, and how a report prints them.
 *
 * Few objects and few flags, so that waiters meet: masks from four flags,
 * queues of one to four messages, timers due at the same ticks. Now and
 * then every argument goes wrong in turn (bad and freed ids, NULL
 * pointers, a zero mask, unknown options, bad queue attributes and
 * buffers, priorities out of range, a zero or endless delay).
 */
#include <limits.h>
#include <string.h>
#include "fuzz.h"

static const char *const NAMES[] = {"e", "obj", "a-name-much-too-long", NULL};

static int64_t bad_or_free(int pool, const int *alive_flags, size_t stride)
{
    static const int64_t BAD[] = {-1, -2, INT_MIN};
    if (fz_chance(50))
        return fz_chance(50) ? BAD[fz_below(3)] : pool + fz_below(3);
    for (int i = fz_below(pool); i < pool; i++)
        if (!*(const int *)((const char *)alive_flags + (size_t)i * stride))
            return i;
    return pool;
}

#define PICK(pool, arr, field)                                                                                  \
    do {                                                                                                        \
        int ids_[pool], n_ = 0;                                                                                 \
        if (fz_chance(3))                                                                                       \
            return bad_or_free(pool, &arr[0].field, sizeof arr[0]);                                             \
        for (int i_ = 0; i_ < pool; i_++)                                                                       \
            if (arr[i_].field)                                                                                  \
                ids_[n_++] = i_;                                                                                \
        return n_ > 0 ? ids_[fz_below(n_)] : fz_below(pool);                                                    \
    } while (0)

static int64_t pick_events(void) { PICK(FZ_EVENTS, fz.events, alive); }
static int64_t pick_msgq(void) { PICK(FZ_MSGQS, fz.msgq, alive); }
static int64_t pick_timer(void) { PICK(FZ_TIMERS, fz.timer, alive); }

static pr_timeout_t pick_timeout(void)
{
    int k = fz_below(100);
    return k < 25 ? PR_NO_WAIT : k < 45 ? PR_FOREVER : (pr_timeout_t)fz_range(1, 6);
}

static uint32_t pick_mask(void)
{
    if (fz_chance(3))
        return fz_chance(50) ? 0u : 0x80000000u;
    return (uint32_t)fz_range(1, 15);
}

static void make_msgq_attr(fz_call_t *c)
{
    static const size_t SIZES[] = {4, 7, 16, 64, 200, PR_CONFIG_MSG_MAX_SIZE};
    pr_msgq_attr_t *a = &c->msgq_attr;
    c->op = FZ_MSGQ_ALLOC;
    pr_msgq_attr_init(a);
    a->name = NAMES[fz_below(2)];
    a->msg_size = SIZES[fz_below(6)];
    a->length = fz_range(1, 4);
    a->flags = (fz_chance(40) ? PR_MSGQ_FIFO_MESSAGES : 0u) | (fz_chance(50) ? PR_MSGQ_INHERIT : 0u);
    if (!(a->flags & PR_MSGQ_INHERIT) && fz_chance(40))
        a->flags |= PR_MSGQ_FIFO_WAITERS;
    c->bad = 0;
    if (fz_chance(6)) { /* one thing wrong */
        switch (fz_below(9)) {
        case 0: a->msg_size = 0; break;
        case 1: a->msg_size = PR_CONFIG_MSG_MAX_SIZE + 1; break;
        case 2: a->length = fz_chance(50) ? 0 : -1; break;
        case 3: a->flags |= 8u; break;
        case 4: a->flags = PR_MSGQ_INHERIT | PR_MSGQ_FIFO_WAITERS; break;
        case 5: a->name = NAMES[2]; break;
        default: c->bad = fz_range(1, 3); break;
        }
    }
    c->null = fz_chance(2) ? fz_range(1, 2) : 0;
}

static void make_timer_attr(fz_call_t *c)
{
    pr_timer_attr_t *a = &c->timer_attr;
    c->op = FZ_TIMER_ALLOC;
    pr_timer_attr_init(a);
    a->name = NAMES[fz_below(2)];
    a->action = fz_timer_action;
    a->priority = fz_range(0, 3);
    a->period = fz_chance(40) ? (pr_ticks_t)fz_range(1, 8) : 0;
    if (fz_chance(5)) {
        switch (fz_below(4)) {
        case 0: a->action = NULL; break;
        case 1: a->priority = fz_chance(50) ? -1 : PR_PRIO_MAX + 1; break;
        case 2: a->period = (pr_ticks_t)UINT32_MAX + 1; break;
        default: a->name = NAMES[2]; break;
        }
    }
    c->null = fz_chance(2) ? fz_range(1, 2) : 0;
}

static pr_prio_t pick_service_prio(void)
{
    if (fz_chance(5))
        return fz_chance(50) ? -1 : PR_PRIO_MAX + 1;
    return fz_range(fz.profile.prio_lo, fz.profile.prio_hi + 1);
}

static void make_send(fz_call_t *c, pr_timeout_t timeout)
{
    c->op = FZ_MSGQ_SEND;
    c->arg[0] = pick_msgq();
    c->arg[1] = fz_chance(30) ? PR_MSG_PRIO_SENDER : fz_chance(3) ? (fz_chance(50) ? -2 : PR_PRIO_MAX + 1)
                                                   : fz_range(0, 4);
    c->arg[2] = timeout;
    c->null = fz_chance(2);
    if (fz.nmsgs >= FZ_MSGS - 8) /* no more messages: a status instead */
        c->op = FZ_MSGQ_STATUS;
}

static void make_wait(fz_call_t *c, pr_timeout_t timeout)
{
    c->op = FZ_EVENTS_WAIT;
    c->arg[0] = pick_events();
    c->arg[1] = pick_mask();
    c->arg[2] = (fz_chance(40) ? PR_EVENTS_ALL : 0u) | (fz_chance(40) ? PR_EVENTS_CLEAR : 0u) | (fz_chance(2) ? 4u : 0u);
    c->arg[3] = timeout;
    c->null = fz_chance(10);
}

/* A call of a task (self >= 0) or of the driver (self < 0: waits are refused). */
void fz_gen_services(fz_call_t *c, int self)
{
    (void)self;
    int k = fz_below(100);
    c->null = 0;
    if (k < 14) {
        make_wait(c, pick_timeout());
    } else if (k < 26) {
        c->op = fz_chance(65) ? FZ_EVENTS_SET : FZ_EVENTS_CLEAR;
        c->arg[0] = pick_events();
        c->arg[1] = fz_chance(5) ? 0 : pick_mask();
    } else if (k < 29) {
        c->op = fz_chance(35) ? FZ_EVENTS_FREE : FZ_EVENTS_ALLOC;
        c->arg[0] = pick_events();
        c->name = NAMES[fz_below(4)];
        c->null = fz_chance(5);
    } else if (k < 47) {
        make_send(c, pick_timeout());
    } else if (k < 65) {
        c->op = FZ_MSGQ_RECEIVE;
        c->arg[0] = pick_msgq();
        c->arg[1] = pick_timeout();
        c->null = fz_chance(3) ? fz_range(1, 2) : fz_chance(10) ? 2 : 0;
    } else if (k < 69) {
        if (fz_chance(35)) {
            c->op = FZ_MSGQ_FREE;
            c->arg[0] = pick_msgq();
        } else {
            make_msgq_attr(c);
        }
    } else if (k < 82) {
        c->op = fz_chance(70) && !fz.quiet ? FZ_TIMER_START : FZ_TIMER_STOP;
        c->arg[0] = pick_timer();
        c->arg[1] = fz_chance(4) ? (fz_chance(50) ? 0 : (int64_t)PR_FOREVER) : fz_range(1, 6);
    } else if (k < 87) {
        if (fz_chance(50)) {
            c->op = FZ_TIMER_FREE;
            c->arg[0] = pick_timer();
        } else {
            make_timer_attr(c);
        }
    } else if (k < 89) {
        c->op = FZ_TIMER_SERVICE_START;
        c->arg[0] = pick_service_prio();
        c->null = fz_chance(20);
    } else {
        static const fz_op_t STATUS[] = {FZ_EVENTS_STATUS, FZ_MSGQ_STATUS, FZ_TIMER_STATUS};
        c->op = STATUS[fz_below(3)];
        c->arg[0] = c->op == FZ_EVENTS_STATUS ? pick_events() : c->op == FZ_MSGQ_STATUS ? pick_msgq() : pick_timer();
        c->null = fz_chance(5);
    }
}

/* What the tick interrupt calls: sets and clears, sends and receives and
 * waits that do not wait (with a timeout now and then: refused if they
 * would wait), timers started and stopped. */
void fz_gen_services_isr(fz_call_t *c)
{
    pr_timeout_t timeout = fz_chance(85) ? PR_NO_WAIT : (pr_timeout_t)fz_range(1, 3);
    c->null = 0;
    switch (fz_below(8)) {
    case 0: case 1:
        c->op = fz_chance(70) ? FZ_EVENTS_SET : FZ_EVENTS_CLEAR;
        c->arg[0] = pick_events();
        c->arg[1] = pick_mask();
        break;
    case 2: make_wait(c, timeout); break;
    case 3: case 4: make_send(c, timeout); break;
    case 5:
        c->op = FZ_MSGQ_RECEIVE;
        c->arg[0] = pick_msgq();
        c->arg[1] = timeout;
        break;
    case 6:
        c->op = fz_chance(70) ? FZ_TIMER_START : FZ_TIMER_STOP;
        c->arg[0] = pick_timer();
        c->arg[1] = fz_range(1, 5);
        break;
    default:
        c->op = FZ_TIMER_STATUS;
        c->arg[0] = pick_timer();
        break;
    }
}

/* The pools' ends, as fill_pools (gen.c) does for tasks and semaphores:
 * every event flags object, queue and timer taken (the next alloc fails
 * with PR_ENOSPC), then all given back in an order that shuffles the free
 * lists. */
void fz_gen_services_fill(void)
{
    fz_call_t c;
    do {
        c = (fz_call_t){.op = FZ_EVENTS_ALLOC};
    } while (fz_do(&c) == PR_OK);
    do {
        memset(&c, 0, sizeof c);
        make_msgq_attr(&c);
        c.null = c.bad = 0;
        c.msgq_attr = (pr_msgq_attr_t){.msg_size = 4, .length = 1};
    } while (fz_do(&c) == PR_OK);
    do {
        memset(&c, 0, sizeof c);
        make_timer_attr(&c);
        c.null = 0;
        c.timer_attr = (pr_timer_attr_t){.action = fz_timer_action};
    } while (fz_do(&c) == PR_OK);
    for (int i = 0; i < FZ_TIMERS; i++) {
        c = (fz_call_t){.op = i < FZ_EVENTS ? FZ_EVENTS_FREE : FZ_TIMER_FREE, .arg = {(i * 7) % FZ_EVENTS}};
        if (i >= FZ_EVENTS)
            c.arg[0] = (i * 5) % FZ_TIMERS;
        fz_do(&c);
    }
    for (int i = 0; i < FZ_TIMERS; i++) {
        c = (fz_call_t){.op = i < FZ_MSGQS ? FZ_MSGQ_FREE : FZ_TIMER_FREE, .arg = {(i * 3) % FZ_MSGQS}};
        if (i >= FZ_MSGQS)
            c.arg[0] = (i * 5 + 1) % FZ_TIMERS;
        fz_do(&c);
    }
    for (int i = 0; i < FZ_TIMERS; i++) { /* what the shuffles above missed */
        c = (fz_call_t){.op = FZ_TIMER_FREE, .arg = {i}};
        if (fz.timer[i].alive)
            fz_do(&c);
    }
}

/* The run's objects: 1 or 2 event flags, 1 to 3 queues, 0 to 4 timers
 * (some started), and the timer service three times in four. */
void fz_gen_services_setup(void)
{
    fz_call_t c;
    for (int i = fz_range(1, 2); i > 0; i--) {
        c = (fz_call_t){.op = FZ_EVENTS_ALLOC, .name = "ev"};
        fz_do(&c);
    }
    for (int i = fz_range(1, 3); i > 0; i--) {
        for (int tries = 0; tries < 10; tries++) {
            memset(&c, 0, sizeof c);
            make_msgq_attr(&c);
            if (fz_do(&c) == PR_OK)
                break;
        }
    }
    for (int i = fz_range(0, 4); i > 0; i--) {
        memset(&c, 0, sizeof c);
        make_timer_attr(&c);
        c.null = 0;
        c.timer_attr.action = fz_timer_action;
        c.timer_attr.period = fz_chance(50) ? (pr_ticks_t)fz_range(1, 6) : 0;
        c.timer_attr.priority = fz_range(0, 3);
        c.timer_attr.name = "tm";
        if (fz_do(&c) == PR_OK && fz_chance(70) && !fz.quiet) {
            pr_id_t id = 0;
            for (int t = 0; t < FZ_TIMERS; t++) /* the one just allocated: the highest cookie */
                if (fz.timer[t].alive && fz.timer[t].cookie == fz.cookies)
                    id = t;
            c = (fz_call_t){.op = FZ_TIMER_START, .arg = {id, fz_range(1, 5)}};
            fz_do(&c);
        }
    }
    if (fz_chance(75)) {
        c = (fz_call_t){.op = FZ_TIMER_SERVICE_START, .arg = {pick_service_prio()}};
        fz_do(&c);
    }
}

static void print_timeout(FILE *out, int64_t t)
{
    if ((pr_timeout_t)t == PR_FOREVER)
        fprintf(out, "FOREVER");
    else if (t == PR_NO_WAIT)
        fprintf(out, "NO_WAIT");
    else
        fprintf(out, "%lld", (long long)t);
}

static void print_msgq(FILE *out, int64_t q)
{
    fprintf(out, "q%lld", (long long)q);
    if (q < 0 || q >= FZ_MSGQS)
        return;
    unsigned f = fz.msgq[q].attr.flags;
    fprintf(out, "[%d %s%s%s]", fz.msgq[q].attr.length, (f & PR_MSGQ_FIFO_MESSAGES) ? "fifo" : "prio",
            (f & PR_MSGQ_FIFO_WAITERS) ? " fifo-waiters" : "", (f & PR_MSGQ_INHERIT) ? " inherit" : "");
}

void fz_print_services_call(FILE *out, const fz_call_t *c)
{
    int64_t a0 = c->arg[0];
    const char *null = c->null ? ", NULL" : "";
    switch (c->op) {
    case FZ_EVENTS_ALLOC: fprintf(out, "%s", c->null ? "id=NULL" : ""); break;
    case FZ_EVENTS_FREE: fprintf(out, "e%lld", (long long)a0); break;
    case FZ_EVENTS_SET: case FZ_EVENTS_CLEAR: fprintf(out, "e%lld, %#llx", (long long)a0, (long long)c->arg[1]); break;
    case FZ_EVENTS_WAIT:
        fprintf(out, "e%lld, %#llx, %s%s%s, ", (long long)a0, (long long)c->arg[1],
                (c->arg[2] & PR_EVENTS_ALL) ? "ALL" : "ANY", (c->arg[2] & PR_EVENTS_CLEAR) ? "|CLEAR" : "",
                (c->arg[2] & ~3) ? "|unknown" : "");
        print_timeout(out, c->arg[3]);
        fprintf(out, "%s", null);
        break;
    case FZ_EVENTS_STATUS: fprintf(out, "e%lld%s", (long long)a0, null); break;
    case FZ_MSGQ_ALLOC: {
        const pr_msgq_attr_t *a = &c->msgq_attr;
        fprintf(out, "size=%zu length=%d flags=%#x%s%s", a->msg_size, a->length, a->flags,
                c->bad == 1 ? " buffer=NULL" : c->bad == 2 ? " buffer=misaligned" : c->bad == 3 ? " buffer=short" : "",
                c->null == 1 ? " attr=NULL" : c->null == 2 ? " id=NULL" : "");
        break;
    }
    case FZ_MSGQ_FREE: print_msgq(out, a0); break;
    case FZ_MSGQ_SEND:
        print_msgq(out, a0);
        fprintf(out, ", #%lld, prio=%lld, ", (long long)c->arg[3], (long long)c->arg[1]);
        print_timeout(out, c->arg[2]);
        fprintf(out, "%s", null);
        break;
    case FZ_MSGQ_RECEIVE:
        print_msgq(out, a0);
        fprintf(out, ", ");
        print_timeout(out, c->arg[1]);
        fprintf(out, "%s", c->null == 1 ? ", msg=NULL" : c->null == 2 ? ", prio=NULL" : "");
        break;
    case FZ_MSGQ_STATUS: print_msgq(out, a0); fprintf(out, "%s", null); break;
    case FZ_TIMER_SERVICE_START: fprintf(out, "prio=%lld%s", (long long)a0, null); break;
    case FZ_TIMER_ALLOC:
        fprintf(out, "prio=%d period=%llu%s%s", c->timer_attr.priority, (unsigned long long)c->timer_attr.period,
                c->timer_attr.action == NULL ? " action=NULL" : "", c->null ? " NULL" : "");
        break;
    case FZ_TIMER_FREE: case FZ_TIMER_STOP: fprintf(out, "t%lld", (long long)a0); break;
    case FZ_TIMER_START: fprintf(out, "t%lld, %lld", (long long)a0, (long long)c->arg[1]); break;
    case FZ_TIMER_STATUS: fprintf(out, "t%lld%s", (long long)a0, null); break;
    default: break;
    }
}
