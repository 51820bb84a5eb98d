/*
 * The fields of a job as the lab's report holds them (priora.report's
 * JobRow, in its order), read from the job rows of metrics.h: what the JSON
 * writer (jobs_json.h) and the report's columns (pr_lab_job_column) share,
 * so that a job's value is taken the same way by both.
 */
#ifndef PRIORA_LAB_JOB_FIELDS_H
#define PRIORA_LAB_JOB_FIELDS_H

#include <stddef.h>
#include <stdint.h>
#include "metrics.h"

enum {
    PR_LAB_FIELD_TASK, PR_LAB_FIELD_JOB, PR_LAB_FIELD_RELEASE, PR_LAB_FIELD_START, PR_LAB_FIELD_FINISH,
    PR_LAB_FIELD_RESPONSE, PR_LAB_FIELD_TIMEOUTS, PR_LAB_FIELD_ERRORS, PR_LAB_FIELD_BLOCKED,
    PR_LAB_FIELD_INVERTED, PR_LAB_FIELD_MISSED, PR_LAB_FIELD_DEADLINE, PR_LAB_FIELD_ABORTS, PR_LAB_FIELD_LOST,
    PR_LAB_FIELD_RECOVERY, PR_LAB_FIELDS
};

#define PR_LAB_FIELD_NOT_WHOLE (-2) /* a time is not a whole number of the unit */
#define PR_LAB_FIELD_UNKNOWN (-4)   /* no such field, or units_per_second 0 */

/* 1 for a time field (ns in the rows; the report shows it in the file's unit). */
int pr_lab_field_is_time(int field);

/* A time field of j in ns (PR_LAB_NEVER when it did not happen; a response
 * is finish - release, NEVER when unfinished); any other field as a count:
 * the task id, the job number, a counter, or 1 for missed == 1 (else 0). */
uint64_t pr_lab_field_value(const pr_lab_job_t *j, int field);

/* ns in the unit (units_per_second of them a second) when the report holds
 * it as an int: a whole number of the unit, and ns below 2^53 / units per
 * second, so that the float conversion the report would otherwise do is
 * exact (priora.report's `_whole` rule). Returns 1 and sets *out, or 0. */
int pr_lab_whole_time(uint64_t ns, uint64_t units_per_second, uint64_t *out);

/*
 * One field of the n jobs into values[0..n-1], for the report's columns: a
 * time as a whole number of the unit (-1 where it did not happen), any
 * other field as pr_lab_field_value. The positions of the times that did
 * not happen go to nevers[0..] (n entries at most), in order. Returns how
 * many there are (0 for a field that is not a time), or
 * PR_LAB_FIELD_NOT_WHOLE as soon as a time is not whole by
 * pr_lab_whole_time (the report then converts the field in floats), or
 * PR_LAB_FIELD_UNKNOWN. O(n).
 */
int64_t pr_lab_job_column(const pr_lab_job_t *jobs, size_t n, int field, uint64_t units_per_second,
                          int64_t *values, uint64_t *nevers);

#endif
