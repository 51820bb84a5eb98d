/*
 * The little of <stdio.h> that the kernel's test programs and their harness
 * use, for running them bare metal on QEMU (host_shim.c). stdout goes to
 * the UART; stderr is discarded: there, the checks are not verdicts (see
 * tests/kernel/harness.h, trace mode), and printing between two runs would
 * only cost time. Conversions: %%, %c, %s, %d, %i, %u, %x with an optional
 * 0 flag, width, and l, ll or z length.
 */
#ifndef PRIORA_SHIM_STDIO_H
#define PRIORA_SHIM_STDIO_H

#include <stdarg.h>
#include <stddef.h>

typedef struct shim_file FILE;
extern FILE *const stdout;
extern FILE *const stderr;

int printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int fprintf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int vfprintf(FILE *f, const char *fmt, va_list ap);
int puts(const char *s);

#endif
