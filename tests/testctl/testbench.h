/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Benchmark workloads and the paths they are timed through.
 *
 * A run times one workload through several paths. Iteration i of every
 * path runs before iteration i + 1 of any, so that slow drifts of the
 * machine touch all paths alike. Each path records one sample per phase
 * per iteration; blocks workloads also keep per-block statistics.
 */
#ifndef TESTCTL_TESTBENCH_H
#define TESTCTL_TESTBENCH_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/utsname.h>

#include "dev.h"
#include "json.h"
#include "stats.h"
#include "util.h"

enum bench_phase {
	PHASE_ALLOC,
	PHASE_CLEARED,
	PHASE_FREE,
	PHASE_MMAP,
	PHASE_SYNC,
	PHASE_TOUCH,
	PHASE_MUNMAP,
	PHASE_CLOSE,
	PHASE_CYCLE,
	PHASE_ZERO_ONE,
	PHASE_ZERO_ALL,
	PHASE_REF,
	PHASE_COUNT
};

#define BENCH_KERNEL_PHASES	(BIT(PHASE_ALLOC) | BIT(PHASE_FREE))
/*
 * cmabuf's in-kernel paths: also the allocation with the clearing ALLOC
 * adds to it ("alloc+clear"), the same work for every strategy, where
 * "alloc" is not (the page allocator clears some strategies' pages in the
 * call, under init_on_alloc, and not others').
 */
#define BENCH_CLEARED_PHASES	(BENCH_KERNEL_PHASES | BIT(PHASE_CLEARED))
#define BENCH_ZERO_PHASES	(BENCH_KERNEL_PHASES | BIT(PHASE_ZERO_ONE) | \
				 BIT(PHASE_ZERO_ALL))
#define BENCH_E2E_PHASES	(BIT(PHASE_ALLOC) | BIT(PHASE_MMAP) | \
				 BIT(PHASE_SYNC) | BIT(PHASE_TOUCH) | \
				 BIT(PHASE_MUNMAP) | BIT(PHASE_CLOSE) | \
				 BIT(PHASE_CYCLE))

/* How long a cycle waits for the frees before it to be released. */
#define BENCH_RELEASE_WAIT_MS	10000

/* cmabuf-<S>-4k: an end-to-end path mapped with 4 KiB entries only. */
#define BENCH_SMALL_PAGES_SUFFIX	"-4k"
/* cmabuf-<S>-prepared: every sample's buffers prepared ahead, untimed. */
#define BENCH_PREPARED_SUFFIX		"-prepared"

/* The path of the same work on any kernel, to compare boots (bench_ref.c). */
#define BENCH_CPU_REF			"cpu-ref"

/* What a cmabuf path is besides its strategy (bench_path.c). */
enum bench_variant {
	BENCH_COLD,
	BENCH_SMALL_PAGES,
	BENCH_PREPARED,
};

struct bench_ctx;
struct bench_path;

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
 * @loop: a workload that runs and reports its paths itself (every
 *	allocation a sample that may fail, paths taking turns going first),
 *	or NULL for bench_loop(); returns the exit status
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
	int (*loop)(struct bench_ctx *c, struct bench_path *paths, int n);
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
 * @json: --json
 * @prepare: --prepare, a shell command run before every sample, or NULL
 * @conclude: --conclude, run after every sample, or NULL
 * @procs: --procs, the numbers of processes of "concurrent"
 * @spread: --spread, the second instance of "concurrent", or NULL
 * @steps: --steps of "fragment"
 * @seed: --seed of "fragment"
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
	int json;
	const char *prepare;
	const char *conclude;
	const char *procs;
	const char *spread;
	__u32 steps;
	__u32 seed;
};

/**
 * struct bench_path_ops - how a path runs
 * @setup: prepare (open files, find the heap); 0 or -errno, with a message
 * @run: one iteration; 0 or -errno, with a message
 * @teardown: undo @setup
 * @alloc: end to end, one dma-buf of @size bytes into *@fd; 0 or -errno,
 *	silently (under load a failure is a result)
 */
struct bench_path_ops {
	int (*setup)(struct bench_path *p, struct bench_ctx *c);
	int (*run)(struct bench_path *p, struct bench_ctx *c, unsigned int iter);
	void (*teardown)(struct bench_path *p);
	int (*alloc)(struct bench_path *p, struct bench_ctx *c, __u64 size, int *fd);
};

/* Kernel counters read around every sample of a loop workload. */
enum bench_counter {
	BENCH_PGMIGRATE_SUCCESS,
	BENCH_PGMIGRATE_FAIL,
	BENCH_COMPACT_ISOLATED,
	BENCH_COMPACT_MIGRATE_SCANNED,
	BENCH_THP_MIGRATION_SUCCESS,
	BENCH_THP_MIGRATION_SPLIT,
	BENCH_CMA_ALLOC_SUCCESS,
	BENCH_CMA_ALLOC_FAIL,
	BENCH_AREA_ALLOC_PAGES_SUCCESS,
	BENCH_AREA_ALLOC_PAGES_FAIL,
	BENCH_CMABUF_FAILURES,
	BENCH_CMABUF_INTERRUPTED,
	BENCH_CMABUF_BUSY_RETRIES,
	BENCH_CMABUF_PREPARE_HITS,
	BENCH_COUNTERS
};

/**
 * struct bench_counters - one reading of every counter
 * @v: the values
 * @present: BIT() of each counter this kernel and driver have
 * @cma_free: CmaFree of /proc/meminfo, bytes (a level, not a count)
 */
struct bench_counters {
	__u64 v[BENCH_COUNTERS];
	unsigned int present;
	__u64 cma_free;
};

/**
 * struct bench_samples - the samples of one path of a loop workload
 * @n: samples recorded
 * @max: room for samples
 * @blocks: buffers per sample
 * @ns: per sample, the time to allocate its buffers (until the first failure)
 * @free_ns: per sample, the time to close them
 * @err: per sample, 0 or the -errno of the allocation that failed (or of
 *	the PREPARE before it, which failed the sample)
 * @prep_err: per sample of a prepared path, 0 or the -errno of its PREPARE
 * @start_ns: per sample, when it started (CLOCK_MONOTONIC, for traces)
 * @turn: per sample, how many paths went before it in its iteration
 * @block_ns: with @blocks > 1, per sample @blocks allocation times
 * @delta: per sample, how much each counter moved
 * @present: the counters that were read
 * @cma_free: per sample, CmaFree before it and after it
 */
struct bench_samples {
	unsigned int n, max, blocks;
	__u64 *ns, *free_ns, *start_ns;
	int *err, *prep_err;
	unsigned int *turn;
	__u64 *block_ns;
	__u64 (*delta)[BENCH_COUNTERS];
	unsigned int present;
	__u64 (*cma_free)[2];
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
 * @implied: chosen by "all" rather than named, or a prepared path the
 *	driver or kernel cannot serve: its absence is no error
 * @small_pages: end to end, map with 4 KiB entries only (THP off for it)
 * @prepared: every sample's buffers prepared ahead on its own file of the
 *	instance (@fds[0]), untimed; the timed calls are cmabuf-<S>'s
 * @prepare_hits: allocations of its samples that took a ready buffer, as
 *	the instance's stats/prepare_hits counted them
 * @hits_mark: that counter when its current sample started
 * @hits_unknown: the counter could not be read (an older driver)
 * @rec: the samples of a loop workload
 * @ref_buf: cpu-ref's memory, mapped by its setup
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
	bool prepared;
	__u64 prepare_hits;
	__u64 hits_mark;
	bool hits_unknown;
	struct bench_samples rec;
	void *ref_buf;
};

extern const struct bench_path_ops bench_cmabuf_kernel_ops;
extern const struct bench_path_ops bench_cmabuf_e2e_ops;
extern const struct bench_path_ops bench_cmabuf_limit_ops;
extern const struct bench_path_ops bench_cpu_ref_ops;
/* The peers cmabuf is compared with: test-bed machinery (make TESTS=1). */
extern const struct bench_path_ops bench_cma_debugfs_ops;
extern const struct bench_path_ops bench_cma_heap_ops;

int bench_path_parse(const char *tok, int *strategy,
		     enum bench_variant *variant);
void bench_path_name(char *buf, size_t len, unsigned int strategy,
		     enum bench_variant variant);

/* The prepared paths (bench_prepared.c). */
int bench_prepared_setup(struct bench_path *p, struct bench_ctx *c);
void bench_prepared_teardown(struct bench_path *p);
int bench_prepared_fill(struct bench_path *p, const struct bench_ctx *c,
			__u32 count);
int bench_prepared_empty(struct bench_path *p, const struct bench_ctx *c,
			 __u32 count);

const char *bench_phase_name(enum bench_phase phase);
const char *bench_path_strategy(const struct bench_path *p);
void bench_record(struct bench_path *p, enum bench_phase phase,
		  unsigned int iter, __u64 ns);
void bench_record_blocks(struct bench_path *p, enum bench_phase phase,
			 unsigned int iter, const struct stats *st);
void bench_print_text(const struct bench_ctx *c, struct bench_path *paths, int n);
void bench_print_json(const struct bench_ctx *c, struct bench_path *paths, int n);
void bench_print_prepared(const struct bench_path *paths, int n);
void bench_json_begin(struct json *j, const struct bench_ctx *c);
void bench_json_result(struct json *j, const struct bench_path *p,
		       const char *phase);
int bench_wait_released(const struct bench_ctx *c);

/* The loop workloads (bench_sampled.c, bench_concurrent.c, bench_fragment.c). */
int bench_sampled_loop(struct bench_ctx *c, struct bench_path *paths, int n);
int bench_concurrent_loop(struct bench_ctx *c, struct bench_path *paths, int n);
int bench_fragment_loop(struct bench_ctx *c, struct bench_path *paths, int n);

/* What they share (bench_samples.c). */
typedef int (*bench_sample_fn)(struct bench_path *p, struct bench_ctx *c,
			       int index, unsigned int turn, void *arg);

int bench_hook(const struct bench_ctx *c, const char *cmd,
	       const struct bench_path *p, unsigned int iter);
int bench_turns(struct bench_ctx *c, struct bench_path *paths, int n,
		bench_sample_fn sample, void *arg);
void bench_counters_read(const struct bench_ctx *c, struct bench_counters *k);
int bench_samples_init(struct bench_samples *r, unsigned int max,
		       unsigned int blocks);
void bench_samples_free(struct bench_samples *r);
unsigned int bench_samples_add(struct bench_samples *r, __u64 start, __u64 ns,
			       int err, unsigned int turn);
void bench_samples_delta(struct bench_samples *r, unsigned int i,
			 const struct bench_counters *before,
			 const struct bench_counters *after);
void bench_json_latency(struct json *j, const __u64 *ns, const int *err,
			unsigned int n);
void bench_json_counters(struct json *j, const struct bench_samples *r);
void bench_json_prepare_errors(struct json *j, const struct bench_samples *r);
void bench_samples_warn(const struct bench_path *p, const struct bench_samples *r);

#endif /* TESTCTL_TESTBENCH_H */
