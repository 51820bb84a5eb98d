#!/usr/bin/env bash
# Sets everything up and runs the demo: the classic priority inversion
# (examples/inversion.toml) on the kernel's host port without and with
# priority inheritance, side by side, with the two Gantt charts written to
# build/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec .venv/bin/priora demo --out build/demo
