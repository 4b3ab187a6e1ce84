#!/bin/sh
# Ran as tests/suites/zz-parmig3.sh: tests/qemu/boot.sh --suites zz-parmig3 [--smp 4] 7.2
# (parmig2-4: the kernel and module of 0007 and cmabuf-opt-in.diff, beside).
# One-off (not a suite of make check), for docs/parallel-migration.md:
# where a loaded cold 64 MiB COMPOUND ALLOC's migration time goes, per
# CPU, by function_graph on migrate_pages(), isolate_migratepages_range()
# and the parallel path's chunks (acr_migrate_chunk(), 7.2 patch 0007):
#   serial   migrate_parallel=0, the other vCPUs idle
#   spin     migrate_parallel=0, the other vCPUs spinning in user space
#   par      migrate_parallel=1
# and the host's share of CPUs (tlbbench spin on one vCPU, on all).
#   PARMIG_N   samples per condition (3)
# shellcheck disable=SC2086
. /suites/bench-lib.sh
. /suites/load-lib.sh
echo "TAP version 13"
p=/sys/module/cmabuf/parameters
t=/sys/kernel/tracing
[ -e $t/current_tracer ] || mount -t tracefs tracefs $t
nc=$(nproc)
last=$((nc - 1))
n=${PARMIG_N:-3}

spins() {
	c=0
	while [ $c -lt "$1" ]; do
		taskset -c $c tlbbench spin 3 >/tmp/sp.$c &
		c=$((c + 1))
	done
	wait
	cat /tmp/sp.* | awk '{ s += $2 } END { printf "%.0f", s }'
	rm -f /tmp/sp.*
}
echo "# host share: spin x1 $(spins 1) x$nc $(spins $nc)"

echo 0 >$t/tracing_on
echo function_graph >$t/current_tracer
echo 1 >$t/max_graph_depth
echo 1 >$t/options/funcgraph-tail
echo 65536 >$t/buffer_size_kb
echo "migrate_pages isolate_migratepages_range acr_migrate_chunk" >$t/set_graph_function
echo "# graph functions: $(cat $t/set_graph_function | xargs)"

sample() { # COND
	cmabuf_load refill --socket "$load_sock" >/dev/null
	sp=
	if [ "$1" = spin ]; then
		c=1
		while [ $c -le $last ]; do
			taskset -c $c tlbbench spin 100000 >/dev/null &
			sp="$sp $!"
			c=$((c + 1))
		done
		sleep 0.2
	fi
	par=0
	[ "$1" = par ] && par=1
	echo $par >$p/migrate_parallel
	echo >$t/trace
	echo 1 >$t/tracing_on
	taskset -c 0 cmabufctl bench load-64m --device large --iterations 1 \
		--strategy compound --json 2>/dev/null | grep '^{' >/tmp/b.json
	echo 0 >$t/tracing_on
	[ -n "$sp" ] && kill $sp
	wait 2>/dev/null
	sed "s/^/# bench-json $1 /" /tmp/b.json
	ms=0
	mig=0
	awk -v cond="$1" -v ns="$ms" -v mig="$mig" '
	/\|/ && / us / {
		cpu = $1 + 0
		if (!match($0, /[0-9]+\.[0-9]+ us/)) next
		d = substr($0, RSTART, RLENGTH - 3) + 0
		name = ""
		if (match($0, /[a-z_]+\(\);/)) name = substr($0, RSTART, RLENGTH - 3)
		else if (match($0, /\/\* [a-z_]+ \*\//)) name = substr($0, RSTART + 3, RLENGTH - 6)
		if (name == "") next
		sum[name " cpu" cpu] += d; cnt[name " cpu" cpu]++
	}
	END {
		printf "# parmig3 %s |", cond
		for (k in sum) printf " %s %d calls %.0f ms;", k, cnt[k], sum[k] / 1000
		printf "\n"
	}' $t/trace
	echo "# overrun: $(cat $t/per_cpu/cpu*/stats | awk '/^overrun/ { n += $2 } END { print n + 0 }')"
}

if load_start fill --area large-pool --free-below 16M --room 1152M; then
	i=1
	while [ $i -le $n ]; do
		for cond in serial spin par; do
			sample $cond
		done
		i=$((i + 1))
	done
	echo 1 >$p/migrate_parallel
	load_stop >/dev/null
	echo "ok 1 traced"
else
	echo "not ok 1 the load did not start"
fi
echo nop >$t/current_tracer
echo "# host share: spin x1 $(spins 1) x$nc $(spins $nc)"
echo "1..1"
