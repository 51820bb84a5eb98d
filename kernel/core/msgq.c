/*
 * Message queues (msgq.h): a pool of descriptors, each over a buffer its
 * allocator gave, cut into `length` places of one message each.
 *
 * The messages in a queue are a priority list (plist.h: one FIFO list per
 * level and a bitmap), at the level of their priority, or all at level 0
 * for FIFO order; the free places are a list. Sending and receiving are
 * O(1) plus the copy of one message, whatever the number of messages and
 * of waiters.
 *
 * Two wait queues: senders waiting for room, receivers waiting for a
 * message. Both cannot have waiters at once (a receiver waits only when
 * the queue is empty, a sender only when it is full, and length >= 1).
 * A send that finds a receiver waiting copies its message straight to the
 * receiver's buffer and wakes it; a receive that frees a place while a
 * sender waits copies that sender's message in and wakes it. Either way
 * the message or the place goes to exactly one task, which nobody can
 * take in between.
 *
 * Inheritance through the queue (PR_MSGQ_INHERIT): the senders' wait
 * queue has a lender (priority.h) whose holder is the queue's server, the
 * task that last received from it. What it lends (msgq_lend) is the
 * larger of the priority of the message the server received last and the
 * effective priority of the most urgent waiting sender. The effective
 * priority bookkeeping and the chain walk are the mutexes' own: the lend
 * travels on when the server waits in a queue that lends in its turn, and
 * a send that would close a cycle of such waits is refused.
 */
#include <string.h>
#include "msgq_impl.h"
#include "priority.h"

#define KNOWN_FLAGS (PR_MSGQ_FIFO_MESSAGES | PR_MSGQ_FIFO_WAITERS | PR_MSGQ_INHERIT)

/* One place of a queue's buffer (PR_MSGQ_PLACE_BYTES in msgq.h is its size). */
typedef struct msg_place {
    pr_link_t link;             /* in the queue's messages, or its free places */
    int prio;
    unsigned char data[];
} msg_place_t;

_Static_assert(offsetof(msg_place_t, data) == 2 * sizeof(void *) + sizeof(int),
               "PR_MSGQ_PLACE_BYTES (msgq.h) must describe msg_place_t");

typedef struct pr_msgq {
    pr_link_t pool_link;        /* in the free list */
    pr_id_t index;
    int allocated;
    unsigned flags;
    size_t msg_size, place_bytes;
    int length;
    int messages, most_messages;
    uint32_t sends, receives, send_waits, receive_waits;
    int senders, receivers;     /* tasks in each wait queue */
    pr_plist_t queued;          /* the messages */
    pr_link_t free_places;
    pr_lender_t lender;         /* PR_MSGQ_INHERIT: its server, and what it is lent */
    pr_prio_t served;           /* PR_MSGQ_INHERIT: the priority of the server's last message, or PRIO_NONE */
    char name[PR_CONFIG_NAME_LEN];
    pr_waitq_t senders_q;       /* waiting for room */
    pr_waitq_t receivers_q;     /* waiting for a message */
} pr_msgq_t;

static pr_msgq_t pool[PR_CONFIG_MAX_MSGQS];
static pr_link_t free_list; /* freed descriptors go to the tail: reused last */

static int msgq_lookup(pr_id_t id, pr_msgq_t **out)
{
    if (id < 0 || id >= PR_CONFIG_MAX_MSGQS)
        return PR_EBADID;
    if (!pool[id].allocated)
        return PR_ENOTALLOC;
    *out = &pool[id];
    return PR_OK;
}

#define msgq_trace_id(id) trace_id_of((id), PR_CONFIG_MAX_MSGQS)

static int inherits(const pr_msgq_t *q) { return (q->flags & PR_MSGQ_INHERIT) != 0; }

/* ---- inheritance ---- */

/* What the server is lent now: the senders' wait queue's lend (waitq.h). */
static pr_prio_t msgq_lend(const pr_waitq_t *wq)
{
    const pr_msgq_t *q = container_of(wq, pr_msgq_t, senders_q);
    pr_task_t *first = waitq_first(wq);
    pr_prio_t sender = first != NULL ? first->effective : PRIO_NONE;
    return sender > q->served ? sender : q->served;
}

/* `server` received a message of priority `prio` from q (NULL: an
 * interrupt did, and the queue has no server any more; PRIO_NONE: it
 * holds none any more). `cause`: why its priority changes, if it does. */
static void serve(pr_msgq_t *q, pr_task_t *server, pr_prio_t prio, int cause)
{
    if (q->lender.holder != server) {
        /* the old server keeps nothing: for it, a release (or its end) */
        prio_withdraw(&q->senders_q, cause == PR_CAUSE_MESSAGE ? PR_CAUSE_RELEASE : cause);
        q->lender.holder = server;
    }
    q->served = server != NULL ? prio : PRIO_NONE;
    prio_relend(&q->senders_q, cause);
}

/* ---- the messages ---- */

static void put_message(pr_msgq_t *q, const void *msg, int prio)
{
    PR_ASSERT(q->messages < q->length && !list_empty(&q->free_places));
    msg_place_t *p = container_of(q->free_places.next, msg_place_t, link);
    list_remove(&p->link);
    memcpy(p->data, msg, q->msg_size);
    p->prio = prio;
    plist_push_back(&q->queued, (q->flags & PR_MSGQ_FIFO_MESSAGES) ? 0 : prio, &p->link);
    if (++q->messages > q->most_messages)
        q->most_messages = q->messages;
    q->sends++;
}

static int take_message(pr_msgq_t *q, void *msg)
{
    PR_ASSERT(q->messages > 0);
    int level = plist_top_level(&q->queued);
    msg_place_t *p = container_of(q->queued.level[level].next, msg_place_t, link);
    plist_remove(&q->queued, level, &p->link);
    memcpy(msg, p->data, q->msg_size);
    list_push_back(&q->free_places, &p->link);
    q->messages--;
    q->receives++;
    return p->prio;
}

/* ---- the wait queues ---- */

/* t leaves the wait queue wq of q with `result` (the caller makes it ready). */
static void leave(pr_msgq_t *q, pr_waitq_t *wq, pr_task_t *t, int result)
{
    waitq_remove(wq, t);
    wait_finish(t, result);
    if (wq == &q->senders_q)
        q->senders--;
    else
        q->receivers--;
    trace_emit(PR_EV_MSGQ_WAKE, trace_id(t), (uint8_t)q->index, result, 0, 0, 0);
}

/* Its timeout fired, or it is deleted (waitq.h: abandon). A sender that
 * leaves lends nothing more. */
static void senders_abandon(pr_waitq_t *wq, pr_task_t *t, int result, int cause)
{
    pr_msgq_t *q = container_of(wq, pr_msgq_t, senders_q);
    leave(q, wq, t, result);
    if (inherits(q))
        prio_relend(wq, cause);
}

static void receivers_abandon(pr_waitq_t *wq, pr_task_t *t, int result, int cause)
{
    (void)cause;
    leave(container_of(wq, pr_msgq_t, receivers_q), wq, t, result);
}

static const pr_waitq_ops_t senders_ops = {.abandon = senders_abandon};
static const pr_waitq_ops_t receivers_ops = {.abandon = receivers_abandon};

void msgqs_reset(void)
{
    list_init(&free_list);
    for (int i = 0; i < PR_CONFIG_MAX_MSGQS; i++) {
        pr_msgq_t *q = &pool[i];
        memset(q, 0, sizeof *q);
        q->index = i;
        q->served = PRIO_NONE;
        q->lender.lent = PRIO_NONE;
        waitq_init(&q->senders_q, &senders_ops, 0, (uint8_t)i);
        waitq_init(&q->receivers_q, &receivers_ops, 0, (uint8_t)i);
        list_push_back(&free_list, &q->pool_link);
    }
}

/* A task leaves the kernel's sight: it serves no queue any more. O(queues). */
void msgq_task_gone(pr_task_t *t)
{
    for (int i = 0; i < PR_CONFIG_MAX_MSGQS; i++)
        if (pool[i].allocated && pool[i].lender.holder == t)
            serve(&pool[i], NULL, PRIO_NONE, PR_CAUSE_DELETE);
}

/* ---- the calls ---- */

static int check_attr(const pr_msgq_attr_t *a)
{
    if (a->msg_size < 1 || a->msg_size > PR_CONFIG_MSG_MAX_SIZE || a->length < 1 || (a->flags & ~KNOWN_FLAGS) != 0)
        return PR_EINVAL;
    /* Inheritance lends the most urgent sender's priority: the senders must wait by priority. */
    if ((a->flags & PR_MSGQ_INHERIT) && (a->flags & PR_MSGQ_FIFO_WAITERS))
        return PR_EINVAL;
    if (a->buffer == NULL || ((uintptr_t)a->buffer & (sizeof(void *) - 1)) != 0)
        return PR_EINVAL;
    if ((size_t)a->length > a->buffer_bytes / PR_MSGQ_PLACE_BYTES(a->msg_size))
        return PR_EINVAL;
    if (a->name != NULL && strlen(a->name) >= PR_CONFIG_NAME_LEN)
        return PR_EINVAL;
    return PR_OK;
}

static int msgq_alloc(const pr_msgq_attr_t *a, pr_id_t *id)
{
    if (a == NULL || id == NULL)
        return PR_EINVAL;
    int err = check_attr(a);
    if (err != PR_OK)
        return err;
    if (list_empty(&free_list))
        return PR_ENOSPC;
    pr_msgq_t *q = container_of(free_list.next, pr_msgq_t, pool_link);
    list_remove(&q->pool_link);
    q->allocated = 1;
    q->flags = a->flags;
    q->msg_size = a->msg_size;
    q->place_bytes = PR_MSGQ_PLACE_BYTES(a->msg_size);
    q->length = a->length;
    q->messages = q->most_messages = 0;
    q->sends = q->receives = q->send_waits = q->receive_waits = 0;
    q->senders = q->receivers = 0;
    q->served = PRIO_NONE;
    q->lender.holder = NULL;
    q->lender.lent = PRIO_NONE;
    name_copy(q->name, a->name);
    plist_init(&q->queued);
    list_init(&q->free_places);
    for (int i = 0; i < a->length; i++) {
        msg_place_t *p = (msg_place_t *)(void *)((unsigned char *)a->buffer + (size_t)i * q->place_bytes);
        list_push_back(&q->free_places, &p->link);
    }
    int fifo_waiters = (a->flags & PR_MSGQ_FIFO_WAITERS) != 0;
    waitq_init(&q->senders_q, &senders_ops, fifo_waiters, (uint8_t)q->index);
    waitq_init(&q->receivers_q, &receivers_ops, fifo_waiters, (uint8_t)q->index);
    if (inherits(q)) {
        q->senders_q.kind = PR_OBJ_MSGQ; /* what its lends name in trace records */
        q->senders_q.lender = &q->lender;
        q->senders_q.lend = msgq_lend;
    }
    *id = q->index;
    return PR_OK;
}

static int msgq_free(pr_id_t id)
{
    pr_msgq_t *q;
    int err = msgq_lookup(id, &q);
    if (err != PR_OK)
        return err;
    if (q->senders > 0 || q->receivers > 0)
        return PR_EBUSY;
    if (q->lender.holder != NULL)
        serve(q, NULL, PRIO_NONE, PR_CAUSE_RELEASE);
    q->allocated = 0;
    list_push_back(&free_list, &q->pool_link);
    return PR_OK;
}

/* The caller waits in wq (state `state`) until woken or timed out. */
static int wait_in(pr_waitq_t *wq, pr_task_state_t state, pr_timeout_t timeout)
{
    pr_task_t *me = pr_k.current;
    sched_make_unready(me, state);
    waitq_insert(wq, me);
    if (timeout != PR_FOREVER)
        timer_arm(&me->timeout, tick_now() + timeout);
    if (wq->lender != NULL)
        prio_relend(wq, PR_CAUSE_INHERIT);
    sched_reschedule(); /* returns once woken or timed out */
    return me->wait_result;
}

static int msgq_send(pr_id_t id, const void *msg, int prio, pr_timeout_t timeout)
{
    pr_msgq_t *q = NULL;
    int err = msgq_lookup(id, &q);
    if (err == PR_OK && (msg == NULL || prio < PR_MSG_PRIO_SENDER || prio > PR_PRIO_MAX))
        err = PR_EINVAL;
    if (prio == PR_MSG_PRIO_SENDER)
        prio = in_task_context() ? pr_k.current->effective : 0;
    int waited = 0, woken = 0;
    pr_task_t *receiver = err == PR_OK ? waitq_first(&q->receivers_q) : NULL;
    if (receiver != NULL) { /* the queue is empty: the message goes straight to it */
        memcpy(receiver->wait_for.msg.to, msg, q->msg_size);
        receiver->wait_for.msg.prio = prio;
        q->sends++;
        q->receives++;
        leave(q, &q->receivers_q, receiver, PR_OK);
        sched_make_ready(receiver);
        if (inherits(q))
            serve(q, receiver, prio, PR_CAUSE_MESSAGE);
        woken = 1;
    } else if (err == PR_OK && q->messages < q->length) {
        put_message(q, msg, prio);
    } else if (err == PR_OK && timeout == PR_NO_WAIT) {
        err = PR_EAGAIN;
    } else if (err == PR_OK && !in_task_context()) {
        err = PR_ECONTEXT;
    } else if (err == PR_OK && inherits(q) && prio_closes_cycle(&q->senders_q, pr_k.current)) {
        err = PR_EDEADLK;
    } else if (err == PR_OK) {
        pr_task_t *me = pr_k.current;
        me->wait_for.msg.from = msg;
        me->wait_for.msg.prio = prio;
        q->senders++;
        q->send_waits++;
        trace_emit(PR_EV_MSGQ_WAIT, trace_id(me), (uint8_t)q->index, PR_OK, 1, 0, (int32_t)timeout);
        err = wait_in(&q->senders_q, PR_TASK_WAIT_SEND, timeout);
        waited = 1;
    }
    trace_emit(PR_EV_MSGQ_SEND, caller_trace_id(), msgq_trace_id(id), err, (uint8_t)(prio < 0 ? 0 : prio),
               (uint8_t)waited, q != NULL ? q->messages : 0);
    if (woken)
        sched_reschedule(); /* in an interrupt, deferred to its end */
    return err;
}

static int msgq_receive(pr_id_t id, void *msg, int *prio_out, pr_timeout_t timeout)
{
    pr_msgq_t *q = NULL;
    int err = msgq_lookup(id, &q);
    if (err == PR_OK && msg == NULL)
        err = PR_EINVAL;
    pr_task_t *me = in_task_context() ? pr_k.current : NULL;
    int prio = 0, waited = 0, woken = 0;
    if (err == PR_OK && q->messages > 0) {
        prio = take_message(q, msg);
        pr_task_t *sender = waitq_first(&q->senders_q);
        if (sender != NULL) { /* the freed place takes its message at once */
            put_message(q, sender->wait_for.msg.from, sender->wait_for.msg.prio);
            leave(q, &q->senders_q, sender, PR_OK);
            sched_make_ready(sender);
            woken = 1;
        }
        if (inherits(q))
            serve(q, me, prio, PR_CAUSE_MESSAGE);
    } else if (err == PR_OK && timeout == PR_NO_WAIT) {
        err = PR_EAGAIN;
    } else if (err == PR_OK && me == NULL) {
        err = PR_ECONTEXT;
    } else if (err == PR_OK) {
        if (inherits(q) && q->lender.holder == me)
            serve(q, me, PRIO_NONE, PR_CAUSE_RELEASE); /* it waits on the queue: its last message's lend ends */
        me->wait_for.msg.to = msg;
        q->receivers++;
        q->receive_waits++;
        trace_emit(PR_EV_MSGQ_WAIT, trace_id(me), (uint8_t)q->index, PR_OK, 0, 0, (int32_t)timeout);
        err = wait_in(&q->receivers_q, PR_TASK_WAIT_RECEIVE, timeout);
        prio = me->wait_for.msg.prio;
        waited = 1;
    }
    if (err == PR_OK && prio_out != NULL)
        *prio_out = prio;
    trace_emit(PR_EV_MSGQ_RECEIVE, caller_trace_id(), msgq_trace_id(id), err, (uint8_t)(err == PR_OK ? prio : 0),
               (uint8_t)waited, q != NULL ? q->messages : 0);
    if (woken)
        sched_reschedule();
    return err;
}

static int msgq_status(pr_id_t id, pr_msgq_status_t *st)
{
    pr_msgq_t *q;
    int err = msgq_lookup(id, &q);
    if (err != PR_OK)
        return err;
    if (st == NULL)
        return PR_EINVAL;
    st->index = q->index;
    memcpy(st->name, q->name, PR_CONFIG_NAME_LEN);
    st->msg_size = q->msg_size;
    st->length = q->length;
    st->flags = q->flags;
    st->messages = q->messages;
    st->most_messages = q->most_messages;
    st->sends = q->sends;
    st->receives = q->receives;
    st->send_waits = q->send_waits;
    st->receive_waits = q->receive_waits;
    st->senders_waiting = q->senders;
    st->receivers_waiting = q->receivers;
    st->server = q->lender.holder != NULL ? q->lender.holder->id : PR_NO_TASK;
    return PR_OK;
}

void msgq_lenders(void (*fn)(const pr_lender_t *l, void *arg), void *arg)
{
    for (int i = 0; i < PR_CONFIG_MAX_MSGQS; i++)
        if (pool[i].allocated && inherits(&pool[i]))
            fn(&pool[i].lender, arg);
}

#if PR_CONFIG_ASSERT
/* Every queue's invariants (pr_kernel_check). */
void msgq_check(void)
{
    for (int i = 0; i < PR_CONFIG_MAX_MSGQS; i++) {
        const pr_msgq_t *q = &pool[i];
        if (!q->allocated) {
            PR_ASSERT(q->lender.holder == NULL && waitq_empty(&q->senders_q) && waitq_empty(&q->receivers_q));
            continue;
        }
        int queued = 0, free = 0;
        for (int level = 0; level < PR_CONFIG_PRIORITIES; level++)
            for (const pr_link_t *l = q->queued.level[level].next; l != &q->queued.level[level]; l = l->next)
                queued++;
        for (const pr_link_t *l = q->free_places.next; l != &q->free_places; l = l->next)
            free++;
        PR_ASSERT(queued == q->messages && queued + free == q->length && q->most_messages >= q->messages);
        PR_ASSERT(waitq_check(&q->senders_q) == q->senders && waitq_check(&q->receivers_q) == q->receivers);
        PR_ASSERT(q->senders == 0 || q->messages == q->length); /* senders wait only for a full queue */
        PR_ASSERT(q->receivers == 0 || q->messages == 0);       /* receivers only for an empty one */
        PR_ASSERT(inherits(q) || (q->lender.holder == NULL && q->served == PRIO_NONE));
        PR_ASSERT(q->lender.holder != NULL || q->served == PRIO_NONE);
        if (q->lender.holder != NULL)
            PR_ASSERT(q->lender.lent == msgq_lend(&q->senders_q));
    }
}
#endif

/* ---- the calls: each does its work with interrupts masked (kernel_impl.h) ---- */

void pr_msgq_attr_init(pr_msgq_attr_t *attr)
{
    if (attr != NULL)
        memset(attr, 0, sizeof *attr);
}

int pr_msgq_alloc(const pr_msgq_attr_t *attr, pr_id_t *id) { MASKED_CALL(msgq_alloc(attr, id)); }
int pr_msgq_free(pr_id_t id) { MASKED_CALL(msgq_free(id)); }
int pr_msgq_send(pr_id_t id, const void *msg, int priority, pr_timeout_t timeout)
{
    MASKED_CALL(msgq_send(id, msg, priority, timeout));
}
int pr_msgq_receive(pr_id_t id, void *msg, int *priority, pr_timeout_t timeout)
{
    MASKED_CALL(msgq_receive(id, msg, priority, timeout));
}
int pr_msgq_status(pr_id_t id, pr_msgq_status_t *status) { MASKED_CALL(msgq_status(id, status)); }
