#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The lifecycle tests that need cmabuf's dma-heaps, after heap-defaults
# has loaded the module with them (the lifecycle suite runs while it is
# loaded with heap=0, where these tests skip or check that no heap
# exists): a heap refuses with ENODEV while its instance is unbound and
# serves it again once bound, a name the kernel's CMA heap took gets no
# cmabuf heap, and a heap allocation takes a buffer prepared through the
# instance's misc device. Through lifecycle.sh, with fewer unbind rounds.
# Where SUITES runs it the heaps must be there: without them it fails.
#
#   CMABUF_HEAP_PARAM  cmabuf's heap parameter
#                      (default /sys/module/cmabuf/parameters/heap)

param=${CMABUF_HEAP_PARAM:-/sys/module/cmabuf/parameters/heap}

if [ "$(cat "$param" 2>/dev/null)" != Y ]; then
	echo "TAP version 13"
	echo "Bail out! cmabuf is not loaded with heap=1 ($param): heap-defaults must run first"
	exit 1
fi

: "${CMABUF_LIFECYCLE_REPEAT:=0.25}"
CMABUF_REQUIRE_HEAPS=1
export CMABUF_LIFECYCLE_REPEAT CMABUF_REQUIRE_HEAPS
exec sh "$(dirname "$0")/lifecycle.sh" \
	-t unbind_bind_while_alive -t heap_name_taken_gets_no_heap \
	-t prepare_serves_dma_heap
