// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf: the instance's CMA area, and the device DMA allocates through
 * (docs/design.md, "The area and the DMA strategy")
 */

#define pr_fmt(fmt) "cmabuf: " fmt

#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/of.h>
#include <linux/of_reserved_mem.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "cmabuf.h"

static void cmabuf_area_dma_release(struct device *dma)
{
	kfree(dma);
}

static struct device *cmabuf_area_dma_create(struct device *dev)
{
	struct device *dma;

	dma = kzalloc_obj(*dma);
	if (!dma)
		return NULL;
	device_initialize(dma);
	dma->release = cmabuf_area_dma_release;
	dma->parent = dev;
	set_dev_node(dma, dev_to_node(dev));
	if (dev_set_name(dma, "%s-dma", dev_name(dev)) ||
	    dma_coerce_mask_and_coherent(dma, DMA_BIT_MASK(64))) {
		put_device(dma);
		return NULL;
	}
	return dma;
}

static void cmabuf_area_place(struct cmabuf_dev *cdev,
			      const struct reserved_mem *rmem)
{
	if (!rmem || !rmem->size)
		return;
	cdev->base_pfn = PHYS_PFN(rmem->base);
	cdev->area_end = rmem->base + rmem->size - 1;
	cdev->area_pages = rmem->size >> PAGE_SHIFT;
	cdev->area_name = rmem->name;
}

static int cmabuf_area_own(struct cmabuf_dev *cdev, struct device *dev)
{
	struct device_node *np;
	struct reserved_mem *rmem;
	bool reusable;
	int ret;

	/* Before setup: a coherent pool would be memremap()ed over RAM. */
	np = of_parse_phandle(dev->of_node, "memory-region", 0);
	if (!np)
		return dev_err_probe(dev, -ENODEV, "no memory-region\n");
	reusable = of_device_is_compatible(np, "shared-dma-pool") &&
		   of_property_read_bool(np, "reusable");
	rmem = of_reserved_mem_lookup(np);
	of_node_put(np);
	if (!reusable)
		return dev_err_probe(dev, -EINVAL,
				     "memory-region is not a reusable shared-dma-pool\n");

	ret = of_reserved_mem_device_init_by_idx(cdev->dma_dev, dev->of_node,
						 0);
	if (ret)
		return dev_err_probe(dev, ret, "no usable memory-region\n");
	cdev->area_attached = true;

#ifdef CONFIG_DMA_CMA
	cdev->cma = cdev->dma_dev->cma_area;
#endif
	if (!cdev->cma)
		return dev_err_probe(dev, -EINVAL,
				     "memory-region is not a reusable shared-dma-pool\n");
	cmabuf_area_place(cdev, rmem);
	return 0;
}

/* Its ops are set only when used: cma= on the command line skips it. */
static struct reserved_mem *cmabuf_area_default_node(void)
{
	struct device_node *parent, *np;
	struct reserved_mem *rmem = NULL;

	parent = of_find_node_by_path("/reserved-memory");
	if (!parent)
		return NULL;
	for_each_available_child_of_node(parent, np) {
		if (!of_property_read_bool(np, "linux,cma-default") ||
		    !of_property_read_bool(np, "reusable") ||
		    !of_device_is_compatible(np, "shared-dma-pool"))
			continue;
		rmem = of_reserved_mem_lookup(np);
		of_node_put(np);
		break;
	}
	of_node_put(parent);
	if (!rmem || !rmem->ops || !rmem->priv || !rmem->size)
		return NULL;
	return rmem;
}

static int cmabuf_area_default(struct cmabuf_dev *cdev, struct device *dev)
{
	struct reserved_mem *rmem = cmabuf_area_default_node();
	struct cma *cma = cmabuf_default_cma(dev);

	/* Two nodes claimed the default: its place is unknown. */
	if (rmem && cma && rmem->priv != cma)
		rmem = NULL;
	cdev->cma = cma ?: (rmem ? rmem->priv : NULL);
	cmabuf_area_place(cdev, rmem);
	if (!cdev->cma && !rmem)
		return dev_err_probe(dev, -ENODEV,
				     "no default CMA area this kernel tells of (it does not export dev_get_cma_area(), and no reserved-memory node is linux,cma-default)\n");
	return 0;
}

/**
 * cmabuf_area_probe() - find an instance's area and what it offers
 * @cdev: the instance being bound.
 * @dev: its device.
 *
 * Everything it sets up is undone by cmabuf_area_release().
 *
 * Return: 0, or a negative errno: no usable area, or no strategy for it.
 */
int cmabuf_area_probe(struct cmabuf_dev *cdev, struct device *dev)
{
	const u32 cma_bits = CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_COMPOUND) |
			     CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_FROZEN) |
			     CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_LEGACY);
	struct cmabuf_limits lim;
	int ret;

	cdev->base_pfn = CMABUF_PFN_UNKNOWN;
	cdev->dma_dev = cmabuf_area_dma_create(dev);
	if (!cdev->dma_dev)
		return -ENOMEM;
	if (dev->of_node)
		ret = cmabuf_area_own(cdev, dev);
	else
		ret = cmabuf_area_default(cdev, dev);
	if (ret)
		return ret;

	if (cmabuf_cma_name(cdev->cma))
		cdev->area_name = cmabuf_cma_name(cdev->cma);
	if (!cdev->area_name)
		cdev->area_name = "unknown";
	if (cmabuf_area_pages(cdev->cma))
		cdev->area_pages = cmabuf_area_pages(cdev->cma);

	cmabuf_limits_get(&lim);
	cdev->strategies = lim.strategies;
	if (!cdev->cma)
		cdev->strategies &= ~cma_bits;
	if (!cdev->area_end)
		cdev->strategies &= ~CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_DMA);
	if (cdev->strategies & ~CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_AUTO))
		return 0;

	return dev_err_probe(dev, -ENODEV,
			     "no strategy can allocate from CMA area %s: this kernel exports no CMA allocator, and DMA needs to know where the area lies (a linux,cmabuf node's memory-region, or a linux,cma-default one)\n",
			     cdev->area_name);
}

/* At the instance's last reference: no buffer of it is left. */
void cmabuf_area_release(struct cmabuf_dev *cdev)
{
	if (!cdev->dma_dev)
		return;
	/* Clears dma_dev->cma_area only; the struct cma stays. */
	if (cdev->area_attached)
		of_reserved_mem_device_release(cdev->dma_dev);
	cdev->area_attached = false;
	put_device(cdev->dma_dev);
	cdev->dma_dev = NULL;
}

/* False too when where the area lies is not known. */
bool cmabuf_area_holds(const struct cmabuf_dev *cdev, phys_addr_t phys,
		       u64 size)
{
	phys_addr_t base;

	if (!cdev->area_end || !size)
		return false;
	base = PFN_PHYS(cdev->base_pfn);
	return phys >= base && phys <= cdev->area_end &&
	       size - 1 <= cdev->area_end - phys;
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_area_holds);
