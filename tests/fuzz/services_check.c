/*
 * Event flags, message queues and software timers under the fuzzer: the
 * timers' model, the timer action, and the invariants read through the
 * status calls after every call (fuzz.h, services.c, docs/fuzzing.md).
 */
#include <string.h>
#include "fuzz.h"

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
    pr_ticks_t lateness = fz_tick_of_now() - tm->due_expiry;
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
        if (s != PR_NO_TASK && (!fz_inherits(q) || !fz_live(s) || fz.snap.task[s].state == PR_TASK_DONE ||
                                !(sq->received_by & (1u << s))))
            fz_fail("q%d's server is %d: %s", q, s,
                    !fz_inherits(q) ? "the queue does not inherit"
                    : !fz_live(s) || fz.snap.task[s].state == PR_TASK_DONE ? "not a live task"
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
        if (!fz_live(t))
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
            if (fz_satisfied(fz.events[on].flags, (uint32_t)w->call_args[1], (unsigned)w->call_args[2]))
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
        fz.task[t].was_wait_send = fz_live(t) && fz.snap.task[t].state == PR_TASK_WAIT_SEND;
}
