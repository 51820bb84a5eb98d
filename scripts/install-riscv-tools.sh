#!/usr/bin/env bash
# Installs what building and running the RISC-V images needs, when missing:
# the cross compiler, QEMU (RV32 and RV64) and make, plus any further
# commands named after WHO (each from the Debian package of the same name).
#   scripts/install-riscv-tools.sh WHO [COMMAND...]
set -euo pipefail
cd "$(dirname "$0")/.."
who=$1
shift
need=()
command -v riscv64-unknown-elf-gcc >/dev/null 2>&1 || need+=(gcc-riscv64-unknown-elf)
for q in qemu-system-riscv32 qemu-system-riscv64; do
  command -v "$q" >/dev/null 2>&1 || { need+=(qemu-system-misc); break; }
done
for c in make "$@"; do
  command -v "$c" >/dev/null 2>&1 || need+=("$c")
done
scripts/install-packages.sh "$who" ${need[@]+"${need[@]}"}
