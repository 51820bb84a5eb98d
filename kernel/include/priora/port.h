/*
 * The boundary between the kernel and a port. Only a port touches the CPU,
 * the timer and the console; the kernel core calls the pr_port_* functions
 * below, and a port calls the pr_kernel_* functions at the bottom.
 *
 * Contexts are numbered by slot: task id i uses slot i, and the idle task
 * uses slot PR_IDLE_SLOT. The port owns the stacks and saved registers.
 */
#ifndef PRIORA_PORT_H
#define PRIORA_PORT_H

#include "priora/types.h"
#include "priora/trace.h" /* pr_trace_tag_t */

#define PR_IDLE_SLOT PR_CONFIG_MAX_TASKS
#define PR_SLOTS (PR_CONFIG_MAX_TASKS + 1)

/* ---- implemented by the port ---- */

/* Interrupt masking. Every kernel call runs its work between
 * pr_port_irq_save (mask interrupts, return the previous state) and
 * pr_port_irq_restore (put that state back); the pair nests. A call that
 * blocks switches to another task with interrupts masked: that task unmasks
 * them when its own kernel call returns, and a new task starts with them
 * enabled (the port's context entry enables them before calling start).
 * Interrupt handlers run masked. The host port's interrupts only arrive when
 * virtual time advances, never inside a kernel call: there both are no-ops. */
typedef unsigned long pr_irq_state_t;

/* A port may give the kernel inline versions of the functions it calls on
 * every call, switch or tick (masking, for one, is one or two instructions
 * that a call and a return would double): it names a header in
 * PR_PORT_INLINE on the compiler's command line (the RISC-V port:
 * -DPR_PORT_INLINE='"port_inline.h"'). That header defines, as C99 inline
 * functions, both masking functions with PR_PORT_INLINE_IRQ, pr_port_now
 * with PR_PORT_INLINE_NOW, pr_port_switch with PR_PORT_INLINE_SWITCH,
 * pr_port_tick_due with PR_PORT_INLINE_TICK_DUE (any of the groups), and
 * the port's own files hold their external definitions. Without it (the host port), all are ordinary functions. */
#ifdef PR_PORT_INLINE
#include PR_PORT_INLINE
#endif

#ifndef PR_PORT_INLINE_IRQ
pr_irq_state_t pr_port_irq_save(void);
void pr_port_irq_restore(pr_irq_state_t state);
#endif

/* Prepares slot's stack so that the first switch to it calls start(), which
 * never returns. */
void pr_port_context_init(int slot, void (*start)(void));

/* A slot's context as the kernel names it to pr_port_switch: the slot number,
 * or, if the port's inline header defines PR_PORT_INLINE_CTX, the port's
 * own pr_port_ctx_t, which pr_port_ctx(slot) gives (RISC-V: the address of
 * the slot's saved stack pointer, so that a switch does not look the slot
 * up). It must not change while the kernel runs: the kernel keeps each
 * task's in its descriptor. */
#ifndef PR_PORT_INLINE_CTX
typedef int pr_port_ctx_t;
static inline pr_port_ctx_t pr_port_ctx(int slot) { return slot; }
#endif

/* Saves the running context into `from` and resumes `to`. Returns when
 * some later switch resumes `from`. */
#ifndef PR_PORT_INLINE_SWITCH
void pr_port_switch(pr_port_ctx_t from, pr_port_ctx_t to);
#endif

/* Current time in port units (ns on the host port; the riscv port converts
 * its timer). Used for trace timestamps and CPU time. */
#ifndef PR_PORT_INLINE_NOW
uint64_t pr_port_now(void);
#endif

/* CPU time is accounted at every switch, so there the kernel reads the
 * clock in the port's cheapest unit, a "stamp" that grows with port time:
 * pr_port_stamp(), of type pr_stamp_t, and converts a sum of stamp units
 * into port time with pr_port_stamp_time(). A port's inline header may
 * define all three with PR_PORT_INLINE_STAMP; otherwise the stamp is port
 * time itself. pr_port_now_and_stamp(&stamp) gives port time and the stamp
 * of one instant (the trace converts its records' stamps from such pairs).
 * A stamp may wrap around (RV32: a 32-bit count of 100 ns,
 * every 429 s): the kernel only subtracts stamps read less than
 * PR_PORT_STAMP_FOLD_TICKS ticks apart (0: stamps never wrap), adding the
 * running task's time so far to its total at least that often. Unlike port
 * time, a stamp need not stand still while the port is outside the
 * kernel's tasks (pr_kernel_set_outside): the kernel reads it only inside,
 * and leaves the time spent outside out of CPU time itself. */
#ifndef PR_PORT_INLINE_STAMP
typedef uint64_t pr_stamp_t;
static inline pr_stamp_t pr_port_stamp(void) { return pr_port_now(); }
static inline uint64_t pr_port_stamp_time(uint64_t stamps) { return stamps; }
static inline uint64_t pr_port_now_and_stamp(pr_stamp_t *stamp) { return *stamp = pr_port_now(); }
#define PR_PORT_STAMP_FOLD_TICKS 0
#endif

/* 1 if the next tick's instant has come but its interrupt is not taken yet
 * (the caller runs with interrupts masked, or exactly at the tick's instant
 * on the host port). Relative waits count from that tick: a delay of n ticks
 * made at tick k's instant ends at tick k + n, whether or not the tick
 * interrupt has run yet. */
#ifndef PR_PORT_INLINE_TICK_DUE
int pr_port_tick_due(void);
#endif

/* The idle task's body calls this in a loop: wait for the next interrupt. */
void pr_port_idle(void);

/* The trace ring is full: drain it now if the port can (pr_trace_drain). */
void pr_port_trace_full(void);

/* Consumes `amount` units of CPU time in the calling task (interruptible,
 * preemptible). Used by the scenario interpreter's "compute" action.
 * It returns at once, with less consumed, while the calling task has a
 * critical section aborted that it has not been told of (rcs:
 * pr_sem_aborted() != 0), also when the abort happens while it is preempted
 * inside: an aborted section stops computing. */
void pr_port_consume(uint64_t amount);

/* Stops the system after a failed kernel assertion (PR_ASSERT, built with
 * PR_CONFIG_ASSERT=1): reports the file, the line and the expression that
 * failed, and never returns. Only a port that builds the kernel with its
 * assertions needs it. */
void pr_port_panic(const char *file, int line, const char *expr) __attribute__((noreturn));

/* Optional: a port that charges the kernel's own work in its time (the host
 * port's per-operation costs, docs/cost-model.md) defines PR_PORT_TRACE_HOOK
 * where it compiles the kernel and implements pr_port_traced, which the
 * kernel calls with every trace record's fields right after writing it (a
 * record dropped for want of room is not passed). Without the definition (the
 * RISC-V port) the call is an empty inline function and compiles to nothing;
 * with tracing compiled out (PR_CONFIG_TRACE=0) it is never made. */
#ifdef PR_PORT_TRACE_HOOK
void pr_port_traced(uint8_t event, pr_trace_tag_t task, pr_trace_tag_t object, int result, pr_trace_tag_t arg0,
                    pr_trace_tag_t arg1, int32_t value);
#else
static inline void pr_port_traced(uint8_t event, pr_trace_tag_t task, pr_trace_tag_t object, int result,
                                  pr_trace_tag_t arg0, pr_trace_tag_t arg1, int32_t value)
{
    (void)event, (void)task, (void)object, (void)result, (void)arg0, (void)arg1, (void)value;
}
#endif

/* ---- implemented by the kernel, called by ports ---- */

/* Makes the most urgent ready task (or idle) the current one and returns its
 * slot; the port then resumes that slot. Used to start the kernel and, on the
 * host port, to resume it after a pause. */
int pr_kernel_dispatch(void);

/* The port's code is outside the kernel's tasks (host: the simulation driver
 * between runs; any port: before start). Calls made there act as from an
 * interrupt: they never block. The time spent outside is no task's CPU
 * time. A port leaves it (0) before it calls pr_kernel_dispatch. */
void pr_kernel_set_outside(int outside);


/* The timer interrupt's kernel work, the same as pr_isr_enter();
 * pr_kernel_tick(); pr_isr_exit(); in one call, which returns at once from a
 * tick that changes nothing. For a port's tick handler. */
void pr_kernel_tick_isr(void);

/* Number of timers armed (0 with nothing ready means nothing can happen). */
int pr_kernel_timers_armed(void);

/* The tick at which the earliest armed timer is due (0: none armed). */
pr_ticks_t pr_kernel_next_timer(void);

/* Counts `count` ticks at once, as many ticks that have nothing to do: from
 * the idle task (not in an interrupt), with no timer due in them, on a port
 * whose stamps never wrap (PR_PORT_STAMP_FOLD_TICKS 0). A port may call it
 * instead of taking every tick of an idle stretch. Errors: PR_EINVAL
 * (nothing changed) when one of those conditions does not hold. */
int pr_kernel_skip_ticks(pr_ticks_t count);

/* Counts at once up to `max` of the next ticks, as many as only count one
 * after the other: no timer due at them, no tick work of any kind (no
 * round-robin quantum, tick hook or time-sharing), not from an interrupt or
 * outside the kernel's tasks, on a port whose stamps never wrap. Whichever
 * task runs. Returns how many were counted: 0, and nothing changed, when a
 * condition does not hold. A port that simulates time calls it while a task
 * computes, instead of taking each tick (the host port). Looks at one lap
 * of the timer wheel at most: O(PR_CONFIG_TIMER_SLOTS + armed timers). */
pr_ticks_t pr_kernel_skip_quiet_ticks(pr_ticks_t max);

/* Slot of the running context. */
int pr_kernel_current_slot(void);

#endif /* PRIORA_PORT_H */
