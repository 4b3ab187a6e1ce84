// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf: scatterlists an importer can take
 *
 * A buffer is one physically contiguous range, but importers have limits:
 * a segment no longer than dma_get_max_seg_size() (64 KiB for a PCI device
 * that never set it), none across dma_get_seg_boundary(), and none longer
 * than dma_max_mapping_size(), which is what swiotlb can bounce at once
 * (256 KiB). Every mapping gets a table cut to its device's limits: one
 * entry for a device without any, whatever the buffer's size, so that
 * importers without limits keep a table of constant size.
 */

#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <kunit/visibility.h>

#include "cmabuf.h"

/**
 * cmabuf_sg_limits_get() - the segments a device can take
 * @dev: the importing device.
 * @lim: out: its limits.
 *
 * Return: 0, or -EINVAL for a device that has no DMA mask or cannot take
 * a segment of one page: nothing can be mapped for it.
 */
int cmabuf_sg_limits_get(struct device *dev, struct cmabuf_sg_limits *lim)
{
	size_t max;

	if (!dev->dma_mask)
		return -EINVAL;
	max = min_t(size_t, dma_get_max_seg_size(dev),
		    dma_max_mapping_size(dev));
	lim->max_len = round_down(min_t(size_t, max, UINT_MAX), PAGE_SIZE);
	lim->boundary = dma_get_seg_boundary(dev);
	if (!lim->max_len || lim->boundary < PAGE_SIZE - 1)
		return -EINVAL;
	return 0;
}

/*
 * Bytes of the entry that starts at @phys with @left bytes of the buffer to
 * go. The boundary is applied to physical addresses: the direct mapping
 * keeps them, an IOMMU and swiotlb place each segment themselves within
 * the boundary.
 */
static u64 cmabuf_sg_entry_len(const struct cmabuf_sg_limits *lim,
			       phys_addr_t phys, u64 left)
{
	u64 len = min_t(u64, left, lim->max_len);
	/* 0 when the boundary is the whole address space. */
	u64 to_boundary = (u64)lim->boundary - (phys & lim->boundary) + 1;

	if (to_boundary && to_boundary < len)
		len = to_boundary;
	return len;
}

/**
 * cmabuf_sg_count() - entries of the table for a range
 * @lim: the importer's limits, from cmabuf_sg_limits_get().
 * @phys: first byte of the range, page aligned.
 * @size: its length in bytes, a multiple of the page size.
 *
 * Return: the number of entries; 1 when @lim does not cut the range.
 */
unsigned int cmabuf_sg_count(const struct cmabuf_sg_limits *lim,
			     phys_addr_t phys, u64 size)
{
	unsigned int n = 0;
	u64 len;

	while (size) {
		len = cmabuf_sg_entry_len(lim, phys, size);
		phys += len;
		size -= len;
		n++;
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_sg_count);

/**
 * cmabuf_sg_build() - a table of a range, cut to an importer's limits
 * @table: out: the table; free it with sg_free_table().
 * @page: first page of the range.
 * @size: its length in bytes, a multiple of the page size.
 * @lim: the importer's limits, from cmabuf_sg_limits_get().
 *
 * Every entry is a whole number of pages, no longer than @lim->max_len and
 * within one @lim->boundary window; together they cover the range in order.
 *
 * Return: 0 or -ENOMEM.
 */
int cmabuf_sg_build(struct sg_table *table, struct page *page, u64 size,
		    const struct cmabuf_sg_limits *lim)
{
	unsigned long pfn = page_to_pfn(page);
	phys_addr_t phys = PFN_PHYS(pfn);
	struct scatterlist *sg;
	unsigned int i;
	u64 off = 0, len;
	int ret;

	ret = sg_alloc_table(table, cmabuf_sg_count(lim, phys, size),
			     GFP_KERNEL);
	if (ret)
		return ret;

	for_each_sgtable_sg(table, sg, i) {
		len = cmabuf_sg_entry_len(lim, phys + off, size - off);
		sg_set_page(sg, pfn_to_page(pfn + PFN_DOWN(off)), len, 0);
		off += len;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_sg_build);
