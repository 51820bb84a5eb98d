/*
 * Priority list: one FIFO list per priority level and a bitmap with bit p set
 * while level p is not empty [Pessolani]. The most urgent entry is
 * the head of the level of the highest set bit, found in O(1) whatever the
 * number of entries. The ready queue and every priority-ordered wait list are
 * plists; a FIFO wait list is a plist that uses level 0 only.
 *
 * Entries are pr_link_t members of the task descriptor; the caller remembers
 * the level an entry was inserted at (pr_task.queued_level), because the
 * task's priority may have changed since.
 */
#ifndef PRIORA_PLIST_H
#define PRIORA_PLIST_H

#include <stdint.h>
#include "list.h"
#include "priora/config.h"
#include "priora/port.h" /* PR_PORT_HIGHEST_BIT, PR_PORT_NO_CLZ */

typedef struct pr_plist {
    uint32_t bitmap;
    pr_link_t level[PR_CONFIG_PRIORITIES];
} pr_plist_t;

void plist_init(pr_plist_t *pl);

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

static inline int plist_empty(const pr_plist_t *pl) { return pl->bitmap == 0; }

/* The highest non-empty level; the list must not be empty. */
static inline int plist_top_level(const pr_plist_t *pl) { return plist_highest_bit(pl->bitmap); }

/* The first entry of the highest non-empty level, or NULL. */
static inline pr_link_t *plist_first(const pr_plist_t *pl)
{
    return pl->bitmap ? pl->level[plist_top_level(pl)].next : NULL;
}

static inline void plist_push_back(pr_plist_t *pl, int level, pr_link_t *link)
{
    list_push_back(&pl->level[level], link);
    pl->bitmap |= 1u << level;
}

static inline void plist_push_front(pr_plist_t *pl, int level, pr_link_t *link)
{
    list_push_front(&pl->level[level], link);
    pl->bitmap |= 1u << level;
}

/* Removes an entry inserted at `level`; clears that level's bit if it became
 * empty (the bit of the level the entry was in, not of its new priority).
 * The entry's link is left stale: the caller keeps its membership (a task's
 * queue pointer). */
static inline void plist_remove(pr_plist_t *pl, int level, pr_link_t *link)
{
    pr_link_t *next = link->next, *prev = link->prev;
    list_unlink(link);
    if (next == prev) /* both are the level's head: it was the only entry */
        pl->bitmap &= ~(1u << level);
}

#endif /* PRIORA_PLIST_H */
