#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cmabufctl in the guest, as TAP: info, alloc with verify, the error lines
# and exit codes (each naming the fix), JSON documents, share through vgem
# and through the importer module (loaded for those tests, unloaded after),
# short runs of every workload kind, prepare serving another program, load
# and save of files and of another program's buffer. Busybox sh; needs cmabuf.ko loaded
# and root. The same as a user who is not root: the permissions suite.
# Kernel-agnostic: what a kernel lacks (frozen, compound) is read from
# "cmabufctl info". Where a kernel gives no default instance (/dev/cmabuf:
# it does not export dev_get_cma_area(), Debian's 6.x) the checks use the
# first instance there is; where it lacks LEGACY (those kernels have DMA
# only) its other strategy; what it cannot tell is a skip naming it.

. /suites/tap-lib.sh

# run CMD...: output in $out (stdout and stderr), exit status in $rc.
run() {
	out=$("$@" 2>&1)
	rc=$?
}

# Indent captured output as TAP diagnostics when a test failed.
diag() {
	[ "$1" -eq 0 ] || echo "$out" | sed 's/^/# /'
}

has() {
	echo "$out" | grep -q -- "$1"
}

lines() {
	echo "$out" | grep -c -- "$1"
}

# count PATTERN: occurrences in $out, several per line counted.
count() {
	echo "$out" | grep -o -- "$1" | wc -l
}

echo "TAP version 13"
echo "1..80"

devices=0
list=
for d in /dev/cmabuf /dev/cmabuf-*; do
	[ -c "$d" ] || continue
	devices=$((devices + 1))
	list="$list${list:+, }$d"
done
# The instance a check uses when it names none: the default one where the
# kernel gives it, else the first.
def=${list%%,*}

# The strategies this kernel backs, as the test library reads them
# (cmabuf_kernel_strategies(), tests/lib/cmabuf_test_util.c): the
# CMABUF_STRATEGY_BIT()s of CMABUF_TEST_STRATEGIES where the stock images'
# exports say (tests/qemu/boot.sh), else what /proc/kallsyms lists.
if [ -n "${CMABUF_TEST_STRATEGIES:-}" ]; then
	kernel_mask=$((CMABUF_TEST_STRATEGIES))
else
	kernel_mask=$(awk '$3 == "cma_alloc_frozen_compound" { c = 2 }
		$3 == "cma_alloc_frozen" { f = 4 }
		$3 == "dma_alloc_pages" { d = 16 }
		END { print 1 + c + f + 8 + d }' /proc/kallsyms)
fi
# One the bench workloads run: LEGACY, or DMA where the kernel lacks it.
strat=legacy
[ $((kernel_mask & 8)) -ne 0 ] || strat=dma

# CMA debugfs, where the kernel has it (not Debian's): the largest free
# range, the used pages.
[ -d /sys/kernel/debug/cma ] ||
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
run cmabufctl info
[ $rc -eq 0 ] && [ "$devices" -gt 0 ] && [ "$(lines '^/dev/cmabuf')" -eq "$devices" ]
r=$?; ok $r "info describes all $devices instances"; diag $r

run cmabufctl info --json
[ $rc -eq 0 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] &&
	echo "$out" | grep -q '^{"format": 1, ' &&
	[ "$(count '"area": ')" -eq "$devices" ] &&
	[ "$(count '"strategies": \["auto", ')" -eq "$devices" ] &&
	[ "$(count '"allocator_zeroes": [tf]')" -eq "$devices" ] &&
	[ "$(count '"clears_frozen": [tf]')" -eq "$devices" ] &&
	[ "$(count '"mmap_placed": [tf]')" -eq "$devices" ]
r=$?; ok $r "info --json: one document, format 1, an array of $devices instances, strategies an array, INFO's flags"
diag $r

# Sizes that follow the kernel's page size (4, 16 or 64 KiB): a PMD maps
# a page of 8-byte entries' worth of pages, COMPOUND starts at a pageblock
# (a PMD), and the general area is 256 MiB, or one 512 MiB pageblock with
# 64 KiB pages (tests/qemu/cmabuf-regions-64k.dtsi).
mib() {
	echo "$(($1 >> 20)) MiB"
}
run cmabufctl info --device general --json
page=$(echo "$out" | sed -n 's/.*"page_size": \([0-9]*\),.*/\1/p')
page=${page:-4096}
pmd=$((page * page / 8))
general=$(echo "$out" | sed -n 's/.*"total_bytes": \([0-9]*\),.*/\1/p')
general=${general:-268435456}
# The area's free bytes: INFO's area statistics (the patched kernels), or
# CMA sysfs (7.2).
area_stats=$(echo "$out" | grep -o '"free_bytes": [0-9][0-9]*')
pmd_json=$(echo "$out" | sed -n 's/.*"pmd_bytes": \([0-9a-z]*\),.*/\1/p')
max_bytes=$((4294967295 & ~(page - 1)))
SZ_1M=1048576

run cmabufctl info --device general
[ $rc -eq 0 ] && has "^  page size   $page ($((page >> 10)) KiB)$" &&
	{ [ "$pmd_json" = null ] && has "^  mapping     one page per entry$" ||
	  { [ "$pmd_json" = $pmd ] && has "^  mapping     $(mib $pmd) entries"; }; }
r=$?; ok $r "info: the page size ($page) and what a PMD entry maps ($(mib $pmd), json $pmd_json)"; diag $r

run cmabufctl info --device $def
strategies=$(echo "$out" | sed -n 's/^  strategies  //p')
clearing=$(echo "$out" | sed -n 's/^  clearing    //p')
# Booted with init_on_alloc=0, the page allocator clears nothing; on our
# 7.2 (patch 0004) cmabuf clears FROZEN and COMPOUND buffers whatever
# init_on_alloc says.
cmabuf_clears() {
	case $CMABUF_KERNEL in
	7.2*) return 0 ;;
	esac
	grep -qw init_on_alloc=0 /proc/cmdline
}
[ $rc -eq 0 ] && [ -n "$strategies" ] && [ -n "$clearing" ] &&
	{ ! cmabuf_clears || [ "${clearing#by cmabuf}" != "$clearing" ]; }
r=$?; ok $r "info --device $def: strategies '$strategies', clearing '$clearing'"; diag $r

version=$(cat /sys/module/cmabuf/version)
driver=$(echo "$out" | sed -n 's/^  driver *//p')
run cmabufctl --version
[ $rc -eq 0 ] && [ -n "$version" ] && [ "$driver" = "$version" ] &&
	[ "$out" = "cmabufctl $version
cmabuf.ko $version" ]
r=$?; ok $r "one version: cmabufctl, MODULE_VERSION and INFO say $version"; diag $r

run cmabufctl alloc 4M --fill 0xa5 --verify --device $def
[ $rc -eq 0 ] && has "zeroed on allocation: all 4194304 bytes are 0x00: ok" &&
	has "fill read back: all 4194304 bytes are 0xa5: ok"
r=$?; ok $r "alloc 4M --fill 0xa5 --verify reads zero, then the fill"; diag $r

# -v and -H mean verbose and human-readable elsewhere: no short forms of
# --verify and --hold, refused before anything is allocated.
run cmabufctl alloc 4M -v
v_rc=$rc v_out=$out
run cmabufctl prepare 4M 1 -H 1
[ $v_rc -eq 2 ] && [ $rc -eq 2 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] &&
	has "^cmabufctl: prepare: unknown option '-H' (try 'cmabufctl prepare --help')$" &&
	[ "$(echo "$v_out" | wc -l)" -eq 1 ] &&
	echo "$v_out" | grep -q "^cmabufctl: alloc: unknown option '-v' (try 'cmabufctl alloc --help')$"
r=$?; ok $r "alloc -v and prepare -H: refused in one line each, exit 2 (--verify and --hold have no short form)"
[ $r -eq 0 ] || out="$v_out
$out"; diag $r

# help COMMAND is the command's --help; the main help names -V.
run cmabufctl help alloc
help_alloc=$out
run cmabufctl alloc --help
[ $rc -eq 0 ] && [ -n "$out" ] && [ "$help_alloc" = "$out" ] &&
	cmabufctl --help | grep -q "^       cmabufctl -V, --version$"
r=$?; ok $r "help alloc is alloc --help; --help names -V"; diag $r

run cmabufctl alloc 12X
[ $rc -eq 2 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] && has "bad size '12X'"
r=$?; ok $r "alloc 12X: one error line, exit 2"; diag $r

run cmabufctl alloc 99999999999999999999
[ $rc -eq 2 ] && has "out of range"
r=$?; ok $r "alloc of an overflowing size: out of range, exit 2"; diag $r

run cmabufctl alloc 4K --device nosuch
[ $rc -eq 1 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] &&
	has "/dev/cmabuf-nosuch: no such device; the instances here are $list$"
r=$?; ok $r "alloc on a missing device: one line listing the instances, exit 1"; diag $r

# With --json a failure is a document too, on stdout; the line on stderr.
jo=$(cmabufctl alloc 4K --device nosuch --json 2>/tmp/json.err)
jrc=$?
po=$(cmabufctl prepare 4M 0 -j 2>/dev/null)
prc=$?
[ $jrc -eq 1 ] && [ "$(echo "$jo" | wc -l)" -eq 1 ] &&
	echo "$jo" | grep -q "^{\"format\": 1, \"command\": \"alloc\", \"exit_status\": 1, \"error\": \"/dev/cmabuf-nosuch: no such device; the instances here are $list\"}$" &&
	grep -q "^cmabufctl: /dev/cmabuf-nosuch: no such device" /tmp/json.err &&
	[ $prc -eq 2 ] &&
	echo "$po" | grep -q "^{\"format\": 1, \"command\": \"prepare\", \"exit_status\": 2, \"error\": \"prepare: bad count '0' (1 to 256) (try 'cmabufctl prepare --help')\"}$"
r=$?; ok $r "--json: a failure is one document (command, exit_status, error)"
[ $r -eq 0 ] || out="$jo
$(cat /tmp/json.err)
$po"; diag $r

# A file that is not cmabuf's: said so by every command alike.
r=0
for c in "info" "alloc 4K" "prepare 4K 1" "bench 4K -n 1" "reserve" "share"; do
	# shellcheck disable=SC2086 # the command and its words
	run cmabufctl $c --device /dev/null
	[ $rc -eq 1 ] && [ "$out" = "cmabufctl: /dev/null: not a cmabuf device" ] ||
		{ r=1; echo "# $c: exit $rc: $out"; }
done
ok $r "every command on /dev/null: one line, not a cmabuf device, exit 1"

run cmabufctl alloc 64G --device $def
[ $rc -eq 1 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] &&
	has "size: a buffer is one scatterlist entry, from 1 byte to $max_bytes bytes"
r=$?; ok $r "alloc 64G: one line saying the size is wrong and what it may be"; diag $r

run cmabufctl alloc 1GiB --device general
[ $rc -eq 1 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] &&
	has "1 GiB is more than the whole area ($(mib $general))"
r=$?; ok $r "alloc 1GiB on the $(mib $general) area: ENOMEM, more than the whole area"; diag $r

# Most of the general area held by another process, then more asked for.
: >/tmp/hold.out
cmabufctl alloc $((general * 25 / 32 >> 20))MiB --device general --hold 60 \
	>/tmp/hold.out 2>&1 &
holder=$!
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	grep -q '^holding' /tmp/hold.out && break
	sleep 1
done
run cmabufctl alloc $((general * 100 / 256 >> 20))M --device general
kill $holder; wait $holder 2>/dev/null
# The largest free range: CMA debugfs, which Debian's kernels lack.
largest="; the largest free range now is [0-9.]* MiB"
[ -d /sys/kernel/debug/cma ] || largest=
if [ -n "$area_stats" ]; then
	[ $rc -eq 1 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] &&
		has "no room for $(mib $((general * 100 / 256))): [0-9.]* MiB of $(mib $general) free, the rest held by other buffers (the largest buffer the area can hold is $(mib $general))$largest$"
else
	# A kernel that does not tell the area's free bytes (stock kernels).
	[ $rc -eq 1 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] &&
		has "no free contiguous range of $(mib $((general * 100 / 256))) (this kernel does not tell the area's free bytes)"
fi
r=$?; ok $r "alloc on a busy area: ENOMEM with the free bytes, largest buffer and largest free range"
diag $r

case " $strategies " in
*" compound "*)
	run cmabufctl alloc 3M --strategy compound --device general
	[ $rc -eq 1 ] && has "general: size: a COMPOUND buffer is a power of two from $(mib $pmd) to $(mib $general) here$"
	r=$?; ok $r "alloc 3M compound: the size is wrong, and the range of COMPOUND sizes"; diag $r
	run cmabufctl alloc $((pmd >> 20))M --strategy compound --align $((pmd >> 19))M \
		--device general
	[ $rc -eq 1 ] && has "alignment: a COMPOUND buffer is aligned to its size ($(mib $pmd)), no further$"
	r=$?; ok $r "alloc $(mib $pmd) compound aligned to twice that: the alignment is wrong"; diag $r
	;;
*)
	run cmabufctl alloc 2M --strategy compound --device $def
	[ $rc -eq 1 ] && has "strategy compound is not supported by this kernel"
	r=$?; ok $r "alloc compound where the kernel lacks it: the strategy is not supported"; diag $r
	run cmabufctl alloc 2M --strategy frozen --device $def
	[ $rc -eq 1 ] && has "strategy frozen is not supported by this kernel"
	r=$?; ok $r "alloc frozen where the kernel lacks it: the strategy is not supported"; diag $r
	;;
esac

run cmabufctl alloc "64 MiB" --device large --json --fill 0x11 --verify
[ $rc -eq 0 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] &&
	echo "$out" | grep -q '^{"format": 1, "device": "/dev/cmabuf-large", "pid": [0-9]*, "fd": [0-9]*, "size_bytes": 67108864, "strategy": "[a-z]*", "phys": [0-9]*, "zeroed": true, "fill": 17, "fill_read_back": true, "writecombine": false, "cpu_sync": "CMABUF_IOC_SYNC", "hold_seconds": 0}$'
r=$?; ok $r "alloc '64 MiB' (as printed) --json: one document with every key"; diag $r

# --writecombine: granted where INFO says the instance grants it (its
# device is not coherent), and the buffer is still zero and reads back.
r=0
for d in $(echo "$list" | tr -d ,); do
	grant=$(cmabufctl info --device $d --json | sed -n 's/.*"writecombine": \([a-z]*\).*/\1/p')
	run cmabufctl alloc 1M --writecombine --fill 0x3c --verify --json --device $d
	[ $rc -eq 0 ] && [ -n "$grant" ] && has "\"zeroed\": true, \"fill\": 60, \"fill_read_back\": true, \"writecombine\": $grant, \"cpu_sync\": \"CMABUF_IOC_SYNC\"" ||
		{ r=1; echo "# $d (INFO: $grant): $out"; }
done
ok $r "alloc --writecombine on every instance: granted as INFO says, zeroed, the fill read back"

# share, first without the importer module (another suite may have left it).
ko=/lib/modules/cmabuf/cmabuf_importer.ko
imp_missing="/dev/cmabuf_importer not found: cmabuf_importer.ko is not loaded"
[ ! -d /sys/module/cmabuf_importer ] || rmmod cmabuf_importer
# The CMA area's used pages, which the importer's hold is checked by: CMA
# debugfs, or CMA sysfs (7.2); Debian's 6.x kernels tell neither, and the
# importer says so in its one skip.
cma_used=1
[ -d /sys/kernel/debug/cma ] || [ -d /sys/kernel/mm/cma ] || cma_used=
cma_lacks="this kernel tells no CMA area's used pages (no CMA debugfs, no CMA sysfs)"
skip_used="^  skip CMA used pages: "

run cmabuf_testctl share --device $def
[ $rc -eq 0 ] && has "^vgem: [0-9]* checks passed, 0 failed" && ! has "FAIL" &&
	has "^  skip $imp_missing" && has "^importer: skipped, not available"
r=$?; ok $r "share without the importer module: every vgem check passed, importer skipped"
diag $r

run cmabuf_testctl share --importer importer --device $def
[ $rc -eq 1 ] && has "share: importer: $imp_missing" && ! has "^vgem:"
r=$?; ok $r "share --importer importer without the module: an error, exit 1"; diag $r

run cmabuf_testctl share --json --device $def
[ $rc -eq 0 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] &&
	has "^{\"format\": 1, \"device\": \"$def\", \"size_bytes\": 1048576, " &&
	has '{"name": "vgem", "status": "passed", "passed": [1-9][0-9]*, "failed": 0, "why": null, "checks": \[{"ok": true, "what": ' &&
	has "{\"name\": \"importer\", \"status\": \"skipped\", \"passed\": 0, \"failed\": 0, \"why\": \"$imp_missing\", \"checks\": \[\]}\]}$"
r=$?; ok $r "share --json: one document, vgem passed with its checks, the importer skipped with why"
diag $r

insmod "$ko"
r=$?; ok $r "insmod cmabuf_importer.ko"

# The whole output of this run goes into the TAP as diagnostics. v4l2 and
# kms go first, skipped here (no capture or modesetting driver).
run cmabuf_testctl share --device $def
echo "$out" | sed 's/^/# /'
[ $rc -eq 0 ] && has "^vgem: [0-9]* checks passed, 0 failed" &&
	has "^importer: [0-9]* checks passed, 0 failed" && ! has "FAIL" &&
	! echo "$out" | sed -n '/^vgem:$/,$p' | grep "^  skip" |
		{ [ -n "$cma_used" ] && cat || grep -v "$skip_used"; } | grep -q .
r=$?; ok $r "share with the importer module: every vgem and importer check passed"

r=0
for step in "attach (dma_buf_attach)" "map (dma_buf_map_attachment)" \
	"vmap (dma_buf_vmap)" "begin CPU access (dma_buf_begin_cpu_access)" \
	"verify our pattern through the vmap" \
	"write the importer's pattern through the vmap" \
	"end CPU access (dma_buf_end_cpu_access)" "vunmap (dma_buf_vunmap)" \
	"unmap (dma_buf_unmap_attachment)" "detach (dma_buf_detach)"; do
	has "^  ok   $step: ok$" || { r=1; echo "# no 'ok' line for step: $step"; }
done
ok $r "share: the importer reports every step of CHECK, each ok"

has "^  ok   1 DMA segment covering 1048576 bytes at 0x[0-9a-f]* (the whole buffer)$" &&
	has "^  ok   DMA address 0x[0-9a-f]* equals the physical address from CMABUF_IOC_PHYS"
r=$?; ok $r "share: one DMA segment over the whole 1 MiB, at the physical address"

has "^  ok   pattern: 16384 words verified, 0 differ$" &&
	has "^  ok   importer's pattern seen through mmap: ok (16384 words)$"
r=$?; ok $r "share: our pattern read by the importer, its pattern read through mmap"

held="share: the held buffer keeps its $((SZ_1M / page)) CMA pages until released, then the area is back at the start"
if [ -n "$cma_used" ]; then
	has "^  ok   hold (CMABUF_IMPORTER_IOC_HOLD, attached and mapped): handle [0-9]" &&
		has "^  ok   allocated: CMA area .* start [0-9]* + $((SZ_1M / page))$" &&
		has "^  ok   our fd closed, the importer's hold is the last user: CMA area .* start [0-9]* + $((SZ_1M / page))$" &&
		has "^  ok   after release: CMA area .* back at the start value"
	r=$?; ok $r "$held"
else
	skip "$held: $cma_lacks"
fi

run cmabuf_testctl share 3M --device general --importer importer
[ $rc -eq 0 ] && ! has "^vgem:" && has "^importer: [0-9]* checks passed, 0 failed" &&
	! has "FAIL" && has "^  ok   1 DMA segment covering 3145728 bytes" &&
	{ has "start [0-9]* + $((3 * SZ_1M / page))$" ||
	  { [ -z "$cma_used" ] && has "$skip_used"; }; }
r=$?; ok $r "share 3M --device general --importer importer: only the importer, every check passed"
diag $r

rmmod cmabuf_importer
r=$?; ok $r "rmmod cmabuf_importer: nothing left attached"

# bench: a buffer's whole cycle, each strategy in turn, with percentiles.
phases="alloc mmap sync touch munmap close cycle"
out=$(cmabufctl bench 4M -n 2 -s $strat --device $def --json)
rc=$?
r=0
for p in $phases; do
	has "{\"strategy\": \"$strat\", \"phase\": \"$p\", \"n\": 2, \"median_ns\": [1-9][0-9]*, \"p90_ns\": [0-9]*, \"p99_ns\": [0-9]*, \"min_ns\": [0-9]*, \"max_ns\": [0-9]*, \"mean_ns\": [0-9]*}" ||
		{ r=1; echo "# no result for phase $p"; }
done
[ $rc -eq 0 ] && [ $r -eq 0 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] &&
	has "^{\"format\": 1, \"kernel\": \"[^\"]*\", \"device\": \"$def\", \"area\": \"[^\"]*\", \"size_bytes\": 4194304, \"iterations\": 2, \"page_size\": $page, \"results\": \[" &&
	[ "$(count '"phase": ')" -eq 7 ]
r=$?; ok $r "bench 4M -n 2 -s $strat --json: one document, the 7 phases with n, median, p90, p99"; diag $r

# Without -d, the default instance, or the first there is (item 7: no
# workload or command names the test bed's instances).
run cmabufctl bench 1M -n 1 -s $strat --json
[ $rc -eq 0 ] && has "\"device\": \"$def\", " && [ "$(count '"phase": ')" -eq 7 ]
r=$?; ok $r "bench without -d: on $def"; diag $r

# Every strategy the instance has but auto, COMPOUND where 4 MiB is one
# of its sizes (else left out, said).
run cmabufctl bench 4M -n 1 --device $def
r=0
for s in $strategies; do
	[ "$s" = auto ] && continue
	if [ $s = compound ] && [ $((4 * SZ_1M)) -lt $pmd ]; then
		has "warning: bench: compound left out: 4 MiB is not a COMPOUND size of $def" || r=1
		continue
	fi
	for p in $phases; do
		has "^$s  *$p  *1 " || { r=1; echo "# no row for $s $p"; }
	done
done
[ $rc -eq 0 ] && [ $r -eq 0 ] && has "^bench: 4 MiB, 1 iterations, $def (area .*), kernel " &&
	has "^strategy  *phase  *n  *median  *p90  *p99  *min  *max$" && ! has "^auto "
r=$?; ok $r "bench 4M on $def: every strategy but auto ($strategies), each phase a row"; diag $r

case " $strategies " in
*" compound "*)
	run cmabufctl bench 3M -n 1 -s compound --device general
	[ $rc -eq 1 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] &&
		has "bench: compound: 3 MiB is not a COMPOUND size of /dev/cmabuf-general (a power of two from $(mib $pmd) to $(mib $general) here)$" ;;
*)
	run cmabufctl bench 3M -n 1 -s compound --device general
	[ $rc -eq 1 ] && has "bench: strategy compound is not supported by this kernel" ;;
esac
r=$?; ok $r "bench 3M -s compound: refused before any cycle, saying why"; diag $r

# What is wrong with the command line is said before the device is looked at.
run cmabufctl bench -s bogus --device nosuch
[ $rc -eq 2 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] &&
	has "bench: bad strategy 'bogus'" && ! has "no such device"
r=$?; ok $r "bench -s bogus on a missing device: the strategy is wrong, exit 2"; diag $r

run cmabuf_testctl bench contig-64m --iterations 2 --json --strategy $strat,cma-debugfs
if [ -d /sys/kernel/debug/cma ]; then
	[ $rc -eq 0 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] &&
		has '^{"format": 1, "kernel": "[^"]*", "workload": "contig-64m", ' &&
		has '"allocator_zeroes": [tf][ra][ul][es]e*, "clears_frozen": [tf][ra][ul][es]e*, ' &&
		[ "$(count '"n": 2')" -eq 5 ] &&
		has "{\"path\": \"cmabuf-$strat\", \"phase\": \"free\", " &&
		has "{\"path\": \"cmabuf-$strat\", \"phase\": \"alloc+clear\", " &&
		has '{"path": "cma-debugfs", "phase": "alloc", ' &&
		! has '{"path": "cma-debugfs", "phase": "alloc+clear", '
	r=$?; ok $r "bench contig-64m --json: one document, $strat (alloc, alloc+clear, free) and cma-debugfs (alloc, free), n=2"; diag $r
else
	# Debian's kernels have no CMA debugfs: the path is refused by name.
	[ $rc -ne 0 ] && has "cma-debugfs: .*CONFIG_CMA_DEBUGFS"
	r=$?; ok $r "bench cma-debugfs without CMA debugfs: refused, naming CONFIG_CMA_DEBUGFS"; diag $r
fi

run cmabuf_testctl bench e2e-64m --iterations 1 --strategy $strat --json
[ $rc -eq 0 ] && [ "$(count "\"path\": \"cmabuf-$strat\"")" -eq 7 ] &&
	has '"phase": "sync"' && has '"phase": "touch"' &&
	has '"phase": "munmap"' && has '"phase": "cycle"'
r=$?; ok $r "bench e2e-64m: six phases (sync apart from touch) and the whole cycle"; diag $r

# The same buffers mapped with 4 KiB entries only, beside the usual path.
run cmabuf_testctl bench e2e-64m --iterations 1 --strategy $strat,$strat-4k --json
[ $rc -eq 0 ] && [ "$(count "\"path\": \"cmabuf-$strat\"")" -eq 7 ] &&
	[ "$(count "\"path\": \"cmabuf-$strat-4k\"")" -eq 7 ]
r=$?; ok $r "bench e2e-64m $strat and $strat-4k: seven results each"; diag $r

# Every path: as root, the parts of the ALLOC's limit timed beside them.
run cmabuf_testctl bench e2e-64m --iterations 1 --strategy all --json
[ $rc -eq 0 ] && [ "$(count '"path": "cmabuf-limit"')" -eq 4 ] &&
	has '"path": "cmabuf-limit", "phase": "zero-all"'
r=$?; ok $r "bench e2e-64m all: the limit's allocation and clearings beside the paths"; diag $r

# The same user-space work on any kernel, to compare two boots' runs.
run cmabuf_testctl bench e2e-64m --iterations 2 --strategy $strat,cpu-ref --json
[ $rc -eq 0 ] && [ "$(count '"path": "cpu-ref"')" -eq 1 ] &&
	has '{"path": "cpu-ref", "phase": "ref", "strategy": "none", ' &&
	has '"phase": "ref", [^}]*"n": 2[,}]' && ! has '"median_ns": 0,'
r=$?; ok $r "bench e2e-64m cpu-ref: one result, phase ref, n=2, beside $strat's"; diag $r

run cmabuf_testctl bench concurrent --iterations 1 --strategy cpu-ref
[ $rc -eq 2 ] && has "path cpu-ref is timed beside iterations: not in workload concurrent"
r=$?; ok $r "bench concurrent cpu-ref: refused, it has no iterations to be beside"; diag $r

run cmabuf_testctl bench contig-64m --iterations 1 --strategy $strat-4k
[ $rc -eq 2 ] && has "path $strat-4k maps the buffer: e2e-\* workloads only"
r=$?; ok $r "bench contig-64m $strat-4k: refused, nothing is mapped in the kernel"; diag $r

run cmabuf_testctl bench blocks-2m --iterations 1 --strategy $strat
[ $rc -eq 0 ] && has "^cmabuf-$strat *alloc *512 " && has "^cmabuf-$strat *free *512 "
r=$?; ok $r "bench blocks-2m: per-block table of 512 blocks"; diag $r

# An in-kernel allocation with the clearing ALLOC adds to it, and what
# "alloc" holds on this kernel (INFO's flags), under the table.
run cmabuf_testctl bench contig-64m --iterations 1 --strategy $strat
[ $rc -eq 0 ] && has "^cmabuf-$strat *alloc *1 " &&
	has "^cmabuf-$strat *alloc+clear *1 " &&
	has "^alloc: the allocator's call; " &&
	has "^alloc+clear: with the clearing ALLOC adds to it, the same work on every$"
r=$?; ok $r "bench contig-64m: alloc and alloc+clear, and what each holds under the table"; diag $r

# contig-64m at 64 MiB, or a PMD where COMPOUND starts above that (512
# MiB with 64 KiB pages).
contig=$((pmd > 67108864 ? pmd : 67108864))
for s in frozen compound; do
	run cmabuf_testctl bench contig-64m --iterations 1 --strategy $s --size $((contig >> 20))MiB
	case " $strategies " in
	*" $s "*)
		[ $rc -eq 0 ] && has "^cmabuf-$s *free *1 "
		r=$?; ok $r "bench --strategy $s runs where the kernel has it" ;;
	*)
		[ $rc -eq 1 ] && has "strategy $s is not supported by this kernel"
		r=$?; ok $r "bench --strategy $s is refused where the kernel lacks it" ;;
	esac
	diag $r
done

# A COMPOUND size the instance has not: why, not the driver's EINVAL.
case " $strategies " in
*" compound "*)
	run cmabuf_testctl bench contig-64m --iterations 1 --strategy compound --size 3MiB
	[ $rc -eq 1 ] && has "bench: path compound: 3 MiB is not a COMPOUND size of /dev/cmabuf-general (a power of two from $(mib $pmd) to $(mib $general) here; --size to choose)$" ;;
*)
	run cmabuf_testctl bench contig-64m --iterations 1 --strategy compound --size 3MiB
	[ $rc -eq 1 ] && has "strategy compound is not supported by this kernel" ;;
esac
r=$?; ok $r "bench --strategy compound at a size COMPOUND has not here: refused, saying why"; diag $r

# An option a workload has no use for is refused, not ignored.
run cmabuf_testctl bench contig-64m --iterations 1 --procs 2 --seed 3
[ $rc -eq 2 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] &&
	has "bench: --procs means nothing to workload contig-64m (concurrent only)"
r=$?; ok $r "bench contig-64m --procs: refused, concurrent only, exit 2"; diag $r

# What is wrong with the command line is said before any device.
run cmabuf_testctl bench e2e-64m -s bogus --device nosuch
[ $rc -eq 2 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] &&
	has "bench: unknown path 'bogus'" && ! has "no such device"
r=$?; ok $r "bench e2e-64m -s bogus on a missing device: the path is wrong, exit 2"; diag $r

run cmabuf_testctl bench contig-64m --strategy nosuch
[ $rc -eq 2 ] && has "unknown path 'nosuch'"
r=$?; ok $r "bench with an unknown path: exit 2"; diag $r

run cmabuf_testctl bench contig-64m --iterations 1 --strategy $strat --size 2MiB --json
[ $rc -eq 0 ] && [ "$(count '"size_bytes": 2097152')" -eq 1 ] &&
	[ "$(echo "$out" | wc -l)" -eq 1 ] && has '^{"format": 1, ' &&
	[ "$(count '"phase": ')" -eq 3 ]
r=$?; ok $r "bench --size 2MiB: the workload at that size, one document of format 1"; diag $r

# 512 x 2 MiB do not fit the default area (128 MiB), nor general (256
# MiB) where there is no default instance: a size that does, where the
# area's free bytes are known (INFO, or CMA sysfs: not Debian's 6.x).
small="bench blocks-2m on a small area: shrunk to fit, said, and run"
if cmabufctl info --device $def --json | grep -q '"free_bytes": [0-9]'; then
	run cmabuf_testctl bench blocks-2m --iterations 1 --strategy $strat --device $def
	[ $rc -eq 0 ] && has "warning: bench: .* free on $def: [0-9]* KiB per allocation instead of 2 MiB (--size to choose)" &&
		has "^cmabuf-$strat *alloc *512 "
	r=$?; ok $r "$small"; diag $r
else
	skip "$small: this kernel does not tell the free bytes of $def's area (no area statistics in INFO, no CMA sysfs)"
fi

# The loaded workloads, idle and briefly: each runs and reports every
# sample it took (make check loads memory in the "load" suite; "make
# bench-load" measures them).
run cmabuf_testctl bench camera --iterations 2 --strategy $strat --json
[ $rc -eq 0 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] &&
	has '"workload": "camera"' && has '"failures": 0' &&
	! has '"failures": [1-9]'
r=$?; ok $r "bench camera: 8 frames of 3840x2160 NV12 twice, every allocation succeeded"; diag $r

# The same, every sample's 8 buffers prepared ahead (untimed): each of the
# 2 x 8 ALLOCs took a ready one, as the instance counted, and nothing is
# left prepared after.
stats=/sys/class/misc/cmabuf-general/stats
hits=$(cat $stats/prepare_hits)
run cmabuf_testctl bench camera --iterations 2 --strategy auto-prepared --json
[ $rc -eq 0 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] &&
	has '{"path": "cmabuf-auto-prepared", "phase": "alloc", ' &&
	has '"prepared": true, "prepare_hits": 16, ' &&
	has '"failures": 0' && ! has '"failures": [1-9]' &&
	has '"prepare_failures": 0' &&
	[ $(($(cat $stats/prepare_hits) - hits)) -eq 16 ] &&
	[ "$(cat /sys/class/misc/cmabuf-general/prepared_bytes)" = 0 ]
r=$?; ok $r "bench camera auto-prepared: 2 x 8 buffers prepared ahead, every ALLOC took one, given back"; diag $r

run cmabuf_testctl bench load-blocks-2m --iterations 1 --strategy auto-prepared
[ $rc -eq 2 ] && has "prepares the 512 buffers of load-blocks-2m at once: at most 256"
r=$?
run cmabuf_testctl bench contig-64m --iterations 1 --strategy cmabuf-$strat-prepared
[ $r -eq 0 ] && [ $rc -eq 2 ] &&
	has "path cmabuf-$strat-prepared prepares every sample's buffers: e2e-\*, load-\* and camera workloads only"
r=$?; ok $r "bench prepared paths: refused past 256 buffers and in the kernel's workloads"; diag $r

run cmabuf_testctl bench load-blocks-2m --iterations 1 --strategy $strat --json
[ $rc -eq 0 ] && has '"workload": "load-blocks-2m"' && has '"failures": 0' &&
	! has '"failures": [1-9]'
r=$?; ok $r "bench load-blocks-2m: 512 x 2 MiB, every allocation succeeded"; diag $r

run cmabuf_testctl bench concurrent --procs 1,2 --iterations 1 --strategy $strat --json
[ $rc -eq 0 ] && has '"workload": "concurrent"' && ! has '"failures": [1-9]' &&
	has '"path": "cmabuf-auto", "phase": "zero-all"'
r=$?; ok $r "bench concurrent: 1 and 2 processes at once, nothing failed, the limit beside"; diag $r

run cmabuf_testctl bench fragment --steps 20 --strategy $strat --json
[ $rc -eq 0 ] && has '"workload": "fragment"'
r=$?; ok $r "bench fragment: 20 steps of a random mix"; diag $r

# A board without the test bed's labelled instances: they are unbound,
# and the workloads made for them run on what is left, at sizes it holds:
# the default instance, where the kernel gives one.
unbound_general="bench contig-64m without /dev/cmabuf-general: runs on /dev/cmabuf, says so"
unbound_large="bench gigantic-1g without /dev/cmabuf-large: a size the default area holds"
rebound="the labelled instances bound again"
if [ "$def" = /dev/cmabuf ]; then
	driver=/sys/bus/platform/drivers/cmabuf
	pdevs=
	for m in cmabuf-general cmabuf-large; do
		pdevs="$pdevs $(basename "$(readlink /sys/class/misc/$m/device)")"
		echo "${pdevs##* }" >$driver/unbind
	done
	run cmabuf_testctl bench contig-64m --iterations 1 --strategy legacy
	[ $rc -eq 0 ] && has "warning: bench: no /dev/cmabuf-general here, using /dev/cmabuf (--device to choose)" &&
		has "^cmabuf-legacy *free *1 "
	r=$?; ok $r "$unbound_general"; diag $r
	run cmabuf_testctl bench gigantic-1g --iterations 1 --strategy legacy
	[ $rc -eq 0 ] && has "using /dev/cmabuf " &&
		has "free on /dev/cmabuf: [0-9]* MiB per allocation instead of 1 GiB" &&
		has "^cmabuf-legacy *free *1 "
	r=$?; ok $r "$unbound_large"; diag $r
	r=0
	for p in $pdevs; do
		echo "$p" >$driver/bind || r=1
	done
	[ $r -eq 0 ] && [ -c /dev/cmabuf-general ] && [ -c /dev/cmabuf-large ]
	ok $? "$rebound ($pdevs)"
elif dmesg | grep -q 'cmabuf-default: .*no default CMA area this kernel tells of'; then
	no_default="no default instance here (the kernel does not export dev_get_cma_area(), as the driver's log says): nothing is left when the labelled ones go"
	skip "$unbound_general: $no_default"
	skip "$unbound_large: $no_default"
	skip "$rebound: $no_default"
else
	for t in "$unbound_general" "$unbound_large" "$rebound"; do
		ok 1 "$t: no /dev/cmabuf, and the driver's log does not say why"
	done
fi

# prepare: buffers ready ahead for another program's allocations.
run cmabufctl info
[ $rc -eq 0 ] && [ "$(lines '^  prepared    [0-9]* buffers, ')" -eq "$devices" ] &&
	[ "$(lines '^  releasing   ')" -eq "$devices" ]
r=$?; ok $r "info: prepared buffers and releasing bytes of every instance"; diag $r

# Held until SIGTERM (--hold without seconds, as a service holds them);
# the want outlasts the default time-out only if an allocation takes from
# it, so ask for a long one.
: >/tmp/prep.out
cmabufctl prepare 4M 2 --device general --wait --timeout 600000 --hold \
	>/tmp/prep.out 2>&1 &
preparer=$!
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	grep -q '^holding' /tmp/prep.out && break
	sleep 1
done
run cmabufctl info --device general
shown=$out
run cmabufctl alloc 4M --device general --verify
kill -TERM $preparer
wait $preparer
prc=$?
[ $rc -eq 0 ] && has "zeroed on allocation: all 4194304 bytes are 0x00: ok" &&
	[ $prc -eq 0 ] &&
	grep -q "^prepare: 2 x 4 MiB on /dev/cmabuf-general, strategy auto, time-out 600000 ms: 2 ready$" /tmp/prep.out &&
	grep -q "^holding until SIGINT or SIGTERM (pid [0-9]*): allocations of 4 MiB take them$" /tmp/prep.out &&
	grep -q "^held [0-9]* s; allocations served ready meanwhile (all files): 1$" /tmp/prep.out &&
	echo "$shown" | grep -q "^  prepared    2 buffers, 8 MiB ready$"
r=$?; ok $r "prepare 4M 2 --wait --hold (until a signal), ended by SIGTERM: info shows them, another program's alloc takes one, zeroed"
[ $r -eq 0 ] || { out="$shown
$(cat /tmp/prep.out)"; diag $r; }

[ "$(cat /sys/class/misc/cmabuf-general/prepared_bytes)" = 0 ]
r=$?; ok $r "prepare: given back when the command exits"

run cmabufctl prepare 4M 2 --device general --wait --json
[ $rc -eq 0 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] &&
	echo "$out" | grep -q '^{"format": 1, ' && has '"count": 2,' &&
	has '"ready": 2,' && has '"timeout_ms": null,' &&
	has '"hits_while_held": null'
r=$?; ok $r "prepare --json: one document, format 1, 2 ready"; diag $r

run cmabufctl prepare 4M 0 --device general
[ $rc -eq 2 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] && has "bad count '0' (1 to 256"
r=$?; ok $r "prepare 4M 0: one error line, exit 2"; diag $r

big=$((general * 25 / 32 >> 20))
run cmabufctl prepare ${big}M 1 --device general
[ $rc -eq 1 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] &&
	has "1 x $big MiB ($big MiB) and what other files prepare are more than prepared buffers may hold: [0-9.]* MiB, 50% of the area (module parameter prepare_max_percent)$"
r=$?; ok $r "prepare ${big}M on the $(mib $general) area: ENOSPC, the limit and its parameter"; diag $r

# reserve: the instance's standing reserve, set, made ready in the
# background, shown, dropped; past reserve_max_bytes refused by name.
gsys=/sys/class/misc/cmabuf-general
run cmabufctl reserve 4Mx2 --device general
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	[ "$(cat $gsys/prepared_bytes)" = 8388608 ] && break
	sleep 1
done
[ $rc -eq 0 ] && [ "$(cat $gsys/reserve)" = "4194304x2" ] &&
	has "^  reserve     2 x 4 MiB (8 MiB); at most [0-9.]* [KMG]iB (reserve_max_bytes)$" &&
	[ "$(cat $gsys/prepared_bytes)" = 8388608 ] &&
	cmabufctl info --device general | grep -q "^  prepared    2 buffers, 8 MiB ready; reserve 4194304x2$"
r=$?; ok $r "reserve 4Mx2: the reserve set and made ready, info shows it"; diag $r

run cmabufctl reserve $((general >> 20))Mx1 --device general
[ $rc -eq 1 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] &&
	has "reserve: /dev/cmabuf-general: more than the reserve may hold, [0-9.]* [KMG]iB (reserve_max_bytes: raise it with --max)$" &&
	[ "$(cat $gsys/reserve)" = "4194304x2" ]
r=$?; ok $r "reserve past reserve_max_bytes: ENOSPC named, the reserve unchanged"; diag $r

run cmabufctl reserve none --device general --json
for i in 1 2 3 4 5 6 7 8 9 10; do
	[ "$(cat $gsys/prepared_bytes)" = 0 ] && break
	sleep 1
done
[ $rc -eq 0 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] &&
	has '^{"format": 1, "device": "/dev/cmabuf-general", "reserve": \[\], "reserve_bytes": 0, "reserve_max_bytes": [0-9]*, ' &&
	[ -z "$(cat $gsys/reserve)" ]
r=$?; ok $r "reserve none --json: dropped, one document"; diag $r

# load and save (CMABUF_IOC_RW): a tmpfs file, a buffer another process
# holds, the raw disk of tests/qemu/boot.sh when the guest has one.
dd if=/dev/urandom of=/tmp/load.bin bs=1024 count=3072 2>/dev/null
head -c 100 /dev/urandom >>/tmp/load.bin
run cmabufctl load /tmp/load.bin --device general --verify --quiet
[ $rc -eq 0 ] &&
	has "^load: 3.00 MiB (3145828 bytes) from /tmp/load.bin in [0-9.]* [mu]*s, [0-9.]* [KMG]iB/s, " &&
	has "^verify: the buffer holds the 3145828 bytes of /tmp/load.bin: ok$"
r=$?; ok $r "load FILE --verify: every byte of a 3 MiB + 100 byte tmpfs file in a new buffer"; diag $r

run cmabufctl load /tmp/load.bin --device general -o 1M -l 8K --json
[ $rc -eq 0 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] &&
	has '"offset": 1048576,' && has '"bytes": 8192,' &&
	has '"strategy": "[a-z]*",' && has '"verified": null'
r=$?; ok $r "load -o 1M -l 8K --json: one document, 8192 bytes"; diag $r

# Emptied here, not by the redirection in the child, which may run after
# the loop below has read an earlier holder's line.
: >/tmp/hold.out
cmabufctl alloc 2M --device general --fill 0x5a --hold 600 >/tmp/hold.out 2>&1 &
holder=$!
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	grep -q '^holding' /tmp/hold.out && break
	sleep 1
done
hfd=$(sed -n 's/^holding for .* (pid [0-9]*, fd \([0-9]*\))$/\1/p' /tmp/hold.out)
run cmabufctl save /tmp/save.bin --from "$holder:$hfd" --verify --quiet
[ $rc -eq 0 ] && [ "$(stat -c %s /tmp/save.bin)" -eq 2097152 ] &&
	[ "$(tr -d '\132' </tmp/save.bin | wc -c)" -eq 0 ] &&
	has "^verify: /tmp/save.bin holds the 2097152 bytes of the buffer: ok$"
r=$?; ok $r "save --from PID:FD: the 2 MiB another process filled with 0x5a"; diag $r
run cmabufctl load /tmp/load.bin --into "$holder:$hfd" --device general -l 1M --verify --quiet
[ $rc -eq 0 ] && has "^verify: the buffer holds the 1048576 bytes of /tmp/load.bin: ok$"
r=$?; ok $r "load --into PID:FD: into the buffer another process holds"; diag $r
kill -TERM $holder
wait $holder

run cmabufctl load /tmp/missing.bin
[ $rc -eq 1 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] &&
	has "^cmabufctl: load: /tmp/missing.bin: No such file or directory$"
r=$?; ok $r "load of a missing file: one error line, exit 1"; diag $r

run cmabufctl save /dev/null --size 4K --device general
[ $rc -eq 1 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] &&
	has "after 0 bytes: not a file it moves bytes of (block devices; files on disks, tmpfs, ramfs)$"
r=$?; ok $r "save to /dev/null: refused (EOPNOTSUPP), one line naming what it takes"; diag $r

raw=
for s in /sys/block/*/serial; do
	[ -f "$s" ] && [ "$(cat "$s")" = cmabuf-raw ] && raw=/dev/$(basename "${s%/serial}")
done
if [ -n "$raw" ]; then
	run cmabufctl save "$raw" --size 4M --fill 0xa5 --device general -o 1M --verify --quiet
	[ $rc -eq 0 ] && has "^save: 4 MiB (4194304 bytes) to $raw in .*, O_DIRECT$" &&
		has "^verify: $raw holds the 4194304 bytes of the buffer: ok$"
	r=$?; ok $r "save to the raw disk: 4 MiB with O_DIRECT, read back equal"; diag $r
	run cmabufctl load "$raw" --device general -o 1M -l 4M --verify --quiet
	[ $rc -eq 0 ] && has "^load: 4 MiB (4194304 bytes) from $raw in .*, O_DIRECT$" &&
		has "^verify: the buffer holds the 4194304 bytes of $raw: ok$"
	r=$?; ok $r "load from the raw disk: 4 MiB with O_DIRECT, equal"; diag $r
else
	skip "save to the raw disk: no raw disk (serial cmabuf-raw) in this guest"
	skip "load from the raw disk: no raw disk (serial cmabuf-raw) in this guest"
fi
rm -f /tmp/load.bin /tmp/save.bin /tmp/hold.out

run cmabufctl info --json
[ $rc -eq 0 ] && [ "$(count '"live_buffers": 0,')" -eq "$devices" ] &&
	[ "$(count '"prepared_bytes": 0,')" -eq "$devices" ]
r=$?; ok $r "no buffer left behind on any instance, none prepared"; diag $r

[ $fails -eq 0 ]
