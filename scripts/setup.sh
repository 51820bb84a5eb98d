#!/usr/bin/env bash
# Sets up everything Priora needs on a Debian machine, installing only what is
# missing, then builds the C code and the lab's virtual environment:
#   - Debian packages: a C compiler (with the sanitizer runtimes), CMake,
#     Ninja, Python 3.11+ with venv;
#   - build/: the kernel, its tests, the demo and the lab's native library;
#   - .venv/: the lab (lab/, package `priora`, command `priora`), editable, with
#     its Python dependencies, its test tools and Ray (priora campaign --ray)
#     from PyPI; the install also writes lab/priora/_native_ffi.py, the kernel's
#     declarations compiled for cffi (lab/setup.py), again when they change.
# Safe to run again: it changes nothing that is already in place.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v cc >/dev/null 2>&1 || need+=(gcc)
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v ninja >/dev/null 2>&1 || need+=(ninja-build)
command -v python3 >/dev/null 2>&1 || need+=(python3)
if command -v python3 >/dev/null 2>&1 && ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  need+=(python3-venv)
fi
if command -v gcc >/dev/null 2>&1; then
  # The sanitizer runtimes (libasan, libubsan) come with gcc's support package.
  gcc_major=$(gcc -dumpversion | cut -d. -f1)
  dpkg -s "libgcc-${gcc_major}-dev" >/dev/null 2>&1 || need+=("libgcc-${gcc_major}-dev")
fi

scripts/install-packages.sh setup ${need[@]+"${need[@]}"}

python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
  echo "setup: Python 3.11 or newer is needed (found $(python3 --version))" >&2; exit 1; }

echo "setup: building the C code (build/)"
scripts/build.sh build >/dev/null

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  python3 -m venv .venv
fi
if ! .venv/bin/python -c 'import priora, cffi, numpy, matplotlib, pytest, ray' >/dev/null 2>&1 \
   || [ lab/pyproject.toml -nt .venv/.priora-installed ] || [ lab/setup.py -nt .venv/.priora-installed ] \
   || [ lab/priora/run/native.py -nt lab/priora/_native_ffi.py ]; then
  echo "setup: installing the lab into .venv (pip)"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e "lab[dev,cluster]"
  touch .venv/.priora-installed
fi
echo "setup: ready: $(cc --version | head -n1); $(cmake --version | head -n1); $(.venv/bin/python --version)"
