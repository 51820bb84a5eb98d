"""`priora experiments` and `priora bench`: the papers' experiments run on
Priora beside the papers' figures (priora.experiments), and the kernel's
microbenchmarks on QEMU (scripts/bench.sh).

    priora experiments [--out DIR] [--bench FILE] [--quick]
    priora bench [--arch rv32,rv64] [--trace off,on] [--json OUT] [--no-build]
"""

from __future__ import annotations

import argparse
import os
import sys

from priora.cli.options import Arg, UsageError, path

TYPE_CHECKING = False  # typing's import costs start-up; type checkers see True
if TYPE_CHECKING:
    from priora.cli.options import Handler


def arguments(command: str) -> tuple[list[Arg], Handler]:
    return [
        Arg(
            "--out", type=path, metavar="DIR", help="also write experiments.md and experiments.json into DIR"
        ),
        Arg(
            "--bench",
            type=path,
            metavar="FILE",
            help="QEMU figures from scripts/bench.sh --json FILE (default: the ones shipped with the lab)",
        ),
        Arg(
            "--quick",
            action="store_true",
            help="the zero and rtmach93 cost models and the paper's protocols only",
        ),
    ], _experiments


def _experiments(args: argparse.Namespace) -> str:
    from priora import outputs
    from priora.experiments import run_all, with_provenance, write

    if args.out is not None:
        for name in ("experiments.md", "experiments.json"):
            outputs.refuse_input("--out", args.out / name, (args.bench,))
    text, doc = run_all(quick=args.quick, bench=args.bench)
    if args.out is not None:
        write(args.out, text, with_provenance(doc, args.command_line, args.bench))
    return text


def bench(args: argparse.Namespace) -> str:
    """`priora bench`, whose every option (--help too) is bench.py's (main()
    passes them on unparsed, as args.options): scripts/bench.sh of the
    source tree the lab is installed from. It installs the cross compiler
    and QEMU if missing, builds and runs; its
    progress goes to stderr as it runs, its tables are the output. It runs
    from the tree's root: --json OUT is made absolute here, from the
    caller's directory. On failure, bench.py's own reason is the one line."""
    import subprocess
    import tempfile
    from pathlib import Path

    script = Path(__file__).resolve().parents[4] / "scripts" / "bench.sh"
    if not script.is_file():
        raise UsageError(f"bench: {script} not found: the benchmarks need Priora's source tree")
    options: list[str] = [_absolute_json(o) for o in args.options]
    for i, option in enumerate(options[:-1]):
        if option == "--json":
            options[i + 1] = os.path.abspath(options[i + 1])
    reason = ""
    with tempfile.TemporaryFile("w+") as out:
        child = subprocess.Popen([str(script), *options], stdout=out, stderr=subprocess.PIPE, text=True)
        assert child.stderr is not None
        for line in child.stderr:  # progress, passed on as it comes; bench.py's failure kept
            if line.startswith("bench.py: "):
                reason = line.removeprefix("bench.py: ").removeprefix("error: ").strip()
            else:
                sys.stderr.write(line)
        status = child.wait()
        out.seek(0)
        text = out.read()
    if status != 0:
        why = f": {reason}" if reason else ""
        raise UsageError(f"bench: {script.name} {' '.join(args.options)} failed with status {status}{why}")
    return text


def _absolute_json(option: str) -> str:
    return (
        "--json=" + os.path.abspath(option.removeprefix("--json="))
        if option.startswith("--json=")
        else option
    )
