/*
 * The set of non-empty priority levels, for the ready queue, every
 * priority-ordered wait list (plist.h), a task's lenders (priority.h) and
 * pcp's held mutexes: set, clear (any level, or a member: remove), test,
 * and the highest member, each O(1).
 *
 * Its form is chosen at build time by PR_CONFIG_PRIORITIES:
 *  - up to 32 levels, one 32-bit word, bit p for level p: the highest
 *    member is one count of leading zeros (or a table look-up);
 *  - 33 to 256 levels (config.h's limit: a priority fits a trace record's
 *    byte), two levels of words: word[g] holds levels 32g .. 32g+31 and
 *    bit g of `groups` is set while word[g] is not zero.
 *    The highest member is two look-ups, the highest group then the highest
 *    bit of its word; setting a level writes two words, clearing one writes
 *    its word and, when that word empties, the group bit.
 * The one-word form is the default, and what the RISC-V images use: the
 * code the kernel compiles for it is the code it had before the two-level
 * form existed.
 */
#ifndef PRIORA_PRIO_BITMAP_H
#define PRIORA_PRIO_BITMAP_H

#include <stdint.h>
#include "priora/config.h"
#include "priora/port.h" /* PR_PORT_HIGHEST_BIT, PR_PORT_NO_CLZ */

/* Index of the highest set bit of a non-zero word. Ports with a faster
 * instruction can define PR_PORT_HIGHEST_BIT. A CPU without a count of
 * leading zeros (RISC-V without Zbb: GCC calls libgcc's __clzsi2, or a loop
 * on RV64) is better served by a table of each byte's highest bit: a port
 * defines PR_PORT_NO_CLZ for it (plist.c holds the table). */
#if defined(PR_PORT_HIGHEST_BIT)
#define plist_highest_bit(x) PR_PORT_HIGHEST_BIT(x)
#elif defined(PR_PORT_NO_CLZ)
extern const uint8_t plist_byte_top[256];
static inline int plist_highest_bit(uint32_t x)
{
    if (x < 0x100u) /* levels 0..7, where most task sets live: one load */
        return plist_byte_top[x];
    int shift = x >= 0x10000u ? (x >= 0x1000000u ? 24 : 16) : 8;
    return shift + plist_byte_top[x >> shift];
}
#else
static inline int plist_highest_bit(uint32_t x) { return 31 - __builtin_clz(x); }
#endif

#if PR_CONFIG_PRIORITIES <= 32
#define PR_PRIO_TWO_LEVEL 0

typedef uint32_t pr_prio_bitmap_t;

/* Macros, not functions: each expands to one expression on the word, the
 * code the kernel had before the two-level form existed, so that the form
 * costs the default build (and the RISC-V figures of docs/performance.md)
 * nothing. */
#define prio_bitmap_init(b) ((void)(*(b) = 0))
#define prio_bitmap_empty(b) (*(b) == 0)
#define prio_bitmap_test(b, p) ((int)((*(b) >> (p)) & 1u))
#define prio_bitmap_set(b, p) ((void)(*(b) |= 1u << (p)))
#define prio_bitmap_clear(b, p) ((void)(*(b) &= ~(1u << (p))))
/* Clears p, a member (a level that empties): one exclusive or, where
 * clearing any p takes the complement too. */
#define prio_bitmap_remove(b, p) ((void)(*(b) ^= 1u << (p)))
/* The highest member; the set must not be empty. */
#define prio_bitmap_highest(b) plist_highest_bit(*(b))
/* The highest member below p, or -1. */
static inline int prio_bitmap_highest_below(const pr_prio_bitmap_t *b, int p)
{
    uint32_t below = *b & ((1u << p) - 1u);
    return below != 0 ? plist_highest_bit(below) : -1;
}
/* 1: the form's own bookkeeping holds (nothing to hold in one word). */
static inline int prio_bitmap_consistent(const pr_prio_bitmap_t *b) { return (void)b, 1; }

#else
#define PR_PRIO_TWO_LEVEL 1
#define PR_PRIO_GROUPS ((PR_CONFIG_PRIORITIES + 31) / 32)

typedef struct pr_prio_bitmap {
    uint32_t groups;                /* bit g set while word[g] is not zero */
    uint32_t word[PR_PRIO_GROUPS];  /* bit p & 31 of word[p >> 5]: level p */
} pr_prio_bitmap_t;

static inline void prio_bitmap_init(pr_prio_bitmap_t *b)
{
    b->groups = 0;
    for (int g = 0; g < PR_PRIO_GROUPS; g++)
        b->word[g] = 0;
}
static inline int prio_bitmap_empty(const pr_prio_bitmap_t *b) { return b->groups == 0; }
static inline int prio_bitmap_test(const pr_prio_bitmap_t *b, int p)
{
    return (int)((b->word[p >> 5] >> (p & 31)) & 1u);
}
static inline void prio_bitmap_set(pr_prio_bitmap_t *b, int p)
{
    b->word[p >> 5] |= 1u << (p & 31);
    b->groups |= 1u << (p >> 5);
}
static inline void prio_bitmap_clear(pr_prio_bitmap_t *b, int p)
{
    uint32_t w = b->word[p >> 5] & ~(1u << (p & 31));
    b->word[p >> 5] = w;
    if (w == 0)
        b->groups &= ~(1u << (p >> 5));
}
static inline void prio_bitmap_remove(pr_prio_bitmap_t *b, int p) { prio_bitmap_clear(b, p); }
static inline int prio_bitmap_highest(const pr_prio_bitmap_t *b)
{
    int g = plist_highest_bit(b->groups);
    return g * 32 + plist_highest_bit(b->word[g]);
}
static inline int prio_bitmap_highest_below(const pr_prio_bitmap_t *b, int p)
{
    int g = p >> 5;
    uint32_t w = b->word[g] & ((1u << (p & 31)) - 1u); /* its own group, below it */
    if (w != 0)
        return g * 32 + plist_highest_bit(w);
    uint32_t groups = b->groups & ((1u << g) - 1u);    /* else the highest group below */
    if (groups == 0)
        return -1;
    g = plist_highest_bit(groups);
    return g * 32 + plist_highest_bit(b->word[g]);
}
/* 1: bit g of groups is set exactly while word[g] is not zero. */
static inline int prio_bitmap_consistent(const pr_prio_bitmap_t *b)
{
    for (int g = 0; g < PR_PRIO_GROUPS; g++)
        if (((b->groups >> g) & 1u) != (b->word[g] != 0))
            return 0;
    return (b->groups >> PR_PRIO_GROUPS) == 0; /* no group beyond the last (PR_PRIO_GROUPS <= 8) */
}
#endif

#endif /* PRIORA_PRIO_BITMAP_H */
