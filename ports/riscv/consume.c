/*
 * CPU consumption for the scenario interpreter's "compute" (port.h): spin
 * until the calling task has used `amount` ns more of CPU time. CPU time is
 * the kernel's own accounting (pr_task_status: time between the switches
 * that put the task on and off the CPU, plus the time since its last
 * dispatch), so while the task is preempted or blocked its count stands
 * still, as on the host port. The time the tick interrupt takes while it
 * runs is charged to it, as real hardware would.
 *
 * The loop ends at the first reading at or past the target: a compute lasts
 * `amount` plus at most one iteration of the loop (a few hundred ns). It
 * ends at once when the task's critical section has been aborted (rcs: the
 * status counts the aborts the task has not yet been told of), also when the
 * abort happened while it was preempted in the loop.
 */
#include "riscv.h"

static pr_task_status_t status_of(pr_id_t self)
{
    pr_task_status_t st;
    if (pr_task_status(self, &st) != PR_OK) {
        pr_riscv_puts("\npr_port_consume: not called from a task\n");
        pr_riscv_exit(EXIT_BAD_CONTEXT);
    }
    return st;
}

void pr_port_consume(uint64_t amount)
{
    pr_id_t self = pr_task_self();
    pr_task_status_t st = status_of(self);
    uint64_t target = st.cpu_time + amount;
    while (st.cpu_time < target && st.aborts_pending == 0 && st.job_aborted == 0)
        st = status_of(self);
}
