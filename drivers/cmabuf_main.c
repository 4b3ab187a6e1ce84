// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf: physically contiguous dma-bufs from CMA. An instance is one misc
 * device on one CMA area: a "linux,cmabuf" node's memory-region, or the
 * default area (/dev/cmabuf). Lifetime: docs/design.md.
 */

#define pr_fmt(fmt) "cmabuf: " fmt

#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/of.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/rwsem.h>
#include <linux/slab.h>

#include "cmabuf.h"

static bool cmabuf_default_instance = true;
module_param_named(default_instance, cmabuf_default_instance, bool, 0444);
MODULE_PARM_DESC(default_instance,
		 "Create /dev/cmabuf on the default CMA area (default: true)");

static struct platform_device *cmabuf_default_pdev;

/*
 * The device maps buffers only for cache maintenance, so it must reach every
 * buffer; without a mask, CPU access gets no maintenance.
 */
static void cmabuf_probe_dma(struct cmabuf_dev *cdev, struct device *dev)
{
	int ret;

	if (dev->dma_mask)
		ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64));
	else
		ret = dma_coerce_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (ret) {
		dev_warn(dev, "no 64-bit DMA mask (%d): CPU access gets no cache maintenance\n",
			 ret);
		return;
	}
	down_write(&cdev->dma_lock);
	cdev->dev_dma = true;
	up_write(&cdev->dma_lock);
}

/* From unbind on, the device's DMA configuration goes: no more mappings. */
static void cmabuf_remove_dma(struct cmabuf_dev *cdev)
{
	down_write(&cdev->dma_lock);
	cdev->dev_dma = false;
	up_write(&cdev->dma_lock);
}

/* A number is freed with the instance: on failure, by the caller's put. */
static int cmabuf_probe_name(struct cmabuf_dev *cdev,
			     struct platform_device *pdev)
{
	const char *label;
	int ret;

	if (!of_property_read_string(pdev->dev.of_node, "label", &label)) {
		cdev->name = kasprintf(GFP_KERNEL, "cmabuf-%s", label);
		cdev->stable_name = true;
	} else if (pdev == cmabuf_default_pdev) {
		cdev->name = kstrdup("cmabuf", GFP_KERNEL);
		cdev->stable_name = true;
	} else {
		ret = cmabuf_dev_number(cdev);
		if (ret < 0)
			return ret;
		cdev->name = kasprintf(GFP_KERNEL, "cmabuf-%d", cdev->id);
	}
	return cdev->name ? 0 : -ENOMEM;
}

/* A reserve that does not fit is reported and left out. */
static void cmabuf_probe_limits(struct cmabuf_dev *cdev, struct device *dev)
{
	u64 sizes[CMABUF_RESERVE_MAX], max;
	u32 cells[2 * CMABUF_RESERVE_MAX], counts[CMABUF_RESERVE_MAX];
	int n, i, ret;

	cdev->reserve_max_bytes = (u64)cdev->area_pages <<
				  (PAGE_SHIFT - 1);
	if (!device_property_read_u64(dev, "cmabuf,reserve-max-bytes", &max))
		cdev->reserve_max_bytes = max;
	if (!device_property_read_u64(dev, "cmabuf,unprivileged-max-bytes",
				      &max))
		cdev->unprivileged_max_bytes = max;

	n = device_property_count_u32(dev, "cmabuf,reserve");
	if (n <= 0)
		return;
	if (n % 2 || n > ARRAY_SIZE(cells)) {
		dev_warn(dev, "cmabuf,reserve: %d cells, not up to %zu <size count> pairs\n",
			 n, ARRAY_SIZE(sizes));
		return;
	}
	ret = device_property_read_u32_array(dev, "cmabuf,reserve", cells, n);
	for (i = 0; !ret && i < n / 2; i++) {
		sizes[i] = cells[2 * i];
		counts[i] = cells[2 * i + 1];
	}
	if (!ret)
		ret = cmabuf_pool_reserve_set(cdev, sizes, counts, n / 2);
	if (ret)
		dev_warn(dev, "no reserve: %pe\n", ERR_PTR(ret));
}

static int cmabuf_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct cmabuf_dev *cdev;
	int ret;

	cdev = cmabuf_dev_create(dev);
	if (!cdev)
		return -ENOMEM;
	init_rwsem(&cdev->dma_lock);
	INIT_LIST_HEAD(&cdev->reach_node);

	ret = cmabuf_area_probe(cdev, dev);
	if (ret)
		goto put_cdev;
	cmabuf_probe_dma(cdev, dev);

	ret = cmabuf_probe_name(cdev, pdev);
	if (ret)
		goto release_area;

	ret = cmabuf_pool_create(cdev);
	if (ret)
		goto release_area;
	cmabuf_probe_limits(cdev, dev);

	ret = cmabuf_misc_register(cdev);
	if (ret) {
		dev_err(dev, "cannot register /dev/%s: %d\n", cdev->name, ret);
		goto stop_pool;
	}

	cmabuf_heap_attach(cdev);
	cmabuf_debugfs_add(cdev);
	cmabuf_reach_add(cdev);
	platform_set_drvdata(pdev, cdev);
	dev_info(dev, "/dev/%s on CMA area %s\n", cdev->name, cdev->area_name);
	return 0;

stop_pool:
	cmabuf_pool_stop(cdev);
release_area:
	cmabuf_remove_dma(cdev);
put_cdev:
	cmabuf_dev_put(cdev);
	return ret;
}

static void cmabuf_remove(struct platform_device *pdev)
{
	struct cmabuf_dev *cdev = platform_get_drvdata(pdev);

	WRITE_ONCE(cdev->unbound, true);
	cmabuf_reach_remove(cdev);
	cmabuf_debugfs_remove(cdev);
	cmabuf_heap_detach(cdev);
	cmabuf_misc_deregister(cdev);
	/* No new allocation can start: drop the prepared ones, finish frees. */
	cmabuf_pool_stop(cdev);
	cmabuf_remove_dma(cdev);
	/* Buffers still alive hold their own references. */
	cmabuf_dev_put(cdev);
}

#ifdef CMABUF_HAVE_INT_REMOVE
/* Before 6.11, remove() returns an int. */
static int cmabuf_remove_int(struct platform_device *pdev)
{
	cmabuf_remove(pdev);
	return 0;
}
#endif

static const struct of_device_id cmabuf_of_match[] = {
	{ .compatible = "linux,cmabuf" },
	{ }
};
MODULE_DEVICE_TABLE(of, cmabuf_of_match);

/* Not "cmabuf": a DT node of that name would take the platform device name. */
static const struct platform_device_id cmabuf_ids[] = {
	{ .name = "cmabuf" },
	{ .name = "cmabuf-default" },
	{ }
};

static struct platform_driver cmabuf_driver = {
	.probe = cmabuf_probe,
#ifdef CMABUF_HAVE_INT_REMOVE
	.remove = cmabuf_remove_int,
#else
	.remove = cmabuf_remove,
#endif
	.id_table = cmabuf_ids,
	.driver = {
		.name = "cmabuf",
		.of_match_table = cmabuf_of_match,
	},
};

static int __init cmabuf_init(void)
{
	int ret;

	ret = cmabuf_zero_init();
	if (ret)
		return ret;
	ret = cmabuf_pool_init();
	if (ret)
		goto exit_zero;
	cmabuf_debugfs_init();
	cmabuf_stats_init();

	if (cmabuf_default_instance) {
		cmabuf_default_pdev =
			platform_device_register_simple("cmabuf-default",
							PLATFORM_DEVID_NONE,
							NULL, 0);
		if (IS_ERR(cmabuf_default_pdev)) {
			ret = PTR_ERR(cmabuf_default_pdev);
			goto exit_debugfs;
		}
	}

	ret = platform_driver_register(&cmabuf_driver);
	if (ret)
		goto unregister_default;
	return 0;

unregister_default:
	if (cmabuf_default_pdev)
		platform_device_unregister(cmabuf_default_pdev);
exit_debugfs:
	cmabuf_debugfs_exit();
	cmabuf_pool_exit();
exit_zero:
	cmabuf_zero_exit();
	return ret;
}
module_init(cmabuf_init);

static void __exit cmabuf_exit(void)
{
	platform_driver_unregister(&cmabuf_driver);
	if (cmabuf_default_pdev)
		platform_device_unregister(cmabuf_default_pdev);
	cmabuf_debugfs_exit();
	/* Drains the frees of instances unbound before. */
	cmabuf_pool_exit();
	cmabuf_zero_exit();
}
module_exit(cmabuf_exit);

MODULE_DESCRIPTION("Physically contiguous dma-bufs from CMA");
MODULE_VERSION(CMABUF_VERSION);
MODULE_LICENSE("GPL");
CMABUF_IMPORT_NS("DMA_BUF");
