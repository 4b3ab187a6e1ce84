#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# compat_ioctl: the driver's uapi tests as a 32-bit arm program
# (cmabuf_test32, tests/selftests/), so that every ioctl goes through the
# kernel's compat layer: ALLOC, INFO, PHYS and PREPARE, what each accepts
# and refuses and what it writes back, and 0x02 (BENCH's number until the
# benchmark went to debugfs) refused. The structures have the same layout
# on both ABIs (__u64 fields, explicit padding); compat_ptr_ioctl passes
# the pointer on. The debugfs bench file is written by the 32-bit program
# too, as a 32-bit cmabufctl would. A missing program fails the suite, and
# so does a kernel without CONFIG_COMPAT, which cannot run it (no plan).
# Leaves out the two cases that are not about the ABI: a 1 GiB COMPOUND
# buffer and a killed benchmark run.
#
#   CMABUF_COMPAT_TEST  the program (default /usr/bin/cmabuf_test32)

test=${CMABUF_COMPAT_TEST:-/usr/bin/cmabuf_test32}

if [ ! -x "$test" ]; then
	echo "TAP version 13"
	echo "Bail out! $test, the 32-bit uapi tests, is not installed"
	exit 1
fi

[ -d /sys/kernel/debug/cma ] ||
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null

CMABUF_TEST_REQUIRE_DEVICES=1 exec "$test" \
	-T compound_max_order_allocates -T fatal_signal_stops_it \
	-f alloc_args -f info -f bench -f bench_args -f phys -f phys_args \
	-r prepare.wait_returns_with_count_ready \
	-r prepare.ready_rises_without_wait \
	-r prepare.flags_unknown_einval -r prepare.pad_or_ready_nonzero_einval \
	-r prepare.count_above_max_einval -r prepare.bad_size_einval 2>&1
