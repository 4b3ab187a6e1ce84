#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh [KERNEL...]: the whole test run behind "make check". Installs what
# is missing, builds the kernels, modules and programs, runs the host-side
# suites, boots every kernel with its guest suites, and judges everything
# into build/results/<target>/<suite>.tap with one summary at the end.

set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/kernel/common.sh"

[ $# -gt 0 ] || set -- 7.2 7.2-debug stock-6.1 stock-6.12 stock-6.12-16k stock-7.2
# make check-full (CMABUF_FULL=1): SUITES' "@full" suites, EXPECTED's
# "KERNEL full:" pins, and the long fuzz.
export CMABUF_FULL=${CMABUF_FULL:-0}
guest_env=()
[ "$CMABUF_FULL" = 1 ] && guest_env=(--env CMABUF_FUZZ_SCALE=2)
results=$CMABUF_BUILD/results
logs=$CMABUF_BUILD/logs
# Nothing of an earlier run may be judged as this one's: results and logs
# go, and every guest must say back this run's id (tests/qemu/boot.sh).
rm -rf "$results" "$logs"
mkdir -p "$results/host" "$logs"
run_id=check-$(date +%s)-$$

build_tap=$logs/build.tap
: >"$build_tap"
# Where the time went (tests/qemu/times.py): "KIND NAME START END" a line.
times=$logs/times
echo "run check $(date +%s) 0" >"$times"

# timed KIND NAME START: a line of $times that ends now.
timed() {
	echo "$1 $2 $3 $(date +%s)" >>"$times"
}

# step NAME CMD...: run a build step, its output in build/logs/NAME.log;
# record it as a test of the host "build" suite.
step() {
	local name=$1 start rc
	shift
	start=$(date +%s)
	log "$name ..."
	"$@" >"$logs/$name.log" 2>&1
	rc=$?
	timed step "$name" "$start"
	# Numbered at the end: steps in the background append here too.
	if [ $rc -eq 0 ]; then
		echo "ok - $name # $(($(date +%s) - start))s" >>"$build_tap"
	else
		echo "not ok - $name # exit $rc, see build/logs/$name.log" >>"$build_tap"
		log "$name FAILED (exit $rc); last lines of build/logs/$name.log:"
		tail -n 20 "$logs/$name.log" >&2
	fi
	return $rc
}

# host_suite NAME CMD...: a host-side suite that prints TAP.
host_suite() {
	local name=$1 rc start
	shift
	log "host suite $name"
	start=$(date +%s)
	"$@" >"$logs/host-$name.tap" 2>"$logs/host-$name.err"
	rc=$?
	timed host "$name" "$start"
	python3 "$here/collect.py" host "$results/host" "$name" "$rc" "$logs/host-$name.tap"
}

step deps bash "$here/install-deps.sh"

# A stock Debian kernel (stock-*, kernel/stock-images) is downloaded and
# unpacked, not built: beside the kernels' builds, which keep both cores
# busy but for their link steps (on a fresh machine, minutes saved), with
# the sid root that builds sid's modules. Its steps below then find them
# ready, or do again what failed.
prefetch() {
	local k start
	start=$(date +%s)
	for k in "$@"; do
		if is_stock "$k"; then
			bash "$top/kernel/stock-image.sh" fetch "$k"
			bash "$top/kernel/stock-image.sh" sid-root "$k"
		fi
	done
	timed prefetch stock "$start"
}
prefetch "$@" >"$logs/prefetch.log" 2>&1 &
prefetch_pid=$!

# The first test-bed kernel is built first: the headers and the programs
# come from its tree. The others (the debug kernel; check-full's) follow
# one after the other in the background, beside the headers, programs,
# modules and host suites, which keep one core busy, not two; the guests
# wait for them. have[K]: kernel K is there.
declare -A have
bed=()
for k in "$@"; do
	case $k in
	7.2) bed=("$k" "${bed[@]}") ;;
	*) is_stock "$k" || bed+=("$k") ;;
	esac
done
# build_kernel K: build test-bed kernel K; have[K] only in this shell.
build_kernel() {
	step "kernel-$1" bash "$here/build-kernels.sh" "$1" && have[$1]=1
}
bg_kernels_pid=
if [ ${#bed[@]} -gt 0 ]; then
	build_kernel "${bed[0]}"
	for k in "${bed[@]:1}"; do
		build_kernel "$k" && : >"$logs/.built-$k"
	done &
	bg_kernels_pid=$!
fi
for k in "$@"; do
	if is_stock "$k"; then
		[ -z "$prefetch_pid" ] || wait "$prefetch_pid"
		prefetch_pid=
		step "fetch-$k" bash "$top/kernel/stock-image.sh" fetch "$k" && have[$k]=1
	fi
done

if [ -f "$CMABUF_BUILD/kernel/7.2/Makefile" ]; then
	step headers make -C "$CMABUF_BUILD/kernel/7.2" ARCH=arm64 -s headers_install \
		INSTALL_HDR_PATH="$CMABUF_BUILD/headers"
elif [ ! -d "$CMABUF_BUILD/headers/include" ]; then
	# Only stock kernels asked for: the uapi headers from the 7.2
	# sources, which the guest's busybox helpers need anyway; no
	# kernel is built.
	step source-7.2 bash "$top/kernel/fetch-source.sh" 7.2 &&
	step headers make -C "$CMABUF_BUILD/src/7.2" O="$CMABUF_BUILD/stock/headers-7.2" \
		ARCH=arm64 -s headers_install INSTALL_HDR_PATH="$CMABUF_BUILD/headers"
fi
step userspace make -C "$top" userspace

# A stock kernel whose module does not build (the Kbuild refuses it) is
# still booted, with the suites that need no cmabuf.ko; the others are
# left out and said so (expected.tap), and its module step fails the run.
declare -A not_run ready
# build_module K: cmabuf.ko for kernel K; ready[K] when K can be booted.
build_module() {
	if is_stock "$1"; then
		if ! step "module-$1" bash "$top/kernel/stock-image.sh" module "$1"; then
			why=$(grep -m1 -o '\*\*\* cmabuf: [^.]*' "$logs/module-$1.log" || true)
			not_run[$1]="cmabuf.ko did not build for $1 (build/logs/module-$1.log${why:+: ${why#\*\*\* }})"
		fi
		ready[$1]=1
	elif [ ! -f "$top/Kbuild" ] || step "module-$1" make -C "$top" module KERNEL="$1"; then
		ready[$1]=1
	fi
}
for k in "$@"; do
	[ -z "${have[$k]:-}" ] || build_module "$k"
done

host_suite runner bash "$here/test-runner.sh"
host_suite cmabufctl make -s --no-print-directory -C "$top/userspace" unit
host_suite testctl make -s --no-print-directory -C "$top/tests/testctl" unit
host_suite bench-report python3 "$top/tests/bench/test_report.py"

[ -z "$bg_kernels_pid" ] || wait "$bg_kernels_pid"
for k in "${bed[@]:1}"; do
	[ ! -e "$logs/.built-$k" ] || build_module "$k"
done
booted=()
for k in "$@"; do
	[ -z "${ready[$k]:-}" ] || booted+=("$k")
done

# The guests. Most suites keep one vCPU busy, so two guests share the
# two cores well; only the speedup measurements need the machine alone.
# So: first each kernel's speedup suite in a guest of its own, one after
# the other; then every other guest from one queue that two workers take
# from (tests/qemu/queue.sh), the longest first: the debug kernel's and
# its second guest (boot.sh --second), then the others, then the suites
# that need a kernel command line of their own (boot.sh --list-apart),
# each in a short guest. The results of
# a guest booted apart join their kernel's at the end: SUITE.tap and
# guest-SUITE.tap (a second guest's: guest-second.tap, and SUITE-second.tap
# for a suite both guests ran).
. "$here/queue.sh"
apart=()

# guest RESULTS_DIR LOG_DIR BOOT_ARG...: boot.sh BOOT_ARG... with its logs
# in LOG_DIR, judged into RESULTS_DIR with boot.sh's exit status.
guest() {
	local dir=$1 log_dir=$2 rc=0 start
	shift 2
	start=$(date +%s)
	CMABUF_LOGS=$log_dir CMABUF_RUN_ID=$run_id bash "$here/boot.sh" "${guest_env[@]}" "$@" ||
		rc=$?
	timed guest "$(basename "$log_dir")" "$start"
	python3 "$here/collect.py" guest "$dir" "$log_dir" "$run_id" "$rc"
}

# boot_apart KERNEL SUITE: SUITE in a guest of its own.
boot_apart() {
	guest "$results/.$1-$2" "$logs/$1-$2" --suites "$2" "$1"
}

timed=() seconds=()
for k in "${booted[@]}"; do
	case " $(bash "$here/boot.sh" --list "$k") " in
	*" speedup "*) timed+=("$k") ;;
	esac
	for s in $(bash "$here/boot.sh" --list-apart "$k"); do
		apart+=("$k $s")
	done
	if [ -n "$(bash "$here/boot.sh" --list --second "$k")" ]; then
		seconds+=("$k")
	fi
done
for k in "${timed[@]}"; do
	boot_apart "$k" speedup
done

# The suites of a stock kernel that need no cmabuf.ko of its own.
NO_MODULE_SUITES="testbed vermagic kunit"

# boot_all KERNEL: every other suite of KERNEL.
boot_all() {
	if [ -n "${not_run[$1]:-}" ]; then
		guest "$results/$1" "$logs/$1" --suites "$NO_MODULE_SUITES" "$1"
	else
		guest "$results/$1" "$logs/$1" --except speedup "$1"
	fi
}
debug=() others=()
for k in "${booted[@]}"; do
	case $k in
	*-debug) debug+=("$k") ;;
	*) others+=("$k") ;;
	esac
done

# A user's side on the host, install and DKMS against the 7.2 tree, before
# 7.2's guest: its "dkms" suite loads the module DKMS built. And DKMS on
# Debian's 6.12 as its headers package installs it.
queue=$logs/.queue
# others_has KERNEL: KERNEL is booted in the queue.
others_has() {
	case " ${others[*]} " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}
guest_job() {
	case $1 in
	host)
		if others_has 7.2; then
			host_suite install bash "$top/tests/install/install-test.sh" 7.2
			host_suite dkms bash "$top/tests/install/dkms-test.sh" 7.2
		fi
		if others_has stock-6.12; then
			host_suite dkms-stock-6.12 bash "$top/tests/install/dkms-test.sh" stock-6.12
		fi
		mark_done "$queue" host
		;;
	all)
		[ "$2" != 7.2 ] || wait_done "$queue" host
		boot_all "$2"
		;;
	apart) boot_apart "$2" "$3" ;;
	second) guest "$results/.$2-second" "$logs/$2-second" --second "$2" ;;
	esac
}
jobs=()
for k in "${debug[@]}"; do
	jobs+=("all $k")
done
for k in "${seconds[@]}"; do
	jobs+=("second $k")
done
if others_has 7.2 || others_has stock-6.12; then
	jobs+=(host)
fi
for k in "${others[@]}"; do
	jobs+=("all $k")
done
for a in "${apart[@]}"; do
	jobs+=("apart $a")
done
run_queue "$queue" 2 guest_job "${jobs[@]}"

for k in "${timed[@]}"; do
	python3 "$here/collect.py" join "$results/$k" "$results/.$k-speedup" speedup
done
for a in "${apart[@]}"; do
	read -r k s <<<"$a"
	python3 "$here/collect.py" join "$results/$k" "$results/.$k-$s" "$s"
done
for k in "${seconds[@]}"; do
	python3 "$here/collect.py" join "$results/$k" "$results/.$k-second" second
done

# The speedup checks (tests/bench/speedup-checks) on this run's speedup
# suites: always in the summary, as skips where a kernel was not asked for.
host_suite speedup bash "$here/speedup-checks.sh" "$results" \
	"$CMABUF_BUILD/bench/check" "$@"

{
	echo "TAP version 13"
	echo "1..$(wc -l <"$build_tap")"
	awk '{ sub(/ok -/, "ok " NR); print }' "$build_tap"
} >"$logs/build-all.tap"
python3 "$here/collect.py" host "$results/host" build 0 "$logs/build-all.tap"
# Every kernel asked for must have been booted.
for k in "$@"; do
	[ -d "$results/$k" ] || {
		mkdir -p "$results/$k"
		printf 'TAP version 13\n1..1\nnot ok 1 kernel %s was built and booted\n' "$k" \
			>"$results/$k/guest.tap"
		echo 0 >"$results/$k/guest.rc"
	}
done

# Every kernel ran the suites tests/suites/EXPECTED pins for it, no
# fewer and no more.
for k in "$@"; do
	python3 "$here/collect.py" expect "$results/$k" "$k" "$top/tests/suites/EXPECTED" \
		"${not_run[$k]:-}"
done

# For the record: what the reliability suites did and found.
echo
echo "Record of this run:"
for f in "$results"/*/*.tap; do
	sed -n "s|^# record: |  $(basename "$(dirname "$f")") |p" "$f"
done
splats=$(grep -l '^not ok 2 console log' "$results"/*/guest.tap 2>/dev/null | wc -l)
echo "  kernels with a kernel report (oops, WARNING, KASAN, lockdep, kmemleak): $splats"

echo
timed run end "$(sed -n '1s/^run check \([0-9]*\).*/\1/p' "$times")"
python3 "$here/times.py" "$times" >"$logs/times.md" 2>&1 &&
	echo "Where the time went: build/logs/times.md"
python3 "$here/collect.py" summary "$results"
