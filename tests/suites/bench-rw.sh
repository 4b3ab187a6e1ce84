#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Direct file I/O timed (docs/benchmarks.md, "Files into buffers"):
# cmabuf_rw_bench (tests/rw/) on the guest's raw disk (tests/qemu/boot.sh:
# a file of the host that QEMU opens with O_DIRECT), CMABUF_IOC_RW against
# O_DIRECT into anonymous memory and the page cache into the mapping, for
# 64 MiB (a buffer of cmabuf-general) and 1 GiB (cmabuf-large, COMPOUND),
# both ways. In no kernel's default list: measures, checks only that every
# call moved the right bytes; boot it alone with
#   bash tests/qemu/boot.sh --suites bench-rw 7.2
#
#   CMABUF_BENCH_RW_RUNS  runs per size (default 7)

runs=${CMABUF_BENCH_RW_RUNS:-7}

echo "TAP version 13"
raw=
for s in /sys/block/*/serial; do
	[ -f "$s" ] && [ "$(cat "$s")" = cmabuf-raw ] && raw=/dev/$(basename "${s%/serial}")
done
if [ -z "$raw" ] || ! command -v cmabuf_rw_bench >/dev/null; then
	echo "1..0 # SKIP no raw disk (serial cmabuf-raw) or no cmabuf_rw_bench"
	exit 0
fi
echo "1..2"
echo "# $(nproc) CPUs, $(uname -r), disk $raw: $(cat /sys/block/${raw#/dev/}/size) sectors"
n=0
fails=0
for spec in "64M /dev/cmabuf-general" "1G /dev/cmabuf-large --compound"; do
	set -- $spec
	n=$((n + 1))
	if cmabuf_rw_bench --disk "$raw" --size "$1" --runs "$runs" --device "$2" $3; then
		echo "ok $n bench-rw $1"
	else
		echo "not ok $n bench-rw $1"
		fails=$((fails + 1))
	fi
done
[ $fails -eq 0 ]
