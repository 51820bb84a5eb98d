/*
 * The kernel's private data structures and the functions its files share.
 * Nothing here is part of the API; ports use priora/port.h.
 */
#ifndef PRIORA_INTERNAL_H
#define PRIORA_INTERNAL_H

#include "priora/priora.h"
#include "priora/port.h"
#include "list.h"
#include "plist.h"

/* "No priority": what a mutex lends when it lends nothing. */
#define PRIO_NONE (-1)

struct pr_task;
struct pr_sem;

/* ---- timers (timer.c) ---- */

typedef struct pr_timer {
    pr_link_t link;           /* in its wheel slot */
    pr_ticks_t expiry;        /* absolute tick */
    void (*fire)(struct pr_task *task);
    struct pr_task *task;
} pr_timer_t;

void timer_init(pr_timer_t *tm, void (*fire)(struct pr_task *), struct pr_task *task);
void timer_arm(pr_timer_t *tm, pr_ticks_t expiry);  /* expiry > now */
void timer_cancel(pr_timer_t *tm);                   /* no-op if not armed */
static inline int timer_armed(const pr_timer_t *tm) { return link_linked(&tm->link); }
void timers_reset(void);
void timers_fire_due(pr_ticks_t now);

/* ---- tasks ---- */

typedef struct pr_task {
    pr_link_t qlink;            /* in the ready queue or a wait list */
    pr_plist_t *queue;          /* the plist qlink sits in, or NULL */
    int queued_level;           /* level qlink was inserted at */

    pr_id_t id;
    char name[PR_CONFIG_NAME_LEN];
    pr_task_state_t state;
    int suspended;
    pr_entry_t entry;
    void *arg;

    /* Priorities. effective = max(base, highest level in lent_bitmap); the
     * count per level says how many held mutexes lend that level. */
    pr_prio_t base;
    pr_prio_t effective;
    uint16_t lent_count[PR_CONFIG_PRIORITIES];
    uint32_t lent_bitmap;
    pr_link_t held;             /* mutexes held (pr_sem.held_link) */
    int held_count;

    /* Waiting. */
    struct pr_sem *blocked_on;
    int wait_result;
    pr_timer_t timeout;         /* semaphore timeout, delay, watchdog wait */

    /* Real-time attributes and job accounting. */
    pr_ticks_t period, phase, rel_deadline;
    uint32_t released, completed, misses;
    uint32_t deadline_job;      /* job whose deadline the deadline timer checks */
    pr_timer_t release_timer;
    pr_timer_t deadline_timer;
    pr_id_t watchdog;
    uint32_t misses_pending;    /* for a watchdog: misses not yet reported */
    pr_id_t miss_who;

    /* Scheduling accounting. */
    pr_ticks_t slice_left;
    uint64_t cpu_time;
    uint64_t dispatched_at;
} pr_task_t;

/* ---- semaphores ---- */

typedef struct pr_sem {
    pr_link_t pool_link;        /* in the free list or the allocated list */
    pr_link_t held_link;        /* in the holder's held list (mutex) */
    pr_id_t index;
    int allocated;
    int value;
    int waiters;
    unsigned flags;
    pr_protocol_t protocol;
    const struct pr_policy *policy;
    pr_prio_t ceiling;
    int init_value;
    int max;                    /* largest value an up may reach (INT_MAX if none given) */
    pr_id_t owner;
    pr_task_t *holder;
    pr_prio_t lent;             /* priority this mutex lends its holder, or PRIO_NONE */
    pr_sem_stats_t stats;
    char name[PR_CONFIG_NAME_LEN];
    pr_plist_t waitq;
} pr_sem_t;

static inline int sem_is_mutex(const pr_sem_t *s) { return (s->flags & PR_SEM_MUTEX) != 0; }
static inline int sem_is_prio(const pr_sem_t *s) { return (s->flags & PR_SEM_PRIO) != 0; }

/* The most urgent (or first, FIFO) waiter, or NULL. */
pr_task_t *sem_first_waiter(const pr_sem_t *s);
/* Removes a waiter that leaves without the semaphore (timeout, deletion). */
void sem_waiter_abort(pr_task_t *t, int result, int cause);
/* Moves a waiter to the place of its new priority in its wait list. */
void sem_waiter_requeue(pr_task_t *t);
void sems_reset(void);

/* ---- the kernel's global state ---- */

typedef struct pr_kernel {
    pr_task_t tasks[PR_SLOTS];      /* the last one is the idle task */
    pr_task_t *current;
    pr_plist_t ready;
    pr_ticks_t ticks;
    uint32_t tick_hz;
    pr_ticks_t quantum;
    int isr_nesting;
    int outside;                    /* port code outside any task */
    int timers_armed;
    pr_kernel_stats_t stats;
} pr_kernel_t;

extern pr_kernel_t pr_k;

static inline pr_task_t *idle_task(void) { return &pr_k.tasks[PR_IDLE_SLOT]; }

/* 1 when the caller is a task that may block (not an interrupt, not outside
 * the kernel, not the idle task). */
static inline int in_task_context(void)
{
    return pr_k.isr_nesting == 0 && !pr_k.outside && pr_k.current != idle_task();
}

/* The tick the current instant belongs to: the tick count, plus one when the
 * next tick's instant has come but its interrupt has not been taken yet. A
 * relative wait of n ticks ends at tick_now() + n: exactly n ticks. */
static inline pr_ticks_t tick_now(void) { return pr_k.ticks + (pr_port_tick_due() ? 1 : 0); }

/* The calling task's id for the trace, or PR_TRACE_NONE. */
static inline uint8_t caller_trace_id(void)
{
    return in_task_context() ? (uint8_t)pr_k.current->id : PR_TRACE_NONE;
}

/* ---- scheduler (sched.c) ---- */

void sched_make_ready(pr_task_t *t);           /* state READY, tail of its level */
void sched_make_unready(pr_task_t *t, pr_task_state_t state);
void sched_requeue(pr_task_t *t);              /* after an effective-priority change */
void sched_rotate(pr_task_t *t);               /* to the tail of its level */
void sched_reschedule(void);                   /* switch now if allowed, else defer */
void sched_reset(void);
void sched_tick(void);                         /* round-robin quantum */

/* ---- priorities (priority.c) ---- */

void prio_relend(pr_sem_t *m, int cause);      /* policy decides; chain walk follows */
void prio_withdraw(pr_sem_t *m, int cause);    /* m lends nothing any more (released) */
void prio_task_base_changed(pr_task_t *t);

/* ---- periodic jobs (periodic.c) ---- */

void periodic_setup(pr_task_t *t);
void periodic_stop(pr_task_t *t);
void periodic_job_done(pr_task_t *t);

/* ---- trace (trace.c) ---- */

#if PR_CONFIG_TRACE
void trace_reset(void);
void trace_emit(uint8_t event, uint8_t task, uint8_t object, int result,
                uint8_t arg0, uint8_t arg1, int32_t value);
#else /* compiled out: an empty function the compiler removes with its arguments */
static inline void trace_reset(void) {}
static inline void trace_emit(uint8_t event, uint8_t task, uint8_t object, int result,
                              uint8_t arg0, uint8_t arg1, int32_t value)
{
    (void)event, (void)task, (void)object, (void)result, (void)arg0, (void)arg1, (void)value;
}
#endif

/* An id as given by a caller, for a one-byte trace field: PR_TRACE_NONE if
 * it is outside its pool (a truncated id would name another object). */
static inline uint8_t trace_id_of(pr_id_t id, int pool_size)
{
    return (id >= 0 && id < pool_size) ? (uint8_t)id : PR_TRACE_NONE;
}
#define sem_trace_id(id) trace_id_of((id), PR_CONFIG_MAX_SEMS)

static inline uint8_t trace_id(const pr_task_t *t)
{
    return (t == NULL || t == idle_task()) ? PR_TRACE_NONE : (uint8_t)t->id;
}

/* ---- the API boundary ---- */

/* The body of a public call: runs `work` (an int expression: the static
 * function that does the call's work) with interrupts masked, so that no
 * interrupt handler sees the kernel's structures half-updated (port.h). */
#define MASKED_CALL(work)                                                                          \
    do {                                                                                           \
        pr_irq_state_t irq_ = pr_port_irq_save();                                                  \
        int result_ = (work);                                                                      \
        pr_port_irq_restore(irq_);                                                                 \
        return result_;                                                                            \
    } while (0)

/* ---- argument checks shared by the call files ---- */

int task_lookup(pr_id_t id, pr_task_t **out);   /* PR_EBADID / PR_ENOTALLOC */
int name_copy(char *dst, const char *src);      /* PR_EINVAL if too long */

#endif /* PRIORA_INTERNAL_H */
