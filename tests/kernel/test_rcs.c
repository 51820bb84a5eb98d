/*
 * rcs, the restartable critical section: a more urgent task that asks for a
 * mutex held by a less urgent one takes it at once and the holder's section
 * is aborted. The aborted task stops computing at once, learns of the abort
 * at its recovery point (PR_EABORTED from its next call on that mutex;
 * pr_sem_aborted() before that), and retries. The scenario interpreter
 * restarts the section from its LOCK and counts the work lost.
 */
#include "harness.h"

enum { A = 0, B = 1 };

/* ---- the C API: abort, recovery, retry ---- */

static struct {
    int aborted_after_compute, pending_in_status;
    int up_rc, aborted_after_up, up_again_rc, retry_rc, final_up_rc;
    uint64_t computed_until;
} h;

/* Holder (1): locks A, computes 5 ticks - cut short by the abort at 2 -,
 * finds out, and retries the whole section. */
static void holder_body(void *arg)
{
    (void)arg;
    pr_sem_down(A, PR_FOREVER);
    pr_host_consume(TICKS(5));
    h.computed_until = pr_host_now();
    h.aborted_after_compute = pr_sem_aborted();
    h.pending_in_status = (int)status_of(pr_task_self()).aborts_pending;
    h.up_rc = pr_sem_up(A); /* the recovery point */
    h.aborted_after_up = pr_sem_aborted();
    h.up_again_rc = pr_sem_up(A); /* told once: now an ordinary non-holder */
    h.retry_rc = pr_sem_down(A, PR_FOREVER);
    pr_host_consume(TICKS(5));
    h.final_up_rc = pr_sem_up(A);
}

static void urgent_body(void *arg)
{
    (void)arg;
    CHECK_EQ(pr_sem_down(A, PR_FOREVER), PR_OK);
    CHECK_EQ(sem_status_of(A).holder, pr_task_self());
    pr_host_consume(TICKS(1));
    CHECK_EQ(pr_sem_up(A), PR_OK);
}

/*
 * 0: H locks A and computes. 2: U (3) asks for A: H's section is aborted
 * and U takes A at once (no BLOCK), computes 2..3 and ends. 3: H runs
 * again: its compute returns at once (2 of its 5 ticks done), it sees the
 * abort, its up reports PR_EABORTED, and its retry gets A: 3..8.
 */
static void abort_then_recovery_then_retry(void)
{
    harness_reset(0);
    memset(&h, 0, sizeof h);
    CHECK_EQ(mutex("A", PR_PROTOCOL_RCS), A);
    pr_id_t th = task_at("H", 1, 0, holder_body, NULL);
    task_at("U", 3, 2, urgent_body, NULL);
    pr_host_run_until(TICKS(2) + TICKS(1) / 2);
    CHECK_EQ(status_of(th).aborts, 1);
    CHECK_EQ(status_of(th).aborts_pending, 1);
    CHECK_EQ(status_of(th).mutexes_held, 0);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SCHED | EV(PR_EV_ABORT) | EV(PR_EV_SEM_DOWN) | EV(PR_EV_SEM_UP),
                 "0 SWITCH H<-idle",
                 "0 DOWN H A ok value=0",
                 "2 SWITCH U<-H",
                 "2 ABORT H A by=U",
                 "2 DOWN U A ok value=0",
                 "3 UP U A ok value=1",
                 "3 SWITCH H<-U",
                 "3 UP H A PR_EABORTED value=1",
                 "3 UP H A PR_EPERM value=1",
                 "3 DOWN H A ok value=0",
                 "8 UP H A ok value=1",
                 "8 SWITCH idle<-H");
    CHECK_EQ(h.computed_until, TICKS(3)); /* returned as soon as H ran again */
    CHECK_EQ(h.aborted_after_compute, 1);
    CHECK_EQ(h.pending_in_status, 1);
    CHECK_EQ(h.up_rc, PR_EABORTED);
    CHECK_EQ(h.aborted_after_up, 0);
    CHECK_EQ(h.up_again_rc, PR_EPERM);
    CHECK_EQ(h.retry_rc, PR_OK);
    CHECK_EQ(h.final_up_rc, PR_OK);
    CHECK_EQ(status_of(th).aborts, 1);
    CHECK_EQ(status_of(th).aborts_pending, 0);
    pr_sem_stats_t st;
    CHECK_EQ(pr_sem_stats(A, &st), PR_OK);
    CHECK_EQ(st.aborts, 1);
    CHECK_EQ(st.downs, 3);
    CHECK_EQ(st.ups, 2);
    CHECK_EQ(pr_sem_free(A), PR_OK);
}

/* The next call on that mutex may be a lock too: it reports the abort and
 * does nothing else; the one after locks. */
static int lock_rc[2];
static void holder_locks_again(void *arg)
{
    (void)arg;
    pr_sem_down(A, PR_FOREVER);
    pr_host_consume(TICKS(5));
    lock_rc[0] = pr_sem_down(A, PR_FOREVER);
    lock_rc[1] = pr_sem_down(A, PR_FOREVER);
    pr_sem_up(A);
}

static void recovery_point_may_be_a_lock(void)
{
    harness_reset(0);
    CHECK_EQ(mutex("A", PR_PROTOCOL_RCS), A);
    task_at("H", 1, 0, holder_locks_again, NULL);
    task_at("U", 3, 2, urgent_body, NULL);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    CHECK_EQ(lock_rc[0], PR_EABORTED);
    CHECK_EQ(lock_rc[1], PR_OK);
    EXPECT_TRACE(EV(PR_EV_SEM_DOWN),
                 "0 DOWN H A ok value=0",
                 "2 DOWN U A ok value=0",
                 "3 DOWN H A PR_EABORTED value=1",
                 "3 DOWN H A ok value=0");
}

/*
 * A requester that is not more urgent than the holder waits, as under pip.
 * H (2) locks A at 0 and computes 3; W (2), released at 0 behind it, gets
 * the CPU when H's one-tick slice ends at 1 and asks for A: it blocks,
 * nothing is aborted, and W is handed A when H unlocks it at 3.
 */
static const pr_action_t Hold_body[] = {A_LOCK(A), A_COMPUTE(3), A_UNLOCK(A)};
static const pr_action_t Want_body[] = {A_LOCK(A), A_COMPUTE(1), A_UNLOCK(A)};

static void equally_urgent_requester_waits(void)
{
    harness_reset(1);
    pr_script_t sh = SCRIPT(Hold_body), sw = SCRIPT(Want_body);
    CHECK_EQ(mutex("A", PR_PROTOCOL_RCS), A);
    script_task("H", 2, 0, &sh);
    script_task("W", 2, 0, &sw);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SCHED | EV(PR_EV_ABORT),
                 "0 SWITCH H<-idle",
                 "1 SWITCH W<-H",
                 "1 BLOCK W A ok",
                 "1 SWITCH H<-W",
                 "3 WAKE W A ok",
                 "3 SWITCH W<-H",
                 "4 SWITCH idle<-W");
    CHECK_EQ(sh.aborts + sw.aborts, 0);
}

/* ---- the scenario interpreter: restart and lost work ---- */

/*
 * Nested sections, aborted inner then outer.
 *   L (1) at 0: LOCK A, COMPUTE 1, LOCK B, COMPUTE 2, UNLOCK B, COMPUTE 1, UNLOCK A, COMPUTE 1
 *   X (5) at 2: LOCK B, COMPUTE 1, UNLOCK B
 *   Y (6) at 4: LOCK A, COMPUTE 1, UNLOCK A
 * 2: X aborts L's B section (L did 1..2 in it). 3: L's UNLOCK B reports the
 * abort: B's section restarts at 3 (lost: 1 tick). 4: Y aborts L's A
 * section, while L is in B again (3..4 done). 5: L unlocks B (it still
 * holds it), its compute returns at once, its UNLOCK A reports the abort:
 * A's section restarts at 5. Lost: everything since LOCK A (0..2 and 3..4:
 * 3 ticks), the inner tick already counted counted once. Then 5..10.
 */
static const pr_action_t N_body[] = {A_LOCK(A),   A_COMPUTE(1), A_LOCK(B),     A_COMPUTE(2),
                                     A_UNLOCK(B), A_COMPUTE(1), A_UNLOCK(A),   A_COMPUTE(1)};
static const pr_action_t X_body[] = {A_LOCK(B), A_COMPUTE(1), A_UNLOCK(B)};
static const pr_action_t Y_body[] = {A_LOCK(A), A_COMPUTE(1), A_UNLOCK(A)};

static void nested_sections_restart_and_lost_work_counted_once(void)
{
    harness_reset(0);
    pr_script_t sn = SCRIPT(N_body), sx = SCRIPT(X_body), sy = SCRIPT(Y_body);
    CHECK_EQ(mutex("A", PR_PROTOCOL_RCS), A);
    CHECK_EQ(mutex("B", PR_PROTOCOL_RCS), B);
    pr_id_t l = script_task("L", 1, 0, &sn);
    script_task("X", 5, 2, &sx);
    script_task("Y", 6, 4, &sy);
    pr_host_run_until(TICKS(3) + TICKS(1) / 2);
    CHECK_EQ(sn.aborts, 1);
    CHECK_EQ(sn.lost, TICKS(1));
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV(PR_EV_ABORT) | EV(PR_EV_SEM_DOWN) | EV(PR_EV_SEM_UP) | EV(PR_EV_TASK_EXIT),
                 "0 DOWN L A ok value=0",
                 "1 DOWN L B ok value=0",
                 "2 ABORT L B by=X",
                 "2 DOWN X B ok value=0",
                 "3 UP X B ok value=1",
                 "3 TASK_EXIT X",
                 "3 UP L B PR_EABORTED value=1",
                 "3 DOWN L B ok value=0",
                 "4 ABORT L A by=Y",
                 "4 DOWN Y A ok value=0",
                 "5 UP Y A ok value=1",
                 "5 TASK_EXIT Y",
                 "5 UP L B ok value=1",
                 "5 UP L A PR_EABORTED value=1",
                 "5 DOWN L A ok value=0",
                 "6 DOWN L B ok value=0",
                 "8 UP L B ok value=1",
                 "9 UP L A ok value=1",
                 "10 TASK_EXIT L");
    CHECK_EQ(sn.aborts, 2);
    CHECK_EQ(sn.lost, TICKS(3));
    CHECK_EQ(sn.errors, 0);
    CHECK_EQ(status_of(l).aborts, 2);
    CHECK_EQ(status_of(l).aborts_pending, 0);
    CHECK_EQ(status_of(l).mutexes_held, 0);
}

/*
 * Crossing sections, the later one aborted after the earlier one closed:
 *   L (1) at 0: LOCK A, LOCK B, COMPUTE 2, UNLOCK A, COMPUTE 2, UNLOCK B
 *   X (5) at 3: LOCK B, COMPUTE 1, UNLOCK B
 * B's section restarts at its LOCK (index 1); on the replay UNLOCK A is
 * skipped (A was released before the abort), so the job ends without an
 * error and holding nothing. Lost: 0..3.
 */
static const pr_action_t C_body[] = {A_LOCK(A), A_LOCK(B), A_COMPUTE(2), A_UNLOCK(A), A_COMPUTE(2), A_UNLOCK(B)};

static void crossing_section_restart_skips_closed_unlock(void)
{
    harness_reset(0);
    pr_script_t sc = SCRIPT(C_body), sx = SCRIPT(X_body);
    CHECK_EQ(mutex("A", PR_PROTOCOL_RCS), A);
    CHECK_EQ(mutex("B", PR_PROTOCOL_RCS), B);
    pr_id_t l = script_task("L", 1, 0, &sc);
    script_task("X", 5, 3, &sx);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV(PR_EV_ABORT) | EV(PR_EV_SEM_DOWN) | EV(PR_EV_SEM_UP) | EV(PR_EV_TASK_EXIT),
                 "0 DOWN L A ok value=0",
                 "0 DOWN L B ok value=0",
                 "2 UP L A ok value=1",
                 "3 ABORT L B by=X",
                 "3 DOWN X B ok value=0",
                 "4 UP X B ok value=1",
                 "4 TASK_EXIT X",
                 "4 UP L B PR_EABORTED value=1",
                 "4 DOWN L B ok value=0",
                 "8 UP L B ok value=1",
                 "8 TASK_EXIT L");
    CHECK_EQ(sc.aborts, 1);
    CHECK_EQ(sc.lost, TICKS(3));
    CHECK_EQ(sc.errors, 0);
    CHECK_EQ(status_of(l).mutexes_held, 0);
}

/*
 * Crossing sections, the earlier one aborted while the later is open:
 *   L (1) at 0: LOCK A, LOCK B, COMPUTE 2, UNLOCK A, COMPUTE 2, UNLOCK B
 *   Y (6) at 1: LOCK A, COMPUTE 1, UNLOCK A
 * A's section restarts at index 0: B, locked after A and still held, is
 * unlocked first, so that the replay locks it again.
 */
static void crossing_section_restart_releases_later_lock(void)
{
    harness_reset(0);
    pr_script_t sc = SCRIPT(C_body), sy = SCRIPT(Y_body);
    CHECK_EQ(mutex("A", PR_PROTOCOL_RCS), A);
    CHECK_EQ(mutex("B", PR_PROTOCOL_RCS), B);
    pr_id_t l = script_task("L", 1, 0, &sc);
    script_task("Y", 6, 1, &sy);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV(PR_EV_ABORT) | EV(PR_EV_SEM_DOWN) | EV(PR_EV_SEM_UP) | EV(PR_EV_TASK_EXIT),
                 "0 DOWN L A ok value=0",
                 "0 DOWN L B ok value=0",
                 "1 ABORT L A by=Y",
                 "1 DOWN Y A ok value=0",
                 "2 UP Y A ok value=1",
                 "2 TASK_EXIT Y",
                 "2 UP L A PR_EABORTED value=1",
                 "2 UP L B ok value=1",
                 "2 DOWN L A ok value=0",
                 "2 DOWN L B ok value=0",
                 "4 UP L A ok value=1",
                 "6 UP L B ok value=1",
                 "6 TASK_EXIT L");
    CHECK_EQ(sc.aborts, 1);
    CHECK_EQ(sc.lost, TICKS(1));
    CHECK_EQ(sc.errors, 0);
    CHECK_EQ(status_of(l).mutexes_held, 0);
}

HARNESS_MAIN(TEST_CASE(abort_then_recovery_then_retry), TEST_CASE(recovery_point_may_be_a_lock),
             TEST_CASE(equally_urgent_requester_waits),
             TEST_CASE(nested_sections_restart_and_lost_work_counted_once),
             TEST_CASE(crossing_section_restart_skips_closed_unlock),
             TEST_CASE(crossing_section_restart_releases_later_lock))
