/*
 * Found by the kernel fuzzer (docs/fuzzing.md): a server's priority that
 * falls when it takes a less urgent message or frees its queue, and a
 * second timer service. When a call lowers the running task below a ready
 * one, the ready one runs before the call returns (no switch waits for the
 * next tick); the timer service is started once (swtimer.h: PR_ESTATE).
 */
#include <string.h>
#include "harness.h"

enum { Q = 0 };

static int buffer[PR_MSGQ_BUFFER_BYTES(sizeof(int), 4) / sizeof(int)] __attribute__((aligned(sizeof(void *))));

/* Who ran, in order: 'M' for the middle task, 'S' for the server after its call. */
static char order[8];
static int norder;

static void note(char who) { order[norder++] = who; }

static void inheriting_queue(void)
{
    pr_msgq_attr_t attr;
    pr_msgq_attr_init(&attr);
    attr.name = "Q";
    attr.msg_size = sizeof(int);
    attr.length = 4;
    attr.flags = PR_MSGQ_INHERIT;
    attr.buffer = buffer;
    attr.buffer_bytes = sizeof buffer;
    pr_id_t id = PR_NO_MSGQ;
    CHECK_EQ(pr_msgq_alloc(&attr, &id), PR_OK);
    CHECK_EQ(id, Q);
    int msg = 7;
    CHECK_EQ(pr_msgq_send(Q, &msg, 5, PR_NO_WAIT), PR_OK);
    CHECK_EQ(pr_msgq_send(Q, &msg, 1, PR_NO_WAIT), PR_OK);
}

static void middle_body(void *arg)
{
    (void)arg;
    note('M');
}

/* Takes the message of priority 5 (runs at 5), then `arg`: 0 the one of
 * priority 1 (its lend falls to 1), 1 frees the queue (its lend ends). */
static void server_body(void *arg)
{
    int msg, prio;
    CHECK_EQ(pr_msgq_receive(Q, &msg, &prio, PR_NO_WAIT), PR_OK);
    CHECK_EQ(prio, 5);
    CHECK_EQ(status_of(pr_task_self()).effective_priority, 5);
    pr_host_consume(TICKS(2)); /* M is released meanwhile, at 1, and waits */
    if (arg == NULL)
        CHECK_EQ(pr_msgq_receive(Q, &msg, &prio, PR_NO_WAIT), PR_OK);
    else
        CHECK_EQ(pr_msgq_free(Q), PR_OK);
    note('S');
}

/*
 * S (1) is released at 0 and takes the message of priority 5: it runs at
 * 5 for 2 ticks, while M (3), released at 1, waits. S's next call drops
 * it to 1 (or to its base): M runs before that call returns.
 */
static void run_server(void *how)
{
    harness_reset(0);
    norder = 0;
    inheriting_queue();
    pr_id_t s = task_at("S", 1, 0, server_body, how);
    task_at("M", 3, 1, middle_body, NULL);
    pr_host_run_until(TICKS(1)); /* S holds its first message, at 5 */
    CHECK_EQ(status_of(s).effective_priority, 5);
    CHECK_EQ(norder, 0);
}

static void a_server_that_takes_a_less_urgent_message_yields_at_once(void)
{
    run_server(NULL);
    CHECK_EQ(pr_host_run_ticks(10), PR_HOST_QUIESCENT);
    CHECK_EQ(norder, 2);
    CHECK_EQ(order[0], 'M');
    CHECK_EQ(order[1], 'S');
}

static void a_server_that_frees_its_queue_yields_at_once(void)
{
    run_server((void *)1);
    CHECK_EQ(pr_host_run_ticks(10), PR_HOST_QUIESCENT);
    CHECK_EQ(norder, 2);
    CHECK_EQ(order[0], 'M');
    CHECK_EQ(order[1], 'S');
}

/* ---- the timer service, started twice ---- */

static int second_start = 1;

/* Runs in the service, while the start that created it has not returned. */
static void start_again_action(pr_id_t timer, void *arg)
{
    (void)timer;
    (void)arg;
    second_start = pr_timer_service_start(4, NULL);
}

static void starter_body(void *arg)
{
    (void)arg;
    pr_id_t id = PR_NO_TASK;
    CHECK_EQ(pr_timer_service_start(5, &id), PR_OK);
    note('A');
}

/*
 * A timer armed before the service exists is due at 1. A (1), released at
 * 2, starts the service at 5: the service runs at once, before A's call
 * returns, and the timer's action starts the service again. It is started
 * (it runs that very action): PR_ESTATE, and one service task.
 */
static void the_service_is_started_once_even_before_its_start_returns(void)
{
    harness_reset(0);
    norder = 0;
    second_start = 1;
    pr_timer_attr_t attr;
    pr_timer_attr_init(&attr);
    attr.action = start_again_action;
    pr_id_t timer = PR_NO_TIMER;
    CHECK_EQ(pr_timer_alloc(&attr, &timer), PR_OK);
    CHECK_EQ(pr_timer_start(timer, 1), PR_OK);
    task_at("A", 1, 2, starter_body, NULL);
    CHECK_EQ(pr_host_run_ticks(10), PR_HOST_QUIESCENT);
    CHECK_EQ(norder, 1);
    CHECK_EQ(second_start, PR_ESTATE);
    int services = 0;
    for (pr_id_t t = 0; t < PR_CONFIG_MAX_TASKS; t++) {
        pr_task_status_t st;
        if (pr_task_status(t, &st) == PR_OK && strcmp(st.name, "timers") == 0)
            services++;
    }
    CHECK_EQ(services, 1);
}

HARNESS_MAIN(TEST_CASE(a_server_that_takes_a_less_urgent_message_yields_at_once),
             TEST_CASE(a_server_that_frees_its_queue_yields_at_once),
             TEST_CASE(the_service_is_started_once_even_before_its_start_returns))
