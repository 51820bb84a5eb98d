/* The wait queue: see waitq.h. */
#include "waitq.h"

void waitq_init(pr_waitq_t *q, const pr_waitq_ops_t *ops, int fifo, uint8_t id)
{
    plist_init(&q->list);
    q->ops = ops;
    q->lender = NULL;
    q->lend = NULL;
    q->fifo = (uint8_t)(fifo != 0);
    q->id = id;
    q->kind = PR_OBJ_SEM;
}

int waitq_check(const pr_waitq_t *q)
{
    int n = 0;
    for (int level = 0; level < PR_CONFIG_PRIORITIES; level++) {
        const pr_link_t *head = &q->list.level[level];
        PR_ASSERT(prio_bitmap_test(&q->list.bitmap, level) == !list_empty(head));
        PR_ASSERT(!q->fifo || level == 0 || list_empty(head));
        for (const pr_link_t *l = head->next; l != head; l = l->next) {
            const pr_task_t *t = container_of(l, pr_task_t, qlink);
            PR_ASSERT(t->queue == q && t->queued_level == level);
            PR_ASSERT(q->fifo || t->effective == level);
            n++;
        }
    }
    return n;
}
