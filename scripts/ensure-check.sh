#!/usr/bin/env bash
# Make sure the Check unit-test library (pkg-config name `check`) and zlib's header (the
# screenshot test decodes a PNG) are there for `make check`: install them with apt-get when
# running as root on a Debian-like system, else say how.
set -euo pipefail

have_check() {
    command -v pkg-config >/dev/null 2>&1 && pkg-config --exists check &&
        echo '#include <zlib.h>' | ${CC:-cc} -E -x c - >/dev/null 2>&1
}

if have_check; then
    exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "ensure-check: installing Check and zlib (apt-get install -y check pkg-config zlib1g-dev)" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq check pkg-config zlib1g-dev
    have_check && exit 0
fi
cat >&2 <<'MSG'
ensure-check: the Check unit-test library (pkg-config name `check`) or zlib's header is missing;
`make check` needs both. Install them with:
    sudo apt-get install check pkg-config zlib1g-dev
On a GPU machine without a package registry, stage the packages first (../shared/device/README.md)
and start the command with `. .deps/use.sh &&`.
MSG
exit 1
