#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The measurements behind the speedup checks of "make check"
# (tests/bench/speedup-checks): medians of interleaved iterations, the
# allocator timed in the kernel and, end to end, from userspace against the
# CMA heap. The host compares the 6.12 (LEGACY) and 7.2 (FROZEN, COMPOUND)
# figures of one run (tests/qemu/check.sh).

. /suites/bench-lib.sh

echo "TAP version 13"
echo "1..6"
# LEGACY runs on 7.2 too: 7.2's cma_release() also frees through the
# batched path, and the report should show how much of the gain that is.
# cpu-ref, beside every workload a check compares across the two boots:
# the same user-space work on both, to take each boot's speed out.
if have_frozen; then
	bench "contig-64m, compound, frozen and legacy" contig-64m \
		--strategy compound,frozen,legacy,cpu-ref --iterations 20
	bench "gigantic-1g, compound, frozen and legacy" gigantic-1g \
		--strategy compound,frozen,legacy,cpu-ref --iterations 20
	# End to end, against the CMA heap on the same boot; and with the
	# buffer prepared ahead of every cycle (untimed), against cold.
	bench "e2e-64m, compound (cold and prepared) and the CMA heap" e2e-64m \
		--strategy compound,cma-heap,compound-prepared,cpu-ref \
		--iterations 20
	bench "e2e-1g, compound (2 MiB and 4 KiB entries) and the CMA heap" e2e-1g \
		--strategy compound,compound-4k,cma-heap --iterations 5
	# Two callers in one area: COMPOUND clears outside the area's lock
	# (patch 0004), LEGACY inside it, one after the other.
	bench "concurrent, two callers in one area, compound and legacy" concurrent \
		--procs 2 --strategy compound,legacy --iterations 9
else
	# The "before" kernel: LEGACY where it exports cma_alloc (the test
	# bed's 6.12), the DMA API where it exports nothing of CMA (Debian's
	# 6.12 as shipped). Both end in cma_alloc() and cma_release().
	s=legacy
	have_strategy legacy || s=dma
	bench "contig-64m, $s" contig-64m --strategy $s,cpu-ref --iterations 20
	bench "gigantic-1g, $s" gigantic-1g --strategy $s,cpu-ref --iterations 20
	bench "e2e-64m, $s" e2e-64m --strategy $s,cpu-ref --iterations 20
	bench "e2e-1g, $s" e2e-1g --strategy $s --iterations 5
	bench "concurrent, two callers in one area, $s" concurrent \
		--procs 2 --strategy $s --iterations 9
fi
# Direct file I/O (CMABUF_IOC_RW) against the page cache into the mapping
# and O_DIRECT into anonymous memory, 64 MiB of the guest's raw disk both
# ways, 5 runs: at least twice the page cache's throughput (2.6-14x in
# docs/benchmarks.md, "Files into buffers") and 0.75 of O_DIRECT's (a
# buffer no device can reach: 0.92-1.08 there; 0.59-0.77 when it was
# maintained). Judged here: a TAP line of its own.
raw=
for s in /sys/block/*/serial; do
	[ -f "$s" ] && [ "$(cat "$s")" = cmabuf-raw ] && raw=/dev/$(basename "${s%/serial}")
done
if [ -z "$raw" ]; then
	n=$((n + 1))
	echo "ok $n rw: CMABUF_IOC_RW at least 2x the page cache and 0.75x O_DIRECT # SKIP no raw disk (serial cmabuf-raw)"
else
	out=$(cmabuf_rw_bench --disk "$raw" --size 64M --runs 5 \
		--device /dev/cmabuf-general --min-lead 2 --min-of-anon 0.75 2>&1)
	rc=$?
	echo "$out" | grep -v 'bench-rw-json' | sed 's/^#* */# /'
	bench_tap $rc "rw: CMABUF_IOC_RW at least 2x the page cache and 0.75x O_DIRECT into anonymous memory, 64 MiB both ways"
fi
[ $fails -eq 0 ]
