/*
 * Per-task figures of the report (task_totals.h): one pass for the counts,
 * maxima and sums.
 */
#include <string.h>
#include "task_totals.h"

int pr_lab_task_totals(const pr_lab_job_t *jobs, size_t n, int ntasks, pr_lab_task_totals_t *totals)
{
    memset(totals, 0, (size_t)ntasks * sizeof *totals);
    for (size_t i = 0; i < n; i++) {
        const pr_lab_job_t *j = &jobs[i];
        if (j->task < 0 || j->task >= ntasks)
            return -1;
        pr_lab_task_totals_t *t = &totals[j->task];
        t->jobs++;
        if (j->finish != PR_LAB_NEVER) {
            uint64_t response = j->finish - j->release;
            t->finished++;
            t->response_sum += response;
            if (response > t->max_response)
                t->max_response = response;
        }
        if (j->blocked > t->max_blocked)
            t->max_blocked = j->blocked;
        if (j->inverted > t->max_inverted)
            t->max_inverted = j->inverted;
        t->misses += j->missed == 1;
        t->timeouts += j->timeouts;
        t->errors += j->errors;
        t->recovery += j->recovery;
        t->aborts += j->aborts;
        t->lost += j->lost;
    }
    return 0;
}

size_t pr_lab_task_totals_sizeof(void) { return sizeof(pr_lab_task_totals_t); }
