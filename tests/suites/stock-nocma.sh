#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A kernel that exports nothing of CMA, as Debian's 6.1 and 6.12 (their
# headers packages' Module.symvers: dma_alloc_pages and of_reserved_mem_*,
# no cma_* symbol, no dev_get_cma_area, no dma-heaps): cmabuf.ko built as
# for one (kernel/build-stock-module.sh KERNEL DIR nocma) and loaded on 7.2
# in place of the test bed's build. DMA is then its only strategy, and it
# allocates through the DMA API on each instance's device. The instances
# of the device tree's nodes offer it, their area's name and size from
# the node; the default area comes from cma= here, with no node to say
# where it lies, so nothing could check a DMA buffer against it and
# /dev/cmabuf is refused at probe, with the reason in the log. The
# driver's selftest suite then runs on what is there (AUTO and DMA), and
# the lifecycle test that unbinds an instance under a live DMA buffer;
# the test bed's build is loaded back afterwards (swap-lib.sh).

nocma=/lib/modules/cmabuf-nocma/cmabuf.ko
. /suites/tap-lib.sh
. /suites/swap-lib.sh

swap_begin "$nocma" "no-CMA build of cmabuf.ko" 8
swap_in "$nocma" "the no-CMA build"

[ ! -e /dev/cmabuf ] &&
	dmesg | grep -q 'cmabuf-default: .*no default CMA area this kernel tells of'
ok $? "no /dev/cmabuf: the default area's place is unknown, the log says so"

# Every instance: AUTO and DMA, nothing else; its area named by its node.
info=$(cmabufctl info 2>&1)
echo "$info" | sed 's/^/# /'
strategies=$(echo "$info" | sed -n 's/^  strategies *//p' | sort -u)
[ "$strategies" = "auto dma" ]
ok $? "every instance offers AUTO and DMA only"

[ -e /dev/cmabuf-general ] &&
	[ "$(cat /sys/class/misc/cmabuf-general/area)" = general-pool ] &&
	echo "$info" | grep -q '^  size  *256 MiB'
ok $? "cmabuf-general's area name and size come from its node"

[ -d /sys/kernel/debug/cma ] ||
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# AUTO and DMA (bits 0 and 4).
CMABUF_TEST_STRATEGIES=0x11 cmabuf_test >/tmp/nocma.tap 2>&1
rc=$?
sed 's/^/    /' /tmp/nocma.tap
ok $rc "the driver's selftest suite passes on the no-CMA build"

cmabuf_lifecycle -t unbind_with_live_dma_buffer >/tmp/nocma-lc.tap 2>&1
rc=$?
sed 's/^/    /' /tmp/nocma-lc.tap
ok $rc "a DMA buffer alive across unbind goes back to the area"

swap_back
[ $fails -eq 0 ]
