/* Message queues (private): what the rest of the kernel calls. */
#ifndef PRIORA_MSGQ_IMPL_H
#define PRIORA_MSGQ_IMPL_H

#include "priority.h"

void msgqs_reset(void);
/* A task leaves the kernel's sight (deleted, or its body returned): it is
 * the server of no queue any more, and what it was lent is withdrawn. */
void msgq_task_gone(pr_task_t *t);
/* Calls fn on the lender of every inheriting queue (pr_kernel_check). */
void msgq_lenders(void (*fn)(const pr_lender_t *l, void *arg), void *arg);
void msgq_check(void); /* pr_kernel_check, in assert builds */

#endif /* PRIORA_MSGQ_IMPL_H */
