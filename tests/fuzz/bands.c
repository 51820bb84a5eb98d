/*
 * The time-sharing band and privilege groups (timeshare.h, privilege.h):
 * their calls' predictions, issue and checks, their shadow, and their
 * generation (fuzz.h).
 *
 * The shadow keeps each group's privileges (every pr_priv_group_set is a
 * call) and each task's class, nice value and group (set at its creation,
 * by pr_task_rtprio, pr_task_set_nice, pr_task_set_group; a task first seen
 * by a check, as one that ran inside its creator's call, is learnt from
 * its status). These calls never wait, and a refusal changes nothing, so
 * where the prediction is exactly PR_OK the shadow takes the change before
 * the call is issued: a task it lets run then sees the new state already.
 * A caller's privileges are its group's (the snapshot's group), or every
 * one outside a task; its base priority is the snapshot's.
 *
 * After every call: the kernel's table is the shadow's; every task's class,
 * nice value and group are the shadow's; a time-sharing task's base is a
 * level of the band and exactly the level its usage and nice value give
 * (timeshare.h's rule), a real-time task's base is in the real-time band.
 * After a refusal of a call on a task, its status is read at once and must
 * equal the one before the call.
 */
#include <limits.h>
#include <string.h>
#include "fuzz.h"

#define E(x) FZ_ERR(PR_##x)
#define GROUPS PR_CONFIG_PRIV_GROUPS

int fz_realtime(int64_t prio) { return prio >= fz.ts_levels && prio <= PR_PRIO_MAX; }

static int group_valid(int64_t g) { return g >= 1 && g <= GROUPS; }

/* The level usage and nice give (timeshare.h). */
static int level_of(uint32_t usage, int nice)
{
    int penalty = (int)(usage / 4) + 2 * (nice + 20);
    if (penalty > 127)
        penalty = 127;
    return fz.ts_levels - 1 - penalty * fz.ts_levels / 128;
}

static int caller_task(int who) { return who >= 0 && who < FZ_TASKS && fz.snap.task_ok[who]; }
static pr_privs_t caller_privs(int who)
{
    return caller_task(who) ? fz.privs[fz.snap.task[who].priv_group] : PR_PRIV_ALL;
}
static int caller_group(int who) { return caller_task(who) ? fz.snap.task[who].priv_group : PR_GROUP_SYSTEM; }
static pr_prio_t caller_base(int who) { return caller_task(who) ? fz.snap.task[who].base_priority : PR_PRIO_MAX; }

/* 0 if the caller holds priv, else the refusal. */
static unsigned may(int who, pr_privs_t priv, unsigned refusal) { return (caller_privs(who) & priv) ? 0 : refusal; }

/* Changing t's priority: its own (raises: upward), or another's at all. */
unsigned fz_set_priority_privs(int who, int64_t t, int raises)
{
    if (who < 0 || (t == who && !raises))
        return 0;
    return may(who, PR_PRIV_SETPRIO, E(EPRIV_PRIO));
}

/* Using real-time priorities at all. */
unsigned fz_rt_privs(int who) { return may(who, PR_PRIV_RTPRIO, E(EPRIV_RT)); }

/* pr_task_create's attribute checks of class, priority, nice and group. */
int fz_task_attr_valid(const pr_task_attr_t *a)
{
    if (a->sched_class == PR_CLASS_REALTIME ? !fz_realtime(a->priority)
                                            : a->sched_class != PR_CLASS_TIMESHARE || fz.ts_levels == 0)
        return 0;
    if (a->nice < PR_NICE_MIN || a->nice > PR_NICE_MAX)
        return 0;
    return a->priv_group == PR_GROUP_CREATOR || group_valid(a->priv_group);
}

/* What the creator must be allowed (privilege.h), after the attributes. */
unsigned fz_create_privs(const pr_task_attr_t *a, int who)
{
    int realtime = a->sched_class == PR_CLASS_REALTIME;
    unsigned err = realtime ? may(who, PR_PRIV_RTPRIO, E(EPRIV_RT)) : 0;
    if (err == 0 && (realtime ? a->priority > caller_base(who) : a->nice < 0))
        err = may(who, PR_PRIV_SETPRIO, E(EPRIV_PRIO));
    if (err == 0 && a->priv_group != PR_GROUP_CREATOR && a->priv_group != caller_group(who))
        err = may(who, PR_PRIV_GROUPS, E(EPRIV_GROUP));
    return err;
}

/* A mutex whose ceiling is above the caller's base (pr_sem_alloc); an
 * npcs mutex's is the top level. */
unsigned fz_ceiling_privs(const pr_sem_attr_t *a, int who)
{
    pr_prio_t ceiling = a->protocol == PR_PROTOCOL_NPCS ? PR_PRIO_MAX : a->ceiling;
    if (!(a->flags & PR_SEM_MUTEX) || ceiling <= caller_base(who))
        return 0;
    return may(who, PR_PRIV_CEILING, E(EPRIV_CEILING));
}

static unsigned task_err(int64_t id)
{
    if (id < 0 || id >= FZ_TASKS)
        return E(EBADID);
    return fz.task[id].alive ? 0 : E(ENOTALLOC);
}

unsigned fz_bands_predict(const fz_call_t *c, int who)
{
    int64_t id = c->arg[0], a1 = c->arg[1];
    const pr_task_status_t *st = id >= 0 && id < FZ_TASKS ? &fz.snap.task[id] : NULL;
    unsigned err;
    switch (c->op) {
    case FZ_TASK_RTPRIO:
        if ((err = task_err(id)) != 0)
            return err;
        if (a1 == PR_RTPRIO_NOCHG)
            return E(OK);
        if (a1 == PR_RTPRIO_RTOFF ? fz.ts_levels == 0 : !fz_realtime(a1))
            return E(EINVAL);
        if (st->state == PR_TASK_DONE)
            return E(ESTATE);
        if (a1 == PR_RTPRIO_RTOFF) /* leaving the band lowers it */
            err = fz_set_priority_privs(who, id, 0);
        else if ((err = may(who, PR_PRIV_RTPRIO, E(EPRIV_RT))) == 0)
            err = fz_set_priority_privs(who, id, st->sched_class == PR_CLASS_TIMESHARE || a1 > st->base_priority);
        return err != 0 ? err : E(OK);
    case FZ_TASK_SET_NICE:
        if ((err = task_err(id)) != 0)
            return err;
        if (a1 < PR_NICE_MIN || a1 > PR_NICE_MAX)
            return E(EINVAL);
        if (st->state == PR_TASK_DONE)
            return E(ESTATE);
        err = fz_set_priority_privs(who, id, a1 < st->nice);
        return err != 0 ? err : E(OK);
    case FZ_PRIV_GROUP_SET:
        if (!group_valid(id) || id == PR_GROUP_SYSTEM || (a1 & ~(int64_t)PR_PRIV_ALL) != 0)
            return E(EINVAL);
        err = may(who, PR_PRIV_GROUPS, E(EPRIV_GROUP));
        return err != 0 ? err : E(OK);
    case FZ_PRIV_GROUP_GET:
        return !group_valid(id) || c->null ? E(EINVAL) : E(OK);
    case FZ_TASK_SET_GROUP:
        if ((err = task_err(id)) != 0)
            return err;
        if (!group_valid(a1))
            return E(EINVAL);
        err = may(who, PR_PRIV_GROUPS, E(EPRIV_GROUP));
        return err != 0 ? err : E(OK);
    case FZ_TASK_PRIVS:
        if ((err = task_err(id)) != 0)
            return err;
        return c->null == 3 ? E(EINVAL) : E(OK);
    default:
        return E(OK);
    }
}

/* A change the prediction says will be made: the shadow takes it now. */
void fz_bands_before(fz_call_t *c, unsigned expected)
{
    int64_t id = c->arg[0], a1 = c->arg[1];
    if (expected != E(OK) || !fz_is_bands_op(c->op))
        return;
    fz_task_t *w = id >= 0 && id < FZ_TASKS ? &fz.task[id] : NULL;
    const pr_task_status_t *st = w != NULL ? &fz.snap.task[id] : NULL;
    if (c->op == FZ_TASK_RTPRIO) /* the call may switch: others may change the task before it returns */
        c->before = st->sched_class == PR_CLASS_TIMESHARE ? PR_RTPRIO_RTOFF : st->base_priority;
    if (c->op == FZ_TASK_SET_NICE)
        c->before = st->nice;
    switch (c->op) {
    case FZ_TASK_RTPRIO:
        if (a1 != PR_RTPRIO_NOCHG)
            w->sched_class = a1 == PR_RTPRIO_RTOFF ? PR_CLASS_TIMESHARE : PR_CLASS_REALTIME;
        break;
    case FZ_TASK_SET_NICE: w->nice = (int)a1; break;
    case FZ_PRIV_GROUP_SET: fz.privs[id] = (pr_privs_t)a1; break;
    case FZ_TASK_SET_GROUP: w->group = (int)a1; break;
    default: break;
    }
}

int fz_bands_issue(const fz_call_t *c, fz_bands_out_t *out)
{
    pr_id_t id = (pr_id_t)c->arg[0];
    int64_t a1 = c->arg[1];
    switch (c->op) {
    case FZ_TASK_RTPRIO: return pr_task_rtprio(id, (pr_prio_t)a1, c->null ? NULL : &out->old_prio);
    case FZ_TASK_SET_NICE: return pr_task_set_nice(id, (int)a1, c->null ? NULL : &out->old_nice);
    case FZ_PRIV_GROUP_SET: return pr_priv_group_set((int)c->arg[0], (pr_privs_t)a1);
    case FZ_PRIV_GROUP_GET: return pr_priv_group_get((int)c->arg[0], c->null ? NULL : &out->privs);
    case FZ_TASK_SET_GROUP: return pr_task_set_group(id, (int)a1);
    case FZ_TASK_PRIVS:
        return pr_task_privs(id, (c->null & 1) ? NULL : &out->group, (c->null & 2) ? NULL : &out->privs);
    default: return PR_OK;
    }
}

/* A refused call on task t changed nothing: its status now is the one the
 * last check read (a refusal never switches, and no time passes). */
static void unchanged(const fz_call_t *c, int64_t t, int r)
{
    pr_task_status_t now;
    if (t < 0 || t >= FZ_TASKS || !fz.task[t].alive || !fz.snap.task_ok[t] || pr_task_status((pr_id_t)t, &now) != PR_OK)
        return;
    const pr_task_status_t *was = &fz.snap.task[t];
    if (now.state != was->state || now.suspended != was->suspended || now.base_priority != was->base_priority ||
        now.effective_priority != was->effective_priority || now.sched_class != was->sched_class ||
        now.nice != was->nice || now.usage != was->usage || now.priv_group != was->priv_group)
        fz_fail("%s(%lld) returned %s but changed the task: state %d->%d, base %d->%d, effective %d->%d, class "
                "%d->%d, nice %d->%d, group %d->%d",
                fz_op_name(c->op), (long long)t, pr_errname(r), (int)was->state, (int)now.state, was->base_priority,
                now.base_priority, was->effective_priority, now.effective_priority, was->sched_class, now.sched_class,
                was->nice, now.nice, was->priv_group, now.priv_group);
}

void fz_bands_learn(const fz_call_t *c, int who, int r, const fz_bands_out_t *out)
{
    int64_t id = c->arg[0], a1 = c->arg[1];
    const pr_task_status_t *st = id >= 0 && id < FZ_TASKS ? &fz.snap.task[id] : NULL;
    if (r != PR_OK) {
        if (c->op == FZ_TASK_RTPRIO || c->op == FZ_TASK_SET_NICE || c->op == FZ_TASK_SET_GROUP ||
            c->op == FZ_TASK_SET_PRIO)
            unchanged(c, id, r);
        return;
    }
    switch (c->op) {
    case FZ_TASK_RTPRIO:
        if (!c->null && out->old_prio != c->before)
            fz_fail("task_rtprio(%lld) gave old %d; it was %lld", (long long)id, out->old_prio, (long long)c->before);
        if (who < 0 && a1 >= 0) { /* nothing ran since: its new base is read at once */
            pr_task_status_t now;
            if (pr_task_status((pr_id_t)id, &now) == PR_OK && now.base_priority != a1)
                fz_fail("task_rtprio(%lld, %lld) returned PR_OK; its base is %d", (long long)id, (long long)a1,
                        now.base_priority);
        }
        break;
    case FZ_TASK_SET_NICE:
        if (!c->null && out->old_nice != c->before)
            fz_fail("task_set_nice(%lld) gave old %d; it was %lld", (long long)id, out->old_nice, (long long)c->before);
        break;
    case FZ_PRIV_GROUP_GET:
        if (out->privs != fz.privs[id])
            fz_fail("priv_group_get(%lld) gave %#x; the group holds %#x", (long long)id, (unsigned)out->privs,
                    (unsigned)fz.privs[id]);
        break;
    case FZ_TASK_PRIVS:
        if ((!(c->null & 1) && out->group != st->priv_group) ||
            (!(c->null & 2) && out->privs != fz.privs[st->priv_group]))
            fz_fail("task_privs(%lld) gave group %d, privileges %#x; it is in group %d, which holds %#x", (long long)id,
                    out->group, (unsigned)out->privs, st->priv_group, (unsigned)fz.privs[st->priv_group]);
        break;
    default: break;
    }
}

/* A task a create just made, that has not run: class, nice, group and base
 * as its attributes and its creator say. */
void fz_bands_created(const fz_call_t *c, int who, pr_id_t id)
{
    fz_task_t *w = &fz.task[id];
    const pr_task_attr_t *a = &c->task_attr;
    pr_task_status_t st;
    if (w->known || pr_task_status(id, &st) != PR_OK)
        return;
    w->known = 1;
    w->sched_class = a->sched_class;
    w->nice = a->nice;
    w->group = a->priv_group != PR_GROUP_CREATOR ? a->priv_group : caller_group(who);
    int base = a->sched_class == PR_CLASS_TIMESHARE ? level_of(0, a->nice) : a->priority;
    if (st.sched_class != w->sched_class || st.nice != w->nice || st.priv_group != w->group ||
        st.base_priority != base || st.usage != 0)
        fz_fail("task_create made task %d of class %d, nice %d, group %d, base %d, usage %u; its attributes say "
                "class %d, nice %d, group %d, base %d",
                id, st.sched_class, st.nice, st.priv_group, st.base_priority, (unsigned)st.usage, w->sched_class,
                w->nice, w->group, base);
}

void fz_bands_reset(void)
{
    memset(fz.privs, 0, sizeof fz.privs);
    fz.privs[PR_GROUP_SYSTEM] = PR_PRIV_ALL;
}

void fz_bands_check(void)
{
    for (int g = 1; g <= GROUPS; g++) {
        pr_privs_t p = 0;
        int r = pr_priv_group_get(g, &p);
        if (r != PR_OK || p != fz.privs[g])
            fz_fail("priv_group_get(%d) returned %s, %#x; the calls gave it %#x", g, pr_errname(r), (unsigned)p,
                    (unsigned)fz.privs[g]);
    }
    for (int t = 0; t <= fz.task_hi && t < FZ_TASKS; t++) {
        fz_task_t *w = &fz.task[t];
        const pr_task_status_t *st = &fz.snap.task[t];
        if (!w->alive || !fz.snap.task_ok[t])
            continue;
        if (!w->known) { /* it ran inside its creator's call, or the timer service made it */
            w->known = 1;
            w->sched_class = st->sched_class;
            w->nice = st->nice;
            w->group = st->priv_group;
        }
        if (st->sched_class != w->sched_class || st->nice != w->nice || st->priv_group != w->group)
            fz_fail("task %d: class %d, nice %d, group %d; the calls say class %d, nice %d, group %d", t,
                    st->sched_class, st->nice, st->priv_group, w->sched_class, w->nice, w->group);
        if (st->usage > 255)
            fz_fail("task %d: usage %u, above 255", t, (unsigned)st->usage);
        if (st->sched_class == PR_CLASS_TIMESHARE ? st->base_priority != level_of(st->usage, st->nice)
                                                  : !fz_realtime(st->base_priority))
            fz_fail("task %d (%s, usage %u, nice %d): base %d, not %s %d", t,
                    st->sched_class == PR_CLASS_TIMESHARE ? "time-sharing" : "real-time", (unsigned)st->usage,
                    st->nice, st->base_priority,
                    st->sched_class == PR_CLASS_TIMESHARE ? "its level" : "in the real-time band from",
                    st->sched_class == PR_CLASS_TIMESHARE ? level_of(st->usage, st->nice) : fz.ts_levels);
    }
}

/* ---- generation ---- */

static int64_t pick_rtprio(void)
{
    switch (fz_below(10)) {
    case 0: case 1: return PR_RTPRIO_NOCHG;
    case 2: case 3: case 4: return PR_RTPRIO_RTOFF;
    case 5: /* invalid: below the band, above it, another negative */
        return fz.ts_levels > 0 && fz_chance(50) ? fz_below(fz.ts_levels) : fz_chance(50) ? PR_PRIO_MAX + 1 : -3;
    default: return fz_range(fz.profile.prio_lo, fz.profile.prio_hi);
    }
}

/* A new task's class (now and then an unknown one, or time sharing without
 * the band), nice value and group (now and then out of range). */
void fz_gen_task_attr_bands(pr_task_attr_t *a)
{
    if (fz.ts_levels > 0 && fz_chance(40))
        a->sched_class = PR_CLASS_TIMESHARE;
    if (fz_chance(2))
        a->sched_class = fz_chance(50) ? PR_CLASS_TIMESHARE + 1 : PR_CLASS_TIMESHARE;
    a->nice = fz_chance(2) ? (fz_chance(50) ? PR_NICE_MIN - 1 : PR_NICE_MAX + 1)
              : fz_chance(50) ? 0 : fz_range(PR_NICE_MIN, PR_NICE_MAX);
    a->priv_group = fz_chance(65) ? PR_GROUP_CREATOR : fz_chance(3) ? (fz_chance(50) ? -1 : PR_CONFIG_PRIV_GROUPS + 1)
                    : fz_range(1, PR_CONFIG_PRIV_GROUPS);
}

static int64_t pick_target(int self) { return self >= 0 && fz_chance(40) ? self : fz_pick_task(self); }

void fz_gen_bands(fz_call_t *c, int self)
{
    switch (fz_below(10)) {
    case 0: case 1: case 2:
        c->op = FZ_TASK_RTPRIO;
        c->arg[0] = pick_target(self);
        c->arg[1] = pick_rtprio();
        c->null = fz_chance(30);
        break;
    case 3: case 4:
        c->op = FZ_TASK_SET_NICE;
        c->arg[0] = pick_target(self);
        c->arg[1] = fz_chance(5) ? (fz_chance(50) ? PR_NICE_MIN - 1 : fz_chance(50) ? PR_NICE_MAX + 1 : INT_MIN)
                                 : fz_range(PR_NICE_MIN, PR_NICE_MAX);
        c->null = fz_chance(30);
        break;
    case 5:
        c->op = FZ_PRIV_GROUP_SET;
        c->arg[0] = fz_chance(5) ? (fz_chance(50) ? 0 : GROUPS + 1) : fz_range(1, GROUPS);
        c->arg[1] = fz_chance(5) ? (int64_t)(PR_PRIV_ALL + 1 + (pr_privs_t)fz_below(4)) : fz_below(16);
        break;
    case 6:
        c->op = FZ_PRIV_GROUP_GET;
        c->arg[0] = fz_range(-1, GROUPS + 1);
        c->null = fz_chance(5);
        break;
    case 7:
        c->op = FZ_TASK_SET_GROUP;
        c->arg[0] = pick_target(self);
        c->arg[1] = fz_chance(5) ? (fz_chance(50) ? 0 : GROUPS + 1) : fz_range(1, GROUPS);
        break;
    default:
        c->op = FZ_TASK_PRIVS;
        c->arg[0] = pick_target(self);
        c->null = fz_chance(5) ? 3 : fz_below(3);
        break;
    }
}

/* Set-up, from outside: most groups get some privileges. */
void fz_gen_bands_setup(void)
{
    for (int g = 2; g <= GROUPS; g++) {
        if (!fz_chance(70))
            continue;
        fz_call_t c = {.op = FZ_PRIV_GROUP_SET, .arg = {g, fz_below(16)}};
        fz_do(&c);
    }
}

void fz_print_bands_call(FILE *out, const fz_call_t *c)
{
    long long a0 = (long long)c->arg[0], a1 = (long long)c->arg[1];
    switch (c->op) {
    case FZ_TASK_RTPRIO:
        if (a1 == PR_RTPRIO_NOCHG || a1 == PR_RTPRIO_RTOFF)
            fprintf(out, "%lld, %s", a0, a1 == PR_RTPRIO_NOCHG ? "NOCHG" : "RTOFF");
        else
            fprintf(out, "%lld, %lld", a0, a1);
        fprintf(out, "%s", c->null ? ", NULL" : "");
        break;
    case FZ_TASK_SET_NICE: fprintf(out, "%lld, %lld%s", a0, a1, c->null ? ", NULL" : ""); break;
    case FZ_PRIV_GROUP_SET: fprintf(out, "%lld, %#llx", a0, a1); break;
    case FZ_PRIV_GROUP_GET: fprintf(out, "%lld%s", a0, c->null ? ", NULL" : ""); break;
    case FZ_TASK_SET_GROUP: fprintf(out, "%lld, %lld", a0, a1); break;
    case FZ_TASK_PRIVS:
        fprintf(out, "%lld%s%s", a0, (c->null & 1) ? ", group=NULL" : "", (c->null & 2) ? ", privs=NULL" : "");
        break;
    default: break;
    }
}
