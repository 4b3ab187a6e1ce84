/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one clock of every userspace timing: CLOCK_MONOTONIC, in nanoseconds.
 */
#ifndef CMABUFCTL_CLOCK_H
#define CMABUFCTL_CLOCK_H

#include <time.h>
#include <linux/types.h>

static inline __u64 clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

#endif /* CMABUFCTL_CLOCK_H */
