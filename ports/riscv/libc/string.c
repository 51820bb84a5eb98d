/*
 * Minimal string functions for the kernel, written plainly: byte loops,
 * with a word loop for the large, aligned memset/memcpy the kernel does
 * (pr_kernel_init clears its whole state). GCC also emits calls to memset
 * and memcpy by itself (structure copies and clears), so they must exist.
 *
 * Built with -fno-builtin -fno-tree-loop-distribute-patterns (Makefile):
 * otherwise GCC recognizes these loops as memset/memcpy and compiles them
 * into calls to themselves.
 */
#include <stdint.h>
#include <string.h>

#define WORD sizeof(uintptr_t)
#define ALIGNED(p) (((uintptr_t)(p) & (WORD - 1)) == 0)

void *memset(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    if (ALIGNED(d) && n >= WORD) {
        uintptr_t w = (unsigned char)c;
        w |= w << 8;
        w |= w << 16;
#if UINTPTR_MAX > 0xFFFFFFFFu
        w |= w << 32;
#endif
        for (; n >= WORD; n -= WORD, d += WORD)
            *(uintptr_t *)(void *)d = w;
    }
    while (n--)
        *d++ = (unsigned char)c;
    return dst;
}

void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (ALIGNED(d) && ALIGNED(s))
        for (; n >= WORD; n -= WORD, d += WORD, s += WORD)
            *(uintptr_t *)(void *)d = *(const uintptr_t *)(const void *)s;
    while (n--)
        *d++ = *s++;
    return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (d <= s || d >= s + n) {
        while (n--)
            *d++ = *s++;
    } else {
        while (n--)
            d[n] = s[n];
    }
    return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    for (; n > 0; n--, x++, y++)
        if (*x != *y)
            return *x - *y;
    return 0;
}

size_t strlen(const char *s)
{
    size_t n = 0;
    while (s[n] != '\0')
        n++;
    return n;
}

char *strcpy(char *restrict dst, const char *restrict src)
{
    char *d = dst;
    while ((*d++ = *src++) != '\0')
        ;
    return dst;
}

int strcmp(const char *a, const char *b)
{
    while (*a != '\0' && *a == *b) {
        a++;
        b++;
    }
    return (int)(unsigned char)*a - (int)(unsigned char)*b;
}
