#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# speedup-checks.sh RESULTS OUT KERNEL...: the checks listed in
# tests/bench/speedup-checks, on the speedup suites of one "make check"
# run (RESULTS/<kernel>/speedup.tap), as TAP; the merged report goes to
# OUT. "before" is 6.12's suite and "after" 7.2's. KERNEL... are the
# kernels the run was asked for: a check that needs one that is not among
# them is a skip that says so; one whose kernel was asked for but left no
# results fails.

set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

results=${1:?usage: speedup-checks.sh RESULTS OUT KERNEL...}
out=${2:?usage: speedup-checks.sh RESULTS OUT KERNEL...}
shift 2
mkdir -p "$out"

args=()
for side in before:6.12 after:7.2; do
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

exec python3 "$top/tests/bench/report.py" --before "$out/6.12.jsonl" \
	--after "$out/7.2.jsonl" --out-dir "$out" --no-chart --min-n 20 "${args[@]}"
