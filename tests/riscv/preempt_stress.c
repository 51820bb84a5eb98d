/*
 * A harder run for the RISC-V port's trap path: many preemptions from the
 * tick, round robin among equals, inheritance, and a trace much longer than
 * the kernel's ring (drained over the UART in the middle of kernel calls).
 *
 *   A, B, C (priority 1, period 10, phases 0/0/0, quantum 1 tick):
 *       lock S, compute 0.5 ms, unlock S, compute 2.3 ms
 *   H (priority 5, period 3, phase 1): compute 0.2 ms, lock S, compute 0.1 ms, unlock S
 *
 * The run is cut at tick 300 (the stop-at-a-tick path), continued to tick
 * 600 (resuming the interrupted context), and checked: every task released
 * the number of jobs its period gives, no script saw an error, and H, which
 * only ever waits for one short critical section, missed no deadline.
 */
#include "priora/priora.h"
#include "priora/riscv.h"
#include "priora/scenario.h"

#define US(n) ((uint64_t)(n) * 1000u)
#define NTASKS 4

static const pr_action_t low_body[] = {
    {PR_ACT_LOCK, 0, PR_FOREVER, 0, 0},
    {PR_ACT_COMPUTE, 0, 0, 0, US(500)},
    {PR_ACT_UNLOCK, 0, 0, 0, 0},
    {PR_ACT_COMPUTE, 0, 0, 0, US(2300)},
};
static const pr_action_t high_body[] = {
    {PR_ACT_COMPUTE, 0, 0, 0, US(200)},
    {PR_ACT_LOCK, 0, PR_FOREVER, 0, 0},
    {PR_ACT_COMPUTE, 0, 0, 0, US(100)},
    {PR_ACT_UNLOCK, 0, 0, 0, 0},
};

static const struct {
    const char *name;
    pr_prio_t prio;
    pr_ticks_t period, phase;
    const pr_action_t *body;
    uint32_t n;
} tasks[NTASKS] = {
    {"A", 1, 10, 0, low_body, 4},
    {"B", 1, 10, 0, low_body, 4},
    {"C", 1, 10, 0, low_body, 4},
    {"H", 5, 3, 1, high_body, 4},
};

static pr_script_t scripts[NTASKS];

static int check(int ok, const char *what)
{
    if (!ok) {
        pr_riscv_puts("stress: FAILED: ");
        pr_riscv_puts(what);
        pr_riscv_putc('\n');
    }
    return ok ? 0 : 1;
}

int main(void)
{
    pr_kernel_config_t cfg = {.tick_hz = 1000, .quantum = 1};
    pr_sem_attr_t sattr;
    pr_task_attr_t tattr;
    pr_id_t id;
    int bad = 0;

    if (pr_riscv_init(&cfg) != PR_OK)
        return 1;
    pr_riscv_trace_begin("stress");
    pr_sem_attr_init(&sattr);
    sattr.name = "S";
    sattr.value = 1;
    sattr.flags = PR_SEM_MUTEX | PR_SEM_PRIO;
    sattr.protocol = PR_PROTOCOL_PIP;
    if (pr_sem_alloc(&sattr, &id) != PR_OK)
        return 1;
    for (int i = 0; i < NTASKS; i++) {
        scripts[i] = (pr_script_t){tasks[i].body, tasks[i].n, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        pr_task_attr_init(&tattr);
        tattr.name = tasks[i].name;
        tattr.priority = tasks[i].prio;
        tattr.period = tasks[i].period;
        tattr.phase = tasks[i].phase;
        tattr.entry = pr_script_body;
        tattr.arg = &scripts[i];
        if (pr_task_create(&tattr, &id) != PR_OK || id != i)
            return 1;
    }

    bad |= check(pr_riscv_run(300) == PR_RISCV_REACHED, "first run did not stop at tick 300");
    bad |= check(pr_ticks_now() == 299, "first run: tick count is not 299 at the instant of tick 300");
    bad |= check(pr_riscv_run(600) == PR_RISCV_REACHED, "second run did not stop at tick 600");
    pr_riscv_trace_end("stress");

    /* Releases at phase + k * period for every instant before tick 600. */
    for (int i = 0; i < NTASKS; i++) {
        pr_task_status_t st;
        uint32_t expected = (uint32_t)((599 - tasks[i].phase) / tasks[i].period + 1);
        bad |= check(pr_task_status(i, &st) == PR_OK, "status");
        bad |= check(st.jobs_released == expected, "a task released the wrong number of jobs");
        bad |= check(scripts[i].errors == 0 && scripts[i].timeouts == 0, "a script saw an error");
        pr_riscv_puts("stress: ");
        pr_riscv_puts(tasks[i].name);
        pr_riscv_puts(" released ");
        pr_riscv_put_dec(st.jobs_released);
        pr_riscv_puts(" completed ");
        pr_riscv_put_dec(st.jobs_completed);
        pr_riscv_puts(" missed ");
        pr_riscv_put_dec(st.deadline_misses);
        pr_riscv_puts(" cpu ");
        pr_riscv_put_dec(st.cpu_time / 1000u);
        pr_riscv_puts(" us\n");
        if (i == 3)
            bad |= check(st.deadline_misses == 0, "H missed a deadline");
    }
    pr_kernel_stats_t ks;
    pr_kernel_stats(&ks);
    pr_riscv_puts("stress: ");
    pr_riscv_put_dec(ks.context_switches);
    pr_riscv_puts(" context switches, ");
    pr_riscv_put_dec(ks.ticks);
    pr_riscv_puts(" ticks\n");
    bad |= check(pr_trace_lost() == 0, "trace records lost");
    if (bad == 0)
        pr_riscv_puts("stress: pass\n");
    return bad;
}
