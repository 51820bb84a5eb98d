/*
 * Passes over a trace and over job rows (trace_scan.h).
 */
#include "trace_scan.h"
#include "priora/errors.h"

int pr_lab_refused_result(int result, int is_down)
{
    if (result == PR_OK || result == PR_ETIMEDOUT || result == PR_EAGAIN)
        return 0;
    return is_down || result != PR_EABORTED;
}

size_t pr_lab_refusals(const pr_trace_record_t *records, size_t n, uint8_t *mask)
{
    size_t end = 0;
    for (size_t i = 0; i < n; i++) {
        const pr_trace_record_t *r = &records[i];
        int call = r->event == PR_EV_SEM_DOWN || r->event == PR_EV_SEM_UP;
        int refused = call && pr_trace_task_id(r, PR_TRACE_TASK) != PR_NO_TASK &&
                      pr_lab_refused_result(r->result, r->event == PR_EV_SEM_DOWN);
        if (mask != NULL)
            mask[i] = (uint8_t)refused;
        if (refused)
            end = i + 1;
    }
    return end;
}

size_t pr_lab_count_event(const pr_trace_record_t *records, size_t n, uint8_t event)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        count += records[i].event == event;
    return count;
}

size_t pr_lab_jobs_of_tasks(pr_lab_job_t *jobs, size_t n, int ntasks)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (jobs[i].task < ntasks)
            jobs[kept++] = jobs[i];
    return kept;
}
