/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmabuf: physically contiguous dma-bufs from CMA - internal interfaces
 *
 * Files and their jobs:
 *   cmabuf_main.c   module, platform driver, instances
 *   cmabuf_ioctl.c  misc device and ioctl dispatcher
 *   cmabuf_alloc.c  strategy choice, allocation, release
 *   cmabuf_zero.c   clearing new buffers, on every CPU of their node
 *   cmabuf_dmabuf.c dma_buf_ops and export
 *   cmabuf_sg.c     scatterlists cut to each importer's segment limits
 *   cmabuf_bench.c  CMABUF_IOC_BENCH
 *   cmabuf_stats.c  per-instance counters and their sysfs files
 *   cmabuf_heap.c   dma-heap front end (only where dma_heap_add is exported)
 *
 * Capabilities of the kernel are found at build time in its Module.symvers
 * (see Kbuild): CMABUF_HAVE_FROZEN (cma_alloc_frozen*), CMABUF_HAVE_AREA_STATS
 * (cma_get_size, cma_get_available_pages), CMABUF_HAVE_HEAP (dma_heap_add),
 * CMABUF_HAVE_FD_INSTALL (dma_buf_fd_install). Kbuild also passes the
 * version from the file VERSION: CMABUF_VERSION ("0.1.0") and
 * CMABUF_VERSION_CODE (its CMABUF_VERSION_NUMBER()).
 */
#ifndef _CMABUF_H
#define _CMABUF_H

#include <linux/atomic.h>
#include <linux/fcntl.h>
#include <linux/kref.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/types.h>

#include <linux/cmabuf.h>

struct cma;
struct device;
struct dma_buf;
struct page;
struct sg_table;

/*
 * MODULE_IMPORT_NS() takes a string from 6.13 on and a bare word before;
 * both expand to this.
 */
#define CMABUF_IMPORT_NS(ns)	MODULE_INFO(import_ns, ns)

/* A buffer is one scatterlist entry: its length is an unsigned int. */
#define CMABUF_MAX_BYTES	((u64)(UINT_MAX & PAGE_MASK))

/* &cmabuf_dev.base_pfn of an area whose base is not known. */
#define CMABUF_PFN_UNKNOWN	ULONG_MAX

/**
 * struct cmabuf_limits - what the kernel allows, input of the pure helpers
 * @strategies: CMABUF_STRATEGY_BIT() of every strategy available.
 * @min_compound_order: smallest order COMPOUND may allocate.
 * @max_compound_order: largest order COMPOUND may allocate (kernel limit,
 *	not the area's size).
 */
struct cmabuf_limits {
	u32 strategies;
	unsigned int min_compound_order;
	unsigned int max_compound_order;
};

/**
 * struct cmabuf_plan - how to satisfy one request
 * @pages: pages to allocate.
 * @strategy: strategy to try first (never AUTO).
 * @align_order: alignment of the first try, as a page order.
 * @fallback: strategy to try when the first one finds no memory, or
 *	%CMABUF_STRATEGY_AUTO for none.
 * @fallback_align_order: alignment of the fallback, as a page order.
 */
struct cmabuf_plan {
	unsigned long pages;
	u32 strategy;
	unsigned int align_order;
	u32 fallback;
	unsigned int fallback_align_order;
};

/**
 * struct cmabuf_range - pages handed out by one strategy
 * @page: first page.
 * @count: number of pages.
 * @strategy: the strategy that allocated them and must release them.
 */
struct cmabuf_range {
	struct page *page;
	unsigned long count;
	u32 strategy;
};

/**
 * struct cmabuf_sg_limits - the scatterlist segments an importer takes
 * @max_len: longest segment in bytes, a multiple of the page size.
 * @boundary: mask of the boundary no segment may cross
 *	(dma_get_seg_boundary()).
 */
struct cmabuf_sg_limits {
	unsigned int max_len;
	unsigned long boundary;
};

/* Counters of one strategy; see cmabuf_stats.c for their sysfs files. */
struct cmabuf_counters {
	atomic64_t allocations;
	atomic64_t frees;
	atomic64_t failures;
	atomic64_t live_buffers;
	atomic64_t live_bytes;
};

/**
 * struct cmabuf_dev - one instance: a misc device on one CMA area
 * @ref: held by the platform device while bound, by every open file of the
 *	misc device, by every buffer and by heap allocations in flight.
 * @dev: the platform device (a reference is held; unused once unbound).
 * @cma: the CMA area; areas are never freed, so this outlives the binding.
 * @base_pfn: first page frame of the area, %CMABUF_PFN_UNKNOWN when the
 *	kernel does not tell (the default area).
 * @name: device node name, "cmabuf" or "cmabuf-<label>" or "cmabuf-<n>".
 * @id: number in "cmabuf-<n>", or -1.
 * @stable_name: @name comes from the label or is the default instance's;
 *	only such instances get a dma-heap (heaps are never removed).
 * @unbound: set at unbind; new allocations then fail with -ENODEV.
 * @misc: the misc device.
 * @counters: statistics, indexed by strategy (AUTO unused).
 */
struct cmabuf_dev {
	struct kref ref;
	struct device *dev;
	struct cma *cma;
	unsigned long base_pfn;
	const char *name;
	int id;
	bool stable_name;
	bool unbound;
	struct miscdevice misc;
	struct cmabuf_counters counters[CMABUF_STRATEGY_COUNT];
};

/* cmabuf_main.c */
extern unsigned short cmabuf_mode;
extern bool cmabuf_heap_enabled;
void cmabuf_dev_get(struct cmabuf_dev *cdev);
void cmabuf_dev_put(struct cmabuf_dev *cdev);

/* cmabuf_ioctl.c */
int cmabuf_misc_register(struct cmabuf_dev *cdev);
void cmabuf_misc_deregister(struct cmabuf_dev *cdev);

/* cmabuf_alloc.c: pure helpers, exported to KUnit */
#if IS_ENABLED(CONFIG_KUNIT)
int cmabuf_size_to_pages(u64 size, unsigned long *pages);
int cmabuf_align_to_order(u32 align, unsigned int *order);
int cmabuf_compound_order(const struct cmabuf_limits *lim,
			  unsigned long pages, unsigned int *order);
#endif
int cmabuf_plan_make(const struct cmabuf_limits *lim, u64 size, u32 align,
		     u32 strategy, struct cmabuf_plan *plan);
unsigned int cmabuf_aligned_order(unsigned long base_pfn,
				  unsigned long pages);
unsigned int cmabuf_area_max_order(const struct cmabuf_limits *lim,
				   unsigned long base_pfn,
				   unsigned long area_pages);

/* cmabuf_alloc.c: allocation */
void cmabuf_limits_get(struct cmabuf_limits *lim);
void cmabuf_dev_limits(struct cmabuf_dev *cdev, struct cmabuf_limits *lim);
unsigned long cmabuf_area_pages(struct cma *cma);
unsigned long cmabuf_area_free_pages(struct cma *cma);
int cmabuf_range_alloc(struct cmabuf_dev *cdev, u32 strategy,
		       unsigned long pages, unsigned int align_order,
		       struct cmabuf_range *range);
int cmabuf_range_alloc_plan(struct cmabuf_dev *cdev,
			    const struct cmabuf_plan *plan,
			    struct cmabuf_range *range);
void cmabuf_range_release(struct cmabuf_dev *cdev,
			  const struct cmabuf_range *range);

/* cmabuf_zero.c */
int cmabuf_zero_init(void);
void cmabuf_zero_exit(void);
int cmabuf_zero_pages(struct page *page, unsigned long count,
		      unsigned int max_cpus);
bool cmabuf_zeroed_by_allocator(void);
int cmabuf_range_zero(const struct cmabuf_range *range);

/* cmabuf_dmabuf.c */
struct dma_buf *cmabuf_dmabuf_alloc(struct cmabuf_dev *cdev, u64 size,
				    u32 align, u32 strategy, u32 fd_flags,
				    u32 *strategy_used);
int cmabuf_dmabuf_phys(struct dma_buf *dmabuf, phys_addr_t *phys);
u32 cmabuf_dmabuf_mmap_flags(void);

/* cmabuf_sg.c */
int cmabuf_sg_limits_get(struct device *dev, struct cmabuf_sg_limits *lim);
unsigned int cmabuf_sg_count(const struct cmabuf_sg_limits *lim,
			     phys_addr_t phys, u64 size);
int cmabuf_sg_build(struct sg_table *table, struct page *page, u64 size,
		    const struct cmabuf_sg_limits *lim);

/* cmabuf_bench.c */
int cmabuf_bench_run(struct cmabuf_dev *cdev, struct cmabuf_bench *bench);
u64 cmabuf_bench_median(u64 *samples, unsigned int count);

/* cmabuf_stats.c */
extern const struct attribute_group *cmabuf_stats_groups[];
void cmabuf_stats_alloc(struct cmabuf_dev *cdev, u32 strategy, u64 bytes);
void cmabuf_stats_free(struct cmabuf_dev *cdev, u32 strategy, u64 bytes);
void cmabuf_stats_fail(struct cmabuf_dev *cdev, u32 strategy);
void cmabuf_stats_live(struct cmabuf_dev *cdev, u64 *buffers, u64 *bytes);

/* cmabuf_heap.c */
#ifdef CMABUF_HAVE_HEAP
void cmabuf_heap_attach(struct cmabuf_dev *cdev);
void cmabuf_heap_detach(struct cmabuf_dev *cdev);
#else
static inline void cmabuf_heap_attach(struct cmabuf_dev *cdev) { }
static inline void cmabuf_heap_detach(struct cmabuf_dev *cdev) { }
#endif

#endif /* _CMABUF_H */
