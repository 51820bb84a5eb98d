/*
 * Event flags: a set wakes every waiter the new flags satisfy, most urgent
 * first, each judged against the flags the set left, and clears the flags
 * the woken waiters asked to clear once all are judged; waits for any or
 * all of a mask, with timeouts; sets from an interrupt; every error with
 * nothing changed.
 */
#include "harness.h"

#define EV_EVENTS (EV(PR_EV_EVENTS_SET) | EV(PR_EV_EVENTS_WAIT) | EV(PR_EV_EVENTS_WAKE))

enum { E = 0 };

static pr_id_t events(const char *name)
{
    pr_id_t id = PR_NO_EVENTS;
    CHECK_EQ(pr_events_alloc(name, &id), PR_OK);
    return id;
}

static pr_events_status_t events_status_of(pr_id_t id)
{
    pr_events_status_t st;
    memset(&st, 0, sizeof st);
    CHECK_EQ(pr_events_status(id, &st), PR_OK);
    return st;
}

/* A waiter: waits on E for `mask` under `options` with `timeout`, and keeps
 * what its call returned and the flags it saw. */
typedef struct waiter {
    uint32_t mask;
    unsigned options;
    pr_timeout_t timeout;
    int rc;
    uint32_t flags;
} waiter_t;

static void waiter_body(void *arg)
{
    waiter_t *w = arg;
    w->rc = pr_events_wait(E, w->mask, w->options, w->timeout, &w->flags);
}

/* ---- one set, every satisfied waiter ---- */

static waiter_t w1, w2, w3, w4;

static void setter_body(void *arg)
{
    (void)arg;
    CHECK_EQ(pr_events_set(E, 0x1), PR_OK); /* tick 1: W1 only (W3 wants 0x1 and 0x2) */
    CHECK_EQ(pr_task_delay(1), PR_OK);
    CHECK_EQ(pr_events_set(E, 0x2), PR_OK); /* tick 2: W4 and W3, not W2 */
}

/*
 * W4 (4) waits for any of 0x2 and clears it, W3 (3) for all of 0x3 and
 * clears them, W2 (2) for 0x4 with a 5-tick timeout, W1 (1) for any of 0x1;
 * all from tick 0. S (5), released at 1, sets 0x1, then 0x2 at 2.
 *
 * At 1 the flags are 0x1: W1 alone is satisfied. At 2 they are 0x3: W4 and
 * W3 are, most urgent first, both against 0x3 (W4's clearing 0x2 does not
 * take it from W3), and then 0x2 | 0x3 is cleared: 0. W2 times out at 5,
 * seeing 0.
 */
static void a_set_wakes_every_satisfied_waiter_most_urgent_first(void)
{
    harness_reset(0);
    CHECK_EQ(events("E"), E);
    w1 = (waiter_t){0x1, PR_EVENTS_ANY, PR_FOREVER, 1, 0};
    w2 = (waiter_t){0x4, PR_EVENTS_ANY, 5, 1, 0};
    w3 = (waiter_t){0x3, PR_EVENTS_ALL | PR_EVENTS_CLEAR, PR_FOREVER, 1, 0};
    w4 = (waiter_t){0x2, PR_EVENTS_ANY | PR_EVENTS_CLEAR, PR_FOREVER, 1, 0};
    pr_id_t t1 = task_at("W1", 1, 0, waiter_body, &w1);
    pr_id_t t2 = task_at("W2", 2, 0, waiter_body, &w2);
    task_at("W3", 3, 0, waiter_body, &w3);
    task_at("W4", 4, 0, waiter_body, &w4);
    task_at("S", 5, 1, setter_body, NULL);
    pr_host_run_ticks(3);
    CHECK_EQ(events_status_of(E).waiters, 1);
    CHECK_EQ(status_of(t2).state, PR_TASK_WAIT_EVENTS);
    CHECK_EQ(status_of(t2).events_on, E);
    CHECK_EQ(status_of(t1).events_on, PR_NO_EVENTS);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_EVENTS | EV(PR_EV_SWITCH),
                 "0 SWITCH W4<-idle",
                 "0 EVENTS_WAIT W4 E ok mask=0x2 any+clear waits",
                 "0 SWITCH W3<-W4",
                 "0 EVENTS_WAIT W3 E ok mask=0x3 all+clear waits",
                 "0 SWITCH W2<-W3",
                 "0 EVENTS_WAIT W2 E ok mask=0x4 any waits",
                 "0 SWITCH W1<-W2",
                 "0 EVENTS_WAIT W1 E ok mask=0x1 any waits",
                 "0 SWITCH idle<-W1",
                 "1 SWITCH S<-idle",
                 "1 EVENTS_WAKE W1 E ok flags=0x1",
                 "1 EVENTS_SET S E ok flags=0x1 woken=1",
                 "1 SWITCH W1<-S",
                 "1 SWITCH idle<-W1",
                 "2 SWITCH S<-idle",
                 "2 EVENTS_WAKE W4 E ok flags=0x3",
                 "2 EVENTS_WAKE W3 E ok flags=0x3",
                 "2 EVENTS_SET S E ok flags=0x0 woken=2",
                 "2 SWITCH W4<-S",
                 "2 SWITCH W3<-W4",
                 "2 SWITCH idle<-W3",
                 "5 EVENTS_WAKE W2 E PR_ETIMEDOUT flags=0x0",
                 "5 SWITCH W2<-idle",
                 "5 SWITCH idle<-W2");
    CHECK_EQ(w1.rc, PR_OK);
    CHECK_EQ(w1.flags, 0x1);
    CHECK_EQ(w4.rc, PR_OK);
    CHECK_EQ(w4.flags, 0x3);
    CHECK_EQ(w3.rc, PR_OK);
    CHECK_EQ(w3.flags, 0x3);
    CHECK_EQ(w2.rc, PR_ETIMEDOUT);
    CHECK_EQ(w2.flags, 0x0);
    pr_events_status_t st = events_status_of(E);
    CHECK_EQ(st.flags, 0);
    CHECK_EQ(st.waiters, 0);
    CHECK_EQ(st.sets, 2);
    CHECK_EQ(st.wakeups, 3);
}

/* ---- an interrupt sets a flag ---- */

static int isr_rc[3];

/* L computes; 3 ticks in, a device's interrupt comes (its handler runs on
 * L's stack, as on hardware): it sets 0x8 and clears 0x10; a wait from it
 * that would block is refused. H, woken, runs at the handler's end. */
static void interrupted_body(void *arg)
{
    (void)arg;
    pr_host_consume(TICKS(3));
    pr_isr_enter();
    isr_rc[0] = pr_events_set(E, 0x8);
    isr_rc[1] = pr_events_clear(E, 0x10);
    uint32_t flags = 0;
    isr_rc[2] = pr_events_wait(E, 0x20, PR_EVENTS_ANY, PR_FOREVER, &flags);
    pr_isr_exit();
    pr_host_consume(TICKS(3));
}

static waiter_t wh;

/*
 * H (2) waits for 0x8 at 0; L (1) computes 6 ticks from 0. The interrupt
 * at 3 sets 0x8: H preempts L when the handler ends, at 3.
 */
static void an_interrupt_wakes_a_waiter_at_once(void)
{
    harness_reset(0);
    CHECK_EQ(events("E"), E);
    CHECK_EQ(pr_events_set(E, 0x10), PR_OK); /* from outside any task */
    wh = (waiter_t){0x8, PR_EVENTS_ALL, PR_FOREVER, 1, 0};
    task_at("H", 2, 0, waiter_body, &wh);
    task_at("L", 1, 0, interrupted_body, NULL);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    EXPECT_TRACE(EV_EVENTS | EV(PR_EV_SWITCH),
                 "0 EVENTS_SET - E ok flags=0x10 woken=0",
                 "0 SWITCH H<-idle",
                 "0 EVENTS_WAIT H E ok mask=0x8 all waits",
                 "0 SWITCH L<-H",
                 "3 EVENTS_WAKE H E ok flags=0x18",
                 "3 EVENTS_SET - E ok flags=0x18 woken=1",
                 "3 EVENTS_CLEAR - E ok flags=0x8 woken=0",
                 "3 EVENTS_WAIT - E PR_ECONTEXT mask=0x20 any",
                 "3 SWITCH H<-L",
                 "3 SWITCH L<-H",
                 "6 SWITCH idle<-L");
    CHECK_EQ(isr_rc[0], PR_OK);
    CHECK_EQ(isr_rc[1], PR_OK);
    CHECK_EQ(isr_rc[2], PR_ECONTEXT);
    CHECK_EQ(wh.rc, PR_OK);
    CHECK_EQ(wh.flags, 0x18);
}

/* ---- no waiting needed; errors change nothing ---- */

static int body_rc[8];
static uint32_t body_flags[8];

static void checker_body(void *arg)
{
    (void)arg;
    /* Satisfied at once: returns the flags, clears only the mask's. */
    body_rc[0] = pr_events_wait(E, 0x3, PR_EVENTS_ALL | PR_EVENTS_CLEAR, PR_NO_WAIT, &body_flags[0]);
    /* Not satisfied, no wait: PR_EAGAIN with the flags now. */
    body_rc[1] = pr_events_wait(E, 0x1, PR_EVENTS_ANY, PR_NO_WAIT, &body_flags[1]);
    body_rc[2] = pr_events_wait(E, 0, PR_EVENTS_ANY, PR_FOREVER, NULL);        /* mask 0 */
    body_rc[3] = pr_events_wait(E, 0x1, 4u, PR_FOREVER, NULL);                 /* unknown option */
    body_rc[4] = pr_events_wait(PR_CONFIG_MAX_EVENTS, 0x1, 0, PR_FOREVER, NULL); /* outside the pool */
    body_rc[5] = pr_events_wait(1, 0x1, 0, PR_FOREVER, NULL);                  /* not allocated */
    body_rc[6] = pr_events_wait(E, 0x4, PR_EVENTS_ANY, 2, &body_flags[6]);     /* times out at 2 */
}

static void errors_change_nothing(void)
{
    harness_reset(0);
    CHECK_EQ(events("E"), E);
    CHECK_EQ(pr_events_set(E, 0xB), PR_OK);
    CHECK_EQ(pr_events_set(E, 0), PR_OK); /* nothing to set */
    task_at("C", 1, 0, checker_body, NULL);
    CHECK_EQ(pr_host_run_ticks(1), PR_HOST_REACHED);
    /* while C waits: it cannot be freed */
    CHECK_EQ(pr_events_free(E), PR_EBUSY);
    CHECK_EQ(events_status_of(E).waiters, 1);
    CHECK_EQ(pr_host_run_ticks(100), PR_HOST_QUIESCENT);
    CHECK_EQ(body_rc[0], PR_OK);
    CHECK_EQ(body_flags[0], 0xB);
    CHECK_EQ(body_rc[1], PR_EAGAIN);
    CHECK_EQ(body_flags[1], 0x8);
    CHECK_EQ(body_rc[2], PR_EINVAL);
    CHECK_EQ(body_rc[3], PR_EINVAL);
    CHECK_EQ(body_rc[4], PR_EBADID);
    CHECK_EQ(body_rc[5], PR_ENOTALLOC);
    CHECK_EQ(body_rc[6], PR_ETIMEDOUT);
    CHECK_EQ(body_flags[6], 0x8);
    EXPECT_TRACE(EV_EVENTS,
                 "0 EVENTS_SET - E ok flags=0xb woken=0",
                 "0 EVENTS_SET - E ok flags=0xb woken=0",
                 "0 EVENTS_WAIT C E ok mask=0x3 all+clear",
                 "0 EVENTS_WAIT C E PR_EAGAIN mask=0x1 any",
                 "0 EVENTS_WAIT C E PR_EINVAL mask=0x0 any",
                 "0 EVENTS_WAIT C E PR_EINVAL mask=0x1 any",
                 "0 EVENTS_WAIT C - PR_EBADID mask=0x1 any",
                 "0 EVENTS_WAIT C E1 PR_ENOTALLOC mask=0x1 any",
                 "0 EVENTS_WAIT C E ok mask=0x4 any waits",
                 "2 EVENTS_WAKE C E PR_ETIMEDOUT flags=0x8");
    pr_events_status_t st = events_status_of(E);
    CHECK_EQ(st.flags, 0x8);
    CHECK_EQ(st.sets, 2);
    CHECK_EQ(st.wakeups, 0);

    CHECK_EQ(pr_events_set(PR_CONFIG_MAX_EVENTS, 1), PR_EBADID);
    CHECK_EQ(pr_events_clear(-1, 1), PR_EBADID);
    CHECK_EQ(pr_events_set(1, 1), PR_ENOTALLOC);
    CHECK_EQ(pr_events_status(E, NULL), PR_EINVAL);
    CHECK_EQ(pr_events_alloc(NULL, NULL), PR_EINVAL);
    pr_id_t id;
    CHECK_EQ(pr_events_alloc("a-name-far-too-long-for-it", &id), PR_EINVAL);
    CHECK_EQ(events_status_of(E).flags, 0x8); /* unchanged by every refusal */
    for (int i = 1; i < PR_CONFIG_MAX_EVENTS; i++)
        CHECK_EQ(pr_events_alloc(NULL, &id), PR_OK);
    CHECK_EQ(pr_events_alloc(NULL, &id), PR_ENOSPC);
    CHECK_EQ(pr_events_free(E), PR_OK);
    CHECK_EQ(pr_events_free(E), PR_ENOTALLOC);
    CHECK_EQ(pr_events_alloc(NULL, &id), PR_OK);
    CHECK_EQ(id, E);
    CHECK_EQ(events_status_of(E).flags, 0); /* a new object: every flag clear */
}

HARNESS_MAIN(TEST_CASE(a_set_wakes_every_satisfied_waiter_most_urgent_first),
             TEST_CASE(an_interrupt_wakes_a_waiter_at_once), TEST_CASE(errors_change_nothing))
