/*
 * The host port's API (ports/host/include/priora/host.h), for the kernel's
 * test programs built for QEMU: the same declarations, implemented over the
 * RISC-V port by tests/riscv/kernel/host_shim.c. Time is the port's real
 * clock there, and pr_host_set_costs does nothing: the hardware has costs
 * of its own.
 */
#ifndef PRIORA_HOST_H
#define PRIORA_HOST_H

#include <stdio.h>
#include "priora/priora.h"

int pr_host_init(const pr_kernel_config_t *config);

typedef enum pr_host_stop {
    PR_HOST_REACHED = 0,
    PR_HOST_QUIESCENT = 1
} pr_host_stop_t;

pr_host_stop_t pr_host_run_until(uint64_t until_ns);
pr_host_stop_t pr_host_run_ticks(pr_ticks_t tick);
uint64_t pr_host_now(void);
uint64_t pr_host_tick_time(pr_ticks_t k);
void pr_host_consume(uint64_t ns);

typedef struct pr_host_costs {
    uint64_t switch_ns;
    uint64_t tick_ns;
} pr_host_costs_t;
void pr_host_set_costs(const pr_host_costs_t *costs);

/* Every record since pr_host_init. */
const pr_trace_record_t *pr_host_trace(size_t *count);

/* Only the event's name here: the lines are read by checks, which are not
 * verdicts on QEMU. */
char *pr_host_trace_line(const pr_trace_record_t *r, char *buf, size_t size);

/* The trace dump (ports/host/trace_dump.c, compiled in here too). */
void pr_host_trace_dump(FILE *out, const char *label);

#endif
