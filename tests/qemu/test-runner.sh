#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# test-runner.sh: the runner's own tests, on the host. Each case builds a
# guest log the way a real boot would leave it and checks what collect.py
# makes of it: a clean log must pass, and a WARNING, a failing test, a
# missing plan, a time-out and the other ways a run goes wrong must each
# fail it (a known report outside cmabuf is excused only whole, from its
# own culprit); so must logs left by an earlier run, a boot.sh that failed, a
# suite that plans no test, the suites that find nothing to run or scan
# or cannot run what they are for, a suite without the kernel's KTAP
# helpers, and speedup checks without their kernel's results. boot.sh
# itself must
# remove the old logs before anything can fail. With a built 7.2 kernel, a
# real boot with a one-second limit is also checked to fail. Prints TAP.

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
		echo "### cmabuf-guest-start 7.2 7.2.13 run=this-run"
		echo "### cmabuf-suite-begin demo"
		printf 'TAP version 13\n1..2\nok 1 first\nok 2 second\n'
		echo "### cmabuf-suite-end demo rc=0"
		echo "### cmabuf-guest-done"
	} >"$dir/results.log"
	echo "finished in 3s" >"$dir/status"
	echo "$dir"
}

# report NAME pass|fail PATTERN SUMMARY RC: one test line. A pass needs
# summary exit 0 and the line "PATTERN" (a regex for the last line); a
# failure needs a non-zero exit, a failure counted and PATTERN named.
report() {
	local name=$1 want=$2 pattern=$3 out=$4 rc=$5 verdict=fail
	if [ "$want" = pass ] && [ "$rc" -eq 0 ] && grep -qE -- "$pattern" <<<"$out"; then
		verdict=ok
	elif [ "$want" = fail ] && [ "$rc" -ne 0 ] && grep -q -- "$pattern" <<<"$out" &&
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

# expect CASE pass|fail PATTERN [RUN_ID BOOT_RC]: judge the log of CASE as
# make check does (run "this-run", boot.sh exit 0 unless given); the
# summary must agree with the expectation, and a failure must name PATTERN.
expect() {
	local name=$1 want=$2 pattern=$3 out rc
	rm -rf "$work/results"
	python3 "$collect" guest "$work/results/7.2" "$work/$name" "${4:-this-run}" "${5:-0}"
	out=$(python3 "$collect" summary "$work/results")
	rc=$?
	[ "$want" = pass ] && pattern='^4 passed, 0 failed'
	report "$name" "$want" "$pattern" "$out" $rc
}

# expect_apart CASE pass|fail PATTERN [APART_LOG]: the clean log of CASE as
# the kernel's guest, joined by a guest booted apart for dma-bounce, whose
# log is APART_LOG (none: it never ran).
expect_apart() {
	local name=$1 want=$2 pattern=$3 out rc
	rm -rf "$work/results"
	python3 "$collect" guest "$work/results/7.2" "$work/$name" this-run 0
	[ -n "${4:-}" ] &&
		python3 "$collect" guest "$work/results/.7.2-dma-bounce" "$4" this-run 0
	python3 "$collect" join "$work/results/7.2" "$work/results/.7.2-dma-bounce" dma-bounce
	out=$(python3 "$collect" summary "$work/results")
	rc=$?
	[ "$want" = pass ] && pattern='^8 passed, 0 failed'
	report "$name" "$want" "$pattern" "$out" $rc
}

# host_expect CASE pass|fail PATTERN CMD...: CMD's TAP judged as a host
# suite.
host_expect() {
	local name=$1 want=$2 pattern=$3 out rc
	shift 3
	rm -rf "$work/hresults"
	"$@" >"$work/$name.tap" 2>"$work/$name.err"
	rc=$?
	python3 "$collect" host "$work/hresults/host" "$name" "$rc" "$work/$name.tap"
	out=$(python3 "$collect" summary "$work/hresults")
	rc=$?
	report "$name" "$want" "$pattern" "$out" $rc
}

echo "TAP version 13"
echo "1..92"

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

# A CI log keeps only the summary: it shows what the test said.
d=$(make_log failing_test_shows_why)
sed -i 's/^ok 2 second/#  RUN second\n# t.c:7:second:Expected 0 (0) == ret (28)\n#  FAIL second\nnot ok 2 second/' \
	"$d/results.log"
expect failing_test_shows_why fail "^  | # t.c:7:second:Expected 0 (0) == ret (28)$"

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

# A suite the guest killed at its time-out per suite says so, with where
# its processes were; the splat line names the report, not "Call trace:".
d=$(make_log suite_timeout_fails)
sed -i 's/^### cmabuf-suite-end demo rc=0$/### cmabuf-suite-end demo rc=137 seconds=900 timeout=900/' \
	"$d/results.log"
expect suite_timeout_fails fail "exit status 137 (killed at the guest's time-out per suite, 900 s)"

d=$(make_log suite_timeout_shows_where)
sed -i 's/^ok 2 second$/ok 2 second\n# cmabuf-timeout: pid 99 (cmabuf_fuzz) state D, in cma_alloc/' \
	"$d/results.log"
expect suite_timeout_shows_where fail "demo: pid 99 (cmabuf_fuzz) state D, in cma_alloc"

d=$(make_log oom_kill_fails)
printf '%s\n' '[  9.0] cmabuf_fuzz invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0' \
	'[  9.1] Call trace:' >>"$d/console.log"
expect oom_kill_fails fail "2 lines, the first: \[  9.0\] cmabuf_fuzz invoked oom-killer"

# vivid's negative time-out (docs/importers.md) is excused as a whole and
# named; the same report from any other caller still fails. The dump is as
# the debug kernel printed it in make check (2026-12-03): tainted, so the
# taint flags have a line of their own.
vivid_report() {
	printf '%s\n' '[ 50.1] schedule_timeout: wrong timeout value ffffffffffffffff' \
		'[ 50.1] CPU: 1 UID: 0 PID: 412 Comm: vivid-000-vid-c Tainted: G           OE    N  7.2.13 #1 PREEMPTLAZY' \
		'[ 50.1] Tainted: [O]=OOT_MODULE, [E]=UNSIGNED_MODULE, [N]=TEST' \
		'[ 50.1] Hardware name: linux,dummy-virt (DT)' '[ 50.1] Call trace:' \
		'[ 50.1]  show_stack+0x2c/0x3c (C)' '[ 50.1]  dump_stack_lvl+0x94/0xc0' \
		'[ 50.1]  schedule_timeout+0x1b4/0x1c0' "[ 50.1]  $1+0x5d0/0x8f0 [vivid]" \
		'[ 50.1]  kthread+0x230/0x244' '[ 50.1]  ret_from_fork+0x10/0x20'
}
d=$(make_log vivid_negative_timeout_is_excused)
vivid_report vivid_thread_vid_cap >>"$d/console.log"
expect vivid_negative_timeout_is_excused pass ""
# ... and named, on its console line and in the record make check prints.
tap=$work/results/7.2/guest.tap
grep -q "^ok 2 console log has no kernel splat # 1 known report(s) outside cmabuf: vivid" "$tap"
rc=$?
report vivid_negative_timeout_is_named pass "^# record: known report outside cmabuf: vivid's" \
	"$(cat "$tap")" $rc

d=$(make_log negative_timeout_elsewhere_fails)
vivid_report vivid_thread_vid_out >>"$d/console.log"
expect negative_timeout_elsewhere_fails fail "console log has no kernel splat"

# vkms's writeback race (docs/importers.md) is excused as a whole: the
# WARNING at vkms_composer.c:561 from the composer's worker, with its
# modules, registers and IRQ state, as the debug kernel printed it in
# make check (2026-12-03). The same dump at :558, a plane with no mapping
# (which an exporter could cause), still fails.
vkms_report() {
	printf '%s\n' "[ 60.1] WARNING: ../../src/7.2/drivers/gpu/drm/vkms/vkms_composer.c:$1 at compose_active_planes+0x11d8/0x1b20 [vkms], CPU#0: kworker/u8:2/35" \
		'[ 60.1] Modules linked in: vkms vivid configfs drm_kms_helper cmabuf(OE) [last unloaded: vkms]' \
		'[ 60.1] CPU: 0 UID: 0 PID: 35 Comm: kworker/u8:2 Tainted: G           OE    N  7.2.13 #1 PREEMPTLAZY' \
		'[ 60.1] Tainted: [O]=OOT_MODULE, [E]=UNSIGNED_MODULE, [N]=TEST' \
		'[ 60.1] Hardware name: linux,dummy-virt (DT)' \
		'[ 60.1] Workqueue: vkms_composer vkms_composer_worker [vkms]' \
		'[ 60.1] pstate: 61400005 (nZCv daif +PAN -UAO -TCO +DIT -SSBS BTYPE=--)' \
		'[ 60.1] pc : compose_active_planes+0x11d8/0x1b20 [vkms]' \
		'[ 60.1] lr : vkms_composer_worker+0x2dc/0x4f0 [vkms]' \
		'[ 60.1] sp : ffff800080387820' \
		'[ 60.1] x29: ffff800080387820 x28: dfff800000000000 x27: 0000000000000001' \
		'[ 60.1] x2 : 1ffe000001008116 x1 : 0000000000000000 x0 : 0000000000000000' \
		'[ 60.1] Call trace:' '[ 60.1]  compose_active_planes+0x11d8/0x1b20 [vkms] (P)' \
		'[ 60.1]  vkms_composer_worker+0x2dc/0x4f0 [vkms]' \
		'[ 60.1]  process_one_work+0x720/0x1a90' '[ 60.1]  kthread+0x368/0x420' \
		'[ 60.1] irq event stamp: 59566' \
		'[ 60.1] hardirqs last  enabled at (59565): [<ffffa6359c3ed670>] _raw_spin_unlock_irq+0x38/0x98' \
		'[ 60.1] softirqs last disabled at (59523): [<ffffa6359b2103a4>] __do_softirq+0x1c/0x28' \
		'[ 60.1] ---[ end trace 0000000000000000 ]---'
}
d=$(make_log vkms_writeback_race_is_excused)
vkms_report 561 >>"$d/console.log"
expect vkms_writeback_race_is_excused pass ""
grep -q "^ok 2 console log has no kernel splat # 1 known report(s) outside cmabuf: vkms's writeback" \
	"$work/results/7.2/guest.tap"
rc=$?
report vkms_writeback_race_is_named pass "^# record: known report outside cmabuf: vkms's" \
	"$(cat "$work/results/7.2/guest.tap")" $rc

d=$(make_log vkms_plane_without_map_fails)
vkms_report 558 >>"$d/console.log"
expect vkms_plane_without_map_fails fail "console log has no kernel splat"

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

# A second guest's results join its kernel's: a suite both ran (same
# name) keeps both results, and a failure in the second's fails the run.
rm -rf "$work/results"
python3 "$collect" guest "$work/results/7.2" "$work/apart_clean_passes" this-run 0
d=$(make_log second_guest)
sed -i 's/^not ok/ok/; s/^ok 2 second$/not ok 2 second/' "$d/results.log"
python3 "$collect" guest "$work/results/.7.2-second" "$d" this-run 0
python3 "$collect" join "$work/results/7.2" "$work/results/.7.2-second" second
out=$(python3 "$collect" summary "$work/results")
report second_guest_keeps_both_results fail "demo-second" "$out" $?

# The debug kernel's second guest runs its fault injection, file I/O and
# the suites under load, set up as the first (heap-defaults) and scanned
# after (kmemleak), which the first runs too; the first runs the rest, and
# other kernels have no second guest.
n=$((n + 1))
first=$(bash "$here/boot.sh" --list 7.2-debug)
second=$(bash "$here/boot.sh" --list --second 7.2-debug)
if [ "$second" = "heap-defaults faults rw fuzz-load stress-load kmemleak" ] &&
   [[ " $first " != *" faults "* && " $first " != *" rw "* ]] &&
   [[ " $first " != *" fuzz-load "* && " $first " == *" heap-defaults "* ]] &&
   [[ " $first " == *" kmemleak "* && " $first " == *" cmabuf "* ]] &&
   [ -z "$(bash "$here/boot.sh" --list --second 7.2)" ] &&
   ! bash "$here/boot.sh" --list --second --suites faults 7.2-debug >/dev/null 2>&1; then
	echo "ok $n second_guest_splits_the_suites"
else
	echo "not ok $n second_guest_splits_the_suites # '$first' / '$second'"
	fails=$((fails + 1))
fi

# Suites with a kernel command line of their own are not in the default
# guest, are listed apart, and cannot share a guest with the others.
n=$((n + 1))
all=$(bash "$here/boot.sh" --list 7.2-debug)
own=$(bash "$here/boot.sh" --list-apart 7.2-debug)
if [ "$own" = dma-bounce ] && [[ " $all " != *" dma-bounce "* ]] &&
	[[ " $all " == *" dma "* ]] &&
	! bash "$here/boot.sh" --list --suites "dma dma-bounce" 7.2-debug >/dev/null 2>&1; then
	echo "ok $n apart_suites_boot_apart"
else
	echo "not ok $n apart_suites_boot_apart # '$all' / '$own'"
	fails=$((fails + 1))
fi

# The kernels with 16 and 64 KiB pages run the suites whose outcome
# depends on the page size and no others; the page size follows the name.
n=$((n + 1))
want="testbed kunit cmabuf cmabufctl heap-defaults sharing dma rw fuzz"
sizes=$(. "$top/kernel/common.sh" && for k in 7.2 7.2-debug 6.12 7.2-16k 7.2-64k; do
	kernel_page_size "$k"
done | xargs)
if [ "$(bash "$here/boot.sh" --list 7.2-64k)" = "$want" ] &&
	[ "$(bash "$here/boot.sh" --list 7.2-16k)" = "$want" ] &&
	[ -z "$(bash "$here/boot.sh" --list-apart 7.2-64k)" ] &&
	[ "$sizes" = "4k 4k 4k 16k 64k" ]; then
	echo "ok $n page_size_kernels_run_their_suites"
else
	echo "not ok $n page_size_kernels_run_their_suites # '$(bash "$here/boot.sh" --list 7.2-64k)' / $sizes"
	fails=$((fails + 1))
fi

# The page-size kernels build without the real importers (V4L2, DRM's
# vkms), which only the 4 KiB kernels' suites use, and the default lists
# of the Makefile, check.sh and build-kernels.sh (which builds no stock
# kernel) agree.
n=$((n + 1))
defaults=$(sed -n 's/^KERNELS ?= //p' "$top/Makefile")
frags=$(. "$top/kernel/common.sh" && for k in 7.2 7.2-debug 6.12 7.2-16k 7.2-64k; do
	printf '%s:%s ' "$k" "$(kernel_fragments "$k" | grep -c '/media.config$')"
done)
if [ -n "$defaults" ] &&
	grep -Fqx "[ \$# -gt 0 ] || set -- $defaults" "$here/check.sh" &&
	grep -Fqx "[ \$# -gt 0 ] || set -- $(tr ' ' '\n' <<<"$defaults" | grep -v '^stock-' | xargs)" \
		"$here/build-kernels.sh" &&
	[ "$frags" = "7.2:1 7.2-debug:1 6.12:1 7.2-16k:0 7.2-64k:0 " ]; then
	echo "ok $n page_size_kernels_without_importers_default_kernels_agree"
else
	echo "not ok $n page_size_kernels_without_importers_default_kernels_agree # '$defaults' / $frags"
	fails=$((fails + 1))
fi

# The guests' queue (check.sh): two workers run every job once, a job
# that waits for another's mark starts after it, and a long job does not
# hold the ones behind it: "long" beside the other four, which end first.
n=$((n + 1))
q_job() {
	case $1 in
	long) sleep 3 ;;
	host) sleep 1 && mark_done "$work/queue" host ;;
	after-host) wait_done "$work/queue" host ;;
	esac
	echo "$1 $(date +%s%N)" >>"$work/queue.log"
}
(
	. "$here/queue.sh"
	run_queue "$work/queue" 2 q_job long host after-host one two
)
q_order=$(sort -k2n "$work/queue.log" | cut -d' ' -f1 | xargs)
if [ "$q_order" = "host after-host one two long" ]; then
	echo "ok $n guest_queue_two_workers_every_job_once"
else
	echo "not ok $n guest_queue_two_workers_every_job_once # ended: $q_order"
	fails=$((fails + 1))
fi

# A device tree per page size: CMA regions are multiples of a pageblock
# (512 MiB with 64 KiB pages, 32 MiB with 16 KiB), else the kernel
# refuses them; 4 KiB kernels keep theirs.
n=$((n + 1))
dt_prop() {
	dtc -q -I dtb -O dts "$1" | awk -v node="$2" -v prop="$3" '
		$1 == node && $2 == "{" { inside = 1 }
		inside && $1 == prop { print $3 $4; exit }'
}
if command -v "${QEMU:-qemu-system-aarch64}" >/dev/null && command -v dtc >/dev/null; then
	for k in 7.2 7.2-16k 7.2-64k; do
		bash "$here/mkdtb.sh" "$k" "$work/$k.dtb" 2>/dev/null
	done
	got="$(dt_prop "$work/7.2.dtb" general-pool size) $(dt_prop "$work/7.2.dtb" cmabuf-taken size)"
	got="$got $(dt_prop "$work/7.2-16k.dtb" general-pool size) $(dt_prop "$work/7.2-16k.dtb" cmabuf-taken size)"
	got="$got $(dt_prop "$work/7.2-64k.dtb" general-pool size) $(dt_prop "$work/7.2-64k.dtb" cmabuf-taken size)"
	if [ "$got" = "<0x000x10000000>; <0x000x400000>; <0x000x10000000>; <0x000x2000000>; <0x000x20000000>; <0x000x20000000>;" ]; then
		echo "ok $n device_tree_per_page_size"
	else
		echo "not ok $n device_tree_per_page_size # $got"
		fails=$((fails + 1))
	fi
else
	echo "ok $n device_tree_per_page_size # SKIP no $QEMU or dtc"
fi

# Logs of an earlier run, or of a boot.sh that failed, are not this run's.
make_log stale_logs_fail >/dev/null
expect stale_logs_fail fail "results are not from this run" other-run 0

make_log failed_boot_sh_fails >/dev/null
expect failed_boot_sh_fails fail "boot.sh exit status 1" this-run 1

# A suite must run something, or say why it runs nothing.
d=$(make_log empty_plan_fails)
sed -i 's/^1\.\.2$/1..0/; /^ok [12] /d' "$d/results.log"
expect empty_plan_fails fail "plans no test"

d=$(make_log skipped_plan_is_a_skip)
sed -i 's/^1\.\.2$/1..0 # SKIP nothing here on this kernel/; /^ok [12] /d' "$d/results.log"
expect_skip_out=$(rm -rf "$work/results"
	python3 "$collect" guest "$work/results/7.2" "$d" this-run 0
	python3 "$collect" summary "$work/results")
report skipped_plan_is_a_skip pass '^2 passed, 0 failed, 1 skipped' "$expect_skip_out" $?

# boot.sh removes the previous boot's logs before it builds anything: a
# device tree that cannot be made (no QEMU here) leaves no logs behind,
# and what make check collects then fails.
fake=$work/fake-build
mkdir -p "$fake/kernel/7.2/arch/arm64/boot"
: >"$fake/kernel/7.2/arch/arm64/boot/Image"
cp -r "$(make_log old_logs)" "$fake/old-logs"
CMABUF_BUILD=$fake CMABUF_LOGS=$fake/old-logs CMABUF_RUN_ID=new-run QEMU=false \
	bash "$here/boot.sh" --suites demo 7.2 >/dev/null 2>&1
rc=$?
left=$(ls "$fake/old-logs")
rm -rf "$work/results"
python3 "$collect" guest "$work/results/7.2" "$fake/old-logs" new-run "$rc"
out=$(python3 "$collect" summary "$work/results")
src=$?
if [ $rc -eq 0 ] || [ -n "$left" ]; then
	out="boot.sh exit $rc, left behind: $left"
	src=0
fi
report boot_sh_failing_early_leaves_no_old_logs fail "no status" "$out" $src

# The KUnit suite fails when its module shows no suite (a loader that
# loads anything, an empty debugfs directory), and the kmemleak suite
# when its scan is refused.
mkdir -p "$work/bin" "$work/kunit"
printf '#!/bin/sh\nexit 0\n' >"$work/bin/insmod"
cp "$work/bin/insmod" "$work/bin/rmmod"
chmod +x "$work/bin/insmod" "$work/bin/rmmod"
host_expect kunit_without_suites_fails fail "cmabuf_uapi # no results" \
	env PATH="$work/bin:$PATH" CMABUF_KUNIT_KO="$here/init" \
	CMABUF_KUNIT_DIR="$work/kunit" sh "$top/tests/suites/kunit.sh"
# Every suite of the module's list but one shows results: that one fails,
# and a suite the list lacks fails the run, each named.
for s in $(sed -n '/^kunit_test_suites(/,/);/p' "$top/tests/kunit/cmabuf_kunit.c" |
	   grep -o '&cmabuf_[a-z0-9_]*_suite' | sed -e 's/^&//' -e 's/_suite$//'); do
	mkdir -p "$work/kunit-all/$s"
	printf 'KTAP version 1\n1..1\nok 1 %s\n' "$s" >"$work/kunit-all/$s/results"
done
host_expect kunit_all_suites_pass pass "^$(ls "$work/kunit-all" | wc -l) passed, 0 failed" \
	env PATH="$work/bin:$PATH" CMABUF_KUNIT_KO="$here/init" \
	CMABUF_KUNIT_DIR="$work/kunit-all" sh "$top/tests/suites/kunit.sh"
mv "$work/kunit-all/cmabuf_zero" "$work/kunit-all/cmabuf_other"
host_expect kunit_missing_suite_fails fail "cmabuf_zero # no results" \
	env PATH="$work/bin:$PATH" CMABUF_KUNIT_KO="$here/init" \
	CMABUF_KUNIT_DIR="$work/kunit-all" sh "$top/tests/suites/kunit.sh"
host_expect kunit_unlisted_suite_fails fail "cmabuf_other ran but is not in" \
	env PATH="$work/bin:$PATH" CMABUF_KUNIT_KO="$here/init" \
	CMABUF_KUNIT_DIR="$work/kunit-all" sh "$top/tests/suites/kunit.sh"
host_expect kunit_module_missing_fails fail "was not built" \
	env CMABUF_KUNIT_KO="$work/none.ko" sh "$top/tests/suites/kunit.sh"
host_expect kmemleak_scan_refused_fails fail "not ok kmemleak scanned" \
	env CMABUF_KMEMLEAK=/proc/version sh "$top/tests/suites/kmemleak.sh"

# A suite that prints TAP through tap-lib.sh fails when the kernel's KTAP
# helpers are missing (the guest's /suites/ktap_helpers.sh, the host's 7.2
# tree), rather than print nothing and pass; and with them, it passes.
printf '. "%s/tests/suites/tap-lib.sh"\necho "TAP version 13"\necho "1..1"\nok 0 "a * test"\n[ $fails -eq 0 ]\n' \
	"$top" >"$work/ktap-suite.sh"
host_expect ktap_helpers_missing_fails fail "no TAP output" \
	env KTAP_HELPERS="$work/none" sh "$work/ktap-suite.sh"
host_expect ktap_helpers_print_the_tap pass '^1 passed, 0 failed' \
	env CMABUF_BUILD="${CMABUF_BUILD:-$top/build}" sh "$work/ktap-suite.sh"

# The compat suite fails without its 32-bit program.
host_expect compat_without_program_fails fail "the 32-bit uapi tests, is not installed" \
	env CMABUF_COMPAT_TEST="$work/none" sh "$top/tests/suites/compat.sh"

# Fault injection fails on a kernel without it, its programs faked to pass.
printf '#!/bin/sh\nprintf "TAP version 13\\n1..1\\nok 1 faked\\n"\n' \
	>"$work/bin/cmabuf-run"
cp "$work/bin/cmabuf-run" "$work/bin/cmabuf_faults"
chmod +x "$work/bin/cmabuf-run" "$work/bin/cmabuf_faults"
host_expect faults_without_fault_injection_fails fail "the kernel has no fault injection" \
	env PATH="$work/bin:$PATH" CMABUF_FAIL_NTH="$work/none" \
	sh "$top/tests/suites/faults.sh"

# The lifecycle tests of the dma-heaps fail where cmabuf has none.
echo N >"$work/heap-param"
host_expect lifecycle_heap_without_heaps_fails fail "heap-defaults must run first" \
	env CMABUF_HEAP_PARAM="$work/heap-param" \
	sh "$top/tests/suites/lifecycle-heap.sh"

# The importer suites (v4l2, kms) fail without the kernel's modules, when
# a driver does not load, and when one cannot be unloaded after the test
# (it still holds a buffer), the test program faked to pass.
mkdir -p "$work/media/bin" "$work/media/kmods"
: >"$work/media/kmods/modules.dep"
printf '#!/bin/sh\nprintf "TAP version 13\\n1..1\\nok 1 faked\\n"\n' \
	>"$work/media/bin/fake_media_test"
printf '#!/bin/sh\n[ "$1" != "$FAKE_FAILS" ]\n' >"$work/media/bin/modprobe"
cp "$work/media/bin/modprobe" "$work/media/bin/rmmod"
chmod +x "$work/media/bin/"*
media_suite() {
	env PATH="$work/media/bin:$PATH" CMABUF_MEDIA_TEST=fake_media_test \
		CMABUF_SUITE_LIB="$top/tests/suites" \
		CMABUF_KMOD_DIR="$work/media/kmods" "$@"
}
host_expect media_suite_clean_passes pass '^1 passed, 0 failed' \
	media_suite sh "$top/tests/suites/v4l2.sh"
host_expect media_suite_without_modules_fails fail "the kernel's modules are not installed" \
	media_suite env CMABUF_KMOD_DIR="$work/none" sh "$top/tests/suites/kms.sh"
host_expect media_suite_driver_not_loaded_fails fail "modprobe vivid failed" \
	media_suite env FAKE_FAILS=vivid sh "$top/tests/suites/v4l2.sh"
host_expect media_suite_driver_held_fails fail "exit status 1" \
	media_suite env FAKE_FAILS=vkms sh "$top/tests/suites/kms.sh"

# The loaded suites, on the host with made-up programs: a cmabuf_testctl
# (and cmabufctl, for info) whose load-64m document has results as FAKE_* say, and a cmabuf_load that starts
# unless FAKE_LOAD_FAILS. The suite fails when the load does not start, a
# cmabuf strategy's loaded allocation fails, or COMPOUND's median falls
# behind the heap's; the fuzzer and the stress test under load fail when
# the load does not start.
mkdir -p "$work/load/bin" "$work/load/tmp" "$work/load/nobin"
cat >"$work/load/bin/cmabuf_testctl" <<'FAKE'
#!/bin/sh
if [ "$1" = info ]; then
	echo "  strategies  auto compound frozen legacy"
	exit 0
fi
printf '{"format": 1, "kernel": "7.2", "workload": "load-64m", "results": ['
sep=
for p in cmabuf-compound cmabuf-frozen cmabuf-legacy cma-heap; do
	[ "$p" = "$FAKE_MISSING" ] && continue
	f=0
	[ "$p" = "$FAKE_FAIL" ] && f=1
	ms=100
	[ "$p" = cmabuf-compound ] && ms=${FAKE_COMPOUND_MS:-95}
	if [ "$p" = cmabuf-compound ] && [ -n "$FAKE_SLOW_ONCE" ] &&
	   [ ! -e "$FAKE_SLOW_ONCE" ]; then
		: >"$FAKE_SLOW_ONCE"
		ms=300
	fi
	printf '%s{"path": "%s", "phase": "alloc", "target": null, "median_ns": %s000000, "n": %s, "attempts": 4, "failures": %s, "counters": {"pgmigrate_success": [1, 2, 3, 4]}}' \
		"$sep" "$p" "$ms" $((4 - f)) "$f"
	sep=", "
done
echo ']}'
FAKE
cat >"$work/load/bin/cmabuf_load" <<'FAKE'
#!/bin/sh
[ "$1" = start ] && [ -n "$FAKE_LOAD_FAILS" ] && exit 1
echo "{\"format\": 1, \"record\": \"load\", \"event\": \"$1\"}"
FAKE
printf '#!/bin/sh\nprintf "TAP version 13\\n1..1\\nok 1 faked\\n"\n' \
	>"$work/load/bin/cmabuf_reclaim"
cp "$work/load/bin/cmabuf_testctl" "$work/load/bin/cmabufctl"
cp "$work/load/bin/cmabuf_testctl" "$work/load/nobin/cmabuf_testctl"
cp "$work/load/bin/cmabuf_testctl" "$work/load/nobin/cmabufctl"
chmod +x "$work/load/bin/"* "$work/load/nobin/"*
mkdir -p "$work/load/debugfs/cma/area"
echo 0 >"$work/load/debugfs/cma/area/used"
load_suite() {
	env PATH="$work/load/bin:$PATH" TMPDIR="$work/load/tmp" \
		CMABUF_SUITE_LIB="$top/tests/suites" CMABUF_TRACEFS="$work/none" \
		CMABUF_DEBUGFS="$work/load/debugfs" \
		CMABUF_BUILD="${CMABUF_BUILD:-$top/build}" "$@"
}
host_expect load_suite_clean_passes pass '^[0-9]+ passed, 0 failed' \
	load_suite sh "$top/tests/suites/load.sh"
host_expect load_suite_failed_sample_fails fail "cmabuf-frozen: 3 of 4 loaded allocations" \
	load_suite env FAKE_FAIL=cmabuf-frozen sh "$top/tests/suites/load.sh"
host_expect load_suite_slow_compound_fails fail "not ok loaded median" \
	load_suite env FAKE_COMPOUND_MS=300 sh "$top/tests/suites/load.sh"
# load_suite_says PATTERN ARGS...: load_suite ARGS, bailing out unless a
# line of its output matches PATTERN.
load_suite_says() {
	local pattern=$1 out rc
	shift
	out=$(load_suite "$@")
	rc=$?
	echo "$out"
	grep -qE -- "$pattern" <<<"$out" || { echo "Bail out! no line matches $pattern"; return 1; }
	return $rc
}
host_expect load_suite_slow_once_measures_again pass '^[0-9]+ passed, 0 failed' \
	load_suite_says '^ok [0-9]+ loaded median: heap 100 ms / COMPOUND 95 ms >= 0.67 \(measured twice: the first, heap 100 ms / COMPOUND 300 ms, failed\)$' \
	env FAKE_SLOW_ONCE="$work/load/tmp/slow-once" sh "$top/tests/suites/load.sh"
host_expect load_suite_path_missing_fails fail "cmabuf-frozen: 0 of 4 loaded allocations" \
	load_suite env FAKE_MISSING=cmabuf-frozen sh "$top/tests/suites/load.sh"
host_expect load_suite_cma_unreadable_fails fail "not ok no CMA page lost" \
	load_suite env CMABUF_DEBUGFS="$work/none" sh "$top/tests/suites/load.sh"
host_expect load_suite_load_not_started_fails fail "not ok the load fills large-pool" \
	load_suite env FAKE_LOAD_FAILS=1 sh "$top/tests/suites/load.sh"
host_expect load_suite_without_load_program_fails fail "cmabuf_load (tests/load) is not installed" \
	env PATH="$work/load/nobin:/usr/bin:/bin" TMPDIR="$work/load/tmp" \
	CMABUF_SUITE_LIB="$top/tests/suites" CMABUF_TRACEFS="$work/none" \
	CMABUF_DEBUGFS="$work/none" CMABUF_BUILD="${CMABUF_BUILD:-$top/build}" \
	sh "$top/tests/suites/load.sh"
host_expect fuzz_load_without_load_fails fail "the memory load did not start" \
	load_suite env FAKE_LOAD_FAILS=1 sh "$top/tests/suites/fuzz-load.sh"
host_expect stress_load_without_load_fails fail "the memory load did not start" \
	load_suite env FAKE_LOAD_FAILS=1 sh "$top/tests/suites/stress-load.sh"

# The stock part of make bench (bench-ctl), on the host with a made-up
# cmabufctl (its bench exits FAKE_BENCH_RC, with no result when
# FAKE_NO_RESULTS; its area FAKE_AREA bytes) and cmabuf_testctl (cpu-ref):
# a bench that fails or reports nothing fails the suite; a size the area
# cannot hold is a skip.
mkdir -p "$work/ctl/bin" "$work/ctl/tmp"
cat >"$work/ctl/bin/cmabufctl" <<'FAKE'
#!/bin/sh
if [ "$1" = info ]; then
	echo "{\"format\": 1, \"instances\": [{\"device\": \"/dev/cmabuf-$3\", \"area\": \"pool\", \"total_bytes\": ${FAKE_AREA:-1073741824}, \"page_size\": 4096, \"strategies\": [\"auto\", \"dma\"]}]}"
	exit 0
fi
if [ -n "$FAKE_NO_RESULTS" ]; then
	echo '{"format": 1, "results": []}'
	exit 0
fi
echo "{\"format\": 1, \"device\": \"/dev/cmabuf-$4\", \"results\": [{\"strategy\": \"dma\", \"phase\": \"cycle\"}]}"
[ -z "$FAKE_BENCH_RC" ] || echo "bench: dma: CMABUF_IOC_ALLOC: made up" >&2
exit "${FAKE_BENCH_RC:-0}"
FAKE
printf '#!/bin/sh\necho "{\\"format\\": 1, \\"results\\": [{\\"path\\": \\"cpu-ref\\", \\"phase\\": \\"ref\\"}]}"\n' \
	>"$work/ctl/bin/cmabuf_testctl"
chmod +x "$work/ctl/bin/"*
ctl_suite() {
	env PATH="$work/ctl/bin:$PATH" TMPDIR="$work/ctl/tmp" \
		CMABUF_SUITE_LIB="$top/tests/suites" "$@" sh "$top/tests/suites/bench-ctl.sh"
}
host_expect bench_ctl_clean_passes pass '^6 passed, 0 failed, 0 skipped' ctl_suite
host_expect bench_ctl_failed_bench_fails fail "cmabufctl bench 64M on general (exit 1, 1 results)" \
	ctl_suite FAKE_BENCH_RC=1
host_expect bench_ctl_bench_without_results_fails fail "cmabufctl bench 1G on large (exit 0, 0 results)" \
	ctl_suite FAKE_NO_RESULTS=1
host_expect bench_ctl_small_area_skips pass '^5 passed, 0 failed, 1 skipped' \
	ctl_suite FAKE_AREA=268435456

# The suites each kernel runs are pinned apart from SUITES
# (tests/suites/EXPECTED): the real files agree, and a SUITES that drops
# a kernel from a suite's list, loses a suite's line or misspells a
# kernel differs, naming what is missing.
pinned_case() {
	local name=$1 want=$2 edit=$3 out rc verdict=fail
	shift 3
	cp "$top/tests/suites/SUITES" "$work/SUITES.$name"
	[ -n "$edit" ] && sed -i "$edit" "$work/SUITES.$name"
	out=$(CMABUF_SUITES_FILE=$work/SUITES.$name bash "$here/pinned-suites.sh" 2>&1)
	rc=$?
	if [ "$want" = pass ] && [ $rc -eq 0 ] && [ -z "$out" ]; then
		verdict=ok
	elif [ "$want" = fail ] && [ $rc -ne 0 ]; then
		verdict=ok
		for line in "$@"; do
			grep -qxF -- "$line" <<<"$out" || verdict=fail
		done
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
pinned_case pinned_suites_match_suites pass ""
pinned_case pinned_suites_catch_a_dropped_kernel fail 's/^v4l2 7\.2 6\.12 /v4l2 7.2 /' \
	"6.12: not run: v4l2; not pinned: none"
pinned_case pinned_suites_catch_a_suite_left_to_check_full fail \
	's/^@full 7\.2-debug cmabufctl/& kms/' "7.2-debug: not run: kms; not pinned: none"
pinned_case pinned_suites_catch_a_dropped_suite fail '/^fuzz$/d' \
	"7.2: not run: fuzz; not pinned: none" "stock-6.1: not run: fuzz; not pinned: none" \
	"7.2-64k: not run: fuzz; not pinned: none"
pinned_case pinned_suites_catch_a_misspelt_kernel fail 's/^\(kms .*\) stock-6\.1 /\1 stock-61 /' \
	"stock-6.1: not run: kms; not pinned: none" "stock-61: not pinned in EXPECTED"

# A run's results must hold every suite the kernel's pin names, and no
# other: collect.py expect.
expect_pinned() {
	local name=$1 want=$2 pattern=$3 pin=$4 out rc
	rm -rf "$work/results"
	python3 "$collect" guest "$work/results/7.2" "$work/clean_run_passes" this-run 0
	printf '# pinned\n7.2: %s\n' "$pin" >"$work/EXPECTED.$name"
	python3 "$collect" expect "$work/results/7.2" 7.2 "$work/EXPECTED.$name" \
		"the module did not build"
	out=$(python3 "$collect" summary "$work/results")
	rc=$?
	report "$name" "$want" "$pattern" "$out" $rc
}
expect_pinned pinned_suites_all_ran_passes pass '^5 passed, 0 failed' "demo"
expect_pinned pinned_suite_not_run_fails fail \
	"not ok suite fuzz ran on 7.2 # not run: the module did not build" "demo fuzz"
expect_pinned unpinned_suite_run_fails fail "not ok suite demo that ran on 7.2 is pinned" "fuzz"
# make check-full judges a kernel by its "KERNEL full:" pin.
printf '7.2 full: demo fuzz\n' >"$work/full.pin"
expect_full() {
	local name=$1 want=$2 pattern=$3 full=$4 out rc
	rm -rf "$work/results"
	python3 "$collect" guest "$work/results/7.2" "$work/clean_run_passes" this-run 0
	{ echo "7.2: demo"; cat "$work/full.pin"; } >"$work/EXPECTED.$name"
	CMABUF_FULL=$full python3 "$collect" expect "$work/results/7.2" 7.2 "$work/EXPECTED.$name"
	out=$(python3 "$collect" summary "$work/results")
	rc=$?
	report "$name" "$want" "$pattern" "$out" $rc
}
expect_full pinned_check_ignores_the_full_pin pass '^5 passed, 0 failed' 0
expect_full pinned_full_run_wants_the_full_pin fail "not ok suite fuzz ran on 7.2" 1

# The vermagic suite, on the host with made-up tools: a build for another
# kernel that loads, or that is refused for another reason than being
# built for another kernel, fails it; so does having no such build.
mkdir -p "$work/vm/bin" "$work/vm/foreign/other" "$work/vm/none"
: >"$work/vm/foreign/other/cmabuf.ko"
cat >"$work/vm/bin/insmod" <<'FAKE'
#!/bin/sh
case $1 in
*/foreign/*) [ -n "$FAKE_LOADS" ] && exit 0
	echo "[ 1.0] cmabuf: ${FAKE_WHY:-version magic 'a' should be 'b'}" >>"$FAKE_DMESG"
	exit 1 ;;
esac
exit 0
FAKE
printf '#!/bin/sh\ncat "$FAKE_DMESG"\n' >"$work/vm/bin/dmesg"
printf '#!/bin/sh\necho "7.2.13+deb14-arm64 SMP preempt mod_unload aarch64"\n' \
	>"$work/vm/bin/modinfo"
printf '#!/bin/sh\nexit 0\n' >"$work/vm/bin/rmmod"
chmod +x "$work/vm/bin/"*
vermagic_suite() {
	: >"$work/vm/dmesg"
	env PATH="$work/vm/bin:$PATH" FAKE_DMESG="$work/vm/dmesg" \
		CMABUF_SUITE_LIB="$top/tests/suites" CMABUF_BUILD="${CMABUF_BUILD:-$top/build}" \
		CMABUF_FOREIGN_DIR="$work/vm/foreign" CMABUF_OWN_KO="$work/vm/foreign/other/cmabuf.ko" \
		CMABUF_PARAMS_DIR="$work/none" "$@" sh "$top/tests/suites/vermagic.sh"
}
host_expect vermagic_foreign_build_loads_fails fail "it LOADED" vermagic_suite env FAKE_LOADS=1
host_expect vermagic_other_refusal_fails fail "not ok cmabuf.ko built for other" \
	vermagic_suite env FAKE_WHY="Unknown symbol cma_alloc (err -2)"
host_expect vermagic_without_foreign_build_fails fail "no cmabuf.ko built for another kernel" \
	vermagic_suite env CMABUF_FOREIGN_DIR="$work/vm/none"

# The speedup checks: a kernel that was not asked for makes its checks
# skips that say so; one that was asked for but left no results fails.
# The 7.2 results are made up to pass every check that needs only 7.2:
# each path's time raised until it is twice the ratio over every path it
# is checked against (a path may be first in one check, second in another).
mkdir -p "$work/speedup/7.2"
sed 's/#.*//' "$top/tests/bench/speedup-checks" | python3 -c '
import json, sys
checks, seen = [], {}
for line in sys.stdin:
    w = line.split()
    if len(w) < 5:
        continue
    keys = []
    for word in (w[2], w[3]):
        side, path = word.split(":", 1)
        keys.append((w[0], w[1], path) if side == "after" else None)
        if side == "after":
            seen[keys[-1]] = 1
    if None not in keys:
        checks.append((keys[0], keys[1], float(w[4])))
for _ in range(len(checks) + 1):
    for slow, fast, ratio in checks:
        seen[slow] = max(seen[slow], 2 * ratio * seen[fast])
for (workload, phase, path), ms in seen.items():
    print("# bench-json " + json.dumps({
        "kernel": "7.2", "path": path, "workload": workload, "phase": phase,
        "median_ns": int(ms * 1000000), "min_ns": int(ms * 1000000),
        "max_ns": int(ms * 1000000), "n": 20}))
' >"$work/speedup/7.2/speedup.tap"
host_expect speedup_without_6_12_skips pass '^[0-9]+ passed, 0 failed, [1-9][0-9]* skipped' \
	bash "$here/speedup-checks.sh" "$work/speedup" "$work/speedup-out" 7.2
out=$(grep "# SKIP" "$work/speedup_without_6_12_skips.tap")
report speedup_skip_names_the_kernel pass "SKIP 6.12 is not in KERNELS" "$out" 0
host_expect speedup_asked_but_missing_fails fail "no result for before:cmabuf-legacy" \
	bash "$here/speedup-checks.sh" "$work/speedup" "$work/speedup-out" 7.2 6.12
host_expect speedup_nothing_asked_skips pass '^0 passed, 0 failed, [1-9][0-9]* skipped' \
	bash "$here/speedup-checks.sh" "$work/speedup" "$work/speedup-out" 7.2-debug

# The stress test takes an ENOMEM only where the area's bitmap shows no
# free range of that size and alignment: the helper that reads it, on
# made-up bitmaps.
make -s -C "$top/tests/stress" ARCH=host "$top/build/host/bin/rel_test" \
	>"$work/rel_test.build" 2>&1
host_expect stress_enomem_check_reads_the_bitmap pass '^[1-9][0-9]* passed, 0 failed' \
	"$top/build/host/bin/rel_test"

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

# The kernel scripts apply and read a series' NNNN-*.patch files only: a
# cover letter that `git format-patch --cover-letter` put beside them holds
# no diff (patch(1) would fail the unpack) and is left out; a series
# without patches lists none (both scripts stop then).
n=$((n + 1))
ptop=$work/patches-top
mkdir -p "$ptop/kernel/patches/7.2" "$ptop/kernel/patches/6.12"
for f in 0000-cover-letter.patch 0001-a.patch 0002-b.patch notes.txt; do
	: >"$ptop/kernel/patches/7.2/$f"
done
listed=$( (. "$top/kernel/common.sh"
	CMABUF_TOP=$ptop
	series_patches 7.2 | xargs -n1 basename | tr '\n' ' '
	series_patches 6.12 | wc -l) )
if [ "$listed" = "0001-a.patch 0002-b.patch 0" ]; then
	echo "ok $n series_patches_leave_out_the_cover_letter"
else
	echo "not ok $n series_patches_leave_out_the_cover_letter # '$listed'"
	fails=$((fails + 1))
fi

# A real boot that cannot finish in time must come back as a time-out.
n=$((n + 1))
if [ -f "$top/build/kernel/7.2/arch/arm64/boot/Image" ]; then
	logs=$top/build/logs/7.2-timeout-test
	CMABUF_LOGS=$logs CMABUF_RUN_ID=timeout-test bash "$here/boot.sh" --timeout 1 \
		--suites testbed 7.2 >/dev/null 2>&1
	rc=$?
	python3 "$collect" guest "$work/real/7.2" "$logs" timeout-test "$rc"
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

# A real suite past the guest's time-out per suite is killed with every
# process it started (the fuzzer under cmabuf-run's shell), the host is
# told where the fuzzer was and what it was doing, and the next suite runs.
n=$((n + 1))
if [ -f "$top/build/kernel/7.2/arch/arm64/boot/Image" ]; then
	logs=$top/build/logs/7.2-suite-timeout-test
	CMABUF_LOGS=$logs CMABUF_RUN_ID=suite-timeout-test bash "$here/boot.sh" \
		--env CMABUF_TIMEOUT=5 --suites "fuzz testbed" 7.2 >/dev/null 2>&1
	rc=$?
	if [ $rc -eq 0 ] &&
		grep -q '^### cmabuf-suite-end fuzz rc=137 seconds=[0-9]* timeout=5[[:space:]]*$' "$logs/results.log" &&
		grep -q '^# cmabuf-timeout: pid [0-9]* (cmabuf_fuzz)' "$logs/results.log" &&
		grep -q '^# cmabuf-timeout:   doing \(op [0-9]*: \|setting up\)' "$logs/results.log" &&
		! grep -q 'left processes alive' "$logs/results.log" &&
		grep -q '^### cmabuf-suite-end testbed rc=0 ' "$logs/results.log"; then
		echo "ok $n real_suite_timeout_kills_its_processes"
	else
		echo "not ok $n real_suite_timeout_kills_its_processes # boot.sh exit $rc"
		grep -s '^###\|cmabuf-timeout' "$logs/results.log" | sed 's/^/# /'
		fails=$((fails + 1))
	fi
else
	echo "ok $n real_suite_timeout_kills_its_processes # SKIP kernel 7.2 not built"
fi
[ $fails -eq 0 ]
