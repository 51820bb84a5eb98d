/* Priority lists: see plist.h. */
#include "plist.h"

void plist_init(pr_plist_t *pl)
{
    prio_bitmap_init(&pl->bitmap);
    for (int i = 0; i < PR_CONFIG_PRIORITIES; i++)
        list_init(&pl->level[i]);
}

#ifdef PR_PORT_NO_CLZ
/* plist_byte_top[b] (prio_bitmap.h): the index of the highest set bit of b (0 for 0, which
 * plist_highest_bit never asks). */
#define T2(n) n, n
#define T4(n) T2(n), T2(n)
#define T8(n) T4(n), T4(n)
#define T16(n) T8(n), T8(n)
#define T32(n) T16(n), T16(n)
#define T64(n) T32(n), T32(n)
#define T128(n) T64(n), T64(n)
const uint8_t plist_byte_top[256] = {0, 0, T2(1), T4(2), T8(3), T16(4), T32(5), T64(6), T128(7)};
#endif
