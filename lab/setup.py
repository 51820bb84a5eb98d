"""The lab's build: the wheel carries the kernel (docs/packaging.md).

pyproject.toml declares the package; this file adds one build step,
`build_native`, which compiles the kernel, the host port and the lab's job
accounting into priora/libpriora_lab.so as CMake's target priora_lab does
(tests/lab/test_packaging.py checks that the two agree), and writes
priora/_native_ffi.py, the declarations of priora/run/native.py in cffi's
out-of-line ABI mode, so that no C parser runs when the lab starts.

The C sources live beside lab/, in the repository: pip builds ./lab in place,
so they are at ../; an sdist carries a copy of them in native-src/.

setuptools runs this file with __name__ == "__main__"; the tests import it
under another name to read the source list without building.
"""

from __future__ import annotations

import ast
import os
import platform
import shlex
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
SDIST_SOURCES = "native-src"
LIBRARY = "libpriora_lab.so"

# CMakeLists.txt's target priora_lab: its sources, include directories and
# definitions (NDEBUG: CMake's default build type, RelWithDebInfo).
KERNEL_GLOBS = ("kernel/core/*.c", "kernel/policy/*.c", "kernel/scenario/*.c")
HOST_PORT = (
    "ports/host/clock.c",
    "ports/host/context.c",
    "ports/host/switch_x86_64.S",
    "ports/host/trace_sink.c",
    "ports/host/trace_format.c",
    "ports/host/trace_dump.c",
)
LAB_NATIVE = (
    "lab/native/metrics.c",
    "lab/native/verdict.c",
    "lab/native/jobs_json.c",
    "lab/native/task_totals.c",
    "lab/native/constants.c",
    "lab/native/intervals.c",
    "lab/native/job_fields.c",
    "lab/native/trace_scan.c",
)
INCLUDE_DIRS = ("kernel/include", "ports/host/include", "lab/native")
DEFINES = ("PR_PORT_TRACE_HOOK", "NDEBUG")
# CMake's flags for priora_lab (its priora_lab_flags): -O3, link-time
# optimisation and calls inside the library bound at link time, at compile
# and link time alike.
LTO_FLAGS = ("-O3", "-flto=auto", "-fno-semantic-interposition")
CFLAGS = ("-std=c11", "-fPIC", "-Wall", "-Wextra", *LTO_FLAGS)
LDFLAGS = (*LTO_FLAGS, "-Wl,-Bsymbolic")
# The lab's kernel limits: CMakeLists.txt's PRIORA_LAB_LIMITS (256 priority
# levels, 1,024 tasks), which priora.run.native checks the library against.
LAB_LIMITS = ("PR_CONFIG_MAX_TASKS=1024", "PR_CONFIG_PRIORITIES=256")

# What an sdist copies into native-src/: every file the build reads.
SDIST_TREES = ("kernel", "ports/host", "lab/native")

# Scenario files the package ships for `priora demo` and `priora experiments`,
# which find them in the checkout otherwise.
EXAMPLES = ("examples/inversion.toml", "examples/rtmach/*.toml")


def source_root() -> Path:
    """The repository's root as the build sees it: native-src/ in an sdist, else ../."""
    unpacked = HERE / SDIST_SOURCES
    return unpacked if unpacked.is_dir() else HERE.parent


def native_sources(root: Path) -> list[str]:
    """Every C and assembly file of the library, relative to `root`."""
    kernel = sorted(str(p.relative_to(root)) for pattern in KERNEL_GLOBS for p in root.glob(pattern))
    if not kernel:
        raise SystemExit(
            f"priora: the kernel's C sources are not under {root}: build the lab from Priora's "
            "repository (pip install ./lab) or from its sdist"
        )
    return [*kernel, *HOST_PORT, *LAB_NATIVE]


def compile_library(root: Path, temp: Path, target: Path) -> None:
    """Compiles every source into an object in `temp` (in parallel), then
    links them into the shared library `target`. $CC, $CFLAGS and $LDFLAGS
    are honoured."""
    if platform.machine() not in ("x86_64", "AMD64"):
        raise SystemExit(
            f"priora: the host port switches contexts in x86-64 assembly only "
            f"(ports/host/switch_x86_64.S); this machine is {platform.machine()}"
        )
    cc = shlex.split(os.environ.get("CC", "cc"))
    flags = [
        *CFLAGS,
        *(f"-D{d}" for d in (*DEFINES, *LAB_LIMITS)),
        *(f"-I{root / d}" for d in INCLUDE_DIRS),
        *shlex.split(os.environ.get("CFLAGS", "")),
    ]
    temp.mkdir(parents=True, exist_ok=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    sources = native_sources(root)
    objects = [temp / (source.replace("/", "_") + ".o") for source in sources]

    def compile_one(source: str, obj: Path) -> None:
        _run([*cc, *flags, "-c", str(root / source), "-o", str(obj)])

    print(f"priora: compiling {len(sources)} files of {root} into {target.name}")
    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        for done in [pool.submit(compile_one, s, o) for s, o in zip(sources, objects, strict=True)]:
            done.result()
    _run([
        *cc, "-shared", *LDFLAGS, "-o", str(target), *map(str, objects),
        *shlex.split(os.environ.get("LDFLAGS", "")),
    ])  # fmt: skip


def _run(command: list[str]) -> None:
    try:
        subprocess.run(command, check=True)
    except FileNotFoundError:
        raise SystemExit(f"priora: no C compiler ({command[0]}): install gcc, or set CC") from None
    except subprocess.CalledProcessError as exc:
        raise SystemExit(f"priora: failed with status {exc.returncode}: {shlex.join(command)}") from None


def read_cdef(native_py: Path) -> str:
    """The CDEF string of priora/run/native.py, read without importing it (the
    build environment has cffi, not numpy)."""
    for node in ast.parse(native_py.read_text()).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "CDEF" for t in node.targets
        ):
            value = ast.literal_eval(node.value)
            if isinstance(value, str):
                return value
    raise SystemExit(f"priora: no CDEF string in {native_py}")


def write_ffi_module(cdef: str, target: Path) -> None:
    """priora/_native_ffi.py: `cdef` in cffi's out-of-line ABI mode, followed
    by `cdef` itself, which priora/run/native.py compares with its CDEF before
    using the module."""
    import cffi

    ffi = cffi.FFI()
    ffi.set_source("priora._native_ffi", None)
    ffi.cdef(cdef)
    partial = target.with_name(target.name + ".partial")
    ffi.emit_python_code(str(partial))
    with partial.open("a") as f:
        f.write("\n# The declarations this module was generated from (priora.run.native.CDEF).\n")
        f.write(f"CDEF = {cdef!r}\n")
    os.replace(partial, target)


def copy_examples(root: Path, target: Path) -> None:
    for pattern in EXAMPLES:
        for path in sorted(root.glob(pattern)):
            relative = path.relative_to(root / "examples")
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target / relative)


def _commands() -> dict[str, type]:
    """The setuptools commands: imported here so that the tests can import
    this file without setuptools' build machinery."""
    from setuptools import Command
    from setuptools.command.bdist_wheel import bdist_wheel
    from setuptools.command.build import build
    from setuptools.command.sdist import sdist

    class build_native(Command):
        description = "compile the kernel into priora/libpriora_lab.so and write priora/_native_ffi.py"
        user_options: list[tuple[str, str | None, str]] = []
        # Set by setuptools for pip install -e: the checkout's library is then
        # CMake's build/lab (scripts/setup.sh), rebuilt with the kernel; a copy
        # in the package would hide every rebuild. Only the declarations are
        # written, in place.
        editable_mode = False

        def initialize_options(self) -> None:
            self.build_lib: str | None = None
            self.build_temp: str | None = None

        def finalize_options(self) -> None:
            self.set_undefined_options("build", ("build_lib", "build_lib"), ("build_temp", "build_temp"))

        def run(self) -> None:
            cdef = read_cdef(HERE / "priora" / "run" / "native.py")
            if self.editable_mode:
                write_ffi_module(cdef, HERE / "priora" / "_native_ffi.py")
                return
            assert self.build_lib is not None and self.build_temp is not None
            package = Path(self.build_lib) / "priora"
            root = source_root()
            compile_library(root, Path(self.build_temp) / "priora-native", package / LIBRARY)
            write_ffi_module(cdef, package / "_native_ffi.py")
            copy_examples(root, package / "examples")

        # The files go into build_lib, which the wheel takes whole; pip install -e
        # needs no mapping for a file written in place.
        def get_outputs(self) -> list[str]:
            return []

        def get_output_mapping(self) -> dict[str, str]:
            return {}

    class build_with_native(build):
        sub_commands = [*build.sub_commands, ("build_native", None)]

    class bdist_wheel_native(bdist_wheel):
        """A platform wheel (it holds a shared library) for any Python 3:
        the library does not link Python, cffi's ABI mode loads it."""

        def get_tag(self) -> tuple[str, str, str]:
            _, _, plat = super().get_tag()
            return "py3", "none", plat

    class sdist_native(sdist):
        def make_release_tree(self, base_dir: str, files: list[str]) -> None:
            super().make_release_tree(base_dir, files)
            root = source_root()
            for tree in SDIST_TREES:
                shutil.copytree(root / tree, Path(base_dir) / SDIST_SOURCES / tree, dirs_exist_ok=True)
            for pattern in EXAMPLES:
                for path in root.glob(pattern):
                    copy = Path(base_dir) / SDIST_SOURCES / path.relative_to(root)
                    copy.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(path, copy)

    return {
        "build": build_with_native,
        "build_native": build_native,
        "bdist_wheel": bdist_wheel_native,
        "sdist": sdist_native,
    }


if __name__ == "__main__":
    from setuptools import setup
    from setuptools.dist import Distribution

    class PlatformDistribution(Distribution):
        """Installed as platform code (platlib), as a package with extension modules."""

        def has_ext_modules(self) -> bool:
            return True

    setup(cmdclass=_commands(), distclass=PlatformDistribution)
