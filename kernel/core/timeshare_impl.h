/*
 * The time-sharing band (private; timeshare.h has the rules, timeshare.c
 * the code). The band's state is one structure, pr_ts (state.c).
 */
#ifndef PRIORA_TIMESHARE_IMPL_H
#define PRIORA_TIMESHARE_IMPL_H

#include "kernel_impl.h"

typedef struct pr_timeshare {
    int levels;                 /* K: levels 0 .. K-1 are the band; 0 = no band */
    pr_ticks_t quantum;         /* a slice at a time-sharing level, ticks */
    pr_ticks_t decay_ticks;     /* the decay period */
    pr_ticks_t next_decay;      /* the tick the next period starts at */
    uint32_t epoch;             /* decay periods since the kernel started */
    pr_link_t tasks;            /* the time-sharing tasks (tslink), in the order they joined */
    pr_link_t *cursor;          /* the last one brought up to date by the tick (or &tasks) */
    int count;                  /* how many */
} pr_timeshare_t;

extern pr_timeshare_t pr_ts;

void timeshare_reset(int levels, pr_ticks_t quantum, pr_ticks_t decay_ticks);

/* 1 if p is a real-time priority: in the real-time band. */
static inline int realtime_priority(pr_prio_t p) { return p >= pr_ts.levels && p <= PR_PRIO_MAX; }

/* t enters the band (creation, or pr_task_rtprio's RTOFF): its base
 * becomes its time-sharing level; the caller makes the effective priority
 * follow (prio_task_base_changed) if t was already running its course. */
void timeshare_join(pr_task_t *t);
/* t leaves the band (deletion, or a move into the real-time band); the
 * caller sets its new base. */
void timeshare_leave(pr_task_t *t);
/* t's nice value becomes `nice`; in the band, its level follows. */
void timeshare_set_nice(pr_task_t *t, int nice);
/* The tick's share: charge the running time-sharing task, decay one more,
 * end a slice. In the tick's interrupt, after the timers. */
void timeshare_tick(void);

#endif /* PRIORA_TIMESHARE_IMPL_H */
