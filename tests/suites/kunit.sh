#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The KUnit suites of cmabuf_kunit.ko, as KTAP: loading the module runs
# them; each suite's results come from /sys/kernel/debug/kunit/<suite>/results.
# The test bed builds the module for every kernel it boots: a missing
# module, or one that shows no suite, fails.
#
#   CMABUF_KUNIT_KO   the module (default /lib/modules/cmabuf/cmabuf_kunit.ko)
#   CMABUF_KUNIT_DIR  KUnit's debugfs directory (default /sys/kernel/debug/kunit)

ko=${CMABUF_KUNIT_KO:-/lib/modules/cmabuf/cmabuf_kunit.ko}
kunit=${CMABUF_KUNIT_DIR:-/sys/kernel/debug/kunit}

echo "KTAP version 1"
# A stock Debian kernel built without KUnit (kernel/stock-images) gets no
# cmabuf_kunit.ko (the Kbuild says so): a skip that names it. The test
# bed's kernels all have KUnit, and there a missing module fails.
if [ ! -f "$ko" ] && [ ! -d "$kunit" ]; then
	case $CMABUF_KERNEL in
	stock-*)
		echo "1..0 # SKIP $CMABUF_KERNEL has no KUnit (CONFIG_KUNIT off): no cmabuf_kunit.ko"
		exit 0
		;;
	esac
fi
if [ ! -f "$ko" ]; then
	echo "Bail out! $ko was not built (make module builds it with TESTS=1)"
	exit 1
fi
if ! insmod "$ko"; then
	echo "Bail out! insmod $ko failed"
	exit 1
fi
suites=$(ls -d "$kunit"/cmabuf* 2>/dev/null)
if [ -z "$suites" ]; then
	echo "Bail out! $ko loaded, but no cmabuf suite is in $kunit"
	rmmod cmabuf_kunit
	exit 1
fi
echo "1..$(echo "$suites" | grep -c .)"
# Each results file is a KTAP document of its own, with a header and a
# plan of one suite; the suites go under this document's single header.
for s in $suites; do
	sed -e '/^KTAP version/d' -e '/^1\.\.[0-9]*$/d' "$s/results"
done
rmmod cmabuf_kunit
