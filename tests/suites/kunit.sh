#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The KUnit suites of cmabuf_kunit.ko, as KTAP: loading the module runs
# them; each suite's results come from /sys/kernel/debug/kunit/<suite>/results.
# The test bed builds the module for every kernel it boots: a missing
# module fails, and so does each suite of the module's
# kunit_test_suites() that shows no results (the plan is that list's
# length, known before anything runs), and any suite not on the list.
#
#   CMABUF_KUNIT_KO   the module (default /lib/modules/cmabuf/cmabuf_kunit.ko)
#   CMABUF_KUNIT_DIR  KUnit's debugfs directory (default /sys/kernel/debug/kunit)

ko=${CMABUF_KUNIT_KO:-/lib/modules/cmabuf/cmabuf_kunit.ko}
kunit=${CMABUF_KUNIT_DIR:-/sys/kernel/debug/kunit}
# kunit_test_suites() of tests/kunit/cmabuf_kunit.c, in its order.
expected="cmabuf_uapi cmabuf_arith cmabuf_strategy cmabuf_probe
cmabuf_pool_reclaim cmabuf_sg cmabuf_dma cmabuf_zero"

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
n=0
for s in $expected; do
	n=$((n + 1))
done
echo "1..$n"
i=0
for s in $expected; do
	i=$((i + 1))
	# Each results file is a KTAP document of its own, with a header and
	# a plan of one suite; the suite goes under this document's header,
	# numbered as the plan says.
	if [ -f "$kunit/$s/results" ]; then
		sed -e '/^KTAP version/d' -e '/^1\.\.[0-9]*$/d' \
			-e "s/^ok [0-9]* $s\$/ok $i $s/" \
			-e "s/^not ok [0-9]* $s\$/not ok $i $s/" \
			"$kunit/$s/results"
	else
		echo "not ok $i $s # no results in $kunit/$s: the suite did not run"
	fi
done
for d in "$kunit"/cmabuf*; do
	[ -d "$d" ] || continue
	case " $(echo $expected) " in
	*" ${d##*/} "*) ;;
	*) echo "Bail out! suite ${d##*/} ran but is not in kunit.sh's list" ;;
	esac
done
rmmod cmabuf_kunit
