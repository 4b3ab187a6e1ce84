#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The KUnit suites of cmabuf_kunit.ko, as KTAP: loading the module runs
# them; each suite's results come from /sys/kernel/debug/kunit/<suite>/results.

ko=/lib/modules/cmabuf/cmabuf_kunit.ko
kunit=/sys/kernel/debug/kunit

echo "KTAP version 1"
# The test bed builds it (make module: TESTS=1); missing, it is a fault.
if [ ! -f "$ko" ]; then
	echo "Bail out! cmabuf_kunit.ko was not built (make module builds it with TESTS=1)"
	exit 1
fi
if ! insmod "$ko"; then
	echo "Bail out! insmod cmabuf_kunit.ko failed"
	exit 1
fi
suites=$(ls -d "$kunit"/cmabuf* 2>/dev/null)
echo "1..$(echo "$suites" | grep -c .)"
# Each results file is a KTAP document of its own, with a header and a
# plan of one suite; the suites go under this document's single header.
for s in $suites; do
	sed -e '/^KTAP version/d' -e '/^1\.\.[0-9]*$/d' "$s/results"
done
rmmod cmabuf_kunit
