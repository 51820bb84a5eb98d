/* Names and texts of the error codes (errors.h). */
#include "priora/errors.h"

static const struct {
    const char *name;
    const char *text;
} table[] = {
    {"PR_OK", "success"},
    {"PR_EINVAL", "invalid argument or attribute"},
    {"PR_EBADID", "id outside the pool"},
    {"PR_ENOTALLOC", "object not allocated"},
    {"PR_ENOSPC", "pool exhausted"},
    {"PR_ETIMEDOUT", "timeout expired"},
    {"PR_EAGAIN", "would block"},
    {"PR_EPERM", "mutex not held by the caller"},
    {"PR_EHELD", "mutex already held by the caller"},
    {"PR_EDEADLK", "wait would close a cycle (deadlock)"},
    {"PR_EBUSY", "object in use"},
    {"PR_ECONTEXT", "call not allowed in this context"},
    {"PR_ESTATE", "object not in a state where the call applies"},
    {"PR_EOVERFLOW", "semaphore value would overflow"},
    {"PR_ECEILING", "priority above the mutex's ceiling"},
    {"PR_EABORTED", "critical section aborted"},
    {"PR_EPRIV_RT", "no privilege to use real-time priorities"},
    {"PR_EPRIV_PRIO", "no privilege to raise or change this priority"},
    {"PR_EPRIV_CEILING", "no privilege for a ceiling above the caller's priority"},
    {"PR_EPRIV_GROUP", "no privilege to change privilege groups"},
    {"PR_EJOBABORTED", "job aborted"},
};

static int index_of(int err)
{
    const int count = (int)(sizeof table / sizeof table[0]);
    if (err > 0 || err <= -count) /* checked before negating: -INT_MIN overflows */
        return -1;
    return -err;
}

const char *pr_errname(int err)
{
    int i = index_of(err);
    return i >= 0 ? table[i].name : "PR_E?";
}

const char *pr_strerror(int err)
{
    int i = index_of(err);
    return i >= 0 ? table[i].text : "unknown error";
}
