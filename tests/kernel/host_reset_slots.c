/*
 * pr_kernel_init clears only the task slots used since the last reset
 * (pr_task_slots_used, kernel_impl.h): the lab's build has 1,024 slots of
 * about a kilobyte, and clearing them all cost each short run more than its
 * tasks did. The rest must be exactly as a reset left them. White-box: after
 * runs that create, delete and re-create tasks and change the quantum, a
 * reset leaves every slot byte for byte as the reset before the first run.
 */
#include <string.h>
#include "harness.h"
#include "../../kernel/core/kernel_impl.h"

static unsigned char fresh[sizeof pr_tasks];

static void spin(void *arg)
{
    (void)arg;
    for (;;)
        pr_host_consume(TICKS(1));
}

static void a_reset_leaves_every_slot_as_a_fresh_kernel(void)
{
    harness_reset(0);
    memcpy(fresh, pr_tasks, sizeof pr_tasks);
    CHECK_EQ(pr_task_slots_used, 0);

    for (int run = 0; run < 3; run++) {
        harness_reset(run); /* with and without a quantum */
        CHECK_EQ(memcmp(pr_tasks, fresh, sizeof pr_tasks), 0);
        pr_id_t a = task_at("A", 3, 0, spin, NULL);
        pr_id_t b = task_at("B", 2, 0, spin, NULL);
        pr_id_t c = task_at("C", 1, 0, spin, NULL);
        CHECK_EQ(pr_task_slots_used, c + 1);
        CHECK_EQ(pr_task_delete(b), PR_OK);
        pr_sched_set_quantum(2); /* every slot's slice: sched_quantum_changes */
        CHECK_EQ(pr_host_run_ticks(4), PR_HOST_REACHED);
        pr_id_t d = task_at("D", 4, 0, spin, NULL); /* b's slot again */
        CHECK_EQ(d, b);
        CHECK_EQ(pr_host_run_ticks(8), PR_HOST_REACHED);
        CHECK_EQ(pr_task_slots_used, c + 1);
        CHECK(memcmp(pr_tasks, fresh, sizeof pr_tasks) != 0); /* the run did change its slots */
        (void)a;
    }
    harness_reset(0);
    CHECK_EQ(memcmp(pr_tasks, fresh, sizeof pr_tasks), 0);
    CHECK_EQ(pr_task_slots_used, 0);
}

HARNESS_MAIN(TEST_CASE(a_reset_leaves_every_slot_as_a_fresh_kernel))
