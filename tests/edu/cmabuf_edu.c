// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf_edu: a test driver that moves dma-buf data with QEMU's edu PCI
 * device (QEMU's docs/specs/edu.rst), a DMA engine that keeps the PCI
 * core's defaults: 64 KiB segments, a 4 GiB boundary (uapi: cmabuf_edu.h).
 *
 * edu drops the address bits above its "dma_mask" property, which the
 * driver cannot read: the dma_bits parameter says it.
 */
#define pr_fmt(fmt) "cmabuf_edu: " fmt

#include <linux/completion.h>
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/iommu.h>
#include <linux/iosys-map.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/swiotlb.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "cmabuf_edu.h"

/* Before 6.2, dma_buf_vmap() takes the lock itself: no _unlocked variant. */
static int cmabuf_edu_vmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
#ifdef CMABUF_HAVE_LOCKED_VMAP
	return dma_buf_vmap(dmabuf, map);
#else
	return dma_buf_vmap_unlocked(dmabuf, map);
#endif
}

static void cmabuf_edu_vunmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
#ifdef CMABUF_HAVE_LOCKED_VMAP
	dma_buf_vunmap(dmabuf, map);
#else
	dma_buf_vunmap_unlocked(dmabuf, map);
#endif
}

/* Kernels without kzalloc_obj() get it from kzalloc(). */
#ifndef kzalloc_obj
#define kzalloc_obj(obj, ...)	kzalloc(sizeof(obj), GFP_KERNEL)
#endif

/* BAR 0 */
#define EDU_REG_ID		0x00	/* low byte 0xed */
#define EDU_REG_IRQ_STATUS	0x24
#define EDU_REG_IRQ_ACK		0x64
#define EDU_REG_DMA_SRC		0x80
#define EDU_REG_DMA_DST		0x88
#define EDU_REG_DMA_COUNT	0x90
#define EDU_REG_DMA_CMD		0x98

#define EDU_ID_MAGIC		0xed
#define EDU_DMA_RUN		BIT(0)
#define EDU_DMA_TO_MEMORY	BIT(1)	/* else from memory to the device */
#define EDU_DMA_IRQ		BIT(2)
#define EDU_IRQ_DMA		0x100

#define EDU_BUF_ADDR		0x40000
#define EDU_BUF_SIZE		4096

#define CMABUF_EDU_DEFAULT_BITS	28

/* A transfer takes edu 100 ms of virtual time; allow for a slow host. */
#define CMABUF_EDU_TIMEOUT_MS	10000

static char *dma_bits = "";
module_param(dma_bits, charp, 0444);
MODULE_PARM_DESC(dma_bits,
		 "DMA mask width of each edu device, as PCI-NAME=BITS,... (default 28)");

/**
 * struct cmabuf_edu - one edu device
 * @ref: held while the device is bound and by every open file.
 * @pdev: the device (a reference is held).
 * @regs: its registers.
 * @misc: /dev/cmabuf_edu-<PCI name>.
 * @name: @misc's name.
 * @dma_bits: width of the DMA mask.
 * @dma_error: 0, or the error of setting that mask: the device is unusable.
 * @flags: %CMABUF_EDU_INFO_IOMMU, %CMABUF_EDU_INFO_BOUNCE.
 * @scratch: a page the device reads from and writes to for the driver.
 * @scratch_dma: its DMA address.
 * @done: completed by the interrupt of a finished transfer.
 * @lock: serialises the ioctls, and so the DMA engine.
 * @gone: the device was unbound. Protected by @lock.
 * @files: &struct cmabuf_edu_file list. Protected by @lock.
 * @transfers: transfers made in the current ioctl. Protected by @lock.
 */
struct cmabuf_edu {
	struct kref ref;
	struct pci_dev *pdev;
	void __iomem *regs;
	struct miscdevice misc;
	char name[32];
	unsigned int dma_bits;
	int dma_error;
	u32 flags;
	void *scratch;
	dma_addr_t scratch_dma;
	struct completion done;
	struct mutex lock;	/* see @gone, @files, @transfers */
	bool gone;
	struct list_head files;
	u32 transfers;
};

/**
 * struct cmabuf_edu_file - one open file of the misc device
 * @edu: the device; the file holds a reference.
 * @node: entry in &cmabuf_edu.files.
 * @holds: its &struct cmabuf_edu_held, by handle.
 */
struct cmabuf_edu_file {
	struct cmabuf_edu *edu;
	struct list_head node;
	struct xarray holds;
};

/**
 * struct cmabuf_edu_held - an attachment and its mappings
 * @dmabuf: the reference taken by dma_buf_get().
 * @attach: the attachment of the edu device.
 * @sgt: the live mappings, NULL where there is none.
 */
struct cmabuf_edu_held {
	struct dma_buf *dmabuf;
	struct dma_buf_attachment *attach;
	struct sg_table *sgt[CMABUF_EDU_MAPS];
};

static struct device *cmabuf_edu_dev(struct cmabuf_edu *edu)
{
	return &edu->pdev->dev;
}

/* Are bytes @offset up to @len of @s all zero? */
static bool cmabuf_edu_zeroed(const void *s, size_t offset, size_t len)
{
	return !memchr_inv((const u8 *)s + offset, 0, len - offset);
}

static irqreturn_t cmabuf_edu_irq(int irq, void *data)
{
	struct cmabuf_edu *edu = data;
	u32 status = readl(edu->regs + EDU_REG_IRQ_STATUS);

	if (!status)
		return IRQ_NONE;
	writel(status, edu->regs + EDU_REG_IRQ_ACK);
	if (status & EDU_IRQ_DMA)
		complete(&edu->done);
	return IRQ_HANDLED;
}

static int cmabuf_edu_transfer(struct cmabuf_edu *edu, dma_addr_t addr,
			       u32 buf_off, u32 len, bool to_memory)
{
	u64 buf = EDU_BUF_ADDR + buf_off;

	reinit_completion(&edu->done);
	writeq(to_memory ? buf : addr, edu->regs + EDU_REG_DMA_SRC);
	writeq(to_memory ? addr : buf, edu->regs + EDU_REG_DMA_DST);
	writeq(len, edu->regs + EDU_REG_DMA_COUNT);
	writeq(EDU_DMA_RUN | EDU_DMA_IRQ | (to_memory ? EDU_DMA_TO_MEMORY : 0),
	       edu->regs + EDU_REG_DMA_CMD);
	if (!wait_for_completion_timeout(&edu->done,
					 msecs_to_jiffies(CMABUF_EDU_TIMEOUT_MS))) {
		dev_err(cmabuf_edu_dev(edu), "a DMA of %u bytes did not finish\n",
			len);
		return -ETIMEDOUT;
	}
	edu->transfers++;
	return 0;
}

/* One transfer per DMA segment of @sgt the range touches; @addr of @off. */
static int cmabuf_edu_move(struct cmabuf_edu *edu, struct sg_table *sgt,
			   u64 off, u32 len, bool to_memory, u64 *addr)
{
	struct scatterlist *sg;
	u64 start = 0, end, n;
	unsigned int i;
	u32 done = 0;
	int ret;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		end = start + sg_dma_len(sg);
		if (off + done < end) {
			n = min_t(u64, len - done, end - (off + done));
			if (!done)
				*addr = sg_dma_address(sg) + off - start;
			ret = cmabuf_edu_transfer(edu, sg_dma_address(sg) +
						  off + done - start, done, n,
						  to_memory);
			if (ret)
				return ret;
			done += n;
			if (done == len)
				return 0;
		}
		start = end;
	}
	return -EINVAL;
}

static void cmabuf_edu_describe(struct cmabuf_edu *edu,
				const struct sg_table *sgt,
				struct cmabuf_edu_map *arg)
{
	struct device *dev = cmabuf_edu_dev(edu);
	u64 boundary = dma_get_seg_boundary(dev);
	unsigned int max = dma_get_max_seg_size(dev);
	struct scatterlist *sg;
	unsigned int i;
	u64 addr, len;

	arg->dma_segments = sgt->nents;
	arg->pages_hidden = !sg_page(sgt->sgl);
	for_each_sgtable_dma_sg(sgt, sg, i) {
		addr = sg_dma_address(sg);
		len = sg_dma_len(sg);
		if (!i)
			arg->dma_addr = addr;
		arg->dma_total += len;
		arg->longest = max_t(u64, arg->longest, len);
		if (len > max || ((addr ^ (addr + len - 1)) & ~boundary))
			arg->violations++;
	}
}

/* Undo what ATTACH and MAP did; @unmap false leaves the mappings live. */
static void cmabuf_edu_drop(struct cmabuf_edu_held *held, bool unmap)
{
	unsigned int i;

	for (i = 0; unmap && i < CMABUF_EDU_MAPS; i++)
		if (held->sgt[i])
			dma_buf_unmap_attachment_unlocked(held->attach,
							  held->sgt[i],
							  DMA_BIDIRECTIONAL);
	dma_buf_detach(held->dmabuf, held->attach);
	dma_buf_put(held->dmabuf);
	kfree(held);
}

static void cmabuf_edu_drop_all(struct cmabuf_edu_file *ef)
{
	struct cmabuf_edu_held *held;
	unsigned long handle;

	xa_for_each(&ef->holds, handle, held) {
		xa_erase(&ef->holds, handle);
		cmabuf_edu_drop(held, true);
	}
}

static bool cmabuf_edu_range_ok(const struct cmabuf_edu_held *held, u64 off,
				u32 len)
{
	return len && len <= CMABUF_EDU_MAX_LEN &&
	       off <= held->dmabuf->size && len <= held->dmabuf->size - off;
}

/* CMABUF_EDU_IOC_INFO. Errors: -ENODEV, -EFAULT. */
static long cmabuf_edu_ioctl_info(struct cmabuf_edu *edu, void __user *uarg)
{
	struct device *dev = cmabuf_edu_dev(edu);
	struct cmabuf_edu_info info = {
		.dma_bits = edu->dma_bits,
		.flags = edu->flags,
		.dma_error = edu->dma_error,
	};
	bool gone;

	mutex_lock(&edu->lock);
	gone = edu->gone;
	if (!gone) {
		info.max_seg_size = dma_get_max_seg_size(dev);
		info.seg_boundary = dma_get_seg_boundary(dev);
		info.max_mapping_size = dma_max_mapping_size(dev);
	}
	mutex_unlock(&edu->lock);
	if (gone)
		return -ENODEV;
	return copy_to_user(uarg, &info, sizeof(info)) ? -EFAULT : 0;
}

/*
 * CMABUF_EDU_IOC_ATTACH. Errors: -EFAULT; -EINVAL for a non-zero output
 * field; -EBADF, -EINVAL from dma_buf_get(); the error of dma_buf_attach();
 * -ENOSPC for too many attachments; -ENOMEM.
 */
static long cmabuf_edu_ioctl_attach(struct cmabuf_edu_file *ef,
				    void __user *uarg)
{
	struct cmabuf_edu_attach arg;
	struct cmabuf_edu_held *held;
	u32 handle;
	int ret;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (!cmabuf_edu_zeroed(&arg, offsetof(typeof(arg), handle),
			       sizeof(arg)))
		return -EINVAL;

	held = kzalloc_obj(*held);
	if (!held)
		return -ENOMEM;
	held->dmabuf = dma_buf_get(arg.fd);
	if (IS_ERR(held->dmabuf)) {
		ret = PTR_ERR(held->dmabuf);
		goto free_held;
	}
	held->attach = dma_buf_attach(held->dmabuf, cmabuf_edu_dev(ef->edu));
	if (IS_ERR(held->attach)) {
		ret = PTR_ERR(held->attach);
		goto put_dmabuf;
	}

	/* From here on the attachment is the file's, until it is dropped. */
	ret = xa_alloc(&ef->holds, &handle, held,
		       XA_LIMIT(1, CMABUF_EDU_MAX_ATTACH), GFP_KERNEL);
	if (ret) {
		ret = ret == -EBUSY ? -ENOSPC : ret;
		goto detach;
	}
	arg.handle = handle;
	arg.size = held->dmabuf->size;
	if (copy_to_user(uarg, &arg, sizeof(arg))) {
		xa_erase(&ef->holds, handle);
		cmabuf_edu_drop(held, true);
		return -EFAULT;
	}
	return 0;

detach:
	dma_buf_detach(held->dmabuf, held->attach);
put_dmabuf:
	dma_buf_put(held->dmabuf);
free_held:
	kfree(held);
	return ret;
}

/*
 * CMABUF_EDU_IOC_MAP. Errors: -EFAULT; -EINVAL for a non-zero output
 * field; -ENOENT for an unknown handle; -EBUSY when every mapping slot is
 * taken; the error of dma_buf_map_attachment().
 */
static long cmabuf_edu_ioctl_map(struct cmabuf_edu_file *ef, void __user *uarg)
{
	struct cmabuf_edu_held *held;
	struct cmabuf_edu_map arg;
	struct sg_table *sgt;
	unsigned int i;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (!cmabuf_edu_zeroed(&arg, offsetof(typeof(arg), map), sizeof(arg)))
		return -EINVAL;
	held = xa_load(&ef->holds, arg.handle);
	if (!held)
		return -ENOENT;
	for (i = 0; i < CMABUF_EDU_MAPS && held->sgt[i]; i++)
		;
	if (i == CMABUF_EDU_MAPS)
		return -EBUSY;

	sgt = dma_buf_map_attachment_unlocked(held->attach, DMA_BIDIRECTIONAL);
	if (IS_ERR(sgt))
		return PTR_ERR(sgt);
	held->sgt[i] = sgt;
	arg.map = i;
	cmabuf_edu_describe(ef->edu, sgt, &arg);
	if (copy_to_user(uarg, &arg, sizeof(arg))) {
		dma_buf_unmap_attachment_unlocked(held->attach, sgt,
						  DMA_BIDIRECTIONAL);
		held->sgt[i] = NULL;
		return -EFAULT;
	}
	return 0;
}

/* CMABUF_EDU_IOC_UNMAP. Errors: -EFAULT; -ENOENT for an unknown mapping. */
static long cmabuf_edu_ioctl_unmap(struct cmabuf_edu_file *ef,
				   void __user *uarg)
{
	struct cmabuf_edu_held *held;
	struct cmabuf_edu_unmap arg;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	held = xa_load(&ef->holds, arg.handle);
	if (!held || arg.map >= CMABUF_EDU_MAPS || !held->sgt[arg.map])
		return -ENOENT;
	dma_buf_unmap_attachment_unlocked(held->attach, held->sgt[arg.map],
					  DMA_BIDIRECTIONAL);
	held->sgt[arg.map] = NULL;
	return 0;
}

/*
 * CMABUF_EDU_IOC_DETACH. Errors: -EFAULT; -EINVAL for an unknown flag;
 * -ENOENT for an unknown handle.
 */
static long cmabuf_edu_ioctl_detach(struct cmabuf_edu_file *ef,
				    void __user *uarg)
{
	struct cmabuf_edu_detach arg;
	struct cmabuf_edu_held *held;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (arg.flags & ~CMABUF_EDU_DETACH_VALID_FLAGS)
		return -EINVAL;
	held = xa_erase(&ef->holds, arg.handle);
	if (!held)
		return -ENOENT;
	cmabuf_edu_drop(held, !(arg.flags & CMABUF_EDU_DETACH_MAPPED));
	return 0;
}

static int cmabuf_edu_dma_valid(const struct cmabuf_edu_dma *arg,
				const struct cmabuf_edu_held *held)
{
	if (arg->dma_addr || arg->transfers || arg->pad ||
	    arg->op >= CMABUF_EDU_DMA_OPS ||
	    !cmabuf_edu_range_ok(held, arg->offset, arg->len))
		return -EINVAL;
	if (arg->op != CMABUF_EDU_DMA_COPY)
		return arg->dst || !arg->data ? -EINVAL : 0;
	if (arg->data || !cmabuf_edu_range_ok(held, arg->dst, arg->len) ||
	    (arg->dst < arg->offset + arg->len &&
	     arg->offset < arg->dst + arg->len))
		return -EINVAL;
	return 0;
}

static int cmabuf_edu_dma_run(struct cmabuf_edu *edu, struct sg_table *sgt,
			      struct cmabuf_edu_dma *arg)
{
	void __user *data = u64_to_user_ptr(arg->data);
	u64 dst_addr;
	int ret;

	switch (arg->op) {
	case CMABUF_EDU_DMA_COPY:
		ret = cmabuf_edu_move(edu, sgt, arg->offset, arg->len, false,
				      &arg->dma_addr);
		if (!ret)
			ret = cmabuf_edu_move(edu, sgt, arg->dst, arg->len, true,
					      &dst_addr);
		return ret;
	case CMABUF_EDU_DMA_READ:
		ret = cmabuf_edu_move(edu, sgt, arg->offset, arg->len, false,
				      &arg->dma_addr);
		if (!ret)
			ret = cmabuf_edu_transfer(edu, edu->scratch_dma, 0,
						  arg->len, true);
		if (!ret && copy_to_user(data, edu->scratch, arg->len))
			ret = -EFAULT;
		return ret;
	default:
		if (copy_from_user(edu->scratch, data, arg->len))
			return -EFAULT;
		ret = cmabuf_edu_transfer(edu, edu->scratch_dma, 0, arg->len,
					  false);
		if (!ret)
			ret = cmabuf_edu_move(edu, sgt, arg->offset, arg->len,
					      true, &arg->dma_addr);
		return ret;
	}
}

/*
 * CMABUF_EDU_IOC_DMA. Errors: -EFAULT; -EINVAL for a bad request;
 * -ENOENT for an unknown handle or mapping; -ETIMEDOUT.
 */
static long cmabuf_edu_ioctl_dma(struct cmabuf_edu_file *ef, void __user *uarg)
{
	struct cmabuf_edu_held *held;
	struct cmabuf_edu_dma arg;
	int ret;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	held = xa_load(&ef->holds, arg.handle);
	if (!held || arg.map >= CMABUF_EDU_MAPS || !held->sgt[arg.map])
		return -ENOENT;
	ret = cmabuf_edu_dma_valid(&arg, held);
	if (ret)
		return ret;

	ef->edu->transfers = 0;
	ret = cmabuf_edu_dma_run(ef->edu, held->sgt[arg.map], &arg);
	if (ret)
		return ret;
	arg.transfers = ef->edu->transfers;
	return copy_to_user(uarg, &arg, sizeof(arg)) ? -EFAULT : 0;
}

static int cmabuf_edu_vread(struct dma_buf *dmabuf, u64 off, void *buf,
			    u32 len)
{
	struct iosys_map map;
	int ret;

	ret = cmabuf_edu_vmap(dmabuf, &map);
	if (ret)
		return ret;
	ret = dma_buf_begin_cpu_access(dmabuf, DMA_FROM_DEVICE);
	if (!ret) {
		iosys_map_memcpy_from(buf, &map, off, len);
		ret = dma_buf_end_cpu_access(dmabuf, DMA_FROM_DEVICE);
	}
	cmabuf_edu_vunmap(dmabuf, &map);
	return ret;
}

/*
 * CMABUF_EDU_IOC_VREAD. Errors: -EFAULT; -EINVAL for a bad range; -ENOENT
 * for an unknown handle; -ENOMEM; the error of dma_buf_vmap() or of the
 * CPU access.
 */
static long cmabuf_edu_ioctl_vread(struct cmabuf_edu_file *ef,
				   void __user *uarg)
{
	struct cmabuf_edu_held *held;
	struct cmabuf_edu_vread arg;
	void *buf;
	int ret;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	held = xa_load(&ef->holds, arg.handle);
	if (!held)
		return -ENOENT;
	if (!cmabuf_edu_range_ok(held, arg.offset, arg.len))
		return -EINVAL;

	buf = kmalloc(arg.len, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = cmabuf_edu_vread(held->dmabuf, arg.offset, buf, arg.len);
	if (!ret && copy_to_user(u64_to_user_ptr(arg.data), buf, arg.len))
		ret = -EFAULT;
	kfree(buf);
	return ret;
}

static long cmabuf_edu_locked(struct cmabuf_edu_file *ef, void __user *uarg,
			      long (*handler)(struct cmabuf_edu_file *ef,
					      void __user *uarg))
{
	struct cmabuf_edu *edu = ef->edu;
	long ret;

	mutex_lock(&edu->lock);
	if (edu->gone)
		ret = -ENODEV;
	else if (edu->dma_error)
		ret = edu->dma_error;
	else
		ret = handler(ef, uarg);
	mutex_unlock(&edu->lock);
	return ret;
}

static long cmabuf_edu_ioctl(struct file *file, unsigned int cmd,
			     unsigned long arg)
{
	struct cmabuf_edu_file *ef = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case CMABUF_EDU_IOC_INFO:
		return cmabuf_edu_ioctl_info(ef->edu, uarg);
	case CMABUF_EDU_IOC_ATTACH:
		return cmabuf_edu_locked(ef, uarg, cmabuf_edu_ioctl_attach);
	case CMABUF_EDU_IOC_MAP:
		return cmabuf_edu_locked(ef, uarg, cmabuf_edu_ioctl_map);
	case CMABUF_EDU_IOC_UNMAP:
		return cmabuf_edu_locked(ef, uarg, cmabuf_edu_ioctl_unmap);
	case CMABUF_EDU_IOC_DETACH:
		return cmabuf_edu_locked(ef, uarg, cmabuf_edu_ioctl_detach);
	case CMABUF_EDU_IOC_DMA:
		return cmabuf_edu_locked(ef, uarg, cmabuf_edu_ioctl_dma);
	case CMABUF_EDU_IOC_VREAD:
		return cmabuf_edu_locked(ef, uarg, cmabuf_edu_ioctl_vread);
	default:
		return -ENOTTY;
	}
}

static void cmabuf_edu_free(struct kref *ref)
{
	struct cmabuf_edu *edu = container_of(ref, struct cmabuf_edu, ref);

	pci_dev_put(edu->pdev);
	mutex_destroy(&edu->lock);
	kfree(edu);
}

/* misc_open() found the device under misc_mtx, which unbinding takes too. */
static int cmabuf_edu_open(struct inode *inode, struct file *file)
{
	struct cmabuf_edu *edu = container_of(file->private_data,
					      struct cmabuf_edu, misc);
	struct cmabuf_edu_file *ef;

	ef = kzalloc_obj(*ef);
	if (!ef)
		return -ENOMEM;
	ef->edu = edu;
	xa_init_flags(&ef->holds, XA_FLAGS_ALLOC1);

	mutex_lock(&edu->lock);
	kref_get(&edu->ref);
	list_add(&ef->node, &edu->files);
	mutex_unlock(&edu->lock);
	file->private_data = ef;
	return nonseekable_open(inode, file);
}

static int cmabuf_edu_release(struct inode *inode, struct file *file)
{
	struct cmabuf_edu_file *ef = file->private_data;
	struct cmabuf_edu *edu = ef->edu;

	mutex_lock(&edu->lock);
	cmabuf_edu_drop_all(ef);
	list_del(&ef->node);
	mutex_unlock(&edu->lock);
	xa_destroy(&ef->holds);
	kfree(ef);
	kref_put(&edu->ref, cmabuf_edu_free);
	return 0;
}

static const struct file_operations cmabuf_edu_fops = {
	.owner = THIS_MODULE,
	.open = cmabuf_edu_open,
	.release = cmabuf_edu_release,
	.unlocked_ioctl = cmabuf_edu_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static int cmabuf_edu_bits(const char *name, unsigned int *bits)
{
	size_t len = strlen(name);
	const char *p = dma_bits;

	*bits = CMABUF_EDU_DEFAULT_BITS;
	while (p && *p) {
		if (!strncmp(p, name, len) && p[len] == '=') {
			if (sscanf(p + len + 1, "%u", bits) != 1 || !*bits ||
			    *bits > 64)
				return -EINVAL;
			return 0;
		}
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return 0;
}

/* A refused mask leaves the device bound, so that userspace sees why. */
static int cmabuf_edu_dma_setup(struct cmabuf_edu *edu)
{
	struct device *dev = cmabuf_edu_dev(edu);
	struct iommu_domain *domain;
	int ret;

	ret = cmabuf_edu_bits(pci_name(edu->pdev), &edu->dma_bits);
	if (ret)
		return dev_err_probe(dev, ret, "bad dma_bits for this device\n");

	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(edu->dma_bits));
	if (ret) {
		dev_warn(dev, "%u-bit DMA mask refused (%d): device unusable\n",
			 edu->dma_bits, ret);
		edu->dma_error = ret;
		return 0;
	}

	domain = iommu_get_domain_for_dev(dev);
	if (domain && (domain->type & __IOMMU_DOMAIN_DMA_API))
		edu->flags |= CMABUF_EDU_INFO_IOMMU;
	if (is_swiotlb_force_bounce(dev))
		edu->flags |= CMABUF_EDU_INFO_BOUNCE;

	edu->scratch = dma_alloc_coherent(dev, EDU_BUF_SIZE, &edu->scratch_dma,
					  GFP_KERNEL);
	return edu->scratch ? 0 : -ENOMEM;
}

static void cmabuf_edu_dma_teardown(struct cmabuf_edu *edu)
{
	if (edu->scratch)
		dma_free_coherent(cmabuf_edu_dev(edu), EDU_BUF_SIZE,
				  edu->scratch, edu->scratch_dma);
}

static int cmabuf_edu_map_regs(struct cmabuf_edu *edu)
{
	struct pci_dev *pdev = edu->pdev;
	int ret;

	ret = pci_enable_device(pdev);
	if (ret)
		return ret;
	ret = pci_request_region(pdev, 0, KBUILD_MODNAME);
	if (ret)
		goto disable_device;
	edu->regs = pci_iomap(pdev, 0, 0);
	if (!edu->regs) {
		ret = -ENOMEM;
		goto release_region;
	}
	if ((readl(edu->regs + EDU_REG_ID) & 0xff) != EDU_ID_MAGIC) {
		ret = -ENODEV;
		goto unmap_regs;
	}
	pci_set_master(pdev);
	return 0;

unmap_regs:
	pci_iounmap(pdev, edu->regs);
release_region:
	pci_release_region(pdev, 0);
disable_device:
	pci_disable_device(pdev);
	return ret;
}

static void cmabuf_edu_unmap_regs(struct cmabuf_edu *edu)
{
	pci_clear_master(edu->pdev);
	pci_iounmap(edu->pdev, edu->regs);
	pci_release_region(edu->pdev, 0);
	pci_disable_device(edu->pdev);
}

static int cmabuf_edu_irq_setup(struct cmabuf_edu *edu)
{
	struct pci_dev *pdev = edu->pdev;
	int ret;

	/* Nothing from an earlier binding may be pending. */
	writel(~0U, edu->regs + EDU_REG_IRQ_ACK);
	ret = pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_ALL_TYPES);
	if (ret < 0)
		return ret;
	ret = request_irq(pci_irq_vector(pdev, 0), cmabuf_edu_irq, IRQF_SHARED,
			  edu->name, edu);
	if (ret)
		pci_free_irq_vectors(pdev);
	return ret;
}

static void cmabuf_edu_irq_teardown(struct cmabuf_edu *edu)
{
	free_irq(pci_irq_vector(edu->pdev, 0), edu);
	pci_free_irq_vectors(edu->pdev);
}

static int cmabuf_edu_probe(struct pci_dev *pdev,
			    const struct pci_device_id *id)
{
	struct cmabuf_edu *edu;
	int ret;

	edu = kzalloc_obj(*edu);
	if (!edu)
		return -ENOMEM;
	kref_init(&edu->ref);
	mutex_init(&edu->lock);
	init_completion(&edu->done);
	INIT_LIST_HEAD(&edu->files);
	edu->pdev = pci_dev_get(pdev);
	snprintf(edu->name, sizeof(edu->name), "cmabuf_edu-%s", pci_name(pdev));

	ret = cmabuf_edu_map_regs(edu);
	if (ret)
		goto put_edu;
	ret = cmabuf_edu_dma_setup(edu);
	if (ret)
		goto unmap_regs;
	ret = cmabuf_edu_irq_setup(edu);
	if (ret)
		goto dma_teardown;

	edu->misc.minor = MISC_DYNAMIC_MINOR;
	edu->misc.name = edu->name;
	edu->misc.fops = &cmabuf_edu_fops;
	edu->misc.parent = &pdev->dev;
	edu->misc.mode = 0600;
	ret = misc_register(&edu->misc);
	if (ret)
		goto irq_teardown;
	pci_set_drvdata(pdev, edu);
	return 0;

irq_teardown:
	cmabuf_edu_irq_teardown(edu);
dma_teardown:
	cmabuf_edu_dma_teardown(edu);
unmap_regs:
	cmabuf_edu_unmap_regs(edu);
put_edu:
	kref_put(&edu->ref, cmabuf_edu_free);
	return ret;
}

/* Files may stay open with buffers mapped: they get -ENODEV from now on. */
static void cmabuf_edu_remove(struct pci_dev *pdev)
{
	struct cmabuf_edu *edu = pci_get_drvdata(pdev);
	struct cmabuf_edu_file *ef;

	misc_deregister(&edu->misc);
	mutex_lock(&edu->lock);
	edu->gone = true;
	list_for_each_entry(ef, &edu->files, node)
		cmabuf_edu_drop_all(ef);
	mutex_unlock(&edu->lock);

	cmabuf_edu_irq_teardown(edu);
	cmabuf_edu_dma_teardown(edu);
	cmabuf_edu_unmap_regs(edu);
	kref_put(&edu->ref, cmabuf_edu_free);
}

static const struct pci_device_id cmabuf_edu_ids[] = {
	{ PCI_DEVICE(0x1234, 0x11e8) },
	{ }
};
MODULE_DEVICE_TABLE(pci, cmabuf_edu_ids);

static struct pci_driver cmabuf_edu_driver = {
	.name = "cmabuf_edu",
	.id_table = cmabuf_edu_ids,
	.probe = cmabuf_edu_probe,
	.remove = cmabuf_edu_remove,
};
module_pci_driver(cmabuf_edu_driver);

MODULE_DESCRIPTION("cmabuf test importer: QEMU's edu device moves dma-buf data by DMA");
MODULE_LICENSE("GPL");
/* MODULE_IMPORT_NS() changed form in 6.13; both expand to this. */
MODULE_INFO(import_ns, "DMA_BUF");
