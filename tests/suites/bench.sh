#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# "make bench": every workload through every path this kernel has, the
# peers (CMA dma-heap, CMA debugfs) included, interleaved iteration by
# iteration, the clearing limit of the machine (zero-*) and callers
# allocating at once (concurrent). The host merges the 6.12 and 7.2
# results into build/bench/. With CMABUF_BENCH_SHORT=1 (the other
# settings' boots): only what the end-to-end rows and their limits need.

. /suites/bench-lib.sh

echo "TAP version 13"
if [ "${CMABUF_BENCH_SHORT:-0}" = 1 ]; then
	echo "1..6"
	bench "contig-64m" contig-64m --strategy all --iterations 10
	bench "gigantic-1g" gigantic-1g --strategy all --iterations 5
else
	echo "1..8"
	bench "contig-64m" contig-64m --strategy all --iterations 20
	bench "gigantic-1g" gigantic-1g --strategy all --iterations 10
	bench "blocks-2m" blocks-2m --strategy all
	# 1, 2 and 4 callers at once in one area (the whole of general-pool),
	# against one buffer's clearing on all CPUs, timed between the
	# iterations, once per caller.
	bench "concurrent" concurrent --strategy all --procs 1,2,4 \
		--iterations 9
fi
bench "zero-64m" zero-64m --iterations 10
bench "zero-1g" zero-1g --iterations 5
bench "e2e-64m" e2e-64m --strategy all --iterations 20
bench "e2e-1g" e2e-1g --strategy all --iterations 5
[ $fails -eq 0 ]
