/*
 * rcs with a recovery [Tokuda-Nakajima 1993, section 2.2]: a more urgent
 * task that asks for the mutex aborts the holder's section and waits; the
 * holder, raised to the requester's priority, runs its recovery (which
 * restores the shared state the section was changing), gives the mutex up,
 * and only then does the requester enter: it reads the restored state. The
 * holder then restarts its section. Without a recovery the take-over is
 * immediate (test_rcs.c).
 */
#include "harness.h"

enum { A = 0 };

/* The shared state: the section sets x to 1 in its first step and back to
 * 0 in its last; the recovery restores 0. */
static struct {
    int x;
    int x_seen_by_urgent;
    int recoveries;
    uint64_t recovered_at;
    pr_id_t recovered_mutex;
    int up_rc, retry_rc, final_up_rc, aborted_after_up;
} st;

static void recover_x(pr_id_t mutex, void *arg)
{
    (void)arg;
    st.recoveries++;
    st.recovered_mutex = mutex;
    pr_host_consume(TICKS(1)); /* restoring takes a tick */
    st.x = 0;
    st.recovered_at = pr_host_now();
}

static void holder_body(void *arg)
{
    (void)arg;
    CHECK_EQ(pr_sem_down(A, PR_FOREVER), PR_OK);
    st.x = 1;                   /* first step of two */
    pr_host_consume(TICKS(5));  /* cut short by the abort */
    if (pr_sem_aborted() == 0)
        st.x = 0;               /* second step: not reached when aborted */
    st.up_rc = pr_sem_up(A);    /* the recovery point: the recovery runs here */
    st.aborted_after_up = pr_sem_aborted();
    st.retry_rc = pr_sem_down(A, PR_FOREVER);
    st.x = 1;
    pr_host_consume(TICKS(2));
    st.x = 0;
    st.final_up_rc = pr_sem_up(A);
}

static void urgent_body(void *arg)
{
    (void)arg;
    CHECK_EQ(pr_sem_down(A, PR_FOREVER), PR_OK);
    st.x_seen_by_urgent = st.x;
    pr_host_consume(TICKS(1));
    CHECK_EQ(pr_sem_up(A), PR_OK);
}

static pr_id_t rcs_mutex_with_recovery(void)
{
    pr_id_t m = mutex("A", PR_PROTOCOL_RCS);
    pr_sem_recovery_t rec = {recover_x, NULL};
    CHECK_EQ(pr_sem_control(m, PR_SEM_CTL_RECOVERY, &rec), PR_OK);
    return m;
}

/*
 * 0: H (1) locks A, sets x = 1, computes. 2: U (3) asks for A: H's section
 * is aborted, U waits and H inherits 3. H runs: its compute returns at once
 * (2 of 5 ticks done), x stays 1; its up runs the recovery (2..3, x = 0),
 * gives A up (H back to 1) and hands it to U, which preempts at 3 and
 * reads x = 0. U ends at 4; H's up returns PR_EABORTED, it locks A again
 * and restarts: 4..6.
 */
static void the_requester_enters_after_the_recovery(void)
{
    harness_reset(0);
    memset(&st, 0, sizeof st);
    CHECK_EQ(rcs_mutex_with_recovery(), A);
    pr_id_t th = task_at("H", 1, 0, holder_body, NULL);
    task_at("U", 3, 2, urgent_body, NULL);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SCHED | EV(PR_EV_ABORT) | EV(PR_EV_RECOVER) | EV(PR_EV_SEM_DOWN) | EV(PR_EV_SEM_UP),
                 "0 SWITCH H<-idle",
                 "0 DOWN H A ok value=0",
                 "2 SWITCH U<-H",
                 "2 ABORT H A by=U",
                 "2 BLOCK U A ok",
                 "2 PRIO H 1->3 inherit A",
                 "2 SWITCH H<-U",
                 "2 RECOVER H A for=U",
                 "3 PRIO H 3->1 release A",
                 "3 WAKE U A ok",
                 "3 UP H A PR_EABORTED value=0",
                 "3 SWITCH U<-H",
                 "3 DOWN U A ok value=0",
                 "4 UP U A ok value=1",
                 "4 SWITCH H<-U",
                 "4 DOWN H A ok value=0",
                 "6 UP H A ok value=1",
                 "6 SWITCH idle<-H");
    CHECK_EQ(st.x_seen_by_urgent, 0);
    CHECK_EQ(st.recoveries, 1);
    CHECK_EQ(st.recovered_mutex, A);
    CHECK_EQ(st.recovered_at, TICKS(3));
    CHECK_EQ(st.up_rc, PR_EABORTED);
    CHECK_EQ(st.aborted_after_up, 0);
    CHECK_EQ(st.retry_rc, PR_OK);
    CHECK_EQ(st.final_up_rc, PR_OK);
    CHECK_EQ(status_of(th).aborts, 1);
    pr_sem_stats_t stats;
    CHECK_EQ(pr_sem_stats(A, &stats), PR_OK);
    CHECK_EQ(stats.aborts, 1);
    CHECK_EQ(stats.downs, 3);
    CHECK_EQ(stats.ups, 3); /* the release after the recovery counts as an up */
}

/* A try-lock cannot wait, so it aborts nothing: PR_EAGAIN, the holder's
 * section goes on untouched. */
static void trying_urgent_body(void *arg)
{
    int *rc = arg;
    *rc = pr_sem_trydown(A);
}

static void a_try_lock_aborts_nothing(void)
{
    harness_reset(0);
    memset(&st, 0, sizeof st);
    CHECK_EQ(rcs_mutex_with_recovery(), A);
    int rc = 1;
    pr_id_t th = task_at("H", 1, 0, holder_body, NULL);
    task_at("U", 3, 2, trying_urgent_body, &rc);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    CHECK_EQ(rc, PR_EAGAIN);
    CHECK_EQ(status_of(th).aborts, 0);
    CHECK_EQ(st.recoveries, 0);
    CHECK_EQ(st.up_rc, PR_OK);
    CHECK_EQ(trace_count(PR_EV_ABORT, PR_TRACE_NONE), 0);
}

/* The recovery is rcs's: another protocol refuses the command, and a NULL
 * argument is refused; nothing changes. fn NULL removes it: the take-over
 * is immediate again. */
static void recovery_is_set_on_rcs_mutexes_only(void)
{
    harness_reset(0);
    pr_id_t pip = mutex("P", PR_PROTOCOL_PIP);
    pr_id_t rcs = mutex("R", PR_PROTOCOL_RCS);
    pr_sem_recovery_t rec = {recover_x, NULL};
    CHECK_EQ(pr_sem_control(pip, PR_SEM_CTL_RECOVERY, &rec), PR_EINVAL);
    CHECK_EQ(pr_sem_control(rcs, PR_SEM_CTL_RECOVERY, NULL), PR_EINVAL);
    CHECK_EQ(pr_sem_control(rcs, PR_SEM_CTL_RECOVERY, &rec), PR_OK);
    rec.fn = NULL;
    CHECK_EQ(pr_sem_control(rcs, PR_SEM_CTL_RECOVERY, &rec), PR_OK);
}

HARNESS_MAIN(TEST_CASE(the_requester_enters_after_the_recovery), TEST_CASE(a_try_lock_aborts_nothing),
             TEST_CASE(recovery_is_set_on_rcs_mutexes_only))
