#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# boot.sh [--shell | --list | --list-apart | --list-cmdline] [--second]
#         [--suites "A B" | --except "A B"] [--timeout SECONDS]
#         [--env NAME=VALUE]... [--append "ARGS"] [--smp N] KERNEL
#
# Boot the test-bed kernel KERNEL under QEMU with the generated device tree
# and a fresh initramfs. Without --shell the guest runs the suites (by
# default those tests/suites/SUITES lists for KERNEL) and powers off; the
# console goes to build/logs/KERNEL/console.log and the suites' TAP to
# build/logs/KERNEL/results.log. The logs of the previous boot are removed
# before anything else can fail, and the guest says back CMABUF_RUN_ID
# (default: a new one) in its results, so that logs are always this run's.
# Exit status: 0 when the guest finished, 124 on a time-out, 1 when it
# stopped early or could not be started. --except runs the default
# suites but those; --list prints the suites and boots nothing,
# --list-cmdline the kernel parameters SUITES gives KERNEL. --env
# passes a variable to the guest's init, and so to every suite (no spaces
# in VALUE). --append adds kernel parameters (default: those SUITES gives
# the kernel with "@cmdline KERNEL ARGS...", when the default suites run);
# --smp sets the number of vCPUs (default 2).
#
# A suite that needs a guest of its own ("@guest SUITE ARGS..." in SUITES)
# is not among the default suites: it runs only when named with --suites,
# in a guest booted with its ARGS unless --append says otherwise (check.sh
# boots it apart; --list-apart prints the kernel's suites of that kind).
#
# A kernel whose default suites take too long for one guest splits them
# ("@second KERNEL SUITE..." in SUITES): --second boots its second guest,
# set up as the first, with those suites; the first runs the rest. A
# suite named "+SUITE" there runs in both (setup, or a last check such
# as kmemleak).
#
# Guests of different kernels may run at once, except where a suite that
# SUITES marks "@alone" (it measures time) runs: that guest waits for the
# machine to itself, and the others wait for it.

set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/kernel/common.sh"
# The suite list (CMABUF_SUITES_FILE: another, for the runner's own tests).
suites_file=${CMABUF_SUITES_FILE:-$top/tests/suites/SUITES}

mode=run
second=
suites=
except=
timeout=
env=
cmdline=
smp=
while [ $# -gt 0 ]; do
	case $1 in
	--shell) mode=shell ;;
	--suites) suites=$2; shift ;;
	--except) except=$2; shift ;;
	--list) mode=list ;;
	--list-apart) mode=list-apart ;;
	--list-cmdline) mode=list-cmdline ;;
	--second) second=1 ;;
	--timeout) timeout=$2; shift ;;
	--env) env="$env $2"; shift ;;
	--append) cmdline="$cmdline $2"; shift ;;
	--smp) smp=$2; shift ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
	shift
done
kernel=${1:?usage: boot.sh [--shell] [--suites \"A B\" | --except \"A B\"] [--timeout S] KERNEL}
[ -n "$smp" ] && export QEMU_SMP=$smp
. "$here/qemu.sh"

# The suites SUITES lists for a kernel: lines "name [kernel...]", less
# those "@full KERNEL SUITE..." keeps for "make check-full" unless
# CMABUF_FULL is 1.
kernel_suites() {
	awk -v k="$1" -v full="${CMABUF_FULL:-0}" '
		$1 == "@full" && $2 == k && full != 1 { for (i = 3; i <= NF; i++) skip[$i] = 1 }
		!/^[#@]/ && NF { if (NF == 1) list[++n] = $1;
			else for (i = 2; i <= NF; i++) if ($i == k) list[++n] = $1 }
		END { for (i = 1; i <= n; i++) if (!(list[i] in skip)) print list[i] }' \
		"$suites_file"
}

# The suites that need a guest of their own: "@guest SUITE ARG...".
apart_suites() {
	awk '$1 == "@guest" { print $2 }' "$suites_file"
}

# The kernel parameters of such a suite, empty for the others.
suite_cmdline() {
	awk -v s="$1" '$1 == "@guest" && $2 == s { for (i = 3; i <= NF; i++) printf " %s", $i }' \
		"$suites_file"
}

# The suites of the kernel's second guest, "+" marking those of both.
second_list() {
	awk -v k="$1" '$1 == "@second" && $2 == k { for (i = 3; i <= NF; i++) print $i }' \
		"$suites_file"
}

# The suites a guest of the kernel runs by default: its first guest's, or
# with --second its second's.
default_suites() {
	local list
	list=$(kernel_suites "$1" | { grep -vxF -f <(apart_suites) || true; })
	if [ -n "$second" ]; then
		grep -xF -f <(second_list "$1" | sed 's/^+//') <<<"$list" || true
	else
		grep -vxF -f <(second_list "$1" | grep -v '^+') <<<"$list" || true
	fi
}

# The module parameters SUITES asks for: "@insmod ARG...".
default_module_args() {
	awk '$1 == "@insmod" { for (i = 2; i <= NF; i++) printf "%s%s", (i > 2 ? "," : ""), $i }' \
		"$suites_file"
}

# Kernel parameters SUITES asks for on a kernel: "@cmdline KERNEL ARG...".
default_cmdline() {
	awk -v k="$1" '$1 == "@cmdline" && $2 == k { for (i = 3; i <= NF; i++) printf " %s", $i }' \
		"$suites_file"
}

# The suites that must have the machine to themselves: "@alone NAME...".
alone_suites() {
	awk '$1 == "@alone" { for (i = 2; i <= NF; i++) print $i }' \
		"$suites_file"
}

if [ "$mode" = list-cmdline ]; then
	default_cmdline "$kernel" | xargs
	exit 0
fi
if [ "$mode" = list-apart ]; then
	kernel_suites "$kernel" | { grep -xF -f <(apart_suites) || true; } | xargs
	exit 0
fi
[ -z "$second" ] || [ -z "$suites" ] || die "--second runs the default suites of the second guest"
if [ -n "$second" ] && [ -z "$(second_list "$kernel")" ]; then
	[ "$mode" = list ] && exit 0
	die "SUITES has no second guest for $kernel"
fi
if [ -z "$suites" ]; then
	suites=$(default_suites "$kernel" |
		 { grep -vxF -f <(printf '%s\n' $except) || true; } | tr '\n' ' ')
	args=$(default_module_args)
	[ -n "$args" ] && env="$env CMABUF_MODULE_ARGS=$args"
	[ -n "$cmdline" ] || cmdline=$(default_cmdline "$kernel")
elif [ -z "$cmdline" ]; then
	# Named suites: the parameters of their "@guest" lines, which must agree.
	first=
	for s in $suites; do
		c=$(suite_cmdline "$s")
		if [ -z "$first" ]; then
			cmdline=$c
			first=$s
		elif [ "$c" != "$cmdline" ]; then
			die "suites $first and $s need different kernel command lines"
		fi
	done
fi
if [ -z "$timeout" ]; then
	case $kernel in
	*-debug) timeout=4200 ;;
	*) timeout=1500 ;;
	esac
fi

if [ "$mode" = list ]; then
	echo $suites
	exit 0
fi

# One guest per log directory at a time: its initramfs and logs are its
# own, so that a kernel's guests with different suites (check.sh boots
# some apart) may run at once. A guest that runs an "@alone" suite (or a
# shell, where anything may be measured) takes the machine: the lock is
# exclusive for it, shared for the others, which then run side by side on
# the two cores.
logs=${CMABUF_LOGS:-$CMABUF_BUILD/logs/$kernel}
mkdir -p "$CMABUF_BUILD/guest" "$logs"
share=-s
alone=$(alone_suites)
for s in $suites; do
	grep -qxF "$s" <<<"$alone" && share=-x
done
[ "$mode" = shell ] && share=-x
exec 8>"$logs/.lock"
exec 9>"$CMABUF_BUILD/guest/.lock"
if ! flock -n 8 || ! flock -n $share 9; then
	log "waiting for another guest to finish"
	flock 8
	flock $share 9
fi

# Nothing of an earlier boot may be taken for this one's: its logs go
# before the kernel, the device tree and the initramfs are looked for.
rm -f "$logs/console.log" "$logs/results.log" "$logs/status"
run_id=${CMABUF_RUN_ID:-$(date +%s%N)}

image=$(kernel_image "$kernel")
if is_stock "$kernel"; then
	[ -f "$image" ] || die "stock kernel $kernel is not fetched (kernel/stock-image.sh fetch $kernel)"
	# The virtio console of the results channel, vgem (the sharing
	# suites' importer) and the rw suite's disks and file system, built
	# into the test bed's kernels, where the image has them as modules:
	# loaded by the guest's init first.
	preload=
	for m in virtio_mmio virtio_console virtio_blk ext4 vgem; do
		[ -n "$(find "$(kernel_mod_dir "$kernel")" -name "$m.ko")" ] &&
			preload="$preload${preload:+,}$m"
	done
	[ -n "$preload" ] && env="$env CMABUF_MODPROBE=$preload"
	# The strategies the tests expect follow what the image exports to
	# modules (its kallsyms lists cma_alloc whether exported or not):
	# CMABUF_TEST_STRATEGIES, CMABUF_STRATEGY_BIT()s of the uapi.
	symvers=$(cat "$CMABUF_BUILD/stock/$kernel/kdir")/Module.symvers
	exports() { awk -F'\t' -v s="$1" '$2 == s { f = 1 } END { exit !f }' "$symvers"; }
	bits=1
	exports cma_alloc_frozen_compound && bits=$((bits | 2 | 4))
	exports cma_alloc && bits=$((bits | 8))
	exports dma_alloc_pages && bits=$((bits | 16))
	env="$env CMABUF_TEST_STRATEGIES=$(printf '%#x' $bits)"
else
	[ -f "$image" ] || die "kernel $kernel is not built (make kernels)"
fi

# Written to a temporary name first: another guest may be reading it. One
# per page size: CMA regions are multiples of a pageblock.
pages=$(kernel_page_size "$kernel")
dtb=$CMABUF_BUILD/guest/cmabuf-virt-smp$QEMU_SMP-$pages.dtb
if [ ! -f "$dtb" ] || [ "$here/qemu.sh" -nt "$dtb" ] ||
   [ -n "$(find "$here" -maxdepth 1 -name 'cmabuf-regions*.dtsi' -newer "$dtb")" ]; then
	bash "$here/mkdtb.sh" "$kernel" "$dtb.$$.tmp"
	mv "$dtb.$$.tmp" "$dtb"
fi
initrd=$logs/initramfs.cpio.gz
bash "$here/mkinitramfs.sh" "$kernel" "$initrd"

# The guest's disks (tests/suites/rw.sh, bench-rw.sh), new at every boot:
# a raw one for O_DIRECT on the block device (sparse, CMABUF_DISK_SIZE,
# default 2 GiB) and an ext4 image (1.25 GiB, sparse: with 64 KiB pages a
# COMPOUND buffer is at least a pageblock, 512 MiB, and a test's file
# holds one) for a file system's files.
# QEMU opens both with O_DIRECT (cache=none) and submits through Linux
# AIO (aio=native): the host's page cache never holds their blocks, so
# every read in the guest reaches the host's disk. The guest finds them
# by their serial numbers.
disk_raw=$logs/disk-raw.img
disk_ext4=$logs/disk-ext4.img
rm -f "$disk_raw" "$disk_ext4"
truncate -s "${CMABUF_DISK_SIZE:-2G}" "$disk_raw"
truncate -s 1280M "$disk_ext4"
mkfs.ext4 -q -F -L cmabuf-ext4 "$disk_ext4" ||
	die "mkfs.ext4 failed (e2fsprogs: tests/qemu/install-deps.sh)"
disks=()
for d in raw:"$disk_raw" ext4:"$disk_ext4"; do
	disks+=(-drive "file=${d#*:},format=raw,if=none,id=${d%%:*},cache=none,aio=native"
		-device "virtio-blk-device,drive=${d%%:*},serial=cmabuf-${d%%:*}")
done

append="$QEMU_CMDLINE$cmdline CMABUF_KERNEL=$kernel CMABUF_MODE=$mode CMABUF_RUN=$run_id"
append="$append CMABUF_SUITES=$(echo $suites | tr ' ' ',')$env"
qemu=("$QEMU" "${QEMU_MACHINE[@]}" -no-reboot
	-kernel "$image" -initrd "$initrd" -dtb "$dtb" -append "$append"
	-device virtio-serial-device
	-chardev "file,id=results,path=$logs/results.log"
	-device virtconsole,chardev=results
	"${disks[@]}")

if [ "$mode" = shell ]; then
	exec "${qemu[@]}" -nographic
fi

log "booting $kernel: suites $suites (${QEMU_SMP} vCPUs,${cmdline:- no extra parameters}; time-out ${timeout}s)"
start=$(date +%s)
rc=0
timeout -k 10 "$timeout" "${qemu[@]}" -display none -monitor none \
	-serial "file:$logs/console.log" || rc=$?
elapsed=$(($(date +%s) - start))

if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
	status="timeout after ${elapsed}s"
	rc=124
elif grep -q '^### cmabuf-guest-done' "$logs/results.log" 2>/dev/null; then
	status="finished in ${elapsed}s"
	rc=0
else
	status="stopped early after ${elapsed}s (qemu exit $rc)"
	rc=1
fi
echo "$status" >"$logs/status"
log "$kernel: guest $status"
exit $rc
