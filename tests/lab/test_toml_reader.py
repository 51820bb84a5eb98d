"""priora.scenario.toml_reader against tomllib.

The reader's contract: what it returns is what
`tomllib.loads(text, parse_float=Decimal)` returns, the same types and key
order; what it does not read (outside its subset, invalid, in doubt) it
leaves to tomllib by raising Unsupported. Checked here on every TOML file of
the repository (and every example must be read by the reader, not left to
tomllib), on hand-written documents with their exact values, on documents
it must leave (each TOML feature outside the subset, each kind of invalid
document), and on a few thousand mutated documents compared with tomllib.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tomllib
from decimal import Decimal
from pathlib import Path

import pytest

from priora.errors import ScenarioError
from priora.scenario import toml_reader
from priora.scenario.loader import decode_toml
from priora.scenario.toml_reader import Unsupported

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").rglob("*.toml"))


def typed(value: object) -> object:
    """`value` with every type spelt out, dict keys in order: two values
    compare equal only when they are the same to the last type (True is not
    1, Decimal("1.0") is not Decimal("1"), {a, b} is not {b, a})."""
    if isinstance(value, dict):
        return ("dict", [(key, typed(item)) for key, item in value.items()])
    if isinstance(value, list):
        return ("list", [typed(item) for item in value])
    if isinstance(value, Decimal):
        return ("Decimal", str(value))
    return (type(value).__name__, value)


def tomllib_reads(text: str) -> dict[str, object]:
    return tomllib.loads(text, parse_float=Decimal)


def agrees(text: str) -> bool:
    """True when the reader read `text` (then tomllib must read it to the
    same value), False when it left it to tomllib."""
    try:
        got = toml_reader.loads(text)
    except Unsupported:
        return False
    try:
        want = tomllib_reads(text)
    except Exception as e:  # a document tomllib refuses: the reader must have too
        pytest.fail(f"the reader read a document tomllib refuses ({e!r}): {text!r}")
    assert typed(got) == typed(want), text
    return True


def tracked_toml_files() -> list[str]:
    done = subprocess.run(["git", "ls-files", "*.toml"], cwd=ROOT, capture_output=True, text=True, check=True)
    return done.stdout.split()


# ---- the repository's files ----


def test_the_repository_has_toml_files_to_check() -> None:
    files = tracked_toml_files()
    assert len(files) > 100 and "lab/pyproject.toml" in files
    assert len(EXAMPLES) >= 20


@pytest.mark.parametrize("name", tracked_toml_files())
def test_every_tracked_file_reads_as_tomllib_reads_it(name: str) -> None:
    agrees((ROOT / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_example_is_read_by_the_reader(path: Path) -> None:
    # The fast path is only worth its code if the files users run take it.
    assert agrees(path.read_text(encoding="utf-8"))


# ---- hand-written documents and their values ----

READ = [
    ("", {}),
    ("# a comment only\n\n   \n\t# another\n", {}),
    ("a = 1", {"a": 1}),  # no newline at the end
    ("a=1#c\nb=2", {"a": 1, "b": 2}),
    (
        "i = 0\nj = -0\nk = +3\nl = -17\nm = 1_000\nn = 12_34_5\n",
        {"i": 0, "j": 0, "k": 3, "l": -17, "m": 1000, "n": 12345},
    ),
    ("big = 123456789012345678901234567890\n", {"big": 123456789012345678901234567890}),
    (
        "a = 0.5\nb = 1e3\nc = -1.5E-2\nd = 1_0.0_5\ne = 0e0\nf = +0.0\ng = -0.0\nh = 6.02e+23\n",
        {
            "a": Decimal("0.5"),
            "b": Decimal("1E+3"),
            "c": Decimal("-0.015"),
            "d": Decimal("10.05"),
            "e": Decimal("0"),
            "f": Decimal("0.0"),
            "g": Decimal("-0.0"),
            "h": Decimal("6.02E+23"),
        },
    ),
    ("t = 0.10\n", {"t": Decimal("0.10")}),  # the digits as written, not 0.1
    ("y = true\nn = false\n", {"y": True, "n": False}),
    (
        r's = "tab\tnl\nq\"bs\\ \u00e9 \U0001F600 \b\f\r"' + "\n",
        {"s": 'tab\tnl\nq"bs\\ \u00e9 \U0001f600 \b\f\r'},
    ),
    ("e = \"\"\nl = ''\n", {"e": "", "l": ""}),
    (r"p = 'C:\path\n \"x\"'" + "\n", {"p": r"C:\path\n \"x\""}),
    ('t = "a\tb"\n', {"t": "a\tb"}),  # a tab may be in a string
    ('u = "µs — ok" # délai\n', {"u": "µs — ok"}),
    ('h = "# not a comment"\n', {"h": "# not a comment"}),
    (
        'body = [\n  "lock S", # why\n  "compute 1",\n\n  # alone\n  "unlock S",\n]\n',
        {"body": ["lock S", "compute 1", "unlock S"]},
    ),
    (
        "a = []\nb = [ ]\nc = [[1, 2], [], [[3]]]\nd = [1, 'x', 0.5, true, {k = 1}]\n",
        {"a": [], "b": [], "c": [[1, 2], [], [[3]]], "d": [1, "x", Decimal("0.5"), True, {"k": 1}]},
    ),
    ("a = [1,2,]\nb = [\n1\n,\n2\n]\n", {"a": [1, 2], "b": [1, 2]}),
    (
        'a = {}\nb = { }\nc = { x = 1, y.z = "s", y.w = [2] }\nd = {e = {f = {}}}\n',
        {"a": {}, "b": {}, "c": {"x": 1, "y": {"z": "s", "w": [2]}}, "d": {"e": {"f": {}}}},
    ),
    ("a = {b.c = {}, b.d = 1}\n", {"a": {"b": {"c": {}, "d": 1}}}),
    ("a = {b = [1,\n 2]}\n", {"a": {"b": [1, 2]}}),  # an array in it may span lines
    (
        '"a b" = 1\n\'lit\' = 2\n"" = 3\n"\\u0041" = 4\n-_- = 5\n1.2 = 6\n',
        {"a b": 1, "lit": 2, "": 3, "A": 4, "-_-": 5, "1": {"2": 6}},
    ),
    ("a . \"b\" . 'c' = 1\na.d = 2\n", {"a": {"b": {"c": 1}, "d": 2}}),
    (
        "[system]\ntick_hz = 1000\n\n[tasks.L]\npriority = 1\n[tasks.H]\npriority = 3\n",
        {"system": {"tick_hz": 1000}, "tasks": {"L": {"priority": 1}, "H": {"priority": 3}}},
    ),
    ("[a.b]\nx = 1\n[a]\ny = 2\n", {"a": {"b": {"x": 1}, "y": 2}}),  # a implied, then declared
    ("[a]\nx = 1\n[a.b]\ny = 2\n", {"a": {"x": 1, "b": {"y": 2}}}),
    ('[ a . "b c" ] # comment\nk = 1\n', {"a": {"b c": {"k": 1}}}),
    ("[t]\np.x = 1\np.y = 2\nq = 3\n", {"t": {"p": {"x": 1, "y": 2}, "q": 3}}),
    ("z = 1\ny = 2\nx = 3\n[c]\n[b]\n[a]\n", {"z": 1, "y": 2, "x": 3, "c": {}, "b": {}, "a": {}}),
    ("a = " + "[" * 32 + "]" * 32 + "\n", {"a": json.loads("[" * 32 + "]" * 32)}),
]


@pytest.mark.parametrize(("text", "expected"), READ)
def test_documents_read_to_their_exact_values(text: str, expected: dict[str, object]) -> None:
    assert typed(toml_reader.loads(text)) == typed(expected)
    assert typed(tomllib_reads(text)) == typed(expected)  # the table says what tomllib says


# ---- documents the reader leaves to tomllib ----

# Valid TOML outside the subset: tomllib reads them, the reader does not.
OUTSIDE = [
    'a = """multi\nline"""\n',
    "a = '''multi\nline'''\n",
    "a = 0x1F\n",
    "a = 0o17\n",
    "a = 0b101\n",
    "a = inf\n",
    "a = -inf\n",
    "a = nan\n",
    "a = +nan\n",
    "a = 1979-05-27\n",
    "a = 1979-05-27T07:32:00Z\n",
    "a = 1979-05-27 07:32:00\n",
    "a = 07:32:00\n",
    "[[a]]\nx = 1\n",
    "a = 1\r\n",
    "# a comment\r\na = 1\n",
    "a = " + "[" * 33 + "]" * 33 + "\n",
    "a = " + "{b = " * 33 + "1" + "}" * 33 + "\n",
    "a = " + "1" * 101 + "\n",  # long: the reader does not guess int()'s limit
    # Allowed by TOML but not one of the two plain ways a key meets a table:
    '[fruit]\napple.color = "red"\n[fruit.apple.texture]\nsmooth = true\n',
    "a.b = 1\n[a.c]\n",
    "[a.b.c]\n[a]\nb.d = 1\n",
]

# Invalid TOML: tomllib refuses them (and says why), the reader leaves them.
INVALID = [
    # keys and tables defined twice
    "a = 1\na = 2\n",
    "a.b = 1\na.b = 2\n",
    "a.b = 1\na = 2\n",
    "a = 1\na.b = 2\n",
    "[a]\n[a]\n",
    "[a]\nb = 1\n[a.b]\n",
    "[a]\nb.c = 1\n[a.b]\n",
    "[a.b]\n[a]\nb.c = 1\n",
    "[a.b.c]\n[a]\nb = 1\n",
    "a.b = 1\n[a]\n",
    "[x]\na.b = 1\n[y]\n[x.a]\n",
    "a = {}\n[a]\n",
    "a = {b = 1}\na.c = 2\n",
    "a = {b = 1}\n[a.c]\n",
    "a = [1]\n[a]\n",
    "a = [{}]\n[a.b]\n",
    # strings
    'a = "\\x41"\n',
    'a = "\\e"\n',
    'a = "\\ "\n',
    'a = "\\u12"\n',
    'a = "\\u12G4"\n',
    'a = "\\uD800"\n',
    'a = "\\U00110000"\n',
    'a = "\\"\n',
    'a = "abc\n',
    'a = "ab\nc"\n',
    "a = 'abc\n",
    "a = 'ab\nc'\n",
    'a = "unterminated',
    # numbers
    "a = 01\n",
    "a = 00\n",
    "a = -01\n",
    "a = 0_0\n",
    "a = 1__0\n",
    "a = _1\n",
    "a = 1_\n",
    "a = 1.\n",
    "a = .5\n",
    "a = 1e\n",
    "a = 1e+\n",
    "a = 1._5\n",
    "a = 1.5_\n",
    "a = 1e_5\n",
    "a = +\n",
    "a = -\n",
    "a = ++1\n",
    "a = 1-2\n",
    "a = 1.2.3\n",
    "a = 1e2e3\n",
    "a = 0x\n",
    "a = " + "9" * 5000 + "\n",  # beyond int()'s limit: tomllib's ValueError
    # values missing or followed by something
    "a =\n",
    "a = \n",
    "a = # c\n",
    "a =",
    "a = 1 2\n",
    'a = "x" y\n',
    "a = true1\n",
    "a = truee\n",
    "a = tru\n",
    "a = True\n",
    "a = fals\n",
    "a = 1,\n",
    "[a] b\n",
    "[a]]\n",
    # arrays and inline tables
    "a = [1, 2",
    "a = [1, 2\n",
    "a = [1 2]\n",
    "a = [,]\n",
    "a = [1,,2]\n",
    "a = {b = 1",
    "a = {b = 1,}\n",
    "a = {b = 1\n}\n",
    "a = {\nb = 1}\n",
    "a = {b = 1 c = 2}\n",
    "a = {b = 1, b = 2}\n",
    "a = {b = 1, b.c = 2}\n",
    "a = {b.c = 1, b = 2}\n",
    "a = {b = {}, b.c = 1}\n",
    "a = " + "[" * 5000 + "]" * 5000 + "\n",  # tomllib's RecursionError
    # keys and statements
    "= 1\n",
    "a\n",
    "a b = 1\n",
    "a = 1 = 2\n",
    "[]\n",
    "[a\n",
    "[a.]\n",
    "[.a]\n",
    "a..b = 1\n",
    '"a" "b" = 1\n',
    "'a'b = 1\n",
    '"""a""" = 1\n',
    "[ [a]]\n",
    # characters TOML does not allow
    'a = "x\x00"\n',
    'a = "\x1b"\n',
    "# \x7f\n",
    "# \x00\n",
    "a = 1\x0c\n",
    "\x00a = 1\n",
    "a = 1\rb = 2\n",
    "ä = 1\n",
    "a = 1 ¹\n",
    "a = ١\n",
    "\ufeffa = 1\n",
]


@pytest.mark.parametrize("text", OUTSIDE)
def test_toml_outside_the_subset_is_left_to_tomllib(text: str) -> None:
    tomllib_reads(text)  # valid TOML
    with pytest.raises(Unsupported):
        toml_reader.loads(text)


@pytest.mark.parametrize("text", INVALID)
def test_invalid_toml_is_left_to_tomllib(text: str) -> None:
    with pytest.raises((ValueError, RecursionError)):  # TOMLDecodeError is a ValueError
        tomllib_reads(text)
    with pytest.raises(Unsupported):
        toml_reader.loads(text)


# ---- the reader against tomllib on mutated documents ----

# TOML's significant characters, and letters (true, false, e, escapes).
ALPHABET = "[]{}=,.\"'#\n _-+0123456789eE\\\tabtrfuslnxU"


def generated(rng: random.Random) -> str:
    """A small document in the subset, mostly valid (duplicate keys happen)."""
    lines = []
    for section in range(rng.randint(1, 4)):
        if section:
            lines.append("[" + generated_key(rng) + "]")
        for _ in range(rng.randint(1, 4)):
            lines.append(f"{generated_key(rng)} = {generated_value(rng, 0)}")
        if rng.random() < 0.3:
            lines.append("# a comment")
    return "\n".join(lines) + "\n"


def generated_key(rng: random.Random) -> str:
    parts = ["a", "b", "c", "x_1", "-", "2", '"q k"', "'l'", '""', '"\\u0041"']
    return ".".join(rng.choice(parts) for _ in range(rng.randint(1, 3)))


def generated_value(rng: random.Random, depth: int) -> str:
    kind = rng.randrange(6 if depth < 3 else 4)
    if kind == 0:
        return rng.choice(["0", "7", "-12", "+3", "1_000", "12_34_5", "-0", "99999999999999999999"])
    if kind == 1:
        return rng.choice(["0.5", "-1.25e3", "6E-2", "1_0.0_5", "0e0", "+0.0", "1e+9", "3.14_15"])
    if kind == 2:
        return rng.choice(['"a\\tb"', '"\\u00e9\\\\"', "'lit'", '"µs"', '""', "''", '"\\"q\\""'])
    if kind == 3:
        return rng.choice(["true", "false"])
    items = [generated_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if kind == 4:
        between = rng.choice([", ", ",", ",\n  ", " , # c\n", ","])
        end = rng.choice(["", ",", "\n", ",\n"])
        return "[" + between.join(items) + (end if items else "") + "]"
    pairs = [f"{generated_key(rng)} = {item}" for item in items if "\n" not in item]
    return "{" + ", ".join(pairs) + "}"


def mutated(rng: random.Random, text: str) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(chars) + 1)
        operation = rng.randrange(3)
        if operation == 0 or not chars:
            chars.insert(at, rng.choice(ALPHABET))
        elif at < len(chars):
            if operation == 1:
                del chars[at]
            else:
                chars[at] = rng.choice(ALPHABET)
    return "".join(chars)


def without_comment_lines(text: str) -> str:
    # The examples are mostly comments, where a mutation changes nothing.
    return "".join(line for line in text.splitlines(keepends=True) if not line.lstrip().startswith("#"))


def test_the_reader_agrees_with_tomllib_on_mutated_documents() -> None:
    rng = random.Random(20250214)
    examples = [without_comment_lines(p.read_text(encoding="utf-8")) for p in EXAMPLES]
    read = left = refused = 0
    for case in range(4000):
        if case % 4 == 0:
            text = generated(rng)
        else:
            source = rng.choice(examples) if case % 2 else generated(rng)
            text = mutated(rng, source)
        if agrees(text):
            read += 1
        else:
            left += 1
            try:
                tomllib_reads(text)
            except (ValueError, RecursionError):
                refused += 1
    # Both ways are exercised: many documents read, many refused (by both).
    assert read > 1000, (read, left, refused)
    assert refused > 1000, (read, left, refused)


# ---- through the loader ----


def test_the_loader_reads_with_the_reader_and_falls_back_to_tomllib() -> None:
    text = (ROOT / "examples" / "inversion.toml").read_text(encoding="utf-8")
    assert typed(decode_toml(text, "inversion.toml")) == typed(tomllib_reads(text))
    # Outside the subset: tomllib's value.
    assert decode_toml("x = 0x10\ny = 1979-05-27\n", "f.toml")["x"] == 16
    # Invalid: tomllib's message, its position in the where part.
    with pytest.raises(ScenarioError) as e:
        decode_toml("a = 1\nb = 01\n", "f.toml")
    assert (
        str(e.value)
        == "f.toml: line 2: malformed TOML: Expected newline or end of document after a statement (column 6)"
    )


def _alone(probe: str) -> list[str]:
    """What `probe` prints, run with toml_reader imported alone (not through
    the priora package, which imports more), in a fresh interpreter without site."""
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", probe, str(ROOT / "lab" / "priora" / "scenario")],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.split()


def test_the_reader_imports_nothing_costly() -> None:
    new = _alone(
        "import sys; before = set(sys.modules); sys.path.insert(0, sys.argv[1]); import toml_reader;"
        " print(' '.join(sorted(set(sys.modules) - before)))"
    )
    assert "toml_reader" in new
    # decimal comes with the first float only (a scenario of whole numbers needs none).
    assert [m for m in ("tomllib", "typing", "datetime", "re", "string", "decimal") if m in new] == []


def test_decimal_comes_with_the_first_float() -> None:
    printed = _alone(
        "import sys; sys.path.insert(0, sys.argv[1]); import toml_reader;"
        " whole = toml_reader.loads('a = 1'); before = 'decimal' in sys.modules;"
        " floats = toml_reader.loads('b = 0.1');"
        " print(before, 'decimal' in sys.modules, type(floats['b']).__name__, floats['b'], whole['a'])"
    )
    assert printed == ["False", "True", "Decimal", "0.1", "1"]
