#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# "make bench-load": allocation under memory load, every path this kernel
# has (cmabuf's strategies, and the CMA dma-heap where it allocates from
# the same area), paths taking turns, every sample of the load-* and
# camera workloads after the load refilled the area (cmabuf_load,
# tests/load). The host turns the results into build/bench/load/
# (tests/bench/load_report.py).
#
# Loads ("load" in every result), all of large-pool, the area of
# ZONE_NORMAL, which the page allocator fills first:
#   fill   4 KiB anonymous pages until the area has under 16 MiB free,
#          with room elsewhere for what must move
#   churn  the same, and 32 MiB/s of new pages placed (as many given back)
#          while allocations run
#   pins   the same, and 256 of the area's pages held in pipes (vmsplice)
#          200 ms out of every 300; 64 MiB of long-term pins (io_uring)
#          were registered, and moved out of CMA, before the fill
#   thp, shmem   the fill in THPs, in tmpfs pages
# One fill serves each workload in turn (the churn and the pipes are
# switched on in it). "general" (not run by default) fills general-pool,
# which shares ZONE_DMA with the rest of memory: it takes all of memory
# and minutes under TCG, and stops with the area partly filled, where the
# allocator's balance between CMA and other memory leaves it.
# "kill": a process SIGKILLed 1 s into a 1 GiB allocation from a filled
# large-pool (cmabuf_killtime), twice per path ("# kill-json").
# "shrink" (not run by default): ready buffers, prepared by a file or kept
# as the reserve, then anonymous memory touched until the kernel reclaims
# (cmabuf_shrinktime, "# shrink-json"); one measurement a boot, as
# CMABUF_SHRINK=DEVICE,SIZE,COUNT,prepare|reserve says: a second one in the
# same boot saw no reclaim at all.
# The camera (idle and under the fill), load-64m and load-1g (under the
# fill) also run cmabuf-auto-prepared beside the cold paths: every sample's
# buffers prepared ahead after the refill, untimed (CMABUF_IOC_PREPARE),
# then the same ALLOCs timed; the report keeps it apart from ALLOC.
#
#   CMABUF_LOAD_N64    samples per path of the 64 MiB-class workloads (17)
#   CMABUF_LOAD_N1G    samples per path of the 1 GiB-class ones (3)
#   CMABUF_LOAD_PARTS  which parts run, comma-separated: idle, large,
#                      kinds, kill, general, shrink (idle to kill); fill
#                      is large's fill without its churn and pins

# The load's options go as words: $general and $large split on purpose.
# shellcheck disable=SC2086

. /suites/bench-lib.sh
. /suites/load-lib.sh

params=/sys/module/cmabuf/parameters
n64=${CMABUF_LOAD_N64:-17}
n1g=${CMABUF_LOAD_N1G:-3}
parts=$(echo "${CMABUF_LOAD_PARTS:-idle large kinds kill}" | tr , " ")
general="--area general-pool --free-below 16M --room 192M"
large="--area large-pool --free-below 16M --room 1152M"

part() {
	case " $parts " in *" $1 "*) return 0 ;; esac
	return 1
}

# started TAG ARGS...: start the load; a failed test when it does not.
started() {
	load_start "$@" && return 0
	n=$((n + 1))
	echo "not ok $n the load $* starts"
	fails=$((fails + 1))
	load_stop
	return 1
}

# kill_paths: what cmabuf_killtime allocates with, one path a line.
kill_paths() {
	for s in compound frozen legacy; do
		cmabufctl info -d large 2>/dev/null | grep -q "^  strategies .*$s" &&
			echo "--device /dev/cmabuf-large --strategy $s"
	done
	[ -e /dev/dma_heap/large-pool ] && echo "--heap large-pool"
}

# killed: every path's process killed twice, 1 s into a loaded 1 GiB call;
# nothing may be left behind.
killed() {
	started kill $large || return
	n=$((n + 1))
	bad=0
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
	grep -q 'failed (try' /tmp/kill.out && bad=1
	sed -n 's/.*"before": {"cma_used_pages": \([0-9]*\),.*"after": {"cma_used_pages": \([0-9]*\),.*/\1 \2/p' \
		/tmp/kill.out | awk '$1 != $2 { bad = 1 } END { exit bad }' || bad=1
	if [ $bad -eq 0 ]; then
		echo "ok $n SIGKILL during a loaded 1 GiB allocation, $(grep -c '^# kill-json' /tmp/kill.out) times, nothing left behind"
	else
		echo "not ok $n SIGKILL during a loaded 1 GiB allocation"
		fails=$((fails + 1))
	fi
}

# shrunk: the ready buffers CMABUF_SHRINK names, given back under pressure.
shrunk() {
	IFS=, read -r dev size count by <<EOF
$CMABUF_SHRINK
EOF
	n=$((n + 1))
	what="$by: $count x $size on $dev"
	reserve=
	[ "$by" = reserve ] && reserve=--reserve
	if cmabuf_shrinktime --device "/dev/cmabuf-$dev" --size "$size" \
		--count "$count" $reserve >/tmp/shrink.json; then
		echo "ok $n ready buffers ($what) given back under memory pressure"
	else
		echo "not ok $n ready buffers ($what) given back under memory pressure"
		fails=$((fails + 1))
	fi
	sed 's/^/# shrink-json /' /tmp/shrink.json
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
	bench "camera, idle" camera --iterations 10 --strategy all,auto-prepared
	bench "concurrent, one area" concurrent --procs 1,2,4 --iterations 5
	bench "concurrent, two areas" concurrent --procs 2,4 --spread large \
		--iterations 5
	bench "fragment, idle" fragment --steps 300
	trace_emit
fi
if { part large || part fill; } && started fill $large --longterm 64M; then
	load_bench "load-64m, fill" load-64m --device large --iterations "$n64" \
		--strategy all,auto-prepared
	load_bench "camera, fill" camera --device large --iterations "$n64" \
		--strategy all,auto-prepared
	# A prepared 1 GiB buffer is all of large-pool, past the default
	# prepare_max_percent (50): the limit is lifted for this run.
	max=$(cat $params/prepare_max_percent)
	echo 100 >$params/prepare_max_percent
	load_bench "load-1g, fill" load-1g --iterations "$n1g" \
		--strategy all,auto-prepared
	echo "$max" >$params/prepare_max_percent
	load_bench "load-blocks-2m, fill" load-blocks-2m --iterations "$n1g"
	# "fill" is this part's fill alone, without the churn and the pins.
	if part large; then
		load_set churn --churn 32M
		load_bench "load-64m, churn" load-64m --device large \
			--iterations "$n64"
		load_bench "load-1g, churn" load-1g --iterations "$n1g"
		load_bench "load-blocks-2m, churn" load-blocks-2m \
			--iterations "$n1g"
		load_set pins --churn 0 --splice 256,200,100
		load_bench "load-64m, pins" load-64m --device large \
			--iterations "$n64"
	fi
	load_stop
fi
if part kinds; then
	for kind in thp shmem; do
		started "$kind" $large --kind $kind || continue
		load_bench "load-64m, $kind" load-64m --device large \
			--iterations "$n1g"
		load_stop
	done
fi
if part general && started general $general; then
	load_bench "load-64m from general-pool, general" load-64m \
		--iterations "$n1g"
	load_stop
fi
part kill && killed
part shrink && shrunk
echo "1..$n"
[ $fails -eq 0 ]
