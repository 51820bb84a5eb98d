/*
 * Timeouts of pr_sem_down: n ticks, PR_NO_WAIT, PR_FOREVER.
 *
 * A down at tick t with timeout n ends with PR_ETIMEDOUT at tick t + n if it
 * has not got the semaphore by then. The timeout is taken in the tick
 * interrupt of t + n, so an up made at that very instant (before the tick)
 * still wins. A waiter that times out leaves at once: the semaphore's value
 * and waiter count are restored, and a holder it boosted drops in the same
 * tick, along the whole chain.
 */
#include "priora/port.h"
#include "harness.h"

enum { S = 0 };

/*
 * L (1) locks S at 0 and computes 6 inside. H (5), released at 1, downs S
 * with timeout 3: it blocks at 1 and L inherits 5. M (3), released at 2,
 * cannot preempt the boosted L. At tick 4 H's timeout fires: the boost is
 * withdrawn in that tick (PRIO L 5->1 timeout), H's down returns
 * PR_ETIMEDOUT and S is as if H had never waited (value 0: held by L, no
 * waiter). H computes 4..5, then M runs 5..7 (it now outranks L), then L
 * finishes its critical section 7..9, unlocks at 9 (nobody waits: value 1)
 * and computes 9..10.
 */
static const pr_action_t L_body[] = {A_LOCK(S), A_COMPUTE(6), A_UNLOCK(S), A_COMPUTE(1)};
static const pr_action_t M_body[] = {A_COMPUTE(2)};

static pr_script_t sL, sM;
static pr_sem_status_t h_saw;

static void h_body(void *arg)
{
    downer_t *d = arg;
    d->rc = pr_sem_down(S, d->timeout);
    d->at = (long)pr_ticks_now();
    h_saw = sem_status_of(S);
    pr_host_consume(TICKS(1));
}

static void waiter_timeout_withdraws_boost_at_that_tick(void)
{
    harness_reset(0);
    sL = SCRIPT(L_body);
    sM = SCRIPT(M_body);
    downer_t h = DOWNER(S, 3, 0, 0, 0);
    CHECK_EQ(mutex("S", PR_PROTOCOL_PIP), S);
    pr_id_t tL = script_task("L", 1, 0, &sL);
    task_at("H", 5, 1, h_body, &h);
    script_task("M", 3, 2, &sM);

    pr_host_run_until(TICKS(3) + TICKS(1) / 2); /* just before the timeout */
    CHECK_EQ(status_of(tL).effective_priority, 5);
    CHECK_EQ(sem_status_of(S).value, -1);
    CHECK_EQ(sem_status_of(S).waiters, 1);

    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    CHECK_EQ(h.rc, PR_ETIMEDOUT);
    CHECK_EQ(h.at, 4);
    CHECK_EQ(h_saw.value, 0);
    CHECK_EQ(h_saw.waiters, 0);
    CHECK_EQ(h_saw.holder, tL);
    EXPECT_TRACE(EV_ALL,
                 "0 SEM_ALLOC - S ok",
                 "0 TASK_CREATE L",
                 "0 RELEASE L job=1",
                 "0 TASK_CREATE H",
                 "0 TASK_CREATE M",
                 "0 SWITCH L<-idle",
                 "0 DOWN L S ok value=0",
                 "1 RELEASE H job=1",
                 "1 SWITCH H<-L",
                 "1 BLOCK H S ok",
                 "1 PRIO L 1->5 inherit S",
                 "1 SWITCH L<-H",
                 "2 RELEASE M job=1",
                 "4 TIMEOUT H S PR_ETIMEDOUT",
                 "4 PRIO L 5->1 timeout S",
                 "4 WAKE H S PR_ETIMEDOUT",
                 "4 SWITCH H<-L",
                 "4 DOWN H S PR_ETIMEDOUT value=0",
                 "5 JOB_DONE H job=1",
                 "5 TASK_EXIT H",
                 "5 SWITCH M<-H",
                 "7 JOB_DONE M job=1",
                 "7 TASK_EXIT M",
                 "7 SWITCH L<-M",
                 "9 UP L S ok value=1",
                 "10 JOB_DONE L job=1",
                 "10 TASK_EXIT L",
                 "10 SWITCH idle<-L");
    CHECK_EQ(sem_status_of(S).value, 1);
    CHECK_EQ(sem_status_of(S).holder, PR_NO_TASK);
}

/*
 * Counting semaphore at 0, nobody ever ups it.
 * Wa (3) released at 2 downs with timeout 5 at tick 2: times out at 7.
 * Wb (2) released at 2 computes half a tick and downs with timeout 5 at
 * 2.5, still tick 2: times out at 7 as well (timeouts count ticks).
 * Wc (1) released at 3 downs with timeout 1: times out at 4.
 * At 7 the two timeouts fire in the order they were armed (Wa, Wb).
 */
static void timeout_fires_exactly_at_requested_tick(void)
{
    harness_reset(0);
    downer_t a = DOWNER(S, 5, 0, 0, 0), b = DOWNER(S, 5, TICKS(1) / 2, 0, 0), c = DOWNER(S, 1, 0, 0, 0);
    CHECK_EQ(counting("S", 0, PR_SEM_PRIO), S);
    task_at("Wa", 3, 2, downer_body, &a);
    task_at("Wb", 2, 2, downer_body, &b);
    task_at("Wc", 1, 3, downer_body, &c);
    pr_host_run_until(TICKS(3) + TICKS(1) / 2);
    CHECK_EQ(sem_status_of(S).value, -3);
    CHECK_EQ(sem_status_of(S).waiters, 3);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SCHED,
                 "2 SWITCH Wa<-idle",
                 "2 BLOCK Wa S ok",
                 "2 SWITCH Wb<-Wa",
                 "2.5 BLOCK Wb S ok",
                 "2.5 SWITCH idle<-Wb",
                 "3 SWITCH Wc<-idle",
                 "3 BLOCK Wc S ok",
                 "3 SWITCH idle<-Wc",
                 "4 TIMEOUT Wc S PR_ETIMEDOUT",
                 "4 WAKE Wc S PR_ETIMEDOUT",
                 "4 SWITCH Wc<-idle",
                 "4 SWITCH idle<-Wc",
                 "7 TIMEOUT Wa S PR_ETIMEDOUT",
                 "7 WAKE Wa S PR_ETIMEDOUT",
                 "7 TIMEOUT Wb S PR_ETIMEDOUT",
                 "7 WAKE Wb S PR_ETIMEDOUT",
                 "7 SWITCH Wa<-idle",
                 "7 SWITCH Wb<-Wa",
                 "7 SWITCH idle<-Wb");
    CHECK_EQ(a.rc, PR_ETIMEDOUT);
    CHECK_EQ(a.at, 7);
    CHECK_EQ(b.rc, PR_ETIMEDOUT);
    CHECK_EQ(b.at, 7);
    CHECK_EQ(c.rc, PR_ETIMEDOUT);
    CHECK_EQ(c.at, 4);
    CHECK_EQ(sem_status_of(S).value, 0);
    CHECK_EQ(sem_status_of(S).waiters, 0);
}

/* The BLOCK record carries the timeout given (0xFFFFFFFF for forever). */
static void block_record_carries_timeout(void)
{
    harness_reset(0);
    downer_t a = DOWNER(S, 5, 0, 0, 0), f = DOWNER(S, PR_FOREVER, 0, 0, 0);
    CHECK_EQ(counting("S", 0, PR_SEM_PRIO), S);
    task_at("A", 2, 0, downer_body, &a);
    task_at("F", 1, 0, downer_body, &f);
    CHECK_EQ(pr_host_run_ticks(3), PR_HOST_REACHED);
    size_t n, blocks = 0;
    const pr_trace_record_t *r = pr_host_trace(&n);
    for (size_t i = 0; i < n; i++) {
        if (r[i].event != PR_EV_BLOCK)
            continue;
        CHECK_EQ(r[i].object, S);
        CHECK_EQ((uint32_t)r[i].value, blocks == 0 ? 5u : PR_FOREVER);
        blocks++;
    }
    CHECK_EQ(blocks, 2);
}

/* Timeouts longer than the timer wheel (64 slots) fire at their own tick,
 * not when the wheel comes round: down at 1 with 100 -> 101, with 64 -> 65,
 * with 63 -> 64. */
static void timeout_longer_than_timer_wheel(void)
{
    harness_reset(0);
    downer_t a = DOWNER(S, 100, 0, 0, 0), b = DOWNER(S, 64, 0, 0, 0), c = DOWNER(S, 63, 0, 0, 0);
    CHECK_EQ(counting("S", 0, 0), S);
    task_at("A", 3, 1, downer_body, &a);
    task_at("B", 2, 1, downer_body, &b);
    task_at("C", 1, 1, downer_body, &c);
    CHECK_EQ(pr_host_run_ticks(200), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV(PR_EV_TIMEOUT),
                 "64 TIMEOUT C S PR_ETIMEDOUT",
                 "65 TIMEOUT B S PR_ETIMEDOUT",
                 "101 TIMEOUT A S PR_ETIMEDOUT");
    CHECK_EQ(a.at, 101);
    CHECK_EQ(b.at, 65);
    CHECK_EQ(c.at, 64);
}

/*
 * W (2), released at 1, downs S (counting, 0) with timeout 3: due at tick 4.
 * U (1) computes from 0 and ups S. If U's up comes at exactly 4 (its 4 ticks
 * of work end at the instant of tick 4, and a call at that instant runs
 * before the tick is taken), W gets the semaphore: no timeout. W returns at
 * time 4 with the tick count still 3: the tick-4 interrupt, where the
 * timeout would have fired, comes after.
 */
static const pr_action_t U_at4[] = {A_COMPUTE(4), A_UP(S)};
static void up_at_timeout_instant_wins(void)
{
    harness_reset(0);
    pr_script_t u = SCRIPT(U_at4);
    downer_t w = DOWNER(S, 3, 0, 0, 0);
    CHECK_EQ(counting("S", 0, PR_SEM_PRIO), S);
    script_task("U", 1, 0, &u);
    task_at("W", 2, 1, downer_body, &w);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SCHED,
                 "0 SWITCH U<-idle",
                 "1 SWITCH W<-U",
                 "1 BLOCK W S ok",
                 "1 SWITCH U<-W",
                 "4 WAKE W S ok",
                 "4 SWITCH W<-U",
                 "4 SWITCH idle<-W");
    CHECK_EQ(w.rc, PR_OK);
    CHECK_EQ(w.at_ns, TICKS(4));
    CHECK_EQ(w.at, 3);
    CHECK_EQ(trace_count(PR_EV_TIMEOUT, PR_TRACE_NONE), 0);
    CHECK_EQ(sem_status_of(S).value, 0);
}

/* The same with U's up half a tick later: W timed out at 4; the up at 4.5
 * finds nobody waiting and leaves the value at 1. */
static const pr_action_t U_at4_5[] = {A_COMPUTE(4), {PR_ACT_COMPUTE, 0, 0, 0, TICKS(1) / 2}, A_UP(S)};
static void up_after_timeout_finds_no_waiter(void)
{
    harness_reset(0);
    pr_script_t u = SCRIPT(U_at4_5);
    downer_t w = DOWNER(S, 3, 0, 0, 0);
    CHECK_EQ(counting("S", 0, PR_SEM_PRIO), S);
    script_task("U", 1, 0, &u);
    task_at("W", 2, 1, downer_body, &w);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SCHED | EV(PR_EV_SEM_UP),
                 "0 SWITCH U<-idle",
                 "1 SWITCH W<-U",
                 "1 BLOCK W S ok",
                 "1 SWITCH U<-W",
                 "4 TIMEOUT W S PR_ETIMEDOUT",
                 "4 WAKE W S PR_ETIMEDOUT",
                 "4 SWITCH W<-U",
                 "4 SWITCH U<-W",
                 "4.5 UP U S ok value=1",
                 "4.5 SWITCH idle<-U");
    CHECK_EQ(w.rc, PR_ETIMEDOUT);
    CHECK_EQ(sem_status_of(S).value, 1);
}

/*
 * PR_NO_WAIT: a down that would block fails at once with PR_EAGAIN and
 * changes nothing (no BLOCK, value unchanged, a mutex holder not boosted).
 * T (5) at 0: no-wait down on the empty counting semaphore C -> PR_EAGAIN,
 * trydown -> PR_EAGAIN; C stays 0. L (1) holds mutex S; T's trydown on S ->
 * PR_EAGAIN and L keeps priority 1. With a unit available the same call
 * succeeds. The program itself (outside any task) may poll as well.
 */
enum { C = 1 };
static int nw_rc[5];
static int nw_l_prio;
static pr_id_t nw_L;

static void nowait_body(void *arg)
{
    (void)arg;
    nw_rc[0] = pr_sem_down(C, PR_NO_WAIT);
    nw_rc[1] = pr_sem_trydown(C);
    nw_rc[2] = pr_sem_trydown(S);
    nw_l_prio = status_of(nw_L).effective_priority;
    CHECK_EQ(pr_sem_up(C), PR_OK);
    nw_rc[3] = pr_sem_down(C, PR_NO_WAIT);
}

static void lock_and_wait(void *arg)
{
    (void)arg;
    CHECK_EQ(pr_sem_down(S, PR_FOREVER), PR_OK);
    CHECK_EQ(pr_task_delay(5), PR_OK);
    CHECK_EQ(pr_sem_up(S), PR_OK);
}

static void no_wait_fails_with_eagain_and_changes_nothing(void)
{
    harness_reset(0);
    CHECK_EQ(mutex("S", PR_PROTOCOL_PIP), S);
    CHECK_EQ(counting("C", 0, PR_SEM_PRIO), C);
    CHECK_EQ(pr_sem_down(C, PR_NO_WAIT), PR_EAGAIN); /* from outside */
    nw_L = task_at("L", 1, 0, lock_and_wait, NULL);
    task_at("T", 5, 1, nowait_body, NULL);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    CHECK_EQ(nw_rc[0], PR_EAGAIN);
    CHECK_EQ(nw_rc[1], PR_EAGAIN);
    CHECK_EQ(nw_rc[2], PR_EAGAIN);
    CHECK_EQ(nw_l_prio, 1);
    CHECK_EQ(nw_rc[3], PR_OK);
    EXPECT_TRACE(EV(PR_EV_SEM_DOWN) | EV(PR_EV_BLOCK) | EV(PR_EV_PRIO),
                 "0 DOWN - C PR_EAGAIN value=0",
                 "0 DOWN L S ok value=0",
                 "1 DOWN T C PR_EAGAIN value=0",
                 "1 DOWN T C PR_EAGAIN value=0",
                 "1 DOWN T S PR_EAGAIN value=0",
                 "1 DOWN T C ok value=0");
    CHECK_EQ(sem_status_of(C).value, 0);
    CHECK_EQ(sem_status_of(S).value, 1);
}

/*
 * PR_FOREVER: W (2) downs at 1 and waits; D (1) delays 1000 ticks and then
 * ups: W gets the semaphore at 1000. No timeout ever fires in between.
 */
static const pr_action_t D_body[] = {A_DELAY(1000), A_UP(S)};
static void forever_never_times_out(void)
{
    harness_reset(0);
    pr_script_t d = SCRIPT(D_body);
    downer_t w = DOWNER(S, PR_FOREVER, 0, 0, 0);
    CHECK_EQ(counting("S", 0, PR_SEM_PRIO), S);
    script_task("D", 1, 0, &d);
    pr_id_t tw = task_at("W", 2, 1, downer_body, &w);
    CHECK_EQ(pr_host_run_ticks(999), PR_HOST_REACHED);
    CHECK_EQ(status_of(tw).state, PR_TASK_BLOCKED);
    CHECK_EQ(pr_kernel_timers_armed(), 1); /* D's delay only */
    CHECK_EQ(pr_host_run_ticks(2000), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SCHED,
                 "0 SWITCH D<-idle",
                 "0 SWITCH idle<-D",
                 "1 SWITCH W<-idle",
                 "1 BLOCK W S ok",
                 "1 SWITCH idle<-W",
                 "1000 SWITCH D<-idle",
                 "1000 WAKE W S ok",
                 "1000 SWITCH W<-D",
                 "1000 SWITCH idle<-W");
    CHECK_EQ(w.rc, PR_OK);
    CHECK_EQ(w.at, 1000);
}

/* With nobody to up it, a forever wait arms no timer: the kernel is
 * quiescent as soon as W blocks, and W stays blocked. */
static void forever_arms_no_timer(void)
{
    harness_reset(0);
    downer_t w = DOWNER(S, PR_FOREVER, 0, 0, 0);
    CHECK_EQ(counting("S", 0, 0), S);
    pr_id_t tw = task_at("W", 2, 1, downer_body, &w);
    CHECK_EQ(pr_host_run_ticks(5000), PR_HOST_QUIESCENT);
    CHECK_EQ(pr_host_now(), TICKS(1));
    CHECK_EQ(pr_kernel_timers_armed(), 0);
    CHECK_EQ(status_of(tw).state, PR_TASK_BLOCKED);
    CHECK_EQ(status_of(tw).blocked_on, S);
    CHECK_EQ(trace_count(PR_EV_TIMEOUT, PR_TRACE_NONE), 0);
    /* An up from the program (outside any task) wakes it. */
    CHECK_EQ(pr_sem_up(S), PR_OK);
    CHECK_EQ(pr_host_run_ticks(5000), PR_HOST_QUIESCENT);
    CHECK_EQ(w.rc, PR_OK);
    CHECK_EQ(w.at, 1);
}

/*
 * A timeout at the end of a chain unwinds the whole chain in that tick.
 * T1 (1) holds A; T2 (2) holds B and waits on A (T1 1->2); T3 (3) waits on B
 * with timeout 2 at tick 2 (T2 2->3, T1 2->3). At 4 T3 times out: B lends
 * nothing any more: T2 3->2; A lends T2's 2: T1 3->2 (still above its base:
 * T2 still waits). T3 computes 4..5 (it skips its critical section); T1
 * computes its remaining 2 ticks 5..7, unlocks A: 2->1; T2 runs 7..8; T1 8..9.
 */
enum { MA = 0, MB = 1 };
static const pr_action_t T1_body[] = {A_LOCK(MA), A_COMPUTE(6), A_UNLOCK(MA), A_COMPUTE(1)};
static const pr_action_t T2_body[] = {A_LOCK(MB), A_LOCK(MA), A_COMPUTE(1), A_UNLOCK(MA), A_UNLOCK(MB)};
static const pr_action_t T3_body[] = {A_LOCK_TO(MB, 2), A_COMPUTE(1), A_UNLOCK(MB), A_COMPUTE(1)};

static void timeout_unwinds_whole_chain(void)
{
    harness_reset(0);
    pr_script_t s1 = SCRIPT(T1_body), s2 = SCRIPT(T2_body), s3 = SCRIPT(T3_body);
    CHECK_EQ(mutex("A", PR_PROTOCOL_PIP), MA);
    CHECK_EQ(mutex("B", PR_PROTOCOL_PIP), MB);
    pr_id_t t1 = script_task("T1", 1, 0, &s1);
    pr_id_t t2 = script_task("T2", 2, 1, &s2);
    script_task("T3", 3, 2, &s3);
    pr_host_run_until(TICKS(4) + TICKS(1) / 2);
    CHECK_EQ(status_of(t1).effective_priority, 2);
    CHECK_EQ(status_of(t2).effective_priority, 2);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SCHED,
                 "0 SWITCH T1<-idle",
                 "1 SWITCH T2<-T1",
                 "1 BLOCK T2 A ok",
                 "1 PRIO T1 1->2 inherit A",
                 "1 SWITCH T1<-T2",
                 "2 SWITCH T3<-T1",
                 "2 BLOCK T3 B ok",
                 "2 PRIO T2 2->3 inherit B",
                 "2 PRIO T1 2->3 inherit A",
                 "2 SWITCH T1<-T3",
                 "4 TIMEOUT T3 B PR_ETIMEDOUT",
                 "4 PRIO T2 3->2 timeout B",
                 "4 PRIO T1 3->2 timeout A",
                 "4 WAKE T3 B PR_ETIMEDOUT",
                 "4 SWITCH T3<-T1",
                 "5 SWITCH T1<-T3",
                 "7 PRIO T1 2->1 release A",
                 "7 WAKE T2 A ok",
                 "7 SWITCH T2<-T1",
                 "8 SWITCH T1<-T2",
                 "9 SWITCH idle<-T1");
    CHECK_EQ(s3.timeouts, 1);
}

/*
 * Counting semaphore at 0: W1 (3, forever) and W2 (2, timeout 3) block at 1:
 * value -2. W2 times out at 4: value -1, one waiter. Nothing else can
 * happen (no timer left), so the run stops there, at 4. The program's up
 * hands the unit to W1: value 0.
 */
static void timeout_restores_counting_value(void)
{
    harness_reset(0);
    downer_t w1 = DOWNER(S, PR_FOREVER, 0, 0, 0), w2 = DOWNER(S, 3, 0, 0, 0);
    CHECK_EQ(counting("S", 0, PR_SEM_PRIO), S);
    task_at("W1", 3, 1, downer_body, &w1);
    task_at("W2", 2, 1, downer_body, &w2);
    pr_host_run_ticks(2);
    CHECK_EQ(sem_status_of(S).value, -2);
    CHECK_EQ(sem_status_of(S).waiters, 2);
    CHECK_EQ(pr_host_run_ticks(6), PR_HOST_QUIESCENT);
    CHECK_EQ(pr_host_now(), TICKS(4));
    CHECK_EQ(w2.rc, PR_ETIMEDOUT);
    CHECK_EQ(w2.at, 4);
    CHECK_EQ(sem_status_of(S).value, -1);
    CHECK_EQ(sem_status_of(S).waiters, 1);
    CHECK_EQ(pr_sem_up(S), PR_OK);
    pr_host_run_ticks(10);
    CHECK_EQ(w1.rc, PR_OK);
    CHECK_EQ(w1.at, 4);
    CHECK_EQ(sem_status_of(S).value, 0);
    CHECK_EQ(sem_status_of(S).waiters, 0);
}

HARNESS_MAIN(TEST_CASE(waiter_timeout_withdraws_boost_at_that_tick),
             TEST_CASE(timeout_fires_exactly_at_requested_tick),
             TEST_CASE(block_record_carries_timeout),
             TEST_CASE(timeout_longer_than_timer_wheel),
             TEST_CASE(up_at_timeout_instant_wins),
             TEST_CASE(up_after_timeout_finds_no_waiter),
             TEST_CASE(no_wait_fails_with_eagain_and_changes_nothing),
             TEST_CASE(forever_never_times_out),
             TEST_CASE(forever_arms_no_timer),
             TEST_CASE(timeout_unwinds_whole_chain),
             TEST_CASE(timeout_restores_counting_value))
