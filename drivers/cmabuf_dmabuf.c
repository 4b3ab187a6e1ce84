// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf: the dma-buf exporter
 *
 * A buffer is one physically contiguous range, so every view of it is
 * trivial: one scatterlist entry per mapping unless the importer's limits
 * cut it (cmabuf_sg.c), the linear-map address for vmap, PFN mappings
 * built by faults for mmap. Its metadata is O(1) whatever its size.
 * FROZEN and COMPOUND pages have a zero refcount, which is why no path
 * here takes page references: mmap maps PFNs, vmap uses the linear map
 * (or, for a write-combined buffer, vmap(), which takes none either).
 *
 * CPU access is synced through every importer's mapping, or, while there is
 * none, through the instance's own device (DOC: CPU access in the uapi
 * header): on a non-coherent SoC that is what maintains the CPU caches for
 * a device driven from CMABUF_IOC_PHYS. The instance's device also cleans
 * what an importer's vmap wrote before any invalidate, and (cmabuf_zero.c)
 * every buffer's cleared lines before it is handed out.
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
 * @wc: CPU mappings are write-combined; set before the buffer is handed
 *	out, never changed after.
 * @vmapped: an importer has the buffer vmapped; set and cleared by the
 *	dma-buf core's first vmap and last vunmap, under the reservation lock.
 * @phys_cleaned: the clearing's lines were cleaned at the first PHYS.
 * @lock: guards the attachment list and each attachment's mappings.
 * @attachments: &struct cmabuf_attachment list. Protected by @lock.
 */
struct cmabuf_buffer {
	struct cmabuf_dev *cdev;
	struct cmabuf_range range;
	bool wc;
	bool vmapped;
	bool phys_cleaned;
	struct mutex lock;	/* see @attachments */
	struct list_head attachments;
};

/**
 * struct cmabuf_attachment - one importer's view of a buffer
 * @dev: the importing device.
 * @node: entry in &cmabuf_buffer.attachments. Protected by
 *	&cmabuf_buffer.lock.
 * @mappings: its live &struct cmabuf_mapping. Protected by
 *	&cmabuf_buffer.lock.
 */
struct cmabuf_attachment {
	struct device *dev;
	struct list_head node;
	struct list_head mappings;
};

/**
 * struct cmabuf_mapping - one map_dma_buf() of an attachment
 * @table: the buffer, cut to the device's limits, DMA-mapped.
 * @dir: direction of the mapping.
 * @node: entry in &cmabuf_attachment.mappings. Protected by
 *	&cmabuf_buffer.lock.
 *
 * Each call gets a table of its own, so that mapping an attachment twice
 * makes two mappings that are each unmapped, as udmabuf does: reusing one
 * table would overwrite, and so leak, the first mapping's DMA addresses.
 */
struct cmabuf_mapping {
	struct sg_table table;
	enum dma_data_direction dir;
	struct list_head node;
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

/*
 * An importer that detaches with mappings still live has a bug, but its
 * mappings must not outlive the attachment: they are unmapped here.
 */
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

/*
 * The limits are read at every map, not at attach: a driver may set them
 * after attaching, and an importer that never maps needs none. So is the
 * DMA mask: a device whose direct mapping does not reach the buffer is
 * refused (DOC: DMA mask), since swiotlb would bounce, or fail, every
 * mapping of a buffer that its user wanted contiguous.
 */
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

/*
 * @table must be a live mapping of @attachment: anything else is refused
 * with a message rather than unmapped. The direction is the mapping's own,
 * which the DMA API requires.
 */
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

/*
 * Sync [@offset, @offset + @length) of @buffer through the instance's own
 * device (cmabuf_own_sync()). Return: true when the device did it.
 */
static bool cmabuf_buffer_own_sync(struct cmabuf_buffer *buffer, u64 offset,
				   u64 length, enum dma_data_direction dir,
				   unsigned int how)
{
	return cmabuf_own_sync(buffer->cdev, buffer->range.page,
			       cmabuf_buffer_size(buffer), offset, length, dir,
			       how);
}

/*
 * CPU access brackets sync every live mapping, or the range of it. They
 * use the direction each was mapped with: that is what the device may
 * have done to the memory, and the DMA API wants syncs to match the
 * mapping. Under swiotlb these are the copies between the buffer and its
 * bounce buffers. With no mapping live, the instance's own device syncs
 * in the direction of the access; a write-combined buffer has no cache
 * lines of the CPU's mappings to maintain.
 *
 * An importer that vmaps the buffer (vb2-vmalloc: a capture driver whose
 * CPU writes the frames) dirties the cacheable linear alias, which no
 * DMA mapping covers: at START, the invalidates (of an importer's
 * mapping for the CPU, such as a DRM PRIME import mapped bidirectionally,
 * or of the instance's own) would throw those writes away. The instance's
 * device cleans them first, whether or not an importer has a mapping.
 */
static void cmabuf_dmabuf_sync(struct cmabuf_buffer *buffer, u64 offset,
			       u64 length, enum dma_data_direction dir,
			       bool for_cpu)
{
	bool clean = for_cpu && !buffer->wc && READ_ONCE(buffer->vmapped);
	struct cmabuf_attachment *a;
	struct cmabuf_mapping *m;
	bool mapped = false;

	mutex_lock(&buffer->lock);
	list_for_each_entry(a, &buffer->attachments, node)
		mapped |= !list_empty(&a->mappings);
	if (clean && mapped)
		cmabuf_buffer_own_sync(buffer, offset, length,
				       DMA_BIDIRECTIONAL,
				       CMABUF_OWN_FOR_DEVICE);
	list_for_each_entry(a, &buffer->attachments, node) {
		list_for_each_entry(m, &a->mappings, node)
			cmabuf_sg_sync_range(a->dev, &m->table, m->dir,
					     cmabuf_buffer_size(buffer), offset,
					     length, for_cpu);
	}
	if (mapped || buffer->wc)
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

/*
 * CPU mappings are built by faults, not at mmap() time: a mapping costs
 * nothing until it is used, and a PMD-aligned stretch costs one fault.
 * Where the kernel maps PFNs with PMDs (THP on arm64 and x86), a fault
 * whose PMD block lies within the mapping and lines up with the buffer
 * maps the whole block; elsewhere one fault maps the aligned window of
 * %CMABUF_FAULT_AROUND_PAGES pages around it, as the core's fault-around
 * does for files.
 */
#define CMABUF_FAULT_AROUND_PAGES	16
#define CMABUF_FAULT_AROUND_BYTES	(CMABUF_FAULT_AROUND_PAGES * PAGE_SIZE)

/* The page frame behind user address @addr of @vma; false past the end. */
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

	/*
	 * The rest of the window; mapped entries are left as they are. An
	 * aligned window never reaches into the next PMD block, which a PMD
	 * may map already: no PTE may go there (walk_to_pmd() BUGs on it).
	 */
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
/*
 * The whole PMD block, if it lies within the mapping and the buffer's
 * pages there start on a PMD boundary. That is PMD_SIZE worth of pages,
 * not PTRS_PER_PMD, which counts a table's entries and is 1 where the PMD
 * level is folded (64 KiB pages with 42-bit addresses).
 */
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

/*
 * A write-combined mapping of one page, for the kernel to access a
 * write-combined buffer as its CPU mappings do, never through the
 * cacheable alias.
 */
static void *cmabuf_wc_map_page(unsigned long pfn)
{
	struct page *page = pfn_to_page(pfn);

	return vmap(&page, 1, VM_MAP, pgprot_writecombine(PAGE_KERNEL));
}

/*
 * ptrace, gdb and /proc/PID/mem: copy through the linear map (or a
 * temporary mapping of highmem), a page at a time; for a write-combined
 * buffer through a write-combined mapping of the page. No page reference
 * is taken: FROZEN and COMPOUND pages have none to take, and the buffer
 * outlives the VMA.
 */
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

/*
 * MAP_SHARED always sets VM_MAYSHARE (VM_SHARED only when the fd is
 * writable); MAP_PRIVATE sets neither and is refused, since private
 * copy-on-write pages of device memory make no sense. The flags are those
 * remap_pfn_range() would set: no struct page is ever looked at, which
 * FROZEN and COMPOUND pages, with their zero refcount, rely on.
 */
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
/*
 * thp_get_unmapped_area() puts the address at the same offset into a PMD
 * as the file offset. Buffers of a PMD or more start on a PMD boundary
 * (cmabuf_plan_pmd()), so that lines their pages up too; the address
 * tells nothing of the physical one, which CMABUF_IOC_PHYS keeps behind
 * CAP_SYS_RAWIO.
 */
static unsigned long
cmabuf_dmabuf_get_unmapped_area(struct dma_buf *dmabuf, unsigned long addr,
				unsigned long len, unsigned long pgoff,
				unsigned long flags)
{
	return thp_get_unmapped_area(dmabuf->file, addr, len, pgoff, flags);
}
#endif

/*
 * A write-combined buffer gets a mapping of its own, write-combined:
 * vmap() of its pages, which takes no reference on them. vmap_pfn() would
 * refuse them (it maps memory without struct pages only). The page array
 * is needed only while the mapping is built.
 */
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

/*
 * Otherwise the linear map already covers the range: nothing to build or
 * undo. The dma-buf core counts vmaps and calls these once per first user.
 */
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

	/*
	 * exp_info.owner is THIS_MODULE: every buffer pins the module. The
	 * exporter is named after the instance ("cmabuf-general"), so that
	 * bufinfo and fdinfo tell instances apart; the name lives as long as
	 * the instance, which the buffer holds until its release.
	 */
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
 * @privileged: the caller has CAP_SYS_ADMIN: the buffer is not held to the
 *	instance's cap (see cmabuf_pages_get()).
 * @strategy_used: out, may be NULL: the strategy that allocated.
 *
 * No file descriptor is created: the caller installs one.
 *
 * Return: the dma-buf, or ERR_PTR() of an error of cmabuf_pages_get() or
 * -ENOMEM.
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
	 * From here on the dma-buf owns @buffer, its pages and its reference
	 * on @cdev: dma_buf_put() frees all of them through
	 * cmabuf_dmabuf_release().
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

/**
 * cmabuf_dmabuf_mmap_flags() - how CPU mappings of the caller are built
 *
 * PFN mappings with a huge_fault handler get it whatever the THP sysfs
 * policy says (mm/huge_memory.c: "Huge PFN mappings are uncompactable"),
 * but not in a process that turned THP off.
 *
 * Return: %CMABUF_INFO_MMAP_PMD and %CMABUF_INFO_MMAP_PLACED, as this
 * kernel, this build and the calling process allow.
 */
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

/**
 * cmabuf_dmabuf_phys() - physical address of a buffer
 * @dmabuf: any dma-buf.
 * @phys: out: address of its first byte.
 *
 * A buffer is cleared through the CPU's cacheable linear map, and an
 * importer's mapping cleans those lines; a device driven through the
 * address has no mapping, so the first PHYS of a buffer cleans them
 * through the instance's device where it is not coherent. Later CPU
 * writes are the caller's to bracket (DMA_BUF_IOCTL_SYNC).
 *
 * Return: 0, or -EINVAL when @dmabuf was not exported by cmabuf.
 */
int cmabuf_dmabuf_phys(struct dma_buf *dmabuf, phys_addr_t *phys)
{
	struct cmabuf_buffer *buffer;

	if (dmabuf->ops != &cmabuf_dmabuf_ops)
		return -EINVAL;

	buffer = dmabuf->priv;
	/* A write-combined buffer was cleaned before it was handed out. */
	if (!buffer->wc && !READ_ONCE(buffer->phys_cleaned)) {
		cmabuf_buffer_own_sync(buffer, 0, dmabuf->size, DMA_TO_DEVICE,
				       CMABUF_OWN_FOR_DEVICE);
		WRITE_ONCE(buffer->phys_cleaned, true);
	}
	*phys = page_to_phys(buffer->range.page);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_dmabuf_phys);

/**
 * cmabuf_dmabuf_writecombine() - make a new buffer's CPU mappings WC
 * @dmabuf: a buffer of cmabuf_dmabuf_alloc() not handed out yet: no file
 *	descriptor, no importer, no mapping.
 *
 * As the DMA API does for memory it remaps for a non-coherent device, the
 * buffer's cacheable alias in the linear map is cleaned (the zeros the
 * clearing left in the caches reach memory) and invalidated (no line is
 * left to be written back over what the write-combined mappings write),
 * here through the instance's own device. Where that device is coherent,
 * the DMA API gives cacheable mappings and does no maintenance, and so
 * does cmabuf: the buffer stays cacheable. Where its mapping would bounce,
 * nothing can be maintained, and the buffer stays cacheable too.
 *
 * Return: true when the buffer's CPU mappings are write-combined.
 */
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

/**
 * cmabuf_dmabuf_cache_flags() - what an instance does for the CPU caches
 * @cdev: the instance.
 *
 * Return: %CMABUF_INFO_CACHE_SYNC and %CMABUF_INFO_WRITECOMBINE where its
 * device maintains the caches of its area's buffers (of any buffer, where
 * the area's place is not known), else 0.
 */
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

/* DMA_BUF_SYNC_* are what &cmabuf_sync.flags takes. */
static_assert(CMABUF_SYNC_VALID_FLAGS ==
	      (DMA_BUF_SYNC_RW | DMA_BUF_SYNC_END));

/**
 * cmabuf_dmabuf_sync_range() - sync part of a buffer (CMABUF_IOC_SYNC)
 * @dmabuf: any dma-buf.
 * @flags: DMA_BUF_SYNC_* as DMA_BUF_IOCTL_SYNC takes them.
 * @offset: first byte of the range.
 * @length: bytes in the range.
 *
 * As DMA_BUF_IOCTL_SYNC does for the whole buffer, waiting first, at
 * DMA_BUF_SYNC_START, for the fences the CPU's access conflicts with.
 *
 * Return: 0; -EINVAL when @dmabuf is not cmabuf's, for bad @flags or a
 * range not within the buffer; -EINTR or -ERESTARTSYS from the wait.
 */
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

/* The CPU access a transfer is: it writes the buffer, or reads it. */
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
 * A transfer by the kernel (a device's DMA for a file opened O_DIRECT,
 * a CPU copy through the linear map otherwise) is CPU access in dma-buf
 * terms: what DMA_BUF_SYNC_START does for the range (the fences, the
 * importers' mappings, or the instance's device). A write-combined
 * buffer's cacheable alias may also hold lines older than what its
 * mappings wrote to memory: they are invalidated, so that neither a copy
 * nor a device that snoops the caches reads them.
 *
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
 * What DMA_BUF_SYNC_END (with DMA_BUF_SYNC_WRITE) does for the range, so
 * that the importers' devices and a device driven from CMABUF_IOC_PHYS
 * see the bytes: even with O_DIRECT the CPU may have written some (the
 * zeros of a hole, a file system that fell back to the page cache). A
 * copy into a write-combined buffer went through its cacheable alias:
 * those lines are cleaned to memory, where its mappings read, and
 * invalidated. A transfer out of a buffer changes nothing in it and needs
 * nothing after.
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
