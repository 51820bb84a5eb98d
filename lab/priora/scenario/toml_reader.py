"""A reader for the TOML that scenario files are written in, without tomllib.

Why: `priora simulate FILE` spends most of a short run starting up
(docs/packaging.md, "Start-up time"), and importing `tomllib` is a good part
of it: it compiles its regular expressions and imports `datetime`, `string`
and `typing`, some 5 ms (more when `typing` is not imported yet) where the
interpreter itself takes about 25. Scenario files use a small part of TOML,
which plain string methods read faster than tomllib does, at no cost to
import.

The contract: `loads(text)` returns exactly what
`tomllib.loads(text, parse_float=decimal.Decimal)` returns (the same dicts,
lists, str, int, bool and Decimal values, the same types and the same key
order), or raises `Unsupported`, which means "not read here: ask tomllib".
It raises `Unsupported` for everything outside the subset below, for every
invalid document and whenever in doubt, and never says why: it never
accepts a document tomllib refuses, and the messages users see about a
malformed file are all tomllib's.

The subset: comments and blank lines; `[a.b.c]` table headers; `key = value`
with bare, quoted and dotted keys; basic strings with the standard escapes
and literal strings, on one line; decimal integers and floats (floats are
Decimal, made from the text as tomllib's `parse_float` receives it); `true`
and `false`; arrays (over several lines, with comments, a trailing comma);
inline tables. Deferred: multi-line strings, hexadecimal, octal and binary
integers, inf and nan, dates and times, arrays of tables, any carriage
return, any control character but tab and newline, arrays and inline tables
nested deeper than MAX_DEPTH, integers too long to be sure of Python's
int() limit, and every document where a key meets something already
defined in a way other than the two plain ones below.

Which tables a key may add to (TOML's rules on redefinition, as tomllib
applies them, kept to the cases that are plainly allowed): a header may pass
through a table a header declared or implied (`[tasks]` then `[tasks.L]`,
or `[tasks.L]` then `[tasks.H]`) and may declare a table an earlier header
only implied (`[a.b]` then `[a]`); a dotted key may pass through a table a
dotted key created in the same table section (`x.y = 1` then `x.z = 2`),
and in an inline table, through a table a dotted key of that inline table
created. Any other meeting (an inline table or array value, a table made by dotted
keys in another section, a table declared twice) is left to tomllib.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    from decimal import Decimal
    from typing import NoReturn

__all__ = ["MAX_DEPTH", "Unsupported", "loads"]

MAX_DEPTH = 32  # arrays and inline tables nested deeper are left to tomllib

# tomllib refuses these anywhere in a document (in strings and comments too),
# so one look at the whole text spares a check in every string and comment.
# All but the carriage return, which tomllib takes in "\r\n" as a newline:
# this reader leaves such files to it.
_CONTROLS = tuple(chr(c) for c in range(32) if chr(c) not in "\t\n") + ("\x7f",)

_DIGITS = frozenset("0123456789")
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_BARE_KEY = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_KEY_START = _BARE_KEY | frozenset("\"'")
_SPACE = frozenset(" \t")
_ARRAY_SPACE = frozenset(" \t\n")
# What a number may be made of; a token of these that is not a decimal
# number in TOML's grammar is refused whole. tomllib's match would stop
# earlier, before a character that may not follow a value, and fail there.
_NUMBER = frozenset("0123456789_+-.eE")
_NUMBER_START = frozenset("0123456789+-")
# Python's int() refuses more than sys.get_int_max_str_digits() digits (at
# least 640) and tomllib passes its ValueError on: such numbers go to it.
_MAX_NUMBER_CHARS = 100

_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}

# The kinds of table a key may pass through (_Reader.kinds, by id() of the
# dict: every table stays in the document, so the ids stay unique). A table
# made by dotted keys is marked with its section's number, 0 and up.
_IMPLIED = -1  # made as the parent in a header: [a.b] implies a
_DECLARED = -2  # named by a header: [a.b] declares b


class Unsupported(Exception):
    """The document is not read here (outside the subset, invalid, or in
    doubt): tomllib is to read it, and to say what is wrong with it."""


def loads(text: str) -> dict[str, object]:
    """The document in `text`, as `tomllib.loads(text, parse_float=Decimal)`
    returns it, or Unsupported."""
    if any(c in text for c in _CONTROLS):
        raise Unsupported
    return _Reader(text).document()


def _defer() -> NoReturn:
    raise Unsupported


class _Reader:
    """One pass over the text, from `pos`; the statements go into `table`,
    the table of the current section (numbered `section`)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.end = len(text)
        self.pos = 0
        self.root: dict[str, object] = {}
        self.table = self.root
        self.section = 0
        self.kinds: dict[int, int] = {}

    # ---- statements ----

    def document(self) -> dict[str, object]:
        text = self.text
        while True:
            self.skip(_SPACE)
            if self.pos >= self.end:
                return self.root
            char = text[self.pos]
            if char == "\n":
                self.pos += 1
                continue
            if char == "[":
                self.header()
            elif char in _KEY_START:
                self.key_value()
            elif char != "#":
                _defer()
            self.skip(_SPACE)
            self.end_of_line()

    def end_of_line(self) -> None:
        """Past an optional comment and the newline (or at the end)."""
        text, pos = self.text, self.pos
        if text.startswith("#", pos):
            newline = text.find("\n", pos)
            pos = self.end if newline < 0 else newline
        if pos < self.end:
            if text[pos] != "\n":
                _defer()  # something after the statement
            pos += 1
        self.pos = pos

    def header(self) -> None:
        """[a.b.c]: the section's table is now a.b.c, declared here."""
        if self.text.startswith("[[", self.pos):
            _defer()  # an array of tables
        self.pos += 1
        self.skip(_SPACE)
        key = self.key()
        self.expect("]")
        table = self.root
        for part in key[:-1]:
            child = table.get(part)
            if child is None:
                child = table[part] = {}
                self.kinds[id(child)] = _IMPLIED
            elif not (isinstance(child, dict) and self.kinds.get(id(child)) in (_IMPLIED, _DECLARED)):
                _defer()  # a value, or a table made by dotted keys
            table = child
        child = table.get(key[-1])
        if child is None:
            child = table[key[-1]] = {}
        elif not (isinstance(child, dict) and self.kinds.get(id(child)) == _IMPLIED):
            _defer()  # declared twice, or not a table a header may declare
        self.kinds[id(child)] = _DECLARED
        self.table = child
        self.section += 1

    def key_value(self) -> None:
        """key = value, into the section's table (a dotted key makes or
        passes through the tables it names)."""
        key = self.key()
        self.expect("=")
        self.skip(_SPACE)
        value = self.value(0)
        table = self.table
        for part in key[:-1]:
            child = table.get(part)
            if child is None:
                child = table[part] = {}
                self.kinds[id(child)] = self.section
            elif not (isinstance(child, dict) and self.kinds.get(id(child)) == self.section):
                _defer()  # not a table this section's dotted keys made
            table = child
        if key[-1] in table:
            _defer()  # a key defined twice
        table[key[-1]] = value

    # ---- keys ----

    def key(self) -> list[str]:
        """A key's parts, and the spaces after it skipped."""
        parts = [self.key_part()]
        self.skip(_SPACE)
        while self.text.startswith(".", self.pos):
            self.pos += 1
            self.skip(_SPACE)
            parts.append(self.key_part())
            self.skip(_SPACE)
        return parts

    def key_part(self) -> str:
        text, pos = self.text, self.pos
        char = text[pos] if pos < self.end else ""
        if char in _BARE_KEY:
            start = pos
            while pos < self.end and text[pos] in _BARE_KEY:
                pos += 1
            self.pos = pos
            return text[start:pos]
        if char == '"':
            return self.basic_string()
        if char == "'":
            return self.literal_string()
        return _defer()

    # ---- values ----

    def value(self, depth: int) -> object:
        text, pos = self.text, self.pos
        char = text[pos] if pos < self.end else ""
        if char == '"':
            if text.startswith('"""', pos):
                _defer()  # a multi-line string
            return self.basic_string()
        if char == "'":
            if text.startswith("'''", pos):
                _defer()  # a multi-line literal string
            return self.literal_string()
        if char == "t" and text.startswith("true", pos):
            self.pos += 4
            return True
        if char == "f" and text.startswith("false", pos):
            self.pos += 5
            return False
        if char == "[":
            return self.array(depth + 1)
        if char == "{":
            return self.inline_table(depth + 1)
        if char in _NUMBER_START:
            return self.number()
        return _defer()  # no value, or inf, nan, a date...

    def basic_string(self) -> str:
        """A basic string, "...", from its opening quote: its text, escapes replaced."""
        text, pos = self.text, self.pos + 1
        pieces = []
        while True:
            close = text.find('"', pos)
            if close < 0:
                _defer()  # unterminated
            escape = text.find("\\", pos, close)
            stop = close if escape < 0 else escape
            piece = text[pos:stop]
            if "\n" in piece:
                _defer()  # a newline in a one-line string
            pieces.append(piece)
            if escape < 0:
                self.pos = close + 1
                return "".join(pieces)
            pos = self.escape(escape, pieces)

    def escape(self, pos: int, pieces: list[str]) -> int:
        """The escape at `pos` (its backslash) onto `pieces`; the position after it."""
        text = self.text
        code = text[pos + 1 : pos + 2]
        if code in _ESCAPES:
            pieces.append(_ESCAPES[code])
            return pos + 2
        length = 4 if code == "u" else 8 if code == "U" else 0
        digits = text[pos + 2 : pos + 2 + length]
        if length == 0 or len(digits) != length or not _HEX_DIGITS.issuperset(digits):
            _defer()  # not an escape TOML 1.0 has, or a short one
        point = int(digits, 16)
        if 0xD800 <= point <= 0xDFFF or point > 0x10FFFF:
            _defer()  # not a Unicode scalar value
        pieces.append(chr(point))
        return pos + 2 + length

    def literal_string(self) -> str:
        """A literal string, '...', from its opening quote: the text between the quotes."""
        start = self.pos + 1
        close = self.text.find("'", start)
        if close < 0:
            _defer()
        piece = self.text[start:close]
        if "\n" in piece:
            _defer()
        self.pos = close + 1
        return piece

    def number(self) -> int | Decimal:
        text, start = self.text, self.pos
        pos = start
        while pos < self.end and text[pos] in _NUMBER:
            pos += 1
        token = text[start:pos]
        is_float = _decimal_number(token)
        self.pos = pos
        try:
            # The very calls tomllib makes on its match, underscores and all.
            if not is_float:
                return int(token, 0)
            from decimal import Decimal  # with the first float only: its import costs start-up

            return Decimal(token)
        except (ValueError, ArithmeticError):  # an exponent beyond Decimal's
            return _defer()

    def array(self, depth: int) -> list[object]:
        if depth > MAX_DEPTH:
            _defer()
        self.pos += 1
        items: list[object] = []
        self.skip_array_space()
        while not self.text.startswith("]", self.pos):
            items.append(self.value(depth))
            self.skip_array_space()
            if self.text.startswith(",", self.pos):
                self.pos += 1
                self.skip_array_space()
            elif not self.text.startswith("]", self.pos):
                _defer()  # unclosed, or two values without a comma
        self.pos += 1
        return items

    def inline_table(self, depth: int) -> dict[str, object]:
        """{k = v, ...} on one line; its dotted keys may pass through the
        tables its own dotted keys made (`made`), nothing else."""
        if depth > MAX_DEPTH:
            _defer()
        self.pos += 1
        table: dict[str, object] = {}
        made: set[int] = set()
        self.skip(_SPACE)
        if self.text.startswith("}", self.pos):
            self.pos += 1
            return table
        while True:
            key = self.key()
            self.expect("=")
            self.skip(_SPACE)
            value = self.value(depth)
            nest = table
            for part in key[:-1]:
                child = nest.get(part)
                if child is None:
                    child = nest[part] = {}
                    made.add(id(child))
                elif not (isinstance(child, dict) and id(child) in made):
                    _defer()  # a value given in this inline table
                nest = child
            if key[-1] in nest:
                _defer()  # a key defined twice
            nest[key[-1]] = value
            self.skip(_SPACE)
            if self.text.startswith("}", self.pos):
                self.pos += 1
                return table
            self.expect(",")  # no trailing comma, no newline: TOML 1.0
            self.skip(_SPACE)

    # ---- characters ----

    def skip(self, chars: frozenset[str]) -> None:
        text, pos, end = self.text, self.pos, self.end
        while pos < end and text[pos] in chars:
            pos += 1
        self.pos = pos

    def skip_array_space(self) -> None:
        """Spaces, newlines and comments, as between an array's values."""
        while True:
            self.skip(_ARRAY_SPACE)
            if not self.text.startswith("#", self.pos):
                return
            newline = self.text.find("\n", self.pos)
            self.pos = self.end if newline < 0 else newline

    def expect(self, char: str) -> None:
        if not self.text.startswith(char, self.pos):
            _defer()
        self.pos += 1


def _decimal_number(token: str) -> bool:
    """Whether `token`, a decimal integer or float of TOML's grammar (sign,
    no leading zero, an underscore only between two digits), is a float;
    Unsupported when it is no such number."""
    if len(token) > _MAX_NUMBER_CHARS:
        _defer()
    pos = 1 if token.startswith(("+", "-")) else 0
    if token.startswith("0", pos):
        pos += 1  # a zero stands alone: 0, 0.5, 0e3, never 01
    else:
        pos = _digits(token, pos)
    is_float = False
    if token.startswith(".", pos):
        pos = _digits(token, pos + 1)
        is_float = True
    if token.startswith(("e", "E"), pos):
        pos += 1
        if token.startswith(("+", "-"), pos):
            pos += 1
        pos = _digits(token, pos)
        is_float = True
    if pos != len(token):
        _defer()
    return is_float


def _digits(token: str, pos: int) -> int:
    """The end of the digits at `pos` (at least one; an underscore only
    between two of them); Unsupported when there is no digit there."""
    end = len(token)
    if pos >= end or token[pos] not in _DIGITS:
        _defer()
    pos += 1
    while pos < end:
        if token[pos] in _DIGITS:
            pos += 1
        elif token[pos] == "_" and pos + 1 < end and token[pos + 1] in _DIGITS:
            pos += 2
        else:
            break
    return pos
