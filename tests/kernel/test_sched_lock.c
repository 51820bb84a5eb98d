/*
 * The scheduler lock (pr_sched_lock, pr_sched_unlock): while the caller
 * holds it and runs, no other task preempts it; the switches it held back
 * happen at its outermost unlock. It belongs to the task: a task that
 * blocks under it lets others run, and the lock applies again when it runs
 * again. Errors leave everything as it was.
 */
#include "harness.h"

#define EV_LOCK (EV_SCHED | EV(PR_EV_SCHED_LOCK) | EV(PR_EV_SEM_UP))

typedef struct locker {
    uint64_t before, locked, after; /* compute before the lock, under it, after the unlock */
    pr_id_t mutex;                   /* >= 0: up it under the lock (it holds it from its start) */
    pr_timeout_t delay;              /* > 0: delay this many ticks under the lock */
    int rc_lock, rc_unlock;
} locker_t;

static void locker_body(void *arg)
{
    locker_t *l = arg;
    if (l->mutex >= 0)
        CHECK_EQ(pr_sem_down(l->mutex, PR_FOREVER), PR_OK);
    pr_host_consume(l->before);
    l->rc_lock = pr_sched_lock();
    pr_host_consume(l->locked);
    if (l->mutex >= 0)
        CHECK_EQ(pr_sem_up(l->mutex), PR_OK);
    if (l->delay > 0)
        CHECK_EQ(pr_task_delay(l->delay), PR_OK);
    pr_host_consume(l->locked);
    l->rc_unlock = pr_sched_unlock();
    pr_host_consume(l->after);
}

static void compute_one(void *arg)
{
    (void)arg;
    pr_host_consume(TICKS(1));
}

/* L (1) locks at 0.5 for 2 ticks of work; H (3), released at 1, waits for
 * the unlock at 2.5, then runs before L's last half tick. */
static void a_release_waits_for_the_unlock(void)
{
    harness_reset(0);
    locker_t l = {TICKS(1) / 2, TICKS(1), TICKS(1) / 2, -1, 0, 1, 1};
    task_at("L", 1, 0, locker_body, &l);
    task_at("H", 3, 1, compute_one, NULL);
    CHECK_EQ(pr_host_run_ticks(10), PR_HOST_QUIESCENT);
    CHECK_EQ(l.rc_lock, PR_OK);
    CHECK_EQ(l.rc_unlock, PR_OK);
    EXPECT_TRACE(EV_LOCK,
                 "0 SWITCH L<-idle",
                 "0.5 SCHED_LOCK L depth=1",
                 "2.5 SCHED_UNLOCK L depth=0",
                 "2.5 SWITCH H<-L",
                 "3.5 SWITCH L<-H",
                 "4 SWITCH idle<-L");
}

/* L (1) holds pip mutex M, which H (3) waits for; under the lock L's up
 * hands M to H and drops L back to 1, but H runs only at the unlock. */
static void a_hand_off_waits_for_the_unlock(void)
{
    harness_reset(0);
    pr_id_t m = mutex("M", PR_PROTOCOL_PIP);
    locker_t l = {TICKS(2), TICKS(1) / 2, 0, m, 0, 1, 1};
    downer_t h = DOWNER(m, PR_FOREVER, 0, TICKS(1), 1);
    task_at("L", 1, 0, locker_body, &l);
    task_at("H", 3, 1, downer_body, &h);
    CHECK_EQ(pr_host_run_ticks(10), PR_HOST_QUIESCENT);
    CHECK_EQ(h.rc, PR_OK);
    EXPECT_TRACE(EV_LOCK,
                 "0 SWITCH L<-idle",
                 "1 SWITCH H<-L",
                 "1 BLOCK H M ok",
                 "1 PRIO L 1->3 inherit M",
                 "1 SWITCH L<-H",
                 "2 SCHED_LOCK L depth=1",
                 "2.5 PRIO L 3->1 release M",
                 "2.5 WAKE H M ok",
                 "2.5 UP L M ok value=0",
                 "3 SCHED_UNLOCK L depth=0",
                 "3 SWITCH H<-L",
                 "4 UP H M ok value=1",
                 "4 SWITCH L<-H",
                 "4 SWITCH idle<-L");
}

/* Under the lock, L (1) delays 1 tick: H (3), released meanwhile, runs;
 * when L runs again its lock applies again: W (2), released at 2.5 while L
 * computes, waits for L's unlock at 3.5. */
static void the_lock_belongs_to_the_task(void)
{
    harness_reset(0);
    locker_t l = {0, TICKS(1) / 2, 0, -1, 1, 1, 1};
    task_at("L", 1, 0, locker_body, &l);
    task_at("H", 3, 1, compute_one, NULL);
    CHECK_EQ(pr_host_run_ticks(1), PR_HOST_REACHED);
    CHECK_EQ(status_of(0).state, PR_TASK_DELAYED);
    CHECK_EQ(pr_host_run_ticks(10), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_LOCK,
                 "0 SWITCH L<-idle",
                 "0 SCHED_LOCK L depth=1",
                 "0.5 SWITCH idle<-L",
                 "1 SWITCH H<-idle",
                 "2 SWITCH L<-H",
                 "2.5 SCHED_UNLOCK L depth=0",
                 "2.5 SWITCH idle<-L");
}

/* Two tasks at one priority, quantum 1: under the lock the end of A's
 * slice does not rotate it; B runs after the unlock. */
static void no_rotation_under_the_lock(void)
{
    harness_reset(1);
    locker_t a = {0, TICKS(1), 0, -1, 0, 1, 1};
    task_at("A", 2, 0, locker_body, &a);
    task_at("B", 2, 0, compute_one, NULL);
    CHECK_EQ(pr_host_run_ticks(10), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_LOCK,
                 "0 SWITCH A<-idle",
                 "0 SCHED_LOCK A depth=1",
                 "2 SCHED_UNLOCK A depth=0",
                 "2 SWITCH B<-A",
                 "3 SWITCH idle<-B");
}

/* Nesting: the switch waits for the outermost unlock. */
static void nest_body(void *arg)
{
    int *rc = arg;
    rc[0] = pr_sched_lock();
    rc[1] = pr_sched_lock();
    pr_host_consume(TICKS(2));
    rc[2] = pr_sched_unlock();
    pr_host_consume(TICKS(1));
    rc[3] = pr_sched_unlock();
    rc[4] = pr_sched_unlock(); /* none left */
}

static void nested_locks(void)
{
    harness_reset(0);
    int rc[5] = {1, 1, 1, 1, 1};
    task_at("L", 1, 0, nest_body, rc);
    task_at("H", 3, 1, compute_one, NULL);
    CHECK_EQ(pr_host_run_ticks(10), PR_HOST_QUIESCENT);
    CHECK_EQ(rc[0], PR_OK);
    CHECK_EQ(rc[1], PR_OK);
    CHECK_EQ(rc[2], PR_OK);
    CHECK_EQ(rc[3], PR_OK);
    CHECK_EQ(rc[4], PR_ESTATE);
    EXPECT_TRACE(EV_LOCK,
                 "0 SWITCH L<-idle",
                 "0 SCHED_LOCK L depth=1",
                 "0 SCHED_LOCK L depth=2",
                 "2 SCHED_UNLOCK L depth=1",
                 "3 SCHED_UNLOCK L depth=0",
                 "3 SWITCH H<-L",
                 "4 SWITCH L<-H",
                 "4 SWITCH idle<-L");
}

static void deep_body(void *arg)
{
    int *rc = arg;
    int n = 0;
    while (pr_sched_lock() == PR_OK)
        n++;
    rc[0] = n;
    rc[1] = pr_sched_lock();
    while (pr_sched_unlock() == PR_OK)
        n--;
    rc[2] = n;
}

/* Errors: outside a task (the driver); 255 levels at most; an unlock
 * without a lock. */
static void errors_change_nothing(void)
{
    harness_reset(0);
    CHECK_EQ(pr_sched_lock(), PR_ECONTEXT);
    CHECK_EQ(pr_sched_unlock(), PR_ECONTEXT);
    int rc[3] = {0, 0, -1};
    task_at("D", 1, 0, deep_body, rc);
    CHECK_EQ(pr_host_run_ticks(10), PR_HOST_QUIESCENT);
    CHECK_EQ(rc[0], 255);
    CHECK_EQ(rc[1], PR_EOVERFLOW);
    CHECK_EQ(rc[2], 0);
    CHECK_EQ(trace_count(PR_EV_SCHED_LOCK, PR_TRACE_NONE), 510);
}

HARNESS_MAIN(TEST_CASE(a_release_waits_for_the_unlock), TEST_CASE(a_hand_off_waits_for_the_unlock),
             TEST_CASE(the_lock_belongs_to_the_task), TEST_CASE(no_rotation_under_the_lock),
             TEST_CASE(nested_locks), TEST_CASE(errors_change_nothing))
