/*
 * Privileges and privilege groups (privilege.h), call by call: each refusal
 * returns the error that names the missing privilege and changes nothing.
 * The program itself (outside the kernel) acts with every privilege; task
 * G, in group 2, starts with none.
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

HARNESS_MAIN(TEST_CASE(each_refusal_names_the_missing_privilege), TEST_CASE(group_privileges_apply_at_once))
