#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# speedup-checks.sh RESULTS OUT KERNEL...: the checks listed in
# tests/bench/speedup-checks, on the speedup suites of one "make check"
# run (RESULTS/<kernel>/speedup.tap), as TAP; the merged report goes to
# OUT. "before" is 6.12's suite, the test bed's 6.12 where KERNEL... has
# it (make check-full, make bench), else Debian's own (stock-6.12, make
# check), and "after" 7.2's. Debian's 6.12 exports nothing of CMA: its
# path is the DMA API's, which frees as LEGACY does (cma_release()) but
# clears twice on ALLOC (init_on_alloc, then dma-direct): a check of
# before:cmabuf-legacy alone is a skip there (docs/testing.md). KERNEL...
# are the kernels the run was asked for: a check that needs one that is
# not among them is a skip that says so; one whose kernel was asked for
# but left no results fails.

set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

results=${1:?usage: speedup-checks.sh RESULTS OUT KERNEL...}
out=${2:?usage: speedup-checks.sh RESULTS OUT KERNEL...}
shift 2
mkdir -p "$out"

args=()
before=6.12
if [[ " $* " != *" 6.12 "* && " $* " == *" stock-6.12 "* ]]; then
	before=stock-6.12
	args+=(--unavailable "before:cmabuf-legacy=the before kernel is Debian's 6.12, \
whose DMA API path clears twice on ALLOC; make check-full has the test bed's 6.12")
fi
for side in before:$before after:7.2; do
	k=${side#*:}
	side=${side%%:*}
	: >"$out/$k.jsonl"
	if [[ " $* " != *" $k "* ]]; then
		args+=(--unavailable "$side=$k is not in KERNELS")
	elif [ -f "$results/$k/speedup.tap" ]; then
		sed -n 's/^# bench-json //p' "$results/$k/speedup.tap" >"$out/$k.jsonl"
	fi
done
while read -r line; do
	[ -n "$line" ] && args+=(--check "$line")
done < <(sed 's/#.*//' "$top/tests/bench/speedup-checks")

exec python3 "$top/tests/bench/report.py" --before "$out/$before.jsonl" \
	--before-label "$before" \
	--after "$out/7.2.jsonl" --out-dir "$out" --no-chart --min-n 20 "${args[@]}"
