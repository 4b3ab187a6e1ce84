#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# mkdtb.sh KERNEL OUT.dtb: dump the device tree QEMU generates for our
# machine, add cmabuf-regions.dtsi to it, and for a kernel whose pages are
# not 4 KiB cmabuf-regions-<size>.dtsi (CMA regions sized and aligned for
# its pageblocks), and compile the result.

set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../kernel/common.sh"
. "$here/qemu.sh"

kernel=${1:?usage: mkdtb.sh KERNEL OUT.dtb}
out=${2:?usage: mkdtb.sh KERNEL OUT.dtb}
pages=$(kernel_page_size "$kernel")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$QEMU" "${QEMU_MACHINE[@]}" -machine dumpdtb="$tmp/virt.dtb" -nographic 2>&1 |
	grep -v "dtb dumped" >&2 || true
dtc -q -I dtb -O dts -o "$tmp/virt.dts" "$tmp/virt.dtb"
{
	echo '/include/ "virt.dts"'
	echo '/include/ "cmabuf-regions.dtsi"'
	[ "$pages" = 4k ] || echo "/include/ \"cmabuf-regions-$pages.dtsi\""
} >"$tmp/cmabuf.dts"
cp "$here"/cmabuf-regions*.dtsi "$tmp/"
mkdir -p "$(dirname "$out")"
dtc -q -I dts -O dtb -o "$out" "$tmp/cmabuf.dts"
