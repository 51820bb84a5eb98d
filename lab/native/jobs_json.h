/*
 * The jobs block of the lab's JSON report (priora.report.report_json), one
 * object per job, written in C: the same text json.dumps gives for a job
 * whose values are all integers, booleans, null and its task's name.
 */
#ifndef PRIORA_LAB_JOBS_JSON_H
#define PRIORA_LAB_JOBS_JSON_H

#include <stddef.h>
#include <stdint.h>

/* How a column's values are written. */
enum {
    PR_LAB_JSON_UINT = 0,      /* a decimal integer */
    PR_LAB_JSON_UINT_NULL = 1, /* a decimal integer, null for UINT64_MAX */
    PR_LAB_JSON_BOOL = 2,      /* false for 0, true otherwise */
    PR_LAB_JSON_NAME = 3,      /* names[value]: a JSON string, already encoded */
};

/*
 * n jobs, ncols columns: values[c][j] is column c's value for job j, written
 * as kinds[c] says, after keys[c] (the text before the value: `{"task": `
 * for the first, `, "job": ` for the next ...). Each object ends with `}`;
 * objects are separated by `sep`. names[k] (nnames of them) are the encoded
 * task names. Writes at most `size` bytes to out; returns the length of the
 * whole text, which is larger than `size` if it did not fit (nothing is
 * written then), or -1 for a name index out of range.
 */
int64_t pr_lab_jobs_json(size_t n, int ncols, const uint64_t *const *values, const uint8_t *kinds,
                         const char *const *keys, const char *const *names, int nnames, const char *sep,
                         char *out, size_t size);

#endif
