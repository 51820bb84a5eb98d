"""The lab as a package: the wheel built from ./lab carries the kernel and
runs in a fresh virtual environment; its build compiles what CMake's
priora_lab compiles; the library is found in the package, the checkout or
$PRIORA_NATIVE_LIB, and a missing or wrong one is one line; --version; and
what the command imports before it runs (docs/packaging.md)."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

import priora
from priora.cli.main import main
from priora.run import native

ROOT = Path(__file__).resolve().parents[2]
INVERSION = ROOT / "examples" / "inversion.toml"
PIP_TIMEOUT = 600  # s: a build, or an install with the dependencies from PyPI


def load_setup() -> ModuleType:
    """lab/setup.py as a module, without running setup()."""
    spec = importlib.util.spec_from_file_location("priora_setup", ROOT / "lab" / "setup.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def child_env(**extra: str) -> dict[str, str]:
    """This environment without PRIORA_NATIVE_LIB (the test command sets it
    for its second run), plus `extra`."""
    env = {k: v for k, v in os.environ.items() if k != "PRIORA_NATIVE_LIB"}
    return {**env, **extra}


def fresh_venv_env() -> dict[str, str]:
    """For the wheel's own virtual environment: child_env without PYTHONPATH,
    which would put a checkout's lab before the installed package."""
    return {k: v for k, v in child_env().items() if k != "PYTHONPATH"}


def priora_child(*argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "priora", *argv]
    return subprocess.run(command, capture_output=True, text=True, env=child_env(**env), timeout=120)


# ---------------------------------------------------------------- the build mirrors CMake


def cmake_target_sources(text: str, target: str) -> list[str]:
    """The source files listed in add_library(target ...) of CMakeLists.txt,
    with the lists it names (${NAME}, from set(NAME ...)) spelled out."""
    found = re.search(rf"add_library\({target}\b(.*?)\)\n", text, re.S)
    assert found, target
    words = []
    for word in found.group(1).split():
        named = re.fullmatch(r"\$\{(\w+)\}", word)
        if named:
            listed = re.search(rf"set\({named[1]}\b(.*?)\)\n", text, re.S)
            assert listed, named[1]
            words += listed.group(1).split()
        else:
            words.append(word)
    return [w for w in words if re.fullmatch(r"[\w/]+\.(c|S)", w)]


def test_the_wheel_compiles_what_cmake_compiles_into_priora_lab() -> None:
    setup = load_setup()
    cmake = (ROOT / "CMakeLists.txt").read_text()
    expected = cmake_target_sources(cmake, "priora_kernel") + cmake_target_sources(cmake, "priora_lab")
    assert sorted(setup.native_sources(ROOT)) == sorted(expected)
    lab = re.search(r"target_include_directories\(priora_lab PRIVATE ([^)]*)\)", cmake)
    assert lab and tuple(lab.group(1).split()) == setup.INCLUDE_DIRS
    # The definitions CMake adds to every build, outside its options' if() blocks.
    depth, always = 0, []
    for line in cmake.splitlines():
        line = line.strip()
        depth += line.startswith("if(") - line.startswith("endif(")
        if depth == 0 and line.startswith("add_compile_definitions("):
            always += line.removeprefix("add_compile_definitions(").removesuffix(")").split()
    assert always and set(always) <= set(setup.DEFINES)
    limits = re.search(r"set\(PRIORA_LAB_LIMITS ([^)]*)\)", cmake)
    assert limits and tuple(limits.group(1).split()) == setup.LAB_LIMITS
    assert re.search(r"target_compile_definitions\(priora_lab PRIVATE \$\{PRIORA_LAB_LIMITS\}\)", cmake)
    assert re.search(r"add_library\(priora_lab SHARED\s+\$<TARGET_OBJECTS:priora_kernel_lab_fast>", cmake)
    assert re.search(
        r"target_compile_definitions\(priora_kernel_lab_fast PRIVATE \$\{PRIORA_LAB_LIMITS\}\)", cmake
    )
    assert re.search(r"target_compile_definitions\(priora_kernel_lab PUBLIC \$\{PRIORA_LAB_LIMITS\}\)", cmake)


def test_the_declarations_module_is_the_declarations(tmp_path: Path) -> None:
    """priora/_native_ffi.py as the build writes it: the same types, of the
    same sizes, as CDEF parsed by cffi, and CDEF with them."""
    setup = load_setup()
    target = tmp_path / "generated_ffi.py"
    setup.write_ffi_module(setup.read_cdef(ROOT / "lab" / "priora" / "run" / "native.py"), target)
    spec = importlib.util.spec_from_file_location("generated_ffi", target)
    assert spec is not None and spec.loader is not None
    generated = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generated)
    assert generated.CDEF == native.CDEF
    import cffi

    parsed = cffi.FFI()
    parsed.cdef(native.CDEF)
    for name in native.MIRRORED:
        assert generated.ffi.sizeof(name) == parsed.sizeof(name), name


# ---------------------------------------------------------------- the wheel


def test_the_wheel_carries_the_kernel_and_runs_in_a_fresh_venv(tmp_path: Path) -> None:
    """pip wheel ./lab, then the wheel alone in a new virtual environment,
    its dependencies from PyPI: `priora simulate` runs on the packaged
    library, without cffi's C parser. The build reads a copy of the
    repository's files an sdist carries, so that it can reach nothing else."""
    setup = load_setup()
    source = tmp_path / "src"
    ignore = shutil.ignore_patterns("build", "*.egg-info", "__pycache__", "_native_ffi.py")
    shutil.copytree(ROOT / "lab", source / "lab", ignore=ignore)
    for tree in setup.SDIST_TREES:
        if tree != "lab/native":
            shutil.copytree(ROOT / tree, source / tree)
    for pattern in setup.EXAMPLES:
        for path in ROOT.glob(pattern):
            (source / path.relative_to(ROOT)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, source / path.relative_to(ROOT))

    wheels = tmp_path / "wheels"
    pip = [sys.executable, "-m", "pip"]
    built = subprocess.run(
        [*pip, "wheel", str(source / "lab"), "-w", str(wheels), "--no-deps", "-q"],
        capture_output=True,
        text=True,
        timeout=PIP_TIMEOUT,
        check=False,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = wheels.glob("priora-*.whl")
    assert wheel.name == f"priora-{priora.__version__}-py3-none-linux_x86_64.whl"
    names = zipfile.ZipFile(wheel).namelist()
    for name in (
        "libpriora_lab.so",
        "_native_ffi.py",
        "report.schema.json",
        "html_report.js",
        "html_report.css",
        "examples/inversion.toml",
    ):
        assert f"priora/{name}" in names
    for name in ("provenance", "analysis", "breakdown", "experiments", "bench"):  # priora.provenance.schema
        assert f"priora/{name}.schema.json" in names

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=PIP_TIMEOUT)
    installed = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "-q", str(wheel)],
        capture_output=True,
        text=True,
        env=fresh_venv_env(),  # else pip finds the checkout's lab on PYTHONPATH "already installed"
        timeout=PIP_TIMEOUT,
        check=False,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr

    # Run outside the checkout, so that nothing in it can be found.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ran = subprocess.run(
        [str(venv / "bin" / "priora"), "simulate", str(INVERSION), "--json", "--html", "report.html"],
        capture_output=True,
        text=True,
        cwd=elsewhere,
        env=fresh_venv_env(),
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["tasks"]["H"]["max_response"] == 6  # inheritance: 11 without
    page = (elsewhere / "report.html").read_text()  # its style and script, from the installed package
    assert "<style>\n/* Priora's HTML report" in page and "<script>\n// Priora's HTML report" in page
    # The library is the package's, and simulate's start-up is its own: none
    # of `heavy` (installed without the editable finder, which imports
    # pathlib at the interpreter's start; cffi's C parser never runs).
    probe = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import contextlib, io, sys\nfrom priora.cli.main import main\nfrom priora.run import native\n"
            f"with contextlib.redirect_stdout(io.StringIO()): main(['simulate', {str(INVERSION)!r}])\n"
            "print(native.library_path()); print(' '.join(sorted(sys.modules)))",
        ],
        capture_output=True,
        text=True,
        cwd=elsewhere,
        env=fresh_venv_env(),
        timeout=120,
    )
    assert probe.returncode == 0, probe.stderr
    library, modules = probe.stdout.splitlines()
    assert Path(library).is_relative_to(venv) and Path(library).name == "libpriora_lab.so"
    heavy = {"numpy", "pycparser", "tomllib", "typing", "pathlib", "argparse", "dataclasses", "inspect"}
    assert heavy & set(modules.split()) == set()
    version = subprocess.run(
        [str(venv / "bin" / "priora"), "--version"], capture_output=True, text=True, env=fresh_venv_env()
    )
    assert version.stdout == f"priora {priora.__version__}\n"


# ---------------------------------------------------------------- finding the library


def test_the_library_is_the_override_then_the_packaged_then_the_checkouts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    packaged = tmp_path / "priora" / "libpriora_lab.so"
    monkeypatch.setattr(native, "PACKAGED", str(packaged))
    monkeypatch.delenv("PRIORA_NATIVE_LIB", raising=False)
    assert native.library_path() == native.CHECKOUT == str(ROOT / "build" / "lab" / "libpriora_lab.so")
    packaged.parent.mkdir()
    packaged.touch()
    assert native.library_path() == str(packaged)
    monkeypatch.setenv("PRIORA_NATIVE_LIB", "/elsewhere/libpriora_lab.so")
    assert native.library_path() == "/elsewhere/libpriora_lab.so"


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_a_missing_library_is_one_line_naming_what_to_do() -> None:
    done = priora_child("simulate", str(INVERSION), PRIORA_NATIVE_LIB="/nonexistent/libpriora_lab.so")
    assert one_line(done) == (
        "priora: native kernel library not found at /nonexistent/libpriora_lab.so (PRIORA_NATIVE_LIB): "
        "fix or unset it"
    )


def test_a_library_that_is_not_the_kernels_is_one_line(tmp_path: Path) -> None:
    rebuild = "rebuild it: scripts/setup.sh in a checkout, else pip install ./lab again"
    not_elf = tmp_path / "libpriora_lab.so"
    not_elf.write_text("not a library\n")
    line = one_line(priora_child("simulate", str(INVERSION), PRIORA_NATIVE_LIB=str(not_elf)))
    assert line.startswith(f"priora: cannot load {not_elf}: ") and line.endswith(rebuild)
    # A real library without the kernel's functions: an old or foreign build.
    libm = next(Path(d) / "libm.so.6" for d in ("/lib/x86_64-linux-gnu", "/usr/lib64", "/lib64"))
    line = one_line(priora_child("simulate", str(INVERSION), PRIORA_NATIVE_LIB=str(libm)))
    assert line == f"priora: {libm}: has no pr_errname (older than this lab): {rebuild}"


# ---------------------------------------------------------------- version and start-up


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"priora {priora.__version__}\n"
    assert priora.__version__ == importlib.metadata.version("priora")


def imported_by(code: str) -> set[str]:
    probe = f"import sys\n{code}\nprint(' '.join(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=child_env(), timeout=120
    )
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split())


def test_the_command_imports_what_it_runs_only() -> None:
    """--version imports no dependency; simulate no chart, analysis or campaign."""
    version = imported_by("from priora.cli.main import main\nmain(['--version'])")
    assert not {"numpy", "cffi", "_cffi_backend", "priora.scenario.model", "priora.run.native"} & version
    simulate = imported_by(f"from priora.cli.main import main\nmain(['simulate', {str(INVERSION)!r}])")
    assert "priora.run.native" in simulate
    assert not {"matplotlib", "priora.analysis", "priora.campaign", "priora.generate"} & simulate
