// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf: CMABUF_IOC_BENCH, allocator round trips timed in the kernel
 *
 * Each iteration allocates @blocks ranges, then releases them all; every
 * call is timed on its own with ktime_get_ns(). With CMABUF_BENCH_ZERO the
 * first range is also cleared, by one CPU and then by all of them, so that
 * every report shows the memory-clearing limit of its machine beside the
 * allocator. Nothing is mapped or counted in the instance statistics.
 */

#define pr_fmt(fmt) "cmabuf: " fmt

#include <linux/math64.h>
#include <linux/cpumask.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/timekeeping.h>
#include <kunit/visibility.h>

#include "cmabuf.h"

/**
 * struct cmabuf_bench_run - state of one CMABUF_IOC_BENCH call
 * @plan: what to allocate.
 * @blocks: ranges held at once.
 * @ranges: the ranges of the current iteration.
 * @alloc_ns: one sample per allocation call.
 * @free_ns: one sample per release call.
 * @samples: samples taken so far, in each array.
 * @zero: time clearing too.
 * @zero_one_ns: one sample per iteration, clearing on one CPU.
 * @zero_all_ns: one sample per iteration, clearing on all CPUs.
 * @zero_cpus: the most CPUs one @zero_all_ns sample used.
 * @iterations: iterations done so far.
 */
struct cmabuf_bench_run {
	struct cmabuf_plan plan;
	u32 blocks;
	struct cmabuf_range *ranges;
	u64 *alloc_ns;
	u64 *free_ns;
	u32 samples;
	bool zero;
	u64 *zero_one_ns;
	u64 *zero_all_ns;
	u32 zero_cpus;
	u32 iterations;
};

static int cmabuf_bench_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/**
 * cmabuf_bench_median() - the median of some samples
 * @samples: the samples; sorted in place.
 * @count: how many, at least one.
 *
 * Return: the middle sample, the lower middle one for an even @count.
 */
u64 cmabuf_bench_median(u64 *samples, unsigned int count)
{
	sort(samples, count, sizeof(*samples), cmabuf_bench_cmp, NULL);
	return samples[(count - 1) / 2];
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_bench_median);

static void cmabuf_bench_summary(u64 *samples, u32 count,
				 struct cmabuf_bench_stats *st)
{
	u32 i;

	st->samples = count;
	st->min_ns = U64_MAX;
	for (i = 0; i < count; i++) {
		st->min_ns = min(st->min_ns, samples[i]);
		st->max_ns = max(st->max_ns, samples[i]);
		st->total_ns += samples[i];
	}
	st->mean_ns = div_u64(st->total_ns, count);
	st->median_ns = cmabuf_bench_median(samples, count);
}

/* Clear @range with one CPU, then with all: one sample of each. */
static int cmabuf_bench_zero(struct cmabuf_bench_run *run,
			     const struct cmabuf_range *range)
{
	u64 t;
	int ret;

	t = ktime_get_ns();
	ret = cmabuf_zero_pages(range->page, range->count, 1);
	run->zero_one_ns[run->iterations] = ktime_get_ns() - t;
	if (ret < 0)
		return ret;

	t = ktime_get_ns();
	ret = cmabuf_zero_pages(range->page, range->count, num_online_cpus());
	run->zero_all_ns[run->iterations] = ktime_get_ns() - t;
	if (ret < 0)
		return ret;
	run->zero_cpus = max_t(u32, run->zero_cpus, ret);
	return 0;
}

/* One iteration: allocate every block, then release what was allocated. */
static int cmabuf_bench_iteration(struct cmabuf_dev *cdev,
				  struct cmabuf_bench_run *run)
{
	const struct cmabuf_plan *plan = &run->plan;
	u64 *alloc_ns = run->alloc_ns + run->samples;
	u64 *free_ns = run->free_ns + run->samples;
	u32 i, n;
	int ret = 0;
	u64 t;

	for (n = 0; n < run->blocks; n++) {
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		t = ktime_get_ns();
		ret = cmabuf_range_alloc(cdev, plan->strategy, plan->pages,
					 plan->align_order, &run->ranges[n]);
		alloc_ns[n] = ktime_get_ns() - t;
		if (ret)
			break;
		cond_resched();
	}
	if (!ret && run->zero)
		ret = cmabuf_bench_zero(run, &run->ranges[0]);

	for (i = 0; i < n; i++) {
		t = ktime_get_ns();
		cmabuf_range_release(cdev, &run->ranges[i]);
		free_ns[i] = ktime_get_ns() - t;
		cond_resched();
	}

	if (!ret) {
		run->samples += run->blocks;
		run->iterations++;
	}
	return ret;
}

static int cmabuf_bench_check(const struct cmabuf_bench *bench, u32 blocks)
{
	if (bench->flags & ~CMABUF_BENCH_VALID_FLAGS)
		return -EINVAL;
	if (!bench->pages || bench->pages > CMABUF_MAX_BYTES >> PAGE_SHIFT)
		return -EINVAL;
	if (!bench->iterations ||
	    bench->iterations > CMABUF_BENCH_MAX_ITERATIONS ||
	    blocks > CMABUF_BENCH_MAX_BLOCKS ||
	    (u64)bench->iterations * blocks > CMABUF_BENCH_MAX_SAMPLES)
		return -EINVAL;
	return 0;
}

/**
 * cmabuf_bench_run() - run CMABUF_IOC_BENCH
 * @cdev: the instance.
 * @bench: the request, validated except for its output fields; the
 *	results are written back into it.
 *
 * Every range is released before returning, whatever happens.
 *
 * Return: 0, -EINVAL, -EOPNOTSUPP, -ENOMEM (an allocation or the sample
 * arrays) or -EINTR.
 */
int cmabuf_bench_run(struct cmabuf_dev *cdev, struct cmabuf_bench *bench)
{
	struct cmabuf_bench_run run = {
		.blocks = bench->blocks ?: 1,
		.zero = bench->flags & CMABUF_BENCH_ZERO,
	};
	struct cmabuf_limits lim;
	u32 count, i;
	int ret;

	ret = cmabuf_bench_check(bench, run.blocks);
	if (ret)
		return ret;
	cmabuf_dev_limits(cdev, &lim);
	ret = cmabuf_plan_make(&lim, bench->pages << PAGE_SHIFT, bench->align,
			       bench->strategy, &run.plan);
	if (ret)
		return ret;

	count = bench->iterations * run.blocks;
	run.ranges = kvmalloc_objs(*run.ranges, run.blocks);
	run.alloc_ns = kvmalloc_objs(*run.alloc_ns, count);
	run.free_ns = kvmalloc_objs(*run.free_ns, count);
	if (!run.ranges || !run.alloc_ns || !run.free_ns) {
		ret = -ENOMEM;
		goto free_arrays;
	}
	if (run.zero) {
		run.zero_one_ns = kvmalloc_objs(*run.zero_one_ns,
						bench->iterations);
		run.zero_all_ns = kvmalloc_objs(*run.zero_all_ns,
						bench->iterations);
		if (!run.zero_one_ns || !run.zero_all_ns) {
			ret = -ENOMEM;
			goto free_arrays;
		}
	}

	for (i = 0; i < bench->iterations; i++) {
		ret = cmabuf_bench_iteration(cdev, &run);
		if (ret)
			goto free_arrays;
	}

	bench->strategy_used = run.plan.strategy;
	cmabuf_bench_summary(run.alloc_ns, count, &bench->alloc);
	cmabuf_bench_summary(run.free_ns, count, &bench->free);
	if (run.zero) {
		cmabuf_bench_summary(run.zero_one_ns, run.iterations,
				     &bench->zero_one);
		cmabuf_bench_summary(run.zero_all_ns, run.iterations,
				     &bench->zero_all);
		bench->zero_cpus = run.zero_cpus;
	}

free_arrays:
	kvfree(run.zero_all_ns);
	kvfree(run.zero_one_ns);
	kvfree(run.free_ns);
	kvfree(run.alloc_ns);
	kvfree(run.ranges);
	return ret;
}
