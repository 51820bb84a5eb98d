/*
 * Issuing one call, judging its result and learning from it (fuzz.h).
 *
 * fz_do numbers the call, records it, asks fz_predict (predict.c) what its
 * documentation allows, issues it, and fails the run if the result is not
 * among its documented results or not in the prediction. Then the shadow
 * model (shadow.c) learns what the result says: a mutex taken or given, a
 * task created or deleted, a semaphore freed; and fz_check runs.
 */
#include <limits.h>
#include <string.h>
#include "fuzz.h"

int fz_caller(void)
{
    if (fz.in_isr)
        return FZ_ISR;
    if (fz.in_driver)
        return FZ_DRIVER;
    return pr_task_self();
}

/* The slot becomes a live task, once: its creator after pr_task_create, or
 * its own body if it ran before the create returned. */
void fz_task_adopt(pr_id_t id)
{
    fz_task_t *w = &fz.task[id];
    if (w->alive)
        return;
    memset(w, 0, sizeof *w);
    w->alive = 1;
    w->born = fz.calls;
    w->call = FZ_OPS;
}

/* ---- issuing ---- */

#if FZ_HAS_RECOVERY
/* The recovery of every rcs mutex given one: it notes, in the task whose
 * context runs it, that it ran and on what, for learn() to check that it
 * ran in that holder's call on that mutex. */
static void recover(pr_id_t mutex, void *arg)
{
    pr_id_t self = pr_task_self();
    (void)arg;
    if (self < 0) {
        fz.stray_recoveries++;
        return;
    }
    fz.task[self].recoveries++;
    fz.task[self].recovered_sem = mutex;
}

static int control_recovery(pr_id_t s, int set, int null)
{
    pr_sem_recovery_t r = {set ? recover : NULL, NULL};
    return pr_sem_control(s, PR_SEM_CTL_RECOVERY, null ? NULL : &r);
}
#else
static int control_recovery(pr_id_t s, int set, int null)
{
    int dummy = set;
    return pr_sem_control(s, PR_SEM_CTL_RECOVERY, null ? NULL : &dummy);
}
#endif

/* What a call fills through its pointer argument. */
typedef union call_out {
    pr_task_status_t t;
    fz_bands_out_t b;
    pr_sem_stats_t ss;
    pr_sem_status_t s;
    pr_sem_attr_t a;
    pr_cond_status_t c;
    pr_kernel_stats_t k;
    const char *name;
    _Alignas(16) unsigned char services[1024]; /* services.c's */
} call_out_t;

static int issue(fz_call_t *c, pr_id_t *out_id, call_out_t *out)
{
    int64_t a0 = c->arg[0], a1 = c->arg[1], a2 = c->arg[2];
    pr_id_t who = PR_NO_TASK;
    switch (c->op) {
    case FZ_TASK_CREATE:
        return pr_task_create(c->null == 1 ? NULL : &c->task_attr, c->null == 2 ? NULL : out_id);
    case FZ_TASK_DELETE: return pr_task_delete((pr_id_t)a0);
    case FZ_TASK_SUSPEND: return pr_task_suspend((pr_id_t)a0);
    case FZ_TASK_RESUME: return pr_task_resume((pr_id_t)a0);
    case FZ_TASK_DELAY: return pr_task_delay((pr_timeout_t)a0);
    case FZ_TASK_YIELD: return pr_task_yield();
    case FZ_TASK_SET_PRIO: return pr_task_set_priority((pr_id_t)a0, (pr_prio_t)a1);
    case FZ_TASK_WAIT_PERIOD: return pr_task_wait_period();
    case FZ_TASK_RELEASE: return pr_task_release((pr_id_t)a0);
    case FZ_TASK_ABORTED: return pr_task_aborted();
    case FZ_TASK_WAIT_MISS: {
        int r = pr_task_wait_miss((pr_timeout_t)a0, c->null ? NULL : &who);
        *out_id = who;
        return r;
    }
    case FZ_TASK_SELF: return pr_task_self();
    case FZ_TASK_STATUS: return pr_task_status((pr_id_t)a0, c->null ? NULL : &out->t);
    case FZ_SEM_ALLOC:
        return pr_sem_alloc(c->null == 1 ? NULL : &c->sem_attr, c->null == 2 ? NULL : out_id);
    case FZ_SEM_FREE: return pr_sem_free((pr_id_t)a0);
    case FZ_SEM_DOWN: return pr_sem_down((pr_id_t)a0, (pr_timeout_t)a1);
    case FZ_SEM_TRYDOWN: return pr_sem_trydown((pr_id_t)a0);
    case FZ_SEM_UP: return pr_sem_up((pr_id_t)a0);
    case FZ_SEM_ABORTED: return pr_sem_aborted();
    case FZ_SEM_STATS: return pr_sem_stats((pr_id_t)a0, c->null ? NULL : &out->ss);
    case FZ_SEM_STATUS: return pr_sem_status((pr_id_t)a0, c->null ? NULL : &out->s);
    case FZ_SEM_ATTR_GET: return pr_sem_attr_get((pr_id_t)a0, c->null ? NULL : &out->a);
    case FZ_SEM_CONTROL:
        if (a1 == PR_SEM_CTL_RECOVERY)
            return control_recovery((pr_id_t)a0, (int)a2, c->null);
        return pr_sem_control((pr_id_t)a0, (int)a1, c->null ? NULL : (void *)&out->name);
    case FZ_COND_ALLOC: return pr_cond_alloc(c->name, c->null ? NULL : out_id);
    case FZ_COND_FREE: return pr_cond_free((pr_id_t)a0);
    case FZ_COND_WAIT: return pr_cond_wait((pr_id_t)a0, (pr_id_t)a1, (pr_timeout_t)a2);
    case FZ_COND_SIGNAL: return pr_cond_signal((pr_id_t)a0);
    case FZ_COND_BROADCAST: return pr_cond_broadcast((pr_id_t)a0);
    case FZ_COND_STATUS: return pr_cond_status((pr_id_t)a0, c->null ? NULL : &out->c);
    case FZ_KERNEL_STATS: pr_kernel_stats(c->null ? NULL : &out->k); return 0;
#if FZ_HAS_KERNEL_CHECK
    case FZ_KERNEL_CHECK: return pr_kernel_check(); /* a debug kernel stops here if one fails */
#endif
#if FZ_HAS_RECOVERY
    case FZ_SCHED_LOCK: return pr_sched_lock();
    case FZ_SCHED_UNLOCK: return pr_sched_unlock();
#endif
    case FZ_SET_QUANTUM: pr_sched_set_quantum((pr_ticks_t)a0); return 0;
    case FZ_TICKS_NOW: {
        pr_ticks_t now = pr_ticks_now();
        int r = now >= fz.kernel_ticks && pr_tick_hz() == 1000 ? PR_OK : PR_EINVAL; /* the count never goes back */
        fz.kernel_ticks = now;
        return r;
    }
    case FZ_NAMES: { /* a text for every code, "unknown" ones for the rest */
        int code = (int)a0, known = code <= 0 && code >= PR_ELAST;
        const char *text = pr_strerror(code), *name = pr_errname(code), *event = pr_trace_event_name(code);
        (void)pr_trace_lost();
        if (text == NULL || name == NULL || event == NULL)
            return PR_EINVAL;
        return known == (strcmp(name, "PR_E?") != 0) && known == (strcmp(text, "unknown error") != 0) ? PR_OK
                                                                                                          : PR_EINVAL;
    }
    case FZ_CONSUME: pr_host_consume((uint64_t)a0); return 0;
    case FZ_TRACE_KEEP: /* the driver's: what the trace keeps from now on (main.c checks the trace) */
        pr_host_trace_keep((uint64_t)a0);
        fz.kept |= (uint64_t)a0;
        return 0;
    default:
        if (fz_is_bands_op(c->op))
            return fz_bands_issue(c, &out->b);
        return c->op >= FZ_EVENTS_ALLOC ? fz_services_issue(c, out_id, out->services) : 0;
    }
}

static void print_set(char *buf, size_t size, unsigned set)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int code = 0; code <= -PR_ELAST && n < size; code++)
        if (set & FZ_ERR(-code))
            n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? " " : "", pr_errname(-code));
    if ((set & FZ_POSITIVE) && n < size)
        snprintf(buf + n, size - n, "%sa count >= 1", n ? " " : "");
}

static void judge(const fz_call_t *c, unsigned expected, int r)
{
    char want[200];
    unsigned documented = fz_documented(c->op);
    if (documented == 0)
        return;
    unsigned bit = r > 0 ? FZ_POSITIVE : r >= PR_ELAST ? FZ_ERR(r) : 0;
    if (!(documented & bit))
        fz_fail("%s returned %d (%s), not among its documented results", fz_op_name(c->op), r, pr_errname(r));
    if (!(expected & bit)) {
        print_set(want, sizeof want, expected);
        fz_fail("%s returned %s; the documented contract allows only: %s%s%s", fz_op_name(c->op), pr_errname(r), want,
                fz_why()[0] != '\0' ? ", as " : "", fz_why());
    }
}

/* What the task learns when its call on a mutex succeeds: it holds it; a
 * mutex freed while the call was under way must not be handed out. */
static void took(int t, pr_id_t m, int depth, const char *how)
{
    fz_task_t *w = &fz.task[t];
    if (!fz.sem[m].alive || fz.sem[m].gen != w->call_gen)
        fz_fail("%s of s%d returned with the mutex held, but s%d was freed while the call was under way", how, m, m);
    fz_take(t, m, depth);
}

/* The semaphore a call names, or PR_NO_SEM (a bad id included). */
static pr_id_t sem_of(const fz_call_t *c)
{
    int64_t s = c->op == FZ_COND_WAIT ? c->arg[1] : c->arg[0];
    switch (c->op) {
    case FZ_SEM_FREE: case FZ_SEM_DOWN: case FZ_SEM_TRYDOWN: case FZ_SEM_UP: case FZ_SEM_STATS:
    case FZ_SEM_STATUS: case FZ_SEM_ATTR_GET: case FZ_SEM_CONTROL: case FZ_COND_WAIT:
        return s >= 0 && s < FZ_SEMS ? (pr_id_t)s : PR_NO_SEM;
    default:
        return PR_NO_SEM;
    }
}

/* The caller was told of its rcs abort on m. */
static void told(fz_task_t *w, pr_id_t m)
{
    if (w != NULL && m != PR_NO_SEM && w->aborted[m]) {
        w->aborted[m] = 0;
        w->naborted--;
    }
}

/* Whether an rcs recovery ran in the caller's context during this call
 * (its count moved from `before`): only its call on a mutex it holds, which
 * then returns PR_EABORTED having given the mutex up whatever its depth. */
static void recovered(const fz_call_t *c, int who, int r, pr_id_t m, uint32_t before)
{
    if (who < 0)
        return;
    fz_task_t *w = &fz.task[who];
    int ran = w->recoveries != before, holds = m != PR_NO_SEM && w->depth[m] > 0;
    if (ran && (w->recoveries - before != 1 || r != PR_EABORTED || w->recovered_sem != m || !holds))
        fz_fail("a recovery of s%d ran in task %d's %s, which returned %s", w->recovered_sem, who, fz_op_name(c->op),
                pr_errname(r));
    if (r != PR_EABORTED || !holds)
        return;
    pr_sem_status_t st; /* given up: to a waiter, or free (and maybe freed since) */
    if (!ran || (pr_sem_status(m, &st) == PR_OK && st.holder == who))
        fz_fail("%s of s%d returned PR_EABORTED to its holder without %s", fz_op_name(c->op), m,
                ran ? "giving the mutex up" : "running its recovery");
    while (w->depth[m] > 0)
        fz_give(who, m);
}

static void learn(fz_call_t *c, int who, int r, pr_id_t id, const void *out, uint32_t recoveries)
{
    pr_id_t s = (pr_id_t)c->arg[0], m = sem_of(c);
    fz_task_t *w = who >= 0 ? &fz.task[who] : NULL;
    recovered(c, who, r, m, recoveries);
    if (r == PR_EABORTED)
        told(w, m);
    switch (c->op) {
    case FZ_TASK_CREATE:
        if (r == PR_OK && c->null == 0) {
            if (id < 0 || id >= FZ_TASKS)
                fz_fail("task_create gave id %d, outside the pool", id);
            if (fz.task[id].alive && fz.task[id].born < c->no)
                fz_fail("task_create gave id %d, which is a live task", id);
            pr_task_status_t st;
            if (pr_task_status(id, &st) == PR_OK) { /* else it ran, and ended, inside the call */
                fz_task_adopt(id);
                fz_bands_created(c, who, id);
            }
        }
        break;
    case FZ_TASK_DELETE:
        if (r == PR_OK && fz.task[s].born < c->no) /* else a later create gave the id again */
            fz_forget_task(s);
        else if (w != NULL && s == who)
            w->self_delete = 0;
        break;
    case FZ_TASK_WAIT_MISS:
        if (r > 0 && !c->null && (id < 0 || id >= FZ_TASKS))
            fz_fail("task_wait_miss named task %d as the one that missed", id);
        break;
    case FZ_TASK_SELF:
        if (r != (who >= 0 ? who : PR_NO_TASK))
            fz_fail("task_self returned %d", r);
        break;
    case FZ_TASK_STATUS:
        if (r == PR_OK && ((const pr_task_status_t *)out)->id != s)
            fz_fail("task_status(%d) filled id %d", s, ((const pr_task_status_t *)out)->id);
        break;
    case FZ_SEM_ALLOC:
        if (r == PR_OK && c->null == 0) {
            int expect = fz.sem_free.id[fz.sem_free.head];
            if (id != expect)
                fz_fail("sem_alloc gave s%d; the free list's head is s%d", id, expect);
            fz.sem_free.head = (fz.sem_free.head + 1) % FZ_SEMS;
            fz.sem_free.count--;
            fz.sem[id].alive = 1;
            fz.sem[id].gen++;
            fz.sem[id].attr = c->sem_attr;
            fz.sem[id].attr.name = NULL;
            fz.sem[id].recovery = 0;
        }
        break;
    case FZ_SEM_FREE:
        if (r == PR_OK) {
            fz.sem[s].alive = 0;
            fz.sem_free.id[(fz.sem_free.head + fz.sem_free.count++) % FZ_SEMS] = s;
        }
        break;
    case FZ_SEM_DOWN:
    case FZ_SEM_TRYDOWN:
        if (w != NULL && r == PR_OK && fz_is_mutex(m))
            took(who, m, fz.task[who].depth[m] + 1, fz_op_name(c->op));
        break;
    case FZ_SEM_UP:
        if (w != NULL && r == PR_OK && fz_is_mutex(m))
            fz_give(who, m);
        break;
    case FZ_SEM_ABORTED: /* its sections taken over, and maybe recoveries under way */
        if (w != NULL ? r < w->naborted || r > w->naborted + fz_recoverable(who) : r != 0)
            fz_fail("sem_aborted returned %d; %d sections of the caller were taken over and it was not told", r,
                    w != NULL ? w->naborted : 0);
        break;
    case FZ_SEM_STATUS:
        if (r == PR_OK && ((const pr_sem_status_t *)out)->index != s)
            fz_fail("sem_status(%d) filled index %d", s, ((const pr_sem_status_t *)out)->index);
        break;
    case FZ_SEM_ATTR_GET:
        if (r == PR_OK) {
            const pr_sem_attr_t *got = out, *a = &fz.sem[s].attr;
            int max = (a->flags & PR_SEM_BINARY) ? 1 : a->max == INT_MAX ? 0 : a->max;
            if (got->flags != a->flags || got->protocol != a->protocol || got->ceiling != a->ceiling ||
                got->value != a->value || got->max != max || got->name == NULL)
                fz_fail("sem_attr_get(%d) differs from the attributes it was allocated with", s);
        }
        break;
    case FZ_SEM_CONTROL:
        if (r == PR_OK && c->arg[1] == PR_SEM_CTL_RECOVERY) {
            fz.sem[s].recovery = (int)c->arg[2];
            break;
        }
        if (r == PR_OK) {
            static const char *const names[] = {"none", "pip", "pcp", "ipcp", "npcs", "rcs"};
            const char *name = *(const char *const *)out;
            if (name == NULL || strcmp(name, names[fz.sem[s].attr.protocol]) != 0)
                fz_fail("sem_control(%d) named the protocol %s", s, name != NULL ? name : "(null)");
        }
        break;
    case FZ_COND_ALLOC:
        if (r == PR_OK && !c->null) {
            int expect = fz.cond_free.id[fz.cond_free.head];
            if (id != expect)
                fz_fail("cond_alloc gave c%d; the free list's head is c%d", id, expect);
            fz.cond_free.head = (fz.cond_free.head + 1) % FZ_CONDS;
            fz.cond_free.count--;
            fz.cond_alive[id] = 1;
        }
        break;
    case FZ_COND_FREE:
        if (r == PR_OK) {
            fz.cond_alive[s] = 0;
            fz.cond_free.id[(fz.cond_free.head + fz.cond_free.count++) % FZ_CONDS] = s;
        }
        break;
    case FZ_COND_WAIT:
        if (w != NULL && w->call_depth > 0 && (r == PR_OK || r == PR_ETIMEDOUT))
            took(who, m, w->call_depth, "cond_wait's lock");
        if (w != NULL && w->call_depth > 0 && r == PR_EJOBABORTED && fz_aborts_cond_relocked(who, m))
            took(who, m, w->call_depth, "cond_wait's lock");
        else if (w != NULL && w->call_depth > 0 && (r == PR_EDEADLK || r == PR_ECEILING || r == PR_EJOBABORTED))
            while (w->depth[m] > 0) /* released, and not locked again */
                fz_give(who, m);
        break;
    case FZ_SCHED_LOCK:
        if (w != NULL && r == PR_OK)
            w->sched_locks++;
        break;
    case FZ_SCHED_UNLOCK:
        if (w != NULL && r == PR_OK)
            w->sched_locks--;
        break;
    case FZ_TICKS_NOW:
        if (r != PR_OK)
            fz_fail("ticks_now went back, or tick_hz is not 1000");
        break;
    case FZ_NAMES:
        if (r != PR_OK)
            fz_fail("the texts of code %lld are wrong (NULL, or known and unknown mixed up)", (long long)c->arg[0]);
        break;
    case FZ_KERNEL_STATS:
        if (!c->null) {
            const pr_kernel_stats_t *k = out;
            if (k->ticks != pr_ticks_now() || k->context_switches < fz.kernel_switches)
                fz_fail("kernel_stats: ticks %llu (now %llu), switches %llu after %llu",
                        (unsigned long long)k->ticks, (unsigned long long)pr_ticks_now(),
                        (unsigned long long)k->context_switches, (unsigned long long)fz.kernel_switches);
            fz.kernel_switches = k->context_switches;
        }
        break;
    default:
        if (c->op >= FZ_EVENTS_ALLOC)
            fz_services_learn(c, who, r, id, ((const call_out_t *)out)->services);
        break;
    }
    if (fz_is_bands_op(c->op) || c->op == FZ_TASK_SET_PRIO)
        fz_bands_learn(c, who, r, &((const call_out_t *)out)->b);
}

int fz_do(fz_call_t *c)
{
    int who = fz_caller();
    fz_task_t *w = who >= 0 ? &fz.task[who] : NULL;
    call_out_t out;
    pr_id_t id = PR_NO_TASK;

    c->no = ++fz.calls;
    c->who = who;
    unsigned expected = fz_predict(c, who);
    fz_services_before(c, who, expected); /* what it does at once (services.c), and a message's serial */
    fz_bands_before(c, expected);          /* a change sure to be made (bands.c) */
    fz_aborts_before(c, expected);         /* a hard task that may abort others from now on (jobs.c) */
    fz_history_call(c);
    if (w != NULL) { /* what it is inside, for the checks made while it waits */
        w->call = c->op;
        w->call_arg = c->arg[0];
        w->call_sem = sem_of(c);
        w->call_gen = w->call_sem != PR_NO_SEM ? fz.sem[w->call_sem].gen : 0;
        w->call_pcp = w->call_sem != PR_NO_SEM && fz.sem[w->call_sem].alive && fz_is_pcp(w->call_sem);
        w->call_depth = 0;
        w->call_base = fz.snap.task[who].base_priority;
        if (c->op == FZ_TASK_DELETE && c->arg[0] == who)
            w->self_delete = 1;
        if (c->op == FZ_COND_WAIT && w->call_sem != PR_NO_SEM)
            w->call_depth = w->depth[w->call_sem]; /* released whatever its depth, given back */
    }
    fz_aborts_issue(c, who, expected);
    memset(&out, 0, sizeof out);
    uint32_t recoveries = w != NULL ? w->recoveries : 0;
    int r = issue(c, &id, &out);
    if (w != NULL)
        w->call = FZ_OPS;
    fz_history_return(c, r);
    expected |= fz_aborts_allowed(c, who, r); /* a wait an abort of its job may end */
    judge(c, expected, r);
    fz_stats_count(c->op, r);
    learn(c, who, r, id, &out, recoveries);
    fz_check();
    return r;
}
