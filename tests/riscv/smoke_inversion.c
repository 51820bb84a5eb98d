/*
 * Smoke test of the RISC-V port: the classic priority inversion (the same
 * scenario as examples/inversion_demo.c and examples/inversion.toml), run on
 * the real kernel with real traps, first with basic priority inheritance
 * (protocol pip), then, after a kernel re-init, without (protocol none).
 * Each run's trace goes over the UART (scripts/qemu-smoke.sh decodes and
 * checks it); QEMU exits with pass when both runs ended quiescent.
 *
 *   L (priority 1, released at 0): lock S, compute 4, unlock S, compute 1
 *   H (priority 3, released at 1): compute 1, lock S, compute 1, unlock S, compute 1
 *   M (priority 2, released at 2): compute 5 (never touches S)
 *
 * Tick 1000 Hz; compute n = n ms of the task's CPU time (pr_port_consume).
 */
#include "priora/priora.h"
#include "priora/riscv.h"
#include "priora/scenario.h"
#include "scenarios/inversion.h"

#define NTASKS INVERSION_TASKS
#define LIMIT_TICKS 100 /* the scenario is over at 13: a hang stops here */

static const inversion_task_t *const tasks = inversion_tasks;

static pr_script_t scripts[NTASKS];

static int fail(const char *what, int err)
{
    pr_riscv_puts("smoke: ");
    pr_riscv_puts(what);
    pr_riscv_puts(" failed: ");
    pr_riscv_puts(pr_errname(err));
    pr_riscv_putc('\n');
    return 1;
}

static int run(const char *label, pr_protocol_t protocol)
{
    pr_kernel_config_t cfg = {.tick_hz = INVERSION_TICK_HZ, .quantum = 0};
    pr_sem_attr_t sattr;
    pr_task_attr_t tattr;
    pr_id_t id;
    int err;

    if ((err = pr_riscv_init(&cfg)) != PR_OK)
        return fail("pr_riscv_init", err);
    pr_riscv_trace_begin(label);

    pr_sem_attr_init(&sattr);
    sattr.name = "S";
    sattr.value = 1;
    sattr.flags = PR_SEM_MUTEX | PR_SEM_PRIO;
    sattr.protocol = protocol;
    if ((err = pr_sem_alloc(&sattr, &id)) != PR_OK || id != 0)
        return fail("pr_sem_alloc", err);

    for (int i = 0; i < NTASKS; i++) {
        scripts[i] = (pr_script_t){tasks[i].body, tasks[i].actions, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        if ((err = pr_script_check(&scripts[i], NULL)) != PR_OK)
            return fail("pr_script_check", err);
        pr_task_attr_init(&tattr);
        tattr.name = tasks[i].name;
        tattr.priority = tasks[i].priority;
        tattr.phase = tasks[i].phase;
        tattr.entry = pr_script_body;
        tattr.arg = &scripts[i];
        if ((err = pr_task_create(&tattr, &id)) != PR_OK || id != i)
            return fail("pr_task_create", err);
    }

    pr_riscv_stop_t stop = pr_riscv_run(LIMIT_TICKS);
    uint64_t end = pr_riscv_now();
    pr_riscv_trace_end(label);

    pr_riscv_puts("smoke: ");
    pr_riscv_puts(label);
    pr_riscv_puts(stop == PR_RISCV_QUIESCENT ? ": quiescent at " : ": stopped at the limit, ");
    pr_riscv_put_dec(end);
    pr_riscv_puts(" ns, ");
    pr_riscv_put_dec(pr_ticks_now());
    pr_riscv_puts(" ticks\n");
    for (int i = 0; i < NTASKS; i++) {
        if (scripts[i].errors != 0 || scripts[i].timeouts != 0)
            return fail("a task's script", scripts[i].errors != 0 ? scripts[i].last_error : PR_ETIMEDOUT);
    }
    return stop == PR_RISCV_QUIESCENT ? 0 : 1;
}

int main(void)
{
    pr_riscv_puts("smoke: the classic inversion on the RISC-V port (tick 1000 Hz)\n");
    if (run("pip", PR_PROTOCOL_PIP) != 0 || run("none", PR_PROTOCOL_NONE) != 0)
        return 1;
    pr_riscv_puts("smoke: pass\n");
    return 0;
}
