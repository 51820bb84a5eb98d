/*
 * The jobs block of the JSON report (jobs_json.h). json.dumps writes an int
 * as its decimal digits, a boolean as true/false and None as null, which is
 * all this writes. A time is written as an integer only when the report
 * would hold an int, by pr_lab_whole_time's rule (job_fields.h); any other
 * time stops the writing (PR_LAB_JSON_NOT_WHOLE) and the report formats the
 * jobs in Python.
 */
#include <string.h>
#include "jobs_json.h"

#define MAX_FIELDS PR_LAB_FIELDS
/* Widest values: a uint32 has up to 10 digits; a whole time is below
 * 2^53 / 1e9 (7 digits) or null (4); false has 5 letters. */
#define UINT32_WIDTH 10
#define TIME_WIDTH 7
#define BOOL_WIDTH 5

static char *put_uint(char *p, uint64_t v)
{
    char buf[20];
    size_t i = sizeof buf;
    do {
        buf[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    memcpy(p, buf + i, sizeof buf - i);
    return p + (sizeof buf - i);
}

/* The longest job object, separator included. */
static uint64_t job_bound(int nfields, const uint8_t *fields, const char *const *keys,
                          const char *const *names, int nnames, const char *sep)
{
    uint64_t bound = 1 + strlen(sep), longest_name = 0;
    for (int k = 0; k < nnames; k++)
        if (strlen(names[k]) > longest_name)
            longest_name = strlen(names[k]);
    for (int f = 0; f < nfields; f++) {
        bound += strlen(keys[f]);
        if (fields[f] == PR_LAB_FIELD_TASK)
            bound += longest_name;
        else if (fields[f] == PR_LAB_FIELD_MISSED)
            bound += BOOL_WIDTH;
        else
            bound += pr_lab_field_is_time(fields[f]) ? TIME_WIDTH : UINT32_WIDTH;
    }
    return bound;
}

uint64_t pr_lab_jobs_json_bound(size_t n, int nfields, const uint8_t *fields, const char *const *keys,
                                const char *const *names, int nnames, const char *sep)
{
    return (uint64_t)n * job_bound(nfields, fields, keys, names, nnames, sep);
}

int64_t pr_lab_jobs_json(const pr_lab_job_t *jobs, size_t n, int nfields, const uint8_t *fields,
                         const char *const *keys, const char *const *names, int nnames,
                         uint64_t units_per_second, const char *sep, char *out, size_t size)
{
    if (nfields < 0 || nfields > MAX_FIELDS || units_per_second == 0)
        return PR_LAB_JSON_NO_ROOM;
    size_t key_len[MAX_FIELDS], sep_len = strlen(sep);
    for (int f = 0; f < nfields; f++)
        key_len[f] = strlen(keys[f]);
    uint64_t longest = job_bound(nfields, fields, keys, names, nnames, sep);
    char *p = out, *end = out + size;
    for (size_t i = 0; i < n; i++) {
        const pr_lab_job_t *j = &jobs[i];
        if ((uint64_t)(end - p) < longest)
            return PR_LAB_JSON_NO_ROOM;
        if (i > 0) {
            memcpy(p, sep, sep_len);
            p += sep_len;
        }
        for (int f = 0; f < nfields; f++) {
            memcpy(p, keys[f], key_len[f]);
            p += key_len[f];
            int field = fields[f];
            if (field == PR_LAB_FIELD_TASK) {
                if (j->task < 0 || j->task >= nnames)
                    return PR_LAB_JSON_BAD_TASK;
                size_t len = strlen(names[j->task]);
                memcpy(p, names[j->task], len);
                p += len;
            } else if (field == PR_LAB_FIELD_MISSED) {
                memcpy(p, j->missed == 1 ? "true" : "false", j->missed == 1 ? 4 : 5);
                p += j->missed == 1 ? 4 : 5;
            } else if (pr_lab_field_is_time(field)) {
                uint64_t ns = pr_lab_field_value(j, field), whole;
                if (ns == PR_LAB_NEVER) {
                    memcpy(p, "null", 4);
                    p += 4;
                    continue;
                }
                if (!pr_lab_whole_time(ns, units_per_second, &whole))
                    return PR_LAB_JSON_NOT_WHOLE;
                p = put_uint(p, whole);
            } else {
                p = put_uint(p, pr_lab_field_value(j, field));
            }
        }
        *p++ = '}';
    }
    return (int64_t)(p - out);
}
