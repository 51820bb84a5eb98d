/*
 * What the kernel reports: semaphore statistics (ups, downs, most waiters
 * ever), semaphore status (index, owner, holder, waiters, value), the
 * attributes given at allocation, and task status (state, priorities, what
 * it waits on, mutexes held, jobs, misses, CPU time on the virtual clock).
 */
#include "harness.h"

enum { C = 0, M = 1 };

/* ---- semaphores ---- */

/*
 * C (counting, 1 unit, FIFO) is allocated by the program: no owner. Own (9)
 * allocates the mutex M at 0, so it owns M. L (1) locks M at 0 and computes
 * 3 inside; H1 (2) blocks on M at 1 (value -1), H2 (3) at 2 (two waiters:
 * value -2). L unlocks at 3: H2 gets M (value -1), computes 1, unlocks at 4:
 * H1 gets it (value 0), computes 1, unlocks at 5 (value 1).
 */
static const pr_action_t L_body[] = {A_LOCK(M), A_COMPUTE(3), A_UNLOCK(M)};
static const pr_action_t H_body[] = {A_LOCK(M), A_COMPUTE(1), A_UNLOCK(M)};
static pr_script_t sL, sH1, sH2;
static pr_id_t own_task;

static void own_body(void *arg)
{
    (void)arg;
    pr_sem_attr_t attr;
    pr_sem_attr_init(&attr);
    attr.value = 1;
    attr.flags = PR_SEM_MUTEX | PR_SEM_PRIO;
    attr.protocol = PR_PROTOCOL_PIP;
    attr.name = "M";
    pr_id_t id = PR_NO_SEM;
    CHECK_EQ(pr_sem_alloc(&attr, &id), PR_OK);
    CHECK_EQ(id, M);
}

static void mutex_scenario(void)
{
    harness_reset(0);
    sL = SCRIPT(L_body);
    sH1 = SCRIPT(H_body);
    sH2 = SCRIPT(H_body);
    CHECK_EQ(counting("C", 1, 0), C);
    own_task = task_at("Own", 9, 0, own_body, NULL);
    script_task("L", 1, 0, &sL);
    script_task("H1", 2, 1, &sH1);
    script_task("H2", 3, 2, &sH2);
}

static void expect_sem_status(pr_id_t id, pr_id_t owner, pr_id_t holder, int waiters, int value)
{
    pr_sem_status_t st = sem_status_of(id);
    CHECK_EQ(st.index, id);
    CHECK_EQ(st.owner, owner);
    CHECK_EQ(st.holder, holder);
    CHECK_EQ(st.waiters, waiters);
    CHECK_EQ(st.value, value);
}

static void expect_sem_stats(pr_id_t id, uint32_t ups, uint32_t downs, uint32_t max_waiters)
{
    pr_sem_stats_t st;
    memset(&st, 0xAA, sizeof st);
    CHECK_EQ(pr_sem_stats(id, &st), PR_OK);
    CHECK_EQ(st.ups, ups);
    CHECK_EQ(st.downs, downs);
    CHECK_EQ(st.max_waiters, max_waiters);
}

static void sem_status_follows_holder_and_waiters(void)
{
    mutex_scenario();
    pr_id_t tL = 1, tH1 = 2, tH2 = 3;
    expect_sem_status(C, PR_NO_TASK, PR_NO_TASK, 0, 1);
    CHECK_EQ(pr_host_run_ticks(1), PR_HOST_REACHED);
    expect_sem_status(M, own_task, tL, 0, 0);
    CHECK_EQ(pr_host_run_ticks(2), PR_HOST_REACHED);
    expect_sem_status(M, own_task, tL, 1, -1);
    CHECK_EQ(pr_host_run_until(TICKS(2) + TICKS(1) / 2), PR_HOST_REACHED);
    expect_sem_status(M, own_task, tL, 2, -2);
    CHECK_EQ(pr_host_run_until(TICKS(3) + TICKS(1) / 2), PR_HOST_REACHED);
    expect_sem_status(M, own_task, tH2, 1, -1);
    CHECK_EQ(pr_host_run_until(TICKS(4) + TICKS(1) / 2), PR_HOST_REACHED);
    expect_sem_status(M, own_task, tH1, 0, 0);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    expect_sem_status(M, own_task, PR_NO_TASK, 0, 1);
    /* The owner stays the allocating task after it is gone. */
    CHECK_EQ(status_of(own_task).state, PR_TASK_DONE);
}

/* Three downs, three ups, at most two waiters at once. Failed calls that do
 * not pass validation are not counted: an up by a non-holder (PR_EPERM) and
 * a down by the holder itself (PR_EHELD). */
static int eperm_rc, eheld_rc;
static void misuse_body(void *arg)
{
    (void)arg;
    eperm_rc = pr_sem_up(M); /* at 2 M is held by L, not by us */
}
static void holder_misuse_body(void *arg)
{
    (void)arg;
    CHECK_EQ(pr_sem_down(M, PR_FOREVER), PR_OK);
    eheld_rc = pr_sem_down(M, PR_FOREVER);
    CHECK_EQ(pr_sem_up(M), PR_OK);
}

static void sem_stats_count_ups_downs_max_waiters(void)
{
    mutex_scenario();
    task_at("X", 8, 2, misuse_body, NULL);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    CHECK_EQ(eperm_rc, PR_EPERM);
    expect_sem_stats(M, 3, 3, 2);

    task_at("Y", 8, pr_ticks_now(), holder_misuse_body, NULL);
    CHECK_EQ(pr_host_run_ticks(200), PR_HOST_QUIESCENT);
    CHECK_EQ(eheld_rc, PR_EHELD);
    expect_sem_stats(M, 4, 4, 2);

    /* C from the program: trydown ok (0), trydown PR_EAGAIN (counted: a
     * valid down that would have blocked), two ups (2). */
    CHECK_EQ(pr_sem_trydown(C), PR_OK);
    CHECK_EQ(pr_sem_trydown(C), PR_EAGAIN);
    CHECK_EQ(pr_sem_up(C), PR_OK);
    CHECK_EQ(pr_sem_up(C), PR_OK);
    expect_sem_stats(C, 2, 2, 0);
    expect_sem_status(C, PR_NO_TASK, PR_NO_TASK, 0, 2);
}

/* Statistics start from zero when a descriptor is allocated again. */
static void sem_stats_reset_on_realloc(void)
{
    harness_reset(0);
    pr_id_t a = counting("A", 0, 0);
    CHECK_EQ(pr_sem_up(a), PR_OK);
    CHECK_EQ(pr_sem_trydown(a), PR_OK);
    expect_sem_stats(a, 1, 1, 0);
    CHECK_EQ(pr_sem_free(a), PR_OK);
    /* Freed descriptors are reused last: exhaust the others first. */
    pr_id_t last = PR_NO_SEM;
    for (int i = 0; i < PR_CONFIG_MAX_SEMS; i++)
        last = counting("B", 5, 0);
    CHECK_EQ(last, a);
    expect_sem_stats(a, 0, 0, 0);
    expect_sem_status(a, PR_NO_TASK, PR_NO_TASK, 0, 5);
}

/* The attributes come back as given; the value read back is the initial
 * value, whatever the current value is. */
static void sem_attr_get_reads_back_allocation(void)
{
    harness_reset(0);
    pr_id_t m = mutex("lock", PR_PROTOCOL_PIP);
    pr_id_t c = counting("units", 3, PR_SEM_PRIO);
    pr_sem_attr_t attr;
    pr_sem_attr_init(&attr);
    pr_id_t anon = PR_NO_SEM;
    CHECK_EQ(pr_sem_alloc(&attr, &anon), PR_OK); /* defaults, no name */
    CHECK_EQ(pr_sem_trydown(c), PR_OK);

    CHECK_EQ(pr_sem_attr_get(m, &attr), PR_OK);
    CHECK_EQ(attr.value, 1);
    CHECK_EQ(attr.flags, PR_SEM_MUTEX | PR_SEM_PRIO);
    CHECK_EQ(attr.protocol, PR_PROTOCOL_PIP);
    CHECK_EQ(attr.ceiling, 0);
    CHECK(strcmp(attr.name, "lock") == 0);

    CHECK_EQ(pr_sem_attr_get(c, &attr), PR_OK);
    CHECK_EQ(attr.value, 3);
    CHECK_EQ(sem_status_of(c).value, 2);
    CHECK_EQ(attr.flags, PR_SEM_PRIO);
    CHECK_EQ(attr.protocol, PR_PROTOCOL_NONE);
    CHECK(strcmp(attr.name, "units") == 0);

    CHECK_EQ(pr_sem_attr_get(anon, &attr), PR_OK);
    CHECK_EQ(attr.value, 0);
    CHECK_EQ(attr.flags, 0);
    CHECK(strcmp(attr.name, "") == 0);

    const char *proto = NULL;
    CHECK_EQ(pr_sem_control(m, PR_SEM_CTL_PROTOCOL_NAME, &proto), PR_OK);
    CHECK(proto != NULL && strcmp(proto, "pip") == 0);
    CHECK_EQ(pr_sem_control(c, PR_SEM_CTL_PROTOCOL_NAME, &proto), PR_OK);
    CHECK(proto != NULL && strcmp(proto, "none") == 0);
}

/* ---- tasks ---- */

/*
 * One task in each state, looked at from the program at 5:
 * Blk (5) downs C (0 units) forever: BLOCKED on C. Dly (4) delays 50:
 * DELAYED. Per (3, period 10) ends each job at once: WAIT_RELEASE. Late (6)
 * is released at 20: WAIT_RELEASE, no job yet. Done (7) returns at once:
 * DONE. Wd (8) waits for misses: WAIT_MISS. Sus (2) suspends itself: READY
 * and suspended. Run (1) computes from 0: READY, the running task.
 */
static void block_forever(void *arg)
{
    (void)arg;
    pr_sem_down(C, PR_FOREVER);
}
static void delay50(void *arg)
{
    (void)arg;
    pr_task_delay(50);
}
static void periodic_empty(void *arg)
{
    (void)arg;
    for (;;)
        pr_task_wait_period();
}
static void nothing(void *arg) { (void)arg; }
static void watchdog_forever(void *arg)
{
    (void)arg;
    pr_task_wait_miss(PR_FOREVER, NULL);
}
static void suspend_self(void *arg)
{
    (void)arg;
    pr_task_suspend(pr_task_self());
}
static void compute100(void *arg)
{
    (void)arg;
    pr_host_consume(TICKS(100));
}

static void task_status_reports_each_state(void)
{
    harness_reset(0);
    CHECK_EQ(counting("C", 0, 0), C);
    pr_id_t blk = task_at("Blk", 5, 0, block_forever, NULL);
    pr_id_t dly = task_at("Dly", 4, 0, delay50, NULL);
    pr_id_t per = periodic_task("Per", 3, 10, 0, 0, periodic_empty, NULL);
    pr_id_t late = task_at("Late", 6, 20, nothing, NULL);
    pr_id_t done = task_at("Done", 7, 0, nothing, NULL);
    pr_id_t wd = task_at("Wd", 8, 0, watchdog_forever, NULL);
    pr_id_t sus = task_at("Sus", 2, 0, suspend_self, NULL);
    pr_id_t run = task_at("Run", 1, 0, compute100, NULL);
    CHECK_EQ(status_of(late).state, PR_TASK_WAIT_RELEASE);
    CHECK_EQ(status_of(run).state, PR_TASK_READY);
    CHECK_EQ(pr_host_run_ticks(5), PR_HOST_REACHED);

    pr_task_status_t st = status_of(blk);
    CHECK_EQ(st.id, blk);
    CHECK(strcmp(st.name, "Blk") == 0);
    CHECK_EQ(st.state, PR_TASK_BLOCKED);
    CHECK_EQ(st.blocked_on, C);
    CHECK_EQ(st.suspended, 0);
    CHECK_EQ(status_of(dly).state, PR_TASK_DELAYED);
    CHECK_EQ(status_of(dly).blocked_on, PR_NO_SEM);
    CHECK_EQ(status_of(per).state, PR_TASK_WAIT_RELEASE);
    CHECK_EQ(status_of(per).jobs_released, 1);
    CHECK_EQ(status_of(per).jobs_completed, 1);
    CHECK_EQ(status_of(late).state, PR_TASK_WAIT_RELEASE);
    CHECK_EQ(status_of(late).jobs_released, 0);
    CHECK_EQ(status_of(done).state, PR_TASK_DONE);
    CHECK_EQ(status_of(done).jobs_completed, 1);
    CHECK_EQ(status_of(wd).state, PR_TASK_WAIT_MISS);
    CHECK_EQ(status_of(sus).state, PR_TASK_READY);
    CHECK_EQ(status_of(sus).suspended, 1);
    CHECK_EQ(status_of(run).state, PR_TASK_READY);
    CHECK_EQ(status_of(run).suspended, 0);
    /* Run has been computing since 0; it is the running task when the
     * program looks: its CPU time includes the current slice. */
    CHECK_EQ(status_of(run).cpu_time, TICKS(5));
    CHECK_EQ(status_of(blk).cpu_time, 0);
}

/*
 * Jobs and CPU time. P (2, period 10, phase 2, deadline = period): each job
 * computes 3. Q (3), released at 13, computes 1 and preempts P's second job
 * (12..13, then 14..16). Looked at 24.5: P released 3 jobs (2, 12, 22),
 * completed 2, no miss; CPU time 3 + 3 + 2.5 ticks = 8.5 ms (the third job
 * is running). Q: one job, 1 ms of CPU, done. Q itself looks at 13.5: its
 * own CPU time is 0.5 ms, P's is 4 ms.
 */
static const pr_action_t P_body[] = {A_COMPUTE(3)};
static pr_script_t sP;
static pr_id_t tP;
static uint64_t q_own_cpu, q_p_cpu;

static void q_body(void *arg)
{
    (void)arg;
    pr_host_consume(TICKS(1) / 2);
    q_own_cpu = status_of(pr_task_self()).cpu_time;
    q_p_cpu = status_of(tP).cpu_time;
    pr_host_consume(TICKS(1) / 2);
}

static void task_status_jobs_and_cpu_time(void)
{
    harness_reset(0);
    sP = SCRIPT(P_body);
    tP = periodic_task("P", 2, 10, 2, 0, pr_script_body, &sP);
    pr_id_t tQ = task_at("Q", 3, 13, q_body, NULL);
    CHECK_EQ(pr_host_run_until(TICKS(24) + TICKS(1) / 2), PR_HOST_REACHED);
    pr_task_status_t st = status_of(tP);
    CHECK_EQ(st.jobs_released, 3);
    CHECK_EQ(st.jobs_completed, 2);
    CHECK_EQ(st.deadline_misses, 0);
    CHECK_EQ(st.cpu_time, TICKS(8) + TICKS(1) / 2);
    CHECK_EQ(st.period, 10);
    CHECK_EQ(st.phase, 2);
    CHECK_EQ(st.deadline, 10);
    CHECK_EQ(st.watchdog, PR_NO_TASK);
    CHECK_EQ(st.base_priority, 2);
    CHECK_EQ(st.effective_priority, 2);
    CHECK_EQ(st.mutexes_held, 0);
    CHECK_EQ(q_own_cpu, TICKS(1) / 2);
    CHECK_EQ(q_p_cpu, TICKS(4));
    st = status_of(tQ);
    CHECK_EQ(st.state, PR_TASK_DONE);
    CHECK_EQ(st.jobs_released, 1);
    CHECK_EQ(st.jobs_completed, 1);
    CHECK_EQ(st.cpu_time, TICKS(1));
    CHECK_EQ(st.period, 0);
    CHECK_EQ(st.phase, 13);
    CHECK_EQ(st.deadline, 0);
    /* Run on: the CPU time keeps adding up over pauses. */
    CHECK_EQ(pr_host_run_ticks(40), PR_HOST_REACHED);
    CHECK_EQ(status_of(tP).cpu_time, TICKS(12));
    CHECK_EQ(status_of(tP).jobs_completed, 4);

    /* The kernel's counters agree with the trace. */
    pr_kernel_stats_t ks;
    pr_kernel_stats(&ks);
    CHECK_EQ(ks.ticks, 39); /* tick 40's interrupt is not taken yet */
    CHECK_EQ(ks.context_switches, trace_count(PR_EV_SWITCH, PR_TRACE_NONE));
    CHECK_EQ(ks.priority_changes, 0);
}

/*
 * Priorities, blocked_on and mutexes_held in the middle of an inheritance:
 * L (1) holds M and C2 (a second mutex); H (4) waits on M. L: base 1,
 * effective 4, 2 mutexes; H: blocked on M, 0 mutexes.
 */
static const pr_action_t L2_body[] = {A_LOCK(M), A_LOCK(2), A_COMPUTE(3), A_UNLOCK(2), A_UNLOCK(M)};
static const pr_action_t H2_body[] = {A_LOCK(M), A_UNLOCK(M)};

static void task_status_during_inheritance(void)
{
    harness_reset(0);
    sL = SCRIPT(L2_body);
    sH1 = SCRIPT(H2_body);
    CHECK_EQ(counting("C", 0, 0), C);
    CHECK_EQ(mutex("M", PR_PROTOCOL_PIP), M);
    CHECK_EQ(mutex("M2", PR_PROTOCOL_PIP), 2);
    pr_id_t tL = script_task("L", 1, 0, &sL);
    pr_id_t tH = script_task("H", 4, 1, &sH1);
    CHECK_EQ(pr_host_run_ticks(2), PR_HOST_REACHED);
    pr_task_status_t l = status_of(tL), h = status_of(tH);
    CHECK_EQ(l.base_priority, 1);
    CHECK_EQ(l.effective_priority, 4);
    CHECK_EQ(l.mutexes_held, 2);
    CHECK_EQ(l.blocked_on, PR_NO_SEM);
    CHECK_EQ(l.state, PR_TASK_READY);
    CHECK_EQ(h.state, PR_TASK_BLOCKED);
    CHECK_EQ(h.blocked_on, M);
    CHECK_EQ(h.mutexes_held, 0);
    CHECK_EQ(h.effective_priority, 4);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    l = status_of(tL);
    CHECK_EQ(l.effective_priority, 1);
    CHECK_EQ(l.mutexes_held, 0);
    pr_kernel_stats_t ks;
    pr_kernel_stats(&ks);
    CHECK_EQ(ks.priority_changes, 2);
    CHECK_EQ(ks.priority_changes, trace_count(PR_EV_PRIO, PR_TRACE_NONE));
}

HARNESS_MAIN(TEST_CASE(sem_status_follows_holder_and_waiters),
             TEST_CASE(sem_stats_count_ups_downs_max_waiters),
             TEST_CASE(sem_stats_reset_on_realloc),
             TEST_CASE(sem_attr_get_reads_back_allocation),
             TEST_CASE(task_status_reports_each_state),
             TEST_CASE(task_status_jobs_and_cpu_time),
             TEST_CASE(task_status_during_inheritance))
