/*
 * Priority list: one FIFO list per priority level and a bitmap with bit p set
 * while level p is not empty [Pessolani] (prio_bitmap.h: one word, or two
 * levels of words beyond 32 levels). The most urgent entry is
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
#include "check.h"
#include "list.h"
#include "prio_bitmap.h"

typedef struct pr_plist {
    pr_prio_bitmap_t bitmap;
    pr_link_t level[PR_CONFIG_PRIORITIES];
} pr_plist_t;

void plist_init(pr_plist_t *pl);

static inline int plist_empty(const pr_plist_t *pl) { return prio_bitmap_empty(&pl->bitmap); }

/* The highest non-empty level; the list must not be empty. */
static inline int plist_top_level(const pr_plist_t *pl) { return prio_bitmap_highest(&pl->bitmap); }

/* The first entry of the highest non-empty level, or NULL. */
static inline pr_link_t *plist_first(const pr_plist_t *pl)
{
    return !plist_empty(pl) ? pl->level[plist_top_level(pl)].next : NULL;
}

static inline void plist_push_back(pr_plist_t *pl, int level, pr_link_t *link)
{
    list_push_back(&pl->level[level], link);
    prio_bitmap_set(&pl->bitmap, level);
}

static inline void plist_push_front(pr_plist_t *pl, int level, pr_link_t *link)
{
    list_push_front(&pl->level[level], link);
    prio_bitmap_set(&pl->bitmap, level);
}

/* Removes the only entry of the list, which its caller knows it is (a count
 * of its own): the entry's links point to its level's head, which is reset,
 * and the bitmap emptied, with no unlink and no search for the bit. The
 * entry's link is left stale, as by plist_remove. */
static inline void plist_remove_only(pr_plist_t *pl, pr_link_t *link)
{
    PR_ASSERT(link->next == link->prev && link->next->next == link);
    list_init(link->next);
    prio_bitmap_init(&pl->bitmap);
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
        prio_bitmap_remove(&pl->bitmap, level);
}

#endif /* PRIORA_PLIST_H */
