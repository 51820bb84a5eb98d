/* What the host port's files share. */
#ifndef PRIORA_HOST_INTERNAL_H
#define PRIORA_HOST_INTERNAL_H

#include "priora/host.h"
#include "priora/port.h"

/* The simulation driver's context. */
#define MAIN_SLOT PR_SLOTS

void host_context_switch(int from, int to);
void host_trace_reset(void);
void host_charge_switch(void);

#endif
