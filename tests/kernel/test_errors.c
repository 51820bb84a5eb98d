/*
 * Every error code, each from a real call, and the promise that goes with
 * it: a failing call changes nothing (every task's, semaphore's and
 * condition variable's status is the same before and after; for calls
 * refused at validation, the semaphore statistics too). The one exception
 * is PR_EABORTED, whose report is its effect: the abort is no longer
 * pending.
 */
#include <limits.h>
#include "priora/port.h"
#include "harness.h"

/* ---- snapshots of everything a caller can observe ---- */

typedef struct snapshot {
    int sem_rc[PR_CONFIG_MAX_SEMS];
    pr_sem_status_t sem[PR_CONFIG_MAX_SEMS];
    pr_sem_stats_t stats[PR_CONFIG_MAX_SEMS];
    int task_rc[PR_CONFIG_MAX_TASKS];
    pr_task_status_t task[PR_CONFIG_MAX_TASKS];
    int cond_rc[PR_CONFIG_MAX_CONDS];
    pr_cond_status_t cond[PR_CONFIG_MAX_CONDS];
    int timers;
    uint64_t switches, prio_changes;
} snapshot_t;

static void take(snapshot_t *s)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < PR_CONFIG_MAX_SEMS; i++) {
        s->sem_rc[i] = pr_sem_status(i, &s->sem[i]);
        pr_sem_stats(i, &s->stats[i]);
    }
    for (int i = 0; i < PR_CONFIG_MAX_TASKS; i++)
        s->task_rc[i] = pr_task_status(i, &s->task[i]);
    for (int i = 0; i < PR_CONFIG_MAX_CONDS; i++)
        s->cond_rc[i] = pr_cond_status(i, &s->cond[i]);
    s->timers = pr_kernel_timers_armed();
    pr_kernel_stats_t ks;
    pr_kernel_stats(&ks);
    s->switches = ks.context_switches;
    s->prio_changes = ks.priority_changes;
}

static snapshot_t before_, after_;

/* Checks that `call` returns `err` and leaves every status as it was;
 * with_stats: the semaphore statistics as well. */
#define EXPECT_ERR_STATS(call, err, with_stats)                                                     \
    do {                                                                                           \
        take(&before_);                                                                            \
        CHECK_EQ((call), (err));                                                                   \
        take(&after_);                                                                             \
        if (!(with_stats))                                                                         \
            memcpy(after_.stats, before_.stats, sizeof after_.stats);                              \
        if (memcmp(&before_, &after_, sizeof before_) != 0) {                                      \
            fprintf(stderr, "%s:%d: %s changed the kernel's state\n", __FILE__, __LINE__, #call);  \
            harness_failed = 1;                                                                    \
        }                                                                                          \
    } while (0)
#define EXPECT_ERR(call, err) EXPECT_ERR_STATS(call, err, 1)

static pr_sem_attr_t sem_attr(int value, unsigned flags, pr_protocol_t protocol, const char *name)
{
    pr_sem_attr_t a;
    pr_sem_attr_init(&a);
    a.value = value;
    a.flags = flags;
    a.protocol = protocol;
    a.name = name;
    return a;
}

static void nothing(void *arg) { (void)arg; }

static pr_task_attr_t task_attr(const char *name, pr_prio_t prio)
{
    pr_task_attr_t a;
    pr_task_attr_init(&a);
    a.name = name;
    a.priority = prio;
    a.entry = nothing;
    a.phase = 1000; /* not released during these tests */
    return a;
}

/* ---- PR_EINVAL ---- */

static void einval_for_invalid_semaphore_attributes(void)
{
    harness_reset(0);
    pr_id_t id = 77;
    pr_sem_attr_t a = sem_attr(1, PR_SEM_MUTEX | PR_SEM_PRIO, PR_PROTOCOL_PIP, "ok");
    EXPECT_ERR(pr_sem_alloc(NULL, &id), PR_EINVAL);
    EXPECT_ERR(pr_sem_alloc(&a, NULL), PR_EINVAL);

    a = sem_attr(0, 0x4u, PR_PROTOCOL_NONE, NULL); /* unknown flag */
    EXPECT_ERR(pr_sem_alloc(&a, &id), PR_EINVAL);
    a = sem_attr(-1, 0, PR_PROTOCOL_NONE, NULL); /* negative value */
    EXPECT_ERR(pr_sem_alloc(&a, &id), PR_EINVAL);
    a = sem_attr(0, PR_SEM_MUTEX | PR_SEM_PRIO, PR_PROTOCOL_NONE, NULL); /* mutex at 0 */
    EXPECT_ERR(pr_sem_alloc(&a, &id), PR_EINVAL);
    a = sem_attr(2, PR_SEM_MUTEX | PR_SEM_PRIO, PR_PROTOCOL_NONE, NULL); /* mutex at 2 */
    EXPECT_ERR(pr_sem_alloc(&a, &id), PR_EINVAL);
    a = sem_attr(1, PR_SEM_PRIO, PR_PROTOCOL_PIP, NULL); /* inheritance on a counting semaphore */
    EXPECT_ERR(pr_sem_alloc(&a, &id), PR_EINVAL);
    a = sem_attr(1, PR_SEM_MUTEX, PR_PROTOCOL_PIP, NULL); /* inheritance on a FIFO mutex */
    EXPECT_ERR(pr_sem_alloc(&a, &id), PR_EINVAL);
    a = sem_attr(1, PR_SEM_MUTEX | PR_SEM_PRIO, (pr_protocol_t)7, NULL); /* unknown protocol */
    EXPECT_ERR(pr_sem_alloc(&a, &id), PR_EINVAL);
    a = sem_attr(1, PR_SEM_MUTEX | PR_SEM_PRIO, PR_PROTOCOL_NONE, NULL);
    a.ceiling = 3; /* reserved: neither none nor pip takes a ceiling */
    EXPECT_ERR(pr_sem_alloc(&a, &id), PR_EINVAL);
    a = sem_attr(1, PR_SEM_MUTEX | PR_SEM_PRIO, PR_PROTOCOL_PIP, NULL);
    a.ceiling = 3;
    EXPECT_ERR(pr_sem_alloc(&a, &id), PR_EINVAL);
    a = sem_attr(0, 0, PR_PROTOCOL_NONE, "sixteen-chars-xx"); /* 16 characters: no room for the NUL */
    EXPECT_ERR(pr_sem_alloc(&a, &id), PR_EINVAL);
    CHECK_EQ(id, 77); /* never written on failure */

    /* The limits themselves are accepted. */
    a = sem_attr(0, 0, PR_PROTOCOL_NONE, "fifteen-chars-x");
    CHECK_EQ(pr_sem_alloc(&a, &id), PR_OK);
    CHECK_EQ(id, 0);
    a = sem_attr(INT_MAX, PR_SEM_PRIO, PR_PROTOCOL_NONE, NULL);
    CHECK_EQ(pr_sem_alloc(&a, &id), PR_OK);
    a = sem_attr(1, PR_SEM_MUTEX, PR_PROTOCOL_NONE, NULL); /* a FIFO mutex without inheritance */
    CHECK_EQ(pr_sem_alloc(&a, &id), PR_OK);

    /* A failed allocation is traced with no object and its error. */
    size_t n;
    const pr_trace_record_t *r = pr_host_trace(&n);
    CHECK_EQ(r[0].event, PR_EV_SEM_ALLOC);
    CHECK_EQ(r[0].object, PR_TRACE_NONE);
    CHECK_EQ(r[0].result, PR_EINVAL);
}

static void einval_for_invalid_task_attributes(void)
{
    harness_reset(0);
    pr_id_t id = 77;
    pr_task_attr_t a = task_attr("ok", 1);
    EXPECT_ERR(pr_task_create(NULL, &id), PR_EINVAL);
    EXPECT_ERR(pr_task_create(&a, NULL), PR_EINVAL);
    a.entry = NULL;
    EXPECT_ERR(pr_task_create(&a, &id), PR_EINVAL);
    a = task_attr("neg", -1);
    EXPECT_ERR(pr_task_create(&a, &id), PR_EINVAL);
    a = task_attr("high", PR_PRIO_MAX + 1);
    EXPECT_ERR(pr_task_create(&a, &id), PR_EINVAL);
    a = task_attr("sixteen-chars-xx", 1);
    EXPECT_ERR(pr_task_create(&a, &id), PR_EINVAL);
    a = task_attr("period", 1);
    a.period = (pr_ticks_t)UINT32_MAX + 1;
    EXPECT_ERR(pr_task_create(&a, &id), PR_EINVAL);
    a = task_attr("deadline", 1);
    a.period = 10;
    a.deadline = (pr_ticks_t)UINT32_MAX + 1;
    EXPECT_ERR(pr_task_create(&a, &id), PR_EINVAL);
    CHECK_EQ(id, 77);

    a = task_attr("fifteen-chars-x", PR_PRIO_MAX);
    CHECK_EQ(pr_task_create(&a, &id), PR_OK);
    CHECK_EQ(id, 0);
    a = task_attr("zero", 0);
    a.period = 10;
    a.deadline = 5;
    CHECK_EQ(pr_task_create(&a, &id), PR_OK);
    a = task_attr("oneshot", 0); /* a deadline with period 0: the single job's deadline */
    a.deadline = 5;
    CHECK_EQ(pr_task_create(&a, &id), PR_OK);
    CHECK_EQ(status_of(id).deadline, 5);
}

static int delay_forever_rc;
static void delay_forever_body(void *arg)
{
    (void)arg;
    delay_forever_rc = pr_task_delay(PR_FOREVER);
}

static void einval_for_invalid_arguments(void)
{
    harness_reset(0);
    pr_id_t s = counting("S", 0, 0);
    pr_id_t t = task_at("T", 1, 1000, nothing, NULL);
    EXPECT_ERR(pr_task_set_priority(t, -1), PR_EINVAL);
    EXPECT_ERR(pr_task_set_priority(t, PR_PRIO_MAX + 1), PR_EINVAL);
    EXPECT_ERR(pr_sem_stats(s, NULL), PR_EINVAL);
    EXPECT_ERR(pr_sem_status(s, NULL), PR_EINVAL);
    EXPECT_ERR(pr_sem_attr_get(s, NULL), PR_EINVAL);
    EXPECT_ERR(pr_task_status(t, NULL), PR_EINVAL);
    EXPECT_ERR(pr_sem_control(s, PR_SEM_CTL_PROTOCOL_NAME, NULL), PR_EINVAL);
    EXPECT_ERR(pr_sem_control(s, 12345, NULL), PR_EINVAL); /* neither the mechanism nor "none" knows it */
    pr_kernel_config_t bad = {.tick_hz = 0, .quantum = 0};
    EXPECT_ERR(pr_kernel_init(NULL), PR_EINVAL);
    EXPECT_ERR(pr_kernel_init(&bad), PR_EINVAL);
    bad.tick_hz = 1000001;
    EXPECT_ERR(pr_kernel_init(&bad), PR_EINVAL);

    task_at("D", 1, 0, delay_forever_body, NULL);
    CHECK_EQ(pr_host_run_ticks(5), PR_HOST_REACHED);
    CHECK_EQ(delay_forever_rc, PR_EINVAL);
}

/* ---- PR_EBADID, PR_ENOTALLOC ---- */

static void ebadid_for_ids_outside_pools(void)
{
    harness_reset(0);
    const pr_id_t bad_sems[] = {-1, PR_CONFIG_MAX_SEMS, PR_NO_SEM, 1000};
    const pr_id_t bad_tasks[] = {-1, PR_CONFIG_MAX_TASKS /* the idle task's slot */, PR_NO_TASK, 1000};
    pr_sem_stats_t stats;
    pr_sem_status_t sst;
    pr_sem_attr_t attr;
    pr_task_status_t tst;
    const char *name;
    for (size_t i = 0; i < sizeof bad_sems / sizeof *bad_sems; i++) {
        pr_id_t id = bad_sems[i];
        EXPECT_ERR(pr_sem_down(id, PR_NO_WAIT), PR_EBADID);
        EXPECT_ERR(pr_sem_down(id, PR_FOREVER), PR_EBADID);
        EXPECT_ERR(pr_sem_trydown(id), PR_EBADID);
        EXPECT_ERR(pr_sem_up(id), PR_EBADID);
        EXPECT_ERR(pr_sem_free(id), PR_EBADID);
        EXPECT_ERR(pr_sem_stats(id, &stats), PR_EBADID);
        EXPECT_ERR(pr_sem_status(id, &sst), PR_EBADID);
        EXPECT_ERR(pr_sem_attr_get(id, &attr), PR_EBADID);
        EXPECT_ERR(pr_sem_control(id, PR_SEM_CTL_PROTOCOL_NAME, &name), PR_EBADID);
    }
    for (size_t i = 0; i < sizeof bad_tasks / sizeof *bad_tasks; i++) {
        pr_id_t id = bad_tasks[i];
        EXPECT_ERR(pr_task_delete(id), PR_EBADID);
        EXPECT_ERR(pr_task_suspend(id), PR_EBADID);
        EXPECT_ERR(pr_task_resume(id), PR_EBADID);
        EXPECT_ERR(pr_task_set_priority(id, 1), PR_EBADID);
        EXPECT_ERR(pr_task_status(id, &tst), PR_EBADID);
    }
    pr_task_attr_t a = task_attr("W", 1);
    pr_id_t id;
    a.watchdog = PR_CONFIG_MAX_TASKS;
    EXPECT_ERR(pr_task_create(&a, &id), PR_EBADID);
    a.watchdog = -5;
    EXPECT_ERR(pr_task_create(&a, &id), PR_EBADID);
}

static void enotalloc_for_freed_and_unused_ids(void)
{
    harness_reset(0);
    pr_id_t s = counting("S", 1, 0);
    pr_id_t never = s + 1;
    CHECK_EQ(pr_sem_free(s), PR_OK);
    pr_sem_stats_t stats;
    pr_sem_status_t sst;
    pr_sem_attr_t attr;
    const char *name;
    const pr_id_t ids[] = {s, never};
    for (int i = 0; i < 2; i++) {
        EXPECT_ERR(pr_sem_down(ids[i], PR_NO_WAIT), PR_ENOTALLOC);
        EXPECT_ERR(pr_sem_up(ids[i]), PR_ENOTALLOC);
        EXPECT_ERR(pr_sem_free(ids[i]), PR_ENOTALLOC);
        EXPECT_ERR(pr_sem_stats(ids[i], &stats), PR_ENOTALLOC);
        EXPECT_ERR(pr_sem_status(ids[i], &sst), PR_ENOTALLOC);
        EXPECT_ERR(pr_sem_attr_get(ids[i], &attr), PR_ENOTALLOC);
        EXPECT_ERR(pr_sem_control(ids[i], PR_SEM_CTL_PROTOCOL_NAME, &name), PR_ENOTALLOC);
    }

    pr_id_t t = task_at("T", 1, 1000, nothing, NULL);
    CHECK_EQ(pr_task_delete(t), PR_OK);
    pr_task_status_t tst;
    const pr_id_t tids[] = {t, t + 1};
    for (int i = 0; i < 2; i++) {
        EXPECT_ERR(pr_task_delete(tids[i]), PR_ENOTALLOC);
        EXPECT_ERR(pr_task_suspend(tids[i]), PR_ENOTALLOC);
        EXPECT_ERR(pr_task_resume(tids[i]), PR_ENOTALLOC);
        EXPECT_ERR(pr_task_set_priority(tids[i], 1), PR_ENOTALLOC);
        EXPECT_ERR(pr_task_status(tids[i], &tst), PR_ENOTALLOC);
    }
    pr_task_attr_t a = task_attr("W", 1);
    pr_id_t id;
    a.watchdog = t; /* deleted */
    EXPECT_ERR(pr_task_create(&a, &id), PR_ENOTALLOC);
}

/* A task that tries to use a semaphore freed under it gets PR_ENOTALLOC. */
static int freed_rc;
static void use_freed_body(void *arg)
{
    (void)arg;
    freed_rc = pr_sem_down(0, PR_FOREVER);
}

static void enotalloc_from_task_using_freed_semaphore(void)
{
    harness_reset(0);
    pr_id_t s = counting("S", 0, 0);
    CHECK_EQ(pr_sem_free(s), PR_OK);
    task_at("T", 1, 0, use_freed_body, NULL);
    CHECK_EQ(pr_host_run_ticks(5), PR_HOST_QUIESCENT);
    CHECK_EQ(freed_rc, PR_ENOTALLOC);
    EXPECT_TRACE(EV(PR_EV_SEM_DOWN) | EV(PR_EV_SEM_FREE), 
                 /* names are resolved when printed: the freed S has none */
                 "0 SEM_FREE - S0 ok", "0 DOWN T S0 PR_ENOTALLOC value=0");
}

/* ---- PR_ENOSPC ---- */

static void enospc_when_semaphore_pool_exhausted(void)
{
    harness_reset(0);
    for (int i = 0; i < PR_CONFIG_MAX_SEMS; i++)
        CHECK_EQ(counting("S", i, 0), i);
    pr_sem_attr_t a = sem_attr(0, 0, PR_PROTOCOL_NONE, "extra");
    pr_id_t id = 77;
    EXPECT_ERR(pr_sem_alloc(&a, &id), PR_ENOSPC);
    EXPECT_ERR(pr_sem_alloc(&a, &id), PR_ENOSPC);
    CHECK_EQ(id, 77);
    /* After a free, allocation works again and gets the freed descriptor. */
    CHECK_EQ(pr_sem_free(10), PR_OK);
    CHECK_EQ(pr_sem_alloc(&a, &id), PR_OK);
    CHECK_EQ(id, 10);
    CHECK_EQ(sem_status_of(10).value, 0);
    EXPECT_ERR(pr_sem_alloc(&a, &id), PR_ENOSPC);
}

static void enospc_when_task_pool_exhausted(void)
{
    harness_reset(0);
    for (int i = 0; i < PR_CONFIG_MAX_TASKS; i++)
        CHECK_EQ(task_at("T", 1, 1000, nothing, NULL), i);
    pr_task_attr_t a = task_attr("extra", 2);
    pr_id_t id = 77;
    EXPECT_ERR(pr_task_create(&a, &id), PR_ENOSPC);
    CHECK_EQ(id, 77);
    CHECK_EQ(pr_task_delete(7), PR_OK);
    CHECK_EQ(pr_task_create(&a, &id), PR_OK);
    CHECK_EQ(id, 7);
    CHECK(strcmp(status_of(7).name, "extra") == 0);
    CHECK_EQ(status_of(7).base_priority, 2);
    EXPECT_ERR(pr_task_create(&a, &id), PR_ENOSPC);
}

/* ---- PR_ETIMEDOUT, PR_EAGAIN ---- */

static void etimedout_and_eagain(void)
{
    harness_reset(0);
    pr_id_t s = counting("S", 0, PR_SEM_PRIO);
    downer_t d = DOWNER(s, 2, 0, 0, 0);
    task_at("T", 1, 0, downer_body, &d);
    CHECK_EQ(pr_host_run_ticks(10), PR_HOST_QUIESCENT);
    CHECK_EQ(d.rc, PR_ETIMEDOUT);
    CHECK_EQ(d.at, 2);
    /* Would block: refused, nothing changes but the down count. */
    EXPECT_ERR_STATS(pr_sem_trydown(s), PR_EAGAIN, 0);
    EXPECT_ERR_STATS(pr_sem_down(s, PR_NO_WAIT), PR_EAGAIN, 0);
    CHECK_EQ(sem_status_of(s).value, 0);
}

/* ---- PR_EPERM, PR_EHELD ---- */

enum { MX = 0 };
static int perm_free_rc, perm_held_rc, held_rc;
static void holder_body(void *arg)
{
    (void)arg;
    CHECK_EQ(pr_sem_down(MX, PR_FOREVER), PR_OK);
    EXPECT_ERR_STATS(held_rc = pr_sem_down(MX, PR_FOREVER), PR_EHELD, 1);
    EXPECT_ERR_STATS(pr_sem_trydown(MX), PR_EHELD, 1);
    CHECK_EQ(pr_task_delay(2), PR_OK);
    CHECK_EQ(pr_sem_up(MX), PR_OK);
}
static void stranger_body(void *arg)
{
    (void)arg;
    EXPECT_ERR(perm_held_rc = pr_sem_up(MX), PR_EPERM); /* held by Holder */
    CHECK_EQ(pr_task_delay(5), PR_OK);
    EXPECT_ERR(perm_free_rc = pr_sem_up(MX), PR_EPERM); /* free */
}

static void eperm_and_eheld(void)
{
    harness_reset(0);
    CHECK_EQ(mutex("M", PR_PROTOCOL_PIP), MX);
    task_at("Holder", 2, 0, holder_body, NULL);
    task_at("Stranger", 1, 0, stranger_body, NULL);
    CHECK_EQ(pr_host_run_ticks(20), PR_HOST_QUIESCENT);
    CHECK_EQ(held_rc, PR_EHELD);
    CHECK_EQ(perm_held_rc, PR_EPERM);
    CHECK_EQ(perm_free_rc, PR_EPERM);
    EXPECT_TRACE(EV(PR_EV_SEM_DOWN) | EV(PR_EV_SEM_UP),
                 "0 DOWN Holder M ok value=0",
                 "0 DOWN Holder M PR_EHELD value=0",
                 "0 DOWN Holder M PR_EHELD value=0",
                 "0 UP Stranger M PR_EPERM value=0",
                 "2 UP Holder M ok value=1",
                 "5 UP Stranger M PR_EPERM value=1");
    pr_sem_stats_t st;
    CHECK_EQ(pr_sem_stats(MX, &st), PR_OK);
    CHECK_EQ(st.downs, 1);
    CHECK_EQ(st.ups, 1);
}

/* ---- PR_EDEADLK ---- */

enum { DA = 0, DB = 1, DC = 2 };

/*
 * Opposite lock order, with inheritance. T1 (2) locks A at 0 and delays 2;
 * T2 (1) locks B at 0 and computes 3. At 2 T1 wakes and blocks on B: T2
 * inherits 2. At 3 T2 asks for A: A is held by T1, which waits for B, held
 * by T2 - a cycle: the down fails at once with PR_EDEADLK, T2 skips that
 * critical section and unlocks B (2->1), its last action: T2 ends at 3,
 * then T1 gets B, computes 3..4, unlocks both and ends. Nothing hangs.
 */
static const pr_action_t D1_body[] = {A_LOCK(DA), A_DELAY(2), A_LOCK(DB), A_COMPUTE(1), A_UNLOCK(DB), A_UNLOCK(DA)};
static const pr_action_t D2_body[] = {A_LOCK(DB), A_COMPUTE(3), A_LOCK(DA), A_COMPUTE(1), A_UNLOCK(DA), A_UNLOCK(DB)};

static void edeadlk_two_tasks_opposite_order(void)
{
    harness_reset(0);
    pr_script_t s1 = SCRIPT(D1_body), s2 = SCRIPT(D2_body);
    CHECK_EQ(mutex("A", PR_PROTOCOL_PIP), DA);
    CHECK_EQ(mutex("B", PR_PROTOCOL_PIP), DB);
    pr_id_t t1 = script_task("T1", 2, 0, &s1);
    pr_id_t t2 = script_task("T2", 1, 0, &s2);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SCHED | EV(PR_EV_SEM_DOWN),
                 "0 SWITCH T1<-idle",
                 "0 DOWN T1 A ok value=0",
                 "0 SWITCH T2<-T1",
                 "0 DOWN T2 B ok value=0",
                 "2 SWITCH T1<-T2",
                 "2 BLOCK T1 B ok",
                 "2 PRIO T2 1->2 inherit B",
                 "2 SWITCH T2<-T1",
                 "3 DOWN T2 A PR_EDEADLK value=0",
                 "3 PRIO T2 2->1 release B",
                 "3 WAKE T1 B ok",
                 "3 SWITCH T1<-T2",
                 "3 DOWN T1 B ok value=0",
                 "4 SWITCH idle<-T1");
    CHECK_EQ(s2.errors, 1);
    CHECK_EQ(s2.last_error, PR_EDEADLK);
    CHECK_EQ(s2.last_error_action, 2);
    CHECK_EQ(s1.errors, 0);
    CHECK_EQ(status_of(t1).state, PR_TASK_DONE);
    CHECK_EQ(status_of(t2).state, PR_TASK_DONE);
    CHECK_EQ(sem_status_of(DA).value, 1);
    CHECK_EQ(sem_status_of(DB).value, 1);
}

/* The refused down changes nothing: checked from inside T2 at the instant. */
static int dl_rc;
static void dl_first(void *arg)
{
    (void)arg;
    pr_sem_down(DA, PR_FOREVER);
    pr_task_delay(2);
    pr_sem_down(DB, PR_FOREVER);
    pr_sem_up(DB);
    pr_sem_up(DA);
}
static void dl_second(void *arg)
{
    (void)arg;
    pr_sem_down(DB, PR_FOREVER);
    pr_host_consume(TICKS(3));
    EXPECT_ERR_STATS(dl_rc = pr_sem_down(DA, PR_FOREVER), PR_EDEADLK, 0);
    EXPECT_ERR_STATS(pr_sem_down(DA, 5), PR_EDEADLK, 0);
    pr_sem_up(DB);
}

static void edeadlk_changes_nothing(void)
{
    harness_reset(0);
    CHECK_EQ(mutex("A", PR_PROTOCOL_PIP), DA);
    CHECK_EQ(mutex("B", PR_PROTOCOL_PIP), DB);
    task_at("T1", 2, 0, dl_first, NULL);
    task_at("T2", 1, 0, dl_second, NULL);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    CHECK_EQ(dl_rc, PR_EDEADLK);
}

/*
 * A cycle of three. T1 (3) locks A, T2 (2) locks B, both delay to 3; T3 (1)
 * locks C and computes 5. At 3 T1 blocks on B (T2 2->3); T2 blocks on C
 * (T3 1->3). T3 computes 3..5 and asks for A: A -> T1 -> B -> T2 -> C -> T3,
 * itself: PR_EDEADLK. T3 skips, unlocks C at 5 (3->1): T2 gets C (keeps 3
 * through B), computes 5..6, unlocks C and B (3->2): T1 gets B, computes
 * 6..7, ends; then T2 and T3 end at 7.
 */
static const pr_action_t C1_body[] = {A_LOCK(DA), A_DELAY(3), A_LOCK(DB), A_COMPUTE(1), A_UNLOCK(DB), A_UNLOCK(DA)};
static const pr_action_t C2_body[] = {A_LOCK(DB), A_DELAY(3), A_LOCK(DC), A_COMPUTE(1), A_UNLOCK(DC), A_UNLOCK(DB)};
static const pr_action_t C3_body[] = {A_LOCK(DC), A_COMPUTE(5), A_LOCK(DA), A_COMPUTE(1), A_UNLOCK(DA), A_UNLOCK(DC)};

static void edeadlk_three_task_cycle(void)
{
    harness_reset(0);
    pr_script_t s1 = SCRIPT(C1_body), s2 = SCRIPT(C2_body), s3 = SCRIPT(C3_body);
    CHECK_EQ(mutex("A", PR_PROTOCOL_PIP), DA);
    CHECK_EQ(mutex("B", PR_PROTOCOL_PIP), DB);
    CHECK_EQ(mutex("C", PR_PROTOCOL_PIP), DC);
    script_task("T1", 3, 0, &s1);
    script_task("T2", 2, 0, &s2);
    script_task("T3", 1, 0, &s3);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SCHED | EV(PR_EV_SEM_DOWN),
                 "0 SWITCH T1<-idle",
                 "0 DOWN T1 A ok value=0",
                 "0 SWITCH T2<-T1",
                 "0 DOWN T2 B ok value=0",
                 "0 SWITCH T3<-T2",
                 "0 DOWN T3 C ok value=0",
                 "3 SWITCH T1<-T3",
                 "3 BLOCK T1 B ok",
                 "3 PRIO T2 2->3 inherit B",
                 "3 SWITCH T2<-T1",
                 "3 BLOCK T2 C ok",
                 "3 PRIO T3 1->3 inherit C",
                 "3 SWITCH T3<-T2",
                 "5 DOWN T3 A PR_EDEADLK value=0",
                 "5 PRIO T3 3->1 release C",
                 "5 WAKE T2 C ok",
                 "5 SWITCH T2<-T3",
                 "5 DOWN T2 C ok value=0",
                 "6 PRIO T2 3->2 release B",
                 "6 WAKE T1 B ok",
                 "6 SWITCH T1<-T2",
                 "6 DOWN T1 B ok value=0",
                 "7 SWITCH idle<-T1");
    CHECK_EQ(s3.last_error, PR_EDEADLK);
    CHECK_EQ(s1.errors + s2.errors, 0);
}

/* Cycle detection is the mechanism's: without inheritance too. */
static void edeadlk_without_inheritance(void)
{
    harness_reset(0);
    pr_script_t s1 = SCRIPT(D1_body), s2 = SCRIPT(D2_body);
    CHECK_EQ(mutex("A", PR_PROTOCOL_NONE), DA);
    CHECK_EQ(mutex("B", PR_PROTOCOL_NONE), DB);
    script_task("T1", 2, 0, &s1);
    script_task("T2", 1, 0, &s2);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    CHECK_EQ(s2.last_error, PR_EDEADLK);
    CHECK_EQ(trace_tick_of(PR_EV_TASK_EXIT, PR_TRACE_NONE, 1), 4);
}

/* ---- PR_EBUSY ---- */

static pr_id_t busy_holder;
static void hold_forever_body(void *arg)
{
    pr_id_t *sems = arg;
    pr_sem_down(sems[0], PR_FOREVER); /* the mutex */
    pr_sem_down(sems[1], PR_FOREVER); /* the counting semaphore: blocks */
}

static void ebusy_free_with_waiters_or_holder_and_delete_holder(void)
{
    harness_reset(0);
    static pr_id_t sems[2];
    sems[0] = mutex("M", PR_PROTOCOL_PIP);
    sems[1] = counting("C", 0, PR_SEM_PRIO);
    busy_holder = task_at("H", 1, 0, hold_forever_body, sems);
    CHECK_EQ(pr_host_run_ticks(5), PR_HOST_QUIESCENT);
    CHECK_EQ(status_of(busy_holder).state, PR_TASK_BLOCKED);
    EXPECT_ERR(pr_sem_free(sems[1]), PR_EBUSY); /* a waiter */
    EXPECT_ERR(pr_sem_free(sems[0]), PR_EBUSY); /* a holder */
    EXPECT_ERR(pr_task_delete(busy_holder), PR_EBUSY); /* holds a mutex */
    CHECK_EQ(sem_status_of(sems[1]).waiters, 1);
    CHECK_EQ(sem_status_of(sems[0]).holder, busy_holder);
    CHECK_EQ(trace_count(PR_EV_TASK_DELETE, PR_TRACE_NONE), 0);
}

/* ---- PR_ECONTEXT ---- */

static void econtext_outside_any_task(void)
{
    harness_reset(0);
    pr_id_t c = counting("C", 1, 0);
    pr_id_t m = mutex("M", PR_PROTOCOL_PIP);
    EXPECT_ERR(pr_sem_down(c, PR_FOREVER), PR_ECONTEXT); /* would be allowed to block */
    EXPECT_ERR(pr_sem_down(c, 3), PR_ECONTEXT);
    EXPECT_ERR(pr_sem_down(m, PR_NO_WAIT), PR_ECONTEXT); /* any mutex down */
    EXPECT_ERR(pr_sem_trydown(m), PR_ECONTEXT);
    EXPECT_ERR(pr_sem_up(m), PR_ECONTEXT);
    EXPECT_ERR(pr_task_delay(1), PR_ECONTEXT);
    EXPECT_ERR(pr_task_delay(0), PR_ECONTEXT);
    EXPECT_ERR(pr_task_yield(), PR_ECONTEXT);
    EXPECT_ERR(pr_task_wait_period(), PR_ECONTEXT);
    EXPECT_ERR(pr_task_wait_miss(PR_NO_WAIT, NULL), PR_ECONTEXT);
    CHECK_EQ(pr_task_self(), PR_NO_TASK);
    /* A no-wait down on a counting semaphore is fine from outside. */
    CHECK_EQ(pr_sem_trydown(c), PR_OK);
    /* The same holds between runs, with tasks alive. */
    task_at("T", 1, 0, nothing, NULL);
    CHECK_EQ(pr_host_run_ticks(3), PR_HOST_QUIESCENT);
    EXPECT_ERR(pr_sem_down(c, PR_FOREVER), PR_ECONTEXT);
    EXPECT_ERR(pr_task_delay(1), PR_ECONTEXT);
}

/* ---- PR_ESTATE ---- */

static int wait_period_rc;
static void wait_period_body(void *arg)
{
    (void)arg;
    wait_period_rc = pr_task_wait_period();
}

static void estate_wrong_state(void)
{
    harness_reset(0);
    pr_id_t t = task_at("T", 1, 1000, nothing, NULL);
    EXPECT_ERR(pr_task_resume(t), PR_ESTATE); /* not suspended */
    CHECK_EQ(pr_task_suspend(t), PR_OK);
    EXPECT_ERR(pr_task_suspend(t), PR_ESTATE); /* already suspended */
    CHECK_EQ(pr_task_resume(t), PR_OK);
    EXPECT_ERR(pr_task_resume(t), PR_ESTATE);

    pr_id_t w = task_at("W", 1, 0, wait_period_body, NULL); /* not periodic */
    CHECK_EQ(pr_host_run_ticks(3), PR_HOST_REACHED);
    CHECK_EQ(wait_period_rc, PR_ESTATE);
    CHECK_EQ(status_of(w).state, PR_TASK_DONE);
    CHECK_EQ(status_of(w).jobs_completed, 1); /* the refused call did not end a job */
    EXPECT_ERR(pr_task_suspend(w), PR_ESTATE); /* done */
    EXPECT_ERR(pr_task_set_priority(w, 3), PR_ESTATE);
}

/* ---- PR_EOVERFLOW ---- */

static void eoverflow_counting_at_int_max(void)
{
    harness_reset(0);
    pr_sem_attr_t a = sem_attr(INT_MAX, 0, PR_PROTOCOL_NONE, "big");
    pr_id_t s;
    CHECK_EQ(pr_sem_alloc(&a, &s), PR_OK);
    EXPECT_ERR(pr_sem_up(s), PR_EOVERFLOW);
    CHECK_EQ(sem_status_of(s).value, INT_MAX);
    CHECK_EQ(pr_sem_trydown(s), PR_OK);
    CHECK_EQ(pr_sem_up(s), PR_OK);
    CHECK_EQ(sem_status_of(s).value, INT_MAX);
    EXPECT_TRACE(EV(PR_EV_SEM_UP),
                 "0 UP - big PR_EOVERFLOW value=2147483647",
                 "0 UP - big ok value=2147483647");
}

/* A binary semaphore is a counting one with max 1: an up beyond the maximum
 * is refused and changes nothing; an up that wakes a waiter is not beyond it. */
static void eoverflow_up_beyond_max(void)
{
    harness_reset(0);
    pr_sem_attr_t a = sem_attr(0, PR_SEM_PRIO, PR_PROTOCOL_NONE, "bin");
    a.max = 1;
    pr_id_t s;
    CHECK_EQ(pr_sem_alloc(&a, &s), PR_OK);
    CHECK_EQ(pr_sem_up(s), PR_OK);
    EXPECT_ERR(pr_sem_up(s), PR_EOVERFLOW);
    CHECK_EQ(sem_status_of(s).value, 1);
    pr_sem_stats_t st;
    CHECK_EQ(pr_sem_stats(s, &st), PR_OK);
    CHECK_EQ(st.ups, 1);
    pr_sem_attr_t back;
    CHECK_EQ(pr_sem_attr_get(s, &back), PR_OK);
    CHECK_EQ(back.max, 1);

    a = sem_attr(2, PR_SEM_PRIO, PR_PROTOCOL_NONE, "three");
    a.max = 3;
    CHECK_EQ(pr_sem_alloc(&a, &s), PR_OK);
    CHECK_EQ(pr_sem_up(s), PR_OK);
    EXPECT_ERR(pr_sem_up(s), PR_EOVERFLOW);
    CHECK_EQ(sem_status_of(s).value, 3);
    CHECK_EQ(pr_sem_attr_get(s, &back), PR_OK);
    CHECK_EQ(back.max, 3);
    a = sem_attr(0, PR_SEM_PRIO, PR_PROTOCOL_NONE, NULL);
    CHECK_EQ(pr_sem_alloc(&a, &s), PR_OK);
    CHECK_EQ(pr_sem_attr_get(s, &back), PR_OK);
    CHECK_EQ(back.max, 0); /* no maximum given */
}

/* The maximum must be >= 0, at least the initial value, and not on a mutex. */
static void einval_bad_max(void)
{
    harness_reset(0);
    pr_id_t id = 77;
    pr_sem_attr_t a = sem_attr(2, 0, PR_PROTOCOL_NONE, NULL);
    a.max = 1;
    EXPECT_ERR(pr_sem_alloc(&a, &id), PR_EINVAL);
    a.max = -1;
    EXPECT_ERR(pr_sem_alloc(&a, &id), PR_EINVAL);
    a = sem_attr(1, PR_SEM_MUTEX | PR_SEM_PRIO, PR_PROTOCOL_PIP, NULL);
    a.max = 1;
    EXPECT_ERR(pr_sem_alloc(&a, &id), PR_EINVAL);
    CHECK_EQ(id, 77);
}

/* ---- the synchronization set: kinds, protocols, condition variables ---- */

static void einval_for_invalid_kinds_and_protocols(void)
{
    harness_reset(0);
    pr_id_t id = 77;
    const unsigned mp = PR_SEM_MUTEX | PR_SEM_PRIO;
    pr_sem_attr_t a = sem_attr(0, PR_SEM_RECURSIVE, PR_PROTOCOL_NONE, NULL); /* recursive, not a mutex */
    EXPECT_ERR(pr_sem_alloc(&a, &id), PR_EINVAL);
    a = sem_attr(1, PR_SEM_BINARY | PR_SEM_MUTEX, PR_PROTOCOL_NONE, NULL); /* binary mutex */
    EXPECT_ERR(pr_sem_alloc(&a, &id), PR_EINVAL);
    a = sem_attr(2, PR_SEM_BINARY, PR_PROTOCOL_NONE, NULL); /* binary at 2 */
    EXPECT_ERR(pr_sem_alloc(&a, &id), PR_EINVAL);
    a = sem_attr(0, PR_SEM_BINARY, PR_PROTOCOL_NONE, NULL);
    a.max = 2; /* binary with a maximum of 2 */
    EXPECT_ERR(pr_sem_alloc(&a, &id), PR_EINVAL);
    a = sem_attr(1, mp, (pr_protocol_t)PR_PROTOCOL_COUNT, NULL); /* unknown protocol */
    EXPECT_ERR(pr_sem_alloc(&a, &id), PR_EINVAL);
    const pr_protocol_t ceiling_protocols[] = {PR_PROTOCOL_PCP, PR_PROTOCOL_IPCP};
    for (int i = 0; i < 2; i++) {
        a = sem_attr(1, mp, ceiling_protocols[i], NULL);
        a.ceiling = -1;
        EXPECT_ERR(pr_sem_alloc(&a, &id), PR_EINVAL);
        a.ceiling = PR_PRIO_MAX + 1;
        EXPECT_ERR(pr_sem_alloc(&a, &id), PR_EINVAL);
        a.ceiling = 3;
        a.flags = PR_SEM_MUTEX; /* FIFO: the first waiter would not be the most urgent */
        EXPECT_ERR(pr_sem_alloc(&a, &id), PR_EINVAL);
        a.flags = PR_SEM_PRIO; /* counting */
        EXPECT_ERR(pr_sem_alloc(&a, &id), PR_EINVAL);
    }
    a = sem_attr(1, PR_SEM_MUTEX, PR_PROTOCOL_RCS, NULL); /* FIFO */
    EXPECT_ERR(pr_sem_alloc(&a, &id), PR_EINVAL);
    a = sem_attr(1, mp, PR_PROTOCOL_RCS, NULL);
    a.ceiling = 2; /* rcs and npcs take no ceiling */
    EXPECT_ERR(pr_sem_alloc(&a, &id), PR_EINVAL);
    a.protocol = PR_PROTOCOL_NPCS;
    EXPECT_ERR(pr_sem_alloc(&a, &id), PR_EINVAL);
    CHECK_EQ(id, 77);
    /* The limits are accepted. */
    a = sem_attr(1, mp | PR_SEM_RECURSIVE, PR_PROTOCOL_PCP, NULL);
    a.ceiling = PR_PRIO_MAX;
    CHECK_EQ(pr_sem_alloc(&a, &id), PR_OK);
    a.ceiling = 0;
    a.protocol = PR_PROTOCOL_IPCP;
    CHECK_EQ(pr_sem_alloc(&a, &id), PR_OK);
    a = sem_attr(1, PR_SEM_BINARY, PR_PROTOCOL_NONE, NULL);
    a.max = 1;
    CHECK_EQ(pr_sem_alloc(&a, &id), PR_OK);
}

/* PR_ECEILING: a task whose base priority is above a pcp or ipcp mutex's
 * ceiling locks it: refused, not counted, nothing changes. A task at the
 * ceiling locks it. */
enum { CP = 0, CI = 1 };
static int ceiling_ok_rc[2];
static void above_ceiling_body(void *arg)
{
    (void)arg;
    EXPECT_ERR(pr_sem_down(CP, PR_FOREVER), PR_ECEILING);
    EXPECT_ERR(pr_sem_trydown(CP), PR_ECEILING);
    EXPECT_ERR(pr_sem_down(CI, 5), PR_ECEILING);
    EXPECT_ERR(pr_sem_trydown(CI), PR_ECEILING);
}
static void at_ceiling_body(void *arg)
{
    (void)arg;
    ceiling_ok_rc[0] = pr_sem_down(CP, PR_FOREVER);
    ceiling_ok_rc[1] = pr_sem_down(CI, PR_FOREVER);
    pr_sem_up(CI);
    pr_sem_up(CP);
}

static void eceiling_above_the_ceiling(void)
{
    harness_reset(0);
    CHECK_EQ(mutex_ceiling("P", PR_PROTOCOL_PCP, 3), CP);
    CHECK_EQ(mutex_ceiling("I", PR_PROTOCOL_IPCP, 3), CI);
    task_at("Hi", 4, 0, above_ceiling_body, NULL);
    task_at("At", 3, 0, at_ceiling_body, NULL);
    CHECK_EQ(pr_host_run_ticks(10), PR_HOST_QUIESCENT);
    CHECK_EQ(ceiling_ok_rc[0], PR_OK);
    CHECK_EQ(ceiling_ok_rc[1], PR_OK);
    EXPECT_TRACE(EV(PR_EV_SEM_DOWN),
                 "0 DOWN Hi P PR_ECEILING value=1",
                 "0 DOWN Hi P PR_ECEILING value=1",
                 "0 DOWN Hi I PR_ECEILING value=1",
                 "0 DOWN Hi I PR_ECEILING value=1",
                 "0 DOWN At P ok value=0",
                 "0 DOWN At I ok value=0");
    pr_sem_stats_t st;
    CHECK_EQ(pr_sem_stats(CP, &st), PR_OK);
    CHECK_EQ(st.downs, 1);
}

/* PR_ECONTEXT: every mutex operation from interrupt context, and the
 * condition variable calls; nothing changes. */
enum { XM = 0 }; /* a mutex */
enum { XC = 0 }; /* a condition variable: ids of their own pool */
static void interrupt_body(void *arg)
{
    (void)arg;
    CHECK_EQ(pr_sem_down(XM, PR_FOREVER), PR_OK);
    pr_isr_enter();
    EXPECT_ERR(pr_sem_up(XM), PR_ECONTEXT);
    EXPECT_ERR(pr_sem_down(XM, PR_NO_WAIT), PR_ECONTEXT);
    EXPECT_ERR(pr_sem_trydown(XM), PR_ECONTEXT);
    EXPECT_ERR(pr_sem_down(XM, 3), PR_ECONTEXT);
    EXPECT_ERR(pr_cond_wait(XC, XM, PR_FOREVER), PR_ECONTEXT);
    EXPECT_ERR(pr_cond_signal(XC), PR_ECONTEXT);
    EXPECT_ERR(pr_cond_broadcast(XC), PR_ECONTEXT);
    CHECK_EQ(pr_sem_aborted(), 0);
    pr_isr_exit();
    CHECK_EQ(pr_sem_up(XM), PR_OK);
}

static void econtext_mutex_from_interrupt(void)
{
    harness_reset(0);
    CHECK_EQ(mutex("M", PR_PROTOCOL_PIP), XM);
    pr_id_t c;
    CHECK_EQ(pr_cond_alloc("C", &c), PR_OK);
    CHECK_EQ(c, XC);
    task_at("T", 1, 0, interrupt_body, NULL);
    CHECK_EQ(pr_host_run_ticks(10), PR_HOST_QUIESCENT);
    /* and outside any task */
    EXPECT_ERR(pr_cond_wait(XC, XM, PR_FOREVER), PR_ECONTEXT);
    EXPECT_ERR(pr_cond_signal(XC), PR_ECONTEXT);
    EXPECT_ERR(pr_cond_broadcast(XC), PR_ECONTEXT);
}

/* PR_EPERM: a recursive mutex unlocked by a task that does not hold it, at
 * any depth; nothing changes (the holder keeps its depth). */
enum { RM = 0 };
static void recursive_holder_body(void *arg)
{
    (void)arg;
    pr_sem_down(RM, PR_FOREVER);
    pr_sem_down(RM, PR_FOREVER);
    pr_task_delay(5);
    pr_sem_up(RM);
    pr_sem_up(RM);
}
static void stranger_unlocks(void *arg)
{
    (void)arg;
    EXPECT_ERR(pr_sem_up(RM), PR_EPERM);
    CHECK_EQ(sem_status_of(RM).depth, 2);
}

static void eperm_recursive_unlock_by_non_holder(void)
{
    harness_reset(0);
    pr_sem_attr_t a = sem_attr(1, PR_SEM_MUTEX | PR_SEM_PRIO | PR_SEM_RECURSIVE, PR_PROTOCOL_PIP, "R");
    pr_id_t r;
    CHECK_EQ(pr_sem_alloc(&a, &r), PR_OK);
    task_at("H", 2, 0, recursive_holder_body, NULL);
    task_at("S", 1, 0, stranger_unlocks, NULL);
    CHECK_EQ(pr_host_run_ticks(20), PR_HOST_QUIESCENT);
    CHECK_EQ(sem_status_of(RM).holder, PR_NO_TASK);
}

/* PR_EOVERFLOW: an up past a binary semaphore's maximum (from a task and
 * from an interrupt); nothing changes. */
static void eoverflow_binary_up_past_maximum(void)
{
    harness_reset(0);
    pr_sem_attr_t a = sem_attr(1, PR_SEM_BINARY | PR_SEM_PRIO, PR_PROTOCOL_NONE, "B");
    pr_id_t b;
    CHECK_EQ(pr_sem_alloc(&a, &b), PR_OK);
    EXPECT_ERR(pr_sem_up(b), PR_EOVERFLOW);
    pr_isr_enter();
    EXPECT_ERR(pr_sem_up(b), PR_EOVERFLOW);
    pr_isr_exit();
    CHECK_EQ(sem_status_of(b).value, 1);
}

/* PR_EABORTED is told once; its only effect is that: the abort is no
 * longer pending. */
enum { AM = 0 };
static int told_rc;
static void aborted_body(void *arg)
{
    (void)arg;
    pr_sem_down(AM, PR_FOREVER);
    pr_host_consume(TICKS(3));
    take(&before_);
    told_rc = pr_sem_up(AM);
    take(&after_);
    CHECK_EQ(before_.task[pr_task_self()].aborts_pending, 1);
    CHECK_EQ(after_.task[pr_task_self()].aborts_pending, 0);
    after_.task[pr_task_self()].aborts_pending = 1;
    memcpy(after_.stats, before_.stats, sizeof after_.stats);
    CHECK(memcmp(&before_, &after_, sizeof before_) == 0);
    EXPECT_ERR(pr_sem_up(AM), PR_EPERM); /* told once */
}
static void taker_body(void *arg)
{
    (void)arg;
    pr_sem_down(AM, PR_FOREVER);
    /* the aborted task has not been told yet: the mutex cannot be freed */
    EXPECT_ERR(pr_sem_free(AM), PR_EBUSY);
    pr_sem_up(AM);
}

static void eaborted_told_once(void)
{
    harness_reset(0);
    CHECK_EQ(mutex("A", PR_PROTOCOL_RCS), AM);
    task_at("L", 1, 0, aborted_body, NULL);
    task_at("U", 2, 1, taker_body, NULL);
    CHECK_EQ(pr_host_run_ticks(20), PR_HOST_QUIESCENT);
    CHECK_EQ(told_rc, PR_EABORTED);
    CHECK_EQ(pr_sem_free(AM), PR_OK);
}

/* Condition variables: every refused call changes nothing. */
enum { CM = 0, CS = 1, CM2 = 2 };
static void cond_errors_body(void *arg)
{
    (void)arg;
    pr_id_t c = 0;
    EXPECT_ERR(pr_cond_wait(c, CM, PR_FOREVER), PR_EPERM);     /* the mutex is not held */
    CHECK_EQ(pr_sem_down(CM, PR_FOREVER), PR_OK);
    EXPECT_ERR(pr_cond_wait(c, CM, PR_NO_WAIT), PR_EINVAL);    /* a cond has no try form */
    EXPECT_ERR(pr_cond_wait(c, CS, PR_FOREVER), PR_EINVAL);    /* not a mutex */
    EXPECT_ERR(pr_cond_wait(-1, CM, PR_FOREVER), PR_EBADID);
    EXPECT_ERR(pr_cond_wait(PR_CONFIG_MAX_CONDS, CM, PR_FOREVER), PR_EBADID);
    EXPECT_ERR(pr_cond_wait(1, CM, PR_FOREVER), PR_ENOTALLOC);
    EXPECT_ERR(pr_cond_wait(c, PR_CONFIG_MAX_SEMS, PR_FOREVER), PR_EBADID);
    EXPECT_ERR(pr_cond_wait(c, 9, PR_FOREVER), PR_ENOTALLOC);
    CHECK_EQ(pr_sem_up(CM), PR_OK);
}
static void other_mutex_waiter(void *arg)
{
    (void)arg;
    CHECK_EQ(pr_sem_down(CM2, PR_FOREVER), PR_OK);
    /* the cond's waiter uses CM: another mutex is refused */
    EXPECT_ERR(pr_cond_wait(0, CM2, PR_FOREVER), PR_EINVAL);
    CHECK_EQ(pr_sem_up(CM2), PR_OK);
}
static void cond_waiter(void *arg)
{
    (void)arg;
    pr_sem_down(CM, PR_FOREVER);
    pr_cond_wait(0, CM, 4);
    pr_sem_up(CM);
}

static void cond_errors_change_nothing(void)
{
    harness_reset(0);
    CHECK_EQ(mutex("M", PR_PROTOCOL_PIP), CM);
    CHECK_EQ(counting("S", 0, 0), CS);
    CHECK_EQ(mutex("M2", PR_PROTOCOL_PIP), CM2);
    pr_id_t c = 77;
    EXPECT_ERR(pr_cond_alloc("C", NULL), PR_EINVAL);
    EXPECT_ERR(pr_cond_alloc("sixteen-chars-xx", &c), PR_EINVAL);
    CHECK_EQ(c, 77);
    CHECK_EQ(pr_cond_alloc("C", &c), PR_OK);
    CHECK_EQ(c, 0);
    pr_cond_status_t st;
    EXPECT_ERR(pr_cond_status(c, NULL), PR_EINVAL);
    EXPECT_ERR(pr_cond_status(1, &st), PR_ENOTALLOC);
    EXPECT_ERR(pr_cond_status(-1, &st), PR_EBADID);
    EXPECT_ERR(pr_cond_free(1), PR_ENOTALLOC);
    EXPECT_ERR(pr_cond_free(PR_CONFIG_MAX_CONDS), PR_EBADID);
    task_at("E", 1, 0, cond_errors_body, NULL);
    CHECK_EQ(pr_host_run_ticks(5), PR_HOST_QUIESCENT);
    task_at("W", 3, 0, cond_waiter, NULL);
    task_at("O", 2, 0, other_mutex_waiter, NULL);
    CHECK_EQ(pr_host_run_until(TICKS(2)), PR_HOST_REACHED);
    /* W waits on C: it cannot be freed, nor can the mutex W will lock again */
    EXPECT_ERR(pr_cond_free(c), PR_EBUSY);
    EXPECT_ERR(pr_sem_free(CM), PR_EBUSY);
    CHECK_EQ(pr_host_run_ticks(20), PR_HOST_QUIESCENT);
    CHECK_EQ(pr_cond_free(c), PR_OK);
    CHECK_EQ(pr_sem_free(CM), PR_OK);
}

static void enospc_when_cond_pool_exhausted(void)
{
    harness_reset(0);
    pr_id_t id;
    for (int i = 0; i < PR_CONFIG_MAX_CONDS; i++) {
        CHECK_EQ(pr_cond_alloc(NULL, &id), PR_OK);
        CHECK_EQ(id, i);
    }
    id = 77;
    EXPECT_ERR(pr_cond_alloc("extra", &id), PR_ENOSPC);
    CHECK_EQ(id, 77);
    CHECK_EQ(pr_cond_free(3), PR_OK);
    CHECK_EQ(pr_cond_alloc("again", &id), PR_OK);
    CHECK_EQ(id, 3);
}

/* ---- names ---- */

static void every_code_has_distinct_name_and_text(void)
{
    /* codes outside the table, including the extremes, have a name too */
    CHECK(strcmp(pr_errname(INT_MIN), "PR_E?") == 0);
    CHECK(strcmp(pr_strerror(INT_MIN), "unknown error") == 0);
    CHECK(strcmp(pr_errname(INT_MAX), "PR_E?") == 0);
    CHECK(strcmp(pr_errname(PR_ELAST - 1), "PR_E?") == 0);
    static const struct {
        int code;
        const char *name;
    } codes[] = {
        {PR_OK, "PR_OK"},           {PR_EINVAL, "PR_EINVAL"},       {PR_EBADID, "PR_EBADID"},
        {PR_ENOTALLOC, "PR_ENOTALLOC"}, {PR_ENOSPC, "PR_ENOSPC"},   {PR_ETIMEDOUT, "PR_ETIMEDOUT"},
        {PR_EAGAIN, "PR_EAGAIN"},   {PR_EPERM, "PR_EPERM"},         {PR_EHELD, "PR_EHELD"},
        {PR_EDEADLK, "PR_EDEADLK"}, {PR_EBUSY, "PR_EBUSY"},         {PR_ECONTEXT, "PR_ECONTEXT"},
        {PR_ESTATE, "PR_ESTATE"},   {PR_EOVERFLOW, "PR_EOVERFLOW"}, {PR_ECEILING, "PR_ECEILING"},
        {PR_EABORTED, "PR_EABORTED"}, {PR_EPRIV_RT, "PR_EPRIV_RT"}, {PR_EPRIV_PRIO, "PR_EPRIV_PRIO"},
        {PR_EPRIV_CEILING, "PR_EPRIV_CEILING"}, {PR_EPRIV_GROUP, "PR_EPRIV_GROUP"}, {PR_EJOBABORTED, "PR_EJOBABORTED"},
    };
    size_t n = sizeof codes / sizeof *codes;
    for (size_t i = 0; i < n; i++) {
        CHECK(strcmp(pr_errname(codes[i].code), codes[i].name) == 0);
        for (size_t j = 0; j < i; j++) {
            CHECK(codes[i].code != codes[j].code);
            CHECK(strcmp(pr_strerror(codes[i].code), pr_strerror(codes[j].code)) != 0);
        }
    }
    CHECK(strcmp(pr_errname(-99), "PR_E?") == 0);
    CHECK(strcmp(pr_errname(5), "PR_E?") == 0);
    CHECK(strcmp(pr_strerror(-99), "unknown error") == 0);
}

HARNESS_MAIN(TEST_CASE(einval_for_invalid_semaphore_attributes),
             TEST_CASE(einval_for_invalid_task_attributes),
             TEST_CASE(einval_for_invalid_arguments),
             TEST_CASE(ebadid_for_ids_outside_pools),
             TEST_CASE(enotalloc_for_freed_and_unused_ids),
             TEST_CASE(enotalloc_from_task_using_freed_semaphore),
             TEST_CASE(enospc_when_semaphore_pool_exhausted),
             TEST_CASE(enospc_when_task_pool_exhausted),
             TEST_CASE(etimedout_and_eagain),
             TEST_CASE(eperm_and_eheld),
             TEST_CASE(edeadlk_two_tasks_opposite_order),
             TEST_CASE(edeadlk_changes_nothing),
             TEST_CASE(edeadlk_three_task_cycle),
             TEST_CASE(edeadlk_without_inheritance),
             TEST_CASE(ebusy_free_with_waiters_or_holder_and_delete_holder),
             TEST_CASE(econtext_outside_any_task),
             TEST_CASE(estate_wrong_state),
             TEST_CASE(eoverflow_counting_at_int_max), TEST_CASE(eoverflow_up_beyond_max), TEST_CASE(einval_bad_max),
             TEST_CASE(einval_for_invalid_kinds_and_protocols), TEST_CASE(eceiling_above_the_ceiling),
             TEST_CASE(econtext_mutex_from_interrupt), TEST_CASE(eperm_recursive_unlock_by_non_holder),
             TEST_CASE(eoverflow_binary_up_past_maximum), TEST_CASE(eaborted_told_once),
             TEST_CASE(cond_errors_change_nothing), TEST_CASE(enospc_when_cond_pool_exhausted),
             TEST_CASE(every_code_has_distinct_name_and_text))
