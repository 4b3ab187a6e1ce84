/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmabuf: physically contiguous dma-bufs from CMA - internal interfaces
 *
 * The files, from the top down; each calls only those below it:
 *   cmabuf_main.c    module, platform driver, probe and remove
 *   cmabuf_ioctl.c   misc device and its ioctls
 *   cmabuf_rw.c      bytes moved between a file and a buffer, by the
 *                    file's own read_iter and write_iter on its pages
 *   cmabuf_heap.c    dma-heap front end
 *   cmabuf_bench.c   allocator round trips timed, in debugfs
 *   cmabuf_dmabuf.c  the dma-buf exporter
 *   cmabuf_pages.c   a buffer's pages: allocated, cleared, charged
 *   cmabuf_pool.c    buffers prepared ahead, and freed in the background
 *   cmabuf_plan.c    a request turned into a plan (pure, KUnit-tested)
 *   cmabuf_alloc.c   pages from CMA, one strategy at a time
 *   cmabuf_area.c    the instance's CMA area and its device's binding to it
 *   cmabuf_zero.c    clearing, on every CPU of the node
 *   cmabuf_sg.c      segments cut to an importer's limits, cache maintenance,
 *                    and whether an importer's DMA mask reaches the buffer
 *   cmabuf_stats.c   per-instance counters and their sysfs files
 *   cmabuf_dev.c     the instance's reference count
 *   cmabuf_compat.h  what differs between kernels
 */
#ifndef _CMABUF_H
#define _CMABUF_H

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/capability.h>
#include <linux/dma-direction.h>
#include <linux/fcntl.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/rwsem.h>
#include <linux/types.h>
#include <linux/user_namespace.h>

struct obj_cgroup;

#include <linux/cmabuf.h>

#include "cmabuf_compat.h"

struct cma;
struct cmabuf_bench_state;
struct cmabuf_pool;
struct cmabuf_user;
struct dentry;
struct device;
struct dma_buf;
struct page;
struct sg_table;
struct shrinker;

/* A buffer is one scatterlist entry: its length is an unsigned int. */
#define CMABUF_MAX_BYTES	((u64)(UINT_MAX & PAGE_MASK))

/* &cmabuf_dev.base_pfn of an area whose base is not known. */
#define CMABUF_PFN_UNKNOWN	ULONG_MAX

/**
 * struct cmabuf_limits - what the kernel allows, input of the pure helpers
 * @strategies: CMABUF_STRATEGY_BIT() of every strategy available.
 * @min_compound_order: smallest order COMPOUND may allocate.
 * @max_compound_order: largest order COMPOUND may allocate.
 * @dma_align_order: largest alignment DMA gets (CONFIG_CMA_ALIGNMENT).
 * @pmd_order: page order one PMD entry maps, 0 where CPU mappings use none.
 */
struct cmabuf_limits {
	u32 strategies;
	unsigned int min_compound_order;
	unsigned int max_compound_order;
	unsigned int dma_align_order;
	unsigned int pmd_order;
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
 * struct cmabuf_charge - to whom a buffer's or a want's bytes are charged
 * @user: the user held to unprivileged_max_bytes, holding a reference;
 *	NULL for a caller with CAP_SYS_ADMIN.
 * @objcg: the memory cgroup charged (mem_accounting), referenced, or NULL.
 *
 * Taken from the calling task by cmabuf_charge_get().
 */
struct cmabuf_charge {
	struct cmabuf_user *user;
	struct obj_cgroup *objcg;
};

/**
 * struct cmabuf_range - pages handed out by one strategy
 * @page: first page.
 * @count: number of pages.
 * @strategy: the strategy that allocated them and must release them.
 * @dma: DMA's address of them, for dma_free_pages() (DMA only).
 * @charge: owned by cmabuf_pages.c; given back when the buffer is released.
 */
struct cmabuf_range {
	struct page *page;
	unsigned long count;
	u32 strategy;
	dma_addr_t dma;
	struct cmabuf_charge charge;
};

/**
 * struct cmabuf_sg_limits - the scatterlist segments an importer takes
 * @max_len: longest segment in bytes (cmabuf_sg_max_len()).
 * @boundary: mask of the boundary no segment may cross.
 */
struct cmabuf_sg_limits {
	unsigned int max_len;
	unsigned long boundary;
};

/* Per strategy; see Documentation/ABI/testing/sysfs-class-misc-cmabuf. */
struct cmabuf_counters {
	atomic64_t allocations;
	atomic64_t frees;
	atomic64_t failures;
	atomic64_t interrupted;
	atomic64_t busy_retries;
	atomic64_t prepared;
	atomic64_t prepare_hits;
	atomic64_t live_buffers;
	atomic64_t live_bytes;
	atomic64_t unreachable_maps;
};

/**
 * struct cmabuf_dev - one instance: a misc device on one CMA area
 * @ref: held by the platform device while bound, by every open file, by
 *	every buffer and by heap allocations in flight.
 * @dev: the platform device (referenced; unused once unbound).
 * @cma: the CMA area, or NULL where the kernel exports no way to find it;
 *	areas are never freed, so this outlives the binding.
 * @area_name: the area's name, or "unknown".
 * @area_pages: size of the area in pages, 0 when unknown.
 * @strategies: CMABUF_STRATEGY_BIT() of the strategies this instance offers.
 * @dma_dev: the instance's own device for the DMA API: never bound nor
 *	added, freed with the instance's last reference.
 * @area_attached: @dma_dev is bound to the node's memory-region; released
 *	only with the last reference, since dma_free_pages() frees through it.
 * @base_pfn: first page frame of the area, or %CMABUF_PFN_UNKNOWN.
 * @area_end: physical address of the area's last byte, 0 when unknown.
 * @dma_lock: read-held while @dev maps a buffer for cache maintenance,
 *	write-held when that stops at unbind.
 * @dev_dma: @dev may map buffers. Protected by @dma_lock.
 * @reach_node: entry in cmabuf_sg.c's list of instances by DMA reach.
 * @name: device node name, "cmabuf" or "cmabuf-<label>" or "cmabuf-<n>".
 * @id: number in "cmabuf-<n>", or -1; held until the instance is freed so
 *	that no name is reused while buffers carry it.
 * @stable_name: only instances with a stable name get a dma-heap, since
 *	heaps are never removed.
 * @unbound: set at unbind; new allocations then fail with -ENODEV.
 * @misc: the misc device.
 * @pool: its prepared buffers and frees in flight, or NULL.
 * @reserve_max_bytes: the most the administrator's reserve may hold.
 * @unprivileged_max_bytes: cap on the live and prepared bytes of one
 *	unprivileged user (uid); 0: no cap.
 * @unprivileged_bytes: sum of the bytes charged to all such users.
 * @debugfs: its debugfs directory, or NULL.
 * @bench: state of its debugfs bench file, or NULL.
 * @counters: statistics, indexed by strategy (AUTO unused).
 */
struct cmabuf_dev {
	struct kref ref;
	struct device *dev;
	struct cma *cma;
	const char *area_name;
	unsigned long area_pages;
	u32 strategies;
	struct device *dma_dev;
	bool area_attached;
	unsigned long base_pfn;
	phys_addr_t area_end;
	struct rw_semaphore dma_lock;
	bool dev_dma;
	struct list_head reach_node;
	const char *name;
	int id;
	bool stable_name;
	bool unbound;
	struct miscdevice misc;
	struct cmabuf_pool *pool;
	u64 reserve_max_bytes;
	u64 unprivileged_max_bytes;
	atomic64_t unprivileged_bytes;
	struct dentry *debugfs;
	struct cmabuf_bench_state *bench;
	struct cmabuf_counters counters[CMABUF_STRATEGY_COUNT];
};

/* Bits a DMA mask needs to reach @end; 0 for an unknown end. */
static inline unsigned int cmabuf_dma_bits(phys_addr_t end)
{
	return fls64(end);
}

/*
 * CAP_SYS_ADMIN of the calling task, never the opener's credentials (as
 * drm_ioctl_permit()): a file passed on grants nothing. Not audited since
 * it refuses nothing by itself, like cap_vm_enough_memory().
 */
static inline bool cmabuf_caller_privileged(void)
{
	return ns_capable_noaudit(&init_user_ns, CAP_SYS_ADMIN);
}

/* cmabuf_dev.c */
struct cmabuf_dev *cmabuf_dev_create(struct device *dev);
int cmabuf_dev_number(struct cmabuf_dev *cdev);
void cmabuf_dev_get(struct cmabuf_dev *cdev);
void cmabuf_dev_put(struct cmabuf_dev *cdev);

/* cmabuf_area.c */
int cmabuf_area_probe(struct cmabuf_dev *cdev, struct device *dev);
void cmabuf_area_release(struct cmabuf_dev *cdev);
bool cmabuf_area_holds(const struct cmabuf_dev *cdev, phys_addr_t phys,
		       u64 size);

/* cmabuf_ioctl.c */
int cmabuf_misc_register(struct cmabuf_dev *cdev);
void cmabuf_misc_deregister(struct cmabuf_dev *cdev);

/* cmabuf_bench.c, built with CMABUF_BENCH=1 or TESTS=1 (Kbuild) */
#ifdef CMABUF_HAVE_BENCH
void cmabuf_debugfs_init(void);
void cmabuf_debugfs_exit(void);
void cmabuf_debugfs_add(struct cmabuf_dev *cdev);
void cmabuf_debugfs_remove(struct cmabuf_dev *cdev);
u64 cmabuf_bench_median(u64 *samples, unsigned int count);
#else
static inline void cmabuf_debugfs_init(void) { }
static inline void cmabuf_debugfs_exit(void) { }
static inline void cmabuf_debugfs_add(struct cmabuf_dev *cdev) { }
static inline void cmabuf_debugfs_remove(struct cmabuf_dev *cdev) { }
#endif

/* cmabuf_dmabuf.c */
struct dma_buf *cmabuf_dmabuf_alloc(struct cmabuf_dev *cdev, u64 size,
				    u32 align, u32 strategy, u32 fd_flags,
				    const void *owner, bool privileged,
				    u32 *strategy_used);
int cmabuf_dmabuf_phys(struct dma_buf *dmabuf, phys_addr_t *phys);
u32 cmabuf_dmabuf_mmap_flags(void);
u32 cmabuf_dmabuf_cache_flags(struct cmabuf_dev *cdev);
bool cmabuf_dmabuf_writecombine(struct dma_buf *dmabuf);
int cmabuf_dmabuf_sync_range(struct dma_buf *dmabuf, u32 flags, u64 offset,
			     u64 length);
struct page *cmabuf_dmabuf_page(struct dma_buf *dmabuf);
int cmabuf_dmabuf_io_begin(struct dma_buf *dmabuf, u64 offset, u64 length,
			   bool to_buffer);
void cmabuf_dmabuf_io_end(struct dma_buf *dmabuf, u64 offset, u64 length);

/* cmabuf_rw.c */
int cmabuf_rw(const struct cmabuf_rw *req, u64 *done);

/**
 * struct cmabuf_tries - how an allocation went, to be counted
 * @fell: the first strategy found no range and another was tried.
 * @last: the strategy of the last try.
 * @retries: times the last strategy was tried again on a busy area.
 */
struct cmabuf_tries {
	bool fell;
	u32 last;
	unsigned int retries;
};

/* cmabuf_pages.c */
int cmabuf_pages_get(struct cmabuf_dev *cdev, u64 size, u32 align,
		     u32 strategy, const void *owner, bool privileged,
		     struct cmabuf_range *range);
void cmabuf_pages_commit(struct cmabuf_dev *cdev,
			 const struct cmabuf_range *range);
void cmabuf_pages_abandon(struct cmabuf_dev *cdev,
			  const struct cmabuf_range *range);
void cmabuf_pages_put(struct cmabuf_dev *cdev,
		      const struct cmabuf_range *range);
int cmabuf_charge_get(struct cmabuf_dev *cdev, bool privileged,
		      struct cmabuf_charge *c);
void cmabuf_charge_put(struct cmabuf_charge *c);
bool cmabuf_charge_same(const struct cmabuf_charge *a,
			const struct cmabuf_charge *b);
int cmabuf_charge_add(struct cmabuf_dev *cdev, const struct cmabuf_charge *c,
		      u64 bytes);
void cmabuf_charge_sub(struct cmabuf_dev *cdev, const struct cmabuf_charge *c,
		       u64 bytes);

/* cmabuf_pool.c; a reserve has at most this many sizes */
#define CMABUF_RESERVE_MAX	16

int cmabuf_pool_init(void);
void cmabuf_pool_exit(void);
int cmabuf_pool_create(struct cmabuf_dev *cdev);
void cmabuf_pool_stop(struct cmabuf_dev *cdev);
bool cmabuf_pool_take(struct cmabuf_dev *cdev, const struct cmabuf_plan *plan,
		      u32 strategy, unsigned int align_order,
		      const void *owner, struct cmabuf_range *range);
void cmabuf_pool_put(struct cmabuf_dev *cdev,
		     const struct cmabuf_range *range);
int cmabuf_pool_alloc_plan(struct cmabuf_dev *cdev,
			   const struct cmabuf_plan *plan,
			   struct cmabuf_tries *t, struct cmabuf_range *range);
int cmabuf_pool_want(struct cmabuf_dev *cdev, const void *owner,
		     const struct cmabuf_plan *plan, u32 strategy,
		     unsigned int align_order, unsigned int count,
		     unsigned int timeout_ms, bool privileged);
int cmabuf_pool_wait_ready(struct cmabuf_dev *cdev, const void *owner,
			   const struct cmabuf_plan *plan, u32 strategy,
			   unsigned int align_order);
void cmabuf_pool_drop_owner(struct cmabuf_dev *cdev, const void *owner);
struct shrinker *cmabuf_pool_shrinker(struct cmabuf_dev *cdev);
int cmabuf_pool_reserve_set(struct cmabuf_dev *cdev, const u64 *sizes,
			    const u32 *counts, unsigned int n);
extern const struct attribute_group cmabuf_pool_group;

/* cmabuf_plan.c: pure helpers, some exported to KUnit */
#if IS_ENABLED(CONFIG_KUNIT)
int cmabuf_size_to_pages(u64 size, unsigned long *pages);
int cmabuf_compound_order(const struct cmabuf_limits *lim,
			  unsigned long pages, unsigned int *order);
#endif
int cmabuf_align_to_order(u32 align, unsigned int *order);
int cmabuf_plan_make(const struct cmabuf_limits *lim, u64 size, u32 align,
		     u32 strategy, struct cmabuf_plan *plan);
unsigned int cmabuf_aligned_order(unsigned long base_pfn,
				  unsigned long pages);
unsigned int cmabuf_area_max_order(const struct cmabuf_limits *lim,
				   unsigned long base_pfn,
				   unsigned long area_pages);
const char *cmabuf_strategy_name(u32 strategy);

/* cmabuf_plan.c: what this kernel and instance allow */
void cmabuf_limits_get(struct cmabuf_limits *lim);
void cmabuf_dev_limits(struct cmabuf_dev *cdev, struct cmabuf_limits *lim);

/* cmabuf_alloc.c */
int cmabuf_range_alloc(struct cmabuf_dev *cdev, u32 strategy,
		       unsigned long pages, unsigned int align_order,
		       struct cmabuf_range *range);
int cmabuf_range_alloc_plan(struct cmabuf_dev *cdev,
			    const struct cmabuf_plan *plan,
			    struct cmabuf_tries *t, struct cmabuf_range *range);
void cmabuf_range_release(struct cmabuf_dev *cdev,
			  const struct cmabuf_range *range);

/* cmabuf_zero.c */

/* Chunks each helper may clear beyond the number the caller took. */
#define CMABUF_ZERO_LEAD		4

int cmabuf_zero_init(void);
void cmabuf_zero_exit(void);
int cmabuf_zero_pages(struct page *page, unsigned long count,
		      unsigned int max_cpus);
bool cmabuf_zeroed_by_allocator(u32 strategy);
int cmabuf_range_zero(const struct cmabuf_range *range);

/* cmabuf_sg.c */
#if IS_ENABLED(CONFIG_KUNIT)
unsigned int cmabuf_sg_max_len(size_t max);
#endif
int cmabuf_sg_limits_get(struct device *dev, struct cmabuf_sg_limits *lim);
unsigned int cmabuf_sg_count(const struct cmabuf_sg_limits *lim,
			     phys_addr_t phys, u64 size);
int cmabuf_sg_build(struct sg_table *table, struct page *page, u64 size,
		    const struct cmabuf_sg_limits *lim);
void cmabuf_sg_sync_range(struct device *dev, struct sg_table *table,
			  enum dma_data_direction dir, u64 size, u64 offset,
			  u64 length, bool for_cpu);
bool cmabuf_dev_direct(struct device *dev);
bool cmabuf_dev_syncs(struct cmabuf_dev *cdev, phys_addr_t phys, u64 size);

/* cmabuf_own_sync(): what to do, in this order. */
#define CMABUF_OWN_FOR_DEVICE	BIT(0)
#define CMABUF_OWN_FOR_CPU	BIT(1)

bool cmabuf_own_sync(struct cmabuf_dev *cdev, struct page *page, u64 size,
		     u64 offset, u64 length, enum dma_data_direction dir,
		     unsigned int how);
bool cmabuf_dev_reaches(struct device *dev, phys_addr_t phys, u64 size);
void cmabuf_reach_add(struct cmabuf_dev *cdev);
void cmabuf_reach_remove(struct cmabuf_dev *cdev);
void cmabuf_reach_warn(struct cmabuf_dev *cdev, struct device *dev,
		       phys_addr_t phys, u64 size);

/* cmabuf_stats.c */
/* stats/ and one stats_<strategy>/ per strategy */
#define CMABUF_STAT_DIRS	5
extern const struct attribute_group cmabuf_area_group;
extern const struct attribute_group cmabuf_cap_group;
extern struct attribute_group cmabuf_stat_groups[CMABUF_STAT_DIRS];
void cmabuf_stats_init(void);
void cmabuf_stats_alloc(struct cmabuf_dev *cdev, u32 strategy, u64 bytes);
void cmabuf_stats_free(struct cmabuf_dev *cdev, u32 strategy, u64 bytes);
void cmabuf_stats_fail(struct cmabuf_dev *cdev, u32 strategy);
void cmabuf_stats_interrupted(struct cmabuf_dev *cdev, u32 strategy);
void cmabuf_stats_retry(struct cmabuf_dev *cdev, u32 strategy,
			unsigned int n);
void cmabuf_stats_prepared(struct cmabuf_dev *cdev, u32 strategy);
void cmabuf_stats_hit(struct cmabuf_dev *cdev, u32 strategy);
void cmabuf_stats_unreachable(struct cmabuf_dev *cdev, u32 strategy);
void cmabuf_stats_live(struct cmabuf_dev *cdev, u64 *buffers, u64 *bytes);
ssize_t cmabuf_stats_limit_show(const u64 *limit, char *buf);
ssize_t cmabuf_stats_limit_store(u64 *limit, const char *buf, size_t len);
struct cmabuf_user *cmabuf_user_get(struct cmabuf_dev *cdev);
void cmabuf_user_put(struct cmabuf_user *user);
int cmabuf_stats_charge(struct cmabuf_dev *cdev, struct cmabuf_user *user,
			u64 bytes);
void cmabuf_stats_uncharge(struct cmabuf_dev *cdev, struct cmabuf_user *user,
			   u64 bytes);
#if IS_ENABLED(CONFIG_KUNIT)
bool cmabuf_charge(atomic64_t *held, u64 cap, u64 bytes);
bool cmabuf_zero_helper_may_take(unsigned long taken, unsigned long by_caller,
				 unsigned int helpers);
int cmabuf_zero_pages_paced(struct page *page, unsigned long count,
			    unsigned int max_cpus, void (*pause)(void),
			    unsigned long *by_caller);
#endif

#endif /* _CMABUF_H */
