#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-busybox.sh OUT: put a static arm64 busybox at OUT, unpacked from
# Debian's busybox-static:arm64 package without installing it.

set -euo pipefail
. "$(dirname "$0")/../../kernel/common.sh"

out=${1:?usage: fetch-busybox.sh OUT}
[ -x "$out" ] && exit 0

debs=$CMABUF_CACHE/debs
mkdir -p "$debs"
deb=$(ls -1 "$debs"/busybox-static_*_arm64.deb 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$deb" ]; then
	(cd "$debs" && apt-get -q -o APT::Sandbox::User=root download busybox-static:arm64 >&2)
	deb=$(ls -1 "$debs"/busybox-static_*_arm64.deb | sort -V | tail -n 1)
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$deb" "$tmp"
mkdir -p "$(dirname "$out")"
install -m 0755 "$tmp/bin/busybox" "$out"
