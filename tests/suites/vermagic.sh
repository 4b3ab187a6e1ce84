#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A module built for one kernel is refused by another: every cmabuf.ko the
# host built for another kernel (tests/qemu/mkinitramfs.sh packs them as
# /lib/modules/foreign/<kernel>/cmabuf.ko: Debian's other images, the test
# bed's kernels) must fail to load here, and the kernel must say it is for
# another kernel ("version magic"; with CONFIG_MODVERSIONS a symbol's
# version that disagrees; the size of struct module), not that something
# else went wrong. Then this kernel's own build must load, with the
# parameters it had.
#
# Runs while cmabuf is loaded with heap=0 (SUITES), so that it can be
# unloaded: a foreign build would otherwise be refused only because a
# module of that name is loaded.
#
#   CMABUF_FOREIGN_DIR  where the other kernels' builds are
#                       (default /lib/modules/foreign)
#   CMABUF_OWN_KO       this kernel's build (/lib/modules/cmabuf/cmabuf.ko)
#   CMABUF_PARAMS_DIR   cmabuf's parameters (/sys/module/cmabuf/parameters)

. "${CMABUF_SUITE_LIB:-/suites}/tap-lib.sh"

foreign=${CMABUF_FOREIGN_DIR:-/lib/modules/foreign}
own=${CMABUF_OWN_KO:-/lib/modules/cmabuf/cmabuf.ko}
params=${CMABUF_PARAMS_DIR:-/sys/module/cmabuf/parameters}

echo "TAP version 13"
kos=$(ls "$foreign"/*/cmabuf.ko 2>/dev/null)
if [ -z "$kos" ]; then
	echo "Bail out! no cmabuf.ko built for another kernel is in $foreign (build one: make module KERNEL=7.2, kernel/stock-image.sh module NAME)"
	exit 1
fi
echo "1..$(($(echo "$kos" | grep -c .) + 1))"

args=
if [ -d "$params" ]; then
	args=$(cmabuf-run --params)
	rmmod cmabuf || {
		echo "Bail out! cmabuf is loaded and cannot be unloaded (a dma-heap?)"
		exit 1
	}
fi

for ko in $kos; do
	for_kernel=$(basename "$(dirname "$ko")")
	magic=$(modinfo -F vermagic "$ko" 2>/dev/null | head -n 1)
	before=$(dmesg | wc -l)
	if insmod "$ko" 2>/dev/null; then
		ok 1 "cmabuf.ko built for $for_kernel ($magic) is refused by $(uname -r): it LOADED"
		rmmod cmabuf
		continue
	fi
	# What the kernel said of it: a kernel with CONFIG_MODVERSIONS first
	# notes a module without symbol versions ("module_layout: kernel
	# tainted"), and the size check of struct module (7.x) comes before
	# the version magic.
	why=$(dmesg | tail -n +$((before + 1)) | grep 'cmabuf: ' | sed 's/^\[[^]]*\] *//' | uniq)
	echo "$why" | sed "s/^/# $for_kernel: /"
	echo "$why" | grep -q -e 'version magic' -e 'disagrees about version of symbol' \
		-e 'no symbol version for' -e 'this_module section size must match'
	ok $? "cmabuf.ko built for $for_kernel ($magic) is refused by $(uname -r) as a build for another kernel"
done

if [ -f "$own" ]; then
	# shellcheck disable=SC2086 # one word per parameter
	insmod "$own" $args
	ok $? "this kernel's own cmabuf.ko loads${args:+ with $args}"
else
	skip "this kernel's own cmabuf.ko loads: no cmabuf.ko was built for $CMABUF_KERNEL"
fi
[ $fails -eq 0 ]
