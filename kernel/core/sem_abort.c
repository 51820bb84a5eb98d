/*
 * Aborted critical sections: the mechanism's side of a policy that takes a
 * mutex over from its holder (sem_mutex.c: take_over). The holder is not
 * interrupted in what it does (it is not running: the task taking the mutex
 * is); it learns of the abort at its recovery point: its next call on that
 * mutex returns PR_EABORTED, and until then pr_sem_aborted() counts it and
 * pr_port_consume returns at once.
 *
 * A task keeps one bit per mutex whose section was aborted and whose abort
 * it has not yet been told of; the mutex counts such holders (abort_marks)
 * and cannot be freed while one is left.
 */
#include "sem_impl.h"

int sem_abort_pending(const pr_task_t *t, const pr_sem_t *m)
{
    /* aborts_pending counts the bits set: most tasks have none. */
    return t->aborts_pending != 0 && ((t->aborted_on[m->index / 32] >> (m->index % 32)) & 1u);
}

void sem_abort_mark(pr_task_t *h, pr_sem_t *m)
{
    PR_ASSERT(!sem_abort_pending(h, m));
    h->aborted_on[m->index / 32] |= 1u << (m->index % 32);
    h->aborts++;
    h->aborts_pending++;
    sem_more(m)->abort_marks++;
    sem_more(m)->aborts++;
}

int sem_abort_tell(pr_task_t *t, pr_sem_t *m)
{
    PR_ASSERT(sem_abort_pending(t, m));
    t->aborted_on[m->index / 32] &= ~(1u << (m->index % 32));
    t->aborts_pending--;
    sem_more(m)->abort_marks--;
    return PR_EABORTED;
}

void sem_abort_forget_all(pr_task_t *t)
{
    for (int w = 0; w < SEM_WORDS && t->aborts_pending > 0; w++)
        while (t->aborted_on[w] != 0)
            sem_abort_tell(t, &pr_sem_pool[w * 32 + __builtin_ctz(t->aborted_on[w])]);
}

static int sem_aborted(void) { return in_task_context() ? (int)pr_k.current->aborts_pending : 0; }

int pr_sem_aborted(void) { MASKED_CALL(sem_aborted()); }
