#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The DMA suite in a guest booted with swiotlb=force (SUITES, @guest):
# dma.sh with the bounce-buffer expectations.

exec sh /suites/dma.sh
