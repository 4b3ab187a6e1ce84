// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf: allocation strategies
 *
 * The pure helpers at the top turn a request (size, alignment, strategy)
 * into a plan; they touch no memory and are tested by KUnit. The rest
 * allocates and releases through a per-strategy ops table.
 *
 * Pages of FROZEN and COMPOUND ranges keep a zero refcount: nothing here or
 * in the dma-buf code may get_page()/put_page() them.
 */

#define pr_fmt(fmt) "cmabuf: " fmt

#include <linux/cma.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/pageblock-flags.h>
#include <kunit/visibility.h>

#include "cmabuf.h"

/**
 * cmabuf_size_to_pages() - validate a buffer size and count its pages
 * @size: bytes asked for.
 * @pages: out: pages needed.
 *
 * Return: 0, or -EINVAL for zero or for more than one scatterlist entry
 * can describe (which also catches sizes that overflow when rounded up).
 */
VISIBLE_IF_KUNIT int cmabuf_size_to_pages(u64 size, unsigned long *pages)
{
	if (!size || size > CMABUF_MAX_BYTES)
		return -EINVAL;

	*pages = PAGE_ALIGN(size) >> PAGE_SHIFT;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_size_to_pages);

/**
 * cmabuf_align_to_order() - turn a log2 byte alignment into a page order
 * @align: log2 of the alignment in bytes; at most %CMABUF_ALIGN_MAX.
 * @order: out: the page order; alignments below a page give 0.
 *
 * Return: 0, or -EINVAL for an absurd alignment.
 */
VISIBLE_IF_KUNIT int cmabuf_align_to_order(u32 align, unsigned int *order)
{
	if (align > CMABUF_ALIGN_MAX)
		return -EINVAL;

	*order = align > PAGE_SHIFT ? align - PAGE_SHIFT : 0;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_align_to_order);

/**
 * cmabuf_compound_order() - page order of a COMPOUND buffer
 * @lim: what the kernel allows.
 * @pages: pages of the buffer.
 * @order: out: the folio order.
 *
 * Return: 0; -EOPNOTSUPP without COMPOUND; -EINVAL when @pages is not a
 * power of two or its order is outside the limits.
 */
VISIBLE_IF_KUNIT int cmabuf_compound_order(const struct cmabuf_limits *lim,
					   unsigned long pages,
					   unsigned int *order)
{
	unsigned int o;

	if (!(lim->strategies & CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_COMPOUND)))
		return -EOPNOTSUPP;
	if (pages < 2 || !is_power_of_2(pages))
		return -EINVAL;

	o = ilog2(pages);
	if (o < lim->min_compound_order || o > lim->max_compound_order)
		return -EINVAL;

	*order = o;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_compound_order);

static void cmabuf_plan_auto(const struct cmabuf_limits *lim,
			     unsigned int align_order, struct cmabuf_plan *plan)
{
	u32 best = CMABUF_STRATEGY_LEGACY;
	unsigned int order;

	if (lim->strategies & CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_FROZEN))
		best = CMABUF_STRATEGY_FROZEN;

	if (!cmabuf_compound_order(lim, plan->pages, &order) &&
	    align_order <= order) {
		plan->strategy = CMABUF_STRATEGY_COMPOUND;
		plan->align_order = order;
		plan->fallback = best;
		plan->fallback_align_order = align_order;
		return;
	}

	plan->strategy = best;
	plan->align_order = align_order;
}

/**
 * cmabuf_plan_make() - decide how to satisfy a request
 * @lim: what the kernel allows.
 * @size: bytes asked for.
 * @align: log2 of the alignment in bytes, 0 for the driver's choice.
 * @strategy: a %CMABUF_STRATEGY_* value.
 * @plan: out: pages, strategy and alignment to try, and the fallback.
 *
 * AUTO picks COMPOUND when the page count and alignment allow it, with
 * FROZEN (or LEGACY) as the fallback should the area have no aligned range
 * free; otherwise FROZEN, otherwise LEGACY. An explicit strategy never
 * falls back.
 *
 * Return: 0; -EINVAL for a bad size, alignment or strategy or a COMPOUND
 * request its rules refuse; -EOPNOTSUPP for a strategy the kernel lacks.
 */
int cmabuf_plan_make(const struct cmabuf_limits *lim, u64 size, u32 align,
		     u32 strategy, struct cmabuf_plan *plan)
{
	unsigned int align_order, order;
	int ret;

	if (strategy >= CMABUF_STRATEGY_COUNT)
		return -EINVAL;
	ret = cmabuf_size_to_pages(size, &plan->pages);
	if (ret)
		return ret;
	ret = cmabuf_align_to_order(align, &align_order);
	if (ret)
		return ret;
	if (!(lim->strategies & CMABUF_STRATEGY_BIT(strategy)))
		return -EOPNOTSUPP;

	plan->fallback = CMABUF_STRATEGY_AUTO;
	plan->fallback_align_order = 0;

	switch (strategy) {
	case CMABUF_STRATEGY_AUTO:
		cmabuf_plan_auto(lim, align_order, plan);
		return 0;
	case CMABUF_STRATEGY_COMPOUND:
		ret = cmabuf_compound_order(lim, plan->pages, &order);
		if (ret)
			return ret;
		/* A folio is aligned to its size, and no further. */
		if (align_order > order)
			return -EINVAL;
		plan->strategy = strategy;
		plan->align_order = order;
		return 0;
	default:
		plan->strategy = strategy;
		plan->align_order = align_order;
		return 0;
	}
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_plan_make);

/**
 * cmabuf_aligned_order() - largest naturally aligned block within a range
 * @base_pfn: first page frame of the range, or %CMABUF_PFN_UNKNOWN.
 * @pages: pages in the range, at least one.
 *
 * A folio of order k must start on a multiple of 2^k pages. With an unknown
 * base, the answer is the order that fits wherever the range starts:
 * 2^(k+1) - 1 pages always hold an aligned block of 2^k.
 *
 * Return: the largest such order.
 */
unsigned int cmabuf_aligned_order(unsigned long base_pfn, unsigned long pages)
{
	unsigned int order = ilog2(pages);
	unsigned long start;

	if (base_pfn == CMABUF_PFN_UNKNOWN)
		return ilog2(pages / 2 + 1);

	for (; order; order--) {
		start = ALIGN(base_pfn, 1UL << order);
		if (start - base_pfn <= pages - (1UL << order))
			break;
	}
	return order;
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_aligned_order);

/**
 * cmabuf_area_max_order() - largest COMPOUND order an area can hold
 * @lim: what the kernel allows.
 * @base_pfn: first page frame of the area, or %CMABUF_PFN_UNKNOWN.
 * @area_pages: size of the area in pages, 0 when unknown.
 *
 * Return: the order, or 0 when COMPOUND cannot allocate from the area.
 */
unsigned int cmabuf_area_max_order(const struct cmabuf_limits *lim,
				   unsigned long base_pfn,
				   unsigned long area_pages)
{
	unsigned int order = lim->max_compound_order;

	if (!(lim->strategies & CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_COMPOUND)))
		return 0;
	if (area_pages)
		order = min(order, cmabuf_aligned_order(base_pfn, area_pages));

	return order < lim->min_compound_order ? 0 : order;
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_area_max_order);

/**
 * cmabuf_limits_get() - what the running kernel allows
 * @lim: out: strategies and COMPOUND orders.
 *
 * COMPOUND starts at the pageblock order: alloc_contig_frozen_range()
 * cannot carve a compound range out of a larger free buddy, and CMA
 * isolates whole pageblocks, so smaller folios would fail noisily.
 */
void cmabuf_limits_get(struct cmabuf_limits *lim)
{
	lim->strategies = CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_AUTO) |
			  CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_LEGACY);
	lim->min_compound_order = 0;
	lim->max_compound_order = 0;
#ifdef CMABUF_HAVE_FROZEN
	lim->strategies |= CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_COMPOUND) |
			   CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_FROZEN);
	lim->min_compound_order = max_t(unsigned int, pageblock_order, 1);
	lim->max_compound_order = min_t(unsigned int, MAX_FOLIO_ORDER,
					ilog2(CMABUF_MAX_BYTES >> PAGE_SHIFT));
#endif
}

/**
 * cmabuf_dev_limits() - what an instance allows
 * @cdev: the instance.
 * @lim: out: the kernel's limits, with COMPOUND's largest order cut to
 *	what the instance's area can hold.
 *
 * These are the bounds CMABUF_IOC_INFO reports in min_compound_order and
 * max_compound_order, so requests are judged against them: a COMPOUND
 * order the area cannot hold is -EINVAL as the uapi promises, not a
 * doomed allocation, and AUTO does not try COMPOUND there.
 */
void cmabuf_dev_limits(struct cmabuf_dev *cdev, struct cmabuf_limits *lim)
{
	cmabuf_limits_get(lim);
	lim->max_compound_order =
		cmabuf_area_max_order(lim, cdev->base_pfn,
				      cmabuf_area_pages(cdev->cma));
}

/* Size of the area in pages, 0 when this kernel does not tell. */
unsigned long cmabuf_area_pages(struct cma *cma)
{
#ifdef CMABUF_HAVE_AREA_STATS
	return cma_get_size(cma) >> PAGE_SHIFT;
#else
	return 0;
#endif
}

/* Free pages of the area, 0 when this kernel does not tell. */
unsigned long cmabuf_area_free_pages(struct cma *cma)
{
#ifdef CMABUF_HAVE_AREA_STATS
	return cma_get_available_pages(cma);
#else
	return 0;
#endif
}

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
	return cma_alloc(cma, count, align, true);
}

#ifdef CMABUF_HAVE_FROZEN
static struct page *cmabuf_frozen_alloc(struct cma *cma, unsigned long count,
					unsigned int align)
{
	return cma_alloc_frozen(cma, count, align, true);
}

/* The folio is aligned to its own size; @align is that order already. */
static struct page *cmabuf_compound_alloc(struct cma *cma, unsigned long count,
					  unsigned int align)
{
	return cma_alloc_frozen_compound(cma, ilog2(count));
}
#endif

static const struct cmabuf_strategy_ops cmabuf_strategy_ops[CMABUF_STRATEGY_COUNT] = {
#ifdef CMABUF_HAVE_FROZEN
	[CMABUF_STRATEGY_COMPOUND] = {
		.alloc = cmabuf_compound_alloc,
		.release = cma_release_frozen,
	},
	[CMABUF_STRATEGY_FROZEN] = {
		.alloc = cmabuf_frozen_alloc,
		.release = cma_release_frozen,
	},
#endif
	[CMABUF_STRATEGY_LEGACY] = {
		.alloc = cmabuf_legacy_alloc,
		.release = cma_release,
	},
};

/**
 * cmabuf_range_alloc() - allocate pages with one strategy
 * @cdev: the instance, whose area is used.
 * @strategy: COMPOUND, FROZEN or LEGACY.
 * @pages: pages wanted.
 * @align_order: alignment as a page order.
 * @range: out: what was allocated.
 *
 * Nothing is counted here; the caller decides what a buffer is.
 *
 * Return: 0, -ENOMEM when the area has no such range free, -EOPNOTSUPP for
 * a strategy this kernel lacks.
 */
int cmabuf_range_alloc(struct cmabuf_dev *cdev, u32 strategy,
		       unsigned long pages, unsigned int align_order,
		       struct cmabuf_range *range)
{
	unsigned long area = cmabuf_area_pages(cdev->cma);
	const struct cmabuf_strategy_ops *ops;
	struct page *page;

	if (WARN_ON_ONCE(strategy >= CMABUF_STRATEGY_COUNT))
		return -EOPNOTSUPP;
	ops = &cmabuf_strategy_ops[strategy];
	if (!ops->alloc)
		return -EOPNOTSUPP;
	if (area && pages > area)
		return -ENOMEM;

	page = ops->alloc(cdev->cma, pages, align_order);
	if (!page)
		return -ENOMEM;

	range->page = page;
	range->count = pages;
	range->strategy = strategy;
	return 0;
}

/**
 * cmabuf_range_alloc_plan() - allocate pages as a plan says
 * @cdev: the instance.
 * @plan: from cmabuf_plan_make().
 * @range: out: what was allocated, with the strategy that succeeded.
 *
 * Every strategy that finds no memory counts one failure.
 *
 * Return: 0 or -ENOMEM.
 */
int cmabuf_range_alloc_plan(struct cmabuf_dev *cdev,
			    const struct cmabuf_plan *plan,
			    struct cmabuf_range *range)
{
	int ret;

	ret = cmabuf_range_alloc(cdev, plan->strategy, plan->pages,
				 plan->align_order, range);
	if (!ret)
		return 0;

	cmabuf_stats_fail(cdev, plan->strategy);
	if (plan->fallback == CMABUF_STRATEGY_AUTO)
		return ret;

	ret = cmabuf_range_alloc(cdev, plan->fallback, plan->pages,
				 plan->fallback_align_order, range);
	if (ret)
		cmabuf_stats_fail(cdev, plan->fallback);
	return ret;
}

/**
 * cmabuf_range_release() - give pages back through their own strategy
 * @cdev: the instance they came from.
 * @range: what cmabuf_range_alloc() returned.
 */
void cmabuf_range_release(struct cmabuf_dev *cdev,
			  const struct cmabuf_range *range)
{
	const struct cmabuf_strategy_ops *ops;

	if (WARN_ON_ONCE(range->strategy >= CMABUF_STRATEGY_COUNT))
		return;
	ops = &cmabuf_strategy_ops[range->strategy];
	if (WARN_ON_ONCE(!ops->release))
		return;

	WARN_ON_ONCE(!ops->release(cdev->cma, range->page, range->count));
}
