#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build-kernel.sh NAME: build the arm64 kernel NAME (7.2, 7.2-debug, 7.2-64k,
# 7.2-16k or 6.12) into build/kernel/NAME from tinyconfig plus the fragments
# of kernel/configs/, then check that every option the fragments ask for is
# really set. The kernel is rebuilt only when its source package, patches,
# fragments, compiler or this script changed.

set -euo pipefail
. "$(dirname "$0")/common.sh"

name=${1:?usage: build-kernel.sh 7.2|7.2-debug|7.2-64k|7.2-16k|6.12}
src=$(kernel_src_dir "$name")
out=$(kernel_out_dir "$name")
mapfile -t fragments < <(kernel_fragments "$name")

[ -f "$src/.cmabuf-source" ] || die "$src is not unpacked; run kernel/fetch-source.sh first"

stamp=$({
	cat "$src/.cmabuf-source" "${fragments[@]}" "$0"
	"${CROSS_COMPILE}gcc" --version | head -n 1
} | sha256sum | cut -c1-16)

if [ -f "$out/.cmabuf-stamp" ] && [ "$(cat "$out/.cmabuf-stamp")" = "$stamp" ] &&
	[ -f "$out/arch/arm64/boot/Image" ] && [ -f "$out/Module.symvers" ] &&
	[ -d "$(kernel_mod_dir "$name")/lib/modules" ]; then
	log "kernel $name is up to date"
	exit 0
fi

kmake() {
	make -C "$src" O="$out" ARCH=arm64 CROSS_COMPILE="$CROSS_COMPILE" \
		CC="ccache ${CROSS_COMPILE}gcc" KBUILD_BUILD_USER=cmabuf \
		KBUILD_BUILD_HOST=cmabuf -s "$@"
}

# Fail with the option's name when an option the fragments ask for did not
# survive olddefconfig (a missing dependency, a renamed symbol). The last
# fragment that names an option decides its value, as in merge_config.sh
# (pages-64k.config turns off the 4 KiB pages of qemu-arm64.config).
verify_config() {
	local frag line opt bad=0
	local -A want from
	local -a order=()
	for frag in "$@"; do
		while read -r line; do
			case $line in
			CONFIG_*=*)
				opt=${line%%=*}
				[ -n "${want[$opt]+set}" ] || order+=("$opt")
				want[$opt]=${line#*=}
				from[$opt]=$(basename "$frag")
				;;
			esac
		done <"$frag"
	done
	for opt in "${order[@]}"; do
		if [ "${want[$opt]}" = n ]; then
			if grep -q "^$opt=" "$out/.config"; then
				echo "config: $opt is set, ${from[$opt]} wants it off" >&2
				bad=1
			fi
		elif ! grep -qx "$opt=${want[$opt]}" "$out/.config"; then
			echo "config: $opt is not ${want[$opt]} (asked for by ${from[$opt]})" >&2
			bad=1
		fi
	done
	return $bad
}

log "configuring kernel $name"
mkdir -p "$out"
rm -f "$out/.cmabuf-stamp"
kmake tinyconfig >/dev/null
ARCH=arm64 "$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
	"${fragments[@]}" >/dev/null
kmake olddefconfig
verify_config "${fragments[@]}" || die "kernel $name: requested options are missing"

log "building kernel $name ($(make -s -C "$src" kernelversion)) with $(nproc) jobs"
kmake -j"$(nproc)" Image modules
# The guest's modprobe needs the modules under /lib/modules/RELEASE with
# their modules.dep (tests/qemu/mkinitramfs.sh packs this tree).
rm -rf "$(kernel_mod_dir "$name")"
kmake INSTALL_MOD_PATH="$(kernel_mod_dir "$name")" INSTALL_MOD_STRIP=1 \
	DEPMOD=/sbin/depmod modules_install
echo "$stamp" >"$out/.cmabuf-stamp"
log "kernel $name built: $out/arch/arm64/boot/Image"
