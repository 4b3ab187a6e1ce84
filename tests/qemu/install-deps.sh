#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# install-deps.sh: install every Debian package the build and the tests need,
# on a Debian 12 host, as root or through sudo. The system's apt sources are
# left alone; arm64 is only added as a dpkg architecture for the static
# libraries the guest binaries link (libc, libdrm). busybox for the guest is
# never installed (busybox-static:arm64 would replace the host's
# /bin/busybox): fetch-busybox.sh downloads and unpacks it instead.

set -euo pipefail

packages=(
	gcc gcc-aarch64-linux-gnu make bc flex bison libssl-dev libelf-dev
	cpio ccache sparse rsync kmod xz-utils python3 patch git
	qemu-system-arm device-tree-compiler
	libdrm-dev libdrm-dev:arm64 libc6-dev:arm64
	gcc-arm-linux-gnueabihf libc6-dev-armhf-cross
	gnuplot-nox dt-schema dkms man-db
	# mkfs.ext4: the guest's ext4 disk (tests/qemu/boot.sh)
	e2fsprogs
	# pahole: the BTF of modules built against a headers package that
	# ships vmlinux (Debian's 6.12, kernel/stock-image.sh)
	dwarves
)

sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	$sudo dpkg --add-architecture arm64
fi
echo "installing: ${missing[*]}" >&2
$sudo apt-get update -q
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	--no-install-recommends "${missing[@]}"
