// SPDX-License-Identifier: GPL-2.0
/*
 * Selftest of the cmabuf driver and its uapi (include/uapi/linux/cmabuf.h).
 *
 * Every fixture runs on one instance: /dev/cmabuf (the default CMA area),
 * /dev/cmabuf-general (256 MiB; 512 MiB with 64 KiB pages, a pageblock)
 * or /dev/cmabuf-large (1 GiB, 1 GiB-aligned). Sizes follow the page size
 * (sysconf(_SC_PAGESIZE)) and what a PMD entry maps (INFO's pmd_order).
 * Variants name the instance, the strategy and the size, so that the test
 * names show the strategy matrix: alloc.general_frozen_1m.contents_zero.
 * A fixture SKIP()s when its device is absent or the running kernel lacks
 * its strategy; that a kernel refuses what it lacks is tested on its own.
 *
 * Every fixture's teardown closes what its test left open and then expects
 * the instance's INFO counters and the CMA area's debugfs and sysfs
 * counters back at their values from before the test, once the frees in
 * flight are done (frees finish in the background: cmabuf_settle()).
 *
 * prepare, reserve and deferred cover issue 18: buffers made ready ahead
 * by a file (CMABUF_IOC_PREPARE) or the administrator (sysfs reserve),
 * served to allocations, given back (count 0, close, time-out, shrinker)
 * and never with a previous user's bytes; frees that close() does not
 * wait for, and allocations that wait for them.
 *
 * cap covers the instance's cap on the live buffers of callers without
 * CAP_SYS_ADMIN (sysfs unprivileged_max_bytes): EDQUOT past it, through
 * the misc device and the dma-heap, nothing allocated for a refusal,
 * every charge back when its buffer goes. memcg covers mem_accounting:
 * buffers charged to the allocating process's memory cgroup.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>

#include "kselftest_harness.h"
#include "cmabuf_test_util.h"
#include "reliability_util.h"
#include "kbench.h"

#define DEV_DEFAULT	"/dev/cmabuf"
#define DEV_GENERAL	"/dev/cmabuf-general"
#define DEV_LARGE	"/dev/cmabuf-large"

/* The page size: 4, 16 or 64 KiB on arm64. */
#define PAGE		((size_t)sysconf(_SC_PAGESIZE))

/* Seconds a test of a 1 GiB buffer may take under TCG. */
#define TIMEOUT_1G	300

/*
 * The skip of a test that needs PMD mappings where INFO says there are
 * none: kernels before 6.12 map no PFN range with PMD entries
 * (CONFIG_ARCH_SUPPORTS_PMD_PFNMAP), and THP may be off.
 */
#define NO_PMD_SKIP	"no PMD mappings here (INFO flags %#x): the kernel " \
			"maps PFN ranges with page entries only (before 6.12, " \
			"or THP off)"

/**
 * struct cmabuf_dev - an open instance
 * @path: its device node.
 * @fd: the device.
 * @info: its INFO when the test started.
 * @area: the name of its CMA area.
 * @start: the counters when the test started.
 */
struct cmabuf_dev {
	const char *path;
	int fd;
	struct cmabuf_info info;
	char area[CMABUF_AREA_NAME_MAX];
	struct cmabuf_counters start;
};

/**
 * struct cmabuf_buf - a buffer under test and what maps it
 * @dev: its instance.
 * @strategy: the strategy asked for.
 * @size: the size asked for.
 * @data: the ALLOC that made it.
 * @fd: the dma-buf, -1 once closed.
 * @map: its mappings, NULL when unmapped.
 * @map_len: their lengths.
 */
struct cmabuf_buf {
	struct cmabuf_dev dev;
	__u32 strategy;
	__u64 size;
	struct cmabuf_alloc_data data;
	int fd;
	void *map[2];
	size_t map_len[2];
};

/*
 * A number of the CMA area @area, as cmabuf_cma_read() reads it; a skip
 * that names what the kernel lacks where it cannot tell (no CMA debugfs,
 * and neither CMA sysfs nor the area's reserved-memory node says it).
 */
static bool cma_read(struct __test_metadata *_metadata, const char *area,
		     const char *file, unsigned long long *val)
{
	int ret = cmabuf_cma_read(area, file, val);

	if (ret == -EOPNOTSUPP)
		SKIP(return false, "CMA area %s, %s: " REL_CMA_LACKS, area, file);
	ASSERT_EQ(0, ret) TH_LOG("CMA area %s, %s", area, file);
	return true;
}

static const char * const instances[] = { DEV_GENERAL, DEV_DEFAULT, DEV_LARGE };

/*
 * Whether a missing device is a failure rather than a reason to skip: set
 * CMABUF_TEST_REQUIRE_DEVICES=1 where every instance must be there.
 */
static bool devices_required(void)
{
	const char *v = getenv("CMABUF_TEST_REQUIRE_DEVICES");

	return v && *v && strcmp(v, "0");
}

/*
 * Why there is no default instance, where the suite found the driver's
 * own refusal in the log (CMABUF_TEST_NO_DEFAULT: a kernel that does not
 * export dev_get_cma_area, such as Debian's 6.x); NULL elsewhere, where a
 * missing /dev/cmabuf fails as any missing instance.
 */
static const char *no_default(void)
{
	const char *v = getenv("CMABUF_TEST_NO_DEFAULT");

	return v && *v ? v : NULL;
}

/*
 * Said once per area and program where the area's pages cannot be read:
 * the tests then compare the instance's own counters only (INFO's live
 * buffers and bytes), and every test that needs the area's pages skips.
 */
static void cma_unknown_note(const char *area)
{
	static char said[4][CMABUF_AREA_NAME_MAX];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(said) && said[i][0]; i++)
		if (!strcmp(said[i], area))
			return;
	if (i < ARRAY_SIZE(said))
		snprintf(said[i], sizeof(said[i]), "%s", area);
	ksft_print_msg("CMA area %s: its pages are not compared: %s\n", area,
		       REL_CMA_LACKS);
}

/*
 * Open @path and read its INFO and counters. SKIP()s and returns false
 * when there is no such device, which is the case outside the guest.
 */
static bool dev_open(struct __test_metadata *_metadata,
		     struct cmabuf_dev *dev, const char *path)
{
	int err;

	dev->path = path;
	dev->fd = open(path, O_RDWR | O_CLOEXEC);
	err = dev->fd < 0 ? errno : 0;
	if (err == ENOENT && !strcmp(path, DEV_DEFAULT) && no_default())
		SKIP(return false, "%s: %s", path, no_default());
	if ((err == ENOENT || err == ENXIO || err == ENODEV) &&
	    !devices_required())
		SKIP(return false, "%s: %s (cmabuf not loaded or no such instance)",
		     path, strerror(err));
	if (err == EACCES || err == EPERM)
		SKIP(return false, "%s: %s (the tests need root)", path,
		     strerror(err));
	ASSERT_LE(0, dev->fd) TH_LOG("open %s: %s", path, strerror(err));
	ASSERT_EQ(0, cmabuf_get_info(dev->fd, &dev->info, dev->area,
				     sizeof(dev->area)));
	ASSERT_EQ(0, cmabuf_counters_read(dev->fd, dev->area, &dev->start))
		TH_LOG("counters of CMA area %s: is debugfs there?", dev->area);
	if (!dev->start.used_known)
		cma_unknown_note(dev->area);
	return true;
}

/* The first instance there is, for tests that any instance can serve. */
static bool dev_open_any(struct __test_metadata *_metadata,
			 struct cmabuf_dev *dev)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(instances); i++)
		if (!access(instances[i], F_OK) || devices_required())
			return dev_open(_metadata, dev, instances[i]);
	SKIP(return false, "no cmabuf device (cmabuf not loaded)");
}

/* The counters after @buffers more buffers of @bytes in all. */
static struct cmabuf_counters counters_plus(const struct cmabuf_dev *dev,
					    __u64 buffers, __u64 bytes)
{
	struct cmabuf_counters c = dev->start;

	if (c.used_known)
		c.cma_used_pages += bytes / PAGE;
	if (c.held_known)
		c.cma_held_pages += bytes / PAGE;
	c.live_buffers += buffers;
	c.live_bytes += bytes;
	if (dev->info.flags & CMABUF_INFO_AREA_STATS)
		c.free_bytes -= bytes;
	return c;
}

static void expect_counters(struct __test_metadata *_metadata,
			    const struct cmabuf_dev *dev,
			    const struct cmabuf_counters *want)
{
	struct cmabuf_counters now;

	ASSERT_EQ(0, cmabuf_counters_read(dev->fd, dev->area, &now));
	EXPECT_EQ(want->cma_used_pages, now.cma_used_pages);
	EXPECT_EQ(want->cma_held_pages, now.cma_held_pages);
	EXPECT_EQ(want->live_buffers, now.live_buffers);
	EXPECT_EQ(want->live_bytes, now.live_bytes);
	EXPECT_EQ(want->free_bytes, now.free_bytes);
}

/* Close the device, expecting the counters as they were at the start. */
static void dev_close(struct __test_metadata *_metadata,
		      struct cmabuf_dev *dev)
{
	expect_counters(_metadata, dev, &dev->start);
	close(dev->fd);
}

static __u64 round_up_page(__u64 size)
{
	return (size + PAGE - 1) & ~(PAGE - 1);
}

static unsigned int pages_order(__u64 pages)
{
	return __builtin_ctzll(pages);
}

/* The strategy an ALLOC of @size with @strategy must report. */
static __u32 strategy_expected(const struct cmabuf_info *info, __u32 strategy,
			       __u64 size)
{
	if (strategy == CMABUF_STRATEGY_AUTO)
		return cmabuf_auto_strategy(info, size);
	return strategy;
}

/* A variant's size: COMPOUND's smallest order on the instance. */
#define SIZE_COMPOUND_MIN	0

/* What one PMD entry maps: INFO's pmd_order, or the geometry's (8-byte entries). */
static size_t pmd_bytes(const struct cmabuf_info *info)
{
	unsigned int order = info->pmd_order;

	if (!order)
		order = __builtin_ctz(info->page_size) - 3;
	return (size_t)info->page_size << order;
}

/*
 * ALLOC a buffer of @size (%SIZE_COMPOUND_MIN: COMPOUND's smallest) with
 * @strategy from @dev, SKIP()ping as above.
 */
static bool buf_setup(struct __test_metadata *_metadata, struct cmabuf_buf *b,
		      const char *path, __u32 strategy, __u64 size)
{
	__u64 pages = round_up_page(size) / PAGE;

	b->fd = -1;
	if (!dev_open(_metadata, &b->dev, path))
		return false;
	if (!cmabuf_strategy_supported(&b->dev.info, strategy))
		SKIP(return false, "%s is not supported by this kernel (strategies %#x)",
		     cmabuf_strategy_name(strategy), b->dev.info.strategies);
	/* COMPOUND's smallest size here: a pageblock. */
	if (size == SIZE_COMPOUND_MIN) {
		size = (__u64)PAGE << b->dev.info.min_compound_order;
		pages = size / PAGE;
	}
	if (strategy == CMABUF_STRATEGY_COMPOUND &&
	    !cmabuf_compound_fits(&b->dev.info, size))
		SKIP(return false, "order %u is outside COMPOUND's orders %u..%u on %s",
		     pages_order(pages), b->dev.info.min_compound_order,
		     b->dev.info.max_compound_order, b->dev.area);
	b->strategy = strategy;
	b->size = size;
	ASSERT_EQ(0, cmabuf_alloc(b->dev.fd, size, strategy, &b->data))
		TH_LOG("ALLOC %llu bytes %s from %s", size,
		       cmabuf_strategy_name(strategy), b->dev.area);
	b->fd = b->data.fd;
	return true;
}

static void *buf_map(struct __test_metadata *_metadata, struct cmabuf_buf *b,
		     int fd, size_t len, off_t offset)
{
	int slot = b->map[0] ? 1 : 0;

	ASSERT_NULL(b->map[slot]);
	b->map[slot] = cmabuf_map(fd, len, offset);
	ASSERT_NE(MAP_FAILED, b->map[slot])
		TH_LOG("mmap %zu bytes at %lld: %s", len, (long long)offset,
		       strerror(errno));
	b->map_len[slot] = len;
	return b->map[slot];
}

static void buf_unmap(struct cmabuf_buf *b, void *map)
{
	int slot;

	if (!map)
		return;
	for (slot = 0; slot < 2; slot++) {
		if (b->map[slot] != map)
			continue;
		munmap(map, b->map_len[slot]);
		b->map[slot] = NULL;
	}
}

static void buf_close(struct cmabuf_buf *b)
{
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
}

static void buf_teardown(struct __test_metadata *_metadata,
			 struct cmabuf_buf *b)
{
	buf_unmap(b, b->map[0]);
	buf_unmap(b, b->map[1]);
	buf_close(b);
	dev_close(_metadata, &b->dev);
}

/* The behaviours that every size, 1 GiB included, must show. */

static void returns_size_and_strategy(struct __test_metadata *_metadata,
				      struct cmabuf_buf *b)
{
	__u64 want = round_up_page(b->size);
	__u32 strategy = strategy_expected(&b->dev.info, b->strategy, b->size);

	EXPECT_EQ(want, b->data.alloc_size);
	EXPECT_EQ(strategy, b->data.strategy)
		TH_LOG("asked %s, expected %s, got %s",
		       cmabuf_strategy_name(b->strategy),
		       cmabuf_strategy_name(strategy),
		       cmabuf_strategy_name(b->data.strategy));
	EXPECT_EQ((off_t)want, lseek(b->fd, 0, SEEK_END));
	EXPECT_EQ(FD_CLOEXEC, fcntl(b->fd, F_GETFD) & FD_CLOEXEC);
}

/*
 * Dirty every byte of the buffer, free it and allocate the same size
 * again: in a quiet area the new buffer gets the dirtied pages (once they
 * are back in the area: frees finish in the background), so reading zero
 * from all of it shows the driver cleared them.
 */
static void contents_zero(struct __test_metadata *_metadata,
			  struct cmabuf_buf *b)
{
	size_t len = b->data.alloc_size, off;
	unsigned char *p;

	p = buf_map(_metadata, b, b->fd, len, 0);
	memset(p, 0xa5, len);
	buf_unmap(b, p);
	buf_close(b);
	ASSERT_EQ(0, cmabuf_settle(b->dev.fd));

	ASSERT_EQ(0, cmabuf_alloc(b->dev.fd, b->size, b->strategy, &b->data));
	b->fd = b->data.fd;
	p = buf_map(_metadata, b, b->fd, len, 0);
	off = cmabuf_first_nonzero(p, len);
	ASSERT_EQ(len, off) TH_LOG("byte %zu of %zu is %#x", off, len, p[off]);
}

static void second_mapping_sees_writes(struct __test_metadata *_metadata,
				       struct cmabuf_buf *b)
{
	size_t len = b->data.alloc_size, off;
	void *first, *second;

	first = buf_map(_metadata, b, b->fd, len, 0);
	second = buf_map(_metadata, b, b->fd, len, 0);
	cmabuf_fill_pages(first, len, 1);
	off = cmabuf_check_pages(second, len, 1);
	ASSERT_EQ(len, off) TH_LOG("second mapping differs at %zu", off);
}

static void counters_restored_after_close(struct __test_metadata *_metadata,
					  struct cmabuf_buf *b)
{
	struct cmabuf_counters live;

	live = counters_plus(&b->dev, 1, b->data.alloc_size);
	expect_counters(_metadata, &b->dev, &live);
	buf_close(b);
	expect_counters(_metadata, &b->dev, &b->dev.start);
}

/*
 * alloc: instance x strategy x size, up to 64 MiB. The default area is
 * 64 MiB, so it stops at 1 MiB. COMPOUND starts at the CMA pageblock,
 * 2 MiB with 4 KiB pages, so it has 2 MiB instead of 1 MiB; its sizes
 * below a pageblock SKIP where pages are larger (32 MiB with 16 KiB, 512
 * MiB with 64 KiB), and *_compound_min allocate a pageblock everywhere.
 */
FIXTURE(alloc) {
	struct cmabuf_buf b;
};

FIXTURE_VARIANT(alloc) {
	const char *path;
	__u32 strategy;
	__u64 size;
};

FIXTURE_VARIANT_ADD(alloc, default_auto_4k) {
	.path = DEV_DEFAULT, .strategy = CMABUF_STRATEGY_AUTO, .size = SZ_4K,
};

FIXTURE_VARIANT_ADD(alloc, default_auto_1m) {
	.path = DEV_DEFAULT, .strategy = CMABUF_STRATEGY_AUTO, .size = SZ_1M,
};

FIXTURE_VARIANT_ADD(alloc, default_compound_2m) {
	.path = DEV_DEFAULT, .strategy = CMABUF_STRATEGY_COMPOUND, .size = SZ_2M,
};

FIXTURE_VARIANT_ADD(alloc, default_frozen_4k) {
	.path = DEV_DEFAULT, .strategy = CMABUF_STRATEGY_FROZEN, .size = SZ_4K,
};

FIXTURE_VARIANT_ADD(alloc, default_frozen_1m) {
	.path = DEV_DEFAULT, .strategy = CMABUF_STRATEGY_FROZEN, .size = SZ_1M,
};

FIXTURE_VARIANT_ADD(alloc, default_legacy_4k) {
	.path = DEV_DEFAULT, .strategy = CMABUF_STRATEGY_LEGACY, .size = SZ_4K,
};

FIXTURE_VARIANT_ADD(alloc, default_legacy_1m) {
	.path = DEV_DEFAULT, .strategy = CMABUF_STRATEGY_LEGACY, .size = SZ_1M,
};

FIXTURE_VARIANT_ADD(alloc, default_dma_1m) {
	.path = DEV_DEFAULT, .strategy = CMABUF_STRATEGY_DMA, .size = SZ_1M,
};

FIXTURE_VARIANT_ADD(alloc, general_auto_4k) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_AUTO, .size = SZ_4K,
};

FIXTURE_VARIANT_ADD(alloc, general_auto_1m) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_AUTO, .size = SZ_1M,
};

FIXTURE_VARIANT_ADD(alloc, general_auto_64m) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_AUTO, .size = SZ_64M,
};

FIXTURE_VARIANT_ADD(alloc, general_compound_2m) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_COMPOUND, .size = SZ_2M,
};

FIXTURE_VARIANT_ADD(alloc, general_compound_64m) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_COMPOUND, .size = SZ_64M,
};

/* A pageblock: 2 MiB, 32 MiB or (the whole area) 512 MiB. */
FIXTURE_VARIANT_ADD(alloc, general_compound_min) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_COMPOUND,
	.size = SIZE_COMPOUND_MIN,
};

FIXTURE_VARIANT_ADD(alloc, general_frozen_4k) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_FROZEN, .size = SZ_4K,
};

FIXTURE_VARIANT_ADD(alloc, general_frozen_1m) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_FROZEN, .size = SZ_1M,
};

FIXTURE_VARIANT_ADD(alloc, general_frozen_64m) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_FROZEN, .size = SZ_64M,
};

FIXTURE_VARIANT_ADD(alloc, general_legacy_4k) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_LEGACY, .size = SZ_4K,
};

FIXTURE_VARIANT_ADD(alloc, general_legacy_1m) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_LEGACY, .size = SZ_1M,
};

FIXTURE_VARIANT_ADD(alloc, general_legacy_64m) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_LEGACY, .size = SZ_64M,
};

FIXTURE_VARIANT_ADD(alloc, general_dma_4k) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_DMA, .size = SZ_4K,
};

FIXTURE_VARIANT_ADD(alloc, general_dma_1m) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_DMA, .size = SZ_1M,
};

FIXTURE_VARIANT_ADD(alloc, general_dma_64m) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_DMA, .size = SZ_64M,
};

FIXTURE_VARIANT_ADD(alloc, large_auto_1m) {
	.path = DEV_LARGE, .strategy = CMABUF_STRATEGY_AUTO, .size = SZ_1M,
};

FIXTURE_VARIANT_ADD(alloc, large_compound_2m) {
	.path = DEV_LARGE, .strategy = CMABUF_STRATEGY_COMPOUND, .size = SZ_2M,
};

FIXTURE_VARIANT_ADD(alloc, large_compound_min) {
	.path = DEV_LARGE, .strategy = CMABUF_STRATEGY_COMPOUND,
	.size = SIZE_COMPOUND_MIN,
};

FIXTURE_VARIANT_ADD(alloc, large_frozen_1m) {
	.path = DEV_LARGE, .strategy = CMABUF_STRATEGY_FROZEN, .size = SZ_1M,
};

FIXTURE_VARIANT_ADD(alloc, large_legacy_1m) {
	.path = DEV_LARGE, .strategy = CMABUF_STRATEGY_LEGACY, .size = SZ_1M,
};

FIXTURE_VARIANT_ADD(alloc, large_dma_1m) {
	.path = DEV_LARGE, .strategy = CMABUF_STRATEGY_DMA, .size = SZ_1M,
};

FIXTURE_SETUP(alloc)
{
	buf_setup(_metadata, &self->b, variant->path, variant->strategy,
		  variant->size);
}

FIXTURE_TEARDOWN(alloc)
{
	buf_teardown(_metadata, &self->b);
}

TEST_F(alloc, returns_size_and_strategy)
{
	returns_size_and_strategy(_metadata, &self->b);
}

TEST_F(alloc, contents_zero)
{
	contents_zero(_metadata, &self->b);
}

TEST_F(alloc, second_mapping_sees_writes)
{
	second_mapping_sees_writes(_metadata, &self->b);
}

TEST_F(alloc, counters_restored_after_close)
{
	counters_restored_after_close(_metadata, &self->b);
}

TEST_F(alloc, dup_keeps_data_after_close)
{
	size_t len = self->b.data.alloc_size, off;
	void *p;
	int dup_fd;

	p = buf_map(_metadata, &self->b, self->b.fd, len, 0);
	cmabuf_fill_pages(p, len, 2);
	buf_unmap(&self->b, p);
	dup_fd = dup(self->b.fd);
	ASSERT_LE(0, dup_fd);
	buf_close(&self->b);
	self->b.fd = dup_fd;

	p = buf_map(_metadata, &self->b, self->b.fd, len, 0);
	off = cmabuf_check_pages(p, len, 2);
	ASSERT_EQ(len, off) TH_LOG("data lost at %zu after dup/close", off);
}

/* A mapping holds the buffer: closing the fd must not free it. */
TEST_F(alloc, mapping_outlives_fd)
{
	size_t len = self->b.data.alloc_size, off;
	struct cmabuf_counters live;
	void *p;

	live = counters_plus(&self->b.dev, 1, len);
	p = buf_map(_metadata, &self->b, self->b.fd, len, 0);
	buf_close(&self->b);
	expect_counters(_metadata, &self->b.dev, &live);

	cmabuf_fill_pages(p, len, 3);
	off = cmabuf_check_pages(p, len, 3);
	ASSERT_EQ(len, off);
	buf_unmap(&self->b, p);
	expect_counters(_metadata, &self->b.dev, &self->b.dev.start);
}

TEST_F(alloc, mmap_offset_maps_that_page)
{
	size_t len = self->b.data.alloc_size;
	unsigned long long *all, *last;

	all = buf_map(_metadata, &self->b, self->b.fd, len, 0);
	last = buf_map(_metadata, &self->b, self->b.fd, PAGE, len - PAGE);
	last[0] = 0x1234567890abcdefULL;
	ASSERT_EQ(0x1234567890abcdefULL, all[(len - PAGE) / sizeof(*all)]);
}

TEST_F(alloc, mmap_beyond_end_einval)
{
	size_t len = self->b.data.alloc_size;

	ASSERT_EQ(MAP_FAILED, cmabuf_map(self->b.fd, len + PAGE, 0));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(MAP_FAILED, cmabuf_map(self->b.fd, PAGE, len));
	ASSERT_EQ(EINVAL, errno);
}

TEST_F(alloc, mmap_private_refused)
{
	void *p;

	p = mmap(NULL, self->b.data.alloc_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE, self->b.fd, 0);
	if (p != MAP_FAILED)
		munmap(p, self->b.data.alloc_size);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EINVAL, errno);
}

TEST_F(alloc, sync_valid_flags_work)
{
	static const __u64 dirs[] = {
		DMA_BUF_SYNC_READ, DMA_BUF_SYNC_WRITE, DMA_BUF_SYNC_RW,
	};
	struct dma_buf_sync sync;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		sync.flags = DMA_BUF_SYNC_START | dirs[i];
		ASSERT_EQ(0, cmabuf_ioctl(self->b.fd, DMA_BUF_IOCTL_SYNC,
					  &sync));
		sync.flags = DMA_BUF_SYNC_END | dirs[i];
		ASSERT_EQ(0, cmabuf_ioctl(self->b.fd, DMA_BUF_IOCTL_SYNC,
					  &sync));
	}
}

TEST_F(alloc, sync_invalid_flags_einval)
{
	struct dma_buf_sync sync;

	/* No direction, then a bit nobody defined. */
	sync.flags = DMA_BUF_SYNC_START;
	ASSERT_EQ(EINVAL, cmabuf_ioctl(self->b.fd, DMA_BUF_IOCTL_SYNC, &sync));
	sync.flags = DMA_BUF_SYNC_RW | (1ULL << 8);
	ASSERT_EQ(EINVAL, cmabuf_ioctl(self->b.fd, DMA_BUF_IOCTL_SYNC, &sync));
}

TEST_F(alloc, set_name_reads_back)
{
	const char *name = "cmabuf-selftest";
	char seen[64];

	ASSERT_EQ(0, cmabuf_ioctl(self->b.fd, DMA_BUF_SET_NAME, (void *)name));
	ASSERT_EQ(0, cmabuf_fdinfo(self->b.fd, "name", seen, sizeof(seen)));
	ASSERT_STREQ(name, seen);
}

TEST_F(alloc, fdinfo_names_instance_and_size)
{
	char seen[64];

	/* The exporter is the instance: "cmabuf", "cmabuf-general", ... */
	ASSERT_EQ(0, cmabuf_fdinfo(self->b.fd, "exp_name", seen, sizeof(seen)));
	ASSERT_STREQ(strrchr(variant->path, '/') + 1, seen);
	ASSERT_EQ(0, cmabuf_fdinfo(self->b.fd, "size", seen, sizeof(seen)));
	ASSERT_EQ(self->b.data.alloc_size, strtoull(seen, NULL, 10));
}

/*
 * mapping: CPU mappings are built by faults. Where INFO says so, a fault
 * maps a whole PMD block (2 MiB with 4 KiB pages, 32 MiB with 16 KiB) with
 * one PMD entry, and mmap() without an address picks one that lines up
 * with the buffer; partial mappings, mremap, fork and munmap of part of a
 * range must behave as with page entries. The faults a full touch takes
 * tell which entries were used: one per PMD with PMDs, one per
 * CMABUF_FAULT_AROUND_PAGES (16) pages without. The buffer is 64 MiB or
 * 16 PMDs, whichever is more, from the general area or else the large
 * one; with 64 KiB pages 16 PMDs are 8 GiB, more than the guest has, and
 * pmd_fallback tests the PMDs there.
 */
FIXTURE(mapping) {
	struct cmabuf_buf b;
	__u64 phys;
	size_t pmd;
	size_t len;
};

FIXTURE_VARIANT(mapping) {
	__u32 strategy;
};

FIXTURE_VARIANT_ADD(mapping, compound_64m) {
	.strategy = CMABUF_STRATEGY_COMPOUND,
};

FIXTURE_VARIANT_ADD(mapping, frozen_64m) {
	.strategy = CMABUF_STRATEGY_FROZEN,
};

FIXTURE_VARIANT_ADD(mapping, legacy_64m) {
	.strategy = CMABUF_STRATEGY_LEGACY,
};

/*
 * DMA cannot ask for a PMD boundary: the DMA API aligns to the buffer's
 * size but to no more than CONFIG_CMA_ALIGNMENT (1 MiB with 4 KiB pages
 * on Debian's kernels). In a quiet area the first fit is the area's PMD-
 * aligned start; elsewhere the variant SKIPs.
 */
FIXTURE_VARIANT_ADD(mapping, dma_64m) {
	.strategy = CMABUF_STRATEGY_DMA,
};

/* The INFO of @path, SKIP()ping as dev_open() does. */
static bool dev_info(struct __test_metadata *_metadata, const char *path,
		     struct cmabuf_info *info)
{
	struct cmabuf_dev dev;

	if (!dev_open(_metadata, &dev, path))
		return false;
	*info = dev.info;
	close(dev.fd);
	return true;
}

FIXTURE_SETUP(mapping)
{
	struct cmabuf_info general, large;
	struct cmabuf_phys phys;
	const char *path;

	if (!dev_info(_metadata, DEV_GENERAL, &general) ||
	    !dev_info(_metadata, DEV_LARGE, &large))
		return;
	self->pmd = pmd_bytes(&general);
	self->len = self->pmd * 16 > SZ_64M ? self->pmd * 16 : SZ_64M;
	if (self->len <= general.total_bytes)
		path = DEV_GENERAL;
	else if (self->len <= large.total_bytes)
		path = DEV_LARGE;
	else
		SKIP(return, "no area holds 16 PMDs of %zu MiB (pmd_fallback tests PMDs here)",
		     self->pmd >> 20);
	if (!buf_setup(_metadata, &self->b, path, variant->strategy,
		       self->len))
		return;
	ASSERT_EQ(0, cmabuf_phys(self->b.dev.fd, self->b.fd, &phys));
	self->phys = phys.phys;
	if (variant->strategy == CMABUF_STRATEGY_DMA && self->phys % self->pmd)
		SKIP(return, "the DMA API placed the buffer at %#llx, off a PMD boundary",
		     (unsigned long long)self->phys);
}

FIXTURE_TEARDOWN(mapping)
{
	buf_teardown(_metadata, &self->b);
}

/* Faults this process has taken so far. */
static long minor_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

/* Write one word in every page; the faults that took. */
static long touch_pages(void *map, size_t len)
{
	long before = minor_faults();
	size_t off;

	for (off = 0; off < len; off += PAGE)
		*(unsigned long long *)((char *)map + off) = off;
	return minor_faults() - before;
}

/* Do @map and the buffer's byte @off sit at the same offset into a @pmd? */
static bool lines_up(const void *map, __u64 phys, size_t off, size_t pmd)
{
	return !(((uintptr_t)map - phys - off) & (pmd - 1));
}

/* A mapping of @len bytes at buffer offset @off that lines up. */
static void *map_lined_up(struct __test_metadata *_metadata,
			  struct cmabuf_buf *b, __u64 phys, size_t len,
			  off_t off)
{
	size_t pmd = pmd_bytes(&b->dev.info);
	char *hole, *want;
	void *map;

	hole = mmap(NULL, len + pmd, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	ASSERT_NE(MAP_FAILED, hole);
	want = hole + ((phys + off - (uintptr_t)hole) & (pmd - 1));
	munmap(hole, len + pmd);
	map = mmap(want, len, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_FIXED_NOREPLACE, b->fd, off);
	ASSERT_EQ(want, map) TH_LOG("mmap at %p: %s", want, strerror(errno));
	return map;
}

TEST_F(mapping, placed_to_line_up)
{
	__u32 flags = self->b.dev.info.flags;
	void *map;

	if (!(flags & CMABUF_INFO_MMAP_PLACED))
		SKIP(return, "mmap() does not place mappings here (INFO flags %#x)",
		     flags);
	map = buf_map(_metadata, &self->b, self->b.fd, self->len, 0);
	EXPECT_TRUE(lines_up(map, self->phys, 0, self->pmd))
		TH_LOG("mapping at %p, buffer at %#llx", map, self->phys);
	map = buf_map(_metadata, &self->b, self->b.fd, self->pmd * 3, SZ_1M);
	EXPECT_TRUE(lines_up(map, self->phys, SZ_1M, self->pmd))
		TH_LOG("mapping of offset 1 MiB at %p, buffer at %#llx", map,
		       self->phys);
}

/*
 * Buffers of a PMD or more start on a PMD boundary, and mmap() places
 * by the file offset alone: the address shows nothing of the physical
 * one, which PHYS keeps behind CAP_SYS_RAWIO.
 */
TEST_F(mapping, placed_by_offset_alone)
{
	__u32 flags = self->b.dev.info.flags;
	char *map;

	EXPECT_EQ(0ULL, self->phys % self->pmd)
		TH_LOG("a %zu MiB buffer at %#llx", self->len >> 20,
		       self->phys);
	if (!(flags & CMABUF_INFO_MMAP_PLACED))
		SKIP(return, "mmap() does not place mappings here (INFO flags %#x)",
		     flags);
	map = buf_map(_metadata, &self->b, self->b.fd, self->pmd * 3,
		      SZ_1M + PAGE);
	EXPECT_EQ((uintptr_t)(SZ_1M + PAGE), (uintptr_t)map % self->pmd);
}

/* ptrace and /proc/PID/mem reach a mapping through vm_ops->access. */
TEST_F(mapping, proc_mem_reads_and_writes)
{
	size_t len = self->pmd + 3 * PAGE, off = self->pmd - 100;
	char want[300], got[300];
	char *map;
	int fd;

	map = buf_map(_metadata, &self->b, self->b.fd, len, 0);
	cmabuf_fill_pages(map, len, 23);
	fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	/* Across a page and a PMD boundary. */
	ASSERT_EQ((ssize_t)sizeof(got),
		  pread(fd, got, sizeof(got), (uintptr_t)map + off));
	EXPECT_EQ(0, memcmp(got, map + off, sizeof(got)));
	memset(want, 0xa5, sizeof(want));
	ASSERT_EQ((ssize_t)sizeof(want),
		  pwrite(fd, want, sizeof(want), (uintptr_t)map + off));
	EXPECT_EQ(0, memcmp(want, map + off, sizeof(want)));
	close(fd);
}

TEST_F(mapping, one_fault_per_pmd_when_lined_up)
{
	size_t len = self->len;
	long faults, limit;
	void *map;

	map = map_lined_up(_metadata, &self->b, self->phys, len, 0);
	faults = touch_pages(map, len);
	munmap(map, len);
	/* With PMDs: one per PMD, 16 pages at each unaligned end. */
	limit = len / self->pmd + 2 * (self->pmd / PAGE / 16) + 4;
	if (!(self->b.dev.info.flags & CMABUF_INFO_MMAP_PMD))
		limit = len / PAGE / 16 + 4;
	EXPECT_GE(limit, faults)
		TH_LOG("%ld faults to touch %zu pages (flags %#x)", faults,
		       len / (size_t)PAGE, self->b.dev.info.flags);
	/* A fresh mapping has nothing mapped: each PMD block must fault. */
	EXPECT_LE((long)(len / self->pmd), faults);
}

/*
 * INFO's PMD flag is the caller's: a process that turned THP off is told
 * it gets page entries, and it does (a fault per 16 pages, none per PMD).
 */
TEST_F(mapping, pmd_flag_follows_thp_disable)
{
	size_t len = self->len;
	int status;
	pid_t pid;

	if (!(self->b.dev.info.flags & CMABUF_INFO_MMAP_PMD))
		SKIP(return, NO_PMD_SKIP,
		     self->b.dev.info.flags);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct cmabuf_info info;
		char name[64];
		long faults;
		void *map;

		if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
			_exit(10);
		if (cmabuf_get_info(self->b.dev.fd, &info, name, sizeof(name)))
			_exit(11);
		if (info.flags & CMABUF_INFO_MMAP_PMD)
			_exit(12);
		map = map_lined_up(_metadata, &self->b, self->phys, len, 0);
		faults = touch_pages(map, len);
		_exit(faults >= (long)(len / PAGE / 16) ? 0 : 13);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("10 prctl, 11 INFO, 12 PMD flag set, 13 PMD entries used");
}

TEST_F(mapping, fault_around_when_not_lined_up)
{
	size_t len = self->len - self->pmd;
	long faults;
	void *map;

	/* Off by one page: no PMD block lines up. */
	map = map_lined_up(_metadata, &self->b, self->phys + PAGE, len, 0);
	faults = touch_pages(map, len);
	munmap(map, len);
	EXPECT_GE((long)(len / PAGE / 16 + 4), faults);
	EXPECT_LE((long)(len / PAGE / 16), faults)
		TH_LOG("%ld faults for %zu pages: PMDs where none line up?",
		       faults, len / (size_t)PAGE);
}

/* The window around a fault is aligned: touched downwards, as many faults. */
TEST_F(mapping, fault_around_downwards)
{
	size_t len = self->pmd * 4, off;
	long before, faults;
	char *map;

	map = map_lined_up(_metadata, &self->b, self->phys + PAGE, len, 0);
	before = minor_faults();
	for (off = len; off; off -= PAGE)
		*(unsigned long long *)(map + off - PAGE) = off;
	faults = minor_faults() - before;
	munmap(map, len);
	EXPECT_GE((long)(len / PAGE / 16 + 4), faults);
	EXPECT_LE((long)(len / PAGE / 16), faults);
}

/*
 * A page fault maps the pages around it, but not into the next PMD block,
 * which a PMD may map already: here the upper block is touched first,
 * then the last page below it (a DEBUG_VM kernel BUGs on a PTE put where
 * a PMD maps).
 */
TEST_F(mapping, fault_around_stops_at_pmd)
{
	size_t len = 2 * self->pmd - PAGE;
	char *map, *all;

	all = buf_map(_metadata, &self->b, self->b.fd, 2 * self->pmd, 0);
	cmabuf_fill_pages(all, 2 * self->pmd, 17);
	/* Buffer bytes a page to 2 PMDs: only the upper block can be a PMD. */
	map = map_lined_up(_metadata, &self->b, self->phys, len, PAGE);
	EXPECT_EQ(all[self->pmd], map[self->pmd - PAGE]);
	EXPECT_EQ(all[self->pmd - PAGE], map[self->pmd - 2 * PAGE]);
	EXPECT_EQ(0, memcmp(map, all + PAGE, len));
	munmap(map, len);
}

TEST_F(mapping, partial_mapping_sees_buffer)
{
	size_t off = self->pmd + SZ_1M + PAGE, len = 5 * self->pmd;
	char *all, *part;

	all = buf_map(_metadata, &self->b, self->b.fd, self->len, 0);
	cmabuf_fill_pages(all, self->len, 11);
	part = buf_map(_metadata, &self->b, self->b.fd, len, off);
	ASSERT_EQ(0, memcmp(part, all + off, len));
	part[len - 1] = 0x5a;
	ASSERT_EQ(0x5a, all[off + len - 1]);
}

TEST_F(mapping, mremap_moves_mapping)
{
	size_t len = 8 * self->pmd;
	char *map, *dest, *moved;

	map = map_lined_up(_metadata, &self->b, self->phys, len, 0);
	cmabuf_fill_pages(map, len, 12);
	/* Somewhere that does not line up, so PMDs must be split. */
	dest = mmap(NULL, len + self->pmd, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, dest);
	moved = mremap(map, len, len, MREMAP_MAYMOVE | MREMAP_FIXED,
		       dest + PAGE);
	if (moved == MAP_FAILED)
		munmap(map, len);
	ASSERT_EQ(dest + PAGE, moved) TH_LOG("mremap: %s", strerror(errno));
	munmap(dest, PAGE);
	EXPECT_EQ(len, cmabuf_check_pages(moved, len, 12));
	cmabuf_fill_pages(moved, len, 13);
	map = buf_map(_metadata, &self->b, self->b.fd, len, 0);
	EXPECT_EQ(len, cmabuf_check_pages(map, len, 13));
	munmap(moved, len);
	munmap(dest + PAGE + len, self->pmd - PAGE);
}

TEST_F(mapping, mremap_growing_refused)
{
	void *map, *grown;

	map = buf_map(_metadata, &self->b, self->b.fd, self->pmd, 0);
	grown = mremap(map, self->pmd, 2 * self->pmd, MREMAP_MAYMOVE);
	ASSERT_EQ(MAP_FAILED, grown);
	ASSERT_EQ(EFAULT, errno);
}

TEST_F(mapping, fork_child_shares_mapping)
{
	size_t len = 4 * self->pmd;
	char *map;
	int status;
	pid_t pid;

	map = map_lined_up(_metadata, &self->b, self->phys, len, 0);
	cmabuf_fill_pages(map, len, 14);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (cmabuf_check_pages(map, len, 14) != len)
			_exit(1);
		cmabuf_fill_pages(map, len, 15);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("child saw other contents (status %#x)", status);
	EXPECT_EQ(len, cmabuf_check_pages(map, len, 15));
	munmap(map, len);
}

TEST_F(mapping, munmap_part_keeps_rest)
{
	size_t len = 4 * self->pmd, hole = self->pmd + SZ_1M;
	size_t rest = hole + self->pmd;
	char *map, *all;
	int status;
	pid_t pid;

	map = map_lined_up(_metadata, &self->b, self->phys, len, 0);
	all = buf_map(_metadata, &self->b, self->b.fd, len, 0);
	cmabuf_fill_pages(map, len, 16);
	/* From the middle of one PMD to the middle of the next. */
	ASSERT_EQ(0, munmap(map + hole, self->pmd));
	EXPECT_EQ(0, memcmp(map, all, hole));
	EXPECT_EQ(0, memcmp(map + rest, all + rest, len - rest));
	map[0] = 0x3c;
	map[len - 1] = 0x3d;
	EXPECT_EQ(0x3c, all[0]);
	EXPECT_EQ(0x3d, all[len - 1]);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		map[hole + PAGE] = 1;
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV)
		TH_LOG("a store into the hole gave status %#x", status);
	munmap(map, hole);
	munmap(map + rest, len - rest);
}

/*
 * pmd_fallback: a buffer of two PMDs from the large area (4 MiB, 64 MiB,
 * or with 64 KiB pages 1 GiB, where the PMD level is folded and
 * PTRS_PER_PMD is 1), on a PMD boundary. Mapped one page off lining up,
 * the one PMD block inside the mapping meets buffer pages that do not
 * start on a PMD boundary: huge_fault must fall back to page entries, and
 * every page must show its own bytes. A PMD entry there would map the
 * aligned block below, a page of another offset at every address, the
 * buffer's first page shifted or memory outside the buffer. Lined up, the
 * same buffer gets a PMD entry per block.
 */
FIXTURE(pmd_fallback) {
	struct cmabuf_buf b;
	__u64 phys;
	size_t pmd;
};

FIXTURE_VARIANT(pmd_fallback) {
	__u32 strategy;
};

FIXTURE_VARIANT_ADD(pmd_fallback, frozen) {
	.strategy = CMABUF_STRATEGY_FROZEN,
};

FIXTURE_VARIANT_ADD(pmd_fallback, compound) {
	.strategy = CMABUF_STRATEGY_COMPOUND,
};

FIXTURE_SETUP(pmd_fallback)
{
	struct cmabuf_info large;
	struct cmabuf_phys phys;

	if (!dev_info(_metadata, DEV_LARGE, &large))
		return;
	self->pmd = pmd_bytes(&large);
	if (!buf_setup(_metadata, &self->b, DEV_LARGE, variant->strategy,
		       2 * self->pmd))
		return;
	ASSERT_EQ(0, cmabuf_phys(self->b.dev.fd, self->b.fd, &phys));
	self->phys = phys.phys;
	ASSERT_EQ(0ULL, self->phys % self->pmd)
		TH_LOG("a buffer of two %zu MiB PMDs at %#llx",
		       self->pmd >> 20, self->phys);
}

FIXTURE_TEARDOWN(pmd_fallback)
{
	buf_teardown(_metadata, &self->b);
}

/* Check the marks of cmabuf_fill_pages() through @map; the faults taken. */
static long check_counting_faults(struct __test_metadata *_metadata,
				  const void *map, size_t len,
				  unsigned long long seed)
{
	long before = minor_faults();
	size_t off;

	off = cmabuf_check_pages(map, len, seed);
	EXPECT_EQ(len, off)
		TH_LOG("byte %zu shows another page's bytes (%#llx)", off,
		       *(const unsigned long long *)((const char *)map + off));
	return minor_faults() - before;
}

TEST_F(pmd_fallback, misaligned_block_falls_back)
{
	size_t len = 2 * self->pmd;
	long faults;
	char *map;

	map = buf_map(_metadata, &self->b, self->b.fd, len, 0);
	cmabuf_fill_pages(map, len, 31);
	buf_unmap(&self->b, map);
	/* The block at mapping offset pmd - page holds no PMD boundary. */
	map = map_lined_up(_metadata, &self->b, self->phys + PAGE, len, 0);
	faults = check_counting_faults(_metadata, map, len, 31);
	munmap(map, len);
	EXPECT_LE((long)(len / PAGE / 16), faults)
		TH_LOG("%ld faults for %zu pages: a PMD where none lines up?",
		       faults, len / PAGE);
	EXPECT_GE((long)(len / PAGE / 16 + 4), faults);
}

TEST_F(pmd_fallback, lined_up_block_uses_pmd)
{
	size_t len = 2 * self->pmd;
	long faults;
	char *map;

	map = buf_map(_metadata, &self->b, self->b.fd, len, 0);
	cmabuf_fill_pages(map, len, 32);
	buf_unmap(&self->b, map);
	map = map_lined_up(_metadata, &self->b, self->phys, len, 0);
	faults = check_counting_faults(_metadata, map, len, 32);
	munmap(map, len);
	if (!(self->b.dev.info.flags & CMABUF_INFO_MMAP_PMD))
		SKIP(return, NO_PMD_SKIP,
		     self->b.dev.info.flags);
	EXPECT_LE(2L, faults);
	EXPECT_GE(4L, faults)
		TH_LOG("%ld faults for two %zu MiB PMD blocks", faults,
		       self->pmd >> 20);
}

/* The sysfs counters of every strategy of an instance. */
struct strategy_counts {
	unsigned long long allocations;
	unsigned long long frees;
	unsigned long long failures;
	unsigned long long interrupted;
	unsigned long long busy_retries;
	unsigned long long live_buffers;
	unsigned long long live_bytes;
};

static void strategy_counts_read(struct __test_metadata *_metadata,
				 const struct cmabuf_dev *dev,
				 struct strategy_counts *c)
{
	const char *group;
	__u32 s;

	memset(c, 0, CMABUF_STRATEGY_COUNT * sizeof(*c));
	for (s = CMABUF_STRATEGY_COMPOUND; s < CMABUF_STRATEGY_COUNT; s++) {
		group = cmabuf_stat_group(s);
		ASSERT_EQ(0, cmabuf_stat_read(dev->path, group, "allocations",
					      &c[s].allocations));
		ASSERT_EQ(0, cmabuf_stat_read(dev->path, group, "frees",
					      &c[s].frees));
		ASSERT_EQ(0, cmabuf_stat_read(dev->path, group, "failures",
					      &c[s].failures));
		ASSERT_EQ(0, cmabuf_stat_read(dev->path, group, "interrupted",
					      &c[s].interrupted));
		ASSERT_EQ(0, cmabuf_stat_read(dev->path, group, "busy_retries",
					      &c[s].busy_retries));
		ASSERT_EQ(0, cmabuf_stat_read(dev->path, group, "live_buffers",
					      &c[s].live_buffers));
		ASSERT_EQ(0, cmabuf_stat_read(dev->path, group, "live_bytes",
					      &c[s].live_bytes));
	}
}

/*
 * Every strategy's counters but @used's as they were; @used's moved by
 * @allocs allocations, @frees frees and @bytes live bytes.
 */
static void expect_strategy_counts(struct __test_metadata *_metadata,
				   const struct cmabuf_dev *dev,
				   const struct strategy_counts *before,
				   __u32 used, int allocs, int frees,
				   long long bytes)
{
	struct strategy_counts now[CMABUF_STRATEGY_COUNT];
	__u32 s;

	strategy_counts_read(_metadata, dev, now);
	for (s = CMABUF_STRATEGY_COMPOUND; s < CMABUF_STRATEGY_COUNT; s++) {
		struct strategy_counts want = before[s];

		if (s == used) {
			want.allocations += allocs;
			want.frees += frees;
			want.live_buffers += allocs - frees;
			want.live_bytes += bytes;
		}
		EXPECT_EQ(want.allocations, now[s].allocations)
			TH_LOG("%s allocations", cmabuf_stat_group(s));
		EXPECT_EQ(want.frees, now[s].frees)
			TH_LOG("%s frees", cmabuf_stat_group(s));
		EXPECT_EQ(want.failures, now[s].failures)
			TH_LOG("%s failures", cmabuf_stat_group(s));
		EXPECT_EQ(want.live_buffers, now[s].live_buffers)
			TH_LOG("%s live_buffers", cmabuf_stat_group(s));
		EXPECT_EQ(want.live_bytes, now[s].live_bytes)
			TH_LOG("%s live_bytes", cmabuf_stat_group(s));
	}
}

/*
 * The counters of the strategy that allocated a buffer count it, and
 * those of the other strategies do not move: one more allocation, buffer
 * and its bytes while it lives, one more free after.
 */
TEST_F(alloc, strategy_counters_count_the_buffer)
{
	struct strategy_counts before[CMABUF_STRATEGY_COUNT];
	struct cmabuf_buf *b = &self->b;
	struct cmabuf_alloc_data data;
	__u32 used = b->data.strategy;

	/* An area of one such buffer (a 512 MiB pageblock): it goes first. */
	if (b->dev.info.total_bytes < 2 * b->data.alloc_size) {
		buf_close(b);
		ASSERT_EQ(0, cmabuf_settle(b->dev.fd));
	}
	strategy_counts_read(_metadata, &b->dev, before);
	ASSERT_EQ(0, cmabuf_alloc(b->dev.fd, b->size, b->strategy, &data));
	EXPECT_EQ(used, data.strategy);
	expect_strategy_counts(_metadata, &b->dev, before, used, 1, 0,
			       data.alloc_size);
	close(data.fd);
	expect_strategy_counts(_metadata, &b->dev, before, used, 1, 1, 0);
}

/* alloc_1g: 1 GiB buffers, on the large instance only; few and costly. */
FIXTURE(alloc_1g) {
	struct cmabuf_buf b;
};

FIXTURE_VARIANT(alloc_1g) {
	__u32 strategy;
};

FIXTURE_VARIANT_ADD(alloc_1g, large_compound_1g) {
	.strategy = CMABUF_STRATEGY_COMPOUND,
};

FIXTURE_VARIANT_ADD(alloc_1g, large_frozen_1g) {
	.strategy = CMABUF_STRATEGY_FROZEN,
};

FIXTURE_VARIANT_ADD(alloc_1g, large_legacy_1g) {
	.strategy = CMABUF_STRATEGY_LEGACY,
};

FIXTURE_VARIANT_ADD(alloc_1g, large_dma_1g) {
	.strategy = CMABUF_STRATEGY_DMA,
};

FIXTURE_SETUP(alloc_1g)
{
	buf_setup(_metadata, &self->b, DEV_LARGE, variant->strategy, SZ_1G);
}

FIXTURE_TEARDOWN(alloc_1g)
{
	buf_teardown(_metadata, &self->b);
}

TEST_F_TIMEOUT(alloc_1g, returns_size_and_strategy, TIMEOUT_1G)
{
	returns_size_and_strategy(_metadata, &self->b);
}

TEST_F_TIMEOUT(alloc_1g, contents_zero, TIMEOUT_1G)
{
	contents_zero(_metadata, &self->b);
}

TEST_F_TIMEOUT(alloc_1g, second_mapping_sees_writes, TIMEOUT_1G)
{
	second_mapping_sees_writes(_metadata, &self->b);
}

TEST_F_TIMEOUT(alloc_1g, counters_restored_after_close, TIMEOUT_1G)
{
	counters_restored_after_close(_metadata, &self->b);
}

/*
 * alloc_args: what ALLOC accepts and refuses, per instance. Every refused
 * request must leave the counters as they were.
 */
FIXTURE(alloc_args) {
	struct cmabuf_dev dev;
	struct cmabuf_alloc_data data;
	int fd;
};

FIXTURE_VARIANT(alloc_args) {
	const char *path;
};

FIXTURE_VARIANT_ADD(alloc_args, default) {
	.path = DEV_DEFAULT,
};

FIXTURE_VARIANT_ADD(alloc_args, general) {
	.path = DEV_GENERAL,
};

FIXTURE_VARIANT_ADD(alloc_args, large) {
	.path = DEV_LARGE,
};

FIXTURE_SETUP(alloc_args)
{
	self->fd = -1;
	if (!dev_open(_metadata, &self->dev, variant->path))
		return;
	/* A valid request of two pages that each test spoils in one way. */
	memset(&self->data, 0, sizeof(self->data));
	self->data.size = 2 * PAGE;
	self->data.fd_flags = O_RDWR | O_CLOEXEC;
	self->data.flags = CMABUF_STRATEGY_AUTO;
}

FIXTURE_TEARDOWN(alloc_args)
{
	if (self->fd >= 0)
		close(self->fd);
	dev_close(_metadata, &self->dev);
}

static int alloc_errno(int dev, struct cmabuf_alloc_data *data)
{
	int ret = cmabuf_ioctl(dev, CMABUF_IOC_ALLOC, data);

	/* Should it have worked after all, do not leak the buffer. */
	if (!ret)
		close(data->fd);
	return ret;
}

/* ALLOC @data, keeping the buffer in @fd for the teardown to close. */
static void alloc_ok(struct __test_metadata *_metadata, int dev,
		     struct cmabuf_alloc_data *data, int *fd)
{
	ASSERT_EQ(0, cmabuf_ioctl(dev, CMABUF_IOC_ALLOC, data));
	*fd = data->fd;
}

TEST_F(alloc_args, size_zero_einval)
{
	self->data.size = 0;
	ASSERT_EQ(EINVAL, alloc_errno(self->dev.fd, &self->data));
}

TEST_F(alloc_args, size_overflow_einval)
{
	self->data.size = UINT64_MAX;
	ASSERT_EQ(EINVAL, alloc_errno(self->dev.fd, &self->data));
	self->data.size = UINT64_MAX - PAGE + 2;
	ASSERT_EQ(EINVAL, alloc_errno(self->dev.fd, &self->data));
}

/* A buffer is one scatterlist entry, whose length is 32 bits. */
TEST_F(alloc_args, size_above_4g_minus_page_einval)
{
	self->data.size = (4ULL << 30) - PAGE + 1;
	ASSERT_EQ(EINVAL, alloc_errno(self->dev.fd, &self->data));
	self->data.size = 4ULL << 30;
	ASSERT_EQ(EINVAL, alloc_errno(self->dev.fd, &self->data));
}

TEST_F(alloc_args, size_above_area_enomem)
{
	unsigned long long count;

	if (!cma_read(_metadata, self->dev.area, "count", &count))
		return;
	self->data.size = (count + 1) * PAGE;
	ASSERT_EQ(ENOMEM, alloc_errno(self->dev.fd, &self->data));
}

TEST_F(alloc_args, size_rounded_up_to_pages)
{
	self->data.size = PAGE + 1;
	alloc_ok(_metadata, self->dev.fd, &self->data, &self->fd);
	ASSERT_EQ(2 * PAGE, self->data.alloc_size);
	ASSERT_EQ((off_t)(2 * PAGE), lseek(self->fd, 0, SEEK_END));
}

TEST_F(alloc_args, align_above_max_einval)
{
	self->data.align = CMABUF_ALIGN_MAX + 1;
	ASSERT_EQ(EINVAL, alloc_errno(self->dev.fd, &self->data));
	self->data.align = UINT32_MAX;
	ASSERT_EQ(EINVAL, alloc_errno(self->dev.fd, &self->data));
}

TEST_F(alloc_args, flags_unknown_bits_einval)
{
	self->data.flags = CMABUF_STRATEGY_AUTO | (1U << 9);
	ASSERT_EQ(EINVAL, alloc_errno(self->dev.fd, &self->data));
	self->data.flags = CMABUF_STRATEGY_AUTO | (1U << 31);
	ASSERT_EQ(EINVAL, alloc_errno(self->dev.fd, &self->data));
}

TEST_F(alloc_args, strategy_unknown_einval)
{
	self->data.flags = CMABUF_STRATEGY_COUNT;
	ASSERT_EQ(EINVAL, alloc_errno(self->dev.fd, &self->data));
	self->data.flags = CMABUF_ALLOC_STRATEGY_MASK;
	ASSERT_EQ(EINVAL, alloc_errno(self->dev.fd, &self->data));
}

TEST_F(alloc_args, fd_flags_unknown_einval)
{
	self->data.fd_flags = O_RDWR | O_NONBLOCK;
	ASSERT_EQ(EINVAL, alloc_errno(self->dev.fd, &self->data));
	self->data.fd_flags = O_RDWR | (1U << 30);
	ASSERT_EQ(EINVAL, alloc_errno(self->dev.fd, &self->data));
}

TEST_F(alloc_args, fd_flags_cloexec_honoured)
{
	int flags;

	self->data.fd_flags = O_RDWR;
	alloc_ok(_metadata, self->dev.fd, &self->data, &self->fd);
	flags = fcntl(self->fd, F_GETFD);
	ASSERT_LE(0, flags);
	ASSERT_EQ(0, flags & FD_CLOEXEC);
	close(self->fd);
	self->fd = -1;

	memset(&self->data, 0, sizeof(self->data));
	self->data.size = 2 * PAGE;
	self->data.fd_flags = O_RDWR | O_CLOEXEC;
	alloc_ok(_metadata, self->dev.fd, &self->data, &self->fd);
	ASSERT_EQ(FD_CLOEXEC, fcntl(self->fd, F_GETFD) & FD_CLOEXEC);
}

/* O_ACCMODE of fd_flags is the file's access mode, as for dma-heaps. */
TEST_F(alloc_args, fd_flags_read_only_refuses_writable_mapping)
{
	void *p;

	self->data.fd_flags = O_RDONLY | O_CLOEXEC;
	alloc_ok(_metadata, self->dev.fd, &self->data, &self->fd);
	p = mmap(NULL, 2 * PAGE, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, p) TH_LOG("read-only mmap: %s", strerror(errno));
	munmap(p, 2 * PAGE);
	p = cmabuf_map(self->fd, 2 * PAGE, 0);
	if (p != MAP_FAILED)
		munmap(p, 2 * PAGE);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EACCES, errno);
}

TEST_F(alloc_args, pad_nonzero_einval)
{
	self->data.pad = 1;
	ASSERT_EQ(EINVAL, alloc_errno(self->dev.fd, &self->data));
}

TEST_F(alloc_args, output_field_nonzero_einval)
{
	struct cmabuf_alloc_data valid = self->data;

	self->data.alloc_size = 2 * PAGE;
	ASSERT_EQ(EINVAL, alloc_errno(self->dev.fd, &self->data));
	self->data = valid;
	self->data.strategy = CMABUF_STRATEGY_FROZEN;
	ASSERT_EQ(EINVAL, alloc_errno(self->dev.fd, &self->data));
	self->data = valid;
	self->data.fd = 1;
	ASSERT_EQ(EINVAL, alloc_errno(self->dev.fd, &self->data));
	self->data = valid;
	self->data.buf_flags = CMABUF_BUF_WRITECOMBINE;
	ASSERT_EQ(EINVAL, alloc_errno(self->dev.fd, &self->data));
	self->data = valid;
	self->data.pad2 = 1;
	ASSERT_EQ(EINVAL, alloc_errno(self->dev.fd, &self->data));
}

/*
 * Can the area have @size bytes free? Not where others hold more than the
 * rest: the kernel's own DMA allocations in the default area, which with
 * 64 KiB pages is one 512 MiB pageblock, COMPOUND's only size there.
 */
static bool area_has_room(const struct cmabuf_info *info, __u64 size)
{
	return !(info->flags & CMABUF_INFO_AREA_STATS) ||
	       size <= info->free_bytes;
}

/* The smallest COMPOUND buffer; SKIP()s on kernels without COMPOUND. */
static __u64 compound_min_size(struct __test_metadata *_metadata,
			       const struct cmabuf_info *info)
{
	if (!cmabuf_strategy_supported(info, CMABUF_STRATEGY_COMPOUND))
		SKIP(return 0, "COMPOUND is not supported by this kernel");
	ASSERT_LE(1U, info->min_compound_order);
	return PAGE << info->min_compound_order;
}

TEST_F(alloc_args, compound_not_power_of_two_einval)
{
	__u64 min = compound_min_size(_metadata, &self->dev.info);

	if (!min)
		return;
	self->data.size = 3 * min;
	self->data.flags = CMABUF_STRATEGY_COMPOUND;
	ASSERT_EQ(EINVAL, alloc_errno(self->dev.fd, &self->data));
}

TEST_F(alloc_args, compound_below_min_order_einval)
{
	__u64 min = compound_min_size(_metadata, &self->dev.info);

	if (!min)
		return;
	self->data.flags = CMABUF_STRATEGY_COMPOUND;
	self->data.size = min / 2;
	ASSERT_EQ(EINVAL, alloc_errno(self->dev.fd, &self->data));
	self->data.size = PAGE;
	ASSERT_EQ(EINVAL, alloc_errno(self->dev.fd, &self->data));
}

TEST_F(alloc_args, compound_align_above_size_einval)
{
	__u64 min = compound_min_size(_metadata, &self->dev.info);

	if (!min)
		return;
	self->data.flags = CMABUF_STRATEGY_COMPOUND;
	self->data.size = min;
	self->data.align = __builtin_ctzll(min) + 1;
	ASSERT_EQ(EINVAL, alloc_errno(self->dev.fd, &self->data));
}

/* What INFO promises COMPOUND can take from this area, it takes. */
TEST_F_TIMEOUT(alloc_args, compound_max_order_allocates, TIMEOUT_1G)
{
	__u64 min = compound_min_size(_metadata, &self->dev.info);

	if (!min)
		return;
	self->data.flags = CMABUF_STRATEGY_COMPOUND;
	self->data.size = PAGE << self->dev.info.max_compound_order;
	if (!area_has_room(&self->dev.info, self->data.size))
		SKIP(return, "largest COMPOUND, %llu MiB, > the %llu MiB free in %s",
		     self->data.size >> 20, self->dev.info.free_bytes >> 20,
		     self->dev.area);
	ASSERT_EQ(0, cmabuf_ioctl(self->dev.fd, CMABUF_IOC_ALLOC, &self->data))
		TH_LOG("COMPOUND of order %u from %s",
		       self->dev.info.max_compound_order, self->dev.area);
	self->fd = self->data.fd;
	ASSERT_EQ(self->data.size, self->data.alloc_size);
}

/* Each strategy of the bitmask, at a size every one of them takes. */
TEST_F(alloc_args, supported_strategies_allocate)
{
	struct cmabuf_alloc_data data;
	bool compound = cmabuf_strategy_supported(&self->dev.info,
						  CMABUF_STRATEGY_COMPOUND);
	__u64 size = SZ_2M;
	__u32 s;

	if (compound)
		size = PAGE << self->dev.info.min_compound_order;
	/* COMPOUND's smallest is more than is free: the others at 2 MiB. */
	if (compound && !area_has_room(&self->dev.info, size)) {
		size = SZ_2M;
		compound = false;
	}
	for (s = 0; s < CMABUF_STRATEGY_COUNT; s++) {
		if (!cmabuf_strategy_supported(&self->dev.info, s) ||
		    (s == CMABUF_STRATEGY_COMPOUND && !compound))
			continue;
		ASSERT_EQ(0, cmabuf_alloc(self->dev.fd, size, s, &data))
			TH_LOG("%s", cmabuf_strategy_name(s));
		close(data.fd);
		ASSERT_EQ(strategy_expected(&self->dev.info, s, size),
			  data.strategy);
	}
	if (cmabuf_strategy_supported(&self->dev.info,
				      CMABUF_STRATEGY_COMPOUND) && !compound)
		SKIP(return, "COMPOUND not tried: %llu MiB > the %llu MiB free in %s",
		     (unsigned long long)(PAGE << self->dev.info.min_compound_order) >> 20,
		     self->dev.info.free_bytes >> 20, self->dev.area);
}

TEST_F(alloc_args, unsupported_strategies_eopnotsupp)
{
	struct cmabuf_alloc_data data;
	unsigned int tried = 0;
	__u32 s;

	for (s = 0; s < CMABUF_STRATEGY_COUNT; s++) {
		if (cmabuf_strategy_supported(&self->dev.info, s))
			continue;
		data = self->data;
		data.flags = s;
		ASSERT_EQ(EOPNOTSUPP, alloc_errno(self->dev.fd, &data))
			TH_LOG("%s", cmabuf_strategy_name(s));
		tried++;
	}
	if (!tried)
		SKIP(return, "this kernel supports every strategy (%#x)",
		     self->dev.info.strategies);
}

TEST_F(alloc_args, auto_non_power_of_two_falls_back)
{
	__u32 want = cmabuf_auto_strategy(&self->dev.info, 3 * PAGE);

	self->data.size = 3 * PAGE;
	alloc_ok(_metadata, self->dev.fd, &self->data, &self->fd);
	ASSERT_EQ(want, self->data.strategy)
		TH_LOG("got %s", cmabuf_strategy_name(self->data.strategy));
}

TEST_F(alloc_args, auto_power_of_two_prefers_compound)
{
	__u64 size = SZ_2M;
	__u32 want;

	if (cmabuf_strategy_supported(&self->dev.info,
				      CMABUF_STRATEGY_COMPOUND))
		size = PAGE << self->dev.info.min_compound_order;
	if (!area_has_room(&self->dev.info, size))
		SKIP(return, "smallest COMPOUND, %llu MiB, > the %llu MiB free in %s",
		     size >> 20, self->dev.info.free_bytes >> 20,
		     self->dev.area);
	want = cmabuf_auto_strategy(&self->dev.info, size);
	if (cmabuf_strategy_supported(&self->dev.info,
				      CMABUF_STRATEGY_COMPOUND))
		ASSERT_EQ((__u32)CMABUF_STRATEGY_COMPOUND, want)
			TH_LOG("COMPOUND orders %u..%u",
			       self->dev.info.min_compound_order,
			       self->dev.info.max_compound_order);
	self->data.size = size;
	alloc_ok(_metadata, self->dev.fd, &self->data, &self->fd);
	ASSERT_EQ(want, self->data.strategy)
		TH_LOG("got %s", cmabuf_strategy_name(self->data.strategy));
}

/*
 * No file descriptor left: ALLOC fails with EMFILE, and the buffer it had
 * made is gone again (the teardown checks the counters).
 */
TEST_F(alloc_args, no_fd_left_emfile)
{
	struct rlimit old, low;
	int fds[64], n = 0, err;

	ASSERT_EQ(0, getrlimit(RLIMIT_NOFILE, &old));
	low = old;
	low.rlim_cur = 16;
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &low));
	while (n < (int)ARRAY_SIZE(fds) && (fds[n] = dup(self->dev.fd)) >= 0)
		n++;
	err = errno;
	EXPECT_EQ(EMFILE, err) TH_LOG("%d fds: %s", n, strerror(err));
	EXPECT_EQ(EMFILE, alloc_errno(self->dev.fd, &self->data));
	while (n--)
		close(fds[n]);
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &old));
}

/* An older caller that knows nothing of @pad. */
TEST_F(alloc_args, short_struct_works)
{
	size_t len = offsetof(struct cmabuf_alloc_data, pad);
	unsigned char buf[sizeof(self->data) + 16];
	size_t i;

	memset(buf, 0x5a, sizeof(buf));
	memcpy(buf, &self->data, len);
	ASSERT_EQ(0, cmabuf_ioctl_sized(self->dev.fd, _IOC_NR(CMABUF_IOC_ALLOC),
					buf, len));
	memcpy(&self->data, buf, len);
	self->fd = self->data.fd;
	ASSERT_EQ(2 * PAGE, self->data.alloc_size);
	ASSERT_EQ((off_t)(2 * PAGE), lseek(self->fd, 0, SEEK_END));
	for (i = len; i < sizeof(buf); i++)
		ASSERT_EQ(0x5a, buf[i]) TH_LOG("byte %zu written", i);
}

TEST_F(alloc_args, long_struct_zero_tail_works)
{
	unsigned char buf[sizeof(self->data) + 16] = { 0 };

	memcpy(buf, &self->data, sizeof(self->data));
	ASSERT_EQ(0, cmabuf_ioctl_sized(self->dev.fd, _IOC_NR(CMABUF_IOC_ALLOC),
					buf, sizeof(buf)));
	memcpy(&self->data, buf, sizeof(self->data));
	self->fd = self->data.fd;
	ASSERT_EQ(2 * PAGE, self->data.alloc_size);
	ASSERT_EQ((off_t)(2 * PAGE), lseek(self->fd, 0, SEEK_END));
}

TEST_F(alloc_args, long_struct_nonzero_tail_einval)
{
	unsigned char buf[sizeof(self->data) + 16] = { 0 };
	int ret;

	memcpy(buf, &self->data, sizeof(self->data));
	buf[sizeof(buf) - 1] = 1;
	ret = cmabuf_ioctl_sized(self->dev.fd, _IOC_NR(CMABUF_IOC_ALLOC), buf,
				 sizeof(buf));
	if (!ret)
		close(((struct cmabuf_alloc_data *)buf)->fd);
	ASSERT_EQ(EINVAL, ret);
}

TEST_F(alloc_args, bad_pointer_efault)
{
	void *none = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);

	ASSERT_NE(MAP_FAILED, none);
	ASSERT_EQ(EFAULT, cmabuf_ioctl(self->dev.fd, CMABUF_IOC_ALLOC, NULL));
	ASSERT_EQ(EFAULT, cmabuf_ioctl(self->dev.fd, CMABUF_IOC_ALLOC, none));
	munmap(none, PAGE);
}

/* info: CMABUF_IOC_INFO of each instance. */
FIXTURE(info) {
	struct cmabuf_dev dev;
};

FIXTURE_VARIANT(info) {
	const char *path;
};

FIXTURE_VARIANT_ADD(info, default) {
	.path = DEV_DEFAULT,
};

FIXTURE_VARIANT_ADD(info, general) {
	.path = DEV_GENERAL,
};

FIXTURE_VARIANT_ADD(info, large) {
	.path = DEV_LARGE,
};

FIXTURE_SETUP(info)
{
	dev_open(_metadata, &self->dev, variant->path);
}

FIXTURE_TEARDOWN(info)
{
	dev_close(_metadata, &self->dev);
}

TEST_F(info, area_name_is_a_cma_area)
{
	unsigned long long count;
	char path[128];

	ASSERT_LT(1U, self->dev.info.area_name_len);
	ASSERT_EQ(strlen(self->dev.area) + 1, self->dev.info.area_name_len);
	/* Debian's kernels have no CMA debugfs, their 6.x no CMA sysfs. */
	if (rel_cma_debugfs_there()) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/cma/%s",
			 self->dev.area);
		ASSERT_EQ(0, access(path, F_OK)) TH_LOG("no %s", path);
	}
	if (!access("/sys/kernel/mm/cma", F_OK)) {
		snprintf(path, sizeof(path), "/sys/kernel/mm/cma/%s",
			 self->dev.area);
		ASSERT_EQ(0, access(path, F_OK)) TH_LOG("no %s", path);
	}
	/* Without both, the kernel's own word of the area: node or log. */
	if (!cma_read(_metadata, self->dev.area, "count", &count))
		return;
	ASSERT_LT(0ULL, count);
}

TEST_F(info, area_name_truncated_to_buffer)
{
	struct cmabuf_info info;
	char name[8];

	memset(name, 0x7f, sizeof(name));
	ASSERT_EQ(0, cmabuf_get_info(self->dev.fd, &info, name, 4));
	ASSERT_EQ(self->dev.info.area_name_len, info.area_name_len);
	ASSERT_EQ(0, memcmp(name, self->dev.area, 3));
	ASSERT_EQ('\0', name[3]);
	ASSERT_EQ(0x7f, name[4]);
}

TEST_F(info, area_name_len_without_buffer)
{
	struct cmabuf_info info;

	ASSERT_EQ(0, cmabuf_get_info(self->dev.fd, &info, NULL, 0));
	ASSERT_EQ(self->dev.info.area_name_len, info.area_name_len);
}

/* INFO reports the version the module was built as (MODULE_VERSION). */
TEST_F(info, version_matches_module)
{
	unsigned int major, minor, patch;
	FILE *f;
	int n;

	f = fopen("/sys/module/cmabuf/version", "re");
	ASSERT_NE(NULL, f);
	n = fscanf(f, "%u.%u.%u", &major, &minor, &patch);
	fclose(f);
	ASSERT_EQ(3, n);
	ASSERT_NE(0U, self->dev.info.version);
	ASSERT_EQ(CMABUF_VERSION_NUMBER(major, minor, patch),
		  self->dev.info.version);
}

/* The page size is the process's: 4, 16 or 64 KiB on arm64. */
TEST_F(info, page_size_is_the_kernels)
{
	__u32 page = self->dev.info.page_size;

	ASSERT_EQ(getpagesize(), (int)page);
	ASSERT_TRUE(page == SZ_4K || page == 4 * SZ_4K || page == 16 * SZ_4K)
		TH_LOG("page size %u", page);
}

/*
 * pmd_order is what a PMD entry maps, a page of 8-byte entries' worth of
 * pages (2 MiB, 32 MiB, 512 MiB), where the kernel maps PFNs with PMDs;
 * and where it does, COMPOUND's smallest order (a pageblock) is no larger.
 */
TEST_F(info, pmd_order_follows_page_size)
{
	const struct cmabuf_info *info = &self->dev.info;
	unsigned int want = __builtin_ctz(info->page_size) - 3;

	if (!(info->flags & CMABUF_INFO_MMAP_PMD))
		SKIP(return, NO_PMD_SKIP, info->flags);
	ASSERT_EQ(want, info->pmd_order);
	if (info->max_compound_order)
		ASSERT_GE(info->pmd_order, info->min_compound_order);
}

TEST_F(info, strategies_match_kernel)
{
	__u32 want;

	if (cmabuf_kernel_strategies(&want))
		SKIP(return, "/proc/kallsyms is not readable");
	ASSERT_EQ(cmabuf_instance_strategies(&self->dev.info, want),
		  self->dev.info.strategies);
}

/*
 * The largest order COMPOUND may promise is that of the largest naturally
 * aligned block inside the area; below MAX_PAGE_ORDER (10) every kernel
 * with the frozen API can do it, and with gigantic folios (1 GiB huge
 * pages) up to 18. The smallest is at least an order of two pages.
 */
/*
 * The INFO flags that the suite says this kernel must have (names in
 * CMABUF_TEST_EXPECT_MMAP, "none" for none): a kernel that quietly lost
 * PMD mappings or their placement fails here instead of timing slower.
 */
TEST_F(info, mmap_flags_as_expected)
{
	const char *want = getenv("CMABUF_TEST_EXPECT_MMAP");
	__u32 flags = 0;

	if (!want)
		SKIP(return, "CMABUF_TEST_EXPECT_MMAP is not set");
	if (strstr(want, "pmd"))
		flags |= CMABUF_INFO_MMAP_PMD;
	if (strstr(want, "placed"))
		flags |= CMABUF_INFO_MMAP_PLACED;
	ASSERT_EQ(flags, self->dev.info.flags &
		  (CMABUF_INFO_MMAP_PMD | CMABUF_INFO_MMAP_PLACED))
		TH_LOG("expected %s, INFO flags %#x", want,
		       self->dev.info.flags);
}

/*
 * Whether cmabuf clears FROZEN and COMPOUND buffers itself, as the suite
 * says this kernel must (CMABUF_TEST_EXPECT_CLEARS_FROZEN, 1 or 0): a
 * kernel that quietly lost the noinit frozen API fails here instead of
 * clearing on one CPU under the area's lock.
 */
TEST_F(info, clears_frozen_as_expected)
{
	const char *want = getenv("CMABUF_TEST_EXPECT_CLEARS_FROZEN");

	if (!want)
		SKIP(return, "CMABUF_TEST_EXPECT_CLEARS_FROZEN is not set");
	ASSERT_EQ(atoi(want) ? CMABUF_INFO_CLEARS_FROZEN : 0,
		  self->dev.info.flags & CMABUF_INFO_CLEARS_FROZEN)
		TH_LOG("expected %s, INFO flags %#x", want,
		       self->dev.info.flags);
}

/*
 * cmabuf leaves clearing to the page allocator exactly when init_on_alloc
 * is on: from the command line, else the kernel's default, which the
 * suite passes in CMABUF_TEST_INIT_ON_ALLOC_DEFAULT.
 */
TEST_F(info, allocator_zeroes_as_booted)
{
	const char *def = getenv("CMABUF_TEST_INIT_ON_ALLOC_DEFAULT");
	int on = def ? atoi(def) : -1;
	char cmdline[4096] = "", *p;
	FILE *f;

	f = fopen("/proc/cmdline", "r");
	ASSERT_NE(NULL, f);
	if (!fgets(cmdline, sizeof(cmdline), f))
		cmdline[0] = 0;
	fclose(f);
	for (p = strstr(cmdline, "init_on_alloc="); p;
	     p = strstr(p + 1, "init_on_alloc="))
		on = atoi(p + strlen("init_on_alloc="));
	if (on < 0)
		SKIP(return, "init_on_alloc: not on the command line and no default given");
	ASSERT_EQ(on ? CMABUF_INFO_ALLOCATOR_ZEROES : 0,
		  self->dev.info.flags & CMABUF_INFO_ALLOCATOR_ZEROES)
		TH_LOG("init_on_alloc=%d, INFO flags %#x", on,
		       self->dev.info.flags);
}

TEST_F(info, compound_orders_fit_area)
{
	unsigned long long base, count, end;
	unsigned int order = 0, floor;

	if (!cmabuf_strategy_supported(&self->dev.info,
				       CMABUF_STRATEGY_COMPOUND)) {
		ASSERT_EQ(0U, self->dev.info.min_compound_order);
		ASSERT_EQ(0U, self->dev.info.max_compound_order);
		return;
	}
	ASSERT_LE(1U, self->dev.info.min_compound_order);
	ASSERT_LE(self->dev.info.min_compound_order,
		  self->dev.info.max_compound_order);
	if (!cma_read(_metadata, self->dev.area, "base_pfn", &base))
		return;
	if (!cma_read(_metadata, self->dev.area, "count", &count))
		return;
	end = base + count;
	while (order < 63 && ((base + (1ULL << (order + 1)) - 1) &
			      ~((1ULL << (order + 1)) - 1)) +
			     (1ULL << (order + 1)) <= end)
		order++;
	floor = access("/sys/kernel/mm/hugepages/hugepages-1048576kB", F_OK) ?
		10 : 18;
	ASSERT_GE(order, self->dev.info.max_compound_order);
	ASSERT_LE(order < floor ? order : floor,
		  self->dev.info.max_compound_order);
}

TEST_F(info, area_stats_match_debugfs)
{
	unsigned long long count, used;
	struct cmabuf_info *info = &self->dev.info;

	if (!(info->flags & CMABUF_INFO_AREA_STATS))
		SKIP(return, "this kernel does not tell the area's size");
	if (!cma_read(_metadata, self->dev.area, "count", &count))
		return;
	if (!cma_read(_metadata, self->dev.area, "used", &used))
		return;
	ASSERT_EQ(count * PAGE, info->total_bytes);
	ASSERT_EQ(used * PAGE, info->used_bytes);
	ASSERT_EQ(info->total_bytes, info->free_bytes + info->used_bytes);
}

TEST_F(info, live_counters_track_buffers)
{
	struct cmabuf_alloc_data data;
	struct cmabuf_info info;

	ASSERT_EQ(0, cmabuf_alloc(self->dev.fd, 3 * PAGE,
				  CMABUF_STRATEGY_AUTO, &data));
	ASSERT_EQ(0, cmabuf_get_info(self->dev.fd, &info, NULL, 0));
	close(data.fd);
	ASSERT_EQ(self->dev.start.live_buffers + 1, info.live_buffers);
	ASSERT_EQ(self->dev.start.live_bytes + 3 * PAGE, info.live_bytes);
}

TEST_F(info, output_field_nonzero_einval)
{
	static const size_t outputs[] = {
		offsetof(struct cmabuf_info, area_name_len),
		offsetof(struct cmabuf_info, total_bytes),
		offsetof(struct cmabuf_info, free_bytes),
		offsetof(struct cmabuf_info, used_bytes),
		offsetof(struct cmabuf_info, live_bytes),
		offsetof(struct cmabuf_info, live_buffers),
		offsetof(struct cmabuf_info, page_size),
		offsetof(struct cmabuf_info, max_compound_order),
		offsetof(struct cmabuf_info, strategies),
		offsetof(struct cmabuf_info, flags),
		offsetof(struct cmabuf_info, min_compound_order),
		offsetof(struct cmabuf_info, version),
		offsetof(struct cmabuf_info, dma_bits),
		offsetof(struct cmabuf_info, pmd_order),
	};
	struct cmabuf_info info;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(outputs); i++) {
		memset(&info, 0, sizeof(info));
		((unsigned char *)&info)[outputs[i]] = 1;
		ASSERT_EQ(EINVAL, cmabuf_ioctl(self->dev.fd, CMABUF_IOC_INFO,
					       &info))
			TH_LOG("output at offset %zu", outputs[i]);
	}
}

/* An older caller whose structure ends after @live_buffers. */
TEST_F(info, short_struct_fills_prefix)
{
	size_t len = offsetof(struct cmabuf_info, page_size);
	unsigned char buf[sizeof(struct cmabuf_info) + 16];
	struct cmabuf_info *info = (struct cmabuf_info *)buf;
	size_t i;

	memset(buf, 0x5a, sizeof(buf));
	memset(buf, 0, len);
	ASSERT_EQ(0, cmabuf_ioctl_sized(self->dev.fd, _IOC_NR(CMABUF_IOC_INFO),
					buf, len));
	ASSERT_EQ(self->dev.info.area_name_len, info->area_name_len);
	ASSERT_EQ(self->dev.info.total_bytes, info->total_bytes);
	ASSERT_EQ(self->dev.info.live_buffers, info->live_buffers);
	for (i = len; i < sizeof(buf); i++)
		ASSERT_EQ(0x5a, buf[i]) TH_LOG("byte %zu written", i);
}

TEST_F(info, long_struct_zero_tail_works)
{
	unsigned char buf[sizeof(struct cmabuf_info) + 16] = { 0 };
	struct cmabuf_info *info = (struct cmabuf_info *)buf;

	ASSERT_EQ(0, cmabuf_ioctl_sized(self->dev.fd, _IOC_NR(CMABUF_IOC_INFO),
					buf, sizeof(buf)));
	ASSERT_EQ(self->dev.info.page_size, info->page_size);
	ASSERT_EQ(self->dev.info.strategies, info->strategies);
	ASSERT_EQ(self->dev.info.area_name_len, info->area_name_len);
}

TEST_F(info, long_struct_nonzero_tail_einval)
{
	unsigned char buf[sizeof(struct cmabuf_info) + 16] = { 0 };

	buf[sizeof(buf) - 1] = 1;
	ASSERT_EQ(EINVAL, cmabuf_ioctl_sized(self->dev.fd,
					     _IOC_NR(CMABUF_IOC_INFO),
					     buf, sizeof(buf)));
}

TEST_F(info, bad_pointer_efault)
{
	void *none = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);

	ASSERT_NE(MAP_FAILED, none);
	ASSERT_EQ(EFAULT, cmabuf_ioctl(self->dev.fd, CMABUF_IOC_INFO, NULL));
	ASSERT_EQ(EFAULT, cmabuf_ioctl(self->dev.fd, CMABUF_IOC_INFO, none));
	munmap(none, PAGE);
}

TEST_F(info, bad_name_pointer_efault)
{
	struct cmabuf_info info;
	void *none = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);

	ASSERT_NE(MAP_FAILED, none);
	ASSERT_EQ(EFAULT, cmabuf_get_info(self->dev.fd, &info, none, 16));
	munmap(none, PAGE);
}

TEST_F(info, unknown_command_enotty)
{
	unsigned char buf[64] = { 0 };
	const unsigned long cmds[] = {
		/* The number of the BENCH ioctl before it went to debugfs. */
		_IOWR(CMABUF_IOC_MAGIC, 0x02, struct cmabuf_info),
		/* The first after RW's. */
		_IOWR(CMABUF_IOC_MAGIC, 0x07, struct cmabuf_info),
		_IOWR(CMABUF_IOC_MAGIC, 0xff, struct cmabuf_info),
		_IO(CMABUF_IOC_MAGIC, 0x10),
		_IOWR('b', _IOC_NR(CMABUF_IOC_INFO), struct cmabuf_info),
	};
	unsigned long cmd;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		cmd = cmds[i];
		ASSERT_EQ(ENOTTY, cmabuf_ioctl(self->dev.fd, cmd, buf))
			TH_LOG("command %#lx", cmd);
	}
}

/* bench: the debugfs bench file as root, one variant per strategy. */
#define BENCH_PAGES		512ULL
#define BENCH_BLOCKS		4ULL
#define BENCH_ITERATIONS	8ULL

/* The bench file of @dev into @path; false when this kernel has none. */
static bool bench_file(const struct cmabuf_dev *dev, char *path, size_t len)
{
	return !kbench_path(dev->path, path, len) && !access(path, F_OK);
}

FIXTURE(bench) {
	struct cmabuf_dev dev;
	struct kbench bench;
	char path[PATH_MAX];
};

FIXTURE_VARIANT(bench) {
	__u32 strategy;
};

FIXTURE_VARIANT_ADD(bench, auto) {
	.strategy = CMABUF_STRATEGY_AUTO,
};

FIXTURE_VARIANT_ADD(bench, compound) {
	.strategy = CMABUF_STRATEGY_COMPOUND,
};

FIXTURE_VARIANT_ADD(bench, frozen) {
	.strategy = CMABUF_STRATEGY_FROZEN,
};

FIXTURE_VARIANT_ADD(bench, legacy) {
	.strategy = CMABUF_STRATEGY_LEGACY,
};

FIXTURE_SETUP(bench)
{
	if (!dev_open_any(_metadata, &self->dev))
		return;
	if (!bench_file(&self->dev, self->path, sizeof(self->path)))
		SKIP(return, "no bench file of %s: no debugfs, or built without it",
		     self->dev.path);
	if (!cmabuf_strategy_supported(&self->dev.info, variant->strategy))
		SKIP(return, "%s is not supported by this kernel (strategies %#x)",
		     cmabuf_strategy_name(variant->strategy),
		     self->dev.info.strategies);
	if (variant->strategy == CMABUF_STRATEGY_COMPOUND &&
	    !cmabuf_compound_fits(&self->dev.info, BENCH_PAGES * PAGE))
		SKIP(return, "%llu pages are outside COMPOUND's orders %u..%u",
		     BENCH_PAGES, self->dev.info.min_compound_order,
		     self->dev.info.max_compound_order);
	memset(&self->bench, 0, sizeof(self->bench));
	self->bench.pages = BENCH_PAGES;
	self->bench.blocks = BENCH_BLOCKS;
	self->bench.iterations = BENCH_ITERATIONS;
	self->bench.strategy = variant->strategy;
}

FIXTURE_TEARDOWN(bench)
{
	dev_close(_metadata, &self->dev);
}

static void expect_sane_stats(struct __test_metadata *_metadata,
			      const char *phase, const struct kbench_stats *s)
{
	TH_LOG("%s: %llu samples, min %llu median %llu max %llu mean %llu ns",
	       phase, (unsigned long long)s->samples,
	       (unsigned long long)s->min_ns, (unsigned long long)s->median_ns,
	       (unsigned long long)s->max_ns, (unsigned long long)s->mean_ns);
	EXPECT_EQ(BENCH_BLOCKS * BENCH_ITERATIONS, s->samples);
	EXPECT_LE(s->min_ns, s->median_ns);
	EXPECT_LE(s->median_ns, s->max_ns);
	EXPECT_LE(s->min_ns, s->mean_ns);
	EXPECT_LE(s->mean_ns, s->max_ns);
	EXPECT_LT(0ULL, s->max_ns);
	EXPECT_LE(s->max_ns, s->total_ns);
	/* The mean is the total over the samples, whichever way it rounds. */
	EXPECT_GE(s->total_ns, (s->mean_ns - 1) * s->samples);
	EXPECT_LE(s->total_ns, (s->mean_ns + 1) * s->samples);
}

TEST_F(bench, stats_are_sane)
{
	__u32 want = strategy_expected(&self->dev.info, self->bench.strategy,
				       BENCH_PAGES * PAGE);

	ASSERT_EQ(0, kbench_run(self->dev.path, &self->bench));
	EXPECT_EQ(want, self->bench.strategy_used)
		TH_LOG("got %s", cmabuf_strategy_name(self->bench.strategy_used));
	expect_sane_stats(_metadata, "alloc", &self->bench.alloc);
	expect_sane_stats(_metadata, "free", &self->bench.free);
}

TEST_F(bench, leaves_area_as_found)
{
	ASSERT_EQ(0, kbench_run(self->dev.path, &self->bench));
	expect_counters(_metadata, &self->dev, &self->dev.start);
}

/*
 * clear=1: each allocation cleared as ALLOC clears it, timed apart, one
 * sample per allocation; nothing to do where the page allocator cleared
 * the pages in the call (init_on_alloc, and not FROZEN or COMPOUND with
 * the noinit API): then it is a call that returns, far below the
 * allocation that cleared. With zero=1 too, the longest report still
 * reads whole. The area is left as found.
 */
TEST_F(bench, clear_times_what_alloc_adds)
{
	__u32 flags = self->dev.info.flags;
	bool by_allocator;

	self->bench.clear = 1;
	self->bench.zero = 1;
	ASSERT_EQ(0, kbench_run(self->dev.path, &self->bench));
	expect_sane_stats(_metadata, "alloc", &self->bench.alloc);
	expect_sane_stats(_metadata, "clear", &self->bench.clearing);
	EXPECT_EQ(BENCH_ITERATIONS, self->bench.zero_all.samples);
	by_allocator = (flags & CMABUF_INFO_ALLOCATOR_ZEROES) &&
		       (!(flags & CMABUF_INFO_CLEARS_FROZEN) ||
			self->bench.strategy_used == CMABUF_STRATEGY_LEGACY);
	if (by_allocator)
		EXPECT_LT(self->bench.clearing.median_ns * 10,
			  self->bench.alloc.median_ns);
	expect_counters(_metadata, &self->dev, &self->dev.start);
}

/* bench_args: what the bench file refuses. Every case is one page, once. */
FIXTURE(bench_args) {
	struct cmabuf_dev dev;
	struct kbench bench;
	char path[PATH_MAX];
};

FIXTURE_SETUP(bench_args)
{
	if (!dev_open_any(_metadata, &self->dev))
		return;
	if (!bench_file(&self->dev, self->path, sizeof(self->path)))
		SKIP(return, "no bench file of %s: no debugfs, or built without it",
		     self->dev.path);
	memset(&self->bench, 0, sizeof(self->bench));
	self->bench.pages = 1;
	self->bench.blocks = 1;
	self->bench.iterations = 1;
	self->bench.strategy = CMABUF_STRATEGY_AUTO;
}

FIXTURE_TEARDOWN(bench_args)
{
	dev_close(_metadata, &self->dev);
}

/* The errno of writing @line to the bench file, 0 for a run. */
static int bench_line_errno(const char *path, const char *line)
{
	char report[1024];

	return -kbench_request(path, line, report, sizeof(report));
}

static int bench_errno(struct cmabuf_dev *dev, struct kbench *bench)
{
	return -kbench_run(dev->path, bench);
}

/* debugfs is root's: the file cannot even be opened without root. */
TEST_F(bench_args, unprivileged_cannot_open)
{
	ASSERT_EQ(EACCES, cmabuf_open_unprivileged(self->path, O_RDWR));
}

TEST_F(bench_args, zero_blocks_means_one)
{
	self->bench.blocks = 0;
	self->bench.iterations = 3;
	ASSERT_EQ(0, bench_errno(&self->dev, &self->bench));
	ASSERT_EQ(3ULL, self->bench.alloc.samples);
	ASSERT_EQ(3ULL, self->bench.free.samples);
}

TEST_F(bench_args, blocks_default_to_one)
{
	char report[1024];
	struct kbench b = { 0 };

	ASSERT_EQ(0, kbench_request(self->path, "pages=1 iterations=2",
				    report, sizeof(report)));
	ASSERT_EQ(0, kbench_parse(report, &b)) TH_LOG("%s", report);
	ASSERT_EQ(2ULL, b.alloc.samples);
}

TEST_F(bench_args, zero_pages_einval)
{
	self->bench.pages = 0;
	ASSERT_EQ(EINVAL, bench_errno(&self->dev, &self->bench));
}

TEST_F(bench_args, missing_pages_or_iterations_einval)
{
	ASSERT_EQ(EINVAL, bench_line_errno(self->path, "iterations=1"));
	ASSERT_EQ(EINVAL, bench_line_errno(self->path, "pages=1"));
}

TEST_F(bench_args, zero_iterations_einval)
{
	self->bench.iterations = 0;
	ASSERT_EQ(EINVAL, bench_errno(&self->dev, &self->bench));
}

TEST_F(bench_args, iterations_above_max_einval)
{
	self->bench.iterations = KBENCH_MAX_ITERATIONS + 1;
	ASSERT_EQ(EINVAL, bench_errno(&self->dev, &self->bench));
}

TEST_F(bench_args, blocks_above_max_einval)
{
	self->bench.blocks = KBENCH_MAX_BLOCKS + 1;
	ASSERT_EQ(EINVAL, bench_errno(&self->dev, &self->bench));
}

TEST_F(bench_args, samples_above_max_einval)
{
	/* Each within its own bound, together above the samples bound. */
	self->bench.blocks = KBENCH_MAX_BLOCKS;
	self->bench.iterations = KBENCH_MAX_SAMPLES / KBENCH_MAX_BLOCKS + 1;
	ASSERT_EQ(EINVAL, bench_errno(&self->dev, &self->bench));
}

/* The work is bounded in bytes too, not only in calls. */
TEST_F(bench_args, bytes_above_max_einval)
{
	self->bench.pages = (256ULL << 20) / PAGE;
	self->bench.iterations = KBENCH_MAX_BYTES / (256ULL << 20) + 1;
	ASSERT_EQ(EINVAL, bench_errno(&self->dev, &self->bench));
}

TEST_F(bench_args, unknown_key_einval)
{
	ASSERT_EQ(EINVAL, bench_line_errno(self->path,
					   "pages=1 iterations=1 flags=1"));
	ASSERT_EQ(EINVAL, bench_line_errno(self->path,
					   "pages=1 iterations=1 zero=2"));
	ASSERT_EQ(EINVAL, bench_line_errno(self->path,
					   "pages=1 iterations=1 clear=2"));
	ASSERT_EQ(EINVAL, bench_line_errno(self->path,
					   "pages=1x iterations=1"));
}

TEST_F(bench_args, overlong_request_einval)
{
	char line[512];

	memset(line, ' ', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	memcpy(line, "pages=1 iterations=1", 20);
	ASSERT_EQ(EINVAL, bench_line_errno(self->path, line));
}

/* zero=1: one sample per iteration of each clearing. */
TEST_F(bench_args, zero_times_both_clearings)
{
	self->bench.zero = 1;
	self->bench.iterations = 2;
	ASSERT_EQ(0, bench_errno(&self->dev, &self->bench));
	EXPECT_EQ(2U, self->bench.zero_one.samples);
	EXPECT_EQ(2U, self->bench.zero_all.samples);
	EXPECT_LT(0U, self->bench.zero_one.min_ns);
	EXPECT_LE(1U, self->bench.zero_cpus);
	EXPECT_GE((unsigned int)sysconf(_SC_NPROCESSORS_ONLN),
		  self->bench.zero_cpus);
}

/*
 * A failed run leaves no report behind: a read then gives nothing. The
 * largest buffer there is, 4 GiB less a page, is more than any area here.
 */
TEST_F(bench_args, failed_run_leaves_no_report)
{
	char report[1024], line[128];

	ASSERT_EQ(0, bench_errno(&self->dev, &self->bench));
	snprintf(line, sizeof(line), "pages=%llu iterations=1 strategy=%s",
		 (0xffffffffULL & ~(PAGE - 1)) / PAGE,
		 cmabuf_strategy_supported(&self->dev.info,
					   CMABUF_STRATEGY_LEGACY) ?
		 "legacy" : "dma");
	ASSERT_EQ(ENOMEM, bench_line_errno(self->path, line));
	ASSERT_EQ(0, cmabuf_read_file(self->path, report, sizeof(report)));
	EXPECT_STREQ("", report);
}

TEST_F(bench_args, unknown_strategy_einval)
{
	ASSERT_EQ(EINVAL, bench_line_errno(self->path,
					   "pages=1 iterations=1 strategy=fast"));
}

TEST_F(bench_args, align_above_max_einval)
{
	self->bench.align = CMABUF_ALIGN_MAX + 1;
	ASSERT_EQ(EINVAL, bench_errno(&self->dev, &self->bench));
}

TEST_F(bench_args, unsupported_strategy_eopnotsupp)
{
	unsigned int tried = 0;
	__u32 s;

	for (s = 0; s < CMABUF_STRATEGY_COUNT; s++) {
		if (cmabuf_strategy_supported(&self->dev.info, s))
			continue;
		self->bench.strategy = s;
		ASSERT_EQ(EOPNOTSUPP, bench_errno(&self->dev, &self->bench))
			TH_LOG("%s", cmabuf_strategy_name(s));
		tried++;
	}
	if (!tried)
		SKIP(return, "this kernel supports every strategy (%#x)",
		     self->dev.info.strategies);
}

TEST_F(bench_args, compound_below_min_order_einval)
{
	if (!cmabuf_strategy_supported(&self->dev.info,
				       CMABUF_STRATEGY_COMPOUND))
		SKIP(return, "COMPOUND is not supported by this kernel");
	self->bench.strategy = CMABUF_STRATEGY_COMPOUND;
	self->bench.pages = 1ULL << (self->dev.info.min_compound_order - 1);
	ASSERT_EQ(EINVAL, bench_errno(&self->dev, &self->bench));
}

TEST_F(bench_args, bad_pointer_efault)
{
	void *none = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	int fd = open(self->path, O_RDWR | O_CLOEXEC);

	ASSERT_NE(MAP_FAILED, none);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, write(fd, none, 16));
	EXPECT_EQ(EFAULT, errno);
	close(fd);
	munmap(none, PAGE);
}

/* Pages the area has handed out since boot (sysfs), or ~0 on error. */
static unsigned long long area_allocated(const struct cmabuf_dev *dev)
{
	unsigned long long v;

	if (cmabuf_cma_sysfs_read(dev->area, "alloc_pages_success", &v))
		return ~0ULL;
	return v;
}

/*
 * A fatal signal stops a long run between two allocations (EINTR, which
 * the killed caller never sees): it dies long before the last iteration,
 * and everything the benchmark held is back in the area (teardown).
 */
TEST_F_TIMEOUT(bench_args, fatal_signal_stops_it, 300)
{
	const unsigned long long pages = SZ_1M / PAGE;
	unsigned long long start, now, done;
	int status, i;
	pid_t pid;

	start = area_allocated(&self->dev);
	if (start == ~0ULL)
		SKIP(return, "no CMA sysfs statistics for %s", self->dev.area);
	self->bench.pages = pages;
	self->bench.iterations = KBENCH_MAX_ITERATIONS;
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(-kbench_run(self->dev.path, &self->bench));
	/* Kill it once it has allocated (at most 10 s), 0.1 s later. */
	for (i = 0; i < 10000 && area_allocated(&self->dev) == start; i++)
		usleep(1000);
	usleep(100000);
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	now = area_allocated(&self->dev);
	done = (now - start) / pages;
	TH_LOG("killed after %llu of %u iterations", done,
	       KBENCH_MAX_ITERATIONS);
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		TH_LOG("status %#x: the run finished first", status);
	EXPECT_LT(0ULL, done);
	EXPECT_GT((unsigned long long)KBENCH_MAX_ITERATIONS, done);
}

/*
 * auto_fallback: AUTO's first choice made to fail at run time. The
 * general area (256 MiB on a 256 MiB boundary) is filled with COMPOUND
 * buffers of a pageblock (2 MiB; 32 MiB with 16 KiB pages), and two
 * neighbours that start a block past a two-block boundary are freed: two
 * blocks are free in a row, but not on a two-block boundary, so a
 * COMPOUND folio of two blocks cannot be had and AUTO falls back to
 * FROZEN, which takes exactly that range. With 64 KiB pages the area is
 * one block, and the fixture SKIPs.
 */
#define FALLBACK_FILL_MAX	512

/**
 * struct fallback_bufs - the buffers that fill the area
 * @fd: their fds, -1 once closed.
 * @phys: where each COMPOUND buffer starts; 0 for the others and closed ones.
 * @n: entries in use.
 */
struct fallback_bufs {
	int fd[FALLBACK_FILL_MAX];
	__u64 phys[FALLBACK_FILL_MAX];
	int n;
};

FIXTURE(auto_fallback) {
	struct cmabuf_dev dev;
	struct fallback_bufs bufs;
	__u64 block;
};

FIXTURE_SETUP(auto_fallback)
{
	self->bufs.n = 0;
	if (!dev_open(_metadata, &self->dev, DEV_GENERAL))
		return;
	self->block = (__u64)PAGE << self->dev.info.min_compound_order;
	if (!cmabuf_strategy_supported(&self->dev.info,
				       CMABUF_STRATEGY_COMPOUND) ||
	    !cmabuf_compound_fits(&self->dev.info, 2 * self->block) ||
	    !cmabuf_compound_fits(&self->dev.info, self->block))
		SKIP(return, "%s (strategies %#x, orders %u..%u)",
		     "COMPOUND of one and two pageblocks is not supported here",
		     self->dev.info.strategies,
		     self->dev.info.min_compound_order,
		     self->dev.info.max_compound_order);
}

FIXTURE_TEARDOWN(auto_fallback)
{
	struct fallback_bufs *bufs = &self->bufs;

	while (bufs->n--)
		if (bufs->fd[bufs->n] >= 0)
			close(bufs->fd[bufs->n]);
	dev_close(_metadata, &self->dev);
}

/* ALLOC until ENOMEM, keeping each buffer and where it is. */
static void fallback_fill(struct __test_metadata *_metadata, int dev,
			  struct fallback_bufs *bufs, __u64 size,
			  __u32 strategy)
{
	struct cmabuf_alloc_data data;
	struct cmabuf_phys phys;
	int err;

	for (;;) {
		err = cmabuf_alloc(dev, size, strategy, &data);
		if (err == ENOMEM)
			return;
		ASSERT_EQ(0, err);
		ASSERT_GT(FALLBACK_FILL_MAX, bufs->n);
		ASSERT_EQ(0, cmabuf_phys(dev, data.fd, &phys));
		bufs->fd[bufs->n] = data.fd;
		bufs->phys[bufs->n++] =
			strategy == CMABUF_STRATEGY_COMPOUND ? phys.phys : 0;
	}
}

/* Free buffer @i; its pages are back in the area after cmabuf_settle(). */
static void fallback_close(struct fallback_bufs *bufs, int i)
{
	close(bufs->fd[i]);
	bufs->fd[i] = -1;
	bufs->phys[i] = 0;
}

/*
 * A buffer of @block that starts @block past a boundary of two and has
 * another right after it: its index in @i and the other's, returned, or -1.
 */
static int fallback_pair(const struct fallback_bufs *bufs, __u64 block,
			 int *i)
{
	int k, j;

	for (k = 0; k < bufs->n; k++) {
		if (!bufs->phys[k] || bufs->phys[k] % (2 * block) != block)
			continue;
		for (j = 0; j < bufs->n; j++) {
			if (bufs->phys[j] == bufs->phys[k] + block) {
				*i = k;
				return j;
			}
		}
	}
	return -1;
}

TEST_F_TIMEOUT(auto_fallback, compound_refused_frozen_serves_then_enomem, 600)
{
	struct strategy_counts before[CMABUF_STRATEGY_COUNT];
	struct strategy_counts now[CMABUF_STRATEGY_COUNT];
	struct fallback_bufs *bufs = &self->bufs;
	struct cmabuf_alloc_data data;
	struct cmabuf_phys phys;
	int i = -1, j, k, err;
	__u64 at;

	fallback_fill(_metadata, self->dev.fd, bufs, self->block,
		      CMABUF_STRATEGY_COMPOUND);
	fallback_fill(_metadata, self->dev.fd, bufs, PAGE,
		      CMABUF_STRATEGY_FROZEN);
	j = fallback_pair(bufs, self->block, &i);
	ASSERT_LE(0, j) TH_LOG("no two blocks side by side off a two-block boundary among %d",
			       bufs->n);
	at = bufs->phys[i];
	fallback_close(bufs, i);
	fallback_close(bufs, j);
	ASSERT_EQ(0, cmabuf_settle(self->dev.fd));

	/* Two blocks free in a row, off their boundary: COMPOUND fails. */
	strategy_counts_read(_metadata, &self->dev, before);
	ASSERT_EQ(0, cmabuf_alloc(self->dev.fd, 2 * self->block, CMABUF_STRATEGY_AUTO,
				  &data));
	bufs->fd[i] = data.fd;
	EXPECT_EQ((__u32)CMABUF_STRATEGY_FROZEN, data.strategy)
		TH_LOG("got %s", cmabuf_strategy_name(data.strategy));
	ASSERT_EQ(0, cmabuf_phys(self->dev.fd, data.fd, &phys));
	EXPECT_EQ(at, phys.phys);
	strategy_counts_read(_metadata, &self->dev, now);
	EXPECT_EQ(before[CMABUF_STRATEGY_COMPOUND].failures + 1,
		  now[CMABUF_STRATEGY_COMPOUND].failures);
	EXPECT_EQ(before[CMABUF_STRATEGY_COMPOUND].allocations,
		  now[CMABUF_STRATEGY_COMPOUND].allocations);
	EXPECT_EQ(before[CMABUF_STRATEGY_FROZEN].allocations + 1,
		  now[CMABUF_STRATEGY_FROZEN].allocations);
	EXPECT_EQ(before[CMABUF_STRATEGY_FROZEN].failures,
		  now[CMABUF_STRATEGY_FROZEN].failures);

	/* Only a block free anywhere: both fail, each counts a failure. */
	for (k = 0; k < bufs->n && !bufs->phys[k]; k++)
		;
	ASSERT_GT(bufs->n, k);
	fallback_close(bufs, k);
	ASSERT_EQ(0, cmabuf_settle(self->dev.fd));
	err = cmabuf_alloc(self->dev.fd, 2 * self->block, CMABUF_STRATEGY_AUTO, &data);
	if (!err)
		close(data.fd);
	EXPECT_EQ(ENOMEM, err);
	strategy_counts_read(_metadata, &self->dev, before);
	EXPECT_EQ(now[CMABUF_STRATEGY_COMPOUND].failures + 1,
		  before[CMABUF_STRATEGY_COMPOUND].failures);
	EXPECT_EQ(now[CMABUF_STRATEGY_FROZEN].failures + 1,
		  before[CMABUF_STRATEGY_FROZEN].failures);
	EXPECT_EQ(now[CMABUF_STRATEGY_FROZEN].allocations,
		  before[CMABUF_STRATEGY_FROZEN].allocations);
}

/* The driver's busy_retries parameter, or -1. */
static int busy_retries_param(void)
{
	char buf[32];

	if (cmabuf_read_file("/sys/module/cmabuf/parameters/busy_retries",
			     buf, sizeof(buf)))
		return -1;
	return atoi(buf);
}

/*
 * The errno tells what waiting can do. Two blocks free in two pieces:
 * the area has the room, no range can be had, and the driver tries again
 * busy_retries times before EBUSY. More than is free: ENOMEM at once,
 * with nothing tried again. Each counts one failure.
 */
TEST_F_TIMEOUT(auto_fallback, split_room_ebusy_after_retries_no_room_enomem,
	       600)
{
	struct strategy_counts before[CMABUF_STRATEGY_COUNT];
	struct strategy_counts now[CMABUF_STRATEGY_COUNT];
	const __u32 frozen = CMABUF_STRATEGY_FROZEN;
	struct fallback_bufs *bufs = &self->bufs;
	int retries = busy_retries_param();
	struct cmabuf_alloc_data data;
	int i, j, err;

	ASSERT_LE(0, retries);
	fallback_fill(_metadata, self->dev.fd, bufs, self->block,
		      CMABUF_STRATEGY_COMPOUND);
	fallback_fill(_metadata, self->dev.fd, bufs, PAGE,
		      CMABUF_STRATEGY_FROZEN);
	/* The first block, and one that is not its neighbour. */
	for (i = 0; i < bufs->n && !bufs->phys[i]; i++)
		;
	for (j = 0; j < bufs->n; j++)
		if (bufs->phys[j] &&
		    (bufs->phys[j] > bufs->phys[i] + self->block ||
		     bufs->phys[j] + self->block < bufs->phys[i]))
			break;
	ASSERT_GT(bufs->n, j);
	fallback_close(bufs, i);
	fallback_close(bufs, j);
	ASSERT_EQ(0, cmabuf_settle(self->dev.fd));

	strategy_counts_read(_metadata, &self->dev, before);
	err = cmabuf_alloc(self->dev.fd, 2 * self->block, frozen, &data);
	if (!err)
		close(data.fd);
	ASSERT_EQ(EBUSY, err);
	strategy_counts_read(_metadata, &self->dev, now);
	EXPECT_EQ(before[frozen].busy_retries + retries,
		  now[frozen].busy_retries);
	EXPECT_EQ(before[frozen].failures + 1, now[frozen].failures);
	EXPECT_EQ(before[frozen].allocations, now[frozen].allocations);

	err = cmabuf_alloc(self->dev.fd, 3 * self->block, frozen, &data);
	if (!err)
		close(data.fd);
	ASSERT_EQ(ENOMEM, err);
	strategy_counts_read(_metadata, &self->dev, before);
	EXPECT_EQ(now[frozen].busy_retries, before[frozen].busy_retries);
	EXPECT_EQ(now[frozen].failures + 1, before[frozen].failures);
}

/* phys: where PHYS says a buffer lives, per instance. */
FIXTURE(phys) {
	struct cmabuf_buf b;
	struct cmabuf_phys phys;
	int fd;
};

FIXTURE_VARIANT(phys) {
	const char *path;
};

FIXTURE_VARIANT_ADD(phys, default) {
	.path = DEV_DEFAULT,
};

FIXTURE_VARIANT_ADD(phys, general) {
	.path = DEV_GENERAL,
};

FIXTURE_VARIANT_ADD(phys, large) {
	.path = DEV_LARGE,
};

FIXTURE_SETUP(phys)
{
	self->fd = -1;
	if (!buf_setup(_metadata, &self->b, variant->path,
		       CMABUF_STRATEGY_AUTO, SZ_2M))
		return;
	ASSERT_EQ(0, cmabuf_phys(self->b.dev.fd, self->b.fd, &self->phys));
}

FIXTURE_TEARDOWN(phys)
{
	if (self->fd >= 0)
		close(self->fd);
	buf_teardown(_metadata, &self->b);
}

TEST_F(phys, reports_buffer_inside_area)
{
	unsigned long long base, count;

	if (!cma_read(_metadata, self->b.dev.area, "base_pfn", &base))
		return;
	if (!cma_read(_metadata, self->b.dev.area, "count", &count))
		return;
	ASSERT_EQ(self->b.data.alloc_size, self->phys.size);
	ASSERT_LE(base * PAGE, self->phys.phys);
	ASSERT_GE((base + count) * PAGE, self->phys.phys + self->phys.size);
}

/* COMPOUND's own alignment is its size; the others' is a page. */
TEST_F(phys, default_alignment)
{
	__u64 align = self->b.data.strategy == CMABUF_STRATEGY_COMPOUND ?
		      self->b.data.alloc_size : PAGE;

	ASSERT_EQ(0ULL, self->phys.phys & (align - 1))
		TH_LOG("%s buffer at %#llx",
		       cmabuf_strategy_name(self->b.data.strategy),
		       (unsigned long long)self->phys.phys);
}

/*
 * Where AUTO can only be DMA, which takes the alignment the DMA API gives
 * (the size's power of two, at most CONFIG_CMA_ALIGNMENT), a 2 MiB
 * alignment for 3 pages is EINVAL.
 */
TEST_F(phys, requested_alignment_honoured)
{
	struct cmabuf_alloc_data data;
	struct cmabuf_phys phys;

	memset(&data, 0, sizeof(data));
	data.size = 3 * PAGE;
	data.align = 21;
	data.fd_flags = O_RDWR | O_CLOEXEC;
	if (cmabuf_auto_strategy(&self->b.dev.info, data.size) ==
	    CMABUF_STRATEGY_DMA) {
		ASSERT_EQ(EINVAL, cmabuf_ioctl(self->b.dev.fd,
					       CMABUF_IOC_ALLOC, &data));
		return;
	}
	ASSERT_EQ(0, cmabuf_ioctl(self->b.dev.fd, CMABUF_IOC_ALLOC, &data));
	self->fd = data.fd;
	ASSERT_EQ(0, cmabuf_phys(self->b.dev.fd, self->fd, &phys));
	ASSERT_EQ(0ULL, phys.phys & (SZ_2M - 1))
		TH_LOG("%s buffer at %#llx", cmabuf_strategy_name(data.strategy),
		       (unsigned long long)phys.phys);
}

TEST_F(phys, live_buffers_do_not_overlap)
{
	struct cmabuf_alloc_data data;
	struct cmabuf_phys phys;

	ASSERT_EQ(0, cmabuf_alloc(self->b.dev.fd, SZ_2M, CMABUF_STRATEGY_AUTO,
				  &data));
	self->fd = data.fd;
	ASSERT_EQ(0, cmabuf_phys(self->b.dev.fd, self->fd, &phys));
	ASSERT_TRUE(phys.phys + phys.size <= self->phys.phys ||
		    self->phys.phys + self->phys.size <= phys.phys)
		TH_LOG("%#llx and %#llx", (unsigned long long)phys.phys,
		       (unsigned long long)self->phys.phys);
}

/* dma_reach: where each instance's area lies, for DMA masks. */
FIXTURE(dma_reach) {
	struct cmabuf_dev dev;
};

FIXTURE_VARIANT(dma_reach) {
	const char *path;
};

FIXTURE_VARIANT_ADD(dma_reach, default) {
	.path = DEV_DEFAULT,
};

FIXTURE_VARIANT_ADD(dma_reach, general) {
	.path = DEV_GENERAL,
};

FIXTURE_VARIANT_ADD(dma_reach, large) {
	.path = DEV_LARGE,
};

FIXTURE_SETUP(dma_reach)
{
	dev_open(_metadata, &self->dev, variant->path);
}

FIXTURE_TEARDOWN(dma_reach)
{
	dev_close(_metadata, &self->dev);
}

/* An arm64 kernel, which a 32-bit program sees as armv8. */
static bool kernel_is_arm64(void)
{
	struct utsname u;

	return !uname(&u) && (!strcmp(u.machine, "aarch64") ||
			      !strncmp(u.machine, "armv8", 5));
}

/* Was the guest booted with every mapping through swiotlb? */
static bool swiotlb_forced(void)
{
	char cmdline[4096];
	const char *p;

	if (cmabuf_read_file("/proc/cmdline", cmdline, sizeof(cmdline)))
		return false;
	p = strstr(cmdline, "swiotlb=");
	return p && strstr(p, ",force");
}

/*
 * The bits INFO gives are those of the area's last byte, as debugfs places
 * it; the default area's place is not known to the driver: 0.
 */
TEST_F(dma_reach, dma_bits_cover_the_area)
{
	unsigned long long base, count, end;

	if (!strcmp(variant->path, DEV_DEFAULT)) {
		EXPECT_EQ(0U, self->dev.info.dma_bits);
		return;
	}
	if (!cma_read(_metadata, self->dev.area, "base_pfn", &base))
		return;
	if (!cma_read(_metadata, self->dev.area, "count", &count))
		return;
	end = (base + count) * PAGE - 1;
	EXPECT_EQ(64U - __builtin_clzll(end), self->dev.info.dma_bits)
		TH_LOG("area %s ends at %#llx", self->dev.area, end);
}

/* The same number in sysfs, for anyone to read. */
TEST_F(dma_reach, sysfs_dma_bits_matches_info)
{
	const char *name = strrchr(variant->path, '/') + 1;
	unsigned long long bits;
	char file[128];
	struct stat st;

	snprintf(file, sizeof(file), "/sys/class/misc/%s/dma_bits", name);
	ASSERT_EQ(0, stat(file, &st));
	EXPECT_EQ(0444U, st.st_mode & 0777);
	ASSERT_EQ(0, cmabuf_stat_read(variant->path, ".", "dma_bits", &bits));
	EXPECT_EQ(self->dev.info.dma_bits, bits);
}

/* Every stats directory counts refused mappings, from 0. */
TEST_F(dma_reach, unreachable_maps_counted_per_strategy)
{
	static const char * const groups[] = {
		"stats", "stats_compound", "stats_frozen", "stats_legacy",
		"stats_dma",
	};
	unsigned long long v, sum = 0, all;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(groups); i++) {
		ASSERT_EQ(0, cmabuf_stat_read(variant->path, groups[i],
					      "unreachable_maps", &v))
			TH_LOG("%s/unreachable_maps", groups[i]);
		if (i)
			sum += v;
		else
			all = v;
	}
	EXPECT_EQ(all, sum);
}

/*
 * The test bed's instances are not cache-coherent (no dma-coherent in
 * their nodes; the default one has none on arm64): their CPU access is
 * maintained and they grant write-combined buffers, except where every
 * mapping bounces.
 */
TEST_F(dma_reach, cache_flags_as_booted)
{
	__u32 flags = self->dev.info.flags;

	EXPECT_EQ(!!(flags & CMABUF_INFO_CACHE_SYNC),
		  !!(flags & CMABUF_INFO_WRITECOMBINE));
	if (!kernel_is_arm64())
		SKIP(return, "devices' default coherency is arm64's here");
	EXPECT_EQ(!swiotlb_forced(), !!(flags & CMABUF_INFO_CACHE_SYNC))
		TH_LOG("INFO flags %#x", flags);
}

/* wc: write-combined buffers, per instance. */
FIXTURE(wc) {
	struct cmabuf_dev dev;
	struct cmabuf_alloc_data data;
	int fd;
	void *map[2];
};

FIXTURE_VARIANT(wc) {
	const char *path;
};

FIXTURE_VARIANT_ADD(wc, default) {
	.path = DEV_DEFAULT,
};

FIXTURE_VARIANT_ADD(wc, general) {
	.path = DEV_GENERAL,
};

FIXTURE_VARIANT_ADD(wc, large) {
	.path = DEV_LARGE,
};

#define WC_SIZE	SZ_2M

FIXTURE_SETUP(wc)
{
	self->fd = -1;
	self->map[0] = MAP_FAILED;
	self->map[1] = MAP_FAILED;
	if (!dev_open(_metadata, &self->dev, variant->path))
		return;
	memset(&self->data, 0, sizeof(self->data));
	self->data.size = WC_SIZE;
	self->data.fd_flags = O_RDWR | O_CLOEXEC;
	self->data.flags = CMABUF_STRATEGY_AUTO | CMABUF_ALLOC_WRITECOMBINE;
	ASSERT_EQ(0, cmabuf_ioctl(self->dev.fd, CMABUF_IOC_ALLOC, &self->data));
	self->fd = self->data.fd;
}

FIXTURE_TEARDOWN(wc)
{
	int i;

	for (i = 0; i < 2; i++)
		if (self->map[i] != MAP_FAILED)
			munmap(self->map[i], WC_SIZE);
	if (self->fd >= 0)
		close(self->fd);
	dev_close(_metadata, &self->dev);
}

/* Map the whole of @fd into *@map, for the teardown to unmap. */
static void *wc_map(struct __test_metadata *_metadata, int fd, void **map)
{
	*map = cmabuf_map(fd, WC_SIZE, 0);
	ASSERT_NE(MAP_FAILED, *map) TH_LOG("mmap: %s", strerror(errno));
	return *map;
}

/* WC where INFO says the instance grants it, and said so in the reply. */
TEST_F(wc, granted_as_info_says)
{
	__u32 want = self->dev.info.flags & CMABUF_INFO_WRITECOMBINE ?
		     CMABUF_BUF_WRITECOMBINE : 0;

	EXPECT_EQ(want, self->data.buf_flags);
	EXPECT_EQ(WC_SIZE, self->data.alloc_size);
	EXPECT_EQ(0U, self->data.pad2);
}

TEST_F(wc, plain_buffer_is_not_wc)
{
	struct cmabuf_alloc_data data;

	ASSERT_EQ(0, cmabuf_alloc(self->dev.fd, PAGE, CMABUF_STRATEGY_AUTO,
				  &data));
	close(data.fd);
	EXPECT_EQ(0U, data.buf_flags);
}

TEST_F(wc, contents_zero)
{
	unsigned char *p = wc_map(_metadata, self->fd, &self->map[0]);
	size_t off = cmabuf_first_nonzero(p, WC_SIZE);

	EXPECT_EQ(WC_SIZE, off) TH_LOG("byte %zu is %#x", off, p[off]);
}

TEST_F(wc, second_mapping_sees_writes)
{
	void *first = wc_map(_metadata, self->fd, &self->map[0]);
	void *second = wc_map(_metadata, self->fd, &self->map[1]);
	size_t off;

	cmabuf_fill_pages(first, WC_SIZE, 3);
	off = cmabuf_check_pages(second, WC_SIZE, 3);
	EXPECT_EQ(WC_SIZE, off) TH_LOG("second mapping differs at %zu", off);
}

/* ptrace's way in goes through a write-combined mapping of the page. */
TEST_F(wc, proc_mem_reads_and_writes)
{
	unsigned char *p = wc_map(_metadata, self->fd, &self->map[0]);
	unsigned char got[64], put[64];
	int mem;

	memset(p + PAGE + 100, 0x5a, sizeof(got));
	memset(put, 0xa5, sizeof(put));
	mem = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, mem);
	ASSERT_EQ((ssize_t)sizeof(got),
		  pread(mem, got, sizeof(got), (uintptr_t)(p + PAGE + 100)));
	ASSERT_EQ((ssize_t)sizeof(put),
		  pwrite(mem, put, sizeof(put), (uintptr_t)(p + 3 * PAGE)));
	close(mem);
	EXPECT_EQ(0, memcmp(got, p + PAGE + 100, sizeof(got)));
	EXPECT_EQ(0, memcmp(put, p + 3 * PAGE, sizeof(put)));
}

/* An older caller's 40 bytes: the flag works, nothing past them is written. */
TEST_F(wc, short_struct_gets_no_buf_flags)
{
	unsigned char buf[sizeof(struct cmabuf_alloc_data)];
	struct cmabuf_alloc_data *data = (struct cmabuf_alloc_data *)buf;
	size_t len = offsetof(struct cmabuf_alloc_data, buf_flags), i;

	memset(buf, 0x5a, sizeof(buf));
	memset(buf, 0, len);
	data->size = PAGE;
	data->fd_flags = O_RDWR | O_CLOEXEC;
	data->flags = CMABUF_ALLOC_WRITECOMBINE;
	ASSERT_EQ(0, cmabuf_ioctl_sized(self->dev.fd, _IOC_NR(CMABUF_IOC_ALLOC),
					buf, len));
	close(data->fd);
	for (i = len; i < sizeof(buf); i++)
		EXPECT_EQ(0x5a, buf[i]) TH_LOG("byte %zu written", i);
}

/* sync_args: what CMABUF_IOC_SYNC refuses, and what it takes. */
FIXTURE(sync_args) {
	struct cmabuf_dev dev;
	struct cmabuf_sync s;
	int buf;
	int other;
	__u64 size;
};

FIXTURE_SETUP(sync_args)
{
	struct cmabuf_alloc_data data;

	self->buf = -1;
	self->other = -1;
	if (!dev_open_any(_metadata, &self->dev))
		return;
	ASSERT_EQ(0, cmabuf_alloc(self->dev.fd, 4 * PAGE, CMABUF_STRATEGY_AUTO,
				  &data));
	self->buf = data.fd;
	self->size = data.alloc_size;
	memset(&self->s, 0, sizeof(self->s));
	self->s.fd = self->buf;
	self->s.flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW;
	self->s.length = self->size;
}

FIXTURE_TEARDOWN(sync_args)
{
	if (self->other >= 0)
		close(self->other);
	if (self->buf >= 0)
		close(self->buf);
	dev_close(_metadata, &self->dev);
}

static int sync_errno(const struct cmabuf_dev *dev, struct cmabuf_sync *s)
{
	return cmabuf_ioctl(dev->fd, CMABUF_IOC_SYNC, s);
}

TEST_F(sync_args, every_direction_and_range_works)
{
	static const __u32 dirs[] = {
		DMA_BUF_SYNC_READ, DMA_BUF_SYNC_WRITE, DMA_BUF_SYNC_RW,
	};
	const __u64 ranges[][2] = {
		{ 0, self->size }, { 0, 1 }, { self->size - 1, 1 },
		{ PAGE - 3, PAGE + 7 },
	};
	size_t d, r;

	for (d = 0; d < ARRAY_SIZE(dirs); d++) {
		for (r = 0; r < ARRAY_SIZE(ranges); r++) {
			self->s.offset = ranges[r][0];
			self->s.length = ranges[r][1];
			self->s.flags = DMA_BUF_SYNC_START | dirs[d];
			EXPECT_EQ(0, sync_errno(&self->dev, &self->s));
			self->s.flags = DMA_BUF_SYNC_END | dirs[d];
			EXPECT_EQ(0, sync_errno(&self->dev, &self->s));
		}
	}
}

TEST_F(sync_args, unknown_flags_einval)
{
	self->s.flags = DMA_BUF_SYNC_RW | (1U << 3);
	EXPECT_EQ(EINVAL, sync_errno(&self->dev, &self->s));
	self->s.flags = DMA_BUF_SYNC_RW | (1U << 31);
	EXPECT_EQ(EINVAL, sync_errno(&self->dev, &self->s));
}

TEST_F(sync_args, no_direction_einval)
{
	self->s.flags = DMA_BUF_SYNC_START;
	EXPECT_EQ(EINVAL, sync_errno(&self->dev, &self->s));
	self->s.flags = DMA_BUF_SYNC_END;
	EXPECT_EQ(EINVAL, sync_errno(&self->dev, &self->s));
}

TEST_F(sync_args, zero_length_einval)
{
	self->s.length = 0;
	EXPECT_EQ(EINVAL, sync_errno(&self->dev, &self->s));
	self->s.offset = PAGE;
	EXPECT_EQ(EINVAL, sync_errno(&self->dev, &self->s));
}

TEST_F(sync_args, range_past_end_einval)
{
	const __u64 ranges[][2] = {
		{ self->size, 1 }, { 0, self->size + 1 },
		{ self->size - 1, 2 }, { ~0ULL, 2 }, { 1, ~0ULL },
		{ ~0ULL - PAGE + 1, PAGE },
	};
	size_t r;

	for (r = 0; r < ARRAY_SIZE(ranges); r++) {
		self->s.offset = ranges[r][0];
		self->s.length = ranges[r][1];
		EXPECT_EQ(EINVAL, sync_errno(&self->dev, &self->s))
			TH_LOG("offset %#llx length %#llx",
			       (unsigned long long)ranges[r][0],
			       (unsigned long long)ranges[r][1]);
	}
}

TEST_F(sync_args, closed_fd_ebadf)
{
	self->other = dup(self->buf);
	ASSERT_LE(0, self->other);
	close(self->other);
	self->s.fd = self->other;
	self->other = -1;
	EXPECT_EQ(EBADF, sync_errno(&self->dev, &self->s));
	self->s.fd = -1;
	EXPECT_EQ(EBADF, sync_errno(&self->dev, &self->s));
}

/* A file that is no dma-buf, and a dma-buf that is not cmabuf's. */
TEST_F(sync_args, foreign_fd_einval)
{
	struct dma_heap_allocation_data heap = {
		.len = PAGE,
		.fd_flags = O_RDWR | O_CLOEXEC,
	};
	int fds[2], system;

	ASSERT_EQ(0, pipe2(fds, O_CLOEXEC));
	self->s.fd = fds[0];
	EXPECT_EQ(EINVAL, sync_errno(&self->dev, &self->s));
	close(fds[0]);
	close(fds[1]);
	self->s.fd = self->dev.fd;
	EXPECT_EQ(EINVAL, sync_errno(&self->dev, &self->s));

	system = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);
	if (system < 0)
		SKIP(return, "no system dma-heap for a dma-buf not cmabuf's");
	ASSERT_EQ(0, cmabuf_ioctl(system, DMA_HEAP_IOCTL_ALLOC, &heap));
	close(system);
	self->other = heap.fd;
	self->s.fd = heap.fd;
	self->s.length = PAGE;
	EXPECT_EQ(EINVAL, sync_errno(&self->dev, &self->s));
}

/* The buffer of one instance, synced through another's node. */
TEST_F(sync_args, any_instance_syncs_any_buffer)
{
	size_t i;
	int other;

	for (i = 0; i < ARRAY_SIZE(instances); i++) {
		if (!strcmp(instances[i], self->dev.path))
			continue;
		other = open(instances[i], O_RDWR | O_CLOEXEC);
		if (other < 0)
			continue;
		EXPECT_EQ(0, cmabuf_ioctl(other, CMABUF_IOC_SYNC, &self->s))
			TH_LOG("through %s", instances[i]);
		close(other);
		return;
	}
	SKIP(return, "only one instance");
}

TEST_F(sync_args, long_struct_zero_tail_works)
{
	unsigned char buf[sizeof(struct cmabuf_sync) + 16] = { 0 };

	memcpy(buf, &self->s, sizeof(self->s));
	EXPECT_EQ(0, cmabuf_ioctl(self->dev.fd,
				  _IOW(CMABUF_IOC_MAGIC, _IOC_NR(CMABUF_IOC_SYNC),
				       unsigned char[sizeof(buf)]), buf));
}

TEST_F(sync_args, long_struct_nonzero_tail_einval)
{
	unsigned char buf[sizeof(struct cmabuf_sync) + 16] = { 0 };

	memcpy(buf, &self->s, sizeof(self->s));
	buf[sizeof(buf) - 1] = 1;
	EXPECT_EQ(EINVAL, cmabuf_ioctl(self->dev.fd,
				       _IOW(CMABUF_IOC_MAGIC,
					    _IOC_NR(CMABUF_IOC_SYNC),
					    unsigned char[sizeof(buf)]), buf));
}

TEST_F(sync_args, bad_pointer_efault)
{
	void *none = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);

	ASSERT_NE(MAP_FAILED, none);
	EXPECT_EQ(EFAULT, cmabuf_ioctl(self->dev.fd, CMABUF_IOC_SYNC, NULL));
	EXPECT_EQ(EFAULT, cmabuf_ioctl(self->dev.fd, CMABUF_IOC_SYNC, none));
	munmap(none, PAGE);
}

/* phys_args: what PHYS refuses. */
FIXTURE(phys_args) {
	struct cmabuf_dev dev;
	struct cmabuf_phys phys;
	int buf;
	int other;
};

FIXTURE_SETUP(phys_args)
{
	struct cmabuf_alloc_data data;

	self->buf = -1;
	self->other = -1;
	if (!dev_open_any(_metadata, &self->dev))
		return;
	ASSERT_EQ(0, cmabuf_alloc(self->dev.fd, PAGE, CMABUF_STRATEGY_AUTO,
				  &data));
	self->buf = data.fd;
	memset(&self->phys, 0, sizeof(self->phys));
	self->phys.fd = self->buf;
}

FIXTURE_TEARDOWN(phys_args)
{
	if (self->other >= 0)
		close(self->other);
	if (self->buf >= 0)
		close(self->buf);
	dev_close(_metadata, &self->dev);
}

static int phys_errno(struct cmabuf_dev *dev, struct cmabuf_phys *phys)
{
	return cmabuf_ioctl(dev->fd, CMABUF_IOC_PHYS, phys);
}

TEST_F(phys_args, unprivileged_eperm)
{
	ASSERT_EQ(EPERM, cmabuf_ioctl_unprivileged(self->dev.fd,
						   CMABUF_IOC_PHYS,
						   &self->phys));
}

TEST_F(phys_args, memfd_einval)
{
	self->other = memfd_create("cmabuf-selftest", MFD_CLOEXEC);
	ASSERT_LE(0, self->other);
	ASSERT_EQ(0, ftruncate(self->other, PAGE));
	self->phys.fd = self->other;
	ASSERT_EQ(EINVAL, phys_errno(&self->dev, &self->phys));
}

TEST_F(phys_args, pipe_einval)
{
	int p[2];

	ASSERT_EQ(0, pipe(p));
	close(p[1]);
	self->other = p[0];
	self->phys.fd = self->other;
	ASSERT_EQ(EINVAL, phys_errno(&self->dev, &self->phys));
}

TEST_F(phys_args, device_fd_einval)
{
	self->phys.fd = self->dev.fd;
	ASSERT_EQ(EINVAL, phys_errno(&self->dev, &self->phys));
}

TEST_F(phys_args, closed_fd_ebadf)
{
	int fd = dup(self->buf);

	ASSERT_LE(0, fd);
	close(fd);
	self->phys.fd = fd;
	ASSERT_EQ(EBADF, phys_errno(&self->dev, &self->phys));
}

TEST_F(phys_args, pad_nonzero_einval)
{
	self->phys.pad = 1;
	ASSERT_EQ(EINVAL, phys_errno(&self->dev, &self->phys));
}

TEST_F(phys_args, output_field_nonzero_einval)
{
	struct cmabuf_phys valid = self->phys;

	self->phys.phys = 1;
	ASSERT_EQ(EINVAL, phys_errno(&self->dev, &self->phys));
	self->phys = valid;
	self->phys.size = 1;
	ASSERT_EQ(EINVAL, phys_errno(&self->dev, &self->phys));
}

TEST_F(phys_args, bad_pointer_efault)
{
	ASSERT_EQ(EFAULT, cmabuf_ioctl(self->dev.fd, CMABUF_IOC_PHYS, NULL));
}

/*
 * prepare: buffers made ready ahead (CMABUF_IOC_PREPARE) on the general
 * instance. One file (@owner) prepares; allocations come from the
 * fixture's own file unless a test says otherwise, so that the ready
 * buffers serve any file. The teardown closes @owner, which gives back
 * whatever it still wants, and expects the area as it was.
 */
#define PREP_SIZE	SZ_2M
#define PREP_BIG	(16 * SZ_1M)
#define PREP_WAIT_MS	10000
#define PREP_FILL_MAX	1100

/**
 * struct prep_fds - buffers a test keeps, for the teardown to close
 * @fd: their fds.
 * @n: entries in use.
 */
struct prep_fds {
	int fd[PREP_FILL_MAX];
	int n;
};

static int u64_cmp(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

FIXTURE(prepare) {
	struct cmabuf_dev dev;
	int owner;
	int other;
	struct prep_fds keep;
};

/* Does the driver prepare buffers (and so defer frees)? */
static bool prepare_supported(int dev)
{
	unsigned long long v;

	return !cmabuf_sysfs_read(dev, "prepared_bytes", &v);
}

FIXTURE_SETUP(prepare)
{
	unsigned long long v;

	self->owner = -1;
	self->other = -1;
	self->keep.n = 0;
	if (!dev_open(_metadata, &self->dev, DEV_GENERAL))
		return;
	if (!prepare_supported(self->dev.fd))
		SKIP(return, "%s prepares no buffers (no sysfs prepared_bytes)",
		     DEV_GENERAL);
	ASSERT_EQ(0, cmabuf_sysfs_read(self->dev.fd, "prepared_bytes", &v));
	ASSERT_EQ(0ULL, v) TH_LOG("buffers are prepared before the test");
	self->owner = open(DEV_GENERAL, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->owner);
}

/*
 * Wait, up to 10 s, until nothing is prepared, released or being made:
 * the area's used pages are back at the start.
 */
static void prepare_settle(struct cmabuf_dev *dev)
{
	unsigned long long end = cmabuf_now_ms() + PREP_WAIT_MS, v, used;

	while (cmabuf_now_ms() < end) {
		if (!cmabuf_sysfs_read(dev->fd, "prepared_bytes", &v) && !v &&
		    !cmabuf_settle(dev->fd) &&
		    (!dev->start.used_known ||
		     (!cmabuf_cma_read(dev->area, "used", &used) &&
		      used == dev->start.cma_used_pages)))
			return;
		usleep(1000);
	}
}

FIXTURE_TEARDOWN(prepare)
{
	char reserve[64];

	/* A reserve a test set (alloc_keeps_the_reserve), even if it failed. */
	if (self->dev.fd >= 0 &&
	    !cmabuf_sysfs_read_str(self->dev.fd, "reserve", reserve,
				   sizeof(reserve)) &&
	    strcmp(reserve, "\n"))
		cmabuf_sysfs_write(self->dev.fd, "reserve", "\n");
	while (self->keep.n--)
		close(self->keep.fd[self->keep.n]);
	if (self->other >= 0)
		close(self->other);
	if (self->owner >= 0)
		close(self->owner);
	if (self->dev.fd < 0)
		return;
	prepare_settle(&self->dev);
	dev_close(_metadata, &self->dev);
}

/* A counter of the instance's stats/ (all strategies). */
static unsigned long long prep_stat(struct __test_metadata *_metadata,
				    const struct cmabuf_dev *dev,
				    const char *counter)
{
	unsigned long long v = ~0ULL;
	char file[64];

	snprintf(file, sizeof(file), "stats/%s", counter);
	EXPECT_EQ(0, cmabuf_sysfs_read(dev->fd, file, &v)) TH_LOG("%s", file);
	return v;
}

static unsigned long long prep_sysfs(struct __test_metadata *_metadata,
				     const struct cmabuf_dev *dev,
				     const char *file)
{
	unsigned long long v = ~0ULL;

	EXPECT_EQ(0, cmabuf_sysfs_read(dev->fd, file, &v)) TH_LOG("%s", file);
	return v;
}

/* Every byte of the buffer @fd of @len bytes is zero. */
static void prep_expect_zero(struct __test_metadata *_metadata, int fd,
			     size_t len)
{
	unsigned char *p = cmabuf_map(fd, len, 0);
	size_t off;

	ASSERT_NE(MAP_FAILED, p);
	off = cmabuf_first_nonzero(p, len);
	EXPECT_EQ(len, off) TH_LOG("byte %zu of %zu is %#x", off, len, p[off]);
	munmap(p, len);
}

/* Keep @fd for the teardown to close. */
static void prep_keep(struct __test_metadata *_metadata,
		      struct prep_fds *keep, int fd)
{
	ASSERT_GT(PREP_FILL_MAX, keep->n);
	keep->fd[keep->n++] = fd;
}

/* The first strategy of FROZEN, LEGACY, DMA that this kernel has. */
static __u32 prep_plain_strategy(const struct cmabuf_info *info)
{
	if (cmabuf_strategy_supported(info, CMABUF_STRATEGY_FROZEN))
		return CMABUF_STRATEGY_FROZEN;
	if (cmabuf_strategy_supported(info, CMABUF_STRATEGY_LEGACY))
		return CMABUF_STRATEGY_LEGACY;
	return CMABUF_STRATEGY_DMA;
}

TEST_F_TIMEOUT(prepare, wait_returns_with_count_ready, 60)
{
	unsigned long long made0 = prep_stat(_metadata, &self->dev, "prepared");
	struct cmabuf_counters live;
	struct cmabuf_prepare p;

	ASSERT_EQ(0, cmabuf_prepare(self->owner, PREP_SIZE,
				    CMABUF_PREPARE_WAIT, 3, 0, &p));
	EXPECT_EQ(3U, p.ready);
	EXPECT_EQ(3ULL, prep_sysfs(_metadata, &self->dev, "prepared_buffers"));
	EXPECT_EQ(3 * PREP_SIZE,
		  prep_sysfs(_metadata, &self->dev, "prepared_bytes"));
	EXPECT_EQ(made0 + 3, prep_stat(_metadata, &self->dev, "prepared"));
	/* In the area, but no buffer of anyone's yet. */
	live = counters_plus(&self->dev, 0, 3 * PREP_SIZE);
	live.live_bytes = self->dev.start.live_bytes;
	expect_counters(_metadata, &self->dev, &live);
}

TEST_F_TIMEOUT(prepare, ready_rises_without_wait, 60)
{
	unsigned long long end = cmabuf_now_ms() + PREP_WAIT_MS, v;
	struct cmabuf_prepare p;
	__u32 last = 0;

	ASSERT_EQ(0, cmabuf_prepare(self->owner, PREP_SIZE, 0, 3, 0, &p));
	EXPECT_GE(3U, p.ready);
	/* Asked again, the same want tells how many are ready now. */
	while (p.ready < 3 && cmabuf_now_ms() < end) {
		last = p.ready;
		usleep(2000);
		ASSERT_EQ(0, cmabuf_prepare(self->owner, PREP_SIZE, 0, 3, 0,
					    &p));
		EXPECT_LE(last, p.ready);
	}
	EXPECT_EQ(3U, p.ready);
	ASSERT_EQ(0, cmabuf_sysfs_wait(self->dev.fd, "prepared_buffers", 3,
				       PREP_WAIT_MS, &v));
}

/*
 * An allocation of the kind takes a ready buffer, counted as a hit and as
 * an allocation, all zero; the want gets another.
 */
TEST_F_TIMEOUT(prepare, alloc_takes_ready_buffer_and_want_refills, 60)
{
	unsigned long long hits0, allocs0, made0, v;
	struct cmabuf_alloc_data data;
	struct cmabuf_counters live;
	struct cmabuf_prepare p;

	ASSERT_EQ(0, cmabuf_prepare(self->owner, PREP_SIZE,
				    CMABUF_PREPARE_WAIT, 2, 0, &p));
	ASSERT_EQ(2U, p.ready);
	hits0 = prep_stat(_metadata, &self->dev, "prepare_hits");
	allocs0 = prep_stat(_metadata, &self->dev, "allocations");
	made0 = prep_stat(_metadata, &self->dev, "prepared");

	ASSERT_EQ(0, cmabuf_alloc(self->dev.fd, PREP_SIZE,
				  CMABUF_STRATEGY_AUTO, &data));
	prep_keep(_metadata, &self->keep, data.fd);
	EXPECT_EQ(hits0 + 1, prep_stat(_metadata, &self->dev, "prepare_hits"));
	EXPECT_EQ(allocs0 + 1, prep_stat(_metadata, &self->dev, "allocations"));
	EXPECT_EQ(strategy_expected(&self->dev.info, CMABUF_STRATEGY_AUTO,
				    PREP_SIZE), data.strategy);
	prep_expect_zero(_metadata, data.fd, data.alloc_size);

	/* Made again: two ready, and the buffer taken is live. */
	ASSERT_EQ(0, cmabuf_sysfs_wait(self->dev.fd, "prepared_buffers", 2,
				       PREP_WAIT_MS, &v));
	EXPECT_EQ(made0 + 1, prep_stat(_metadata, &self->dev, "prepared"));
	live = counters_plus(&self->dev, 1, 3 * PREP_SIZE);
	live.live_bytes = self->dev.start.live_bytes + PREP_SIZE;
	expect_counters(_metadata, &self->dev, &live);
}

/*
 * Only the kind asked for is served: another size, another strategy
 * asked for explicitly, an alignment the buffer does not have.
 */
TEST_F_TIMEOUT(prepare, other_kinds_not_served, 60)
{
	__u32 s = prep_plain_strategy(&self->dev.info);
	struct cmabuf_alloc_data data;
	struct cmabuf_prepare p;
	unsigned long long hits0;
	__u32 other;

	ASSERT_EQ(0, cmabuf_prepare(self->owner, PREP_SIZE,
				    s | CMABUF_PREPARE_WAIT, 1, 0, &p));
	ASSERT_EQ(1U, p.ready);
	hits0 = prep_stat(_metadata, &self->dev, "prepare_hits");

	ASSERT_EQ(0, cmabuf_alloc(self->dev.fd, PREP_SIZE / 2, s, &data));
	prep_keep(_metadata, &self->keep, data.fd);
	ASSERT_EQ(0, cmabuf_alloc(self->dev.fd, 2 * PREP_SIZE, s, &data));
	prep_keep(_metadata, &self->keep, data.fd);
	other = s == CMABUF_STRATEGY_FROZEN ? CMABUF_STRATEGY_LEGACY :
					      CMABUF_STRATEGY_FROZEN;
	if (cmabuf_strategy_supported(&self->dev.info, other)) {
		ASSERT_EQ(0, cmabuf_alloc(self->dev.fd, PREP_SIZE, other,
					  &data));
		prep_keep(_metadata, &self->keep, data.fd);
	}
	EXPECT_EQ(hits0, prep_stat(_metadata, &self->dev, "prepare_hits"));
	EXPECT_EQ(1ULL, prep_sysfs(_metadata, &self->dev, "prepared_buffers"));

	/* The kind itself is, at an alignment its buffer has. */
	memset(&data, 0, sizeof(data));
	data.size = PREP_SIZE;
	data.fd_flags = O_RDWR | O_CLOEXEC;
	data.flags = s;
	data.align = 12;
	ASSERT_EQ(0, cmabuf_ioctl(self->dev.fd, CMABUF_IOC_ALLOC, &data));
	prep_keep(_metadata, &self->keep, data.fd);
	EXPECT_EQ(hits0 + 1, prep_stat(_metadata, &self->dev, "prepare_hits"));
	EXPECT_EQ(s, data.strategy);
}

TEST_F_TIMEOUT(prepare, count_zero_gives_back, 60)
{
	struct cmabuf_prepare p;

	ASSERT_EQ(0, cmabuf_prepare(self->owner, PREP_BIG,
				    CMABUF_PREPARE_WAIT, 2, 0, &p));
	ASSERT_EQ(2U, p.ready);
	ASSERT_EQ(0, cmabuf_prepare(self->owner, PREP_BIG, 0, 0, 0, &p));
	EXPECT_EQ(0U, p.ready);
	/* At once: the ioctl releases them before it returns. */
	EXPECT_EQ(0ULL, prep_sysfs(_metadata, &self->dev, "prepared_bytes"));
	expect_counters(_metadata, &self->dev, &self->dev.start);
}

TEST_F_TIMEOUT(prepare, close_gives_back, 60)
{
	struct cmabuf_prepare p;

	ASSERT_EQ(0, cmabuf_prepare(self->owner, PREP_BIG,
				    CMABUF_PREPARE_WAIT, 2, 0, &p));
	ASSERT_EQ(2U, p.ready);
	close(self->owner);
	self->owner = -1;
	EXPECT_EQ(0ULL, prep_sysfs(_metadata, &self->dev, "prepared_bytes"));
	expect_counters(_metadata, &self->dev, &self->dev.start);
}

/*
 * Untaken for its time-out, a want goes with its buffers, not before:
 * measured from the PREPARE, give or take a tick.
 */
TEST_F_TIMEOUT(prepare, timeout_gives_back, 60)
{
	const unsigned int timeout = 1000;
	unsigned long long start, gone, v;
	struct cmabuf_counters now;
	struct cmabuf_prepare p;
	int i;

	start = cmabuf_now_ms();
	ASSERT_EQ(0, cmabuf_prepare(self->owner, PREP_BIG,
				    CMABUF_PREPARE_WAIT, 2, timeout, &p));
	ASSERT_EQ(2U, p.ready);
	ASSERT_EQ(0, cmabuf_sysfs_read(self->dev.fd, "prepared_bytes", &v));
	if (cmabuf_now_ms() - start < timeout - 100)
		EXPECT_EQ(2 * PREP_BIG, v);
	ASSERT_EQ(0, cmabuf_sysfs_wait(self->dev.fd, "prepared_bytes", 0,
				       PREP_WAIT_MS, &v));
	gone = cmabuf_now_ms() - start;
	TH_LOG("given back %llu ms after the PREPARE (time-out %u ms)", gone,
	       timeout);
	EXPECT_LE(timeout - 20, gone);
	/*
	 * The expiry worker counts them out of prepared_bytes before it hands
	 * the pages back to CMA, outside the pool's lock: a moment later.
	 */
	for (i = 0; i < 1000; i++) {
		ASSERT_EQ(0, cmabuf_counters_read(self->dev.fd, self->dev.area,
						  &now));
		if (now.cma_used_pages == self->dev.start.cma_used_pages)
			break;
		usleep(1000);
	}
	expect_counters(_metadata, &self->dev, &self->dev.start);
}

/*
 * Each want keeps its own time-out: a longer one asked for later does not
 * keep a shorter one's buffers.
 */
TEST_F_TIMEOUT(prepare, timeout_not_postponed_by_a_longer_one, 60)
{
	const unsigned int timeout = 500;
	unsigned long long start, v;
	struct cmabuf_prepare p;
	int err;

	start = cmabuf_now_ms();
	ASSERT_EQ(0, cmabuf_prepare(self->owner, PREP_SIZE,
				    CMABUF_PREPARE_WAIT, 1, timeout, &p));
	ASSERT_EQ(0, cmabuf_prepare(self->owner, 2 * PREP_SIZE,
				    CMABUF_PREPARE_WAIT, 1, 60000, &p));
	err = cmabuf_sysfs_wait(self->dev.fd, "prepared_bytes", 2 * PREP_SIZE,
				timeout + 4000, &v);
	EXPECT_EQ(0, err)
		TH_LOG("%llu bytes prepared %llu ms after a want of %u ms",
		       v, cmabuf_now_ms() - start, timeout);
	ASSERT_EQ(0, cmabuf_prepare(self->owner, 2 * PREP_SIZE, 0, 0, 0, &p));
}

/* ---- prepare: what it refuses, changing nothing ---- */

/* PREPARE of a raw structure: its errno. */
static int prep_raw(int dev, struct cmabuf_prepare *p)
{
	return cmabuf_ioctl(dev, CMABUF_IOC_PREPARE, p);
}

TEST_F(prepare, flags_unknown_einval)
{
	struct cmabuf_prepare p = { .size = PREP_SIZE, .count = 1 };

	p.flags = 1U << 9;
	EXPECT_EQ(EINVAL, prep_raw(self->owner, &p));
	p.flags = 1U << 31;
	EXPECT_EQ(EINVAL, prep_raw(self->owner, &p));
	p.flags = CMABUF_STRATEGY_COUNT;
	EXPECT_EQ(EINVAL, prep_raw(self->owner, &p));
	EXPECT_EQ(0ULL, prep_sysfs(_metadata, &self->dev, "prepared_bytes"));
}

TEST_F(prepare, pad_or_ready_nonzero_einval)
{
	struct cmabuf_prepare p = { .size = PREP_SIZE, .count = 1, .pad = 1 };

	EXPECT_EQ(EINVAL, prep_raw(self->owner, &p));
	p.pad = 0;
	p.ready = 1;
	EXPECT_EQ(EINVAL, prep_raw(self->owner, &p));
}

TEST_F(prepare, count_above_max_einval)
{
	struct cmabuf_prepare p = {
		.size = PAGE,
		.count = CMABUF_PREPARE_MAX_COUNT + 1,
	};

	EXPECT_EQ(EINVAL, prep_raw(self->owner, &p));
	/* The most is allowed. */
	ASSERT_EQ(0, cmabuf_prepare(self->owner, PAGE, 0,
				    CMABUF_PREPARE_MAX_COUNT, 0, &p));
	ASSERT_EQ(0, cmabuf_prepare(self->owner, PAGE, 0, 0, 0, &p));
}

TEST_F(prepare, bad_size_einval)
{
	struct cmabuf_prepare p;

	EXPECT_EQ(EINVAL, cmabuf_prepare(self->owner, 0, 0, 1, 0, &p));
	EXPECT_EQ(EINVAL, cmabuf_prepare(self->owner, 1ULL << 32, 0, 1, 0,
					 &p));
	EXPECT_EQ(EINVAL, cmabuf_prepare(self->owner, ~0ULL, 0, 1, 0, &p));
}

TEST_F(prepare, align_above_max_einval)
{
	struct cmabuf_prepare p = {
		.size = PREP_SIZE,
		.count = 1,
		.align = CMABUF_ALIGN_MAX + 1,
	};

	EXPECT_EQ(EINVAL, prep_raw(self->owner, &p));
}

TEST_F(prepare, compound_rules_einval)
{
	struct cmabuf_prepare p;

	if (!cmabuf_strategy_supported(&self->dev.info,
				       CMABUF_STRATEGY_COMPOUND))
		SKIP(return, "no COMPOUND here");
	EXPECT_EQ(EINVAL, cmabuf_prepare(self->owner, 3 * SZ_2M,
					 CMABUF_STRATEGY_COMPOUND, 1, 0, &p));
	EXPECT_EQ(EINVAL, cmabuf_prepare(self->owner, PAGE,
					 CMABUF_STRATEGY_COMPOUND, 1, 0, &p));
}

TEST_F(prepare, unsupported_strategy_eopnotsupp)
{
	struct cmabuf_prepare p;
	int tried = 0;
	__u32 s;

	for (s = CMABUF_STRATEGY_COMPOUND; s < CMABUF_STRATEGY_COUNT; s++) {
		if (cmabuf_strategy_supported(&self->dev.info, s))
			continue;
		tried++;
		EXPECT_EQ(EOPNOTSUPP, cmabuf_prepare(self->owner, PREP_SIZE, s,
						     1, 0, &p));
	}
	if (!tried)
		SKIP(return, "this kernel has every strategy");
}

/* The module parameter @name, or @dflt. */
static unsigned int prep_param(const char *name, unsigned int dflt)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), "/sys/module/cmabuf/parameters/%s", name);
	if (cmabuf_read_file(path, buf, sizeof(buf)))
		return dflt;
	return atoi(buf);
}

/*
 * The most bytes wants may hold: @percent of the area's pages, rounded
 * down, as the driver counts.
 */
static __u64 prep_limit(const struct cmabuf_dev *dev, unsigned int percent)
{
	__u64 pages = dev->info.total_bytes / PAGE;

	return pages * percent / 100 * PAGE;
}

/*
 * A want of exactly the limit fits: 50% of a 256 MiB area is 128 MiB,
 * which the driver refused while it rounded the area down to whole
 * percents first.
 */
TEST_F_TIMEOUT(prepare, exactly_instance_limit_fits, 60)
{
	__u64 limit = prep_limit(&self->dev,
				 prep_param("prepare_max_percent", 50));
	struct cmabuf_prepare p;

	if (!(self->dev.info.flags & CMABUF_INFO_AREA_STATS))
		SKIP(return, "the area's size is not known here");
	EXPECT_EQ(0, cmabuf_prepare(self->owner, limit, 0, 1, 0, &p));
	ASSERT_EQ(0, cmabuf_prepare(self->owner, limit, 0, 0, 0, &p));
}

/* Over prepare_max_percent for all files: ENOSPC, and a want kept. */
TEST_F_TIMEOUT(prepare, over_instance_limit_enospc_keeps_want, 60)
{
	__u64 limit = prep_limit(&self->dev,
				 prep_param("prepare_max_percent", 50));
	struct cmabuf_prepare p;
	__u32 count;

	if (!(self->dev.info.flags & CMABUF_INFO_AREA_STATS))
		SKIP(return, "the area's size is not known here");
	ASSERT_EQ(0, cmabuf_prepare(self->owner, PREP_SIZE,
				    CMABUF_PREPARE_WAIT, 1, 0, &p));
	ASSERT_EQ(1U, p.ready);
	/* More of the same kind, then a kind of its own, past the limit. */
	count = limit / PREP_SIZE + 1;
	if (count <= CMABUF_PREPARE_MAX_COUNT)
		EXPECT_EQ(ENOSPC, cmabuf_prepare(self->owner, PREP_SIZE, 0,
						 count, 0, &p));
	EXPECT_EQ(ENOSPC, cmabuf_prepare(self->owner, limit, 0, 1, 0, &p));
	/* Nothing changed: still one wanted, one ready. */
	ASSERT_EQ(0, cmabuf_prepare(self->owner, PREP_SIZE, 0, 1, 0, &p));
	EXPECT_EQ(1U, p.ready);
	EXPECT_EQ(PREP_SIZE,
		  prep_sysfs(_metadata, &self->dev, "prepared_bytes"));
}

/* Two files together past prepare_max_percent: the second gets ENOSPC. */
TEST_F_TIMEOUT(prepare, files_together_over_limit_enospc, 60)
{
	__u64 limit = prep_limit(&self->dev,
				 prep_param("prepare_max_percent", 50));
	__u64 first = limit / 4 * 3 / PAGE * PAGE;
	__u64 second = limit / 2 / PAGE * PAGE;
	struct cmabuf_prepare p;

	if (!(self->dev.info.flags & CMABUF_INFO_AREA_STATS))
		SKIP(return, "the area's size is not known here");
	self->other = open(DEV_GENERAL, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->other);
	ASSERT_EQ(0, cmabuf_prepare(self->owner, first, 0, 1, 0, &p));
	EXPECT_EQ(ENOSPC, cmabuf_prepare(self->other, second, 0, 1, 0, &p));
	/* What fits under the limit is taken. */
	ASSERT_EQ(0, cmabuf_prepare(self->other, limit / 8 / PAGE * PAGE, 0,
				    1, 0, &p));
	ASSERT_EQ(0, cmabuf_prepare(self->other, limit / 8 / PAGE * PAGE, 0,
				    0, 0, &p));
	ASSERT_EQ(0, cmabuf_prepare(self->owner, first, 0, 0, 0, &p));
}

/*
 * A file without CAP_SYS_ADMIN may want prepare_file_percent of the area:
 * past it ENOSPC, which root does not get for the same request.
 */
TEST_F_TIMEOUT(prepare, unprivileged_over_file_limit_enospc, 60)
{
	unsigned int file = prep_param("prepare_file_percent", 25);
	unsigned int all = prep_param("prepare_max_percent", 50);
	__u64 over = prep_limit(&self->dev, file) + PAGE;
	__u64 under = prep_limit(&self->dev, file) / 2 / PAGE * PAGE;
	struct cmabuf_prepare p;

	if (!(self->dev.info.flags & CMABUF_INFO_AREA_STATS))
		SKIP(return, "the area's size is not known here");
	if (file >= all)
		SKIP(return, "prepare_file_percent %u is not below prepare_max_percent %u",
		     file, all);
	memset(&p, 0, sizeof(p));
	p.size = over;
	p.count = 1;
	EXPECT_EQ(ENOSPC, cmabuf_ioctl_unprivileged(self->owner,
						    CMABUF_IOC_PREPARE, &p));
	EXPECT_EQ(0ULL, prep_sysfs(_metadata, &self->dev, "prepared_bytes"));
	p.size = under;
	EXPECT_EQ(0, cmabuf_ioctl_unprivileged(self->owner, CMABUF_IOC_PREPARE,
					       &p));
	/* The same file, root: only the instance's limit. */
	ASSERT_EQ(0, cmabuf_prepare(self->owner, over, 0, 1, 0, &p));
	ASSERT_EQ(0, cmabuf_prepare(self->owner, over, 0, 0, 0, &p));
	ASSERT_EQ(0, cmabuf_prepare(self->owner, under, 0, 0, 0, &p));
}

/**
 * struct prep_two_files - two PREPAREs, on two files, by one process
 * @fd: the files, opened by root.
 * @size: bytes of each file's one buffer.
 */
struct prep_two_files {
	int fd[2];
	__u64 size;
};

/*
 * The first PREPARE's errno plus 100 when it fails, else the second's.
 * Both wants stay: the files are the parent's.
 */
static int prep_two_files_act(const void *arg)
{
	const struct prep_two_files *t = arg;
	struct cmabuf_prepare p;
	int err;

	err = cmabuf_prepare(t->fd[0], t->size, 0, 1, 0, &p);
	if (err)
		return 100 + err;
	return cmabuf_prepare(t->fd[1], t->size, 0, 1, 0, &p);
}

static int prep_drop_to_nobody(int how __attribute__((unused)))
{
	return cmabuf_become_nobody();
}

/*
 * The share of the area prepare_file_percent gives a caller without
 * CAP_SYS_ADMIN is its user's, not its file's: a second file of the same
 * user does not double it. nobody wants 60% of the share on one file,
 * then as much on another: ENOSPC, and only the first want's bytes are
 * wanted. (Before, each file had a share of its own and both fit.)
 */
TEST_F_TIMEOUT(prepare, second_file_does_not_raise_user_share, 60)
{
	unsigned int file = prep_param("prepare_file_percent", 25);
	unsigned int all = prep_param("prepare_max_percent", 50);
	__u64 share = prep_limit(&self->dev, file);
	struct prep_two_files t;
	struct cmabuf_prepare p;
	unsigned long long v;

	if (!(self->dev.info.flags & CMABUF_INFO_AREA_STATS))
		SKIP(return, "the area's size is not known here");
	if (2 * file > all)
		SKIP(return, "two shares of %u%% are past prepare_max_percent %u",
		     file, all);
	self->other = open(DEV_GENERAL, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->other);
	t.fd[0] = self->owner;
	t.fd[1] = self->other;
	t.size = share / 10 * 6 / PAGE * PAGE;
	EXPECT_EQ(ENOSPC, cmabuf_in_child(prep_drop_to_nobody, 0,
					  prep_two_files_act, &t));
	/* The first want stands and is stocked, the second was never made. */
	EXPECT_EQ(0, cmabuf_sysfs_wait(self->dev.fd, "prepared_bytes", t.size,
				       PREP_WAIT_MS, &v))
		TH_LOG("prepared_bytes %llu, not %llu", v,
		       (unsigned long long)t.size);
	usleep(200 * 1000);
	EXPECT_EQ(t.size, prep_sysfs(_metadata, &self->dev, "prepared_bytes"));
	ASSERT_EQ(0, cmabuf_prepare(self->owner, t.size, 0, 0, 0, &p));
	/* Root is held to no share: the same two fit. */
	EXPECT_EQ(0, prep_two_files_act(&t));
	ASSERT_EQ(0, cmabuf_prepare(self->owner, t.size, 0, 0, 0, &p));
	ASSERT_EQ(0, cmabuf_prepare(self->other, t.size, 0, 0, 0, &p));
}

/* ---- prepare: a freed buffer recycled, its old bytes never served ---- */

/* ALLOC @size with @s until the area has no such range; keep them. */
static void prep_fill_area(struct __test_metadata *_metadata, int dev,
			   struct prep_fds *keep, __u64 size, __u32 s)
{
	struct cmabuf_alloc_data data;
	int err;

	for (;;) {
		err = cmabuf_alloc(dev, size, s, &data);
		if (err == ENOMEM || err == EBUSY)
			return;
		ASSERT_EQ(0, err);
		prep_keep(_metadata, keep, data.fd);
	}
}

/*
 * A buffer full of a pattern is freed while a want of its kind lacks one
 * (the area is full, so the want could not be filled): it is cleared and
 * kept for the want, not made anew (stats/prepared does not move), and
 * the next allocation gets it, on the same pages, all zero.
 */
TEST_F_TIMEOUT(prepare, freed_buffer_recycled_all_zero, 300)
{
	unsigned long long made0, hits0, v;
	struct cmabuf_alloc_data data;
	struct cmabuf_phys phys;
	struct cmabuf_prepare p;
	__u64 at;
	void *map;
	int x;

	ASSERT_EQ(0, cmabuf_alloc(self->dev.fd, PREP_BIG,
				  CMABUF_STRATEGY_AUTO, &data));
	x = data.fd;
	ASSERT_EQ(0, cmabuf_phys(self->dev.fd, x, &phys));
	at = phys.phys;
	map = cmabuf_map(x, PREP_BIG, 0);
	ASSERT_NE(MAP_FAILED, map);
	memset(map, 0x5a, PREP_BIG);
	munmap(map, PREP_BIG);
	prep_fill_area(_metadata, self->dev.fd, &self->keep, SZ_1M,
		       prep_plain_strategy(&self->dev.info));
	prep_fill_area(_metadata, self->dev.fd, &self->keep, PAGE,
		       prep_plain_strategy(&self->dev.info));

	made0 = prep_stat(_metadata, &self->dev, "prepared");
	hits0 = prep_stat(_metadata, &self->dev, "prepare_hits");
	/* No room: the background allocation fails, nothing is ready. */
	EXPECT_EQ(ENOMEM, cmabuf_prepare(self->owner, PREP_BIG,
					 CMABUF_PREPARE_WAIT, 1, 60000, &p));
	EXPECT_EQ(0ULL, prep_sysfs(_metadata, &self->dev, "prepared_buffers"));

	close(x);
	ASSERT_EQ(0, cmabuf_sysfs_wait(self->dev.fd, "prepared_buffers", 1,
				       PREP_WAIT_MS, &v));
	EXPECT_EQ(made0, prep_stat(_metadata, &self->dev, "prepared"));

	ASSERT_EQ(0, cmabuf_alloc(self->dev.fd, PREP_BIG, CMABUF_STRATEGY_AUTO,
				  &data));
	prep_keep(_metadata, &self->keep, data.fd);
	EXPECT_EQ(hits0 + 1, prep_stat(_metadata, &self->dev, "prepare_hits"));
	ASSERT_EQ(0, cmabuf_phys(self->dev.fd, data.fd, &phys));
	EXPECT_EQ(at, phys.phys) TH_LOG("not the freed buffer's pages");
	prep_expect_zero(_metadata, data.fd, PREP_BIG);
	ASSERT_EQ(0, cmabuf_prepare(self->owner, PREP_BIG, 0, 0, 0, &p));
}

/* ---- prepare: ready buffers give way to allocations ---- */

/* ALLOC 1 MiB buffers, kept, until the area has less than @left free. */
static void prep_fill_below(struct __test_metadata *_metadata,
			    struct cmabuf_dev *dev, struct prep_fds *keep,
			    __u64 left)
{
	struct cmabuf_alloc_data data;
	struct cmabuf_info info;

	for (;;) {
		ASSERT_EQ(0, cmabuf_get_info(dev->fd, &info, NULL, 0));
		if (info.free_bytes < left)
			return;
		ASSERT_EQ(0, cmabuf_alloc(dev->fd, SZ_1M,
					  prep_plain_strategy(&dev->info),
					  &data));
		prep_keep(_metadata, keep, data.fd);
	}
}

/*
 * One file has 6 x 16 MiB ready and the rest of the area is full: another
 * file's ALLOC of 32 MiB, which no ready buffer serves, gets the room
 * those hold (it failed with ENOMEM while the pool kept them), all zero.
 * The buffers that went are no longer ready, and the want, which stands,
 * has them made again once the 32 MiB are freed.
 */
TEST_F_TIMEOUT(prepare, alloc_takes_back_ready_buffers, 300)
{
	struct cmabuf_alloc_data data;
	unsigned long long before, after, v;
	struct cmabuf_prepare p;

	if (!(self->dev.info.flags & CMABUF_INFO_AREA_STATS))
		SKIP(return, "the area's free bytes are not known here");
	ASSERT_EQ(0, cmabuf_prepare(self->owner, PREP_BIG,
				    CMABUF_PREPARE_WAIT, 6, 0, &p));
	ASSERT_EQ(6U, p.ready);
	prep_fill_below(_metadata, &self->dev, &self->keep, PREP_BIG);
	before = prep_sysfs(_metadata, &self->dev, "prepared_bytes");
	EXPECT_EQ(6 * PREP_BIG, before);

	self->other = open(DEV_GENERAL, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->other);
	ASSERT_EQ(0, cmabuf_alloc(self->other, 2 * PREP_BIG,
				  CMABUF_STRATEGY_AUTO, &data))
		TH_LOG("%llu bytes ready in the area, not given back", before);
	prep_expect_zero(_metadata, data.fd, 2 * PREP_BIG);
	after = prep_sysfs(_metadata, &self->dev, "prepared_bytes");
	EXPECT_GE(before - 2 * PREP_BIG, after);
	TH_LOG("%llu of %llu ready bytes given back", before - after, before);

	close(data.fd);
	ASSERT_EQ(0, cmabuf_sysfs_wait(self->dev.fd, "prepared_buffers", 6,
				       60000, &v))
		TH_LOG("%llu of 6 ready again", v);
}

/*
 * The administrator's reserve is not given back to allocations: with the
 * area full, ALLOCs that find no room fail with ENOMEM and the reserve's
 * two buffers stay ready, for the allocations of their size.
 */
TEST_F_TIMEOUT(prepare, alloc_keeps_the_reserve, 300)
{
	struct cmabuf_alloc_data data;
	unsigned long long hits0, v;

	if (cmabuf_sysfs_write(self->dev.fd, "reserve", "4Mx2"))
		SKIP(return, "%s takes no reserve of 4Mx2", DEV_GENERAL);
	ASSERT_EQ(0, cmabuf_sysfs_wait(self->dev.fd, "prepared_buffers", 2,
				       PREP_WAIT_MS, &v));
	prep_fill_area(_metadata, self->dev.fd, &self->keep, SZ_1M,
		       prep_plain_strategy(&self->dev.info));
	prep_fill_area(_metadata, self->dev.fd, &self->keep, PAGE,
		       prep_plain_strategy(&self->dev.info));
	EXPECT_EQ(ENOMEM, cmabuf_alloc(self->dev.fd, 8 * SZ_1M,
				       CMABUF_STRATEGY_AUTO, &data));
	EXPECT_EQ(2ULL, prep_sysfs(_metadata, &self->dev, "prepared_buffers"));

	hits0 = prep_stat(_metadata, &self->dev, "prepare_hits");
	ASSERT_EQ(0, cmabuf_alloc(self->dev.fd, 4 * SZ_1M,
				  CMABUF_STRATEGY_AUTO, &data));
	prep_keep(_metadata, &self->keep, data.fd);
	EXPECT_EQ(hits0 + 1, prep_stat(_metadata, &self->dev, "prepare_hits"));
	EXPECT_EQ(0, cmabuf_sysfs_write(self->dev.fd, "reserve", "\n"));
}

#define PREP_FOLIO	(4 * SZ_1M)	/* AUTO plans a folio of 4 MiB */
#define PREP_BUSY	7		/* 7 of PREP_BIG keep the worker busy */

/*
 * A FROZEN buffer of PREP_FOLIO on a PMD boundary that is not a
 * PREP_FOLIO one, its fd; the buffers allocated to get there are kept.
 */
static int prep_unaligned_frozen(struct __test_metadata *_metadata,
				 struct cmabuf_dev *dev, struct prep_fds *keep)
{
	struct cmabuf_alloc_data data;
	struct cmabuf_phys phys;
	int i;

	for (i = 0; i < 16; i++) {
		/* The next PMD boundary: PREP_FOLIO's half the time. */
		EXPECT_EQ(0, cmabuf_alloc(dev->fd, PREP_SIZE,
					  CMABUF_STRATEGY_FROZEN, &data));
		prep_keep(_metadata, keep, data.fd);
		EXPECT_EQ(0, cmabuf_alloc(dev->fd, PREP_FOLIO,
					  CMABUF_STRATEGY_FROZEN, &data));
		EXPECT_EQ(0, cmabuf_phys(dev->fd, data.fd, &phys));
		if (phys.phys % PREP_FOLIO)
			return data.fd;
		prep_keep(_metadata, keep, data.fd);
	}
	return -1;
}

/*
 * A freed buffer is kept for a want only when it is what the want's plan
 * makes first. An AUTO want of 4 MiB plans a COMPOUND folio, 4 MiB
 * aligned: a freed FROZEN buffer of 4 MiB on a 2 MiB boundary (a PMD's,
 * not the folio's) goes back to the area, and an AUTO allocation never
 * gets it; a freed COMPOUND one is kept (not made: stats/prepared counts
 * one buffer fewer). Both are freed while a want of 7 x 16 MiB, asked
 * first, keeps the worker busy, so that the want of 4 MiB still lacks
 * both.
 */
TEST_F_TIMEOUT(prepare, recycled_buffer_fits_the_plan, 300)
{
	const struct cmabuf_info *info = &self->dev.info;
	unsigned long long made0, v;
	struct cmabuf_alloc_data data, folio;
	struct cmabuf_phys phys;
	struct cmabuf_prepare p;
	int i, frozen;

	if (PAGE != 4096 ||
	    !cmabuf_strategy_supported(info, CMABUF_STRATEGY_COMPOUND) ||
	    info->min_compound_order > 10 || info->max_compound_order < 12)
		SKIP(return, "needs 4 KiB pages and COMPOUND folios of 4 and 16 MiB");
	frozen = prep_unaligned_frozen(_metadata, &self->dev, &self->keep);
	ASSERT_LE(0, frozen) TH_LOG("no FROZEN 4 MiB buffer off a 4 MiB boundary");
	ASSERT_EQ(0, cmabuf_alloc(self->dev.fd, PREP_FOLIO,
				  CMABUF_STRATEGY_COMPOUND, &folio));
	made0 = prep_stat(_metadata, &self->dev, "prepared");

	ASSERT_EQ(0, cmabuf_prepare(self->owner, PREP_BIG, 0, PREP_BUSY, 0,
				    &p));
	ASSERT_EQ(0, cmabuf_prepare(self->owner, PREP_FOLIO, 0, 2, 0, &p));
	close(frozen);
	close(folio.fd);
	ASSERT_EQ(0, cmabuf_sysfs_wait(self->dev.fd, "prepared_buffers",
				       PREP_BUSY + 2, 60000, &v))
		TH_LOG("%llu of %d ready", v, PREP_BUSY + 2);
	/* The folio was kept, the FROZEN buffer was not: one made. */
	EXPECT_EQ(made0 + PREP_BUSY + 1,
		  prep_stat(_metadata, &self->dev, "prepared"));

	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, cmabuf_alloc(self->dev.fd, PREP_FOLIO,
					  CMABUF_STRATEGY_AUTO, &data));
		prep_keep(_metadata, &self->keep, data.fd);
		EXPECT_EQ((__u32)CMABUF_STRATEGY_COMPOUND, data.strategy);
		ASSERT_EQ(0, cmabuf_phys(self->dev.fd, data.fd, &phys));
		EXPECT_EQ(0ULL, phys.phys % PREP_FOLIO)
			TH_LOG("AUTO got %#llx, off a 4 MiB boundary",
			       (unsigned long long)phys.phys);
		prep_expect_zero(_metadata, data.fd, PREP_FOLIO);
	}
	ASSERT_EQ(0, cmabuf_prepare(self->owner, PREP_BIG, 0, 0, 0, &p));
	ASSERT_EQ(0, cmabuf_prepare(self->owner, PREP_FOLIO, 0, 0, 0, &p));
}

/* ---- prepare: the shrinker ---- */

/*
 * Reclaim that cannot use CMA's pages gets nothing from the pool: freed CMA
 * pages serve only movable allocations. drop_caches is such reclaim (it
 * runs every shrinker with GFP_KERNEL): the ready buffers stay, and the
 * area's free bytes with them. Reclaim that can use them, under real
 * pressure, is tests/load/cmabuf_reclaim's (the load suite).
 */
TEST_F_TIMEOUT(prepare, drop_caches_keeps_ready, 120)
{
	struct cmabuf_info before, after;
	unsigned long long v;
	struct cmabuf_prepare p;
	int fd;

	if (!(self->dev.info.flags & CMABUF_INFO_AREA_STATS))
		SKIP(return, "the area's free bytes are not known here");
	ASSERT_EQ(0, cmabuf_prepare(self->owner, PREP_BIG,
				    CMABUF_PREPARE_WAIT, 2, 120000, &p));
	ASSERT_EQ(2U, p.ready);
	ASSERT_EQ(0, cmabuf_settle(self->dev.fd));
	ASSERT_EQ(0, cmabuf_get_info(self->dev.fd, &before, NULL, 0));

	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, write(fd, "2", 1));
	close(fd);
	/* The old shrinker gave them back within a second. */
	EXPECT_EQ(ETIMEDOUT, cmabuf_sysfs_wait(self->dev.fd, "prepared_buffers",
					       0, 1000, &v));
	EXPECT_EQ(2ULL, v) TH_LOG("drop_caches took ready buffers");
	ASSERT_EQ(0, cmabuf_settle(self->dev.fd));
	ASSERT_EQ(0, cmabuf_get_info(self->dev.fd, &after, NULL, 0));
	EXPECT_EQ(before.free_bytes, after.free_bytes);
}

#define FLOOR_SIZE	(16 * SZ_1M)
#define FLOOR_BATCH	8	/* 128 MiB: what the prepare limits allow */
#define FLOOR_SAMPLES	(3 * FLOOR_BATCH)
#define FLOOR_RATIO	5

/*
 * Taking a prepared buffer costs about what creating any dma-buf costs:
 * back to back, the median prepared ALLOC is within FLOOR_RATIO times the
 * system heap's 4 KiB ALLOC on the same boot (1.3-2.2 times measured on
 * 7.2), and so is the close that frees it. tests/floor/cmabuf_floor
 * times both spaced out as well.
 */
TEST_F_TIMEOUT(prepare, ready_alloc_costs_about_a_heap_alloc, 300)
{
	__u64 heap_alloc[FLOOR_SAMPLES], heap_close[FLOOR_SAMPLES];
	__u64 alloc[FLOOR_SAMPLES], closes[FLOOR_SAMPLES];
	int bufs[FLOOR_BATCH], heap, i, b, buf;
	struct cmabuf_alloc_data data;
	struct cmabuf_prepare p;
	unsigned long long t;

	heap = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);
	if (heap < 0)
		SKIP(return, "no system dma-heap to compare with");
	for (i = 0; i < FLOOR_SAMPLES; i++) {
		t = cmabuf_now_ns();
		ASSERT_EQ(0, heap_alloc_sized(heap, PAGE, O_RDWR | O_CLOEXEC,
					      0, 0,
					      sizeof(struct dma_heap_allocation_data),
					      &buf));
		heap_alloc[i] = cmabuf_now_ns() - t;
		t = cmabuf_now_ns();
		close(buf);
		heap_close[i] = cmabuf_now_ns() - t;
	}
	close(heap);

	for (i = 0; i < FLOOR_SAMPLES; i += FLOOR_BATCH) {
		ASSERT_EQ(0, cmabuf_prepare(self->owner, FLOOR_SIZE,
					    CMABUF_STRATEGY_AUTO |
					    CMABUF_PREPARE_WAIT,
					    FLOOR_BATCH, 0, &p));
		ASSERT_EQ((__u32)FLOOR_BATCH, p.ready);
		for (b = 0; b < FLOOR_BATCH; b++) {
			t = cmabuf_now_ns();
			ASSERT_EQ(0, cmabuf_alloc(self->owner, FLOOR_SIZE,
						  CMABUF_STRATEGY_AUTO, &data));
			alloc[i + b] = cmabuf_now_ns() - t;
			bufs[b] = data.fd;
		}
		for (b = 0; b < FLOOR_BATCH; b++) {
			t = cmabuf_now_ns();
			close(bufs[b]);
			closes[i + b] = cmabuf_now_ns() - t;
		}
	}
	ASSERT_EQ(0, cmabuf_prepare(self->owner, FLOOR_SIZE,
				    CMABUF_STRATEGY_AUTO, 0, 0, &p));

	qsort(heap_alloc, FLOOR_SAMPLES, sizeof(__u64), u64_cmp);
	qsort(heap_close, FLOOR_SAMPLES, sizeof(__u64), u64_cmp);
	qsort(alloc, FLOOR_SAMPLES, sizeof(__u64), u64_cmp);
	qsort(closes, FLOOR_SAMPLES, sizeof(__u64), u64_cmp);
	TH_LOG("medians, ns: prepared ALLOC %llu, its close %llu; %s %llu, its close %llu",
	       (unsigned long long)alloc[FLOOR_SAMPLES / 2],
	       (unsigned long long)closes[FLOOR_SAMPLES / 2],
	       "system heap 4 KiB ALLOC",
	       (unsigned long long)heap_alloc[FLOOR_SAMPLES / 2],
	       (unsigned long long)heap_close[FLOOR_SAMPLES / 2]);
	EXPECT_LE(alloc[FLOOR_SAMPLES / 2],
		  FLOOR_RATIO * heap_alloc[FLOOR_SAMPLES / 2]);
	EXPECT_LE(closes[FLOOR_SAMPLES / 2],
		  FLOOR_RATIO * heap_close[FLOOR_SAMPLES / 2]);
}

/* ---- reserve: the administrator's standing reserve, from sysfs ---- */

FIXTURE(reserve) {
	struct cmabuf_dev dev;
	char max[32];
	int fd;
};

FIXTURE_SETUP(reserve)
{
	char now[256];

	self->max[0] = '\0';
	self->fd = -1;
	if (!dev_open(_metadata, &self->dev, DEV_GENERAL))
		return;
	if (cmabuf_sysfs_read_str(self->dev.fd, "reserve_max_bytes", self->max,
				  sizeof(self->max)))
		SKIP(return, "%s has no reserve (no sysfs reserve_max_bytes)",
		     DEV_GENERAL);
	ASSERT_EQ(0, cmabuf_sysfs_read_str(self->dev.fd, "reserve", now,
					   sizeof(now)));
	ASSERT_STREQ("\n", now) TH_LOG("a reserve is set before the test");
	/*
	 * The cap defaults to half the area: 0 where the kernel does not
	 * tell the area's size (a stock build). The tests need 32 MiB.
	 */
	if (strtoull(self->max, NULL, 10) < 32 * SZ_1M)
		ASSERT_EQ(0, cmabuf_sysfs_write(self->dev.fd,
						"reserve_max_bytes",
						"33554432"));
}

FIXTURE_TEARDOWN(reserve)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->dev.fd < 0)
		return;
	if (self->max[0]) {
		EXPECT_EQ(0, cmabuf_sysfs_write(self->dev.fd, "reserve", "\n"));
		EXPECT_EQ(0, cmabuf_sysfs_write(self->dev.fd,
						"reserve_max_bytes",
						self->max));
	}
	prepare_settle(&self->dev);
	dev_close(_metadata, &self->dev);
}

/* Write @words to the reserve and read back what it shows. */
static int reserve_set(struct cmabuf_dev *dev, const char *words, char *now,
		       size_t size)
{
	int err = cmabuf_sysfs_write(dev->fd, "reserve", words);

	if (cmabuf_sysfs_read_str(dev->fd, "reserve", now, size))
		snprintf(now, size, "?");
	return err;
}

TEST_F(reserve, round_trip_in_bytes)
{
	static const struct {
		const char *words;
		const char *shown;
	} cases[] = {
		{ "12Mx2", "12582912x2\n" },
		{ "512Kx1 4Mx3\n", "524288x1 4194304x3\n" },
		{ "8388608x1", "8388608x1\n" },
		{ "\t2Mx1  1Mx2 ", "2097152x1 1048576x2\n" },
	};
	char now[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		EXPECT_EQ(0, reserve_set(&self->dev, cases[i].words, now,
					 sizeof(now)));
		EXPECT_STREQ(cases[i].shown, now) TH_LOG("wrote '%s'",
							 cases[i].words);
	}
}

/* G, with a cap raised to take it; larger than the area, it never fills. */
TEST_F(reserve, gigabytes_read_back)
{
	char now[256];

	ASSERT_EQ(0, cmabuf_sysfs_write(self->dev.fd, "reserve_max_bytes",
					"4294967296"));
	EXPECT_EQ(0, reserve_set(&self->dev, "1Gx1", now, sizeof(now)));
	EXPECT_STREQ("1073741824x1\n", now);
}

TEST_F(reserve, above_max_bytes_enospc_changes_nothing)
{
	char now[256];

	ASSERT_EQ(0, cmabuf_sysfs_write(self->dev.fd, "reserve_max_bytes",
					"16777216"));
	EXPECT_EQ(0, reserve_set(&self->dev, "4Mx1", now, sizeof(now)));
	EXPECT_EQ(ENOSPC, reserve_set(&self->dev, "12Mx2", now, sizeof(now)));
	EXPECT_STREQ("4194304x1\n", now);
	EXPECT_EQ(0, reserve_set(&self->dev, "12Mx1 4Mx1", now, sizeof(now)));
	EXPECT_STREQ("12582912x1 4194304x1\n", now);
}

TEST_F(reserve, bad_words_einval)
{
	static const char * const bad[] = {
		"12M", "x2", "12Mx", "12Mx-1", "12Mx2x3", "abc", "12Qx1",
		"0x1", "12Mx257", "4Mx1 4Mx2", "4Mx1 4096Kx1",
		"1Mx1 2Mx1 3Mx1 4Mx1 5Mx1 6Mx1 7Mx1 8Mx1 9Mx1 10Mx1 11Mx1 12Mx1 13Mx1 14Mx1 15Mx1 16Mx1 17Mx1",
	};
	char now[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(EINVAL, reserve_set(&self->dev, bad[i], now,
					      sizeof(now)))
			TH_LOG("'%s'", bad[i]);
		EXPECT_STREQ("\n", now) TH_LOG("after '%s'", bad[i]);
	}
}

TEST_F_TIMEOUT(reserve, fills_serves_and_empty_write_drops, 60)
{
	unsigned long long hits0, v;
	struct cmabuf_alloc_data data;
	char now[256];

	ASSERT_EQ(0, reserve_set(&self->dev, "4Mx3", now, sizeof(now)));
	ASSERT_EQ(0, cmabuf_sysfs_wait(self->dev.fd, "prepared_buffers", 3,
				       PREP_WAIT_MS, &v))
		TH_LOG("%llu of the reserve's 3 ready", v);
	EXPECT_EQ(3 * 4 * SZ_1M,
		  prep_sysfs(_metadata, &self->dev, "prepared_bytes"));

	hits0 = prep_stat(_metadata, &self->dev, "prepare_hits");
	ASSERT_EQ(0, cmabuf_alloc(self->dev.fd, 4 * SZ_1M,
				  CMABUF_STRATEGY_AUTO, &data));
	self->fd = data.fd;
	EXPECT_EQ(hits0 + 1, prep_stat(_metadata, &self->dev, "prepare_hits"));
	prep_expect_zero(_metadata, data.fd, data.alloc_size);
	ASSERT_EQ(0, cmabuf_sysfs_wait(self->dev.fd, "prepared_buffers", 3,
				       PREP_WAIT_MS, &v));

	EXPECT_EQ(0, reserve_set(&self->dev, "\n", now, sizeof(now)));
	EXPECT_STREQ("\n", now);
	EXPECT_EQ(0ULL, prep_sysfs(_metadata, &self->dev, "prepared_bytes"));
}

TEST_F(reserve, unprivileged_cannot_write)
{
	char path[256];

	ASSERT_EQ(0, cmabuf_sysfs_path(self->dev.fd, "reserve", path,
				       sizeof(path)));
	EXPECT_EQ(EACCES, cmabuf_open_unprivileged(path, O_WRONLY));
	ASSERT_EQ(0, cmabuf_sysfs_path(self->dev.fd, "reserve_max_bytes", path,
				       sizeof(path)));
	EXPECT_EQ(EACCES, cmabuf_open_unprivileged(path, O_WRONLY));
}

/* ---- cap: the cap on callers without CAP_SYS_ADMIN ---- */

#define CAP_MAX		(8 * SZ_1M)
#define CAP_BUF		(4 * SZ_1M)
#define CAP_FDS		8
#define CAP_WAIT_MS	1000

/**
 * struct cap_state - what a cap test holds
 * @dev: the instance's device, the one ALLOC goes to.
 * @fds: buffers held, -1 once closed.
 * @n: entries of @fds in use.
 * @dropped: CAP_SYS_ADMIN is out of this process's effective set.
 */
struct cap_state {
	int dev;
	int fds[CAP_FDS];
	int n;
	bool dropped;
};

/*
 * The general instance with its cap set to %CAP_MAX; @max is the cap
 * before the test, which the teardown writes back. The harness runs each
 * test in a process of its own: a test that drops CAP_SYS_ADMIN from its
 * effective set (it stays permitted, to be raised again) changes nothing
 * for the next one, and the teardown raises it before it writes the cap.
 */
FIXTURE(cap) {
	struct cmabuf_dev dev;
	char max[32];
	struct cap_state st;
};

/* CAP_SYS_ADMIN into (@on) or out of the effective set: 0 or the errno. */
static int cap_sys_admin(bool on)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	__u32 bit = 1U << (CAP_SYS_ADMIN % 32);

	if (syscall(SYS_capget, &hdr, data))
		return errno;
	if (on)
		data[CAP_SYS_ADMIN / 32].effective |= bit;
	else
		data[CAP_SYS_ADMIN / 32].effective &= ~bit;
	return syscall(SYS_capset, &hdr, data) ? errno : 0;
}

static void cap_drop(struct __test_metadata *_metadata, struct cap_state *st)
{
	ASSERT_EQ(0, cap_sys_admin(false));
	st->dropped = true;
}

static void cap_raise(struct __test_metadata *_metadata, struct cap_state *st)
{
	ASSERT_EQ(0, cap_sys_admin(true));
	st->dropped = false;
}

/* Hold @fd for the teardown to close. */
static void cap_keep(struct __test_metadata *_metadata, struct cap_state *st,
		     int fd)
{
	ASSERT_GT(CAP_FDS, st->n);
	st->fds[st->n++] = fd;
}

/* ALLOC @size (AUTO); the buffer is held. Return: the errno. */
static int cap_alloc(struct __test_metadata *_metadata, struct cap_state *st,
		     __u64 size)
{
	struct cmabuf_alloc_data data;
	int err;

	err = cmabuf_alloc(st->dev, size, CMABUF_STRATEGY_AUTO, &data);
	if (!err)
		cap_keep(_metadata, st, data.fd);
	return err;
}

/* Close the @i-th buffer held. */
static void cap_close(struct cap_state *st, int i)
{
	close(st->fds[i]);
	st->fds[i] = -1;
}

/* sysfs unprivileged_bytes reads @want within CAP_WAIT_MS. */
static void cap_expect_held(struct __test_metadata *_metadata,
			    const struct cmabuf_dev *dev, __u64 want)
{
	unsigned long long v = ~0ULL;

	EXPECT_EQ(0, cmabuf_sysfs_wait(dev->fd, "unprivileged_bytes", want,
				       CAP_WAIT_MS, &v))
		TH_LOG("unprivileged_bytes %llu, not %llu", v,
		       (unsigned long long)want);
}

FIXTURE_SETUP(cap)
{
	char max[32];

	self->max[0] = '\0';
	self->st.n = 0;
	self->st.dropped = false;
	if (!dev_open(_metadata, &self->dev, DEV_GENERAL))
		return;
	self->st.dev = self->dev.fd;
	if (cmabuf_sysfs_read_str(self->dev.fd, "unprivileged_max_bytes", max,
				  sizeof(max)))
		SKIP(return, "%s has no cap (no sysfs unprivileged_max_bytes)",
		     DEV_GENERAL);
	snprintf(self->max, sizeof(self->max), "%s", max);
	cap_expect_held(_metadata, &self->dev, 0);
	snprintf(max, sizeof(max), "%llu", CAP_MAX);
	ASSERT_EQ(0, cmabuf_sysfs_write(self->dev.fd, "unprivileged_max_bytes",
					max));
}

FIXTURE_TEARDOWN(cap)
{
	while (self->st.n--)
		if (self->st.fds[self->st.n] >= 0)
			close(self->st.fds[self->st.n]);
	if (self->st.dropped)
		EXPECT_EQ(0, cap_sys_admin(true));
	if (self->dev.fd < 0)
		return;
	if (self->max[0]) {
		EXPECT_EQ(0, cmabuf_sysfs_write(self->dev.fd,
						"unprivileged_max_bytes",
						self->max));
		cap_expect_held(_metadata, &self->dev, 0);
	}
	prepare_settle(&self->dev);
	dev_close(_metadata, &self->dev);
}

/*
 * Without CAP_SYS_ADMIN: 4 MiB and 4 MiB fill the 8 MiB cap, 1 MiB more
 * is EDQUOT and moves no page; a buffer closed gives its 4 MiB back; root
 * is not held to the cap, nor counted.
 */
TEST_F_TIMEOUT(cap, unprivileged_capped_root_not, 60)
{
	struct cmabuf_counters two = counters_plus(&self->dev, 2, CAP_MAX);
	unsigned long long used;

	cap_drop(_metadata, &self->st);
	ASSERT_EQ(0, cap_alloc(_metadata, &self->st, CAP_BUF));
	ASSERT_EQ(0, cap_alloc(_metadata, &self->st, CAP_BUF));
	cap_expect_held(_metadata, &self->dev, CAP_MAX);
	EXPECT_EQ(EDQUOT, cap_alloc(_metadata, &self->st, SZ_1M));
	EXPECT_EQ(EDQUOT, cap_alloc(_metadata, &self->st, PAGE));
	cap_expect_held(_metadata, &self->dev, CAP_MAX);
	/* The refusals cost nothing: two buffers, 8 MiB, in the area. */
	cap_raise(_metadata, &self->st);
	ASSERT_EQ(0, cmabuf_settle(self->dev.fd));
	if (!cma_read(_metadata, self->dev.area, "used", &used))
		return;
	EXPECT_EQ(self->dev.start.cma_used_pages + CAP_MAX / PAGE, used);
	expect_counters(_metadata, &self->dev, &two);

	cap_drop(_metadata, &self->st);
	cap_close(&self->st, 0);
	cap_expect_held(_metadata, &self->dev, CAP_BUF);
	ASSERT_EQ(0, cmabuf_settle(self->dev.fd));
	EXPECT_EQ(0, cap_alloc(_metadata, &self->st, CAP_BUF));
	cap_expect_held(_metadata, &self->dev, CAP_MAX);
	EXPECT_EQ(EDQUOT, cap_alloc(_metadata, &self->st, SZ_1M));

	/* Root: past the cap, and not counted in it. */
	cap_raise(_metadata, &self->st);
	EXPECT_EQ(0, cap_alloc(_metadata, &self->st, CAP_BUF));
	EXPECT_EQ(0, cap_alloc(_metadata, &self->st, CAP_MAX));
	cap_expect_held(_metadata, &self->dev, CAP_MAX);
}

/*
 * The dma-heap's allocations run in the caller's task and count in the
 * same cap as ALLOC's.
 */
TEST_F_TIMEOUT(cap, dma_heap_capped_too, 60)
{
	const char *heap = DEV_GENERAL + strlen("/dev/");
	int fd, err;

	err = heap_alloc_named(heap, PAGE, &fd);
	if (err == ENOENT)
		SKIP(return, "no dma-heap %s on this kernel", heap);
	ASSERT_EQ(0, err);
	close(fd);

	cap_drop(_metadata, &self->st);
	ASSERT_EQ(0, heap_alloc_named(heap, CAP_BUF, &fd));
	cap_keep(_metadata, &self->st, fd);
	cap_expect_held(_metadata, &self->dev, CAP_BUF);
	ASSERT_EQ(0, cap_alloc(_metadata, &self->st, CAP_BUF));
	EXPECT_EQ(EDQUOT, heap_alloc_named(heap, SZ_1M, &fd));
	EXPECT_EQ(EDQUOT, cap_alloc(_metadata, &self->st, SZ_1M));
	cap_expect_held(_metadata, &self->dev, CAP_MAX);

	cap_close(&self->st, 0);
	cap_expect_held(_metadata, &self->dev, CAP_BUF);
	ASSERT_EQ(0, cmabuf_settle(self->dev.fd));
	ASSERT_EQ(0, heap_alloc_named(heap, CAP_BUF, &fd));
	cap_keep(_metadata, &self->st, fd);
	cap_expect_held(_metadata, &self->dev, CAP_MAX);

	cap_raise(_metadata, &self->st);
	ASSERT_EQ(0, heap_alloc_named(heap, CAP_BUF, &fd));
	cap_keep(_metadata, &self->st, fd);
	cap_expect_held(_metadata, &self->dev, CAP_MAX);
}

/*
 * A ready buffer (CMABUF_IOC_PREPARE, by root) taken by a caller without
 * CAP_SYS_ADMIN becomes a live buffer of its own, and counts.
 */
TEST_F_TIMEOUT(cap, prepared_buffer_taken_counts, 60)
{
	unsigned long long hits;
	struct cmabuf_prepare p;
	int owner;

	if (!prepare_supported(self->dev.fd))
		SKIP(return, "%s prepares no buffers", DEV_GENERAL);
	owner = open(DEV_GENERAL, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, owner);
	cap_keep(_metadata, &self->st, owner);
	ASSERT_EQ(0, cmabuf_prepare(owner, CAP_BUF, CMABUF_PREPARE_WAIT, 1,
				    60000, &p));
	ASSERT_EQ(1U, p.ready);
	hits = prep_stat(_metadata, &self->dev, "prepare_hits");

	cap_drop(_metadata, &self->st);
	ASSERT_EQ(0, cap_alloc(_metadata, &self->st, CAP_BUF));
	EXPECT_EQ(hits + 1, prep_stat(_metadata, &self->dev, "prepare_hits"));
	cap_expect_held(_metadata, &self->dev, CAP_BUF);
	ASSERT_EQ(0, cap_alloc(_metadata, &self->st, CAP_BUF));
	cap_expect_held(_metadata, &self->dev, CAP_MAX);
	/* Ready or not, the want's next buffer is past the cap. */
	EXPECT_EQ(EDQUOT, cap_alloc(_metadata, &self->st, CAP_BUF));

	cap_raise(_metadata, &self->st);
	ASSERT_EQ(0, cmabuf_prepare(owner, CAP_BUF, 0, 0, 0, &p));
}

/*
 * What a caller without CAP_SYS_ADMIN prepares is charged to its cap at
 * PREPARE time, as live buffers are: 4 MiB x 2 fill the 8 MiB cap before
 * any is taken, a third is EDQUOT and changes nothing (the want keeps 2,
 * unprivileged_bytes 8 MiB), and no ALLOC fits beside them. Lowering the
 * count gives the difference back, 0 and a closed file all of it.
 */
TEST_F_TIMEOUT(cap, prepare_charged_past_cap_edquot_changes_nothing, 60)
{
	struct cmabuf_prepare p;
	unsigned long long v;
	int owner;

	if (!prepare_supported(self->dev.fd))
		SKIP(return, "%s prepares no buffers", DEV_GENERAL);
	owner = open(DEV_GENERAL, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, owner);
	cap_keep(_metadata, &self->st, owner);

	cap_drop(_metadata, &self->st);
	ASSERT_EQ(0, cmabuf_prepare(owner, CAP_BUF, 0, 2, 0, &p));
	cap_expect_held(_metadata, &self->dev, CAP_MAX);
	EXPECT_EQ(EDQUOT, cmabuf_prepare(owner, CAP_BUF, 0, 3, 0, &p));
	EXPECT_EQ(EDQUOT, cmabuf_prepare(owner, PAGE, 0, 1, 0, &p));
	EXPECT_EQ(EDQUOT, cap_alloc(_metadata, &self->st, PAGE));
	cap_expect_held(_metadata, &self->dev, CAP_MAX);
	/* Still two wanted: both get ready. */
	ASSERT_EQ(0, cmabuf_prepare(owner, CAP_BUF, CMABUF_PREPARE_WAIT, 2, 0,
				    &p));
	EXPECT_EQ(2U, p.ready);
	EXPECT_EQ(0, cmabuf_sysfs_read(self->dev.fd, "prepared_bytes", &v));
	EXPECT_EQ(CAP_MAX, v);

	ASSERT_EQ(0, cmabuf_prepare(owner, CAP_BUF, 0, 1, 0, &p));
	cap_expect_held(_metadata, &self->dev, CAP_BUF);
	ASSERT_EQ(0, cap_alloc(_metadata, &self->st, CAP_BUF));
	cap_expect_held(_metadata, &self->dev, CAP_MAX);
	cap_close(&self->st, 1);
	ASSERT_EQ(0, cmabuf_prepare(owner, CAP_BUF, 0, 0, 0, &p));
	cap_expect_held(_metadata, &self->dev, 0);
	ASSERT_EQ(0, cmabuf_prepare(owner, CAP_BUF, 0, 2, 0, &p));
	cap_expect_held(_metadata, &self->dev, CAP_MAX);
	cap_close(&self->st, 0);
	cap_expect_held(_metadata, &self->dev, 0);
}

/* Become user @uid, with its own group and no capability. */
static int cap_become(int uid)
{
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		return errno;
	return 0;
}

/**
 * struct cap_alloc_arg - an ALLOC for a child
 * @dev: the instance's file.
 * @size: bytes.
 */
struct cap_alloc_arg {
	int dev;
	__u64 size;
};

/* The ALLOC's errno; the buffer goes with the child. */
static int cap_alloc_act(const void *arg)
{
	const struct cap_alloc_arg *a = arg;
	struct cmabuf_alloc_data data;

	return cmabuf_alloc(a->dev, a->size, CMABUF_STRATEGY_AUTO, &data);
}

/*
 * The cap is each user's: root without CAP_SYS_ADMIN fills its 8 MiB,
 * and nobody, then another user, still get buffers of their own, while
 * root's next one is EDQUOT. (Before, one count for the instance: nobody
 * got EDQUOT.)
 */
TEST_F_TIMEOUT(cap, each_user_has_own_cap, 60)
{
	struct cap_alloc_arg a = { .dev = self->dev.fd, .size = CAP_BUF };

	cap_drop(_metadata, &self->st);
	ASSERT_EQ(0, cap_alloc(_metadata, &self->st, CAP_MAX));
	cap_expect_held(_metadata, &self->dev, CAP_MAX);
	EXPECT_EQ(EDQUOT, cap_alloc(_metadata, &self->st, PAGE));

	EXPECT_EQ(0, cmabuf_in_child(cap_become, CMABUF_NOBODY, cap_alloc_act,
				     &a));
	EXPECT_EQ(0, cmabuf_in_child(cap_become, CMABUF_NOBODY - 1,
				     cap_alloc_act, &a));
	/* Past its own cap, nobody is refused as root is. */
	a.size = CAP_MAX + PAGE;
	EXPECT_EQ(EDQUOT, cmabuf_in_child(cap_become, CMABUF_NOBODY,
					  cap_alloc_act, &a));
	cap_expect_held(_metadata, &self->dev, CAP_MAX);
	EXPECT_EQ(EDQUOT, cap_alloc(_metadata, &self->st, PAGE));
}

/*
 * Without CAP_SYS_ADMIN a PREPARE's timeout_ms is bounded by the module
 * parameter prepare_max_timeout_ms: past it EPERM and nothing is wanted;
 * at it, it is taken; root may ask for more. Dropping a want (count 0)
 * is never refused for its timeout. (Before: any timeout, up to ~49 days.)
 */
TEST_F_TIMEOUT(cap, prepare_timeout_bounded_without_cap_sys_admin, 60)
{
	unsigned int max = prep_param("prepare_max_timeout_ms", 0);
	struct cmabuf_prepare p;
	unsigned long long v;

	if (!prepare_supported(self->dev.fd))
		SKIP(return, "%s prepares no buffers", DEV_GENERAL);
	if (!max)
		max = 60000;	/* the bound users are told of */
	ASSERT_GT(UINT32_MAX, max);

	cap_drop(_metadata, &self->st);
	EXPECT_EQ(EPERM, cmabuf_prepare(self->dev.fd, PAGE, 0, 1, max + 1, &p));
	EXPECT_EQ(EPERM, cmabuf_prepare(self->dev.fd, PAGE, 0, 1, UINT32_MAX,
					&p));
	cap_expect_held(_metadata, &self->dev, 0);
	EXPECT_EQ(0, cmabuf_sysfs_read(self->dev.fd, "prepared_bytes", &v));
	EXPECT_EQ(0ULL, v);
	EXPECT_EQ(0, cmabuf_prepare(self->dev.fd, PAGE, 0, 1, max, &p));
	EXPECT_EQ(0, cmabuf_prepare(self->dev.fd, PAGE, 0, 0, UINT32_MAX, &p));

	cap_raise(_metadata, &self->st);
	EXPECT_EQ(0, cmabuf_prepare(self->dev.fd, PAGE, 0, 1, UINT32_MAX, &p));
	EXPECT_EQ(0, cmabuf_prepare(self->dev.fd, PAGE, 0, 0, 0, &p));
}

/*
 * Counted with no cap too; a cap lowered below what is held refuses new
 * buffers and takes none back; 0 lifts it.
 */
TEST_F_TIMEOUT(cap, lowered_below_held_refuses_takes_nothing_back, 60)
{
	void *map;

	ASSERT_EQ(0, cmabuf_sysfs_write(self->dev.fd, "unprivileged_max_bytes",
					"0"));
	cap_drop(_metadata, &self->st);
	ASSERT_EQ(0, cap_alloc(_metadata, &self->st, CAP_BUF));
	cap_expect_held(_metadata, &self->dev, CAP_BUF);

	cap_raise(_metadata, &self->st);
	ASSERT_EQ(0, cmabuf_sysfs_write(self->dev.fd, "unprivileged_max_bytes",
					"2097152"));
	cap_drop(_metadata, &self->st);
	EXPECT_EQ(EDQUOT, cap_alloc(_metadata, &self->st, PAGE));
	map = cmabuf_map(self->st.fds[0], CAP_BUF, 0);
	ASSERT_NE(MAP_FAILED, map);
	memset(map, 0x5a, CAP_BUF);
	munmap(map, CAP_BUF);
	cap_expect_held(_metadata, &self->dev, CAP_BUF);

	cap_raise(_metadata, &self->st);
	ASSERT_EQ(0, cmabuf_sysfs_write(self->dev.fd, "unprivileged_max_bytes",
					"0"));
	cap_drop(_metadata, &self->st);
	EXPECT_EQ(0, cap_alloc(_metadata, &self->st, CAP_MAX));
	cap_expect_held(_metadata, &self->dev, CAP_BUF + CAP_MAX);
}

/*
 * Root writes the cap in bytes and reads it back; anything else is
 * EINVAL (ERANGE past 2^64 - 1) and changes nothing. unprivileged_bytes
 * is read-only, even to root; anyone reads both, nobody else writes.
 */
TEST_F(cap, sysfs_round_trip_garbage_einval)
{
	static const struct {
		const char *word;
		int err;
	} bad[] = {
		{ "abc", EINVAL }, { "-1", EINVAL }, { "\n", EINVAL },
		{ "12M", EINVAL }, { "4096x", EINVAL },
		{ "18446744073709551616", ERANGE },
	};
	char path[256], now[32];
	size_t i;

	ASSERT_EQ(0, cmabuf_sysfs_write(self->dev.fd, "unprivileged_max_bytes",
					"0x1000000"));
	ASSERT_EQ(0, cmabuf_sysfs_read_str(self->dev.fd,
					   "unprivileged_max_bytes", now,
					   sizeof(now)));
	EXPECT_STREQ("16777216\n", now);
	ASSERT_EQ(0, cmabuf_sysfs_write(self->dev.fd, "unprivileged_max_bytes",
					"67108864\n"));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(bad[i].err,
			  cmabuf_sysfs_write(self->dev.fd,
					     "unprivileged_max_bytes",
					     bad[i].word))
			TH_LOG("'%s'", bad[i].word);
		ASSERT_EQ(0, cmabuf_sysfs_read_str(self->dev.fd,
						   "unprivileged_max_bytes",
						   now, sizeof(now)));
		EXPECT_STREQ("67108864\n", now)
			TH_LOG("after '%s'", bad[i].word);
	}
	EXPECT_EQ(EACCES, cmabuf_sysfs_write(self->dev.fd,
					     "unprivileged_bytes", "0"));

	ASSERT_EQ(0, cmabuf_sysfs_path(self->dev.fd, "unprivileged_max_bytes",
				       path, sizeof(path)));
	EXPECT_EQ(EACCES, cmabuf_open_unprivileged(path, O_WRONLY));
	EXPECT_EQ(0, cmabuf_open_unprivileged(path, O_RDONLY));
	ASSERT_EQ(0, cmabuf_sysfs_path(self->dev.fd, "unprivileged_bytes",
				       path, sizeof(path)));
	EXPECT_EQ(0, cmabuf_open_unprivileged(path, O_RDONLY));
}

/* ---- deferred: frees finish in the background ---- */

#define DEFER_SIZE	SZ_64M
#define DEFER_ROUNDS	5
#define DEFER_CLOSE_SIZE	(8 * SZ_64M)
#define DEFER_CLOSES	9

FIXTURE(deferred) {
	struct cmabuf_dev dev;
	int fds[8];
	int n;
};

FIXTURE_SETUP(deferred)
{
	self->n = 0;
	if (!dev_open(_metadata, &self->dev, DEV_GENERAL))
		return;
	if (!prepare_supported(self->dev.fd))
		SKIP(return, "%s frees at once (no sysfs releasing_bytes)",
		     DEV_GENERAL);
}

FIXTURE_TEARDOWN(deferred)
{
	while (self->n--)
		if (self->fds[self->n] >= 0)
			close(self->fds[self->n]);
	if (self->dev.fd >= 0)
		dev_close(_metadata, &self->dev);
}

/*
 * close() of the last reference to 512 MiB (on the large instance)
 * returns well before the release of 512 MiB by the same strategy takes,
 * timed in the kernel on the same boot (the debugfs bench file). Each
 * close comes right before a release, so that both see the same moments
 * of a busy host, and the best of each is compared (the medians shown,
 * and what the close of one page costs): on a host with more guests than
 * cores a close() alone takes from 0.3 to 20 ms. The pages go back
 * afterwards and the area is whole again.
 */
TEST_F_TIMEOUT(deferred, close_returns_before_the_release, 600)
{
	__u64 close_ns[DEFER_CLOSES], free_ns[DEFER_CLOSES];
	__u64 page_ns[DEFER_CLOSES], t0;
	struct cmabuf_alloc_data data;
	struct cmabuf_dev large;
	char path[PATH_MAX];
	struct kbench bench;
	int i;

	if (!dev_open(_metadata, &large, DEV_LARGE))
		return;
	if (!bench_file(&large, path, sizeof(path))) {
		close(large.fd);
		SKIP(return, "no bench file of %s to time a release with",
		     large.path);
	}
	for (i = 0; i < DEFER_CLOSES; i++) {
		/* What a close() costs without pages worth mentioning. */
		ASSERT_EQ(0, cmabuf_alloc(large.fd, PAGE, CMABUF_STRATEGY_AUTO,
					  &data));
		t0 = cmabuf_now_ns();
		ASSERT_EQ(0, close(data.fd));
		page_ns[i] = cmabuf_now_ns() - t0;
		ASSERT_EQ(0, cmabuf_settle(large.fd));

		ASSERT_EQ(0, cmabuf_alloc(large.fd, DEFER_CLOSE_SIZE,
					  CMABUF_STRATEGY_AUTO, &data));
		t0 = cmabuf_now_ns();
		ASSERT_EQ(0, close(data.fd));
		close_ns[i] = cmabuf_now_ns() - t0;
		ASSERT_EQ(0, cmabuf_settle(large.fd));

		memset(&bench, 0, sizeof(bench));
		bench.pages = DEFER_CLOSE_SIZE / PAGE;
		bench.iterations = 1;
		bench.strategy = data.strategy;
		ASSERT_EQ(0, kbench_run(large.path, &bench));
		free_ns[i] = bench.free.min_ns;
	}
	qsort(close_ns, DEFER_CLOSES, sizeof(close_ns[0]), u64_cmp);
	qsort(free_ns, DEFER_CLOSES, sizeof(free_ns[0]), u64_cmp);
	qsort(page_ns, DEFER_CLOSES, sizeof(page_ns[0]), u64_cmp);
	TH_LOG("%s",
	       "close() of 512 MiB against its release timed in the kernel, best (median, worst):");
	TH_LOG("close() of one page: %llu ns (%llu, %llu)",
	       (unsigned long long)page_ns[0],
	       (unsigned long long)page_ns[DEFER_CLOSES / 2],
	       (unsigned long long)page_ns[DEFER_CLOSES - 1]);
	TH_LOG("%s: close %llu ns (%llu, %llu), release %llu ns (%llu, %llu): %.1f times",
	       cmabuf_strategy_name(data.strategy),
	       (unsigned long long)close_ns[0],
	       (unsigned long long)close_ns[DEFER_CLOSES / 2],
	       (unsigned long long)close_ns[DEFER_CLOSES - 1],
	       (unsigned long long)free_ns[0],
	       (unsigned long long)free_ns[DEFER_CLOSES / 2],
	       (unsigned long long)free_ns[DEFER_CLOSES - 1],
	       (double)free_ns[0] / close_ns[0]);
	/*
	 * A close() that released the pages itself would take at least the
	 * release. With 64 KiB pages a release has a sixteenth of the
	 * struct pages to free (0.8 ms for 512 MiB), so the margin there is
	 * half that of 4 KiB pages.
	 */
	EXPECT_LT(close_ns[0] * (PAGE > 4096 ? 2 : 4), free_ns[0]);
	dev_close(_metadata, &large);
}

TEST_F_TIMEOUT(deferred, releasing_bytes_back_to_zero, 120)
{
	struct cmabuf_alloc_data data;
	unsigned long long v;

	ASSERT_EQ(0, cmabuf_alloc(self->dev.fd, DEFER_SIZE,
				  CMABUF_STRATEGY_AUTO, &data));
	close(data.fd);
	ASSERT_EQ(0, cmabuf_sysfs_wait(self->dev.fd, "releasing_bytes", 0,
				       PREP_WAIT_MS, &v))
		TH_LOG("%llu bytes still being released", v);
	expect_counters(_metadata, &self->dev, &self->dev.start);
}

/* Buffers of DEFER_SIZE @area has room for, @max at most. */
static int deferred_room(const char *area, int max)
{
	unsigned long long count, used;
	int n;

	if (cmabuf_cma_read(area, "count", &count) == -EOPNOTSUPP ||
	    cmabuf_cma_read(area, "used", &used) == -EOPNOTSUPP)
		return -EOPNOTSUPP;
	if (cmabuf_cma_read(area, "count", &count) ||
	    cmabuf_cma_read(area, "used", &used))
		return 0;
	n = (count - used) / (DEFER_SIZE / PAGE);
	return n > max ? max : n;
}

/*
 * Allocate all of the area's free memory, free it and allocate it again
 * at once, round after round: an ALLOC that finds the memory still being
 * released waits for it and never fails.
 */
TEST_F_TIMEOUT(deferred, free_alloc_loop_of_whole_area_never_fails, 600)
{
	struct cmabuf_alloc_data data;
	int r, i, n, waited = 0, err;
	unsigned long long v;

	n = deferred_room(self->dev.area, ARRAY_SIZE(self->fds));
	if (n == -EOPNOTSUPP)
		SKIP(return, "CMA area %s's room: " REL_CMA_LACKS,
		     self->dev.area);
	ASSERT_LE(2, n) TH_LOG("%s has room for %d buffers of 64 MiB", self->dev.area, n);
	for (r = 0; r < DEFER_ROUNDS; r++) {
		if (r && !cmabuf_sysfs_read(self->dev.fd, "releasing_bytes",
					    &v) && v)
			waited++;
		for (i = 0; i < n; i++) {
			err = cmabuf_alloc(self->dev.fd, DEFER_SIZE,
					   CMABUF_STRATEGY_AUTO, &data);
			ASSERT_EQ(0, err) TH_LOG("round %d, buffer %d of %d: %s",
						 r, i, n, strerror(err));
			self->fds[self->n++] = data.fd;
		}
		while (self->n)
			close(self->fds[--self->n]);
	}
	TH_LOG("%d x 64 MiB, %d rounds; %d began while memory was still being released",
	       n, DEFER_ROUNDS, waited);
}

/*
 * A PREPARE that needs the memory of buffers closed a moment ago waits for
 * their release as an ALLOC does, and does not fail with ENOMEM: all of
 * the area's free memory is allocated and closed, and two buffers of the
 * same size are asked for at once (the prepare limits allow half the
 * area). Everything is back afterwards.
 */
TEST_F_TIMEOUT(deferred, prepare_after_closes_waits_for_the_release, 120)
{
	struct cmabuf_alloc_data data;
	struct cmabuf_prepare p;
	unsigned long long v;
	int i, n, err;

	n = deferred_room(self->dev.area, ARRAY_SIZE(self->fds));
	if (n == -EOPNOTSUPP)
		SKIP(return, "CMA area %s's room: " REL_CMA_LACKS,
		     self->dev.area);
	ASSERT_LE(2, n) TH_LOG("%s has room for %d buffers of 64 MiB", self->dev.area, n);
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, cmabuf_alloc(self->dev.fd, DEFER_SIZE,
					  CMABUF_STRATEGY_AUTO, &data));
		self->fds[self->n++] = data.fd;
	}
	while (self->n)
		close(self->fds[--self->n]);

	err = cmabuf_prepare(self->dev.fd, DEFER_SIZE,
			     CMABUF_STRATEGY_AUTO | CMABUF_PREPARE_WAIT, 2, 0, &p);
	EXPECT_EQ(0, err) TH_LOG("PREPARE after %d closes: %s", n, strerror(err));
	EXPECT_EQ(2U, p.ready);
	ASSERT_EQ(0, cmabuf_prepare(self->dev.fd, DEFER_SIZE,
				    CMABUF_STRATEGY_AUTO, 0, 0, &p));
	ASSERT_EQ(0, cmabuf_sysfs_wait(self->dev.fd, "releasing_bytes", 0,
				       PREP_WAIT_MS, &v))
		TH_LOG("%llu bytes still being released", v);
	expect_counters(_metadata, &self->dev, &self->dev.start);
}

/*
 * A want dropped while the worker makes a buffer for it: until that
 * buffer's pages are back, they count as releasing, so that whoever waits
 * for the area to settle waits for them, and so does an ALLOC that needs
 * them. One 64 MiB buffer is asked for without waiting; once the worker
 * holds its pages (the area's used count rose) the want is dropped, and
 * all of the area's free memory is allocated at once.
 */
TEST_F_TIMEOUT(deferred, buffer_made_for_a_dropped_want_counts_as_releasing,
	       300)
{
	const unsigned long long start = self->dev.start.cma_used_pages;
	unsigned long long end, used, v;
	struct cmabuf_alloc_data data;
	struct cmabuf_prepare p;
	int i, n, err;

	n = deferred_room(self->dev.area, ARRAY_SIZE(self->fds));
	if (n == -EOPNOTSUPP)
		SKIP(return, "CMA area %s's room: " REL_CMA_LACKS,
		     self->dev.area);
	ASSERT_LE(2, n) TH_LOG("%s has room for %d buffers of 64 MiB", self->dev.area, n);
	ASSERT_EQ(0, cmabuf_prepare(self->dev.fd, DEFER_SIZE,
				    CMABUF_STRATEGY_AUTO, 1, 0, &p));
	end = cmabuf_now_ms() + PREP_WAIT_MS;
	do {
		if (!cma_read(_metadata, self->dev.area, "used", &used))
			return;
	} while (used < start + DEFER_SIZE / PAGE && cmabuf_now_ms() < end);
	ASSERT_LE(start + DEFER_SIZE / PAGE, used)
		TH_LOG("the worker never took the buffer's pages");
	ASSERT_EQ(0, cmabuf_prepare(self->dev.fd, DEFER_SIZE,
				    CMABUF_STRATEGY_AUTO, 0, 0, &p));

	/* In this order: pages back between the two reads are not missed. */
	ASSERT_EQ(0, cmabuf_sysfs_read(self->dev.fd, "releasing_bytes", &v));
	if (!cma_read(_metadata, self->dev.area, "used", &used))
		return;
	EXPECT_TRUE(v || used == start)
		TH_LOG("%llu pages of %s held, none counted as releasing",
		       used - start, self->dev.area);

	for (i = 0; i < n; i++) {
		err = cmabuf_alloc(self->dev.fd, DEFER_SIZE,
				   CMABUF_STRATEGY_AUTO, &data);
		ASSERT_EQ(0, err) TH_LOG("buffer %d of %d: %s", i, n,
					 strerror(err));
		self->fds[self->n++] = data.fd;
	}
	while (self->n)
		close(self->fds[--self->n]);
}

/* ---- memcg: buffers charged to the allocating process's memory cgroup ---- */

/*
 * mem_accounting: with it on, a buffer's bytes are charged to the memory
 * cgroup of the process that allocates it, through the misc device and
 * the dma-heap alike, for as long as the buffer lives; past memory.max the
 * ALLOC is ENOMEM and moves no page. Each test moves its process into a
 * cgroup of its own and back. Where the kernel cannot charge (no patch
 * 0005: 6.12, a stock 7.2), switching it on is EOPNOTSUPP.
 */
#define MEMCG_ROOT	"/sys/fs/cgroup"
#define MEMCG_PARAM	"/sys/module/cmabuf/parameters/mem_accounting"
#define MEMCG_HEAP	"cmabuf-general"	/* DEV_GENERAL's */
#define MEMCG_BUF	(16 * SZ_1M)
/*
 * What the per-CPU charge stocks (MEMCG_CHARGE_BATCH, 64 pages a CPU) and
 * the test's own pages may add: 256 pages, 1 MiB with 4 KiB pages and
 * 16 MiB with 64 KiB (4 MiB measured there).
 */
#define MEMCG_SLACK	(256 * PAGE)

FIXTURE(memcg) {
	struct cmabuf_dev dev;
	char dir[64];
	char was[8];
	bool moved;
	int fds[2];
};

/* @file of the test's cgroup, as a number. */
static unsigned long long memcg_read(struct __test_metadata *_metadata,
				     const char *dir, const char *file)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	EXPECT_EQ(0, cmabuf_read_file(path, buf, sizeof(buf))) TH_LOG("%s", path);
	return strtoull(buf, NULL, 10);
}

/* The "max" count of the test cgroup's memory.events. */
static unsigned long long memcg_max_events(const char *dir)
{
	char path[128], buf[256], *p;

	snprintf(path, sizeof(path), "%s/memory.events", dir);
	if (cmabuf_read_file(path, buf, sizeof(buf)))
		return 0;
	p = strstr(buf, "\nmax ");
	return p ? strtoull(p + 5, NULL, 10) : 0;
}

static int memcg_set(const char *dir, const char *file, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return cmabuf_write_file(path, val);
}

FIXTURE_SETUP(memcg)
{
	char pid[16];
	int err;

	self->dir[0] = '\0';
	self->was[0] = '\0';
	self->moved = false;
	self->fds[0] = -1;
	self->fds[1] = -1;
	if (!dev_open(_metadata, &self->dev, DEV_GENERAL))
		return;
	if (cmabuf_read_file(MEMCG_PARAM, self->was, sizeof(self->was)))
		SKIP(return, "cmabuf has no mem_accounting parameter");
	err = cmabuf_write_file(MEMCG_PARAM, "1");
	if (err == EOPNOTSUPP) {
		self->was[0] = '\0';
		SKIP(return, "the kernel does not let cmabuf charge memory cgroups (patch 0005)");
	}
	ASSERT_EQ(0, err) TH_LOG("mem_accounting=1: %s", strerror(err));
	if (access(MEMCG_ROOT "/cgroup.controllers", F_OK))
		mount("cgroup2", MEMCG_ROOT, "cgroup2", 0, NULL);
	if (memcg_set(MEMCG_ROOT, "cgroup.subtree_control", "+memory"))
		SKIP(return, "no memory controller in cgroup v2 at %s", MEMCG_ROOT);
	snprintf(self->dir, sizeof(self->dir), MEMCG_ROOT "/cmabuf-test-%d",
		 getpid());
	ASSERT_EQ(0, mkdir(self->dir, 0755)) TH_LOG("%s: %s", self->dir,
						    strerror(errno));
	snprintf(pid, sizeof(pid), "%d", getpid());
	ASSERT_EQ(0, memcg_set(self->dir, "cgroup.procs", pid));
	self->moved = true;
}

FIXTURE_TEARDOWN(memcg)
{
	char pid[16];
	int i;

	for (i = 0; i < 2; i++)
		if (self->fds[i] >= 0)
			close(self->fds[i]);
	if (self->moved) {
		snprintf(pid, sizeof(pid), "%d", getpid());
		EXPECT_EQ(0, memcg_set(MEMCG_ROOT, "cgroup.procs", pid));
	}
	if (self->dir[0])
		EXPECT_EQ(0, rmdir(self->dir)) TH_LOG("%s: %s", self->dir,
						      strerror(errno));
	if (self->was[0])
		EXPECT_EQ(0, cmabuf_write_file(MEMCG_PARAM, self->was));
	if (self->dev.fd < 0)
		return;
	ASSERT_EQ(0, cmabuf_settle(self->dev.fd));
	prepare_settle(&self->dev);
	dev_close(_metadata, &self->dev);
}

/*
 * A buffer from each route raises memory.current by its size while it
 * lives, and closing it takes the charge back.
 */
TEST_F_TIMEOUT(memcg, charged_while_live_through_both_routes, 60)
{
	unsigned long long start, live, after;
	struct cmabuf_alloc_data data;
	int err;

	start = memcg_read(_metadata, self->dir, "memory.current");
	ASSERT_EQ(0, cmabuf_alloc(self->dev.fd, MEMCG_BUF,
				  CMABUF_STRATEGY_AUTO, &data));
	self->fds[0] = data.fd;
	live = memcg_read(_metadata, self->dir, "memory.current");
	EXPECT_LE(start + MEMCG_BUF, live);
	EXPECT_GE(start + MEMCG_BUF + MEMCG_SLACK, live);

	err = heap_alloc_named(MEMCG_HEAP, MEMCG_BUF, &self->fds[1]);
	if (err == ENOENT) {
		TH_LOG("no dma-heap %s: the misc device alone", MEMCG_HEAP);
	} else {
		ASSERT_EQ(0, err) TH_LOG("%s: %s", MEMCG_HEAP, strerror(err));
		after = memcg_read(_metadata, self->dir, "memory.current");
		EXPECT_LE(live + MEMCG_BUF, after);
		close(self->fds[1]);
		self->fds[1] = -1;
	}

	close(self->fds[0]);
	self->fds[0] = -1;
	after = memcg_read(_metadata, self->dir, "memory.current");
	EXPECT_GE(start + MEMCG_SLACK, after);
}

/*
 * memory.max 8 MiB over what the cgroup holds: 16 MiB is ENOBUFS (not
 * ENOMEM, which says the area is full), counted as the cgroup's "max"
 * event, and leaves the area and the cgroup as they were; 4 MiB fits.
 */
TEST_F_TIMEOUT(memcg, past_memory_max_enobufs_and_nothing_moved, 60)
{
	unsigned long long start, events, used;
	struct cmabuf_alloc_data data;
	char max[32];

	start = memcg_read(_metadata, self->dir, "memory.current");
	events = memcg_max_events(self->dir);
	snprintf(max, sizeof(max), "%llu", start + 8 * SZ_1M);
	ASSERT_EQ(0, memcg_set(self->dir, "memory.max", max));
	EXPECT_EQ(ENOBUFS, cmabuf_alloc(self->dev.fd, MEMCG_BUF,
					CMABUF_STRATEGY_AUTO, &data));
	EXPECT_LT(events, memcg_max_events(self->dir));
	EXPECT_GE(start + MEMCG_SLACK,
		  memcg_read(_metadata, self->dir, "memory.current"));
	if (!cma_read(_metadata, self->dev.area, "used", &used))
		return;
	EXPECT_EQ(self->dev.start.cma_used_pages, used);

	ASSERT_EQ(0, cmabuf_alloc(self->dev.fd, 4 * SZ_1M,
				  CMABUF_STRATEGY_AUTO, &data));
	self->fds[0] = data.fd;
}

/*
 * What a process prepares is charged to its cgroup at PREPARE time, as
 * its live buffers are: two 16 MiB buffers raise memory.current by 32 MiB
 * before the call returns, whether ready or not; count 1 gives 16 MiB
 * back, and closing the file the rest. (Before: nothing was charged until
 * an ALLOC took a buffer.)
 */
TEST_F_TIMEOUT(memcg, prepare_charged_until_given_back, 60)
{
	unsigned long long start, now;
	struct cmabuf_prepare p;

	if (!prepare_supported(self->dev.fd))
		SKIP(return, "%s prepares no buffers", DEV_GENERAL);
	self->fds[0] = open(DEV_GENERAL, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fds[0]);
	start = memcg_read(_metadata, self->dir, "memory.current");
	ASSERT_EQ(0, cmabuf_prepare(self->fds[0], MEMCG_BUF, 0, 2, 0, &p));
	now = memcg_read(_metadata, self->dir, "memory.current");
	EXPECT_LE(start + 2 * MEMCG_BUF, now);
	EXPECT_GE(start + 2 * MEMCG_BUF + MEMCG_SLACK, now);

	ASSERT_EQ(0, cmabuf_prepare(self->fds[0], MEMCG_BUF,
				    CMABUF_PREPARE_WAIT, 1, 0, &p));
	now = memcg_read(_metadata, self->dir, "memory.current");
	EXPECT_LE(start + MEMCG_BUF, now);
	EXPECT_GE(start + MEMCG_BUF + MEMCG_SLACK, now);

	close(self->fds[0]);
	self->fds[0] = -1;
	EXPECT_GE(start + MEMCG_SLACK,
		  memcg_read(_metadata, self->dir, "memory.current"));
}

/*
 * A PREPARE past memory.max is ENOBUFS, like an ALLOC, and changes
 * nothing: no want, nothing made, the cgroup as it was.
 */
TEST_F_TIMEOUT(memcg, prepare_past_memory_max_enobufs, 60)
{
	unsigned long long start, used, v;
	struct cmabuf_prepare p;
	char max[32];

	if (!prepare_supported(self->dev.fd))
		SKIP(return, "%s prepares no buffers", DEV_GENERAL);
	start = memcg_read(_metadata, self->dir, "memory.current");
	snprintf(max, sizeof(max), "%llu", start + MEMCG_BUF + 8 * SZ_1M);
	ASSERT_EQ(0, memcg_set(self->dir, "memory.max", max));
	EXPECT_EQ(ENOBUFS, cmabuf_prepare(self->dev.fd, MEMCG_BUF, 0, 2, 0,
					  &p));
	EXPECT_GE(start + MEMCG_SLACK,
		  memcg_read(_metadata, self->dir, "memory.current"));
	usleep(100 * 1000);
	ASSERT_EQ(0, cmabuf_sysfs_read(self->dev.fd, "prepared_bytes", &v));
	EXPECT_EQ(0ULL, v);
	ASSERT_EQ(0, cmabuf_settle(self->dev.fd));
	ASSERT_EQ(0, cmabuf_cma_read(self->dev.area, "used", &used));
	EXPECT_EQ(self->dev.start.cma_used_pages, used);
	/* One fits; the drop gives it back. */
	ASSERT_EQ(0, cmabuf_prepare(self->dev.fd, MEMCG_BUF, 0, 1, 0, &p));
	ASSERT_EQ(0, cmabuf_prepare(self->dev.fd, MEMCG_BUF, 0, 0, 0, &p));
	EXPECT_GE(start + MEMCG_SLACK,
		  memcg_read(_metadata, self->dir, "memory.current"));
}

#define MEMCG_PERCENT	"/sys/module/cmabuf/parameters/prepare_max_percent"

/*
 * 4 GiB and more at once, and back whole: 8 wants of 512 MiB, then of
 * 520 MiB (each more than the 256 MiB area, so none is ever made: only
 * the charge is there), with prepare_max_percent raised to let them be
 * asked for. The memory cgroup's byte stock counts in unsigned int (7.2's
 * mm/memcontrol.c, consume_obj_stock() and refill_obj_stock()): a single
 * charge of 4 GiB is cut to 0 bytes there and charges nothing, a single
 * uncharge of 4160 MiB gives back 64 MiB and leaves 4 GiB charged for
 * good. cmabuf charges and uncharges by 1 GiB at most.
 */
TEST_F_TIMEOUT(memcg, prepare_of_4g_charged_and_given_back_whole, 60)
{
	static const __u64 sizes[] = { 512 * SZ_1M, 520 * SZ_1M };
	unsigned long long start, now;
	struct cmabuf_prepare p;
	char was[16];
	size_t i;

	if (!prepare_supported(self->dev.fd))
		SKIP(return, "%s prepares no buffers", DEV_GENERAL);
	ASSERT_EQ(0, cmabuf_read_file(MEMCG_PERCENT, was, sizeof(was)));
	ASSERT_EQ(0, cmabuf_write_file(MEMCG_PERCENT, "100000"));
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		start = memcg_read(_metadata, self->dir, "memory.current");
		EXPECT_EQ(0, cmabuf_prepare(self->dev.fd, sizes[i], 0, 8, 0,
					    &p));
		now = memcg_read(_metadata, self->dir, "memory.current");
		EXPECT_LE(start + 8 * sizes[i], now)
			TH_LOG("8 x %llu MiB: %llu bytes charged",
			       sizes[i] >> 20, now - start);
		EXPECT_GE(start + 8 * sizes[i] + MEMCG_SLACK, now);
		EXPECT_EQ(0, cmabuf_prepare(self->dev.fd, sizes[i], 0, 0, 0,
					    &p));
		now = memcg_read(_metadata, self->dir, "memory.current");
		EXPECT_GE(start + MEMCG_SLACK, now)
			TH_LOG("8 x %llu MiB: %llu bytes still charged after the drop",
			       sizes[i] >> 20, now - start);
	}
	EXPECT_EQ(0, cmabuf_write_file(MEMCG_PERCENT, was));
}

/* mem_accounting off: the same buffer charges nothing. */
TEST_F_TIMEOUT(memcg, off_charges_nothing, 60)
{
	unsigned long long start;
	struct cmabuf_alloc_data data;

	ASSERT_EQ(0, cmabuf_write_file(MEMCG_PARAM, "0"));
	start = memcg_read(_metadata, self->dir, "memory.current");
	ASSERT_EQ(0, cmabuf_alloc(self->dev.fd, MEMCG_BUF,
				  CMABUF_STRATEGY_AUTO, &data));
	self->fds[0] = data.fd;
	EXPECT_GE(start + MEMCG_SLACK,
		  memcg_read(_metadata, self->dir, "memory.current"));
}

/*
 * dma: the DMA strategy hands out only its instance's area. The DMA API
 * takes a buffer from the device's CMA area, but when the area has no
 * room it takes the page allocator's pages instead (dma-direct, for sizes
 * up to its largest order); cmabuf checks every buffer's place and
 * refuses those (ENOMEM, as for a full area). The area is filled with
 * DMA buffers of 1 MiB, or of up to 4 MiB where 512 of 1 MiB do not
 * fill it (open files are limited to 1024): sizes the page allocator can
 * serve (MAX_PAGE_ORDER). Every one must lie inside the area (debugfs
 * cma/<area>/), the ALLOC past its room must fail with ENOMEM, and
 * nothing may be left once they are closed.
 */
static __u64 dma_fill_chunk(__u64 area)
{
	__u64 chunk = SZ_1M;

	while (area / chunk > 512 && chunk < 4 * SZ_1M)
		chunk *= 2;
	return chunk;
}

FIXTURE(dma) {
	struct cmabuf_dev dev;
	int *fds;
	unsigned int n;
};

FIXTURE_VARIANT(dma) {
	const char *path;
};

FIXTURE_VARIANT_ADD(dma, general) {
	.path = DEV_GENERAL,
};

FIXTURE_VARIANT_ADD(dma, large) {
	.path = DEV_LARGE,
};

FIXTURE_SETUP(dma)
{
	self->fds = NULL;
	self->n = 0;
	self->dev.fd = -1;
	if (!dev_open(_metadata, &self->dev, variant->path))
		return;
	if (!cmabuf_strategy_supported(&self->dev.info, CMABUF_STRATEGY_DMA))
		SKIP(return, "no DMA on %s (strategies %#x)", variant->path,
		     self->dev.info.strategies);
}

FIXTURE_TEARDOWN(dma)
{
	unsigned int i;

	for (i = 0; i < self->n; i++)
		close(self->fds[i]);
	free(self->fds);
	if (self->dev.fd >= 0) {
		ASSERT_EQ(0, cmabuf_settle(self->dev.fd));
		dev_close(_metadata, &self->dev);
	}
}

/* The area's first byte and its size, from debugfs. */
static void dma_area_place(struct __test_metadata *_metadata,
			   const struct cmabuf_dev *dev, __u64 *base,
			   __u64 *size)
{
	unsigned long long pfn, count;

	int ret = rel_cma_base_pfn(dev->area, &pfn);

	if (ret == EOPNOTSUPP)
		SKIP(return, "CMA area %s's base: " REL_CMA_LACKS, dev->area);
	ASSERT_EQ(0, ret);
	if (!cma_read(_metadata, dev->area, "count", &count))
		return;
	*base = pfn * PAGE;
	*size = count * PAGE;
}

/* ALLOC @size with DMA: the fd, or -errno. */
static int dma_alloc(const struct cmabuf_dev *dev, __u64 size, __u32 align,
		     __u64 *phys)
{
	struct cmabuf_alloc_data data;
	struct cmabuf_phys p;
	int ret;

	memset(&data, 0, sizeof(data));
	data.size = size;
	data.align = align;
	data.fd_flags = O_RDWR | O_CLOEXEC;
	data.flags = CMABUF_STRATEGY_DMA;
	ret = cmabuf_ioctl(dev->fd, CMABUF_IOC_ALLOC, &data);
	if (ret)
		return -ret;
	if (data.strategy != CMABUF_STRATEGY_DMA ||
	    cmabuf_phys(dev->fd, data.fd, &p)) {
		close(data.fd);
		return -EPROTO;
	}
	*phys = p.phys;
	return data.fd;
}

TEST_F_TIMEOUT(dma, fills_area_then_enomem, 600)
{
	__u64 base = 0, size = 0, phys, most, chunk, outside = 0;
	unsigned long long used;
	int fd = 0;

	dma_area_place(_metadata, &self->dev, &base, &size);
	if (_metadata->exit_code == KSFT_SKIP)
		return;
	chunk = dma_fill_chunk(size);
	most = size / chunk;
	/* Room for a dozen the area cannot have: handed out from elsewhere. */
	self->fds = calloc(most + 16, sizeof(*self->fds));
	ASSERT_NE(NULL, self->fds);
	while (self->n < most + 16) {
		fd = dma_alloc(&self->dev, chunk, 0, &phys);
		if (fd < 0)
			break;
		self->fds[self->n++] = fd;
		if (phys < base || phys + chunk > base + size)
			outside++;
	}
	EXPECT_EQ(0ULL, outside)
		TH_LOG("%llu of %u buffers outside %s [%#llx, %#llx)",
		       (unsigned long long)outside, self->n, self->dev.area,
		       (unsigned long long)base,
		       (unsigned long long)(base + size));
	ASSERT_EQ(-ENOMEM, fd) TH_LOG("after %u buffers of %llu KiB", self->n,
				      (unsigned long long)chunk >> 10);
	EXPECT_GE(most, (__u64)self->n);
	if (!cma_read(_metadata, self->dev.area, "used", &used))
		return;
	EXPECT_GE(used, self->n * (chunk / PAGE));
	/* Past the room, one more is refused the same way, nothing kept. */
	EXPECT_EQ(-ENOMEM, dma_alloc(&self->dev, chunk, 0, &phys));
}

/*
 * The DMA API aligns a buffer to its size rounded up to a power of two,
 * but to no more than CONFIG_CMA_ALIGNMENT (at least 4 pages, Kconfig's
 * smallest); more is EINVAL, and no buffer is made.
 */
TEST_F(dma, alignment_as_the_dma_api_gives)
{
	unsigned int page_shift = __builtin_ctzll(PAGE);
	__u64 phys;
	int fd;

	fd = dma_alloc(&self->dev, 4 * PAGE, page_shift + 2, &phys);
	ASSERT_LE(0, fd) TH_LOG("4 pages aligned to 4: %s", strerror(-fd));
	EXPECT_EQ(0ULL, phys % (4 * PAGE));
	close(fd);
	EXPECT_EQ(-EINVAL, dma_alloc(&self->dev, 4 * PAGE, page_shift + 3,
				     &phys));
	EXPECT_EQ(-EINVAL, dma_alloc(&self->dev, 3 * PAGE, page_shift + 3,
				     &phys));
}

/* Cleared once, by the DMA API: what a previous buffer wrote is gone. */
TEST_F(dma, reused_pages_read_zero)
{
	size_t len = 4 * SZ_1M, off;
	unsigned char *p;
	__u64 phys, again;
	int fd;

	fd = dma_alloc(&self->dev, len, 0, &phys);
	ASSERT_LE(0, fd);
	p = cmabuf_map(fd, len, 0);
	ASSERT_NE(MAP_FAILED, p);
	memset(p, 0x5a, len);
	munmap(p, len);
	close(fd);
	ASSERT_EQ(0, cmabuf_settle(self->dev.fd));

	fd = dma_alloc(&self->dev, len, 0, &again);
	ASSERT_LE(0, fd);
	p = cmabuf_map(fd, len, 0);
	ASSERT_NE(MAP_FAILED, p);
	off = cmabuf_first_nonzero(p, len);
	EXPECT_EQ(len, off) TH_LOG("byte %zu is %#x (same place: %d)", off,
				   p[off], phys == again);
	munmap(p, len);
	close(fd);
}

TEST_HARNESS_MAIN
