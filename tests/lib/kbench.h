/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The driver's in-kernel benchmark, /sys/kernel/debug/cmabuf/<name>/bench:
 * one request written as a line of "key=value" words, the report read
 * back as "<phase> samples=.. min_ns=.. ..." lines (drivers/cmabuf_bench.c
 * documents both). The test bed's client of it.
 */
#ifndef CMABUF_KBENCH_H
#define CMABUF_KBENCH_H

#include <stddef.h>
#include <linux/types.h>

#define KBENCH_DEBUGFS		"/sys/kernel/debug/cmabuf"

/* The driver's bounds of one run (drivers/cmabuf_bench.c). */
#define KBENCH_MAX_ITERATIONS	10000
#define KBENCH_MAX_BLOCKS	4096
#define KBENCH_MAX_SAMPLES	65536
#define KBENCH_MAX_BYTES	(64ULL << 30)

/**
 * struct kbench_stats - the timings of one phase
 * @samples: timed calls
 * @min_ns: fastest
 * @median_ns: the lower middle one
 * @max_ns: slowest
 * @mean_ns: mean
 * @total_ns: sum
 */
struct kbench_stats {
	__u64 samples;
	__u64 min_ns;
	__u64 median_ns;
	__u64 max_ns;
	__u64 mean_ns;
	__u64 total_ns;
};

/**
 * struct kbench - one run
 * @pages: in: pages per allocation
 * @blocks: in: allocations held at once (0 means 1)
 * @iterations: in: iterations
 * @strategy: in: a CMABUF_STRATEGY_* value
 * @align: in: log2 of the alignment in bytes
 * @zero: in: also time clearing, on one CPU and on all
 * @clear: in: clear each range as ALLOC does, timed apart (@clearing)
 * @strategy_used: out: the strategy that was timed
 * @alloc: out: one sample per allocation
 * @free: out: one sample per release
 * @zero_one: out: with @zero, one sample per iteration, one CPU
 * @zero_all: out: with @zero, the same on every CPU of the node
 * @zero_cpus: out: the most CPUs one @zero_all sample used
 * @clearing: out: with @clear, one sample per allocation, its clearing
 *	(0 where the page allocator cleared it already)
 */
struct kbench {
	__u64 pages;
	__u32 blocks;
	__u32 iterations;
	__u32 strategy;
	__u32 align;
	int zero;
	int clear;
	__u32 strategy_used;
	struct kbench_stats alloc;
	struct kbench_stats free;
	struct kbench_stats zero_one;
	struct kbench_stats zero_all;
	__u32 zero_cpus;
	struct kbench_stats clearing;
};

int kbench_path(const char *dev, char *buf, size_t len);
int kbench_request(const char *path, const char *line, char *report,
		   size_t len);
int kbench_parse(const char *report, struct kbench *b);
int kbench_run(const char *dev, struct kbench *b);

#endif /* CMABUF_KBENCH_H */
