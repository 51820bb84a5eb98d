/*
 * The time-sharing band: decay-usage priorities and slices (timeshare.h
 * has the rules).
 *
 * A time-sharing task's base priority is its level in the band, which the
 * kernel recomputes from its usage and nice value; everything else about
 * priorities (lends, the ready queue, wait queues, chain walks) is the
 * mechanism's, unchanged: a new level goes through prio_task_base_changed,
 * as a real-time task's new base does. That is why a time-sharing task that
 * holds a mutex a real-time task waits for is lifted into the real-time
 * band by the protocol's lends, and falls back to its level when they end.
 *
 * The tick's work is O(1): charge the running task, bring one more task up
 * to date (the cursor goes round the list of time-sharing tasks), end a
 * slice. A task's decay is counted in periods (epochs): the tick starts a
 * new one every decay_ticks ticks, and a task brought up to date applies
 * the periods since it last was, at most 16 (by then any usage is 0).
 */
#include "priority.h"
#include "timeshare_impl.h"

/* Bounds of the rule (timeshare.h). */
#define USAGE_MAX 255
#define PENALTY_MAX 127
#define DECAYS_MAX 16
#define DEFAULT_QUANTUM 10

void timeshare_reset(int levels, pr_ticks_t quantum, pr_ticks_t decay_ticks)
{
    pr_ts.levels = levels;
    pr_ts.quantum = quantum != 0 ? quantum : DEFAULT_QUANTUM;
    pr_ts.decay_ticks = decay_ticks != 0 ? decay_ticks : pr_k.tick_hz;
    pr_ts.next_decay = pr_ts.decay_ticks;
    pr_ts.epoch = 0;
    list_init(&pr_ts.tasks);
    pr_ts.cursor = &pr_ts.tasks;
    pr_ts.count = 0;
}

/* The level usage and nice give (timeshare.h): 0 .. K-1. */
static pr_prio_t level_of(const pr_task_t *t)
{
    int penalty = t->usage / 4 + 2 * (t->nice + 20);
    if (penalty > PENALTY_MAX)
        penalty = PENALTY_MAX;
    return pr_ts.levels - 1 - penalty * pr_ts.levels / (PENALTY_MAX + 1);
}

/* The decay periods since t was last brought up to date, applied. */
static void decay(pr_task_t *t)
{
    uint32_t periods = pr_ts.epoch - t->decay_epoch;
    t->decay_epoch = pr_ts.epoch;
    for (uint32_t i = 0; i < periods && i < DECAYS_MAX && t->usage != 0; i++)
        t->usage = (uint8_t)(t->usage * 2 / 3);
}

/* t's level from its usage now; if it moved, its effective priority and
 * its place follow (a lend above it keeps it where it is). */
static void relevel(pr_task_t *t)
{
    pr_prio_t level = level_of(t);
    if (level == t->base)
        return;
    t->base = level;
    prio_task_base_changed(t, PR_CAUSE_DECAY);
}

void timeshare_join(pr_task_t *t)
{
    PR_ASSERT(pr_ts.levels > 0 && !t->timeshare);
    t->timeshare = 1;
    t->decay_epoch = pr_ts.epoch;
    t->ts_slice_left = pr_ts.quantum;
    t->base = level_of(t);
    list_push_back(&pr_ts.tasks, &t->tslink);
    if (pr_ts.count++ == 0)
        tick_work_set(TICK_EVERY_TIMESHARE, 1);
}

void timeshare_leave(pr_task_t *t)
{
    PR_ASSERT(t->timeshare);
    if (pr_ts.cursor == &t->tslink) /* the cursor steps back: the next is still next */
        pr_ts.cursor = t->tslink.prev;
    list_remove(&t->tslink);
    t->timeshare = 0;
    if (--pr_ts.count == 0)
        tick_work_set(TICK_EVERY_TIMESHARE, 0);
}

void timeshare_set_nice(pr_task_t *t, int nice)
{
    t->nice = (int8_t)nice;
    if (t->timeshare) {
        decay(t);
        relevel(t);
    }
}

/* The end of a slice: a task running at a time-sharing level goes behind
 * the others of its level. One lifted into the real-time band by a lend
 * runs its section as a real-time task would, without slices; one under a
 * preemption lock keeps running (sched.h). */
static void charge_slice(pr_task_t *t)
{
    if (t->effective >= pr_ts.levels || t->queue != &pr_k.ready || t->preempt_locks > 0)
        return;
    if (t->ts_slice_left > 1) {
        t->ts_slice_left--;
        return;
    }
    t->ts_slice_left = pr_ts.quantum;
    sched_rotate(t);
    sched_reschedule();
}

void timeshare_tick(void)
{
    if (pr_k.ticks >= pr_ts.next_decay) {
        pr_ts.epoch++;
        pr_ts.next_decay += pr_ts.decay_ticks;
    }
    /* The running task pays for the tick that just ended, unless it was
     * switched in at its very instant (as sched_tick: it has not run in it). */
    pr_task_t *t = pr_k.current;
    if (t->timeshare && t->dispatched_at != pr_port_stamp()) {
        if (t->usage < USAGE_MAX)
            t->usage++;
        decay(t);
        relevel(t);
        charge_slice(t);
    }
    /* One more task, in turn, is brought up to date: a task that does not
     * run (it waits, or others are above it) rises as its usage decays. */
    pr_link_t *next = pr_ts.cursor->next;
    if (next == &pr_ts.tasks)
        next = next->next;
    if (next == &pr_ts.tasks) /* none left */
        return;
    pr_ts.cursor = next;
    pr_task_t *u = container_of(next, pr_task_t, tslink);
    if (u->state == PR_TASK_DONE) /* stays in the band for its status, until deleted */
        return;
    decay(u);
    relevel(u);
}
