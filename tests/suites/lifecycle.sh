#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Faults and lifecycle: cmabuf_lifecycle (tests/stress/) as TAP, with the
# test importer loaded. It kills processes mid-allocation and holding
# buffers, fills an area, closes fds under mappings and importer holds,
# unbinds and binds instances, and unloads the modules.
#
# Unloading cmabuf is only possible while it has registered no dma-heap
# (dma-heaps cannot be removed): the rmmod-and-reload test skips on a
# kernel where the module was loaded with heap=1 and registered one. When
# it runs, it reloads with heap=0; the module is loaded back with its
# default parameters here at the end.
#
#   CMABUF_LIFECYCLE_REPEAT  scales every repeat count (default 1)
#
# The program prints "# record: faults injected=N".

ko=/lib/modules/cmabuf/cmabuf.ko

if ! command -v cmabuf_lifecycle >/dev/null ||
   ! command -v cmabuf-with-importer >/dev/null; then
	echo "TAP version 13"
	echo "Bail out! cmabuf_lifecycle is not installed"
	exit 1
fi

start=$(date +%s)
cmabuf-with-importer cmabuf_lifecycle
rc=$?

# Back to what init loaded: default parameters.
if [ ! -d /sys/module/cmabuf ]; then
	echo "# cmabuf was left unloaded: loading it back"
	insmod "$ko" || rc=1
elif [ "$(cat /sys/module/cmabuf/parameters/heap)" = N ]; then
	if ! rmmod cmabuf || ! insmod "$ko"; then
		echo "# could not load cmabuf back with its default parameters"
		rc=1
	fi
fi
for dev in cmabuf cmabuf-general cmabuf-large; do
	if [ ! -c "/dev/$dev" ]; then
		echo "# /dev/$dev is missing after the suite"
		rc=1
	fi
done
echo "# lifecycle suite: $(($(date +%s) - start)) s"
exit $rc
