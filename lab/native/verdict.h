/*
 * The verdict of a run for a campaign: per task, the worst response and the
 * worst blocked time of its judged jobs, how many there were and how many
 * missed their deadline. The same figures as the job rows of metrics.h
 * (pr_lab_account) reduced per task, in one pass over the kernel's trace in
 * place, without a row per job: a campaign needs nothing else of a run.
 */
#ifndef PRIORA_LAB_VERDICT_H
#define PRIORA_LAB_VERDICT_H

#include <stddef.h>
#include <stdint.h>
#include "priora/trace.h"

typedef struct pr_lab_verdict {
    uint64_t worst_response; /* ns: finish - release; a job unfinished at the end counts up to the end */
    uint64_t worst_blocked;  /* ns: as pr_lab_job_t.blocked */
    uint32_t jobs;           /* judged jobs: released before `judged` */
    uint32_t misses;         /* judged jobs whose pr_lab_job_t.missed would be 1 */
} pr_lab_verdict_t;

/*
 * records, n     the trace (in order)
 * ntasks         tasks 0 .. ntasks-1
 * rel_deadline   per task: relative deadline in ns, 0 = none
 * end            the time the run ended (ns)
 * judged         only jobs released before this time (ns) are counted
 * verdict        per task (output), ntasks entries
 * Returns 0, or -1 if an id is out of range, a record that needs a task has
 * none, or memory ran out (as pr_lab_account).
 */
int pr_lab_verdict(const pr_trace_record_t *records, size_t n, int ntasks, const uint64_t *rel_deadline,
                   uint64_t end, uint64_t judged, pr_lab_verdict_t *verdict);

/* The events pr_lab_verdict reads (bit e for event e), for a trace kept
 * for a verdict only (pr_host_trace_keep): it gives the same verdict from
 * those records alone, and the others need not be converted at all. */
uint64_t pr_lab_verdict_events(void);

/* sizeof(pr_lab_verdict_t), to check the Python binding's layout. */
size_t pr_lab_verdict_sizeof(void);

#endif
