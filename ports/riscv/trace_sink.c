/*
 * Where the trace goes: over the UART to the host, one line per record,
 * "T " and the record's 24 bytes in memory order (little-endian) as 48 hex
 * digits. tests/riscv/decode_trace.py reads it back. docs/riscv-port.md
 * gives the whole format.
 *
 * Records are drained when the program asks (pr_riscv_trace_end) and when
 * the kernel's ring is full (pr_port_trace_full). The latter prints from
 * inside a kernel call: printing takes virtual time (every UART write is an
 * instruction), which shows in the times of the records that follow. A
 * scenario whose trace fits in the ring (PR_CONFIG_TRACE_RECORDS) is not
 * disturbed.
 *
 * A program may instead give the sink a RAM buffer (pr_riscv_trace_store):
 * a full ring then goes into the buffer, a few records at a time, and
 * nothing is printed before pr_riscv_trace_end. The scenario runner
 * (apps/scenario_runner.c) does, so that its trace is complete and its
 * timing undisturbed by the UART.
 */
#include "riscv.h"

/* Records moved from the ring to the buffer per pr_port_trace_full: small,
 * so that each drain costs a few hundred instructions rather than one burst
 * of the whole ring (about 23 instructions per record on RV32 either way). */
#define TRACE_STORE_BATCH 16

static uint32_t printed; /* records printed since pr_riscv_init */
static pr_trace_record_t *store; /* the RAM buffer, or NULL: print at once */
static size_t store_capacity, stored;

void riscv_trace_reset(void)
{
    printed = 0;
    stored = 0;
}

void pr_riscv_trace_store(pr_trace_record_t *buffer, size_t capacity)
{
    store = buffer;
    store_capacity = buffer != NULL ? capacity : 0;
    stored = 0;
}

size_t pr_riscv_trace_stored(void) { return stored; }

static void put_record(const pr_trace_record_t *r)
{
    const unsigned char *b = (const unsigned char *)r;
    pr_riscv_puts("T ");
    for (size_t i = 0; i < sizeof *r; i++)
        pr_riscv_put_hex(b[i], 2);
    pr_riscv_putc('\n');
}

/* Prints the buffer (if any), then everything left in the ring. */
static void drain(void)
{
    for (size_t i = 0; i < stored; i++)
        put_record(&store[i]);
    printed += (uint32_t)stored;
    stored = 0;
    pr_trace_record_t batch[8];
    size_t n;
    while ((n = pr_trace_drain(batch, sizeof batch / sizeof batch[0])) > 0) {
        for (size_t i = 0; i < n; i++)
            put_record(&batch[i]);
        printed += (uint32_t)n;
    }
}

/* Called by the kernel, inside a kernel call, interrupts masked. With a
 * buffer: a small batch into it, or nothing once it is full (the kernel then
 * counts the record as lost). */
void pr_port_trace_full(void)
{
    if (store == NULL) {
        drain();
        return;
    }
    size_t room = store_capacity - stored;
    stored += pr_trace_drain(&store[stored], room < TRACE_STORE_BATCH ? room : TRACE_STORE_BATCH);
}

void pr_riscv_trace_begin(const char *label)
{
    pr_riscv_puts("PRIORA-TRACE BEGIN ");
    pr_riscv_puts(label);
    pr_riscv_puts(" tick_hz=");
    pr_riscv_put_dec(pr_tick_hz());
    pr_riscv_putc('\n');
}

static void put_name(char kind, int id, const char *name)
{
    pr_riscv_puts("N ");
    pr_riscv_putc(kind);
    pr_riscv_putc(' ');
    pr_riscv_put_dec((uint64_t)id);
    pr_riscv_putc(' ');
    pr_riscv_puts(name[0] != '\0' ? name : "-");
    pr_riscv_putc('\n');
}

void pr_riscv_trace_end(const char *label)
{
    drain();
    for (int i = 0; i < PR_CONFIG_MAX_TASKS; i++) {
        pr_task_status_t st;
        if (pr_task_status(i, &st) == PR_OK)
            put_name('T', i, st.name);
    }
    for (int i = 0; i < PR_CONFIG_MAX_SEMS; i++) {
        pr_sem_attr_t attr;
        if (pr_sem_attr_get(i, &attr) == PR_OK)
            put_name('S', i, attr.name != NULL ? attr.name : "");
    }
    pr_riscv_puts("PRIORA-TRACE END ");
    pr_riscv_puts(label);
    pr_riscv_puts(" records=");
    pr_riscv_put_dec(printed);
    pr_riscv_puts(" lost=");
    pr_riscv_put_dec(pr_trace_lost());
    pr_riscv_putc('\n');
}
