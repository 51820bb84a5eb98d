/*
 * Software timers: expiries at exact ticks, one-shot and periodic on the
 * grid of their first expiry; actions run in the timer service task, the
 * most urgent due timer first, late by whatever runs before the service;
 * an expiry whose previous one has not run is dropped and counted; armed
 * and stopped from tasks and interrupts; every error with nothing changed.
 */
#include "harness.h"

#define EV_TIMERS (EV(PR_EV_TIMER_START) | EV(PR_EV_TIMER_EXPIRE) | EV(PR_EV_TIMER_RUN))

/* Every action run: at which tick, which timer. */
static long ran_at[16];
static pr_id_t ran_timer[16];
static int nran;

static void note_action(pr_id_t timer, void *arg)
{
    (void)arg;
    ran_at[nran] = (long)(pr_host_now() / TICKS(1)); /* the instant, in ticks */
    ran_timer[nran++] = timer;
}

static pr_id_t timer(const char *name, pr_prio_t prio, pr_ticks_t period, pr_timer_action_t action)
{
    pr_timer_attr_t attr;
    pr_timer_attr_init(&attr);
    attr.name = name;
    attr.action = action;
    attr.priority = prio;
    attr.period = period;
    pr_id_t id = PR_NO_TIMER;
    CHECK_EQ(pr_timer_alloc(&attr, &id), PR_OK);
    return id;
}

static pr_timer_status_t timer_status_of(pr_id_t id)
{
    pr_timer_status_t st;
    memset(&st, 0, sizeof st);
    CHECK_EQ(pr_timer_status(id, &st), PR_OK);
    return st;
}

static const pr_action_t W_body[] = {A_COMPUTE(1)};

/*
 * A (priority 1) every 4 ticks from 2; B (3) once at 6; C (2) once at 6.
 * The service runs at 5. At 6 W (6) computes one tick first: the three
 * actions due at 6 run at 7, most urgent first (B, C, A), each 1 tick
 * late. A stays on its grid (10), and stops when it is stopped at 11.
 */
static void due_actions_run_most_urgent_first_in_the_service(void)
{
    harness_reset(0);
    nran = 0;
    pr_id_t a = timer("A", 1, 4, note_action);
    pr_id_t b = timer("B", 3, 0, note_action);
    pr_id_t c = timer("C", 2, 0, note_action);
    CHECK_EQ(pr_timer_start(a, 2), PR_OK);
    CHECK_EQ(pr_timer_start(b, 6), PR_OK);
    CHECK_EQ(pr_timer_start(c, 6), PR_OK);
    pr_id_t service = PR_NO_TASK;
    CHECK_EQ(pr_timer_service_start(5, &service), PR_OK);
    CHECK_EQ(pr_timer_service_start(5, NULL), PR_ESTATE);
    pr_script_t sw = SCRIPT(W_body);
    script_task("W", 6, 6, &sw);
    pr_host_run_ticks(11);
    CHECK_EQ(pr_timer_stop(a), PR_OK);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_TIMERS | EV(PR_EV_SWITCH),
                 "0 TIMER_START - A ok at=2",
                 "0 TIMER_START - B ok at=6",
                 "0 TIMER_START - C ok at=6",
                 "0 SWITCH timers<-idle",
                 "0 SWITCH idle<-timers",
                 "2 TIMER_EXPIRE A",
                 "2 SWITCH timers<-idle",
                 "2 TIMER_RUN timers A late=0",
                 "2 SWITCH idle<-timers",
                 "6 TIMER_EXPIRE B",
                 "6 TIMER_EXPIRE C",
                 "6 TIMER_EXPIRE A",
                 "6 SWITCH W<-idle",
                 "7 SWITCH timers<-W",
                 "7 TIMER_RUN timers B late=1",
                 "7 TIMER_RUN timers C late=1",
                 "7 TIMER_RUN timers A late=1",
                 "7 SWITCH idle<-timers",
                 "10 TIMER_EXPIRE A",
                 "10 SWITCH timers<-idle",
                 "10 TIMER_RUN timers A late=0",
                 "10 SWITCH idle<-timers",
                 "11 TIMER_STOP - A ok");
    CHECK_EQ(nran, 5);
    static const long at[] = {2, 7, 7, 7, 10};
    for (int i = 0; i < 5; i++)
        CHECK_EQ(ran_at[i], at[i]);
    CHECK_EQ(ran_timer[1], b);
    CHECK_EQ(ran_timer[2], c);
    CHECK_EQ(ran_timer[3], a);
    pr_timer_status_t st = timer_status_of(a);
    CHECK_EQ(st.armed, 0);
    CHECK_EQ(st.expiries, 3);
    CHECK_EQ(st.dropped, 0);
    CHECK_EQ(st.max_lateness, 1);
    CHECK_EQ(timer_status_of(b).expiries, 1);
    CHECK_EQ(status_of(service).state, PR_TASK_WAIT_RELEASE);
}

/* ---- overruns, and an interrupt arms a timer ---- */

static pr_id_t fast_timer;
static int isr_rc = 1;

/* I computes half a tick; then a device's interrupt arms T to expire one
 * tick later (at 1). */
static void interrupted_body(void *arg)
{
    (void)arg;
    pr_host_consume(TICKS(1) / 2);
    pr_isr_enter();
    isr_rc = pr_timer_start(fast_timer, 1);
    pr_isr_exit();
}

static const pr_action_t H_body[] = {A_COMPUTE(3)};

/*
 * T (priority 0) every tick, armed by an interrupt at 0.5, first due at 1.
 * H (3), above the service (2), computes from 1 to 4: the expiries of 2
 * and 3 come while the action of 1 waits, and are dropped. H ends at the
 * instant of 4, before its interrupt: the action of 1 runs then, 3 ticks
 * late, and those of 4 and 5 on time.
 */
static void an_expiry_whose_action_has_not_run_is_dropped(void)
{
    harness_reset(0);
    nran = 0;
    fast_timer = timer("T", 0, 1, note_action);
    CHECK_EQ(pr_timer_service_start(2, NULL), PR_OK);
    task_at("I", 1, 0, interrupted_body, NULL);
    pr_script_t sh = SCRIPT(H_body);
    script_task("H", 3, 1, &sh);
    pr_host_run_ticks(6);
    CHECK_EQ(pr_timer_stop(fast_timer), PR_OK);
    CHECK_EQ(isr_rc, PR_OK);
    EXPECT_TRACE(EV_TIMERS,
                 "0.5 TIMER_START - T ok at=1",
                 "1 TIMER_EXPIRE T",
                 "2 TIMER_EXPIRE T dropped",
                 "3 TIMER_EXPIRE T dropped",
                 "4 TIMER_RUN timers T late=3",
                 "4 TIMER_EXPIRE T",
                 "4 TIMER_RUN timers T late=0",
                 "5 TIMER_EXPIRE T",
                 "5 TIMER_RUN timers T late=0",
                 "6 TIMER_STOP - T ok");
    pr_timer_status_t st = timer_status_of(fast_timer);
    CHECK_EQ(st.expiries, 3);
    CHECK_EQ(st.dropped, 2);
    CHECK_EQ(st.max_lateness, 3);
}

/* ---- an expiry the service has not taken; the service deleted asleep ---- */

static pr_id_t stopped_timer;

static void stopping_body(void *arg)
{
    (void)arg;
    CHECK_EQ(pr_timer_stop(stopped_timer), PR_OK);
}

static void idle_body(void *arg) { (void)arg; }

/*
 * T (0) expires at 2, while the service (2) sleeps: the service becomes
 * ready, but H (3), released at 2 too, runs first and stops T, which drops
 * the expiry: its action never runs. Then (at 2, nothing left to do) the
 * sleeping service is deleted, and P, created in its slot, waits for its
 * first release at 10: U's expiry at 4 wakes no task and stays due until
 * the next service, started at 5, runs it at once. (The trace names a
 * slot by its last task: the first service's records say P.)
 */
static void a_due_expiry_dropped_before_its_action_and_the_service_deleted_asleep(void)
{
    harness_reset(0);
    nran = 0;
    stopped_timer = timer("T", 0, 0, note_action);
    pr_id_t u = timer("U", 0, 0, note_action);
    pr_id_t service = PR_NO_TASK;
    CHECK_EQ(pr_timer_service_start(2, &service), PR_OK);
    CHECK_EQ(pr_timer_start(stopped_timer, 2), PR_OK);
    task_at("H", 3, 2, stopping_body, NULL);
    CHECK_EQ(pr_host_run_ticks(3), PR_HOST_QUIESCENT); /* at 2 */
    CHECK_EQ(nran, 0);
    pr_timer_status_t st = timer_status_of(stopped_timer);
    CHECK_EQ(st.armed, 0);
    CHECK_EQ(st.expiries, 0);
    CHECK_EQ(status_of(service).state, PR_TASK_WAIT_RELEASE);

    CHECK_EQ(pr_task_delete(service), PR_OK);
    pr_id_t p = task_at("P", 1, 10, idle_body, NULL);
    CHECK_EQ(p, service); /* the lowest free slot: the service's */
    CHECK_EQ(pr_timer_start(u, 2), PR_OK);
    CHECK_EQ(pr_host_run_ticks(5), PR_HOST_REACHED);
    CHECK_EQ(nran, 0);
    CHECK_EQ(status_of(p).state, PR_TASK_WAIT_RELEASE);
    st = timer_status_of(u);
    CHECK_EQ(st.armed, 1); /* due */
    CHECK_EQ(st.expiry, 4);
    CHECK_EQ(pr_timer_service_start(2, NULL), PR_OK);
    CHECK_EQ(pr_host_run_ticks(20), PR_HOST_QUIESCENT);
    CHECK_EQ(nran, 1);
    CHECK_EQ(ran_timer[0], u);
    CHECK_EQ(ran_at[0], 5);
    EXPECT_TRACE(EV_TIMERS | EV(PR_EV_SWITCH) | EV(PR_EV_TASK_DELETE),
                 "0 TIMER_START - T ok at=2",
                 "0 SWITCH P<-idle",
                 "0 SWITCH idle<-P",
                 "2 TIMER_EXPIRE T",
                 "2 SWITCH H<-idle",
                 "2 TIMER_STOP H T ok",
                 "2 SWITCH P<-H",
                 "2 SWITCH idle<-P",
                 "2 TASK_DELETE P",
                 "2 TIMER_START - U ok at=4",
                 "4 TIMER_EXPIRE U",
                 "5 SWITCH timers<-idle",
                 "5 TIMER_RUN timers U late=1",
                 "5 SWITCH idle<-timers",
                 "10 SWITCH P<-idle",
                 "10 SWITCH idle<-P");
}

/* ---- errors change nothing ---- */

static void freeing_action(pr_id_t timer, void *arg)
{
    (void)arg;
    CHECK_EQ(pr_timer_free(timer), PR_OK); /* its own action may free it */
    nran++;
}

static void errors_change_nothing(void)
{
    harness_reset(0);
    nran = 0;
    pr_timer_attr_t attr;
    pr_timer_attr_init(&attr);
    attr.action = note_action;
    pr_id_t id = PR_NO_TIMER;
    CHECK_EQ(pr_timer_alloc(NULL, &id), PR_EINVAL);
    CHECK_EQ(pr_timer_alloc(&attr, NULL), PR_EINVAL);
    pr_timer_attr_t bad = attr;
    bad.action = NULL;
    CHECK_EQ(pr_timer_alloc(&bad, &id), PR_EINVAL);
    bad = attr;
    bad.priority = PR_PRIO_MAX + 1;
    CHECK_EQ(pr_timer_alloc(&bad, &id), PR_EINVAL);
    bad = attr;
    bad.period = (pr_ticks_t)UINT32_MAX + 1;
    CHECK_EQ(pr_timer_alloc(&bad, &id), PR_EINVAL);
    bad = attr;
    bad.name = "a-name-far-too-long-for-it";
    CHECK_EQ(pr_timer_alloc(&bad, &id), PR_EINVAL);
    CHECK_EQ(id, PR_NO_TIMER);
    CHECK_EQ(pr_timer_service_start(PR_PRIO_MAX + 1, NULL), PR_EINVAL);
    CHECK_EQ(pr_timer_service_start(-1, NULL), PR_EINVAL);

    attr.action = freeing_action;
    CHECK_EQ(pr_timer_alloc(&attr, &id), PR_OK);
    CHECK_EQ(pr_timer_start(id, 0), PR_EINVAL);
    CHECK_EQ(pr_timer_start(id, PR_FOREVER), PR_EINVAL);
    CHECK_EQ(timer_status_of(id).armed, 0);
    CHECK_EQ(pr_timer_start(PR_CONFIG_MAX_TIMERS, 1), PR_EBADID);
    CHECK_EQ(pr_timer_stop(-1), PR_EBADID);
    CHECK_EQ(pr_timer_start(id + 1, 1), PR_ENOTALLOC);
    CHECK_EQ(pr_timer_status(id, NULL), PR_EINVAL);
    CHECK_EQ(pr_timer_stop(id), PR_OK); /* not armed: nothing changes */

    /* Due before the service exists: its action waits for it. */
    CHECK_EQ(pr_timer_start(id, 3), PR_OK);
    CHECK_EQ(timer_status_of(id).expiry, 3);
    pr_host_run_ticks(5);
    CHECK_EQ(nran, 0);
    pr_timer_status_t st = timer_status_of(id);
    CHECK_EQ(st.armed, 1); /* due */
    CHECK_EQ(st.expiry, 3);
    CHECK_EQ(pr_timer_service_start(0, NULL), PR_OK);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    CHECK_EQ(nran, 1);
    CHECK_EQ(pr_timer_status(id, &st), PR_ENOTALLOC); /* it freed itself */
    for (int i = 0; i < PR_CONFIG_MAX_TIMERS; i++)
        CHECK_EQ(pr_timer_alloc(&attr, &id), PR_OK);
    CHECK_EQ(pr_timer_alloc(&attr, &id), PR_ENOSPC);
}

HARNESS_MAIN(TEST_CASE(due_actions_run_most_urgent_first_in_the_service),
             TEST_CASE(an_expiry_whose_action_has_not_run_is_dropped),
             TEST_CASE(a_due_expiry_dropped_before_its_action_and_the_service_deleted_asleep),
             TEST_CASE(errors_change_nothing))
