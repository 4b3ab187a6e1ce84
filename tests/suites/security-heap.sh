#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The stale-data check of cmabuf_security through cmabuf's own dma-heaps.
# The security suite runs while cmabuf is loaded with heap=0 (it reloads
# the module), so its heap case runs here, after heap-defaults. Cycles as
# in security.sh.

if ! command -v cmabuf_security >/dev/null ||
   ! command -v cmabuf-run >/dev/null; then
	echo "TAP version 13"
	echo "Bail out! cmabuf_security is not installed"
	exit 1
fi

case $CMABUF_KERNEL in
*-debug) : "${CMABUF_SECURITY_CYCLES:=300}" ;;
esac
[ -n "$CMABUF_SECURITY_CYCLES" ] && export CMABUF_SECURITY_CYCLES

exec cmabuf-run --time security-heap cmabuf_security -r stale.heap.no_stale_data
