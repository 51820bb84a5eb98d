/*
 * Message queues: fixed-size messages copied in and out of a queue of
 * bounded length ([Pessolani]'s real-time IPC; [Tokuda-Nakajima 1993]'s
 * priority-based ports; the queues of FreeRTOS, Zephyr and RTEMS).
 *
 * Messages leave in priority order (most urgent first, FIFO among equals)
 * or in FIFO order, as chosen at allocation. A sender finding the queue
 * full and a receiver finding it empty wait, in priority or in FIFO order,
 * with the usual timeouts. A send that finds a receiver waiting hands the
 * message to it directly, and a receive that frees a place while a sender
 * waits takes that sender's message in at once: nobody can take the place
 * or the message in between.
 *
 * Inheritance through the queue (PR_MSGQ_INHERIT, the per-port attribute of
 * [Tokuda-Nakajima 1993]; QNX's client-driven priority): the task that last
 * received from the queue is its server. It runs at least at the priority
 * of the message it received until it next calls pr_msgq_receive on that
 * queue (or another task receives from it, or it is deleted), and at least
 * at the priority of every sender waiting for room in the queue for as
 * long as they wait. These lends are counted with the mutexes' (one
 * effective priority: the maximum of the base and of everything lent), and
 * travel along chains: a server waiting for a mutex lends on to its holder.
 * A send that would make a chain of waits return to the sender is refused
 * (PR_EDEADLK). docs/semantics.md gives the worked schedules.
 */
#ifndef PRIORA_MSGQ_H
#define PRIORA_MSGQ_H

#include "priora/types.h"

/* pr_msgq_attr_t.flags, or-ed. */
#define PR_MSGQ_FIFO_MESSAGES 1u /* messages leave in the order sent (default: by priority) */
#define PR_MSGQ_FIFO_WAITERS 2u  /* senders and receivers wait in FIFO order (default: by priority) */
#define PR_MSGQ_INHERIT 4u       /* priority inheritance through the queue (above) */

/* pr_msgq_send's priority: the sender's effective priority (0 from an
 * interrupt or outside any task). */
#define PR_MSG_PRIO_SENDER (-1)

/* Bytes of buffer a queue of `length` messages of `size` bytes needs: each
 * place holds a message and its link and priority. */
#define PR_MSGQ_PLACE_BYTES(size) (((size) + 2 * sizeof(void *) + sizeof(int) + sizeof(void *) - 1) / sizeof(void *) * sizeof(void *))
#define PR_MSGQ_BUFFER_BYTES(size, length) ((size_t)(length) * PR_MSGQ_PLACE_BYTES(size))

typedef struct pr_msgq_attr {
    const char *name;   /* up to PR_CONFIG_NAME_LEN-1 characters; NULL = "" */
    size_t msg_size;    /* bytes per message, 1 .. PR_CONFIG_MSG_MAX_SIZE */
    int length;         /* messages it holds, >= 1 */
    unsigned flags;     /* PR_MSGQ_* */
    void *buffer;       /* the queue's storage, aligned for a pointer, at least
                           PR_MSGQ_BUFFER_BYTES(msg_size, length) bytes; the
                           kernel owns it until pr_msgq_free */
    size_t buffer_bytes;
} pr_msgq_attr_t;

/* Fills *attr with defaults: no name, no size, length 0, priority order
 * everywhere, no inheritance, no buffer. */
void pr_msgq_attr_init(pr_msgq_attr_t *attr);

/* Allocates a queue; its id goes to *id. Errors: PR_EINVAL (attr or id
 * NULL, size 0 or above PR_CONFIG_MSG_MAX_SIZE, length < 1, unknown flags,
 * PR_MSGQ_INHERIT with PR_MSGQ_FIFO_WAITERS, no buffer, a buffer too small
 * or misaligned, name too long), PR_ENOSPC
 * (pool exhausted). Any context. */
int pr_msgq_alloc(const pr_msgq_attr_t *attr, pr_id_t *id);

/* Returns it to the pool. Errors: PR_EBADID, PR_ENOTALLOC, PR_EBUSY (tasks
 * wait on it: nothing changes). Messages still in it are dropped. Any
 * context. */
int pr_msgq_free(pr_id_t id);

/* Copies msg_size bytes from `msg` into the queue with the given priority
 * (0 .. PR_PRIO_MAX, or PR_MSG_PRIO_SENDER), waiting for room as long as
 * the timeout allows (PR_NO_WAIT, PR_FOREVER, or n ticks: at tick k + n).
 * Errors, nothing changed: PR_EBADID, PR_ENOTALLOC, PR_EINVAL (msg NULL,
 * priority out of range), PR_EAGAIN (full and PR_NO_WAIT), PR_ECONTEXT (it
 * would wait and the caller is not a task), PR_EDEADLK (inheriting queue:
 * its server waits, through a chain, for the caller). After a wait:
 * PR_ETIMEDOUT. Interrupts send with PR_NO_WAIT. */
int pr_msgq_send(pr_id_t id, const void *msg, int priority, pr_timeout_t timeout);

/* Copies the first message (the most urgent, or the oldest) into `msg`,
 * msg_size bytes, and its priority into *priority (if not NULL), waiting
 * for one as long as the timeout allows. Errors, nothing changed:
 * PR_EBADID, PR_ENOTALLOC, PR_EINVAL (msg NULL), PR_EAGAIN (empty and
 * PR_NO_WAIT), PR_ECONTEXT (it would wait and the caller is not a task).
 * After a wait: PR_ETIMEDOUT. Interrupts receive with PR_NO_WAIT. */
int pr_msgq_receive(pr_id_t id, void *msg, int *priority, pr_timeout_t timeout);

typedef struct pr_msgq_status {
    pr_id_t index;                 /* the queue's id */
    char name[PR_CONFIG_NAME_LEN];
    size_t msg_size;
    int length;
    unsigned flags;
    int messages;                  /* messages waiting in it now */
    int most_messages;             /* the most ever waiting at once */
    uint32_t sends, receives;      /* messages sent and received (mod 2^32) */
    uint32_t send_waits, receive_waits; /* calls that waited (mod 2^32) */
    int senders_waiting;           /* tasks waiting for room now */
    int receivers_waiting;         /* tasks waiting for a message now */
    pr_id_t server;                /* inheriting queue: its server, or PR_NO_TASK */
} pr_msgq_status_t;

/* Errors: PR_EBADID, PR_ENOTALLOC, PR_EINVAL (NULL). Any context. */
int pr_msgq_status(pr_id_t id, pr_msgq_status_t *status);

#endif /* PRIORA_MSGQ_H */
