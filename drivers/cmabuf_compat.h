/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmabuf: what differs between the kernels cmabuf builds for
 *
 * Kbuild finds what the kernel exports in its Module.symvers and headers,
 * never from the version number:
 *   CMABUF_HAVE_CMA_ALLOC    cma_alloc(), cma_release(): LEGACY
 *   CMABUF_HAVE_CMA_NAME     cma_get_name()
 *   CMABUF_HAVE_DEFAULT_AREA dev_get_cma_area() or the variable it reads
 *   CMABUF_HAVE_DMA_PAGES    dma_alloc_pages(), dma_free_pages(): DMA
 *   CMABUF_HAVE_FROZEN       cma_alloc_frozen*(), cma_release_frozen()
 *   CMABUF_HAVE_FROZEN_NOINIT  cma_alloc_frozen*_noinit()
 *   CMABUF_HAVE_AREA_STATS   cma_get_size(), cma_get_available_pages()
 *   CMABUF_HAVE_HEAP         dma_heap_add()
 *   CMABUF_HAVE_AREA_LIST    dma_contiguous_get_area_by_idx()
 *   CMABUF_HAVE_FD_INSTALL   dma_buf_fd_install()
 *   CMABUF_HAVE_DMABUF_UNMAPPED_AREA  dma_buf_ops.get_unmapped_area
 *   CMABUF_HAVE_PFN_T        the PFN fault helpers take a pfn_t
 *   CMABUF_HAVE_MEMCG        obj_cgroup_charge() and co
 *   CMABUF_HAVE_SHRINKER_ALLOC  shrinker_alloc() and co
 *   CMABUF_HAVE_VM_FLAGS_SET vm_flags_set()
 *   CMABUF_HAVE_RECLAIMED_PAGES  mm_account_reclaimed_pages()
 *   CMABUF_HAVE_IOMMU_DMA_H  linux/iommu-dma.h, use_dma_iommu()
 * Every such conditional lives here.
 */
#ifndef _CMABUF_COMPAT_H
#define _CMABUF_COMPAT_H

#include <linux/cma.h>
#include <linux/dma-buf.h>
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/file.h>
#include <linux/highmem.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/shrinker.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/swap.h>

#ifdef CMABUF_HAVE_PFN_T
#include <linux/pfn_t.h>
#endif

#ifdef CMABUF_HAVE_IOMMU_DMA_H
#include <linux/iommu-dma.h>
#else
/*
 * Before 6.12, dma-iommu is a device's dma_map_ops like any other
 * (iommu_setup_dma_ops() sets them), which get_dma_ops() finds.
 */
static inline bool use_dma_iommu(struct device *dev)
{
	return false;
}
#endif

/* kzalloc_obj() and co before 7.0 (the 0 gives ## a comma to take away). */
#ifndef kzalloc_obj
#define __cmabuf_gfp(zero, gfp, ...)	((zero) | (gfp))
#define cmabuf_gfp(...)		__cmabuf_gfp(0, ##__VA_ARGS__, GFP_KERNEL)
#define kzalloc_obj(P, ...)	kzalloc(sizeof(P), cmabuf_gfp(__VA_ARGS__))
#define kmalloc_objs(P, COUNT, ...) \
	kmalloc_array(COUNT, sizeof(P), cmabuf_gfp(__VA_ARGS__))
#define kvmalloc_objs(P, COUNT, ...) \
	kvmalloc_array(COUNT, sizeof(P), cmabuf_gfp(__VA_ARGS__))
#endif

/* Before 6.3, a VMA's flags are written directly. */
#ifndef CMABUF_HAVE_VM_FLAGS_SET
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}
#endif

#ifndef CMABUF_HAVE_RECLAIMED_PAGES
static inline void mm_account_reclaimed_pages(unsigned long pages)
{
	if (current->reclaim_state)
		current->reclaim_state->reclaimed_slab += pages;
}
#endif

/*
 * MODULE_IMPORT_NS() takes a string from 6.13 on and a bare word before;
 * both expand to this.
 */
#define CMABUF_IMPORT_NS(ns)	MODULE_INFO(import_ns, ns)

/* Without the exports the strategies using these are not offered. */
#ifdef CMABUF_HAVE_FROZEN
#define CMABUF_FROZEN_API	1
#define CMABUF_MAX_FOLIO_ORDER	MAX_FOLIO_ORDER
#else
#define CMABUF_FROZEN_API	0
#define CMABUF_MAX_FOLIO_ORDER	0
#endif

/* The allocator leaves these ranges uninitialised: cmabuf clears them. */
#ifdef CMABUF_HAVE_FROZEN_NOINIT
#define CMABUF_CLEARS_FROZEN	1
#else
#define CMABUF_CLEARS_FROZEN	0
#endif

/* Without the exports LEGACY is not offered and these are never called. */
#ifdef CMABUF_HAVE_CMA_ALLOC
#define CMABUF_CMA_API	1
#else
#define CMABUF_CMA_API	0
#endif

static inline struct page *cmabuf_cma_alloc(struct cma *cma,
					    unsigned long count,
					    unsigned int align)
{
#ifdef CMABUF_HAVE_CMA_ALLOC
	return cma_alloc(cma, count, align, true);
#else
	return NULL;
#endif
}

static inline bool cmabuf_cma_release(struct cma *cma,
				      const struct page *pages,
				      unsigned long count)
{
#ifdef CMABUF_HAVE_CMA_ALLOC
	return cma_release(cma, pages, count);
#else
	return false;
#endif
}

/* The area's name, NULL when this kernel does not tell. */
static inline const char *cmabuf_cma_name(struct cma *cma)
{
#ifdef CMABUF_HAVE_CMA_NAME
	return cma ? cma_get_name(cma) : NULL;
#else
	return NULL;
#endif
}

/* Before 6.13 only our 6.12 patch exports what dev_get_cma_area() reads. */
static inline struct cma *cmabuf_default_cma(struct device *dev)
{
#ifdef CMABUF_HAVE_DEFAULT_AREA
	return dev_get_cma_area(dev);
#else
	return NULL;
#endif
}

/*
 * The DMA API caps CMA's alignment at CONFIG_CMA_ALIGNMENT. Its fallback to
 * the page allocator is not wanted (cmabuf refuses such pages), hence no
 * retry and no warning. The pages come zeroed.
 */
#ifdef CMABUF_HAVE_DMA_PAGES
#define CMABUF_DMA_API	1
#else
#define CMABUF_DMA_API	0
#endif
#define CMABUF_DMA_ALIGN_ORDER	CONFIG_CMA_ALIGNMENT

static inline struct page *cmabuf_dma_alloc_pages(struct device *dev,
						  size_t size, dma_addr_t *dma)
{
#ifdef CMABUF_HAVE_DMA_PAGES
	return dma_alloc_pages(dev, size, dma, DMA_BIDIRECTIONAL,
			       GFP_KERNEL | __GFP_NOWARN | __GFP_NORETRY);
#else
	return NULL;
#endif
}

static inline void cmabuf_dma_free_pages(struct device *dev, size_t size,
					 struct page *page, dma_addr_t dma)
{
#ifdef CMABUF_HAVE_DMA_PAGES
	dma_free_pages(dev, size, page, dma, DMA_BIDIRECTIONAL);
#endif
}

static inline struct page *cmabuf_cma_alloc_frozen(struct cma *cma,
						   unsigned long count,
						   unsigned int align)
{
#if defined(CMABUF_HAVE_FROZEN_NOINIT)
	return cma_alloc_frozen_noinit(cma, count, align, true);
#elif defined(CMABUF_HAVE_FROZEN)
	return cma_alloc_frozen(cma, count, align, true);
#else
	return NULL;
#endif
}

static inline struct page *cmabuf_cma_alloc_frozen_compound(struct cma *cma,
							    unsigned int order)
{
#if defined(CMABUF_HAVE_FROZEN_NOINIT)
	return cma_alloc_frozen_compound_noinit(cma, order);
#elif defined(CMABUF_HAVE_FROZEN)
	return cma_alloc_frozen_compound(cma, order);
#else
	return NULL;
#endif
}

static inline bool cmabuf_cma_release_frozen(struct cma *cma,
					     const struct page *pages,
					     unsigned long count)
{
#ifdef CMABUF_HAVE_FROZEN
	return cma_release_frozen(cma, pages, count);
#else
	return false;
#endif
}

/* Size of the area in pages, 0 when this kernel does not tell. */
static inline unsigned long cmabuf_area_pages(struct cma *cma)
{
#ifdef CMABUF_HAVE_AREA_STATS
	return cma ? cma_get_size(cma) >> PAGE_SHIFT : 0;
#else
	return 0;
#endif
}

/* Free pages of the area, 0 when this kernel does not tell. */
static inline unsigned long cmabuf_area_free_pages(struct cma *cma)
{
#ifdef CMABUF_HAVE_AREA_STATS
	return cma ? cma_get_available_pages(cma) : 0;
#else
	return 0;
#endif
}

/* The kernel's CMA area number @i, NULL past the last or when unknown. */
static inline struct cma *cmabuf_cma_area(unsigned int i)
{
#ifdef CMABUF_HAVE_AREA_LIST
	return dma_contiguous_get_area_by_idx(i);
#else
	return NULL;
#endif
}

/* dma_buf_fd_install() also emits the dma-buf fd trace event. */
static inline void cmabuf_fd_install(struct dma_buf *dmabuf, int fd)
{
#ifdef CMABUF_HAVE_FD_INSTALL
	dma_buf_fd_install(dmabuf, fd);
#else
	fd_install(fd, dmabuf->file);
#endif
}

/* Before 6.17, the PFN fault helpers took a pfn_t. */
#ifdef CMABUF_HAVE_PFN_T
#define CMABUF_PFN(pfn)	__pfn_to_pfn_t(pfn, PFN_DEV)
#else
#define CMABUF_PFN(pfn)	(pfn)
#endif

/* CPU mappings of buffers can use PMD entries (huge_fault). */
#ifdef CONFIG_ARCH_SUPPORTS_PMD_PFNMAP
#define CMABUF_PMD_MAPPINGS	1
#else
#define CMABUF_PMD_MAPPINGS	0
#endif

/* THP off for @mm: no huge_fault reaches its mappings. */
static inline bool cmabuf_mm_thp_disabled(struct mm_struct *mm)
{
#if defined(MMF_DISABLE_THP_COMPLETELY)
	return mm_flags_test(MMF_DISABLE_THP_COMPLETELY, mm) ||
	       mm_flags_test(MMF_DISABLE_THP_EXCEPT_ADVISED, mm);
#elif defined(MMF_DISABLE_THP)
	return test_bit(MMF_DISABLE_THP, &mm->flags);
#else
	return false;
#endif
}

/* mmap(NULL, ...) of a buffer can be placed for PMD-sized entries. */
#if defined(CMABUF_HAVE_DMABUF_UNMAPPED_AREA) && \
	defined(CONFIG_ARCH_SUPPORTS_PMD_PFNMAP)
#define CMABUF_PLACED_MMAP	1
#else
#define CMABUF_PLACED_MMAP	0
#endif

static inline void cmabuf_clear_pages(unsigned long pfn, unsigned long count)
{
	unsigned long i;

#ifdef PROCESS_PAGES_NON_PREEMPT_BATCH
	if (!PageHighMem(pfn_to_page(pfn))) {
		clear_pages(page_address(pfn_to_page(pfn)), count);
		return;
	}
#endif
	for (i = 0; i < count; i++)
		clear_highpage(pfn_to_page(pfn + i));
}

/*
 * Charged as kernel memory: the frozen API takes no gfp mask for
 * __GFP_ACCOUNT. The memcg byte stock counts in unsigned int, so a charge
 * or uncharge of 4 GiB wraps: go by whole-page chunks far below that.
 */
#define CMABUF_MEMCG_CHUNK	((size_t)SZ_1G)
static_assert(CMABUF_MEMCG_CHUNK + 2 * SZ_64K + 2 * PAGE_SIZE < U32_MAX);

#ifdef CMABUF_HAVE_MEMCG
#define CMABUF_CAN_CHARGE_MEMCG	true

/* The calling task's memory cgroup, with a reference; NULL for none. */
static inline struct obj_cgroup *cmabuf_memcg_get(void)
{
	if (!memcg_kmem_online())
		return NULL;
	return get_obj_cgroup_from_current();
}

static inline void cmabuf_memcg_put(struct obj_cgroup *objcg)
{
	if (objcg)
		obj_cgroup_put(objcg);
}

static inline void cmabuf_memcg_uncharge(struct obj_cgroup *objcg, u64 bytes)
{
	size_t n;

	if (!objcg)
		return;
	for (; bytes; bytes -= n) {
		n = min_t(u64, bytes, CMABUF_MEMCG_CHUNK);
		obj_cgroup_uncharge(objcg, n);
	}
}

/* Return: 0, or -ENOBUFS past the cgroup's memory.max (nothing charged). */
static inline int cmabuf_memcg_charge(struct obj_cgroup *objcg, u64 bytes)
{
	u64 done;
	size_t n;

	if (!objcg)
		return 0;
	for (done = 0; done < bytes; done += n) {
		n = min_t(u64, bytes - done, CMABUF_MEMCG_CHUNK);
		if (obj_cgroup_charge(objcg, GFP_KERNEL | __GFP_RETRY_MAYFAIL,
				      n)) {
			cmabuf_memcg_uncharge(objcg, done);
			return -ENOBUFS;
		}
	}
	return 0;
}
#else
#define CMABUF_CAN_CHARGE_MEMCG	false

static inline struct obj_cgroup *cmabuf_memcg_get(void)
{
	return NULL;
}

static inline void cmabuf_memcg_put(struct obj_cgroup *objcg)
{
}

static inline int cmabuf_memcg_charge(struct obj_cgroup *objcg, u64 bytes)
{
	return 0;
}

static inline void cmabuf_memcg_uncharge(struct obj_cgroup *objcg, u64 bytes)
{
}
#endif

/*
 * A registered shrinker named "cmabuf-@name"; NULL without memory. Before
 * 6.7 it is ours, allocated beside @data.
 */
typedef unsigned long cmabuf_shrink_fn(struct shrinker *shrinker,
				       struct shrink_control *sc);

#ifdef CMABUF_HAVE_SHRINKER_ALLOC
static inline struct shrinker *cmabuf_shrinker_create(const char *name,
						      cmabuf_shrink_fn *count,
						      cmabuf_shrink_fn *scan,
						      void *data)
{
	struct shrinker *shrinker = shrinker_alloc(0, "cmabuf-%s", name);

	if (!shrinker)
		return NULL;
	shrinker->count_objects = count;
	shrinker->scan_objects = scan;
	shrinker->private_data = data;
	shrinker_register(shrinker);
	return shrinker;
}

static inline void *cmabuf_shrinker_data(struct shrinker *shrinker)
{
	return shrinker->private_data;
}

static inline void cmabuf_shrinker_free(struct shrinker *shrinker)
{
	shrinker_free(shrinker);
}
#else
struct cmabuf_shrinker {
	struct shrinker shrinker;
	void *data;
};

static inline struct shrinker *cmabuf_shrinker_create(const char *name,
						      cmabuf_shrink_fn *count,
						      cmabuf_shrink_fn *scan,
						      void *data)
{
	struct cmabuf_shrinker *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	s->shrinker.count_objects = count;
	s->shrinker.scan_objects = scan;
	s->shrinker.seeks = DEFAULT_SEEKS;
	s->data = data;
	if (register_shrinker(&s->shrinker, "cmabuf-%s", name)) {
		kfree(s);
		return NULL;
	}
	return &s->shrinker;
}

static inline void *cmabuf_shrinker_data(struct shrinker *shrinker)
{
	return container_of(shrinker, struct cmabuf_shrinker, shrinker)->data;
}

static inline void cmabuf_shrinker_free(struct shrinker *shrinker)
{
	if (!shrinker)
		return;
	unregister_shrinker(shrinker);
	kfree(container_of(shrinker, struct cmabuf_shrinker, shrinker));
}
#endif

/* cmabuf_heap.c is built only where the kernel exports dma_heap_add(). */
struct cmabuf_dev;
#ifdef CMABUF_HAVE_HEAP
void cmabuf_heap_attach(struct cmabuf_dev *cdev);
void cmabuf_heap_detach(struct cmabuf_dev *cdev);
#else
static inline void cmabuf_heap_attach(struct cmabuf_dev *cdev) { }
static inline void cmabuf_heap_detach(struct cmabuf_dev *cdev) { }
#endif

#endif /* _CMABUF_COMPAT_H */
