/*
 * The kernel's global state (kernel_impl.h), defined here and nowhere else,
 * in a file that calls nothing: every kernel file reads it, and so none of
 * them depends on another one for it.
 */
#include "privilege_impl.h"
#include "sem_impl.h"
#include "timeshare_impl.h"

pr_kernel_t pr_k;
pr_task_t pr_tasks[PR_CONFIG_MAX_TASKS];
int pr_task_slots_used = PR_CONFIG_MAX_TASKS; /* none reset yet */
pr_task_t pr_idle;
pr_task_t *pr_self = &pr_idle;
pr_timeshare_t pr_ts;
pr_privs_t pr_priv_groups[PR_CONFIG_PRIV_GROUPS + 1];

/* The semaphore pool (sem_pool.c), each descriptor's wait queue and what
 * the fast paths never read, by index. pr_sem_pool is the pool's address
 * in a small global: one load, where the pool is too large for a port's
 * short addressing (sem_impl.h). */
static pr_sem_t sems[PR_CONFIG_MAX_SEMS];
pr_sem_t *pr_sem_pool = sems;
pr_waitq_t pr_sem_waitqs[PR_CONFIG_MAX_SEMS];
pr_sem_more_t pr_sem_mores[PR_CONFIG_MAX_SEMS];
