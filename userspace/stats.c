// SPDX-License-Identifier: GPL-2.0
/*
 * Median, minimum, maximum, mean and tail (90th, 99th percentile) of
 * timing samples.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* A sorted copy of @n samples, or NULL (none, or no memory). */
static __u64 *sorted_copy(const __u64 *samples, size_t n)
{
	__u64 *sorted;

	if (!n)
		return NULL;
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		return NULL;
	memcpy(sorted, samples, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_u64);
	return sorted;
}

/**
 * stats_compute() - summarise @n samples
 * @samples: the samples, left untouched
 * @n: how many
 * @st: the result
 *
 * Return: 0, -EINVAL for no samples, -ENOMEM if the sorted copy could not
 * be made.
 */
int stats_compute(const __u64 *samples, size_t n, struct stats *st)
{
	__u64 *sorted, lo, hi;
	size_t i;

	sorted = sorted_copy(samples, n);
	if (!sorted)
		return n ? -ENOMEM : -EINVAL;

	st->n = n;
	st->min = sorted[0];
	st->max = sorted[n - 1];
	lo = sorted[(n - 1) / 2];
	hi = sorted[n / 2];
	st->median = lo + (hi - lo) / 2;
	st->total = 0;
	for (i = 0; i < n; i++)
		st->total += sorted[i];
	st->mean = st->total / n;

	free(sorted);
	return 0;
}

/* The sample at @pct per cent of @n sorted ones, by nearest rank. */
static __u64 nearest_rank(const __u64 *sorted, size_t n, unsigned int pct)
{
	size_t rank = (pct * n + 99) / 100;

	return sorted[rank ? rank - 1 : 0];
}

/**
 * stats_tail() - the 90th and 99th percentiles of @n samples
 * @samples: the samples, left untouched
 * @n: how many
 * @t: the result
 *
 * With fewer than 100 samples the 99th percentile is the maximum.
 *
 * Return: 0, -EINVAL for no samples, -ENOMEM if the sorted copy could not
 * be made.
 */
int stats_tail(const __u64 *samples, size_t n, struct stats_tail *t)
{
	__u64 *sorted = sorted_copy(samples, n);

	if (!sorted)
		return n ? -ENOMEM : -EINVAL;
	t->p90 = nearest_rank(sorted, n, 90);
	t->p99 = nearest_rank(sorted, n, 99);
	free(sorted);
	return 0;
}

/* The range max - min as a percentage of the median: how noisy a run was. */
double stats_spread_pct(const struct stats *st)
{
	if (!st->median)
		return 0.0;
	return 100.0 * (double)(st->max - st->min) / (double)st->median;
}
