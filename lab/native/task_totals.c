/*
 * Per-task figures of the report (task_totals.h): one pass for the counts,
 * maxima and sums, then one to place each finished response in its task's
 * part of `responses` (a counting sort: stable, so each task's stay in
 * release order).
 */
#include <string.h>
#include "task_totals.h"

int pr_lab_task_totals(const pr_lab_job_t *jobs, size_t n, int ntasks, pr_lab_task_totals_t *totals,
                       double *responses)
{
    memset(totals, 0, (size_t)ntasks * sizeof *totals);
    for (size_t i = 0; i < n; i++) {
        const pr_lab_job_t *j = &jobs[i];
        if (j->task < 0 || j->task >= ntasks)
            return -1;
        pr_lab_task_totals_t *t = &totals[j->task];
        t->jobs++;
        if (j->finish != PR_LAB_NEVER) {
            t->finished++;
            if (j->finish - j->release > t->max_response)
                t->max_response = j->finish - j->release;
        }
        if (j->blocked > t->max_blocked)
            t->max_blocked = j->blocked;
        if (j->inverted > t->max_inverted)
            t->max_inverted = j->inverted;
        t->misses += j->missed == 1;
        t->timeouts += j->timeouts;
        t->errors += j->errors;
        t->recovery += j->recovery;
    }
    uint64_t first = 0;
    for (int k = 0; k < ntasks; k++) {
        totals[k].first = first;
        first += totals[k].finished;
    }
    uint64_t next[256];
    if (ntasks > 256)
        return -1;
    for (int k = 0; k < ntasks; k++)
        next[k] = totals[k].first;
    for (size_t i = 0; i < n; i++)
        if (jobs[i].finish != PR_LAB_NEVER)
            responses[next[jobs[i].task]++] = (double)(jobs[i].finish - jobs[i].release);
    return 0;
}

size_t pr_lab_task_totals_sizeof(void) { return sizeof(pr_lab_task_totals_t); }
