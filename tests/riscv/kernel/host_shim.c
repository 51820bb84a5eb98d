/*
 * The host port's API over the RISC-V port, so that the kernel's test
 * programs (tests/kernel/test_*.c, with tests/kernel/harness.c unchanged)
 * run bare metal on QEMU. It maps pr_host_* onto pr_riscv_*, keeps the
 * trace in RAM like the host port does, and supplies the bits of the C
 * library those programs use (stdio.h, stdlib.h here).
 *
 * On QEMU the harness always runs in trace mode: each test case's kernel
 * trace goes over the UART, and tests/riscv/compare_kernel_tests.py checks
 * that it is the host's, event for event, ignoring times.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "priora/host.h"
#include "priora/riscv.h"
#include "priora/port.h"

/* ---- the host port's calls ---- */

/* Every record since pr_host_init. The port's sink keeps what a full ring
 * holds in the rest of this array during a run (pr_riscv_trace_store);
 * pr_host_trace adds what is left in the ring, between runs. */
#define TRACE_CAPACITY 8192
static pr_trace_record_t records[TRACE_CAPACITY];
static size_t record_count;

static void store_the_rest(void) { pr_riscv_trace_store(records + record_count, TRACE_CAPACITY - record_count); }

int pr_host_init(const pr_kernel_config_t *config)
{
    record_count = 0;
    int err = pr_riscv_init(config);
    store_the_rest();
    return err;
}

pr_host_stop_t pr_host_run_until(uint64_t until_ns)
{
    return pr_riscv_run_until(until_ns) == PR_RISCV_QUIESCENT ? PR_HOST_QUIESCENT : PR_HOST_REACHED;
}

pr_host_stop_t pr_host_run_ticks(pr_ticks_t tick) { return pr_host_run_until(pr_host_tick_time(tick)); }

uint64_t pr_host_now(void) { return pr_riscv_now(); }

uint64_t pr_host_tick_time(pr_ticks_t k)
{
    uint64_t hz = pr_tick_hz();
    return (k / hz) * 1000000000u + (k % hz) * 1000000000u / hz;
}

void pr_host_consume(uint64_t ns) { pr_port_consume(ns); }

void pr_host_set_tick_hook(pr_host_tick_hook_t fn, void *arg) { pr_kernel_set_tick_hook(fn, arg); }

void pr_host_set_costs(const pr_host_costs_t *costs) { (void)costs; }

/* Records beyond the capacity are dropped and counted by the kernel as
 * lost (the frame's footer reports them, and the comparison fails). */
const pr_trace_record_t *pr_host_trace(size_t *count)
{
    record_count += pr_riscv_trace_stored();
    while (record_count < TRACE_CAPACITY) {
        size_t got = pr_trace_drain(records + record_count, TRACE_CAPACITY - record_count);
        if (got == 0)
            break;
        record_count += got;
    }
    store_the_rest();
    *count = record_count;
    return records;
}

char *pr_host_trace_line(const pr_trace_record_t *r, char *buf, size_t size)
{
    const char *name = pr_trace_event_name(r->event);
    size_t n = strlen(name);
    if (size == 0)
        return buf;
    if (n >= size)
        n = size - 1;
    memcpy(buf, name, n);
    buf[n] = '\0';
    return buf;
}

/* ---- stdio.h: stdout to the UART, stderr discarded ---- */

struct shim_file {
    int discard;
};
static struct shim_file out_file = {0}, err_file = {1};
FILE *const stdout = &out_file;
FILE *const stderr = &err_file;

static int put_unsigned(FILE *f, unsigned long long v, unsigned base, int width, char pad)
{
    char digits[24];
    int n = 0;
    do {
        digits[n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v != 0);
    int written = 0;
    for (; width > n; width--, written++)
        if (!f->discard)
            pr_riscv_putc(pad);
    while (n > 0) {
        n--;
        written++;
        if (!f->discard)
            pr_riscv_putc(digits[n]);
    }
    return written;
}

int vfprintf(FILE *f, const char *fmt, va_list ap)
{
    int written = 0;
    for (const char *p = fmt; *p != '\0'; p++) {
        if (*p != '%') {
            if (!f->discard)
                pr_riscv_putc(*p);
            written++;
            continue;
        }
        p++;
        char pad = ' ';
        int width = 0, length = 0;
        if (*p == '0') {
            pad = '0';
            p++;
        }
        while (*p >= '0' && *p <= '9')
            width = width * 10 + (*p++ - '0');
        while (*p == 'l' || *p == 'z') {
            length = *p == 'z' ? 3 : length + 1;
            p++;
        }
        switch (*p) {
        case 'd':
        case 'i': {
            long long v = length == 0 ? va_arg(ap, int)
                          : length == 1 ? va_arg(ap, long)
                          : length == 3 ? (long long)va_arg(ap, size_t)
                                        : va_arg(ap, long long);
            unsigned long long mag = (unsigned long long)v;
            if (v < 0) {
                if (!f->discard)
                    pr_riscv_putc('-');
                written++;
                mag = 0 - mag;
            }
            written += put_unsigned(f, mag, 10, width, pad);
            break;
        }
        case 'u':
        case 'x': {
            unsigned long long v = length == 0 ? va_arg(ap, unsigned)
                                   : length == 1 ? va_arg(ap, unsigned long)
                                   : length == 3 ? va_arg(ap, size_t)
                                                 : va_arg(ap, unsigned long long);
            written += put_unsigned(f, v, *p == 'x' ? 16 : 10, width, pad);
            break;
        }
        case 'c':
            if (!f->discard)
                pr_riscv_putc((char)va_arg(ap, int));
            written++;
            break;
        case 's': {
            const char *s = va_arg(ap, const char *);
            for (; *s != '\0'; s++, written++)
                if (!f->discard)
                    pr_riscv_putc(*s);
            break;
        }
        case '%':
            if (!f->discard)
                pr_riscv_putc('%');
            written++;
            break;
        default: /* not supported: shown as is */
            if (!f->discard)
                pr_riscv_puts("%?");
            written += 2;
            break;
        }
    }
    return written;
}

int fprintf(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vfprintf(f, fmt, ap);
    va_end(ap);
    return n;
}

int printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vfprintf(stdout, fmt, ap);
    va_end(ap);
    return n;
}

int puts(const char *s)
{
    pr_riscv_puts(s);
    pr_riscv_putc('\n');
    return 0;
}

/* ---- stdlib.h: a bump allocator ---- */

#define ARENA_BYTES (1u << 20)
static _Alignas(16) unsigned char arena[ARENA_BYTES];
static size_t arena_used;

typedef struct block {
    size_t size;
    size_t pad; /* keeps the payload 16-byte aligned on RV64 too */
} block_t;

void *malloc(size_t size)
{
    size_t need = (sizeof(block_t) + size + 15u) & ~(size_t)15u;
    if (size == 0 || need > ARENA_BYTES - arena_used)
        return NULL;
    block_t *b = (block_t *)(void *)(arena + arena_used);
    arena_used += need;
    b->size = size;
    return b + 1;
}

void *realloc(void *p, size_t size)
{
    void *q = malloc(size);
    if (p != NULL && q != NULL) {
        size_t old = ((block_t *)p - 1)->size;
        memcpy(q, p, old < size ? old : size);
    }
    return q;
}

void free(void *p) { (void)p; }
