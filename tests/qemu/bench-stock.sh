#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-stock.sh [IMAGE...]: the stock part of "make bench" ("make
# bench-stock", "bench.sh --stock"): cmabufctl bench, the user's tool, on
# each of Debian's images as Debian ships them beside the patched 7.2.
#
# IMAGE: a stock image of kernel/stock-images; by default those "make
# check" boots (the Makefile's KERNELS, "make bench-stock-images").
# Fetches each image and builds its module (kernel/stock-image.sh), builds
# 7.2 and its module where missing, then boots each kernel alone with the
# bench-ctl suite as "make check" boots it (tests/suites/SUITES' @cmdline):
# 64 MiB and 1 GiB through every strategy the kernel offers, cpu-ref
# around each (tests/suites/bench-ctl.sh). Writes
# build/bench/stock.{json,md} (tests/bench/ctl_report.py). A boot that
# does not finish, a failed test, a non-zero exit of the suite or a
# kernel splat in the console stops it. CMABUF_BENCH_SHORT=1: a few
# iterations of each, to try it.

set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/kernel/common.sh"

images=("$@")
if [ ${#images[@]} -eq 0 ]; then
	read -ra images <<<"$(make -s --no-print-directory -C "$top" bench-stock-images)"
fi
[ ${#images[@]} -gt 0 ] || die "no stock image to measure"
out=$CMABUF_BUILD/bench
mkdir -p "$out"

bash "$here/install-deps.sh"
bash "$here/build-kernels.sh" 7.2
[ -d "$CMABUF_BUILD/headers/include" ] ||
	make -C "$CMABUF_BUILD/src/7.2" O="$CMABUF_BUILD/stock/headers-7.2" ARCH=arm64 \
		-s headers_install INSTALL_HDR_PATH="$CMABUF_BUILD/headers"
make -s -C "$top/userspace" ARCH=arm64
make -s -C "$top/tests/testctl"
make -s -C "$top" module KERNEL=7.2
for k in "${images[@]}"; do
	is_stock "$k" || die "$k is not a stock image (kernel/stock-images)"
	bash "$top/kernel/stock-image.sh" fetch "$k"
	bash "$top/kernel/stock-image.sh" module "$k"
done

taps=()
for k in "${images[@]}" 7.2; do
	logs=$CMABUF_BUILD/logs/$k-bench-ctl
	results=$CMABUF_BUILD/results-bench-ctl/$k
	log "$k: cmabufctl bench"
	# The parameters of its make check guests (6.1 and 6.12: a longer
	# RCU stall time-out), which change nothing that is timed.
	append=$(bash "$here/boot.sh" --list-cmdline "$k")
	CMABUF_LOGS=$logs bash "$here/boot.sh" --suites bench-ctl \
		${append:+--append "$append"} \
		${CMABUF_BENCH_SHORT:+--env CMABUF_BENCH_SHORT=$CMABUF_BENCH_SHORT} "$k" ||
		die "the $k guest did not finish; see $logs/console.log"
	python3 "$here/collect.py" guest "$results" "$logs"
	tap=$results/bench-ctl.tap
	[ -f "$tap" ] || die "$k: no results; see $logs/console.log"
	grep -q '^not ok' "$results/guest.tap" &&
		die "$k: the guest failed ($(grep -m1 '^not ok' "$results/guest.tap")), see $logs/console.log"
	grep -q '^not ok' "$tap" && die "$k: a benchmark failed, see $tap"
	[ "$(cat "$results/bench-ctl.rc")" = 0 ] ||
		die "$k: the bench-ctl suite exited $(cat "$results/bench-ctl.rc"), see $tap"
	taps+=("$k=$tap")
done

python3 "$top/tests/bench/ctl_report.py" --out-dir "$out" "${taps[@]}"
echo
cat "$out/stock.md"
log "report: $out/stock.md, $out/stock.json"
