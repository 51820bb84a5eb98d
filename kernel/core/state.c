/*
 * The kernel's global state (kernel_impl.h), defined here and nowhere else,
 * in a file that calls nothing: every kernel file reads it, and so none of
 * them depends on another one for it.
 */
#include "kernel_impl.h"

pr_kernel_t pr_k;
pr_task_t pr_tasks[PR_CONFIG_MAX_TASKS];
pr_task_t pr_idle;
pr_task_t *pr_self = &pr_idle;
