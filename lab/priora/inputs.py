"""What the lab reads from a user, bounded before it is used: files (regular
files of at most MAX_FILE_BYTES, so `/dev/zero` or a FIFO is refused at
once, never read forever) and numbers written as text (ASCII digits only:
Python's int() and float() also take other scripts' digits, "inf" and
"nan"). docs/lab.md, "Limits", lists them.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections.abc import Callable

from priora.errors import PrioraError

MAX_FILE_BYTES = 16 * 2**20  # a scenario of 120,000 actions is about 1.5 MB
MAX_DIGITS = 40  # an integer option: far beyond any count, seed or rate

_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")


class InputError(PrioraError):
    """A file or an option value the lab refuses to read. One line:

    /dev/zero: not a regular file (a character device)
    """

    def __init__(self, source: str, reason: str) -> None:
        self.source = source
        self.reason = reason
        super().__init__(f"{source}: {reason}")


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
)


def read_bytes(path: str | os.PathLike[str], limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the regular file at `path`, refused (InputError) when it
    is anything else or longer than `limit`. Opened without blocking, so a
    FIFO without a writer is refused, not waited for; OSError when it cannot
    be opened."""
    source = os.fspath(path)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        os.close(fd)
        raise
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = next((name for test, name in _KINDS if test(mode)), "not a file")
        raise InputError(source, f"not a regular file ({kind})")
    with os.fdopen(fd, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise InputError(source, f"longer than the limit of {limit} bytes ({limit // 2**20} MiB)")
    return data


# ---------------------------------------------------------------- numbers


def parse_integer(option: str, text: str, least: int | None = None) -> int:
    """An integer written in ASCII digits, at least `least`; InputError
    names the option and the value otherwise."""
    if not _INTEGER.fullmatch(text) or len(text) > MAX_DIGITS:
        raise InputError(option, f"must be a whole number in ASCII digits, got {json.dumps(text)}")
    value = int(text)
    if least is not None and value < least:
        raise InputError(option, f"must be >= {least}, got {value}")
    return value


def is_decimal(text: str) -> bool:
    """`text` is a decimal number in ASCII digits ("12", "-0.5", "1e3")."""
    return _DECIMAL.fullmatch(text) is not None and len(text) <= MAX_DIGITS


def parse_seconds(option: str, text: str) -> float:
    """A finite number of seconds > 0, in ASCII digits ("inf", "nan" and
    other scripts' digits refused)."""
    if not _DECIMAL.fullmatch(text) or len(text) > MAX_DIGITS:
        raise InputError(
            option, f"must be a finite number of seconds in ASCII digits, got {json.dumps(text)}"
        )
    value = float(text)
    if not math.isfinite(value):
        raise InputError(option, f"must be a finite number of seconds, got {text}")
    if value <= 0:
        raise InputError(option, f"must be > 0 seconds, got {text}")
    return value


def integer(option: str, least: int | None = None) -> Callable[[str], int]:
    """An argparse `type` for an integer option. Its InputError is not one
    argparse catches: it reaches the command's one-line error (cli.main)."""
    return lambda text: parse_integer(option, text, least)


def seconds(option: str) -> Callable[[str], float]:
    """An argparse `type` for a duration in seconds (see `integer`)."""
    return lambda text: parse_seconds(option, text)
