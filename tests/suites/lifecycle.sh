#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Faults and lifecycle: cmabuf_lifecycle (tests/stress/) as TAP, with the
# test importer loaded. It kills processes mid-allocation and holding
# buffers, fills an area, closes fds under mappings and importer holds,
# unbinds and binds instances, and unloads the modules.
#
# Unloading cmabuf is only possible while it has registered no dma-heap
# (dma-heaps cannot be removed): the rmmod-and-reload test skips where the
# module was loaded with heap=1 and registered one. Where it runs it
# reloads with heap=0; cmabuf is loaded back afterwards with the
# parameters it had before the suite (init's defaults, normally).
#
#   CMABUF_LIFECYCLE_REPEAT  scales every repeat count (default 1)
#   CMABUF_LIFECYCLE_ARGS    harness options that pick a subset (-t TEST),
#                            commas for blanks, for a run by hand
#                            (boot.sh --env)
#
# Arguments go to cmabuf_lifecycle: lifecycle-heap.sh runs some tests
# again. The program prints "# record: faults injected=N", the faults and
# events that happened as meant.

if ! command -v cmabuf_lifecycle >/dev/null ||
   ! command -v cmabuf-run >/dev/null; then
	echo "TAP version 13"
	echo "Bail out! cmabuf_lifecycle is not installed"
	exit 1
fi

# Every instance must be there afterwards, as before.
nodes() {
	ls -d /dev/cmabuf /dev/cmabuf-* 2>/dev/null | tr '\n' ' '
}

if [ -n "${CMABUF_LIFECYCLE_ARGS:-}" ]; then
	# shellcheck disable=SC2046 # split on purpose
	set -- "$@" $(echo "$CMABUF_LIFECYCLE_ARGS" | tr ',' ' ')
fi

before=$(nodes)
# shellcheck disable=SC2086 # one word per option
cmabuf-run --importer --restore --time "${CMABUF_SUITE:-lifecycle}" \
	cmabuf_lifecycle "$@" $(echo "${CMABUF_LIFECYCLE_ARGS:-}" | tr , ' ')
rc=$?
if [ "$(nodes)" != "$before" ]; then
	echo "# device nodes before the suite: $before, after: $(nodes)"
	rc=1
fi
exit $rc
