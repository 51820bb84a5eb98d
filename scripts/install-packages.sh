#!/usr/bin/env bash
# Installs Debian packages with apt-get, as root or through sudo:
#   scripts/install-packages.sh WHO PACKAGE...
# WHO names the caller in messages. Does nothing without packages.
set -euo pipefail
who=$1
shift
[ $# -gt 0 ] || exit 0
echo "$who: installing $*"
sudo=
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "$who: need root (or sudo) to install $*" >&2; exit 1; }
  sudo=sudo
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@"
