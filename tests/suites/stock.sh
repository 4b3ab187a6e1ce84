#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The stock kernel: cmabuf.ko as a user of Debian's own 7.2 builds it,
# without our export patches (kernel/build-stock-module.sh): LEGACY only,
# no area statistics. Loaded in place of the patched build, it must pass
# the driver's selftest suite, which adapts to what INFO reports, as the
# 6.12 build does; then the patched build is loaded back as it was.
#
# Unloading cmabuf is only possible while it has registered no dma-heap,
# so this suite runs while it is loaded with heap=0 (see SUITES).

stock=/lib/modules/cmabuf-stock/cmabuf.ko
ko=/lib/modules/cmabuf/cmabuf.ko
params=/sys/module/cmabuf/parameters
. /suites/tap-lib.sh

echo "TAP version 13"
if [ ! -f "$stock" ] || [ ! -d $params ]; then
	echo "Bail out! no stock build of cmabuf.ko, or cmabuf is not loaded"
	exit 1
fi
echo "1..5"
before="default_instance=$(cat $params/default_instance) mode=$(cat $params/mode)"
before="$before heap=$(cat $params/heap)"

rmmod cmabuf
ok $? "the patched build unloads"

# shellcheck disable=SC2086 # one word per parameter
insmod "$stock" $before
ok $? "the stock build loads with the same parameters ($before)"

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

rmmod cmabuf && insmod "$ko" $before
ok $? "the patched build is back"
[ $fails -eq 0 ]
