// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf: the instance's CMA area, and what the kernel tells of it
 *
 * A "linux,cmabuf" node's instance gets the CMA area of its memory-region:
 * of_reserved_mem_device_init() binds the device to it (dev->cma_area),
 * and the region's node says where it lies, its size and its name. The
 * default instance gets the default area: the kernel hands it out through
 * dev_get_cma_area() where that is exported (6.13 on); where the default
 * area comes from a reserved-memory node marked linux,cma-default, that
 * node says where it lies, on any kernel. An area made from the command
 * line (cma=) or the kernel's configuration has no node: where it lies is
 * then not known, and DMA is not offered on it, since no buffer the DMA
 * API gives could be checked to come from it.
 *
 * DMA allocates through a device of the instance's own, not through the
 * platform device: a DMA buffer outlives the unbind, but the DMA API holds
 * a driver to free its allocations before its device is unbound (with
 * CONFIG_DMA_API_DEBUG it WARNs "device driver has pending DMA
 * allocations while released from device"), and the unbind takes the
 * device's DMA configuration down. The instance's device is never bound
 * to a driver nor added to a bus: it is set up once (the direct mapping,
 * a 64-bit mask) and bound to the memory-region with
 * of_reserved_mem_device_init_by_idx(), and that binding, which
 * dma_free_pages() frees through (dma_free_contiguous() frees into
 * dev->cma_area, and into the page allocator once it is gone), is ended
 * only with the instance's last reference (cmabuf_dev.c), when no buffer
 * is left. Each instance has its own, so a device bound again while an
 * earlier instance still has buffers does not share or end the earlier
 * binding.
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

/*
 * The instance's device for the DMA API: a child of @dev in name only,
 * with the direct mapping and a 64-bit mask, on @dev's node.
 */
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

/* What the region's node tells: where the area lies, its size and name. */
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

/* The area of a "linux,cmabuf" node's memory-region. */
static int cmabuf_area_own(struct cmabuf_dev *cdev, struct device *dev)
{
	struct device_node *np;
	struct reserved_mem *rmem;
	bool reusable;
	int ret;

	/*
	 * Only a reusable pool is a CMA area. Anything else is refused before
	 * of_reserved_mem_device_init() sets it up for the device: a coherent
	 * pool without no-map would be memremap()ed over RAM.
	 */
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

/*
 * The reserved-memory node the kernel made its default CMA area of, if
 * any: reusable, marked linux,cma-default, and set up (its ops are set
 * only then: a cma= on the command line makes the kernel skip it).
 */
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

/* The default area, and where it lies where a node says. */
static int cmabuf_area_default(struct cmabuf_dev *cdev, struct device *dev)
{
	struct reserved_mem *rmem = cmabuf_area_default_node();
	struct cma *cma = cmabuf_default_cma(dev);

	/* Another default than the node's (two nodes said so): unknown. */
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
 * Sets @dma_dev, @cma, @area_name, @area_pages, @base_pfn, @area_end and
 * @strategies, and binds @dma_dev to a node's memory-region (all of it
 * released by cmabuf_area_release()). The CMA strategies need the struct
 * cma; DMA needs to know where the area lies, so as to check every
 * buffer.
 *
 * Return: 0, or a negative errno when the device has no usable area or no
 * strategy could allocate from it.
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

	/* The kernel's word first, the node's where it says nothing. */
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

/**
 * cmabuf_area_release() - end what cmabuf_area_probe() began
 * @cdev: the instance, at its last reference: no buffer of it is left.
 */
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

/**
 * cmabuf_area_holds() - does a range lie inside the instance's area?
 * @cdev: the instance.
 * @phys: the range's first byte.
 * @size: its length, at least one byte.
 *
 * Return: true when it does; false too when where the area lies is not
 * known.
 */
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
