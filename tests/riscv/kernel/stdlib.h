/*
 * The little of <stdlib.h> that the kernel's test programs use, for running
 * them bare metal on QEMU (host_shim.c): a bump allocator over a static
 * arena. free releases nothing; the arena is large enough for every test
 * program's allocations.
 */
#ifndef PRIORA_SHIM_STDLIB_H
#define PRIORA_SHIM_STDLIB_H

#include <stddef.h>

void *malloc(size_t size);
void *realloc(void *p, size_t size);
void free(void *p);

#endif
