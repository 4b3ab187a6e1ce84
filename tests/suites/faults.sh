#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Fault injection: cmabuf_faults (tests/stress/) as TAP, with the test
# importer loaded. Every call into cmabuf, and every bind of an instance,
# made again with each of its kernel allocations and user copies failing
# in turn; each must fail cleanly and leave nothing behind. Runs on the
# debug kernel (kernel/configs/debug.config enables fault injection),
# after heap-defaults so that the dma-heaps are there (a test that needs
# them fails without them), and before the kmemleak suite, which finds
# what a failure path leaked. A kernel without fault injection fails.
#
# The program prints "# record: faults calls=C injected=N".
#
#   CMABUF_FAIL_NTH  the task's fault injection file
#                    (default /proc/thread-self/fail-nth)

fail_nth=${CMABUF_FAIL_NTH:-/proc/thread-self/fail-nth}

if ! command -v cmabuf_faults >/dev/null || ! command -v cmabuf-run >/dev/null
then
	echo "TAP version 13"
	echo "Bail out! cmabuf_faults is not installed"
	exit 1
fi
if [ ! -e "$fail_nth" ]; then
	echo "TAP version 13"
	echo "Bail out! no $fail_nth: the kernel has no fault injection"
	exit 1
fi

CMABUF_REQUIRE_HEAPS=1
export CMABUF_REQUIRE_HEAPS
exec cmabuf-run --importer --time faults cmabuf_faults
