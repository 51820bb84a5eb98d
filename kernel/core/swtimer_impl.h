/* Software timers (private): what the rest of the kernel calls. */
#ifndef PRIORA_SWTIMER_IMPL_H
#define PRIORA_SWTIMER_IMPL_H

#include "timer.h"
#include "kernel_impl.h"

void swtimers_reset(void);
void swtimer_check(void); /* pr_kernel_check, in assert builds */
void swtimer_task_gone(pr_task_t *t); /* t is deleted: it no longer sleeps as the timer service */
void swtimer_service_body(void *arg);  /* the timer service task's entry: runs the due actions for ever */

#endif /* PRIORA_SWTIMER_IMPL_H */
