/*
 * The scheduler (private; sched.c has the placement rules). "Make ready"
 * means one thing everywhere: the task's state becomes PR_TASK_READY and,
 * unless it is suspended, it joins the tail of its level.
 */
#ifndef PRIORA_SCHED_H
#define PRIORA_SCHED_H

#include "kernel_impl.h"

void sched_make_ready(pr_task_t *t);
void sched_make_unready(pr_task_t *t, pr_task_state_t state); /* leaves the ready queue if there */

/* sched_make_ready inline, for the semaphore calls, whose blocks and
 * wakeups are the hot ones; everybody else calls the function, to keep the
 * code small. The task is in no queue (it has just left a wait queue, or
 * was waiting in none). Both branches store t->queue, before anything that
 * may alias it (ready_insert): so the compiler drops the store of NULL the
 * caller's waitq_remove has just made. */
static inline void ready_add(pr_task_t *t)
{
    PR_ASSERT(t->queue == NULL);
    t->state = PR_TASK_READY;
    t->slice_left = pr_k.quantum;
    if (!t->suspended)
        ready_insert(&pr_k.ready, t, t->effective, 0);
    else
        t->queue = NULL; /* as it is: see above */
}

/* A ready task whose effective priority changed moves to its new level: to
 * the tail, or to the head if it runs (sched.c's placement rules); the top
 * is found again lazily (ready.h). */
static inline void sched_requeue(pr_task_t *t)
{
    PR_ASSERT(t->queue == &pr_k.ready);
    ready_move(&pr_k.ready, t, t == pr_k.current);
}

void sched_rotate(pr_task_t *t);               /* to the tail of its level */
void sched_yield_now(void);                    /* the current task: rotate, reschedule */
void sched_reschedule(void);                   /* switch now if allowed, else defer */
void switch_to_most_urgent(void);              /* switch now (the caller may) */
void sched_isr_leave(void);                    /* an interrupt ends; the outermost: switch if needed */
void sched_reset(void);
void sched_tick(void);                         /* round-robin quantum */
void sched_fold(uint32_t tick);                /* CPU time so far, before stamps wrap */

/* The end of a call that made a task ready: sched_reschedule, the caller's
 * interrupt state back, PR_OK. A fast path that ends with it keeps nothing
 * across the switch and needs no stack frame of its own (the call in task
 * context is a tail call); in an interrupt (the switch waits for its end)
 * this returns at once. */
int sched_reschedule_restore(pr_irq_state_t irq);
static inline int sched_reschedule_return(pr_irq_state_t irq)
{
    if (pr_k.defers == 0)
        return sched_reschedule_restore(irq);
    pr_port_irq_restore(irq);
    return PR_OK;
}

/* A preemption lock on t: while it holds one or more and runs, no other
 * task preempts it, however urgent (its switches wait for the last unlock),
 * and the end of its round-robin slice does not rotate it. It may still
 * block or yield: then others run, and the lock applies again when it runs
 * again. The unlock does not reschedule: the caller does. */
static inline void sched_lock_preemption(pr_task_t *t) { t->preempt_locks++; }
static inline void sched_unlock_preemption(pr_task_t *t)
{
    PR_ASSERT(t->preempt_locks > 0);
    t->preempt_locks--;
}

/* 1 if the current task may be preempted now: it holds no preemption lock,
 * or it is leaving the CPU anyway (it is no longer in the ready queue). */
static inline int sched_may_preempt(const pr_task_t *me)
{
    return likely(me->preempt_locks == 0) || me->queue != &pr_k.ready;
}

#endif /* PRIORA_SCHED_H */
