/*
 * The kernel fuzzer: what its files share (docs/fuzzing.md).
 *
 * One seed is one kernel run on the host port. Worker tasks, the tick
 * interrupt (pr_host_set_tick_hook) and the driver between pr_host_run_*
 * slices each draw their next call from one seeded generator (gen.c); every
 * call goes through fz_do (calls.c), which asks what its documentation
 * allows in the state the last check read and the shadow model knows
 * (predict.c), issues it, judges the result and teaches the shadow; after
 * every call fz_check (shadow.c) reads the kernel's status through the
 * public calls and checks the invariants. A failure prints the seed, the
 * call number and the last calls, and exits (report.c). Everything is
 * single-threaded and reads no real time, so a seed replays exactly.
 */
#ifndef PRIORA_FUZZ_H
#define PRIORA_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include "priora/host.h"
#include "priora/events.h"
#include "priora/msgq.h"
#include "priora/swtimer.h"
#include "priora/timeshare.h"
#include "priora/privilege.h"

/* Calls the kernel gained over time, fuzzed where the kernel has them (so
 * that an older kernel can still be fuzzed, and a fault bisected):
 * pr_kernel_check came with PR_CONFIG_ASSERT, the scheduler lock with the
 * rcs recovery (PR_SEM_CTL_RECOVERY). */
#ifdef PR_CONFIG_ASSERT
#define FZ_HAS_KERNEL_CHECK 1
#else
#define FZ_HAS_KERNEL_CHECK 0
#endif
#ifdef PR_SEM_CTL_RECOVERY
#define FZ_HAS_RECOVERY 1
#else
#define FZ_HAS_RECOVERY 0
#define PR_SEM_CTL_RECOVERY 2
#endif

#define FZ_TASKS PR_CONFIG_MAX_TASKS
#define FZ_SEMS PR_CONFIG_MAX_SEMS
#define FZ_CONDS PR_CONFIG_MAX_CONDS
#define FZ_EVENTS PR_CONFIG_MAX_EVENTS
#define FZ_MSGQS PR_CONFIG_MAX_MSGQS
#define FZ_TIMERS PR_CONFIG_MAX_TIMERS
#define FZ_MSGS 8192        /* messages a seed may send (services.c) */
#define FZ_TICK_NS 1000000u /* the run's tick: 1000 Hz */

/* A set of result codes: bit -code (PR_OK is bit 0), and a bit for "a
 * positive count" (pr_task_wait_miss). */
#define FZ_ERR(code) (1u << (unsigned)-(code))
#define FZ_POSITIVE (1u << 31)

typedef enum fz_op {
    FZ_TASK_CREATE, FZ_TASK_DELETE, FZ_TASK_SUSPEND, FZ_TASK_RESUME, FZ_TASK_DELAY,
    FZ_TASK_YIELD, FZ_TASK_SET_PRIO, FZ_TASK_WAIT_PERIOD, FZ_TASK_WAIT_MISS, FZ_TASK_SELF,
    FZ_TASK_STATUS, FZ_SEM_ALLOC, FZ_SEM_FREE, FZ_SEM_DOWN, FZ_SEM_TRYDOWN, FZ_SEM_UP,
    FZ_SEM_ABORTED, FZ_SEM_STATS, FZ_SEM_STATUS, FZ_SEM_ATTR_GET, FZ_SEM_CONTROL,
    FZ_COND_ALLOC, FZ_COND_FREE, FZ_COND_WAIT, FZ_COND_SIGNAL, FZ_COND_BROADCAST,
    FZ_COND_STATUS, FZ_KERNEL_STATS, FZ_KERNEL_CHECK, FZ_SET_QUANTUM, FZ_SCHED_LOCK, FZ_SCHED_UNLOCK,
    FZ_TICKS_NOW, FZ_NAMES, FZ_CONSUME, FZ_EXIT,
    FZ_TASK_RTPRIO, FZ_TASK_SET_NICE, FZ_PRIV_GROUP_SET, FZ_PRIV_GROUP_GET, FZ_TASK_SET_GROUP, FZ_TASK_PRIVS,
    FZ_EVENTS_ALLOC, FZ_EVENTS_FREE, FZ_EVENTS_SET, FZ_EVENTS_CLEAR, FZ_EVENTS_WAIT, FZ_EVENTS_STATUS,
    FZ_MSGQ_ALLOC, FZ_MSGQ_FREE, FZ_MSGQ_SEND, FZ_MSGQ_RECEIVE, FZ_MSGQ_STATUS,
    FZ_TIMER_SERVICE_START, FZ_TIMER_ALLOC, FZ_TIMER_FREE, FZ_TIMER_START, FZ_TIMER_STOP, FZ_TIMER_STATUS,
    FZ_TASK_RELEASE, FZ_TASK_ABORTED, FZ_TRACE_KEEP, FZ_OPS
} fz_op_t;

/* Who makes a call: a task (its id, >= 0), the tick interrupt or the driver. */
#define FZ_ISR (-2)
#define FZ_DRIVER (-3)

/* One call as the generator chose it. arg[] holds its ids, timeouts,
 * priorities, amounts, in the call's order (report.c prints them by name);
 * null: its pointer argument is NULL (1 the first, 2 the second). */
typedef struct fz_call {
    fz_op_t op;
    int64_t arg[4];
    int null;
    pr_task_attr_t task_attr;  /* FZ_TASK_CREATE */
    pr_sem_attr_t sem_attr;    /* FZ_SEM_ALLOC */
    pr_msgq_attr_t msgq_attr;  /* FZ_MSGQ_ALLOC (buffer: see bad) */
    pr_timer_attr_t timer_attr; /* FZ_TIMER_ALLOC */
    int bad;                   /* FZ_MSGQ_ALLOC: the buffer is wrong (1 NULL, 2 misaligned, 3 too small) */
    const char *name;          /* FZ_COND_ALLOC */
    int64_t before;            /* the old value a call must give back, from the state before it (bands.c) */
    uint64_t no;               /* its number in the seed, from 1 */
    int who;
} fz_call_t;

/* The shadow of one task slot: what the return codes it and others saw say. */
typedef struct fz_task {
    int alive;                 /* created and not deleted */
    uint64_t born;             /* number of the call that made it alive */
    int depth[FZ_SEMS];        /* mutexes it holds, per its downs and ups (0: not held) */
    int order[FZ_SEMS];        /* ... in the order it took them (the last is on top) */
    int nheld;
    uint8_t aborted[FZ_SEMS];  /* rcs: its section was taken over; not told yet */
    int naborted;
    fz_op_t call;              /* the call it is inside (which may switch), or FZ_OPS */
    int64_t call_arg;          /* its first argument */
    pr_id_t call_sem;          /* the semaphore that call names (cond_wait: its mutex) */
    uint32_t call_gen;         /* call_sem's allocation number when the call began */
    int call_pcp;              /* call_sem was a pcp mutex when the call began */
    int call_depth;            /* cond_wait: the depth it held the mutex at */
    pr_prio_t call_base;       /* its lowest base priority since the call began */
    int sched_locks;           /* scheduler locks it holds, per its calls */
    uint32_t recoveries;       /* rcs recoveries run in its context so far, the last on: */
    pr_id_t recovered_sem;
    int exiting;               /* its body returned: the kernel releases what it holds */
    int self_delete;           /* inside pr_task_delete(itself) */
    uint64_t call_no;          /* the number of the call it is inside */
    int64_t call_args[4];      /* ... and its arguments */
    int call_waits;            /* ... predicted to wait (events, message queues) */
    int events_woken;          /* a set satisfied its event wait; the flags it must see: */
    uint32_t events_flags;
    int msg;                   /* its message under way (send), or -1 */
    int was_wait_send;         /* the last check saw it waiting to send */
    int known;                 /* the next three are the shadow's (bands.c), else learnt at the next check: */
    int sched_class, nice, group;
    int abort_may_end;         /* an abort may end the call it is inside (jobs.c) */
    uint32_t seen_jobs_aborted, seen_completed; /* its status at the last check (jobs.c) */
    int seen_job_aborted;
    pr_ticks_t delay_end;      /* the tick its delay under way ends at (jobs.c) */
} fz_task_t;

typedef struct fz_sem {
    int alive;
    uint32_t gen;              /* allocations of this descriptor so far */
    pr_sem_attr_t attr;        /* as allocated (name not kept) */
    int recovery;              /* rcs: a recovery is set (PR_SEM_CTL_RECOVERY) */
} fz_sem_t;

/* Event flags, message queues, software timers and messages (services.c). */
typedef struct fz_events {
    int alive;
    uint32_t flags;            /* exactly: every set, clear and clearing wait is known */
    uint32_t sets, wakeups;
} fz_events_t;

typedef struct fz_msgq {
    int alive;
    uint32_t gen;
    pr_msgq_attr_t attr;       /* as allocated (name not kept) */
    void *buffer;              /* malloc'd to its exact size, so that the sanitizer sees overruns */
    int inflight;              /* immediate receives by tasks issued and not returned */
    int tainted;               /* receives that took a message the shadow never learnt: order unchecked */
    int nqueued, nmaybe;       /* its messages surely in it, and maybe in it */
    int max_prio;              /* the most urgent message sent to it */
    uint64_t last_server_change; /* the call that last named its server */
    uint64_t served_no;        /* served_prio is its server's last message's priority if this is */
    int served_prio;           /* ... last_server_change (-1: none) */
    uint32_t received_by;      /* tasks that received from it (bits) */
} fz_msgq_t;

typedef enum fz_msg_state { FZ_MSG_FREE, FZ_MSG_SENDING, FZ_MSG_QUEUED, FZ_MSG_HANDED, FZ_MSG_RECEIVED,
                            FZ_MSG_REFUSED, FZ_MSG_MAYBE, FZ_MSG_DROPPED } fz_msg_state_t;

typedef struct fz_msg {
    uint8_t state, q;
    int16_t prio;
    uint32_t gen;
    uint64_t entry_lo, entry_hi; /* call numbers between which it entered the queue */
    uint32_t receivers;        /* HANDED: the tasks it may have gone to */
    uint16_t size;             /* its queue's message size */
} fz_msg_t;

typedef struct fz_timer {
    int alive;
    uintptr_t cookie;          /* its action's argument: unique per allocation */
    pr_prio_t prio;
    pr_ticks_t period;
    int armed;                 /* its kernel timer is armed, for next_expiry */
    pr_ticks_t next_expiry;
    int due;                   /* expired and its action not yet run */
    pr_ticks_t due_expiry;
    uint64_t due_seq;          /* order it became due in */
    uint32_t expiries, dropped;
    pr_ticks_t max_lateness;
} fz_timer_t;

/* The kernel's status as the last check read it. */
typedef struct fz_snap {
    int task_ok[FZ_TASKS];
    pr_task_status_t task[FZ_TASKS];
    int sem_ok[FZ_SEMS];
    pr_sem_status_t sem[FZ_SEMS];
    int cond_ok[FZ_CONDS];
    pr_cond_status_t cond[FZ_CONDS];
    pr_events_status_t events[FZ_EVENTS];
    pr_msgq_status_t msgq[FZ_MSGQS];
} fz_snap_t;

/* A FIFO of free ids, as the kernel's free lists (freed ids go to the tail). */
typedef struct fz_fifo {
    int id[FZ_SEMS > FZ_TIMERS ? FZ_SEMS : FZ_TIMERS];
    int head, count;
} fz_fifo_t;

/* What a seed's generator leans towards (gen.c). */
typedef struct fz_profile {
    int prio_lo, prio_hi;      /* base priorities drawn from here */
    int protocol_weight[PR_PROTOCOL_COUNT];
    int max_workers;
    int periodic_percent;
    int deep_nesting;          /* lock more before unlocking */
    int hunt_retriers;         /* aim at tasks pcp woke to try again */
} fz_profile_t;

typedef struct fz_run {
    uint64_t seed;
    uint64_t budget;           /* calls this seed may issue */
    uint64_t calls;            /* issued so far in this seed */
    uint64_t rng;
    int in_isr, in_driver;     /* who has control (else the task pr_task_self names) */
    fz_profile_t profile;
    fz_task_t task[FZ_TASKS];
    fz_sem_t sem[FZ_SEMS];
    int cond_alive[FZ_CONDS];
    fz_fifo_t sem_free, cond_free;
    fz_snap_t snap;
    int task_hi, sem_hi;       /* slots above these were never allocated in this seed */
    uint64_t last_time;        /* virtual time at the last check, and the calls since */
    uint64_t calls_at_time;    /* ... it last moved */
    uint64_t kernel_ticks;     /* the last tick count and switch count seen */
    uint64_t kernel_switches;
    int stray_recoveries;      /* rcs recoveries run outside any task (a fault) */
    fz_events_t events[FZ_EVENTS];
    fz_msgq_t msgq[FZ_MSGQS];
    fz_timer_t timer[FZ_TIMERS];
    fz_fifo_t events_free, msgq_free, timer_free;
    fz_msg_t msgs[FZ_MSGS];
    int nmsgs;
    int service;               /* the timer service task, or -1 */
    uint64_t due_seq;
    uintptr_t cookies;
    uint64_t actions;          /* timer actions run */
    int ts_levels;             /* the time-sharing band's levels (0: none) */
    /* A quiet seed: no tick hook, so the host port counts the ticks that
     * change nothing at once while a task computes (pr_kernel_skip_quiet_ticks)
     * where the other seeds take every tick; no interrupt calls then, and
     * no software timer is started (its shadow is kept by the hook). */
    int quiet;
    uint64_t kept;             /* every event pr_host_trace_keep kept in this seed (FZ_TRACE_KEEP) */
    pr_privs_t privs[PR_CONFIG_PRIV_GROUPS + 1]; /* each group's privileges, per the calls */
    int64_t hard_importance;   /* the most important hard task created in the seed (-1: none) */
} fz_run_t;

/* What the time-sharing and privilege calls fill (bands.c). */
typedef struct fz_bands_out {
    pr_prio_t old_prio;
    int old_nice, group;
    pr_privs_t privs;
} fz_bands_out_t;

extern fz_run_t fz;

static inline int fz_is_mutex(pr_id_t s) { return (fz.sem[s].attr.flags & PR_SEM_MUTEX) != 0; }
static inline int fz_is_pcp(pr_id_t s) { return fz_is_mutex(s) && fz.sem[s].attr.protocol == PR_PROTOCOL_PCP; }

/* rng (gen.c): splitmix64; fz_below(n) in 0..n-1, fz_chance(p) true p% of the time. */
uint64_t fz_next(void);
int fz_below(int n);
int fz_range(int lo, int hi);
int fz_chance(int percent);

/* gen.c: the run's set-up and the next call for each kind of caller. */
void fz_gen_setup(void);
void fz_gen_task(int self, fz_call_t *c);
void fz_gen_isr(fz_call_t *c);
void fz_gen_driver(fz_call_t *c);

/* predict.c: what a call may return now, per its documentation. */
unsigned fz_predict(const fz_call_t *c, int who);
unsigned fz_documented(fz_op_t op);
const char *fz_op_name(fz_op_t op);
const char *fz_why(void);
#define FZ_WHY_SIZE 160
char *fz_why_buffer(void);

/* calls.c */
int fz_do(fz_call_t *c);
int fz_caller(void);
void fz_task_adopt(pr_id_t id);

/* shadow.c */
void fz_check(void);
void fz_check_quiescent(void);
void fz_shadow_reset(void);
int fz_retrier(int t);
int fz_recovering(int t, pr_id_t m);
int fz_recoverable(int t);
int fz_blocked_by_ceiling(int t, pr_prio_t prio);
void fz_take(int t, pr_id_t m, int depth);
void fz_give(int t, pr_id_t m);
void fz_forget_task(int t);

/* services.c: event flags, message queues, software timers */
void fz_services_reset(void);
void fz_services_release(void);
unsigned fz_services_predict(const fz_call_t *c, int who);
void fz_services_before(fz_call_t *c, int who, unsigned expected);
int fz_services_issue(fz_call_t *c, pr_id_t *out_id, void *out);
void fz_services_learn(fz_call_t *c, int who, int r, pr_id_t id, const void *out);
void fz_services_read(int sweep);
void fz_services_check(void);
void fz_services_tick(void);
void fz_services_set_state(fz_msg_t *m, fz_msg_state_t state);
void fz_services_task_gone(int t);
int fz_services_adopt(int t);
pr_prio_t fz_queue_lend(int t, pr_prio_t *high);
int fz_lends_on(int h);
int fz_chain_reaches(int h, int t);
void fz_timer_action(pr_id_t id, void *arg);
void fz_gen_services(fz_call_t *c, int self);
void fz_gen_services_isr(fz_call_t *c);
void fz_gen_services_setup(void);
void fz_gen_services_fill(void);
void fz_print_services_call(FILE *out, const fz_call_t *c);
int fz_fifo_take(fz_fifo_t *f, int size, int expect_id, const char *what);
void fz_fifo_put(fz_fifo_t *f, int size, int id);

/* services.c and services_check.c share these. */
static inline int fz_satisfied(uint32_t flags, uint32_t mask, unsigned options)
{
    return (options & PR_EVENTS_ALL) ? (flags & mask) == mask : (flags & mask) != 0;
}
static inline int fz_live(int t) { return t >= 0 && t < FZ_TASKS && fz.task[t].alive && fz.snap.task_ok[t]; }
static inline int fz_msgq_alive(int64_t q) { return q >= 0 && q < FZ_MSGQS && fz.msgq[q].alive; }
static inline int fz_inherits(int q) { return (fz.msgq[q].attr.flags & PR_MSGQ_INHERIT) != 0; }
/* The tick a call made now belongs to (kernel_impl.h: tick_now): a tick due
 * at this instant and not yet taken counts. */
static inline pr_ticks_t fz_tick_of_now(void)
{
    pr_ticks_t k = pr_ticks_now();
    return k + (pr_host_now() >= (k + 1) * (uint64_t)FZ_TICK_NS ? 1 : 0);
}

/* bands.c: the time-sharing band and privilege groups */
static inline int fz_is_bands_op(fz_op_t op) { return op >= FZ_TASK_RTPRIO && op <= FZ_TASK_PRIVS; }
int fz_realtime(int64_t prio);
int fz_task_attr_valid(const pr_task_attr_t *a);
unsigned fz_create_privs(const pr_task_attr_t *a, int who);
unsigned fz_set_priority_privs(int who, int64_t t, int raises);
unsigned fz_rt_privs(int who);
unsigned fz_ceiling_privs(const pr_sem_attr_t *a, int who);
unsigned fz_bands_predict(const fz_call_t *c, int who);
void fz_bands_before(fz_call_t *c, unsigned expected);
int fz_bands_issue(const fz_call_t *c, fz_bands_out_t *out);
void fz_bands_learn(const fz_call_t *c, int who, int r, const fz_bands_out_t *out);
void fz_bands_created(const fz_call_t *c, int who, pr_id_t id);
void fz_bands_reset(void);
void fz_bands_check(void);
void fz_gen_bands(fz_call_t *c, int self);
void fz_gen_bands_setup(void);
void fz_gen_task_attr_bands(pr_task_attr_t *a);
void fz_print_bands_call(FILE *out, const fz_call_t *c);
int64_t fz_pick_task(int self);
int64_t fz_pick_release(int self); /* pr_task_release's target: a live sporadic task most of the time */

/* jobs.c: arrival attributes, hard deadlines, importance, abort times */
void fz_gen_task_attr_jobs(pr_task_attr_t *a);
void fz_aborts_before(const fz_call_t *c, unsigned expected);
int fz_abortable(int t);
void fz_aborts_issue(const fz_call_t *c, int who, unsigned expected);
unsigned fz_aborts_allowed(const fz_call_t *c, int who, int r);
int fz_aborts_cond_relocked(int who, pr_id_t m);
int fz_gen_abort_reaction(int self, fz_call_t *c);
void fz_aborts_check(void);

/* main.c: every task's body; the run's summary line. */
void fz_worker_body(void *arg);
void fz_print_summary(uint64_t failures);

/* report.c */
extern uint64_t *fz_calls_sink; /* where a failing run leaves its call count (--keep-going), or NULL */

/* --stats: each call's results, counted (in memory the seeds' children
 * share), printed after the summary; a result's column is -code, the last
 * one a positive count. */
#define FZ_STAT_RESULTS (-PR_ELAST + 2)
void fz_stats_count(fz_op_t op, int r);
extern int fz_history_lines;    /* history lines a report prints (--history) */
extern int fz_trace_lines;      /* kernel trace records a report prints (--trace) */
void fz_report_init(const char *argv0);
void fz_history_reset(void);
void fz_history_call(const fz_call_t *c);
void fz_history_return(const fz_call_t *c, int result);
void fz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif /* PRIORA_FUZZ_H */
