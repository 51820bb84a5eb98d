/*
 * The kinds of semaphore: binary (value 0 or 1, an up beyond 1 refused),
 * recursive mutexes (the holder locks again and unlocks as many times; the
 * depth is in the status), ups from interrupt context on counting and
 * binary semaphores, and the try-lock of every kind.
 */
#include "harness.h"

static pr_id_t alloc_kind(const char *name, int value, unsigned flags, pr_protocol_t protocol, pr_prio_t ceiling)
{
    pr_sem_attr_t a;
    pr_sem_attr_init(&a);
    a.name = name;
    a.value = value;
    a.flags = flags;
    a.protocol = protocol;
    a.ceiling = ceiling;
    pr_id_t id = PR_NO_SEM;
    CHECK_EQ(pr_sem_alloc(&a, &id), PR_OK);
    return id;
}

#define RECURSIVE (PR_SEM_MUTEX | PR_SEM_PRIO | PR_SEM_RECURSIVE)

/* ---- binary ---- */

static void binary_semaphore_counts_to_one(void)
{
    harness_reset(0);
    pr_id_t b = alloc_kind("B", 0, PR_SEM_BINARY | PR_SEM_PRIO, PR_PROTOCOL_NONE, 0);
    pr_sem_attr_t back;
    CHECK_EQ(pr_sem_attr_get(b, &back), PR_OK);
    CHECK_EQ(back.max, 1);
    CHECK_EQ(back.flags, PR_SEM_BINARY | PR_SEM_PRIO);
    CHECK_EQ(pr_sem_trydown(b), PR_EAGAIN);
    CHECK_EQ(pr_sem_up(b), PR_OK);
    CHECK_EQ(sem_status_of(b).value, 1);
    CHECK_EQ(pr_sem_up(b), PR_EOVERFLOW); /* given twice: the second is refused */
    CHECK_EQ(sem_status_of(b).value, 1);
    CHECK_EQ(pr_sem_trydown(b), PR_OK);
    CHECK_EQ(sem_status_of(b).value, 0);
    pr_sem_stats_t st;
    CHECK_EQ(pr_sem_stats(b, &st), PR_OK);
    CHECK_EQ(st.ups, 1);
    CHECK_EQ(st.downs, 2);
    /* A binary semaphore may start at 1. */
    pr_id_t one = alloc_kind("B1", 1, PR_SEM_BINARY, PR_PROTOCOL_NONE, 0);
    CHECK_EQ(pr_sem_up(one), PR_EOVERFLOW);
}

/* ---- up from an interrupt ---- */

enum { BIN = 0, CNT = 1, MTX = 2 };
static int isr_rc[6];

/* Stands for an interrupt handler that runs while L runs: it gives the
 * binary semaphore (waking T, which runs at the handler's end, not
 * before), ups a counting one, and may not touch a mutex. */
static void interrupted_body(void *arg)
{
    (void)arg;
    pr_host_consume(TICKS(1));
    pr_isr_enter();
    isr_rc[0] = pr_sem_up(BIN);
    isr_rc[1] = pr_sem_up(CNT);
    isr_rc[2] = pr_sem_trydown(CNT); /* a no-wait down on a counting one is fine */
    isr_rc[3] = pr_sem_up(MTX);
    isr_rc[4] = pr_sem_trydown(MTX);
    isr_rc[5] = pr_task_self();
    pr_isr_exit(); /* T, woken by the up, runs now */
    pr_host_consume(TICKS(1));
}

static void waiting_body(void *arg)
{
    (void)arg;
    CHECK_EQ(pr_sem_down(BIN, PR_FOREVER), PR_OK);
    pr_host_consume(TICKS(1));
}

static void up_from_interrupt_on_binary_and_counting(void)
{
    harness_reset(0);
    CHECK_EQ(alloc_kind("BIN", 0, PR_SEM_BINARY | PR_SEM_PRIO, PR_PROTOCOL_NONE, 0), BIN);
    CHECK_EQ(alloc_kind("CNT", 0, PR_SEM_PRIO, PR_PROTOCOL_NONE, 0), CNT);
    CHECK_EQ(mutex("MTX", PR_PROTOCOL_PIP), MTX);
    task_at("T", 3, 0, waiting_body, NULL);
    task_at("L", 1, 0, interrupted_body, NULL);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    CHECK_EQ(isr_rc[0], PR_OK);
    CHECK_EQ(isr_rc[1], PR_OK);
    CHECK_EQ(isr_rc[2], PR_OK);
    CHECK_EQ(isr_rc[3], PR_ECONTEXT);
    CHECK_EQ(isr_rc[4], PR_ECONTEXT);
    CHECK_EQ(isr_rc[5], PR_NO_TASK);
    EXPECT_TRACE(EV_SCHED | EV(PR_EV_SEM_UP) | EV(PR_EV_SEM_DOWN),
                 "0 SWITCH T<-idle",
                 "0 BLOCK T BIN ok",
                 "0 SWITCH L<-T",
                 "1 WAKE T BIN ok",
                 "1 UP - BIN ok value=0",
                 "1 UP - CNT ok value=1",
                 "1 DOWN - CNT ok value=0",
                 "1 UP - MTX PR_ECONTEXT value=1",
                 "1 DOWN - MTX PR_ECONTEXT value=1",
                 "1 SWITCH T<-L",
                 "1 DOWN T BIN ok value=0",
                 "2 SWITCH L<-T",
                 "3 SWITCH idle<-L");
}

/* ---- recursive mutexes ---- */

enum { REC = 0 };
static int rec_rc[8];
static int rec_depth[4];

static void recursive_holder(void *arg)
{
    (void)arg;
    rec_rc[0] = pr_sem_down(REC, PR_FOREVER);
    rec_rc[1] = pr_sem_down(REC, PR_FOREVER);
    rec_rc[2] = pr_sem_trydown(REC); /* the try-lock of the holder counts too */
    rec_depth[0] = sem_status_of(REC).depth;
    pr_host_consume(TICKS(2)); /* the other task tries meanwhile */
    rec_rc[3] = pr_sem_up(REC);
    rec_rc[4] = pr_sem_up(REC);
    rec_depth[1] = sem_status_of(REC).depth;
    rec_depth[2] = sem_status_of(REC).holder == pr_task_self();
    rec_rc[5] = pr_sem_up(REC); /* the third: released, handed to O, which runs and unlocks */
    rec_depth[3] = sem_status_of(REC).depth;
}

static int other_rc[3];
static void recursive_other(void *arg)
{
    (void)arg;
    other_rc[0] = pr_sem_up(REC);      /* not the holder: PR_EPERM */
    other_rc[1] = pr_sem_trydown(REC); /* held by another: PR_EAGAIN */
    other_rc[2] = pr_sem_down(REC, PR_FOREVER);
    CHECK_EQ(sem_status_of(REC).depth, 1);
    CHECK_EQ(pr_sem_up(REC), PR_OK);
}

static void recursive_mutex_counts_its_locks(void)
{
    harness_reset(0);
    CHECK_EQ(alloc_kind("REC", 1, RECURSIVE, PR_PROTOCOL_PIP, 0), REC);
    pr_id_t h = task_at("H", 1, 0, recursive_holder, NULL);
    task_at("O", 2, 1, recursive_other, NULL);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    CHECK_EQ(rec_rc[0] + rec_rc[1] + rec_rc[2] + rec_rc[3] + rec_rc[4] + rec_rc[5], PR_OK);
    CHECK_EQ(rec_depth[0], 3);
    CHECK_EQ(rec_depth[1], 1);
    CHECK_EQ(rec_depth[2], 1);
    CHECK_EQ(rec_depth[3], 0); /* O held it once, and released it before H ran again */
    CHECK_EQ(other_rc[0], PR_EPERM);
    CHECK_EQ(other_rc[1], PR_EAGAIN);
    CHECK_EQ(other_rc[2], PR_OK);
    CHECK_EQ(status_of(h).mutexes_held, 0);
    EXPECT_TRACE(EV_SCHED | EV(PR_EV_SEM_UP) | EV(PR_EV_SEM_DOWN),
                 "0 SWITCH H<-idle",
                 "0 DOWN H REC ok value=0",
                 "0 DOWN H REC ok value=0",
                 "0 DOWN H REC ok value=0",
                 "1 SWITCH O<-H",
                 "1 UP O REC PR_EPERM value=0",
                 "1 DOWN O REC PR_EAGAIN value=0",
                 "1 BLOCK O REC ok",
                 "1 PRIO H 1->2 inherit REC",
                 "1 SWITCH H<-O",
                 "2 UP H REC ok value=-1",
                 "2 UP H REC ok value=-1",
                 "2 PRIO H 2->1 release REC",
                 "2 WAKE O REC ok",
                 "2 UP H REC ok value=0",
                 "2 SWITCH O<-H",
                 "2 DOWN O REC ok value=0",
                 "2 UP O REC ok value=1",
                 "2 SWITCH H<-O",
                 "2 SWITCH idle<-H");
    /* Statistics count the outermost lock and unlock only. */
    pr_sem_stats_t st;
    CHECK_EQ(pr_sem_stats(REC, &st), PR_OK);
    CHECK_EQ(st.downs, 3); /* H's first, O's refused try, O's */
    CHECK_EQ(st.ups, 2);
}

/* A recursive mutex still held at the end of its task's body is released
 * whatever its depth. */
static void lock_twice(void *arg)
{
    (void)arg;
    pr_sem_down(REC, PR_FOREVER);
    pr_sem_down(REC, PR_FOREVER);
}

static void recursive_mutex_released_at_task_end(void)
{
    harness_reset(0);
    CHECK_EQ(alloc_kind("REC", 1, RECURSIVE, PR_PROTOCOL_NONE, 0), REC);
    task_at("T", 1, 0, lock_twice, NULL);
    CHECK_EQ(pr_host_run_ticks(10), PR_HOST_QUIESCENT);
    CHECK_EQ(sem_status_of(REC).holder, PR_NO_TASK);
    CHECK_EQ(sem_status_of(REC).depth, 0);
    CHECK_EQ(pr_sem_free(REC), PR_OK);
}

/* ---- the try-lock of every kind ---- */

enum { K_CNT = 0, K_BIN, K_MTX, K_PCP_HELD, K_PCP_FREE, K_RCS };
static int try_rc[8];

static void holder_of_three(void *arg)
{
    (void)arg;
    CHECK_EQ(pr_sem_down(K_MTX, PR_FOREVER), PR_OK);
    CHECK_EQ(pr_sem_down(K_PCP_HELD, PR_FOREVER), PR_OK);
    CHECK_EQ(pr_sem_down(K_RCS, PR_FOREVER), PR_OK);
    pr_host_consume(TICKS(2));
    /* its rcs section was aborted meanwhile: told at the up */
    CHECK_EQ(pr_sem_up(K_RCS), PR_EABORTED);
    CHECK_EQ(pr_sem_up(K_PCP_HELD), PR_OK);
    CHECK_EQ(pr_sem_up(K_MTX), PR_OK);
}

static void trier(void *arg)
{
    (void)arg;
    try_rc[0] = pr_sem_trydown(K_CNT);      /* value 0 */
    try_rc[1] = pr_sem_trydown(K_BIN);      /* value 1 */
    try_rc[2] = pr_sem_trydown(K_MTX);      /* held */
    try_rc[3] = pr_sem_trydown(K_PCP_FREE); /* free, but the system ceiling blocks it */
    try_rc[4] = pr_sem_trydown(K_RCS);      /* held by a less urgent task: taken over */
    try_rc[5] = pr_sem_up(K_RCS);
}

static void trylock_of_every_kind(void)
{
    harness_reset(0);
    CHECK_EQ(alloc_kind("CNT", 0, PR_SEM_PRIO, PR_PROTOCOL_NONE, 0), K_CNT);
    CHECK_EQ(alloc_kind("BIN", 1, PR_SEM_BINARY, PR_PROTOCOL_NONE, 0), K_BIN);
    CHECK_EQ(mutex("MTX", PR_PROTOCOL_PIP), K_MTX);
    CHECK_EQ(mutex_ceiling("PH", PR_PROTOCOL_PCP, 3), K_PCP_HELD);
    CHECK_EQ(mutex_ceiling("PF", PR_PROTOCOL_PCP, 3), K_PCP_FREE);
    CHECK_EQ(mutex("RCS", PR_PROTOCOL_RCS), K_RCS);
    task_at("H", 1, 0, holder_of_three, NULL);
    task_at("T", 3, 1, trier, NULL);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    CHECK_EQ(try_rc[0], PR_EAGAIN);
    CHECK_EQ(try_rc[1], PR_OK);
    CHECK_EQ(try_rc[2], PR_EAGAIN);
    CHECK_EQ(try_rc[3], PR_EAGAIN);
    CHECK_EQ(try_rc[4], PR_OK);
    CHECK_EQ(try_rc[5], PR_OK);
    CHECK_EQ(trace_count(PR_EV_BLOCK, PR_TRACE_NONE), 0); /* no try ever waits */
    CHECK_EQ(trace_count(PR_EV_ABORT, PR_TRACE_NONE), 1);
}

HARNESS_MAIN(TEST_CASE(binary_semaphore_counts_to_one), TEST_CASE(up_from_interrupt_on_binary_and_counting),
             TEST_CASE(recursive_mutex_counts_its_locks), TEST_CASE(recursive_mutex_released_at_task_end),
             TEST_CASE(trylock_of_every_kind))
