// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf: allocator round trips timed in the kernel, in debugfs (requests:
 * docs/benchmarks.md). Root only: a run can take a whole area. The allocator
 * clears some strategies' ranges itself (init_on_alloc): only "alloc" plus
 * "clear" is the same work for every strategy.
 */

#define pr_fmt(fmt) "cmabuf: " fmt

#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/parser.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>
#include <asm/tlbflush.h>

#include "cmabuf.h"

/* Bounds of one run: in calls, and in bytes allocated in all. */
#define CMABUF_BENCH_MAX_ITERATIONS	10000
#define CMABUF_BENCH_MAX_BLOCKS		4096
#define CMABUF_BENCH_MAX_SAMPLES	65536
#define CMABUF_BENCH_MAX_BYTES		(64ULL * SZ_1G)

#define CMABUF_BENCH_REQUEST_MAX	256
#define CMABUF_BENCH_REPORT_MAX		1536

/* One request, its words parsed (docs/benchmarks.md). */
struct cmabuf_bench_req {
	u64 pages;
	u32 blocks;
	u32 iterations;
	u32 strategy;
	u32 align;
	bool zero;
	bool clear;
};

/*
 * One run: @alloc_ns, @free_ns and @clear_ns take a sample per call (@samples
 * so far), @zero_one_ns and @zero_all_ns one per iteration.
 */
struct cmabuf_bench_run {
	struct cmabuf_bench_req req;
	struct cmabuf_plan plan;
	struct cmabuf_range *ranges;
	u64 *alloc_ns;
	u64 *free_ns;
	u64 *clear_ns;
	u32 samples;
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

/* Sorts in place; an even @count gives the lower middle sample. */
u64 cmabuf_bench_median(u64 *samples, unsigned int count)
{
	sort(samples, count, sizeof(*samples), cmabuf_bench_cmp, NULL);
	return samples[(count - 1) / 2];
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_bench_median);

static int cmabuf_bench_summary(char *buf, size_t size, const char *phase,
				u64 *samples, u32 count)
{
	u64 lo = U64_MAX, hi = 0, total = 0;
	u32 i;

	for (i = 0; i < count; i++) {
		lo = min(lo, samples[i]);
		hi = max(hi, samples[i]);
		total += samples[i];
	}
	return scnprintf(buf, size,
			 "%s samples=%u min_ns=%llu median_ns=%llu max_ns=%llu mean_ns=%llu total_ns=%llu\n",
			 phase, count, lo, cmabuf_bench_median(samples, count),
			 hi, div_u64(total, count), total);
}

/* Each pass from flushed TLBs, as an ALLOC's clearing starts. */
static int cmabuf_bench_zero(struct cmabuf_bench_run *run,
			     const struct cmabuf_range *range)
{
	u64 t;
	int ret;

	flush_tlb_all();
	t = ktime_get_ns();
	ret = cmabuf_zero_pages(range->page, range->count, 1);
	run->zero_one_ns[run->iterations] = ktime_get_ns() - t;
	if (ret < 0)
		return ret;

	flush_tlb_all();
	t = ktime_get_ns();
	ret = cmabuf_zero_pages(range->page, range->count, num_online_cpus());
	run->zero_all_ns[run->iterations] = ktime_get_ns() - t;
	if (ret < 0)
		return ret;
	run->zero_cpus = max_t(u32, run->zero_cpus, ret);
	return 0;
}

static int cmabuf_bench_iteration(struct cmabuf_dev *cdev,
				  struct cmabuf_bench_run *run)
{
	const struct cmabuf_plan *plan = &run->plan;
	u64 *alloc_ns = run->alloc_ns + run->samples;
	u64 *free_ns = run->free_ns + run->samples;
	u64 *clear_ns = run->clear_ns ? run->clear_ns + run->samples : NULL;
	u32 i, n;
	int ret = 0;
	u64 t;

	for (n = 0; n < run->req.blocks; n++) {
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
		if (clear_ns) {
			t = ktime_get_ns();
			ret = cmabuf_range_zero(&run->ranges[n]);
			clear_ns[n] = ktime_get_ns() - t;
			if (ret) {
				n++;
				break;
			}
		}
		cond_resched();
	}
	if (!ret && run->req.zero)
		ret = cmabuf_bench_zero(run, &run->ranges[0]);

	for (i = 0; i < n; i++) {
		t = ktime_get_ns();
		cmabuf_range_release(cdev, &run->ranges[i]);
		free_ns[i] = ktime_get_ns() - t;
		cond_resched();
	}

	if (!ret) {
		run->samples += run->req.blocks;
		run->iterations++;
	}
	return ret;
}

static int cmabuf_bench_check(const struct cmabuf_bench_req *req)
{
	u64 calls = (u64)req->iterations * req->blocks;

	if (!req->pages || req->pages > CMABUF_MAX_BYTES >> PAGE_SHIFT)
		return -EINVAL;
	if (!req->iterations || req->iterations > CMABUF_BENCH_MAX_ITERATIONS ||
	    !req->blocks || req->blocks > CMABUF_BENCH_MAX_BLOCKS ||
	    calls > CMABUF_BENCH_MAX_SAMPLES)
		return -EINVAL;
	/* At most 2^32 pages a call and 2^16 calls: no overflow. */
	if ((calls * req->pages) << PAGE_SHIFT > CMABUF_BENCH_MAX_BYTES)
		return -EINVAL;
	return 0;
}

static int cmabuf_bench_report(struct cmabuf_bench_run *run, char *buf,
			       size_t size)
{
	u32 count = run->samples;
	int len;

	len = scnprintf(buf, size, "strategy %s\n",
			cmabuf_strategy_name(run->plan.strategy));
	len += cmabuf_bench_summary(buf + len, size - len, "alloc",
				    run->alloc_ns, count);
	len += cmabuf_bench_summary(buf + len, size - len, "free",
				    run->free_ns, count);
	if (run->req.clear)
		len += cmabuf_bench_summary(buf + len, size - len, "clear",
					    run->clear_ns, count);
	if (!run->req.zero)
		return len;
	len += cmabuf_bench_summary(buf + len, size - len, "zero_one",
				    run->zero_one_ns, run->iterations);
	len += cmabuf_bench_summary(buf + len, size - len, "zero_all",
				    run->zero_all_ns, run->iterations);
	len += scnprintf(buf + len, size - len, "zero_cpus %u\n",
			 run->zero_cpus);
	return len;
}

/* Every range is released before returning, whatever happens. */
static int cmabuf_bench_run(struct cmabuf_dev *cdev,
			    const struct cmabuf_bench_req *req,
			    char *buf, size_t size)
{
	struct cmabuf_bench_run run = { .req = *req };
	struct cmabuf_limits lim;
	u32 count, i;
	int ret;

	ret = cmabuf_bench_check(req);
	if (ret)
		return ret;
	cmabuf_dev_limits(cdev, &lim);
	ret = cmabuf_plan_make(&lim, req->pages << PAGE_SHIFT, req->align,
			       req->strategy, &run.plan);
	if (ret)
		return ret;

	count = req->iterations * req->blocks;
	run.ranges = kvmalloc_objs(*run.ranges, req->blocks);
	run.alloc_ns = kvmalloc_objs(*run.alloc_ns, count);
	run.free_ns = kvmalloc_objs(*run.free_ns, count);
	if (req->clear)
		run.clear_ns = kvmalloc_objs(*run.clear_ns, count);
	if (!run.ranges || !run.alloc_ns || !run.free_ns ||
	    (req->clear && !run.clear_ns)) {
		ret = -ENOMEM;
		goto free_arrays;
	}
	if (req->zero) {
		run.zero_one_ns = kvmalloc_objs(*run.zero_one_ns,
						req->iterations);
		run.zero_all_ns = kvmalloc_objs(*run.zero_all_ns,
						req->iterations);
		if (!run.zero_one_ns || !run.zero_all_ns) {
			ret = -ENOMEM;
			goto free_arrays;
		}
	}

	for (i = 0; i < req->iterations; i++) {
		ret = READ_ONCE(cdev->unbound) ? -ENODEV :
		      cmabuf_bench_iteration(cdev, &run);
		if (ret)
			goto free_arrays;
	}
	ret = cmabuf_bench_report(&run, buf, size);

free_arrays:
	kvfree(run.zero_all_ns);
	kvfree(run.zero_one_ns);
	kvfree(run.clear_ns);
	kvfree(run.free_ns);
	kvfree(run.alloc_ns);
	kvfree(run.ranges);
	return ret;
}

enum {
	CMABUF_BENCH_OPT_PAGES,
	CMABUF_BENCH_OPT_ITERATIONS,
	CMABUF_BENCH_OPT_BLOCKS,
	CMABUF_BENCH_OPT_STRATEGY,
	CMABUF_BENCH_OPT_ALIGN,
	CMABUF_BENCH_OPT_ZERO,
	CMABUF_BENCH_OPT_CLEAR,
	CMABUF_BENCH_OPT_ERR,
};

static const match_table_t cmabuf_bench_opts = {
	{ CMABUF_BENCH_OPT_PAGES, "pages=%s" },
	{ CMABUF_BENCH_OPT_ITERATIONS, "iterations=%u" },
	{ CMABUF_BENCH_OPT_BLOCKS, "blocks=%u" },
	{ CMABUF_BENCH_OPT_STRATEGY, "strategy=%s" },
	{ CMABUF_BENCH_OPT_ALIGN, "align=%u" },
	{ CMABUF_BENCH_OPT_ZERO, "zero=%u" },
	{ CMABUF_BENCH_OPT_CLEAR, "clear=%u" },
	{ CMABUF_BENCH_OPT_ERR, NULL },
};

static int cmabuf_bench_strategy(const substring_t *arg, u32 *strategy)
{
	u32 s;

	for (s = 0; s < CMABUF_STRATEGY_COUNT; s++) {
		if (!strncmp(arg->from, cmabuf_strategy_name(s),
			     arg->to - arg->from) &&
		    !cmabuf_strategy_name(s)[arg->to - arg->from]) {
			*strategy = s;
			return 0;
		}
	}
	return -EINVAL;
}

static int cmabuf_bench_word(char *word, struct cmabuf_bench_req *req)
{
	substring_t args[MAX_OPT_ARGS];
	unsigned int v;
	int ret;

	switch (match_token(word, cmabuf_bench_opts, args)) {
	case CMABUF_BENCH_OPT_PAGES:
		return match_u64(&args[0], &req->pages);
	case CMABUF_BENCH_OPT_ITERATIONS:
		return match_uint(&args[0], &req->iterations);
	case CMABUF_BENCH_OPT_BLOCKS:
		return match_uint(&args[0], &req->blocks);
	case CMABUF_BENCH_OPT_STRATEGY:
		return cmabuf_bench_strategy(&args[0], &req->strategy);
	case CMABUF_BENCH_OPT_ALIGN:
		return match_uint(&args[0], &req->align);
	case CMABUF_BENCH_OPT_ZERO:
		ret = match_uint(&args[0], &v);
		if (ret || v > 1)
			return -EINVAL;
		req->zero = v;
		return 0;
	case CMABUF_BENCH_OPT_CLEAR:
		ret = match_uint(&args[0], &v);
		if (ret || v > 1)
			return -EINVAL;
		req->clear = v;
		return 0;
	default:
		return -EINVAL;
	}
}

static int cmabuf_bench_parse(char *line, struct cmabuf_bench_req *req)
{
	char *word;
	int ret;

	*req = (struct cmabuf_bench_req){ .blocks = 1 };
	while ((word = strsep(&line, " \t\n"))) {
		if (!*word)
			continue;
		ret = cmabuf_bench_word(word, req);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * struct cmabuf_bench_state - an instance's bench file
 * @lock: one run at a time; guards @report and @len.
 * @report: the last run's report.
 * @len: its length, 0 before the first run and after a failed one.
 */
struct cmabuf_bench_state {
	struct mutex lock;	/* see @report */
	char report[CMABUF_BENCH_REPORT_MAX];
	size_t len;
};

static ssize_t cmabuf_bench_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct cmabuf_dev *cdev = file->private_data;
	struct cmabuf_bench_state *st = cdev->bench;
	struct cmabuf_bench_req req;
	char *line;
	int ret;

	if (count >= CMABUF_BENCH_REQUEST_MAX)
		return -EINVAL;
	line = memdup_user_nul(ubuf, count);
	if (IS_ERR(line))
		return PTR_ERR(line);
	ret = cmabuf_bench_parse(line, &req);
	kfree(line);
	if (ret)
		return ret;

	if (mutex_lock_killable(&st->lock))
		return -EINTR;
	st->len = 0;
	ret = cmabuf_bench_run(cdev, &req, st->report, sizeof(st->report));
	if (ret > 0)
		st->len = ret;
	mutex_unlock(&st->lock);
	return ret < 0 ? ret : count;
}

static ssize_t cmabuf_bench_read(struct file *file, char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct cmabuf_dev *cdev = file->private_data;
	struct cmabuf_bench_state *st = cdev->bench;
	ssize_t ret;

	if (mutex_lock_killable(&st->lock))
		return -EINTR;
	ret = simple_read_from_buffer(ubuf, count, ppos, st->report, st->len);
	mutex_unlock(&st->lock);
	return ret;
}

static const struct file_operations cmabuf_bench_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = cmabuf_bench_write,
	.read = cmabuf_bench_read,
	.llseek = default_llseek,
};

static struct dentry *cmabuf_debugfs_root;

void cmabuf_debugfs_init(void)
{
	cmabuf_debugfs_root = debugfs_create_dir("cmabuf", NULL);
}

void cmabuf_debugfs_exit(void)
{
	debugfs_remove(cmabuf_debugfs_root);
}

/* debugfs is optional: failures are not reported. */
void cmabuf_debugfs_add(struct cmabuf_dev *cdev)
{
	struct cmabuf_bench_state *st;

	st = kzalloc_obj(*st);
	if (!st)
		return;
	mutex_init(&st->lock);
	cdev->bench = st;
	cdev->debugfs = debugfs_create_dir(cdev->name, cmabuf_debugfs_root);
	debugfs_create_file("bench", 0600, cdev->debugfs, cdev,
			    &cmabuf_bench_fops);
}

/* debugfs waits for calls in progress and fails later ones. */
void cmabuf_debugfs_remove(struct cmabuf_dev *cdev)
{
	struct cmabuf_bench_state *st = cdev->bench;

	if (!st)
		return;
	debugfs_remove(cdev->debugfs);
	mutex_destroy(&st->lock);
	kfree(st);
	cdev->bench = NULL;
}
