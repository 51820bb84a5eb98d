/*
 * The classic priority inversion as data for the scenario interpreter, the
 * one C definition shared by the programs that run it (the host demo
 * examples/inversion_demo.c, the RISC-V smoke test tests/riscv/). The lab's
 * examples/inversion.toml is the same task set as a scenario file.
 *
 *   L (priority 1, released at 0): lock S, compute 4, unlock S, compute 1
 *   H (priority 3, released at 1): compute 1, lock S, compute 1, unlock S, compute 1
 *   M (priority 2, released at 2): compute 5 (never touches S)
 *
 * S is semaphore 0; the tick is 1000 Hz, so one tick of compute is 1 ms.
 */
#ifndef PRIORA_EXAMPLE_INVERSION_H
#define PRIORA_EXAMPLE_INVERSION_H

#include "priora/scenario.h"

#define INVERSION_TICK_HZ 1000
#define INVERSION_TICK_NS 1000000u
#define INVERSION_TICKS(n) ((uint64_t)(n) * INVERSION_TICK_NS)
#define INVERSION_TASKS 3

static const pr_action_t inversion_L[] = {
    {PR_ACT_LOCK, 0, PR_FOREVER, 0, 0},
    {PR_ACT_COMPUTE, 0, 0, 0, INVERSION_TICKS(4)},
    {PR_ACT_UNLOCK, 0, 0, 0, 0},
    {PR_ACT_COMPUTE, 0, 0, 0, INVERSION_TICKS(1)},
};
static const pr_action_t inversion_H[] = {
    {PR_ACT_COMPUTE, 0, 0, 0, INVERSION_TICKS(1)},
    {PR_ACT_LOCK, 0, PR_FOREVER, 0, 0},
    {PR_ACT_COMPUTE, 0, 0, 0, INVERSION_TICKS(1)},
    {PR_ACT_UNLOCK, 0, 0, 0, 0},
    {PR_ACT_COMPUTE, 0, 0, 0, INVERSION_TICKS(1)},
};
static const pr_action_t inversion_M[] = {{PR_ACT_COMPUTE, 0, 0, 0, INVERSION_TICKS(5)}};

typedef struct inversion_task {
    const char *name;
    pr_prio_t priority;
    pr_ticks_t phase;
    const pr_action_t *body;
    uint32_t actions;
} inversion_task_t;

/* In creation order: task ids 0 (L), 1 (H), 2 (M). */
static const inversion_task_t inversion_tasks[INVERSION_TASKS] = {
    {"L", 1, 0, inversion_L, 4},
    {"H", 3, 1, inversion_H, 5},
    {"M", 2, 2, inversion_M, 1},
};

#endif
