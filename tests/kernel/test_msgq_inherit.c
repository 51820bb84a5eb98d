/*
 * Inheritance through a message queue (PR_MSGQ_INHERIT): the server runs
 * at the priority of the message it received until it next waits on the
 * queue; senders waiting for room lend it their priority; the lends are
 * counted with the mutexes' and travel along chains through them; a wait
 * that would close a cycle is refused.
 */
#include "harness.h"

#define EV_MSGQ (EV(PR_EV_MSGQ_SEND) | EV(PR_EV_MSGQ_RECEIVE) | EV(PR_EV_MSGQ_WAIT) | EV(PR_EV_MSGQ_WAKE))

enum { Q = 0 };
enum { M = 0 };

static int buffer[PR_MSGQ_BUFFER_BYTES(sizeof(int), 4) / sizeof(int)] __attribute__((aligned(sizeof(void *))));

static pr_id_t inheriting_queue(int length, unsigned flags)
{
    pr_msgq_attr_t attr;
    pr_msgq_attr_init(&attr);
    attr.name = "Q";
    attr.msg_size = sizeof(int);
    attr.length = length;
    attr.flags = flags;
    attr.buffer = buffer;
    attr.buffer_bytes = sizeof buffer;
    pr_id_t id = PR_NO_MSGQ;
    CHECK_EQ(pr_msgq_alloc(&attr, &id), PR_OK);
    return id;
}

/* ---- the message's priority ---- */

/* Receives `arg` requests and serves each for 2 ticks. */
static void server_body(void *arg)
{
    int requests = (int)(intptr_t)arg;
    for (int i = 0; i < requests; i++) {
        int request, prio;
        CHECK_EQ(pr_msgq_receive(Q, &request, &prio, PR_FOREVER), PR_OK);
        pr_host_consume(TICKS(2));
    }
    int request;
    CHECK_EQ(pr_msgq_receive(Q, &request, NULL, PR_NO_WAIT), PR_EAGAIN); /* keeps what it has */
    CHECK_EQ(pr_msgq_receive(Q, &request, NULL, 1), PR_ETIMEDOUT);       /* waits: gives it up */
}

static void client_body(void *arg)
{
    (void)arg;
    int request = 42;
    CHECK_EQ(pr_msgq_send(Q, &request, PR_MSG_PRIO_SENDER, PR_NO_WAIT), PR_OK);
}

static const pr_action_t M_body[] = {A_COMPUTE(3)};

/*
 * S (1) serves Q and waits for a request from 0. At 1, H (5) sends one: S
 * receives it and runs at 5 while it serves it, ahead of M (3), released at
 * 1 too; M runs once S waits on Q again, at 3. Without the inheritance M
 * would run from 1 to 4 and S's request would end at 6 (the inversion a
 * server at a fixed priority causes: [Tokuda-Nakajima 1993]).
 */
static void the_server_runs_at_its_message_priority(void)
{
    harness_reset(0);
    CHECK_EQ(inheriting_queue(2, PR_MSGQ_INHERIT), Q);
    pr_script_t sm = SCRIPT(M_body);
    pr_id_t s = task_at("S", 1, 0, server_body, (void *)(intptr_t)1);
    task_at("H", 5, 1, client_body, NULL);
    script_task("M", 3, 1, &sm);
    pr_host_run_until(TICKS(2));
    pr_msgq_status_t st;
    CHECK_EQ(pr_msgq_status(Q, &st), PR_OK);
    CHECK_EQ(st.server, s);
    CHECK_EQ(status_of(s).effective_priority, 5);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_MSGQ | EV(PR_EV_SWITCH) | EV(PR_EV_PRIO),
                 "0 SWITCH S<-idle",
                 "0 MSGQ_WAIT S Q for-message",
                 "0 SWITCH idle<-S",
                 "1 SWITCH H<-idle",
                 "1 MSGQ_WAKE S Q ok",
                 "1 PRIO S 1->5 message Q",
                 "1 SEND H Q ok prio=5 messages=0",
                 "1 SWITCH S<-H",
                 "1 RECEIVE S Q ok prio=5 messages=0 waited",
                 "3 RECEIVE S Q PR_EAGAIN prio=0 messages=0",
                 "3 PRIO S 5->1 release Q",
                 "3 MSGQ_WAIT S Q for-message",
                 "3 SWITCH M<-S",
                 "4 MSGQ_WAKE S Q PR_ETIMEDOUT",
                 "6 SWITCH S<-M",
                 "6 RECEIVE S Q PR_ETIMEDOUT prio=0 messages=0 waited",
                 "6 SWITCH idle<-S");
    CHECK_EQ(status_of(s).effective_priority, 1);
}

/* ---- waiting senders, and the chain through a mutex ---- */

static void locker_body(void *arg)
{
    (void)arg;
    CHECK_EQ(pr_sem_down(M, PR_FOREVER), PR_OK);
    pr_host_consume(TICKS(5));
    CHECK_EQ(pr_sem_up(M), PR_OK);
}

/* Serves two requests, each under M. */
static void locking_server_body(void *arg)
{
    (void)arg;
    for (int i = 0; i < 2; i++) {
        int request;
        CHECK_EQ(pr_msgq_receive(Q, &request, NULL, PR_FOREVER), PR_OK);
        CHECK_EQ(pr_sem_down(M, PR_FOREVER), PR_OK);
        pr_host_consume(TICKS(1));
        CHECK_EQ(pr_sem_up(M), PR_OK);
    }
}

static void sender_body(void *arg)
{
    int request = (int)(intptr_t)arg;
    CHECK_EQ(pr_msgq_send(Q, &request, PR_MSG_PRIO_SENDER, PR_FOREVER), PR_OK);
}

/*
 * L (0) locks M (pip) at 0 for 5 ticks. S (1) serves Q (length 1) and
 * waits for a request from 0. At 1, C2 (2) sends: S takes the request and
 * runs at 2, asks for M and waits: L inherits 2 through M. At 2 C3 (3)
 * fills Q, and at 3 C4 (4) waits for room: it lends 4 to S, the server, which
 * lends it on to L through M (one chain: C4 -> Q -> S -> M -> L). At 5 L
 * releases M and drops to 0; S takes M, still at 4, serves, and receives
 * C3's request (3): C4's comes into the queue, C4 stops lending, and S runs
 * at 3, the priority of the message it holds.
 */
static void waiting_senders_lend_to_the_server_and_through_its_mutex(void)
{
    harness_reset(0);
    CHECK_EQ(inheriting_queue(1, PR_MSGQ_INHERIT), Q);
    CHECK_EQ(mutex("M", PR_PROTOCOL_PIP), M);
    pr_id_t l = task_at("L", 0, 0, locker_body, NULL);
    pr_id_t s = task_at("S", 1, 0, locking_server_body, NULL);
    task_at("C2", 2, 1, sender_body, (void *)(intptr_t)2);
    task_at("C3", 3, 2, sender_body, (void *)(intptr_t)3);
    task_at("C4", 4, 3, sender_body, (void *)(intptr_t)4);
    pr_host_run_until(TICKS(4));
    CHECK_EQ(status_of(s).effective_priority, 4);
    CHECK_EQ(status_of(l).effective_priority, 4);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_MSGQ | EV(PR_EV_PRIO) | EV(PR_EV_SEM_DOWN) | EV(PR_EV_SEM_UP),
                 "0 MSGQ_WAIT S Q for-message",
                 "0 DOWN L M ok value=0",
                 "1 MSGQ_WAKE S Q ok",
                 "1 PRIO S 1->2 message Q",
                 "1 SEND C2 Q ok prio=2 messages=0",
                 "1 RECEIVE S Q ok prio=2 messages=0 waited",
                 "1 PRIO L 0->2 inherit M",
                 "2 SEND C3 Q ok prio=3 messages=1",
                 "3 MSGQ_WAIT C4 Q for-room",
                 "3 PRIO S 2->4 inherit Q",
                 "3 PRIO L 2->4 inherit M",
                 "5 PRIO L 4->0 release M",
                 "5 UP L M ok value=0",
                 "5 DOWN S M ok value=0",
                 "6 UP S M ok value=1",
                 "6 MSGQ_WAKE C4 Q ok",
                 "6 PRIO S 4->3 message Q",
                 "6 RECEIVE S Q ok prio=3 messages=1",
                 "6 SEND C4 Q ok prio=4 messages=1 waited",
                 "6 DOWN S M ok value=0",
                 "7 UP S M ok value=1",
                 "7 PRIO S 3->1 delete Q"); /* its body returned: it serves Q no more */
    CHECK_EQ(status_of(s).state, PR_TASK_DONE);
}

/* ---- cycles, and a server that goes ---- */

static int rc_self, rc_cycle;

static void server_that_sends_body(void *arg)
{
    (void)arg;
    int request;
    CHECK_EQ(pr_msgq_receive(Q, &request, NULL, PR_FOREVER), PR_OK); /* now Q's server */
    request = 7;
    CHECK_EQ(pr_msgq_send(Q, &request, 0, PR_NO_WAIT), PR_OK);       /* Q is full now */
    rc_self = pr_msgq_send(Q, &request, 0, PR_FOREVER);              /* it would wait for itself */
    pr_host_consume(TICKS(2));
    rc_cycle = pr_sem_down(M, PR_FOREVER); /* X holds M and waits for room in Q, which S serves */
}

static void first_client_body(void *arg)
{
    (void)arg;
    int request = 1;
    CHECK_EQ(pr_msgq_send(Q, &request, 2, PR_NO_WAIT), PR_OK);
}

static void holder_sender_body(void *arg)
{
    (void)arg;
    int request = 8;
    CHECK_EQ(pr_sem_down(M, PR_FOREVER), PR_OK);
    CHECK_EQ(pr_msgq_send(Q, &request, 0, PR_FOREVER), PR_OK); /* never returns: nobody receives */
}

/*
 * S (1) becomes Q's server at 1 (a request of priority 2 from C) and fills
 * Q itself: its own send that would wait is refused (PR_EDEADLK: it would
 * wait for room that only it can make, and lend to itself). At 2 X (4)
 * locks M and waits for room in Q: it lends 4 to S. At 3 S asks for M: X
 * holds it and waits for S, so the down is refused too (PR_EDEADLK, nothing
 * changes). S's body then returns: it serves Q no more, and what Q lent it
 * is withdrawn.
 */
static void a_cycle_through_a_queue_is_refused(void)
{
    harness_reset(0);
    CHECK_EQ(inheriting_queue(1, PR_MSGQ_INHERIT), Q);
    CHECK_EQ(mutex("M", PR_PROTOCOL_PIP), M);
    pr_id_t s = task_at("S", 1, 0, server_that_sends_body, NULL);
    task_at("C", 3, 1, first_client_body, NULL);
    pr_id_t x = task_at("X", 4, 2, holder_sender_body, NULL);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    CHECK_EQ(rc_self, PR_EDEADLK);
    CHECK_EQ(rc_cycle, PR_EDEADLK);
    EXPECT_TRACE(EV(PR_EV_MSGQ_SEND) | EV(PR_EV_MSGQ_WAIT) | EV(PR_EV_PRIO) | EV(PR_EV_SEM_DOWN),
                 "0 MSGQ_WAIT S Q for-message",
                 "1 PRIO S 1->2 message Q",
                 "1 SEND C Q ok prio=2 messages=0",
                 "1 SEND S Q ok prio=0 messages=1",
                 "1 SEND S Q PR_EDEADLK prio=0 messages=1",
                 "2 DOWN X M ok value=0",
                 "2 MSGQ_WAIT X Q for-room",
                 "2 PRIO S 2->4 inherit Q",
                 "3 DOWN S M PR_EDEADLK value=0",
                 "3 PRIO S 4->1 delete Q");
    CHECK_EQ(status_of(s).state, PR_TASK_DONE);
    CHECK_EQ(status_of(x).state, PR_TASK_WAIT_SEND);
    CHECK_EQ(status_of(x).msgq_on, Q);
    pr_msgq_status_t st;
    CHECK_EQ(pr_msgq_status(Q, &st), PR_OK);
    CHECK_EQ(st.server, PR_NO_TASK);
    CHECK_EQ(st.senders_waiting, 1);
    CHECK_EQ(pr_msgq_free(Q), PR_EBUSY);
}

/* ---- the lend moves with the server, and goes with it ---- */

static void receive_then_sleep_body(void *arg)
{
    (void)arg;
    int request, prio;
    CHECK_EQ(pr_msgq_receive(Q, &request, &prio, PR_NO_WAIT), PR_OK);
    CHECK_EQ(pr_task_delay(5), PR_OK);
}

/*
 * Two requests wait in Q: priorities 4 and 3. S1 (1) receives the first at
 * 0 and runs at 4, also while it sleeps. S2 (2) receives the second at 1:
 * S2 is the server now, at 3, and S1 keeps nothing from Q. S2 is deleted
 * at 2: Q has no server any more.
 */
static void the_lend_follows_the_last_receiver_and_goes_with_it(void)
{
    harness_reset(0);
    CHECK_EQ(inheriting_queue(2, PR_MSGQ_INHERIT), Q);
    int request = 1;
    CHECK_EQ(pr_msgq_send(Q, &request, 4, PR_NO_WAIT), PR_OK);
    CHECK_EQ(pr_msgq_send(Q, &request, 3, PR_NO_WAIT), PR_OK);
    pr_id_t s1 = task_at("S1", 1, 0, receive_then_sleep_body, NULL);
    pr_id_t s2 = task_at("S2", 2, 1, receive_then_sleep_body, NULL);
    pr_host_run_until(TICKS(1) / 2);
    CHECK_EQ(status_of(s1).effective_priority, 4);
    pr_host_run_ticks(2);
    CHECK_EQ(status_of(s1).effective_priority, 1);
    CHECK_EQ(status_of(s2).effective_priority, 3);
    pr_msgq_status_t st;
    CHECK_EQ(pr_msgq_status(Q, &st), PR_OK);
    CHECK_EQ(st.server, s2);
    CHECK_EQ(pr_task_delete(s2), PR_OK);
    CHECK_EQ(pr_msgq_status(Q, &st), PR_OK);
    CHECK_EQ(st.server, PR_NO_TASK);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV(PR_EV_PRIO) | EV(PR_EV_MSGQ_RECEIVE) | EV(PR_EV_TASK_DELETE),
                 "0 PRIO S1 1->4 message Q",
                 "0 RECEIVE S1 Q ok prio=4 messages=1",
                 "1 PRIO S1 4->1 release Q",
                 "1 PRIO T1 2->3 message Q", /* S2: deleted when the lines are written, so by its id */
                 "1 RECEIVE T1 Q ok prio=3 messages=0",
                 "2 TASK_DELETE T1",
                 "2 PRIO T1 3->2 delete Q");
}

HARNESS_MAIN(TEST_CASE(the_server_runs_at_its_message_priority),
             TEST_CASE(waiting_senders_lend_to_the_server_and_through_its_mutex),
             TEST_CASE(a_cycle_through_a_queue_is_refused),
             TEST_CASE(the_lend_follows_the_last_receiver_and_goes_with_it))
