#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# stock-image.sh fetch NAME: download the Debian kernel NAME of
# kernel/stock-images (its image, headers, common headers and the host's
# amd64 kbuild package) into ~/.cache/cmabuf/debs and unpack them into
# build/stock/NAME: root/ (the packages' files), Image (the kernel QEMU
# boots), modinst/ (the image's own modules the guest needs, with their
# modules.dep), release and kdir (the headers' build tree). Nothing is done
# when NAME is already unpacked from the same packages.
#
# stock-image.sh module NAME: build cmabuf.ko and the test modules against
# NAME's own headers into build/module/NAME, cross, with the kbuild
# package's tools. Bookworm's kernels are built with gcc-12, the host's
# aarch64-linux-gnu-gcc-12; sid's with gcc-16, which only sid has: its
# modules are built in a sid root of their own (build/stock/sid-root, made
# by debootstrap, with sid's cross compiler and kbuild package), never with
# sid in the system's apt sources; that root is made and entered as root
# (through sudo when not run as root). Exit status 2 when the Kbuild refuses the
# kernel (what it said is the last line of the output).
#
# stock-image.sh names: the images of kernel/stock-images.
#
# Each step appends "NAME STEP SECONDS" to build/stock/times.

set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

debs=$CMABUF_CACHE/debs
aptdir=$CMABUF_CACHE/apt-sid-stock
stock=$CMABUF_BUILD/stock
mkdir -p "$debs" "$stock"

# The line of kernel/stock-images for NAME: "suite package".
image_line() {
	awk -v n="$1" '!/^#/ && $1 == n { print $2, $3; found = 1 } END { exit !found }' \
		"$here/stock-images"
}

sid_apt() {
	local cmd=$1
	shift
	"$cmd" -q -o Dir::Etc::SourceList="$aptdir/sid.sources" \
		-o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$aptdir/lists" \
		-o Dir::Cache="$aptdir/cache" \
		-o APT::Architectures::=amd64 -o APT::Architectures::=arm64 \
		-o APT::Sandbox::User=root "$@"
}

# Private sid lists for arm64 and amd64, refreshed once a day.
sid_lists() {
	mkdir -p "$aptdir/lists/partial" "$aptdir/cache"
	cat >"$aptdir/sid.sources" <<SRC
Types: deb
URIs: http://deb.debian.org/debian
Suites: sid
Components: main
Architectures: arm64 amd64 all
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	if [ -z "$(find "$aptdir/lists" -maxdepth 1 -name '*_Packages*' -mmin -1440)" ]; then
		sid_apt apt-get update >&2 || log "sid lists could not be updated; trying cached ones"
	fi
}

# apt SUITE CMD ARGS...: apt-get/apt-cache through the suite's lists.
apt_for() {
	local suite=$1
	shift
	if [ "$suite" = sid ]; then
		sid_apt "$@"
	else
		"$1" -q -o APT::Sandbox::User=root "${@:2}"
	fi
}

# What the apt lists of SUITE are now, with LINE of kernel/stock-images.
lists_key() {
	local dir=/var/lib/apt/lists
	[ "$1" = sid ] && dir=$aptdir/lists
	{
		echo "$2"
		find "$dir" -maxdepth 1 -name '*_Packages*' -printf '%f %s %T@\n' | sort
	} | sha256sum | cut -c1-16
}

# The candidate version of PACKAGE[:ARCH] in SUITE.
version_of() {
	apt_for "$1" apt-cache show --no-all-versions "$2" 2>/dev/null |
		sed -n 's/^Version: //p' | head -n 1
}

# The dependency of PACKAGE:ARCH in SUITE whose name matches REGEX.
depends_on() {
	apt_for "$1" apt-cache depends "$2" 2>/dev/null |
		sed -nE 's/^ *\|?Depends: <?([^:>]+)(:[a-z0-9]+)?>?$/\1/p' |
		grep -E "$3" | head -n 1
}

# Every dependency of PACKAGE:ARCH in SUITE whose name matches REGEX.
depends_all() {
	apt_for "$1" apt-cache depends "$2" 2>/dev/null |
		sed -nE 's/^ *\|?Depends: <?([^:>]+)(:[a-z0-9]+)?>?$/\1/p' |
		grep -E "$3" | sort -u
}

timed() {
	local what=$1 start rc=0
	shift
	start=$(date +%s)
	"$@" || rc=$?
	echo "$name $what $(($(date +%s) - start))" >>"$stock/times"
	return $rc
}

# The .deb of PACKAGE VERSION ARCH in the cache.
deb_file() {
	echo "$debs/${1}_${2//:/%3a}_${3}.deb"
}

download() {
	local want=() p v a
	while read -r p v a; do
		[ -s "$(deb_file "$p" "$v" "$a")" ] || want+=("$p:$a=$v")
	done <<<"$packages"
	[ ${#want[@]} -eq 0 ] && return 0
	log "$name: downloading ${want[*]}"
	(cd "$debs" && apt_for "$suite" apt-get download "${want[@]}" >&2)
}

# The kernel QEMU boots: vmlinuz as it is (an arm64 Image), or unpacked
# from gzip.
boot_image() {
	local vmlinuz=$1 out=$2
	case $(od -An -tx1 -N2 "$vmlinuz" | tr -d ' ') in
	1f8b) gzip -dc "$vmlinuz" >"$out.tmp" ;;
	*) cp "$vmlinuz" "$out.tmp" ;;
	esac
	# "ARM\x64" at offset 56: an arm64 Image header.
	[ "$(dd if="$out.tmp" bs=1 skip=56 count=4 2>/dev/null | od -An -tx1 | tr -d ' ')" = 41524d64 ] ||
		die "$vmlinuz is not an arm64 Image (nor gzip of one)"
	mv "$out.tmp" "$out"
}

# The modules the guest loads (the results channel's virtio console, the
# importers' drivers, the rw suite's disks and their file system), where
# the image has them as modules, with what they depend on: into
# modinst/lib/modules/RELEASE, uncompressed, with a modules.dep of their
# own; modinst/.guest-modules names them, so that a new list redoes them.
GUEST_MODULES="virtio_mmio virtio_console virtio_blk ext4 vgem vivid vim2m vimc vkms"

guest_modules() {
	local root=$1 rel=$2 out=$3 m f dest
	depmod -b "$root" "$rel"
	rm -rf "$out"
	mkdir -p "$out/lib/modules/$rel"
	for m in $GUEST_MODULES; do
		# Debian builds vim2m, vimc and vkms into none of these images.
		modprobe -d "$root" -S "$rel" --show-depends "$m" 2>/dev/null |
			sed -n 's/^insmod \([^ ]*\).*/\1/p' || true
	done | sort -u | while read -r f; do
		dest=$out/lib/modules/$rel/${f#"$root/lib/modules/$rel/"}
		mkdir -p "$(dirname "$dest")"
		case $f in
		*.xz) xz -dc "$f" >"${dest%.xz}" ;;
		*.zst) zstd -qdc "$f" >"${dest%.zst}" ;;
		*.gz) gzip -dc "$f" >"${dest%.gz}" ;;
		*) cp "$f" "$dest" ;;
		esac
	done
	cp "$root/lib/modules/$rel"/modules.builtin* "$root/lib/modules/$rel/modules.order" \
		"$out/lib/modules/$rel/"
	depmod -b "$out" "$rel"
	echo "$GUEST_MODULES" >"$out/.guest-modules"
}

unpack() {
	local dir=$stock/$name p v a
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp/root"
	while read -r p v a; do
		dpkg-deb -x "$(deb_file "$p" "$v" "$a")" "$dir.tmp/root"
	done <<<"$packages"
	# The headers' Makefile includes the common headers' by their
	# installed path: here they are under root/.
	sed -i "s|^include /usr/src/|include $dir/root/usr/src/|" \
		"$dir.tmp/root/usr/src/linux-headers-$release/Makefile"
	# Sid's packages are merged-/usr, the kernel beside its modules.
	[ -e "$dir.tmp/root/lib" ] || ln -s usr/lib "$dir.tmp/root/lib"
	local vmlinuz=$dir.tmp/root/boot/vmlinuz-$release
	[ -f "$vmlinuz" ] || vmlinuz=$dir.tmp/root/lib/modules/$release/vmlinuz
	boot_image "$vmlinuz" "$dir.tmp/Image"
	local config=$dir.tmp/root/boot/config-$release
	[ -f "$config" ] || config=$dir.tmp/root/lib/modules/$release/config
	cp "$config" "$dir.tmp/config"
	guest_modules "$dir.tmp/root" "$release" "$dir.tmp/modinst"
	echo "$release" >"$dir.tmp/release"
	echo "$dir/root/usr/src/linux-headers-$release" >"$dir.tmp/kdir"
	echo "$suite" >"$dir.tmp/suite"
	echo "$stamp" >"$dir.tmp/.cmabuf-stock"
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
	# The kdir path was written for the final place.
	[ -f "$dir/root/usr/src/linux-headers-$release/Makefile" ]
}

fetch() {
	local line img hdr common kbuild t0 p
	t0=$(date +%s)
	line=$(image_line "$name") || die "no image $name in kernel/stock-images"
	read -r suite img <<<"$line"
	[ "$suite" = sid ] && sid_lists
	# The packages as resolved before, while the apt lists are the same:
	# apt-cache takes seconds a call on sid's lists.
	local key resolved=$stock/$name.resolved
	key=$(lists_key "$suite" "$line")
	if [ -f "$resolved" ] && [ "$(head -n 1 "$resolved")" = "$key" ]; then
		packages=$(tail -n +3 "$resolved")
		release=$(sed -n 2p "$resolved")
		echo "$name resolve $(($(date +%s) - t0))" >>"$stock/times"
		fetch_packages
		return
	fi
	# A metapackage: its linux-image-* dependency.
	local dep
	dep=$(depends_on "$suite" "$img:arm64" '^linux-image-[0-9]' || true)
	[ -n "$dep" ] && img=$dep
	release=${img#linux-image-}
	hdr=linux-headers-$release
	common=$(depends_on "$suite" "$hdr:arm64" '^linux-headers-.*-common')
	kbuild=$(depends_on "$suite" "$hdr:arm64" '^linux-kbuild-')
	[ -n "$common" ] && [ -n "$kbuild" ] || die "$name: $hdr has no common headers or kbuild"
	packages="$img $(version_of "$suite" "$img:arm64") arm64
"
	# Sid splits the image: the kernel and its modules are packages of
	# their own, linux-binary-RELEASE and linux-modules-RELEASE (and
	# linux-base-RELEASE), on which the image package depends.
	for p in $(depends_all "$suite" "$img:arm64" "^linux-[a-z]+-${release//+/\\+}\$"); do
		packages="$packages$p $(version_of "$suite" "$p:arm64") arm64
"
	done
	packages="$packages$hdr $(version_of "$suite" "$hdr:arm64") arm64
$common $(version_of "$suite" "$common") all
$kbuild $(version_of "$suite" "$kbuild:amd64") amd64"
	if grep -q ' $' <<<"$packages" || grep -qE '^[^ ]+  ' <<<"$packages"; then
		die "$name: a package has no candidate in $suite: $packages"
	fi
	printf '%s\n%s\n%s\n' "$key" "$release" "$packages" >"$resolved"
	echo "$name resolve $(($(date +%s) - t0))" >>"$stock/times"
	fetch_packages
}

# Download and unpack $packages, unless unpacked already.
fetch_packages() {
	timed download download
	stamp=$(awk '{ print $1 "_" $2 "_" $3 }' <<<"$packages" | xargs)
	if [ -f "$stock/$name/.cmabuf-stock" ] &&
	   [ "$(cat "$stock/$name/.cmabuf-stock")" = "$stamp" ]; then
		log "$name: $release already unpacked"
		[ "$(cat "$stock/$name/modinst/.guest-modules" 2>/dev/null)" = "$GUEST_MODULES" ] ||
			guest_modules "$stock/$name/root" "$release" "$stock/$name/modinst"
		return 0
	fi
	log "$name: unpacking $release"
	timed unpack unpack
	log "$name: $release ready in build/stock/$name"
}

# as_root CMD...: CMD as root (the sid root is entered with chroot).
as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	else
		sudo "$@"
	fi
}

# The sid root that builds sid's modules: debootstrap (unpacked from
# bookworm's package, not installed), sid's cross compiler and make.
# pahole (dwarves): the headers' modfinal adds BTF to every module.
SID_PACKAGES="gcc-16-aarch64-linux-gnu make libelf1t64 libssl3t64 dwarves"

sid_root() {
	local root=$stock/sid-root dbs=$stock/debootstrap deb
	if [ -f "$root/.cmabuf-sid-root" ] &&
	   [ "$(cat "$root/.cmabuf-sid-root")" = "$SID_PACKAGES" ]; then
		return 0
	fi
	# A root made before with fewer packages: sid's own apt adds them.
	if [ -f "$root/.cmabuf-sid-root" ]; then
		log "adding to the sid root: $SID_PACKAGES"
		if as_root chroot "$root" apt-get -q -o Acquire::Check-Valid-Until=false update >&2 &&
		   # shellcheck disable=SC2086 # one word per package
		   as_root chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get -q install -y \
			--no-install-recommends $SID_PACKAGES >&2; then
			echo "$SID_PACKAGES" | as_root tee "$root/.cmabuf-sid-root" >/dev/null
			return 0
		fi
	fi
	if [ ! -x "$dbs/usr/sbin/debootstrap" ]; then
		(cd "$debs" && apt-get -q -o APT::Sandbox::User=root download debootstrap >&2)
		deb=$(ls -1 "$debs"/debootstrap_*_all.deb | sort -V | tail -n 1)
		rm -rf "$dbs"
		dpkg-deb -x "$deb" "$dbs"
	fi
	log "making the sid root for sid's cross compiler (build/stock/sid-root)"
	as_root rm -rf "$root"
	as_root env DEBOOTSTRAP_DIR="$dbs/usr/share/debootstrap" "$dbs/usr/sbin/debootstrap" \
		--variant=minbase --include="${SID_PACKAGES// /,}" \
		sid "$root" http://deb.debian.org/debian >&2
	echo "$SID_PACKAGES" | as_root tee "$root/.cmabuf-sid-root" >/dev/null
}

# build_log CMD...: CMD, its output also in build/module-NAME.log.
build_log() {
	"$@" 2>&1 | tee "$CMABUF_BUILD/module-$name.log"
}

module() {
	local dir=$stock/$name out=$CMABUF_BUILD/module/$name kdir rc=0
	[ -f "$dir/.cmabuf-stock" ] || die "$name is not fetched: stock-image.sh fetch $name"
	release=$(cat "$dir/release")
	suite=$(cat "$dir/suite")
	kdir=$(cat "$dir/kdir")
	rm -rf "$out"
	mkdir -p "$out"
	(cd "$CMABUF_TOP" && rsync -a --relative VERSION Kbuild drivers include \
		tests/importer tests/edu tests/kunit "$out/")
	if [ "$suite" = sid ]; then
		timed sid-root sid_root
		local root=$stock/sid-root inside=/cmabuf/$name
		# The headers and kbuild packages where their Makefile looks.
		if [ "$(cat "$root/.cmabuf-headers-$name" 2>/dev/null)" != "$(cat "$dir/.cmabuf-stock")" ]; then
			local d
			for d in usr/src/linux-headers-"$release" usr/src/linux-headers-*"${release%%-arm64*}"-common \
				usr/lib/linux-kbuild-* usr/src/linux-kbuild-*; do
				as_root rm -rf "${root:?}/$d"
			done
			(cd "$dir/root" && tar -c usr/src usr/lib/linux-kbuild-*) | as_root tar -x -C "$root"
			as_root sed -i "s|^include $dir/root/usr/src/|include /usr/src/|" \
				"$root/usr/src/linux-headers-$release/Makefile"
			as_root cp "$dir/.cmabuf-stock" "$root/.cmabuf-headers-$name"
		fi
		as_root rm -rf "${root:?}$inside"
		as_root mkdir -p "$root$inside"
		as_root cp -a "$out/." "$root$inside/"
		timed module build_log as_root chroot "$root" make -C "/usr/src/linux-headers-$release" \
			M="$inside" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- W=1 TESTS=1 \
			modules || rc=$?
		cp -a "$root$inside/." "$out/"
	else
		timed module build_log make -C "$kdir" M="$out" ARCH=arm64 \
			CROSS_COMPILE=aarch64-linux-gnu- W=1 TESTS=1 modules || rc=$?
	fi
	if [ $rc -ne 0 ]; then
		# The Kbuild's own refusal ("*** cmabuf: ...") is exit status 2.
		grep -q '\*\*\* cmabuf: ' "$CMABUF_BUILD/module-$name.log" && return 2
		return $rc
	fi
	[ -f "$out/cmabuf.ko" ]
}

cmd=${1:?usage: stock-image.sh fetch|module NAME, or names}
case $cmd in
names)
	awk '!/^#/ && NF { print $1 }' "$here/stock-images"
	exit 0
	;;
esac
name=${2:?usage: stock-image.sh $cmd NAME}
case $cmd in
fetch) fetch ;;
module) module ;;
# The sid root that builds NAME's modules, when NAME is one of sid's.
sid-root)
	line=$(image_line "$name") || die "no image $name in kernel/stock-images"
	[ "${line%% *}" != sid ] || sid_root
	;;
*) die "unknown command $cmd" ;;
esac
