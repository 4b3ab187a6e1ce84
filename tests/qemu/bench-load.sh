#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-load.sh: "make bench-load", allocation under memory load.
#
# Builds what is missing, boots 7.2 and 6.12 as Debian ships them
# (init_on_alloc=1, 2 vCPUs) with the "bench-load" suite, and merges what
# they measured into build/bench/load/: report.md, report.json and a
# latency CDF per workload (tests/bench/load_report.py). With
# CMABUF_LOAD_INIT0=1, 7.2 is also booted with init_on_alloc=0 for the
# concurrent and 64 MiB parts. Four more 7.2 boots each measure ready
# buffers given back under memory pressure ("shrink"). CMABUF_LOAD_ONLY=
# PREFIX boots only the settings whose name starts so (shipped, shrink,
# init_on_alloc=0). The guest's CMABUF_LOAD_* variables (see
# tests/suites/bench-load.sh) pass through.

set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/kernel/common.sh"

out=$CMABUF_BUILD/bench/load
mkdir -p "$out"

bash "$here/install-deps.sh"
bash "$here/build-kernels.sh" 7.2 6.12
make -s -C "$top/userspace" ARCH=arm64
make -s -C "$top/tests/testctl"
make -s -C "$top/tests/load"
for k in 7.2 6.12; do
	make -s -C "$top" module KERNEL=$k
done

env=CMABUF_TIMEOUT=3600
for v in CMABUF_LOAD_N64 CMABUF_LOAD_N1G CMABUF_LOAD_PARTS; do
	[ -n "${!v:-}" ] && env="$env $v=${!v// /,}"
done

# Settings: "name|kernel|kernel parameters|guest environment".
settings=("shipped|7.2||" "shipped|6.12||")
[ "${CMABUF_LOAD_INIT0:-0}" = 1 ] &&
	settings+=("init_on_alloc=0|7.2|init_on_alloc=0|CMABUF_LOAD_PARTS=idle,fill")
# Ready buffers under memory pressure, a boot per measurement.
for what in large,64M,4 general,12M,8; do
	for by in prepare reserve; do
		settings+=("shrink-${what%%,*}-$by|7.2||CMABUF_LOAD_PARTS=shrink CMABUF_SHRINK=$what,$by")
	done
done
# CMABUF_LOAD_ONLY=PREFIX: only the boots whose name starts so.
if [ -n "${CMABUF_LOAD_ONLY:-}" ]; then
	only=()
	for s in "${settings[@]}"; do
		[[ $s == "$CMABUF_LOAD_ONLY"* ]] && only+=("$s")
	done
	[ ${#only[@]} -gt 0 ] || die "no boot is named $CMABUF_LOAD_ONLY*"
	settings=("${only[@]}")
fi

inputs=()
for s in "${settings[@]}"; do
	IFS='|' read -r name k cmdline extra <<<"$s"
	logs=$CMABUF_BUILD/logs/$k-bench-load-$name
	start=$(date +%s)
	# shellcheck disable=SC2086 # one --env per variable
	CMABUF_LOGS=$logs bash "$here/boot.sh" --suites bench-load --timeout 4000 \
		${cmdline:+--append "$cmdline"} $(printf -- '--env %s ' $env $extra) \
		"$k" || die "the $k guest ($name) did not finish; see $logs/console.log"
	results=$CMABUF_BUILD/results-bench-load/$k-$name
	python3 "$here/collect.py" guest "$results" "$logs"
	tap=$results/bench-load.tap
	sed -n 's/^# \(bench\|load\|trace\|kill\|shrink\)-json //p' "$tap" >"$out/$k-$name.jsonl"
	inputs+=(--in "$out/$k-$name.jsonl")
	log "$k ($name): $(($(date +%s) - start)) s"
	grep -q '^not ok' "$tap" && die "$k ($name): a workload failed, see $tap"
done

python3 "$top/tests/bench/load_report.py" "${inputs[@]}" --out-dir "$out"
echo
cat "$out/report.md"
echo
log "report: $out/report.md, $out/report.json, $out/*.png"
