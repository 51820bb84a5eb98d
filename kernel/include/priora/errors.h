/*
 * Error codes. Every Priora call returns PR_OK (0) or one of these negative
 * codes (pr_task_wait_miss returns a positive count on success); none of
 * them crashes or changes state when it fails, except where its description
 * says so (PR_ETIMEDOUT: the wait is over) and for the statistics (a down
 * that fails after validation is still counted in the semaphore's downs).
 */
#ifndef PRIORA_ERRORS_H
#define PRIORA_ERRORS_H

typedef enum pr_err {
    PR_OK = 0,
    PR_EINVAL = -1,    /* an argument or attribute is invalid (or an invalid combination) */
    PR_EBADID = -2,    /* the id is outside the pool */
    PR_ENOTALLOC = -3, /* the id is in the pool but not allocated (never, or freed) */
    PR_ENOSPC = -4,    /* the pool is exhausted */
    PR_ETIMEDOUT = -5, /* the timeout expired before the semaphore was obtained */
    PR_EAGAIN = -6,    /* PR_NO_WAIT was given and the call would have blocked */
    PR_EPERM = -7,     /* up on a mutex by a task that does not hold it */
    PR_EHELD = -8,     /* down on a mutex the caller already holds (self-deadlock) */
    PR_EDEADLK = -9,   /* blocking would close a cycle of mutex waits (deadlock) */
    PR_EBUSY = -10,    /* free of a semaphore with waiters or a holder; delete of a task holding a mutex */
    PR_ECONTEXT = -11, /* the call needs a calling task that may block (not an interrupt, not outside the kernel) */
    PR_ESTATE = -12,   /* the object is not in a state where the call applies */
    PR_EOVERFLOW = -13, /* the semaphore value (or a recursive mutex's lock count) would overflow */
    PR_ECEILING = -14,  /* the caller's base priority is above the mutex's ceiling (pcp, ipcp) */
    PR_EABORTED = -15,  /* rcs: the caller's critical section on this mutex was aborted by a more urgent task */
    PR_EPRIV_RT = -16,      /* the caller lacks PR_PRIV_RTPRIO (privilege.h) */
    PR_EPRIV_PRIO = -17,    /* the caller lacks PR_PRIV_SETPRIO */
    PR_EPRIV_CEILING = -18, /* the caller lacks PR_PRIV_CEILING */
    PR_EPRIV_GROUP = -19,   /* the caller lacks PR_PRIV_GROUPS */
    PR_EJOBABORTED = -20    /* the caller's current job was aborted (a hard deadline missed, its abort time reached) */
} pr_err_t;

#define PR_ELAST PR_EJOBABORTED /* the last (most negative) error code */

/* A short constant text for a code (PR_ETIMEDOUT: "timeout expired"). */
const char *pr_strerror(int err);

/* The symbolic name of a code ("PR_ETIMEDOUT"). */
const char *pr_errname(int err);

#endif /* PRIORA_ERRORS_H */
