#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# mkdtb.sh OUT.dtb: dump the device tree QEMU generates for our machine, add
# cmabuf-regions.dtsi to it and compile the result.

set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/qemu.sh"

out=${1:?usage: mkdtb.sh OUT.dtb}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$QEMU" "${QEMU_MACHINE[@]}" -machine dumpdtb="$tmp/virt.dtb" -nographic 2>&1 |
	grep -v "dtb dumped" >&2 || true
dtc -q -I dtb -O dts -o "$tmp/virt.dts" "$tmp/virt.dtb"
{
	echo '/include/ "virt.dts"'
	echo '/include/ "cmabuf-regions.dtsi"'
} >"$tmp/cmabuf.dts"
cp "$here/cmabuf-regions.dtsi" "$tmp/"
mkdir -p "$(dirname "$out")"
dtc -q -I dts -O dtb -o "$out" "$tmp/cmabuf.dts"
