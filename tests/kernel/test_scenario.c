/*
 * The scenario interpreter: scripts are checked before they run; a job runs
 * the actions in order; a failed LOCK skips its critical section (and
 * releases what an overlapping section still holds); results are counted in
 * the script.
 */
#include "harness.h"

enum { A = 0, B = 1 };

/* ---- pr_script_check ---- */

static int check(const pr_action_t *actions, uint32_t count, uint32_t *bad)
{
    pr_script_t sc = {actions, count, 0, 0, PR_OK, 0, 0, 0, 0, 0, 0};
    *bad = 999;
    return pr_script_check(&sc, bad);
}
#define CHECK_SCRIPT(actions, err, at)                                                              \
    do {                                                                                           \
        uint32_t bad_;                                                                             \
        CHECK_EQ(check((actions), sizeof(actions) / sizeof *(actions), &bad_), (err));            \
        if ((err) != PR_OK)                                                                        \
            CHECK_EQ(bad_, (at));                                                                  \
    } while (0)

static void script_check_accepts_and_rejects(void)
{
    static const pr_action_t nested[] = {A_LOCK(A), A_LOCK(B), A_UNLOCK(B), A_UNLOCK(A), A_WAIT_PERIOD};
    static const pr_action_t overlapping[] = {A_LOCK(A), A_LOCK(B), A_UNLOCK(A), A_UNLOCK(B)};
    static const pr_action_t no_unlock[] = {A_COMPUTE(1), A_LOCK(A), A_COMPUTE(1)};
    static const pr_action_t stray_unlock[] = {A_COMPUTE(1), A_UNLOCK(A)};
    static const pr_action_t relock[] = {A_LOCK(A), A_LOCK(A), A_UNLOCK(A), A_UNLOCK(A)};
    static const pr_action_t period_inside[] = {A_LOCK(A), A_WAIT_PERIOD, A_UNLOCK(A)};
    static const pr_action_t prio_high[] = {A_SET_PRIORITY(PR_PRIO_MAX), A_SET_PRIORITY(PR_PRIO_MAX + 1)};
    static const pr_action_t delay_forever[] = {A_DELAY(5), A_DELAY(PR_FOREVER)};
    static const pr_action_t unknown[] = {A_COMPUTE(1), {(pr_action_kind_t)99, 0, 0, 0, 0}};
    CHECK_SCRIPT(nested, PR_OK, 0);
    CHECK_SCRIPT(overlapping, PR_OK, 0);
    CHECK_SCRIPT(no_unlock, PR_EINVAL, 1);
    CHECK_SCRIPT(stray_unlock, PR_EINVAL, 1);
    CHECK_SCRIPT(relock, PR_EINVAL, 1);
    CHECK_SCRIPT(period_inside, PR_EINVAL, 1);
    CHECK_SCRIPT(prio_high, PR_EINVAL, 1);
    CHECK_SCRIPT(delay_forever, PR_EINVAL, 1);
    CHECK_SCRIPT(unknown, PR_EINVAL, 1);
    uint32_t bad = 7;
    CHECK_EQ(pr_script_check(NULL, &bad), PR_EINVAL);
    pr_script_t empty = {NULL, 0, 0, 0, PR_OK, 0, 0, 0, 0, 0, 0};
    CHECK_EQ(pr_script_check(&empty, NULL), PR_OK);
    pr_script_t missing = {NULL, 2, 0, 0, PR_OK, 0, 0, 0, 0, 0, 0};
    CHECK_EQ(pr_script_check(&missing, NULL), PR_EINVAL);
}

/* ---- running ---- */

/*
 * A failed LOCK in overlapping sections. H (1) locks B at 0 and holds it
 * 10 ticks. T (2), released at 1: LOCK A, LOCK B with timeout 2, COMPUTE 1,
 * UNLOCK A, COMPUTE 1, UNLOCK B, COMPUTE 1. T gets A, blocks on B at 1 and
 * times out at 3. Its job skips B's section - which holds the UNLOCK of A,
 * entered before: A is released at 3 (UP T A), then T computes its last
 * tick 3..4 and ends holding nothing. H: 0..1, 1..3, 4..11, unlocks B at 11.
 */
static const pr_action_t H_body[] = {A_LOCK(B), A_COMPUTE(10), A_UNLOCK(B)};
static const pr_action_t T_body[] = {A_LOCK(A),    A_LOCK_TO(B, 2), A_COMPUTE(1), A_UNLOCK(A),
                                     A_COMPUTE(1), A_UNLOCK(B),     A_COMPUTE(1)};

static void failed_lock_releases_overlapping_section(void)
{
    harness_reset(0);
    pr_script_t h = SCRIPT(H_body), t = SCRIPT(T_body);
    CHECK_EQ(mutex("A", PR_PROTOCOL_NONE), A);
    CHECK_EQ(mutex("B", PR_PROTOCOL_NONE), B);
    script_task("H", 1, 0, &h);
    pr_id_t tt = script_task("T", 2, 1, &t);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV(PR_EV_SEM_DOWN) | EV(PR_EV_SEM_UP) | EV(PR_EV_TASK_EXIT),
                 "0 DOWN H B ok value=0",
                 "1 DOWN T A ok value=0",
                 "3 DOWN T B PR_ETIMEDOUT value=0",
                 "3 UP T A ok value=1",
                 "4 TASK_EXIT T",
                 "11 UP H B ok value=1",
                 "11 TASK_EXIT H");
    CHECK_EQ(t.timeouts, 1);
    CHECK_EQ(t.errors, 0);
    CHECK_EQ(status_of(tt).mutexes_held, 0);
    CHECK_EQ(sem_status_of(A).holder, PR_NO_TASK);
    CHECK_EQ(pr_sem_free(A), PR_OK); /* nothing left holding it */
}

/* In nested sections a failed inner LOCK skips to its UNLOCK and the outer
 * section goes on: LOCK A, LOCK B (no wait: H holds it), COMPUTE 5, UNLOCK
 * B, COMPUTE 1, UNLOCK A. The job computes 1 tick inside A only. */
static const pr_action_t N_body[] = {A_LOCK(A), A_LOCK_TO(B, PR_NO_WAIT), A_COMPUTE(5), A_UNLOCK(B),
                                     A_COMPUTE(1), A_UNLOCK(A)};

static void failed_inner_lock_skips_nested_section(void)
{
    harness_reset(0);
    pr_script_t h = SCRIPT(H_body), n = SCRIPT(N_body);
    CHECK_EQ(mutex("A", PR_PROTOCOL_NONE), A);
    CHECK_EQ(mutex("B", PR_PROTOCOL_NONE), B);
    script_task("H", 1, 0, &h);
    script_task("N", 2, 1, &n);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV(PR_EV_SEM_DOWN) | EV(PR_EV_SEM_UP) | EV(PR_EV_TASK_EXIT),
                 "0 DOWN H B ok value=0",
                 "1 DOWN N A ok value=0",
                 "1 DOWN N B PR_EAGAIN value=0",
                 "2 UP N A ok value=1",
                 "2 TASK_EXIT N",
                 "11 UP H B ok value=1",
                 "11 TASK_EXIT H");
    CHECK_EQ(n.timeouts, 1); /* PR_EAGAIN counts as a timeout */
    CHECK_EQ(n.errors, 0);
}

/*
 * A periodic script: DOWN/UP, SET_PRIORITY, WAIT_PERIOD in the middle of
 * the list, DELAY. P (period 10, priority 2): job 1 computes 1, sets its
 * priority to 5, and ends at the WAIT_PERIOD (1); job 2 (released at 10)
 * continues after it: delays 2 (10..12), computes 1, and the end of the list
 * ends job 2 at 13; job 3 starts again at the first action.
 */
static const pr_action_t P_body[] = {A_COMPUTE(1), A_SET_PRIORITY(5), A_WAIT_PERIOD, A_DELAY(2), A_COMPUTE(1)};

static void periodic_script_runs_actions_in_order(void)
{
    harness_reset(0);
    pr_script_t p = SCRIPT(P_body);
    pr_id_t tp = periodic_task("P", 2, 10, 0, 0, pr_script_body, &p);
    CHECK_EQ(pr_host_run_ticks(25), PR_HOST_REACHED);
    EXPECT_TRACE(EV(PR_EV_RELEASE) | EV(PR_EV_JOB_DONE) | EV(PR_EV_PRIO_SET) | EV(PR_EV_DELAY) | EV(PR_EV_DELAY_END),
                 "0 RELEASE P job=1",
                 "1 PRIO_SET P 2->5 ok",
                 "1 JOB_DONE P job=1",
                 "10 RELEASE P job=2",
                 "10 DELAY P 2",
                 "12 DELAY_END P",
                 "13 JOB_DONE P job=2",
                 "20 RELEASE P job=3",
                 "21 PRIO_SET P 5->5 ok",
                 "21 JOB_DONE P job=3");
    CHECK_EQ(status_of(tp).base_priority, 5);
    CHECK_EQ(p.errors, 0);
    CHECK_EQ(p.timeouts, 0);
}

/* Errors other than timeouts are counted with the action that failed: UP on
 * a mutex the body does not hold (PR_EPERM, action 1) and a DOWN on a
 * freed semaphore (PR_ENOTALLOC, action 2). */
static const pr_action_t E_body[] = {A_COMPUTE(1), A_UP(A), A_DOWN(B, PR_FOREVER), A_COMPUTE(1)};

static void errors_counted_with_failing_action(void)
{
    harness_reset(0);
    pr_script_t e = SCRIPT(E_body);
    CHECK_EQ(mutex("A", PR_PROTOCOL_NONE), A);
    CHECK_EQ(counting("B", 0, 0), B);
    CHECK_EQ(pr_sem_free(B), PR_OK);
    script_task("E", 1, 0, &e);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    CHECK_EQ(e.errors, 2);
    CHECK_EQ(e.last_error, PR_ENOTALLOC);
    CHECK_EQ(e.last_error_action, 2);
    CHECK_EQ(e.timeouts, 0);
    CHECK_EQ(trace_tick_of(PR_EV_TASK_EXIT, PR_TRACE_NONE, 0), 2);
}

/*
 * Crossing sections where the failed LOCK is the outer one, or where a
 * section opens inside the skipped range and closes after it. G (1) holds A
 * and B from 0 to 10. X (2), released at 1: LOCK A no-wait (fails: skip
 * [0, 2], which opens B's section), UNLOCK B (skipped with it: no error).
 * Y (3), released at 1: LOCK C, LOCK B no-wait (fails: skip [1, 5]: C, held
 * from before, is unlocked at once; the second LOCK C opens a section
 * skipped in full), UNLOCK C (skipped: no error). Neither ends holding
 * anything, and neither counts an error; both take no time, so G ends at 10.
 */
static const pr_action_t G_body[] = {A_LOCK(A), A_LOCK(B), A_COMPUTE(10), A_UNLOCK(B), A_UNLOCK(A)};
static const pr_action_t X_body[] = {A_LOCK_TO(A, PR_NO_WAIT), A_LOCK(B), A_UNLOCK(A), A_UNLOCK(B)};
static const pr_action_t Y_body[] = {A_LOCK(2),    A_LOCK_TO(B, PR_NO_WAIT), A_UNLOCK(2), A_LOCK(2),
                                     A_COMPUTE(1), A_UNLOCK(B),              A_UNLOCK(2)};

static void failed_lock_skips_sections_opened_in_its_range(void)
{
    harness_reset(0);
    pr_script_t g = SCRIPT(G_body), x = SCRIPT(X_body), y = SCRIPT(Y_body);
    CHECK_EQ(mutex("A", PR_PROTOCOL_NONE), A);
    CHECK_EQ(mutex("B", PR_PROTOCOL_NONE), B);
    CHECK_EQ(mutex("C", PR_PROTOCOL_NONE), 2);
    script_task("G", 1, 0, &g);
    pr_id_t xt = script_task("X", 2, 1, &x);
    pr_id_t yt = script_task("Y", 3, 1, &y);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV(PR_EV_SEM_DOWN) | EV(PR_EV_SEM_UP),
                 "0 DOWN G A ok value=0",
                 "0 DOWN G B ok value=0",
                 "1 DOWN Y C ok value=0",
                 "1 DOWN Y B PR_EAGAIN value=0",
                 "1 UP Y C ok value=1",
                 "1 DOWN X A PR_EAGAIN value=0",
                 "10 UP G B ok value=1",
                 "10 UP G A ok value=1");
    CHECK_EQ(x.timeouts, 1);
    CHECK_EQ(x.errors, 0);
    CHECK_EQ(y.timeouts, 1);
    CHECK_EQ(y.errors, 0);
    CHECK_EQ(status_of(xt).mutexes_held, 0);
    CHECK_EQ(status_of(yt).mutexes_held, 0);
}

/* ---- queues and event flags ---- */

#define A_SEND(q, prio) {PR_ACT_SEND, (q), PR_FOREVER, PR_ACT_SEND_PRIORITY, (prio)}
#define A_RECEIVE(q) {PR_ACT_RECEIVE, (q), PR_FOREVER, 0, 0}
#define A_SET(e, mask) {PR_ACT_EVENTS_SET, (e), 0, 0, (mask)}
#define A_CLEAR(e, mask) {PR_ACT_EVENTS_CLEAR, (e), 0, 0, (mask)}
#define A_WAIT_ALL_CLEAR(e, mask) {PR_ACT_EVENTS_WAIT, (e), PR_FOREVER, PR_EVENTS_ALL | PR_EVENTS_CLEAR, (mask)}

static int check_once(const pr_action_t *actions, uint32_t count, uint32_t *bad)
{
    pr_script_t sc = {actions, count, 0, 0, PR_OK, 0, 0, 0, 0, 0, 0};
    *bad = 999;
    return pr_script_check_once(&sc, bad);
}

static void script_check_of_queue_and_events_actions(void)
{
    static const pr_action_t good[] = {A_SEND(0, PR_PRIO_MAX), A_RECEIVE(0), A_SET(0, 0xFFFFFFFFu), A_CLEAR(0, 1),
                                       A_WAIT_ALL_CLEAR(0, 3)};
    static const pr_action_t send_prio[] = {A_SEND(0, PR_PRIO_MAX + 1)};
    static const pr_action_t send_options[] = {{PR_ACT_SEND, 0, PR_FOREVER, 2, 0}};
    static const pr_action_t set_options[] = {{PR_ACT_EVENTS_SET, 0, 0, PR_EVENTS_ALL, 1}};
    static const pr_action_t set_wide[] = {A_SET(0, UINT64_C(0x100000000))};
    static const pr_action_t wait_zero[] = {A_RECEIVE(0), A_WAIT_ALL_CLEAR(0, 0)};
    static const pr_action_t wait_options[] = {{PR_ACT_EVENTS_WAIT, 0, PR_FOREVER, 4, 1}};
    CHECK_SCRIPT(good, PR_OK, 0);
    CHECK_SCRIPT(send_prio, PR_EINVAL, 0);
    CHECK_SCRIPT(send_options, PR_EINVAL, 0);
    CHECK_SCRIPT(set_options, PR_EINVAL, 0);
    CHECK_SCRIPT(set_wide, PR_EINVAL, 0);
    CHECK_SCRIPT(wait_zero, PR_EINVAL, 1);
    CHECK_SCRIPT(wait_options, PR_EINVAL, 0);

    /* A body that runs once (a timer's, an interrupt's) never waits. */
    static const pr_action_t once[] = {A_UP(0), A_SEND(0, 1), A_SET(0, 1), A_CLEAR(0, 1)};
    static const pr_action_t once_receive[] = {A_UP(0), A_RECEIVE(0)};
    static const pr_action_t once_compute[] = {A_COMPUTE(1)};
    static const pr_action_t once_wait[] = {A_SET(0, 1), A_SET(0, 2), A_WAIT_ALL_CLEAR(0, 1)};
    uint32_t bad;
    CHECK_EQ(check_once(once, 4, &bad), PR_OK);
    CHECK_EQ(check_once(once_receive, 2, &bad), PR_EINVAL);
    CHECK_EQ(bad, 1);
    CHECK_EQ(check_once(once_compute, 1, &bad), PR_EINVAL);
    CHECK_EQ(bad, 0);
    CHECK_EQ(check_once(once_wait, 3, &bad), PR_EINVAL);
    CHECK_EQ(bad, 2);
    CHECK_EQ(check_once(send_prio, 1, &bad), PR_EINVAL);
    CHECK_EQ(bad, 0);
}

/*
 * S (2): compute 1, send Q (priority 5), wait E 0x3 all clear, compute 1.
 * R (1): receive Q, compute 1, set E 0x3.
 * S computes 0-1 and sends at 1 (nobody waits: the message stays in Q), then
 * waits for E; R receives it at 1, computes 1-2 and sets E at 2, which wakes
 * S (more urgent): R's set is its last action, so R ends at 2 first (the
 * interpreter's scheduler lock at a job's end), then S computes 2-3, its
 * wait having cleared the flags.
 */
static const pr_action_t S_body[] = {A_COMPUTE(1), A_SEND(0, 5), A_WAIT_ALL_CLEAR(0, 3), A_COMPUTE(1)};
static const pr_action_t R_body[] = {A_RECEIVE(0), A_COMPUTE(1), A_SET(0, 3)};

static void queue_and_events_actions_run(void)
{
    harness_reset(0);
    static void *buffer[PR_MSGQ_BUFFER_BYTES(PR_SCRIPT_MSG_SIZE, 1) / sizeof(void *)];
    pr_msgq_attr_t attr;
    pr_msgq_attr_init(&attr);
    attr.name = "Q";
    attr.msg_size = PR_SCRIPT_MSG_SIZE;
    attr.length = 1;
    attr.buffer = buffer;
    attr.buffer_bytes = sizeof buffer;
    pr_id_t q, e;
    CHECK_EQ(pr_msgq_alloc(&attr, &q), PR_OK);
    CHECK_EQ(pr_events_alloc("E", &e), PR_OK);
    CHECK_EQ(q, 0);
    CHECK_EQ(e, 0);
    pr_script_t sc = SCRIPT(S_body), rc = SCRIPT(R_body);
    pr_id_t st = script_task("S", 2, 0, &sc);
    pr_id_t rt = script_task("R", 1, 0, &rc);
    CHECK_EQ(pr_host_run_ticks(10), PR_HOST_QUIESCENT);
    CHECK_EQ(trace_tick_of(PR_EV_MSGQ_SEND, st, 0), 1);
    CHECK_EQ(trace_tick_of(PR_EV_EVENTS_WAIT, st, 0), 1);
    CHECK_EQ(trace_tick_of(PR_EV_MSGQ_RECEIVE, rt, 0), 1);
    CHECK_EQ(trace_tick_of(PR_EV_EVENTS_SET, rt, 0), 2);
    CHECK_EQ(trace_tick_of(PR_EV_EVENTS_WAKE, st, 0), 2);
    CHECK_EQ(trace_tick_of(PR_EV_TASK_EXIT, st, 0), 3);
    CHECK_EQ(trace_tick_of(PR_EV_TASK_EXIT, rt, 0), 2); /* its last action ends its job (scheduler lock) */
    pr_msgq_status_t qs;
    CHECK_EQ(pr_msgq_status(q, &qs), PR_OK);
    CHECK_EQ(qs.sends, 1);
    CHECK_EQ(qs.receives, 1);
    CHECK_EQ(qs.messages, 0);
    pr_events_status_t es;
    CHECK_EQ(pr_events_status(e, &es), PR_OK);
    CHECK_EQ(es.flags, 0); /* cleared by S's wait */
    CHECK_EQ(es.wakeups, 1);
    CHECK_EQ(sc.errors + sc.timeouts + rc.errors + rc.timeouts, 0);
}

HARNESS_MAIN(TEST_CASE(script_check_accepts_and_rejects),
             TEST_CASE(script_check_of_queue_and_events_actions),
             TEST_CASE(queue_and_events_actions_run),
             TEST_CASE(failed_lock_releases_overlapping_section),
             TEST_CASE(failed_inner_lock_skips_nested_section),
             TEST_CASE(failed_lock_skips_sections_opened_in_its_range),
             TEST_CASE(periodic_script_runs_actions_in_order),
             TEST_CASE(errors_counted_with_failing_action))
