/*
 * Intrusive doubly-linked circular lists. A list head is a link whose next
 * and prev point to itself when empty. Every operation is O(1).
 */
#ifndef PRIORA_LIST_H
#define PRIORA_LIST_H

#include <stddef.h>

typedef struct pr_link {
    struct pr_link *next;
    struct pr_link *prev;
} pr_link_t;

static inline void list_init(pr_link_t *head) { head->next = head->prev = head; }

static inline int list_empty(const pr_link_t *head) { return head->next == head; }

/* A link that is in no list points to itself (so removal is idempotent). */
static inline int link_linked(const pr_link_t *link) { return link->next != link; }

static inline void list_insert_after(pr_link_t *pos, pr_link_t *link)
{
    link->prev = pos;
    link->next = pos->next;
    pos->next->prev = link;
    pos->next = link;
}

static inline void list_push_back(pr_link_t *head, pr_link_t *link) { list_insert_after(head->prev, link); }
static inline void list_push_front(pr_link_t *head, pr_link_t *link) { list_insert_after(head, link); }

static inline void list_remove(pr_link_t *link)
{
    link->prev->next = link->next;
    link->next->prev = link->prev;
    link->next = link->prev = link;
}

/* list_remove, leaving the link's own pointers as they were: for a link
 * whose membership is kept elsewhere (a task's qlink: pr_task.queue), which
 * the next insertion overwrites. Two stores fewer. */
static inline void list_unlink(pr_link_t *link)
{
    link->prev->next = link->next;
    link->next->prev = link->prev;
}

/* Moves `link`, which is in the list `head`, to its tail (nothing to do if
 * it is there already). */
static inline void list_move_to_tail(pr_link_t *head, pr_link_t *link)
{
    if (link->next == head)
        return;
    link->prev->next = link->next;
    link->next->prev = link->prev;
    list_insert_after(head->prev, link);
}

/* The structure that contains `link` as its member `field`. */
#define container_of(ptr, type, field) ((type *)(void *)((char *)(ptr) - offsetof(type, field)))

#endif /* PRIORA_LIST_H */
