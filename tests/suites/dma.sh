#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Real DMA into cmabuf's buffers: QEMU's edu devices, driven by
# cmabuf_edu.ko, as the TAP of cmabuf_dma_test. As "dma" the devices are
# behind the SMMU; as "dma-bounce" (dma-bounce.sh, in a guest booted with
# swiotlb=force) every mapping bounces. cmabuf_edu.ko and the test importer
# are loaded for the run and unloaded after, which also proves that
# nothing is left attached; on a kernel with the DMA API debugging, its
# error count must not move and no mapping of theirs may be left.

edu_ko=/lib/modules/cmabuf/cmabuf_edu.ko
importer_ko=/lib/modules/cmabuf/cmabuf_importer.ko
test=cmabuf_dma_test
dma_api=/sys/kernel/debug/dma-api

bail() {
	echo "TAP version 13"
	echo "Bail out! $*"
	exit 1
}

[ -d /sys/kernel/debug/cma ] ||
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
command -v "$test" >/dev/null || bail "$test is not installed"
[ -f "$edu_ko" ] || bail "$edu_ko was not built"

case $CMABUF_SUITE in
dma-bounce)
	grep -q 'swiotlb=[0-9]*,force' /proc/cmdline ||
		bail "the guest was not booted with swiotlb=N,force"
	path=bounce
	# swiotlb holds 128 MiB: the 1 GiB buffers go through the SMMU only.
	set -- -V large_1g_compound -V large_1g_frozen -V large_1g_legacy \
		-V large_1g_heap
	;;
*)
	path=iommu
	set -- -F edu_bounce
	# Under KASAN and the DMA API debugging a 1 GiB buffer's two cases
	# take minutes and check nothing 64 MiB does not: 64 MiB only there
	# (the cmabuf suite allocates 1 GiB on that kernel).
	case $CMABUF_KERNEL in
	*-debug)
		set -- "$@" -V large_1g_compound -V large_1g_frozen \
			-V large_1g_legacy -V large_1g_heap
		;;
	esac
	;;
esac

# Every error of the DMA API debugging on the console, not only the first.
errors_before=
if [ -d $dma_api ]; then
	errors_before=$(cat $dma_api/error_count)
	echo 1 >$dma_api/all_errors
fi

insmod "$edu_ko" dma_bits="$CMABUF_EDU_BITS" || bail "insmod cmabuf_edu.ko failed"
importer=
if [ ! -e /dev/cmabuf_importer ]; then
	insmod "$importer_ko" || bail "insmod cmabuf_importer.ko failed"
	importer=1
fi

CMABUF_DMA_PATH=$path CMABUF_EDU_BITS=$CMABUF_EDU_BITS "$test" "$@" 2>&1
rc=$?

if ! rmmod cmabuf_edu; then
	echo "# rmmod cmabuf_edu failed"
	rc=1
fi
if [ -n "$importer" ] && ! rmmod cmabuf_importer; then
	echo "# rmmod cmabuf_importer failed"
	rc=1
fi
if [ -n "$errors_before" ]; then
	echo 0 >$dma_api/all_errors
	errors=$(($(cat $dma_api/error_count) - errors_before))
	left=$(grep -c -e cmabuf_edu -e cmabuf_importer $dma_api/dump)
	echo "# DMA API debugging: $errors errors, $left mappings left"
	[ "$errors" -eq 0 ] && [ "$left" -eq 0 ] || rc=1
fi
exit $rc
