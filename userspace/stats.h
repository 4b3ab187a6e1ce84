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

/**
 * struct stats_tail - the tail of a set of samples, by nearest rank
 * @p90: the smallest sample that 90% of the samples do not exceed
 * @p99: the same for 99%
 */
struct stats_tail {
	__u64 p90;
	__u64 p99;
};

int stats_compute(const __u64 *samples, size_t n, struct stats *st);
int stats_tail(const __u64 *samples, size_t n, struct stats_tail *t);
double stats_spread_pct(const struct stats *st);

#endif /* CMABUFCTL_STATS_H */
