// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf: the dma-buf exporter. No path here takes page references: FROZEN
 * and COMPOUND pages have a zero refcount (docs/design.md, "CPU mappings").
 */

#define pr_fmt(fmt) "cmabuf: " fmt

#include <linux/device.h>
#include <linux/dma-buf.h>
#include <linux/dma-direction.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/err.h>
#include <linux/highmem.h>
#include <linux/huge_mm.h>
#include <linux/iosys-map.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>
#include <uapi/linux/dma-buf.h>

#include "cmabuf.h"

/**
 * struct cmabuf_buffer - one exported buffer
 * @cdev: the instance it came from; the buffer holds a reference.
 * @range: its pages and the strategy that must release them.
 * @wc: CPU mappings are write-combined; set before the buffer is handed out.
 * @vmapped: an importer has it vmapped. Protected by the reservation lock.
 * @phys_given: CMABUF_IOC_PHYS handed the address out, its first call
 *	cleaning the clearing's lines: a device may be driven from it.
 * @lock: guards the attachment list and each attachment's mappings.
 * @attachments: &struct cmabuf_attachment list. Protected by @lock.
 */
struct cmabuf_buffer {
	struct cmabuf_dev *cdev;
	struct cmabuf_range range;
	bool wc;
	bool vmapped;
	bool phys_given;
	struct mutex lock;	/* see @attachments */
	struct list_head attachments;
};

/* An importer's view of a buffer; @node and @mappings under buffer->lock. */
struct cmabuf_attachment {
	struct device *dev;
	struct list_head node;
	struct list_head mappings;
};

/* A table per map_dma_buf(), as udmabuf: mapping twice leaks no addresses. */
struct cmabuf_mapping {
	struct sg_table table;
	enum dma_data_direction dir;
	struct list_head node;	/* under buffer->lock */
};

static int cmabuf_dmabuf_attach(struct dma_buf *dmabuf,
				struct dma_buf_attachment *attachment)
{
	struct cmabuf_buffer *buffer = dmabuf->priv;
	struct cmabuf_attachment *a;

	a = kzalloc_obj(*a);
	if (!a)
		return -ENOMEM;
	a->dev = attachment->dev;
	INIT_LIST_HEAD(&a->mappings);
	attachment->priv = a;

	mutex_lock(&buffer->lock);
	list_add(&a->node, &buffer->attachments);
	mutex_unlock(&buffer->lock);
	return 0;
}

static void cmabuf_mapping_free(struct device *dev, struct cmabuf_mapping *m)
{
	dma_unmap_sgtable(dev, &m->table, m->dir, 0);
	sg_free_table(&m->table);
	kfree(m);
}

/* An importer's bug, but its mappings must not outlive the attachment. */
static void cmabuf_dmabuf_detach(struct dma_buf *dmabuf,
				 struct dma_buf_attachment *attachment)
{
	struct cmabuf_buffer *buffer = dmabuf->priv;
	struct cmabuf_attachment *a = attachment->priv;
	struct cmabuf_mapping *m, *next;
	LIST_HEAD(live);

	mutex_lock(&buffer->lock);
	list_del(&a->node);
	list_splice_init(&a->mappings, &live);
	mutex_unlock(&buffer->lock);

	if (!list_empty(&live))
		dev_warn(a->dev, "detached from a cmabuf buffer still mapped; unmapping it\n");
	list_for_each_entry_safe(m, next, &live, node)
		cmabuf_mapping_free(a->dev, m);
	kfree(a);
}

static phys_addr_t cmabuf_buffer_phys(const struct cmabuf_buffer *buffer)
{
	return page_to_phys(buffer->range.page);
}

static u64 cmabuf_buffer_size(const struct cmabuf_buffer *buffer)
{
	return (u64)buffer->range.count << PAGE_SHIFT;
}

/* Limits and mask read at every map: a driver may set them after attach. */
static struct sg_table *cmabuf_dmabuf_map(struct dma_buf_attachment *attachment,
					  enum dma_data_direction dir)
{
	struct cmabuf_buffer *buffer = attachment->dmabuf->priv;
	struct cmabuf_attachment *a = attachment->priv;
	struct cmabuf_sg_limits lim;
	struct cmabuf_mapping *m;
	int ret;

	ret = cmabuf_sg_limits_get(a->dev, &lim);
	if (ret)
		return ERR_PTR(ret);
	if (!cmabuf_dev_reaches(a->dev, cmabuf_buffer_phys(buffer),
				cmabuf_buffer_size(buffer))) {
		cmabuf_stats_unreachable(buffer->cdev, buffer->range.strategy);
		cmabuf_reach_warn(buffer->cdev, a->dev,
				  cmabuf_buffer_phys(buffer),
				  cmabuf_buffer_size(buffer));
		return ERR_PTR(-ERANGE);
	}

	m = kzalloc_obj(*m);
	if (!m)
		return ERR_PTR(-ENOMEM);
	ret = cmabuf_sg_build(&m->table, buffer->range.page,
			      attachment->dmabuf->size, &lim);
	if (ret)
		goto free_mapping;
	ret = dma_map_sgtable(a->dev, &m->table, dir, 0);
	if (ret)
		goto free_table;
	m->dir = dir;

	mutex_lock(&buffer->lock);
	list_add(&m->node, &a->mappings);
	mutex_unlock(&buffer->lock);
	return &m->table;

free_table:
	sg_free_table(&m->table);
free_mapping:
	kfree(m);
	return ERR_PTR(ret);
}

/* Anything but a live mapping of @attachment is refused, not unmapped. */
static void cmabuf_dmabuf_unmap(struct dma_buf_attachment *attachment,
				struct sg_table *table,
				enum dma_data_direction dir)
{
	struct cmabuf_buffer *buffer = attachment->dmabuf->priv;
	struct cmabuf_attachment *a = attachment->priv;
	struct cmabuf_mapping *m, *found = NULL;

	mutex_lock(&buffer->lock);
	list_for_each_entry(m, &a->mappings, node) {
		if (&m->table == table) {
			list_del(&m->node);
			found = m;
			break;
		}
	}
	mutex_unlock(&buffer->lock);

	if (!found) {
		dev_warn(a->dev, "unmapping a table cmabuf did not map for it\n");
		return;
	}
	cmabuf_mapping_free(a->dev, found);
}

static bool cmabuf_buffer_own_sync(struct cmabuf_buffer *buffer, u64 offset,
				   u64 length, enum dma_data_direction dir,
				   unsigned int how)
{
	return cmabuf_own_sync(buffer->cdev, buffer->range.page,
			       cmabuf_buffer_size(buffer), offset, length, dir,
			       how);
}

/*
 * DMA API debugging warns on a range of a buffer one device maps twice: such
 * a buffer is synced whole. Under @buffer->lock.
 */
static bool cmabuf_dmabuf_mapped_twice(struct cmabuf_buffer *buffer)
{
	struct cmabuf_attachment *a, *b;
	struct cmabuf_mapping *m;
	unsigned int n;

	list_for_each_entry(a, &buffer->attachments, node) {
		n = 0;
		list_for_each_entry(b, &buffer->attachments, node) {
			if (b->dev != a->dev)
				continue;
			list_for_each_entry(m, &b->mappings, node)
				if (++n > 1)
					return true;
		}
	}
	return false;
}

/*
 * An importer's vmap dirties the cacheable alias, which no DMA mapping
 * covers: it is cleaned before an invalidate at START could drop the writes.
 */
static void cmabuf_dmabuf_sync(struct cmabuf_buffer *buffer, u64 offset,
			       u64 length, enum dma_data_direction dir,
			       bool for_cpu)
{
	bool clean = for_cpu && !buffer->wc && READ_ONCE(buffer->vmapped);
	struct cmabuf_attachment *a;
	u64 size = cmabuf_buffer_size(buffer);
	struct cmabuf_mapping *m;
	bool mapped = false;

	mutex_lock(&buffer->lock);
	list_for_each_entry(a, &buffer->attachments, node)
		mapped |= !list_empty(&a->mappings);
	if (mapped && (offset || length < size) &&
	    cmabuf_dmabuf_mapped_twice(buffer)) {
		offset = 0;
		length = size;
	}
	if (clean && mapped)
		cmabuf_buffer_own_sync(buffer, offset, length,
				       DMA_BIDIRECTIONAL,
				       CMABUF_OWN_FOR_DEVICE);
	list_for_each_entry(a, &buffer->attachments, node) {
		list_for_each_entry(m, &a->mappings, node)
			cmabuf_sg_sync_range(a->dev, &m->table, m->dir, size,
					     offset, length, for_cpu);
	}
	/* Unmapped, only a device driven from PHYS may reach the buffer. */
	if (mapped || buffer->wc || !READ_ONCE(buffer->phys_given))
		goto unlock;
	if (clean)
		cmabuf_buffer_own_sync(buffer, offset, length,
				       DMA_BIDIRECTIONAL,
				       CMABUF_OWN_FOR_DEVICE |
				       CMABUF_OWN_FOR_CPU);
	else
		cmabuf_buffer_own_sync(buffer, offset, length, dir,
				       for_cpu ? CMABUF_OWN_FOR_CPU :
						 CMABUF_OWN_FOR_DEVICE);
unlock:
	mutex_unlock(&buffer->lock);
}

static int cmabuf_dmabuf_begin_cpu_access(struct dma_buf *dmabuf,
					  enum dma_data_direction dir)
{
	cmabuf_dmabuf_sync(dmabuf->priv, 0, dmabuf->size, dir, true);
	return 0;
}

static int cmabuf_dmabuf_end_cpu_access(struct dma_buf *dmabuf,
					enum dma_data_direction dir)
{
	cmabuf_dmabuf_sync(dmabuf->priv, 0, dmabuf->size, dir, false);
	return 0;
}

#define CMABUF_FAULT_AROUND_PAGES	16
#define CMABUF_FAULT_AROUND_BYTES	(CMABUF_FAULT_AROUND_PAGES * PAGE_SIZE)

static bool cmabuf_vma_pfn(struct vm_area_struct *vma, unsigned long addr,
			   unsigned long *pfn)
{
	struct cmabuf_buffer *buffer = vma->vm_private_data;
	unsigned long pgoff = vma->vm_pgoff +
			      ((addr - vma->vm_start) >> PAGE_SHIFT);

	if (pgoff >= buffer->range.count)
		return false;
	*pfn = page_to_pfn(buffer->range.page) + pgoff;
	return true;
}

static vm_fault_t cmabuf_vm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	unsigned long fault = vmf->address & PAGE_MASK;
	unsigned long window = ALIGN_DOWN(fault, CMABUF_FAULT_AROUND_BYTES);
	unsigned long end = min(vma->vm_end,
				window + CMABUF_FAULT_AROUND_BYTES);
	unsigned long addr, pfn;
	vm_fault_t ret;

	if (!cmabuf_vma_pfn(vma, fault, &pfn))
		return VM_FAULT_SIGBUS;
	ret = vmf_insert_pfn(vma, fault, pfn);
	if (ret & VM_FAULT_ERROR)
		return ret;

	/* Aligned: a PTE in the next PMD block trips walk_to_pmd()'s BUG. */
	for (addr = max(vma->vm_start, window); addr < end; addr += PAGE_SIZE) {
		if (addr == fault)
			continue;
		if (!cmabuf_vma_pfn(vma, addr, &pfn) ||
		    vmf_insert_pfn(vma, addr, pfn) != VM_FAULT_NOPAGE)
			break;
	}
	return VM_FAULT_NOPAGE;
}

#if CMABUF_PMD_MAPPINGS
/* PMD_SIZE of pages, not PTRS_PER_PMD (1 where the PMD level is folded). */
static vm_fault_t cmabuf_vm_huge_fault(struct vm_fault *vmf,
				       unsigned int order)
{
	struct vm_area_struct *vma = vmf->vma;
	unsigned long addr = vmf->address & PMD_MASK;
	unsigned long pfn;

	/* mmap() keeps the VMA within the buffer, and so the block. */
	if (order != PMD_SHIFT - PAGE_SHIFT || addr < vma->vm_start ||
	    addr + PMD_SIZE > vma->vm_end)
		return VM_FAULT_FALLBACK;
	if (!cmabuf_vma_pfn(vma, addr, &pfn) ||
	    !IS_ALIGNED(pfn, PMD_SIZE >> PAGE_SHIFT))
		return VM_FAULT_FALLBACK;

	return vmf_insert_pfn_pmd(vmf, CMABUF_PFN(pfn),
				  vmf->flags & FAULT_FLAG_WRITE);
}
#endif

/* The kernel must not touch a WC buffer through its cacheable alias. */
static void *cmabuf_wc_map_page(unsigned long pfn)
{
	struct page *page = pfn_to_page(pfn);

	return vmap(&page, 1, VM_MAP, pgprot_writecombine(PAGE_KERNEL));
}

/* ptrace and /proc/PID/mem, without page references (see the top). */
static int cmabuf_vm_access(struct vm_area_struct *vma, unsigned long addr,
			    void *buf, int len, int write)
{
	struct cmabuf_buffer *buffer = vma->vm_private_data;
	unsigned long pfn, off, n;
	int done = 0;
	void *p;

	if (len <= 0)
		return 0;
	len = min_t(unsigned long, len, vma->vm_end - addr);
	while (done < len && cmabuf_vma_pfn(vma, addr + done, &pfn)) {
		off = offset_in_page(addr + done);
		n = min_t(unsigned long, len - done, PAGE_SIZE - off);
		p = buffer->wc ? cmabuf_wc_map_page(pfn) : kmap_local_pfn(pfn);
		if (!p)
			break;
		if (write)
			memcpy(p + off, buf + done, n);
		else
			memcpy(buf + done, p + off, n);
		if (buffer->wc)
			vunmap(p);
		else
			kunmap_local(p);
		done += n;
	}
	return done ? done : -EIO;
}

static const struct vm_operations_struct cmabuf_vm_ops = {
	.fault = cmabuf_vm_fault,
#if CMABUF_PMD_MAPPINGS
	.huge_fault = cmabuf_vm_huge_fault,
#endif
	.access = cmabuf_vm_access,
};

/* MAP_PRIVATE is refused: copy-on-write of device memory makes no sense. */
static int cmabuf_dmabuf_mmap(struct dma_buf *dmabuf, struct vm_area_struct *vma)
{
	struct cmabuf_buffer *buffer = dmabuf->priv;
	unsigned long pages = buffer->range.count;

	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (vma->vm_pgoff >= pages || vma_pages(vma) > pages - vma->vm_pgoff)
		return -EINVAL;

	vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
	if (buffer->wc)
		vma->vm_page_prot = pgprot_writecombine(vma->vm_page_prot);
	vma->vm_ops = &cmabuf_vm_ops;
	vma->vm_private_data = buffer;
	return 0;
}

#if CMABUF_PLACED_MMAP
/* PMD-aligned buffers then line up with PMD entries. */
static unsigned long
cmabuf_dmabuf_get_unmapped_area(struct dma_buf *dmabuf, unsigned long addr,
				unsigned long len, unsigned long pgoff,
				unsigned long flags)
{
	return thp_get_unmapped_area(dmabuf->file, addr, len, pgoff, flags);
}
#endif

/* vmap_pfn() refuses memory with struct pages; vmap() takes no refs. */
static void *cmabuf_wc_vmap(struct cmabuf_buffer *buffer)
{
	unsigned long pfn = page_to_pfn(buffer->range.page);
	unsigned long i, count = buffer->range.count;
	struct page **pages;
	void *vaddr;

	pages = kvmalloc_array(count, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return NULL;
	for (i = 0; i < count; i++)
		pages[i] = pfn_to_page(pfn + i);
	vaddr = vmap(pages, count, VM_MAP, pgprot_writecombine(PAGE_KERNEL));
	kvfree(pages);
	return vaddr;
}

static int cmabuf_dmabuf_vmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	struct cmabuf_buffer *buffer = dmabuf->priv;
	void *vaddr;

	if (buffer->wc) {
		vaddr = cmabuf_wc_vmap(buffer);
		if (!vaddr)
			return -ENOMEM;
	} else {
		if (PageHighMem(buffer->range.page))
			return -EOPNOTSUPP;
		vaddr = page_address(buffer->range.page);
	}
	iosys_map_set_vaddr(map, vaddr);
	WRITE_ONCE(buffer->vmapped, true);
	return 0;
}

static void cmabuf_dmabuf_vunmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	struct cmabuf_buffer *buffer = dmabuf->priv;

	WRITE_ONCE(buffer->vmapped, false);
	if (buffer->wc)
		vunmap(map->vaddr);
}

static void cmabuf_dmabuf_release(struct dma_buf *dmabuf)
{
	struct cmabuf_buffer *buffer = dmabuf->priv;
	struct cmabuf_dev *cdev = buffer->cdev;

	cmabuf_pages_put(cdev, &buffer->range);
	mutex_destroy(&buffer->lock);
	kfree(buffer);
	cmabuf_dev_put(cdev);
}

static const struct dma_buf_ops cmabuf_dmabuf_ops = {
	.attach = cmabuf_dmabuf_attach,
	.detach = cmabuf_dmabuf_detach,
	.map_dma_buf = cmabuf_dmabuf_map,
	.unmap_dma_buf = cmabuf_dmabuf_unmap,
	.begin_cpu_access = cmabuf_dmabuf_begin_cpu_access,
	.end_cpu_access = cmabuf_dmabuf_end_cpu_access,
	.mmap = cmabuf_dmabuf_mmap,
#if CMABUF_PLACED_MMAP
	.get_unmapped_area = cmabuf_dmabuf_get_unmapped_area,
#endif
	.vmap = cmabuf_dmabuf_vmap,
	.vunmap = cmabuf_dmabuf_vunmap,
	.release = cmabuf_dmabuf_release,
};

static struct dma_buf *cmabuf_dmabuf_export(struct cmabuf_buffer *buffer,
					    u32 fd_flags)
{
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);

	/* The instance's name, so that bufinfo tells instances apart. */
	exp_info.exp_name = buffer->cdev->name;
	exp_info.ops = &cmabuf_dmabuf_ops;
	exp_info.size = buffer->range.count << PAGE_SHIFT;
	exp_info.flags = fd_flags;
	exp_info.priv = buffer;

	return dma_buf_export(&exp_info);
}

/**
 * cmabuf_dmabuf_alloc() - allocate, clear and export one buffer
 * @cdev: the instance; the caller holds a reference.
 * @size: bytes asked for.
 * @align: log2 of the alignment in bytes, 0 for the driver's choice.
 * @strategy: a %CMABUF_STRATEGY_* value.
 * @fd_flags: flags of the dma-buf file (validated by the caller).
 * @owner: the file asking, or NULL (see cmabuf_pages_get()).
 * @privileged: the caller has CAP_SYS_ADMIN (see cmabuf_pages_get()).
 * @strategy_used: out, may be NULL: the strategy that allocated.
 *
 * Return: the dma-buf, without an fd; ERR_PTR() of cmabuf_pages_get()'s
 * errors or -ENOMEM.
 */
struct dma_buf *cmabuf_dmabuf_alloc(struct cmabuf_dev *cdev, u64 size,
				    u32 align, u32 strategy, u32 fd_flags,
				    const void *owner, bool privileged,
				    u32 *strategy_used)
{
	struct cmabuf_buffer *buffer;
	struct dma_buf *dmabuf;
	int ret;

	buffer = kzalloc_obj(*buffer);
	if (!buffer)
		return ERR_PTR(-ENOMEM);
	mutex_init(&buffer->lock);
	INIT_LIST_HEAD(&buffer->attachments);
	buffer->cdev = cdev;

	ret = cmabuf_pages_get(cdev, size, align, strategy, owner, privileged,
			       &buffer->range);
	if (ret)
		goto free_buffer;

	cmabuf_dev_get(cdev);
	dmabuf = cmabuf_dmabuf_export(buffer, fd_flags);
	if (IS_ERR(dmabuf)) {
		ret = PTR_ERR(dmabuf);
		goto put_dev;
	}

	/*
	 * From here the dma-buf owns @buffer, its pages and its reference on
	 * @cdev: dma_buf_put() frees them all through cmabuf_dmabuf_release().
	 */
	cmabuf_pages_commit(cdev, &buffer->range);
	if (strategy_used)
		*strategy_used = buffer->range.strategy;
	return dmabuf;

put_dev:
	cmabuf_dev_put(cdev);
	cmabuf_pages_abandon(cdev, &buffer->range);
free_buffer:
	mutex_destroy(&buffer->lock);
	kfree(buffer);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_dmabuf_alloc);

/* Huge PFN mappings ignore the THP sysfs policy, not a process's THP off. */
u32 cmabuf_dmabuf_mmap_flags(void)
{
	u32 flags = 0;

	if (CMABUF_PMD_MAPPINGS && current->mm &&
	    !cmabuf_mm_thp_disabled(current->mm))
		flags |= CMABUF_INFO_MMAP_PMD;
	if (CMABUF_PLACED_MMAP)
		flags |= CMABUF_INFO_MMAP_PLACED;
	return flags;
}

/* -EINVAL if not ours. The first call cleans the lines the clearing left. */
int cmabuf_dmabuf_phys(struct dma_buf *dmabuf, phys_addr_t *phys)
{
	struct cmabuf_buffer *buffer;

	if (dmabuf->ops != &cmabuf_dmabuf_ops)
		return -EINVAL;

	buffer = dmabuf->priv;
	if (!buffer->wc && !READ_ONCE(buffer->phys_given)) {
		cmabuf_buffer_own_sync(buffer, 0, dmabuf->size, DMA_TO_DEVICE,
				       CMABUF_OWN_FOR_DEVICE);
		WRITE_ONCE(buffer->phys_given, true);
	}
	*phys = page_to_phys(buffer->range.page);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_dmabuf_phys);

/* Before any fd or importer; false where the buffer stays cacheable. */
bool cmabuf_dmabuf_writecombine(struct dma_buf *dmabuf)
{
	struct cmabuf_buffer *buffer = dmabuf->priv;

	buffer->wc = cmabuf_buffer_own_sync(buffer, 0, dmabuf->size,
					    DMA_BIDIRECTIONAL,
					    CMABUF_OWN_FOR_DEVICE |
					    CMABUF_OWN_FOR_CPU);
	return buffer->wc;
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_dmabuf_writecombine);

u32 cmabuf_dmabuf_cache_flags(struct cmabuf_dev *cdev)
{
	phys_addr_t base = 0, end = 0;
	bool syncs;

	if (cdev->area_end) {
		base = PFN_PHYS(cdev->base_pfn);
		end = cdev->area_end;
	}
	down_read(&cdev->dma_lock);
	syncs = cmabuf_dev_syncs(cdev, base, end - base + 1);
	up_read(&cdev->dma_lock);
	return syncs ? CMABUF_INFO_CACHE_SYNC | CMABUF_INFO_WRITECOMBINE : 0;
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_dmabuf_cache_flags);

static_assert(CMABUF_SYNC_VALID_FLAGS ==
	      (DMA_BUF_SYNC_RW | DMA_BUF_SYNC_END));

/* DMA_BUF_IOCTL_SYNC on a range; -EINVAL when not ours, bad @flags or range. */
int cmabuf_dmabuf_sync_range(struct dma_buf *dmabuf, u32 flags, u64 offset,
			     u64 length)
{
	enum dma_data_direction dir;
	bool for_cpu = !(flags & DMA_BUF_SYNC_END);
	long ret;

	if (dmabuf->ops != &cmabuf_dmabuf_ops)
		return -EINVAL;
	if (flags & ~CMABUF_SYNC_VALID_FLAGS || !length ||
	    offset >= dmabuf->size || length > dmabuf->size - offset)
		return -EINVAL;
	switch (flags & DMA_BUF_SYNC_RW) {
	case DMA_BUF_SYNC_READ:
		dir = DMA_FROM_DEVICE;
		break;
	case DMA_BUF_SYNC_WRITE:
		dir = DMA_TO_DEVICE;
		break;
	case DMA_BUF_SYNC_RW:
		dir = DMA_BIDIRECTIONAL;
		break;
	default:
		return -EINVAL;
	}

	if (for_cpu) {
		ret = dma_resv_wait_timeout(dmabuf->resv,
					    dma_resv_usage_rw(dir != DMA_FROM_DEVICE),
					    true, MAX_SCHEDULE_TIMEOUT);
		if (ret < 0)
			return ret;
	}
	cmabuf_dmabuf_sync(dmabuf->priv, offset, length, dir, for_cpu);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_dmabuf_sync_range);

/**
 * cmabuf_dmabuf_page() - first page of a buffer
 * @dmabuf: any dma-buf.
 *
 * Return: the page, or NULL when @dmabuf was not exported by cmabuf.
 */
struct page *cmabuf_dmabuf_page(struct dma_buf *dmabuf)
{
	struct cmabuf_buffer *buffer = dmabuf->priv;

	if (dmabuf->ops != &cmabuf_dmabuf_ops)
		return NULL;
	return buffer->range.page;
}

static u32 cmabuf_dmabuf_io_flags(bool to_buffer)
{
	return to_buffer ? DMA_BUF_SYNC_WRITE : DMA_BUF_SYNC_READ;
}

/**
 * cmabuf_dmabuf_io_begin() - before the kernel moves bytes of a buffer
 * @dmabuf: a cmabuf buffer (cmabuf_dmabuf_page() said so).
 * @offset: first byte of the range.
 * @length: bytes in the range; the range lies within the buffer.
 * @to_buffer: the transfer writes the range; else it reads it.
 *
 * DMA_BUF_SYNC_START for the range, and a write-combined buffer's stale
 * cacheable lines invalidated (docs/direct-io.md, "Caches and fences").
 * Return: 0, or -EINTR or -ERESTARTSYS from the wait for fences.
 */
int cmabuf_dmabuf_io_begin(struct dma_buf *dmabuf, u64 offset, u64 length,
			   bool to_buffer)
{
	struct cmabuf_buffer *buffer = dmabuf->priv;
	int ret;

	ret = cmabuf_dmabuf_sync_range(dmabuf, DMA_BUF_SYNC_START |
				       cmabuf_dmabuf_io_flags(to_buffer),
				       offset, length);
	if (ret)
		return ret;
	if (buffer->wc)
		cmabuf_buffer_own_sync(buffer, offset, length,
				       DMA_BIDIRECTIONAL, CMABUF_OWN_FOR_CPU);
	return 0;
}

/**
 * cmabuf_dmabuf_io_end() - after the kernel wrote bytes into a buffer
 * @dmabuf: the buffer of cmabuf_dmabuf_io_begin().
 * @offset: first byte of the range.
 * @length: bytes in the range.
 *
 * DMA_BUF_SYNC_END with DMA_BUF_SYNC_WRITE, even after O_DIRECT (the CPU
 * may have written a hole's zeros); a write-combined buffer's alias is
 * cleaned and invalidated first.
 */
void cmabuf_dmabuf_io_end(struct dma_buf *dmabuf, u64 offset, u64 length)
{
	struct cmabuf_buffer *buffer = dmabuf->priv;

	if (buffer->wc)
		cmabuf_buffer_own_sync(buffer, offset, length,
				       DMA_BIDIRECTIONAL,
				       CMABUF_OWN_FOR_DEVICE |
				       CMABUF_OWN_FOR_CPU);
	cmabuf_dmabuf_sync_range(dmabuf, DMA_BUF_SYNC_END |
				 cmabuf_dmabuf_io_flags(true), offset, length);
}
