// SPDX-License-Identifier: GPL-2.0
/* cmabuf: a request turned into a plan; pure, the limits an argument (KUnit) */

#define pr_fmt(fmt) "cmabuf: " fmt

#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/pageblock-flags.h>
#include <kunit/visibility.h>

#include "cmabuf.h"

/* -EINVAL for zero or more than one scatterlist entry holds. */
VISIBLE_IF_KUNIT int cmabuf_size_to_pages(u64 size, unsigned long *pages)
{
	if (!size || size > CMABUF_MAX_BYTES)
		return -EINVAL;

	*pages = PAGE_ALIGN(size) >> PAGE_SHIFT;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_size_to_pages);

/* Alignments below a page give 0; -EINVAL above %CMABUF_ALIGN_MAX. */
int cmabuf_align_to_order(u32 align, unsigned int *order)
{
	if (align > CMABUF_ALIGN_MAX)
		return -EINVAL;

	*order = align > PAGE_SHIFT ? align - PAGE_SHIFT : 0;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_align_to_order);

/* -EOPNOTSUPP without COMPOUND; -EINVAL for a size it cannot take. */
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

/* The DMA API asks CMA for min(get_order(size), CONFIG_CMA_ALIGNMENT). */
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

/* PMD-sized buffers go on a PMD boundary: CPU mappings get PMD entries. */
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
 * The rules are the uapi header's DOC: allocation strategies; an explicit
 * strategy never falls back to another.
 * Return: 0; -EINVAL for a request they refuse; -EOPNOTSUPP for a strategy
 * the kernel lacks.
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

/*
 * Largest order of a naturally aligned block within the range; for an
 * unknown base (pageblock-aligned), the order that fits wherever it starts.
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

/* 0 when COMPOUND cannot allocate from the area. */
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

/* CMA isolates whole pageblocks: COMPOUND starts at the pageblock order. */
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

/* A COMPOUND order the area cannot hold is then -EINVAL, not a doomed try. */
void cmabuf_dev_limits(struct cmabuf_dev *cdev, struct cmabuf_limits *lim)
{
	cmabuf_limits_get(lim);
	lim->strategies &= cdev->strategies;
	lim->max_compound_order =
		cmabuf_area_max_order(lim, cdev->base_pfn, cdev->area_pages);
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_dev_limits);
