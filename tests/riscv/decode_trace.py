"""The smoke test's trace decoder: the lab's priora.run.trace_decode, whose
docstring gives its use. Kept here so that scripts/qemu-smoke.sh and
tests/riscv/compare_kernel_tests.py read the trace as they always did.

    decode_trace.py UART.log [--jobs N] [--runs A,B] [--compare FILE.toml] [--quiet]
"""

from __future__ import annotations

import sys

from priora.run.trace_decode import (
    Key,
    Record,
    Run,
    TraceError,
    count,
    describe,
    differences,
    host_run,
    listing,
    main,
    parse,
    problems,
    records,
    ticks,
)

__all__ = [
    "Key", "Record", "Run", "TraceError", "count", "describe", "differences", "host_run", "listing", "main",
    "parse", "problems", "records", "ticks",
]  # fmt: skip

if __name__ == "__main__":
    sys.exit(main())
