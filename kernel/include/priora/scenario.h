/*
 * The scenario interpreter: a generic task body that executes a list of
 * actions, so that task sets can be given as data (the lab compiles scenario
 * files into these lists).
 *
 * A job runs the actions in order. At the end of the list a periodic task
 * waits for its next release and starts again at the first action; a task
 * with period 0 ends.
 *
 * Actions:
 *   PR_ACT_COMPUTE      consume `amount` units of CPU time (port units: ns
 *                       on the host port), scaled by the job's draw when the
 *                       script has an exec_spread; preemptible.
 *   PR_ACT_LOCK         pr_sem_down(sem, timeout) on a mutex. If it fails
 *                       (timeout, or any error), the job skips its critical
 *                       section: it goes on after the matching PR_ACT_UNLOCK.
 *                       Crossing sections: inside the skipped range, a mutex
 *                       held from before is unlocked at once, and a section
 *                       opened there is skipped in full (its UNLOCK too).
 *   PR_ACT_UNLOCK       pr_sem_up(sem) on a mutex. If it returns PR_EABORTED
 *                       (rcs: a more urgent task aborted the section), the
 *                       section restarts at its LOCK action: the task's
 *                       computing stopped at the abort (pr_port_consume
 *                       returns at once), and the CPU time it spent from the
 *                       LOCK to this UNLOCK is counted as lost work. A
 *                       recovery (the mutex has one, e.g. pr_script_recover:
 *                       the UNLOCK runs it) restores the shared state: no
 *                       recovery of the task is ever lost work, even one run
 *                       inside a section aborted later. Sections opened
 *                       after that LOCK and still held are unlocked first; a
 *                       section opened before it and closed inside it is not
 *                       closed again on the replay.
 *   PR_ACT_DOWN         pr_sem_down(sem, timeout); on failure the job goes on
 *                       with the next action.
 *   PR_ACT_UP           pr_sem_up(sem).
 *   PR_ACT_DELAY        pr_task_delay(amount ticks).
 *   PR_ACT_WAIT_PERIOD  end the job here and wait for the next release; the
 *                       next job continues with the next action.
 *   PR_ACT_SET_PRIORITY set the task's own base priority to `amount`.
 *   PR_ACT_SEND         pr_msgq_send(sem = the queue, timeout) of a message of
 *                       PR_SCRIPT_MSG_SIZE bytes (the sender's task id); its
 *                       priority is `amount` with PR_ACT_SEND_PRIORITY in
 *                       `options`, else the sender's (PR_MSG_PRIO_SENDER).
 *   PR_ACT_RECEIVE      pr_msgq_receive(sem = the queue, timeout).
 *   PR_ACT_EVENTS_SET   pr_events_set(sem = the event flags, amount = mask).
 *   PR_ACT_EVENTS_CLEAR pr_events_clear(sem = the event flags, amount = mask).
 *   PR_ACT_EVENTS_WAIT  pr_events_wait(sem = the event flags, amount = mask,
 *                       options = PR_EVENTS_ANY or PR_EVENTS_ALL, | PR_EVENTS_CLEAR,
 *                       timeout).
 *   PR_ACT_RELEASE      pr_task_release(sem = the sporadic task): a job of it
 *                       arrives (PR_EAGAIN, refused as too early, is counted
 *                       with the timeouts).
 *   PR_ACT_RTPRIO       pr_task_rtprio on the task itself: into the real-time
 *                       band at priority `amount`, or out of it with
 *                       PR_ACT_RTPRIO_OFF (timeshare.h).
 *   PR_ACT_NICE         pr_task_set_nice on the task itself, to amount - 20.
 * A refused RTPRIO or NICE (a missing privilege: privilege.h) is counted as
 * an error and the job goes on.
 * A failed SEND, RECEIVE or EVENTS_WAIT (timeout or error) lets the job go
 * on with the next action, like a DOWN.
 *
 * Bodies that never wait (pr_script_run_once): a software timer's action
 * (pr_script_timer_action, in the timer service task) and a scenario
 * interrupt (pr_script_interrupts_tick, in the tick interrupt) run their
 * actions once, in order, every call with PR_NO_WAIT. They take UP, SEND,
 * EVENTS_SET, EVENTS_CLEAR and RELEASE only (pr_script_check_once).
 *
 * Timeouts, errors, aborts and lost work are counted in the script (per
 * task); each result is in the kernel trace as well.
 */
#ifndef PRIORA_SCENARIO_H
#define PRIORA_SCENARIO_H

#include "priora/types.h"

typedef enum pr_action_kind {
    PR_ACT_COMPUTE = 1,
    PR_ACT_LOCK,
    PR_ACT_UNLOCK,
    PR_ACT_DOWN,
    PR_ACT_UP,
    PR_ACT_DELAY,
    PR_ACT_WAIT_PERIOD,
    PR_ACT_SET_PRIORITY,
    PR_ACT_SEND,
    PR_ACT_RECEIVE,
    PR_ACT_EVENTS_SET,
    PR_ACT_EVENTS_CLEAR,
    PR_ACT_EVENTS_WAIT,
    PR_ACT_RELEASE,
    PR_ACT_RTPRIO,
    PR_ACT_NICE
} pr_action_kind_t;

/* PR_ACT_RTPRIO's amount that leaves the real-time band (PR_RTPRIO_RTOFF). */
#define PR_ACT_RTPRIO_OFF UINT64_MAX

/* pr_action_t.options of a PR_ACT_SEND: `amount` is the message's priority. */
#define PR_ACT_SEND_PRIORITY 1u

/* The interpreter's messages: the sending task's id as a uint32_t
 * (PR_NO_TASK as 0xFFFFFFFF from an interrupt). Queues that scripts use are
 * allocated with this msg_size. */
#define PR_SCRIPT_MSG_SIZE 4u

typedef struct pr_action {
    pr_action_kind_t kind;
    pr_id_t sem;            /* the object: LOCK, UNLOCK, DOWN, UP: a semaphore; SEND,
                               RECEIVE: a message queue; EVENTS_*: event flags; RELEASE: a task */
    pr_timeout_t timeout;   /* LOCK, DOWN, SEND, RECEIVE, EVENTS_WAIT: PR_FOREVER, PR_NO_WAIT or ticks */
    uint32_t options;       /* SEND: PR_ACT_SEND_PRIORITY or 0; EVENTS_WAIT: PR_EVENTS_*; else 0 */
    uint64_t amount;        /* COMPUTE: time units; DELAY: ticks; SET_PRIORITY: priority;
                               SEND: the message's priority; EVENTS_*: the mask */
} pr_action_t;

typedef struct pr_script {
    const pr_action_t *actions;
    uint32_t count;
    /* Filled in while it runs: */
    uint32_t timeouts;      /* PR_ETIMEDOUT or PR_EAGAIN results of the calls that may wait */
    uint32_t errors;        /* any other error result */
    int last_error;         /* the latest such error (PR_OK if none) */
    uint32_t last_error_action;
    uint32_t aborts;        /* rcs: sections restarted after an abort (PR_EABORTED) */
    uint64_t lost;          /* rcs: CPU time (port units) spent in sections that were
                               aborted, counted once even when nested sections restart */
    /* Execution times between a best and a worst case (set before it runs):
     * each job draws r uniformly from [65536 - exec_spread, 65536] and runs
     * each COMPUTE amount a as floor(a * r / 65536). 0 = every job runs the
     * amounts as written (the worst case). At most 65536. */
    uint32_t exec_spread;
    uint32_t exec_state;    /* xorshift32 state of those draws: the seed before it runs (0 = 1) */
    uint32_t exec_ratio;    /* filled in: the current job's r */
} pr_script_t;

/* Checks a script before it runs: known kinds, an UNLOCK for every LOCK (same
 * semaphore, later in the list, not nested on the same semaphore), no
 * UNLOCK of a semaphore the body does not hold at that point, a body that
 * ends holding nothing. Returns PR_OK, or PR_EINVAL with the index of the
 * first bad action in *bad_action (if not NULL). */
int pr_script_check(const pr_script_t *script, uint32_t *bad_action);

/* Checks a body that runs once and never waits (a timer's action, an
 * interrupt): UP, SEND, EVENTS_SET, EVENTS_CLEAR and RELEASE only, in their ranges.
 * Returns PR_OK, or PR_EINVAL with the index of the first bad action. */
int pr_script_check_once(const pr_script_t *script, uint32_t *bad_action);

/* Runs the actions once, in order, each call with PR_NO_WAIT; results are
 * counted in the script as a task's are. Any context. */
void pr_script_run_once(pr_script_t *script);

/* A software timer's action (swtimer.h): pr_script_run_once(script). */
void pr_script_timer_action(pr_id_t timer, void *script);

/*
 * Scenario interrupts: bodies that the tick interrupt runs, after the
 * tick's own work (pr_kernel_tick) and before pr_isr_exit, at the ticks
 * phase, phase + period, ... (period 0: once). They run in interrupt
 * context (pr_isr_enter): a task they wake runs when the interrupt ends if
 * it is the most urgent. The port calls pr_script_interrupts_tick from its
 * tick interrupt (the host port: pr_host_set_tick_hook).
 */
typedef struct pr_script_interrupt {
    pr_ticks_t phase;   /* the first tick it fires at, >= 1 (tick 0 has no interrupt) */
    pr_ticks_t period;  /* ticks between firings; 0 = once */
    pr_script_t script; /* its body, checked by pr_script_check_once */
    uint32_t fired;     /* filled in: how many times it ran */
} pr_script_interrupt_t;

typedef struct pr_script_interrupts {
    pr_script_interrupt_t *list; /* in the order they run when due at one tick */
    uint32_t count;
} pr_script_interrupts_t;

/* Runs every interrupt of `interrupts` (a pr_script_interrupts_t) due at
 * the current tick (pr_ticks_now), in list order. From the tick interrupt. */
void pr_script_interrupts_tick(void *interrupts);

/* The task body: create a task with entry = pr_script_body and arg = the
 * pr_script_t (which must outlive the task). */
void pr_script_body(void *script);

/*
 * A recovery for an rcs mutex whose shared state takes a known time to
 * restore (sem.h: pr_sem_recovery_t): it computes for *(const uint64_t *)arg
 * units of CPU time (port units), in the aborted holder's context, at the
 * requester's priority. Register it with
 *     pr_sem_control(m, PR_SEM_CTL_RECOVERY, &(pr_sem_recovery_t){pr_script_recover, &amount})
 * where `amount` outlives the mutex's use; an amount of 0 still makes the
 * requester wait for the holder's recovery point (no recovery at all keeps
 * the immediate take-over).
 */
void pr_script_recover(pr_id_t mutex, void *arg);

#endif /* PRIORA_SCENARIO_H */
