#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# KMS importer: vkms scans out cmabuf's buffers and writes its composed
# output back into another (tests/media), as the TAP of cmabuf_kms_test.
# vkms is loaded for the run, with an overlay plane beside the primary and
# the writeback connector, and unloaded after, which also proves that it
# holds no buffer.

. "${CMABUF_SUITE_LIB:-/suites}/kmod-lib.sh"

kmod_begin cmabuf_kms_test
# A stock Debian kernel may have no vkms (Debian's do not): a skip that
# names it. The test bed's kernels must have it.
case $CMABUF_KERNEL in
stock-*)
	if ! kmod_has vkms; then
		echo "TAP version 13"
		echo "1..0 # SKIP $CMABUF_KERNEL has no vkms (CONFIG_DRM_VKMS off)"
		exit 0
	fi
	;;
esac
kmod_load vkms enable_overlay=1 enable_writeback=1
"$kmod_test" 2>&1
kmod_end $?
