/*
 * The timer service task's creation (swtimer.h: pr_timer_service_start),
 * apart from the timers (swtimer.c): it creates a task with task.c's calls,
 * and task.c tells the timers when a task is deleted (swtimer_task_gone).
 * In one file, that would be a cycle between files, which the kernel's
 * layering forbids (tests/kernel/check_layering.py).
 */
#include "swtimer_impl.h"

/* 1 if a service task exists: a live task whose body is the service's,
 * whether it has run yet or not. O(PR_CONFIG_MAX_TASKS): a start is rare. */
static int service_exists(void)
{
    for (int i = 0; i < PR_CONFIG_MAX_TASKS; i++)
        if (pr_tasks[i].state != PR_TASK_FREE && pr_tasks[i].entry == swtimer_service_body)
            return 1;
    return 0;
}

/*
 * The check and the creation are one step with interrupts masked: the new
 * service may be more urgent than its starter and run at once, inside
 * pr_task_create, and its actions (or a task it lets run) may try to start
 * another; they find it, by its body, whatever became of the starter.
 */
int pr_timer_service_start(pr_prio_t priority, pr_id_t *task)
{
    if (priority < 0 || priority > PR_PRIO_MAX)
        return PR_EINVAL;
    pr_irq_state_t irq = pr_port_irq_save();
    if (service_exists()) {
        pr_port_irq_restore(irq);
        return PR_ESTATE;
    }
    pr_task_attr_t attr;
    pr_task_attr_init(&attr);
    attr.name = "timers";
    attr.priority = priority;
    attr.entry = swtimer_service_body;
    pr_id_t id = PR_NO_TASK;
    int err = pr_task_create(&attr, &id);
    if (err == PR_OK)
        pr_tasks[id].kernel_service = 1; /* its one job serves every timer: never shed at a hard miss */
    pr_port_irq_restore(irq);
    if (err == PR_OK && task != NULL)
        *task = id;
    return err;
}
