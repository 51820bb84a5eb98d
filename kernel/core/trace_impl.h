/*
 * Writing trace records (private; trace.c holds the ring). Every call
 * site passes one-byte ids: a task's, an object's, or PR_TRACE_NONE.
 */
#ifndef PRIORA_TRACE_IMPL_H
#define PRIORA_TRACE_IMPL_H

#include "kernel_impl.h"

#if PR_CONFIG_TRACE
void trace_reset(void);
void trace_emit(uint8_t event, uint8_t task, uint8_t object, int result,
                uint8_t arg0, uint8_t arg1, int32_t value);
#else /* compiled out: an empty function the compiler removes with its arguments */
static inline void trace_reset(void) {}
static inline void trace_emit(uint8_t event, uint8_t task, uint8_t object, int result,
                              uint8_t arg0, uint8_t arg1, int32_t value)
{
    (void)event, (void)task, (void)object, (void)result, (void)arg0, (void)arg1, (void)value;
}
#endif

/* An id as given by a caller, for a one-byte trace field: PR_TRACE_NONE if
 * it is outside its pool (a truncated id would name another object). */
static inline uint8_t trace_id_of(pr_id_t id, int pool_size)
{
    return (id >= 0 && id < pool_size) ? (uint8_t)id : PR_TRACE_NONE;
}

static inline uint8_t trace_id(const pr_task_t *t)
{
    return (t == NULL || t == idle_task()) ? PR_TRACE_NONE : (uint8_t)t->id;
}

/* The calling task's id, or PR_TRACE_NONE outside a task. */
static inline uint8_t caller_trace_id(void)
{
    return in_task_context() ? (uint8_t)pr_k.current->id : PR_TRACE_NONE;
}

#endif /* PRIORA_TRACE_IMPL_H */
