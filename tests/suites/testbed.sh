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
	[ -n "$base" ] && [ $(((base * page_kib * 1024) % $2)) -eq 0 ]
}

# has_pages AREA PAGES
has_pages() {
	[ "$(area_count "$1")" = "$2" ]
}

echo "TAP version 13"
case $CMABUF_KERNEL in
*-debug) echo "1..10" ;;
*) echo "1..8" ;;
esac

# The page size the kernel's name promises (kernel/common.sh), in KiB, and
# the regions' sizes in pages: the general region is one 512 MiB pageblock
# with 64 KiB pages (tests/qemu/cmabuf-regions-64k.dtsi), else 256 MiB.
case $CMABUF_KERNEL in
*-64k) page_kib=64 general_mib=512 ;;
*-16k) page_kib=16 general_mib=256 ;;
*) page_kib=4 general_mib=256 ;;
esac
general_pages=$((general_mib * 1024 / page_kib))
large_pages=$((1024 * 1024 / page_kib))

series=${CMABUF_KERNEL#stock-}
series=${series%%-*}
check "kernel release is $series" sh -c "uname -r | grep -q '^$series\\.'"

# A stock Debian kernel (stock-*) may be built without CMA's sysfs and
# debugfs files (Debian's 6.1 and 6.12 are): the areas' sysfs checks are
# skips that say so, and the regions' sizes and places come from the
# kernel's own lines, "Reserved memory: created CMA memory pool at ADDR,
# size N MiB". The test bed's kernels must have both.
stock=
case $CMABUF_KERNEL in
stock-*) stock=1 ;;
esac

# sysfs_check NAME DIR: DIR exists; on a stock kernel without CMA sysfs, a
# skip.
sysfs_check() {
	if [ -n "$stock" ] && [ ! -d /sys/kernel/mm/cma ]; then
		skip "$1: $CMABUF_KERNEL has no /sys/kernel/mm/cma (CONFIG_CMA_SYSFS off)"
	else
		check "$1" test -d "$2"
	fi
}

# pool_at BYTES MIB: the kernel created a CMA pool of MIB MiB at BYTES
# (hexadecimal, no 0x), from its log.
pool_at() {
	dmesg | grep -Eqi "Reserved memory: created CMA memory pool at 0x0*$1, size $2 MiB"
}

# pool_aligned MIB: a CMA pool of MIB MiB starts on a MIB MiB boundary.
pool_aligned() {
	dmesg | sed -nE "s/.*Reserved memory: created CMA memory pool at 0x([0-9a-fA-F]+), size $1 MiB.*/\\1/p" |
		while read -r addr; do
			[ $((0x$addr % ($1 * 1024 * 1024))) -eq 0 ] && echo yes
		done | grep -q yes
}

sysfs_check "default area reserved by cma= is in sysfs" /sys/kernel/mm/cma/reserved
sysfs_check "general region is in sysfs" /sys/kernel/mm/cma/general-pool
sysfs_check "large region is in sysfs" /sys/kernel/mm/cma/large-pool@100000000
check "page size is $page_kib KiB" \
	sh -c "grep -m1 '^KernelPageSize:' /proc/self/smaps | grep -q ' $page_kib kB\$'"
if [ -n "$stock" ] && [ ! -d "$cma_debugfs" ]; then
	pool_aligned "$general_mib"
	ok $? "general region is $general_mib MiB on a $general_mib MiB boundary (kernel log)"
	pool_at 100000000 1024
	ok $? "large region is 1 GiB at 4 GiB (kernel log)"
else
	check "general region is $general_mib MiB on a $general_mib MiB boundary" \
		sh -c "[ \"\$(cat $cma_debugfs/general-pool/count)\" = $general_pages ] &&
		       [ \$(( \$(cat $cma_debugfs/general-pool/base_pfn) % $general_pages )) -eq 0 ]"
	check "large region is 1 GiB at 4 GiB" \
		sh -c "[ \"\$(cat $cma_debugfs/large-pool@100000000/count)\" = $large_pages ] &&
		       [ \"\$(cat $cma_debugfs/large-pool@100000000/base_pfn)\" = $((4 * large_pages)) ]"
fi
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
