#!/usr/bin/env bash
# Sets everything up, builds, and runs the demo: the classic priority
# inversion on the host port, without and with priority inheritance.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build >/dev/null
exec build/examples/inversion_demo
