#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Zero-copy camera to display: vivid captures into cmabuf's buffers and
# vkms scans out the very same buffers, writing back into another
# (tests/media), as the TAP of cmabuf_pipeline_test. The modules are loaded
# for the run and unloaded after, which also proves that neither driver is
# left holding a buffer.
#
# vivid: two single-planar capture-only instances, vivid-000 vmalloc and
# vivid-001 dma-contig. vkms: its writeback connector, and the overlay
# plane the KMS helpers look for.

. "${CMABUF_SUITE_LIB:-/suites}/kmod-lib.sh"

kmod_begin cmabuf_pipeline_test
kmod_load vivid n_devs=2 node_types=0x1,0x1 allocators=0,1 multiplanar=1,1
kmod_load vkms enable_overlay=1 enable_writeback=1
"$kmod_test" 2>&1
kmod_end $?
