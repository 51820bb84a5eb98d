/*
 * The jobs block of the lab's JSON report (priora.report.report_json), one
 * object per job, written in C from the job rows of metrics.h: the same
 * text json.dumps gives, for a run whose times are all whole numbers of the
 * file's unit (integers in the JSON; a float would need Python's repr).
 */
#ifndef PRIORA_LAB_JOBS_JSON_H
#define PRIORA_LAB_JOBS_JSON_H

#include <stddef.h>
#include <stdint.h>
#include "job_fields.h"

#define PR_LAB_JSON_BAD_TASK (-1)  /* a row's task has no name */
#define PR_LAB_JSON_NOT_WHOLE (-2) /* a time is not a whole number of the unit */
#define PR_LAB_JSON_NO_ROOM (-3)   /* size is below pr_lab_jobs_json_bound */

/*
 * The n jobs' objects, separated by `sep`: for each of the nfields fields
 * (fields[k], a PR_LAB_FIELD_ of job_fields.h), keys[k] (the text before the value:
 * `{"task": ` for the first, `, "job": ` for the next ...), then the value;
 * then `}`. A task is names[task] (a JSON string, already encoded); a time
 * is ns * units_per_second / 1e9, or null for one that did not happen
 * (PR_LAB_NEVER; a response is finish - release, null when unfinished); a
 * miss is true for missed == 1. Returns the length written to out (at most
 * size bytes), or one of the negative codes above.
 */
int64_t pr_lab_jobs_json(const pr_lab_job_t *jobs, size_t n, int nfields, const uint8_t *fields,
                         const char *const *keys, const char *const *names, int nnames,
                         uint64_t units_per_second, const char *sep, char *out, size_t size);

/* A size that pr_lab_jobs_json never needs more than for these arguments. */
uint64_t pr_lab_jobs_json_bound(size_t n, int nfields, const uint8_t *fields, const char *const *keys,
                                const char *const *names, int nnames, const char *sep);

#endif
