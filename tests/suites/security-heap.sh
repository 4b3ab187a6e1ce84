#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The stale-data check of cmabuf_security through cmabuf's own dma-heaps.
# The security suite runs while cmabuf is loaded with heap=0 (it reloads
# the module), so its heap case runs here, after heap-defaults, through
# security.sh with the same checks and cycle counts.

exec sh "$(dirname "$0")/security.sh" -r stale.heap.no_stale_data
