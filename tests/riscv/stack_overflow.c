/*
 * The RISC-V port's stack-overflow check: a task that runs past the bottom
 * of its stack must be reported, not corrupt memory silently. Task 1 ("deep")
 * recurses about 1 KiB past the bottom of its PR_CONFIG_STACK_SIZE stack,
 * into the top of task 0's stack (task 0 never runs: it is less urgent), and
 * then blocks. The switch away from it finds its canary overwritten: the
 * port prints "stack overflow in task 1" and QEMU exits with status 2.
 * scripts/qemu-smoke.sh expects exactly that; this program never passes.
 */
#include "priora/priora.h"
#include "priora/riscv.h"

#define FRAME_BYTES 256

static volatile int sink;

static int deep(int n)
{
    volatile unsigned char buf[FRAME_BYTES];
    for (int i = 0; i < FRAME_BYTES; i++) /* uses the whole frame, as real code would */
        buf[i] = (unsigned char)n;
    if (n == 0)
        return buf[0];
    return deep(n - 1) + buf[FRAME_BYTES - 1]; /* not a tail call: the frame stays */
}

static void deep_body(void *arg)
{
    (void)arg;
    sink = deep(PR_CONFIG_STACK_SIZE / FRAME_BYTES + 4);
    pr_task_delay(1); /* the switch away checks the canary */
    pr_riscv_puts("stack_overflow: the overflow was not detected\n");
    pr_riscv_exit(1);
}

static void idle_body(void *arg) { (void)arg; }

int main(void)
{
    pr_kernel_config_t cfg = {.tick_hz = 1000, .quantum = 0};
    pr_task_attr_t attr;
    pr_id_t id;

    if (pr_riscv_init(&cfg) != PR_OK)
        return 1;
    pr_task_attr_init(&attr);
    attr.name = "below";
    attr.priority = 1;
    attr.entry = idle_body;
    if (pr_task_create(&attr, &id) != PR_OK || id != 0)
        return 1;
    attr.name = "deep";
    attr.priority = 2;
    attr.entry = deep_body;
    if (pr_task_create(&attr, &id) != PR_OK || id != 1)
        return 1;
    pr_riscv_puts("stack_overflow: task 1 recurses past the bottom of its stack\n");
    pr_riscv_run(10);
    pr_riscv_puts("stack_overflow: the run ended without a report\n");
    return 1;
}
