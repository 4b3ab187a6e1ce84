/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Benchmark workloads and the paths they are timed through.
 *
 * A run times one workload through several paths. Iteration i of every
 * path runs before iteration i + 1 of any, so that slow drifts of the
 * machine touch all paths alike. Each path records one sample per phase
 * per iteration; blocks workloads also keep per-block statistics.
 */
#ifndef CMABUFCTL_BENCH_H
#define CMABUFCTL_BENCH_H

#include <limits.h>
#include <stdbool.h>
#include <sys/utsname.h>

#include "dev.h"
#include "stats.h"
#include "util.h"

enum bench_phase {
	PHASE_ALLOC,
	PHASE_FREE,
	PHASE_MMAP,
	PHASE_SYNC,
	PHASE_TOUCH,
	PHASE_MUNMAP,
	PHASE_CLOSE,
	PHASE_CYCLE,
	PHASE_ZERO_ONE,
	PHASE_ZERO_ALL,
	PHASE_COUNT
};

#define BENCH_KERNEL_PHASES	(BIT(PHASE_ALLOC) | BIT(PHASE_FREE))
#define BENCH_ZERO_PHASES	(BENCH_KERNEL_PHASES | BIT(PHASE_ZERO_ONE) | \
				 BIT(PHASE_ZERO_ALL))
#define BENCH_E2E_PHASES	(BIT(PHASE_ALLOC) | BIT(PHASE_MMAP) | \
				 BIT(PHASE_SYNC) | BIT(PHASE_TOUCH) | \
				 BIT(PHASE_MUNMAP) | BIT(PHASE_CLOSE) | \
				 BIT(PHASE_CYCLE))

/* cmabuf-<S>-4k: an end-to-end path mapped with 4 KiB entries only. */
#define BENCH_SMALL_PAGES_SUFFIX	"-4k"

/**
 * struct bench_workload - what is allocated and how
 * @name: as given on the command line
 * @device: default device (a label or "default")
 * @size: bytes of one allocation
 * @blocks: allocations held at once in one iteration
 * @iterations: default number of iterations
 * @e2e: timed from userspace through a dma-buf, not in the kernel
 * @zero: in the kernel, clearing timed too, on one CPU and on all
 * @help: one line for --help
 */
struct bench_workload {
	const char *name;
	const char *device;
	__u64 size;
	__u32 blocks;
	__u32 iterations;
	bool e2e;
	bool zero;
	const char *help;
};

/**
 * struct bench_ctx - what all paths of one run share
 * @wl: the workload
 * @dev_path: the cmabuf device
 * @dev_fd: open on @dev_path
 * @dev: its CMABUF_IOC_INFO answer
 * @heap: --heap, or NULL to find the CMA heap
 * @iterations: iterations of every path
 * @page_size: the kernel's page size
 * @cpus: online CPUs
 * @uts: uname of the running kernel
 */
struct bench_ctx {
	const struct bench_workload *wl;
	char dev_path[PATH_MAX];
	int dev_fd;
	struct dev_info dev;
	const char *heap;
	__u32 iterations;
	__u32 page_size;
	long cpus;
	struct utsname uts;
};

struct bench_path;

/**
 * struct bench_path_ops - how a path runs
 * @setup: prepare (open files, find the heap); 0 or -errno, with a message
 * @run: one iteration; 0 or -errno, with a message
 * @teardown: undo @setup
 */
struct bench_path_ops {
	int (*setup)(struct bench_path *p, struct bench_ctx *c);
	int (*run)(struct bench_path *p, struct bench_ctx *c, unsigned int iter);
	void (*teardown)(struct bench_path *p);
};

/**
 * struct bench_path - one way of allocating, and its samples
 * @name: "cmabuf-frozen", "cma-heap", ...
 * @ops: how it runs
 * @strategy: %CMABUF_STRATEGY_* of a cmabuf path
 * @phases: bit mask of the phases it times
 * @fds: files it keeps open between iterations, -1 when closed
 * @target: the heap or debugfs directory it uses, for the report
 * @samples: per phase, one sample per iteration
 * @blocks: per phase, per-block statistics of each iteration
 * @done: iterations recorded
 * @error: the failure that stopped it, a negative errno
 * @implied: chosen by "all" rather than named: its absence is no error
 * @small_pages: end to end, map with 4 KiB entries only (THP off for it)
 */
struct bench_path {
	char name[32];
	const struct bench_path_ops *ops;
	unsigned int strategy;
	unsigned int phases;
	int fds[2];
	char target[PATH_MAX];
	__u64 *samples[PHASE_COUNT];
	struct stats *blocks[PHASE_COUNT];
	unsigned int done;
	int error;
	bool implied;
	bool small_pages;
};

extern const struct bench_path_ops bench_cmabuf_kernel_ops;
extern const struct bench_path_ops bench_cmabuf_e2e_ops;
#ifdef CMABUFCTL_TESTS
/* The peers cmabuf is compared with: test-bed machinery (make TESTS=1). */
extern const struct bench_path_ops bench_cma_debugfs_ops;
extern const struct bench_path_ops bench_cma_heap_ops;
#endif

const char *bench_phase_name(enum bench_phase phase);
void bench_record(struct bench_path *p, enum bench_phase phase,
		  unsigned int iter, __u64 ns);
void bench_record_blocks(struct bench_path *p, enum bench_phase phase,
			 unsigned int iter, const struct stats *st);
void bench_print_text(const struct bench_ctx *c, struct bench_path *paths, int n);
void bench_print_json(const struct bench_ctx *c, struct bench_path *paths, int n);

#endif /* CMABUFCTL_BENCH_H */
