/*
 * Message queues: messages leave most urgent first (FIFO among equals) or
 * in FIFO order; a sender waits for room and a receiver for a message;
 * a send hands its message straight to a waiting receiver and a receive
 * takes a waiting sender's message in; interrupts send and receive without
 * waiting; every error with nothing changed.
 */
#include "harness.h"

#define EV_MSGQ (EV(PR_EV_MSGQ_SEND) | EV(PR_EV_MSGQ_RECEIVE) | EV(PR_EV_MSGQ_WAIT) | EV(PR_EV_MSGQ_WAKE))

enum { Q = 0 };
enum { LENGTH = 2 };

typedef struct message {
    char tag;
    int value;
} message_t;

static void *buffer[PR_MSGQ_BUFFER_BYTES(sizeof(message_t), 4) / sizeof(void *)];

static pr_id_t queue(const char *name, int length, unsigned flags)
{
    pr_msgq_attr_t attr;
    pr_msgq_attr_init(&attr);
    attr.name = name;
    attr.msg_size = sizeof(message_t);
    attr.length = length;
    attr.flags = flags;
    attr.buffer = buffer;
    attr.buffer_bytes = sizeof buffer;
    pr_id_t id = PR_NO_MSGQ;
    CHECK_EQ(pr_msgq_alloc(&attr, &id), PR_OK);
    return id;
}

static pr_msgq_status_t msgq_status_of(pr_id_t id)
{
    pr_msgq_status_t st;
    memset(&st, 0, sizeof st);
    CHECK_EQ(pr_msgq_status(id, &st), PR_OK);
    return st;
}

/* What the receivers got, in order. */
static char got[8];
static int got_prio[8], ngot;

static void note(const message_t *m, int prio)
{
    got[ngot] = m->tag;
    got_prio[ngot++] = prio;
}

/* ---- priority order, a sender waiting for room ---- */

static int send_rc[4];

static void producer_body(void *arg)
{
    (void)arg;
    message_t a = {'a', 1}, b = {'b', 2}, c = {'c', 3};
    send_rc[0] = pr_msgq_send(Q, &a, 1, PR_FOREVER);
    send_rc[1] = pr_msgq_send(Q, &b, 5, PR_FOREVER);
    send_rc[2] = pr_msgq_send(Q, &c, 3, PR_FOREVER); /* full: waits */
}

static int last_rc;

static void consumer_body(void *arg)
{
    (void)arg;
    message_t m;
    int prio = -1;
    while ((last_rc = pr_msgq_receive(Q, &m, &prio, 2)) == PR_OK)
        note(&m, prio);
}

/*
 * Q holds 2 messages, most urgent first. P (2) sends a (priority 1) and b
 * (5) at 0, then c (3), and waits for room. C (1) then receives b, the most
 * urgent: the place it frees takes c at once and P, more urgent, runs and
 * returns. C then receives c (3) before a (1), and times out at 2.
 */
static void messages_leave_most_urgent_first(void)
{
    harness_reset(0);
    ngot = 0;
    CHECK_EQ(queue("Q", LENGTH, 0), Q);
    pr_id_t p = task_at("P", 2, 0, producer_body, NULL);
    task_at("C", 1, 0, consumer_body, NULL);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_MSGQ | EV(PR_EV_SWITCH),
                 "0 SWITCH P<-idle",
                 "0 SEND P Q ok prio=1 messages=1",
                 "0 SEND P Q ok prio=5 messages=2",
                 "0 MSGQ_WAIT P Q for-room",
                 "0 SWITCH C<-P",
                 "0 MSGQ_WAKE P Q ok",
                 "0 RECEIVE C Q ok prio=5 messages=2",
                 "0 SWITCH P<-C",
                 "0 SEND P Q ok prio=3 messages=2 waited",
                 "0 SWITCH C<-P",
                 "0 RECEIVE C Q ok prio=3 messages=1",
                 "0 RECEIVE C Q ok prio=1 messages=0",
                 "0 MSGQ_WAIT C Q for-message",
                 "0 SWITCH idle<-C",
                 "2 MSGQ_WAKE C Q PR_ETIMEDOUT",
                 "2 SWITCH C<-idle",
                 "2 RECEIVE C Q PR_ETIMEDOUT prio=0 messages=0 waited",
                 "2 SWITCH idle<-C");
    CHECK_EQ(ngot, 3);
    CHECK_EQ(got[0], 'b');
    CHECK_EQ(got[1], 'c');
    CHECK_EQ(got[2], 'a');
    CHECK_EQ(got_prio[0], 5);
    CHECK_EQ(got_prio[1], 3);
    CHECK_EQ(got_prio[2], 1);
    CHECK_EQ(send_rc[2], PR_OK);
    CHECK_EQ(last_rc, PR_ETIMEDOUT);
    CHECK_EQ(status_of(p).state, PR_TASK_DONE);
    pr_msgq_status_t st = msgq_status_of(Q);
    CHECK_EQ(st.messages, 0);
    CHECK_EQ(st.most_messages, 2);
    CHECK_EQ(st.sends, 3);
    CHECK_EQ(st.receives, 3);
    CHECK_EQ(st.send_waits, 1);
    CHECK_EQ(st.receive_waits, 1);
    CHECK_EQ(st.senders_waiting, 0);
    CHECK_EQ(st.receivers_waiting, 0);
    CHECK_EQ(st.server, PR_NO_TASK);
}

/* ---- FIFO order, hand-off, interrupts ---- */

static int isr_rc[4];

/* L computes; 2 ticks in, a device's interrupt comes: four sends, none of
 * which may wait. R, woken, runs at the handler's end. */
static void interrupted_body(void *arg)
{
    (void)arg;
    pr_host_consume(TICKS(2));
    pr_isr_enter();
    message_t d = {'d', 4}, e = {'e', 5};
    isr_rc[0] = pr_msgq_send(Q, &d, PR_MSG_PRIO_SENDER, PR_NO_WAIT); /* to the waiting receiver */
    isr_rc[1] = pr_msgq_send(Q, &e, 7, PR_NO_WAIT);                  /* into the queue */
    isr_rc[2] = pr_msgq_send(Q, &d, 7, PR_NO_WAIT);                  /* full: PR_EAGAIN */
    isr_rc[3] = pr_msgq_send(Q, &d, 7, 5);                           /* full, would wait: PR_ECONTEXT */
    pr_isr_exit();
    pr_host_consume(TICKS(2));
}

static void fifo_receiver_body(void *arg)
{
    (void)arg;
    message_t m;
    int prio;
    for (int i = 0; i < 2; i++)
        if (pr_msgq_receive(Q, &m, &prio, PR_FOREVER) == PR_OK)
            note(&m, prio);
}

/*
 * R (2) waits for a message from 0 on a FIFO queue of one; L (1) computes
 * from 0. The interrupt at 2 sends d: R gets it straight (the queue stays
 * empty), with priority 0 (no sending task); e goes into the queue; a third
 * send finds it full. R runs at the handler's end and takes e at once.
 */
static void an_interrupt_hands_a_message_to_a_waiting_receiver(void)
{
    harness_reset(0);
    ngot = 0;
    CHECK_EQ(queue("Q", 1, PR_MSGQ_FIFO_MESSAGES | PR_MSGQ_FIFO_WAITERS), Q);
    task_at("R", 2, 0, fifo_receiver_body, NULL);
    task_at("L", 1, 0, interrupted_body, NULL);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_MSGQ | EV(PR_EV_SWITCH),
                 "0 SWITCH R<-idle",
                 "0 MSGQ_WAIT R Q for-message",
                 "0 SWITCH L<-R",
                 "2 MSGQ_WAKE R Q ok",
                 "2 SEND - Q ok prio=0 messages=0",
                 "2 SEND - Q ok prio=7 messages=1",
                 "2 SEND - Q PR_EAGAIN prio=7 messages=1",
                 "2 SEND - Q PR_ECONTEXT prio=7 messages=1",
                 "2 SWITCH R<-L",
                 "2 RECEIVE R Q ok prio=0 messages=1 waited", /* e came in meanwhile */
                 "2 RECEIVE R Q ok prio=7 messages=0",
                 "2 SWITCH L<-R",
                 "4 SWITCH idle<-L");
    CHECK_EQ(isr_rc[0], PR_OK);
    CHECK_EQ(isr_rc[1], PR_OK);
    CHECK_EQ(isr_rc[2], PR_EAGAIN);
    CHECK_EQ(isr_rc[3], PR_ECONTEXT);
    CHECK_EQ(ngot, 2);
    CHECK_EQ(got[0], 'd');
    CHECK_EQ(got[1], 'e');
}

/* ---- errors change nothing ---- */

static void errors_change_nothing(void)
{
    harness_reset(0);
    pr_msgq_attr_t attr;
    pr_msgq_attr_init(&attr);
    attr.msg_size = sizeof(message_t);
    attr.length = 4;
    attr.buffer = buffer;
    attr.buffer_bytes = sizeof buffer;
    pr_id_t id = PR_NO_MSGQ;
    CHECK_EQ(pr_msgq_alloc(NULL, &id), PR_EINVAL);
    CHECK_EQ(pr_msgq_alloc(&attr, NULL), PR_EINVAL);
    pr_msgq_attr_t bad = attr;
    bad.msg_size = 0;
    CHECK_EQ(pr_msgq_alloc(&bad, &id), PR_EINVAL);
    bad = attr;
    bad.msg_size = PR_CONFIG_MSG_MAX_SIZE + 1;
    CHECK_EQ(pr_msgq_alloc(&bad, &id), PR_EINVAL);
    bad = attr;
    bad.length = 0;
    CHECK_EQ(pr_msgq_alloc(&bad, &id), PR_EINVAL);
    bad = attr;
    bad.length = 5; /* the buffer holds 4 */
    CHECK_EQ(pr_msgq_alloc(&bad, &id), PR_EINVAL);
    bad = attr;
    bad.buffer = NULL;
    CHECK_EQ(pr_msgq_alloc(&bad, &id), PR_EINVAL);
    bad = attr;
    bad.buffer = (char *)buffer + 1; /* misaligned */
    bad.buffer_bytes = sizeof buffer - 1;
    CHECK_EQ(pr_msgq_alloc(&bad, &id), PR_EINVAL);
    bad = attr;
    bad.flags = 8; /* unknown */
    CHECK_EQ(pr_msgq_alloc(&bad, &id), PR_EINVAL);
    bad = attr;
    bad.flags = PR_MSGQ_INHERIT | PR_MSGQ_FIFO_WAITERS; /* inheritance needs senders by priority */
    CHECK_EQ(pr_msgq_alloc(&bad, &id), PR_EINVAL);
    bad = attr;
    bad.name = "a-name-far-too-long-for-it";
    CHECK_EQ(pr_msgq_alloc(&bad, &id), PR_EINVAL);
    CHECK_EQ(id, PR_NO_MSGQ); /* untouched by every refusal */

    CHECK_EQ(pr_msgq_alloc(&attr, &id), PR_OK);
    CHECK_EQ(id, Q);
    message_t m = {'m', 1};
    int prio = -1;
    CHECK_EQ(pr_msgq_send(Q, NULL, 0, PR_NO_WAIT), PR_EINVAL);
    CHECK_EQ(pr_msgq_send(Q, &m, PR_PRIO_MAX + 1, PR_NO_WAIT), PR_EINVAL);
    CHECK_EQ(pr_msgq_send(Q, &m, -2, PR_NO_WAIT), PR_EINVAL);
    CHECK_EQ(pr_msgq_send(PR_CONFIG_MAX_MSGQS, &m, 0, PR_NO_WAIT), PR_EBADID);
    CHECK_EQ(pr_msgq_send(1, &m, 0, PR_NO_WAIT), PR_ENOTALLOC);
    CHECK_EQ(pr_msgq_receive(Q, &m, &prio, PR_NO_WAIT), PR_EAGAIN);
    CHECK_EQ(pr_msgq_receive(Q, &m, &prio, PR_FOREVER), PR_ECONTEXT); /* outside any task */
    CHECK_EQ(pr_msgq_receive(Q, NULL, &prio, PR_NO_WAIT), PR_EINVAL);
    CHECK_EQ(prio, -1);
    CHECK_EQ(pr_msgq_status(Q, NULL), PR_EINVAL);
    pr_msgq_status_t st = msgq_status_of(Q);
    CHECK_EQ(st.messages + st.sends + st.receives + st.send_waits + st.receive_waits, 0);
    CHECK_EQ(st.length, 4);
    CHECK_EQ((long)st.msg_size, (long)sizeof(message_t));

    /* Messages left in a freed queue are dropped; its id is reused last. */
    CHECK_EQ(pr_msgq_send(Q, &m, 0, PR_NO_WAIT), PR_OK);
    CHECK_EQ(pr_msgq_free(Q), PR_OK);
    CHECK_EQ(pr_msgq_free(Q), PR_ENOTALLOC);
    for (int i = 0; i < PR_CONFIG_MAX_MSGQS; i++)
        CHECK_EQ(pr_msgq_alloc(&attr, &id), PR_OK); /* the buffer is shared: only their sizes are checked */
    CHECK_EQ(id, Q);
    CHECK_EQ(pr_msgq_alloc(&attr, &id), PR_ENOSPC);
    CHECK_EQ(msgq_status_of(Q).messages, 0);
}

HARNESS_MAIN(TEST_CASE(messages_leave_most_urgent_first), TEST_CASE(an_interrupt_hands_a_message_to_a_waiting_receiver),
             TEST_CASE(errors_change_nothing))
