/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmabufctl bench: its command line, for the command (cmd_bench.c) and the
 * unit tests.
 */
#ifndef CMABUFCTL_BENCH_H
#define CMABUFCTL_BENCH_H

#include <limits.h>
#include <stdbool.h>
#include <linux/types.h>

#define BENCH_SIZE		(64ULL << 20)
#define BENCH_ITERATIONS	20
#define BENCH_MAX_ITERATIONS	100000

/**
 * struct bench_opts - what the command line asked for
 * @device: device path
 * @size: bytes of each buffer
 * @strategies: CMABUF_STRATEGY_BIT() of each strategy named, 0 for all
 *	the instance offers
 * @iterations: cycles of each strategy
 * @json: print one JSON document instead of text
 */
struct bench_opts {
	char device[PATH_MAX];
	__u64 size;
	__u32 strategies;
	__u32 iterations;
	bool json;
};

int bench_parse(int argc, char **argv, struct bench_opts *o);

#endif /* CMABUFCTL_BENCH_H */
