// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf_importer: a test driver that imports dma-bufs as a device driver
 * does, for a device that reaches all of memory and for one that reaches
 * only its first 4 GiB, as most camera and display engines (uapi:
 * cmabuf_importer.h).
 */
#define pr_fmt(fmt) "cmabuf_importer: " fmt

#include <linux/bitops.h>
#include <linux/debugfs.h>
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/iosys-map.h>
#include <linux/miscdevice.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/scatterlist.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "cmabuf_importer.h"

/* Before 6.2, dma_buf_vmap() takes the lock itself: no _unlocked variant. */
static int cmabuf_importer_vmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
#ifdef CMABUF_HAVE_LOCKED_VMAP
	return dma_buf_vmap(dmabuf, map);
#else
	return dma_buf_vmap_unlocked(dmabuf, map);
#endif
}

static void cmabuf_importer_vunmap(struct dma_buf *dmabuf,
				   struct iosys_map *map)
{
#ifdef CMABUF_HAVE_LOCKED_VMAP
	dma_buf_vunmap(dmabuf, map);
#else
	dma_buf_vunmap_unlocked(dmabuf, map);
#endif
}

#define CMABUF_IMPORTER_NAME	"cmabuf_importer"
#define CMABUF_IMPORTER32_NAME	"cmabuf_importer32"

/* Kernels without kzalloc_obj() (6.12) get it from kzalloc(). */
#ifndef kzalloc_obj
#define kzalloc_obj(obj, ...)	kzalloc(sizeof(obj), GFP_KERNEL)
#endif

/**
 * struct cmabuf_importer - the importing device
 * @dev: the platform device the importer attaches with.
 * @misc: /dev/cmabuf_importer.
 * @holds: the held buffers (&struct cmabuf_importer_held), by handle.
 *	Protected by its own lock.
 * @debugfs: its debugfs directory (the 64-bit device only), or NULL.
 * @coherent_lock: protects the three fields below.
 * @coherent: the memory dma_alloc_coherent() gave through debugfs, or NULL.
 * @coherent_dma: its DMA address.
 * @coherent_size: its size.
 */
struct cmabuf_importer {
	struct device *dev;
	struct miscdevice misc;
	struct xarray holds;
	struct dentry *debugfs;
	struct mutex coherent_lock;	/* see above */
	void *coherent;
	dma_addr_t coherent_dma;
	size_t coherent_size;
};

/**
 * struct cmabuf_importer_held - a buffer kept attached
 * @dmabuf: the reference taken by dma_buf_get().
 * @attach: the attachment.
 * @sgt: the mapping of @attach, or NULL when it is not mapped.
 * @map: the vmap of @dmabuf, null when it is not vmapped.
 * @dir: the direction of that mapping.
 */
struct cmabuf_importer_held {
	struct dma_buf *dmabuf;
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;
	struct iosys_map map;
	enum dma_data_direction dir;
};

static struct platform_device *cmabuf_importer_pdev;
static struct platform_device *cmabuf_importer32_pdev;

/* Record the outcome @err of @step in @chk; returns @err. */
static int cmabuf_importer_step(struct cmabuf_importer_check *chk, u32 step,
				int err)
{
	if (!err) {
		chk->steps_done |= CMABUF_IMPORTER_STEP_BIT(step);
	} else if (chk->failed_step == CMABUF_IMPORTER_STEP_NONE) {
		chk->failed_step = step;
		chk->error = err;
	}
	return err;
}

static void cmabuf_importer_describe(const struct sg_table *sgt,
				     struct cmabuf_importer_check *chk)
{
	struct scatterlist *sg;
	unsigned int i;

	chk->dma_segments = sgt->nents;
	chk->sg_entries = sgt->orig_nents;
	if (sgt->nents) {
		chk->dma_addr = sg_dma_address(sgt->sgl);
		chk->dma_len = sg_dma_len(sgt->sgl);
	}
	for_each_sgtable_dma_sg(sgt, sg, i)
		chk->dma_total += sg_dma_len(sg);
}

/* Every MiB, so that even a 4 GiB buffer stays interruptible. */
static int cmabuf_importer_pause(size_t offset)
{
	if (!IS_ALIGNED(offset + CMABUF_IMPORTER_PATTERN_STRIDE, SZ_1M))
		return 0;
	if (fatal_signal_pending(current))
		return -EINTR;
	cond_resched();
	return 0;
}

static int cmabuf_importer_verify(const struct iosys_map *map, size_t size,
				  struct cmabuf_importer_check *chk)
{
	size_t off;
	u64 val;
	int ret;

	for (off = 0; off + sizeof(u64) <= size;
	     off += CMABUF_IMPORTER_PATTERN_STRIDE) {
		val = iosys_map_rd(map, off, u64);
		chk->words_checked++;
		if (val != cmabuf_importer_pattern(chk->seed_in, off)) {
			if (!chk->mismatches) {
				chk->first_bad_offset = off;
				chk->first_bad_value = val;
			}
			chk->mismatches++;
		}
		ret = cmabuf_importer_pause(off);
		if (ret)
			return ret;
	}
	return 0;
}

static int cmabuf_importer_write(struct iosys_map *map, size_t size,
				 u64 seed)
{
	size_t off;
	int ret;

	for (off = 0; off + sizeof(u64) <= size;
	     off += CMABUF_IMPORTER_PATTERN_STRIDE) {
		iosys_map_wr(map, off, u64, cmabuf_importer_pattern(seed, off));
		ret = cmabuf_importer_pause(off);
		if (ret)
			return ret;
	}
	return 0;
}

static int cmabuf_importer_access(struct dma_buf *dmabuf,
				  struct iosys_map *map,
				  struct cmabuf_importer_check *chk)
{
	int ret;

	ret = dma_buf_begin_cpu_access(dmabuf, DMA_BIDIRECTIONAL);
	if (cmabuf_importer_step(chk, CMABUF_IMPORTER_STEP_BEGIN_CPU, ret))
		return ret;

	if (chk->flags & CMABUF_IMPORTER_CHECK_VERIFY) {
		ret = cmabuf_importer_verify(map, dmabuf->size, chk);
		if (cmabuf_importer_step(chk, CMABUF_IMPORTER_STEP_VERIFY, ret))
			goto end_cpu_access;
	}
	if (chk->flags & CMABUF_IMPORTER_CHECK_WRITE) {
		ret = cmabuf_importer_write(map, dmabuf->size, chk->seed_out);
		cmabuf_importer_step(chk, CMABUF_IMPORTER_STEP_WRITE, ret);
	}

end_cpu_access:
	ret = dma_buf_end_cpu_access(dmabuf, DMA_BIDIRECTIONAL);
	return cmabuf_importer_step(chk, CMABUF_IMPORTER_STEP_END_CPU, ret);
}

/* Every step that succeeded is undone before returning, whatever failed. */
static void cmabuf_importer_check_buf(struct cmabuf_importer *imp,
				      struct dma_buf *dmabuf,
				      struct cmabuf_importer_check *chk)
{
	struct dma_buf_attachment *attach;
	struct iosys_map map;
	struct sg_table *sgt;
	int ret;

	chk->size = dmabuf->size;

	attach = dma_buf_attach(dmabuf, imp->dev);
	if (cmabuf_importer_step(chk, CMABUF_IMPORTER_STEP_ATTACH,
				 PTR_ERR_OR_ZERO(attach)))
		return;

	sgt = dma_buf_map_attachment_unlocked(attach, DMA_BIDIRECTIONAL);
	if (cmabuf_importer_step(chk, CMABUF_IMPORTER_STEP_MAP,
				 PTR_ERR_OR_ZERO(sgt)))
		goto detach;
	cmabuf_importer_describe(sgt, chk);

	ret = cmabuf_importer_vmap(dmabuf, &map);
	if (cmabuf_importer_step(chk, CMABUF_IMPORTER_STEP_VMAP, ret))
		goto unmap_attachment;

	cmabuf_importer_access(dmabuf, &map, chk);

	cmabuf_importer_vunmap(dmabuf, &map);
	cmabuf_importer_step(chk, CMABUF_IMPORTER_STEP_VUNMAP, 0);
unmap_attachment:
	dma_buf_unmap_attachment_unlocked(attach, sgt, DMA_BIDIRECTIONAL);
	cmabuf_importer_step(chk, CMABUF_IMPORTER_STEP_UNMAP, 0);
detach:
	dma_buf_detach(dmabuf, attach);
	cmabuf_importer_step(chk, CMABUF_IMPORTER_STEP_DETACH, 0);
}

/* Are bytes @offset up to @len of @s all zero? */
static bool cmabuf_importer_zeroed(const void *s, size_t offset, size_t len)
{
	return !memchr_inv((const u8 *)s + offset, 0, len - offset);
}

/*
 * CMABUF_IMPORTER_IOC_CHECK. Errors: -EFAULT; -EINVAL for an unknown flag, a
 * non-zero output field or pad, or an fd that is not a dma-buf; -EBADF. A
 * step's failure is reported in the structure, not here.
 */
static long cmabuf_importer_ioctl_check(struct cmabuf_importer *imp,
					void __user *uarg)
{
	struct cmabuf_importer_check chk;
	struct dma_buf *dmabuf;

	if (copy_from_user(&chk, uarg, sizeof(chk)))
		return -EFAULT;
	if (chk.flags & ~CMABUF_IMPORTER_CHECK_VALID_FLAGS ||
	    !cmabuf_importer_zeroed(&chk,
				    offsetof(struct cmabuf_importer_check, size),
				    sizeof(chk)))
		return -EINVAL;

	dmabuf = dma_buf_get(chk.fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	cmabuf_importer_check_buf(imp, dmabuf, &chk);
	dma_buf_put(dmabuf);

	if (copy_to_user(uarg, &chk, sizeof(chk)))
		return -EFAULT;
	return 0;
}

/* Undo everything cmabuf_importer_hold() did for @held. */
static void cmabuf_importer_drop(struct cmabuf_importer_held *held)
{
	if (!iosys_map_is_null(&held->map))
		cmabuf_importer_vunmap(held->dmabuf, &held->map);
	if (held->sgt)
		dma_buf_unmap_attachment_unlocked(held->attach, held->sgt,
						  held->dir);
	dma_buf_detach(held->dmabuf, held->attach);
	dma_buf_put(held->dmabuf);
	kfree(held);
}

static enum dma_data_direction cmabuf_importer_hold_dir(u32 flags)
{
	if (flags & CMABUF_IMPORTER_HOLD_TO_DEVICE)
		return DMA_TO_DEVICE;
	if (flags & CMABUF_IMPORTER_HOLD_FROM_DEVICE)
		return DMA_FROM_DEVICE;
	return DMA_BIDIRECTIONAL;
}

/* Take, attach, map and vmap as @arg asks; fill @arg's outputs. */
static int cmabuf_importer_hold(struct cmabuf_importer *imp,
				struct cmabuf_importer_hold *arg)
{
	struct cmabuf_importer_held *held;
	u32 handle;
	int ret;

	held = kzalloc_obj(*held);
	if (!held)
		return -ENOMEM;

	held->dmabuf = dma_buf_get(arg->fd);
	if (IS_ERR(held->dmabuf)) {
		ret = PTR_ERR(held->dmabuf);
		goto free_held;
	}
	held->attach = dma_buf_attach(held->dmabuf, imp->dev);
	if (IS_ERR(held->attach)) {
		ret = PTR_ERR(held->attach);
		goto put_dmabuf;
	}
	held->dir = cmabuf_importer_hold_dir(arg->flags);
	if (arg->flags & CMABUF_IMPORTER_HOLD_MAP) {
		held->sgt = dma_buf_map_attachment_unlocked(held->attach,
							    held->dir);
		if (IS_ERR(held->sgt)) {
			ret = PTR_ERR(held->sgt);
			goto detach;
		}
		arg->dma_addr = sg_dma_address(held->sgt->sgl);
	}
	/* As a driver whose CPU fills the buffer does (vb2-vmalloc). */
	if (arg->flags & CMABUF_IMPORTER_HOLD_VMAP) {
		ret = cmabuf_importer_vmap(held->dmabuf, &held->map);
		if (ret)
			goto unmap_attachment;
	}

	/* From here on, the buffer is the xarray's until it is released. */
	ret = xa_alloc(&imp->holds, &handle, held,
		       XA_LIMIT(1, CMABUF_IMPORTER_MAX_HOLDS), GFP_KERNEL);
	if (ret) {
		ret = ret == -EBUSY ? -ENOSPC : ret;
		goto vunmap;
	}
	arg->handle = handle;
	arg->size = held->dmabuf->size;
	return 0;

vunmap:
	if (!iosys_map_is_null(&held->map))
		cmabuf_importer_vunmap(held->dmabuf, &held->map);
unmap_attachment:
	if (held->sgt)
		dma_buf_unmap_attachment_unlocked(held->attach, held->sgt,
						  held->dir);
detach:
	dma_buf_detach(held->dmabuf, held->attach);
put_dmabuf:
	dma_buf_put(held->dmabuf);
free_held:
	kfree(held);
	return ret;
}

static int cmabuf_importer_release(struct cmabuf_importer *imp, u32 handle)
{
	struct cmabuf_importer_held *held;

	held = xa_erase(&imp->holds, handle);
	if (!held)
		return -ENOENT;
	cmabuf_importer_drop(held);
	return 0;
}

/*
 * CMABUF_IMPORTER_IOC_HOLD. Errors: -EFAULT (nothing is held then); -EINVAL
 * for bad flags, a non-zero output field or pad, or an fd that is not a
 * dma-buf; -EBADF; -ENOSPC when %CMABUF_IMPORTER_MAX_HOLDS are held; -ENOMEM;
 * the error of dma_buf_attach(), dma_buf_map_attachment() or dma_buf_vmap().
 */
static long cmabuf_importer_ioctl_hold(struct cmabuf_importer *imp,
				       void __user *uarg)
{
	struct cmabuf_importer_hold arg;
	u32 dirs;
	int ret;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	dirs = arg.flags & (CMABUF_IMPORTER_HOLD_TO_DEVICE |
			    CMABUF_IMPORTER_HOLD_FROM_DEVICE);
	if (arg.flags & ~CMABUF_IMPORTER_HOLD_VALID_FLAGS ||
	    (dirs && !(arg.flags & CMABUF_IMPORTER_HOLD_MAP)) ||
	    hweight32(dirs) > 1 ||
	    !cmabuf_importer_zeroed(&arg,
				    offsetof(struct cmabuf_importer_hold, handle),
				    sizeof(arg)))
		return -EINVAL;

	ret = cmabuf_importer_hold(imp, &arg);
	if (ret)
		return ret;
	if (copy_to_user(uarg, &arg, sizeof(arg))) {
		/* Nobody learnt the handle: let go at once. */
		cmabuf_importer_release(imp, arg.handle);
		return -EFAULT;
	}
	return 0;
}

/* CMABUF_IMPORTER_IOC_RELEASE. Errors: -EFAULT; -EINVAL; -ENOENT. */
static long cmabuf_importer_ioctl_release(struct cmabuf_importer *imp,
					  void __user *uarg)
{
	struct cmabuf_importer_release arg;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (arg.pad)
		return -EINVAL;
	return cmabuf_importer_release(imp, arg.handle);
}

static long cmabuf_importer_ioctl(struct file *file, unsigned int cmd,
				  unsigned long arg)
{
	struct cmabuf_importer *imp = container_of(file->private_data,
						   struct cmabuf_importer, misc);
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case CMABUF_IMPORTER_IOC_CHECK:
		return cmabuf_importer_ioctl_check(imp, uarg);
	case CMABUF_IMPORTER_IOC_HOLD:
		return cmabuf_importer_ioctl_hold(imp, uarg);
	case CMABUF_IMPORTER_IOC_RELEASE:
		return cmabuf_importer_ioctl_release(imp, uarg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations cmabuf_importer_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = cmabuf_importer_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static void cmabuf_importer_coherent_free(struct cmabuf_importer *imp)
{
	if (imp->coherent)
		dma_free_coherent(imp->dev, imp->coherent_size, imp->coherent,
				  imp->coherent_dma);
	imp->coherent = NULL;
	imp->coherent_size = 0;
}

/*
 * debugfs coherent (DOC: coherent). Errors: -EINVAL; -ENOMEM, and nothing
 * is kept then.
 */
static int cmabuf_importer_coherent_set(void *data, u64 val)
{
	struct cmabuf_importer *imp = data;
	int ret = 0;

	if (val > SIZE_MAX)
		return -EINVAL;
	mutex_lock(&imp->coherent_lock);
	cmabuf_importer_coherent_free(imp);
	if (val) {
		imp->coherent = dma_alloc_coherent(imp->dev, val,
						   &imp->coherent_dma,
						   GFP_KERNEL | __GFP_NOWARN);
		if (imp->coherent)
			imp->coherent_size = val;
		else
			ret = -ENOMEM;
	}
	mutex_unlock(&imp->coherent_lock);
	return ret;
}

static int cmabuf_importer_coherent_get(void *data, u64 *val)
{
	struct cmabuf_importer *imp = data;

	mutex_lock(&imp->coherent_lock);
	*val = imp->coherent_size;
	mutex_unlock(&imp->coherent_lock);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(cmabuf_importer_coherent_fops,
			 cmabuf_importer_coherent_get,
			 cmabuf_importer_coherent_set, "%llu\n");

static int cmabuf_importer_probe(struct platform_device *pdev)
{
	unsigned int bits = platform_get_device_id(pdev)->driver_data;
	struct device *dev = &pdev->dev;
	struct cmabuf_importer *imp;
	int ret;

	imp = devm_kzalloc(dev, sizeof(*imp), GFP_KERNEL);
	if (!imp)
		return -ENOMEM;

	/* No firmware node set up its DMA: the direct mapping, no limits. */
	ret = dma_coerce_mask_and_coherent(dev, DMA_BIT_MASK(bits));
	if (ret)
		return dev_err_probe(dev, ret, "cannot use a %u-bit DMA mask\n",
				     bits);
	dma_set_max_seg_size(dev, UINT_MAX);

	imp->dev = dev;
	mutex_init(&imp->coherent_lock);
	xa_init_flags(&imp->holds, XA_FLAGS_ALLOC1);
	imp->misc.minor = MISC_DYNAMIC_MINOR;
	imp->misc.name = dev_name(dev);
	imp->misc.fops = &cmabuf_importer_fops;
	imp->misc.parent = dev;
	imp->misc.mode = 0600;
	platform_set_drvdata(pdev, imp);

	ret = misc_register(&imp->misc);
	if (ret)
		return dev_err_probe(dev, ret, "cannot register misc device\n");
	if (bits == 64) {
		imp->debugfs = debugfs_create_dir(CMABUF_IMPORTER_NAME, NULL);
		debugfs_create_file_unsafe("coherent", 0600, imp->debugfs, imp,
					   &cmabuf_importer_coherent_fops);
	}
	return 0;
}

/* Only module unload gets here (no sysfs unbind), with every file closed. */
static void cmabuf_importer_remove(struct platform_device *pdev)
{
	struct cmabuf_importer *imp = platform_get_drvdata(pdev);
	struct cmabuf_importer_held *held;
	unsigned long handle;

	misc_deregister(&imp->misc);
	debugfs_remove_recursive(imp->debugfs);
	cmabuf_importer_coherent_free(imp);
	mutex_destroy(&imp->coherent_lock);
	xa_for_each(&imp->holds, handle, held) {
		xa_erase(&imp->holds, handle);
		dev_dbg(imp->dev, "releasing held buffer %lu\n", handle);
		cmabuf_importer_drop(held);
	}
	xa_destroy(&imp->holds);
}

#ifdef CMABUF_HAVE_INT_REMOVE
/* Kernels before 6.11 want an int from remove(). */
static int cmabuf_importer_remove_int(struct platform_device *pdev)
{
	cmabuf_importer_remove(pdev);
	return 0;
}
#endif

/* driver_data: the width of the device's DMA mask. */
static const struct platform_device_id cmabuf_importer_ids[] = {
	{ .name = CMABUF_IMPORTER_NAME, .driver_data = 64 },
	{ .name = CMABUF_IMPORTER32_NAME, .driver_data = 32 },
	{ }
};

static struct platform_driver cmabuf_importer_driver = {
	.driver = {
		.name = CMABUF_IMPORTER_NAME,
		.suppress_bind_attrs = true,
	},
	.probe = cmabuf_importer_probe,
#ifdef CMABUF_HAVE_INT_REMOVE
	.remove = cmabuf_importer_remove_int,
#else
	.remove = cmabuf_importer_remove,
#endif
	.id_table = cmabuf_importer_ids,
};

/* Both devices must probe: a test that finds one missing would skip. */
static struct platform_device *cmabuf_importer_add(const char *name)
{
	struct platform_device *pdev;

	pdev = platform_device_register_simple(name, PLATFORM_DEVID_NONE,
					       NULL, 0);
	if (!IS_ERR(pdev) && !platform_get_drvdata(pdev)) {
		platform_device_unregister(pdev);
		return ERR_PTR(-ENODEV);
	}
	return pdev;
}

static int __init cmabuf_importer_init(void)
{
	int ret;

	ret = platform_driver_register(&cmabuf_importer_driver);
	if (ret)
		return ret;
	cmabuf_importer_pdev = cmabuf_importer_add(CMABUF_IMPORTER_NAME);
	if (IS_ERR(cmabuf_importer_pdev)) {
		ret = PTR_ERR(cmabuf_importer_pdev);
		goto unregister_driver;
	}
	cmabuf_importer32_pdev = cmabuf_importer_add(CMABUF_IMPORTER32_NAME);
	if (IS_ERR(cmabuf_importer32_pdev)) {
		ret = PTR_ERR(cmabuf_importer32_pdev);
		goto unregister_pdev;
	}
	return 0;

unregister_pdev:
	platform_device_unregister(cmabuf_importer_pdev);
unregister_driver:
	platform_driver_unregister(&cmabuf_importer_driver);
	return ret;
}
module_init(cmabuf_importer_init);

static void __exit cmabuf_importer_exit(void)
{
	platform_device_unregister(cmabuf_importer32_pdev);
	platform_device_unregister(cmabuf_importer_pdev);
	platform_driver_unregister(&cmabuf_importer_driver);
}
module_exit(cmabuf_importer_exit);

MODULE_DESCRIPTION("cmabuf test importer: uses dma-bufs as a device driver does");
MODULE_LICENSE("GPL");
/* MODULE_IMPORT_NS() changed form in 6.13; both expand to this. */
MODULE_INFO(import_ns, "DMA_BUF");
