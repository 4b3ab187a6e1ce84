#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Sharing: cmabuf's dma-bufs taken by other drivers (the test importer,
# vgem, the dma-heaps), as the TAP of cmabuf_sharing_test. Loads
# cmabuf_importer.ko for the run and unloads it after, which also proves
# that nothing is left attached.

ko=/lib/modules/cmabuf/cmabuf_importer.ko
test=cmabuf_sharing_test

if ! command -v "$test" >/dev/null; then
	echo "TAP version 13"
	echo "Bail out! $test is not installed"
	exit 1
fi
if [ ! -f "$ko" ]; then
	echo "TAP version 13"
	echo "Bail out! $ko was not built"
	exit 1
fi
if ! insmod "$ko"; then
	echo "TAP version 13"
	echo "Bail out! insmod cmabuf_importer.ko failed"
	exit 1
fi

CMABUF_MODULE_DIR=${ko%/*} "$test"
rc=$?

if ! rmmod cmabuf_importer; then
	echo "# rmmod cmabuf_importer failed"
	[ $rc -ne 0 ] || rc=1
fi
exit $rc
