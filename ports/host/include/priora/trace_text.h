/*
 * A trace record as one line of text (docs/trace-format.md, "The text line").
 * One formatter for every reader: the host port's pr_host_trace_line (names
 * from the live kernel), the lab's `priora trace` and the QEMU decoder (names
 * from a dump's N lines, through the lab's binding).
 */
#ifndef PRIORA_TRACE_TEXT_H
#define PRIORA_TRACE_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include "priora/trace.h"

/* The kinds of object a line names. */
typedef enum pr_trace_name_kind {
    PR_NAME_TASK = 0,   /* default name T<id> */
    PR_NAME_SEM = 1,    /* S<id> */
    PR_NAME_COND = 2,   /* C<id> */
    PR_NAME_EVENTS = 3, /* E<id> */
    PR_NAME_MSGQ = 4,   /* Q<id> */
    PR_NAME_TIMER = 5,  /* TM<id> */
    PR_NAME_KINDS = 6
} pr_trace_name_kind_t;

/* The name of object `id` (never PR_TRACE_NONE) of `kind`, written into buf
 * or returned as a string that lives as long as the call; NULL or "" when it
 * has none (the line then says T<id>, S<id>, ...). */
typedef const char *(*pr_trace_namer_t)(void *ctx, int kind, unsigned id, char *buf, size_t size);

/* Record r as a line, its time in ticks at tick_hz (> 0), names from namer
 * (NULL: none). Returns buf; the line is cut to size - 1 characters. */
char *pr_trace_format(const pr_trace_record_t *r, uint32_t tick_hz, pr_trace_namer_t namer, void *ctx,
                      char *buf, size_t size);

/* The same with the names in a flat table: names[kind * per_kind + id], a
 * NULL entry (or an id >= per_kind) having none. For bindings that have no
 * callbacks to give (the lab's cffi). */
char *pr_trace_format_table(const pr_trace_record_t *r, uint32_t tick_hz, const char *const *names,
                            unsigned per_kind, char *buf, size_t size);

#endif
