/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One buffer's whole cycle, timed from userspace with CLOCK_MONOTONIC:
 * allocate a dma-buf, mmap it, write one word in every page inside a CPU
 * access bracket (DMA_BUF_IOCTL_SYNC), munmap it and close it, which drops
 * the last reference and so frees the buffer. cmabufctl bench and the test
 * bed's end-to-end workloads time it alike.
 */
#ifndef CMABUFCTL_CYCLE_H
#define CMABUFCTL_CYCLE_H

#include <linux/types.h>

enum cycle_phase {
	CYCLE_ALLOC,
	CYCLE_MMAP,
	CYCLE_SYNC,	/* the bracket: cache maintenance where not coherent */
	CYCLE_TOUCH,
	CYCLE_MUNMAP,
	CYCLE_CLOSE,
	CYCLE_WHOLE,
	CYCLE_PHASES
};

/* Allocate a dma-buf of @size bytes into *@fd; 0 or -errno, silently. */
typedef int (*cycle_alloc_fn)(void *arg, __u64 size, int *fd);

int cycle_run(cycle_alloc_fn alloc, void *arg, __u64 size, __u32 page,
	      __u64 ns[CYCLE_PHASES], const char **failed);

#endif /* CMABUFCTL_CYCLE_H */
