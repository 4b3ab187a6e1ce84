/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Summary statistics of timing samples.
 */
#ifndef CMABUFCTL_STATS_H
#define CMABUFCTL_STATS_H

#include <stddef.h>
#include <linux/types.h>

/**
 * struct stats - summary of a set of samples
 * @n: number of samples
 * @min: smallest sample
 * @median: middle sample; the mean of the two middle ones for an even @n
 * @max: largest sample
 * @mean: arithmetic mean, rounded down
 * @total: sum of all samples
 */
struct stats {
	__u64 n;
	__u64 min;
	__u64 median;
	__u64 max;
	__u64 mean;
	__u64 total;
};

int stats_compute(const __u64 *samples, size_t n, struct stats *st);
double stats_spread_pct(const struct stats *st);

#endif /* CMABUFCTL_STATS_H */
