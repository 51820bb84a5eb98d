/*
 * The jobs block of the JSON report (jobs_json.h). Two passes: the first
 * measures the text (so the caller allocates it once, exactly), the second
 * writes it. Python's json.dumps writes an int as its decimal digits, a
 * boolean as true/false and None as null, which is all this writes.
 */
#include <string.h>
#include "jobs_json.h"

#define NULL_VALUE UINT64_MAX

static size_t digits(uint64_t v)
{
    size_t d = 1;
    while (v >= 10) {
        v /= 10;
        d++;
    }
    return d;
}

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

/* The length of one value; -1 for a name out of range. */
static int64_t value_length(uint8_t kind, uint64_t v, const size_t *name_len, int nnames)
{
    switch (kind) {
    case PR_LAB_JSON_UINT_NULL:
        if (v == NULL_VALUE)
            return 4;
        return (int64_t)digits(v);
    case PR_LAB_JSON_BOOL:
        return v ? 4 : 5;
    case PR_LAB_JSON_NAME:
        return v < (uint64_t)nnames ? (int64_t)name_len[v] : -1;
    default:
        return (int64_t)digits(v);
    }
}

static char *put_value(char *p, uint8_t kind, uint64_t v, const char *const *names, const size_t *name_len)
{
    switch (kind) {
    case PR_LAB_JSON_UINT_NULL:
        if (v == NULL_VALUE) {
            memcpy(p, "null", 4);
            return p + 4;
        }
        return put_uint(p, v);
    case PR_LAB_JSON_BOOL:
        memcpy(p, v ? "true" : "false", v ? 4 : 5);
        return p + (v ? 4 : 5);
    case PR_LAB_JSON_NAME:
        memcpy(p, names[v], name_len[v]);
        return p + name_len[v];
    default:
        return put_uint(p, v);
    }
}

#define MAX_COLUMNS 32
#define MAX_NAMES 256

int64_t pr_lab_jobs_json(size_t n, int ncols, const uint64_t *const *values, const uint8_t *kinds,
                         const char *const *keys, const char *const *names, int nnames, const char *sep,
                         char *out, size_t size)
{
    size_t key_len[MAX_COLUMNS], name_len[MAX_NAMES];
    if (ncols < 0 || ncols > MAX_COLUMNS || nnames < 0 || nnames > MAX_NAMES)
        return -1;
    size_t fixed = 1; /* the closing brace */
    for (int c = 0; c < ncols; c++) {
        key_len[c] = strlen(keys[c]);
        fixed += key_len[c];
    }
    for (int k = 0; k < nnames; k++)
        name_len[k] = strlen(names[k]);
    size_t sep_len = strlen(sep);

    uint64_t total = n == 0 ? 0 : (uint64_t)(n - 1) * sep_len + (uint64_t)n * fixed;
    for (int c = 0; c < ncols; c++)
        for (size_t j = 0; j < n; j++) {
            int64_t len = value_length(kinds[c], values[c][j], name_len, nnames);
            if (len < 0)
                return -1;
            total += (uint64_t)len;
        }
    if (total > size)
        return (int64_t)total;

    char *p = out;
    for (size_t j = 0; j < n; j++) {
        if (j > 0) {
            memcpy(p, sep, sep_len);
            p += sep_len;
        }
        for (int c = 0; c < ncols; c++) {
            memcpy(p, keys[c], key_len[c]);
            p += key_len[c];
            p = put_value(p, kinds[c], values[c][j], names, name_len);
        }
        *p++ = '}';
    }
    return (int64_t)(p - out);
}
