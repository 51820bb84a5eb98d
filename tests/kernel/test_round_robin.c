/*
 * Round robin among equal priorities. With quantum q, the running task is
 * charged one tick of its slice at each tick interrupt; when the slice is
 * used up it goes to the tail of its level and the next one runs. A task
 * dispatched at a tick instant therefore runs exactly q ticks. Quantum 0:
 * each runs until it blocks. A more urgent task still preempts at once, and
 * the preempted task keeps the rest of its slice.
 */
#include "harness.h"

#define EV_SW EV(PR_EV_SWITCH)

static void compute5(void *arg)
{
    (void)arg;
    pr_host_consume(TICKS(5));
}

static void abc(pr_ticks_t quantum, void (*body)(void *))
{
    harness_reset(quantum);
    task_at("A", 1, 0, body, NULL);
    task_at("B", 1, 0, body, NULL);
    task_at("C", 1, 0, body, NULL);
}

/*
 * q = 2, A, B, C (all priority 1) compute 5 each from 0: A 0..2, B 2..4,
 * C 4..6, A 6..8, B 8..10, C 10..12; A needs 1 more: 12..13 and ends; B
 * 13..14; C 14..15.
 */
static void equal_priorities_switch_every_quantum(void)
{
    abc(2, compute5);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SW,
                 "0 SWITCH A<-idle",
                 "2 SWITCH B<-A",
                 "4 SWITCH C<-B",
                 "6 SWITCH A<-C",
                 "8 SWITCH B<-A",
                 "10 SWITCH C<-B",
                 "12 SWITCH A<-C",
                 "13 SWITCH B<-A",
                 "14 SWITCH C<-B",
                 "15 SWITCH idle<-C");
}

/* q = 0: each runs to its end: A 0..5, B 5..10, C 10..15. */
static void quantum_zero_runs_until_block(void)
{
    abc(0, compute5);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SW, "0 SWITCH A<-idle", "5 SWITCH B<-A", "10 SWITCH C<-B", "15 SWITCH idle<-C");
}

/* q = 1: a switch at every tick; each task runs one tick per turn. */
static void quantum_one_switches_every_tick(void)
{
    harness_reset(1);
    static const pr_action_t two[] = {A_COMPUTE(2)};
    pr_script_t a = SCRIPT(two), b = SCRIPT(two);
    script_task("A", 1, 0, &a);
    script_task("B", 1, 0, &b);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SW, "0 SWITCH A<-idle", "1 SWITCH B<-A", "2 SWITCH A<-B", "3 SWITCH B<-A", "4 SWITCH idle<-B");
}

/*
 * A task alone at its level keeps the CPU when its slice ends (its slice
 * is refilled, no switch); a task of another level does not share its
 * quantum: L (0) only runs when A is done.
 */
static void slice_end_alone_at_level_keeps_running(void)
{
    harness_reset(2);
    task_at("A", 2, 0, compute5, NULL);
    task_at("L", 0, 0, compute5, NULL);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SW, "0 SWITCH A<-idle", "5 SWITCH L<-A", "10 SWITCH idle<-L");
}

/*
 * q = 2; H (5) released at 3 computes half a tick. B's slice started at 2;
 * H preempts it at 3 (at once, mid-slice) and runs 3..3.5; B resumes with
 * the rest of its slice (the tick of 3 was charged to B, current when it
 * came: 1 left) and is rotated at 4. Then C 4..6, A 6..8, B 8..10, C
 * 10..12, A 12..13 (A's 5th tick) ends; B needs 1.5 more: 13..14.5;
 * C 14.5..15.5.
 */
static void more_urgent_task_preempts_mid_slice(void)
{
    abc(2, compute5);
    static const pr_action_t half[] = {{PR_ACT_COMPUTE, 0, 0, 0, TICKS(1) / 2}};
    pr_script_t h = SCRIPT(half);
    script_task("H", 5, 3, &h);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SW,
                 "0 SWITCH A<-idle",
                 "2 SWITCH B<-A",
                 "3 SWITCH H<-B",
                 "3.5 SWITCH B<-H",
                 "4 SWITCH C<-B",
                 "6 SWITCH A<-C",
                 "8 SWITCH B<-A",
                 "10 SWITCH C<-B",
                 "12 SWITCH A<-C",
                 "13 SWITCH B<-A",
                 "14.5 SWITCH C<-B",
                 "15.5 SWITCH idle<-C");
}

/*
 * The same with H computing a whole tick, 3..4: B is switched back in at
 * the instant of tick 4, before that tick is taken. It has not run during
 * the tick that just ended, so that tick is not charged to it: B keeps its
 * last tick and runs 4..5 (a full slice of 2 ticks in all). Then C 5..7,
 * A 7..9, B 9..11, C 11..13, A's last tick 13..14, B's 14..15 (2..3, 4..5,
 * 9..11, 14..15), C's 15..16.
 */
static void preempted_task_keeps_rest_of_slice(void)
{
    abc(2, compute5);
    static const pr_action_t one[] = {A_COMPUTE(1)};
    pr_script_t h = SCRIPT(one);
    script_task("H", 5, 3, &h);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SW,
                 "0 SWITCH A<-idle",
                 "2 SWITCH B<-A",
                 "3 SWITCH H<-B",
                 "4 SWITCH B<-H",
                 "5 SWITCH C<-B",
                 "7 SWITCH A<-C",
                 "9 SWITCH B<-A",
                 "11 SWITCH C<-B",
                 "13 SWITCH A<-C",
                 "14 SWITCH B<-A",
                 "15 SWITCH C<-B",
                 "16 SWITCH idle<-C");
}

/*
 * pr_task_yield (q = 0): A and B (1) each compute 1 and yield, three times
 * (the second time with pr_task_delay(0), which yields the same way). A
 * 0..1 yields to B, B 1..2 to A, A 2..3, B 3..4, A 4..5, B 5..6; each yield
 * puts the caller behind the other. At 6 A returns from its last yield and
 * ends, so does B; only then L (0) runs, 6..11.
 */
static int yield_rc[6];
static void yield_body(void *arg)
{
    int *rc = arg;
    for (int i = 0; i < 3; i++) {
        pr_host_consume(TICKS(1));
        rc[i] = i == 1 ? pr_task_delay(0) : pr_task_yield();
    }
}

static void yield_passes_to_equal_priority(void)
{
    harness_reset(0);
    task_at("A", 1, 0, yield_body, &yield_rc[0]);
    task_at("B", 1, 0, yield_body, &yield_rc[3]);
    task_at("L", 0, 0, compute5, NULL); /* less urgent: never gets a yield */
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SW,
                 "0 SWITCH A<-idle",
                 "1 SWITCH B<-A",
                 "2 SWITCH A<-B",
                 "3 SWITCH B<-A",
                 "4 SWITCH A<-B",
                 "5 SWITCH B<-A",
                 "6 SWITCH A<-B",
                 "6 SWITCH B<-A",
                 "6 SWITCH L<-B",
                 "11 SWITCH idle<-L");
    for (int i = 0; i < 6; i++)
        CHECK_EQ(yield_rc[i], PR_OK);
    CHECK_EQ(trace_count(PR_EV_DELAY, PR_TRACE_NONE), 0); /* delay(0) is a yield, not a delay */
}

/*
 * A yield ends the slice, and the next slice is a full one. q = 3; A runs
 * the yield body above (compute 1, yield, compute 1, delay(0), compute 1,
 * yield), B computes 5. A 0..1 yields; B runs a full slice 1..4; A 4..5
 * yields (delay 0); B 5..7 and ends (5 ticks); A 7..8 yields alone at its
 * level: no switch; it ends at 8.
 */
static void yield_then_full_slice(void)
{
    harness_reset(3);
    static const pr_action_t b5[] = {A_COMPUTE(5)};
    pr_script_t b = SCRIPT(b5);
    static int rc[3];
    task_at("A", 1, 0, yield_body, rc); /* 1, yield, 1, delay(0), 1, yield */
    script_task("B", 1, 0, &b);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SW, "0 SWITCH A<-idle", "1 SWITCH B<-A", "4 SWITCH A<-B", "5 SWITCH B<-A",
                 "7 SWITCH A<-B", "8 SWITCH idle<-A");
}

/*
 * pr_sched_set_quantum: started with q = 0, A and B (1) compute 5 each. At
 * 1.5 the program turns the quantum on with 2: A (running) gets a slice of
 * 2: ticks 2 and 3, rotated at 3. B, made ready when the quantum was off,
 * gets a full slice of the new quantum: 3..5. A 5..7 ends (0..3, 5..7);
 * B runs its last 3 ticks 7..10 (alone at its level: no rotation).
 */
static void set_quantum_turns_round_robin_on(void)
{
    harness_reset(0);
    task_at("A", 1, 0, compute5, NULL);
    task_at("B", 1, 0, compute5, NULL);
    CHECK_EQ(pr_host_run_until(TICKS(1) + TICKS(1) / 2), PR_HOST_REACHED);
    pr_sched_set_quantum(2);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SW, "0 SWITCH A<-idle", "3 SWITCH B<-A", "5 SWITCH A<-B", "7 SWITCH B<-A", "10 SWITCH idle<-B");
}

/*
 * Shortening the quantum applies to every task at once: q = 4; at 1.5 the
 * program sets 1. A (running) is rotated at 2; B, whose slice of 4 was
 * given under the old quantum, gets 1 tick: 2..3; C 3..4; and so on, one
 * tick each. A (0..2, 4..5, 7..8, 10..11) ends at 11; B (2..3, 5..6, 8..9,
 * 11..12, 13..14) at 14; C (3..4, 6..7, 9..10, 12..13, 14..15) at 15.
 */
static void set_quantum_shortens_every_slice(void)
{
    abc(4, compute5);
    CHECK_EQ(pr_host_run_until(TICKS(1) + TICKS(1) / 2), PR_HOST_REACHED);
    pr_sched_set_quantum(1);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SW,
                 "0 SWITCH A<-idle",
                 "2 SWITCH B<-A",
                 "3 SWITCH C<-B",
                 "4 SWITCH A<-C",
                 "5 SWITCH B<-A",
                 "6 SWITCH C<-B",
                 "7 SWITCH A<-C",
                 "8 SWITCH B<-A",
                 "9 SWITCH C<-B",
                 "10 SWITCH A<-C",
                 "11 SWITCH B<-A",
                 "12 SWITCH C<-B",
                 "13 SWITCH B<-C",
                 "14 SWITCH C<-B",
                 "15 SWITCH idle<-C");
}

/*
 * Lengthening the quantum leaves the slices given under the old one as
 * they were: q = 2; at 1.5 the program sets 4. A (running) gets a slice of
 * 4 and runs to its end at 5. B and C, made ready at 0 with slices of 2,
 * run 2 ticks each: B 5..7, C 7..9; then slices of 4: B 9..12 ends, C
 * 12..15.
 */
static void set_quantum_longer_keeps_slices_given(void)
{
    abc(2, compute5);
    CHECK_EQ(pr_host_run_until(TICKS(1) + TICKS(1) / 2), PR_HOST_REACHED);
    pr_sched_set_quantum(4);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SW, "0 SWITCH A<-idle", "5 SWITCH B<-A", "7 SWITCH C<-B", "9 SWITCH B<-C", "12 SWITCH C<-B",
                 "15 SWITCH idle<-C");
}

/*
 * A slice given while the quantum was off starts full under whatever
 * quantum is in force when it first runs: q = 0; the program sets 2 at 1.5
 * and 4 at 2.5. A (running) has 4 from then on and ends at 5; B and C,
 * made ready at 0, get 4 each: B 5..9, C 9..13, B 13..14, C 14..15.
 */
static void set_quantum_twice_keeps_slices_given_while_off(void)
{
    abc(0, compute5);
    CHECK_EQ(pr_host_run_until(TICKS(1) + TICKS(1) / 2), PR_HOST_REACHED);
    pr_sched_set_quantum(2);
    CHECK_EQ(pr_host_run_until(TICKS(2) + TICKS(1) / 2), PR_HOST_REACHED);
    pr_sched_set_quantum(4);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SW, "0 SWITCH A<-idle", "5 SWITCH B<-A", "9 SWITCH C<-B", "13 SWITCH B<-C", "14 SWITCH C<-B",
                 "15 SWITCH idle<-C");
}

/* Turning the quantum off: from 2.5 on, the running task runs to its end.
 * q = 2: A 0..2, B 2..2.5 when the program sets 0: B runs to its end at
 * 7, then C 7..12, then A (3 left) 12..15. */
static void set_quantum_zero_turns_round_robin_off(void)
{
    abc(2, compute5);
    CHECK_EQ(pr_host_run_until(TICKS(2) + TICKS(1) / 2), PR_HOST_REACHED);
    pr_sched_set_quantum(0);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_SW, "0 SWITCH A<-idle", "2 SWITCH B<-A", "7 SWITCH C<-B", "12 SWITCH A<-C", "15 SWITCH idle<-A");
}

HARNESS_MAIN(TEST_CASE(equal_priorities_switch_every_quantum),
             TEST_CASE(quantum_zero_runs_until_block),
             TEST_CASE(quantum_one_switches_every_tick),
             TEST_CASE(slice_end_alone_at_level_keeps_running),
             TEST_CASE(more_urgent_task_preempts_mid_slice),
             TEST_CASE(preempted_task_keeps_rest_of_slice),
             TEST_CASE(yield_passes_to_equal_priority),
             TEST_CASE(yield_then_full_slice),
             TEST_CASE(set_quantum_turns_round_robin_on),
             TEST_CASE(set_quantum_shortens_every_slice),
             TEST_CASE(set_quantum_longer_keeps_slices_given),
             TEST_CASE(set_quantum_twice_keeps_slices_given_while_off),
             TEST_CASE(set_quantum_zero_turns_round_robin_off))
