// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf: /dev/dma_heap/<name> for instances with a stable name. A dma-heap
 * is never removed, so these are global (docs/design.md, "Lifetime").
 */

#define pr_fmt(fmt) "cmabuf: " fmt

#include <linux/cma.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>
#include <linux/dma-map-ops.h>
#include <linux/err.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cmabuf.h"

static bool cmabuf_heap_enabled = true;
module_param_named(heap, cmabuf_heap_enabled, bool, 0444);
MODULE_PARM_DESC(heap,
		 "Register a dma-heap per named instance where the kernel allows it; the module then cannot be unloaded (default: true)");

/**
 * struct cmabuf_heap - one dma-heap, for the life of the system
 * @node: entry in cmabuf_heaps. Protected by cmabuf_heap_lock.
 * @name: heap name; the core keeps this pointer, so it is never freed.
 * @heap: the core's heap.
 * @cdev: the instance serving it, or NULL. Protected by cmabuf_heap_lock.
 */
struct cmabuf_heap {
	struct list_head node;
	const char *name;
	struct dma_heap *heap;
	struct cmabuf_dev *cdev;
};

static LIST_HEAD(cmabuf_heaps);
static DEFINE_MUTEX(cmabuf_heap_lock);
static bool cmabuf_heap_pinned;	/* protected by cmabuf_heap_lock */

static struct dma_buf *cmabuf_heap_allocate(struct dma_heap *heap,
					    unsigned long len, u32 fd_flags,
					    u64 heap_flags)
{
	struct cmabuf_heap *h = dma_heap_get_drvdata(heap);
	struct cmabuf_dev *cdev;
	struct dma_buf *dmabuf;

	mutex_lock(&cmabuf_heap_lock);
	cdev = h->cdev;
	if (cdev)
		cmabuf_dev_get(cdev);
	mutex_unlock(&cmabuf_heap_lock);
	if (!cdev)
		return ERR_PTR(-ENODEV);

	dmabuf = cmabuf_dmabuf_alloc(cdev, len, 0, CMABUF_STRATEGY_AUTO,
				     fd_flags, NULL,
				     cmabuf_caller_privileged(), NULL);
	cmabuf_dev_put(cdev);
	return dmabuf;
}

static const struct dma_heap_ops cmabuf_heap_ops = {
	.allocate = cmabuf_heap_allocate,
};

static struct cmabuf_heap *cmabuf_heap_find(const char *name)
{
	struct cmabuf_heap *h;

	lockdep_assert_held(&cmabuf_heap_lock);
	list_for_each_entry(h, &cmabuf_heaps, node) {
		if (!strcmp(h->name, name))
			return h;
	}
	return NULL;
}

/* The CMA heap's names: dma_heap_add() finds a clash only after sysfs warns. */
static bool cmabuf_heap_name_taken(const char *name)
{
	struct cma *cma;
	unsigned int i;

	if (!IS_ENABLED(CONFIG_DMABUF_HEAPS_CMA))
		return false;
	if (!strcmp(name, "default_cma_region"))
		return true;
	for (i = 0; (cma = cmabuf_cma_area(i)); i++) {
		if (cmabuf_cma_name(cma) && !strcmp(cmabuf_cma_name(cma), name))
			return true;
	}
	return false;
}

static struct cmabuf_heap *cmabuf_heap_create(const char *name)
{
	struct dma_heap_export_info exp_info = {};
	struct cmabuf_heap *h;
	bool pin;
	int ret;

	lockdep_assert_held(&cmabuf_heap_lock);
	if (cmabuf_heap_name_taken(name))
		return ERR_PTR(-EEXIST);

	h = kzalloc_obj(*h);
	if (!h)
		return ERR_PTR(-ENOMEM);
	h->name = kstrdup(name, GFP_KERNEL);
	if (!h->name) {
		ret = -ENOMEM;
		goto free_heap;
	}

	/* try_module_get() fails once rmmod has begun: then no heap. */
	pin = !cmabuf_heap_pinned;
	if (pin && !try_module_get(THIS_MODULE)) {
		ret = -ENODEV;
		goto free_name;
	}

	exp_info.name = h->name;
	exp_info.ops = &cmabuf_heap_ops;
	exp_info.priv = h;
	h->heap = dma_heap_add(&exp_info);
	if (IS_ERR(h->heap)) {
		ret = PTR_ERR(h->heap);
		goto put_module;
	}

	/* From here on the heap and @h live as long as the system. */
	cmabuf_heap_pinned = true;
	list_add(&h->node, &cmabuf_heaps);
	return h;

put_module:
	if (pin)
		module_put(THIS_MODULE);
free_name:
	kfree(h->name);
free_heap:
	kfree(h);
	return ERR_PTR(ret);
}

/* Creates the heap the first time; a failure costs only the heap. */
void cmabuf_heap_attach(struct cmabuf_dev *cdev)
{
	struct cmabuf_heap *h;

	if (!cmabuf_heap_enabled || !cdev->stable_name)
		return;

	mutex_lock(&cmabuf_heap_lock);
	h = cmabuf_heap_find(cdev->name);
	if (!h)
		h = cmabuf_heap_create(cdev->name);
	if (!IS_ERR(h) && !h->cdev)
		h->cdev = cdev;
	mutex_unlock(&cmabuf_heap_lock);

	if (PTR_ERR_OR_ZERO(h) == -EEXIST)
		dev_warn(cdev->dev,
			 "no dma-heap %s: the CMA heap of an area took the name\n",
			 cdev->name);
	else if (IS_ERR(h))
		dev_warn(cdev->dev, "no dma-heap %s: %pe\n", cdev->name, h);
}

/* Allocations already running keep their own reference on @cdev. */
void cmabuf_heap_detach(struct cmabuf_dev *cdev)
{
	struct cmabuf_heap *h;

	mutex_lock(&cmabuf_heap_lock);
	list_for_each_entry(h, &cmabuf_heaps, node) {
		if (h->cdev == cdev)
			h->cdev = NULL;
	}
	mutex_unlock(&cmabuf_heap_lock);
}

CMABUF_IMPORT_NS("DMA_BUF_HEAP");
