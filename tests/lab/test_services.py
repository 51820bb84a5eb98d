"""Message queues, event flags, software timers and scenario interrupts in
scenario files: the exact validation messages, and the four examples
(examples/queue_prodcons.toml, interrupt_event.toml, timer_release.toml,
client_server.toml) run on the kernel's host port to the schedules worked
out in their comments: every job, and every queue, event flags and timer
record of the trace, in order.

Job columns as in test_examples.py (blocked counts semaphore waits only: the
waits on queues and event flags are counted per object, in the counters).
"""

from __future__ import annotations

import json
from fractions import Fraction

import jsonschema
import pytest
from test_examples import Job, example, job_table

from priora.analysis import analysis_json, analysis_text, analyze
from priora.analysis import schema as analysis_schema
from priora.errors import ScenarioError
from priora.pictures import gantt
from priora.record import replace
from priora.report.build import build_report
from priora.report.json_document import report_dict, report_json, schema
from priora.report.text import report_text
from priora.run import native
from priora.run.simulate import (
    EventsCounters,
    InterruptCounters,
    QueueCounters,
    SimResult,
    TimerCounters,
    simulate,
)
from priora.scenario import bounds
from priora.scenario.loader import parse
from priora.scenario.model import Action, EventFlags, Periodic, Queue
from priora.trace import chrome_trace
from priora.trace.timeline import extract

SERVICE_EVENTS = (
    "SEND", "RECEIVE", "MSGQ_WAIT", "MSGQ_WAKE", "EVENTS_SET", "EVENTS_WAIT", "EVENTS_WAKE", "TIMER_EXPIRE",
    "TIMER_RUN",
)  # fmt: skip


def service_records(result: SimResult) -> list[tuple[int, str, str | None, int]]:
    """(ms, event, task or None for an interrupt, arg0) of every queue, event
    flags and timer record (arg0: a message's priority, a wait's options, 1
    for a set, 1 for a wait for room)."""
    names = [t.name for t in result.scenario.tasks] + ["timers"]
    out = []
    for r in result.trace:
        event = native.EVENT_NAME[int(r["event"])]
        if event in SERVICE_EVENTS:
            task = int(r["task"])
            ms = int(r["time"]) // 1_000_000
            out.append((ms, event, None if task == native.TRACE_NONE else names[task], int(r["arg0"])))
    return out


# ---------------------------------------------------------------- the examples


def test_queue_prodcons() -> None:
    s = example("queue_prodcons")
    assert s.queues == (Queue("Q", 2, "priority", False),)
    r = simulate(s)
    assert job_table(r) == [
        Job("sensor", 1, 0, 0, 1, 1, 0, 0, 0, False),
        Job("logger", 1, 0, 1, 10, 10, 0, 0, 0, True),
        Job("alarm", 1, 1, 1, 2, 1, 0, 0, 0, False),
        Job("sensor", 2, 2, 2, 3, 1, 0, 0, 0, False),
        Job("sensor", 3, 4, 4, 5, 1, 0, 0, 0, False),
        Job("logger", 2, 6, 10, None, None, 0, 0, 0, True),
        Job("sensor", 4, 6, 6, 7, 1, 0, 0, 0, False),
        Job("alarm", 2, 7, 7, 10, 3, 0, 2, 0, False),
        Job("sensor", 5, 8, 8, 11, 3, 0, 2, 0, True),
        Job("sensor", 6, 10, 11, None, None, 0, Fraction(3, 2), 0, True),  # logger runs 12-12.5
        Job("logger", 3, 12, None, None, None, 0, 0, 0, False),
        Job("sensor", 7, 12, None, None, None, 0, Fraction(1, 2), 0, False),
    ]
    assert service_records(r) == [
        (1, "SEND", "sensor", 1),
        (1, "RECEIVE", "logger", 1),
        (2, "SEND", "alarm", 7),
        (3, "SEND", "sensor", 1),
        (4, "RECEIVE", "logger", 7),  # alarm's message first: priority order
        (5, "SEND", "sensor", 1),
        (6, "RECEIVE", "logger", 1),
        (7, "SEND", "sensor", 1),
        (8, "MSGQ_WAIT", "alarm", 1),  # full: waits for room
        (9, "MSGQ_WAIT", "sensor", 1),
        (10, "MSGQ_WAKE", "alarm", 0),  # the receive takes alarm's message in at once
        (10, "RECEIVE", "logger", 1),
        (10, "SEND", "alarm", 7),
        (11, "MSGQ_WAKE", "sensor", 0),
        (11, "RECEIVE", "logger", 7),
        (11, "SEND", "sensor", 1),
        (12, "MSGQ_WAIT", "sensor", 1),
    ]
    assert r.queues == (
        QueueCounters(sends=7, receives=5, most_messages=2, send_waits=3, receive_waits=0, messages=2),
    )


def test_queue_prodcons_in_fifo_order() -> None:
    # The same file with message_order = "fifo": up to 10 ms the oldest
    # message is also the one priority order picks (alarm's of 2 ms is older
    # than sensor's of 3 ms); at 11 ms the oldest is sensor's of 7 ms, taken
    # before alarm's of 10 ms.
    s = example("queue_prodcons")
    s = replace(s, queues=(replace(s.queues[0], message_order="fifo"),))
    received = [(t, arg0) for t, event, _, arg0 in service_records(simulate(s)) if event == "RECEIVE"]
    assert received == [(1, 1), (4, 7), (6, 1), (10, 1), (11, 1)]


def test_interrupt_event() -> None:
    s = example("interrupt_event")
    assert s.events == (EventFlags("E"),)
    assert s.interrupts == (Periodic("sensor", 3, 5, 0, (Action("set", "E", mask=1),)),)
    r = simulate(s)
    assert job_table(r) == [
        Job("handler", 1, 0, 0, 4, 4, 0, 3, 0, False),
        Job("background", 1, 0, 0, 12, 12, 0, 0, 0, False),
        Job("handler", 2, 5, 5, 9, 4, 0, 3, 0, False),
        Job("handler", 3, 10, 10, 14, 4, 0, 2, 0, False),
    ]
    any_clear = native.PR_EVENTS_CLEAR
    assert service_records(r) == [
        (0, "EVENTS_WAIT", "handler", any_clear),
        (3, "EVENTS_WAKE", "handler", 0),  # woken inside the interrupt's set
        (3, "EVENTS_SET", None, 1),  # None: in the interrupt
        (5, "EVENTS_WAIT", "handler", any_clear),
        (8, "EVENTS_WAKE", "handler", 0),
        (8, "EVENTS_SET", None, 1),
        (10, "EVENTS_WAIT", "handler", any_clear),
        (13, "EVENTS_WAKE", "handler", 0),
        (13, "EVENTS_SET", None, 1),
    ]
    assert r.events == (EventsCounters(sets=3, wakeups=3, flags=0),)  # each wait cleared its flag
    assert r.interrupts == (InterruptCounters(runs=3, failed=0),)


def test_timer_release() -> None:
    s = example("timer_release")
    assert s.timers == (Periodic("pace", 2, 4, 0, (Action("up", "go"),)),)
    assert s.system.timer_service_priority == 2
    r = simulate(s)
    assert job_table(r) == [
        Job("worker", 1, 0, 0, 3, 3, 2, 2, 0, False),
        Job("background", 1, 0, 0, None, None, 0, 0, 0, False),
        Job("worker", 2, 4, 4, 8, 4, 3, 2, 0, False),
        Job("urgent", 1, 6, 6, 7, 1, 0, 0, 0, False),
        Job("worker", 3, 8, 8, 11, 3, 2, 2, 0, False),
    ]
    assert service_records(r) == [
        (2, "TIMER_EXPIRE", None, 0),
        (2, "TIMER_RUN", "timers", 0),
        (6, "TIMER_EXPIRE", None, 0),
        (7, "TIMER_RUN", "timers", 0),  # urgent ran 6-7: one tick late
        (10, "TIMER_EXPIRE", None, 0),
        (10, "TIMER_RUN", "timers", 0),
    ]
    assert r.timers == (TimerCounters(expiries=3, dropped=0, max_lateness=1, failed=0),)


def test_client_server() -> None:
    s = example("client_server")
    assert s.queues == (Queue("requests", 1, "priority", True), Queue("replies", 1, "priority", False))
    r = simulate(s)
    assert job_table(r) == [
        Job("server", 1, 0, 0, 13, 13, 0, 0, 0, False),
        Job("client", 1, 1, 1, 4, 3, 0, 2, 0, False),
        Job("middle", 1, 2, 4, 7, 5, 0, 1, 0, False),
        Job("client", 2, 11, 11, 14, 3, 0, 2, 0, False),
        Job("middle", 2, 12, 14, 17, 5, 0, 1, 0, False),
    ]
    assert service_records(r) == [
        (0, "MSGQ_WAIT", "server", 0),
        (1, "MSGQ_WAKE", "server", 0),  # handed the client's message directly
        (1, "SEND", "client", 3),  # the message's priority: the sender's
        (1, "MSGQ_WAIT", "client", 0),  # for the reply
        (1, "RECEIVE", "server", 3),
        (3, "MSGQ_WAKE", "client", 0),
        (3, "SEND", "server", 3),  # the server's reply, at its inherited priority
        (3, "MSGQ_WAIT", "server", 0),  # its next receive ends the lend
        (3, "RECEIVE", "client", 3),
        (11, "MSGQ_WAKE", "server", 0),
        (11, "SEND", "client", 3),
        (11, "MSGQ_WAIT", "client", 0),
        (11, "RECEIVE", "server", 3),
        (13, "MSGQ_WAKE", "client", 0),
        (13, "SEND", "server", 3),
        (13, "RECEIVE", "client", 3),
    ]
    # The server's priority: lent 3 by the message at 1 ms, back to 1 at its
    # next receive (3 ms); lent again at 11 ms (its job ends at 13 still at
    # 3: the lend lasts until its next receive).
    lends = [
        (int(p["time"]) // 1_000_000, int(p["arg0"]), int(p["arg1"]), int(p["value"]) >> 8)
        for p in r.trace
        if int(p["event"]) == native.EVENT["PRIO"]
    ]
    assert lends == [
        (1, 1, 3, native.PR_OBJ_MSGQ),
        (3, 3, 1, native.PR_OBJ_MSGQ),
        (11, 1, 3, native.PR_OBJ_MSGQ),
    ]


def test_client_server_without_inheritance() -> None:
    s = example("client_server")
    s = replace(s, queues=(replace(s.queues[0], inherit=False), *s.queues[1:]))
    client = [j for j in job_table(simulate(s)) if j.task == "client"]
    assert [(j.finish, j.response) for j in client] == [(7, 6), (17, 6)]


# ---------------------------------------------------------------- the file format

HEAD = '[resources.Q]\nkind = "queue"\nlength = 2\n\n[resources.E]\nkind = "events"\n\n[resources.S]\nkind = "binary"\n\n'


def task_with(*body: str) -> str:
    actions = ", ".join(f'"{a}"' for a in body)
    return f"{HEAD}[tasks.T]\npriority = 1\nperiod = 10\nbody = [{actions}]\n"


def test_every_action_form() -> None:
    text = task_with(
        "send Q", "send Q priority 5", "send Q timeout 3", "send Q priority 0 timeout 0", "receive Q",
        "receive Q timeout 2", "set E 0x11", "clear E 16", "wait E 0x3 any", "wait E 3 all clear",
        "wait E 0xffffffff any timeout 4",
    )  # fmt: skip
    (task,) = parse(text, "ex.toml").tasks
    assert task.body == (
        Action("send", "Q"),
        Action("send", "Q", priority=5),
        Action("send", "Q", timeout=3),
        Action("send", "Q", timeout=0, priority=0),
        Action("receive", "Q"),
        Action("receive", "Q", timeout=2),
        Action("set", "E", mask=0x11),
        Action("clear", "E", mask=16),
        Action("wait", "E", mask=3),
        Action("wait", "E", mask=3, wait_all=True, clear=True),
        Action("wait", "E", timeout=4, mask=0xFFFFFFFF),
    )
    assert [a.text() for a in task.body[6:9]] == ["set E 0x11", "clear E 0x10", "wait E 0x3 any"]


def test_queue_keys_and_defaults() -> None:
    text = (
        '[resources.A]\nkind = "queue"\nlength = 1\n\n'
        '[resources.B]\nkind = "queue"\nlength = 1024\nmessage_order = "fifo"\ninherit = true\n\n'
        '[tasks.T]\npriority = 1\nbody = ["receive A timeout 0"]\n'
    )
    s = parse(text, "q.toml")
    assert s.queues == (Queue("A", 1, "priority", False), Queue("B", 1024, "fifo", True))
    assert s.resources == ()


def test_timers_and_interrupts() -> None:
    text = (
        f'{HEAD}[timers.once]\nphase = 5\nbody = ["up S"]\n\n'
        '[timers.tick]\nperiod = 4\npriority = 3\nbody = ["send Q priority 2", "set E 1"]\n\n'
        '[interrupts.irq]\nphase = 1\nperiod = 6\nbody = ["clear E 1", "up S"]\n\n'
        '[tasks.T]\npriority = 1\nperiod = 12\nbody = ["down S"]\n'
    )
    s = parse(text, "t.toml")
    assert s.timers == (
        Periodic("once", 5, 0, 0, (Action("up", "S"),)),
        Periodic("tick", 4, 4, 3, (Action("send", "Q", priority=2), Action("set", "E", mask=1))),
    )
    assert s.interrupts == (Periodic("irq", 1, 6, 0, (Action("clear", "E", mask=1), Action("up", "S"))),)
    assert s.system.timer_service_priority == 31  # the default
    assert s.timer_service == 1  # the kernel task after T
    assert s.default_horizon() == 12 + 5  # the hyperperiod of 12, 4 and 6 plus the largest phase


BAD = [
    (
        '[resources.Q]\nkind = "queue"\n\n[tasks.T]\npriority = 1\nbody = ["receive Q"]\n',
        "x.toml: [resources.Q] length: missing: a queue holds 1 or more messages",
    ),
    (
        '[resources.Q]\nkind = "queue"\nlength = 0\n\n[tasks.T]\npriority = 1\nbody = ["receive Q"]\n',
        "x.toml: [resources.Q] length: must be in 1..1024 (the lab allocates every queue's buffer), got 0",
    ),
    (
        '[resources.Q]\nkind = "queue"\nlength = 1\nmessage_order = "lifo"\n\n[tasks.T]\npriority = 1\nbody = ["receive Q"]\n',
        'x.toml: [resources.Q] message_order: unknown message order "lifo" (expected "priority" or "fifo")',
    ),
    (
        '[resources.Q]\nkind = "queue"\nlength = 1\ninherit = 1\n\n[tasks.T]\npriority = 1\nbody = ["receive Q"]\n',
        "x.toml: [resources.Q] inherit: must be true or false, got an integer (1)",
    ),
    (
        '[resources.Q]\nkind = "queue"\nlength = 1\nprotocol = "pip"\n\n[tasks.T]\npriority = 1\nbody = ["receive Q"]\n',
        "x.toml: [resources.Q] protocol: not allowed on a message queue "
        "(expected one of: kind, length, message_order, inherit)",
    ),
    (
        '[resources.E]\nkind = "events"\nlength = 1\n\n[tasks.T]\npriority = 1\nbody = ["set E 1"]\n',
        "x.toml: [resources.E] length: not allowed on event flags (they take no key but kind)",
    ),
    (
        '[resources.M]\nkind = "mutex"\nlength = 1\n\n[tasks.T]\npriority = 1\nbody = ["lock M", "unlock M"]\n',
        "x.toml: [resources.M] length: not allowed on a mutex (only a message queue has length)",
    ),
    (
        '[resources.M]\nkind = "pipe"\n\n[tasks.T]\npriority = 1\nbody = ["compute 1"]\n',
        'x.toml: [resources.M] kind: unknown kind "pipe" '
        '(expected "mutex", "counting", "binary", "queue" or "events")',
    ),
    (task_with("send S"), 'x.toml: [tasks.T] body[0]: send needs a message queue, "S" is a binary semaphore'),
    (task_with("receive E"), 'x.toml: [tasks.T] body[0]: receive needs a message queue, "E" is event flags'),
    (task_with("set Q 1"), 'x.toml: [tasks.T] body[0]: set needs event flags, "Q" is a message queue'),
    (
        task_with("down Q"),
        'x.toml: [tasks.T] body[0]: down needs a semaphore, "Q" is a message queue (use send/receive)',
    ),
    (
        task_with("up E"),
        'x.toml: [tasks.T] body[0]: up needs a semaphore, "E" is event flags (use set/clear/wait)',
    ),
    (task_with("send X"), 'x.toml: [tasks.T] body[0]: unknown resource "X"'),
    (
        task_with("send Q priority 256"),
        "x.toml: [tasks.T] body[0]: priority must be in 0..255 (the kernel's range), got 256",
    ),
    (task_with("send Q priority high"), 'x.toml: [tasks.T] body[0]: priority must be an integer, got "high"'),
    (
        task_with("send Q timeout 1 priority 2"),
        'x.toml: [tasks.T] body[0]: malformed action "send Q timeout 1 priority 2" (expected "send Q", '
        '"send Q priority N", "send Q timeout T" or "send Q priority N timeout T")',
    ),
    (task_with("receive Q timeout -1"), "x.toml: [tasks.T] body[0]: timeout must be >= 0, got -1"),
    (task_with("set E"), 'x.toml: [tasks.T] body[0]: malformed action "set E" (expected "set E MASK")'),
    (task_with("set E 0"), "x.toml: [tasks.T] body[0]: mask must be in 1..0xffffffff (32 flags), got 0"),
    (
        task_with("clear E 0x100000000"),
        "x.toml: [tasks.T] body[0]: mask must be in 1..0xffffffff (32 flags), got 0x100000000",
    ),
    (
        task_with("set E 1.5"),
        'x.toml: [tasks.T] body[0]: mask must be a number (0x... or decimal), got "1.5"',
    ),
    (
        task_with("wait E 1"),
        'x.toml: [tasks.T] body[0]: malformed action "wait E 1" (expected "wait E MASK any|all [clear] [timeout T]")',
    ),
    (
        task_with("wait E 1 any timeout 2 clear"),
        'x.toml: [tasks.T] body[0]: malformed action "wait E 1 any timeout 2 clear" '
        '(expected "wait E MASK any|all [clear] [timeout T]")',
    ),
    (
        f'{HEAD}[timers.t]\nperiod = 2\nbody = ["receive Q"]\n\n[tasks.T]\npriority = 1\nbody = ["compute 1"]\n',
        "x.toml: [timers.t] body[0]: receive: a timer's body runs in the timer service task and never waits "
        "(expected up, send, set, clear or release)",
    ),
    (
        f'{HEAD}[interrupts.i]\nperiod = 2\nbody = ["send Q timeout 0"]\n\n[tasks.T]\npriority = 1\nbody = ["compute 1"]\n',
        "x.toml: [interrupts.i] body[0]: timeout: an interrupt's body runs in the tick interrupt and never waits "
        "(its calls take timeout 0)",
    ),
    (
        f'{HEAD}[interrupts.i]\nperiod = 2\nbody = ["compute 1"]\n\n[tasks.T]\npriority = 1\nbody = ["compute 1"]\n',
        "x.toml: [interrupts.i] body[0]: compute: an interrupt's body runs in the tick interrupt and never waits "
        "(expected up, send, set, clear or release)",
    ),
    (
        f'{HEAD}[timers.t]\nbody = ["up S"]\n\n[tasks.T]\npriority = 1\nbody = ["compute 1"]\n',
        "x.toml: [timers.t] phase: missing: a body that runs once (period 0) needs the tick it runs at",
    ),
    (
        f'{HEAD}[timers.t]\nphase = 0\nperiod = 3\nbody = ["up S"]\n\n[tasks.T]\npriority = 1\nbody = ["compute 1"]\n',
        "x.toml: [timers.t] phase: must be > 0, got 0 (tick 0 has no tick interrupt: the first is at tick 1)",
    ),
    (
        f'{HEAD}[timers.t]\nperiod = 3\npriority = 300\nbody = ["up S"]\n\n[tasks.T]\npriority = 1\nbody = ["compute 1"]\n',
        "x.toml: [timers.t] priority: must be in 0..255 (the kernel's range), got 300",
    ),
    (
        f'{HEAD}[interrupts.i]\nperiod = 3\npriority = 1\nbody = ["up S"]\n\n[tasks.T]\npriority = 1\nbody = ["compute 1"]\n',
        "x.toml: [interrupts.i] priority: unknown key (expected one of: phase, period, body)",
    ),
    (
        f'{HEAD}[interrupts.i]\nphase = 3\nbody = ["up S"]\n\n[tasks.T]\npriority = 1\nbody = ["compute 1"]\n',
        "x.toml: [interrupts]: a scenario with interrupts needs a periodic task or a periodic timer "
        "(a run stops when no kernel timer is armed: the kernel does not know an interrupt is to come)",
    ),
    (
        '[system]\ntimer_service_priority = -1\n\n[tasks.T]\npriority = 1\nbody = ["compute 1"]\n',
        "x.toml: [system] timer_service_priority: must be in 0..255 (the kernel's range), got -1",
    ),
    (
        "".join(f'[tasks.T{i}]\npriority = 1\nbody = ["compute 1"]\n' for i in range(1024))
        + '[timers.t]\nperiod = 1\nbody = ["set E 1"]\n[resources.E]\nkind = "events"\n',
        "x.toml: [timers]: 1024 tasks and the timer service task, the kernel has room for 1024",
    ),
]


@pytest.mark.parametrize(("text", "message"), BAD, ids=range(len(BAD)))
def test_bad_files(text: str, message: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse(text, "x.toml")
    assert str(caught.value) == message


# ---------------------------------------------------------------- reports


def test_report_tables_of_queues_events_timers_and_interrupts() -> None:
    text = report_text(build_report(simulate(example("queue_prodcons"))))
    assert (
        "Message queues\n"
        "queue  length     order  inherit  sends  receives  most messages  send waits  receive waits  left\n"
        "-----  ------  --------  -------  -----  --------  -------------  ----------  -------------  ----\n"
        "Q           2  priority       no      7         5              2           3              0     2\n"
    ) in text + "\n"
    text = report_text(build_report(simulate(example("interrupt_event"))))
    assert (
        "Event flags\n"
        "events  sets  wakeups  flags at end\n"
        "------  ----  -------  ------------\n"
        "E          3        3    0x00000000\n"
        "\n"
        "Interrupts\n"
        "interrupt  phase (ms)  period (ms)  runs  failed calls\n"
        "---------  ----------  -----------  ----  ------------\n"
        "sensor              3            5     3             0\n"
    ) in text
    text = report_text(build_report(simulate(example("timer_release"))))
    assert (
        "Timers\n"
        "timer  phase (ms)  period (ms)  priority  expiries  dropped  max lateness (ms)  failed calls\n"
        "-----  ----------  -----------  --------  --------  -------  -----------------  ------------\n"
        "pace            2            4         0         3        0                  1             0\n"
    ) in text
    # A scenario without them has none of these tables.
    assert "Message queues" not in report_text(build_report(simulate(example("inversion"))))


@pytest.mark.parametrize("name", ["queue_prodcons", "interrupt_event", "timer_release", "client_server"])
def test_report_json_per_object(name: str) -> None:
    document = json.loads(report_json(build_report(simulate(example(name)))))
    jsonschema.validate(document, schema(), cls=jsonschema.Draft202012Validator)
    services = {k: document[k] for k in ("queues", "events", "timers", "interrupts") if k in document}
    assert services == {
        "queue_prodcons": {
            "queues": {
                "Q": {
                    "length": 2, "message_order": "priority", "inherit": False, "sends": 7, "receives": 5,
                    "most_messages": 2, "send_waits": 3, "receive_waits": 0, "left": 2,
                }
            }
        },
        "interrupt_event": {
            "events": {"E": {"sets": 3, "wakeups": 3, "flags": 0}},
            "interrupts": {"sensor": {"phase": 3, "period": 5, "runs": 3, "failed_calls": 0}},
        },
        "timer_release": {
            "timers": {
                "pace": {
                    "phase": 2, "period": 4, "priority": 0, "expiries": 3, "dropped": 0, "max_lateness": 1,
                    "failed_calls": 0,
                }
            }
        },
        "client_server": {
            "queues": {
                "requests": {
                    "length": 1, "message_order": "priority", "inherit": True, "sends": 2, "receives": 2,
                    "most_messages": 0, "send_waits": 0, "receive_waits": 2, "left": 0,
                },
                "replies": {
                    "length": 1, "message_order": "priority", "inherit": False, "sends": 2, "receives": 2,
                    "most_messages": 0, "send_waits": 0, "receive_waits": 2, "left": 0,
                },
            }
        },
    }[name]  # fmt: skip
    assert document == report_dict(build_report(simulate(example(name))))
    assert list(document) == ["jobs", "tasks", "resources", *services, "system", "warnings"]


# ---------------------------------------------------------------- charts and traces


def test_timeline_marks() -> None:
    timeline = extract(simulate(example("timer_release")))
    assert [t.name for t in timeline.tasks] == ["urgent", "worker", "background", "timers"]
    service = timeline.tasks[3]
    assert service.base_priority == 2
    assert [(m.time // 1_000_000, m.kind, m.object, m.detail) for m in service.services] == [
        (2, "expire", "pace", 2),
        (6, "expire", "pace", 6),
        (10, "expire", "pace", 10),
    ]
    assert [
        (e.start // 1_000_000, e.end // 1_000_000) for e in service.executions
    ] == []  # bodies take no time

    timeline = extract(simulate(example("client_server")))
    client, _, server = timeline.tasks
    assert [(m.time // 1_000_000, m.kind, m.object, m.detail) for m in client.services] == [
        (1, "send", "requests", 3),
        (3, "receive", "replies", 3),
        (11, "send", "requests", 3),
        (13, "receive", "replies", 3),
    ]
    assert [(m.time // 1_000_000, m.kind) for m in server.services] == [
        (1, "receive"), (3, "send"), (11, "receive"), (13, "send")
    ]  # fmt: skip
    # The lend through the queue names the queue.
    assert [(c.time // 1_000_000, c.old, c.new, c.cause, c.resource) for c in server.priority_changes] == [
        (1, 1, 3, "message", "requests"),
        (3, 3, 1, "release", "requests"),
        (11, 1, 3, "message", "requests"),
    ]

    timeline = extract(simulate(example("interrupt_event")))
    assert [(m.time // 1_000_000, m.kind, m.object) for m in timeline.interrupt_marks] == [
        (3, "set", "E"),
        (8, "set", "E"),
        (13, "set", "E"),
    ]


def test_chrome_trace_instants() -> None:
    events = chrome_trace.to_events(simulate(example("interrupt_event")))
    service = [(e["name"], e["ts"], e["tid"]) for e in events if e.get("cat") == "service"]
    assert service == [  # on the CPU lane
        ("interrupt: set E", 3000.0, chrome_trace.CPU_TID),
        ("interrupt: set E", 8000.0, chrome_trace.CPU_TID),
        ("interrupt: set E", 13000.0, chrome_trace.CPU_TID),
    ]
    events = chrome_trace.to_events(simulate(example("queue_prodcons")))
    sends = [(e["name"], e["ts"], e["args"]) for e in events if e.get("cat") == "service"][:3]
    assert sends == [
        ("send Q", 1000.0, {"object": "Q", "priority": 1}),
        ("receive Q", 1000.0, {"object": "Q", "priority": 1}),
        ("send Q", 2000.0, {"object": "Q", "priority": 7}),
    ]


def test_gantt_markers() -> None:
    fig = gantt.figure(extract(simulate(example("queue_prodcons"))), "q")
    (ax,) = fig.axes
    sends = sum(len(line.get_xdata()) for line in ax.lines if line.get_gid() == "send")
    receives = sum(len(line.get_xdata()) for line in ax.lines if line.get_gid() == "receive")
    assert (sends, receives) == (7, 5)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[-2:] == ["send", "receive"]


# ---------------------------------------------------------------- analyze


def test_analyze_states_the_waits_it_does_not_bound() -> None:
    analysis = analyze(example("client_server"))
    text = analysis_text(analysis)
    assert text.endswith(
        "Not bounded by this analysis (the bounds above hold only if these waits end at once)\n"
        '  client body[0] "send requests": waits for room in requests while it is full, until another task '
        "receives, for ever: not bounded, left out of B and R\n"
        '  client body[1] "receive replies": waits for a message in replies, which another task or an '
        "interrupt must send, for ever: not bounded, left out of B and R\n"
        '  server body[0] "receive requests": waits for a message in requests, which another task or an '
        "interrupt must send, for ever: not bounded, left out of B and R\n"
        '  server body[2] "send replies": waits for room in replies while it is full, until another task '
        "receives, for ever: not bounded, left out of B and R\n"
        '  server body[3] "receive requests": waits for a message in requests, which another task or an '
        "interrupt must send, for ever: not bounded, left out of B and R\n"
        '  server body[5] "send replies": waits for room in replies while it is full, until another task '
        "receives, for ever: not bounded, left out of B and R\n"
        "  inheritance through queue requests: its receiver may run at its senders' priority, not counted "
        "as blocking or interference"
    )
    document = json.loads(analysis_json(analyze(example("interrupt_event"))))
    jsonschema.validate(document, analysis_schema(), cls=jsonschema.Draft202012Validator)
    assert document["unbounded_waits"] == [
        {
            "task": "handler",
            "action": 0,
            "text": "wait E 0x1 any clear",
            "reason": "waits for flags of E, which another task or an interrupt must set, for ever: "
            "not bounded, left out of B and R",
        }
    ]
    assert document["not_counted"] == ["interrupt sensor's body: not counted as interference"]


def test_analyze_timeouts_timers_and_waits_that_never_wait() -> None:
    text = (
        '[system]\ntime_unit = "ms"\ntick_hz = 2000\n\n'
        '[resources.Q]\nkind = "queue"\nlength = 1\n\n[resources.E]\nkind = "events"\n\n'
        '[timers.t]\nperiod = 5\nbody = ["set E 1"]\n\n'
        '[tasks.A]\npriority = 2\nperiod = 10\nbody = ["receive Q timeout 1.5", "send Q timeout 0", "compute 1"]\n'
        '[tasks.B]\npriority = 1\nperiod = 10\nbody = ["wait E 1 all timeout 0", "compute 1"]\n'
    )
    analysis = analyze(parse(text, "w.toml"))
    assert [(w.task, w.action, w.text) for w in analysis.taskset.unbounded_waits] == [
        ("A", 0, "receive Q timeout 1.5")  # timeout 0 never waits: not listed
    ]
    assert analysis.taskset.unbounded_waits[0].reason.endswith(
        "up to its timeout of 1.5 ms: not bounded, left out of B and R"
    )
    assert analysis.taskset.not_counted == (
        "the timer service task (priority 31) and the bodies of timers t: not counted as interference",
    )
    # Without queues, event flags, timers or interrupts, nothing is said.
    assert "Not bounded" not in analysis_text(analyze(example("inversion")))
    assert "unbounded_waits" not in json.loads(analysis_json(analyze(example("inversion"))))


def test_failed_calls_of_timers_and_interrupts() -> None:
    # The timer ups "go" at ticks 1 to 6 and nobody downs it: the first up
    # takes the binary semaphore to its max, the next five fail
    # (PR_EOVERFLOW). The interrupt sends to a queue of 2 at ticks 2, 4 and 6
    # and nobody receives: the third send finds the queue full and, never
    # waiting, fails.
    text = (
        '[system]\nhorizon = 7\n\n[resources.go]\nkind = "binary"\n\n'
        '[resources.Q]\nkind = "queue"\nlength = 2\n\n'
        '[timers.t]\nperiod = 1\nbody = ["up go"]\n\n'
        '[interrupts.i]\nperiod = 2\nbody = ["send Q"]\n\n'
        '[tasks.T]\npriority = 1\nperiod = 7\nbody = ["compute 1"]\n'
    )
    r = simulate(parse(text, "f.toml"))
    assert r.timers == (TimerCounters(expiries=6, dropped=0, max_lateness=0, failed=5),)
    assert r.interrupts == (InterruptCounters(runs=3, failed=1),)
    report = build_report(r)
    assert (report.timers["t"].failed_calls, report.interrupts["i"].failed_calls) == (5, 1)


def test_timeline_waits_on_queues_and_event_flags() -> None:
    def waits(name: str) -> dict[str, list[tuple[Fraction, Fraction, str, str]]]:
        timeline = extract(simulate(example(name)))
        ms = 1_000_000
        return {
            t.name: [(Fraction(w.start, ms), Fraction(w.end, ms), w.object, w.what) for w in t.waits]
            for t in timeline.tasks
            if t.waits
        }

    assert waits("queue_prodcons") == {
        "alarm": [(8, 10, "Q", "room")],
        "sensor": [(9, 11, "Q", "room"), (12, Fraction(25, 2), "Q", "room")],  # the run ends at 12.5
    }
    assert waits("interrupt_event") == {
        "handler": [(0, 3, "E", "flags"), (5, 8, "E", "flags"), (10, 13, "E", "flags")]
    }
    assert waits("client_server") == {
        "client": [(1, 3, "replies", "message"), (11, 13, "replies", "message")],
        "server": [(0, 1, "requests", "message"), (3, 11, "requests", "message")],
    }
    fig = gantt.figure(extract(simulate(example("queue_prodcons"))), "q")
    (ax,) = fig.axes
    # one collection of boxes for every wait (gantt.py draws one per kind)
    assert sum(len(c.get_paths()) for c in ax.collections if c.get_gid() == "wait") == 3
    assert "waiting on a queue or event flags" in [t.get_text() for t in ax.get_legend().get_texts()]


def test_work_estimate_counts_timer_and_interrupt_bodies() -> None:
    # timer_release: worker 3 jobs of 2 actions, urgent and background 1 of 1,
    # and the timer's body of 1 action 3 times (2, 6, 10 ms): 11 actions.
    assert bounds.estimate(example("timer_release")) == bounds.Work(jobs=5, busy_ticks=12, actions=11)
    # interrupt_event: handler 3 jobs of 2, background 1 of 1, the interrupt's
    # body 3 times (3, 8, 13 ms); with interrupts the host port takes every
    # tick of the horizon (15) one by one.
    assert bounds.estimate(example("interrupt_event")) == bounds.Work(jobs=4, busy_ticks=15, actions=10)
