/*
 * pcp's system ceiling at its edges: the waiters it wakes to try again, and
 * what happens to them before they run (the mutex they asked for freed, the
 * one woken deleted, its retry failing), the waiters behind one it still
 * blocks, and a holder of the ceiling that waits on the ceiling itself.
 *
 * The rule (kernel/policy/pcp.c, docs/semantics.md): a task may lock a pcp
 * mutex only if its effective priority is strictly above the ceilings of
 * the pcp mutexes held by other tasks; otherwise it waits on the system
 * ceiling, whose holder inherits its priority, and when the ceiling drops it
 * is woken to try again. Each test derives its schedule from that rule
 * alone. Where the rule leaves the order of records inside one instant open
 * (which waiter the kernel examines first, the cause it gives a withdrawn
 * lend), the test masks those records out and checks them apart: each
 * task's priority changes in order (EXPECT_PRIO), the results of its calls,
 * the ticks at which it ends.
 */
#include "harness.h"

#define EV_PCP (EV_SCHED | EV(PR_EV_CEILING) | EV(PR_EV_TASK_EXIT))
/* EV_PCP without PRIO: the order inside an instant of a wake and the
 * inheritance it comes with is the kernel's choice, not the protocol's. */
#define EV_PCP_NO_PRIO (EV_PCP & ~EV(PR_EV_PRIO))

/* Compares one task's PRIO records, in order, with the expected lines
 * "tick PRIO task old->new": the values, not the cause nor the mutex named. */
static void expect_prio_at(const char *file, int line, pr_id_t task, const char *const *lines, size_t n)
{
    size_t count, k = 0;
    const pr_trace_record_t *recs = pr_host_trace(&count);
    char buf[160];
    int ok = 1;
    for (size_t i = 0; i < count && ok; i++) {
        if (recs[i].event != PR_EV_PRIO || recs[i].task != task)
            continue;
        pr_host_trace_line(&recs[i], buf, sizeof buf);
        /* "4 PRIO T 2->7 inherit M4" matches "4 PRIO T 2->7". */
        size_t len = k < n ? strlen(lines[k]) : 0;
        if (k >= n || memcmp(buf, lines[k], len) != 0 || buf[len] != ' ')
            ok = 0;
        else
            k++;
    }
    if (ok && k == n)
        return;
    harness_failed = 1;
    fprintf(stderr, "%s:%d: PRIO records of task %d differ. Expected:\n", file, line, task);
    for (size_t j = 0; j < n; j++)
        fprintf(stderr, "  %s\n", lines[j]);
    fprintf(stderr, "Actual (every PRIO record):\n");
    dump_trace(EV(PR_EV_PRIO));
}
#define EXPECT_PRIO(task, ...)                                                                     \
    do {                                                                                           \
        static const char *const expected_[] = {__VA_ARGS__};                                     \
        expect_prio_at(__FILE__, __LINE__, (task), expected_, sizeof expected_ / sizeof *expected_); \
    } while (0)
#define EXPECT_NO_PRIO(task) CHECK_EQ(trace_count(PR_EV_PRIO, (task)), 0)

/* The DOWN record of `task` on `sem` (the nth, 0-based): its arg0, 1 if the
 * call waited before it returned; -1 if there is no such record. */
static int down_waited(pr_id_t task, pr_id_t sem, size_t nth)
{
    size_t count;
    const pr_trace_record_t *recs = pr_host_trace(&count);
    for (size_t i = 0; i < count; i++)
        if (recs[i].event == PR_EV_SEM_DOWN && recs[i].task == task && recs[i].object == sem && nth-- == 0)
            return recs[i].arg0;
    return -1;
}

/* Effective priority back at base, no mutex held, nothing left to run. */
static void expect_done_at_base(pr_id_t id)
{
    pr_task_status_t st = status_of(id);
    CHECK_EQ(st.state, PR_TASK_DONE);
    CHECK_EQ(st.mutexes_held, 0);
    CHECK_EQ(st.effective_priority, st.base_priority);
}

/* ---- a mutex asked for cannot be freed ---- */

/*
 * A task inside a down on B holds B's descriptor, whether it waits on B's
 * own list, waits on the system ceiling for B, or has been woken to try
 * again and not yet run: pr_sem_free(B) is refused (PR_EBUSY) and changes
 * nothing. Were it let through, the retry would take a freed descriptor:
 * its up would fail, the task could never be deleted (it "holds" a mutex),
 * and its end could never release it. (B's own list has waiters only while
 * B has a holder, which free refuses already.)
 *
 * A = 0 (ceiling 4), B = 1 (ceiling 3).
 *   M (4) at 0: down A, delay 2, up A, free B, delay 2, free B
 *   H (3) at 1: down B, compute 1, up B
 * 0: M takes A and sleeps. 1: H asks for the free B, but M holds A, whose
 * ceiling 4 is not below 3: H waits on the ceiling (M, at 4, inherits
 * nothing new). 1.5: the driver's free of B is refused: H waits for it.
 * 2: M unlocks A; nothing is held, H is woken to try again, and M, more
 * urgent, keeps the CPU: its free of B is refused, B is as it was. M
 * sleeps; H retries, takes B (a DOWN after a wait: arg0 1), 2..3, unlocks
 * it and ends. 4: M frees B.
 */
enum { FREE_A = 0, FREE_B = 1 };
static struct {
    pr_id_t h;
    int free_while_retrying, free_after;
    pr_sem_status_t b_after_refusal;
    int h_down, h_up;
} free_case;

static void free_m_body(void *arg)
{
    (void)arg;
    pr_sem_down(FREE_A, PR_FOREVER);
    pr_task_delay(2);
    pr_sem_up(FREE_A);
    free_case.free_while_retrying = pr_sem_free(FREE_B);
    pr_sem_status(FREE_B, &free_case.b_after_refusal);
    pr_task_delay(2);
    free_case.free_after = pr_sem_free(FREE_B);
}

static void free_h_body(void *arg)
{
    (void)arg;
    free_case.h_down = pr_sem_down(FREE_B, PR_FOREVER);
    pr_host_consume(TICKS(1));
    free_case.h_up = pr_sem_up(FREE_B);
    /* A task that ends holding a mutex it cannot up would keep its end
     * trying forever; suspended instead, it lets the run end and the
     * checks report. */
    if (free_case.h_up != PR_OK)
        pr_task_suspend(pr_task_self());
}

static void pcp_free_refused_while_a_down_is_inside(void)
{
    harness_reset(0);
    memset(&free_case, 0, sizeof free_case);
    free_case.h_down = free_case.h_up = 1;
    CHECK_EQ(mutex_ceiling("A", PR_PROTOCOL_PCP, 4), FREE_A);
    CHECK_EQ(mutex_ceiling("B", PR_PROTOCOL_PCP, 3), FREE_B);
    pr_id_t m = task_at("M", 4, 0, free_m_body, NULL);
    free_case.h = task_at("H", 3, 1, free_h_body, NULL);
    pr_host_run_until(TICKS(1) + TICKS(1) / 2);
    CHECK_EQ(status_of(free_case.h).blocked_on, FREE_B);
    CHECK_EQ(pr_sem_free(FREE_B), PR_EBUSY); /* waiting on the ceiling for B */
    /* Stopped before M frees B: the trace names B while it is allocated. */
    CHECK_EQ(pr_host_run_ticks(4), PR_HOST_REACHED);
    EXPECT_TRACE(EV_PCP | EV(PR_EV_SEM_FREE) | EV(PR_EV_SEM_DOWN) | EV(PR_EV_SEM_UP),
                 "0 SWITCH M<-idle",
                 "0 DOWN M A ok value=0",
                 "0 SWITCH idle<-M",
                 "1 SWITCH H<-idle",
                 "1 BLOCK H B ok",
                 "1 CEILING H B ceiling=4 holder=M",
                 "1 SWITCH idle<-H",
                 "1.5 SEM_FREE - B PR_EBUSY",
                 "2 SWITCH M<-idle",
                 "2 WAKE H B PR_EAGAIN",
                 "2 UP M A ok value=1",
                 "2 SEM_FREE M B PR_EBUSY",
                 "2 SWITCH H<-M",
                 "2 DOWN H B ok value=0",
                 "3 UP H B ok value=1",
                 "3 TASK_EXIT H",
                 "3 SWITCH idle<-H");
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    CHECK_EQ(trace_tick_of(PR_EV_SEM_FREE, m, 1), 4);
    CHECK_EQ(trace_tick_of(PR_EV_TASK_EXIT, m, 0), 4);
    CHECK_EQ(free_case.free_while_retrying, PR_EBUSY);
    CHECK_EQ(free_case.b_after_refusal.value, 1);
    CHECK_EQ(free_case.b_after_refusal.holder, PR_NO_TASK);
    CHECK_EQ(free_case.b_after_refusal.waiters, 0);
    CHECK_EQ(free_case.h_down, PR_OK);
    CHECK_EQ(down_waited(free_case.h, FREE_B, 0), 1);
    CHECK_EQ(free_case.h_up, PR_OK);
    CHECK_EQ(free_case.free_after, PR_OK);
    expect_done_at_base(m);
    expect_done_at_base(free_case.h);
    CHECK_EQ(pr_task_delete(free_case.h), PR_OK);
    CHECK_EQ(pr_task_delete(m), PR_OK);
}

/* ---- every waiter the ceiling no longer blocks tries again ---- */

/*
 * A waiter behind one that the ceiling still blocks. M12's ceiling is
 * above every task's priority, which the protocol allows:
 *   A = 0 (12), B = 1 (7), M4 = 2 (8), M12 = 3 (31).
 *   T (2) at 0: LOCK M4, DELAY 2, LOCK M12, COMPUTE 1, UNLOCK M12, UNLOCK M4
 *   Y (12) at 1: LOCK A, DELAY 3, UNLOCK A, LOCK M12, DELAY 10, UNLOCK M12
 *   W (7) at 2: LOCK B, COMPUTE 1, UNLOCK B
 * 0: T takes M4 (nothing held) and sleeps. 1: Y takes A (T's M4, 8, is
 * below 12) and sleeps. 2: W is released (its timer was armed first), then
 * T wakes: W asks for B, blocked by A (12 >= 7); T asks for M12, blocked by
 * A (12 >= 2). Y, at 12, inherits nothing.
 * 4: Y unlocks A. The ceiling is M4's (8), T's: W, first on the ceiling's
 * list, is still blocked by it (8 >= 7) and T inherits W's 7; T, behind W,
 * is blocked by nothing (its own mutex never blocks it): it is woken to try
 * again. Y goes on, takes M12 (8 < 12): the ceiling is Y's now, and T
 * loses the 7. Y sleeps; T tries and is blocked again, by M12 (31).
 * 14: Y unlocks M12: the ceiling is T's M4 again, T inherits W's 7, is
 * woken, and Y ends. T takes M12, 14..15, unlocks it (M4 still sets the
 * ceiling, W still waits), unlocks M4: T drops to 2, W is woken and runs at
 * once (7 > 2), 15..16, and T ends at 16.
 * A kernel that examined only the ceiling's first waiter would never wake
 * T, and W would wait for T: both forever, on free mutexes.
 */
enum { BH_A = 0, BH_B = 1, BH_M4 = 2, BH_M12 = 3 };
static const pr_action_t behind_t_body[] = {A_LOCK(BH_M4), A_DELAY(2), A_LOCK(BH_M12), A_COMPUTE(1),
                                            A_UNLOCK(BH_M12), A_UNLOCK(BH_M4)};
static const pr_action_t behind_y_body[] = {A_LOCK(BH_A),   A_DELAY(3),  A_UNLOCK(BH_A),
                                            A_LOCK(BH_M12), A_DELAY(10), A_UNLOCK(BH_M12)};
static const pr_action_t behind_w_body[] = {A_LOCK(BH_B), A_COMPUTE(1), A_UNLOCK(BH_B)};
static pr_script_t behind_t, behind_y, behind_w;
static pr_id_t behind_tid, behind_yid, behind_wid;

static void setup_behind(pr_protocol_t protocol, const pr_action_t *t_body, size_t t_count)
{
    harness_reset(0);
    behind_t = (pr_script_t){t_body, (uint32_t)t_count, 0, 0, PR_OK, 0, 0, 0, 0, 0, 0};
    behind_y = SCRIPT(behind_y_body);
    behind_w = SCRIPT(behind_w_body);
    int pcp = protocol == PR_PROTOCOL_PCP;
    CHECK_EQ(mutex_ceiling("A", protocol, pcp ? 12 : 0), BH_A);
    CHECK_EQ(mutex_ceiling("B", protocol, pcp ? 7 : 0), BH_B);
    CHECK_EQ(mutex_ceiling("M4", protocol, pcp ? 8 : 0), BH_M4);
    CHECK_EQ(mutex_ceiling("M12", protocol, pcp ? 31 : 0), BH_M12);
    behind_tid = script_task("T", 2, 0, &behind_t);
    behind_yid = script_task("Y", 12, 1, &behind_y);
    behind_wid = script_task("W", 7, 2, &behind_w);
}

static void run_behind(pr_protocol_t protocol, const pr_action_t *t_body, size_t t_count)
{
    setup_behind(protocol, t_body, t_count);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
}

/* The first ticks of the shape above, the same whatever T does after 4:
 * W and T held back by Y's ceiling; at 4 T is woken, tries again and is
 * held back by the higher ceiling Y now holds. */
#define BEHIND_UNTIL_4                                                                             \
    "0 SWITCH T<-idle", "0 SWITCH idle<-T", "1 SWITCH Y<-idle", "1 SWITCH idle<-Y",               \
        "2 SWITCH W<-idle", "2 BLOCK W B ok", "2 CEILING W B ceiling=12 holder=Y", "2 SWITCH T<-W", \
        "2 BLOCK T M12 ok", "2 CEILING T M12 ceiling=12 holder=Y", "2 SWITCH idle<-T",            \
        "4 SWITCH Y<-idle", "4 WAKE T M12 PR_EAGAIN", "4 SWITCH T<-Y", "4 BLOCK T M12 ok",       \
        "4 CEILING T M12 ceiling=31 holder=Y", "4 SWITCH idle<-T"

static void pcp_waiter_behind_a_blocked_one_tries_again(void)
{
    run_behind(PR_PROTOCOL_PCP, behind_t_body, sizeof behind_t_body / sizeof *behind_t_body);
    EXPECT_TRACE(EV_PCP_NO_PRIO, BEHIND_UNTIL_4,
                 "14 SWITCH Y<-idle",
                 "14 WAKE T M12 PR_EAGAIN",
                 "14 TASK_EXIT Y",
                 "14 SWITCH T<-Y",
                 "15 WAKE W B PR_EAGAIN",
                 "15 TASK_EXIT T",
                 "15 SWITCH W<-T",
                 "16 TASK_EXIT W",
                 "16 SWITCH idle<-W");
    EXPECT_PRIO(behind_tid, "4 PRIO T 2->7", "4 PRIO T 7->2", "14 PRIO T 2->7", "15 PRIO T 7->2");
    EXPECT_NO_PRIO(behind_yid);
    EXPECT_NO_PRIO(behind_wid);
    CHECK_EQ(behind_t.errors + behind_t.timeouts + behind_y.errors + behind_y.timeouts, 0);
    CHECK_EQ(behind_w.errors + behind_w.timeouts, 0);
    expect_done_at_base(behind_tid);
    expect_done_at_base(behind_yid);
    expect_done_at_base(behind_wid);
}

/* The same task set under pip: nobody waits on a free mutex. W takes B at
 * 2 (2..3), T takes M12 at 3 and ends at 4, Y's M12 is free at 4. */
static void pip_runs_the_same_task_set_to_completion(void)
{
    run_behind(PR_PROTOCOL_PIP, behind_t_body, sizeof behind_t_body / sizeof *behind_t_body);
    CHECK_EQ(trace_tick_of(PR_EV_TASK_EXIT, behind_wid, 0), 3);
    CHECK_EQ(trace_tick_of(PR_EV_TASK_EXIT, behind_tid, 0), 4);
    CHECK_EQ(trace_tick_of(PR_EV_TASK_EXIT, behind_yid, 0), 14);
    expect_done_at_base(behind_tid);
    expect_done_at_base(behind_yid);
    expect_done_at_base(behind_wid);
}

/*
 * The waiter woken to try again is deleted before it runs: the others the
 * ceiling no longer blocks must still get their turn.
 *   A = 0 (ceiling 4), B = 1 (3), C = 2 (2).
 *   M (4) at 0: down A, delay 2, up A, delete H1
 *   H1 (3) at 1: LOCK B, COMPUTE 1, UNLOCK B
 *   H2 (2) at 1: LOCK C, COMPUTE 1, UNLOCK C
 * 1: H1, then H2, wait on the ceiling (M's A, 4). 2: M unlocks A: nothing
 * is held, so neither is blocked; H1, the more urgent, is woken to try
 * again, and M, more urgent still, keeps the CPU and deletes it. H2 is
 * woken (at the up, or at the deletion: the trace shows no difference),
 * runs when M ends, takes C at 2 and ends at 3. (The trace is read after
 * the deletion, and names H1 by its id: T1.)
 */
enum { DEL_A = 0, DEL_B = 1, DEL_C = 2 };
static const pr_action_t del_h1_body[] = {A_LOCK(DEL_B), A_COMPUTE(1), A_UNLOCK(DEL_B)};
static const pr_action_t del_h2_body[] = {A_LOCK(DEL_C), A_COMPUTE(1), A_UNLOCK(DEL_C)};
static struct {
    pr_id_t h1;
    int delete_rc;
} del_case;

static void del_m_body(void *arg)
{
    (void)arg;
    pr_sem_down(DEL_A, PR_FOREVER);
    pr_task_delay(2);
    pr_sem_up(DEL_A);
    del_case.delete_rc = pr_task_delete(del_case.h1);
}

static void pcp_deleting_the_woken_waiter_passes_the_turn_on(void)
{
    harness_reset(0);
    del_case.delete_rc = 1;
    pr_script_t s1 = SCRIPT(del_h1_body), s2 = SCRIPT(del_h2_body);
    CHECK_EQ(mutex_ceiling("A", PR_PROTOCOL_PCP, 4), DEL_A);
    CHECK_EQ(mutex_ceiling("B", PR_PROTOCOL_PCP, 3), DEL_B);
    CHECK_EQ(mutex_ceiling("C", PR_PROTOCOL_PCP, 2), DEL_C);
    pr_id_t m = task_at("M", 4, 0, del_m_body, NULL);
    del_case.h1 = script_task("H1", 3, 1, &s1);
    pr_id_t h2 = script_task("H2", 2, 1, &s2);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_PCP,
                 "0 SWITCH M<-idle",
                 "0 SWITCH idle<-M",
                 "1 SWITCH T1<-idle",
                 "1 BLOCK T1 B ok",
                 "1 CEILING T1 B ceiling=4 holder=M",
                 "1 SWITCH H2<-T1",
                 "1 BLOCK H2 C ok",
                 "1 CEILING H2 C ceiling=4 holder=M",
                 "1 SWITCH idle<-H2",
                 "2 SWITCH M<-idle",
                 "2 WAKE T1 B PR_EAGAIN",
                 "2 WAKE H2 C PR_EAGAIN",
                 "2 TASK_EXIT M",
                 "2 SWITCH H2<-M",
                 "3 TASK_EXIT H2",
                 "3 SWITCH idle<-H2");
    CHECK_EQ(del_case.delete_rc, PR_OK);
    CHECK_EQ(s2.errors + s2.timeouts, 0);
    CHECK_EQ(down_waited(h2, DEL_C, 0), 1);
    expect_done_at_base(m);
    expect_done_at_base(h2);
    CHECK_EQ(pr_sem_free(DEL_B), PR_OK);
    CHECK_EQ(pr_sem_free(DEL_C), PR_OK);
}

/* ---- a holder of the ceiling that waits on it ---- */

/*
 * T holds M4 and waits on the system ceiling (for M12) when M4 becomes the
 * ceiling: it is then both the ceiling's holder, inheriting from W, and
 * among its waiters. What it inherits is withdrawn when the ceiling moves
 * on, and once it holds nothing its effective priority is its base.
 * The task set above, with T's lock of M12 timed (5 ticks: it gives up at
 * 7) and 10 ticks of work after its section:
 *   T (2) at 0: LOCK M4, DELAY 2, LOCK M12 timeout 5, COMPUTE 1, UNLOCK M12,
 *               UNLOCK M4, COMPUTE 10
 * 0..4 as above: at 4 T inherits 7 and is woken, Y takes M12, T loses the 7
 * and waits again, its timeout still at 7. 7: T times out, skips its
 * section, unlocks M4: it holds nothing, at 2, and computes. 14: Y, more
 * urgent, unlocks M12 and ends; W is woken and runs at once (7 > 2),
 * 14..15; T computes its last 3 ticks, 15..18.
 * A T left at 7 after it holds nothing would keep W, no more urgent, out
 * until T's work was done, at 17.
 */
static const pr_action_t timed_t_body[] = {A_LOCK(BH_M4),    A_DELAY(2),      A_LOCK_TO(BH_M12, 5), A_COMPUTE(1),
                                           A_UNLOCK(BH_M12), A_UNLOCK(BH_M4), A_COMPUTE(10)};

static void pcp_holder_waiting_on_the_ceiling_gets_back_to_base(void)
{
    run_behind(PR_PROTOCOL_PCP, timed_t_body, sizeof timed_t_body / sizeof *timed_t_body);
    EXPECT_TRACE(EV_PCP_NO_PRIO, BEHIND_UNTIL_4,
                 "7 TIMEOUT T M12 PR_ETIMEDOUT",
                 "7 WAKE T M12 PR_ETIMEDOUT",
                 "7 SWITCH T<-idle",
                 "14 SWITCH Y<-T",
                 "14 WAKE W B PR_EAGAIN",
                 "14 TASK_EXIT Y",
                 "14 SWITCH W<-Y",
                 "15 TASK_EXIT W",
                 "15 SWITCH T<-W",
                 "18 TASK_EXIT T",
                 "18 SWITCH idle<-T");
    EXPECT_PRIO(behind_tid, "4 PRIO T 2->7", "4 PRIO T 7->2");
    EXPECT_NO_PRIO(behind_yid);
    EXPECT_NO_PRIO(behind_wid);
    CHECK_EQ(behind_t.timeouts, 1);
    CHECK_EQ(behind_t.errors, 0);
    expect_done_at_base(behind_tid);
    expect_done_at_base(behind_yid);
    expect_done_at_base(behind_wid);
}

/* The same, stopped at 8: T holds nothing, nothing lends to it, and it
 * computes at its base. */
static void pcp_holder_waiting_on_the_ceiling_is_at_base_once_it_holds_nothing(void)
{
    setup_behind(PR_PROTOCOL_PCP, timed_t_body, sizeof timed_t_body / sizeof *timed_t_body);
    CHECK_EQ(pr_host_run_ticks(8), PR_HOST_REACHED);
    pr_task_status_t st = status_of(behind_tid);
    CHECK_EQ(st.state, PR_TASK_READY);
    CHECK_EQ(st.mutexes_held, 0);
    CHECK_EQ(st.blocked_on, PR_NO_SEM);
    CHECK_EQ(st.effective_priority, 2);
}

/* ---- a retry that fails ---- */

/*
 * A retry that fails makes way at once for the task it lets go. Both
 * waiters' priorities are set while they wait on the ceiling; X's base
 * goes above the ceiling of the mutex it asked for, so its retry is
 * refused (PR_ECEILING, after a wait: its DOWN has arg0 1).
 *   A = 0 (ceiling 6), BX = 1 (3), BZ = 2 (5).
 *   H (6) at 0: down A, delay 2, up A, set X's base to 4, Z's to 5
 *   X (3) at 1: LOCK BX, COMPUTE 1, UNLOCK BX, COMPUTE 2
 *   Z (2) at 1: LOCK BZ, COMPUTE 1, UNLOCK BZ
 * 1: X, then Z, wait on the ceiling (A, 6). 2: H unlocks A, sets the bases
 * and ends. Neither waiter is blocked any more; Z (5) is now the more
 * urgent: whether the kernel woke Z at once or lets it go when X's retry
 * fails, Z runs at 2, takes BZ at 2 and ends at 3. X's retry is refused,
 * it skips its section and computes 3..5.
 * A switch to Z that waited for the next tick would give Z 3..4 and X's
 * work 2..3 and 4..5.
 */
enum { RF_A = 0, RF_BX = 1, RF_BZ = 2 };
static const pr_action_t rf_x_body[] = {A_LOCK(RF_BX), A_COMPUTE(1), A_UNLOCK(RF_BX), A_COMPUTE(2)};
static const pr_action_t rf_z_body[] = {A_LOCK(RF_BZ), A_COMPUTE(1), A_UNLOCK(RF_BZ)};
static pr_id_t rf_x, rf_z;

static void rf_h_body(void *arg)
{
    (void)arg;
    pr_sem_down(RF_A, PR_FOREVER);
    pr_task_delay(2);
    pr_sem_up(RF_A);
    CHECK_EQ(pr_task_set_priority(rf_x, 4), PR_OK);
    CHECK_EQ(pr_task_set_priority(rf_z, 5), PR_OK);
}

static void pcp_failed_retry_switches_to_the_task_it_lets_go(void)
{
    harness_reset(0);
    pr_script_t sx = SCRIPT(rf_x_body), sz = SCRIPT(rf_z_body);
    CHECK_EQ(mutex_ceiling("A", PR_PROTOCOL_PCP, 6), RF_A);
    CHECK_EQ(mutex_ceiling("BX", PR_PROTOCOL_PCP, 3), RF_BX);
    CHECK_EQ(mutex_ceiling("BZ", PR_PROTOCOL_PCP, 5), RF_BZ);
    pr_id_t h = task_at("H", 6, 0, rf_h_body, NULL);
    rf_x = script_task("X", 3, 1, &sx);
    rf_z = script_task("Z", 2, 1, &sz);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    CHECK_EQ(trace_tick_of(PR_EV_SEM_DOWN, rf_z, 0), 2);
    CHECK_EQ(trace_tick_of(PR_EV_TASK_EXIT, rf_z, 0), 3);
    CHECK_EQ(trace_tick_of(PR_EV_TASK_EXIT, rf_x, 0), 5);
    CHECK_EQ(trace_tick_of(PR_EV_TASK_EXIT, h, 0), 2);
    CHECK_EQ(sx.errors, 1);
    CHECK_EQ(sx.last_error, PR_ECEILING);
    CHECK_EQ(down_waited(rf_x, RF_BX, 0), 1);
    CHECK_EQ(sz.errors + sz.timeouts, 0);
    CHECK_EQ(down_waited(rf_z, RF_BZ, 0), 1);
    EXPECT_PRIO(rf_x, "2 PRIO X 3->4");
    EXPECT_PRIO(rf_z, "2 PRIO Z 2->5");
    /* Z ran in one stretch from 2, X after it from 3. */
    CHECK_EQ(trace_count(PR_EV_SWITCH, rf_z), 2);
    CHECK_EQ(trace_tick_of(PR_EV_SWITCH, rf_z, 1), 2);
    CHECK_EQ(trace_tick_of(PR_EV_SWITCH, rf_x, trace_count(PR_EV_SWITCH, rf_x) - 1), 3);
    expect_done_at_base(rf_z);
}

/*
 * A retry that would close a cycle is refused: PR_EDEADLK, after a wait
 * (arg0 1). Y breaks the protocol's assumption on purpose: it lowers its
 * own base while it holds Q, and then locks P.
 *   P = 0 (ceiling 3), Q = 1 (4), A = 2 (5).
 *   X (2) at 0: LOCK P, DELAY 2, LOCK Q, COMPUTE 1, UNLOCK Q, UNLOCK P
 *   H (5) at 1: LOCK A, DELAY 2, UNLOCK A
 *   Y (4) at 3: LOCK Q, SET_PRIORITY 3, LOCK P, COMPUTE 1, UNLOCK P, UNLOCK Q
 * 0: X takes P. 1: H takes A (P's 3 is below 5). 2: X asks for Q, blocked
 * by A (5 >= 2). 3: Y's release, then H's wake: H runs first, unlocks A
 * (the ceiling is X's P now: X is woken to try again) and ends. Y (4 > 3)
 * takes Q, drops to 3, and asks for P: P (3) is another's and not below 3,
 * but the ceiling is Y's own Q: Y waits on P itself, and X inherits 3. X
 * tries again: Q's ceiling 4 is not below 3 and Q is Y's, which waits for
 * X: PR_EDEADLK. X skips its section and unlocks P: Y is handed P, X drops
 * to 2, Y runs 3..4 and ends, then X.
 */
enum { DL_P = 0, DL_Q = 1, DL_A = 2 };
static const pr_action_t dl_x_body[] = {A_LOCK(DL_P), A_DELAY(2),     A_LOCK(DL_Q),
                                        A_COMPUTE(1), A_UNLOCK(DL_Q), A_UNLOCK(DL_P)};
static const pr_action_t dl_h_body[] = {A_LOCK(DL_A), A_DELAY(2), A_UNLOCK(DL_A)};
static const pr_action_t dl_y_body[] = {A_LOCK(DL_Q),   A_SET_PRIORITY(3), A_LOCK(DL_P),
                                        A_COMPUTE(1), A_UNLOCK(DL_P),    A_UNLOCK(DL_Q)};

static void pcp_retry_refused_with_edeadlk_after_waiting(void)
{
    harness_reset(0);
    pr_script_t sx = SCRIPT(dl_x_body), sh = SCRIPT(dl_h_body), sy = SCRIPT(dl_y_body);
    CHECK_EQ(mutex_ceiling("P", PR_PROTOCOL_PCP, 3), DL_P);
    CHECK_EQ(mutex_ceiling("Q", PR_PROTOCOL_PCP, 4), DL_Q);
    CHECK_EQ(mutex_ceiling("A", PR_PROTOCOL_PCP, 5), DL_A);
    pr_id_t x = script_task("X", 2, 0, &sx);
    pr_id_t h = script_task("H", 5, 1, &sh);
    pr_id_t y = script_task("Y", 4, 3, &sy);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_PCP | EV(PR_EV_SEM_DOWN) | EV(PR_EV_SEM_UP),
                 "0 SWITCH X<-idle",
                 "0 DOWN X P ok value=0",
                 "0 SWITCH idle<-X",
                 "1 SWITCH H<-idle",
                 "1 DOWN H A ok value=0",
                 "1 SWITCH idle<-H",
                 "2 SWITCH X<-idle",
                 "2 BLOCK X Q ok",
                 "2 CEILING X Q ceiling=5 holder=H",
                 "2 SWITCH idle<-X",
                 "3 SWITCH H<-idle",
                 "3 WAKE X Q PR_EAGAIN",
                 "3 UP H A ok value=1",
                 "3 TASK_EXIT H",
                 "3 SWITCH Y<-H",
                 "3 DOWN Y Q ok value=0",
                 "3 PRIO Y 4->3 set -",
                 "3 BLOCK Y P ok",
                 "3 PRIO X 2->3 inherit P",
                 "3 SWITCH X<-Y",
                 "3 DOWN X Q PR_EDEADLK value=0",
                 "3 PRIO X 3->2 release P",
                 "3 WAKE Y P ok",
                 "3 UP X P ok value=0",
                 "3 TASK_EXIT X",
                 "3 SWITCH Y<-X",
                 "3 DOWN Y P ok value=0",
                 "4 UP Y P ok value=1",
                 "4 UP Y Q ok value=1",
                 "4 TASK_EXIT Y",
                 "4 SWITCH idle<-Y");
    CHECK_EQ(sx.errors, 1);
    CHECK_EQ(sx.last_error, PR_EDEADLK);
    CHECK_EQ(down_waited(x, DL_Q, 0), 1);
    CHECK_EQ(sy.errors + sy.timeouts + sh.errors + sh.timeouts, 0);
    expect_done_at_base(x);
    expect_done_at_base(h);
    expect_done_at_base(y);
}

HARNESS_MAIN(TEST_CASE(pcp_free_refused_while_a_down_is_inside),
             TEST_CASE(pcp_waiter_behind_a_blocked_one_tries_again),
             TEST_CASE(pip_runs_the_same_task_set_to_completion),
             TEST_CASE(pcp_deleting_the_woken_waiter_passes_the_turn_on),
             TEST_CASE(pcp_holder_waiting_on_the_ceiling_gets_back_to_base),
             TEST_CASE(pcp_holder_waiting_on_the_ceiling_is_at_base_once_it_holds_nothing),
             TEST_CASE(pcp_failed_retry_switches_to_the_task_it_lets_go),
             TEST_CASE(pcp_retry_refused_with_edeadlk_after_waiting))
