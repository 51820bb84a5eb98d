/*
 * Job accounting for the lab: one pass over a kernel trace (the same records
 * on every port) gives one row per job and a few totals. It reads only the
 * trace; it knows nothing of the kernel's internals.
 */
#ifndef PRIORA_LAB_METRICS_H
#define PRIORA_LAB_METRICS_H

#include <stdint.h>
#include "priora/trace.h"

#define PR_LAB_NEVER UINT64_MAX /* a time that did not happen */

typedef struct pr_lab_job {
    uint64_t release;  /* ns */
    uint64_t start;    /* first instant it ran; PR_LAB_NEVER if it never did */
    uint64_t finish;   /* PR_LAB_NEVER if not finished when the trace ends */
    uint64_t deadline; /* absolute; PR_LAB_NEVER if the task has none */
    uint64_t blocked;  /* ns blocked on a semaphore during the job (pcp: on the system ceiling too) */
    uint64_t inverted; /* ns during which a task of lower base priority ran while the job was released and unfinished */
    int32_t task;
    uint32_t job;      /* 1, 2, ... */
    uint32_t timeouts; /* waits of the job that timed out, or failed at once (no-wait) */
    int32_t missed;    /* 1 missed; 0 met (or no deadline); -1 unfinished, deadline after the end */
    uint32_t errors;   /* semaphore calls of the job that failed otherwise (PR_EDEADLK, PR_EOVERFLOW...) */
    uint32_t aborts;   /* rcs: critical sections of the job aborted and restarted (unlocks that
                          returned PR_EABORTED: the scenario interpreter restarts each one) */
    uint64_t lost;     /* rcs: ns of the job's CPU time lost in those sections, by the interpreter's
                          rule (pr_script_t.lost): from each restarted section's lock to its recovery
                          point, counted once when sections nest */
    uint64_t recovery; /* rcs with a recovery: ns of the job's CPU time spent restoring the shared
                          state of its aborted sections, from each RECOVER record to its UP */
} pr_lab_job_t;

typedef struct pr_lab_totals {
    uint64_t busy;         /* ns during which a task (not idle) ran */
    uint64_t end;          /* the end time given */
    uint64_t jobs;         /* rows written */
} pr_lab_totals_t;

/*
 * records, n     the trace (in order)
 * ntasks         tasks 0 .. ntasks-1
 * rel_deadline   per task: relative deadline in ns, 0 = none
 * nsems          semaphores 0 .. nsems-1
 * is_mutex       per semaphore: 1 for a mutex (its holds are measured)
 * end            the time the run ended (ns)
 * jobs, max_jobs output rows, in release order
 * longest_hold   per semaphore (output): longest time one task held the mutex (0 if never;
 *                a hold still open at the end counts up to the end; an aborted holder that
 *                recovers holds it until it hands it over)
 * recovery       per semaphore (output): ns its aborted holders spent recovering (rcs)
 * totals         output
 * Returns 0, or -1 if max_jobs was too small, an id is out of range, or a
 * record that needs a task has none.
 */
int pr_lab_account(const pr_trace_record_t *records, size_t n, int ntasks, const uint64_t *rel_deadline,
                   int nsems, const uint8_t *is_mutex, uint64_t end, pr_lab_job_t *jobs, size_t max_jobs,
                   uint64_t *longest_hold, uint64_t *recovery, pr_lab_totals_t *totals);

/* The build-time limits the lab's validation assumes (0 PR_CONFIG_MAX_TASKS,
 * 1 PR_CONFIG_MAX_SEMS, 2 PR_CONFIG_PRIORITIES, 3 PR_CONFIG_NAME_LEN), so the
 * binding can check them at load; -1 for an unknown one. */
long pr_lab_limit(int which);

/* sizeof of the structures the Python binding mirrors, to check its layout
 * (0 trace record, 1 job, 2 totals, 3 kernel config, 4 task attr, 5 task
 * status, 6 sem attr, 7 sem stats, 8 action, 9 script, 10 kernel stats,
 * 11 sem recovery, 12 msgq attr, 13 msgq status, 14 events status, 15
 * timer attr, 16 timer status, 17 script interrupt, 18 span, 19 span objects:
 * intervals.h). */
size_t pr_lab_sizeof(int which);

#endif
