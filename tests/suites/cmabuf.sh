#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The driver's kselftest-harness suite, tests/selftests/cmabuf_test.c: its
# TAP is this suite's TAP and its exit status this suite's. In the guest
# every instance must be there, so a missing device fails instead of
# skipping.

test=/usr/bin/cmabuf_test

if [ ! -x "$test" ]; then
	echo "TAP version 13"
	echo "1..1"
	echo "not ok 1 cmabuf_test is in /usr/bin"
	exit 1
fi

# The CMA counters the tests compare live in debugfs.
[ -d /sys/kernel/debug/cma ] ||
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null

# Under KASAN a 1 GiB buffer's cases take about 40 s per strategy, and the
# whole suite took 927 s beside another guest: the debug kernel runs the
# 1 GiB and 64 MiB cases for COMPOUND and AUTO only (FROZEN and LEGACY run
# there at 4 KiB and 1 MiB); 7.2 and 6.12 run them for every strategy.
case $CMABUF_KERNEL in
*-debug) set -- -V large_frozen_1g -V large_legacy_1g \
	-V general_frozen_64m -V general_legacy_64m \
	-V frozen_64m -V legacy_64m ;;
*) set -- ;;
esac

# What this kernel must give: PMD mappings wherever THP is on (both kernels,
# as Debian's), placed by mmap() only with our 7.2 dma-buf patch; none
# before 6.12, which maps no PFN range with PMD entries (Debian's 6.1, and
# its -rt has no THP at all); and init_on_alloc on by default, as Debian's
# kernels (kernel/configs).
case $CMABUF_KERNEL in
7.2*) export CMABUF_TEST_EXPECT_MMAP=pmd,placed ;;
stock-6.1|stock-6.1-*) export CMABUF_TEST_EXPECT_MMAP=none ;;
*) export CMABUF_TEST_EXPECT_MMAP=pmd ;;
esac
export CMABUF_TEST_INIT_ON_ALLOC_DEFAULT=1
# cmabuf clears FROZEN and COMPOUND buffers itself only with our 7.2 mm
# patch (cma_alloc_frozen*_noinit()).
case $CMABUF_KERNEL in
7.2*) export CMABUF_TEST_EXPECT_CLEARS_FROZEN=1 ;;
*) export CMABUF_TEST_EXPECT_CLEARS_FROZEN=0 ;;
esac

# A kernel that does not export dev_get_cma_area (Debian's 6.x) gives no
# default instance on the cma= area: the driver says so at probe, and
# only then are /dev/cmabuf's cases skips naming it.
if [ ! -e /dev/cmabuf ] &&
   dmesg | grep -q 'cmabuf-default: .*no default CMA area this kernel tells of'; then
	export CMABUF_TEST_NO_DEFAULT="no default instance: the kernel does not export dev_get_cma_area() and no reserved-memory node is linux,cma-default (the driver's log says so)"
fi

# CMABUF_TEST_ARGS: harness options that pick a subset (-f FIXTURE,
# -v VARIANT, -t TEST; commas for blanks, as the kernel command line
# carries it), for a run by hand (boot.sh --env).
# shellcheck disable=SC2086 # one word per option
set -- "$@" $(echo "${CMABUF_TEST_ARGS:-}" | tr , ' ')

# The harness writes its diagnostics to stderr, as TAP comments: keep them
# next to the results they explain.
CMABUF_TEST_REQUIRE_DEVICES=1 exec "$test" "$@" 2>&1
