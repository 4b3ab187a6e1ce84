#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh KERNEL OUT: pack the guest's initramfs for KERNEL: busybox,
# /init, the suites with the kernel's ktap_helpers.sh, every arm64 program in
# build/arm64/bin, every module built for KERNEL and the kernel's own
# modules. The kernel's own gen_init_cpio writes the archive, so no device
# node or ownership needs root on the host.

set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/kernel/common.sh"

kernel=${1:?usage: mkinitramfs.sh KERNEL OUT}
out=${2:?usage: mkinitramfs.sh KERNEL OUT}
gen=$(kernel_out_dir "$kernel")/usr/gen_init_cpio
if is_stock "$kernel"; then
	# No kernel is built for a stock one: the host tool from the 7.2 tree.
	gen=$CMABUF_BUILD/stock/gen_init_cpio
	src=$(kernel_src_dir 7.2)/usr/gen_init_cpio.c
	if [ ! -x "$gen" ] || [ "$src" -nt "$gen" ]; then
		mkdir -p "$(dirname "$gen")"
		${HOSTCC:-cc} -O2 -o "$gen.$$" "$src" || die "cannot build $gen from $src"
		mv "$gen.$$" "$gen"
	fi
fi
[ -x "$gen" ] || die "$gen missing: build kernel $kernel first"

ktap=$(kernel_src_dir 7.2)/tools/testing/selftests/kselftest/ktap_helpers.sh
[ -f "$ktap" ] || die "$ktap missing: unpack the 7.2 tree (make kernels)"

busybox=$CMABUF_BUILD/guest/busybox
bash "$here/fetch-busybox.sh" "$busybox"

list=$(mktemp)
trap 'rm -f "$list"' EXIT
{
	for d in /bin /sbin /usr /usr/bin /usr/sbin /dev /proc /sys /tmp /root \
		/lib /lib/modules /lib/modules/cmabuf /suites /etc; do
		echo "dir $d 0755 0 0"
	done
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "file /init $here/init 0755 0 0"
	echo "file /bin/busybox $busybox 0755 0 0"
	for f in "$CMABUF_BUILD"/arm64/bin/*; do
		if [ -f "$f" ]; then
			echo "file /usr/bin/$(basename "$f") $f 0755 0 0"
		fi
	done
	if [ -d "$CMABUF_BUILD/module/$kernel" ]; then
		find "$CMABUF_BUILD/module/$kernel" -name '*.ko' | sort |
			while read -r ko; do
				echo "file /lib/modules/cmabuf/$(basename "$ko") $ko 0644 0 0"
			done
	fi
	# The kernel's own modules (vivid, vkms, ...) with their modules.dep.
	mods=$(kernel_mod_dir "$kernel")
	if [ -d "$mods/lib/modules" ]; then
		(cd "$mods" && find lib/modules/* | sort) | while read -r f; do
			if [ -d "$mods/$f" ]; then
				echo "dir /$f 0755 0 0"
			elif [ -f "$mods/$f" ]; then
				echo "file /$f $mods/$f 0644 0 0"
			fi
		done
	fi
	# cmabuf.ko as built for every other kernel, which this one must
	# refuse (tests/suites/vermagic.sh).
	for ko in "$CMABUF_BUILD"/module/*/cmabuf.ko; do
		other=$(basename "$(dirname "$ko")")
		[ -f "$ko" ] && [ "$other" != "$kernel" ] || continue
		echo "dir /lib/modules/foreign 0755 0 0"
		echo "dir /lib/modules/foreign/$other 0755 0 0"
		echo "file /lib/modules/foreign/$other/cmabuf.ko $ko 0644 0 0"
	done
	# The module as built for the stock kernel (kernel/build-stock-module.sh).
	stock=$CMABUF_BUILD/module-stock/$kernel/cmabuf.ko
	if [ -f "$stock" ]; then
		echo "dir /lib/modules/cmabuf-stock 0755 0 0"
		echo "file /lib/modules/cmabuf-stock/cmabuf.ko $stock 0644 0 0"
	fi
	# The module as built for a kernel without CMA exports (nocma).
	nocma=$CMABUF_BUILD/module-nocma/$kernel/cmabuf.ko
	if [ -f "$nocma" ]; then
		echo "dir /lib/modules/cmabuf-nocma 0755 0 0"
		echo "file /lib/modules/cmabuf-nocma/cmabuf.ko $nocma 0644 0 0"
	fi
	# The module as DKMS built it (tests/install/dkms-test.sh).
	dkms=$CMABUF_BUILD/module-dkms/$kernel/cmabuf.ko
	if [ -f "$dkms" ]; then
		echo "dir /lib/modules/cmabuf-dkms 0755 0 0"
		echo "file /lib/modules/cmabuf-dkms/cmabuf.ko $dkms 0644 0 0"
	fi
	echo "file /etc/60-cmabuf.rules $top/config/udev/60-cmabuf.rules 0644 0 0"
	for f in "$top"/tests/suites/*; do
		echo "file /suites/$(basename "$f") $f 0755 0 0"
	done
	# The kernel's KTAP helpers, which tap-lib.sh sources.
	echo "file /suites/ktap_helpers.sh $ktap 0644 0 0"
} >"$list"

mkdir -p "$(dirname "$out")"
"$gen" "$list" | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
