/*
 * Privileges and privilege groups (privilege.h), call by call: each refusal
 * returns the error that names the missing privilege and changes nothing.
 * The program itself (outside the kernel) acts with every privilege; task
 * G, in group 2, starts with none. every_call_against_every_privilege_set
 * is the matrix: each guarded call against each privilege set.
 */
#include "harness.h"

enum { GROUP = 2, OTHER_GROUP = 3 };

static void band(void)
{
    pr_kernel_config_t cfg = {.tick_hz = 1000, .timeshare_levels = 8, .timeshare_quantum = 100, .timeshare_decay = 100};
    harness_reset_config(&cfg);
}

static void nothing(void *arg) { (void)arg; }
static void compute50(void *arg)
{
    (void)arg;
    pr_host_consume(TICKS(50));
}

static pr_task_attr_t attr_of(int sched_class, pr_prio_t prio, int nice, int group)
{
    pr_task_attr_t attr;
    pr_task_attr_init(&attr);
    attr.name = "new";
    attr.entry = nothing;
    attr.sched_class = sched_class;
    attr.priority = prio;
    attr.nice = nice;
    attr.priv_group = group;
    return attr;
}

/* What G's body saw, call by call. */
static struct {
    int create_rt, create_ts_raised, create_ts_other_group, create_ts;
    int nice_lower, nice_up, nice_back_down;
    int rtprio_in, rtprio_other, rtprio_read;
    pr_prio_t read;
    int ceiling_above, ceiling_below;
    int group_set, move_self, set_priority_other;
    pr_id_t sems_before;
} seen;

static pr_id_t other; /* a time-sharing task in the system group */

static void g_body(void *arg)
{
    (void)arg;
    pr_id_t id = 77;
    pr_task_attr_t a = attr_of(PR_CLASS_REALTIME, 9, 0, PR_GROUP_CREATOR);
    seen.create_rt = pr_task_create(&a, &id);
    a = attr_of(PR_CLASS_TIMESHARE, 0, -1, PR_GROUP_CREATOR);
    seen.create_ts_raised = pr_task_create(&a, &id);
    a = attr_of(PR_CLASS_TIMESHARE, 0, 0, OTHER_GROUP);
    seen.create_ts_other_group = pr_task_create(&a, &id);
    CHECK_EQ(id, 77);
    a = attr_of(PR_CLASS_TIMESHARE, 0, 0, PR_GROUP_CREATOR);
    seen.create_ts = pr_task_create(&a, &id);
    seen.nice_lower = pr_task_set_nice(pr_task_self(), -1, NULL);
    seen.nice_up = pr_task_set_nice(pr_task_self(), 5, NULL);
    seen.nice_back_down = pr_task_set_nice(pr_task_self(), 3, NULL);
    seen.rtprio_in = pr_task_rtprio(pr_task_self(), 10, NULL);
    seen.rtprio_other = pr_task_rtprio(other, PR_RTPRIO_RTOFF, NULL);
    seen.rtprio_read = pr_task_rtprio(other, PR_RTPRIO_NOCHG, &seen.read);
    pr_sem_attr_t m;
    pr_sem_attr_init(&m);
    m.value = 1;
    m.flags = PR_SEM_MUTEX | PR_SEM_PRIO;
    m.protocol = PR_PROTOCOL_IPCP;
    m.ceiling = 20; /* above G's own priority (its level) */
    pr_id_t sem = 55;
    seen.ceiling_above = pr_sem_alloc(&m, &sem);
    CHECK_EQ(sem, 55);
    m.ceiling = 3;
    seen.ceiling_below = pr_sem_alloc(&m, &sem);
    seen.group_set = pr_priv_group_set(OTHER_GROUP, PR_PRIV_RTPRIO);
    seen.move_self = pr_task_set_group(pr_task_self(), PR_GROUP_SYSTEM);
    seen.set_priority_other = pr_task_set_priority(other, 12);
}

static void each_refusal_names_the_missing_privilege(void)
{
    band();
    pr_task_attr_t a = attr_of(PR_CLASS_TIMESHARE, 0, 19, PR_GROUP_CREATOR); /* level 3: G runs first */
    a.name = "other";
    a.entry = compute50;
    other = task_with(&a);
    a = attr_of(PR_CLASS_TIMESHARE, 0, 0, GROUP);
    a.name = "G";
    a.entry = g_body;
    pr_id_t g = task_with(&a);
    CHECK_EQ(pr_host_run_ticks(1), PR_HOST_REACHED);

    CHECK_EQ(seen.create_rt, PR_EPRIV_RT);
    CHECK_EQ(seen.create_ts_raised, PR_EPRIV_PRIO);
    CHECK_EQ(seen.create_ts_other_group, PR_EPRIV_GROUP);
    CHECK_EQ(seen.create_ts, PR_OK);
    CHECK_EQ(seen.nice_lower, PR_EPRIV_PRIO);
    CHECK_EQ(seen.nice_up, PR_OK);
    CHECK_EQ(seen.nice_back_down, PR_EPRIV_PRIO);
    CHECK_EQ(seen.rtprio_in, PR_EPRIV_RT);
    CHECK_EQ(seen.rtprio_other, PR_EPRIV_PRIO);
    CHECK_EQ(seen.rtprio_read, PR_OK); /* reading needs nothing */
    CHECK_EQ(seen.read, PR_RTPRIO_RTOFF);
    CHECK_EQ(seen.ceiling_above, PR_EPRIV_CEILING);
    CHECK_EQ(seen.ceiling_below, PR_OK);
    CHECK_EQ(seen.group_set, PR_EPRIV_GROUP);
    CHECK_EQ(seen.move_self, PR_EPRIV_GROUP);
    CHECK_EQ(seen.set_priority_other, PR_ESTATE); /* other is time-sharing: the state test comes first */

    /* Nothing the refusals touched changed. */
    pr_task_status_t st = status_of(g);
    CHECK_EQ(st.nice, 5);
    CHECK_EQ(st.sched_class, PR_CLASS_TIMESHARE);
    CHECK_EQ(st.priv_group, GROUP);
    CHECK_EQ(status_of(other).sched_class, PR_CLASS_TIMESHARE);
    pr_privs_t privs = 99;
    CHECK_EQ(pr_priv_group_get(OTHER_GROUP, &privs), PR_OK);
    CHECK_EQ(privs, 0);
    int group = 0;
    CHECK_EQ(pr_task_privs(g, &group, &privs), PR_OK);
    CHECK_EQ(group, GROUP);
    CHECK_EQ(privs, 0);
    CHECK_EQ(trace_count(PR_EV_SEM_ALLOC, PR_TRACE_NONE), 2); /* one refused, one made */
    EXPECT_TRACE(EV(PR_EV_RTPRIO) | EV(PR_EV_NICE) | EV(PR_EV_PRIV_GROUP) | EV(PR_EV_TASK_GROUP) |
                     EV(PR_EV_SEM_ALLOC) | EV(PR_EV_PRIO_SET),
                 "0 NICE G PR_EPRIV_PRIO 0->-1", "0 NICE G ok 0->5", "0 NICE G PR_EPRIV_PRIO 5->3",
                 "0 RTPRIO G PR_EPRIV_RT ts->10 nice=5", "0 RTPRIO other PR_EPRIV_PRIO ts->ts nice=19",
                 "0 SEM_ALLOC G - PR_EPRIV_CEILING", "0 SEM_ALLOC G S0 ok",
                 "0 PRIV_GROUP G group=3 PR_EPRIV_GROUP privs=0x1", "0 TASK_GROUP G PR_EPRIV_GROUP 2->1",
                 "0 PRIO_SET other 0->12 PR_ESTATE");
}

/*
 * Privileges given to a group take effect at once for its tasks: with
 * PR_PRIV_RTPRIO alone, G may not move itself into the real-time band (that
 * raises it: PR_PRIV_SETPRIO too); with both it may. The system group's set
 * cannot change.
 */
static int steps[3];

static void climber(void *arg)
{
    (void)arg;
    steps[0] = pr_task_rtprio(pr_task_self(), 10, NULL);
    pr_task_delay(5);
    steps[1] = pr_task_rtprio(pr_task_self(), 10, NULL);
    steps[2] = pr_task_set_priority(pr_task_self(), 9); /* lowering its own: RTPRIO suffices */
}

static void group_privileges_apply_at_once(void)
{
    band();
    CHECK_EQ(pr_priv_group_set(GROUP, PR_PRIV_RTPRIO), PR_OK);
    pr_task_attr_t a = attr_of(PR_CLASS_TIMESHARE, 0, 0, GROUP);
    a.name = "G";
    a.entry = climber;
    pr_id_t g = task_with(&a);
    CHECK_EQ(pr_host_run_ticks(1), PR_HOST_REACHED);
    CHECK_EQ(steps[0], PR_EPRIV_PRIO);
    CHECK_EQ(pr_priv_group_set(GROUP, PR_PRIV_RTPRIO | PR_PRIV_SETPRIO), PR_OK);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    CHECK_EQ(steps[1], PR_OK);
    CHECK_EQ(steps[2], PR_OK);
    CHECK_EQ(status_of(g).base_priority, 9);
    CHECK_EQ(status_of(g).sched_class, PR_CLASS_REALTIME);
    CHECK_EQ(pr_priv_group_set(PR_GROUP_SYSTEM, 0), PR_EINVAL);
    CHECK_EQ(pr_priv_group_set(GROUP, 0x10), PR_EINVAL);
    CHECK_EQ(pr_priv_group_set(PR_CONFIG_PRIV_GROUPS + 1, 0), PR_EINVAL);
    CHECK_EQ(pr_priv_group_get(0, NULL), PR_EINVAL);
    CHECK_EQ(pr_task_set_group(g, 0), PR_EINVAL);
    CHECK_EQ(pr_task_set_group(g, OTHER_GROUP), PR_OK);
    CHECK_EQ(status_of(g).priv_group, OTHER_GROUP);
    CHECK_EQ(pr_task_privs(g, NULL, NULL), PR_EINVAL);
}


/*
 * Call by call, against every privilege set: each case is one call, made
 * by a real-time task R (priority 10) or a time-sharing task T (level 5),
 * with the privileges it needs in the order the kernel tests them. For
 * each set the expected result is the refusal of the first privilege
 * missing, or PR_OK; a refusal leaves every task, group and semaphore as
 * it was. The sets are a group with none, each privilege alone, RTPRIO
 * with SETPRIO, and the system group, where the program's tasks are: so
 * the program's initial task holds every privilege.
 */
enum { NEED_MAX = 2, SNAP_TASKS = 8, SNAP_SEMS = 4 };

typedef enum mcall {
    M_CREATE_RT_BELOW, M_CREATE_RT_ABOVE, M_CREATE_RT_FROM_TS, M_CREATE_TS_NICE_NEG, M_CREATE_TS,
    M_CREATE_OTHER_GROUP, M_SET_PRIO_DOWN, M_SET_PRIO_UP, M_SET_PRIO_OTHER, M_RTPRIO_ENTER, M_RTPRIO_UP,
    M_RTPRIO_DOWN, M_RTPRIO_OFF, M_RTPRIO_OTHER, M_RTPRIO_OTHER_OFF, M_RTPRIO_READ_OTHER, M_NICE_DOWN,
    M_NICE_UP, M_NICE_OTHER, M_CEILING_IPCP, M_CEILING_PCP, M_CEILING_NPCS, M_CEILING_AT_OWN, M_MUTEX_PIP,
    M_GROUP_SET, M_GROUP_MOVE_SELF, M_GROUP_MOVE_OTHER, M_TIMER_SERVICE
} mcall_t;

typedef struct mcase {
    const char *what;
    mcall_t call;
    int by_timeshare; /* made by T, else by R */
    pr_privs_t needs[NEED_MAX]; /* in the kernel's order; 0 ends the list */
    int reads;                  /* it changes nothing even when it succeeds */
} mcase_t;

static const mcase_t matrix[] = {
    {"create a real-time task below its own", M_CREATE_RT_BELOW, 0, {PR_PRIV_RTPRIO}, 0},
    {"create a real-time task above its own", M_CREATE_RT_ABOVE, 0, {PR_PRIV_RTPRIO, PR_PRIV_SETPRIO}, 0},
    {"create a real-time task from time sharing", M_CREATE_RT_FROM_TS, 1, {PR_PRIV_RTPRIO, PR_PRIV_SETPRIO}, 0},
    {"create a time-sharing task with nice -1", M_CREATE_TS_NICE_NEG, 1, {PR_PRIV_SETPRIO}, 0},
    {"create a time-sharing task", M_CREATE_TS, 1, {0}, 0},
    {"create a task in another group", M_CREATE_OTHER_GROUP, 1, {PR_PRIV_GROUPS}, 0},
    {"lower its own priority", M_SET_PRIO_DOWN, 0, {PR_PRIV_RTPRIO}, 0},
    {"raise its own priority", M_SET_PRIO_UP, 0, {PR_PRIV_RTPRIO, PR_PRIV_SETPRIO}, 0},
    {"lower another's priority", M_SET_PRIO_OTHER, 0, {PR_PRIV_RTPRIO, PR_PRIV_SETPRIO}, 0},
    {"rtprio: enter the band", M_RTPRIO_ENTER, 1, {PR_PRIV_RTPRIO, PR_PRIV_SETPRIO}, 0},
    {"rtprio: raise its own", M_RTPRIO_UP, 0, {PR_PRIV_RTPRIO, PR_PRIV_SETPRIO}, 0},
    {"rtprio: lower its own", M_RTPRIO_DOWN, 0, {PR_PRIV_RTPRIO}, 0},
    {"rtprio: leave the band", M_RTPRIO_OFF, 0, {0}, 0},
    {"rtprio: move another into the band", M_RTPRIO_OTHER, 0, {PR_PRIV_RTPRIO, PR_PRIV_SETPRIO}, 0},
    {"rtprio: move another out", M_RTPRIO_OTHER_OFF, 0, {PR_PRIV_SETPRIO}, 0},
    {"rtprio: read another's", M_RTPRIO_READ_OTHER, 1, {0}, 1},
    {"nice: lower its own", M_NICE_DOWN, 1, {PR_PRIV_SETPRIO}, 0},
    {"nice: raise its own", M_NICE_UP, 1, {0}, 0},
    {"nice: another's", M_NICE_OTHER, 1, {PR_PRIV_SETPRIO}, 0},
    {"an ipcp ceiling above its own", M_CEILING_IPCP, 0, {PR_PRIV_CEILING}, 0},
    {"a pcp ceiling above its own", M_CEILING_PCP, 0, {PR_PRIV_CEILING}, 0},
    {"an npcs mutex (ceiling: the top level)", M_CEILING_NPCS, 0, {PR_PRIV_CEILING}, 0},
    {"a ceiling at its own priority", M_CEILING_AT_OWN, 0, {0}, 0},
    {"a pip mutex", M_MUTEX_PIP, 1, {0}, 0},
    {"set a group's privileges", M_GROUP_SET, 0, {PR_PRIV_GROUPS}, 0},
    {"move itself to another group", M_GROUP_MOVE_SELF, 0, {PR_PRIV_GROUPS}, 0},
    {"move another to another group", M_GROUP_MOVE_OTHER, 1, {PR_PRIV_GROUPS}, 0},
    {"start the timer service (a real-time task below it)", M_TIMER_SERVICE, 0, {PR_PRIV_RTPRIO}, 0},
};

/* The privilege sets of the columns; PR_PRIV_ALL is the system group. */
static const pr_privs_t columns[] = {0, PR_PRIV_RTPRIO, PR_PRIV_SETPRIO, PR_PRIV_CEILING, PR_PRIV_GROUPS,
                                     PR_PRIV_RTPRIO | PR_PRIV_SETPRIO, PR_PRIV_ALL};

static int refusal_of(pr_privs_t priv)
{
    return priv == PR_PRIV_RTPRIO ? PR_EPRIV_RT
           : priv == PR_PRIV_SETPRIO ? PR_EPRIV_PRIO
           : priv == PR_PRIV_CEILING ? PR_EPRIV_CEILING
                                     : PR_EPRIV_GROUP;
}

static int expected_of(const mcase_t *c, pr_privs_t held)
{
    for (int i = 0; i < NEED_MAX && c->needs[i] != 0; i++)
        if (!(held & c->needs[i]))
            return refusal_of(c->needs[i]);
    return PR_OK;
}

/* What a refusal must leave unchanged. */
typedef struct snap {
    int task_rc[SNAP_TASKS], sem_rc[SNAP_SEMS];
    pr_prio_t base[SNAP_TASKS], effective[SNAP_TASKS];
    int sched_class[SNAP_TASKS], nice[SNAP_TASKS], group[SNAP_TASKS];
    pr_privs_t groups[PR_CONFIG_PRIV_GROUPS + 1];
} snap_t;

static void take_snap(snap_t *s)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < SNAP_TASKS; i++) {
        pr_task_status_t st;
        s->task_rc[i] = pr_task_status(i, &st);
        if (s->task_rc[i] == PR_OK) {
            s->base[i] = st.base_priority, s->effective[i] = st.effective_priority;
            s->sched_class[i] = st.sched_class, s->nice[i] = st.nice, s->group[i] = st.priv_group;
        }
    }
    for (int i = 0; i < SNAP_SEMS; i++) {
        pr_sem_status_t st;
        s->sem_rc[i] = pr_sem_status(i, &st);
    }
    for (int g = 1; g <= PR_CONFIG_PRIV_GROUPS; g++)
        pr_priv_group_get(g, &s->groups[g]);
}

/* The run of one case: its call's result, and the state around it. */
static struct {
    const mcase_t *c;
    pr_id_t other_rt, other_ts;
    int rc;
    snap_t before, after;
} cell;

static pr_task_attr_t new_task(int sched_class, pr_prio_t prio, int nice, int group)
{
    pr_task_attr_t a = attr_of(sched_class, prio, nice, group);
    a.phase = 1000; /* created, never run in the case */
    return a;
}

static pr_id_t new_mutex_of(pr_protocol_t protocol, pr_prio_t ceiling, int *rc)
{
    pr_sem_attr_t m;
    pr_sem_attr_init(&m);
    m.value = 1;
    m.flags = PR_SEM_MUTEX | PR_SEM_PRIO;
    m.protocol = protocol;
    m.ceiling = ceiling;
    pr_id_t id = PR_NO_SEM;
    *rc = pr_sem_alloc(&m, &id);
    return id;
}

static int make_call(const mcase_t *c)
{
    pr_id_t self = pr_task_self(), id = PR_NO_TASK;
    pr_prio_t old = 0;
    int rc = PR_OK;
    pr_task_attr_t a;
    switch (c->call) {
    case M_CREATE_RT_BELOW: a = new_task(PR_CLASS_REALTIME, 9, 0, PR_GROUP_CREATOR); return pr_task_create(&a, &id);
    case M_CREATE_RT_ABOVE: a = new_task(PR_CLASS_REALTIME, 11, 0, PR_GROUP_CREATOR); return pr_task_create(&a, &id);
    case M_CREATE_RT_FROM_TS: a = new_task(PR_CLASS_REALTIME, 9, 0, PR_GROUP_CREATOR); return pr_task_create(&a, &id);
    case M_CREATE_TS_NICE_NEG:
        a = new_task(PR_CLASS_TIMESHARE, 0, -1, PR_GROUP_CREATOR);
        return pr_task_create(&a, &id);
    case M_CREATE_TS: a = new_task(PR_CLASS_TIMESHARE, 0, 0, PR_GROUP_CREATOR); return pr_task_create(&a, &id);
    case M_CREATE_OTHER_GROUP: a = new_task(PR_CLASS_TIMESHARE, 0, 0, OTHER_GROUP); return pr_task_create(&a, &id);
    case M_SET_PRIO_DOWN: return pr_task_set_priority(self, 9);
    case M_SET_PRIO_UP: return pr_task_set_priority(self, 11);
    case M_SET_PRIO_OTHER: return pr_task_set_priority(cell.other_rt, 8);
    case M_RTPRIO_ENTER: return pr_task_rtprio(self, 9, &old);
    case M_RTPRIO_UP: return pr_task_rtprio(self, 11, &old);
    case M_RTPRIO_DOWN: return pr_task_rtprio(self, 9, &old);
    case M_RTPRIO_OFF: return pr_task_rtprio(self, PR_RTPRIO_RTOFF, &old);
    case M_RTPRIO_OTHER: return pr_task_rtprio(cell.other_ts, 8, &old);
    case M_RTPRIO_OTHER_OFF: return pr_task_rtprio(cell.other_rt, PR_RTPRIO_RTOFF, &old);
    case M_RTPRIO_READ_OTHER:
        rc = pr_task_rtprio(cell.other_rt, PR_RTPRIO_NOCHG, &old);
        CHECK_EQ(old, 9);
        return rc;
    case M_NICE_DOWN: return pr_task_set_nice(self, -1, NULL);
    case M_NICE_UP: return pr_task_set_nice(self, 5, NULL);
    case M_NICE_OTHER: return pr_task_set_nice(cell.other_ts, 5, NULL);
    case M_CEILING_IPCP: new_mutex_of(PR_PROTOCOL_IPCP, 11, &rc); return rc;
    case M_CEILING_PCP: new_mutex_of(PR_PROTOCOL_PCP, 11, &rc); return rc;
    case M_CEILING_NPCS: new_mutex_of(PR_PROTOCOL_NPCS, 0, &rc); return rc;
    case M_CEILING_AT_OWN: new_mutex_of(PR_PROTOCOL_IPCP, 10, &rc); return rc;
    case M_MUTEX_PIP: new_mutex_of(PR_PROTOCOL_PIP, 0, &rc); return rc;
    case M_GROUP_SET: return pr_priv_group_set(OTHER_GROUP, PR_PRIV_RTPRIO);
    case M_GROUP_MOVE_SELF: return pr_task_set_group(self, OTHER_GROUP);
    case M_GROUP_MOVE_OTHER: return pr_task_set_group(cell.other_ts, OTHER_GROUP);
    case M_TIMER_SERVICE: return pr_timer_service_start(9, &id);
    }
    return PR_EINVAL;
}

static void caller_body(void *arg)
{
    (void)arg;
    take_snap(&cell.before);
    cell.rc = make_call(cell.c);
    take_snap(&cell.after);
}

static void every_call_against_every_privilege_set(void)
{
    for (size_t i = 0; i < sizeof matrix / sizeof *matrix; i++) {
        for (size_t k = 0; k < sizeof columns / sizeof *columns; k++) {
            const mcase_t *c = &matrix[i];
            pr_privs_t held = columns[k];
            band();
            int group = PR_GROUP_CREATOR; /* the program's: the system group */
            if (held != PR_PRIV_ALL) {
                group = GROUP;
                CHECK_EQ(pr_priv_group_set(GROUP, held), PR_OK);
            }
            pr_task_attr_t a = attr_of(c->by_timeshare ? PR_CLASS_TIMESHARE : PR_CLASS_REALTIME, 10, 0, group);
            a.name = c->by_timeshare ? "T" : "R";
            a.entry = caller_body;
            pr_id_t caller = task_with(&a);
            a = new_task(PR_CLASS_REALTIME, 9, 0, PR_GROUP_CREATOR);
            a.name = "Ort";
            cell.other_rt = task_with(&a);
            a = new_task(PR_CLASS_TIMESHARE, 0, 19, PR_GROUP_CREATOR);
            a.name = "Ots";
            cell.other_ts = task_with(&a);
            cell.c = c;
            cell.rc = 99;
            CHECK_EQ(pr_host_run_ticks(1), PR_HOST_REACHED);
            int expected = expected_of(c, held);
            if (cell.rc != expected)
                fprintf(stderr, "case \"%s\", privileges 0x%x:\n", c->what, (unsigned)held);
            CHECK_EQ(cell.rc, expected);
            int same = memcmp(&cell.before, &cell.after, sizeof cell.before) == 0;
            int unchanged = expected != PR_OK || c->reads;
            if (same != unchanged)
                fprintf(stderr, "case \"%s\", privileges 0x%x: state %s\n", c->what, (unsigned)held,
                        same ? "unchanged by a call that succeeded" : "changed");
            CHECK_EQ(same, unchanged);
            pr_privs_t privs = 0;
            int in = 0;
            CHECK_EQ(pr_task_privs(caller, &in, &privs), PR_OK);
            if (held == PR_PRIV_ALL && c->call != M_GROUP_MOVE_SELF) {
                CHECK_EQ(in, PR_GROUP_SYSTEM);
                CHECK_EQ(privs, PR_PRIV_ALL);
            }
        }
    }
}

/*
 * Outside any task (the program's own code) and in an interrupt, every
 * privilege is held; a task the program creates is in the system group,
 * and a task it creates is in its creator's group: the initial task
 * holds every privilege, and passes them on.
 */
static int isr_rc = 99;
static void isr_sets_a_group(void *arg)
{
    (void)arg;
    if (pr_ticks_now() == 2 && isr_rc == 99)
        isr_rc = pr_priv_group_set(OTHER_GROUP, PR_PRIV_CEILING);
}

static pr_id_t child;
static void creates_a_child(void *arg)
{
    (void)arg;
    pr_task_attr_t a = attr_of(PR_CLASS_TIMESHARE, 0, 0, PR_GROUP_CREATOR);
    a.name = "child";
    CHECK_EQ(pr_task_create(&a, &child), PR_OK);
}

static void the_program_and_interrupts_hold_every_privilege(void)
{
    band();
    CHECK_EQ(pr_priv_group_set(GROUP, PR_PRIV_RTPRIO), PR_OK);
    pr_task_attr_t a = attr_of(PR_CLASS_REALTIME, PR_PRIO_MAX, 0, PR_GROUP_CREATOR);
    a.name = "first";
    a.entry = creates_a_child;
    pr_id_t first = task_with(&a);
    a = attr_of(PR_CLASS_TIMESHARE, 0, 0, GROUP);
    a.name = "G";
    a.entry = creates_a_child;
    a.phase = 1;
    pr_id_t g = task_with(&a);
    a = attr_of(PR_CLASS_TIMESHARE, 0, 19, PR_GROUP_CREATOR);
    a.name = "busy"; /* keeps the clock going */
    a.entry = compute50;
    task_with(&a);
    int group = 0;
    pr_privs_t privs = 0;
    CHECK_EQ(pr_task_privs(first, &group, &privs), PR_OK);
    CHECK_EQ(group, PR_GROUP_SYSTEM);
    CHECK_EQ(privs, PR_PRIV_ALL);
    CHECK_EQ(pr_host_run_ticks(1), PR_HOST_REACHED);
    CHECK_EQ(pr_task_privs(child, &group, &privs), PR_OK);
    CHECK_EQ(group, PR_GROUP_SYSTEM);
    CHECK_EQ(privs, PR_PRIV_ALL);
    CHECK_EQ(pr_host_run_ticks(2), PR_HOST_REACHED);
    CHECK_EQ(pr_task_privs(child, &group, &privs), PR_OK); /* G's child */
    CHECK_EQ(group, GROUP);
    CHECK_EQ(privs, PR_PRIV_RTPRIO);
    CHECK_EQ(status_of(g).priv_group, GROUP);
    pr_host_set_tick_hook(isr_sets_a_group, NULL);
    CHECK_EQ(pr_host_run_ticks(3), PR_HOST_REACHED);
    pr_host_set_tick_hook(NULL, NULL);
    CHECK_EQ(isr_rc, PR_OK);
    CHECK_EQ(pr_priv_group_get(OTHER_GROUP, &privs), PR_OK);
    CHECK_EQ(privs, PR_PRIV_CEILING);
    CHECK_EQ(pr_task_set_group(g, PR_GROUP_SYSTEM), PR_OK); /* from outside */
    CHECK_EQ(pr_task_privs(g, NULL, &privs), PR_OK);
    CHECK_EQ(privs, PR_PRIV_ALL);
    EXPECT_TRACE(EV(PR_EV_PRIV_GROUP) | EV(PR_EV_TASK_GROUP), "0 PRIV_GROUP - group=2 ok privs=0x1",
                 "2 PRIV_GROUP - group=3 ok privs=0x4", "3 TASK_GROUP G ok 2->1");
}

HARNESS_MAIN(TEST_CASE(each_refusal_names_the_missing_privilege), TEST_CASE(group_privileges_apply_at_once),
             TEST_CASE(every_call_against_every_privilege_set),
             TEST_CASE(the_program_and_interrupts_hold_every_privilege))
