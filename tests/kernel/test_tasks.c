/*
 * Task calls: suspend and resume, delete (a waiter, the caller itself),
 * delay, set priority; and preemption at the instant a more urgent task
 * becomes ready (inside the call that readies it, not at the next tick).
 */
#include "priora/port.h"
#include "harness.h"

enum { S = 0 };

#define EV_TASKS (EV_SCHED | EV(PR_EV_SUSPEND) | EV(PR_EV_RESUME) | EV(PR_EV_TASK_DELETE) | EV(PR_EV_PRIO_SET))

static void compute_n(void *arg) { pr_host_consume(*(const uint64_t *)arg); }
static const uint64_t one_tick = TICKS(1), two_ticks = TICKS(2), ten_ticks = TICKS(10);

/* ---- suspend / resume ---- */

/*
 * W (3) downs S (counting, 0) at 0 and blocks; L (1) computes 10. Ctl (5)
 * suspends W at 1 (still blocked), ups S at 2: W gets the unit (WAKE) but,
 * suspended, does not run: L goes on. Ctl resumes W at 4: W, more urgent
 * than L, runs as soon as Ctl ends at 4, computes 4..5; L finishes 5..11.
 */
static pr_id_t w_id;
static pr_task_status_t w_after_up;
static void ctl_suspend_body(void *arg)
{
    (void)arg;
    pr_task_delay(1);
    CHECK_EQ(pr_task_suspend(w_id), PR_OK);
    pr_task_status_t st = status_of(w_id);
    CHECK_EQ(st.state, PR_TASK_BLOCKED);
    CHECK_EQ(st.suspended, 1);
    pr_task_delay(1);
    CHECK_EQ(pr_sem_up(S), PR_OK);
    w_after_up = status_of(w_id);
    pr_task_delay(2);
    CHECK_EQ(pr_task_resume(w_id), PR_OK);
}

static void suspended_task_woken_stays_suspended_until_resumed(void)
{
    harness_reset(0);
    static const pr_action_t w_body[] = {A_DOWN(S, PR_FOREVER), A_COMPUTE(1)};
    pr_script_t w = SCRIPT(w_body);
    CHECK_EQ(counting("S", 0, PR_SEM_PRIO), S);
    task_at("Ctl", 5, 0, ctl_suspend_body, NULL);
    w_id = script_task("W", 3, 0, &w);
    task_at("L", 1, 0, compute_n, (void *)&ten_ticks);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    CHECK_EQ(w_after_up.state, PR_TASK_READY);
    CHECK_EQ(w_after_up.suspended, 1);
    CHECK_EQ(w_after_up.blocked_on, PR_NO_SEM);
    EXPECT_TRACE(EV_TASKS,
                 "0 SWITCH Ctl<-idle",
                 "0 SWITCH W<-Ctl",
                 "0 BLOCK W S ok",
                 "0 SWITCH L<-W",
                 "1 SWITCH Ctl<-L",
                 "1 SUSPEND W",
                 "1 SWITCH L<-Ctl",
                 "2 SWITCH Ctl<-L",
                 "2 WAKE W S ok",
                 "2 SWITCH L<-Ctl",
                 "4 SWITCH Ctl<-L",
                 "4 RESUME W",
                 "4 SWITCH W<-Ctl",
                 "5 SWITCH L<-W",
                 "11 SWITCH idle<-L");
}

/*
 * A task suspending itself switches away at once; a delayed task that is
 * suspended ends its delay but stays suspended. T (2) computes 1 and
 * suspends itself at 1; L (1) computes 10 from 1. The program resumes T at
 * 3.5: T runs at once (when the run goes on) and delays 2 at tick 3, until
 * 5; the program suspends it at 4.5; at 5 its delay ends but it stays off;
 * resumed at 7.5, it computes 7.5..8.5. L: 1..3.5, 3.5..7.5, 8.5..12.
 */
static void self_suspend_body(void *arg)
{
    (void)arg;
    pr_host_consume(TICKS(1));
    CHECK_EQ(pr_task_suspend(pr_task_self()), PR_OK);
    CHECK_EQ(pr_task_delay(2), PR_OK);
    pr_host_consume(TICKS(1));
}

static void suspend_self_and_suspended_delay(void)
{
    harness_reset(0);
    pr_id_t t = task_at("T", 2, 0, self_suspend_body, NULL);
    task_at("L", 1, 0, compute_n, (void *)&ten_ticks);
    const uint64_t half = TICKS(1) / 2;
    CHECK_EQ(pr_host_run_until(TICKS(3) + half), PR_HOST_REACHED);
    CHECK_EQ(status_of(t).suspended, 1);
    CHECK_EQ(status_of(t).state, PR_TASK_READY);
    CHECK_EQ(pr_task_resume(t), PR_OK);
    CHECK_EQ(pr_host_run_until(TICKS(4) + half), PR_HOST_REACHED);
    CHECK_EQ(status_of(t).state, PR_TASK_DELAYED);
    CHECK_EQ(pr_task_suspend(t), PR_OK);
    CHECK_EQ(pr_host_run_until(TICKS(7) + half), PR_HOST_REACHED);
    CHECK_EQ(status_of(t).state, PR_TASK_READY);
    CHECK_EQ(status_of(t).suspended, 1);
    CHECK_EQ(pr_task_resume(t), PR_OK);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_TASKS | EV(PR_EV_DELAY_END),
                 "0 SWITCH T<-idle",
                 "1 SUSPEND T",
                 "1 SWITCH L<-T",
                 "3.5 RESUME T",
                 "3.5 SWITCH T<-L",
                 "3.5 SWITCH L<-T",
                 "4.5 SUSPEND T",
                 "5 DELAY_END T",
                 "7.5 RESUME T",
                 "7.5 SWITCH T<-L",
                 "8.5 SWITCH L<-T",
                 "12 SWITCH idle<-L");
}

/* ---- delete ---- */

/*
 * Deleting a waiter withdraws the boost it gave. L (1) locks M (pip) and
 * computes 5; H (4) and Md (2) are released at 1: H blocks on M (L 1->4)
 * and Md cannot run. At 2 Ctl (6) deletes H: it leaves M's wait list and L
 * drops back to 1 at that instant (PRIO ... delete). Md now preempts L:
 * 2..4; L finishes 4..7. (H's name is gone with it: the trace prints "T1".)
 */
static pr_id_t victim;
static void ctl_delete_body(void *arg)
{
    (void)arg;
    CHECK_EQ(pr_task_delete(victim), PR_OK);
}

static void delete_waiter_withdraws_boost(void)
{
    harness_reset(0);
    static const pr_action_t l_body[] = {A_LOCK(S), A_COMPUTE(5), A_UNLOCK(S)};
    static const pr_action_t h_body[] = {A_LOCK(S), A_COMPUTE(1), A_UNLOCK(S)};
    pr_script_t l = SCRIPT(l_body), h = SCRIPT(h_body);
    CHECK_EQ(mutex("M", PR_PROTOCOL_PIP), S);
    pr_id_t tl = script_task("L", 1, 0, &l);
    victim = script_task("H", 4, 1, &h);
    task_at("Md", 2, 1, compute_n, (void *)&two_ticks);
    task_at("Ctl", 6, 2, ctl_delete_body, NULL);
    pr_host_run_until(TICKS(2) + TICKS(1) / 2);
    CHECK_EQ(status_of(tl).effective_priority, 1);
    pr_sem_status_t ss = sem_status_of(S);
    CHECK_EQ(ss.waiters, 0);
    CHECK_EQ(ss.value, 0);
    CHECK_EQ(ss.holder, tl);
    pr_task_status_t st;
    CHECK_EQ(pr_task_status(victim, &st), PR_ENOTALLOC);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_TASKS,
                 "0 SWITCH L<-idle",
                 "1 SWITCH T1<-L",
                 "1 BLOCK T1 M ok",
                 "1 PRIO L 1->4 inherit M",
                 "1 SWITCH L<-T1",
                 "2 SWITCH Ctl<-L",
                 "2 TASK_DELETE T1",
                 "2 PRIO L 4->1 delete M",
                 "2 SWITCH Md<-Ctl",
                 "4 SWITCH L<-Md",
                 "7 SWITCH idle<-L");
    CHECK_EQ(sem_status_of(S).value, 1);
}

/* Deleting a waiter of a counting semaphore gives back its place: the value
 * goes up by one and the waiter count down by one. */
static void delete_counting_waiter_restores_value(void)
{
    harness_reset(0);
    downer_t a = DOWNER(S, PR_FOREVER, 0, 0, 0), b = DOWNER(S, PR_FOREVER, 0, 0, 0);
    CHECK_EQ(counting("S", 0, 0), S);
    pr_id_t ta = task_at("A", 1, 0, downer_body, &a);
    task_at("B", 1, 0, downer_body, &b);
    CHECK_EQ(pr_host_run_ticks(5), PR_HOST_QUIESCENT);
    CHECK_EQ(sem_status_of(S).value, -2);
    CHECK_EQ(pr_task_delete(ta), PR_OK);
    CHECK_EQ(sem_status_of(S).value, -1);
    CHECK_EQ(sem_status_of(S).waiters, 1);
    CHECK_EQ(pr_sem_up(S), PR_OK); /* B, the only waiter left, gets it */
    CHECK_EQ(pr_host_run_ticks(10), PR_HOST_QUIESCENT);
    CHECK_EQ(b.rc, PR_OK);
    CHECK_EQ(a.rc, 1); /* A never returned from its down */
    CHECK_EQ(sem_status_of(S).value, 0);
}

/*
 * A task deleting itself never returns from the call: T (2) computes 1 and
 * deletes itself at 1; L (1) runs on at once. Its id is free again: the
 * next task created gets it. Deleting a task also cancels its timers: a
 * delayed or periodic task leaves no timer behind.
 */
static int after_delete;
static void delete_self_body(void *arg)
{
    (void)arg;
    pr_host_consume(TICKS(1));
    pr_task_delete(pr_task_self());
    after_delete = 1;
}

static void delete_self_never_returns(void)
{
    harness_reset(0);
    after_delete = 0;
    pr_id_t t = task_at("T", 2, 0, delete_self_body, NULL);
    task_at("L", 1, 0, compute_n, (void *)&two_ticks);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    CHECK_EQ(after_delete, 0);
    /* Names are resolved when the trace is printed: T's is gone with it. */
    EXPECT_TRACE(EV_TASKS, "0 SWITCH T0<-idle", "1 TASK_DELETE T0", "1 SWITCH L<-T0", "3 SWITCH idle<-L");
    size_t n;
    const pr_trace_record_t *r = pr_host_trace(&n);
    for (size_t i = 0; i < n; i++)
        if (r[i].event == PR_EV_TASK_DELETE)
            CHECK_EQ(r[i].object, t); /* deleted by itself */
    CHECK_EQ(task_at("New", 1, 1000, compute_n, (void *)&one_tick), t);
}

static void delay_body(void *arg)
{
    (void)arg;
    pr_task_delay(50);
}

static void delete_cancels_timers(void)
{
    harness_reset(0);
    pr_id_t d = task_at("D", 1, 0, delay_body, NULL);
    pr_id_t p = periodic_task("P", 1, 10, 5, 3, compute_n, (void *)&one_tick);
    CHECK_EQ(pr_host_run_ticks(2), PR_HOST_REACHED);
    CHECK_EQ(pr_kernel_timers_armed(), 2); /* D's delay, P's first release */
    CHECK_EQ(pr_task_delete(d), PR_OK);
    CHECK_EQ(pr_task_delete(p), PR_OK);
    CHECK_EQ(pr_kernel_timers_armed(), 0);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    CHECK_EQ(trace_count(PR_EV_DELAY_END, PR_TRACE_NONE), 0);
    CHECK_EQ(trace_count(PR_EV_RELEASE, PR_TRACE_NONE), 1); /* D's only */
}

/* Deleting a watchdog: the tasks that named it have none any more. */
static void delete_watchdog_forgets_it(void)
{
    harness_reset(0);
    pr_id_t wd = task_at("Wd", 5, 1000, compute_n, (void *)&one_tick);
    pr_task_attr_t a;
    pr_task_attr_init(&a);
    a.name = "P";
    a.priority = 1;
    a.period = 10;
    a.deadline = 2;
    a.watchdog = wd;
    a.entry = compute_n;
    a.arg = (void *)&ten_ticks;
    a.phase = 1000;
    pr_id_t p;
    CHECK_EQ(pr_task_create(&a, &p), PR_OK);
    CHECK_EQ(status_of(p).watchdog, wd);
    CHECK_EQ(pr_task_delete(wd), PR_OK);
    CHECK_EQ(status_of(p).watchdog, PR_NO_TASK);
}

/* ---- delay ---- */

/*
 * A delay of n ticks made at tick t ends at tick t + n: D1 delays 3 at 2
 * (ends at 5); D2 computes half a tick from 2 and delays 3 at 2.5, still
 * tick 2 (ends at 5 as well); D3 delays 1 at 0 (ends at 1).
 */
static void delay_3(void *arg)
{
    uint64_t before = *(const uint64_t *)arg;
    pr_host_consume(before);
    CHECK_EQ(pr_task_delay(3), PR_OK);
}
static void delay_1(void *arg)
{
    (void)arg;
    CHECK_EQ(pr_task_delay(1), PR_OK);
}

static void delay_ends_at_exact_tick(void)
{
    harness_reset(0);
    static const uint64_t zero = 0, half = TICKS(1) / 2;
    task_at("D1", 3, 2, delay_3, (void *)&zero);
    task_at("D2", 2, 2, delay_3, (void *)&half);
    task_at("D3", 1, 0, delay_1, NULL);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV(PR_EV_DELAY) | EV(PR_EV_DELAY_END),
                 "0 DELAY D3 1",
                 "1 DELAY_END D3",
                 "2 DELAY D1 3",
                 "2.5 DELAY D2 3",
                 "5 DELAY_END D1",
                 "5 DELAY_END D2");
}

/* ---- priorities and preemption ---- */

/*
 * pr_task_set_priority takes effect inside the call. A (2) computes 1 and
 * raises B (1) to 3 at 1: B preempts A in that call. B computes 1 and
 * lowers itself to 1 at 2: A (2) preempts at once, computes 2..3 and ends;
 * B ends 3..4.
 */
static pr_id_t b_id;
static void a_raise_body(void *arg)
{
    (void)arg;
    pr_host_consume(TICKS(1));
    CHECK_EQ(pr_task_set_priority(b_id, 3), PR_OK);
    pr_host_consume(TICKS(1));
}
static void b_lower_body(void *arg)
{
    (void)arg;
    pr_host_consume(TICKS(1));
    CHECK_EQ(pr_task_set_priority(pr_task_self(), 1), PR_OK);
    pr_host_consume(TICKS(1));
}

static void set_priority_preempts_at_once(void)
{
    harness_reset(0);
    task_at("A", 2, 0, a_raise_body, NULL);
    b_id = task_at("B", 1, 0, b_lower_body, NULL);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_TASKS,
                 "0 SWITCH A<-idle",
                 "1 PRIO_SET B 1->3 ok",
                 "1 PRIO B 1->3 set -",
                 "1 SWITCH B<-A",
                 "2 PRIO_SET B 3->1 ok",
                 "2 PRIO B 3->1 set -",
                 "2 SWITCH A<-B",
                 "3 SWITCH B<-A",
                 "4 SWITCH idle<-B");
    CHECK_EQ(status_of(b_id).base_priority, 1);
}

/*
 * Preemption happens inside the up that readies a more urgent task, not at
 * the next tick: H (3) waits on S; L (1) computes half a tick and ups S at
 * 0.5: H runs at 0.5, in L's call, and computes 0.5..1.5; L resumes.
 */
static void preemption_inside_up(void)
{
    harness_reset(0);
    static const pr_action_t l_body[] = {{PR_ACT_COMPUTE, 0, 0, 0, TICKS(1) / 2}, A_UP(S), A_COMPUTE(1)};
    pr_script_t l = SCRIPT(l_body);
    downer_t h = DOWNER(S, PR_FOREVER, 0, TICKS(1), 0);
    CHECK_EQ(counting("S", 0, PR_SEM_PRIO), S);
    task_at("H", 3, 0, downer_body, &h);
    script_task("L", 1, 0, &l);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SCHED | EV(PR_EV_SEM_UP),
                 "0 SWITCH H<-idle",
                 "0 BLOCK H S ok",
                 "0 SWITCH L<-H",
                 "0.5 WAKE H S ok",
                 "0.5 UP L S ok value=0",
                 "0.5 SWITCH H<-L",
                 "1.5 SWITCH L<-H",
                 "2.5 SWITCH idle<-L");
    CHECK_EQ(h.at_ns, TICKS(1) / 2);
}

/* The same for a task created, or resumed, by a less urgent task: it runs
 * inside the call. L (1) at 0.5 creates H (3), which runs 0.5..1.5; L goes
 * on 1.5..2 and resumes the suspended R (2), which runs 2..3; L ends
 * 3..3.5. */
static pr_id_t r_id;
static void l_create_resume_body(void *arg)
{
    (void)arg;
    pr_host_consume(TICKS(1) / 2);
    task_at("H", 3, 0, compute_n, (void *)&one_tick);
    CHECK_EQ(pr_host_now(), TICKS(1) + TICKS(1) / 2); /* H ran 0.5..1.5 inside the create */
    pr_host_consume(TICKS(1) / 2);
    CHECK_EQ(pr_task_resume(r_id), PR_OK);
    pr_host_consume(TICKS(1) / 2);
}

static void preemption_inside_create_and_resume(void)
{
    harness_reset(0);
    task_at("L", 1, 0, l_create_resume_body, NULL);
    r_id = task_at("R", 2, 0, compute_n, (void *)&one_tick);
    CHECK_EQ(pr_task_suspend(r_id), PR_OK);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV(PR_EV_SWITCH) | EV(PR_EV_TASK_CREATE) | EV(PR_EV_RESUME),
                 "0 TASK_CREATE L",
                 "0 TASK_CREATE R",
                 "0 SWITCH L<-idle",
                 "0.5 TASK_CREATE H",
                 "0.5 SWITCH H<-L",
                 "1.5 SWITCH L<-H",
                 "2 RESUME R",
                 "2 SWITCH R<-L",
                 "3 SWITCH L<-R",
                 "3.5 SWITCH idle<-L");
}

HARNESS_MAIN(TEST_CASE(suspended_task_woken_stays_suspended_until_resumed),
             TEST_CASE(suspend_self_and_suspended_delay),
             TEST_CASE(delete_waiter_withdraws_boost),
             TEST_CASE(delete_counting_waiter_restores_value),
             TEST_CASE(delete_self_never_returns),
             TEST_CASE(delete_cancels_timers),
             TEST_CASE(delete_watchdog_forgets_it),
             TEST_CASE(delay_ends_at_exact_tick),
             TEST_CASE(set_priority_preempts_at_once),
             TEST_CASE(preemption_inside_up),
             TEST_CASE(preemption_inside_create_and_resume))
