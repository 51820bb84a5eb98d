#!/usr/bin/env bash
# Follows docs/debugging.md as written, without a terminal: QEMU under its gdb
# server (make -C ports/riscv debug), gdb-multiarch attached in batch mode,
# a breakpoint in pr_sem_down, a backtrace. Fails unless gdb stops in the
# kernel with the scenario interpreter's call below it.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v gdb-multiarch >/dev/null 2>&1 || scripts/install-packages.sh check_debug gdb-multiarch
port=${GDB_PORT:-1234}
log=$(mktemp)
trap 'kill %1 2>/dev/null || true; rm -f "$log"' EXIT
make -s -C ports/riscv ARCH=rv32 TEST=smoke_inversion GDB_PORT="$port" debug >"$log" 2>&1 &
for _ in $(seq 50); do grep -q "QEMU waits for gdb" "$log" && break; sleep 0.2; done
sleep 0.5
out=$(timeout 60 gdb-multiarch -q -batch build/riscv/rv32/smoke_inversion.elf \
  -ex "target remote :$port" -ex 'break pr_sem_down' -ex 'continue' -ex 'bt' -ex 'kill' 2>&1)
echo "$out" | grep -q "^Breakpoint 1, pr_sem_down (id=0, timeout=4294967295)" \
  || { echo "check_debug: gdb did not stop in pr_sem_down:"; echo "$out"; exit 1; }
echo "$out" | grep -q "^#1 .* in pr_script_body " \
  || { echo "check_debug: no backtrace through pr_script_body:"; echo "$out"; exit 1; }
echo "check_debug: gdb-multiarch stopped in pr_sem_down with a backtrace (docs/debugging.md)"
