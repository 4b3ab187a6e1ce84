#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh [--demo]: the before/after benchmark.
#
# Builds what is missing (kernels 6.12 and 7.2, their modules, the arm64
# programs), boots 6.12 ("before": LEGACY, the page-by-page free) and 7.2
# ("after": every strategy), runs the "bench" suite in each and merges the
# results into build/bench/report.{json,md,png}.
#
# With --demo ("make demo"): boots 7.2 first with the "demo" suite (info,
# a buffer allocated, verified and shared, a short benchmark), then 6.12
# with the same short benchmark, and prints the table.

set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/kernel/common.sh"

suite=bench
[ "${1:-}" = --demo ] && suite=demo
out=$CMABUF_BUILD/bench
[ $suite = demo ] && out=$CMABUF_BUILD/bench/demo
mkdir -p "$out"

bash "$here/install-deps.sh"
bash "$here/build-kernels.sh" 7.2 6.12
make -s -C "$top/userspace" ARCH=arm64 TESTS=1
for k in 7.2 6.12; do
	make -s -C "$top" module KERNEL=$k
done

for k in 7.2 6.12; do
	bash "$here/boot.sh" --suites "$suite" "$k" ||
		die "the $k guest did not finish; see build/logs/$k/console.log"
	python3 "$here/collect.py" guest "$CMABUF_BUILD/results-$suite/$k" "$CMABUF_BUILD/logs/$k"
	tap=$CMABUF_BUILD/results-$suite/$k/$suite.tap
	if [ $suite = demo ] && [ $k = 7.2 ]; then
		sed -n 's/^# \{0,1\}//p' "$tap" | grep -v '^bench-json ' || true
	fi
	sed -n 's/^# bench-json //p' "$tap" >"$out/$k.jsonl"
	grep -q '^not ok' "$tap" && die "$k: a benchmark failed, see $tap"
done

python3 "$top/tests/bench/report.py" --before "$out/6.12.jsonl" --after "$out/7.2.jsonl" \
	--out-dir "$out" >/dev/null
echo
cat "$out/report.md"
echo
log "report: $out/report.md, $out/report.json, $out/report.png"
