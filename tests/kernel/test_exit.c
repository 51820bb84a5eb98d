/*
 * How a task ends, and what the kernel does with what it leaves behind.
 */
#include "harness.h"

static void lock_and_return(void *arg)
{
    pr_id_t m = *(pr_id_t *)arg;
    pr_sem_down(m, PR_FOREVER);
    pr_host_consume(TICKS(2));
    /* returns holding m */
}

/*
 * A (priority 1, at 0) locks M, computes 2 and returns still holding M.
 * B (priority 3, at 1) waits on M from 1 (A inherits 3 under pip).
 * At 2 A's body returns: the kernel releases M as an up by A would (A drops
 * back to 1, B gets M and preempts at once), then A's job is done.
 */
static void body_returning_while_holding_releases_mutex(void)
{
    harness_reset(0);
    static pr_id_t m;
    m = mutex("M", PR_PROTOCOL_PIP);
    static pr_action_t b_acts[] = {A_LOCK(0), A_COMPUTE(1), A_UNLOCK(0)};
    static pr_script_t b;
    b = SCRIPT(b_acts);
    pr_id_t a = task_at("A", 1, 0, lock_and_return, &m);
    pr_id_t bid = script_task("B", 3, 1, &b);
    CHECK_EQ(pr_host_run_ticks(10), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SCHED | EV(PR_EV_SEM_UP) | EV(PR_EV_TASK_EXIT) | EV(PR_EV_JOB_DONE),
                 "0 SWITCH A<-idle",
                 "1 SWITCH B<-A",
                 "1 BLOCK B M ok",
                 "1 PRIO A 1->3 inherit M",
                 "1 SWITCH A<-B",
                 "2 PRIO A 3->1 release M",
                 "2 WAKE B M ok",
                 "2 UP A M ok value=0",
                 "2 SWITCH B<-A",
                 "3 UP B M ok value=1",
                 "3 JOB_DONE B job=1",
                 "3 TASK_EXIT B",
                 "3 SWITCH A<-B",
                 "3 JOB_DONE A job=1",
                 "3 TASK_EXIT A",
                 "3 SWITCH idle<-A");
    CHECK_EQ(status_of(a).mutexes_held, 0);
    CHECK_EQ(status_of(bid).state, PR_TASK_DONE);
    CHECK_EQ(sem_status_of(m).holder, PR_NO_TASK);
    CHECK_EQ(sem_status_of(m).value, 1);
    /* TASK_EXIT's value counts the mutexes released for the body */
    size_t n;
    const pr_trace_record_t *recs = pr_host_trace(&n);
    int seen = 0;
    for (size_t i = 0; i < n; i++)
        if (recs[i].event == PR_EV_TASK_EXIT) {
            CHECK_EQ(recs[i].value, recs[i].task == a ? 1 : 0);
            seen++;
        }
    CHECK_EQ(seen, 2);
    CHECK_EQ(pr_task_delete(a), PR_OK);
    CHECK_EQ(pr_sem_free(m), PR_OK);
}

static void spin(void *arg)
{
    (void)arg;
    pr_host_consume(TICKS(100));
}

/*
 * The driver (outside the kernel) deletes the task that was running when the
 * kernel paused, then creates a task before running again. The new task must
 * not take the deleted task's descriptor (it is still the current one until
 * the next switch): it gets id 1, and the next run shows the switch to it and
 * charges it only its own time.
 */
static void delete_current_from_outside_then_create(void)
{
    harness_reset(0);
    pr_id_t x = task_at("X", 2, 0, spin, NULL);
    CHECK_EQ(x, 0);
    CHECK_EQ(pr_host_run_ticks(3), PR_HOST_REACHED);
    CHECK_EQ(pr_task_delete(x), PR_OK);
    pr_id_t y = task_at("Y", 1, 0, spin, NULL);
    CHECK_EQ(y, 1);
    CHECK_EQ(pr_host_run_ticks(5), PR_HOST_REACHED);
    /* names are resolved when the trace is printed: X's is gone by then */
    EXPECT_TRACE(EV(PR_EV_SWITCH) | EV(PR_EV_TASK_DELETE), "0 SWITCH T0<-idle", "3 TASK_DELETE T0",
                 "3 SWITCH Y<-T0");
    CHECK_EQ(status_of(y).cpu_time, TICKS(2));
}

/* A bad id is traced as "no object", never as the truncated id of another
 * semaphore (256 would otherwise read as semaphore 0). */
static void bad_ids_are_traced_as_no_object(void)
{
    harness_reset(0);
    pr_id_t s = counting("S", 1, PR_SEM_PRIO);
    CHECK_EQ(s, 0);
    CHECK_EQ(pr_sem_up(256), PR_EBADID);
    CHECK_EQ(pr_sem_down(-1, PR_NO_WAIT), PR_EBADID);
    CHECK_EQ(pr_sem_free(1000), PR_EBADID);
    CHECK_EQ(pr_task_set_priority(300, 1), PR_EBADID);
    EXPECT_TRACE(EV(PR_EV_SEM_UP) | EV(PR_EV_SEM_DOWN) | EV(PR_EV_SEM_FREE) | EV(PR_EV_PRIO_SET),
                 "0 UP - - PR_EBADID value=0", "0 DOWN - - PR_EBADID value=0", "0 SEM_FREE - - PR_EBADID",
                 "0 PRIO_SET - 0->1 PR_EBADID");
}

/* At 1024 Hz a tick is not a whole number of ns: tick k is at
 * floor(k * 1e9 / 1024) ns, and the text still says k. */
static void text_times_are_exact_at_any_tick_rate(void)
{
    pr_kernel_config_t cfg = {.tick_hz = 1024, .quantum = 0};
    CHECK_EQ(pr_host_init(&cfg), PR_OK);
    char line[160];
    pr_trace_record_t r;
    memset(&r, 0, sizeof r);
    r.event = PR_EV_DELAY_END;
    r.task = PR_TRACE_NONE;
    r.time = pr_host_tick_time(3001);
    CHECK_EQ(r.time, 2930664062u);
    CHECK(strcmp(pr_host_trace_line(&r, line, sizeof line), "3001 DELAY_END -") == 0);
    r.time = pr_host_tick_time(3001) + 488281; /* half a tick later */
    CHECK(strcmp(pr_host_trace_line(&r, line, sizeof line), "3001.5 DELAY_END -") == 0);

    /* at 999999 Hz one ns is a thousandth of a tick: the rounding alone
     * would print tick 501 as 500.999 */
    cfg.tick_hz = 999999;
    CHECK_EQ(pr_host_init(&cfg), PR_OK);
    r.time = pr_host_tick_time(501);
    CHECK(strcmp(pr_host_trace_line(&r, line, sizeof line), "501 DELAY_END -") == 0);
}

HARNESS_MAIN(TEST_CASE(body_returning_while_holding_releases_mutex),
             TEST_CASE(delete_current_from_outside_then_create), TEST_CASE(bad_ids_are_traced_as_no_object),
             TEST_CASE(text_times_are_exact_at_any_tick_rate))
