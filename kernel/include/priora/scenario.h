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
 *                       on the host port); preemptible.
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
    PR_ACT_SET_PRIORITY
} pr_action_kind_t;

typedef struct pr_action {
    pr_action_kind_t kind;
    pr_id_t sem;            /* LOCK, UNLOCK, DOWN, UP */
    pr_timeout_t timeout;   /* LOCK, DOWN: PR_FOREVER, PR_NO_WAIT or ticks */
    uint64_t amount;        /* COMPUTE: time units; DELAY: ticks; SET_PRIORITY: priority */
} pr_action_t;

typedef struct pr_script {
    const pr_action_t *actions;
    uint32_t count;
    /* Filled in while it runs: */
    uint32_t timeouts;      /* PR_ETIMEDOUT or PR_EAGAIN results of LOCK/DOWN */
    uint32_t errors;        /* any other error result */
    int last_error;         /* the latest such error (PR_OK if none) */
    uint32_t last_error_action;
    uint32_t aborts;        /* rcs: sections restarted after an abort (PR_EABORTED) */
    uint64_t lost;          /* rcs: CPU time (port units) spent in sections that were
                               aborted, counted once even when nested sections restart */
} pr_script_t;

/* Checks a script before it runs: known kinds, an UNLOCK for every LOCK (same
 * semaphore, later in the list, not nested on the same semaphore), no
 * UNLOCK of a semaphore the body does not hold at that point, a body that
 * ends holding nothing. Returns PR_OK, or PR_EINVAL with the index of the
 * first bad action in *bad_action (if not NULL). */
int pr_script_check(const pr_script_t *script, uint32_t *bad_action);

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
