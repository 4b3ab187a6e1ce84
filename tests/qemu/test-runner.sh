#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# test-runner.sh: the runner's own tests, on the host. Each case builds a
# guest log the way a real boot would leave it and checks what collect.py
# makes of it: a clean log must pass, and a WARNING, a failing test, a
# missing plan, a time-out and the other ways a run goes wrong must each
# fail it. With a built 7.2 kernel, a real boot with a one-second limit is
# also checked to fail. Prints TAP.

set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
collect=$here/collect.py
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

n=0
fails=0

# A guest log directory: console.log, results.log and status.
make_log() {
	local dir=$work/$1
	mkdir -p "$dir"
	printf '[    0.000000] Booting Linux\n[    2.000000] reboot: Power down\n' >"$dir/console.log"
	{
		echo "### cmabuf-guest-start 7.2 7.2.13"
		echo "### cmabuf-suite-begin demo"
		printf 'TAP version 13\n1..2\nok 1 first\nok 2 second\n'
		echo "### cmabuf-suite-end demo rc=0"
		echo "### cmabuf-guest-done"
	} >"$dir/results.log"
	echo "finished in 3s" >"$dir/status"
	echo "$dir"
}

# judge CASE pass|fail PATTERN PASSED: the summary of $work/results must
# agree with the expectation: a pass with PASSED tests passed, or a
# failure that names PATTERN.
judge() {
	local name=$1 want=$2 pattern=$3 passed=$4 out rc verdict
	out=$(python3 "$collect" summary "$work/results")
	rc=$?
	verdict=fail
	if [ "$want" = pass ] && [ $rc -eq 0 ] && grep -q "^$passed passed, 0 failed" <<<"$out"; then
		verdict=ok
	elif [ "$want" = fail ] && [ $rc -ne 0 ] && grep -q -- "$pattern" <<<"$out" &&
		grep -qE '^[0-9]+ passed, [1-9][0-9]* failed' <<<"$out"; then
		verdict=ok
	fi
	n=$((n + 1))
	if [ $verdict = ok ]; then
		echo "ok $n $name"
	else
		echo "not ok $n $name"
		sed 's/^/# /' <<<"$out"
		fails=$((fails + 1))
	fi
}

# expect CASE pass|fail PATTERN: judge the log of CASE.
expect() {
	rm -rf "$work/results"
	python3 "$collect" guest "$work/results/7.2" "$work/$1"
	judge "$1" "$2" "$3" 4
}

# expect_apart CASE pass|fail PATTERN [APART_LOG]: the clean log of CASE as
# the kernel's guest, joined by a guest booted apart for dma-bounce, whose
# log is APART_LOG (none: it never ran).
expect_apart() {
	rm -rf "$work/results"
	python3 "$collect" guest "$work/results/7.2" "$work/$1"
	[ -n "${4:-}" ] && python3 "$collect" guest "$work/results/.7.2-dma-bounce" "$4"
	python3 "$collect" join "$work/results/7.2" "$work/results/.7.2-dma-bounce" dma-bounce
	judge "$1" "$2" "$3" 8
}

echo "TAP version 13"
echo "1..22"

make_log clean_run_passes >/dev/null
expect clean_run_passes pass ""

d=$(make_log warning_fails)
echo '[    1.500000] WARNING: CPU: 0 PID: 1 at mm/cma.c:100 cma_alloc+0x1/0x2' >>"$d/console.log"
expect warning_fails fail "console log has no kernel splat"

d=$(make_log oops_fails)
echo '[    1.500000] Internal error: Oops: 0000000096000004 [#1] SMP' >>"$d/console.log"
expect oops_fails fail "console log has no kernel splat"

d=$(make_log kasan_report_fails)
echo '[    1.500000] BUG: KASAN: slab-use-after-free in cmabuf_release+0x10/0x20' >>"$d/console.log"
expect kasan_report_fails fail "console log has no kernel splat"

d=$(make_log kmemleak_report_fails)
echo '[    9.000000] kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)' >>"$d/console.log"
expect kmemleak_report_fails fail "console log has no kernel splat"

d=$(make_log failing_test_fails)
sed -i 's/^ok 2 second/not ok 2 second/' "$d/results.log"
expect failing_test_fails fail "not ok second"

d=$(make_log missing_plan_fails)
sed -i '/^1\.\.2$/d' "$d/results.log"
expect missing_plan_fails fail "no plan"

d=$(make_log short_run_fails)
sed -i '/^ok 2 second/d' "$d/results.log"
expect short_run_fails fail "planned 2 tests, ran 1"

d=$(make_log failing_subtest_fails)
sed -i 's/^ok 2 second/    1..1\n    not ok 1 inner\nok 2 second/' "$d/results.log"
expect failing_subtest_fails fail "not ok inner"

d=$(make_log nonzero_exit_fails)
sed -i 's/rc=0/rc=1/' "$d/results.log"
expect nonzero_exit_fails fail "exit status 1"

d=$(make_log timeout_fails)
sed -i '/cmabuf-suite-end/d; /cmabuf-guest-done/d' "$d/results.log"
echo "timeout after 1500s" >"$d/status"
expect timeout_fails fail "guest ran every suite"

# A suite that cannot run what it tests (the DKMS build, the KUnit module
# missing from the initramfs) bails out.
d=$(make_log bail_out_fails)
sed -i 's/^1\.\.2$/Bail out! no module built by DKMS/; /^ok [12] /d' "$d/results.log"
expect bail_out_fails fail "Bail out! no module built by DKMS"

# A host suite (install, dkms) that exits non-zero fails, all its lines ok.
n=$((n + 1))
rm -rf "$work/results"
printf 'TAP version 13\n1..1\nok 1 fine\n' >"$work/host.tap"
python3 "$collect" host "$work/results/host" dkms 1 "$work/host.tap"
out=$(python3 "$collect" summary "$work/results")
if [ $? -ne 0 ] && grep -q "dkms: exit status 1" <<<"$out"; then
	echo "ok $n host_suite_exit_fails"
else
	echo "not ok $n host_suite_exit_fails"
	sed 's/^/# /' <<<"$out"
	fails=$((fails + 1))
fi

# The test bed builds the test modules (TESTS=1) and fails without them.
n=$((n + 1))
recipe=$(sed -n '/^module:/,/^$/p' "$top/Makefile")
if grep -q ' TESTS=1 modules' <<<"$recipe" &&
   grep -q '^	test -f .*/tests/kunit/cmabuf_kunit.ko$' <<<"$recipe" &&
   grep -q '^	test -f .*/tests/importer/cmabuf_importer.ko$' <<<"$recipe"; then
	echo "ok $n module_target_builds_test_modules"
else
	echo "not ok $n module_target_builds_test_modules"
	fails=$((fails + 1))
fi

# A guest booted apart (a suite with a kernel command line of its own)
# joins its kernel's results: clean it passes, and each way it can go
# wrong fails the run under its own name.
make_log apart_clean_passes >/dev/null
d=$(make_log apart_clean_guest)
sed -i 's/demo/dma-bounce/g' "$d/results.log"
expect_apart apart_clean_passes pass "" "$d"

make_log apart_timeout_fails >/dev/null
d=$(make_log apart_timeout_guest)
sed -i 's/demo/dma-bounce/g; /cmabuf-suite-end/d; /cmabuf-guest-done/d' "$d/results.log"
echo "timeout after 1500s" >"$d/status"
expect_apart apart_timeout_fails fail "guest-dma-bounce: not ok guest ran every suite" "$d"

make_log apart_splat_fails >/dev/null
d=$(make_log apart_splat_guest)
sed -i 's/demo/dma-bounce/g' "$d/results.log"
echo '[    3.000000] WARNING: CPU: 1 PID: 80 at kernel/dma/debug.c:1230 check_sg_segment+0x1/0x2' \
	>>"$d/console.log"
expect_apart apart_splat_fails fail "guest-dma-bounce: not ok console log" "$d"

make_log apart_never_booted_fails >/dev/null
expect_apart apart_never_booted_fails fail "guest of dma-bounce was booted"

# Suites with a kernel command line of their own are not in the default
# guest, are listed apart, and cannot share a guest with the others.
n=$((n + 1))
all=$(bash "$here/boot.sh" --list 7.2)
own=$(bash "$here/boot.sh" --list-apart 7.2)
if [ "$own" = dma-bounce ] && [[ " $all " != *" dma-bounce "* ]] &&
	[[ " $all " == *" dma "* ]] &&
	! bash "$here/boot.sh" --list --suites "dma dma-bounce" 7.2 >/dev/null 2>&1; then
	echo "ok $n apart_suites_boot_apart"
else
	echo "not ok $n apart_suites_boot_apart # '$all' / '$own'"
	fails=$((fails + 1))
fi

# make check boots the speedup suite alone, then every other suite: the
# two lists must split the kernel's suites between them.
n=$((n + 1))
all=$(bash "$here/boot.sh" --list 7.2)
rest=$(bash "$here/boot.sh" --list --except speedup 7.2)
if [ "$rest" = "$(printf '%s\n' $all | grep -vx speedup | xargs)" ] &&
   [ "$all" != "$rest" ]; then
	echo "ok $n except_drops_only_that_suite"
else
	echo "not ok $n except_drops_only_that_suite # '$all' / '$rest'"
	fails=$((fails + 1))
fi

# The speedup suite must take the machine for itself, and the others not.
n=$((n + 1))
alone=$(awk '$1 == "@alone"' "$top/tests/suites/SUITES")
if [[ " $alone " == *" speedup "* && " $alone " != *" fuzz "* ]]; then
	echo "ok $n speedup_runs_alone"
else
	echo "not ok $n speedup_runs_alone # '$alone'"
	fails=$((fails + 1))
fi

# A real boot that cannot finish in time must come back as a time-out.
n=$((n + 1))
if [ -f "$top/build/kernel/7.2/arch/arm64/boot/Image" ]; then
	logs=$top/build/logs/7.2-timeout-test
	CMABUF_LOGS=$logs bash "$here/boot.sh" --timeout 1 --suites testbed 7.2 >/dev/null 2>&1
	rc=$?
	python3 "$collect" guest "$work/real/7.2" "$logs"
	if [ $rc -eq 124 ] && grep -q timeout "$logs/status" &&
		! python3 "$collect" summary "$work/real" >/dev/null; then
		echo "ok $n real_boot_timeout_fails"
	else
		echo "not ok $n real_boot_timeout_fails # boot.sh exit $rc"
		fails=$((fails + 1))
	fi
else
	echo "ok $n real_boot_timeout_fails # SKIP kernel 7.2 not built"
fi
[ $fails -eq 0 ]
