#!/bin/sh
# Ran as tests/suites/zz-parmig4.sh: tests/qemu/boot.sh --suites zz-parmig4 [--smp 4] 7.2
# (parmig2-4: the kernel and module of 0007 and cmabuf-opt-in.diff, beside).
# One-off (not a suite of make check), for docs/parallel-migration.md: a
# loaded cold 64 MiB COMPOUND ALLOC with migrate_parallel off and on, each
# with the CPU time every vCPU spent in the kernel meanwhile (/proc/stat)
# and the guest's lock contention (lock:contention_begin/end: how many
# waits, how long in all, by kind of lock).
#   PARMIG_N   samples per condition (3)
# shellcheck disable=SC2086
. /suites/bench-lib.sh
. /suites/load-lib.sh
echo "TAP version 13"
p=/sys/module/cmabuf/parameters
t=/sys/kernel/tracing
[ -e $t/current_tracer ] || mount -t tracefs tracefs $t
n=${PARMIG_N:-3}
nc=$(nproc)
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
echo mono >$t/trace_clock
echo 65536 >$t/buffer_size_kb
echo 1 >$t/events/lock/contention_begin/enable
echo 1 >$t/events/lock/contention_end/enable
echo stacktrace >$t/events/lock/contention_begin/trigger

# cpu jiffies (user system irq softirq) per vCPU, one line
cpustat() {
	awk '/^cpu[0-9]/ { printf "%s %d %d ", $1, $2 + $3, $4 + $7 + $8 }' /proc/stat
}

sample() { # par
	cmabuf_load refill --socket "$load_sock" >/dev/null
	echo $1 >$p/migrate_parallel
	echo >$t/trace
	a=$(cpustat)
	echo 1 >$t/tracing_on
	cmabufctl bench load-64m --device large --iterations 1 \
		--strategy compound --json 2>/dev/null | grep '^{' >/tmp/b.json
	echo 0 >$t/tracing_on
	b=$(cpustat)
	sed "s/^/# bench-json par=$1 /" /tmp/b.json
	echo "# parmig4 par=$1 cpustat before: $a after: $b"
	awk -v par=$1 '
	/^ => / && cur != "" {
		f = $2
		if (f ~ /^(queued_|_raw_|do_raw_|__raw_|native_|lock_|stack_trace|trace_|__traceiter|__probe|event_|ftrace)/ || site[cur] != "") next
		site[cur] = f
		next
	}
	/contention_begin:/ || /contention_end:/ {
		for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) ts = substr($i, 1, length($i) - 1) + 0
		pid = $1; sub(/.*-/, "", pid)
		if ($0 ~ /contention_begin:/) {
			match($0, /flags=[A-Z|]+/); fl[pid] = substr($0, RSTART + 6, RLENGTH - 6)
			beg[pid] = ts; cur = pid; site[pid] = ""
		} else if (pid in beg) {
			cur = ""
			w = ts - beg[pid]; k = fl[pid] " at " site[pid]
			cnt[k]++; tot[k] += w; delete beg[pid]
		}
	}
	END {
		printf "# parmig4 par=%s contention:", par
		for (k in cnt) printf " %s %d waits %.1f ms;", k, cnt[k], tot[k] * 1000
		printf "\n"
	}' $t/trace
	echo "# overrun: $(cat $t/per_cpu/cpu*/stats | awk '/^overrun/ { n += $2 } END { print n + 0 }')"
}

if load_start fill --area large-pool --free-below 16M --room 1152M; then
	i=1
	while [ $i -le $n ]; do
		sample 0
		sample 1
		i=$((i + 1))
	done
	echo 1 >$p/migrate_parallel
	load_stop >/dev/null
	echo "ok 1 measured"
else
	echo "not ok 1 the load did not start"
fi
echo '!stacktrace' >$t/events/lock/contention_begin/trigger
echo 0 >$t/events/lock/contention_begin/enable
echo 0 >$t/events/lock/contention_end/enable
echo "# host share: spin x1 $(spins 1) x$nc $(spins $nc)"
echo "1..1"
