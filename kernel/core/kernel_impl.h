/*
 * The kernel's global state (private): the scheduler's state, the task
 * pool, the calling task, and what every call file needs to begin: the
 * context tests, the tick the calling instant belongs to, the masked call.
 */
#ifndef PRIORA_KERNEL_IMPL_H
#define PRIORA_KERNEL_IMPL_H

#include "task_impl.h"
#include "ready.h"

/* The scheduler's state, small and on its own (the task descriptors are
 * apart, pr_tasks): a port that addresses small data with one instruction
 * (RISC-V: gp-relative, ports/riscv/link.ld) reaches all of it that way. */
typedef struct pr_kernel {
    pr_task_t *current;
    /* Why the kernel may not switch now: the interrupts entered and not
     * left, plus 1 while the port is outside. At 0 the caller is a task. */
    int defers;
    int outside;                    /* port code outside any task */
    pr_stamp_t left_at;             /* the stamp when the port last went outside (kernel.c) */
    /* The tick count, also as two words, so that the tick adds 1 to the low
     * one with a rare carry (count64_add1), where a 64-bit add on a 32-bit
     * CPU carries every time (kernel.c: tick_count_add1). */
    union {
        pr_ticks_t ticks;
        pr_count64_t ticks_words;
    };
    pr_ticks_t quantum;
    uint32_t tick_work_mask;        /* a tick whose count has these bits 0 has work (kernel.c) */
    uint8_t tick_work_every;        /* TICK_EVERY_*: why every tick has work (tick_work_update) */
    uint32_t tick_hz;
    pr_count64_t context_switches;  /* pr_kernel_stats (the ticks are `ticks`) */
    pr_count64_t priority_changes;
    pr_ready_t ready;               /* ready.h */
} pr_kernel_t;

extern pr_kernel_t pr_k;
extern pr_task_t pr_tasks[PR_CONFIG_MAX_TASKS]; /* by id */
/* The slots from this index on are as pr_kernel_init left them: no task has
 * been created there since (pr_task_create raises it). So a reset clears the
 * slots below it only, which a build with many slots needs: the lab's has
 * 1,024 of about a kilobyte, and clearing them all cost each short run more
 * than its own tasks did (docs/performance.md, "Campaign speed"). */
extern int pr_task_slots_used;
extern pr_task_t pr_idle;                        /* the idle task (slot PR_IDLE_SLOT) */

/* Why every tick has work to do: a round-robin quantum to charge, the
 * program's tick hook (kernel.c), time-sharing tasks to charge and decay
 * (timeshare.c). Each sets or clears its bit and calls tick_work_update. */
enum {
    TICK_EVERY_QUANTUM = 1,
    TICK_EVERY_HOOK = 2,
    TICK_EVERY_TIMESHARE = 4,
};

/* Which ticks have work besides their timers: every tick for any of the
 * reasons above, else every PR_PORT_STAMP_FOLD_TICKS-th (the fold of CPU
 * time), else none (a mask of all ones: the tick count 0 mod 2^32 still
 * goes to the full tick, which then finds nothing to do). So none of them
 * costs the ticks anything while it is off (kernel.c: pr_kernel_tick_isr). */
static inline void tick_work_update(void)
{
    if (pr_k.tick_work_every != 0)
        pr_k.tick_work_mask = 0;
    else
        pr_k.tick_work_mask = PR_PORT_STAMP_FOLD_TICKS != 0 ? PR_PORT_STAMP_FOLD_TICKS - 1u : UINT32_MAX;
}

static inline void tick_work_set(int reason, int on)
{
    if (on)
        pr_k.tick_work_every |= (uint8_t)reason;
    else
        pr_k.tick_work_every &= (uint8_t)~reason;
    tick_work_update();
}

/* The calling task: pr_k.current in task context, else the idle task, which
 * stands for "no task" (self_update). A small global of its own, which a
 * port that reaches small data in one instruction (RISC-V: gp-relative)
 * loads in one. The idle task never holds a mutex and its take count is at
 * its end (kernel.c), so the mutex fast paths fall to the general path for
 * it without a test of their own. */
extern pr_task_t *pr_self;

static inline pr_task_t *idle_task(void) { return &pr_idle; }

/* pr_self, recomputed whenever one of the things it depends on changes
 * (the interrupt nesting, the outside flag: pr_k.defers; the current task). */
static inline void self_update(void) { pr_self = pr_k.defers == 0 ? pr_k.current : &pr_idle; }

/* 1 when the caller is a task that may block (not an interrupt, not outside
 * the kernel, not the idle task). */
static inline int in_task_context(void) { return pr_self != &pr_idle; }

/* The tick the current instant belongs to: the tick count, plus one when the
 * next tick's instant has come but its interrupt has not been taken yet. A
 * relative wait of n ticks ends at tick_now() + n: exactly n ticks. */
static inline pr_ticks_t tick_now(void) { return pr_k.ticks + (pr_port_tick_due() ? 1 : 0); }

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

#endif /* PRIORA_KERNEL_IMPL_H */
