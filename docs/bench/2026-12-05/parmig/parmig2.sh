#!/bin/sh
# Ran as tests/suites/zz-parmig2.sh: tests/qemu/boot.sh --suites zz-parmig2 [--smp 4] 7.2
# (parmig2-4: the kernel and module of 0007 and cmabuf-opt-in.diff, beside).
# One-off (not a suite of make check), for docs/parallel-migration.md: a
# cold ALLOC with cmabuf's parallel migration on and off (migrate_parallel,
# 7.2 patch 0007), and the CMA heap, in one boot; idle, then under the
# fill of large-pool as make bench-load has it.
#   PARMIG_REPS   rounds of on/off (3)
#   PARMIG_N      samples per path and round, 64 MiB (3)
#   PARMIG_1G     0: no 1 GiB samples
#   PARMIG_ONLY1G 1: the 1 GiB samples only
# shellcheck disable=SC2086
. /suites/bench-lib.sh
. /suites/load-lib.sh
echo "TAP version 13"
p=/sys/module/cmabuf/parameters
echo "# vCPUs $(nproc); migrate_parallel $(cat $p/migrate_parallel 2>&1) min_mb $(cat $p/migrate_parallel_min_mb 2>&1)"
reps=${PARMIG_REPS:-3}
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
n=${PARMIG_N:-3}

run() { # TAG ARGS...: bench ARGS, its JSON tagged
	tag=$1
	shift
	cmabufctl bench "$@" --json 2>/tmp/b.err | grep '^{' >/tmp/b.json
	sed "s/^/# bench-json $tag /" /tmp/b.json
	sed 's/^/# /' /tmp/b.err
}

r=1
[ "${PARMIG_ONLY1G:-0}" = 1 ] && r=$((reps + 1))
while [ $r -le $reps ]; do
	for par in 1 0; do
		echo $par >$p/migrate_parallel
		run "idle par=$par" load-64m --device large --iterations $n \
			--strategy compound,cma-heap
	done
	r=$((r + 1))
done
echo "ok 1 idle"

if load_start fill --area large-pool --free-below 16M --room 1152M; then
	r=1
	[ "${PARMIG_ONLY1G:-0}" = 1 ] && r=$((reps + 1))
	while [ $r -le $reps ]; do
		for par in 1 0; do
			echo $par >$p/migrate_parallel
			run "fill par=$par" load-64m --device large --iterations $n \
				--strategy compound,cma-heap --prepare "$load_refill"
		done
		r=$((r + 1))
	done
	if [ "${PARMIG_1G:-1}" = 1 ]; then
		echo 100 >$p/prepare_max_percent
		r=1
		while [ $r -le $reps ]; do
			for par in 1 0; do
				echo $par >$p/migrate_parallel
				s=compound
				[ $par = 0 ] && s=compound,cma-heap
				run "fill par=$par" load-1g --iterations 1 \
					--strategy $s --heap large-pool@100000000 \
					--prepare "$load_refill"
			done
			r=$((r + 1))
		done
	fi
	echo 1 >$p/migrate_parallel
	load_stop >/dev/null
	echo "ok 2 loaded"
else
	echo "not ok 2 the load did not start"
fi
grep -E "^pgmigrate_(success|fail)" /proc/vmstat | sed 's/^/# /'
echo "# host share: spin x1 $(spins 1) x$nc $(spins $nc)"
echo "1..2"
