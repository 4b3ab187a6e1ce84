#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# "make demo" in the guest: what the instances are, one buffer allocated,
# checked and shared, and a short benchmark for the host's table. The
# table opens with the end-to-end workloads (allocate, map, touch every
# page, unmap, free through the uapi, every buffer cleared); the in-kernel
# ones follow, each allocation with the clearing ALLOC adds to it timed
# beside it (alloc+clear), so that FROZEN and COMPOUND, which the noinit
# API hands out uncleared, are compared with LEGACY, which the page
# allocator clears, on the same work.

. /suites/bench-lib.sh

echo "TAP version 13"
echo "1..8"
# step NAME CMD...: one test; the command and its output as TAP comments.
step() {
	name=$1
	shift
	n=$((n + 1))
	echo "# \$ $*"
	"$@" >/tmp/step.out 2>&1
	rc=$?
	sed 's/^/#   /' /tmp/step.out
	if [ $rc -eq 0 ]; then
		echo "ok $n $name"
	else
		echo "not ok $n $name (exit $rc)"
		fails=$((fails + 1))
	fi
}

step "instances and their areas" cmabufctl info
step "64 MiB buffer zeroed, filled and read back" \
	cmabufctl alloc 64M --device general --fill 0x5a --verify
step "shared with vgem" cmabuf_testctl share --device general
# The strategies the kernel has: DMA alone on Debian's 6.12.
paths=dma
have_strategy legacy && paths=legacy
have_frozen && paths=compound,frozen,legacy
step "64 MiB allocated, mapped, touched and freed, timed" \
	cmabufctl bench 64M --device general --strategy "$paths" --iterations 5
bench "e2e-64m, short" e2e-64m --strategy "$paths" --iterations 10
bench "e2e-1g, short" e2e-1g --strategy "$paths" --iterations 3
bench "contig-64m, short" contig-64m --strategy "$paths" --iterations 10
bench "gigantic-1g, short" gigantic-1g --strategy "$paths" --iterations 5
[ $fails -eq 0 ]
