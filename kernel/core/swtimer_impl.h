/* Software timers (private): what the rest of the kernel calls. */
#ifndef PRIORA_SWTIMER_IMPL_H
#define PRIORA_SWTIMER_IMPL_H

#include "timer.h"
#include "kernel_impl.h"

void swtimers_reset(void);
void swtimer_check(void); /* pr_kernel_check, in assert builds */

#endif /* PRIORA_SWTIMER_IMPL_H */
