// SPDX-License-Identifier: GPL-2.0
/*
 * Human-readable sizes ("64 MiB", "1.50 GiB") and durations ("12.345 ms").
 */
#include <stdio.h>

#include "fmt.h"

/* Whole units print without decimals; others with two. */
const char *fmt_size(__u64 bytes, char *buf, size_t len)
{
	static const char * const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	unsigned int u = 0;

	while (u < 6 && bytes >= (1ULL << (10 * (u + 1))))
		u++;
	if (!(bytes & ((1ULL << (10 * u)) - 1)))
		snprintf(buf, len, "%llu %s", bytes >> (10 * u), units[u]);
	else
		snprintf(buf, len, "%.2f %s",
			 (double)bytes / (double)(1ULL << (10 * u)), units[u]);
	return buf;
}

/* Nanoseconds in the largest unit that keeps the value at or above 1. */
const char *fmt_ns(__u64 ns, char *buf, size_t len)
{
	if (ns < 1000ULL)
		snprintf(buf, len, "%llu ns", ns);
	else if (ns < 1000000ULL)
		snprintf(buf, len, "%.3f us", ns / 1e3);
	else if (ns < 10000000000ULL)
		snprintf(buf, len, "%.3f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", ns / 1e9);
	return buf;
}
