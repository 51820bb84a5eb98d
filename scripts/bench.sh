#!/usr/bin/env bash
# The RISC-V microbenchmarks (benchmarks/riscv/, docs/performance.md): builds
# every bench_*.c for RV32 and RV64, with tracing compiled out and in, runs
# each on QEMU virt under -icount shift=0,sleep=off (minstret counts
# instructions) and prints the tables, FreeRTOS's figures beside. Installs
# the cross toolchain and QEMU with apt-get when missing. Arguments go to
# benchmarks/riscv/bench.py (standard library only):
#
#   scripts/bench.sh                          everything (about a minute)
#   scripts/bench.sh --arch rv32 --trace off  one build
#   scripts/bench.sh --json build/bench.json  also every figure as JSON
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-riscv-tools.sh bench python3

exec python3 benchmarks/riscv/bench.py "$@"
