#!/usr/bin/env bash
# Smoke test of the RISC-V port on QEMU virt, RV32 and RV64 (docs/riscv-port.md):
#  1. installs the cross toolchain and QEMU with apt-get when missing;
#  2. builds each ISA's images (ports/riscv/Makefile, under build/riscv/ARCH/);
#  3. runs tests/riscv/smoke_inversion.c (the classic inversion, protocol pip
#     then none) under QEMU, decodes its trace (tests/riscv/decode_trace.py),
#     checks it (both runs complete, every record received in sequence, 3 jobs
#     released and completed per run), and compares its event sequence with
#     the host port's for examples/inversion.toml, ignoring times. A
#     difference is printed as information, not as a failure;
#  4. runs tests/riscv/preempt_stress.c (round robin, inheritance and a
#     periodic high-priority task for 600 ticks, stopped and resumed at tick
#     300, a trace longer than the kernel's ring): it checks itself, and its
#     trace must be well formed;
#  5. runs tests/riscv/stack_overflow.c, which must be stopped with
#     "stack overflow in task 1" and QEMU exit status 2;
#  6. builds the kernel's test programs (tests/kernel/test_*.c) for QEMU and
#     checks that each gives the same events as on the host port, ignoring
#     times (tests/riscv/compare_kernel_tests.py; the host programs must be
#     built: scripts/test.sh builds them first, else they are built here).
# Exits 0 if all of that holds on both ISAs.
#
#   scripts/qemu-smoke.sh            both ISAs
#   scripts/qemu-smoke.sh rv32       one
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-riscv-tools.sh qemu-smoke

# The decoder reads the trace through the lab (priora.run.uart_trace), and the
# comparisons run the lab on the host port: set it up first.
[ -x .venv/bin/python ] || scripts/setup.sh
python=.venv/bin/python

QEMU_FLAGS=(-machine virt -bios none -nographic -icount shift=0,sleep=off)
archs=("$@")
[ ${#archs[@]} -eq 0 ] && archs=(rv32 rv64)
failed=0

for arch in "${archs[@]}"; do
  case "$arch" in
    rv32) qemu=qemu-system-riscv32 ;;
    rv64) qemu=qemu-system-riscv64 ;;
    *) echo "qemu-smoke: unknown ISA $arch (rv32 or rv64)" >&2; exit 2 ;;
  esac
  out=build/riscv/$arch
  echo "== $arch: build"
  make -s -C ports/riscv ARCH="$arch" all

  echo "== $arch: smoke_inversion"
  start=$(date +%s%N)
  status=0
  timeout 60 "$qemu" "${QEMU_FLAGS[@]}" -kernel "$out/smoke_inversion.elf" > "$out/smoke_inversion.log" 2>&1 || status=$?
  took_ms=$(( ($(date +%s%N) - start) / 1000000 ))
  echo "QEMU exit status $status after ${took_ms} ms (log: $out/smoke_inversion.log)"
  if [ "$status" -ne 0 ]; then
    echo "qemu-smoke: $arch: smoke_inversion failed (status $status; 124 = timeout)" >&2
    tail -n 5 "$out/smoke_inversion.log" >&2
    failed=1
  fi
  if ! "$python" tests/riscv/decode_trace.py "$out/smoke_inversion.log" --jobs 3 --runs pip,none \
      --compare examples/inversion.toml; then
    echo "qemu-smoke: $arch: the trace is not well formed" >&2
    failed=1
  fi

  echo "== $arch: preempt_stress"
  status=0
  timeout 60 "$qemu" "${QEMU_FLAGS[@]}" -kernel "$out/preempt_stress.elf" > "$out/preempt_stress.log" 2>&1 || status=$?
  grep '^stress: ' "$out/preempt_stress.log" || true
  if [ "$status" -ne 0 ] || ! "$python" tests/riscv/decode_trace.py "$out/preempt_stress.log" --runs stress --quiet; then
    echo "qemu-smoke: $arch: preempt_stress failed (status $status)" >&2
    failed=1
  fi

  echo "== $arch: stack_overflow (must be caught)"
  status=0
  timeout 60 "$qemu" "${QEMU_FLAGS[@]}" -kernel "$out/stack_overflow.elf" > "$out/stack_overflow.log" 2>&1 || status=$?
  if [ "$status" -eq 2 ] && grep -q "^stack overflow in task 1$" "$out/stack_overflow.log"; then
    echo "caught: \"stack overflow in task 1\", QEMU exit status 2"
  else
    echo "qemu-smoke: $arch: stack overflow not reported as expected (status $status)" >&2
    tail -n 5 "$out/stack_overflow.log" >&2
    failed=1
  fi

  echo "== $arch: kernel objects, riscv64-unknown-elf-size (text includes .rodata)"
  make -s -C ports/riscv ARCH="$arch" size | sed -n '1p;$p'

  echo "== $arch: build the kernel's test programs"
  make -s -C ports/riscv ARCH="$arch" ktests
done

echo "== the kernel's test programs: QEMU against the host port, ignoring times"
[ -x build/tests/kernel/test_inversion ] || scripts/build.sh build
if ! "$python" tests/riscv/compare_kernel_tests.py --arch "${archs[@]}"; then
  echo "qemu-smoke: the kernel's test programs give other events on QEMU than on the host" >&2
  failed=1
fi

if [ "$failed" -ne 0 ]; then
  echo "qemu-smoke: FAILED" >&2
  exit 1
fi
echo "qemu-smoke: ok (${archs[*]})"
