"""The Priora kernel in this process: the host port as a shared library
(libpriora_lab.so), reached through cffi in ABI mode.

The library is the one built into the package (pip install ./lab), else the
checkout's CMake build (build/lab, scripts/setup.sh); $PRIORA_NATIVE_LIB
overrides both (docs/packaging.md).

The declarations below mirror the C headers (kernel/include/priora/*.h,
ports/host/include/priora/host.h, lab/native/metrics.h). At load, the size of
every mirrored structure is compared with the C compiler's (pr_lab_sizeof), so
a header change that this file misses is an error, never silent corruption.

The kernel is one global instance: one simulation at a time per process.
"""

from __future__ import annotations

import os
import re
from functools import cache

from priora import limits
from priora.errors import NativeError

CDEF = """
typedef int pr_id_t;
typedef int pr_prio_t;
typedef uint64_t pr_ticks_t;
typedef uint32_t pr_timeout_t;

typedef struct {
    uint32_t tick_hz; pr_ticks_t quantum; int timeshare_levels; pr_ticks_t timeshare_quantum;
    pr_ticks_t timeshare_decay;
} pr_kernel_config_t;
typedef struct { uint64_t context_switches; uint64_t priority_changes; uint64_t ticks; } pr_kernel_stats_t;
typedef struct {
    const char *name; pr_prio_t priority; void (*entry)(void *arg); void *arg;
    pr_ticks_t period; pr_ticks_t phase; pr_ticks_t deadline; pr_id_t watchdog;
    int sched_class; int nice; int priv_group;
    unsigned flags; pr_ticks_t min_interarrival; pr_ticks_t jitter; uint32_t jitter_seed;
    uint32_t importance; pr_ticks_t abort_time; pr_ticks_t offset;
} pr_task_attr_t;
typedef struct {
    pr_id_t id; char name[16]; int state; int suspended;
    pr_prio_t base_priority; pr_prio_t effective_priority; pr_id_t blocked_on; int mutexes_held;
    uint32_t jobs_released; uint32_t jobs_completed; uint32_t deadline_misses;
    uint64_t cpu_time; pr_ticks_t period; pr_ticks_t phase; pr_ticks_t deadline; pr_id_t watchdog;
    pr_id_t cond_on; uint32_t aborts; uint32_t aborts_pending; pr_id_t events_on; pr_id_t msgq_on;
    int sched_class; int nice; uint32_t usage; int priv_group;
    unsigned flags; pr_ticks_t min_interarrival; pr_ticks_t jitter; uint32_t arrivals;
    uint32_t releases_refused; uint32_t releases_deferred; uint32_t releases_pending; pr_ticks_t max_jitter;
    uint32_t importance; pr_ticks_t abort_time; uint32_t hard_misses; uint32_t jobs_aborted; int job_aborted;
    pr_ticks_t offset;
} pr_task_status_t;
typedef struct {
    int value; int max; unsigned flags; int protocol; pr_prio_t ceiling; const char *name;
} pr_sem_attr_t;
typedef struct { uint32_t ups; uint32_t downs; uint32_t max_waiters; uint32_t aborts; } pr_sem_stats_t;
typedef struct {
    uint64_t time; uint32_t seq; int32_t value; uint8_t event; uint8_t task; uint8_t object;
    int8_t result; uint8_t arg0; uint8_t arg1; uint16_t ids_high;
} pr_trace_record_t;
typedef struct {
    int kind; pr_id_t sem; pr_timeout_t timeout; uint32_t options; uint64_t amount;
} pr_action_t;
typedef struct {
    const pr_action_t *actions; uint32_t count; uint32_t timeouts; uint32_t errors;
    int last_error; uint32_t last_error_action; uint32_t aborts; uint64_t lost;
    uint32_t exec_spread; uint32_t exec_state; uint32_t exec_ratio;
} pr_script_t;
typedef struct {
    uint64_t release; uint64_t start; uint64_t finish; uint64_t deadline; uint64_t blocked; uint64_t inverted;
    int32_t task; uint32_t job; uint32_t timeouts; int32_t missed; uint32_t errors; uint32_t aborts;
    uint64_t lost; uint64_t recovery;
} pr_lab_job_t;
typedef struct { uint64_t busy; uint64_t end; uint64_t jobs; } pr_lab_totals_t;

typedef struct { uint64_t switch_ns; uint64_t tick_ns; } pr_host_costs_t;
typedef struct {
    const char *name; size_t msg_size; int length; unsigned flags; void *buffer; size_t buffer_bytes;
} pr_msgq_attr_t;
typedef struct {
    pr_id_t index; char name[16]; size_t msg_size; int length; unsigned flags; int messages;
    int most_messages; uint32_t sends, receives; uint32_t send_waits, receive_waits;
    int senders_waiting; int receivers_waiting; pr_id_t server;
} pr_msgq_status_t;
typedef struct {
    pr_id_t index; char name[16]; uint32_t flags; int waiters; uint32_t sets; uint32_t wakeups;
} pr_events_status_t;
typedef struct {
    const char *name; void (*action)(pr_id_t timer, void *arg); void *arg; pr_prio_t priority;
    pr_ticks_t period;
} pr_timer_attr_t;
typedef struct {
    pr_id_t index; char name[16]; int armed; pr_ticks_t expiry; pr_prio_t priority; pr_ticks_t period;
    uint32_t expiries; uint32_t dropped; pr_ticks_t max_lateness;
} pr_timer_status_t;
typedef struct {
    pr_ticks_t phase; pr_ticks_t period; pr_script_t script; uint32_t fired;
} pr_script_interrupt_t;
typedef struct { pr_script_interrupt_t *list; uint32_t count; } pr_script_interrupts_t;
typedef struct { void (*fn)(pr_id_t mutex, void *arg); void *arg; } pr_sem_recovery_t;

const char *pr_errname(int err);
int pr_host_init(const pr_kernel_config_t *config);
void pr_host_set_costs(const pr_host_costs_t *costs);
int pr_host_set_sem_cost(pr_id_t sem, int op, uint64_t ns);
int pr_host_set_event_cost(int event, uint64_t ns);
void pr_host_set_preempt_cost(uint64_t ns);
int pr_host_run_until(uint64_t until_ns);
uint64_t pr_host_now(void);
const pr_trace_record_t *pr_host_trace(size_t *count);
void pr_host_trace_keep(uint64_t events);
void pr_kernel_stats(pr_kernel_stats_t *stats);
void pr_task_attr_init(pr_task_attr_t *attr);
int pr_task_create(const pr_task_attr_t *attr, pr_id_t *id);
int pr_task_status(pr_id_t id, pr_task_status_t *status);
int pr_priv_group_set(int group, uint32_t privs);
int pr_task_release(pr_id_t id);
void pr_sem_attr_init(pr_sem_attr_t *attr);
int pr_sem_alloc(const pr_sem_attr_t *attr, pr_id_t *id);
int pr_sem_stats(pr_id_t id, pr_sem_stats_t *stats);
int pr_sem_control(pr_id_t id, int cmd, void *arg);
int pr_script_check(const pr_script_t *script, uint32_t *bad_action);
int pr_script_check_once(const pr_script_t *script, uint32_t *bad_action);
void pr_script_timer_action(pr_id_t timer, void *script);
void pr_script_interrupts_tick(void *interrupts);
void pr_host_set_tick_hook(void (*fn)(void *arg), void *arg);
void pr_msgq_attr_init(pr_msgq_attr_t *attr);
int pr_msgq_alloc(const pr_msgq_attr_t *attr, pr_id_t *id);
int pr_msgq_status(pr_id_t id, pr_msgq_status_t *status);
int pr_events_alloc(const char *name, pr_id_t *id);
int pr_events_status(pr_id_t id, pr_events_status_t *status);
void pr_timer_attr_init(pr_timer_attr_t *attr);
int pr_timer_service_start(pr_prio_t priority, pr_id_t *task);
int pr_timer_alloc(const pr_timer_attr_t *attr, pr_id_t *id);
int pr_timer_start(pr_id_t id, pr_timeout_t delay);
int pr_timer_status(pr_id_t id, pr_timer_status_t *status);
void pr_script_body(void *script);
void pr_script_recover(pr_id_t mutex, void *arg);
int pr_lab_account(const pr_trace_record_t *records, size_t n, int ntasks,
                   const uint64_t *rel_deadline, int nsems, const uint8_t *is_mutex, uint64_t end,
                   pr_lab_job_t *jobs, size_t max_jobs, uint64_t *longest_hold, uint64_t *recovery,
                   pr_lab_totals_t *totals);
size_t pr_lab_sizeof(int which);
long pr_lab_limit(int which);

/* The verdict of a run for a campaign (lab/native/verdict.h). */
typedef struct {
    uint64_t worst_response; uint64_t worst_blocked; uint32_t jobs; uint32_t misses;
} pr_lab_verdict_t;
int pr_lab_verdict(const pr_trace_record_t *records, size_t n, int ntasks, const uint64_t *rel_deadline,
                   uint64_t end, uint64_t judged, pr_lab_verdict_t *verdict);
size_t pr_lab_verdict_sizeof(void);
uint64_t pr_lab_verdict_events(void);

/* The jobs block of the JSON report (lab/native/jobs_json.h). */
int64_t pr_lab_jobs_json(const pr_lab_job_t *jobs, size_t n, int nfields, const uint8_t *fields,
                         const char *const *keys, const char *const *names, int nnames,
                         uint64_t units_per_second, const char *sep, char *out, size_t size);
uint64_t pr_lab_jobs_json_bound(size_t n, int nfields, const uint8_t *fields, const char *const *keys,
                                const char *const *names, int nnames, const char *sep);

/* The report's per-task figures (lab/native/task_totals.h). */
typedef struct {
    uint64_t jobs; uint64_t finished; uint64_t max_response; uint64_t max_blocked; uint64_t max_inverted;
    uint64_t misses; uint64_t timeouts; uint64_t errors; uint64_t recovery; uint64_t response_sum;
    uint64_t aborts; uint64_t lost;
} pr_lab_task_totals_t;
int pr_lab_task_totals(const pr_lab_job_t *jobs, size_t n, int ntasks, pr_lab_task_totals_t *totals);
size_t pr_lab_task_totals_sizeof(void);
/* One field of the job rows, for the report's columns (lab/native/job_fields.h). */
int64_t pr_lab_job_column(const pr_lab_job_t *jobs, size_t n, int field, uint64_t units_per_second,
                          int64_t *values, uint64_t *nevers);
/* Passes over a trace and job rows (lab/native/trace_scan.h). */
size_t pr_lab_refusals(const pr_trace_record_t *records, size_t n, uint8_t *mask);
size_t pr_lab_count_event(const pr_trace_record_t *records, size_t n, uint8_t event);
size_t pr_lab_jobs_of_tasks(pr_lab_job_t *jobs, size_t n, int ntasks);
/* the trace's readers: ports/host/include/priora/trace_text.h, lab/native/constants.h */
typedef struct { const char *table; const char *name; long value; } pr_lab_constant_t;
const pr_lab_constant_t *pr_lab_constants(size_t *count);
const char *pr_trace_event_name(int event);
char *pr_trace_format_table(const pr_trace_record_t *r, uint32_t tick_hz, const char *const *names,
                            unsigned per_kind, char *buf, size_t size);
typedef struct {
    uint64_t start; uint64_t end; int64_t a; int64_t b; int32_t task; uint8_t kind; uint8_t object;
    uint8_t flag; uint8_t cause;
} pr_lab_span_t;
typedef struct {
    int ntasks; const int32_t *base; const uint64_t *rel_deadline; int nsems; const uint8_t *is_mutex;
    int nqueues, nevents, ntimers; int timer_row;
} pr_lab_objects_t;
long pr_lab_spans(const pr_trace_record_t *records, size_t n, const pr_lab_objects_t *objects, uint64_t end,
                  pr_lab_span_t *out, size_t max);
size_t pr_lab_spans_bound(const pr_trace_record_t *records, size_t n, const pr_lab_objects_t *objects);
"""

# Order of pr_lab_sizeof's argument (lab/native/metrics.h).
MIRRORED = (
    "pr_trace_record_t",
    "pr_lab_job_t",
    "pr_lab_totals_t",
    "pr_kernel_config_t",
    "pr_task_attr_t",
    "pr_task_status_t",
    "pr_sem_attr_t",
    "pr_sem_stats_t",
    "pr_action_t",
    "pr_script_t",
    "pr_kernel_stats_t",
    "pr_sem_recovery_t",
    "pr_msgq_attr_t",
    "pr_msgq_status_t",
    "pr_events_status_t",
    "pr_timer_attr_t",
    "pr_timer_status_t",
    "pr_script_interrupt_t",
    "pr_lab_span_t",
    "pr_lab_objects_t",
)

# Constants of the C headers.
PR_OK = 0
PR_EAGAIN = -6
PR_ETIMEDOUT = -5
PR_ECEILING = -14
PR_EABORTED = -15
PR_EPERM = -7
PR_EHELD = -8
PR_EDEADLK = -9
PR_EOVERFLOW = -13
PR_EJOBABORTED = -20  # the caller's job was aborted (a hard miss, its abort time)
# The error codes mirrored here (checked at load, with every other constant).
ERRORS = (
    "PR_OK", "PR_EAGAIN", "PR_ETIMEDOUT", "PR_EPERM", "PR_EHELD", "PR_EDEADLK", "PR_EOVERFLOW", "PR_ECEILING",
    "PR_EABORTED", "PR_EJOBABORTED",
)  # fmt: skip
PR_FOREVER = 0xFFFFFFFF
PR_NO_WAIT = 0
PR_SEM_PRIO = 0x1
PR_SEM_MUTEX = 0x2
PR_SEM_RECURSIVE = 0x4
PR_SEM_BINARY = 0x8
PR_SEM_CTL_RECOVERY = 2  # pr_sem_control: an rcs mutex's recovery (pr_sem_recovery_t)
PROTOCOL_NUMBER = {"none": 0, "pip": 1, "pcp": 2, "ipcp": 3, "npcs": 4, "rcs": 5}  # pr_protocol_t
PROTOCOL_NAME = {number: name for name, number in PROTOCOL_NUMBER.items()}
ACTION_NUMBER = {
    "compute": 1, "lock": 2, "unlock": 3, "down": 4, "up": 5, "delay": 6, "send": 9, "receive": 10, "set": 11,
    "clear": 12, "wait": 13, "release": 14, "rtprio": 15, "nice": 16,
}  # fmt: skip
PR_ACT_RTPRIO_OFF = 2**64 - 1  # PR_ACT_RTPRIO's amount: out of the real-time band
NICE_MIN = -20  # PR_NICE_MIN: PR_ACT_NICE's amount is the nice value - NICE_MIN
PR_ACT_SEND_PRIORITY = 1  # pr_action_t.options of a send: amount is the message's priority
PR_EVENTS_ALL = 1
PR_EVENTS_CLEAR = 2
PR_MSGQ_FIFO_MESSAGES = 1
PR_MSGQ_INHERIT = 4
PR_SCRIPT_MSG_SIZE = 4
PR_CLASS_REALTIME = 0  # timeshare.h
PR_CLASS_TIMESHARE = 1
PR_TASK_SPORADIC = 1  # pr_task_attr_t.flags
PR_TASK_DEFER_EARLY = 2
PR_TASK_HARD = 4
PR_ACT_RELEASE = 14  # pr_action_t.kind: pr_task_release(sem = the task)
PR_OBJ_MSGQ = 1  # PR_EV_PRIO value's second byte: the lend came through a message queue

EVENT = {
    "TASK_CREATE": 1, "TASK_DELETE": 2, "RELEASE": 3, "SWITCH": 4, "BLOCK": 5, "WAKE": 6, "PRIO": 7,
    "TIMEOUT": 8, "MISS": 9, "JOB_DONE": 10, "SEM_ALLOC": 11, "SEM_FREE": 12, "DOWN": 13, "UP": 14,
    "DELAY": 15, "SUSPEND": 16, "RESUME": 17, "TASK_EXIT": 18, "LOST": 19, "WATCHDOG": 20,
    "DELAY_END": 21, "PRIO_SET": 22, "ABORT": 23, "CEILING": 24, "COND_WAIT": 25, "COND_WAKE": 26,
    "COND_SIGNAL": 27, "SCHED_LOCK": 28, "RECOVER": 29, "EVENTS_SET": 30, "EVENTS_WAIT": 31,
    "EVENTS_WAKE": 32, "MSGQ_WAIT": 33, "MSGQ_WAKE": 34, "SEND": 35, "RECEIVE": 36, "TIMER_START": 37,
    "TIMER_EXPIRE": 38, "TIMER_RUN": 39, "RTPRIO": 40, "NICE": 41, "PRIV_GROUP": 42, "TASK_GROUP": 43,
    "ARRIVAL": 44, "JOB_ABORT": 45,
}  # fmt: skip
EVENT_NAME = {code: name for name, code in EVENT.items()}
# PR_EV_PRIO's value: why an effective priority changed (pr_prio_cause, trace.h).
CAUSE_NAME = {
    1: "set", 2: "inherit", 3: "release", 4: "acquire", 5: "timeout", 6: "delete", 7: "ceiling", 8: "message",
    9: "decay", 10: "abort",
}  # fmt: skip
JSON_NOT_WHOLE = -2  # pr_lab_jobs_json: a time is not a whole number of the unit (lab/native/jobs_json.h)
FIELD_NOT_WHOLE = -2  # pr_lab_job_column: the same (lab/native/job_fields.h)
TRACE_NONE = 0xFF
# The record fields that may name a task, by their nibble in ids_high.
TASK_FIELDS = {"task": 0, "object": 1, "arg0": 2, "arg1": 3}
NEVER = 2**64 - 1  # PR_LAB_NEVER

# pr_lab_span_kind_t (lab/native/intervals.h), checked at load.
SPAN_KIND = {
    "EXEC": 0, "HOLD": 1, "BLOCKED": 2, "RECOVERY": 3, "BOOST": 4, "ABORT": 5, "CHANGE": 6, "RELEASE": 7,
    "DEADLINE": 8, "FINISH": 9, "WAIT": 10, "SERVICE": 11,
}  # fmt: skip

# numpy's views of the C records (TRACE_DTYPE, JOB_DTYPE, SPAN_DTYPE): made
# when first asked for, so that a run that never looks at its records as
# arrays does not import numpy (about three times the interpreter's own
# start-up); their sizes are checked against the C structures then.
TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    from typing import Any

    import numpy as np

    TRACE_DTYPE: np.dtype[np.void]
    JOB_DTYPE: np.dtype[np.void]
    SPAN_DTYPE: np.dtype[np.void]

_DTYPES = {
    "TRACE_DTYPE": (
        "pr_trace_record_t",
        [("time", "<u8"), ("seq", "<u4"), ("value", "<i4"), ("event", "u1"), ("task", "u1"),
         ("object", "u1"), ("result", "i1"), ("arg0", "u1"), ("arg1", "u1"), ("ids_high", "<u2")],
    ),
    "SPAN_DTYPE": (
        "pr_lab_span_t",
        [("start", "<u8"), ("end", "<u8"), ("a", "<i8"), ("b", "<i8"), ("task", "<i4"), ("kind", "u1"),
         ("object", "u1"), ("flag", "u1"), ("cause", "u1")],
    ),
    "JOB_DTYPE": (
        "pr_lab_job_t",
        [("release", "<u8"), ("start", "<u8"), ("finish", "<u8"), ("deadline", "<u8"), ("blocked", "<u8"),
         ("inverted", "<u8"), ("task", "<i4"), ("job", "<u4"), ("timeouts", "<u4"), ("missed", "<i4"),
         ("errors", "<u4"), ("aborts", "<u4"), ("lost", "<u8"), ("recovery", "<u8")],
    ),
}  # fmt: skip


@cache
def _dtype(name: str) -> Any:
    import numpy as np

    c_name, layout = _DTYPES[name]
    made = np.dtype(layout)
    if made.itemsize != ffi.sizeof(c_name):
        raise NativeError(f"priora/run/native.py: {name} does not match the C structure {c_name}")
    return made


def __getattr__(name: str) -> Any:
    if name in _DTYPES:
        return _dtype(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def records(data: bytes, dtype: str) -> Any:
    """The C records in `data` as a read-only numpy array of `dtype`
    ("TRACE_DTYPE", "JOB_DTYPE"), sharing its memory."""
    import numpy as np

    return np.frombuffer(data, dtype=_dtype(dtype))


FUNCTIONS = tuple(re.findall(r"(pr_\w+)\(", CDEF))  # checked at load: a stale library lacks some


def task_id(record: Any, field: str = "task") -> int:
    """The task id that `field` of one trace record names, or -1 for 0xFF
    (none; the idle task in a SWITCH). With more than 254 tasks a record
    holds a 12-bit tag: the byte and its nibble of ids_high, the id + 1 from
    255 on (priora/trace.h pr_trace_task_id, docs/trace-format.md)."""
    tag = int(record[field]) | (int(record["ids_high"]) >> (4 * TASK_FIELDS[field]) & 0xF) << 8
    return -1 if tag == TRACE_NONE else tag if tag < TRACE_NONE else tag - 1


def task_ids(trace: Any, field: str = "task") -> Any:
    """task_id of every record of a trace array, as an int64 array."""
    import numpy as np

    tags = (
        trace[field].astype(np.int64)
        | (trace["ids_high"].astype(np.int64) >> (4 * TASK_FIELDS[field]) & 0xF) << 8
    )
    return np.where(tags == TRACE_NONE, -1, tags - (tags > TRACE_NONE))


def _declarations() -> Any:
    """CDEF compiled for cffi. Building the lab (a wheel, or pip install -e)
    writes priora/_native_ffi.py from CDEF in cffi's out-of-line ABI mode,
    which loads without cffi's C parser, the slowest part of start-up; while
    that module is absent or made from another CDEF (edited since), CDEF is
    parsed here: slower, same result."""
    generated: Any
    try:  # __import__: importlib's import is start-up; and the module is generated, unchecked
        generated = __import__("priora._native_ffi", fromlist=["ffi"])
    except ImportError:  # absent, or written by another version of cffi
        generated = None
    if generated is not None and getattr(generated, "CDEF", None) == CDEF:
        return generated.ffi
    import cffi

    parsed = cffi.FFI()
    parsed.cdef(CDEF)
    return parsed


ffi: Any = _declarations()

LIBRARY = "libpriora_lab.so"
# Paths as str: os.path, not pathlib, whose import is start-up.
_PACKAGE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
PACKAGED = os.path.join(_PACKAGE, LIBRARY)  # built into the wheel (lab/setup.py)
CHECKOUT = os.path.join(
    os.path.dirname(os.path.dirname(_PACKAGE)), "build", "lab", LIBRARY
)  # scripts/setup.sh
REBUILD = "rebuild it: scripts/setup.sh in a checkout, else pip install ./lab again"


def library_path() -> str:
    """$PRIORA_NATIVE_LIB; else the library built into the package; else the
    checkout's build/lab/libpriora_lab.so."""
    override = os.environ.get("PRIORA_NATIVE_LIB")
    if override:
        return override
    return PACKAGED if os.path.exists(PACKAGED) else CHECKOUT


def lab_limits() -> dict[str, int]:
    """The kernel limits the scenario loader validates against, by C name."""
    return {
        "PR_CONFIG_MAX_TASKS": limits.MAX_TASKS,
        "PR_CONFIG_MAX_SEMS": limits.MAX_RESOURCES,
        "PR_CONFIG_PRIORITIES": limits.PRIORITY_MAX + 1,
        "PR_CONFIG_NAME_LEN": limits.NAME_MAX + 1,
    }


def check_limits(path: str, loaded: Any) -> None:
    """The library was built with the limits the loader validates for: a file
    accepted by the loader is never refused by the kernel for a limit."""
    for which, (name, expected) in enumerate(lab_limits().items()):
        built = int(loaded.pr_lab_limit(which))
        if built != expected:
            raise NativeError(
                f"{path}: the kernel was built with {name} = {built}, the lab validates for {expected}: "
                + REBUILD
            )


def mirrored_constants() -> dict[str, dict[str, int]]:
    """Every constant this module mirrors, by the tables of pr_lab_constants."""
    values = ("PR_FOREVER", "PR_NO_WAIT", "PR_SEM_PRIO", "PR_SEM_MUTEX", "PR_SEM_RECURSIVE", "PR_SEM_BINARY",
              "PR_SEM_CTL_RECOVERY", "PR_ACT_SEND_PRIORITY", "PR_EVENTS_ALL", "PR_EVENTS_CLEAR",
              "PR_MSGQ_FIFO_MESSAGES", "PR_MSGQ_INHERIT", "PR_SCRIPT_MSG_SIZE")  # fmt: skip
    here = globals()
    return {
        "event": dict(EVENT),
        "cause": {name: code for code, name in CAUSE_NAME.items()},
        "object": {"sem": 0, "msgq": PR_OBJ_MSGQ},
        "error": {name: int(here[name]) for name in ERRORS},
        "protocol": dict(PROTOCOL_NUMBER),
        "action": dict(ACTION_NUMBER),
        "value": {**{name: int(here[name]) for name in values}, "PR_TRACE_NONE": TRACE_NONE},
        "span": dict(SPAN_KIND),
    }


def check_constants(path: str, loaded: Any) -> None:
    """Every mirrored constant has the library's value, and the library has
    no event, cause or kind of object that this module does not know: one line
    naming the first that differs."""
    count = ffi.new("size_t *")
    rows = loaded.pr_lab_constants(count)
    built: dict[str, dict[str, int]] = {}
    for i in range(count[0]):
        table = ffi.string(rows[i].table).decode()
        built.setdefault(table, {})[ffi.string(rows[i].name).decode()] = int(rows[i].value)
    for table, mine in mirrored_constants().items():
        theirs = built.get(table, {})
        complete = table in ("event", "cause", "object", "protocol", "action", "span")
        for name in sorted(set(mine) | (set(theirs) if complete else set())):
            if mine.get(name) != theirs.get(name):
                c = "missing" if name not in theirs else theirs[name]
                py = "missing" if name not in mine else mine[name]
                raise NativeError(
                    f"{path}: {table} {name} is {c} in C, {py} in priora/run/native.py: {REBUILD}"
                )
    for name, code in EVENT.items():
        c_name = ffi.string(loaded.pr_trace_event_name(code)).decode()
        if c_name != name:
            raise NativeError(
                f"{path}: event {code} is named {c_name} by pr_trace_event_name, "
                f"{name} in priora/run/native.py"
            )


@cache
def lib() -> Any:
    """The loaded library (once per process), its layout checked."""
    path = library_path()
    if not os.path.exists(path):
        if os.environ.get("PRIORA_NATIVE_LIB"):
            raise NativeError(
                f"native kernel library not found at {path} (PRIORA_NATIVE_LIB): fix or unset it"
            )
        raise NativeError(
            f"native kernel library not found at {path}: run scripts/setup.sh in the checkout "
            "to build it, or install the lab with pip install ./lab (which builds it into the package)"
        )
    try:
        loaded = ffi.dlopen(path)
    except OSError as exc:
        raise NativeError(f"cannot load {path}: {' '.join(str(exc).split())}: {REBUILD}") from exc
    for function in FUNCTIONS:
        try:
            getattr(loaded, function)
        # cffi raises either, by version and mode; the FFI that parsed CDEF
        # itself (a stale _native_ffi.py) has no `error` in every version.
        except (AttributeError, getattr(ffi, "error", AttributeError)):
            raise NativeError(f"{path}: has no {function} (older than this lab): {REBUILD}") from None
    for which, name in enumerate(MIRRORED):
        c_size, py_size = loaded.pr_lab_sizeof(which), ffi.sizeof(name)
        if c_size != py_size:
            raise NativeError(
                f"{path}: {name} is {c_size} bytes in C, {py_size} in priora/run/native.py: {REBUILD}"
            )
    for name in ("pr_lab_verdict_t", "pr_lab_task_totals_t"):
        if getattr(loaded, name.removesuffix("_t") + "_sizeof")() != ffi.sizeof(name):
            raise NativeError(f"{path}: {name}'s size differs from priora/run/native.py's: {REBUILD}")
    check_limits(path, loaded)
    check_constants(path, loaded)
    return loaded


def refusals_end(trace: bytes, count: int) -> int:
    """The index after the last refusal among the first `count` records of
    `trace` (the C records' bytes), 0 when there is none: one pass in C
    (lab/native/trace_scan.c, the rule priora.run.refusals reads by)."""
    records = ffi.cast("const pr_trace_record_t *", ffi.from_buffer(trace))
    return int(lib().pr_lab_refusals(records, count, ffi.NULL))


def errname(code: int) -> str:
    return str(ffi.string(lib().pr_errname(code)).decode())


# The kinds of object a line of text names (trace_text.h, pr_trace_name_kind_t).
NAME_KINDS = ("task", "sem", "cond", "events", "msgq", "timer")
NAMES_PER_KIND = 1024  # task ids reach 1023 in the lab's build (the other kinds: one byte)


def format_record(record: Any, tick_hz: int, names: dict[str, dict[int, str]] | None = None) -> str:
    """One record (a TRACE_DTYPE row) as the host port's line of text
    (docs/trace-format.md), its objects named by `names` (kind -> id -> name;
    the others print T<id>, S<id>, ...)."""
    return format_records([record], tick_hz, names)[0]


def format_records(records: Any, tick_hz: int, names: dict[str, dict[int, str]] | None = None) -> list[str]:
    """format_record of every record, the names converted once."""
    table = ffi.new("const char *[]", len(NAME_KINDS) * NAMES_PER_KIND)
    keep = []
    for kind, by_id in (names or {}).items():
        base = NAME_KINDS.index(kind) * NAMES_PER_KIND
        for i, name in by_id.items():
            if 0 <= i < NAMES_PER_KIND:
                keep.append(ffi.new("char[]", name.encode()))
                table[base + i] = keep[-1]
    record = ffi.new("pr_trace_record_t *")
    raw = ffi.buffer(record)
    buf = ffi.new("char[]", 256)
    lines = []
    import numpy as np

    for r in records:
        raw[:] = np.asarray(r, dtype=_dtype("TRACE_DTYPE")).tobytes()
        lines.append(
            ffi.string(lib().pr_trace_format_table(record, tick_hz, table, NAMES_PER_KIND, buf, 256)).decode()
        )
    return lines
