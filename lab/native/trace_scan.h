/*
 * Plain passes over a kernel trace and over job rows, for the lab's report
 * and its start: counts, refusals, the rows of the scenario's own tasks.
 * Each is O(n) and reads nothing but its arguments.
 */
#ifndef PRIORA_LAB_TRACE_SCAN_H
#define PRIORA_LAB_TRACE_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include "metrics.h"

/* 1 when a semaphore call's result is a refusal: an error other than the
 * end of a wait without the unit (PR_ETIMEDOUT, PR_EAGAIN) and other than
 * an unlock's PR_EABORTED (rcs: a restart). What a job's `errors` count
 * (metrics.h) and what priora.run.refusals explains. */
int pr_lab_refused_result(int result, int is_down);

/* The refusals of the trace: the SEM_DOWN and SEM_UP records of a task
 * whose result pr_lab_refused_result refuses. Sets mask[i] to 1 for each
 * and 0 for every other record (mask may be NULL); returns the index of
 * the last refusal + 1, or 0 when there is none. */
size_t pr_lab_refusals(const pr_trace_record_t *records, size_t n, uint8_t *mask);

/* How many records of the trace are of `event`. */
size_t pr_lab_count_event(const pr_trace_record_t *records, size_t n, uint8_t event);

/* Keeps, in order and in place, the rows whose task is below ntasks (the
 * scenario's tasks; a kernel task after them, such as the timer service,
 * has jobs of its own); returns how many are kept. */
size_t pr_lab_jobs_of_tasks(pr_lab_job_t *jobs, size_t n, int ntasks);

#endif
