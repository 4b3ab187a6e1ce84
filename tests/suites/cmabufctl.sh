#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cmabufctl in the guest, as TAP: info, alloc with verify, the error lines
# and exit codes, share through vgem, and short runs of every workload
# kind. Busybox sh; needs cmabuf.ko loaded and root. Kernel-agnostic: what a
# kernel lacks (frozen, compound) is read from "cmabufctl info".

n=0
failed=0

ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}

# run CMD...: output in $out (stdout and stderr), exit status in $rc.
run() {
	out=$("$@" 2>&1)
	rc=$?
}

# Indent captured output as TAP diagnostics when a test failed.
diag() {
	[ "$1" -eq 0 ] || echo "$out" | sed 's/^/# /'
}

has() {
	echo "$out" | grep -q -- "$1"
}

lines() {
	echo "$out" | grep -c -- "$1"
}

echo "TAP version 13"
echo "1..16"

devices=0
for d in /dev/cmabuf /dev/cmabuf-*; do
	[ -c "$d" ] && devices=$((devices + 1))
done
run cmabufctl info
[ $rc -eq 0 ] && [ "$devices" -gt 0 ] && [ "$(lines '^/dev/cmabuf')" -eq "$devices" ]
r=$?; ok $r "info describes all $devices instances"; diag $r

run cmabufctl info --json
[ $rc -eq 0 ] && [ "$(lines '"area": ')" -eq "$devices" ]
r=$?; ok $r "info --json: one object per instance"; diag $r

run cmabufctl info --device default
strategies=$(echo "$out" | sed -n 's/^  strategies  //p')
[ $rc -eq 0 ] && [ -n "$strategies" ]
r=$?; ok $r "info --device default: strategies '$strategies'"; diag $r

run cmabufctl alloc 4M --fill 0xa5 --verify
[ $rc -eq 0 ] && has "zeroed on allocation: all 4194304 bytes are 0x00: ok" &&
	has "fill read back: all 4194304 bytes are 0xa5: ok"
r=$?; ok $r "alloc 4M --fill 0xa5 --verify reads zero, then the fill"; diag $r

run cmabufctl alloc 12X
[ $rc -eq 2 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] && has "bad size '12X'"
r=$?; ok $r "alloc 12X: one error line, exit 2"; diag $r

run cmabufctl alloc 99999999999999999999
[ $rc -eq 2 ] && has "out of range"
r=$?; ok $r "alloc of an overflowing size: out of range, exit 2"; diag $r

run cmabufctl alloc 4K --device nosuch
[ $rc -eq 1 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] &&
	has "/dev/cmabuf-nosuch: no such device"
r=$?; ok $r "alloc on a missing device: one error line, exit 1"; diag $r

run cmabufctl alloc 64G
[ $rc -eq 1 ] && [ "$(echo "$out" | wc -l)" -eq 1 ]
r=$?; ok $r "alloc 64G: refused with one error line, exit 1"; diag $r

run cmabufctl share
[ $rc -eq 0 ] && has "^vgem: [0-9]* checks passed, 0 failed" && ! has "FAIL"
r=$?; ok $r "share: every vgem check passed"; diag $r

run cmabufctl bench contig-64m --iterations 2 --json --strategy legacy,cma-debugfs
[ $rc -eq 0 ] && [ "$(lines '"n": 2')" -eq 4 ] &&
	has '"path": "cmabuf-legacy", "workload": "contig-64m", "phase": "free"' &&
	has '"path": "cma-debugfs", "workload": "contig-64m", "phase": "alloc"'
r=$?; ok $r "bench contig-64m: legacy and cma-debugfs, alloc and free, n=2"; diag $r

run cmabufctl bench e2e-64m --iterations 1 --strategy legacy --json
[ $rc -eq 0 ] && [ "$(lines '"path": "cmabuf-legacy"')" -eq 5 ] &&
	has '"phase": "touch"' && has '"phase": "munmap"'
r=$?; ok $r "bench e2e-64m: five phases"; diag $r

run cmabufctl bench blocks-2m --iterations 1 --strategy legacy
[ $rc -eq 0 ] && has "^cmabuf-legacy *alloc *512 " && has "^cmabuf-legacy *free *512 "
r=$?; ok $r "bench blocks-2m: per-block table of 512 blocks"; diag $r

for s in frozen compound; do
	run cmabufctl bench contig-64m --iterations 1 --strategy $s
	case " $strategies " in
	*" $s "*)
		[ $rc -eq 0 ] && has "^cmabuf-$s *free *1 "
		r=$?; ok $r "bench --strategy $s runs where the kernel has it" ;;
	*)
		[ $rc -eq 1 ] && has "strategy $s is not supported by this kernel"
		r=$?; ok $r "bench --strategy $s is refused where the kernel lacks it" ;;
	esac
	diag $r
done

run cmabufctl bench contig-64m --strategy nosuch
[ $rc -eq 2 ] && has "unknown path 'nosuch'"
r=$?; ok $r "bench with an unknown path: exit 2"; diag $r

run cmabufctl info --json
[ $rc -eq 0 ] && [ "$(lines '"live_buffers": 0,')" -eq "$devices" ]
r=$?; ok $r "no buffer left behind on any instance"; diag $r

[ $failed -eq 0 ]
