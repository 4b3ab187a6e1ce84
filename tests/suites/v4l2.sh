#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# V4L2 importers: the kernel's test drivers capture into cmabuf's buffers
# (tests/media), as the TAP of cmabuf_v4l2_test. Their modules are loaded
# for the run with the instances the test needs and unloaded after, which
# also proves that no driver is left holding a buffer.
#
# vivid: four capture-only instances, one per vb2 allocator (0 vmalloc,
# 1 dma-contig) and API (1 single-planar, 2 multi-planar), in that order:
# vivid-000 vmalloc/single, vivid-001 dma-contig/single, vivid-002
# vmalloc/multi, vivid-003 dma-contig/multi. vim2m: mem-to-mem. vimc:
# a media-controller pipeline, with one vb2 allocator per load: loaded
# here with vmalloc (0), and reloaded by cmabuf_v4l2_test with dma-contig
# (1) for its dma-contig tests, so that one run gives one TAP.
#
#   CMABUF_V4L2_FIXTURES  run only these fixtures of cmabuf_v4l2_test,
#                         comma-separated (e.g. import,end)

. "${CMABUF_SUITE_LIB:-/suites}/kmod-lib.sh"

kmod_begin cmabuf_v4l2_test
kmod_load vivid n_devs=4 node_types=0x1,0x1,0x1,0x1 allocators=0,1,0,1 \
	multiplanar=1,1,2,2
# A stock Debian kernel may lack vim2m and vimc (Debian's do): their
# tests skip, naming the driver (CMABUF_MEDIA_ABSENT). The test bed's
# kernels must have them (kernel/configs/media.config).
CMABUF_MEDIA_ABSENT=
for m in vim2m vimc; do
	case $CMABUF_KERNEL in
	stock-*)
		if ! kmod_has "$m"; then
			CMABUF_MEDIA_ABSENT="$CMABUF_MEDIA_ABSENT $m"
			continue
		fi
		;;
	esac
	if [ $m = vimc ]; then
		kmod_load vimc allocator=0
	else
		kmod_load $m
	fi
done
export CMABUF_MEDIA_ABSENT
# Debian's kernels, as packaged, lack the videobuf2 fix of kernel/patches/:
# the tests that make vb2 refuse a buffer would leave it live for good.
case $CMABUF_KERNEL in
stock-*) export CMABUF_VB2_KEEPS_REFUSED=1 ;;
esac
set --
for f in $(echo "${CMABUF_V4L2_FIXTURES:-}" | tr , " "); do
	set -- "$@" -f "$f"
done
"$kmod_test" "$@" 2>&1
kmod_end $?
