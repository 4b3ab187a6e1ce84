#!/bin/sh
# One-off (not a suite of make check): where a loaded 64 MiB allocation spends its
# time, by function_graph. Ran as tests/suites/zz-migprof.sh with
# "tests/qemu/boot.sh --suites zz-migprof KERNEL"; output: migprof-KERNEL.txt.
. /suites/bench-lib.sh
. /suites/load-lib.sh
echo "TAP version 13"
t=/sys/kernel/tracing
[ -e $t/current_tracer ] || mount -t tracefs tracefs $t
load_start prof --area large-pool --free-below 16M --room 192M
echo "# load started: $?"
echo 0 >$t/tracing_on
echo >$t/trace
echo 65536 >$t/buffer_size_kb
echo function_graph >$t/current_tracer
echo 1 >$t/options/funcgraph-tail
echo 7 >$t/max_graph_depth
echo alloc_contig_frozen_range_noprof >$t/set_graph_function 2>/dev/null
echo alloc_contig_range_noprof >>$t/set_graph_function 2>/dev/null
echo "# graph functions: $(cat $t/set_graph_function | xargs)"
for s in legacy compound; do
	grep -q . $t/set_graph_function || break
	echo >$t/trace
	cmabuf_load refill --socket "$load_sock" >/dev/null
	grep -E "pgmigrate_success|pgmigrate_fail" /proc/vmstat | sed 's/^/# before /'
	echo 1 >$t/tracing_on

	time cmabufctl alloc 64MiB -d large -s $s 2>&1 | sed "s/^/# /"
	echo "# $s alloc done"
	echo 0 >$t/tracing_on
	grep -E "pgmigrate_success|pgmigrate_fail" /proc/vmstat | sed 's/^/# after /'
	echo "# overrun: $(grep -i overrun $t/per_cpu/cpu0/stats) $(grep -i overrun $t/per_cpu/cpu1/stats)"
	awk '
	/ us / && /\|/ {
		split($0, a, "|"); body = a[2]
		match(body, /^ */); depth = int((RLENGTH - 1) / 2)
		name = ""
		if (match(body, /[A-Za-z0-9_.]+\(\);/)) name = substr(body, RSTART, RLENGTH - 3)
		else if (match(body, /\/\* [A-Za-z0-9_.]+ \*\//)) name = substr(body, RSTART + 3, RLENGTH - 6)
		if (name == "") next
		if (!match(a[1], /[0-9]+\.[0-9]+ us/)) next
		d = substr(a[1], RSTART, RLENGTH - 3) + 0
		k = depth " " name; sum[k] += d; cnt[k]++
	}
	END { for (k in sum) if (sum[k] > 2000) printf "# prof %s %s: %d calls, %.1f ms\n", "'$s'", k, cnt[k], sum[k] / 1000 }' $t/trace | sort -k3,3n -k6,6nr
done
echo nop >$t/current_tracer
load_stop
echo "ok 1 profiled"
echo "1..1"
