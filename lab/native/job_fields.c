/*
 * The job fields of the report (job_fields.h).
 */
#include "job_fields.h"

#define EXACT (UINT64_C(1) << 53)
#define NS_PER_SECOND UINT64_C(1000000000)

int pr_lab_field_is_time(int field)
{
    switch (field) {
    case PR_LAB_FIELD_RELEASE: case PR_LAB_FIELD_START: case PR_LAB_FIELD_FINISH:
    case PR_LAB_FIELD_RESPONSE: case PR_LAB_FIELD_BLOCKED: case PR_LAB_FIELD_INVERTED:
    case PR_LAB_FIELD_DEADLINE: case PR_LAB_FIELD_LOST: case PR_LAB_FIELD_RECOVERY:
        return 1;
    }
    return 0;
}

uint64_t pr_lab_field_value(const pr_lab_job_t *j, int field)
{
    switch (field) {
    case PR_LAB_FIELD_TASK: return (uint64_t)j->task;
    case PR_LAB_FIELD_JOB: return j->job;
    case PR_LAB_FIELD_RELEASE: return j->release;
    case PR_LAB_FIELD_START: return j->start;
    case PR_LAB_FIELD_FINISH: return j->finish;
    case PR_LAB_FIELD_RESPONSE: return j->finish == PR_LAB_NEVER ? PR_LAB_NEVER : j->finish - j->release;
    case PR_LAB_FIELD_TIMEOUTS: return j->timeouts;
    case PR_LAB_FIELD_ERRORS: return j->errors;
    case PR_LAB_FIELD_BLOCKED: return j->blocked;
    case PR_LAB_FIELD_INVERTED: return j->inverted;
    case PR_LAB_FIELD_MISSED: return j->missed == 1;
    case PR_LAB_FIELD_DEADLINE: return j->deadline;
    case PR_LAB_FIELD_ABORTS: return j->aborts;
    case PR_LAB_FIELD_LOST: return j->lost;
    default: return j->recovery;
    }
}

int pr_lab_whole_time(uint64_t ns, uint64_t units_per_second, uint64_t *out)
{
    /* Below the limit, ns * units_per_second < 2^53 cannot overflow. */
    if (ns >= EXACT / units_per_second || ns * units_per_second % NS_PER_SECOND != 0)
        return 0;
    *out = ns * units_per_second / NS_PER_SECOND;
    return 1;
}

int64_t pr_lab_job_column(const pr_lab_job_t *jobs, size_t n, int field, uint64_t units_per_second,
                          int64_t *values, uint64_t *nevers)
{
    if (field < 0 || field >= PR_LAB_FIELDS || units_per_second == 0)
        return PR_LAB_FIELD_UNKNOWN;
    if (!pr_lab_field_is_time(field)) {
        for (size_t i = 0; i < n; i++)
            values[i] = (int64_t)pr_lab_field_value(&jobs[i], field);
        return 0;
    }
    int64_t never = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t ns = pr_lab_field_value(&jobs[i], field), whole;
        if (ns == PR_LAB_NEVER) {
            values[i] = -1;
            nevers[never++] = i;
        } else if (pr_lab_whole_time(ns, units_per_second, &whole)) {
            values[i] = (int64_t)whole;
        } else {
            return PR_LAB_FIELD_NOT_WHOLE;
        }
    }
    return never;
}
