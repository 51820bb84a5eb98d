/*
 * Execution contexts: one stack per slot (port.h: task i uses slot i, the
 * idle task PR_IDLE_SLOT), plus the program's own context, MAIN_SLOT, on the
 * boot stack. A suspended context is its saved stack pointer: everything
 * else (the callee-saved registers, and under them the trap frame of an
 * interrupted task) is on its stack (switch.S, vector.S).
 *
 * Stack overflow: a canary word near the bottom (lowest address) of every
 * stack, in its slot (port_inline.h), holding the slot's address. A task
 * that runs past the bottom of its stack overwrites it; each switch checks
 * the canary of the context it leaves (pr_port_switch, port_inline.h) and
 * stops the machine with "stack overflow in task N" rather than let the
 * next switch, or the neighbouring stack, run on corrupted memory. A frame
 * large enough to jump over the word undetected is possible; the word
 * catches the common case. The slot's address as its value, rather than a
 * fixed pattern, spares the switch the instructions that build the
 * constant, and the slot's place, a load of the canary's address.
 */
#include <string.h>
#include "asm.h"
#include "riscv.h"

/* PR_CONFIG_STACK_SIZE bytes per slot, rounded up to the psABI's 16. */
#define STACK_SIZE ((PR_CONFIG_STACK_SIZE + 15) & ~15)

static _Alignas(16) unsigned char stacks[PR_SLOTS][STACK_SIZE];
struct riscv_slot *riscv_slots[MAIN_SLOT + 1];
static void (*entries[PR_SLOTS])(void);
extern uintptr_t __boot_stack_bottom[]; /* link.ld: main's stack, 16-byte aligned */

/* The external definition of the inline switch (C99 inline). */
extern pr_port_ctx_t pr_port_ctx(int slot);
extern void pr_port_switch(pr_port_ctx_t from, pr_port_ctx_t to);

/* Slot n at the bottom of its stack, its canary set. */
static struct riscv_slot *slot_at(int slot, void *bottom)
{
    struct riscv_slot *s = bottom;
    s->canary = (uintptr_t)s;
    riscv_slots[slot] = s;
    return s;
}

void riscv_context_reset(void)
{
    for (int slot = 0; slot < PR_SLOTS; slot++)
        slot_at(slot, stacks[slot]);
    slot_at(MAIN_SLOT, __boot_stack_bottom);
}

_Noreturn void riscv_stack_overflow(const struct riscv_slot *context)
{
    int slot = 0;
    while (slot < MAIN_SLOT && riscv_slots[slot] != context)
        slot++;
    pr_riscv_puts("\nstack overflow in task ");
    if (slot == MAIN_SLOT)
        pr_riscv_puts("main");
    else if (slot == PR_IDLE_SLOT)
        pr_riscv_puts("idle");
    else
        pr_riscv_put_dec((uint64_t)slot);
    pr_riscv_puts("\n");
    pr_riscv_exit(EXIT_STACK_OVERFLOW);
}

/* Where a new context starts (the return address of its first switch),
 * with interrupts masked as they are at every switch. It enables them, as
 * port.h asks, and calls the slot's start function, which never returns. */
static void context_entry(void)
{
    void (*start)(void) = entries[pr_kernel_current_slot()];
    pr_port_irq_restore(MSTATUS_MIE);
    start();
    pr_riscv_puts("\na context's start function returned\n");
    pr_riscv_exit(EXIT_BAD_CONTEXT);
}

void pr_port_context_init(int slot, void (*start)(void))
{
    /* A switch frame under the top of the stack (switch.S): registers 0,
     * ra (just under the saved sp) = the entry. */
    uintptr_t *top = (uintptr_t *)(void *)(stacks[slot] + STACK_SIZE);
    memset((char *)top - SWITCH_FRAME, 0, SWITCH_FRAME);
    top[-1] = (uintptr_t)context_entry;
    entries[slot] = start;
    slot_at(slot, stacks[slot])->sp = (uintptr_t)top;
}

/* A switch the port makes itself (to and from the program's context). */
void riscv_context_switch(int from, int to) { pr_port_switch(pr_port_ctx(from), pr_port_ctx(to)); }
