#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The stock kernel: cmabuf.ko as a user of Debian's own 7.2 builds it,
# without our export patches (kernel/build-stock-module.sh): LEGACY only,
# no area statistics. Loaded in place of the patched build, it must pass
# the driver's selftest suite, which adapts to what INFO reports, as the
# 6.12 build does; then the patched build is loaded back as it was
# (swap-lib.sh).

stock=/lib/modules/cmabuf-stock/cmabuf.ko
. /suites/tap-lib.sh
. /suites/swap-lib.sh

swap_begin "$stock" "stock build of cmabuf.ko" 5
swap_in "$stock" "the stock build"

# Every instance: AUTO and LEGACY, nothing of the frozen API.
strategies=$(cmabufctl info | sed -n 's/^  strategies *//p')
echo "# strategies: $(echo "$strategies" | tr '\n' ';')"
[ -n "$strategies" ] && ! echo "$strategies" | grep -q -e frozen -e compound
ok $? "every instance offers LEGACY and AUTO only"

[ -d /sys/kernel/debug/cma ] ||
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# AUTO and LEGACY (bits 0 and 3), whatever the running kernel has.
CMABUF_TEST_STRATEGIES=0x9 CMABUF_TEST_REQUIRE_DEVICES=1 cmabuf_test \
	>/tmp/stock.tap 2>&1
rc=$?
sed 's/^/    /' /tmp/stock.tap
ok $rc "the driver's selftest suite passes on the stock build"

swap_back
[ $fails -eq 0 ]
