#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Security: cmabuf_security (tests/security/) as TAP: no stale data in
# 1000 recycled buffers per strategy, BENCH and PHYS behind their
# capabilities, device nodes 0600 (and the mode parameter), no mapping
# beyond a buffer, PHYS for cmabuf's own dma-bufs only.
#
# The mode parameter is checked by reloading the module, which is only
# possible while it has registered no dma-heap: that test skips where the
# module was loaded with heap=1 and registered one. When it runs, the
# module is loaded back with its default parameters here at the end.
#
#   CMABUF_SECURITY_CYCLES  stale-data cycles per strategy (default 1000)

ko=/lib/modules/cmabuf/cmabuf.ko

if ! command -v cmabuf_security >/dev/null; then
	echo "TAP version 13"
	echo "Bail out! cmabuf_security is not installed"
	exit 1
fi

[ -d /sys/kernel/debug/cma ] ||
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null

start=$(date +%s)
cmabuf_security
rc=$?

# Back to what init loaded: default parameters.
if [ ! -d /sys/module/cmabuf ]; then
	echo "# cmabuf was left unloaded: loading it back"
	insmod "$ko" || rc=1
elif [ "$(cat /sys/module/cmabuf/parameters/heap)" = N ] ||
     [ "$(cat /sys/module/cmabuf/parameters/mode)" != 384 ]; then
	if ! rmmod cmabuf || ! insmod "$ko"; then
		echo "# could not load cmabuf back with its default parameters"
		rc=1
	fi
fi
echo "# security suite: $(($(date +%s) - start)) s"
exit $rc
