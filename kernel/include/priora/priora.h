/* The whole Priora kernel API. */
#ifndef PRIORA_H
#define PRIORA_H

#include "priora/config.h"
#include "priora/types.h"
#include "priora/errors.h"
#include "priora/kernel.h"
#include "priora/task.h"
#include "priora/timeshare.h"
#include "priora/privilege.h"
#include "priora/sem.h"
#include "priora/cond.h"
#include "priora/events.h"
#include "priora/msgq.h"
#include "priora/swtimer.h"
#include "priora/trace.h"

#endif /* PRIORA_H */
