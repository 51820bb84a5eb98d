"""Files the lab writes: never over one of its inputs, never left half
written.

- `refuse_input`: an output that is an input of the same command (the same
  file: same device and inode, also through a symbolic or hard link) is
  refused before anything runs.
- `replacing`: a file is written whole to a temporary file in its directory,
  then renamed over the destination (os.replace: atomic on POSIX). If the
  writing fails (a full disk, an interrupted write), the temporary file is
  removed and the destination is what it was. A destination that is a
  symbolic link stays one: its target is replaced.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from priora.errors import PrioraError


class OutputError(PrioraError):
    """An output the lab refuses to write. One line."""


def _identity(path: str | os.PathLike[str]) -> tuple[int, int] | None:
    try:
        st = os.stat(path)  # follows links: a link to an input is that input
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


def refuse_input(option: str, path: Path | None, inputs: Iterable[str | os.PathLike[str] | None]) -> None:
    """OutputError when `path` is one of `inputs` (None entries ignored)."""
    if path is None:
        return
    out = _identity(path)
    if out is None:  # does not exist yet: it cannot be an input
        return
    for given in inputs:
        if given is not None and _identity(given) == out:
            raise OutputError(
                f"{option}: {path} is the input file {os.fspath(given)}: refusing to write over it"
            )


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """A temporary path in `path`'s directory, with the same suffix (a
    writer that chooses its format by the suffix still does); renamed to
    `path` when the block ends without an exception, removed otherwise."""
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    import tempfile  # only here: it imports shutil, random, ...: start-up

    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=f".tmp{target.suffix}", dir=target.parent)
    os.close(fd)
    temporary = Path(name)
    try:
        yield temporary
        # mkstemp creates it 0600: give it the mode a new file would have.
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_text(path: Path, text: str) -> None:
    """`text` into `path` (UTF-8), whole or not at all."""
    with replacing(path) as temporary:
        temporary.write_text(text, encoding="utf-8")
