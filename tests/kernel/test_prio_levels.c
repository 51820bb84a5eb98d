/*
 * Priority levels across the bitmap's words: the ready queue, a wait list
 * walked most urgent first, and ceilings, at four levels that straddle the
 * boundaries of its form (kernel/core/prio_bitmap.h). CMake builds this
 * program twice: with the default 32 levels (one word: the levels are 0, 1,
 * 30 and 31) and with the lab's 256 (two levels of words: 0, 31, 32 and
 * 255, so the second and third are in different words and the top is the
 * last level of the last word).
 */
#include "harness.h"

#if PR_CONFIG_PRIORITIES > 32
#define LV_B 31
#define LV_C 32
#define LV_B_S "31"
#define LV_C_S "32"
#else
#define LV_B 1
#define LV_C 30
#define LV_B_S "1"
#define LV_C_S "30"
#endif
#define LV_A 0
#define LV_TOP PR_PRIO_MAX
#define STR_(x) #x
#define STR(x) STR_(x)
#define LV_TOP_S STR(PR_CONFIG_PRIORITIES_MINUS_1)
#if PR_CONFIG_PRIORITIES == 256
#define PR_CONFIG_PRIORITIES_MINUS_1 255
#elif PR_CONFIG_PRIORITIES == 32
#define PR_CONFIG_PRIORITIES_MINUS_1 31
#else
#error "test_prio_levels is built with 32 or 256 levels"
#endif

static const pr_action_t Work1[] = {A_COMPUTE(1)};

/* Four tasks released at 0, created least urgent first: they run most
 * urgent first, whichever word their levels are in. */
static void most_urgent_ready_level_runs_first(void)
{
    harness_reset(0);
    pr_script_t a = SCRIPT(Work1), b = SCRIPT(Work1), c = SCRIPT(Work1), top = SCRIPT(Work1);
    script_task("a", LV_A, 0, &a);
    script_task("b", LV_B, 0, &b);
    script_task("c", LV_C, 0, &c);
    script_task("top", LV_TOP, 0, &top);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV(PR_EV_SWITCH),
                 "0 SWITCH top<-idle",
                 "1 SWITCH c<-top",
                 "2 SWITCH b<-c",
                 "3 SWITCH a<-b",
                 "4 SWITCH idle<-a");
    CHECK_EQ(status_of(3).base_priority, LV_TOP);
}

/* c's level empties while it delays (with two words: its whole word) and
 * b below it runs; c's return fills it again and preempts b. */
static const pr_action_t C_body[] = {A_COMPUTE(1), A_DELAY(2), A_COMPUTE(1)};
static const pr_action_t B_body[] = {A_COMPUTE(4)};

static void an_emptied_level_is_found_again(void)
{
    harness_reset(0);
    pr_script_t b = SCRIPT(B_body), c = SCRIPT(C_body);
    script_task("b", LV_B, 0, &b);
    script_task("c", LV_C, 0, &c);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV(PR_EV_SWITCH),
                 "0 SWITCH c<-idle",
                 "1 SWITCH b<-c",
                 "3 SWITCH c<-b",
                 "4 SWITCH b<-c",
                 "6 SWITCH idle<-b");
}

/* Four waiters of event flags, one per level, released least urgent
 * first: a set wakes them most urgent first (the walk goes from each
 * level to the next lower non-empty one, across words). */
enum { FLAGS = 0 };
static const pr_action_t Waiter[] = {{PR_ACT_EVENTS_WAIT, FLAGS, PR_FOREVER, PR_EVENTS_ANY, 1}};
static const pr_action_t Setter[] = {{PR_ACT_EVENTS_SET, FLAGS, 0, 0, 1}};

static void a_wait_list_is_walked_most_urgent_first(void)
{
    harness_reset(0);
    pr_id_t e;
    CHECK_EQ(pr_events_alloc("E", &e), PR_OK);
    CHECK_EQ(e, FLAGS);
    pr_script_t a = SCRIPT(Waiter), b = SCRIPT(Waiter), c = SCRIPT(Waiter), top = SCRIPT(Waiter);
    pr_script_t s = SCRIPT(Setter);
    script_task("a", LV_A, 1, &a);
    script_task("b", LV_B, 2, &b);
    script_task("c", LV_C, 3, &c);
    script_task("top", LV_TOP, 4, &top);
    script_task("set", LV_A, 5, &s);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV(PR_EV_EVENTS_WAKE) | EV(PR_EV_EVENTS_SET),
                 "5 EVENTS_WAKE top E ok flags=0x1",
                 "5 EVENTS_WAKE c E ok flags=0x1",
                 "5 EVENTS_WAKE b E ok flags=0x1",
                 "5 EVENTS_WAKE a E ok flags=0x1",
                 "5 EVENTS_SET set E ok flags=0x1 woken=4");
}

/* Ceilings above the first word: an ipcp mutex with the top level as its
 * ceiling lends it at the lock; a pcp mutex with ceiling c blocks b (below
 * it) at the system ceiling, and b's priority travels to the holder. */
enum { M = 0, P = 1, Q = 2 };
static const pr_action_t L_body[] = {A_LOCK(M), A_COMPUTE(1), A_UNLOCK(M), A_LOCK(P), A_COMPUTE(2), A_UNLOCK(P)};
static const pr_action_t H_body[] = {A_LOCK(Q), A_COMPUTE(1), A_UNLOCK(Q)};

static void ceilings_above_the_first_word(void)
{
    harness_reset(0);
    CHECK_EQ(mutex_ceiling("M", PR_PROTOCOL_IPCP, LV_TOP), M);
    CHECK_EQ(mutex_ceiling("P", PR_PROTOCOL_PCP, LV_C), P);
    CHECK_EQ(mutex_ceiling("Q", PR_PROTOCOL_PCP, LV_B), Q);
    pr_script_t l = SCRIPT(L_body), h = SCRIPT(H_body);
    script_task("L", LV_A, 0, &l);
    script_task("H", LV_B, 2, &h);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SCHED | EV(PR_EV_CEILING),
                 "0 SWITCH L<-idle",
                 "0 PRIO L 0->" LV_TOP_S " ceiling M",
                 "1 PRIO L " LV_TOP_S "->0 release M",
                 "2 SWITCH H<-L",
                 "2 BLOCK H Q ok",
                 "2 CEILING H Q ceiling=" LV_C_S " holder=L",
                 "2 PRIO L 0->" LV_B_S " inherit P",
                 "2 SWITCH L<-H",
                 "3 PRIO L " LV_B_S "->0 release P",
                 "3 WAKE H Q PR_EAGAIN",
                 "3 SWITCH H<-L",
                 "4 SWITCH idle<-H");
}

HARNESS_MAIN(TEST_CASE(most_urgent_ready_level_runs_first), TEST_CASE(an_emptied_level_is_found_again),
             TEST_CASE(a_wait_list_is_walked_most_urgent_first), TEST_CASE(ceilings_above_the_first_word))
