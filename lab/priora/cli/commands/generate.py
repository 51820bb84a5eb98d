"""`priora generate`: random task sets written as scenario files
(priora.generate: UUniFast-Discard, Dirichlet-Rescale, ...), deterministic
by seed.

    priora generate [SPEC] --out DIR [--count N] [--seed S] [--set KEY=VALUE ...]
"""

from __future__ import annotations

from priora import inputs
from priora.cli.options import Arg, UsageError, path

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    import argparse
    from pathlib import Path

    from priora.cli.options import Handler

MAX_GENERATED = 1_000_000  # priora generate --count: files in one directory


def arguments(command: str) -> tuple[list[Arg], Handler]:
    return [
        Arg(
            "spec",
            type=path,
            nargs="?",
            metavar="SPEC",
            help="a TOML file whose [generator] table gives the parameters (a campaign's works)",
        ),
        Arg("--out", type=path, required=True, metavar="DIR", help="directory for the files"),
        Arg(
            "--count",
            type=inputs.integer("--count"),
            default=1,
            metavar="N",
            help="how many sets (default: 1)",
        ),
        Arg(
            "--seed",
            type=inputs.integer("--seed"),
            default=1,
            metavar="S",
            help="the series' seed (default: 1)",
        ),
        Arg(
            "--set",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="a generator parameter, over the file's (a TOML value: tasks=6, periods=[10,20])",
        ),
    ], _generate


def _generate(args: argparse.Namespace) -> str:
    from priora import outputs
    from priora.errors import SpecError
    from priora.generate import derive_seed, generate, load_spec, parse_params, with_overrides

    table: dict[str, object] = {}
    source = "--set"
    if args.spec is not None:
        source = str(args.spec)
        doc = load_spec(args.spec)
        for key in doc:
            if key not in ("generator", "campaign"):
                raise SpecError(
                    source, key, "unknown table (expected [generator], and [campaign] in a campaign)"
                )
        found = doc.get("generator", {})
        if not isinstance(found, dict):
            raise SpecError(source, "[generator]", "must be a table")
        table = found
    count: int = args.count
    if count < 1:
        raise UsageError(f"--count: must be >= 1, got {count}")
    if count > MAX_GENERATED:
        raise UsageError(f"--count: at most {MAX_GENERATED} sets in one directory, got {count}")
    params = parse_params(source, with_overrides(source, table, args.set))
    out: Path = args.out
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out: cannot create {out}: {exc.strerror or exc}") from None
    width = max(4, len(str(count - 1)))
    paths = [out / f"set-{i:0{width}d}.toml" for i in range(count)]
    for file in paths:  # before any is written
        outputs.refuse_input("--out", file, (args.spec,))
    lines = []
    for i, file in enumerate(paths):
        seed = derive_seed(args.seed, i)
        ts = generate(params, seed)
        try:
            outputs.write_text(file, ts.toml())
        except OSError as exc:
            raise UsageError(f"--out: cannot write {file}: {exc.strerror or exc}") from None
        lines.append(f"{file}  seed {seed}  utilisation {float(ts.utilisation):.6f}")
    return "\n".join(lines)
