#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh [--demo | --stock]: the before/after benchmark.
#
# Builds what is missing (kernels 6.12 and 7.2, their modules, the arm64
# programs), boots 6.12 ("before": LEGACY, the page-by-page free) and 7.2
# ("after": every strategy), runs the "bench" suite in each and merges the
# results into build/bench/report.{json,md,png}. Each kernel is booted in
# three settings, each a table of the report: as Debian ships it
# (init_on_alloc=1, the page allocator clears) with 2 vCPUs, the full
# suite; then, for the end-to-end rows and their limits, init_on_alloc=0
# (cmabuf clears, on every CPU) with 2 vCPUs and with 1. Then the stock
# part (bench-stock.sh: cmabufctl bench on Debian's images of "make check"
# beside 7.2), whose table follows in report.md, its figures in stock.json,
# and 7.2's bench-rw (files into buffers), whose lines end it (rw.tap).
#
# With --stock ("make bench-stock"): the stock part alone, into
# build/bench/stock.{json,md}.
#
# With --demo ("make demo"): first, before any kernel is built, Debian's
# own 6.12 as packaged (stock-6.12: downloaded, the module built against
# its headers) with the "demo" suite (info, a buffer allocated, verified
# and shared, a short benchmark of the DMA strategy), printed as it comes;
# then boots 7.2 with the demo suite, then 6.12 with the same short
# benchmark, and prints the table: the end-to-end
# figures first (every buffer cleared), then the in-kernel ones, where an
# allocation that clears nothing is compared with LEGACY's, which the page
# allocator clears, only with its clearing added (alloc+clear, timed
# beside each allocation).

set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/kernel/common.sh"

[ "${1:-}" = --stock ] && exec bash "$here/bench-stock.sh"
suite=bench
[ "${1:-}" = --demo ] && suite=demo
out=$CMABUF_BUILD/bench
[ $suite = demo ] && out=$CMABUF_BUILD/bench/demo
mkdir -p "$out"

bash "$here/install-deps.sh"
if [ $suite = demo ]; then
	# What a board on Debian's 6.12 gets, in minutes: no kernel to build.
	bash "$top/kernel/fetch-source.sh" 7.2
	[ -d "$CMABUF_BUILD/headers/include" ] ||
		make -C "$CMABUF_BUILD/src/7.2" O="$CMABUF_BUILD/stock/headers-7.2" ARCH=arm64 \
			-s headers_install INSTALL_HDR_PATH="$CMABUF_BUILD/headers"
	bash "$top/kernel/stock-image.sh" fetch stock-6.12
	bash "$top/kernel/stock-image.sh" module stock-6.12
	make -s -C "$top/userspace" ARCH=arm64
	make -s -C "$top/tests/testctl"
	logs=$CMABUF_BUILD/logs/stock-6.12-demo
	CMABUF_LOGS=$logs bash "$here/boot.sh" --suites demo stock-6.12 ||
		die "the stock-6.12 guest did not finish; see $logs/console.log"
	results=$CMABUF_BUILD/results-demo/stock-6.12
	python3 "$here/collect.py" guest "$results" "$logs"
	sed -n 's/^# \{0,1\}//p' "$results/demo.tap" | grep -v '^bench-json ' || true
	grep -q '^not ok' "$results/demo.tap" && die "stock-6.12: a demo step failed, see $results/demo.tap"
	log "Debian's 6.12 as shipped: above. Now the kernels with the frozen API (7.2) and 6.12 to compare, built here"
fi
bash "$here/build-kernels.sh" 7.2 6.12
make -s -C "$top/userspace" ARCH=arm64
make -s -C "$top/tests/testctl"
for k in 7.2 6.12; do
	make -s -C "$top" module KERNEL=$k
done

# Settings: "name|kernel parameters|vCPUs|guest environment".
settings=("shipped||2|")
[ $suite = bench ] && settings+=(
	"init_on_alloc=0|init_on_alloc=0|2|CMABUF_BENCH_SHORT=1"
	"1-vcpu|init_on_alloc=0|1|CMABUF_BENCH_SHORT=1")

for k in 7.2 6.12; do
	: >"$out/$k.jsonl"
	for s in "${settings[@]}"; do
		IFS='|' read -r name cmdline smp env <<<"$s"
		logs=$CMABUF_BUILD/logs/$k-$suite-$name
		CMABUF_LOGS=$logs bash "$here/boot.sh" --suites "$suite" \
			${cmdline:+--append "$cmdline"} --smp "$smp" \
			${env:+--env "$env"} "$k" ||
			die "the $k guest ($name) did not finish; see $logs/console.log"
		results=$CMABUF_BUILD/results-$suite/$k-$name
		python3 "$here/collect.py" guest "$results" "$logs"
		tap=$results/$suite.tap
		if [ $suite = demo ] && [ $k = 7.2 ]; then
			sed -n 's/^# \{0,1\}//p' "$tap" | grep -v '^bench-json ' || true
		fi
		sed -n 's/^# bench-json //p' "$tap" >>"$out/$k.jsonl"
		grep -q '^not ok' "$tap" && die "$k ($name): a benchmark failed, see $tap"
	done
done

# Files into buffers (bench-rw): CMABUF_IOC_RW against O_DIRECT into
# anonymous memory and the page cache, 64 MiB and 1 GiB both ways, on 7.2.
if [ $suite = bench ]; then
	logs=$CMABUF_BUILD/logs/7.2-bench-rw
	CMABUF_LOGS=$logs bash "$here/boot.sh" --suites bench-rw 7.2 ||
		die "the 7.2 guest (bench-rw) did not finish; see $logs/console.log"
	results=$CMABUF_BUILD/results-bench/7.2-rw
	python3 "$here/collect.py" guest "$results" "$logs"
	cp "$results/bench-rw.tap" "$out/rw.tap"
	grep -q '^not ok' "$out/rw.tap" && die "7.2 (bench-rw): a benchmark failed, see $out/rw.tap"
fi

python3 "$top/tests/bench/report.py" --before "$out/6.12.jsonl" --after "$out/7.2.jsonl" \
	--out-dir "$out" >/dev/null
kernels=()
for k in 7.2 6.12; do
	kernels+=("$k:$top/kernel/configs/debian-$k.config:$(kernel_out_dir "$k")/.config")
done
{
	echo
	python3 "$top/tests/bench/kernel_options.py" "${kernels[@]}"
} >>"$out/report.md"
if [ $suite = bench ]; then
	bash "$here/bench-stock.sh"
	{
		echo
		echo "## cmabufctl bench on Debian's kernels as shipped, beside 7.2"
		echo
		cat "$out/stock.md"
		echo
		echo "## Files into buffers: CMABUF_IOC_RW against O_DIRECT and the page cache (7.2)"
		echo
		echo '```'
		sed -n 's/^# \{0,1\}//p' "$out/rw.tap" | grep -v '^bench-rw-json '
		echo '```'
	} >>"$out/report.md"
fi
echo
cat "$out/report.md"
echo
log "report: $out/report.md, $out/report.json, $out/report.png"
