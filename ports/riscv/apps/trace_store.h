/*
 * The trace kept in RAM during a run (ports/riscv/trace_sink.c), for
 * programs that must not be disturbed by the UART: the scenario runner.
 *
 * By default the port prints records over the UART as soon as the kernel's
 * ring is full, from inside the kernel call that found it full (every UART
 * write is an instruction, so the printing takes virtual time). Once a
 * program gives the sink a buffer, a full ring is drained into the buffer
 * instead, a few records at a time (TRACE_STORE_BATCH), and nothing is
 * printed until pr_riscv_trace_end, which prints the buffer, then what is
 * left in the ring. A full buffer is not drained: the kernel then drops
 * records and counts them (pr_trace_lost), and the END line says so.
 *
 * (Declared here rather than in include/priora/riscv.h, which another part
 * of the project owns; it belongs there.)
 */
#ifndef PRIORA_RISCV_TRACE_STORE_H
#define PRIORA_RISCV_TRACE_STORE_H

#include <stddef.h>
#include "priora/trace.h"

/* Records moved from the ring to the buffer per pr_port_trace_full: small,
 * so that each drain costs a few hundred instructions rather than one burst
 * of the whole ring (the copy is about 23 instructions per record on RV32
 * either way). */
#define TRACE_STORE_BATCH 16

/* Keep records in `buffer` (room for `capacity` records) from now on; NULL
 * prints them over the UART again. pr_riscv_init empties the buffer but
 * keeps it. */
void pr_riscv_trace_store(pr_trace_record_t *buffer, size_t capacity);

/* Records in the buffer now. */
size_t pr_riscv_trace_stored(void);

#endif
