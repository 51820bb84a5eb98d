/*
 * Who an up wakes: on a priority-ordered semaphore the most urgent waiter,
 * FIFO among equals; on a FIFO semaphore the longest waiting, whatever the
 * priorities. Counting semaphores with several units: a negative value
 * counts the waiters.
 */
#include "harness.h"

enum { S = 0 };

/* Waiters released one per tick, each downing S forever as soon as it runs,
 * so the arrival order is the release order; U (10), released at 10, ups S
 * once per waiter (each woken waiter is less urgent than U: the WAKE records
 * show the order without any preemption in between). */
static const pr_action_t W_body[] = {A_DOWN(S, PR_FOREVER), A_COMPUTE(1)};
static const pr_action_t U3_body[] = {A_UP(S), A_UP(S), A_UP(S)};
static const pr_action_t U5_body[] = {A_UP(S), A_UP(S), A_UP(S), A_UP(S), A_UP(S)};
static pr_script_t ws[5], u;

static void arrivals(unsigned flags)
{
    harness_reset(0);
    for (int i = 0; i < 3; i++)
        ws[i] = SCRIPT(W_body);
    u = SCRIPT(U3_body);
    CHECK_EQ(counting("S", 0, flags), S);
    /* arrival order: W1 (1) at 1, W2 (3) at 2, W3 (2) at 3 */
    task_at("W1", 1, 1, pr_script_body, &ws[0]);
    task_at("W2", 3, 2, pr_script_body, &ws[1]);
    task_at("W3", 2, 3, pr_script_body, &ws[2]);
    script_task("U", 10, 10, &u);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
}

/*
 * Priority order: W2 (3), W3 (2), W1 (1). After U ends at 10 they run in
 * priority order too: W2 10..11, W3 11..12, W1 12..13.
 */
static void priority_semaphore_wakes_most_urgent_first(void)
{
    arrivals(PR_SEM_PRIO);
    EXPECT_TRACE(EV(PR_EV_BLOCK) | EV(PR_EV_WAKE) | EV(PR_EV_SEM_UP),
                 "1 BLOCK W1 S ok",
                 "2 BLOCK W2 S ok",
                 "3 BLOCK W3 S ok",
                 "10 WAKE W2 S ok",
                 "10 UP U S ok value=-2",
                 "10 WAKE W3 S ok",
                 "10 UP U S ok value=-1",
                 "10 WAKE W1 S ok",
                 "10 UP U S ok value=0");
    EXPECT_TRACE(EV(PR_EV_TASK_EXIT),
                 "10 TASK_EXIT U",
                 "11 TASK_EXIT W2",
                 "12 TASK_EXIT W3",
                 "13 TASK_EXIT W1");
}

/* FIFO order: the same arrivals are woken W1, W2, W3 (arrival order); they
 * still run in priority order once ready. */
static void fifo_semaphore_wakes_in_arrival_order(void)
{
    arrivals(0);
    EXPECT_TRACE(EV(PR_EV_BLOCK) | EV(PR_EV_WAKE) | EV(PR_EV_SEM_UP),
                 "1 BLOCK W1 S ok",
                 "2 BLOCK W2 S ok",
                 "3 BLOCK W3 S ok",
                 "10 WAKE W1 S ok",
                 "10 UP U S ok value=-2",
                 "10 WAKE W2 S ok",
                 "10 UP U S ok value=-1",
                 "10 WAKE W3 S ok",
                 "10 UP U S ok value=0");
    EXPECT_TRACE(EV(PR_EV_TASK_EXIT),
                 "10 TASK_EXIT U",
                 "11 TASK_EXIT W2",
                 "12 TASK_EXIT W3",
                 "13 TASK_EXIT W1");
}

/*
 * Priority order, FIFO among equals: Z (1) at 1, A (2) at 2, B (2) at 3,
 * X (3) at 4, C (2) at 5. Woken: X, then A, B, C in arrival order, then Z.
 */
static void equal_priorities_wake_in_arrival_order(void)
{
    harness_reset(0);
    for (int i = 0; i < 5; i++)
        ws[i] = SCRIPT(W_body);
    u = SCRIPT(U5_body);
    CHECK_EQ(counting("S", 0, PR_SEM_PRIO), S);
    task_at("Z", 1, 1, pr_script_body, &ws[0]);
    task_at("A", 2, 2, pr_script_body, &ws[1]);
    task_at("B", 2, 3, pr_script_body, &ws[2]);
    task_at("X", 3, 4, pr_script_body, &ws[3]);
    task_at("C", 2, 5, pr_script_body, &ws[4]);
    script_task("U", 10, 10, &u);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV(PR_EV_WAKE),
                 "10 WAKE X S ok",
                 "10 WAKE A S ok",
                 "10 WAKE B S ok",
                 "10 WAKE C S ok",
                 "10 WAKE Z S ok");
    /* Ready in that order too: equals run in the order they became ready. */
    EXPECT_TRACE(EV(PR_EV_TASK_EXIT),
                 "10 TASK_EXIT U",
                 "11 TASK_EXIT X",
                 "12 TASK_EXIT A",
                 "13 TASK_EXIT B",
                 "14 TASK_EXIT C",
                 "15 TASK_EXIT Z");
}

/*
 * On a FIFO semaphore a waiter whose priority changes keeps its place:
 * W1 (1) at 1, W2 (2) at 2 wait; at 3 a controller raises W2 to 9. The
 * up at 10 still wakes W1 first.
 */
static pr_id_t raise_id;
static void raise_body(void *arg)
{
    (void)arg;
    CHECK_EQ(pr_task_set_priority(raise_id, 9), PR_OK);
}

static void fifo_waiter_keeps_place_when_priority_changes(void)
{
    harness_reset(0);
    ws[0] = SCRIPT(W_body);
    ws[1] = SCRIPT(W_body);
    static const pr_action_t U2_body[] = {A_UP(S), A_UP(S)};
    u = SCRIPT(U2_body);
    CHECK_EQ(counting("S", 0, 0), S);
    task_at("W1", 1, 1, pr_script_body, &ws[0]);
    raise_id = task_at("W2", 2, 2, pr_script_body, &ws[1]);
    task_at("Ctl", 20, 3, raise_body, NULL);
    script_task("U", 10, 10, &u);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV(PR_EV_WAKE) | EV(PR_EV_PRIO),
                 "3 PRIO W2 2->9 set -",
                 "10 WAKE W1 S ok",
                 "10 WAKE W2 S ok");
    /* Once ready, W2 (now 9) runs before W1 (1), after U (10). */
    EXPECT_TRACE(EV(PR_EV_TASK_EXIT),
                 "3 TASK_EXIT Ctl",
                 "10 TASK_EXIT U",
                 "11 TASK_EXIT W2",
                 "12 TASK_EXIT W1");
}

/*
 * A counting semaphore with 2 units and four takers, all released at 0:
 * T1 (4) takes a unit (value 1) and delays 3; T2 (3) takes the other (value
 * 0) and delays 5; T3 (2) blocks (value -1), T4 (1) blocks (value -2: two
 * waiters). At 3 T1 returns its unit: it goes straight to T3 (value -1),
 * which computes 3..4 and returns it to T4 (value 0); T4 computes 4..5 and
 * returns it (value 1); at 5 T2 returns the other (value 2).
 */
static const pr_action_t Hold3[] = {A_DOWN(S, PR_FOREVER), A_DELAY(3), A_UP(S)};
static const pr_action_t Hold5[] = {A_DOWN(S, PR_FOREVER), A_DELAY(5), A_UP(S)};
static const pr_action_t Use1[] = {A_DOWN(S, PR_FOREVER), A_COMPUTE(1), A_UP(S)};

static void counting_semaphore_with_several_units(void)
{
    harness_reset(0);
    pr_script_t s1 = SCRIPT(Hold3), s2 = SCRIPT(Hold5), s3 = SCRIPT(Use1), s4 = SCRIPT(Use1);
    CHECK_EQ(counting("S", 2, PR_SEM_PRIO), S);
    script_task("T1", 4, 0, &s1);
    script_task("T2", 3, 0, &s2);
    pr_id_t t3 = script_task("T3", 2, 0, &s3);
    pr_id_t t4 = script_task("T4", 1, 0, &s4);
    CHECK_EQ(pr_host_run_ticks(1), PR_HOST_REACHED);
    pr_sem_status_t st = sem_status_of(S);
    CHECK_EQ(st.value, -2);
    CHECK_EQ(st.waiters, 2);
    CHECK_EQ(status_of(t3).blocked_on, S);
    CHECK_EQ(status_of(t4).blocked_on, S);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV(PR_EV_SEM_DOWN) | EV(PR_EV_SEM_UP) | EV(PR_EV_BLOCK) | EV(PR_EV_WAKE),
                 "0 DOWN T1 S ok value=1",
                 "0 DOWN T2 S ok value=0",
                 "0 BLOCK T3 S ok",
                 "0 BLOCK T4 S ok",
                 "3 WAKE T3 S ok",
                 "3 UP T1 S ok value=-1",
                 "3 DOWN T3 S ok value=-1",
                 "4 WAKE T4 S ok",
                 "4 UP T3 S ok value=0",
                 "4 DOWN T4 S ok value=0",
                 "5 UP T4 S ok value=1",
                 "5 UP T2 S ok value=2");
    st = sem_status_of(S);
    CHECK_EQ(st.value, 2);
    CHECK_EQ(st.waiters, 0);
    pr_sem_stats_t stats;
    CHECK_EQ(pr_sem_stats(S, &stats), PR_OK);
    CHECK_EQ(stats.downs, 4);
    CHECK_EQ(stats.ups, 4);
    CHECK_EQ(stats.max_waiters, 2);
}

/* A counting semaphore's value may exceed its initial value: ups with
 * nobody waiting accumulate units, and later downs take them without
 * blocking. */
static void ups_accumulate_units(void)
{
    harness_reset(0);
    CHECK_EQ(counting("S", 0, 0), S);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(pr_sem_up(S), PR_OK);
    CHECK_EQ(sem_status_of(S).value, 3);
    static const pr_action_t take3[] = {A_DOWN(S, PR_FOREVER), A_DOWN(S, PR_FOREVER), A_DOWN(S, PR_FOREVER),
                                        A_DOWN(S, 2)};
    pr_script_t s = SCRIPT(take3);
    script_task("T", 1, 0, &s);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV(PR_EV_SEM_DOWN) | EV(PR_EV_SEM_UP) | EV(PR_EV_BLOCK) | EV(PR_EV_WAKE),
                 "0 UP - S ok value=1",
                 "0 UP - S ok value=2",
                 "0 UP - S ok value=3",
                 "0 DOWN T S ok value=2",
                 "0 DOWN T S ok value=1",
                 "0 DOWN T S ok value=0",
                 "0 BLOCK T S ok",
                 "2 WAKE T S PR_ETIMEDOUT",
                 "2 DOWN T S PR_ETIMEDOUT value=0");
    CHECK_EQ(s.timeouts, 1);
}

HARNESS_MAIN(TEST_CASE(priority_semaphore_wakes_most_urgent_first),
             TEST_CASE(fifo_semaphore_wakes_in_arrival_order),
             TEST_CASE(equal_priorities_wake_in_arrival_order),
             TEST_CASE(fifo_waiter_keeps_place_when_priority_changes),
             TEST_CASE(counting_semaphore_with_several_units),
             TEST_CASE(ups_accumulate_units))
