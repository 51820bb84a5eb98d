/*
 * Condition variables: pr_cond_wait releases the mutex and waits; a signal
 * wakes the most urgent waiter, a broadcast all of them in priority order;
 * a woken waiter locks the mutex again before pr_cond_wait returns, also on
 * its timeout, through the mutex's protocol.
 */
#include "harness.h"

enum { M = 0, R = 1 };
enum { C = 0 };

#define EV_COND (EV(PR_EV_COND_WAIT) | EV(PR_EV_COND_WAKE) | EV(PR_EV_COND_SIGNAL))

static pr_id_t cond(const char *name)
{
    pr_id_t id = PR_NO_COND;
    CHECK_EQ(pr_cond_alloc(name, &id), PR_OK);
    return id;
}

/* The order in which waiters came back from pr_cond_wait, and what with. */
static pr_id_t order[8];
static int nback, rcs[8];

static void waiter_body(void *arg)
{
    pr_timeout_t timeout = (pr_timeout_t)(uintptr_t)arg;
    CHECK_EQ(pr_sem_down(M, PR_FOREVER), PR_OK);
    int rc = pr_cond_wait(C, M, timeout);
    CHECK_EQ(sem_status_of(M).holder, pr_task_self()); /* holds the mutex again, whatever rc */
    rcs[nback] = rc;
    order[nback++] = pr_task_self();
    CHECK_EQ(pr_sem_up(M), PR_OK);
}

static int broadcast;
static void signaller_body(void *arg)
{
    (void)arg;
    CHECK_EQ(pr_sem_down(M, PR_FOREVER), PR_OK);
    pr_cond_status_t st;
    CHECK_EQ(pr_cond_status(C, &st), PR_OK);
    CHECK_EQ(st.waiters, 3);
    CHECK_EQ(st.mutex, M);
    if (broadcast) {
        CHECK_EQ(pr_cond_broadcast(C), PR_OK);
    } else {
        for (int i = 0; i < 3; i++)
            CHECK_EQ(pr_cond_signal(C), PR_OK);
        CHECK_EQ(pr_cond_signal(C), PR_OK); /* nobody left: nothing happens */
    }
    CHECK_EQ(pr_cond_status(C, &st), PR_OK);
    CHECK_EQ(st.waiters, 0);
    CHECK_EQ(st.mutex, PR_NO_SEM);
    pr_host_consume(TICKS(1));
    CHECK_EQ(pr_sem_up(M), PR_OK);
}

static pr_id_t w2, w4, w3;

/* W2 (2), W4 (4), W3 (3) wait on C in that order at 0; S (5), released at
 * 1, locks M, wakes them and unlocks M at 2. */
static void setup(int all)
{
    harness_reset(0);
    nback = 0;
    broadcast = all;
    CHECK_EQ(mutex("M", PR_PROTOCOL_PIP), M);
    CHECK_EQ(cond("C"), C);
    w2 = task_at("W2", 2, 0, waiter_body, (void *)(uintptr_t)PR_FOREVER);
    w4 = task_at("W4", 4, 0, waiter_body, (void *)(uintptr_t)PR_FOREVER);
    w3 = task_at("W3", 3, 0, waiter_body, (void *)(uintptr_t)PR_FOREVER);
    task_at("S", 5, 1, signaller_body, NULL);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    CHECK_EQ(nback, 3);
    CHECK_EQ(order[0], w4);
    CHECK_EQ(order[1], w3);
    CHECK_EQ(order[2], w2);
    CHECK_EQ(rcs[0] + rcs[1] + rcs[2], PR_OK);
}

/* Each signal wakes the most urgent waiter left. They lock M again when S
 * releases it, most urgent first (M's wait list is in priority order). */
static void signals_wake_in_priority_order(void)
{
    setup(0);
    EXPECT_TRACE(EV_COND | EV(PR_EV_SWITCH) | EV(PR_EV_SEM_UP),
                 "0 SWITCH W4<-idle",
                 "0 COND_WAIT W4 C M ok",
                 "0 UP W4 M ok value=1",
                 "0 SWITCH W3<-W4",
                 "0 COND_WAIT W3 C M ok",
                 "0 UP W3 M ok value=1",
                 "0 SWITCH W2<-W3",
                 "0 COND_WAIT W2 C M ok",
                 "0 UP W2 M ok value=1",
                 "0 SWITCH idle<-W2",
                 "1 SWITCH S<-idle",
                 "1 COND_WAKE W4 C ok",
                 "1 COND_SIGNAL S C ok woken=1",
                 "1 COND_WAKE W3 C ok",
                 "1 COND_SIGNAL S C ok woken=1",
                 "1 COND_WAKE W2 C ok",
                 "1 COND_SIGNAL S C ok woken=1",
                 "1 COND_SIGNAL S C ok woken=0",
                 "2 UP S M ok value=1",
                 "2 SWITCH W4<-S",
                 "2 UP W4 M ok value=1",
                 "2 SWITCH W3<-W4",
                 "2 UP W3 M ok value=1",
                 "2 SWITCH W2<-W3",
                 "2 UP W2 M ok value=1",
                 "2 SWITCH idle<-W2");
}

static void broadcast_wakes_all_in_priority_order(void)
{
    setup(1);
    EXPECT_TRACE(EV_COND,
                 "0 COND_WAIT W4 C M ok",
                 "0 COND_WAIT W3 C M ok",
                 "0 COND_WAIT W2 C M ok",
                 "1 COND_WAKE W4 C ok",
                 "1 COND_WAKE W3 C ok",
                 "1 COND_WAKE W2 C ok",
                 "1 COND_BROADCAST S C ok woken=3");
}

/*
 * A timeout returns with the mutex too, once it is free again. W (3) waits
 * on C with timeout 2 at 0; X (2) takes M at 0 and holds it 4 ticks. At 2
 * W's wait ends (PR_ETIMEDOUT); W asks for M, held by X, blocks, and X
 * inherits 3 (pip); at 4 X releases M and W returns PR_ETIMEDOUT holding it.
 */
static const pr_action_t X_body[] = {A_LOCK(M), A_COMPUTE(4), A_UNLOCK(M)};

static void timeout_returns_holding_the_mutex(void)
{
    harness_reset(0);
    nback = 0;
    pr_script_t sx = SCRIPT(X_body);
    CHECK_EQ(mutex("M", PR_PROTOCOL_PIP), M);
    CHECK_EQ(cond("C"), C);
    pr_id_t w = task_at("W", 3, 0, waiter_body, (void *)(uintptr_t)2);
    script_task("X", 2, 0, &sx);
    pr_host_run_until(TICKS(1));
    CHECK_EQ(status_of(w).state, PR_TASK_WAIT_COND);
    CHECK_EQ(status_of(w).cond_on, C);
    CHECK_EQ(status_of(w).blocked_on, PR_NO_SEM);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_COND | EV_SCHED | EV(PR_EV_SEM_DOWN),
                 "0 SWITCH W<-idle",
                 "0 DOWN W M ok value=0",
                 "0 COND_WAIT W C M ok",
                 "0 SWITCH X<-W",
                 "0 DOWN X M ok value=0",
                 "2 COND_WAKE W C PR_ETIMEDOUT",
                 "2 SWITCH W<-X",
                 "2 BLOCK W M ok",
                 "2 PRIO X 2->3 inherit M",
                 "2 SWITCH X<-W",
                 "4 PRIO X 3->2 release M",
                 "4 WAKE W M ok",
                 "4 SWITCH W<-X",
                 "4 DOWN W M ok value=0",
                 "4 SWITCH idle<-W");
    CHECK_EQ(nback, 1);
    CHECK_EQ(rcs[0], PR_ETIMEDOUT);
}

/* A recursive mutex is released whatever its depth, and given back with
 * it: W locks R twice, waits (R is free meanwhile), and comes back holding
 * it twice. */
static int depth_while_waiting = -1, depth_after = -1;
static void recursive_waiter(void *arg)
{
    (void)arg;
    pr_sem_down(R, PR_FOREVER);
    pr_sem_down(R, PR_FOREVER);
    CHECK_EQ(pr_cond_wait(C, R, PR_FOREVER), PR_OK);
    depth_after = sem_status_of(R).depth;
    CHECK_EQ(pr_sem_up(R), PR_OK);
    CHECK_EQ(pr_sem_up(R), PR_OK);
    CHECK_EQ(sem_status_of(R).holder, PR_NO_TASK);
}

static void recursive_signaller(void *arg)
{
    (void)arg;
    depth_while_waiting = sem_status_of(R).depth;
    CHECK_EQ(pr_sem_down(R, PR_FOREVER), PR_OK);
    CHECK_EQ(pr_cond_signal(C), PR_OK);
    CHECK_EQ(pr_sem_up(R), PR_OK);
}

static void recursive_mutex_depth_given_back(void)
{
    harness_reset(0);
    pr_sem_attr_t a;
    pr_sem_attr_init(&a);
    a.value = 1;
    a.flags = PR_SEM_MUTEX | PR_SEM_PRIO | PR_SEM_RECURSIVE;
    a.protocol = PR_PROTOCOL_PIP;
    a.name = "R";
    CHECK_EQ(mutex("M", PR_PROTOCOL_PIP), M);
    pr_id_t r;
    CHECK_EQ(pr_sem_alloc(&a, &r), PR_OK);
    CHECK_EQ(r, R);
    CHECK_EQ(cond("C"), C);
    task_at("W", 3, 0, recursive_waiter, NULL);
    task_at("S", 2, 0, recursive_signaller, NULL);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    CHECK_EQ(depth_while_waiting, 0);
    CHECK_EQ(depth_after, 2);
}

/* A waiter whose priority changes moves in the condition's list: W1 (2)
 * and W2 (3) wait; W1 is raised to 5, and the first signal wakes it. */
static void raised(void *arg)
{
    (void)arg;
    CHECK_EQ(pr_task_set_priority(0, 5), PR_OK);
    CHECK_EQ(pr_sem_down(M, PR_FOREVER), PR_OK);
    CHECK_EQ(pr_cond_signal(C), PR_OK);
    CHECK_EQ(pr_sem_up(M), PR_OK);
}

static void raised_waiter_moves_ahead(void)
{
    harness_reset(0);
    nback = 0;
    CHECK_EQ(mutex("M", PR_PROTOCOL_PIP), M);
    CHECK_EQ(cond("C"), C);
    pr_id_t w1 = task_at("W1", 2, 0, waiter_body, (void *)(uintptr_t)PR_FOREVER);
    pr_id_t w2b = task_at("W2", 3, 0, waiter_body, (void *)(uintptr_t)PR_FOREVER);
    CHECK_EQ(w1, 0);
    task_at("Ctl", 1, 1, raised, NULL);
    CHECK_EQ(pr_host_run_ticks(10), PR_HOST_QUIESCENT);
    CHECK_EQ(nback, 1);
    CHECK_EQ(order[0], w1);
    CHECK_EQ(status_of(w2b).state, PR_TASK_WAIT_COND);
    /* A waiter deleted on the condition leaves it. */
    CHECK_EQ(pr_task_delete(w2b), PR_OK);
    pr_cond_status_t st;
    CHECK_EQ(pr_cond_status(C, &st), PR_OK);
    CHECK_EQ(st.waiters, 0);
    CHECK_EQ(pr_cond_free(C), PR_OK);
    CHECK_EQ(pr_sem_free(M), PR_OK);
}

/* A waiter signalled, then deleted before it ran, will not lock the mutex
 * again: the mutex can be freed. */
static pr_id_t doomed;
static void signal_then_delete(void *arg)
{
    (void)arg;
    CHECK_EQ(pr_cond_signal(C), PR_OK);
    CHECK_EQ(pr_sem_free(M), PR_EBUSY); /* the woken waiter will lock it again */
    CHECK_EQ(pr_task_delete(doomed), PR_OK);
    CHECK_EQ(pr_sem_free(M), PR_OK);
}

static void woken_waiter_deleted_before_it_runs(void)
{
    harness_reset(0);
    nback = 0;
    CHECK_EQ(mutex("M", PR_PROTOCOL_PIP), M);
    CHECK_EQ(cond("C"), C);
    doomed = task_at("W", 1, 0, waiter_body, (void *)(uintptr_t)PR_FOREVER);
    task_at("S", 3, 1, signal_then_delete, NULL);
    CHECK_EQ(pr_host_run_ticks(10), PR_HOST_QUIESCENT);
    CHECK_EQ(nback, 0);
    pr_cond_status_t st;
    CHECK_EQ(pr_cond_status(C, &st), PR_OK);
    CHECK_EQ(st.waiters, 0);
}

HARNESS_MAIN(TEST_CASE(signals_wake_in_priority_order), TEST_CASE(broadcast_wakes_all_in_priority_order),
             TEST_CASE(timeout_returns_holding_the_mutex), TEST_CASE(recursive_mutex_depth_given_back),
             TEST_CASE(raised_waiter_moves_ahead), TEST_CASE(woken_waiter_deleted_before_it_runs))
