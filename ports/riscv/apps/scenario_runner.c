/*
 * The scenario runner: one image per ISA that runs any scenario the lab
 * gives it, never relinked. `priora run FILE --target qemu-rv32|qemu-rv64`
 * (lab/priora/run/qemu_run.py) writes the scenario as a blob (docs/qemu-run.md
 * gives the format) and QEMU's generic loader puts it in RAM at BLOB_ADDR:
 *
 *   qemu-system-riscv32 -machine virt -bios none -nographic -m 128M \
 *       -icount shift=0,sleep=off -kernel scenario_runner.elf \
 *       -device loader,file=blob.bin,addr=0x87000000,force-raw=on
 *
 * The runner checks the whole blob before the kernel starts (a bad one gets
 * one "scenario_runner: error: ..." line and QEMU exit status 10, never a
 * crash), creates one semaphore per resource (an rcs mutex with its
 * recovery: pr_script_recover), the message queues (their buffers in the
 * free RAM) and event flags, one task per task, each running the kernel's
 * scenario interpreter over its actions, the timer service task and the
 * timers (pr_script_timer_action), and sets the scenario interrupts, then
 * the sporadic tasks' arrivals (interrupts of the lab's), as the port's tick
 * hook (pr_script_interrupts_tick, as the host port does), and releases the
 * arrivals at tick 0 (pr_task_release); runs
 * to the horizon tick (or until nothing can happen any more), and prints the
 * trace and the kernel's counters over the UART.
 *
 * The trace goes into RAM during the run (pr_riscv_trace_store): the free RAM
 * between the end of the image and the blob, about 110 MiB, 4.8 million
 * records. Nothing is printed until the run is over, so the UART takes no
 * time inside it.
 *
 * Output (after the trace frame of docs/riscv-port.md, label "run"):
 *   PRIORA-RUN stop=<quiescent|horizon> end_ns=<n> ticks=<n> context_switches=<n> priority_changes=<n>
 *   PRIORA-RUN sem=<id> ups=<n> downs=<n> max_waiters=<n> aborts=<n>    (one per semaphore)
 *   PRIORA-RUN task=<id> timeouts=<n> errors=<n> aborts=<n> lost=<ns> arrivals=<n> refused=<n>
 *       deferred=<n> max_jitter=<ticks> misses=<n> hard_misses=<n> aborted=<n>
 *                                       (one per task: its script's counters, then pr_task_status's)
 *   PRIORA-RUN queue=<id> sends=<n> receives=<n> most_messages=<n> send_waits=<n> receive_waits=<n> messages=<n>
 *   PRIORA-RUN events=<id> sets=<n> wakeups=<n> flags=<n>
 *   PRIORA-RUN timer=<id> expiries=<n> dropped=<n> max_lateness=<ticks> failed=<n>
 *   PRIORA-RUN interrupt=<i> runs=<n> failed=<n>
 *   PRIORA-RUN done
 *
 * QEMU exit status: 0 the run is complete; 10 the blob is refused; 11 the
 * kernel refused an object; 12 the trace lost records (everything is still
 * printed); 13 the image reaches into the blob's region.
 */
#include <stddef.h>
#include <string.h>
#include "priora/priora.h"
#include "priora/riscv.h"
#include "priora/scenario.h"

/* ---- where things are (docs/qemu-run.md) ---- */

#define BLOB_ADDR 0x87000000u  /* QEMU virt RAM: 0x80000000 .. 0x88000000 with -m 128M */
#define BLOB_LIMIT 0x01000000u /* the blob may use the top 16 MiB of RAM */

extern char __image_end[]; /* link.ld: the end of the image (its boot stack) */

/* ---- the blob, version 6 (docs/qemu-run.md); every field little-endian ---- */

#define BLOB_MAGIC "PRSB"
#define BLOB_VERSION 6u
#define HEADER_BYTES 88u
#define SEM_BYTES 48u /* every entry a multiple of 8: the action table stays 8-aligned */
#define QUEUE_BYTES 32u
#define EVENTS_BYTES 16u
#define TASK_BYTES 96u
#define PERIODIC_BYTES 48u /* a timer or an interrupt */
#define ACTION_BYTES 24u
#define NAME_BYTES 16u
#define MAX_INTERRUPTS 32u    /* the lab's limit (priora.scenario) */
#define MAX_ARRIVALS 4096u    /* the lab's limit of sporadic arrivals, so of their interrupts */
#define TASK_FLAGS (PR_TASK_SPORADIC | PR_TASK_DEFER_EARLY | PR_TASK_HARD)
#define QUEUE_LENGTH_MAX 1024u /* the lab's limit */

/* Known bits of a semaphore entry's flags. */
#define SEM_FLAGS (PR_SEM_PRIO | PR_SEM_MUTEX | PR_SEM_RECURSIVE | PR_SEM_BINARY)

/* The action table is laid out as the kernel's pr_action_t on both ISAs, so
 * the scripts point into the blob itself: no copy, no limit on the actions
 * but the blob's size. */
_Static_assert(sizeof(pr_action_t) == ACTION_BYTES, "pr_action_t is the blob's action entry");
_Static_assert(offsetof(pr_action_t, kind) == 0 && sizeof(pr_action_kind_t) == 4, "action kind");
_Static_assert(offsetof(pr_action_t, sem) == 4 && sizeof(pr_id_t) == 4, "action sem");
_Static_assert(offsetof(pr_action_t, timeout) == 8 && sizeof(pr_timeout_t) == 4, "action timeout");
_Static_assert(offsetof(pr_action_t, options) == 12, "action options");
_Static_assert(offsetof(pr_action_t, amount) == 16, "action amount");

#define EXIT_BAD_BLOB 10
#define EXIT_REFUSED 11
#define EXIT_LOST 12
#define EXIT_LAYOUT 13

static const unsigned char *const blob = (const unsigned char *)(uintptr_t)BLOB_ADDR;

static uint32_t u16_at(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t u32_at(const unsigned char *p) { return u16_at(p) | u16_at(p + 2) << 16; }
static uint64_t u64_at(const unsigned char *p) { return (uint64_t)u32_at(p) | (uint64_t)u32_at(p + 4) << 32; }

/* The header's fields. */
typedef struct {
    uint32_t total, crc, tick_hz, ntasks, nsems, nactions, trace_limit;
    uint32_t nqueues, nevents, ntimers, ninterrupts, service_priority;
    uint32_t timeshare_levels, timeshare_quantum, timeshare_decay;
    uint32_t privileges; /* groups 2..8: 4 bits each, group g's at bit 4 (g - 2) */
    uint32_t narrivals;  /* the arrivals' interrupts, after the file's (one per tick with arrivals) */
    uint64_t quantum, horizon;
} header_t;

/* ---- messages ---- */

static void say(const char *a, const char *b, const char *c)
{
    pr_riscv_puts("scenario_runner: ");
    pr_riscv_puts(a);
    if (b != NULL)
        pr_riscv_puts(b);
    if (c != NULL)
        pr_riscv_puts(c);
}

static _Noreturn void fail(int status, const char *what, const char *why)
{
    say("error: ", what, why);
    pr_riscv_putc('\n');
    pr_riscv_exit(status);
}

/* A refused blob entry: "task 3: priority 40 is out of range". */
static _Noreturn void bad_entry(const char *kind, uint32_t index, const char *why, uint64_t value)
{
    say("error: blob: ", kind, " ");
    pr_riscv_put_dec(index);
    pr_riscv_puts(": ");
    pr_riscv_puts(why);
    pr_riscv_put_dec(value);
    pr_riscv_putc('\n');
    pr_riscv_exit(EXIT_BAD_BLOB);
}

static _Noreturn void bad_blob(const char *why, uint64_t value)
{
    say("error: blob: ", why, NULL);
    pr_riscv_put_dec(value);
    pr_riscv_putc('\n');
    pr_riscv_exit(EXIT_BAD_BLOB);
}

static _Noreturn void refused(const char *what, uint32_t index, int err)
{
    say("error: the kernel refused ", what, " ");
    pr_riscv_put_dec(index);
    pr_riscv_puts(": ");
    pr_riscv_puts(pr_errname(err));
    pr_riscv_putc('\n');
    pr_riscv_exit(EXIT_REFUSED);
}

/* ---- checking the blob ---- */

/* CRC-32 as zlib computes it (reflected, polynomial 0xEDB88320). */
static uint32_t crc32(const unsigned char *p, uint32_t n)
{
    static uint32_t table[256];
    if (table[1] == 0) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
    }
    uint32_t c = 0xFFFFFFFFu;
    for (uint32_t i = 0; i < n; i++)
        c = table[(c ^ p[i]) & 0xFFu] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

static int all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0)
            return 0;
    return 1;
}

/* A name field: 1 to 15 characters, then NULs. */
static int name_ok(const unsigned char *p)
{
    size_t n = 0;
    while (n < NAME_BYTES && p[n] != 0)
        n++;
    return n > 0 && n < NAME_BYTES && all_zero(p + n, NAME_BYTES - n);
}

static header_t check_header(void)
{
    header_t h;
    if (memcmp(blob, BLOB_MAGIC, 4) != 0)
        fail(EXIT_BAD_BLOB, "blob: no scenario blob at 0x87000000 (the magic is not \"PRSB\"): ",
             "load one with -device loader,file=BLOB,addr=0x87000000,force-raw=on");
    if (u16_at(blob + 4) != BLOB_VERSION)
        bad_blob("unsupported version (this runner reads version 6): ", u16_at(blob + 4));
    if (u16_at(blob + 6) != HEADER_BYTES)
        bad_blob("the header must be 88 bytes, it says ", u16_at(blob + 6));
    h.total = u32_at(blob + 8);
    h.crc = u32_at(blob + 12);
    if (h.total < HEADER_BYTES || h.total > BLOB_LIMIT)
        bad_blob("total size out of range (88 .. 16777216 bytes): ", h.total);
    if (crc32(blob + 16, h.total - 16) != h.crc)
        bad_blob("checksum mismatch (a truncated or altered blob); stored CRC-32 ", h.crc);
    h.tick_hz = u32_at(blob + 16);
    h.ntasks = u16_at(blob + 20);
    h.nsems = u16_at(blob + 22);
    h.nactions = u32_at(blob + 24);
    h.quantum = u64_at(blob + 32);
    h.horizon = u64_at(blob + 40);
    h.trace_limit = u32_at(blob + 48);
    h.nqueues = u16_at(blob + 52);
    h.nevents = u16_at(blob + 54);
    h.ntimers = u16_at(blob + 56);
    h.ninterrupts = u16_at(blob + 58);
    h.service_priority = u32_at(blob + 60);
    h.timeshare_levels = u32_at(blob + 64);
    h.timeshare_quantum = u32_at(blob + 68);
    h.timeshare_decay = u32_at(blob + 72);
    h.privileges = u32_at(blob + 76);
    h.narrivals = u32_at(blob + 80);
    if (u32_at(blob + 28) != 0 || u32_at(blob + 84) != 0)
        bad_blob("the reserved header fields (offsets 28, 84) must be 0; flags ", u32_at(blob + 28));
    if (h.narrivals > MAX_ARRIVALS)
        bad_blob("more arrivals' interrupts than the lab's 4096 arrivals: ", h.narrivals);
    if ((h.privileges >> 28) != 0 || PR_CONFIG_PRIV_GROUPS < 8)
        bad_blob("privileges beyond groups 2..8: ", h.privileges);
    if (h.timeshare_levels > PR_PRIO_MAX)
        bad_blob("time-sharing levels out of range (0..31): ", h.timeshare_levels);
    if (h.nqueues > PR_CONFIG_MAX_MSGQS || h.nevents > PR_CONFIG_MAX_EVENTS || h.ntimers > PR_CONFIG_MAX_TIMERS ||
        h.ninterrupts > MAX_INTERRUPTS)
        bad_blob("more queues, event flags, timers or interrupts than the pools hold; queues ", h.nqueues);
    if (h.service_priority > PR_PRIO_MAX || (h.ntimers == 0 && h.service_priority != 0))
        bad_blob("timer service priority out of range (0..31; 0 without timers): ", h.service_priority);
    if (h.tick_hz == 0 || h.tick_hz > 1000000u)
        bad_blob("tick_hz out of the kernel's range 1..1000000: ", h.tick_hz);
    if (h.ntasks == 0 || h.ntasks > PR_CONFIG_MAX_TASKS)
        bad_blob("task count out of range (1 .. PR_CONFIG_MAX_TASKS): ", h.ntasks);
    if (h.nsems > PR_CONFIG_MAX_SEMS)
        bad_blob("semaphore count beyond PR_CONFIG_MAX_SEMS: ", h.nsems);
    uint64_t size = (uint64_t)HEADER_BYTES + (uint64_t)SEM_BYTES * h.nsems + (uint64_t)QUEUE_BYTES * h.nqueues +
                    (uint64_t)EVENTS_BYTES * h.nevents + (uint64_t)TASK_BYTES * h.ntasks +
                    (uint64_t)PERIODIC_BYTES * (h.ntimers + h.ninterrupts + h.narrivals) +
                    (uint64_t)ACTION_BYTES * h.nactions;
    if (size != h.total)
        bad_blob("the counts do not add up to the total size; they give ", size);
    return h;
}

static const unsigned char *sem_entry(uint32_t i) { return blob + HEADER_BYTES + SEM_BYTES * i; }

static const unsigned char *queue_entry(const header_t *h, uint32_t i)
{
    return blob + HEADER_BYTES + SEM_BYTES * h->nsems + QUEUE_BYTES * i;
}

static const unsigned char *events_entry(const header_t *h, uint32_t i)
{
    return queue_entry(h, h->nqueues) + EVENTS_BYTES * i;
}

static const unsigned char *task_entry(const header_t *h, uint32_t i)
{
    return events_entry(h, h->nevents) + TASK_BYTES * i;
}

/* Timers first, then interrupts, then the arrivals' interrupts. */
static const unsigned char *periodic_entry(const header_t *h, uint32_t i)
{
    return task_entry(h, h->ntasks) + PERIODIC_BYTES * i;
}

static const pr_action_t *action_table(const header_t *h)
{
    return (const pr_action_t *)(const void *)periodic_entry(h, h->ntimers + h->ninterrupts + h->narrivals);
}

/* A body's place in the action table: first and count inside it. */
static int body_ok(const header_t *h, uint32_t first, uint32_t count)
{
    return count != 0 && first <= h->nactions && count <= h->nactions - first;
}

static void check_sems(const header_t *h)
{
    for (uint32_t i = 0; i < h->nsems; i++) {
        const unsigned char *e = sem_entry(i);
        uint32_t flags = u32_at(e + 24), protocol = u32_at(e + 28), ceiling = u32_at(e + 32);
        int32_t value = (int32_t)u32_at(e + 16), max = (int32_t)u32_at(e + 20);
        if (!name_ok(e))
            bad_entry("semaphore", i, "the name must be 1 to 15 characters, NUL-padded; first byte ", e[0]);
        if ((flags & ~(uint32_t)SEM_FLAGS) != 0)
            bad_entry("semaphore", i, "unknown flags ", flags);
        if (protocol >= PR_PROTOCOL_COUNT)
            bad_entry("semaphore", i, "unknown protocol ", protocol);
        if (ceiling > PR_PRIO_MAX)
            bad_entry("semaphore", i, "ceiling out of range 0..31: ", ceiling);
        if (value < 0 || max < 0)
            bad_entry("semaphore", i, "value and max must be >= 0; value ", (uint32_t)value);
        if (u32_at(e + 36) != 0)
            bad_entry("semaphore", i, "reserved field (offset 36) must be 0, holds ", u32_at(e + 36));
        if (u64_at(e + 40) != 0 && (protocol != PR_PROTOCOL_RCS || (flags & PR_SEM_MUTEX) == 0))
            bad_entry("semaphore", i, "a recovery on a semaphore that is not an rcs mutex: ", u64_at(e + 40));
    }
}

static void check_tasks(const header_t *h)
{
    for (uint32_t i = 0; i < h->ntasks; i++) {
        const unsigned char *e = task_entry(h, i);
        uint32_t first = u32_at(e + 20);
        if (!name_ok(e))
            bad_entry("task", i, "the name must be 1 to 15 characters, NUL-padded; first byte ", e[0]);
        if (u32_at(e + 16) > PR_PRIO_MAX)
            bad_entry("task", i, "priority out of range 0..31: ", u32_at(e + 16));
        if (!body_ok(h, first, u32_at(e + 24)))
            bad_entry("task", i, "its actions are not inside the action table; first ", first);
        if (e[28] > PR_CLASS_TIMESHARE)
            bad_entry("task", i, "class out of range (0 real-time, 1 time sharing): ", e[28]);
        if (e[30] > PR_CONFIG_PRIV_GROUPS)
            bad_entry("task", i, "privilege group out of range (0 or 1: the system group, .. 8): ", e[30]);
        if (e[31] != 0)
            bad_entry("task", i, "reserved field (offset 31) must be 0, holds ", e[31]);
        if ((u32_at(e + 56) & ~(uint32_t)TASK_FLAGS) != 0)
            bad_entry("task", i, "unknown flags ", u32_at(e + 56));
        if (u32_at(e + 92) > MAX_ARRIVALS || (u32_at(e + 92) != 0 && (u32_at(e + 56) & PR_TASK_SPORADIC) == 0))
            bad_entry("task", i, "arrivals at tick 0 of a task that is not sporadic, or too many: ",
                      u32_at(e + 92));
    }
}

static void check_queues(const header_t *h)
{
    for (uint32_t i = 0; i < h->nqueues; i++) {
        const unsigned char *e = queue_entry(h, i);
        uint32_t length = u32_at(e + 16), flags = u32_at(e + 20);
        if (!name_ok(e))
            bad_entry("queue", i, "the name must be 1 to 15 characters, NUL-padded; first byte ", e[0]);
        if (length == 0 || length > QUEUE_LENGTH_MAX)
            bad_entry("queue", i, "length out of range 1..1024: ", length);
        if ((flags & ~(uint32_t)(PR_MSGQ_FIFO_MESSAGES | PR_MSGQ_FIFO_WAITERS | PR_MSGQ_INHERIT)) != 0)
            bad_entry("queue", i, "unknown flags ", flags);
        if (!all_zero(e + 24, 8))
            bad_entry("queue", i, "reserved field (offset 24) must be 0, holds ", u64_at(e + 24));
    }
    for (uint32_t i = 0; i < h->nevents; i++)
        if (!name_ok(events_entry(h, i)))
            bad_entry("event flags", i, "the name must be 1 to 15 characters, NUL-padded; first byte ",
                      events_entry(h, i)[0]);
}

static void check_periodics(const header_t *h)
{
    for (uint32_t i = 0; i < h->ntimers + h->ninterrupts + h->narrivals; i++) {
        const unsigned char *e = periodic_entry(h, i);
        const char *kind = i < h->ntimers ? "timer" : i < h->ntimers + h->ninterrupts ? "interrupt" : "arrivals";
        uint32_t index = i < h->ntimers ? i : i - h->ntimers;
        if (!name_ok(e))
            bad_entry(kind, index, "the name must be 1 to 15 characters, NUL-padded; first byte ", e[0]);
        if (u32_at(e + 16) > (i < h->ntimers ? (uint32_t)PR_PRIO_MAX : 0u))
            bad_entry(kind, index, "priority out of range (0..31; 0 for an interrupt): ", u32_at(e + 16));
        if (!body_ok(h, u32_at(e + 20), u32_at(e + 24)))
            bad_entry(kind, index, "its actions are not inside the action table; first ", u32_at(e + 20));
        if (u32_at(e + 28) != 0)
            bad_entry(kind, index, "reserved field (offset 28) must be 0, holds ", u32_at(e + 28));
        if (u64_at(e + 32) == 0 || u64_at(e + 32) >= PR_FOREVER)
            bad_entry(kind, index, "phase out of range (1 tick .. 2^32-2): ", u64_at(e + 32));
        if (u64_at(e + 40) > UINT32_MAX)
            bad_entry(kind, index, "period above 2^32-1 ticks: ", u64_at(e + 40));
    }
}

/* The size of the pool whose object an action's `sem` field names, or -1
 * for a kind that names none (its field must be 0). */
static int64_t objects_of(const header_t *h, uint32_t kind)
{
    switch (kind) {
    case PR_ACT_LOCK: case PR_ACT_UNLOCK: case PR_ACT_DOWN: case PR_ACT_UP:
        return h->nsems;
    case PR_ACT_SEND: case PR_ACT_RECEIVE:
        return h->nqueues;
    case PR_ACT_EVENTS_SET: case PR_ACT_EVENTS_CLEAR: case PR_ACT_EVENTS_WAIT:
        return h->nevents;
    case PR_ACT_RELEASE:
        return h->ntasks;
    }
    return -1;
}

static void check_actions(const header_t *h)
{
    const pr_action_t *a = action_table(h);
    for (uint32_t i = 0; i < h->nactions; i++) {
        const unsigned char *e = (const unsigned char *)&a[i];
        uint32_t kind = u32_at(e), object = u32_at(e + 4), options = u32_at(e + 12);
        if (kind < PR_ACT_COMPUTE ||
            (kind > PR_ACT_EVENTS_WAIT && kind != PR_ACT_RTPRIO && kind != PR_ACT_NICE && kind != PR_ACT_RELEASE))
            bad_entry("action", i, "unknown kind ", kind);
        int64_t pool = objects_of(h, kind);
        if ((pool >= 0 && object >= pool) || (pool < 0 && object != 0))
            bad_entry("action", i, "object id out of range: ", object);
        if (options != 0 && kind != PR_ACT_SEND && kind != PR_ACT_EVENTS_WAIT)
            bad_entry("action", i, "options (offset 12) must be 0 for this kind, holds ", options);
    }
}

/* ---- running it ---- */

static pr_script_t scripts[PR_CONFIG_MAX_TASKS];
static pr_script_t timer_scripts[PR_CONFIG_MAX_TIMERS]; /* their calls' failures are counted here */
static pr_script_interrupt_t *interrupt_list; /* the file's, then the arrivals': in the free RAM */
static pr_script_interrupts_t interrupts = {NULL, 0};
static uint64_t recovery_ns[PR_CONFIG_MAX_SEMS]; /* what each mutex's recovery computes: the kernel keeps &it */

/* A checked name field is a C string (the kernel copies it). */
static const char *name_of(const unsigned char *entry) { return (const char *)entry; }

static void create_sems(const header_t *h)
{
    for (uint32_t i = 0; i < h->nsems; i++) {
        const unsigned char *e = sem_entry(i);
        pr_sem_attr_t attr;
        pr_id_t id;
        pr_sem_attr_init(&attr);
        attr.name = name_of(e);
        attr.value = (int)u32_at(e + 16);
        attr.max = (int)u32_at(e + 20);
        attr.flags = u32_at(e + 24);
        attr.protocol = (pr_protocol_t)u32_at(e + 28);
        attr.ceiling = (pr_prio_t)u32_at(e + 32);
        int err = pr_sem_alloc(&attr, &id);
        if (err != PR_OK)
            refused("semaphore", i, err);
        if ((uint32_t)id != i)
            refused("semaphore (its id is not its index)", i, PR_EINVAL);
        recovery_ns[i] = u64_at(e + 40);
        if (recovery_ns[i] != 0) {
            pr_sem_recovery_t recovery = {pr_script_recover, &recovery_ns[i]};
            err = pr_sem_control(id, PR_SEM_CTL_RECOVERY, &recovery);
            if (err != PR_OK)
                refused("the recovery of semaphore", i, err);
        }
    }
}

static void create_tasks(const header_t *h)
{
    const pr_action_t *actions = action_table(h);
    for (uint32_t i = 0; i < h->ntasks; i++) {
        const unsigned char *e = task_entry(h, i);
        pr_task_attr_t attr;
        pr_id_t id;
        scripts[i] = (pr_script_t){&actions[u32_at(e + 20)], u32_at(e + 24), 0, 0, 0, 0, 0, 0, 0, 0, 0};
        scripts[i].exec_spread = u32_at(e + 84);
        scripts[i].exec_state = u32_at(e + 88);
        uint32_t bad = 0;
        if (pr_script_check(&scripts[i], &bad) != PR_OK)
            refused("the body of task", i, PR_EINVAL);
        pr_task_attr_init(&attr);
        attr.name = name_of(e);
        attr.priority = (pr_prio_t)u32_at(e + 16);
        attr.entry = pr_script_body;
        attr.arg = &scripts[i];
        attr.period = u64_at(e + 32);
        attr.phase = u64_at(e + 40);
        attr.deadline = u64_at(e + 48);
        attr.sched_class = e[28];
        attr.nice = (int8_t)e[29];
        attr.priv_group = e[30];
        attr.flags = u32_at(e + 56);
        attr.min_interarrival = u32_at(e + 60);
        attr.jitter = u32_at(e + 64);
        attr.jitter_seed = u32_at(e + 68);
        attr.importance = u32_at(e + 72);
        attr.abort_time = u32_at(e + 76);
        attr.offset = u32_at(e + 80);
        int err = pr_task_create(&attr, &id);
        if (err != PR_OK)
            refused("task", i, err);
        if ((uint32_t)id != i)
            refused("task (its id is not its index)", i, PR_EINVAL);
    }
}

/* The queues' buffers come from the free RAM at *free (8-aligned), which
 * moves past them; the trace gets the rest. */
static void create_queues_and_events(const header_t *h, uintptr_t *free)
{
    for (uint32_t i = 0; i < h->nqueues; i++) {
        const unsigned char *e = queue_entry(h, i);
        pr_msgq_attr_t attr;
        pr_id_t id;
        pr_msgq_attr_init(&attr);
        attr.name = name_of(e);
        attr.msg_size = PR_SCRIPT_MSG_SIZE;
        attr.length = (int)u32_at(e + 16);
        attr.flags = u32_at(e + 20);
        attr.buffer = (void *)*free;
        attr.buffer_bytes = PR_MSGQ_BUFFER_BYTES(PR_SCRIPT_MSG_SIZE, attr.length);
        *free = (*free + attr.buffer_bytes + 7u) & ~(uintptr_t)7u;
        int err = pr_msgq_alloc(&attr, &id);
        if (err != PR_OK)
            refused("queue", i, err);
        if ((uint32_t)id != i)
            refused("queue (its id is not its index)", i, PR_EINVAL);
    }
    for (uint32_t i = 0; i < h->nevents; i++) {
        pr_id_t id;
        int err = pr_events_alloc(name_of(events_entry(h, i)), &id);
        if (err != PR_OK)
            refused("event flags", i, err);
        if ((uint32_t)id != i)
            refused("event flags (their id is not their index)", i, PR_EINVAL);
    }
}

/* After the tasks: the timer service is kernel task ntasks. */
static void create_timers_and_interrupts(const header_t *h)
{
    const pr_action_t *actions = action_table(h);
    if (h->ntimers != 0) {
        int err = pr_timer_service_start((pr_prio_t)h->service_priority, NULL);
        if (err != PR_OK)
            refused("the timer service task", 0, err);
    }
    for (uint32_t i = 0; i < h->ntimers; i++) {
        const unsigned char *e = periodic_entry(h, i);
        timer_scripts[i] = (pr_script_t){&actions[u32_at(e + 20)], u32_at(e + 24), 0, 0, 0, 0, 0, 0, 0, 0, 0};
        if (pr_script_check_once(&timer_scripts[i], NULL) != PR_OK)
            refused("the body of timer", i, PR_EINVAL);
        pr_timer_attr_t attr;
        pr_id_t id;
        pr_timer_attr_init(&attr);
        attr.name = name_of(e);
        attr.action = pr_script_timer_action;
        attr.arg = &timer_scripts[i];
        attr.priority = (pr_prio_t)u32_at(e + 16);
        attr.period = u64_at(e + 40);
        int err = pr_timer_alloc(&attr, &id);
        if (err == PR_OK)
            err = pr_timer_start(id, (pr_timeout_t)u64_at(e + 32));
        if (err != PR_OK)
            refused("timer", i, err);
    }
    for (uint32_t i = 0; i < h->ninterrupts + h->narrivals; i++) {
        const unsigned char *e = periodic_entry(h, h->ntimers + i);
        pr_script_interrupt_t *irq = &interrupt_list[i];
        irq->phase = u64_at(e + 32);
        irq->period = u64_at(e + 40);
        irq->script = (pr_script_t){&actions[u32_at(e + 20)], u32_at(e + 24), 0, 0, 0, 0, 0, 0, 0, 0, 0};
        if (pr_script_check_once(&irq->script, NULL) != PR_OK)
            refused("the body of interrupt", i, PR_EINVAL);
    }
    interrupts.list = interrupt_list;
    interrupts.count = h->ninterrupts + h->narrivals;
    if (interrupts.count != 0)
        pr_riscv_set_tick_hook(pr_script_interrupts_tick, &interrupts);
    /* The arrivals at tick 0, which has no tick interrupt: from outside the
     * kernel once every task exists, in task order (as the host port's run). */
    for (uint32_t i = 0; i < h->ntasks; i++)
        for (uint32_t k = u32_at(task_entry(h, i) + 92); k > 0; k--)
            (void)pr_task_release((pr_id_t)i); /* an early one is refused or deferred: the trace says */
}

static void put_field(const char *name, uint64_t value)
{
    pr_riscv_putc(' ');
    pr_riscv_puts(name);
    pr_riscv_putc('=');
    pr_riscv_put_dec(value);
}

static void print_services(const header_t *h)
{
    for (uint32_t i = 0; i < h->nqueues; i++) {
        pr_msgq_status_t q;
        if (pr_msgq_status((pr_id_t)i, &q) != PR_OK)
            continue;
        pr_riscv_puts("PRIORA-RUN");
        put_field("queue", i);
        put_field("sends", q.sends);
        put_field("receives", q.receives);
        put_field("most_messages", (uint64_t)q.most_messages);
        put_field("send_waits", q.send_waits);
        put_field("receive_waits", q.receive_waits);
        put_field("messages", (uint64_t)q.messages);
        pr_riscv_putc('\n');
    }
    for (uint32_t i = 0; i < h->nevents; i++) {
        pr_events_status_t e;
        if (pr_events_status((pr_id_t)i, &e) != PR_OK)
            continue;
        pr_riscv_puts("PRIORA-RUN");
        put_field("events", i);
        put_field("sets", e.sets);
        put_field("wakeups", e.wakeups);
        put_field("flags", e.flags);
        pr_riscv_putc('\n');
    }
    for (uint32_t i = 0; i < h->ntimers; i++) {
        pr_timer_status_t t;
        if (pr_timer_status((pr_id_t)i, &t) != PR_OK)
            continue;
        pr_riscv_puts("PRIORA-RUN");
        put_field("timer", i);
        put_field("expiries", t.expiries);
        put_field("dropped", t.dropped);
        put_field("max_lateness", t.max_lateness);
        put_field("failed", (uint64_t)timer_scripts[i].timeouts + timer_scripts[i].errors);
        pr_riscv_putc('\n');
    }
    for (uint32_t i = 0; i < h->ninterrupts; i++) {
        pr_riscv_puts("PRIORA-RUN");
        put_field("interrupt", i);
        put_field("runs", interrupt_list[i].fired);
        put_field("failed", (uint64_t)interrupt_list[i].script.timeouts + interrupt_list[i].script.errors);
        pr_riscv_putc('\n');
    }
}

int main(void)
{
    /* The trace buffer: from the end of the image (8-byte aligned) to the blob. */
    uintptr_t free_start = ((uintptr_t)__image_end + 7u) & ~(uintptr_t)7u;
    if (free_start + 1024u * sizeof(pr_trace_record_t) > BLOB_ADDR)
        fail(EXIT_LAYOUT, "the image reaches into the blob's region at 0x87000000", "");
    size_t capacity = (BLOB_ADDR - free_start) / sizeof(pr_trace_record_t);

    header_t h = check_header();
    check_sems(&h);
    check_queues(&h);
    check_tasks(&h);
    check_periodics(&h);
    check_actions(&h);
    if (h.trace_limit != 0 && h.trace_limit < capacity)
        capacity = h.trace_limit;

    pr_kernel_config_t cfg = {.tick_hz = h.tick_hz,
                              .quantum = h.quantum,
                              .timeshare_levels = (int)h.timeshare_levels,
                              .timeshare_quantum = h.timeshare_quantum,
                              .timeshare_decay = h.timeshare_decay};
    int err = pr_riscv_init(&cfg);
    if (err != PR_OK)
        refused("the configuration (tick_hz, quantum, time-sharing band)", 0, err);
    for (int g = 2; g <= 8; g++) { /* before the objects whose creation a privilege may guard */
        pr_privs_t privs = h.privileges >> (4 * (g - 2)) & 0xFu;
        if (privs != 0 && (err = pr_priv_group_set(g, privs)) != PR_OK) /* a group starts with none */
            refused("privilege group", (uint32_t)g, err);
    }
    create_sems(&h);
    uintptr_t trace_start = free_start;
    create_queues_and_events(&h, &trace_start);
    interrupt_list = (pr_script_interrupt_t *)trace_start; /* 8-aligned */
    trace_start = (trace_start + sizeof *interrupt_list * (h.ninterrupts + h.narrivals) + 7u) & ~(uintptr_t)7u;
    capacity -= (trace_start - free_start + sizeof(pr_trace_record_t) - 1) / sizeof(pr_trace_record_t);
    pr_riscv_trace_store((pr_trace_record_t *)trace_start, capacity);
    create_tasks(&h);
    create_timers_and_interrupts(&h);

    pr_riscv_stop_t stop = pr_riscv_run(h.horizon); /* 0: no limit */
    uint64_t end = pr_riscv_now();

    /* The run is over: printing takes time, but no longer disturbs it. */
    pr_kernel_stats_t stats;
    pr_kernel_stats(&stats);
    uint32_t lost = pr_trace_lost();
    pr_riscv_trace_begin("run");
    pr_riscv_trace_end("run");
    pr_riscv_puts("PRIORA-RUN stop=");
    pr_riscv_puts(stop == PR_RISCV_QUIESCENT ? "quiescent" : "horizon");
    put_field("end_ns", end);
    put_field("ticks", pr_ticks_now());
    put_field("context_switches", stats.context_switches);
    put_field("priority_changes", stats.priority_changes);
    put_field("trace_capacity", capacity);
    pr_riscv_putc('\n');
    for (uint32_t i = 0; i < h.nsems; i++) {
        pr_sem_stats_t s;
        if (pr_sem_stats((pr_id_t)i, &s) != PR_OK)
            continue;
        pr_riscv_puts("PRIORA-RUN");
        put_field("sem", i);
        put_field("ups", s.ups);
        put_field("downs", s.downs);
        put_field("max_waiters", s.max_waiters);
        put_field("aborts", s.aborts);
        pr_riscv_putc('\n');
    }
    for (uint32_t i = 0; i < h.ntasks; i++) {
        pr_task_status_t st;
        if (pr_task_status((pr_id_t)i, &st) != PR_OK)
            memset(&st, 0, sizeof st);
        pr_riscv_puts("PRIORA-RUN");
        put_field("task", i);
        put_field("timeouts", scripts[i].timeouts);
        put_field("errors", scripts[i].errors);
        put_field("aborts", scripts[i].aborts);
        put_field("lost", scripts[i].lost);
        put_field("arrivals", st.arrivals);
        put_field("refused", st.releases_refused);
        put_field("deferred", st.releases_deferred);
        put_field("max_jitter", st.max_jitter);
        put_field("misses", st.deadline_misses);
        put_field("hard_misses", st.hard_misses);
        put_field("aborted", st.jobs_aborted);
        pr_riscv_putc('\n');
    }
    print_services(&h);
    pr_riscv_puts("PRIORA-RUN done\n");
    if (lost != 0) {
        say("error: the trace lost ", "", "");
        pr_riscv_put_dec(lost);
        pr_riscv_puts(" records (the RAM buffer holds ");
        pr_riscv_put_dec(capacity);
        pr_riscv_puts(")\n");
        return EXIT_LOST;
    }
    return 0;
}
