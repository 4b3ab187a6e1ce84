// SPDX-License-Identifier: GPL-2.0
/* cmabuf: allocating and releasing pages, one strategy at a time */

#define pr_fmt(fmt) "cmabuf: " fmt

#include <linux/cma.h>
#include <linux/device.h>
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>

#include "cmabuf.h"

/**
 * struct cmabuf_strategy_ops - allocate and release pages one way
 * @alloc: @count pages aligned to 2^@align pages, or NULL; never warns.
 * @release: give back what @alloc returned; false if not from @cma.
 */
struct cmabuf_strategy_ops {
	struct page *(*alloc)(struct cma *cma, unsigned long count,
			      unsigned int align);
	bool (*release)(struct cma *cma, const struct page *pages,
			unsigned long count);
};

static struct page *cmabuf_legacy_alloc(struct cma *cma, unsigned long count,
					unsigned int align)
{
	return cmabuf_cma_alloc(cma, count, align);
}

static struct page *cmabuf_compound_alloc(struct cma *cma, unsigned long count,
					  unsigned int align)
{
	return cmabuf_cma_alloc_frozen_compound(cma, ilog2(count));
}

static const struct cmabuf_strategy_ops cmabuf_strategy_ops[CMABUF_STRATEGY_COUNT] = {
	[CMABUF_STRATEGY_COMPOUND] = {
		.alloc = cmabuf_compound_alloc,
		.release = cmabuf_cma_release_frozen,
	},
	[CMABUF_STRATEGY_FROZEN] = {
		.alloc = cmabuf_cma_alloc_frozen,
		.release = cmabuf_cma_release_frozen,
	},
	[CMABUF_STRATEGY_LEGACY] = {
		.alloc = cmabuf_legacy_alloc,
		.release = cmabuf_cma_release,
	},
};

/* The DMA API may fall back to other memory: that counts as a full area. */
static int cmabuf_dma_alloc(struct cmabuf_dev *cdev, unsigned long pages,
			    unsigned int align_order,
			    struct cmabuf_range *range)
{
	size_t size = pages << PAGE_SHIFT;
	struct page *page;
	phys_addr_t phys;
	dma_addr_t dma;

	page = cmabuf_dma_alloc_pages(cdev->dma_dev, size, &dma);
	if (!page)
		return fatal_signal_pending(current) ? -EINTR : -EAGAIN;
	phys = page_to_phys(page);
	if (!cmabuf_area_holds(cdev, phys, size) ||
	    !IS_ALIGNED(page_to_pfn(page), 1UL << align_order)) {
		dev_dbg_ratelimited(cdev->dma_dev,
				    "DMA API gave %lu pages at %pa, outside area %s or not aligned to order %u: refused\n",
				    pages, &phys, cdev->area_name, align_order);
		cmabuf_dma_free_pages(cdev->dma_dev, size, page, dma);
		return fatal_signal_pending(current) ? -EINTR : -ENOMEM;
	}
	range->page = page;
	range->dma = dma;
	return 0;
}

/**
 * cmabuf_range_alloc() - allocate pages with one strategy
 * @cdev: the instance, whose area is used.
 * @strategy: COMPOUND, FROZEN, LEGACY or DMA; one the instance has.
 * @pages: pages wanted.
 * @align_order: alignment as a page order.
 * @range: out: what was allocated.
 *
 * Return: 0; -EINTR on a fatal signal; -ENOMEM when the area has fewer
 * than @pages pages free, or the kernel does not tell; -EBUSY when it has
 * them but no aligned range could be taken.
 */
int cmabuf_range_alloc(struct cmabuf_dev *cdev, u32 strategy,
		       unsigned long pages, unsigned int align_order,
		       struct cmabuf_range *range)
{
	unsigned long area = cdev->area_pages;
	struct page *page = NULL;
	int ret = -EAGAIN;

	if (WARN_ON_ONCE(strategy == CMABUF_STRATEGY_AUTO ||
			 strategy >= CMABUF_STRATEGY_COUNT ||
			 !(cdev->strategies & CMABUF_STRATEGY_BIT(strategy))))
		return -EINVAL;
	if (area && pages > area)
		return -ENOMEM;

	range->dma = 0;
	if (strategy == CMABUF_STRATEGY_DMA) {
		ret = cmabuf_dma_alloc(cdev, pages, align_order, range);
	} else {
		page = cmabuf_strategy_ops[strategy].alloc(cdev->cma, pages,
							   align_order);
		if (page) {
			range->page = page;
			ret = 0;
		}
	}
	if (ret == -EAGAIN) {
		if (fatal_signal_pending(current))
			return -EINTR;
		return cmabuf_area_free_pages(cdev->cma) >= pages ? -EBUSY :
								    -ENOMEM;
	}
	if (ret)
		return ret;

	range->count = pages;
	range->strategy = strategy;
	return 0;
}

/* -EBUSY ranges are often free a moment later; -ENOMEM ones never. */
static unsigned int cmabuf_busy_retries = 5;
module_param_named(busy_retries, cmabuf_busy_retries, uint, 0644);
MODULE_PARM_DESC(busy_retries,
		 "Times an allocation whose area has the room but whose pages could not be moved is tried again, after 10, 20, 40... ms (default: 5)");

#define CMABUF_BUSY_PAUSE_MS	10
#define CMABUF_BUSY_PAUSE_MAX_MS	1000

static int cmabuf_busy_pause(unsigned int n)
{
	unsigned int ms = CMABUF_BUSY_PAUSE_MS << min(n, 7U);

	schedule_timeout_killable(msecs_to_jiffies(min(ms,
						       CMABUF_BUSY_PAUSE_MAX_MS)));
	return fatal_signal_pending(current) ? -EINTR : 0;
}

static int cmabuf_range_try(struct cmabuf_dev *cdev, u32 strategy,
			    unsigned long pages, unsigned int align_order,
			    unsigned int retries, unsigned int *done,
			    struct cmabuf_range *range)
{
	unsigned int n;
	int ret;

	for (n = 0; ; n++) {
		ret = cmabuf_range_alloc(cdev, strategy, pages, align_order,
					 range);
		if (ret != -EBUSY || n == retries)
			return ret;
		(*done)++;
		ret = cmabuf_busy_pause(n);
		if (ret)
			return ret;
	}
}

/* Only the last try is retried: the fallback has other windows to try. */
int cmabuf_range_alloc_plan(struct cmabuf_dev *cdev,
			    const struct cmabuf_plan *plan,
			    struct cmabuf_tries *t, struct cmabuf_range *range)
{
	unsigned int retries = READ_ONCE(cmabuf_busy_retries);
	bool fallback = plan->fallback != CMABUF_STRATEGY_AUTO;
	int ret;

	t->fell = false;
	t->last = plan->strategy;
	t->retries = 0;
	ret = cmabuf_range_try(cdev, plan->strategy, plan->pages,
			       plan->align_order, fallback ? 0 : retries,
			       &t->retries, range);
	if (!ret || !fallback || ret == -EINTR)
		return ret;

	t->fell = plan->fallback != plan->strategy;
	t->last = plan->fallback;
	return cmabuf_range_try(cdev, plan->fallback, plan->pages,
				plan->fallback_align_order, retries,
				&t->retries, range);
}

void cmabuf_range_release(struct cmabuf_dev *cdev,
			  const struct cmabuf_range *range)
{
	const struct cmabuf_strategy_ops *ops;

	if (WARN_ON_ONCE(range->strategy == CMABUF_STRATEGY_AUTO ||
			 range->strategy >= CMABUF_STRATEGY_COUNT))
		return;

	if (range->strategy == CMABUF_STRATEGY_DMA) {
		cmabuf_dma_free_pages(cdev->dma_dev, range->count << PAGE_SHIFT,
				      range->page, range->dma);
		return;
	}
	ops = &cmabuf_strategy_ops[range->strategy];
	WARN_ON_ONCE(!ops->release(cdev->cma, range->page, range->count));
}
