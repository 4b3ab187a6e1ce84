// SPDX-License-Identifier: GPL-2.0
/*
 * Median, minimum, maximum and mean of timing samples.
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

	if (!n)
		return -EINVAL;
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, samples, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_u64);

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

/* The range max - min as a percentage of the median: how noisy a run was. */
double stats_spread_pct(const struct stats *st)
{
	if (!st->median)
		return 0.0;
	return 100.0 * (double)(st->max - st->min) / (double)st->median;
}
