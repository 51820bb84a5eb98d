/*
 * Host port, part 1: execution contexts. Each task slot has a stack from a
 * static pool and a saved stack pointer; the simulation driver (the program
 * calling pr_host_run_*) has one more context, MAIN_SLOT.
 *
 * Under AddressSanitizer, every switch is announced to it (fiber switching),
 * and a stack is unpoisoned before it is reused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host_internal.h"

#if defined(__SANITIZE_ADDRESS__)
#define HOST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HOST_ASAN 1
#endif
#endif

#ifdef HOST_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

void host_switch(void **save_sp, void *load_sp);

typedef struct host_context {
    void *sp;
    const void *stack_bottom; /* for the sanitizer */
    size_t stack_size;
} host_context_t;

static host_context_t contexts[MAIN_SLOT + 1];
static _Alignas(64) unsigned char stacks[PR_SLOTS][PR_CONFIG_STACK_SIZE];
static void (*entries[PR_SLOTS])(void);
static int switching_from;

static void after_switch(void *fake_stack)
{
#ifdef HOST_ASAN
    const void *bottom;
    size_t size;
    __sanitizer_finish_switch_fiber(fake_stack, &bottom, &size);
    contexts[switching_from].stack_bottom = bottom;
    contexts[switching_from].stack_size = size;
#else
    (void)fake_stack;
#endif
}

/* Where a new context starts: the entry recorded for the running slot. */
static void context_entry(void)
{
    after_switch(NULL);
    entries[pr_kernel_current_slot()]();
}

void pr_port_context_init(int slot, void (*start)(void))
{
    unsigned char *bottom = stacks[slot];
    uintptr_t top = ((uintptr_t)(bottom + PR_CONFIG_STACK_SIZE)) & ~(uintptr_t)15;
    uintptr_t *sp = (uintptr_t *)top;

#ifdef HOST_ASAN
    ASAN_UNPOISON_MEMORY_REGION(bottom, PR_CONFIG_STACK_SIZE);
#endif
    entries[slot] = start;
    /* host_switch pops six registers, then returns to context_entry with the
     * stack aligned as after a call (rsp + 8 a multiple of 16). */
    *--sp = 0;                       /* context_entry's return address: never used */
    *--sp = (uintptr_t)context_entry;
    for (int i = 0; i < 6; i++)
        *--sp = 0;
    contexts[slot].sp = sp;
    contexts[slot].stack_bottom = bottom;
    contexts[slot].stack_size = PR_CONFIG_STACK_SIZE;
}

void host_context_switch(int from, int to)
{
    void *fake_stack = NULL;
    switching_from = from;
#ifdef HOST_ASAN
    __sanitizer_start_switch_fiber(&fake_stack, contexts[to].stack_bottom, contexts[to].stack_size);
#endif
    host_switch(&contexts[from].sp, contexts[to].sp);
    after_switch(fake_stack);
}

void pr_port_switch(int from_slot, int to_slot)
{
    host_charge_switch();
    host_context_switch(from_slot, to_slot);
}

/* A failed kernel assertion (PR_ASSERT): say where, and stop the process
 * so that a test or the fuzzer fails loudly (port.h). */
void pr_port_panic(const char *file, int line, const char *expr)
{
    fflush(stdout);
    fprintf(stderr, "priora: kernel assertion failed: %s:%d: %s\n", file, line, expr);
    abort();
}
