/*
 * Build-time configuration of the Priora kernel.
 *
 * Every pool is sized here, at build time: the kernel never allocates after
 * start. Each value can be overridden on the compiler command line
 * (-DPR_CONFIG_MAX_TASKS=16, ...). The worst-case bounds in docs/costs.md are
 * written in terms of these names.
 */
#ifndef PRIORA_CONFIG_H
#define PRIORA_CONFIG_H

/* Priority levels, 0 .. PR_CONFIG_PRIORITIES-1. Larger number = more
 * urgent. Up to 32 levels, the set of non-empty levels (ready queue, wait
 * lists, lenders) is one 32-bit word; from 33 to 256 it is two levels of
 * words (kernel/core/prio_bitmap.h): O(1) either way. At most 256, so that a
 * priority fits a trace record's byte. The idle task sits below level 0 and
 * takes no level of its own. */
#ifndef PR_CONFIG_PRIORITIES
#define PR_CONFIG_PRIORITIES 32
#endif

/* Task descriptors in the static pool (the idle task is extra). Up to 254,
 * a task's id fits a trace record's byte; from 255 to 4094 the records
 * carry ids in 12 bits (PR_TRACE_WIDE_IDS, priora/trace.h and
 * docs/trace-format.md). */
#ifndef PR_CONFIG_MAX_TASKS
#define PR_CONFIG_MAX_TASKS 32
#endif

/* Privilege groups (privilege.h): 1 is the system group, 2 .. this are the
 * groups whose privileges a task with PR_PRIV_GROUPS sets. */
#ifndef PR_CONFIG_PRIV_GROUPS
#define PR_CONFIG_PRIV_GROUPS 8
#endif

/* Semaphore descriptors in the system semaphore pool. */
#ifndef PR_CONFIG_MAX_SEMS
#define PR_CONFIG_MAX_SEMS 64
#endif

/* Condition variable descriptors in their pool (cond.h). */
#ifndef PR_CONFIG_MAX_CONDS
#define PR_CONFIG_MAX_CONDS 16
#endif

/* Event flags objects in their pool (events.h). */
#ifndef PR_CONFIG_MAX_EVENTS
#define PR_CONFIG_MAX_EVENTS 16
#endif

/* Message queue descriptors in their pool (msgq.h), and the largest
 * message they carry, in bytes. */
#ifndef PR_CONFIG_MAX_MSGQS
#define PR_CONFIG_MAX_MSGQS 16
#endif
#ifndef PR_CONFIG_MSG_MAX_SIZE
#define PR_CONFIG_MSG_MAX_SIZE 256
#endif

/* Software timers in their pool (swtimer.h). */
#ifndef PR_CONFIG_MAX_TIMERS
#define PR_CONFIG_MAX_TIMERS 32
#endif

/* Bytes of stack per task (the port may round it). */
#ifndef PR_CONFIG_STACK_SIZE
#define PR_CONFIG_STACK_SIZE 65536
#endif

/* Slots of the timer wheel; a power of two. A timer due within this many
 * ticks is found by the tick handler without looking at any other timer. */
#ifndef PR_CONFIG_TIMER_SLOTS
#define PR_CONFIG_TIMER_SLOTS 64
#endif

/* Records in the trace ring buffer; a power of two. */
#ifndef PR_CONFIG_TRACE_RECORDS
#define PR_CONFIG_TRACE_RECORDS 1024
#endif

/* 1 = trace compiled in, 0 = every trace point compiles to nothing. */
#ifndef PR_CONFIG_TRACE
#define PR_CONFIG_TRACE 1
#endif

/* 1 = the semaphore calls' fast paths (kernel/core/sem.c) are compiled in;
 * 0 = every call takes the general path. The behaviour is the same either
 * way (the test command runs every test against both builds); only the
 * cost differs (docs/performance.md). */
#ifndef PR_CONFIG_FAST_PATHS
#define PR_CONFIG_FAST_PATHS 1
#endif

/* 1 = the kernel checks its invariants (PR_ASSERT, kernel/core/check.h)
 * and stops through pr_port_panic when one fails: the debug and sanitizer
 * builds. 0 = the checks are compiled out. */
#ifndef PR_CONFIG_ASSERT
#define PR_CONFIG_ASSERT 0
#endif

/* Longest task or semaphore name, terminating NUL included. */
#ifndef PR_CONFIG_NAME_LEN
#define PR_CONFIG_NAME_LEN 16
#endif

#if PR_CONFIG_PRIORITIES < 2 || PR_CONFIG_PRIORITIES > 256
#error "PR_CONFIG_PRIORITIES must be in 2..256 (trace records hold a priority in one byte)"
#endif
#if PR_CONFIG_PRIV_GROUPS < 1 || PR_CONFIG_PRIV_GROUPS > 255
#error "PR_CONFIG_PRIV_GROUPS must be in 1..255"
#endif
#if PR_CONFIG_MAX_TASKS < 1 || PR_CONFIG_MAX_TASKS > 4094
#error "PR_CONFIG_MAX_TASKS must be in 1..4094 (trace records hold task ids in 12 bits)"
#endif
#if PR_CONFIG_MAX_SEMS < 1 || PR_CONFIG_MAX_SEMS > 254
#error "PR_CONFIG_MAX_SEMS must be in 1..254 (trace records hold ids in one byte)"
#endif
#if PR_CONFIG_MAX_CONDS < 1 || PR_CONFIG_MAX_CONDS > 254
#error "PR_CONFIG_MAX_CONDS must be in 1..254 (trace records hold ids in one byte)"
#endif
#if PR_CONFIG_MAX_EVENTS < 1 || PR_CONFIG_MAX_EVENTS > 254
#error "PR_CONFIG_MAX_EVENTS must be in 1..254 (trace records hold ids in one byte)"
#endif
#if PR_CONFIG_MAX_MSGQS < 1 || PR_CONFIG_MAX_MSGQS > 254
#error "PR_CONFIG_MAX_MSGQS must be in 1..254 (trace records hold ids in one byte)"
#endif
#if PR_CONFIG_MAX_TIMERS < 1 || PR_CONFIG_MAX_TIMERS > 254
#error "PR_CONFIG_MAX_TIMERS must be in 1..254 (trace records hold ids in one byte)"
#endif
#if (PR_CONFIG_TIMER_SLOTS & (PR_CONFIG_TIMER_SLOTS - 1)) != 0
#error "PR_CONFIG_TIMER_SLOTS must be a power of two"
#endif
#if (PR_CONFIG_TRACE_RECORDS & (PR_CONFIG_TRACE_RECORDS - 1)) != 0
#error "PR_CONFIG_TRACE_RECORDS must be a power of two"
#endif

#endif /* PRIORA_CONFIG_H */
