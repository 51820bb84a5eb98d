/* The constants the lab's Python binding mirrors, for it to check at load. */
#ifndef PRIORA_LAB_CONSTANTS_H
#define PRIORA_LAB_CONSTANTS_H

#include <stddef.h>

typedef struct pr_lab_constant {
    const char *table; /* "event", "cause", "object", "error", "protocol", "action" or "value" */
    const char *name;  /* the name the lab uses for it */
    long value;
} pr_lab_constant_t;

/* Every constant, in a fixed order; *count rows. */
const pr_lab_constant_t *pr_lab_constants(size_t *count);

#endif
