/*
 * Message queues (private to msgq.c and msgq_status.c): the descriptor, the
 * pool, and what both files read of them.
 */
#ifndef PRIORA_MSGQ_POOL_H
#define PRIORA_MSGQ_POOL_H

#include "msgq_impl.h"

/* One place of a queue's buffer (PR_MSGQ_PLACE_BYTES in msgq.h is its size). */
typedef struct msg_place {
    pr_link_t link;             /* in the queue's messages, or its free places */
    int prio;
    unsigned char data[];
} msg_place_t;

_Static_assert(offsetof(msg_place_t, data) == 2 * sizeof(void *) + sizeof(int),
               "PR_MSGQ_PLACE_BYTES (msgq.h) must describe msg_place_t");

typedef struct pr_msgq {
    pr_link_t pool_link;        /* in the free list */
    pr_id_t index;
    int allocated;
    unsigned flags;
    size_t msg_size, place_bytes;
    size_t words;               /* msg_size / 4 if a multiple of 4, else 0 (copies_by_words) */
    size_t fast_words;          /* words while allocated and not inheriting, else 0: the fast paths' one test */
    int fifo;                   /* PR_MSGQ_FIFO_MESSAGES: the places are a ring */
    int head;                   /* fifo: the first message's place */
    unsigned char *places;      /* the buffer: place i at places + i * place_bytes */
    int length;
    int messages, most_messages;
    uint32_t receives, send_waits, receive_waits; /* the sends: msgq_sends */
    int senders, receivers;     /* tasks in each wait queue */
    pr_plist_t queued;          /* by priority: the messages */
    pr_link_t free_places;      /* by priority: the free places */
    pr_lender_t lender;         /* PR_MSGQ_INHERIT: its server, and what it is lent */
    pr_prio_t served;           /* PR_MSGQ_INHERIT: the priority of the server's last message, or PRIO_NONE */
    char name[PR_CONFIG_NAME_LEN];
    pr_waitq_t senders_q;       /* waiting for room */
    pr_waitq_t receivers_q;     /* waiting for a message */
} pr_msgq_t;


extern pr_msgq_t pr_msgq_pool[PR_CONFIG_MAX_MSGQS];

static inline int msgq_lookup(pr_id_t id, pr_msgq_t **out)
{
    if (id < 0 || id >= PR_CONFIG_MAX_MSGQS)
        return PR_EBADID;
    if (!pr_msgq_pool[id].allocated)
        return PR_ENOTALLOC;
    *out = &pr_msgq_pool[id];
    return PR_OK;
}

static inline int inherits(const pr_msgq_t *q) { return (q->flags & PR_MSGQ_INHERIT) != 0; }

/* The messages sent to q since its allocation (mod 2^32): every message
 * sent is received or still waiting, so the count is derived rather than
 * kept, and a send does not pay for it. */
static inline uint32_t msgq_sends(const pr_msgq_t *q) { return q->receives + (uint32_t)q->messages; }

/* What the server of an inheriting queue is lent now: the senders' wait
 * queue's lend (waitq.h). */
pr_prio_t msgq_lend(const pr_waitq_t *wq);

#endif /* PRIORA_MSGQ_POOL_H */
