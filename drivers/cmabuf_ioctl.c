// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf: the misc device and its ioctls. Argument structures may be shorter
 * or longer than the kernel's, as in dma-heap.c.
 */

#define pr_fmt(fmt) "cmabuf: " fmt

#include <linux/bitops.h>
#include <linux/capability.h>
#include <linux/cma.h>
#include <linux/dma-buf.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/ioctl.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/miscdevice.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "cmabuf.h"

static unsigned short cmabuf_mode = 0600;
module_param_named(mode, cmabuf_mode, ushort, 0444);
/* The dma-heap nodes are the udev rule's: the core creates them itself. */
MODULE_PARM_DESC(mode,
		 "Permissions of /dev/cmabuf* (default: 0600; not the /dev/dma_heap nodes, see the udev rule)");

static unsigned int cmabuf_prepare_max_timeout_ms = 60000;
module_param_named(prepare_max_timeout_ms, cmabuf_prepare_max_timeout_ms,
		   uint, 0644);
MODULE_PARM_DESC(prepare_max_timeout_ms,
		 "Longest timeout_ms a CMABUF_IOC_PREPARE without CAP_SYS_ADMIN may ask for; longer ones fail with EPERM (default: 60000)");

/* Where to copy back, and how many bytes (0: the command has no output). */
struct cmabuf_uarg {
	void __user *ptr;
	unsigned int out_size;
};

/* Unknown trailing bytes and output fields (from @out_from) must be zero. */
static int cmabuf_copy_in(unsigned int ucmd, unsigned int kcmd,
			  unsigned long arg, void *kdata, size_t out_from,
			  struct cmabuf_uarg *ua)
{
	unsigned int ksize = _IOC_SIZE(kcmd);
	unsigned int usize = _IOC_SIZE(ucmd);
	int ret;

	ua->ptr = (void __user *)arg;
	ua->out_size = (ucmd & IOC_OUT) ? min(usize, ksize) : 0;

	ret = copy_struct_from_user(kdata, ksize, ua->ptr,
				    (ucmd & IOC_IN) ? usize : 0);
	/* Our ABI says -EINVAL for unknown non-zero bytes, not -E2BIG. */
	if (ret)
		return ret == -E2BIG ? -EINVAL : ret;
	if (memchr_inv(kdata + out_from, 0, ksize - out_from))
		return -EINVAL;
	return 0;
}

static int cmabuf_copy_out(const struct cmabuf_uarg *ua, const void *kdata)
{
	if (copy_to_user(ua->ptr, kdata, ua->out_size))
		return -EFAULT;
	return 0;
}

/* Each ioctl's errors: its DOC: block in include/uapi/linux/cmabuf.h. */
static long cmabuf_ioctl_alloc(struct cmabuf_dev *cdev, struct file *file,
			       unsigned int cmd, unsigned long arg)
{
	struct cmabuf_alloc_data data;
	struct cmabuf_uarg ua;
	struct dma_buf *dmabuf;
	int fd, ret;

	ret = cmabuf_copy_in(cmd, CMABUF_IOC_ALLOC, arg, &data, sizeof(data),
			     &ua);
	if (ret)
		return ret;
	if (ua.out_size < offsetofend(struct cmabuf_alloc_data, fd))
		return -EINVAL;
	if (data.alloc_size || data.strategy || data.fd || data.pad ||
	    data.buf_flags || data.pad2)
		return -EINVAL;
	if (data.flags & ~CMABUF_ALLOC_VALID_FLAGS ||
	    data.fd_flags & ~CMABUF_VALID_FD_FLAGS)
		return -EINVAL;
	if (READ_ONCE(cdev->unbound))
		return -ENODEV;

	fd = get_unused_fd_flags(data.fd_flags);
	if (fd < 0)
		return fd;

	dmabuf = cmabuf_dmabuf_alloc(cdev, data.size, data.align,
				     data.flags & CMABUF_ALLOC_STRATEGY_MASK,
				     data.fd_flags, file,
				     cmabuf_caller_privileged(), &data.strategy);
	if (IS_ERR(dmabuf)) {
		ret = PTR_ERR(dmabuf);
		goto put_fd;
	}

	if (data.flags & CMABUF_ALLOC_WRITECOMBINE &&
	    cmabuf_dmabuf_writecombine(dmabuf))
		data.buf_flags |= CMABUF_BUF_WRITECOMBINE;
	data.fd = fd;
	data.alloc_size = dmabuf->size;
	ret = cmabuf_copy_out(&ua, &data);
	if (ret)
		goto put_dmabuf;

	/* Only now may the fd go live: nothing can fail any more. */
	cmabuf_fd_install(dmabuf, fd);
	return 0;

put_dmabuf:
	dma_buf_put(dmabuf);
put_fd:
	put_unused_fd(fd);
	return ret;
}

/* Copy @name into a user buffer of @size bytes, truncated, NUL-terminated. */
static int cmabuf_copy_name(u64 uptr, u32 size, const char *name)
{
	char __user *dst = u64_to_user_ptr(uptr);
	size_t len;

	if (!uptr || !size)
		return 0;

	len = min_t(size_t, strlen(name), size - 1);
	if (copy_to_user(dst, name, len) || put_user('\0', dst + len))
		return -EFAULT;
	return 0;
}

static void cmabuf_info_fill(struct cmabuf_dev *cdev, struct cmabuf_info *info)
{
	unsigned long area = cmabuf_area_pages(cdev->cma);
	struct cmabuf_limits lim;

	cmabuf_dev_limits(cdev, &lim);

	info->area_name_len = strlen(cdev->area_name) + 1;
	info->total_bytes = (u64)cdev->area_pages << PAGE_SHIFT;
	if (area) {
		info->total_bytes = (u64)area << PAGE_SHIFT;
		info->free_bytes = (u64)cmabuf_area_free_pages(cdev->cma) <<
				   PAGE_SHIFT;
		info->used_bytes = info->total_bytes - info->free_bytes;
		info->flags |= CMABUF_INFO_AREA_STATS;
	}
	if (cmabuf_zeroed_by_allocator(CMABUF_STRATEGY_LEGACY))
		info->flags |= CMABUF_INFO_ALLOCATOR_ZEROES;
	if (CMABUF_CLEARS_FROZEN)
		info->flags |= CMABUF_INFO_CLEARS_FROZEN;
	info->flags |= cmabuf_dmabuf_mmap_flags();
	info->flags |= cmabuf_dmabuf_cache_flags(cdev);
	info->dma_bits = cmabuf_dma_bits(cdev->area_end);
	cmabuf_stats_live(cdev, &info->live_buffers, &info->live_bytes);
	info->page_size = PAGE_SIZE;
	info->max_compound_order = lim.max_compound_order;
	if (info->max_compound_order)
		info->min_compound_order = lim.min_compound_order;
	info->strategies = lim.strategies;
	info->version = CMABUF_VERSION_CODE;
	info->pmd_order = lim.pmd_order;
}

/* Works after unbind too, for files opened before. */
static long cmabuf_ioctl_info(struct cmabuf_dev *cdev, unsigned int cmd,
			      unsigned long arg)
{
	struct cmabuf_info info;
	struct cmabuf_uarg ua;
	int ret;

	ret = cmabuf_copy_in(cmd, CMABUF_IOC_INFO, arg, &info,
			     offsetof(struct cmabuf_info, area_name_len), &ua);
	if (ret)
		return ret;

	cmabuf_info_fill(cdev, &info);
	ret = cmabuf_copy_name(info.area_name_ptr, info.area_name_size,
			       cdev->area_name);
	if (ret)
		return ret;
	return cmabuf_copy_out(&ua, &info);
}

static long cmabuf_ioctl_phys(struct cmabuf_dev *cdev, unsigned int cmd,
			      unsigned long arg)
{
	struct cmabuf_phys data;
	struct cmabuf_uarg ua;
	struct dma_buf *dmabuf;
	phys_addr_t phys;
	int ret;

	if (!capable(CAP_SYS_RAWIO))
		return -EPERM;

	/* @pad must be zero like the output fields after it. */
	ret = cmabuf_copy_in(cmd, CMABUF_IOC_PHYS, arg, &data,
			     offsetof(struct cmabuf_phys, pad), &ua);
	if (ret)
		return ret;

	dmabuf = dma_buf_get(data.fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	ret = cmabuf_dmabuf_phys(dmabuf, &phys);
	data.size = dmabuf->size;
	dma_buf_put(dmabuf);
	if (ret)
		return ret;

	data.phys = phys;
	return cmabuf_copy_out(&ua, &data);
}

static long cmabuf_ioctl_prepare(struct cmabuf_dev *cdev, struct file *file,
				 unsigned int cmd, unsigned long arg)
{
	bool privileged = cmabuf_caller_privileged();
	u32 strategy, align_order;
	struct cmabuf_prepare data;
	struct cmabuf_limits lim;
	struct cmabuf_plan plan;
	struct cmabuf_uarg ua;
	int ret;

	ret = cmabuf_copy_in(cmd, CMABUF_IOC_PREPARE, arg, &data,
			     offsetof(struct cmabuf_prepare, ready), &ua);
	if (ret)
		return ret;
	if (data.flags & ~CMABUF_PREPARE_VALID_FLAGS ||
	    data.count > CMABUF_PREPARE_MAX_COUNT)
		return -EINVAL;
	if (data.count && !privileged &&
	    data.timeout_ms > READ_ONCE(cmabuf_prepare_max_timeout_ms))
		return -EPERM;
	if (READ_ONCE(cdev->unbound))
		return -ENODEV;

	strategy = data.flags & CMABUF_ALLOC_STRATEGY_MASK;
	cmabuf_dev_limits(cdev, &lim);
	ret = cmabuf_plan_make(&lim, data.size, data.align, strategy, &plan);
	if (ret)
		return ret;
	cmabuf_align_to_order(data.align, &align_order);

	ret = cmabuf_pool_want(cdev, file, &plan, strategy, align_order,
			       data.count, data.timeout_ms, privileged);
	if (ret >= 0 && data.count && data.flags & CMABUF_PREPARE_WAIT)
		ret = cmabuf_pool_wait_ready(cdev, file, &plan, strategy,
					     align_order);
	if (ret < 0)
		return ret;

	data.ready = ret;
	return cmabuf_copy_out(&ua, &data);
}

/* The buffer may be any instance's, here and in CMABUF_IOC_RW. */
static long cmabuf_ioctl_sync(unsigned int cmd, unsigned long arg)
{
	struct cmabuf_sync data;
	struct cmabuf_uarg ua;
	struct dma_buf *dmabuf;
	int ret;

	ret = cmabuf_copy_in(cmd, CMABUF_IOC_SYNC, arg, &data, sizeof(data),
			     &ua);
	if (ret)
		return ret;

	dmabuf = dma_buf_get(data.fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	ret = cmabuf_dmabuf_sync_range(dmabuf, data.flags, data.offset,
				       data.length);
	dma_buf_put(dmabuf);
	return ret;
}

/*
 * Once any byte moved, 0 with @done saying how many, even when an error or
 * a signal stopped the transfer.
 */
static long cmabuf_ioctl_rw(unsigned int cmd, unsigned long arg)
{
	struct cmabuf_uarg ua;
	struct cmabuf_rw data;
	int ret;

	ret = cmabuf_copy_in(cmd, CMABUF_IOC_RW, arg, &data,
			     offsetof(struct cmabuf_rw, done), &ua);
	if (ret)
		return ret;
	if (ua.out_size < offsetofend(struct cmabuf_rw, done))
		return -EINVAL;
	if (data.flags & ~CMABUF_RW_VALID_FLAGS ||
	    hweight32(data.flags) != 1 || data.pad || !data.length)
		return -EINVAL;

	ret = cmabuf_rw(&data, &data.done);
	if (ret)
		return ret;
	return cmabuf_copy_out(&ua, &data);
}

static long cmabuf_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	struct cmabuf_dev *cdev = file->private_data;

	if (_IOC_TYPE(cmd) != CMABUF_IOC_MAGIC)
		return -ENOTTY;

	/* Only the number identifies the command: sizes may differ. */
	switch (_IOC_NR(cmd)) {
	case _IOC_NR(CMABUF_IOC_ALLOC):
		return cmabuf_ioctl_alloc(cdev, file, cmd, arg);
	case _IOC_NR(CMABUF_IOC_INFO):
		return cmabuf_ioctl_info(cdev, cmd, arg);
	case _IOC_NR(CMABUF_IOC_PHYS):
		return cmabuf_ioctl_phys(cdev, cmd, arg);
	case _IOC_NR(CMABUF_IOC_PREPARE):
		return cmabuf_ioctl_prepare(cdev, file, cmd, arg);
	case _IOC_NR(CMABUF_IOC_SYNC):
		return cmabuf_ioctl_sync(cmd, arg);
	case _IOC_NR(CMABUF_IOC_RW):
		return cmabuf_ioctl_rw(cmd, arg);
	default:
		return -ENOTTY;
	}
}

static int cmabuf_open(struct inode *inode, struct file *file)
{
	struct miscdevice *misc = file->private_data;
	struct cmabuf_dev *cdev = container_of(misc, struct cmabuf_dev, misc);

	/* Under misc_mtx, which misc_deregister() takes too: @cdev lives. */
	cmabuf_dev_get(cdev);
	file->private_data = cdev;
	return nonseekable_open(inode, file);
}

static int cmabuf_release(struct inode *inode, struct file *file)
{
	struct cmabuf_dev *cdev = file->private_data;

	/* The file's prepared buffers go with it. */
	cmabuf_pool_drop_owner(cdev, file);
	cmabuf_dev_put(cdev);
	return 0;
}

static const struct file_operations cmabuf_fops = {
	.owner = THIS_MODULE,
	.open = cmabuf_open,
	.release = cmabuf_release,
	.unlocked_ioctl = cmabuf_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static const struct attribute_group *cmabuf_misc_groups[] = {
	&cmabuf_area_group,
	&cmabuf_cap_group,
	&cmabuf_pool_group,
	&cmabuf_stat_groups[0],
	&cmabuf_stat_groups[1],
	&cmabuf_stat_groups[2],
	&cmabuf_stat_groups[3],
	&cmabuf_stat_groups[4],
	NULL,
};

static_assert(ARRAY_SIZE(cmabuf_misc_groups) == CMABUF_STAT_DIRS + 4);

/**
 * cmabuf_misc_register() - create /dev/<name> and its sysfs counters
 * @cdev: the instance; its @name, @dev and @cma are set.
 *
 * Return: 0 or the error of misc_register().
 */
int cmabuf_misc_register(struct cmabuf_dev *cdev)
{
	cdev->misc.minor = MISC_DYNAMIC_MINOR;
	cdev->misc.name = cdev->name;
	cdev->misc.fops = &cmabuf_fops;
	cdev->misc.parent = cdev->dev;
	cdev->misc.groups = cmabuf_misc_groups;
	cdev->misc.mode = cmabuf_mode & 0777;

	return misc_register(&cdev->misc);
}

/**
 * cmabuf_misc_deregister() - remove the device node and the counters
 * @cdev: the instance.
 *
 * Files already open keep working on their reference to @cdev.
 */
void cmabuf_misc_deregister(struct cmabuf_dev *cdev)
{
	misc_deregister(&cdev->misc);
}
