#!/usr/bin/env bash
# Installs what Priora needs on a Debian machine, only what is missing:
# a C compiler with the sanitizer runtimes, CMake and Ninja.
# Safe to run again; it changes nothing when everything is there.
set -euo pipefail

need=()
command -v cc >/dev/null 2>&1 || need+=(gcc)
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v ninja >/dev/null 2>&1 || need+=(ninja-build)
# The sanitizer runtimes ship with gcc on Debian (libasan8, libubsan1).
if command -v gcc >/dev/null 2>&1; then
  gcc_major=$(gcc -dumpversion | cut -d. -f1)
  dpkg -s "libgcc-${gcc_major}-dev" >/dev/null 2>&1 || need+=("libgcc-${gcc_major}-dev")
fi

if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    sudo=sudo
    command -v sudo >/dev/null 2>&1 || { echo "setup: need root (or sudo) to install ${need[*]}" >&2; exit 1; }
  else
    sudo=
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}"
fi
echo "setup: $(cc --version | head -n1); $(cmake --version | head -n1); ninja $(ninja --version)"
