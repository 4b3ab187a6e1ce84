// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf: turning a request into a plan
 *
 * Size, alignment and strategy become the pages to allocate, the strategy
 * to try first and its fallback. Nothing here touches memory; the helpers
 * take the kernel's limits as an argument, so KUnit checks the rules with
 * limits of its own.
 */

#define pr_fmt(fmt) "cmabuf: " fmt

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
int cmabuf_align_to_order(u32 align, unsigned int *order)
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

/**
 * cmabuf_strategy_name() - the name of a strategy, as cmabufctl spells it
 * @strategy: a %CMABUF_STRATEGY_* value.
 *
 * Return: "auto", "compound", "frozen", "legacy", "dma", or "?" for
 * anything else.
 */
const char *cmabuf_strategy_name(u32 strategy)
{
	static const char * const names[CMABUF_STRATEGY_COUNT] = {
		[CMABUF_STRATEGY_AUTO] = "auto",
		[CMABUF_STRATEGY_COMPOUND] = "compound",
		[CMABUF_STRATEGY_FROZEN] = "frozen",
		[CMABUF_STRATEGY_LEGACY] = "legacy",
		[CMABUF_STRATEGY_DMA] = "dma",
	};

	return strategy < CMABUF_STRATEGY_COUNT ? names[strategy] : "?";
}

/*
 * The largest alignment DMA gives @pages, as a page order: the DMA API
 * asks CMA for min(get_order(size), CONFIG_CMA_ALIGNMENT).
 */
static unsigned int cmabuf_dma_order(const struct cmabuf_limits *lim,
				     unsigned long pages)
{
	return min_t(unsigned int, order_base_2(pages), lim->dma_align_order);
}

static void cmabuf_plan_auto(const struct cmabuf_limits *lim,
			     unsigned int align_order, struct cmabuf_plan *plan)
{
	u32 best = CMABUF_STRATEGY_DMA;
	unsigned int order;

	if (lim->strategies & CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_FROZEN))
		best = CMABUF_STRATEGY_FROZEN;
	else if (lim->strategies & CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_LEGACY))
		best = CMABUF_STRATEGY_LEGACY;

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

/*
 * A buffer that one PMD entry could map is placed on a PMD boundary unless
 * it asked for more, so that its CPU mappings get PMD entries without the
 * mapping's address telling anything of the physical one: mmap() then
 * lines the address up with the file offset alone. Where no such range is
 * free, the alignment asked for is the fallback.
 */
static void cmabuf_plan_pmd(const struct cmabuf_limits *lim,
			    struct cmabuf_plan *plan)
{
	if (!lim->pmd_order || plan->fallback != CMABUF_STRATEGY_AUTO ||
	    plan->strategy == CMABUF_STRATEGY_COMPOUND ||
	    plan->strategy == CMABUF_STRATEGY_DMA ||
	    plan->pages < 1UL << lim->pmd_order ||
	    plan->align_order >= lim->pmd_order)
		return;

	plan->fallback = plan->strategy;
	plan->fallback_align_order = plan->align_order;
	plan->align_order = lim->pmd_order;
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
 * free; otherwise FROZEN, otherwise LEGACY, otherwise DMA. An explicit
 * strategy never falls back to another; FROZEN and LEGACY buffers of a PMD
 * or more first try a PMD boundary (cmabuf_plan_pmd()). DMA cannot ask for
 * an alignment: the DMA API gives what it gives (cmabuf_dma_order()),
 * which is a PMD boundary where CONFIG_CMA_ALIGNMENT reaches it.
 *
 * Return: 0; -EINVAL for a bad size, alignment or strategy, a COMPOUND
 * request its rules refuse, or a DMA one for more alignment than the DMA
 * API gives; -EOPNOTSUPP for a strategy the kernel lacks.
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
		if (plan->strategy == CMABUF_STRATEGY_DMA &&
		    align_order > cmabuf_dma_order(lim, plan->pages))
			return -EINVAL;
		cmabuf_plan_pmd(lim, plan);
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
	case CMABUF_STRATEGY_DMA:
		if (align_order > cmabuf_dma_order(lim, plan->pages))
			return -EINVAL;
		plan->strategy = strategy;
		plan->align_order = align_order;
		return 0;
	default:
		plan->strategy = strategy;
		plan->align_order = align_order;
		cmabuf_plan_pmd(lim, plan);
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
 * base, the range is a CMA area's, which starts on a pageblock boundary
 * (mm/cma.c, CMA_MIN_ALIGNMENT_BYTES), and the answer is the order that
 * fits wherever such a range starts: any block up to a pageblock, and
 * above one a block of 2^k when 2^(k+1) less a pageblock pages fit. (Not
 * counting that, an area of one 512 MiB pageblock, the default area with
 * 64 KiB pages, could hold no folio of a pageblock.)
 *
 * Return: the largest such order.
 */
unsigned int cmabuf_aligned_order(unsigned long base_pfn, unsigned long pages)
{
	unsigned int order = ilog2(pages);
	unsigned long start;

	if (base_pfn == CMABUF_PFN_UNKNOWN) {
		for (; order > pageblock_order; order--)
			if (pages >= (2UL << order) - pageblock_nr_pages)
				break;
		return order;
	}

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
	lim->strategies = CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_AUTO);
	if (CMABUF_CMA_API)
		lim->strategies |= CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_LEGACY);
	if (CMABUF_DMA_API)
		lim->strategies |= CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_DMA);
	lim->min_compound_order = 0;
	lim->max_compound_order = 0;
	lim->dma_align_order = CMABUF_DMA_ALIGN_ORDER;
	lim->pmd_order = CMABUF_PMD_MAPPINGS ? PMD_SHIFT - PAGE_SHIFT : 0;
	if (!CMABUF_FROZEN_API)
		return;

	lim->strategies |= CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_COMPOUND) |
			   CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_FROZEN);
	lim->min_compound_order = max_t(unsigned int, pageblock_order, 1);
	lim->max_compound_order = min_t(unsigned int, CMABUF_MAX_FOLIO_ORDER,
					ilog2(CMABUF_MAX_BYTES >> PAGE_SHIFT));
}

/**
 * cmabuf_dev_limits() - what an instance allows
 * @cdev: the instance.
 * @lim: out: the kernel's limits, cut to the strategies the instance
 *	offers (cmabuf_area_probe()), with COMPOUND's largest order cut to
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
	lim->strategies &= cdev->strategies;
	lim->max_compound_order =
		cmabuf_area_max_order(lim, cdev->base_pfn, cdev->area_pages);
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_dev_limits);
