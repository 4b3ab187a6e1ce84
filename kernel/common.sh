# SPDX-License-Identifier: GPL-2.0
# Shared settings for the kernel build scripts; sourced, not run.

CMABUF_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CMABUF_BUILD=${CMABUF_BUILD:-$CMABUF_TOP/build}
CMABUF_CACHE=${CMABUF_CACHE:-$HOME/.cache/cmabuf}
CROSS_COMPILE=${CROSS_COMPILE:-aarch64-linux-gnu-}

export CCACHE_DIR=${CCACHE_DIR:-$CMABUF_CACHE/ccache}
export CCACHE_BASEDIR=$CMABUF_BUILD
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
# The same sources are built at different paths on different clones.
export CCACHE_NOHASHDIR=1

die() {
	echo "$(basename "$0"): $*" >&2
	exit 1
}

log() {
	echo "[$(date +%H:%M:%S)] $*" >&2
}

# The kernel series a kernel name is built from: 7.2-debug -> 7.2; a
# stock Debian kernel's: stock-6.12-16k -> 6.12.
kernel_series() {
	local k=${1#stock-}
	echo "${k%%-*}"
}

# A stock Debian kernel (kernel/stock-images: stock-*), booted as Debian
# ships it from build/stock/NAME (kernel/stock-image.sh), not built here.
is_stock() {
	case $1 in
	stock-*) return 0 ;;
	esac
	return 1
}

# The kernel Image QEMU boots.
kernel_image() {
	if is_stock "$1"; then
		echo "$CMABUF_BUILD/stock/$1/Image"
	else
		echo "$(kernel_out_dir "$1")/arch/arm64/boot/Image"
	fi
}

# The patches of SERIES in the order they apply: NNNN-*.patch of
# kernel/patches/SERIES, without a cover letter (0000-*) that
# `git format-patch --cover-letter` may have put there; it holds no diff.
series_patches() {
	local p
	for p in "$CMABUF_TOP/kernel/patches/$1"/[0-9][0-9][0-9][0-9]-*.patch; do
		case $(basename "$p") in
		0000-*) ;;
		*) [ -f "$p" ] && echo "$p" ;;
		esac
	done
	return 0
}

kernel_src_dir() {
	echo "$CMABUF_BUILD/src/$(kernel_series "$1")"
}

kernel_out_dir() {
	echo "$CMABUF_BUILD/kernel/$1"
}

# Where build-kernel.sh installs the kernel's own modules (INSTALL_MOD_PATH).
# A stock kernel's: the modules of its image the guest needs.
kernel_mod_dir() {
	if is_stock "$1"; then
		echo "$CMABUF_BUILD/stock/$1/modinst"
	else
		echo "$CMABUF_BUILD/kernel/$1/modinst"
	fi
}

# The config fragments, in order, that make up a kernel name: what the
# test bed needs, then Debian's values of the options that change timings
# (kernel/debian-config.sh), then the real importers (media.config), then
# the debug options or the page size (7.2-64k: 64 KiB pages, 7.2-16k:
# 16 KiB; the others have 4 KiB). The page-size kernels run no importer
# suite, so they build without V4L2 and DRM: a fresh make check builds
# them too. A later fragment's value of an option replaces an earlier one's.
kernel_fragments() {
	echo "$CMABUF_TOP/kernel/configs/qemu-arm64.config"
	echo "$CMABUF_TOP/kernel/configs/debian-$(kernel_series "$1").config"
	case $1 in
	*-64k) echo "$CMABUF_TOP/kernel/configs/pages-64k.config" ;;
	*-16k) echo "$CMABUF_TOP/kernel/configs/pages-16k.config" ;;
	*-debug)
		echo "$CMABUF_TOP/kernel/configs/media.config"
		echo "$CMABUF_TOP/kernel/configs/debug.config"
		;;
	*) echo "$CMABUF_TOP/kernel/configs/media.config" ;;
	esac
}

# The page size of a kernel name, as its fragments set it: 4k, 16k or 64k.
kernel_page_size() {
	local f size=4k
	if is_stock "$1"; then
		case $1 in
		*-16k) echo 16k ;;
		*-64k) echo 64k ;;
		*) echo 4k ;;
		esac
		return 0
	fi
	for f in $(kernel_fragments "$1"); do
		if grep -qx 'CONFIG_ARM64_16K_PAGES=y' "$f"; then
			size=16k
		elif grep -qx 'CONFIG_ARM64_64K_PAGES=y' "$f"; then
			size=64k
		fi
	done
	echo "$size"
}
