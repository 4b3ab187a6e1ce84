#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Security: cmabuf_security (tests/security/) as TAP: no stale data in
# 1000 recycled buffers per strategy, PHYS behind its capability and the
# debugfs bench file root's, device nodes 0600 (and the mode parameter),
# no mapping beyond a buffer, PHYS for cmabuf's own dma-bufs only.
#
# The mode parameter is checked by reloading the module, which is only
# possible while it has registered no dma-heap: that test skips where the
# module was loaded with heap=1 and registered one. cmabuf is loaded back
# afterwards with the parameters it had before the suite.
#
# Arguments go to cmabuf_security: security-heap.sh runs one case here.
#
#   CMABUF_SECURITY_CYCLES  stale-data cycles per strategy (default 1000;
#                           300 on the debug kernel, where KASAN makes each
#                           cycle ~10x slower: the 1000 run on 7.2 and 6.12,
#                           the debug kernel adds its checkers to fewer)
#   CMABUF_SECURITY_ARGS    harness options that pick a subset (-v VARIANT,
#                           -t TEST), commas for blanks, for a run by hand
#                           (boot.sh --env)

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

# shellcheck disable=SC2046 # one word per option
exec cmabuf-run --restore --time "${CMABUF_SUITE:-security}" cmabuf_security "$@" \
	$(echo "${CMABUF_SECURITY_ARGS:-}" | tr , ' ')
