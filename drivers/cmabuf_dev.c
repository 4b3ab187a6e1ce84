// SPDX-License-Identifier: GPL-2.0
/* cmabuf: an instance's lifetime (docs/design.md, "Lifetime") */

#define pr_fmt(fmt) "cmabuf: " fmt

#include <linux/device.h>
#include <linux/idr.h>
#include <linux/kref.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "cmabuf.h"

static DEFINE_IDA(cmabuf_dev_ida);

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

/**
 * cmabuf_dev_number() - give an instance the number of a "cmabuf-<n>" name
 * @cdev: an instance without a number (@cdev->id is -1).
 *
 * Return: the lowest free number, kept until the last reference, or a
 * negative errno.
 */
int cmabuf_dev_number(struct cmabuf_dev *cdev)
{
	int id = ida_alloc(&cmabuf_dev_ida, GFP_KERNEL);

	if (id >= 0)
		cdev->id = id;
	return id;
}

static void cmabuf_dev_release(struct kref *ref)
{
	struct cmabuf_dev *cdev = container_of(ref, struct cmabuf_dev, ref);

	if (cdev->id >= 0)
		ida_free(&cmabuf_dev_ida, cdev->id);
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
