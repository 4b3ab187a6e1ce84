// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf_fuzz: seeded, reproducible fuzzing of the cmabuf driver.
 *
 *   cmabuf_fuzz [--seed S] [--ops N] [--seconds T] [--min-ops M]
 *               [--checkpoint K] [--verbose]
 *
 * Runs random operations until N have run or T seconds have passed,
 * whichever comes first: every cmabuf ioctl through raw command numbers
 * with mutated arguments at good, read-only, cut-off and unmapped
 * addresses (PREPARE on device files that are closed while their buffers
 * are being made, too); requests to the benchmark's debugfs file, well formed or
 * not, and the reports they leave; mmap, mprotect, munmap, SYNC, SET_NAME, sync_file, lseek,
 * read/write, dup, close and fork on the dma-bufs; CHECK, HOLD and RELEASE
 * on the test importer; allocations from the dma-heaps. Every result is
 * judged against the set of outcomes the contract allows (fuzz_judge.c);
 * buffer contents and each instance's live counters are compared with a
 * model of what the process holds. At the end everything is let go and the
 * CMA areas' used pages and the live counters must be back at their start.
 *
 * The seed is printed; --seed S with the same --ops replays the run, and
 * --verbose describes every operation on stderr. Output is TAP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "kselftest.h"
#include "fuzz.h"

#define FZ_TESTS	9

/**
 * struct fz_opts - the command line
 * @seed: seed of the run.
 * @ops: operations to run.
 * @seconds: time budget, 0 for none.
 * @min_ops: fewer operations than this fail the run.
 * @checkpoint: operations between two live-counter checkpoints.
 * @verbose: describe every operation.
 */
struct fz_opts {
	__u64 seed;
	__u64 ops;
	__u64 seconds;
	__u64 min_ops;
	__u64 checkpoint;
	bool verbose;
};

/**
 * struct fz_op - one kind of operation and how often it is drawn
 * @run: the operation.
 * @weight: its share, out of the sum of all weights.
 */
struct fz_op {
	void (*run)(struct fz *f);
	unsigned int weight;
};

static const struct fz_op fz_ops[] = {
	{ fz_op_alloc, 170 },
	{ fz_op_info, 60 },
	{ fz_op_bench, 25 },
	{ fz_op_phys, 60 },
	{ fz_op_unknown, 30 },
	{ fz_op_prepare, 25 },
	{ fz_op_mmap, 90 },
	{ fz_op_munmap, 50 },
	{ fz_op_mprotect, 25 },
	{ fz_op_touch, 40 },
	{ fz_op_sync, 40 },
	{ fz_op_set_name, 30 },
	{ fz_op_sync_file, 20 },
	{ fz_op_seek_rw, 25 },
	{ fz_op_dup, 40 },
	{ fz_op_close, 150 },
	{ fz_op_fork, 2 },
	{ fz_op_check, 40 },
	{ fz_op_hold, 30 },
	{ fz_op_release, 30 },
	{ fz_op_heap, 40 },
	{ fz_op_sysheap, 5 },
	{ fz_op_rw, 40 },
};

static struct fz fz;

static void fz_usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--seed S] [--ops N] [--seconds T] [--min-ops M] [--checkpoint K] [--verbose]\n",
		prog);
	exit(KSFT_FAIL);
}

static void fz_parse(int argc, char **argv, struct fz_opts *o)
{
	static const struct option longopts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "ops", required_argument, NULL, 'n' },
		{ "seconds", required_argument, NULL, 't' },
		{ "min-ops", required_argument, NULL, 'm' },
		{ "checkpoint", required_argument, NULL, 'c' },
		{ "verbose", no_argument, NULL, 'v' },
		{ }
	};
	bool have_seed = false;
	int c;

	memset(o, 0, sizeof(*o));
	o->ops = 10000;
	o->checkpoint = 256;
	while ((c = getopt_long(argc, argv, "s:n:t:m:c:v", longopts,
				NULL)) != -1) {
		switch (c) {
		case 's':
			o->seed = strtoull(optarg, NULL, 0);
			have_seed = true;
			break;
		case 'n':
			o->ops = strtoull(optarg, NULL, 0);
			break;
		case 't':
			o->seconds = strtoull(optarg, NULL, 0);
			break;
		case 'm':
			o->min_ops = strtoull(optarg, NULL, 0);
			break;
		case 'c':
			o->checkpoint = strtoull(optarg, NULL, 0);
			break;
		case 'v':
			o->verbose = true;
			break;
		default:
			fz_usage(argv[0]);
		}
	}
	if (optind != argc || !o->checkpoint)
		fz_usage(argv[0]);
	if (!have_seed)
		o->seed = rel_seed_default();
}

static int fz_open_heap(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/dev/dma_heap/%.63s", name);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* Open every instance, its heap, the importer and the system heap. */
static int fz_setup(struct fz *f)
{
	struct rel_instance rel[REL_MAX_INSTANCES];
	unsigned int i, n;
	int ret;

	f->page = sysconf(_SC_PAGESIZE);
	f->root = geteuid() == 0;
	ret = rel_instances(rel, REL_MAX_INSTANCES, &n);
	if (ret)
		return ret;
	if (!n)
		return ret = ENODEV;
	for (i = 0; i < n; i++) {
		f->inst[i].rel = rel[i];
		f->inst[i].fd = rel_instance_open(rel[i].name, O_RDWR);
		if (f->inst[i].fd < 0)
			return errno;
		fz_fd_set(f, f->inst[i].fd, FZ_FD_DEV, 0, i, O_RDWR);
		f->inst[i].heap = fz_open_heap(rel[i].name);
		fz_fd_set(f, f->inst[i].heap, FZ_FD_HEAP, 0, i, O_RDONLY);
		fz_bench_setup(f, i);
	}
	f->ninst = n;
	f->imp = open(REL_IMPORTER_DEV, O_RDWR | O_CLOEXEC);
	fz_fd_set(f, f->imp, FZ_FD_IMPORTER, 0, -1, O_RDWR);
	fz_prepare_setup(f);
	fz_rw_setup();
	f->sysheap = fz_open_heap("system");
	fz_fd_set(f, f->sysheap, FZ_FD_HEAP, 0, -1, O_RDONLY);
	if (fz_arena_init(&f->arena, f->page))
		return errno;
	return fz_scan_open_fds(f);
}

static const struct fz_op *fz_draw(struct fz *f)
{
	static unsigned int total;
	unsigned int i, r;

	if (!total)
		for (i = 0; i < ARRAY_SIZE(fz_ops); i++)
			total += fz_ops[i].weight;
	r = rel_below(&f->rng, total);
	for (i = 0; r >= fz_ops[i].weight; i++)
		r -= fz_ops[i].weight;
	return &fz_ops[i];
}

static __u64 fz_total(const struct fz *f)
{
	__u64 n = 0;
	int c;

	for (c = 0; c < FZ_CATS; c++)
		n += f->ops[c];
	return n;
}

/* Run until @o->ops operations have run or the time is up. */
static __u64 fz_run(struct fz *f, const struct fz_opts *o)
{
	__u64 start = rel_now_ns(), next_check = o->checkpoint, done;

	while ((done = fz_total(f)) < o->ops) {
		/* Every operation: under memory load one can take seconds. */
		if (o->seconds &&
		    rel_now_ns() - start >= o->seconds * 1000000000ULL)
			break;
		f->op++;
		if (done >= next_check) {
			fz_check_live(f);
			next_check = done + o->checkpoint;
			continue;
		}
		fz_draw(f)->run(f);
	}
	return (rel_now_ns() - start) / 1000000;
}

static void fz_report_cat(struct fz *f, enum fz_cat cat, const char *name,
			  bool available, const char *why)
{
	if (!available) {
		ksft_test_result_skip("%s: %s\n", name, why);
		return;
	}
	ksft_test_result(!f->fails[cat] && f->ops[cat],
			 "%s: %llu operations, %llu outside the contract\n",
			 name, (unsigned long long)f->ops[cat],
			 (unsigned long long)f->fails[cat]);
}

static bool fz_any_heap(const struct fz *f)
{
	unsigned int i;

	for (i = 0; i < f->ninst; i++)
		if (f->inst[i].heap >= 0)
			return true;
	return f->sysheap >= 0;
}

static void fz_print_setup(const struct fz *f)
{
	const struct rel_instance *r;
	unsigned int i;

	for (i = 0; i < f->ninst; i++) {
		r = &f->inst[i].rel;
		ksft_print_msg("%s on area %s: %llu pages, strategies %#x, orders %u..%u%s\n",
			       r->name, r->area, r->total_pages, r->strategies,
			       r->min_order, r->max_order,
			       f->inst[i].heap >= 0 ? ", dma-heap" : "");
	}
	ksft_print_msg("importer %s, system heap %s, dma-bufs %sexecutable, bench files %s\n",
		       f->imp >= 0 ? "present" : "absent",
		       f->sysheap >= 0 ? "present" : "absent",
		       f->noexec ? "not " : "",
		       !fz_any_bench(f) ? "absent" :
		       f->root ? "present" : "root's");
}

static void fz_print_counts(const struct fz *f, __u64 ops, __u64 ms)
{
	ksft_print_msg("%llu operations in %llu ms\n", (unsigned long long)ops,
		       (unsigned long long)ms);
	ksft_print_msg("ioctl %llu (%llu ok), bench file %llu (%llu ok), dma-buf %llu (%llu ok)\n",
		       (unsigned long long)f->ops[FZ_IOCTL],
		       (unsigned long long)f->oks[FZ_IOCTL],
		       (unsigned long long)f->ops[FZ_BENCH],
		       (unsigned long long)f->oks[FZ_BENCH],
		       (unsigned long long)f->ops[FZ_DMABUF],
		       (unsigned long long)f->oks[FZ_DMABUF]);
	ksft_print_msg("importer %llu (%llu ok), heap %llu (%llu ok)\n",
		       (unsigned long long)f->ops[FZ_IMPORT],
		       (unsigned long long)f->oks[FZ_IMPORT],
		       (unsigned long long)f->ops[FZ_HEAP],
		       (unsigned long long)f->oks[FZ_HEAP]);
	ksft_print_msg("contents checked %llu times, live counters %llu times\n",
		       (unsigned long long)f->ops[FZ_DATA],
		       (unsigned long long)f->ops[FZ_LIVE]);
}

int main(int argc, char **argv)
{
	struct rel_instance rel[REL_MAX_INSTANCES];
	struct rel_snapshot base, now;
	struct fz *f = &fz;
	struct fz_opts o;
	__u64 ms, ops;
	char why[256];
	unsigned int i;
	long long lost;
	int ret;

	fz_parse(argc, argv, &o);
	f->seed = o.seed;
	f->rng.state = o.seed;
	f->verbose = o.verbose;
	fz_now_open(f);

	ksft_print_header();
	ksft_set_plan(FZ_TESTS);
	ksft_print_msg("seed %llu, up to %llu operations%s\n",
		       (unsigned long long)o.seed, (unsigned long long)o.ops,
		       o.seconds ? " within a time budget" : "");
	ret = fz_setup(f);
	if (ret)
		ksft_exit_fail_msg("setup: %s\n", rel_errname(ret));
	for (i = 0; i < f->ninst; i++)
		rel[i] = f->inst[i].rel;
	ret = rel_snapshot_take(rel, f->ninst, &base);
	if (ret)
		ksft_exit_fail_msg("counters: %s\n", rel_errname(ret));
	ret = fz_probe_noexec(f);
	if (ret)
		ksft_exit_fail_msg("probe: %s\n", rel_errname(ret));
	fz_print_setup(f);

	ms = fz_run(f, &o);
	fz_prepare_drop_all(f);
	fz_release_all(f);
	fz_rw_cleanup();
	fz_check_live(f);
	ops = fz_total(f);
	ret = rel_snapshot_settle(rel, f->ninst, &base, 2000, &now, why,
				  sizeof(why));

	fz_print_counts(f, ops, ms);
	lost = rel_snapshot_pages_lost(&base, &now);
	if (lost == REL_PAGES_UNKNOWN)
		printf("# record: fuzz ops=%llu seed=%llu pages_lost=unknown (%s)\n",
		       (unsigned long long)ops, (unsigned long long)o.seed,
		       REL_CMA_LACKS);
	else
		printf("# record: fuzz ops=%llu seed=%llu pages_lost=%lld\n",
		       (unsigned long long)ops, (unsigned long long)o.seed,
		       lost);
	ksft_test_result(ops >= o.min_ops,
			 "ran %llu operations (at least %llu) with seed %llu\n",
			 (unsigned long long)ops,
			 (unsigned long long)o.min_ops,
			 (unsigned long long)o.seed);
	fz_report_cat(f, FZ_IOCTL, "cmabuf ioctls", true, NULL);
	fz_report_cat(f, FZ_BENCH, "bench file requests", fz_any_bench(f),
		      "no bench file in debugfs (CONFIG_DEBUG_FS, CMABUF_BENCH=1, debugfs mounted)");
	fz_report_cat(f, FZ_DMABUF, "dma-buf operations", true, NULL);
	fz_report_cat(f, FZ_IMPORT, "importer operations", f->imp >= 0,
		      "no " REL_IMPORTER_DEV);
	fz_report_cat(f, FZ_HEAP, "dma-heap allocations", fz_any_heap(f),
		      "no dma-heap");
	fz_report_cat(f, FZ_DATA, "buffer contents", true, NULL);
	fz_report_cat(f, FZ_LIVE, "live counters against the model", true,
		      NULL);
	if (ret)
		ksft_print_msg("not back at baseline: %s\n", why);
	ksft_test_result(!ret, "%s back at baseline\n",
			 lost == REL_PAGES_UNKNOWN ?
			 "live counters (CMA used pages unknown here)" :
			 "CMA used pages and live counters");
	ksft_finished();
}
