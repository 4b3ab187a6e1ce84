#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# "make bench": every workload through every path this kernel has, the
# peers (CMA dma-heap, CMA debugfs) included, interleaved iteration by
# iteration. The host merges the 6.12 and 7.2 results into build/bench/.

. /suites/bench-lib.sh

echo "TAP version 13"
echo "1..5"
bench "contig-64m" contig-64m --strategy all --iterations 20
bench "gigantic-1g" gigantic-1g --strategy all --iterations 10
bench "blocks-2m" blocks-2m --strategy all
bench "e2e-64m" e2e-64m --strategy all --iterations 20
bench "e2e-1g" e2e-1g --strategy all --iterations 5
[ $fails -eq 0 ]
