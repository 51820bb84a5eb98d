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
#include "priora/host.h"

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
    FZ_OPS
} fz_op_t;

/* Who makes a call: a task (its id, >= 0), the tick interrupt or the driver. */
#define FZ_ISR (-2)
#define FZ_DRIVER (-3)

/* One call as the generator chose it. arg[] holds its ids, timeouts,
 * priorities, amounts, in the call's order (report.c prints them by name);
 * null: its pointer argument is NULL (1 the first, 2 the second). */
typedef struct fz_call {
    fz_op_t op;
    int64_t arg[3];
    int null;
    pr_task_attr_t task_attr;  /* FZ_TASK_CREATE */
    pr_sem_attr_t sem_attr;    /* FZ_SEM_ALLOC */
    const char *name;          /* FZ_COND_ALLOC */
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
} fz_task_t;

typedef struct fz_sem {
    int alive;
    uint32_t gen;              /* allocations of this descriptor so far */
    pr_sem_attr_t attr;        /* as allocated (name not kept) */
    int recovery;              /* rcs: a recovery is set (PR_SEM_CTL_RECOVERY) */
} fz_sem_t;

/* The kernel's status as the last check read it. */
typedef struct fz_snap {
    int task_ok[FZ_TASKS];
    pr_task_status_t task[FZ_TASKS];
    int sem_ok[FZ_SEMS];
    pr_sem_status_t sem[FZ_SEMS];
    int cond_ok[FZ_CONDS];
    pr_cond_status_t cond[FZ_CONDS];
} fz_snap_t;

/* A FIFO of free ids, as the kernel's free lists (freed ids go to the tail). */
typedef struct fz_fifo {
    int id[FZ_SEMS > FZ_CONDS ? FZ_SEMS : FZ_CONDS];
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
} fz_run_t;

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

/* main.c: every task's body; the run's summary line. */
void fz_worker_body(void *arg);
void fz_print_summary(uint64_t failures);

/* report.c */
extern uint64_t *fz_calls_sink; /* where a failing run leaves its call count (--keep-going), or NULL */
extern int fz_history_lines;    /* history lines a report prints (--history) */
extern int fz_trace_lines;      /* kernel trace records a report prints (--trace) */
void fz_report_init(const char *argv0);
void fz_history_reset(void);
void fz_history_call(const fz_call_t *c);
void fz_history_return(const fz_call_t *c, int result);
void fz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif /* PRIORA_FUZZ_H */
