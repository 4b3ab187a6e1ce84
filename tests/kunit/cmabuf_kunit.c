// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites of cmabuf (tests/README.md). The arithmetic and strategy
 * suites give the driver's helpers limits of their own: they check the
 * rules, not the kernel they run on. cmabuf.ko must be loaded first.
 */

#include <kunit/platform_device.h>
#include <kunit/test.h>
#include <linux/cma.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/dma-buf.h>
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/iosys-map.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/pageblock-flags.h>
#include <linux/platform_device.h>
#include <linux/scatterlist.h>
#include <linux/shrinker.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/swiotlb.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include <uapi/linux/dma-buf.h>

#include "cmabuf.h"

#define STRAT(s)	CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_##s)
#define ALL_STRATEGIES	(STRAT(AUTO) | STRAT(COMPOUND) | STRAT(FROZEN) | \
			 STRAT(LEGACY) | STRAT(DMA))

/* A kernel with the frozen API and 4 KiB-page-like rules. */
static const struct cmabuf_limits cmabuf_lim_frozen = {
	.strategies = ALL_STRATEGIES,
	.min_compound_order = 9,
	.max_compound_order = 19,
};

/* The same with folios limited to order 12, and no DMA. */
static const struct cmabuf_limits cmabuf_lim_small = {
	.strategies = ALL_STRATEGIES & ~STRAT(DMA),
	.min_compound_order = 9,
	.max_compound_order = 12,
};

/* A kernel without the frozen API. */
static const struct cmabuf_limits cmabuf_lim_legacy = {
	.strategies = STRAT(AUTO) | STRAT(LEGACY) | STRAT(DMA),
	.dma_align_order = 8,
};

/* A kernel that exports nothing of CMA (Debian's 6.1), with PMD mappings. */
static const struct cmabuf_limits cmabuf_lim_dma = {
	.strategies = STRAT(AUTO) | STRAT(DMA),
	.dma_align_order = 8,
	.pmd_order = 9,
};

/* ---- cmabuf_uapi ---- */

static void cmabuf_uapi_alloc_data(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 48, sizeof(struct cmabuf_alloc_data));
	KUNIT_EXPECT_EQ(test, 0, offsetof(struct cmabuf_alloc_data, size));
	KUNIT_EXPECT_EQ(test, 8, offsetof(struct cmabuf_alloc_data, alloc_size));
	KUNIT_EXPECT_EQ(test, 16, offsetof(struct cmabuf_alloc_data, align));
	KUNIT_EXPECT_EQ(test, 20, offsetof(struct cmabuf_alloc_data, fd_flags));
	KUNIT_EXPECT_EQ(test, 24, offsetof(struct cmabuf_alloc_data, flags));
	KUNIT_EXPECT_EQ(test, 28, offsetof(struct cmabuf_alloc_data, strategy));
	KUNIT_EXPECT_EQ(test, 32, offsetof(struct cmabuf_alloc_data, fd));
	KUNIT_EXPECT_EQ(test, 36, offsetof(struct cmabuf_alloc_data, pad));
	KUNIT_EXPECT_EQ(test, 40, offsetof(struct cmabuf_alloc_data, buf_flags));
	KUNIT_EXPECT_EQ(test, 44, offsetof(struct cmabuf_alloc_data, pad2));
}

static void cmabuf_uapi_info(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 88, sizeof(struct cmabuf_info));
	KUNIT_EXPECT_EQ(test, 0, offsetof(struct cmabuf_info, area_name_ptr));
	KUNIT_EXPECT_EQ(test, 8, offsetof(struct cmabuf_info, area_name_size));
	KUNIT_EXPECT_EQ(test, 12, offsetof(struct cmabuf_info, area_name_len));
	KUNIT_EXPECT_EQ(test, 16, offsetof(struct cmabuf_info, total_bytes));
	KUNIT_EXPECT_EQ(test, 24, offsetof(struct cmabuf_info, free_bytes));
	KUNIT_EXPECT_EQ(test, 32, offsetof(struct cmabuf_info, used_bytes));
	KUNIT_EXPECT_EQ(test, 40, offsetof(struct cmabuf_info, live_bytes));
	KUNIT_EXPECT_EQ(test, 48, offsetof(struct cmabuf_info, live_buffers));
	KUNIT_EXPECT_EQ(test, 56, offsetof(struct cmabuf_info, page_size));
	KUNIT_EXPECT_EQ(test, 60, offsetof(struct cmabuf_info, max_compound_order));
	KUNIT_EXPECT_EQ(test, 64, offsetof(struct cmabuf_info, strategies));
	KUNIT_EXPECT_EQ(test, 68, offsetof(struct cmabuf_info, flags));
	KUNIT_EXPECT_EQ(test, 72, offsetof(struct cmabuf_info, min_compound_order));
	KUNIT_EXPECT_EQ(test, 76, offsetof(struct cmabuf_info, version));
	KUNIT_EXPECT_EQ(test, 80, offsetof(struct cmabuf_info, dma_bits));
	KUNIT_EXPECT_EQ(test, 84, offsetof(struct cmabuf_info, pmd_order));
}

static void cmabuf_uapi_phys(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 24, sizeof(struct cmabuf_phys));
	KUNIT_EXPECT_EQ(test, 0, offsetof(struct cmabuf_phys, fd));
	KUNIT_EXPECT_EQ(test, 4, offsetof(struct cmabuf_phys, pad));
	KUNIT_EXPECT_EQ(test, 8, offsetof(struct cmabuf_phys, phys));
	KUNIT_EXPECT_EQ(test, 16, offsetof(struct cmabuf_phys, size));
}

static void cmabuf_uapi_prepare(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 32, sizeof(struct cmabuf_prepare));
	KUNIT_EXPECT_EQ(test, 0, offsetof(struct cmabuf_prepare, size));
	KUNIT_EXPECT_EQ(test, 8, offsetof(struct cmabuf_prepare, align));
	KUNIT_EXPECT_EQ(test, 12, offsetof(struct cmabuf_prepare, flags));
	KUNIT_EXPECT_EQ(test, 16, offsetof(struct cmabuf_prepare, count));
	KUNIT_EXPECT_EQ(test, 20, offsetof(struct cmabuf_prepare, timeout_ms));
	KUNIT_EXPECT_EQ(test, 24, offsetof(struct cmabuf_prepare, ready));
	KUNIT_EXPECT_EQ(test, 28, offsetof(struct cmabuf_prepare, pad));
}

static void cmabuf_uapi_sync(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 24, sizeof(struct cmabuf_sync));
	KUNIT_EXPECT_EQ(test, 0, offsetof(struct cmabuf_sync, fd));
	KUNIT_EXPECT_EQ(test, 4, offsetof(struct cmabuf_sync, flags));
	KUNIT_EXPECT_EQ(test, 8, offsetof(struct cmabuf_sync, offset));
	KUNIT_EXPECT_EQ(test, 16, offsetof(struct cmabuf_sync, length));
}

static void cmabuf_uapi_rw(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 48, sizeof(struct cmabuf_rw));
	KUNIT_EXPECT_EQ(test, 0, offsetof(struct cmabuf_rw, buf_fd));
	KUNIT_EXPECT_EQ(test, 4, offsetof(struct cmabuf_rw, file_fd));
	KUNIT_EXPECT_EQ(test, 8, offsetof(struct cmabuf_rw, file_offset));
	KUNIT_EXPECT_EQ(test, 16, offsetof(struct cmabuf_rw, buf_offset));
	KUNIT_EXPECT_EQ(test, 24, offsetof(struct cmabuf_rw, length));
	KUNIT_EXPECT_EQ(test, 32, offsetof(struct cmabuf_rw, flags));
	KUNIT_EXPECT_EQ(test, 36, offsetof(struct cmabuf_rw, pad));
	KUNIT_EXPECT_EQ(test, 40, offsetof(struct cmabuf_rw, done));
}

static void cmabuf_uapi_check_cmd(struct kunit *test, unsigned int cmd,
				  unsigned int nr, unsigned int size)
{
	KUNIT_EXPECT_EQ(test, 0xB9, _IOC_TYPE(cmd));
	KUNIT_EXPECT_EQ(test, nr, _IOC_NR(cmd));
	KUNIT_EXPECT_EQ(test, _IOC_READ | _IOC_WRITE, _IOC_DIR(cmd));
	KUNIT_EXPECT_EQ(test, size, _IOC_SIZE(cmd));
}

static void cmabuf_uapi_ioctl_numbers(struct kunit *test)
{
	cmabuf_uapi_check_cmd(test, CMABUF_IOC_ALLOC, 0,
			      sizeof(struct cmabuf_alloc_data));
	cmabuf_uapi_check_cmd(test, CMABUF_IOC_INFO, 1,
			      sizeof(struct cmabuf_info));
	/* 0x02 is retired. */
	cmabuf_uapi_check_cmd(test, CMABUF_IOC_PHYS, 3,
			      sizeof(struct cmabuf_phys));
	cmabuf_uapi_check_cmd(test, CMABUF_IOC_PREPARE, 4,
			      sizeof(struct cmabuf_prepare));
	/* SYNC has nothing to say back: write-only. */
	KUNIT_EXPECT_EQ(test, 0xB9, _IOC_TYPE(CMABUF_IOC_SYNC));
	KUNIT_EXPECT_EQ(test, 5, _IOC_NR(CMABUF_IOC_SYNC));
	KUNIT_EXPECT_EQ(test, _IOC_WRITE, _IOC_DIR(CMABUF_IOC_SYNC));
	KUNIT_EXPECT_EQ(test, sizeof(struct cmabuf_sync),
			_IOC_SIZE(CMABUF_IOC_SYNC));
	cmabuf_uapi_check_cmd(test, CMABUF_IOC_RW, 6, sizeof(struct cmabuf_rw));
}

static void cmabuf_uapi_constants(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 0, CMABUF_STRATEGY_AUTO);
	KUNIT_EXPECT_EQ(test, 1, CMABUF_STRATEGY_COMPOUND);
	KUNIT_EXPECT_EQ(test, 2, CMABUF_STRATEGY_FROZEN);
	KUNIT_EXPECT_EQ(test, 3, CMABUF_STRATEGY_LEGACY);
	KUNIT_EXPECT_EQ(test, 4, CMABUF_STRATEGY_DMA);
	KUNIT_EXPECT_EQ(test, 5, CMABUF_STRATEGY_COUNT);
	KUNIT_EXPECT_EQ(test, 0x8U, CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_LEGACY));
	KUNIT_EXPECT_EQ(test, 0x10U, CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_DMA));
	KUNIT_EXPECT_EQ(test, 0x1ffU, CMABUF_ALLOC_VALID_FLAGS);
	KUNIT_EXPECT_EQ(test, 0x100U, CMABUF_ALLOC_WRITECOMBINE);
	KUNIT_EXPECT_EQ(test, 0x1U, CMABUF_BUF_WRITECOMBINE);
	KUNIT_EXPECT_EQ(test, DMA_BUF_SYNC_RW | DMA_BUF_SYNC_END,
			CMABUF_SYNC_VALID_FLAGS);
	KUNIT_EXPECT_EQ(test, O_CLOEXEC | O_ACCMODE, CMABUF_VALID_FD_FLAGS);
	KUNIT_EXPECT_EQ(test, 40, CMABUF_ALIGN_MAX);
	KUNIT_EXPECT_EQ(test, 0x1U, CMABUF_INFO_AREA_STATS);
	KUNIT_EXPECT_EQ(test, 0x2U, CMABUF_INFO_ALLOCATOR_ZEROES);
	KUNIT_EXPECT_EQ(test, 0x4U, CMABUF_INFO_MMAP_PMD);
	KUNIT_EXPECT_EQ(test, 0x8U, CMABUF_INFO_MMAP_PLACED);
	KUNIT_EXPECT_EQ(test, 0x10U, CMABUF_INFO_CLEARS_FROZEN);
	KUNIT_EXPECT_EQ(test, 0x20U, CMABUF_INFO_CACHE_SYNC);
	KUNIT_EXPECT_EQ(test, 0x40U, CMABUF_INFO_WRITECOMBINE);
	KUNIT_EXPECT_EQ(test, 0x1U, CMABUF_RW_READ);
	KUNIT_EXPECT_EQ(test, 0x2U, CMABUF_RW_WRITE);
	KUNIT_EXPECT_EQ(test, 0x3U, CMABUF_RW_VALID_FLAGS);
	/* PREPARE's flags: ALLOC's strategy byte, then its own bits. */
	KUNIT_EXPECT_EQ(test, 0x100U, CMABUF_PREPARE_WAIT);
	KUNIT_EXPECT_EQ(test, 0x1ffU, CMABUF_PREPARE_VALID_FLAGS);
	KUNIT_EXPECT_EQ(test, 256, CMABUF_PREPARE_MAX_COUNT);
}

static struct kunit_case cmabuf_uapi_cases[] = {
	KUNIT_CASE(cmabuf_uapi_alloc_data),
	KUNIT_CASE(cmabuf_uapi_info),
	KUNIT_CASE(cmabuf_uapi_phys),
	KUNIT_CASE(cmabuf_uapi_prepare),
	KUNIT_CASE(cmabuf_uapi_sync),
	KUNIT_CASE(cmabuf_uapi_rw),
	KUNIT_CASE(cmabuf_uapi_ioctl_numbers),
	KUNIT_CASE(cmabuf_uapi_constants),
	{}
};

static struct kunit_suite cmabuf_uapi_suite = {
	.name = "cmabuf_uapi",
	.test_cases = cmabuf_uapi_cases,
};

/* ---- cmabuf_arith ---- */

static void cmabuf_arith_size_to_pages(struct kunit *test)
{
	unsigned long pages = 0;

	KUNIT_EXPECT_EQ(test, -EINVAL, cmabuf_size_to_pages(0, &pages));
	KUNIT_EXPECT_EQ(test, 0, cmabuf_size_to_pages(1, &pages));
	KUNIT_EXPECT_EQ(test, 1UL, pages);
	KUNIT_EXPECT_EQ(test, 0, cmabuf_size_to_pages(PAGE_SIZE, &pages));
	KUNIT_EXPECT_EQ(test, 1UL, pages);
	KUNIT_EXPECT_EQ(test, 0, cmabuf_size_to_pages(PAGE_SIZE + 1, &pages));
	KUNIT_EXPECT_EQ(test, 2UL, pages);
	KUNIT_EXPECT_EQ(test, 0, cmabuf_size_to_pages(SZ_1G, &pages));
	KUNIT_EXPECT_EQ(test, SZ_1G >> PAGE_SHIFT, pages);
	KUNIT_EXPECT_EQ(test, 0, cmabuf_size_to_pages(CMABUF_MAX_BYTES, &pages));
	KUNIT_EXPECT_EQ(test, (unsigned long)(CMABUF_MAX_BYTES >> PAGE_SHIFT),
			pages);
	/* More than one scatterlist entry, or overflowing when rounded up. */
	KUNIT_EXPECT_EQ(test, -EINVAL,
			cmabuf_size_to_pages(CMABUF_MAX_BYTES + 1, &pages));
	KUNIT_EXPECT_EQ(test, -EINVAL, cmabuf_size_to_pages(SZ_4G, &pages));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			cmabuf_size_to_pages(U64_MAX - PAGE_SIZE + 2, &pages));
	KUNIT_EXPECT_EQ(test, -EINVAL, cmabuf_size_to_pages(U64_MAX, &pages));
}

static void cmabuf_arith_align_to_order(struct kunit *test)
{
	unsigned int order = 99;

	KUNIT_EXPECT_EQ(test, 0, cmabuf_align_to_order(0, &order));
	KUNIT_EXPECT_EQ(test, 0U, order);
	KUNIT_EXPECT_EQ(test, 0, cmabuf_align_to_order(3, &order));
	KUNIT_EXPECT_EQ(test, 0U, order);
	KUNIT_EXPECT_EQ(test, 0, cmabuf_align_to_order(PAGE_SHIFT, &order));
	KUNIT_EXPECT_EQ(test, 0U, order);
	KUNIT_EXPECT_EQ(test, 0, cmabuf_align_to_order(PAGE_SHIFT + 1, &order));
	KUNIT_EXPECT_EQ(test, 1U, order);
	KUNIT_EXPECT_EQ(test, 0, cmabuf_align_to_order(CMABUF_ALIGN_MAX, &order));
	KUNIT_EXPECT_EQ(test, (unsigned int)(CMABUF_ALIGN_MAX - PAGE_SHIFT),
			order);
	KUNIT_EXPECT_EQ(test, -EINVAL,
			cmabuf_align_to_order(CMABUF_ALIGN_MAX + 1, &order));
	KUNIT_EXPECT_EQ(test, -EINVAL, cmabuf_align_to_order(U32_MAX, &order));
}

static void cmabuf_arith_compound_order(struct kunit *test)
{
	const struct cmabuf_limits *lim = &cmabuf_lim_frozen;
	unsigned int order = 0;

	KUNIT_EXPECT_EQ(test, -EINVAL, cmabuf_compound_order(lim, 1, &order));
	KUNIT_EXPECT_EQ(test, -EINVAL, cmabuf_compound_order(lim, 2, &order));
	KUNIT_EXPECT_EQ(test, -EINVAL, cmabuf_compound_order(lim, 256, &order));
	KUNIT_EXPECT_EQ(test, 0, cmabuf_compound_order(lim, 512, &order));
	KUNIT_EXPECT_EQ(test, 9U, order);
	KUNIT_EXPECT_EQ(test, -EINVAL, cmabuf_compound_order(lim, 768, &order));
	KUNIT_EXPECT_EQ(test, -EINVAL, cmabuf_compound_order(lim, 513, &order));
	KUNIT_EXPECT_EQ(test, 0, cmabuf_compound_order(lim, 1UL << 19, &order));
	KUNIT_EXPECT_EQ(test, 19U, order);
	KUNIT_EXPECT_EQ(test, -EINVAL,
			cmabuf_compound_order(lim, 1UL << 20, &order));
	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP,
			cmabuf_compound_order(&cmabuf_lim_legacy, 512, &order));
}

static void cmabuf_arith_aligned_order(struct kunit *test)
{
	const unsigned long unknown = CMABUF_PFN_UNKNOWN;

	/* Aligned bases hold their whole power of two. */
	KUNIT_EXPECT_EQ(test, 16U, cmabuf_aligned_order(0x40000, 1UL << 16));
	KUNIT_EXPECT_EQ(test, 18U, cmabuf_aligned_order(0x100000, 1UL << 18));
	KUNIT_EXPECT_EQ(test, 18U,
			cmabuf_aligned_order(0x100000, (1UL << 18) + 5));
	/* 64 MiB at 0xeb600000: only 32 MiB of it is aligned to its size. */
	KUNIT_EXPECT_EQ(test, 13U, cmabuf_aligned_order(0xeb600, 1UL << 14));
	/* 8 pages from pfn 3: the block at 4 is the largest that fits. */
	KUNIT_EXPECT_EQ(test, 2U, cmabuf_aligned_order(3, 8));
	KUNIT_EXPECT_EQ(test, 0U, cmabuf_aligned_order(5, 1));
	KUNIT_EXPECT_EQ(test, 0U, cmabuf_aligned_order(1, 2));
	/* Unknown base: what fits wherever the area starts. */
	KUNIT_EXPECT_EQ(test, 13U, cmabuf_aligned_order(unknown, 1UL << 14));
	KUNIT_EXPECT_EQ(test, 14U,
			cmabuf_aligned_order(unknown, (1UL << 15) - 1));
	KUNIT_EXPECT_EQ(test, 0U, cmabuf_aligned_order(unknown, 1));
	/* A CMA area starts on a pageblock boundary. */
	KUNIT_EXPECT_EQ(test, (unsigned int)pageblock_order,
			cmabuf_aligned_order(unknown, pageblock_nr_pages));
	KUNIT_EXPECT_EQ(test, (unsigned int)pageblock_order + 1,
			cmabuf_aligned_order(unknown, 3 * pageblock_nr_pages));
	KUNIT_EXPECT_EQ(test, (unsigned int)pageblock_order,
			cmabuf_aligned_order(unknown,
					     3 * pageblock_nr_pages - 1));
}

static void cmabuf_arith_area_max_order(struct kunit *test)
{
	const struct cmabuf_limits *lim = &cmabuf_lim_frozen;
	const unsigned long unknown = CMABUF_PFN_UNKNOWN;

	/* Unknown area size: the kernel's limit. */
	KUNIT_EXPECT_EQ(test, 19U, cmabuf_area_max_order(lim, unknown, 0));
	KUNIT_EXPECT_EQ(test, 16U,
			cmabuf_area_max_order(lim, 0xf0000, 1UL << 16));
	KUNIT_EXPECT_EQ(test, 18U,
			cmabuf_area_max_order(lim, 0x100000, (1UL << 18) + 5));
	KUNIT_EXPECT_EQ(test, 19U, cmabuf_area_max_order(lim, 0, 1UL << 22));
	KUNIT_EXPECT_EQ(test, 13U,
			cmabuf_area_max_order(lim, unknown, 1UL << 14));
	KUNIT_EXPECT_EQ(test, 9U, cmabuf_area_max_order(lim, 0, 1000));
	/* Too small, or too misaligned, for the smallest folio. */
	KUNIT_EXPECT_EQ(test, 0U, cmabuf_area_max_order(lim, 0, 511));
	KUNIT_EXPECT_EQ(test, 0U, cmabuf_area_max_order(lim, 1, 1000));
	KUNIT_EXPECT_EQ(test, 0U,
			cmabuf_area_max_order(&cmabuf_lim_legacy, 0, 1UL << 16));
}

/* The benchmark, and its median, are built only where wanted (Kbuild). */
#ifdef CMABUF_HAVE_BENCH
static void cmabuf_arith_median(struct kunit *test)
{
	u64 one[] = { 5 };
	u64 odd[] = { 30, 10, 20 };
	u64 even[] = { 40, 10, 30, 20 };
	u64 same[] = { 7, 7, 7, 7, 7 };

	KUNIT_EXPECT_EQ(test, 5ULL, cmabuf_bench_median(one, ARRAY_SIZE(one)));
	KUNIT_EXPECT_EQ(test, 20ULL, cmabuf_bench_median(odd, ARRAY_SIZE(odd)));
	/* The lower middle of an even count. */
	KUNIT_EXPECT_EQ(test, 20ULL, cmabuf_bench_median(even, ARRAY_SIZE(even)));
	KUNIT_EXPECT_EQ(test, 7ULL, cmabuf_bench_median(same, ARRAY_SIZE(same)));
	/* Sorted in place. */
	KUNIT_EXPECT_EQ(test, 10ULL, even[0]);
	KUNIT_EXPECT_EQ(test, 40ULL, even[3]);
}
#else
static void cmabuf_arith_median(struct kunit *test)
{
	kunit_skip(test, "no benchmark in this build (CMABUF_BENCH=1)");
}
#endif

/* The cap's check and add: exact at the cap, nothing added past it. */
static void cmabuf_arith_charge(struct kunit *test)
{
	atomic64_t held = ATOMIC64_INIT(0);

	/* No cap: everything is counted. */
	KUNIT_EXPECT_TRUE(test, cmabuf_charge(&held, 0, SZ_1G));
	KUNIT_EXPECT_TRUE(test, cmabuf_charge(&held, 0, SZ_1G));
	KUNIT_EXPECT_EQ(test, (s64)SZ_2G, atomic64_read(&held));

	atomic64_set(&held, 0);
	KUNIT_EXPECT_TRUE(test, cmabuf_charge(&held, SZ_8M, SZ_4M));
	KUNIT_EXPECT_TRUE(test, cmabuf_charge(&held, SZ_8M, SZ_4M));
	KUNIT_EXPECT_EQ(test, (s64)SZ_8M, atomic64_read(&held));
	/* One page past the cap: refused, nothing added. */
	KUNIT_EXPECT_FALSE(test, cmabuf_charge(&held, SZ_8M, PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, (s64)SZ_8M, atomic64_read(&held));
	/* A cap raised lets it in; one lowered below the count refuses all. */
	KUNIT_EXPECT_TRUE(test, cmabuf_charge(&held, SZ_8M + PAGE_SIZE,
					      PAGE_SIZE));
	KUNIT_EXPECT_FALSE(test, cmabuf_charge(&held, SZ_4M, PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, (s64)(SZ_8M + PAGE_SIZE), atomic64_read(&held));

	/* A request larger than the cap does not wrap around it. */
	atomic64_set(&held, SZ_4M);
	KUNIT_EXPECT_FALSE(test, cmabuf_charge(&held, SZ_8M, U64_MAX));
	KUNIT_EXPECT_FALSE(test, cmabuf_charge(&held, SZ_8M,
					       U64_MAX - SZ_4M + 1));
	KUNIT_EXPECT_EQ(test, (s64)SZ_4M, atomic64_read(&held));
	/* Exactly what is left fits. */
	KUNIT_EXPECT_TRUE(test, cmabuf_charge(&held, SZ_8M, SZ_4M));
	KUNIT_EXPECT_EQ(test, (s64)SZ_8M, atomic64_read(&held));
}

/* Clearing helpers run at most 4 chunks each ahead of the caller. */
static void cmabuf_arith_zero_lead(struct kunit *test)
{
	/* Before the caller took any: 4 chunks a helper. */
	KUNIT_EXPECT_TRUE(test, cmabuf_zero_helper_may_take(4, 0, 1));
	KUNIT_EXPECT_FALSE(test, cmabuf_zero_helper_may_take(5, 0, 1));
	KUNIT_EXPECT_TRUE(test, cmabuf_zero_helper_may_take(8, 0, 2));
	KUNIT_EXPECT_FALSE(test, cmabuf_zero_helper_may_take(9, 0, 2));
	/* The caller took 10: one helper may have taken 14, three 42. */
	KUNIT_EXPECT_TRUE(test, cmabuf_zero_helper_may_take(24, 10, 1));
	KUNIT_EXPECT_FALSE(test, cmabuf_zero_helper_may_take(25, 10, 1));
	KUNIT_EXPECT_TRUE(test, cmabuf_zero_helper_may_take(52, 10, 3));
	KUNIT_EXPECT_FALSE(test, cmabuf_zero_helper_may_take(53, 10, 3));
	/* No helpers: nothing for them, whatever the caller did. */
	KUNIT_EXPECT_FALSE(test, cmabuf_zero_helper_may_take(11, 10, 0));
}

static struct kunit_case cmabuf_arith_cases[] = {
	KUNIT_CASE(cmabuf_arith_size_to_pages),
	KUNIT_CASE(cmabuf_arith_align_to_order),
	KUNIT_CASE(cmabuf_arith_compound_order),
	KUNIT_CASE(cmabuf_arith_aligned_order),
	KUNIT_CASE(cmabuf_arith_area_max_order),
	KUNIT_CASE(cmabuf_arith_median),
	KUNIT_CASE(cmabuf_arith_charge),
	KUNIT_CASE(cmabuf_arith_zero_lead),
	{}
};

static struct kunit_suite cmabuf_arith_suite = {
	.name = "cmabuf_arith",
	.test_cases = cmabuf_arith_cases,
};

/* ---- cmabuf_strategy ---- */

/* A request and its plan, checked when @ret is 0; @fallback AUTO is none. */
struct cmabuf_plan_case {
	const char *name;
	const struct cmabuf_limits *lim;
	u64 size;
	u32 align;
	u32 strategy;
	int ret;
	unsigned long pages;
	u32 first;
	unsigned int order;
	u32 fallback;
	unsigned int fallback_order;
};

#define S(x)	CMABUF_STRATEGY_##x
#define PG(n)	((u64)(n) << PAGE_SHIFT)

static const struct cmabuf_plan_case cmabuf_plan_cases[] = {
	{ "auto one page is frozen", &cmabuf_lim_frozen, PG(1), 0, S(AUTO),
	  0, 1, S(FROZEN), 0, S(AUTO), 0 },
	{ "auto pageblock is compound", &cmabuf_lim_frozen, PG(512), 0, S(AUTO),
	  0, 512, S(COMPOUND), 9, S(FROZEN), 0 },
	{ "auto below pageblock is frozen", &cmabuf_lim_frozen, PG(256), 0,
	  S(AUTO), 0, 256, S(FROZEN), 0, S(AUTO), 0 },
	{ "auto not power of two is frozen", &cmabuf_lim_frozen, PG(768), 0,
	  S(AUTO), 0, 768, S(FROZEN), 0, S(AUTO), 0 },
	{ "auto gigantic is compound", &cmabuf_lim_frozen, SZ_1G, 0,
	  S(AUTO), 0, SZ_1G >> PAGE_SHIFT, S(COMPOUND), 30 - PAGE_SHIFT,
	  S(FROZEN), 0 },
	{ "auto partial page rounds up", &cmabuf_lim_frozen, PG(512) - 1, 0,
	  S(AUTO), 0, 512, S(COMPOUND), 9, S(FROZEN), 0 },
	{ "auto alignment above size is frozen", &cmabuf_lim_frozen, PG(512),
	  PAGE_SHIFT + 10, S(AUTO), 0, 512, S(FROZEN), 10, S(AUTO), 0 },
	{ "auto alignment within size keeps it for fallback",
	  &cmabuf_lim_frozen, PG(1024), PAGE_SHIFT + 4, S(AUTO),
	  0, 1024, S(COMPOUND), 10, S(FROZEN), 4 },
	{ "auto above folio limit is frozen", &cmabuf_lim_small, PG(1 << 13), 0,
	  S(AUTO), 0, 1 << 13, S(FROZEN), 0, S(AUTO), 0 },
	{ "auto without frozen api is legacy", &cmabuf_lim_legacy, PG(512), 0,
	  S(AUTO), 0, 512, S(LEGACY), 0, S(AUTO), 0 },
	{ "compound pageblock", &cmabuf_lim_frozen, PG(512), 0, S(COMPOUND),
	  0, 512, S(COMPOUND), 9, S(AUTO), 0 },
	{ "compound with alignment of its size", &cmabuf_lim_frozen, PG(512),
	  PAGE_SHIFT + 9, S(COMPOUND), 0, 512, S(COMPOUND), 9, S(AUTO), 0 },
	{ "compound below pageblock", &cmabuf_lim_frozen, PG(256), 0,
	  S(COMPOUND), -EINVAL },
	{ "compound one page", &cmabuf_lim_frozen, PG(1), 0, S(COMPOUND),
	  -EINVAL },
	{ "compound not power of two", &cmabuf_lim_frozen, PG(768), 0,
	  S(COMPOUND), -EINVAL },
	{ "compound alignment above size", &cmabuf_lim_frozen, PG(512),
	  PAGE_SHIFT + 10, S(COMPOUND), -EINVAL },
	{ "compound above folio limit", &cmabuf_lim_small, PG(1 << 13), 0,
	  S(COMPOUND), -EINVAL },
	{ "compound without frozen api", &cmabuf_lim_legacy, PG(512), 0,
	  S(COMPOUND), -EOPNOTSUPP },
	{ "frozen aligned", &cmabuf_lim_frozen, PG(3), PAGE_SHIFT + 2,
	  S(FROZEN), 0, 3, S(FROZEN), 2, S(AUTO), 0 },
	{ "frozen sub-page alignment", &cmabuf_lim_frozen, PG(3), 6, S(FROZEN),
	  0, 3, S(FROZEN), 0, S(AUTO), 0 },
	{ "frozen without frozen api", &cmabuf_lim_legacy, PG(1), 0, S(FROZEN),
	  -EOPNOTSUPP },
	{ "legacy one byte", &cmabuf_lim_frozen, 1, 0, S(LEGACY),
	  0, 1, S(LEGACY), 0, S(AUTO), 0 },
	{ "legacy without frozen api", &cmabuf_lim_legacy, PG(512), 0,
	  S(LEGACY), 0, 512, S(LEGACY), 0, S(AUTO), 0 },
	{ "auto without cma_alloc is dma", &cmabuf_lim_dma, PG(512), 0,
	  S(AUTO), 0, 512, S(DMA), 0, S(AUTO), 0 },
	{ "auto dma gets no pmd try", &cmabuf_lim_dma, PG(1024), 0,
	  S(AUTO), 0, 1024, S(DMA), 0, S(AUTO), 0 },
	{ "auto dma alignment above what it gives", &cmabuf_lim_dma, PG(4),
	  PAGE_SHIFT + 3, S(AUTO), -EINVAL },
	{ "dma one page", &cmabuf_lim_dma, PG(1), 0, S(DMA),
	  0, 1, S(DMA), 0, S(AUTO), 0 },
	{ "dma alignment of its size", &cmabuf_lim_dma, PG(4), PAGE_SHIFT + 2,
	  S(DMA), 0, 4, S(DMA), 2, S(AUTO), 0 },
	{ "dma not power of two aligned to the next", &cmabuf_lim_dma, PG(3),
	  PAGE_SHIFT + 2, S(DMA), 0, 3, S(DMA), 2, S(AUTO), 0 },
	{ "dma alignment above its size", &cmabuf_lim_dma, PG(4),
	  PAGE_SHIFT + 3, S(DMA), -EINVAL },
	{ "dma alignment up to CONFIG_CMA_ALIGNMENT", &cmabuf_lim_dma,
	  PG(1024), PAGE_SHIFT + 8, S(DMA), 0, 1024, S(DMA), 8, S(AUTO), 0 },
	{ "dma alignment above CONFIG_CMA_ALIGNMENT", &cmabuf_lim_dma,
	  PG(1024), PAGE_SHIFT + 9, S(DMA), -EINVAL },
	{ "legacy without cma_alloc", &cmabuf_lim_dma, PG(1), 0, S(LEGACY),
	  -EOPNOTSUPP },
	{ "dma beside legacy", &cmabuf_lim_legacy, PG(512), 0, S(DMA),
	  0, 512, S(DMA), 0, S(AUTO), 0 },
	{ "dma without the dma api", &cmabuf_lim_small, PG(1), 0, S(DMA),
	  -EOPNOTSUPP },
	{ "unknown strategy", &cmabuf_lim_frozen, PG(1), 0, CMABUF_STRATEGY_COUNT,
	  -EINVAL },
	{ "strategy byte all ones", &cmabuf_lim_frozen, PG(1), 0, 0xff,
	  -EINVAL },
	{ "zero size", &cmabuf_lim_frozen, 0, 0, S(AUTO), -EINVAL },
	{ "zero size before missing strategy", &cmabuf_lim_legacy, 0, 0,
	  S(COMPOUND), -EINVAL },
	{ "size above one sg entry", &cmabuf_lim_frozen, CMABUF_MAX_BYTES + 1,
	  0, S(AUTO), -EINVAL },
	{ "overflowing size", &cmabuf_lim_frozen, U64_MAX, 0, S(LEGACY),
	  -EINVAL },
	{ "absurd alignment", &cmabuf_lim_frozen, PG(1), CMABUF_ALIGN_MAX + 1,
	  S(FROZEN), -EINVAL },
	{ "largest alignment", &cmabuf_lim_frozen, PG(1), CMABUF_ALIGN_MAX,
	  S(LEGACY), 0, 1, S(LEGACY), CMABUF_ALIGN_MAX - PAGE_SHIFT, S(AUTO),
	  0 },
};

KUNIT_ARRAY_PARAM_DESC(cmabuf_plan, cmabuf_plan_cases, name);

static void cmabuf_strategy_plan(struct kunit *test)
{
	const struct cmabuf_plan_case *c = test->param_value;
	struct cmabuf_plan plan = {};
	int ret;

	ret = cmabuf_plan_make(c->lim, c->size, c->align, c->strategy, &plan);
	KUNIT_ASSERT_EQ(test, c->ret, ret);
	if (ret)
		return;

	KUNIT_EXPECT_EQ(test, c->pages, plan.pages);
	KUNIT_EXPECT_EQ(test, c->first, plan.strategy);
	KUNIT_EXPECT_EQ(test, c->order, plan.align_order);
	KUNIT_EXPECT_EQ(test, c->fallback, plan.fallback);
	KUNIT_EXPECT_EQ(test, c->fallback_order, plan.fallback_align_order);
}

/*
 * DMA hands out what the DMA API gave only where it lies inside the
 * instance's region; an area whose place is unknown holds nothing.
 */
static void cmabuf_strategy_dma_area_holds(struct kunit *test)
{
	struct cmabuf_dev *cdev = kunit_kzalloc(test, sizeof(*cdev),
						GFP_KERNEL);
	phys_addr_t base = SZ_1G, end = SZ_1G + SZ_256M - 1;

	KUNIT_ASSERT_NOT_NULL(test, cdev);
	cdev->base_pfn = PHYS_PFN(base);
	cdev->area_end = end;
	KUNIT_EXPECT_TRUE(test, cmabuf_area_holds(cdev, base, SZ_256M));
	KUNIT_EXPECT_TRUE(test, cmabuf_area_holds(cdev, base + SZ_128M,
						  SZ_128M));
	KUNIT_EXPECT_TRUE(test, cmabuf_area_holds(cdev, end + 1 - PAGE_SIZE,
						  PAGE_SIZE));
	KUNIT_EXPECT_FALSE(test, cmabuf_area_holds(cdev, base - PAGE_SIZE,
						   2 * PAGE_SIZE));
	KUNIT_EXPECT_FALSE(test, cmabuf_area_holds(cdev, end + 1 - PAGE_SIZE,
						   2 * PAGE_SIZE));
	KUNIT_EXPECT_FALSE(test, cmabuf_area_holds(cdev, end + 1, PAGE_SIZE));
	KUNIT_EXPECT_FALSE(test, cmabuf_area_holds(cdev, 0, PAGE_SIZE));
	KUNIT_EXPECT_FALSE(test, cmabuf_area_holds(cdev, base, U64_MAX));
	KUNIT_EXPECT_FALSE(test, cmabuf_area_holds(cdev, base, 0));

	cdev->base_pfn = CMABUF_PFN_UNKNOWN;
	cdev->area_end = 0;
	KUNIT_EXPECT_FALSE(test, cmabuf_area_holds(cdev, base, PAGE_SIZE));
}

static struct kunit_case cmabuf_strategy_cases[] = {
	KUNIT_CASE_PARAM(cmabuf_strategy_plan, cmabuf_plan_gen_params),
	KUNIT_CASE(cmabuf_strategy_dma_area_holds),
	{}
};

static struct kunit_suite cmabuf_strategy_suite = {
	.name = "cmabuf_strategy",
	.test_cases = cmabuf_strategy_cases,
};

/* ---- cmabuf_probe ---- */

/* Bind a nameless "cmabuf" platform device: the default area, cmabuf-<n>. */
static struct cmabuf_dev *cmabuf_probe_bind(struct kunit *test,
					    struct platform_device **ppdev)
{
	DECLARE_COMPLETION_ONSTACK(probed);
	struct platform_device *pdev;
	struct cmabuf_dev *cdev;

	if (!cmabuf_default_cma(NULL))
		kunit_skip(test, "no default CMA area");

	pdev = kunit_platform_device_alloc(test, "cmabuf", PLATFORM_DEVID_AUTO);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pdev);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_platform_device_prepare_wait_for_probe(test, pdev,
								     &probed));
	KUNIT_ASSERT_EQ(test, 0, kunit_platform_device_add(test, pdev));
	KUNIT_ASSERT_NE(test, 0, wait_for_completion_timeout(&probed, 3 * HZ));

	cdev = platform_get_drvdata(pdev);
	KUNIT_ASSERT_NOT_NULL(test, cdev);
	*ppdev = pdev;
	return cdev;
}

static void cmabuf_probe_default_area(struct kunit *test)
{
	struct platform_device *pdev;
	struct cmabuf_dev *cdev;

	cdev = cmabuf_probe_bind(test, &pdev);

	KUNIT_EXPECT_PTR_EQ(test, cmabuf_default_cma(NULL), cdev->cma);
	KUNIT_EXPECT_EQ(test, 0, strncmp(cdev->name, "cmabuf-", 7));
	KUNIT_EXPECT_GE(test, cdev->id, 0);
	KUNIT_EXPECT_FALSE(test, cdev->stable_name);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(cdev->unbound));
	KUNIT_ASSERT_NOT_NULL(test, cdev->misc.this_device);
	KUNIT_EXPECT_STREQ(test, cdev->name, dev_name(cdev->misc.this_device));
	KUNIT_EXPECT_PTR_EQ(test, &pdev->dev, cdev->misc.this_device->parent);
}

static void cmabuf_probe_buffer_outlives_unbind(struct kunit *test)
{
	struct platform_device *pdev;
	struct iosys_map map = {};
	struct cmabuf_dev *cdev;
	struct dma_buf *dmabuf;
	u64 buffers, bytes;
	u32 used = CMABUF_STRATEGY_COUNT;
	phys_addr_t phys = 0;

	cdev = cmabuf_probe_bind(test, &pdev);
	/* Kept until the end to look at the counters after unbind. */
	cmabuf_dev_get(cdev);

	dmabuf = cmabuf_dmabuf_alloc(cdev, 3 * PAGE_SIZE, 0,
				     CMABUF_STRATEGY_AUTO, O_RDWR, NULL, true,
				     &used);
	if (IS_ERR(dmabuf)) {
		cmabuf_dev_put(cdev);
		KUNIT_FAIL(test, "allocation failed: %pe", dmabuf);
		return;
	}
	KUNIT_EXPECT_EQ(test, (size_t)(3 * PAGE_SIZE), dmabuf->size);
	KUNIT_EXPECT_NE(test, CMABUF_STRATEGY_COUNT, used);
	KUNIT_EXPECT_NE(test, CMABUF_STRATEGY_COMPOUND, used);
	KUNIT_EXPECT_STREQ(test, cdev->name, dmabuf->exp_name);
	KUNIT_EXPECT_EQ(test, 0, strncmp(dmabuf->exp_name, "cmabuf-", 7));

	KUNIT_EXPECT_EQ(test, 0, dma_buf_vmap_unlocked(dmabuf, &map));
	if (!iosys_map_is_null(&map)) {
		KUNIT_EXPECT_NULL(test, memchr_inv(map.vaddr, 0, dmabuf->size));
		dma_buf_vunmap_unlocked(dmabuf, &map);
	}
	KUNIT_EXPECT_EQ(test, 0, cmabuf_dmabuf_phys(dmabuf, &phys));
	KUNIT_EXPECT_NE(test, 0ULL, (u64)phys);
	KUNIT_EXPECT_TRUE(test, IS_ALIGNED(phys, PAGE_SIZE));

	cmabuf_stats_live(cdev, &buffers, &bytes);
	KUNIT_EXPECT_EQ(test, 1ULL, buffers);
	KUNIT_EXPECT_EQ(test, (u64)(3 * PAGE_SIZE), bytes);

	device_release_driver(&pdev->dev);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(cdev->unbound));
	KUNIT_EXPECT_NULL(test, platform_get_drvdata(pdev));

	/* A kthread's fput() is deferred: flush it. */
	dma_buf_put(dmabuf);
	flush_delayed_fput();
	cmabuf_stats_live(cdev, &buffers, &bytes);
	KUNIT_EXPECT_EQ(test, 0ULL, buffers);
	KUNIT_EXPECT_EQ(test, 0ULL, bytes);
	cmabuf_dev_put(cdev);
}

static struct dma_buf *cmabuf_probe_alloc_unprivileged(struct cmabuf_dev *cdev,
						       unsigned long pages)
{
	return cmabuf_dmabuf_alloc(cdev, pages * PAGE_SIZE, 0,
				   CMABUF_STRATEGY_AUTO, O_RDWR, NULL, false,
				   NULL);
}

/* The cap: EDQUOT past it, none for CAP_SYS_ADMIN; back after the unbind. */
static void cmabuf_probe_cap_charged_buffer_outlives_unbind(struct kunit *test)
{
	struct dma_buf *charged, *other;
	struct platform_device *pdev;
	struct cmabuf_dev *cdev;
	u64 buffers, bytes;

	cdev = cmabuf_probe_bind(test, &pdev);
	cmabuf_dev_get(cdev);
	KUNIT_EXPECT_EQ(test, 0ULL, READ_ONCE(cdev->unprivileged_max_bytes));
	WRITE_ONCE(cdev->unprivileged_max_bytes, 4 * PAGE_SIZE);

	charged = cmabuf_probe_alloc_unprivileged(cdev, 3);
	if (IS_ERR(charged)) {
		cmabuf_dev_put(cdev);
		KUNIT_FAIL(test, "allocation failed: %pe", charged);
		return;
	}
	KUNIT_EXPECT_EQ(test, (s64)(3 * PAGE_SIZE),
			atomic64_read(&cdev->unprivileged_bytes));

	other = cmabuf_probe_alloc_unprivileged(cdev, 2);
	KUNIT_EXPECT_EQ(test, -EDQUOT, PTR_ERR_OR_ZERO(other));
	if (!IS_ERR(other))
		dma_buf_put(other);
	KUNIT_EXPECT_EQ(test, (s64)(3 * PAGE_SIZE),
			atomic64_read(&cdev->unprivileged_bytes));
	cmabuf_stats_live(cdev, &buffers, &bytes);
	KUNIT_EXPECT_EQ(test, 1ULL, buffers);

	other = cmabuf_dmabuf_alloc(cdev, 2 * PAGE_SIZE, 0,
				    CMABUF_STRATEGY_AUTO, O_RDWR, NULL, true,
				    NULL);
	KUNIT_EXPECT_FALSE(test, IS_ERR(other));
	if (!IS_ERR(other)) {
		KUNIT_EXPECT_EQ(test, (s64)(3 * PAGE_SIZE),
				atomic64_read(&cdev->unprivileged_bytes));
		dma_buf_put(other);
		flush_delayed_fput();
	}

	device_release_driver(&pdev->dev);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(cdev->unbound));
	KUNIT_EXPECT_EQ(test, (s64)(3 * PAGE_SIZE),
			atomic64_read(&cdev->unprivileged_bytes));

	dma_buf_put(charged);
	flush_delayed_fput();
	KUNIT_EXPECT_EQ(test, 0LL, atomic64_read(&cdev->unprivileged_bytes));
	cmabuf_stats_live(cdev, &buffers, &bytes);
	KUNIT_EXPECT_EQ(test, 0ULL, buffers);
	KUNIT_EXPECT_EQ(test, 0ULL, bytes);
	cmabuf_dev_put(cdev);
}

/* Without a node the device is not coherent on arm64: syncs and WC. */
static void cmabuf_probe_dma_setup(struct kunit *test)
{
	struct platform_device *pdev;
	struct cmabuf_dev *cdev;
	bool syncs;

	cdev = cmabuf_probe_bind(test, &pdev);
	KUNIT_ASSERT_NOT_NULL(test, pdev->dev.dma_mask);
	KUNIT_EXPECT_EQ(test, DMA_BIT_MASK(64), *pdev->dev.dma_mask);
	KUNIT_EXPECT_EQ(test, DMA_BIT_MASK(64), pdev->dev.coherent_dma_mask);
	KUNIT_EXPECT_TRUE(test, cdev->dev_dma);
	KUNIT_EXPECT_EQ(test, 0U, cmabuf_dma_bits(cdev->area_end));
	if (IS_ENABLED(CONFIG_ARM64))
		KUNIT_EXPECT_FALSE(test, dev_is_dma_coherent(&pdev->dev));
	syncs = !dev_is_dma_coherent(&pdev->dev) &&
		!is_swiotlb_force_bounce(&pdev->dev);
	KUNIT_EXPECT_EQ(test, syncs ? CMABUF_INFO_CACHE_SYNC |
				      CMABUF_INFO_WRITECOMBINE : 0,
			cmabuf_dmabuf_cache_flags(cdev));

	/* Without a buffer, nothing else keeps the instance past the unbind. */
	cmabuf_dev_get(cdev);
	device_release_driver(&pdev->dev);
	KUNIT_EXPECT_FALSE(test, cdev->dev_dma);
	cmabuf_dev_put(cdev);
}

static bool cmabuf_probe_vma_wc(struct kunit *test, unsigned long addr)
{
	struct vm_area_struct *vma;
	bool wc;

	mmap_read_lock(current->mm);
	vma = find_vma(current->mm, addr);
	KUNIT_ASSERT_NOT_NULL(test, vma);
	wc = pgprot_val(vma->vm_page_prot) ==
	     pgprot_val(pgprot_writecombine(vma->vm_page_prot));
	mmap_read_unlock(current->mm);
	return wc;
}

/* Both of a WC buffer's mappings are WC and see the same bytes. */
static void cmabuf_probe_wc_mappings(struct kunit *test)
{
	const size_t size = 4 * PAGE_SIZE;
	struct dma_buf *plain, *wc_buf;
	struct platform_device *pdev;
	struct iosys_map map = {};
	struct cmabuf_dev *cdev;
	unsigned long addr;
	u32 word = 0;

	cdev = cmabuf_probe_bind(test, &pdev);
	if (!(cmabuf_dmabuf_cache_flags(cdev) & CMABUF_INFO_WRITECOMBINE))
		kunit_skip(test, "the instance's device is coherent or bounces");

	plain = cmabuf_dmabuf_alloc(cdev, size, 0, CMABUF_STRATEGY_AUTO,
				    O_RDWR, NULL, true, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(plain));
	wc_buf = cmabuf_dmabuf_alloc(cdev, size, 0, CMABUF_STRATEGY_AUTO,
				     O_RDWR, NULL, true, NULL);
	if (IS_ERR(wc_buf)) {
		dma_buf_put(plain);
		KUNIT_FAIL(test, "allocation failed: %pe", wc_buf);
		return;
	}
	KUNIT_EXPECT_TRUE(test, cmabuf_dmabuf_writecombine(wc_buf));

	KUNIT_EXPECT_EQ(test, 0, dma_buf_vmap_unlocked(wc_buf, &map));
	if (!iosys_map_is_null(&map)) {
		KUNIT_EXPECT_TRUE(test, is_vmalloc_addr(map.vaddr));
		KUNIT_EXPECT_NULL(test, memchr_inv(map.vaddr, 0, size));
		iosys_map_wr(&map, PAGE_SIZE, u32, 0xc0ffee);
		dma_buf_vunmap_unlocked(wc_buf, &map);
	}

	addr = kunit_vm_mmap(test, wc_buf->file, 0, size,
			     PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	KUNIT_ASSERT_NE(test, 0UL, addr);
	KUNIT_EXPECT_TRUE(test, cmabuf_probe_vma_wc(test, addr));
	KUNIT_EXPECT_EQ(test, 0UL,
			copy_from_user(&word, (void __user *)(addr + PAGE_SIZE),
				       sizeof(word)));
	KUNIT_EXPECT_EQ(test, 0xc0ffeeU, word);

	addr = kunit_vm_mmap(test, plain->file, 0, size,
			     PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	KUNIT_ASSERT_NE(test, 0UL, addr);
	KUNIT_EXPECT_FALSE(test, cmabuf_probe_vma_wc(test, addr));

	dma_buf_put(wc_buf);
	dma_buf_put(plain);
	flush_delayed_fput();
}

static struct kunit_case cmabuf_probe_cases[] = {
	KUNIT_CASE(cmabuf_probe_default_area),
	KUNIT_CASE(cmabuf_probe_buffer_outlives_unbind),
	KUNIT_CASE(cmabuf_probe_cap_charged_buffer_outlives_unbind),
	KUNIT_CASE(cmabuf_probe_dma_setup),
	KUNIT_CASE(cmabuf_probe_wc_mappings),
	{}
};

static struct kunit_suite cmabuf_probe_suite = {
	.name = "cmabuf_probe",
	.test_cases = cmabuf_probe_cases,
};

/* ---- cmabuf_pool_reclaim: the shrinker, called as reclaim calls it ---- */

/* 5 MiB in all: within the default area's share (prepare_default_percent). */
#define CMABUF_RECLAIM_SMALL	SZ_256K
#define CMABUF_RECLAIM_SMALL_N	4
#define CMABUF_RECLAIM_BIG	SZ_4M
#define CMABUF_RECLAIM_ASK	128		/* do_shrink_slab()'s batch */

/* @count buffers of @size ready for @owner on @cdev. */
static void cmabuf_reclaim_prepare(struct kunit *test, struct cmabuf_dev *cdev,
				   const void *owner, u64 size,
				   unsigned int count)
{
	struct cmabuf_limits lim;
	struct cmabuf_plan plan;

	cmabuf_dev_limits(cdev, &lim);
	KUNIT_ASSERT_EQ(test, 0, cmabuf_plan_make(&lim, size, 0,
						  CMABUF_STRATEGY_AUTO, &plan));
	KUNIT_ASSERT_GE(test, cmabuf_pool_want(cdev, owner, &plan,
					       CMABUF_STRATEGY_AUTO, 0, count,
					       3600 * 1000, true), 0);
	KUNIT_ASSERT_EQ(test, (int)count,
			cmabuf_pool_wait_ready(cdev, owner, &plan,
					       CMABUF_STRATEGY_AUTO, 0));
}

static void cmabuf_reclaim_drop(struct cmabuf_dev *cdev, const void *owner,
				u64 size)
{
	struct cmabuf_limits lim;
	struct cmabuf_plan plan;

	cmabuf_dev_limits(cdev, &lim);
	if (!cmabuf_plan_make(&lim, size, 0, CMABUF_STRATEGY_AUTO, &plan))
		cmabuf_pool_want(cdev, owner, &plan, CMABUF_STRATEGY_AUTO, 0, 0,
				 0, true);
}

/*
 * Only to reclaim that can use CMA's pages, no more than it asked for; the
 * big buffer, prepared first, goes once the calls have asked for that much.
 */
static void cmabuf_pool_reclaim_in_proportion(struct kunit *test)
{
	unsigned long asked = 0, freed = 0, ret, count, small_pages;
	struct shrink_control sc = { .nid = 0 };
	unsigned long big_at = 0, smalls_before_big = 0;
	struct platform_device *pdev;
	struct cmabuf_dev *cdev;
	struct shrinker *shrinker;
	int big_owner, small_owner;

	cdev = cmabuf_probe_bind(test, &pdev);
	shrinker = cmabuf_pool_shrinker(cdev);
	KUNIT_ASSERT_NOT_NULL(test, shrinker);
	small_pages = CMABUF_RECLAIM_SMALL >> PAGE_SHIFT;
	if (small_pages > (CMABUF_RECLAIM_BIG >> PAGE_SHIFT) / 8 ||
	    (CMABUF_RECLAIM_BIG >> PAGE_SHIFT) <= CMABUF_RECLAIM_ASK)
		kunit_skip(test, "pages too large for the sizes of this test");

	cmabuf_reclaim_prepare(test, cdev, &big_owner, CMABUF_RECLAIM_BIG, 1);
	cmabuf_reclaim_prepare(test, cdev, &small_owner, CMABUF_RECLAIM_SMALL,
			       CMABUF_RECLAIM_SMALL_N);

	/* drop_caches and unmovable allocations: nothing to give. */
	sc.gfp_mask = GFP_KERNEL;
	sc.nr_to_scan = CMABUF_RECLAIM_ASK;
	KUNIT_EXPECT_EQ(test, 0UL, shrinker->count_objects(shrinker, &sc));
	KUNIT_EXPECT_EQ(test, SHRINK_STOP,
			shrinker->scan_objects(shrinker, &sc));

	sc.gfp_mask = GFP_HIGHUSER_MOVABLE;
	count = shrinker->count_objects(shrinker, &sc);
	KUNIT_EXPECT_EQ(test, (CMABUF_RECLAIM_BIG >> PAGE_SHIFT) +
			CMABUF_RECLAIM_SMALL_N * small_pages, count);
	while (freed < count && asked < 4 * count) {
		sc.nr_to_scan = CMABUF_RECLAIM_ASK;
		sc.nr_scanned = CMABUF_RECLAIM_ASK;
		ret = shrinker->scan_objects(shrinker, &sc);
		if (ret == SHRINK_STOP)
			break;
		asked += CMABUF_RECLAIM_ASK;
		freed += ret;
		KUNIT_EXPECT_EQ(test, (unsigned long)CMABUF_RECLAIM_ASK,
				sc.nr_scanned);
		KUNIT_ASSERT_LE_MSG(test, freed, asked,
				    "%lu pages given back for %lu asked", freed,
				    asked);
		if (!big_at && ret >= (CMABUF_RECLAIM_BIG >> PAGE_SHIFT)) {
			big_at = asked;
			smalls_before_big = (freed - ret) / small_pages;
		}
	}
	KUNIT_EXPECT_EQ(test, count, freed);
	KUNIT_EXPECT_GE(test, big_at,
			(unsigned long)(CMABUF_RECLAIM_BIG >> PAGE_SHIFT));
	/* Covered first, the small ones went before it. */
	KUNIT_EXPECT_GT(test, smalls_before_big, 0UL);
	kunit_info(test, "4 MiB back once %lu pages were asked, after %lu of 256 KiB; all %lu pages for %lu asked",
		   big_at, smalls_before_big, freed, asked);

	cmabuf_reclaim_drop(cdev, &big_owner, CMABUF_RECLAIM_BIG);
	cmabuf_reclaim_drop(cdev, &small_owner, CMABUF_RECLAIM_SMALL);
}

static struct kunit_case cmabuf_pool_reclaim_cases[] = {
	KUNIT_CASE(cmabuf_pool_reclaim_in_proportion),
	{}
};

static struct kunit_suite cmabuf_pool_reclaim_suite = {
	.name = "cmabuf_pool_reclaim",
	.test_cases = cmabuf_pool_reclaim_cases,
};

/* ---- cmabuf_sg ---- */

/* An importer without limits, as the test importer sets itself up. */
static const struct cmabuf_sg_limits cmabuf_sg_none = {
	.max_len = UINT_MAX & PAGE_MASK,
	.boundary = ULONG_MAX,
};

/* A PCI device that never set its DMA parameters. */
static const struct cmabuf_sg_limits cmabuf_sg_pci = {
	.max_len = SZ_64K,
	.boundary = 0xffffffffUL,
};

/* Without limits, any buffer is one entry: the table's size is constant. */
static void cmabuf_sg_count_unlimited(struct kunit *test)
{
	const struct cmabuf_sg_limits *lim = &cmabuf_sg_none;

	KUNIT_EXPECT_EQ(test, 1U, cmabuf_sg_count(lim, SZ_1G, PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, 1U, cmabuf_sg_count(lim, SZ_1G, SZ_64M));
	KUNIT_EXPECT_EQ(test, 1U, cmabuf_sg_count(lim, SZ_4G, SZ_1G));
	KUNIT_EXPECT_EQ(test, 1U, cmabuf_sg_count(lim, SZ_1G, CMABUF_MAX_BYTES));
	/* Across 4 GiB: the boundary of a 32-bit mask is not this one's. */
	KUNIT_EXPECT_EQ(test, 1U, cmabuf_sg_count(lim, SZ_4G - SZ_64M, SZ_1G));
}

/* A PCI device's defaults: 64 KiB segments, none across 4 GiB. */
static void cmabuf_sg_count_pci(struct kunit *test)
{
	const struct cmabuf_sg_limits *lim = &cmabuf_sg_pci;

	KUNIT_EXPECT_EQ(test, 1U, cmabuf_sg_count(lim, SZ_1G, PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, 1U, cmabuf_sg_count(lim, SZ_1G, SZ_64K));
	KUNIT_EXPECT_EQ(test, 2U, cmabuf_sg_count(lim, SZ_1G, SZ_64K + PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, 1024U, cmabuf_sg_count(lim, SZ_1G, SZ_64M));
	KUNIT_EXPECT_EQ(test, 16384U, cmabuf_sg_count(lim, SZ_4G, SZ_1G));
	/* Not 64 KiB aligned: the segments are still 64 KiB long. */
	KUNIT_EXPECT_EQ(test, 2U,
			cmabuf_sg_count(lim, SZ_1G + PAGE_SIZE, SZ_128K));
	/* A page below 4 GiB: the first segment stops at the boundary. */
	KUNIT_EXPECT_EQ(test, 1U + DIV_ROUND_UP(SZ_128K - PAGE_SIZE, SZ_64K),
			cmabuf_sg_count(lim, SZ_4G - PAGE_SIZE, SZ_128K));
}

/* A boundary shorter than the longest segment cuts where it falls. */
static void cmabuf_sg_count_boundary(struct kunit *test)
{
	const struct cmabuf_sg_limits lim = {
		.max_len = SZ_1M,
		.boundary = SZ_2M - 1,
	};

	/* 1.5 MiB .. 3.5 MiB: 512 KiB, 1 MiB, 512 KiB. */
	KUNIT_EXPECT_EQ(test, 3U,
			cmabuf_sg_count(&lim, SZ_1M + SZ_512K, SZ_2M));
	KUNIT_EXPECT_EQ(test, 2U, cmabuf_sg_count(&lim, SZ_2M, SZ_2M));
	KUNIT_EXPECT_EQ(test, 512U, cmabuf_sg_count(&lim, SZ_1G, SZ_512M));
}

/* Every entry within the limits, together the range in order. */
static void cmabuf_sg_check_table(struct kunit *test, struct page *page,
				  u64 size, const struct cmabuf_sg_limits *lim)
{
	phys_addr_t next = page_to_phys(page);
	struct scatterlist *sg;
	struct sg_table table;
	unsigned int i;
	u64 total = 0;

	KUNIT_ASSERT_EQ(test, 0, cmabuf_sg_build(&table, page, size, lim));
	KUNIT_EXPECT_EQ(test, cmabuf_sg_count(lim, next, size),
			table.orig_nents);
	for_each_sgtable_sg(&table, sg, i) {
		KUNIT_EXPECT_EQ(test, next, sg_phys(sg));
		if (!(lim->max_len % PAGE_SIZE))
			KUNIT_EXPECT_EQ(test, 0UL, sg->length % PAGE_SIZE);
		KUNIT_EXPECT_LE(test, sg->length, lim->max_len);
		KUNIT_EXPECT_EQ(test, sg_phys(sg) & ~(u64)lim->boundary,
				(sg_phys(sg) + sg->length - 1) &
				~(u64)lim->boundary);
		next += sg->length;
		total += sg->length;
	}
	KUNIT_EXPECT_EQ(test, size, total);
	sg_free_table(&table);
}

static void cmabuf_sg_build_tables(struct kunit *test)
{
	const unsigned int order = 5;	/* 128 KiB, 128 KiB aligned */
	const struct cmabuf_sg_limits small = {
		.max_len = 3 * PAGE_SIZE,
		.boundary = 4 * PAGE_SIZE - 1,
	};
	struct page *page;

	page = alloc_pages(GFP_KERNEL, order);
	KUNIT_ASSERT_NOT_NULL(test, page);
	cmabuf_sg_check_table(test, page, PAGE_SIZE << order, &cmabuf_sg_none);
	cmabuf_sg_check_table(test, page, PAGE_SIZE << order, &cmabuf_sg_pci);
	cmabuf_sg_check_table(test, page, PAGE_SIZE << order, &small);
	/* From the second page on, so that the boundary cuts early. */
	cmabuf_sg_check_table(test, page + 1, (PAGE_SIZE << order) - PAGE_SIZE,
			      &small);
	__free_pages(page, order);
}

/* 4 KiB multiples, or a power of two below; never 0 whatever the page. */
static void cmabuf_sg_max_len_below_a_page(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 0xf000U, cmabuf_sg_max_len(0xffff));
	KUNIT_EXPECT_EQ(test, SZ_64K, cmabuf_sg_max_len(SZ_64K));
	KUNIT_EXPECT_EQ(test, 0x1f000U, cmabuf_sg_max_len(0x1ffff));
	KUNIT_EXPECT_EQ(test, SZ_4K, cmabuf_sg_max_len(SZ_4K));
	KUNIT_EXPECT_EQ(test, SZ_2K, cmabuf_sg_max_len(0xfff));
	KUNIT_EXPECT_EQ(test, 512U, cmabuf_sg_max_len(512));
	KUNIT_EXPECT_EQ(test, 0U, cmabuf_sg_max_len(511));
	KUNIT_EXPECT_EQ(test, UINT_MAX & ~(SZ_4K - 1U),
			cmabuf_sg_max_len(SIZE_MAX));
}

static struct device *cmabuf_sg_device(struct kunit *test,
				       unsigned int max_seg,
				       unsigned long boundary)
{
	struct platform_device *pdev;

	pdev = kunit_platform_device_alloc(test, "cmabuf-kunit-importer",
					   PLATFORM_DEVID_AUTO);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pdev);
	KUNIT_ASSERT_EQ(test, 0, dma_coerce_mask_and_coherent(&pdev->dev,
							      DMA_BIT_MASK(64)));
	KUNIT_ASSERT_NOT_NULL(test, pdev->dev.dma_parms);
	dma_set_max_seg_size(&pdev->dev, max_seg);
	dma_set_seg_boundary(&pdev->dev, boundary);
	return &pdev->dev;
}

/* A max_seg_size below the page gets sub-page entries, not EINVAL. */
static void cmabuf_sg_limits_of_short_segments(struct kunit *test)
{
	const unsigned int order = get_order(SZ_128K);
	struct cmabuf_sg_limits lim;
	struct device *dev;
	struct page *page;

	dev = cmabuf_sg_device(test, 0xffff, ULONG_MAX);
	KUNIT_ASSERT_EQ(test, 0, cmabuf_sg_limits_get(dev, &lim));
	KUNIT_EXPECT_EQ(test, 0xf000U, lim.max_len);

	dev = cmabuf_sg_device(test, 0xfff, 0xffffffffUL);
	KUNIT_ASSERT_EQ(test, 0, cmabuf_sg_limits_get(dev, &lim));
	KUNIT_EXPECT_EQ(test, SZ_2K, lim.max_len);
	KUNIT_EXPECT_EQ(test, 0xffffffffUL, lim.boundary);

	page = alloc_pages(GFP_KERNEL, order);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_EXPECT_EQ(test, (unsigned int)(PAGE_SIZE << order) / SZ_2K,
			cmabuf_sg_count(&lim, page_to_phys(page),
					PAGE_SIZE << order));
	cmabuf_sg_check_table(test, page, PAGE_SIZE << order, &lim);
	dev = cmabuf_sg_device(test, 0xffff, ULONG_MAX);
	KUNIT_ASSERT_EQ(test, 0, cmabuf_sg_limits_get(dev, &lim));
	cmabuf_sg_check_table(test, page, PAGE_SIZE << order, &lim);
	__free_pages(page, order);

	dev = cmabuf_sg_device(test, 0xffff, SZ_256 - 1);
	KUNIT_EXPECT_EQ(test, -EINVAL, cmabuf_sg_limits_get(dev, &lim));
}

static struct kunit_case cmabuf_sg_cases[] = {
	KUNIT_CASE(cmabuf_sg_max_len_below_a_page),
	KUNIT_CASE(cmabuf_sg_limits_of_short_segments),
	KUNIT_CASE(cmabuf_sg_count_unlimited),
	KUNIT_CASE(cmabuf_sg_count_pci),
	KUNIT_CASE(cmabuf_sg_count_boundary),
	KUNIT_CASE(cmabuf_sg_build_tables),
	{}
};

static struct kunit_suite cmabuf_sg_suite = {
	.name = "cmabuf_sg",
	.test_cases = cmabuf_sg_cases,
};

/* ---- cmabuf_dma ---- */

static void cmabuf_dma_bits_of_ends(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 0U, cmabuf_dma_bits(0));
	KUNIT_EXPECT_EQ(test, 32U, cmabuf_dma_bits(0xffffffffULL));
	KUNIT_EXPECT_EQ(test, 31U, cmabuf_dma_bits(0x4fffffffULL));
	/* The test bed's large-pool: the GiB at 4 GiB. */
	KUNIT_EXPECT_EQ(test, 33U, cmabuf_dma_bits(0x13fffffffULL));
	KUNIT_EXPECT_EQ(test, 36U, cmabuf_dma_bits(0xfffffffffULL));
	KUNIT_EXPECT_EQ(test, 40U, cmabuf_dma_bits(0xffffffffffULL));
}

/* Unbound: no IOMMU, no DMA ops, the direct mapping. */
static struct device *cmabuf_dma_device(struct kunit *test, unsigned int bits)
{
	struct platform_device *pdev;

	pdev = kunit_platform_device_alloc(test, "cmabuf-kunit-importer",
					   PLATFORM_DEVID_AUTO);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pdev);
	if (dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(bits)))
		kunit_skip(test, "this system takes no %u-bit DMA mask", bits);
	KUNIT_ASSERT_TRUE(test, cmabuf_dev_direct(&pdev->dev));
	return &pdev->dev;
}

static void cmabuf_dma_reach_by_mask(struct kunit *test)
{
	struct device *dev32 = cmabuf_dma_device(test, 32);
	struct device *dev64 = cmabuf_dma_device(test, 64);

	KUNIT_EXPECT_TRUE(test, cmabuf_dev_reaches(dev32, 0x80000000, SZ_4K));
	KUNIT_EXPECT_TRUE(test, cmabuf_dev_reaches(dev32, 0xfffff000, SZ_4K));
	/* Its last byte one past the mask. */
	KUNIT_EXPECT_FALSE(test, cmabuf_dev_reaches(dev32, 0xfffff000,
						    2 * SZ_4K));
	KUNIT_EXPECT_FALSE(test, cmabuf_dev_reaches(dev32, 0x100000000ULL,
						    SZ_4K));
	KUNIT_EXPECT_TRUE(test, cmabuf_dev_reaches(dev64, 0x100000000ULL,
						   SZ_1G));
}

static struct kunit_case cmabuf_dma_cases[] = {
	KUNIT_CASE(cmabuf_dma_bits_of_ends),
	KUNIT_CASE(cmabuf_dma_reach_by_mask),
	{}
};

static struct kunit_suite cmabuf_dma_suite = {
	.name = "cmabuf_dma",
	.test_cases = cmabuf_dma_cases,
};

/* @max_cpus: 0 for all online ones. */
struct cmabuf_zero_case {
	const char *name;
	unsigned long pages;
	unsigned int max_cpus;
};

#define MB(n)	((n) * (SZ_1M >> PAGE_SHIFT))

/* Below and above the size where other CPUs join; a short last chunk. */
static const struct cmabuf_zero_case cmabuf_zero_cases[] = {
	{ "one page, all CPUs", 1, 0 },
	{ "1 MiB, all CPUs", MB(1), 0 },
	{ "8 MiB, all CPUs", MB(8), 0 },
	{ "16 MiB and 3 pages, all CPUs", MB(16) + 3, 0 },
	{ "16 MiB and 3 pages, one CPU", MB(16) + 3, 1 },
};

KUNIT_ARRAY_PARAM_DESC(cmabuf_zero, cmabuf_zero_cases, name);

/* Dirty every byte of a range, clear it, and find no byte left dirty. */
static void cmabuf_zero_clears_every_byte(struct kunit *test)
{
	const struct cmabuf_zero_case *c = test->param_value;
	unsigned int cpus = c->max_cpus ?: num_online_cpus();
	struct cma *cma = cmabuf_default_cma(NULL);
	unsigned long i;
	struct page *page;
	int ret;

	if (!cma || !CMABUF_CMA_API)
		kunit_skip(test, "no default CMA area, or no cma_alloc()");
	page = cmabuf_cma_alloc(cma, c->pages, 0);
	KUNIT_ASSERT_NOT_NULL(test, page);

	for (i = 0; i < c->pages; i++)
		memset(page_address(page + i), 0xa5, PAGE_SIZE);
	ret = cmabuf_zero_pages(page, c->pages, cpus);
	KUNIT_EXPECT_GE(test, ret, 1);
	KUNIT_EXPECT_LE(test, ret, (int)cpus);
	for (i = 0; i < c->pages; i++) {
		if (memchr_inv(page_address(page + i), 0, PAGE_SIZE)) {
			KUNIT_FAIL(test, "page %lu of %lu not cleared", i,
				   c->pages);
			break;
		}
	}
	cmabuf_cma_release(cma, page, c->pages);
}

/* A caller the scheduler holds back, 20 ms after each of its chunks. */
static void cmabuf_zero_slow_caller(void)
{
	msleep(20);
}

/*
 * Helpers' CPU time is no cgroup's: CMABUF_ZERO_LEAD chunks each ahead of
 * the caller, and one taken as the caller's count was read.
 */
static void cmabuf_zero_helpers_wait_for_the_caller(struct kunit *test)
{
	unsigned long pages = MB(32), chunks = 16, by_caller, by_helpers;
	struct cma *cma = cmabuf_default_cma(NULL);
	struct page *page;
	int ret;

	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU: no helper");
	if (!cma || !CMABUF_CMA_API)
		kunit_skip(test, "no default CMA area, or no cma_alloc()");
	page = cmabuf_cma_alloc(cma, pages, 0);
	KUNIT_ASSERT_NOT_NULL(test, page);

	ret = cmabuf_zero_pages_paced(page, pages, 2, cmabuf_zero_slow_caller,
				      &by_caller);
	cmabuf_cma_release(cma, page, pages);
	KUNIT_ASSERT_EQ(test, ret, 2);
	KUNIT_ASSERT_LE(test, by_caller, chunks);
	by_helpers = chunks - by_caller;
	KUNIT_EXPECT_LE_MSG(test, by_helpers, by_caller + CMABUF_ZERO_LEAD + 1,
			    "the caller cleared %lu of %lu chunks", by_caller,
			    chunks);
}

static struct kunit_case cmabuf_zero_test_cases[] = {
	KUNIT_CASE_PARAM(cmabuf_zero_clears_every_byte, cmabuf_zero_gen_params),
	KUNIT_CASE(cmabuf_zero_helpers_wait_for_the_caller),
	{}
};

static struct kunit_suite cmabuf_zero_suite = {
	.name = "cmabuf_zero",
	.test_cases = cmabuf_zero_test_cases,
};

kunit_test_suites(&cmabuf_uapi_suite, &cmabuf_arith_suite,
		  &cmabuf_strategy_suite, &cmabuf_probe_suite,
		  &cmabuf_pool_reclaim_suite, &cmabuf_sg_suite,
		  &cmabuf_dma_suite, &cmabuf_zero_suite);

MODULE_DESCRIPTION("KUnit suites of cmabuf");
MODULE_LICENSE("GPL");
CMABUF_IMPORT_NS("DMA_BUF");
CMABUF_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
