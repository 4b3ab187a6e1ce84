#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The stock kernel: cmabuf.ko as a user of Debian's own 7.2 builds it,
# without our export patches (kernel/build-stock-module.sh): LEGACY, and
# DMA where the instance knows where its area lies (its node's), no area
# statistics. Loaded in place of the patched build, it must pass
# the driver's selftest suite, which adapts to what INFO reports, as the
# 6.12 build does; then the patched build is loaded back as it was
# (swap-lib.sh).

stock=/lib/modules/cmabuf-stock/cmabuf.ko
. /suites/tap-lib.sh
. /suites/swap-lib.sh

swap_begin "$stock" "stock build of cmabuf.ko" 5
swap_in "$stock" "the stock build"

# Every instance: AUTO and LEGACY, and DMA where its node says where its
# area lies (not the default area, made from cma=); nothing of the frozen
# API.
info=$(cmabufctl info)
strategies=$(echo "$info" | sed -n 's/^  strategies *//p')
echo "# strategies: $(echo "$strategies" | tr '\n' ';')"
[ -n "$strategies" ] && ! echo "$strategies" | grep -q -e frozen -e compound &&
	[ "$(echo "$strategies" | grep -c '^auto legacy')" -eq \
	  "$(echo "$strategies" | wc -l)" ] &&
	echo "$info" | grep -A20 '^/dev/cmabuf-general$' |
	grep -q '^  strategies  auto legacy dma$'
ok $? "every instance offers AUTO and LEGACY, cmabuf-general DMA too"

[ -d /sys/kernel/debug/cma ] ||
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# AUTO, LEGACY and DMA (bits 0, 3 and 4), whatever the running kernel has
# (the tests expect DMA only of instances that know where their area is).
CMABUF_TEST_STRATEGIES=0x19 CMABUF_TEST_REQUIRE_DEVICES=1 cmabuf_test \
	>/tmp/stock.tap 2>&1
rc=$?
sed 's/^/    /' /tmp/stock.tap
ok $rc "the driver's selftest suite passes on the stock build"

swap_back
[ $fails -eq 0 ]
