"""The kernel's limits in the lab's build, in one place.

The scenario loader refuses a file beyond them, and the native binding checks,
when it loads the library, that the library was built with them
(`priora.run.native.check_limits`): a file the loader accepts is never refused by
the kernel for a limit. This module imports nothing, so that the binding (the
lowest layer of the lab) and the loader both read it without reading each
other (docs/architecture.md, "The lab").

Sources: kernel/include/priora/config.h, types.h and task.h; the lab's build
sets PR_CONFIG_MAX_TASKS and PR_CONFIG_PRIORITIES (CMakeLists.txt,
PRIORA_LAB_LIMITS; lab/setup.py, LAB_LIMITS).
"""

from __future__ import annotations

NAME_MAX = 15  # PR_CONFIG_NAME_LEN - 1 (the NUL)
MAX_TASKS = 1024  # PR_CONFIG_MAX_TASKS of the lab's build
MAX_RESOURCES = 64  # PR_CONFIG_MAX_SEMS
MAX_QUEUES = 16  # PR_CONFIG_MAX_MSGQS
MAX_EVENTS = 16  # PR_CONFIG_MAX_EVENTS
MAX_TIMERS = 32  # PR_CONFIG_MAX_TIMERS

PRIORITY_MIN = 0
# The kernel's PR_PRIO_MAX in the lab's build: 256 levels.
PRIORITY_MAX = 255
# PR_PRIO_MAX of the default build, 32 levels, which the RISC-V images keep.
DEFAULT_PRIORITY_MAX = 31
