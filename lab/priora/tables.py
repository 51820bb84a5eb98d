"""The lab's tables, written once and shown three ways: aligned text (the
default), Markdown (`--format markdown`) and CSV files (`--csv DIR`).

A command's output is a list of sections: `Table` (columns of cells),
`Pairs` (a titled list of figures: the report's System block) and `Lines`
(a title and lines of prose: header lines, notes, warnings). `render` lays
them out as text or Markdown; `write_csv` writes one file per table, named
after it (`jobs.csv`, `tasks.csv`, ...). A table is given column by column:
a report may have millions of job rows, and one pass per column is what
keeps formatting them cheap (docs/lab.md, "Tables").
"""

from __future__ import annotations

from collections.abc import Sequence

from priora.errors import PrioraError
from priora.record import field, record

Cell = str | int | float | bool | None
TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Literal

    Format = Literal["text", "markdown"]
FORMATS: tuple[Format, ...] = ("text", "markdown")


class TableError(PrioraError):
    """A CSV file that cannot be written. One line."""


@record(frozen=True)
class Table:
    """`name` is the CSV file's stem; `align` has one letter per column,
    l(eft) or r(ight), and columns past its end are right-aligned (numbers,
    so that digits line up). A table without title follows the section
    before it."""

    name: str
    title: str | None
    headers: Sequence[str]
    columns: Sequence[Sequence[Cell]]
    align: str = "l"

    def rows(self) -> int:
        return len(self.columns[0]) if self.columns else 0


@record(frozen=True)
class Pairs:
    """A titled list of (figure, value) as shown; `raw` gives the CSV rows
    (the values as numbers, keyed as in JSON) when they differ from it."""

    name: str
    title: str
    headers: tuple[str, str]
    pairs: Sequence[tuple[str, str]]
    raw: Sequence[tuple[str, Cell]] | None = None


@record(frozen=True)
class Lines:
    """A title and lines of prose; `table` is what `write_csv` writes for
    them (the report's warnings), if anything."""

    title: str
    lines: Sequence[str]
    table: Table | None = field(default=None)


Section = Table | Pairs | Lines


# ---------------------------------------------------------------- cells


def cell_texts(values: Sequence[Cell]) -> list[str]:
    """A column's texts: None as "-", booleans as yes/no, numbers as they are."""
    return ["-" if v is None else ("yes" if v else "no") if type(v) is bool else str(v) for v in values]


def _csv_cell(value: Cell) -> str:
    """None as an empty field, booleans as true/false (what CSV readers parse)."""
    if value is None:
        return ""
    if type(value) is bool:
        return "true" if value else "false"
    return str(value)


# ---------------------------------------------------------------- text


def _text_table(t: Table) -> str:
    if t.rows() == 0:
        return f"{t.title or t.name}: none"
    texts: list[list[str]] = []
    for i, (header, values) in enumerate(zip(t.headers, t.columns, strict=True)):
        cells = [header, "", *cell_texts(values)]
        width = max(map(len, cells))
        cells[1] = "-" * width
        left = i < len(t.align) and t.align[i] == "l"
        texts.append([c.ljust(width) for c in cells] if left else [c.rjust(width) for c in cells])
    lines = ("  ".join(line).rstrip() for line in zip(*texts, strict=True))
    return "\n".join([*([t.title] if t.title else []), *lines])


def _text(section: Section) -> str:
    if isinstance(section, Table):
        return _text_table(section)
    if isinstance(section, Pairs):
        width = max((len(k) for k, _ in section.pairs), default=0)
        return "\n".join([section.title, *(f"  {k.ljust(width)}  {v}" for k, v in section.pairs)])
    return "\n".join([section.title, *(f"  {line}" for line in section.lines)])


# ---------------------------------------------------------------- Markdown


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def markdown_table(headers: Sequence[str], columns: Sequence[Sequence[Cell]], align: str = "l") -> str:
    """A Markdown (GitHub) table, padded so that it reads as text too; the
    rule marks the right-aligned columns with a colon."""
    texts: list[list[str]] = []
    for i, (header, values) in enumerate(zip(headers, columns, strict=True)):
        cells = [_escape(header), "", *(_escape(c) for c in cell_texts(values))]
        width = max(3, *map(len, cells))
        left = i < len(align) and align[i] == "l"
        cells[1] = "-" * width if left else "-" * (width - 1) + ":"
        texts.append([c.ljust(width) for c in cells] if left else [c.rjust(width) for c in cells])
    return "\n".join("| " + " | ".join(line) + " |" for line in zip(*texts, strict=True))


def _markdown(section: Section) -> str:
    if isinstance(section, Table):
        head = [f"## {section.title}", ""] if section.title else []
        if section.rows() == 0:
            return "\n".join([*head, "none"])
        return "\n".join([*head, markdown_table(section.headers, section.columns, section.align)])
    if isinstance(section, Pairs):
        keys, values = zip(*section.pairs, strict=True) if section.pairs else ((), ())
        return "\n".join([f"## {section.title}", "", markdown_table(section.headers, [keys, values], "ll")])
    bullets = [f"- {line}" for line in section.lines]
    return "\n".join([f"## {section.title}", *([""] if bullets else []), *bullets])


def render(sections: Sequence[Section], fmt: Format = "text") -> str:
    """The sections as aligned text or as Markdown, a blank line between two."""
    show = _markdown if fmt == "markdown" else _text
    return "\n\n".join(show(s) for s in sections)


# ---------------------------------------------------------------- CSV


def _csv_rows(section: Section) -> tuple[str, list[str], list[list[str]]] | None:
    if isinstance(section, Lines):
        return None if section.table is None else _csv_rows(section.table)
    if isinstance(section, Pairs):
        pairs = section.raw if section.raw is not None else section.pairs
        return section.name, list(section.headers), [[k, _csv_cell(v)] for k, v in pairs]
    columns = [[_csv_cell(v) for v in values] for values in section.columns]
    return section.name, list(section.headers), [list(row) for row in zip(*columns, strict=True)]


def write_csv(sections: Sequence[Section], directory: Path, option: str = "--csv") -> list[Path]:
    """One CSV file per table into `directory` (created, with its parents),
    named after the table; returns the paths written, in order."""
    import csv  # here, as printing a table needs neither: start-up

    from priora import outputs

    written: list[Path] = []
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for section in sections:
            found = _csv_rows(section)
            if found is None:
                continue
            name, headers, rows = found
            path = directory / f"{name}.csv"
            with (
                outputs.replacing(path) as temporary,
                temporary.open("w", encoding="utf-8", newline="") as out,
            ):
                writer = csv.writer(out, lineterminator="\n")  # whole or not at all (priora.outputs)
                writer.writerow(headers)
                writer.writerows(rows)
            written.append(path)
    except OSError as exc:
        where = exc.filename if exc.filename is not None else directory
        raise TableError(f"{option}: cannot write {where}: {exc.strerror or exc}") from None
    return written
