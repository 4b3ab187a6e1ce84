#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The stock part of "make bench" (tests/qemu/bench-stock.sh): what a user
# measures with "cmabufctl bench", a buffer's whole cycle (allocate, map,
# touch, unmap, free) through every strategy the kernel offers, at 64 MiB
# on the general instance and at 1 GiB on the large one where its area
# holds that much. cpu-ref (bench-lib.sh's bench) runs before and after
# each: the boot's speed, so that boots can be compared at one speed.
#
# The host's table (tests/bench/ctl_report.py) comes from the lines
# "# ctl-info-json" (cmabufctl info of the instance), "# ctl-bench-json"
# (cmabufctl bench's document, or {"device", "size_bytes", "skipped"} for
# a size the area cannot hold) and "# bench-json" (cpu-ref).
# CMABUF_BENCH_SHORT=1: a few iterations, to try the suite.
# CMABUF_SUITE_LIB: where bench-lib.sh is (/suites; the runner's own
# tests run the suite on the host with made-up programs).

. "${CMABUF_SUITE_LIB:-/suites}/bench-lib.sh"

iter_64m=30
iter_1g=10
if [ "${CMABUF_BENCH_SHORT:-0}" = 1 ]; then
	iter_64m=5
	iter_1g=2
fi

# ctl_bench SIZE BYTES LABEL ITERATIONS: one TAP test, cpu-ref around it.
ctl_bench() {
	bench "cpu-ref before $1" e2e-64m --strategy cpu-ref --iterations 10
	ctl_info=$(cmabufctl info --device "$3" --json)
	echo "# ctl-info-json $ctl_info"
	ctl_area=$(echo "$ctl_info" | sed -n 's/.*"total_bytes": \([0-9]*\),.*/\1/p')
	if [ -n "$ctl_area" ] && [ "$ctl_area" -lt "$2" ]; then
		echo "# ctl-bench-json {\"device\": \"$3\", \"size_bytes\": $2, \"skipped\": \"its area holds $ctl_area bytes\"}"
		n=$((n + 1))
		echo "ok $n cmabufctl bench $1 on $3 # SKIP its area holds $ctl_area bytes"
	else
		ctl_out=$(cmabufctl bench "$1" --device "$3" --iterations "$4" \
			  --json 2>"${TMPDIR:-/tmp}/ctl-bench.err")
		ctl_rc=$?
		ctl_doc=$(echo "$ctl_out" | grep '^{')
		echo "$ctl_doc" | sed 's/^/# ctl-bench-json /'
		ctl_results=$(echo "$ctl_doc" | grep -o '"phase": ' | wc -l)
		[ $ctl_rc -eq 0 ] && [ "$ctl_results" -gt 0 ]
		bench_tap $? "cmabufctl bench $1 on $3 (exit $ctl_rc, $ctl_results results)"
		sed 's/^/# /' "${TMPDIR:-/tmp}/ctl-bench.err"
	fi
	bench "cpu-ref after $1" e2e-64m --strategy cpu-ref --iterations 10
}

echo "TAP version 13"
echo "1..6"
ctl_bench 64M $((64 << 20)) general $iter_64m
ctl_bench 1G $((1 << 30)) large $iter_1g
[ $fails -eq 0 ]
