/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The upstream CMA dma-heap, the peer of cmabuf's end-to-end path.
 */
#ifndef TESTCTL_HEAP_H
#define TESTCTL_HEAP_H

#include <stddef.h>
#include <linux/types.h>

#define HEAP_DIR	"/dev/dma_heap"

int heap_open(const char *want, const char *area, char *name, size_t len);
int heap_alloc(int heap_fd, __u64 len, int *buf_fd);
int heap_exporter(int buf_fd, char *name, size_t len);

#endif /* TESTCTL_HEAP_H */
