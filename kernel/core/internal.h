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

/* A condition that is rarely true, for the compiler's code layout: the
 * fast paths keep their common case straight, without jumps. */
#define unlikely(x) __builtin_expect(!!(x), 0)
#define likely(x) __builtin_expect(!!(x), 1)

/* "No priority": what a mutex lends when it lends nothing. */
#define PRIO_NONE (-1)

struct pr_task;
struct pr_sem;
struct pr_cond;

/* wait_result of a waiter woken to try its lock again (pcp: the system
 * ceiling dropped); never returned by a call. */
#define WAIT_RETRY 1

/* Words of a bitmap with one bit per semaphore. */
#define SEM_WORDS ((PR_CONFIG_MAX_SEMS + 31) / 32)

/* ---- timers (timer.c) ---- */

typedef struct pr_timer {
    pr_link_t link;           /* in its wheel slot */
    pr_ticks_t expiry;        /* absolute tick */
    void (*fire)(struct pr_task *task);
    struct pr_task *task;
} pr_timer_t;

void timer_init(pr_timer_t *tm, void (*fire)(struct pr_task *), struct pr_task *task);
void timer_arm(pr_timer_t *tm, pr_ticks_t expiry);  /* expiry > now */
static inline int timer_armed(const pr_timer_t *tm) { return link_linked(&tm->link); }
void timers_reset(void);
void timers_fire_due(pr_ticks_t now);

/* The wheel (timer.c): slot e mod PR_CONFIG_TIMER_SLOTS holds the timers due
 * at tick e. An empty slot means nothing is due at that tick: the tick
 * checks that first (kernel.c). */
extern pr_link_t pr_wheel[PR_CONFIG_TIMER_SLOTS];
static inline pr_link_t *timer_slot(pr_ticks_t tick) { return &pr_wheel[tick & (PR_CONFIG_TIMER_SLOTS - 1)]; }

/* ---- tasks ---- */

/* A 64-bit count in two words, low word first. Adding 1 is one load, one
 * add and one store of the low word, plus a branch that is taken once in
 * 2^32 (a 32-bit CPU adds a uint64_t with a carry every time); the
 * semaphore fast paths even leave that carry to the general path (sem.c). */
typedef struct pr_count64 {
    uint32_t lo, hi;
} pr_count64_t;

/* Returns the new low word. */
static inline uint32_t count64_add1(pr_count64_t *c)
{
    uint32_t lo = ++c->lo;
    if (lo == 0)
        c->hi++;
    return lo;
}

static inline uint64_t count64_value(pr_count64_t c) { return ((uint64_t)c.hi << 32) | c.lo; }

typedef struct pr_task {
    pr_link_t qlink;            /* in the ready queue or a wait list (first: its address is the task's) */
    const void *queue;          /* what qlink sits in: &pr_k.ready, a wait list's plist, or NULL */
    int queued_level;           /* level qlink was inserted at */

    pr_id_t id;
    pr_port_ctx_t ctx;          /* its slot's context, as pr_port_switch takes it (port.h) */
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
    /* Mutexes held: those whose holder is this task (sem.c). Each one
     * keeps the number of this task's take that got it (pr_sem.taken). */
    pr_count64_t takes;
    int nonpreemptive;          /* npcs sections it is in: no round-robin rotation (sched.c) */

    /* Waiting. blocked_on is the semaphore whose wait list the task is in;
     * wants is the one its down asks for. They differ only when a policy
     * makes it wait elsewhere (pcp: blocked by the system ceiling). */
    struct pr_sem *blocked_on;
    struct pr_sem *wants;
    struct pr_cond *cond_on;    /* condition variable waited on (cond.c) */
    struct pr_sem *relock;      /* the mutex its pr_cond_wait will lock again, until it runs */
    int wait_result;            /* PR_OK, an error, or WAIT_RETRY */
    pr_ticks_t wait_expiry;     /* absolute tick its down times out at, 0 = never */
    pr_timer_t timeout;         /* semaphore timeout, delay, watchdog and cond wait */

    /* Restartable critical sections (rcs): one bit per mutex whose section
     * was aborted and whose abort the task has not yet been told of. */
    uint32_t aborted_on[SEM_WORDS];
    uint32_t aborts, aborts_pending;

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
    /* CPU time in port stamp units (port.h). Also as two words, so that a
     * stamp narrower than the total (RV32) is added to the low word with a
     * carry only when it wraps (sched.c: cpu_time_add). */
    union {
        uint64_t cpu_time;
        pr_count64_t cpu_time_words;
    };
    pr_stamp_t dispatched_at;   /* stamp of its last switch in (or of a fold, sched.c) */
} pr_task_t;

#include "ready.h"                  /* the ready queue (pr_ready_t) and its moves */

/* ---- semaphores ---- */

/* What the fast paths of down and up may do with a semaphore (sem.c). The
 * sign is the test: negative a counting semaphore, positive a mutex whose
 * policy the fast paths may serve without its hooks (policy.h: fast; 2 if
 * it lends its first waiter's priority, 1 if it lends nothing), 0 neither
 * (a free descriptor, a recursive mutex, or a mutex whose policy acts on
 * every take and give). */
enum sem_fast { SEM_FAST_COUNTING = -1, SEM_FAST_NONE = 0, SEM_FAST_MUTEX = 1, SEM_FAST_INHERIT = 2 };

/* A descriptor's size: a power of two, so that finding one by id is a shift
 * (the fast paths do it on every call). Its wait list, the largest part,
 * lives beside it (sem.c). */
#define SEM_BYTES (PR_CONFIG_NAME_LEN <= 32 ? 128 : PR_CONFIG_NAME_LEN <= 160 ? 256 : 1024)

typedef struct pr_sem {
    /* First the fields the fast paths use. */
    _Alignas(SEM_BYTES) int value; /* counting: the value; a mutex's is derived (sem.c) */
    int8_t fast;                /* enum sem_fast */
    struct pr_task *holder;     /* mutex */
    int max;                    /* largest value an up may reach (INT_MAX if none given) */
    int waiters;
    pr_count64_t taken;         /* mutex: the holder's take number that got it */
    uint32_t downs;             /* statistics: pr_sem_stats_t.downs */

    pr_plist_t *waitq;          /* its wait list (sem.c: beside the pool, by index) */
    uint32_t unreserved;        /* downs that kept no unit (sem.c: ups is derived) */
    uint32_t max_waiters;
    pr_link_t pool_link;        /* in the free list or the allocated list */
    pr_id_t index;
    int allocated;
    unsigned flags;
    pr_protocol_t protocol;
    const struct pr_policy *policy;
    pr_prio_t ceiling;
    int init_value;
    pr_id_t owner;
    pr_prio_t lent;             /* priority this mutex lends its holder, or PRIO_NONE */
    char name[PR_CONFIG_NAME_LEN];
} pr_sem_t;

static inline int sem_is_mutex(const pr_sem_t *s) { return (s->flags & PR_SEM_MUTEX) != 0; }
static inline int sem_is_prio(const pr_sem_t *s) { return (s->flags & PR_SEM_PRIO) != 0; }

/* The most urgent (or first, FIFO) waiter, or NULL. */
static inline pr_task_t *sem_first_waiter(const pr_sem_t *s)
{
    pr_link_t *first = plist_first(s->waitq);
    return first != NULL ? container_of(first, pr_task_t, qlink) : NULL;
}
/* Removes a waiter that leaves without the semaphore (timeout, deletion). */
void sem_waiter_abort(pr_task_t *t, int result, int cause);
/* Wakes a mutex waiter to try its lock again (it did not get the mutex);
 * its timeout still ends the wait at the same tick. */
void sem_waiter_retry(pr_task_t *t, int cause);
/* Moves a waiter to the place of its new priority in its wait list. */
void sem_waiter_requeue(pr_task_t *t);
/* t's held mutexes: how many, and the one it became the holder of first
 * (NULL if none). O(S). */
int sem_held_count(const pr_task_t *t);
pr_sem_t *sem_first_held(const pr_task_t *t);
/* Beside the descriptor (sem.c: what the fast paths never read). */
typedef struct pr_sem_more {
    pr_link_t ceiling_link;     /* in the system ceiling while held (ceiling.c) */
    struct pr_sem *sem;         /* the descriptor it belongs to */
    int depth;                  /* recursive mutex: times the holder locked it */
    int remote_waiters;         /* tasks that ask for it but wait elsewhere (pcp) */
    int cond_waiters;           /* tasks on a condition variable that will lock it again */
    int abort_marks;            /* tasks aborted from it (rcs) that have not yet been told */
    uint32_t aborts;            /* statistics: pr_sem_stats_t.aborts */
    pr_id_t trace_as;           /* the system ceiling's wait list: the mutex that PRIO
                                   records through it name (set by its policy) */
} pr_sem_more_t;
pr_sem_more_t *sem_more(const pr_sem_t *s);
/* The wait list of the tasks blocked by the system ceiling: a descriptor
 * beyond the pool, no id reaches it; the policy's hooks serve it (pcp). */
pr_sem_t *sem_ceiling_queue(const struct pr_policy *policy);
/* The semaphore a PRIO record names for a change through m: m, or for the
 * system ceiling's wait list the mutex that sets the ceiling. Pure (it only
 * reads): with tracing compiled out, the compiler drops the call. */
__attribute__((pure)) uint8_t sem_trace_via(const pr_sem_t *m);
/* The mutex calls of cond.c, traced as pr_sem_down / pr_sem_up: lock with
 * the mutex's protocol; release it whatever its depth. */
int sem_mutex_lock(pr_sem_t *m, pr_timeout_t timeout);
void sem_mutex_release(pr_sem_t *m);
int sem_lookup(pr_id_t id, pr_sem_t **out);      /* PR_EBADID / PR_ENOTALLOC */
/* rcs: t has an abort on m it has not been told of; telling it clears it. */
int sem_abort_pending(const pr_task_t *t, const pr_sem_t *m);
int sem_abort_tell(pr_task_t *t, pr_sem_t *m);   /* returns PR_EABORTED */
void sem_task_forget_aborts(pr_task_t *t);       /* the task ends or is deleted */
void sems_reset(void);

/* ---- the system ceiling (ceiling.c) ---- */

void ceiling_reset(void);
void ceiling_add(pr_sem_t *m);                   /* m (a pcp mutex) was taken */
void ceiling_remove(pr_sem_t *m);                /* m was given up */
pr_sem_t *ceiling_top(void);                     /* the held mutex with the highest ceiling, or NULL */
pr_sem_t *ceiling_blocker(const pr_task_t *t);   /* see ceiling.c */

/* ---- condition variables (cond.c) ---- */

typedef struct pr_cond {
    pr_link_t pool_link;        /* in the free list or the allocated list */
    pr_id_t index;
    int allocated;
    int waiters;
    pr_sem_t *mutex;            /* the mutex its waiters released, while it has waiters */
    char name[PR_CONFIG_NAME_LEN];
    pr_plist_t waitq;           /* by effective priority, FIFO among equals */
} pr_cond_t;

void conds_reset(void);
void cond_waiter_requeue(pr_task_t *t);
void cond_waiter_timeout(pr_task_t *t);
void cond_task_deleted(pr_task_t *t);            /* on the condition, or woken from it */

/* ---- the kernel's global state ---- */

/* The scheduler's state, small and on its own (the task descriptors are
 * apart, pr_tasks): a port that addresses small data with one instruction
 * (RISC-V: gp-relative, ports/riscv/link.ld) reaches all of it that way. */
typedef struct pr_kernel {
    pr_task_t *current;
    int isr_nesting;
    int outside;                    /* port code outside any task */
    pr_stamp_t left_at;             /* the stamp when the port last went outside (kernel.c) */
    /* The tick count. Also as two words, so that the tick adds 1 to the
     * low one with a rare carry (count64_add1), where a 64-bit add on a
     * 32-bit CPU carries every time (kernel.c: tick_count_add1). */
    union {
        pr_ticks_t ticks;
        pr_count64_t ticks_words;
    };
    pr_ticks_t quantum;
    uint32_t tick_hz;
    int timers_armed;
    pr_count64_t context_switches;  /* pr_kernel_stats (the ticks are `ticks`) */
    pr_count64_t priority_changes;
    pr_ready_t ready;               /* ready.h */
} pr_kernel_t;

extern pr_kernel_t pr_k;
extern pr_task_t pr_tasks[PR_CONFIG_MAX_TASKS]; /* by id */
extern pr_task_t pr_idle;                        /* the idle task (slot PR_IDLE_SLOT) */

/* Two words that the semaphore calls read every time, each a small global
 * of its own: a port that reaches small data in one instruction (RISC-V:
 * gp-relative) loads each in one, where fields of pr_k would first share a
 * computed address. pr_sem_pool is the semaphore pool (sem.c): its address,
 * kept in a variable, costs one load, where the pool itself is too large
 * for gp. pr_self is the calling task: pr_k.current in task context, else
 * the idle task, which stands for "no task" (self_update). The idle task
 * never holds a mutex and its take count is at its end (kernel.c), so the
 * mutex fast paths fall to the general path for it without a test of their
 * own. */
extern pr_task_t *pr_self;
extern struct pr_sem *pr_sem_pool;

static inline pr_task_t *idle_task(void) { return &pr_idle; }

/* pr_self, recomputed whenever one of the three things it depends on
 * changes (the interrupt nesting, the outside flag, the current task), so
 * that the calls test one word. */
static inline void self_update(void)
{
    int task = pr_k.isr_nesting == 0 && !pr_k.outside;
    pr_self = task ? pr_k.current : &pr_idle;
}

/* 1 when the caller is a task that may block (not an interrupt, not outside
 * the kernel, not the idle task). */
static inline int in_task_context(void) { return pr_self != &pr_idle; }

/* The tick the current instant belongs to: the tick count, plus one when the
 * next tick's instant has come but its interrupt has not been taken yet. A
 * relative wait of n ticks ends at tick_now() + n: exactly n ticks. */
static inline pr_ticks_t tick_now(void) { return pr_k.ticks + (pr_port_tick_due() ? 1 : 0); }

/* Cancels a timer (nothing if it is not armed). Inline: every wakeup of a
 * task that waited with a timeout cancels one (timer.c has the rest). */
static inline void timer_cancel(pr_timer_t *tm)
{
    if (!timer_armed(tm))
        return;
    list_remove(&tm->link);
    pr_k.timers_armed--;
}

/* The calling task's id for the trace, or PR_TRACE_NONE. */
static inline uint8_t caller_trace_id(void)
{
    return in_task_context() ? (uint8_t)pr_k.current->id : PR_TRACE_NONE;
}

/* ---- scheduler (sched.c) ---- */

void sched_make_ready(pr_task_t *t);           /* state READY, tail of its level */
void sched_make_unready(pr_task_t *t, pr_task_state_t state);

/* The same two, inline for the semaphore calls, whose blocks and wakeups
 * are the hot ones; everybody else calls the functions above, to keep the
 * code small. */
static inline void ready_add(pr_task_t *t)
{
    t->state = PR_TASK_READY;
    t->slice_left = pr_k.quantum;
    if (!t->suspended && t->queue == NULL)
        ready_insert(&pr_k.ready, t, t->effective, 0);
}

/* ready_add for a task that has just left a wait list, so is in no queue. */
static inline void ready_add_waiter(pr_task_t *t)
{
    t->state = PR_TASK_READY;
    t->slice_left = pr_k.quantum;
    if (!t->suspended)
        ready_insert(&pr_k.ready, t, t->effective, 0);
}

static inline void ready_leave(pr_task_t *t, pr_task_state_t state)
{
    if (t->queue == &pr_k.ready)
        ready_remove(&pr_k.ready, t);
    t->state = state;
}

/* A ready task whose effective priority changed moves to its new level: to
 * the tail, or to the head if it runs (sched.c's placement rules); the top
 * is found again lazily (ready.h). Inline: every boost and unboost does it. */
static inline void sched_requeue(pr_task_t *t)
{
    if (t->queue == &pr_k.ready)
        ready_move(&pr_k.ready, t, t == pr_k.current);
}
void sched_rotate(pr_task_t *t);               /* to the tail of its level */
void sched_yield_now(void);                    /* the current task: rotate, reschedule */
void sched_reschedule(void);                   /* switch now if allowed, else defer */
void switch_to_most_urgent(void);              /* switch now (the caller may) */
void sched_reset(void);
void sched_tick(void);                         /* round-robin quantum */
void sched_fold(uint32_t tick);                /* CPU time so far, before stamps wrap */
void sched_nonpreemptive(pr_task_t *t, int delta); /* npcs: +1 entering a section, -1 leaving */

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
