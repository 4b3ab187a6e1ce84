#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest the other suites run in: the right kernel, the reserved CMA
# regions from the generated device tree and, on the debug kernel, the
# checkers that have to watch everything else.

. /suites/tap-lib.sh

check() {
	name=$1
	shift
	"$@" >/dev/null 2>&1
	ok $? "$name"
}

cma_debugfs=/sys/kernel/debug/cma

# count and base_pfn of a CMA area, from debugfs (present on every kernel).
area_count() {
	cat "$cma_debugfs/$1/count" 2>/dev/null
}

area_base_pfn() {
	cat "$cma_debugfs/$1/base_pfn" 2>/dev/null
}

# is_aligned AREA BYTES: the area's base is a multiple of BYTES.
is_aligned() {
	base=$(area_base_pfn "$1")
	[ -n "$base" ] && [ $(((base * 4096) % $2)) -eq 0 ]
}

# has_pages AREA PAGES
has_pages() {
	[ "$(area_count "$1")" = "$2" ]
}

echo "TAP version 13"
case $CMABUF_KERNEL in
*-debug) echo "1..9" ;;
*) echo "1..7" ;;
esac

series=${CMABUF_KERNEL%%-*}
check "kernel release is $series" sh -c "uname -r | grep -q '^$series\\.'"
check "default area reserved by cma= is in sysfs" test -d /sys/kernel/mm/cma/reserved
check "general region is in sysfs" test -d /sys/kernel/mm/cma/general-pool
check "large region is in sysfs" test -d /sys/kernel/mm/cma/large-pool@100000000
check "general region is 256 MiB on a 256 MiB boundary" \
	sh -c "[ \"\$(cat $cma_debugfs/general-pool/count)\" = 65536 ] &&
	       [ \$(( \$(cat $cma_debugfs/general-pool/base_pfn) % 65536 )) -eq 0 ]"
check "large region is 1 GiB at 4 GiB" \
	sh -c "[ \"\$(cat $cma_debugfs/large-pool@100000000/count)\" = 262144 ] &&
	       [ \"\$(cat $cma_debugfs/large-pool@100000000/base_pfn)\" = 1048576 ]"
check "cmabuf device nodes are in the device tree" \
	sh -c 'grep -q linux,cmabuf /proc/device-tree/cmabuf-general/compatible &&
	       grep -q linux,cmabuf /proc/device-tree/cmabuf-large/compatible'
case $CMABUF_KERNEL in
*-debug)
	check "KASAN is active" sh -c 'dmesg | grep -q "KernelAddressSanitizer initialized"'
	check "kmemleak and lockdep are active" \
		sh -c 'test -f /sys/kernel/debug/kmemleak && test -f /proc/lockdep'
	;;
esac
[ $fails -eq 0 ]
