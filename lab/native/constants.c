/*
 * The constants the lab's Python mirrors (lab/priora/run/native.py), by their C
 * names' values, so that the binding compares every one at load: a code
 * renumbered in a header and not in Python is an error at once, not a
 * misread trace.
 */
#include <stddef.h>
#include "priora/priora.h"
#include "priora/scenario.h"
#include "constants.h"
#include "intervals.h"

#define ROW(table, name, value) {table, name, (long)(value)}

static const pr_lab_constant_t constants[] = {
    /* trace events (trace.h), by pr_trace_event_name's names */
    ROW("event", "TASK_CREATE", PR_EV_TASK_CREATE), ROW("event", "TASK_DELETE", PR_EV_TASK_DELETE),
    ROW("event", "RELEASE", PR_EV_RELEASE), ROW("event", "SWITCH", PR_EV_SWITCH),
    ROW("event", "BLOCK", PR_EV_BLOCK), ROW("event", "WAKE", PR_EV_WAKE), ROW("event", "PRIO", PR_EV_PRIO),
    ROW("event", "TIMEOUT", PR_EV_TIMEOUT), ROW("event", "MISS", PR_EV_DEADLINE_MISS),
    ROW("event", "JOB_DONE", PR_EV_JOB_DONE), ROW("event", "SEM_ALLOC", PR_EV_SEM_ALLOC),
    ROW("event", "SEM_FREE", PR_EV_SEM_FREE), ROW("event", "DOWN", PR_EV_SEM_DOWN),
    ROW("event", "UP", PR_EV_SEM_UP), ROW("event", "DELAY", PR_EV_DELAY), ROW("event", "SUSPEND", PR_EV_SUSPEND),
    ROW("event", "RESUME", PR_EV_RESUME), ROW("event", "TASK_EXIT", PR_EV_TASK_EXIT),
    ROW("event", "LOST", PR_EV_LOST), ROW("event", "WATCHDOG", PR_EV_WATCHDOG),
    ROW("event", "DELAY_END", PR_EV_DELAY_END), ROW("event", "PRIO_SET", PR_EV_PRIO_SET),
    ROW("event", "ABORT", PR_EV_ABORT), ROW("event", "CEILING", PR_EV_CEILING),
    ROW("event", "COND_WAIT", PR_EV_COND_WAIT), ROW("event", "COND_WAKE", PR_EV_COND_WAKE),
    ROW("event", "COND_SIGNAL", PR_EV_COND_SIGNAL), ROW("event", "SCHED_LOCK", PR_EV_SCHED_LOCK),
    ROW("event", "RECOVER", PR_EV_RECOVER), ROW("event", "EVENTS_SET", PR_EV_EVENTS_SET),
    ROW("event", "EVENTS_WAIT", PR_EV_EVENTS_WAIT), ROW("event", "EVENTS_WAKE", PR_EV_EVENTS_WAKE),
    ROW("event", "MSGQ_WAIT", PR_EV_MSGQ_WAIT), ROW("event", "MSGQ_WAKE", PR_EV_MSGQ_WAKE),
    ROW("event", "SEND", PR_EV_MSGQ_SEND), ROW("event", "RECEIVE", PR_EV_MSGQ_RECEIVE),
    ROW("event", "TIMER_START", PR_EV_TIMER_START), ROW("event", "TIMER_EXPIRE", PR_EV_TIMER_EXPIRE),
    ROW("event", "TIMER_RUN", PR_EV_TIMER_RUN), ROW("event", "RTPRIO", PR_EV_RTPRIO), ROW("event", "NICE", PR_EV_NICE),
    ROW("event", "PRIV_GROUP", PR_EV_PRIV_GROUP), ROW("event", "TASK_GROUP", PR_EV_TASK_GROUP),
    ROW("event", "ARRIVAL", PR_EV_ARRIVAL), ROW("event", "JOB_ABORT", PR_EV_JOB_ABORT),
    /* causes of a PRIO record (pr_prio_cause_t) */
    ROW("cause", "set", PR_CAUSE_SET), ROW("cause", "inherit", PR_CAUSE_INHERIT),
    ROW("cause", "release", PR_CAUSE_RELEASE), ROW("cause", "acquire", PR_CAUSE_ACQUIRE),
    ROW("cause", "timeout", PR_CAUSE_TIMEOUT), ROW("cause", "delete", PR_CAUSE_DELETE),
    ROW("cause", "ceiling", PR_CAUSE_CEILING), ROW("cause", "message", PR_CAUSE_MESSAGE),
    ROW("cause", "decay", PR_CAUSE_DECAY), ROW("cause", "abort", PR_CAUSE_ABORT),
    /* the kinds of object a PRIO record names (pr_trace_object_t) */
    ROW("object", "sem", PR_OBJ_SEM), ROW("object", "msgq", PR_OBJ_MSGQ),
    /* error codes (errors.h) */
    ROW("error", "PR_OK", PR_OK), ROW("error", "PR_EINVAL", PR_EINVAL), ROW("error", "PR_EBADID", PR_EBADID),
    ROW("error", "PR_ENOTALLOC", PR_ENOTALLOC), ROW("error", "PR_ENOSPC", PR_ENOSPC),
    ROW("error", "PR_ETIMEDOUT", PR_ETIMEDOUT), ROW("error", "PR_EAGAIN", PR_EAGAIN),
    ROW("error", "PR_EPERM", PR_EPERM), ROW("error", "PR_EHELD", PR_EHELD), ROW("error", "PR_EDEADLK", PR_EDEADLK),
    ROW("error", "PR_EBUSY", PR_EBUSY), ROW("error", "PR_ECONTEXT", PR_ECONTEXT),
    ROW("error", "PR_ESTATE", PR_ESTATE), ROW("error", "PR_EOVERFLOW", PR_EOVERFLOW),
    ROW("error", "PR_ECEILING", PR_ECEILING), ROW("error", "PR_EABORTED", PR_EABORTED),
    ROW("error", "PR_EJOBABORTED", PR_EJOBABORTED),
    /* locking protocols (pr_protocol_t) */
    ROW("protocol", "none", PR_PROTOCOL_NONE), ROW("protocol", "pip", PR_PROTOCOL_PIP),
    ROW("protocol", "pcp", PR_PROTOCOL_PCP), ROW("protocol", "ipcp", PR_PROTOCOL_IPCP),
    ROW("protocol", "npcs", PR_PROTOCOL_NPCS), ROW("protocol", "rcs", PR_PROTOCOL_RCS),
    /* the scenario interpreter's actions (pr_action_kind_t), by the file's names */
    ROW("action", "compute", PR_ACT_COMPUTE), ROW("action", "lock", PR_ACT_LOCK),
    ROW("action", "unlock", PR_ACT_UNLOCK), ROW("action", "down", PR_ACT_DOWN), ROW("action", "up", PR_ACT_UP),
    ROW("action", "delay", PR_ACT_DELAY), ROW("action", "send", PR_ACT_SEND),
    ROW("action", "receive", PR_ACT_RECEIVE), ROW("action", "set", PR_ACT_EVENTS_SET),
    ROW("action", "clear", PR_ACT_EVENTS_CLEAR), ROW("action", "wait", PR_ACT_EVENTS_WAIT),
    ROW("action", "rtprio", PR_ACT_RTPRIO), ROW("action", "nice", PR_ACT_NICE),
    ROW("action", "release", PR_ACT_RELEASE),
    /* the kinds of span (intervals.h) */
    ROW("span", "EXEC", PR_SPAN_EXEC), ROW("span", "HOLD", PR_SPAN_HOLD), ROW("span", "BLOCKED", PR_SPAN_BLOCKED),
    ROW("span", "RECOVERY", PR_SPAN_RECOVERY), ROW("span", "BOOST", PR_SPAN_BOOST),
    ROW("span", "ABORT", PR_SPAN_ABORT), ROW("span", "CHANGE", PR_SPAN_CHANGE),
    ROW("span", "RELEASE", PR_SPAN_RELEASE), ROW("span", "DEADLINE", PR_SPAN_DEADLINE),
    ROW("span", "FINISH", PR_SPAN_FINISH), ROW("span", "WAIT", PR_SPAN_WAIT),
    ROW("span", "SERVICE", PR_SPAN_SERVICE),
    /* single values */
    ROW("value", "PR_FOREVER", PR_FOREVER), ROW("value", "PR_NO_WAIT", PR_NO_WAIT),
    ROW("value", "PR_SEM_PRIO", PR_SEM_PRIO), ROW("value", "PR_SEM_MUTEX", PR_SEM_MUTEX),
    ROW("value", "PR_SEM_RECURSIVE", PR_SEM_RECURSIVE), ROW("value", "PR_SEM_BINARY", PR_SEM_BINARY),
    ROW("value", "PR_SEM_CTL_RECOVERY", PR_SEM_CTL_RECOVERY),
    ROW("value", "PR_ACT_SEND_PRIORITY", PR_ACT_SEND_PRIORITY), ROW("value", "PR_EVENTS_ALL", PR_EVENTS_ALL),
    ROW("value", "PR_EVENTS_CLEAR", PR_EVENTS_CLEAR), ROW("value", "PR_MSGQ_FIFO_MESSAGES", PR_MSGQ_FIFO_MESSAGES),
    ROW("value", "PR_MSGQ_INHERIT", PR_MSGQ_INHERIT), ROW("value", "PR_SCRIPT_MSG_SIZE", PR_SCRIPT_MSG_SIZE),
    ROW("value", "PR_TRACE_NONE", PR_TRACE_NONE),
};

const pr_lab_constant_t *pr_lab_constants(size_t *count)
{
    *count = sizeof constants / sizeof constants[0];
    return constants;
}
