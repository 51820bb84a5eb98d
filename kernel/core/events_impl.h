/* Event flags (private): what the rest of the kernel calls. */
#ifndef PRIORA_EVENTS_IMPL_H
#define PRIORA_EVENTS_IMPL_H

#include "kernel_impl.h"

void events_reset(void);
void events_check(void); /* pr_kernel_check, in assert builds */

#endif /* PRIORA_EVENTS_IMPL_H */
