/*
 * Message queues (msgq.h): a pool of descriptors, each over a buffer its
 * allocator gave, cut into `length` places of one message each.
 *
 * A queue in priority order keeps its messages in a priority list
 * (plist.h: one FIFO list per level and a bitmap), at the level of their
 * priority, and its free places in a list. A queue in FIFO order
 * (PR_MSGQ_FIFO_MESSAGES) needs no lists: its places are a ring, and its
 * messages are the `messages` places from `head` on. Sending and receiving
 * are O(1) plus the copy of one message, whatever the number of messages
 * and of waiters.
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
#include "msgq_pool.h"
#include "priority.h"

#define KNOWN_FLAGS (PR_MSGQ_FIFO_MESSAGES | PR_MSGQ_FIFO_WAITERS | PR_MSGQ_INHERIT)

pr_msgq_t pr_msgq_pool[PR_CONFIG_MAX_MSGQS];
static pr_link_t free_list; /* freed descriptors go to the tail: reused last */

#define msgq_trace_id(id) trace_id_of((id), PR_CONFIG_MAX_MSGQS)

/* ---- inheritance ---- */

/* What the server is lent now (msgq_pool.h). */
pr_prio_t msgq_lend(const pr_waitq_t *wq)
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

/* The copy of a message whose size is a multiple of 4 bytes (q->words
 * words) between buffers aligned for 4 (a queue of integers or handles, the
 * common case): a word at a time, inline, where a call of memcpy would take
 * some twenty instructions for one word. */
static inline int copies_by_words(const pr_msgq_t *q, const void *buffer)
{
    return q->words != 0 && ((uintptr_t)buffer & (sizeof(uint32_t) - 1)) == 0;
}

/* The descriptor of an id in the pool, kept in a register: GCC would
 * otherwise compute &pr_msgq_pool[id] (a multiply) again at each use in the fast
 * paths, whose every instruction counts. The size is in a register too, so
 * that the multiply is one instruction: GCC builds it of shifts and adds
 * where the size allows (three instructions for RV64's). */
static inline pr_msgq_t *descriptor(pr_id_t id)
{
    size_t size = sizeof(pr_msgq_t);
    __asm__("" : "+r"(size));
    pr_msgq_t *q = (pr_msgq_t *)(void *)((char *)pr_msgq_pool + (size_t)id * size);
    __asm__("" : "+r"(q));
    return q;
}

static inline void copy_words(void *to, const void *from, size_t words)
{
    uint32_t *d = __builtin_assume_aligned(to, sizeof(uint32_t));
    const uint32_t *s = __builtin_assume_aligned(from, sizeof(uint32_t));
    /* one load and one store each, with no aliasing question; words >= 1,
     * and the first word outside the loop (most messages are one word) */
    __builtin_memcpy(&d[0], &s[0], sizeof(uint32_t));
    for (size_t i = 1; i < words; i++)
        __builtin_memcpy(&d[i], &s[i], sizeof(uint32_t));
}

/* Any message (a place's data is aligned for a pointer). */
static inline void copy_message(const pr_msgq_t *q, void *to, const void *from)
{
    if (copies_by_words(q, to) && copies_by_words(q, from))
        copy_words(to, from, q->words);
    else
        memcpy(to, from, q->msg_size);
}

/* A free place joins the messages at `prio`; returns its data, for the
 * caller to copy the message in. */
static inline msg_place_t *place_at(const pr_msgq_t *q, int i)
{
    return (msg_place_t *)(void *)(q->places + (size_t)i * q->place_bytes);
}

static inline void *new_message(pr_msgq_t *q, int prio)
{
    PR_ASSERT(q->messages < q->length);
    msg_place_t *p;
    if (q->fifo) { /* the place after the last message, round the ring */
        int i = q->head + q->messages;
        p = place_at(q, i < q->length ? i : i - q->length);
    } else {
        PR_ASSERT(!list_empty(&q->free_places));
        p = container_of(q->free_places.next, msg_place_t, link);
        list_unlink(&p->link); /* it joins the messages at once */
        plist_push_back(&q->queued, prio, &p->link);
    }
    p->prio = prio;
    if (++q->messages > q->most_messages)
        q->most_messages = q->messages;
    return p->data; /* a send more: msgq_sends */
}

/* The first message leaves the queue, its place joins the free ones: the
 * caller copies its data out (interrupts stay masked till then). */
static inline msg_place_t *first_message(pr_msgq_t *q)
{
    PR_ASSERT(q->messages > 0);
    msg_place_t *p;
    if (q->fifo) {
        p = place_at(q, q->head);
        q->head = q->head + 1 < q->length ? q->head + 1 : 0;
    } else {
        int level = plist_top_level(&q->queued);
        p = container_of(q->queued.level[level].next, msg_place_t, link);
        plist_remove(&q->queued, level, &p->link);
        list_push_back(&q->free_places, &p->link);
    }
    q->messages--;
    q->receives++;
    return p;
}

static void put_message(pr_msgq_t *q, const void *msg, int prio) { copy_message(q, new_message(q, prio), msg); }

static int take_message(pr_msgq_t *q, void *msg)
{
    msg_place_t *p = first_message(q);
    copy_message(q, msg, p->data);
    return p->prio;
}

/* ---- the wait queues ---- */

/* t leaves the wait queue wq of q with `result` (the caller makes it ready).
 * The last of its waiters (the usual case: one server waits on its queue)
 * leaves an empty list without an unlink. wait_finish, with no store for
 * PR_OK: each wait begins with it (wait_begin). */
static inline __attribute__((always_inline)) void leave(pr_msgq_t *q, pr_waitq_t *wq, pr_task_t *t, int result)
{
    PR_ASSERT(t->wait_result == PR_OK);
    if (result != PR_OK)
        t->wait_result = result;
    timer_cancel(&t->timeout);
    int *waiting = wq == &q->senders_q ? &q->senders : &q->receivers;
    if (likely(--*waiting == 0))
        waitq_remove_only(wq, t);
    else
        waitq_remove(wq, t);
    trace_emit(PR_EV_MSGQ_WAKE, trace_who(t), (uint8_t)q->index, result, 0, 0, 0);
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
        pr_msgq_t *q = &pr_msgq_pool[i];
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
        if (pr_msgq_pool[i].allocated && pr_msgq_pool[i].lender.holder == t)
            serve(&pr_msgq_pool[i], NULL, PRIO_NONE, PR_CAUSE_DELETE);
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
    q->words = a->msg_size % sizeof(uint32_t) == 0 ? a->msg_size / sizeof(uint32_t) : 0;
    q->fast_words = (a->flags & PR_MSGQ_INHERIT) ? 0 : q->words;
    q->fifo = (a->flags & PR_MSGQ_FIFO_MESSAGES) != 0;
    q->head = 0;
    q->places = a->buffer;
    q->length = a->length;
    q->messages = q->most_messages = 0;
    q->receives = q->send_waits = q->receive_waits = 0;
    q->senders = q->receivers = 0;
    q->served = PRIO_NONE;
    q->lender.holder = NULL;
    q->lender.lent = PRIO_NONE;
    name_copy(q->name, a->name);
    plist_init(&q->queued);
    list_init(&q->free_places);
    for (int i = 0; !q->fifo && i < a->length; i++)
        list_push_back(&q->free_places, &place_at(q, i)->link);
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
    q->allocated = 0;
    q->fast_words = 0;
    list_push_back(&free_list, &q->pool_link);
    if (q->lender.holder != NULL) { /* its server keeps nothing, and may no longer be the most urgent */
        serve(q, NULL, PRIO_NONE, PR_CAUSE_RELEASE);
        sched_reschedule();
    }
    return PR_OK;
}

/* The caller (me) starts waiting in wq (state `state`), with PR_OK for its
 * result until something else ends the wait (leave); the switch is the
 * caller's (wait_in). */
static inline __attribute__((always_inline)) void wait_begin(pr_waitq_t *wq, pr_task_t *me, pr_task_state_t state,
                                                             pr_timeout_t timeout)
{
    me->wait_result = PR_OK;
    sched_make_unready(me, state);
    waitq_insert(wq, me);
    if (timeout != PR_FOREVER)
        timer_arm(&me->timeout, tick_now() + timeout);
    if (wq->lender != NULL)
        prio_relend(wq, PR_CAUSE_INHERIT);
}

/* The caller waits in wq (state `state`) until woken or timed out. */
static inline __attribute__((always_inline)) int wait_in(pr_waitq_t *wq, pr_task_state_t state, pr_timeout_t timeout)
{
    pr_task_t *me = pr_k.current;
    wait_begin(wq, me, state, timeout);
    sched_reschedule(); /* returns once woken or timed out */
    return me->wait_result;
}

/* A send finds `receiver` waiting (so the queue is empty): the message goes
 * straight to it, and it is made ready. */
static inline __attribute__((always_inline)) void hand_over(pr_msgq_t *q, pr_task_t *receiver, const void *msg, int prio)
{
    copy_message(q, receiver->wait_for.msg.to, msg);
    receiver->wait_for.msg.prio = prio;
    q->receives++; /* and a send (msgq_sends) */
    leave(q, &q->receivers_q, receiver, PR_OK);
    sched_make_ready(receiver);
    if (inherits(q))
        serve(q, receiver, prio, PR_CAUSE_MESSAGE);
}

/* The caller (a task, `me`) finds q empty and waits for a message into msg;
 * *prio gets its priority once it comes. */
static inline __attribute__((always_inline)) void receive_begin(pr_msgq_t *q, pr_task_t *me, void *msg, pr_timeout_t timeout)
{
    if (inherits(q) && q->lender.holder == me)
        serve(q, me, PRIO_NONE, PR_CAUSE_RELEASE); /* it waits on the queue: its last message's lend ends */
    me->wait_for.msg.to = msg;
    q->receivers++;
    q->receive_waits++;
    trace_emit(PR_EV_MSGQ_WAIT, trace_who(me), (uint8_t)q->index, PR_OK, 0, 0, (int32_t)timeout);
    wait_begin(&q->receivers_q, me, PR_TASK_WAIT_RECEIVE, timeout);
}

static inline __attribute__((always_inline)) int wait_for_message(pr_msgq_t *q, pr_task_t *me, void *msg, pr_timeout_t timeout, int *prio)
{
    receive_begin(q, me, msg, timeout);
    sched_reschedule(); /* returns once woken or timed out */
    *prio = me->wait_for.msg.prio;
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
    if (receiver != NULL) {
        hand_over(q, receiver, msg, prio);
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
        trace_emit(PR_EV_MSGQ_WAIT, trace_who(me), (uint8_t)q->index, PR_OK, 1, 0, (int32_t)timeout);
        err = wait_in(&q->senders_q, PR_TASK_WAIT_SEND, timeout);
        waited = 1;
    }
    trace_emit(PR_EV_MSGQ_SEND, pr_self, msgq_trace_id(id), err, (uint8_t)(prio < 0 ? 0 : prio),
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
        if (inherits(q)) {
            serve(q, me, prio, PR_CAUSE_MESSAGE);
            woken = 1; /* a less urgent message than its last lowers the server: others may run first */
        }
    } else if (err == PR_OK && timeout == PR_NO_WAIT) {
        err = PR_EAGAIN;
    } else if (err == PR_OK && me == NULL) {
        err = PR_ECONTEXT;
    } else if (err == PR_OK) {
        err = wait_for_message(q, me, msg, timeout, &prio);
        waited = 1;
    }
    if (err == PR_OK && prio_out != NULL)
        *prio_out = prio;
    trace_emit(PR_EV_MSGQ_RECEIVE, pr_self, msgq_trace_id(id), err, (uint8_t)(err == PR_OK ? prio : 0),
               (uint8_t)waited, q != NULL ? q->messages : 0);
    if (woken)
        sched_reschedule(); /* in an interrupt, deferred to its end */
    return err;
}

/* ---- the calls: each does its work with interrupts masked (kernel_impl.h) ---- */

void pr_msgq_attr_init(pr_msgq_attr_t *attr)
{
    if (attr != NULL)
        memset(attr, 0, sizeof *attr);
}

int pr_msgq_alloc(const pr_msgq_attr_t *attr, pr_id_t *id) { MASKED_CALL(msgq_alloc(attr, id)); }
int pr_msgq_free(pr_id_t id) { MASKED_CALL(msgq_free(id)); }

/*
 * Send and receive. In front of the general paths, with PR_CONFIG_FAST_PATHS,
 * the fast paths serve what tasks and interrupts do most, each the general
 * path with its case known in advance, built from the same pieces, and
 * falling to the general path for anything else (a bad id included):
 *
 *  - send_fast: a send of an explicit priority into a queue with room and
 *    no receiver waiting; receive_fast: a receive that finds a message and
 *    no sender waiting, from a queue that does not inherit (so nothing is
 *    lent). Neither switches.
 *  - send_wake: a send that finds a receiver waiting, from a task or an
 *    interrupt (hand_over, then the scheduler's test).
 *  - receive_wait: a task's receive that finds the queue empty and waits
 *    (wait_for_message).
 *
 * The general paths restore the caller's interrupt state themselves, so
 * that the public call reaches them by a tail call and a fast path needs
 * no stack frame, as the semaphores' (sem.c).
 */
static __attribute__((noinline)) int send_general(pr_id_t id, const void *msg, int prio, pr_timeout_t timeout,
                                                  pr_irq_state_t irq)
{
    int err = msgq_send(id, msg, prio, timeout);
    pr_port_irq_restore(irq);
    return err;
}

static __attribute__((noinline)) int receive_general(pr_id_t id, void *msg, int *prio, pr_timeout_t timeout,
                                                     pr_irq_state_t irq)
{
    int err = msgq_receive(id, msg, prio, timeout);
    pr_port_irq_restore(irq);
    return err;
}

#if PR_CONFIG_FAST_PATHS

/* hand_over for a queue of whole words that does not inherit (no serve),
 * between aligned buffers (no memcpy): so it calls nothing but by its last,
 * tail call, and needs no stack frame. Any other send to a waiting receiver
 * takes the general path (which does not wait either). The arguments are
 * the call's, in the same registers as the general path's. */
static __attribute__((noinline)) int send_wake(pr_msgq_t *q, const void *msg, int prio, pr_timeout_t timeout,
                                               pr_irq_state_t irq)
{
    pr_task_t *receiver = waitq_first_waiter(&q->receivers_q);
    void *to = receiver->wait_for.msg.to;
    if (unlikely(q->fast_words == 0 || (((uintptr_t)to | (uintptr_t)msg) & (sizeof(uint32_t) - 1)) != 0))
        return send_general(q->index, msg, prio, timeout, irq);
    copy_words(to, msg, q->fast_words);
    receiver->wait_for.msg.prio = prio;
    q->receives++; /* and a send (msgq_sends) */
    leave(q, &q->receivers_q, receiver, PR_OK);
    ready_add(receiver);
    trace_emit(PR_EV_MSGQ_SEND, pr_self, (uint8_t)q->index, PR_OK, (uint8_t)prio, 0, q->messages);
    return sched_reschedule_return(irq); /* in an interrupt, deferred to its end */
}

/* wait_for_message up to the switch, apart: receive_wait then keeps only
 * what it needs after the switch in saved registers, and the woken task's
 * way back through it (which an interrupt's send that wakes it pays)
 * restores those few, not the ten the whole wait would keep. */
static __attribute__((noinline)) void receive_block(pr_msgq_t *q, void *msg, pr_timeout_t timeout)
{
    receive_begin(q, pr_k.current, msg, timeout);
}

static __attribute__((noinline)) int receive_wait(pr_msgq_t *q, void *msg, int *prio_out, pr_timeout_t timeout,
                                                  pr_irq_state_t irq)
{
    receive_block(q, msg, timeout);
    sched_reschedule(); /* returns once woken or timed out */
    pr_task_t *me = pr_k.current; /* the caller again */
    int prio = me->wait_for.msg.prio;
    int err = me->wait_result;
    if (err == PR_OK && prio_out != NULL)
        *prio_out = prio;
    trace_emit(PR_EV_MSGQ_RECEIVE, pr_self, (uint8_t)q->index, err, (uint8_t)(err == PR_OK ? prio : 0), 1,
               q->messages);
    pr_port_irq_restore(irq);
    return err;
}

int pr_msgq_send(pr_id_t id, const void *msg, int priority, pr_timeout_t timeout)
{
    pr_irq_state_t irq = pr_port_irq_save();
    if (likely((unsigned)id < PR_CONFIG_MAX_MSGQS)) {
        pr_msgq_t *q = descriptor(id);
        /* an explicit priority (PR_MSG_PRIO_SENDER is the general path's) */
        if (likely(msg != NULL && (unsigned)priority <= PR_PRIO_MAX)) {
            size_t words = q->fast_words;
            if (likely(words != 0 && ((uintptr_t)msg & (sizeof(uint32_t) - 1)) == 0 && q->receivers == 0 &&
                       q->messages < q->length)) {
                copy_words(new_message(q, priority), msg, words);
                trace_emit(PR_EV_MSGQ_SEND, pr_self, (uint8_t)id, PR_OK, (uint8_t)priority, 0, q->messages);
                pr_port_irq_restore(irq);
                return PR_OK;
            }
            if (q->receivers > 0) /* so allocated: msgq_free refuses a queue with waiters */
                return send_wake(q, msg, priority, timeout, irq);
        }
    }
    return send_general(id, msg, priority, timeout, irq);
}

int pr_msgq_receive(pr_id_t id, void *msg, int *priority, pr_timeout_t timeout)
{
    pr_irq_state_t irq = pr_port_irq_save();
    if (likely((unsigned)id < PR_CONFIG_MAX_MSGQS)) {
        pr_msgq_t *q = descriptor(id);
        if (likely(msg != NULL)) {
            size_t words = q->fast_words;
            if (likely(words != 0 && ((uintptr_t)msg & (sizeof(uint32_t) - 1)) == 0 && q->messages > 0 &&
                       q->senders == 0)) {
                msg_place_t *p = first_message(q);
                copy_words(msg, p->data, words);
                int prio = p->prio;
                if (priority != NULL)
                    *priority = prio;
                trace_emit(PR_EV_MSGQ_RECEIVE, pr_self, (uint8_t)id, PR_OK, (uint8_t)prio, 0, q->messages);
                pr_port_irq_restore(irq);
                return PR_OK;
            }
            if (q->allocated && q->messages == 0 && timeout != PR_NO_WAIT && in_task_context())
                return receive_wait(q, msg, priority, timeout, irq);
        }
    }
    return receive_general(id, msg, priority, timeout, irq);
}

#else /* every call takes the general path */

int pr_msgq_send(pr_id_t id, const void *msg, int priority, pr_timeout_t timeout)
{
    return send_general(id, msg, priority, timeout, pr_port_irq_save());
}

int pr_msgq_receive(pr_id_t id, void *msg, int *priority, pr_timeout_t timeout)
{
    return receive_general(id, msg, priority, timeout, pr_port_irq_save());
}

#endif

