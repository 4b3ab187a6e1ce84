// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf: the lifetime of an instance
 *
 * An instance is reference counted. The binding, every open file of its
 * misc device, every buffer and every heap allocation in flight hold a
 * reference; the last one frees it. Its struct cma is never freed by the
 * kernel, so buffers that outlive the binding still release into it; the
 * device's binding to its area, which DMA buffers free through, goes with
 * the last reference.
 */

#define pr_fmt(fmt) "cmabuf: " fmt

#include <linux/device.h>
#include <linux/kref.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "cmabuf.h"

/**
 * cmabuf_dev_create() - a new instance for a device being bound
 * @dev: the platform device; a reference is taken on it.
 *
 * Return: the instance with one reference, or NULL.
 */
struct cmabuf_dev *cmabuf_dev_create(struct device *dev)
{
	struct cmabuf_dev *cdev;

	cdev = kzalloc_obj(*cdev);
	if (!cdev)
		return NULL;
	kref_init(&cdev->ref);
	cdev->dev = get_device(dev);
	cdev->id = -1;
	return cdev;
}

static void cmabuf_dev_release(struct kref *ref)
{
	struct cmabuf_dev *cdev = container_of(ref, struct cmabuf_dev, ref);

	/* Idle since the unbind stopped it (cmabuf_pool_stop()). */
	kfree(cdev->pool);
	cmabuf_area_release(cdev);
	put_device(cdev->dev);
	kfree(cdev->name);
	kfree(cdev);
}

void cmabuf_dev_get(struct cmabuf_dev *cdev)
{
	kref_get(&cdev->ref);
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_dev_get);

void cmabuf_dev_put(struct cmabuf_dev *cdev)
{
	kref_put(&cdev->ref, cmabuf_dev_release);
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_dev_put);
