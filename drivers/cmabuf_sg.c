// SPDX-License-Identifier: GPL-2.0
/* cmabuf: what an importer can take: segments, cache maintenance, DMA reach */

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

#define CMABUF_SG_MIN_LEN	512

/*
 * A multiple of 4 KiB, else a power of two (max_seg_size 0xffff is common),
 * so every segment starts aligned; 0 when @max is below %CMABUF_SG_MIN_LEN.
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

/* -EINVAL when nothing can be mapped for @dev. */
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

/* The boundary applies to physical addresses: the direct mapping keeps them. */
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

/* Return: entries of the table for a range; 1 when @lim does not cut it. */
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

/* Free the table with sg_free_table(). Return: 0 or -ENOMEM. */
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

/*
 * A range covering the table is synced as the table (DMA API debugging
 * matches by exact fit); segments go by DMA length (an IOMMU merges).
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

/*
 * Only when bound, not coherent, and mapping the range in place (a bounce
 * maintains nothing). Caller holds @cdev->dma_lock.
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

/*
 * @how: %CMABUF_OWN_FOR_DEVICE (clean), %CMABUF_OWN_FOR_CPU (invalidate),
 * or both, in that order. Mapped for the call only, so nothing outlives
 * an unbind. Return: false when the device cannot (cmabuf_dev_syncs()).
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

/* No IOMMU nor other DMA ops translate @dev's addresses. */
bool cmabuf_dev_direct(struct device *dev)
{
	return !use_dma_iommu(dev) && !get_dma_ops(dev);
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_dev_direct);

/* Only the direct mapping needs the mask to reach memory. */
bool cmabuf_dev_reaches(struct device *dev, phys_addr_t phys, u64 size)
{
	if (!cmabuf_dev_direct(dev))
		return true;
	return dma_capable(dev, phys_to_dma(dev, phys), size, true);
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_dev_reaches);

/* Bound instances whose area is known, to name one an importer reaches. */
static LIST_HEAD(cmabuf_reach_list);
static DEFINE_MUTEX(cmabuf_reach_lock);	/* protects cmabuf_reach_list */

void cmabuf_reach_add(struct cmabuf_dev *cdev)
{
	if (!cdev->area_end)
		return;
	mutex_lock(&cmabuf_reach_lock);
	list_add_tail(&cdev->reach_node, &cmabuf_reach_list);
	mutex_unlock(&cmabuf_reach_lock);
}

void cmabuf_reach_remove(struct cmabuf_dev *cdev)
{
	if (!cdev->area_end)
		return;
	mutex_lock(&cmabuf_reach_lock);
	list_del(&cdev->reach_node);
	mutex_unlock(&cmabuf_reach_lock);
}

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

/* An importer may retry at every QBUF: sysfs counts them all. */
static DEFINE_RATELIMIT_STATE(cmabuf_reach_ratelimit,
			      DEFAULT_RATELIMIT_INTERVAL, 1);

/* The physical address goes to the privileged kernel log only. */
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
