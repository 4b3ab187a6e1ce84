#!/bin/sh
# Ran as tests/suites/zz-parmig.sh: tests/qemu/boot.sh --suites zz-parmig [--smp 4] 7.2
# (parmig2-4: the kernel and module of 0007 and cmabuf-opt-in.diff, beside).
# One-off (not a suite of make check), for docs/parallel-migration.md: does
# migration-shaped work gain from a second vCPU in this test bed, and what
# does a busy sibling vCPU cost a loaded cold ALLOC? Needs tlbbench
# (docs/bench/2026-12-05/parmig/tlbbench.c) in build/arm64/bin.
#   PARMIG_N      samples per condition of the loaded 64 MiB ALLOC (3)
#   PARMIG_1G     1: also one loaded 1 GiB ALLOC per condition
# Shell variables split on purpose.
# shellcheck disable=SC2086
. /suites/bench-lib.sh
. /suites/load-lib.sh
echo "TAP version 13"
nc=$(nproc)
echo "# vCPUs $nc"
last=$((nc - 1))

# micro MODE K: K instances at once on vCPUs 0..K-1, their summed rate.
micro() {
	i=0
	while [ $i -lt "$2" ]; do
		taskset -c $i tlbbench "$1" 3 >/tmp/micro.$i &
		i=$((i + 1))
	done
	wait
	cat /tmp/micro.* | awk '{ s += $2 } END { printf "%.0f", s }'
	rm -f /tmp/micro.*
}

for m in spin getppid mprotect dontneed; do
	line="# micro $m:"
	for k in 1 2 4; do
		[ $k -le "$nc" ] || continue
		line="$line x$k $(micro $m $k)"
	done
	taskset -c $last tlbbench spin 4 >/dev/null &
	sleep 0.3
	b=$(taskset -c 0 tlbbench $m 3 | awk '{ print $2 }')
	wait
	echo "$line; beside a spinner $b"
done
echo "ok 1 micro"

# A loaded cold ALLOC, the other vCPUs idle or spinning in user space.
PARMIG_N=${PARMIG_N:-3}
if load_start fill --area large-pool --free-below 16M --room 1152M; then
	for busy in 0 1 0 1; do
		sp=
		if [ $busy = 1 ]; then
			c=1
			while [ $c -le $last ]; do
				taskset -c $c tlbbench spin 100000 >/dev/null &
				sp="$sp $!"
				c=$((c + 1))
			done
		fi
		bench_tag="busy$busy"
		before=$(awk '/^pgmigrate_success/ { print $2 }' /proc/vmstat)
		taskset -c 0 cmabufctl bench load-64m --device large \
			--iterations $((PARMIG_N / 2 + 1)) --strategy legacy,cma-heap --json \
			--prepare "$load_refill" 2>/tmp/b.err | grep '^{' >/tmp/b.json
		after=$(awk '/^pgmigrate_success/ { print $2 }' /proc/vmstat)
		[ -n "$sp" ] && kill $sp
		wait 2>/dev/null
		echo "# parmig load-64m busy=$busy migrated $((after - before))"
		sed 's/^/# bench-json busy='$busy' /' /tmp/b.json
		sed 's/^/# /' /tmp/b.err
	done
	if [ "${PARMIG_1G:-0}" = 1 ]; then
		for busy in 0 1; do
			sp=
			if [ $busy = 1 ]; then
				c=1
				while [ $c -le $last ]; do
					taskset -c $c tlbbench spin 100000 >/dev/null &
					sp="$sp $!"
					c=$((c + 1))
				done
			fi
			before=$(awk '/^pgmigrate_success/ { print $2 }' /proc/vmstat)
			taskset -c 0 cmabufctl bench load-1g --iterations 1 \
				--strategy legacy --json --prepare "$load_refill" \
				2>/tmp/b.err | grep '^{' >/tmp/b.json
			after=$(awk '/^pgmigrate_success/ { print $2 }' /proc/vmstat)
			[ -n "$sp" ] && kill $sp
			wait 2>/dev/null
			echo "# parmig load-1g busy=$busy migrated $((after - before))"
			sed 's/^/# bench-json busy='$busy' /' /tmp/b.json
			sed 's/^/# /' /tmp/b.err
		done
	fi
	load_stop
	echo "ok 2 loaded"
else
	echo "not ok 2 the load did not start"
fi
echo "1..2"
