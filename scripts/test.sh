#!/usr/bin/env bash
# Sets everything up and runs every test:
#  1. the kernel's tests on the host build (-Wall -Wextra -Werror), under ctest,
#     and the check that kernel/core's files call each other without a cycle;
#  2. the same tests built with AddressSanitizer and UndefinedBehaviorSanitizer,
#     the kernel's invariants asserted (PR_ASSERT), and the standing fuzzer's
#     fixed-seed run (tests/fuzz, docs/fuzzing.md);
#  3. the kernel built with its fast paths compiled out (PR_CONFIG_FAST_PATHS=0,
#     invariants asserted): every kernel test, then the lab's tests against it;
#     and the kernel built with tracing compiled out (it must build warning-free);
#  4. the C demo twice: byte-identical output (determinism);
#  5. the RISC-V port on QEMU (RV32 and RV64): boot, the inversion under pip
#     and none, a preemption stress run, stack-overflow detection
#     (scripts/qemu-smoke.sh installs the cross compiler and QEMU if missing);
#  6. the lab: type check (mypy --strict), lint (ruff), and its tests (pytest),
#     among them the wheel built from ./lab run in a fresh virtual environment
#     and the CTF traces read by babeltrace2, and the HTML report opened in
#     headless Chromium (both installed if missing);
#     then a campaign on a Ray cluster of this machine (tests/cluster), in a
#     network namespace whose only interface is loopback.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

echo "== host build: kernel tests"
scripts/build.sh build
ctest --test-dir build --output-on-failure
python3 tests/kernel/check_layering.py build

echo "== host build with ASan + UBSan: kernel tests"
scripts/build.sh build-san -DPRIORA_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-san --output-on-failure

echo "== kernel with the fast paths compiled out: kernel tests"
scripts/build.sh build-nofast -DPRIORA_FAST_PATHS=OFF -DPRIORA_ASSERT=ON
ctest --test-dir build-nofast --output-on-failure

echo "== kernel with tracing compiled out"
scripts/build.sh build-notrace -DPRIORA_TRACE=OFF

echo "== C demo, twice: identical output"
build/examples/inversion_demo > build/demo-1.txt
build/examples/inversion_demo > build/demo-2.txt
cmp build/demo-1.txt build/demo-2.txt
echo "demo output identical across runs ($(wc -l < build/demo-1.txt) lines)"

echo "== RISC-V port on QEMU"
scripts/qemu-smoke.sh
tests/riscv/check_debug.sh

echo "== lab: mypy --strict, ruff"
(cd lab && ../.venv/bin/mypy priora)
.venv/bin/ruff check lab tests/lab tests/cluster tests/riscv benchmarks
.venv/bin/ruff format --check lab tests/lab tests/cluster tests/riscv benchmarks

echo "== lab: pytest"
# babeltrace2 reads the CTF traces the lab writes (tests/lab/test_ctf.py).
command -v babeltrace2 >/dev/null 2>&1 || scripts/install-packages.sh test babeltrace2
# tests/lab/test_html_report.py renders its pages in Debian's headless Chromium.
command -v chromium >/dev/null 2>&1 || scripts/install-packages.sh test chromium
.venv/bin/pytest -q tests/lab

echo "== lab: pytest against the kernel with its fast paths compiled out"
# The wheel's test compiles a kernel of its own: once is enough.
PRIORA_NATIVE_LIB="$PWD/build-nofast/lab/libpriora_lab.so" .venv/bin/pytest -q tests/lab \
  --deselect tests/lab/test_packaging.py::test_the_wheel_carries_the_kernel_and_runs_in_a_fresh_venv

echo "== lab: a campaign on a Ray cluster, in a network namespace with loopback only"
# Ray binds to the machine's own address, not to loopback: in a namespace of
# its own, that address is loopback and no traffic leaves the machine.
command -v ip >/dev/null 2>&1 || scripts/install-packages.sh test iproute2
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(--map-root-user)
unshare "${as_root[@]}" --net sh -c 'ip link set lo up && exec .venv/bin/pytest -q -p no:cacheprovider tests/cluster'
