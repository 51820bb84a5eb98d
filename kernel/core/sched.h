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

/* A task's slice_left when it is given a new slice (it becomes ready,
 * yields, or its slice ends): a full slice of the quantum in force at the
 * first tick that charges it (sched_tick). Stores of 0, where the quantum
 * itself would take two loads more (64 bits). A change of the quantum first
 * turns those into the quantum they were given under (sched_quantum_changes),
 * so that a slice still counts from the quantum of its time. */
#define SLICE_FULL 0

static inline void slice_give_full(pr_task_t *t)
{
    t->slice_words.lo = 0; /* SLICE_FULL, a word at a time (task_impl.h) */
    t->slice_words.hi = 0;
}

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
    slice_give_full(t);
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
void sched_reschedule(void);                   /* switch now if allowed, else defer */
void switch_to_most_urgent(void);              /* switch now (the caller may) */
#if PR_CONFIG_TRACE
void switch_preempting(void);                  /* the same, the caller staying ready */
#else /* they differ only in the SWITCH record: one function, not a copy reached by a jump */
#define switch_preempting switch_to_most_urgent
#endif
void sched_isr_leave(void);                    /* an interrupt ends; the outermost: switch if needed */
void sched_reset(void);
void sched_tick(void);                         /* round-robin quantum */
void sched_quantum_changes(pr_ticks_t old);    /* before the quantum changes from `old`; O(tasks) */
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
