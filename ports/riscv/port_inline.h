/*
 * The RISC-V port's inline functions for the kernel (port.h, PR_PORT_INLINE):
 * the Makefile passes -DPR_PORT_INLINE='"port_inline.h"'. These are the port
 * functions the kernel calls on every call, switch or tick; inline, each
 * costs its few instructions instead of a call, a return and the moves
 * around them. They are C99 inline functions: irq.c, clock.c and context.c
 * hold their external definitions.
 */
#ifndef PRIORA_RISCV_PORT_INLINE_H
#define PRIORA_RISCV_PORT_INLINE_H

#include <stdint.h>
#include "virt.h"

/* No count-leading-zeros instruction (rv32imac, rv64imac): the kernel finds
 * the highest bit of a priority bitmap with a table (plist.h). */
#define PR_PORT_NO_CLZ 1

/* ---- interrupt masking ----
 *
 * mstatus.MIE is the machine-mode global interrupt enable. save clears it
 * and returns mstatus as it was (one csrrci); restore sets back the bits
 * that were set (csrs: MIE only if it was set, nothing for a state with MIE
 * clear). The other bits of the old value that csrs sets again are MPP
 * (always machine mode here) and MPIE, which only the trap vector's mret
 * reads, after writing the whole mstatus of its frame back: so restoring
 * them is harmless, even after a switch inside the masked section let other
 * tasks take traps. The "memory" clobbers make both compiler barriers: no
 * load or store of kernel data moves out of the masked section.
 */
#define PR_PORT_INLINE_IRQ 1

inline pr_irq_state_t pr_port_irq_save(void)
{
    pr_irq_state_t old;
    __asm__ volatile("csrrci %0, mstatus, 8" : "=r"(old)::"memory");
    return old;
}

inline void pr_port_irq_restore(pr_irq_state_t state)
{
    __asm__ volatile("csrs mstatus, %0" ::"r"(state) : "memory");
}

/* ---- time (clock.c) ---- */

struct riscv_clock {
    uint64_t epoch;          /* mtime at time 0 (moved on by each pause) */
    union {
        uint64_t next_count; /* absolute mtime count of the next tick */
        struct {
            uint32_t lo, hi; /* the same a word at a time (little-endian): clock.c, advance */
        } next_words;
    };
    uint32_t step, rem, hz;  /* counts per tick = step + rem / hz */
    uint32_t frac;           /* (ticks so far * 10^7) mod hz */
    uint64_t until;          /* the run stops at this absolute mtime count */
    uint64_t stopped;        /* mtime when the last run stopped */
    int running;             /* in a run: time is mtime; else it is `stopped` */
};
extern struct riscv_clock riscv_clk;

/* mtime, 64 bits. RV32 reads two halves: again if the high half moved. */
inline uint64_t riscv_mtime(void)
{
#if __riscv_xlen == 64
    return *(volatile uint64_t *)CLINT_MTIME;
#else
    volatile uint32_t *half = (volatile uint32_t *)CLINT_MTIME;
    uint32_t hi, lo;
    do {
        hi = half[1];
        lo = half[0];
    } while (hi != half[1]);
    return ((uint64_t)hi << 32) | lo;
#endif
}

/* mtime as the kernel sees it: it stands still between runs. */
inline uint64_t riscv_kernel_mtime(void) { return riscv_clk.running ? riscv_mtime() : riscv_clk.stopped; }

#define PR_PORT_INLINE_NOW 1

/* clk.next_count is the count of the next tick (clock.c: the timer
 * interrupt moves it on before the tick's work), so a tick whose count
 * mtime has reached is one not taken yet (interrupts masked). Inline: the
 * timer service reads it at every action it runs. */
#define PR_PORT_INLINE_TICK_DUE 1

inline int pr_port_tick_due(void) { return riscv_kernel_mtime() >= riscv_clk.next_count; }

/* Port time: ns since pr_riscv_init, standing still between runs. */
inline uint64_t pr_port_now(void) { return (riscv_kernel_mtime() - riscv_clk.epoch) * NS_PER_MTIME; }

#define PR_PORT_INLINE_STAMP 1

/* The stamp (port.h): mtime itself (100 ns counts), a register wide: one
 * load. Not port time: it runs on between runs, whose time the kernel
 * leaves out itself (port.h), and it does not start at the epoch, which
 * a difference of two stamps does not need. On RV32 that is the low half
 * only: one load of mtime instead of three and 32-bit arithmetic; the
 * count wraps every 2^32 * 100 ns, 429 s, while 256 ticks take at most
 * 256 s (the slowest tick is 1 Hz). */
typedef unsigned long pr_stamp_t;
#if __riscv_xlen == 32
#define PR_PORT_STAMP_FOLD_TICKS 256
#else
#define PR_PORT_STAMP_FOLD_TICKS 0
#endif

inline pr_stamp_t pr_port_stamp(void)
{
    pr_stamp_t stamp;
    __asm__ volatile("csrr %0, time" : "=r"(stamp));
    return stamp;
}

inline uint64_t pr_port_stamp_time(uint64_t stamps) { return stamps * NS_PER_MTIME; }

/* Port time and the stamp from one read of mtime. */
inline uint64_t pr_port_now_and_stamp(pr_stamp_t *stamp)
{
    uint64_t mtime = riscv_mtime();
    *stamp = (pr_stamp_t)mtime;
    return ((riscv_clk.running ? mtime : riscv_clk.stopped) - riscv_clk.epoch) * NS_PER_MTIME;
}

/* ---- the trace ring's write pointer ----
 *
 * In tp for the whole image (the Makefile builds every file with
 * -ffixed-tp): a bare-metal image on one hart has no thread-local storage,
 * and neither the trap vector nor the context switch touches tp. A trace
 * record then neither loads nor stores the pointer (kernel/core/trace_impl.h).
 */
#define PR_PORT_TRACE_REGISTER "tp"

/* ---- the context switch (context.c, switch.S) ---- */

/* A context's slot, the two lowest words of its stack: the saved stack
 * pointer of the suspended context (its registers are on its stack), then
 * the canary, a word that holds the slot's address while the stack has not
 * overflowed. A stack that grows past its bottom reaches the canary first.
 * riscv_slots[n] is slot n's: 0 .. PR_SLOTS - 1 are the kernel's (port.h),
 * then the program's (MAIN_SLOT, riscv.h). */
struct riscv_slot {
    uintptr_t sp;
    uintptr_t canary;
};
extern struct riscv_slot *riscv_slots[];

void riscv_switch(uintptr_t *save_sp, uintptr_t load_sp);
_Noreturn void riscv_stack_overflow(const struct riscv_slot *slot);

/* The kernel names a context by its slot's address (port.h): a switch then
 * reads the saved stack pointer and the canary straight from it, and
 * compares the canary with that address, without a look-up of either. */
#define PR_PORT_INLINE_CTX 1
typedef struct riscv_slot *pr_port_ctx_t;

inline pr_port_ctx_t pr_port_ctx(int slot) { return riscv_slots[slot]; }

#define PR_PORT_INLINE_SWITCH 1

/* Checks the canary of the context it leaves (a task that ran past the
 * bottom of its stack is reported before anything runs on the corrupted
 * memory), then switches. */
inline void pr_port_switch(pr_port_ctx_t from, pr_port_ctx_t to)
{
    if (__builtin_expect(from->canary != (uintptr_t)from, 0))
        riscv_stack_overflow(from);
    riscv_switch(&from->sp, to->sp);
}

#endif
