#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# "make bench-load": allocation under memory load, every path this kernel
# has (cmabuf's strategies and the CMA dma-heap on the same area), paths
# taking turns, every sample of the load-* and camera workloads after the
# load refilled the area (cmabuf_load, tests/load). The host turns the
# results into build/bench/load/ (tests/bench/load_report.py).
#
# Loads: "fill" (4 KiB anonymous pages until the area has under 16 MiB
# free, room left elsewhere for what must move), "churn" (the same, and
# 32 MiB/s of new pages placed and as many given back while allocations
# run), "pins" (fill, 256 of the area's pages held in pipes 200 ms out of
# every 300, and 64 MiB registered with io_uring), "thp" and "shmem" (the
# fill in THPs, in tmpfs pages).
#
#   CMABUF_LOAD_N64    samples per path of the 64 MiB-class workloads (17)
#   CMABUF_LOAD_N1G    samples per path of the 1 GiB-class ones (4)
#   CMABUF_LOAD_PARTS  which parts run, comma-separated: idle, fill, churn,
#                      pins, kinds, kill (all)
#
# "kill": a process SIGKILLed 1 s into a 1 GiB allocation from a filled
# large-pool (cmabuf_killtime), twice per path: the time until it is gone,
# and the area's CMA pages in use before and after ("# kill-json").

# The load's options go as words: $general and $large split on purpose.
# shellcheck disable=SC2086

. /suites/bench-lib.sh
. /suites/load-lib.sh

n64=${CMABUF_LOAD_N64:-17}
n1g=${CMABUF_LOAD_N1G:-4}
parts=$(echo "${CMABUF_LOAD_PARTS:-idle fill churn pins kinds kill}" | tr , " ")
general="--area general-pool --free-below 16M --room 192M"
large="--area large-pool --free-below 16M --room 1152M"

part() {
	case " $parts " in *" $1 "*) return 0 ;; esac
	return 1
}

# loaded TAG LOAD_ARGS -- NAME BENCH_ARGS...: one test under a load.
loaded() {
	tag=$1
	shift
	args=
	while [ "$1" != -- ]; do
		args="$args $1"
		shift
	done
	shift
	if ! load_start "$tag" $args; then
		n=$((n + 1))
		echo "not ok $n $1 ($tag: the load did not start)"
		fails=$((fails + 1))
		load_stop
		return
	fi
	load_bench "$@"
	load_stop || echo "# the load did not stop cleanly"
}

# kill_paths: what cmabuf_killtime allocates with, one path a line.
kill_paths() {
	for s in compound frozen legacy; do
		cmabufctl info -d large 2>/dev/null | grep -q "^  strategies .*$s" &&
			echo "--device /dev/cmabuf-large --strategy $s"
	done
	[ -e /dev/dma_heap/large-pool ] && echo "--heap large-pool"
}

# killed: every path's process killed twice, 1 s into a loaded 1 GiB call.
killed() {
	n=$((n + 1))
	bad=0
	if ! load_start kill $large; then
		echo "not ok $n SIGKILL during a loaded 1 GiB allocation (the load did not start)"
		fails=$((fails + 1))
		load_stop
		return
	fi
	kill_paths | while read -r args; do
		for try in 1 2; do
			cmabuf_load refill --socket "$load_sock" >>"$load_records"
			cmabuf_killtime $args --size 1G --after 1000 >/tmp/kill.json ||
				echo "# cmabuf_killtime $args failed (try $try)"
			sed 's/^/# kill-json /' /tmp/kill.json
		done
	done >/tmp/kill.out
	cat /tmp/kill.out
	load_stop || bad=1
	# Nothing left behind: the area's pages in CMA use as before each kill.
	grep -q 'failed (try' /tmp/kill.out && bad=1
	sed -n 's/.*"before": {"cma_used_pages": \([0-9]*\),.*"after": {"cma_used_pages": \([0-9]*\),.*/\1 \2/p' \
		/tmp/kill.out | awk '$1 != $2 { bad = 1 } END { exit bad }' || bad=1
	if [ $bad -eq 0 ]; then
		echo "ok $n SIGKILL during a loaded 1 GiB allocation, $(grep -c '^# kill-json' /tmp/kill.out) times"
	else
		echo "not ok $n SIGKILL during a loaded 1 GiB allocation"
		fails=$((fails + 1))
	fi
}

echo "TAP version 13"
trace_on
# The page-copy rate, beside which migration's rate is set, and where the
# machine's pages are before any load.
bench_tag=idle
{ cmabuf_load copy && cmabuf_load status --json; } >"$load_records"
load_emit
bench_tag=

if part idle; then
	bench "camera, idle" camera --iterations 10
	bench "concurrent, one area" concurrent --procs 1,2,4 --iterations 5
	bench "concurrent, two areas" concurrent --procs 2,4 --spread large \
		--iterations 5
	bench "fragment, idle" fragment --steps 300
	trace_emit
fi
if part fill; then
	loaded fill $general -- "load-64m, fill" load-64m --iterations "$n64"
	loaded fill $general -- "camera, fill" camera --iterations "$n1g"
	loaded fill $large -- "load-1g, fill" load-1g --iterations "$n1g"
	loaded fill $large -- "load-blocks-2m, fill" load-blocks-2m \
		--iterations "$n1g"
fi
if part churn; then
	loaded churn $general --churn 32M -- "load-64m, churn" load-64m \
		--iterations "$n64"
	loaded churn $large --churn 32M -- "load-1g, churn" load-1g \
		--iterations "$n1g"
	loaded churn $large --churn 32M -- "load-blocks-2m, churn" \
		load-blocks-2m --iterations "$n1g"
fi
if part pins; then
	loaded pins $general --splice 256,200,100 --longterm 64M -- \
		"load-64m, pins" load-64m --iterations "$n64"
fi
if part kinds; then
	loaded thp $general --kind thp -- "load-64m, thp" load-64m \
		--iterations "$n1g"
	loaded shmem $general --kind shmem -- "load-64m, shmem" load-64m \
		--iterations "$n1g"
fi
part kill && killed
echo "1..$n"
[ $fails -eq 0 ]
