// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf: what an importer can take
 *
 * A buffer is one physically contiguous range, but importers have limits:
 * a segment no longer than dma_get_max_seg_size() (64 KiB for a PCI device
 * that never set it), none across dma_get_seg_boundary(), and none longer
 * than dma_max_mapping_size(), which is what swiotlb can bounce at once
 * (256 KiB). Every mapping gets a table cut to its device's limits: one
 * entry for a device without any, whatever the buffer's size, so that
 * importers without limits keep a table of constant size.
 *
 * And a device without an IOMMU must reach the buffer with its DMA mask:
 * cmabuf_dev_reaches() says whether it does, and cmabuf_reach_warn() tells
 * the user which instance's area it would reach.
 */

#define pr_fmt(fmt) "cmabuf: " fmt

#include <linux/device.h>
#include <linux/dma-direct.h>
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/ratelimit.h>
#include <linux/rwsem.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/swiotlb.h>
#include <kunit/visibility.h>

#include "cmabuf.h"

/* The shortest segment cmabuf cuts a buffer into: a disk sector. */
#define CMABUF_SG_MIN_LEN	512

/**
 * cmabuf_sg_max_len() - the longest segment cmabuf cuts for a device
 * @max: the longest segment the device takes, in bytes.
 *
 * Segments need not be whole pages: a scatterlist entry has an offset,
 * and a device whose max_seg_size is 0xffff (common, and shorter than a
 * 64 KiB page) takes segments of 60 KiB. Each one is cut to a multiple of
 * 4 KiB (the smallest page size) where the device takes that much, else
 * to a power of two, so that every segment starts as aligned as the
 * device could want it.
 *
 * Return: the length, or 0 when @max is below %CMABUF_SG_MIN_LEN.
 */
VISIBLE_IF_KUNIT unsigned int cmabuf_sg_max_len(size_t max)
{
	max = min_t(size_t, max, UINT_MAX);
	if (max >= SZ_4K)
		return round_down(max, SZ_4K);
	if (max < CMABUF_SG_MIN_LEN)
		return 0;
	return rounddown_pow_of_two(max);
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_sg_max_len);

/**
 * cmabuf_sg_limits_get() - the segments a device can take
 * @dev: the importing device.
 * @lim: out: its limits.
 *
 * Return: 0, or -EINVAL for a device that has no DMA mask, takes no
 * segment of %CMABUF_SG_MIN_LEN bytes or has a boundary shorter than
 * that: nothing can be mapped for it.
 */
int cmabuf_sg_limits_get(struct device *dev, struct cmabuf_sg_limits *lim)
{
	size_t max;

	if (!dev->dma_mask)
		return -EINVAL;
	max = min_t(size_t, dma_get_max_seg_size(dev),
		    dma_max_mapping_size(dev));
	lim->max_len = cmabuf_sg_max_len(max);
	lim->boundary = dma_get_seg_boundary(dev);
	if (!lim->max_len || lim->boundary < CMABUF_SG_MIN_LEN - 1)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_sg_limits_get);

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
 * Every entry is no longer than @lim->max_len and lies within one
 * @lim->boundary window; together they cover the range in order. Where
 * those limits are shorter than a page, entries start inside pages.
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
		sg_set_page(sg, pfn_to_page(pfn + PFN_DOWN(off)), len,
			    offset_in_page(off));
		off += len;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_sg_build);

/**
 * cmabuf_sg_sync_range() - sync part of a mapped table
 * @dev: the device @table is mapped for.
 * @table: the mapping; its DMA segments cover the buffer in order.
 * @dir: the direction @table was mapped with.
 * @size: bytes of the buffer, which @table covers.
 * @offset: first byte of the range in the buffer.
 * @length: bytes in the range.
 * @for_cpu: sync for the CPU, else for the device.
 *
 * A range that covers the table is synced as the table, as it was mapped:
 * the DMA API debugging tells apart two mappings of one buffer for one
 * device (same address) only by an exact fit. Otherwise each DMA segment
 * that overlaps the range is synced for the overlap only. Segments are
 * walked by their DMA lengths, so that an IOMMU that merged entries is
 * followed too.
 */
void cmabuf_sg_sync_range(struct device *dev, struct sg_table *table,
			  enum dma_data_direction dir, u64 size, u64 offset,
			  u64 length, bool for_cpu)
{
	u64 start = 0, end = offset + length, from, to;
	struct scatterlist *sg;
	unsigned int i;

	if (!offset && length >= size) {
		if (for_cpu)
			dma_sync_sgtable_for_cpu(dev, table, dir);
		else
			dma_sync_sgtable_for_device(dev, table, dir);
		return;
	}

	for_each_sgtable_dma_sg(table, sg, i) {
		from = max(start, offset);
		to = min(start + sg_dma_len(sg), end);
		if (from < to && for_cpu)
			dma_sync_single_range_for_cpu(dev, sg_dma_address(sg),
						      from - start, to - from,
						      dir);
		else if (from < to)
			dma_sync_single_range_for_device(dev,
							 sg_dma_address(sg),
							 from - start,
							 to - from, dir);
		start += sg_dma_len(sg);
		if (start >= end)
			break;
	}
}

/**
 * cmabuf_dev_syncs() - can the instance's device maintain the CPU caches
 * @cdev: the instance; the caller holds @cdev->dma_lock.
 * @phys: first byte of the range.
 * @size: its length in bytes.
 *
 * It can when it is bound, not coherent (else there is nothing to do), and
 * maps the range where it lies (else its mapping would bounce, which would
 * copy the range instead and maintain nothing of it).
 *
 * Return: true when cmabuf_own_sync() maintains the caches of the range.
 */
bool cmabuf_dev_syncs(struct cmabuf_dev *cdev, phys_addr_t phys, u64 size)
{
	struct device *dev = cdev->dev;

	lockdep_assert_held(&cdev->dma_lock);
	if (!cdev->dev_dma || dev_is_dma_coherent(dev))
		return false;
	if (!cmabuf_dev_direct(dev))
		return true;
	return !is_swiotlb_force_bounce(dev) &&
	       dma_capable(dev, phys_to_dma(dev, phys), size, true);
}

/**
 * cmabuf_own_sync() - maintain the CPU caches through the instance's device
 * @cdev: the instance.
 * @page: first page of a buffer.
 * @size: the buffer's length in bytes.
 * @offset: first byte of the range to sync, in the buffer.
 * @length: bytes in the range.
 * @dir: direction of the mapping and of the syncs.
 * @how: %CMABUF_OWN_FOR_DEVICE (clean), %CMABUF_OWN_FOR_CPU (invalidate),
 *	or both, done in that order.
 *
 * The buffer is mapped for the instance's device for the call only, with
 * the CPU syncs of map and unmap skipped: nothing is left mapped, so
 * nothing outlives an unbind, and only the syncs @how asks for are done.
 *
 * Return: true when the device did it, false when it cannot
 * (cmabuf_dev_syncs()).
 */
bool cmabuf_own_sync(struct cmabuf_dev *cdev, struct page *page, u64 size,
		     u64 offset, u64 length, enum dma_data_direction dir,
		     unsigned int how)
{
	struct device *dev = cdev->dev;
	bool done = false;
	dma_addr_t addr;

	down_read(&cdev->dma_lock);
	if (!cmabuf_dev_syncs(cdev, page_to_phys(page), size))
		goto unlock;
	addr = dma_map_page_attrs(dev, page, 0, size, dir,
				  DMA_ATTR_SKIP_CPU_SYNC);
	if (dma_mapping_error(dev, addr)) {
		dev_warn_ratelimited(dev, "cannot map a buffer for cache maintenance\n");
		goto unlock;
	}
	if (how & CMABUF_OWN_FOR_DEVICE)
		dma_sync_single_range_for_device(dev, addr, offset, length,
						 dir);
	if (how & CMABUF_OWN_FOR_CPU)
		dma_sync_single_range_for_cpu(dev, addr, offset, length, dir);
	dma_unmap_page_attrs(dev, addr, size, dir, DMA_ATTR_SKIP_CPU_SYNC);
	done = true;
unlock:
	up_read(&cdev->dma_lock);
	return done;
}

/**
 * cmabuf_dev_direct() - does a device map through the direct mapping
 * @dev: a device.
 *
 * Return: true when neither an IOMMU nor other DMA ops translate its
 * addresses: its DMA addresses are where the memory is (possibly in a
 * swiotlb bounce buffer).
 */
bool cmabuf_dev_direct(struct device *dev)
{
	return !use_dma_iommu(dev) && !get_dma_ops(dev);
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_dev_direct);

/**
 * cmabuf_dev_reaches() - can a device map a range where it lies
 * @dev: the importing device.
 * @phys: first byte of the range.
 * @size: its length in bytes.
 *
 * Only the direct mapping has to reach memory with the device's mask; an
 * IOMMU (or whatever other DMA ops the device has) gives it addresses
 * within the mask, and is not judged here.
 *
 * Return: false when @dev uses the direct mapping and its DMA mask (or its
 * bus's limit) does not reach the whole range, which the DMA API would
 * then bounce through swiotlb, or refuse.
 */
bool cmabuf_dev_reaches(struct device *dev, phys_addr_t phys, u64 size)
{
	if (!cmabuf_dev_direct(dev))
		return true;
	return dma_capable(dev, phys_to_dma(dev, phys), size, true);
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_dev_reaches);

/*
 * The bound instances whose area is known, for cmabuf_reach_warn() to
 * name one an importer reaches.
 */
static LIST_HEAD(cmabuf_reach_list);
static DEFINE_MUTEX(cmabuf_reach_lock);	/* protects cmabuf_reach_list */

/**
 * cmabuf_reach_add() - let warnings point importers at an instance
 * @cdev: a bound instance; its @base_pfn and @area_end are set.
 */
void cmabuf_reach_add(struct cmabuf_dev *cdev)
{
	if (!cdev->area_end)
		return;
	mutex_lock(&cmabuf_reach_lock);
	list_add_tail(&cdev->reach_node, &cmabuf_reach_list);
	mutex_unlock(&cmabuf_reach_lock);
}

/**
 * cmabuf_reach_remove() - stop pointing importers at an instance
 * @cdev: an instance being unbound.
 */
void cmabuf_reach_remove(struct cmabuf_dev *cdev)
{
	if (!cdev->area_end)
		return;
	mutex_lock(&cmabuf_reach_lock);
	list_del(&cdev->reach_node);
	mutex_unlock(&cmabuf_reach_lock);
}

/* Copy into @name the node of an instance @dev reaches all of, or "". */
static void cmabuf_reach_find(struct device *dev, char *name, size_t len)
{
	struct cmabuf_dev *c;
	phys_addr_t base;

	name[0] = '\0';
	mutex_lock(&cmabuf_reach_lock);
	list_for_each_entry(c, &cmabuf_reach_list, reach_node) {
		base = PFN_PHYS(c->base_pfn);
		if (cmabuf_dev_reaches(dev, base, c->area_end - base + 1)) {
			strscpy(name, c->name, len);
			break;
		}
	}
	mutex_unlock(&cmabuf_reach_lock);
}

/*
 * One line per rate-limit interval (5 s) for all instances and importers:
 * an importer that retries, such as a V4L2 queue at every QBUF, would
 * otherwise fill the log; the interval's end says how many were not told,
 * and sysfs counts them all.
 */
static DEFINE_RATELIMIT_STATE(cmabuf_reach_ratelimit,
			      DEFAULT_RATELIMIT_INTERVAL, 1);

/**
 * cmabuf_reach_warn() - tell the user why a mapping was refused
 * @cdev: the instance of the buffer.
 * @dev: the importer, whose DMA mask does not reach it.
 * @phys: first byte of the buffer.
 * @size: its length in bytes.
 *
 * The kernel log is privileged: the physical address goes there and
 * nowhere else.
 */
void cmabuf_reach_warn(struct cmabuf_dev *cdev, struct device *dev,
		       phys_addr_t phys, u64 size)
{
	u64 mask = min_not_zero(*dev->dma_mask, dev->bus_dma_limit);
	phys_addr_t end = phys + size - 1;
	char other[32];

	if (!__ratelimit(&cmabuf_reach_ratelimit))
		return;
	cmabuf_reach_find(dev, other, sizeof(other));
	if (other[0])
		dev_warn(dev, "cmabuf: a %s buffer ends at %pa, beyond this device's DMA mask %#llx: allocate from /dev/%s\n",
			 cdev->name, &end, mask, other);
	else
		dev_warn(dev, "cmabuf: a %s buffer ends at %pa, beyond this device's DMA mask %#llx, and no cmabuf instance lies within it\n",
			 cdev->name, &end, mask);
}
