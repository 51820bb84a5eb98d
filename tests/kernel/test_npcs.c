/*
 * npcs, the non-preemptive critical section: while a task holds an npcs
 * mutex nothing preempts it - not the most urgent task, not the end of its
 * round-robin slice. It runs the section at PR_PRIO_MAX (kernel/policy/
 * npcs.c says why a priority and not a preemption count).
 */
#include "harness.h"

enum { N = 0 };

/* L (1) locks N at 0 and computes 3 inside. U (PR_PRIO_MAX, the most urgent
 * priority there is) is released at 1 and waits until L unlocks at 3. */
static const pr_action_t L_body[] = {A_LOCK(N), A_COMPUTE(3), A_UNLOCK(N), A_COMPUTE(1)};
static const pr_action_t U_body[] = {A_COMPUTE(1)};

static void most_urgent_task_waits_for_the_section(void)
{
    harness_reset(0);
    pr_script_t sl = SCRIPT(L_body), su = SCRIPT(U_body);
    CHECK_EQ(mutex("N", PR_PROTOCOL_NPCS), N);
    pr_id_t l = script_task("L", 1, 0, &sl);
    pr_id_t u = script_task("U", PR_PRIO_MAX, 1, &su);
    pr_host_run_until(TICKS(2));
    CHECK_EQ(status_of(l).effective_priority, PR_PRIO_MAX);
    CHECK_EQ(status_of(u).state, PR_TASK_READY);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SCHED | EV(PR_EV_RELEASE) | EV(PR_EV_TASK_EXIT),
                 "0 RELEASE L job=1",
                 "0 SWITCH L<-idle",
                 "0 PRIO L 1->31 ceiling N",
                 "1 RELEASE U job=1",
                 "3 PRIO L 31->1 release N",
                 "3 SWITCH U<-L",
                 "4 TASK_EXIT U",
                 "4 SWITCH L<-U",
                 "5 TASK_EXIT L",
                 "5 SWITCH idle<-L");
    CHECK_EQ(status_of(l).effective_priority, 1);
}

/*
 * Round robin at the top level, quantum 1: A and B (both PR_PRIO_MAX) are
 * released at 0. B computes 2. A locks N, computes 3 inside, then 1 more.
 * Inside the section the tick does not rotate A (0..3); after it, round
 * robin resumes at the next tick: B 3..4, A 4..5 (its last tick), B 5..6.
 * With protocol none the two alternate from the first tick.
 */
static const pr_action_t A_body[] = {A_LOCK(N), A_COMPUTE(3), A_UNLOCK(N), A_COMPUTE(1)};
static const pr_action_t B_body[] = {A_COMPUTE(2)};

static void round_robin_does_not_rotate_the_holder(void)
{
    harness_reset(1);
    pr_script_t sa = SCRIPT(A_body), sb = SCRIPT(B_body);
    CHECK_EQ(mutex("N", PR_PROTOCOL_NPCS), N);
    script_task("A", PR_PRIO_MAX, 0, &sa);
    script_task("B", PR_PRIO_MAX, 0, &sb);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SCHED | EV(PR_EV_SEM_UP) | EV(PR_EV_TASK_EXIT),
                 "0 SWITCH A<-idle",
                 "3 UP A N ok value=1",
                 "3 SWITCH B<-A",
                 "4 SWITCH A<-B",
                 "5 TASK_EXIT A",
                 "5 SWITCH B<-A",
                 "6 TASK_EXIT B",
                 "6 SWITCH idle<-B");
}

static void round_robin_rotates_without_npcs(void)
{
    harness_reset(1);
    pr_script_t sa = SCRIPT(A_body), sb = SCRIPT(B_body);
    CHECK_EQ(mutex("N", PR_PROTOCOL_NONE), N);
    script_task("A", PR_PRIO_MAX, 0, &sa);
    script_task("B", PR_PRIO_MAX, 0, &sb);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV(PR_EV_SWITCH) | EV(PR_EV_SEM_UP) | EV(PR_EV_TASK_EXIT),
                 "0 SWITCH A<-idle",
                 "1 SWITCH B<-A",
                 "2 SWITCH A<-B",
                 "3 SWITCH B<-A",
                 "4 TASK_EXIT B",
                 "4 SWITCH A<-B",
                 "5 UP A N ok value=1",
                 "6 TASK_EXIT A",
                 "6 SWITCH idle<-A");
}

/*
 * A holder that suspends itself inside the section lets others run, and
 * runs again at once when its delay is over, ahead of a more urgent task:
 * L (1) locks N and delays 2; M (5), released at 1, runs 1..2; at 2 L is
 * ready again at PR_PRIO_MAX and preempts M, computes 2..3 and unlocks.
 */
static const pr_action_t D_body[] = {A_LOCK(N), A_DELAY(2), A_COMPUTE(1), A_UNLOCK(N), A_COMPUTE(1)};
static const pr_action_t M_body[] = {A_COMPUTE(3)};

static void holder_that_suspends_resumes_at_once(void)
{
    harness_reset(0);
    pr_script_t sd = SCRIPT(D_body), sm = SCRIPT(M_body);
    CHECK_EQ(mutex("N", PR_PROTOCOL_NPCS), N);
    script_task("L", 1, 0, &sd);
    script_task("M", 5, 1, &sm);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SCHED | EV(PR_EV_TASK_EXIT),
                 "0 SWITCH L<-idle",
                 "0 PRIO L 1->31 ceiling N",
                 "0 SWITCH idle<-L",
                 "1 SWITCH M<-idle",
                 "2 SWITCH L<-M",
                 "3 PRIO L 31->1 release N",
                 "3 SWITCH M<-L",
                 "5 TASK_EXIT M",
                 "5 SWITCH L<-M",
                 "6 TASK_EXIT L",
                 "6 SWITCH idle<-L");
}

/* npcs takes no ceiling (it is always PR_PRIO_MAX) and accepts FIFO. */
static void npcs_attributes(void)
{
    harness_reset(0);
    pr_sem_attr_t a;
    pr_sem_attr_init(&a);
    a.value = 1;
    a.flags = PR_SEM_MUTEX; /* FIFO */
    a.protocol = PR_PROTOCOL_NPCS;
    pr_id_t id = 77;
    CHECK_EQ(pr_sem_alloc(&a, &id), PR_OK);
    a.ceiling = 3;
    CHECK_EQ(pr_sem_alloc(&a, &id), PR_EINVAL);
    a.ceiling = 0;
    a.flags = PR_SEM_PRIO; /* a counting semaphore */
    CHECK_EQ(pr_sem_alloc(&a, &id), PR_EINVAL);
}

HARNESS_MAIN(TEST_CASE(most_urgent_task_waits_for_the_section), TEST_CASE(round_robin_does_not_rotate_the_holder),
             TEST_CASE(round_robin_rotates_without_npcs), TEST_CASE(holder_that_suspends_resumes_at_once),
             TEST_CASE(npcs_attributes))
