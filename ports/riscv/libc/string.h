/*
 * The few <string.h> functions the kernel and the test programs use. There is no C library on
 * this bare-metal target (the toolchain ships none); libc/string.c has the
 * definitions.
 */
#ifndef PRIORA_RISCV_STRING_H
#define PRIORA_RISCV_STRING_H

#include <stddef.h>

void *memset(void *dst, int c, size_t n);
void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
char *strcpy(char *restrict dst, const char *restrict src);
int strcmp(const char *a, const char *b);

#endif
