// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf: the pages of a buffer, from request to release
 *
 * Every buffer, whatever front end asked for it, is planned, allocated,
 * cleared and counted here, and nowhere else: the instance's counters
 * change only in this file.
 */

#define pr_fmt(fmt) "cmabuf: " fmt

#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>

#include "cmabuf.h"

/*
 * A range whose pages could not all be moved (-EBUSY) is often free a
 * moment later: a pin was short, a migration under way finished, a page
 * left a per-CPU list. Such allocations are tried again after a pause
 * that doubles each time, from 10 ms; what cannot succeed (-ENOMEM) is
 * not.
 */
static unsigned int cmabuf_busy_retries = 5;
module_param_named(busy_retries, cmabuf_busy_retries, uint, 0644);
MODULE_PARM_DESC(busy_retries,
		 "Times an allocation whose area has the room but whose pages could not be moved is tried again, after 10, 20, 40... ms (default: 5)");

#define CMABUF_BUSY_PAUSE_MS	10
#define CMABUF_BUSY_PAUSE_MAX_MS	1000

/* Pause before retry @n (0, 1, ...). Return: -EINTR on a fatal signal. */
static int cmabuf_busy_pause(unsigned int n)
{
	unsigned int ms = CMABUF_BUSY_PAUSE_MS << min(n, 7U);

	schedule_timeout_killable(msecs_to_jiffies(min(ms,
						       CMABUF_BUSY_PAUSE_MAX_MS)));
	return fatal_signal_pending(current) ? -EINTR : 0;
}

/*
 * One strategy, tried again up to @retries times while it finds the area
 * busy. Each retry is counted; the outcome is the caller's to count.
 */
static int cmabuf_pages_try(struct cmabuf_dev *cdev, u32 strategy,
			    unsigned long pages, unsigned int align_order,
			    unsigned int retries, struct cmabuf_range *range)
{
	unsigned int n;
	int ret;

	for (n = 0; ; n++) {
		ret = cmabuf_range_alloc(cdev, strategy, pages, align_order,
					 range);
		if (ret != -EBUSY || n == retries)
			return ret;
		cmabuf_stats_retry(cdev, strategy);
		ret = cmabuf_busy_pause(n);
		if (ret)
			return ret;
	}
}

/**
 * struct cmabuf_tries - how an allocation went, to be counted
 * @fell: the first strategy found no range and another was tried.
 * @last: the strategy of the last try.
 */
struct cmabuf_tries {
	bool fell;
	u32 last;
};

/* Count @t, whose last try ended in @ret. */
static void cmabuf_pages_count(struct cmabuf_dev *cdev,
			       const struct cmabuf_plan *plan,
			       const struct cmabuf_tries *t, int ret)
{
	if (t->fell)
		cmabuf_stats_fail(cdev, plan->strategy);
	if (ret == -EINTR)
		cmabuf_stats_interrupted(cdev, t->last);
	else if (ret)
		cmabuf_stats_fail(cdev, t->last);
}

/*
 * Allocate as @plan says: its strategy, then its fallback if the first
 * found no range. Only the last try is retried: a busy window of the first
 * is better left for the fallback's other windows. A fallback to a smaller
 * alignment of the same strategy is the same allocation, not a fall.
 */
static int cmabuf_pages_alloc(struct cmabuf_dev *cdev,
			      const struct cmabuf_plan *plan,
			      struct cmabuf_tries *t,
			      struct cmabuf_range *range)
{
	unsigned int retries = READ_ONCE(cmabuf_busy_retries);
	bool fallback = plan->fallback != CMABUF_STRATEGY_AUTO;
	int ret;

	t->fell = false;
	t->last = plan->strategy;
	ret = cmabuf_pages_try(cdev, plan->strategy, plan->pages,
			       plan->align_order, fallback ? 0 : retries,
			       range);
	if (!ret || !fallback || ret == -EINTR)
		return ret;

	t->fell = plan->fallback != plan->strategy;
	t->last = plan->fallback;
	return cmabuf_pages_try(cdev, plan->fallback, plan->pages,
				plan->fallback_align_order, retries, range);
}

/*
 * An allocation asked for now: one that found no range while freed buffers
 * are still being released waits for them and tries again, since memory on
 * its way back must not make it fail. Counted once, as it ends.
 */
static int cmabuf_pages_alloc_now(struct cmabuf_dev *cdev,
				  const struct cmabuf_plan *plan,
				  struct cmabuf_range *range)
{
	struct cmabuf_tries t;
	int ret, waited;

	for (;;) {
		ret = cmabuf_pages_alloc(cdev, plan, &t, range);
		if (ret != -ENOMEM && ret != -EBUSY)
			break;
		waited = cmabuf_pool_wait_released(cdev);
		if (waited <= 0) {
			ret = waited ?: ret;
			break;
		}
	}
	cmabuf_pages_count(cdev, plan, &t, ret);
	return ret;
}

/**
 * cmabuf_pages_make() - cleared pages for a buffer nobody waits for
 * @cdev: the instance.
 * @plan: what to allocate.
 * @range: out: the pages, every byte zero.
 *
 * For buffers prepared ahead: nothing is counted, no signal stops it.
 *
 * Return: 0, -ENOMEM or -EBUSY.
 */
int cmabuf_pages_make(struct cmabuf_dev *cdev, const struct cmabuf_plan *plan,
		      struct cmabuf_range *range)
{
	struct cmabuf_tries t;
	int ret;

	ret = cmabuf_pages_alloc(cdev, plan, &t, range);
	if (ret)
		return ret;
	ret = cmabuf_range_zero(range);
	if (ret)
		cmabuf_range_release(cdev, range);
	return ret;
}

/**
 * cmabuf_pages_get() - the cleared pages of a new buffer
 * @cdev: the instance; the caller holds a reference.
 * @size: bytes asked for.
 * @align: log2 of the alignment in bytes, 0 for the driver's choice.
 * @strategy: a %CMABUF_STRATEGY_* value.
 * @owner: the file asking, whose prepared buffers are looked at first, or
 *	NULL.
 * @range: out: the pages, every byte zero, and the strategy used.
 *
 * A prepared buffer that fits is taken as it is (cmabuf_pool_take()).
 * The buffer is not counted yet: its owner calls cmabuf_pages_commit()
 * once it is handed out, or cmabuf_pages_abandon() if that fails.
 *
 * Return: 0; -EINVAL or -EOPNOTSUPP for a request cmabuf_plan_make()
 * refuses; -ENOMEM or -EBUSY when no range could be had (see
 * cmabuf_range_alloc(); -EBUSY only after the retries, and neither while
 * freed memory is still on its way back); -EINTR when a fatal signal
 * stopped the allocation or the clearing.
 */
int cmabuf_pages_get(struct cmabuf_dev *cdev, u64 size, u32 align,
		     u32 strategy, const void *owner,
		     struct cmabuf_range *range)
{
	unsigned int align_order;
	struct cmabuf_limits lim;
	struct cmabuf_plan plan;
	int ret;

	cmabuf_dev_limits(cdev, &lim);
	ret = cmabuf_plan_make(&lim, size, align, strategy, &plan);
	if (ret)
		return ret;
	/* Valid now: cmabuf_plan_make() checked it. */
	cmabuf_align_to_order(align, &align_order);
	if (cmabuf_pool_take(cdev, &plan, strategy, align_order, owner,
			     range)) {
		cmabuf_stats_hit(cdev, range->strategy);
		return 0;
	}

	ret = cmabuf_pages_alloc_now(cdev, &plan, range);
	if (ret)
		return ret;

	ret = cmabuf_range_zero(range);
	if (ret) {
		cmabuf_stats_interrupted(cdev, range->strategy);
		cmabuf_range_release(cdev, range);
	}
	return ret;
}

/**
 * cmabuf_pages_commit() - count a buffer handed out
 * @cdev: its instance.
 * @range: its pages, from cmabuf_pages_get().
 */
void cmabuf_pages_commit(struct cmabuf_dev *cdev,
			 const struct cmabuf_range *range)
{
	cmabuf_stats_alloc(cdev, range->strategy, range->count << PAGE_SHIFT);
}

/**
 * cmabuf_pages_abandon() - release the pages of a buffer never handed out
 * @cdev: its instance.
 * @range: its pages, from cmabuf_pages_get(), not committed.
 *
 * Counted as a failure of the strategy that allocated them.
 */
void cmabuf_pages_abandon(struct cmabuf_dev *cdev,
			  const struct cmabuf_range *range)
{
	cmabuf_stats_fail(cdev, range->strategy);
	cmabuf_range_release(cdev, range);
}

/**
 * cmabuf_pages_put() - release the pages of a buffer that was handed out
 * @cdev: its instance.
 * @range: its pages, committed.
 *
 * The buffer counts as freed at once; its pages go back in the background
 * (cmabuf_pool_put()).
 */
void cmabuf_pages_put(struct cmabuf_dev *cdev, const struct cmabuf_range *range)
{
	cmabuf_stats_free(cdev, range->strategy, range->count << PAGE_SHIFT);
	cmabuf_pool_put(cdev, range);
}
