/*
 * The per-task figures of the lab's report (priora.report's TaskRow) from
 * the job rows of metrics.h, in one pass, with no sort: the maxima, counts
 * and sums. The mean response is response_sum / finished, computed by the
 * report: exact, since the sum is an integer (numpy's mean of the same
 * responses as floats is the same number while the sum is below 2^53 ns,
 * 104 days).
 */
#ifndef PRIORA_LAB_TASK_TOTALS_H
#define PRIORA_LAB_TASK_TOTALS_H

#include <stddef.h>
#include <stdint.h>
#include "metrics.h"

typedef struct pr_lab_task_totals {
    uint64_t jobs;
    uint64_t finished;     /* jobs with a finish */
    uint64_t max_response; /* ns, over the finished jobs (0 without one) */
    uint64_t max_blocked;  /* ns */
    uint64_t max_inverted; /* ns */
    uint64_t misses;       /* jobs with missed == 1 */
    uint64_t timeouts;     /* sums over the jobs */
    uint64_t errors;
    uint64_t recovery;     /* ns */
    uint64_t response_sum; /* ns, over the finished jobs */
    uint64_t aborts;
    uint64_t lost;         /* ns */
} pr_lab_task_totals_t;

/*
 * jobs, n      the rows (release order)
 * ntasks       tasks 0 .. ntasks-1
 * totals       per task (output)
 * Returns 0, or -1 for a row whose task is out of range. O(n + ntasks).
 */
int pr_lab_task_totals(const pr_lab_job_t *jobs, size_t n, int ntasks, pr_lab_task_totals_t *totals);

/* sizeof(pr_lab_task_totals_t), to check the Python binding's layout. */
size_t pr_lab_task_totals_sizeof(void);

#endif
