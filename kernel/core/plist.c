/* Priority lists: see plist.h. */
#include "plist.h"

void plist_init(pr_plist_t *pl)
{
    pl->bitmap = 0;
    for (int i = 0; i < PR_CONFIG_PRIORITIES; i++)
        list_init(&pl->level[i]);
}
