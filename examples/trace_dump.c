/*
 * A C program that dumps its kernel trace for `priora trace`: the priority
 * inversion of examples/scenarios/inversion.h on the host port, with H given
 * a deadline of 6 ticks, under the protocol named on the command line.
 *
 *   build/examples/trace_dump pip > inversion.trace
 *   priora trace inversion.trace --gantt inversion.png
 *
 * pr_host_trace_dump writes the records with the tasks' and semaphores'
 * names and attributes (docs/trace-format.md, "The trace dump"), so the lab
 * reports the run without a scenario file: with pip, H finishes at 7, its
 * deadline; with none, M delays it to 12 and it misses.
 */
#include <stdio.h>
#include <string.h>
#include "priora/host.h"
#include "priora/scenario.h"
#include "scenarios/inversion.h"

#define H_DEADLINE 6 /* ticks after H's release */

static int fail(const char *what, int err)
{
    fprintf(stderr, "trace_dump: %s: %s\n", what, pr_errname(err));
    return 1;
}

int main(int argc, char **argv)
{
    static pr_script_t scripts[INVERSION_TASKS];
    const char *name = argc > 1 ? argv[1] : "pip";
    pr_protocol_t protocol;
    if (strcmp(name, "pip") == 0)
        protocol = PR_PROTOCOL_PIP;
    else if (strcmp(name, "none") == 0)
        protocol = PR_PROTOCOL_NONE;
    else {
        fprintf(stderr, "trace_dump: protocol %s: expected pip or none\n", name);
        return 2;
    }
    pr_kernel_config_t cfg = {.tick_hz = INVERSION_TICK_HZ, .quantum = 0};
    int err = pr_host_init(&cfg);
    if (err != PR_OK)
        return fail("pr_host_init", err);

    pr_sem_attr_t sattr;
    pr_sem_attr_init(&sattr);
    sattr.name = "S";
    sattr.value = 1;
    sattr.flags = PR_SEM_MUTEX | PR_SEM_PRIO;
    sattr.protocol = protocol;
    pr_id_t id;
    if ((err = pr_sem_alloc(&sattr, &id)) != PR_OK)
        return fail("pr_sem_alloc", err);

    for (int i = 0; i < INVERSION_TASKS; i++) {
        const inversion_task_t *t = &inversion_tasks[i];
        scripts[i] = (pr_script_t){t->body, t->actions, 0, 0, 0, 0, 0, 0};
        pr_task_attr_t tattr;
        pr_task_attr_init(&tattr);
        tattr.name = t->name;
        tattr.priority = t->priority;
        tattr.phase = t->phase;
        tattr.deadline = strcmp(t->name, "H") == 0 ? H_DEADLINE : 0;
        tattr.entry = pr_script_body;
        tattr.arg = &scripts[i];
        if ((err = pr_task_create(&tattr, &id)) != PR_OK)
            return fail("pr_task_create", err);
    }
    pr_host_run_ticks(20); /* quiescent at 13 */
    pr_host_trace_dump(stdout, name);
    return 0;
}
