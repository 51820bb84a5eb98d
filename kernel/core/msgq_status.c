/*
 * Message queues: what the kernel reports of them (pr_msgq_status, the
 * lenders for pr_kernel_check) and their invariants. The queue operations
 * are in msgq.c.
 */
#include <string.h>
#include "msgq_pool.h"

static int msgq_status(pr_id_t id, pr_msgq_status_t *st)
{
    pr_msgq_t *q;
    int err = msgq_lookup(id, &q);
    if (err != PR_OK)
        return err;
    if (st == NULL)
        return PR_EINVAL;
    st->index = q->index;
    memcpy(st->name, q->name, PR_CONFIG_NAME_LEN);
    st->msg_size = q->msg_size;
    st->length = q->length;
    st->flags = q->flags;
    st->messages = q->messages;
    st->most_messages = q->most_messages;
    st->sends = msgq_sends(q);
    st->receives = q->receives;
    st->send_waits = q->send_waits;
    st->receive_waits = q->receive_waits;
    st->senders_waiting = q->senders;
    st->receivers_waiting = q->receivers;
    st->server = q->lender.holder != NULL ? q->lender.holder->id : PR_NO_TASK;
    return PR_OK;
}

void msgq_lenders(void (*fn)(const pr_lender_t *l, void *arg), void *arg)
{
    for (int i = 0; i < PR_CONFIG_MAX_MSGQS; i++)
        if (pr_msgq_pool[i].allocated && inherits(&pr_msgq_pool[i]))
            fn(&pr_msgq_pool[i].lender, arg);
}

#if PR_CONFIG_ASSERT
/* Every queue's invariants (pr_kernel_check). */
void msgq_check(void)
{
    for (int i = 0; i < PR_CONFIG_MAX_MSGQS; i++) {
        const pr_msgq_t *q = &pr_msgq_pool[i];
        if (!q->allocated) {
            PR_ASSERT(q->lender.holder == NULL && waitq_empty(&q->senders_q) && waitq_empty(&q->receivers_q));
            continue;
        }
        int queued = q->fifo ? q->messages : 0, free = q->fifo ? q->length - q->messages : 0;
        PR_ASSERT(!q->fifo || (q->head >= 0 && q->head < q->length && plist_empty(&q->queued)));
        for (int level = 0; level < PR_CONFIG_PRIORITIES; level++)
            for (const pr_link_t *l = q->queued.level[level].next; l != &q->queued.level[level]; l = l->next)
                queued++;
        for (const pr_link_t *l = q->free_places.next; l != &q->free_places; l = l->next)
            free++;
        PR_ASSERT(queued == q->messages && queued + free == q->length && q->most_messages >= q->messages);
        PR_ASSERT(waitq_check(&q->senders_q) == q->senders && waitq_check(&q->receivers_q) == q->receivers);
        PR_ASSERT(q->senders == 0 || q->messages == q->length); /* senders wait only for a full queue */
        PR_ASSERT(q->receivers == 0 || q->messages == 0);       /* receivers only for an empty one */
        PR_ASSERT(inherits(q) || (q->lender.holder == NULL && q->served == PRIO_NONE));
        PR_ASSERT(q->lender.holder != NULL || q->served == PRIO_NONE);
        if (q->lender.holder != NULL)
            PR_ASSERT(q->lender.lent == msgq_lend(&q->senders_q));
    }
}
#endif

int pr_msgq_status(pr_id_t id, pr_msgq_status_t *status) { MASKED_CALL(msgq_status(id, status)); }
