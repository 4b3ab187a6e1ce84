// SPDX-License-Identifier: GPL-2.0
/*
 * DMA test of cmabuf: its buffers moved by a device that really does DMA,
 * QEMU's edu, through cmabuf_edu.ko (tests/edu/cmabuf_edu.h).
 *
 *  - edu_bed: the edu devices are the ones the test bed put there, with
 *    the PCI core's default segment limits, on the DMA path expected;
 *  - edu_data: a buffer of each strategy and of the dma-heap, 64 MiB and
 *    1 GiB: its mapping fits the device's limits and differs from the
 *    physical address, and data the CPU wrote arrives exactly where the
 *    device was told to copy it, as the CPU sees through mmap and vmap;
 *  - edu_misuse: a mask the buffer does not fit, an attachment mapped
 *    twice, detached while mapped, the device unbound while mapped;
 *  - edu_bounce: with swiotlb=force, what the device wrote is seen only
 *    after DMA_BUF_SYNC_START and what the CPU wrote reaches the device
 *    only after DMA_BUF_SYNC_END.
 *
 * The guest says what to expect through the environment:
 *   CMABUF_DMA_PATH  "iommu": the devices are behind the SMMU; "bounce":
 *                    every mapping bounces through swiotlb;
 *   CMABUF_EDU_BITS  the edu devices and their DMA masks, "PCI=BITS,...";
 *   CMABUF_KERNEL    a "-debug" kernel has CONFIG_DMABUF_DEBUG.
 * Every fixture leaves the CMA areas, swiotlb and the DMA API debugging's
 * error count as it found them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>

#include "kselftest_harness.h"
#include "cmabuf_test_util.h"
#include "cmabuf_importer.h"
#include "dma_util.h"
#include "reliability_util.h"

#define DEV_GENERAL	"/dev/cmabuf-general"
#define DEV_LARGE	"/dev/cmabuf-large"
#define IMPORTER_DEV	"/dev/cmabuf_importer"

#define SZ_16M		0x01000000ULL
#define PAGE_4K		0x00001000ULL
#define SZ_32M		0x02000000ULL
#define SZ_64K		0x00010000ULL

/* Bytes the device moves per region: its whole buffer. */
#define LEN		CMABUF_EDU_MAX_LEN
/* Bytes around a destination that a copy must leave alone. */
#define GUARD		64
/* Regions a data test copies between, and at random among them. */
#define PAIRS		6
#define RANDOM_PAIRS	2
/* Times a misuse is repeated: enough to run out of addresses if it leaks. */
#define ROUNDS		8
/* A 1 GiB buffer under KASAN takes tens of seconds to allocate. */
#define TIMEOUT		300

static bool path_is_bounce(void)
{
	const char *p = getenv("CMABUF_DMA_PATH");

	return p && !strcmp(p, "bounce");
}

static bool kernel_is_debug(void)
{
	const char *k = getenv("CMABUF_KERNEL");

	return k && strstr(k, "-debug");
}

/* A counter in debugfs, or 0 when the kernel does not have it. */
static unsigned long long counter(const char *path)
{
	unsigned long long v = 0;

	rel_read_ull(path, &v);
	return v;
}

/* Are the @len bytes at @p all zero? */
static bool zeroed(const unsigned char *p, size_t len)
{
	return cmabuf_first_nonzero(p, len) == len;
}

/* The narrowest or the widest edu device, opened into @dev. */
static void edu_pick(struct __test_metadata *_metadata, bool narrow,
		     struct edu_dev *dev)
{
	struct edu_dev devs[EDU_MAX_DEVS];
	int i, n, best = -1;

	ASSERT_EQ(0, edu_find_all(devs, EDU_MAX_DEVS, &n));
	ASSERT_LT(0, n) TH_LOG("no /dev/cmabuf_edu-*: is cmabuf_edu.ko loaded?");
	for (i = 0; i < n; i++) {
		if (best < 0 ||
		    (narrow ? devs[i].info.dma_bits < devs[best].info.dma_bits :
			      devs[i].info.dma_bits > devs[best].info.dma_bits))
			best = i;
	}
	*dev = devs[best];
	for (i = 0; i < n; i++)
		if (i != best)
			edu_close(&devs[i]);
}

/**
 * struct dma_state - what a fixture must leave as it found it
 * @dev: the general and large instances, -1 until opened.
 * @inst: every instance of the driver.
 * @count: entries of @inst.
 * @base: their counters and CMA areas at the start.
 * @swiotlb: swiotlb slots in use at the start.
 * @dma_errors: errors of the DMA API debugging at the start.
 */
struct dma_state {
	int dev[2];
	struct rel_instance inst[REL_MAX_INSTANCES];
	unsigned int count;
	struct rel_snapshot base;
	unsigned long long swiotlb;
	unsigned long long dma_errors;
};

static void state_begin(struct __test_metadata *_metadata,
			struct dma_state *st)
{
	const char *paths[2] = { DEV_GENERAL, DEV_LARGE };
	int i;

	for (i = 0; i < 2; i++) {
		st->dev[i] = open(paths[i], O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, st->dev[i]) TH_LOG("%s absent", paths[i]);
	}
	ASSERT_EQ(0, rel_instances(st->inst, REL_MAX_INSTANCES, &st->count));
	ASSERT_EQ(0, rel_snapshot_take(st->inst, st->count, &st->base));
	st->swiotlb = counter(SWIOTLB_USED);
	st->dma_errors = counter(DMA_API_ERRORS);
}

static void state_end(struct __test_metadata *_metadata,
		      struct dma_state *st)
{
	struct rel_snapshot now;
	char why[256] = "";
	int i;

	for (i = 0; i < 2; i++) {
		if (st->dev[i] >= 0)
			close(st->dev[i]);
		st->dev[i] = -1;
	}
	if (!st->count)
		return;
	EXPECT_EQ(0, rel_snapshot_settle(st->inst, st->count, &st->base, 5000,
					 &now, why, sizeof(why)))
		TH_LOG("%s", why);
	EXPECT_EQ(st->swiotlb, counter(SWIOTLB_USED));
	EXPECT_EQ(st->dma_errors, counter(DMA_API_ERRORS))
		TH_LOG("the DMA API debugging reported errors: see the console");
}

/* A buffer from the instance @dev with @strategy, or from a dma-heap. */
static int buffer_alloc(int dev, const char *heap, __u32 strategy,
			__u64 size, int *buf)
{
	struct cmabuf_alloc_data data;
	int ret;

	if (heap)
		return heap_alloc_named(heap, size, buf);
	ret = cmabuf_alloc(dev, size, strategy, &data);
	if (!ret)
		*buf = data.fd;
	return ret;
}

/* ---- edu_bed ---- */

FIXTURE(edu_bed) {
	int unused;
};

FIXTURE_SETUP(edu_bed)
{
}

FIXTURE_TEARDOWN(edu_bed)
{
}

/*
 * Every device CMABUF_EDU_BITS names is there, with the mask it says, the
 * PCI core's default segment limits and the DMA path of this guest; and
 * there are no others.
 */
TEST_F(edu_bed, devices_are_the_test_beds)
{
	const char *spec = getenv("CMABUF_EDU_BITS");
	struct edu_dev devs[EDU_MAX_DEVS], dev;
	char pci[PCI_NAME_MAX];
	int n, want = 0, i, consumed;
	unsigned int bits;

	ASSERT_NE(NULL, spec) TH_LOG("CMABUF_EDU_BITS is not set");
	ASSERT_EQ(0, edu_find_all(devs, EDU_MAX_DEVS, &n));
	for (i = 0; i < n; i++)
		edu_close(&devs[i]);

	while (sscanf(spec, "%31[^=]=%u%n", pci, &bits, &consumed) == 2) {
		want++;
		ASSERT_EQ(0, edu_open(pci, &dev)) TH_LOG("edu %s", pci);
		TH_LOG("%s: %u-bit mask (error %d), flags %#x", pci,
		       dev.info.dma_bits, dev.info.dma_error, dev.info.flags);
		TH_LOG("%s: segments up to %u, boundary %#llx, mappings up to %#llx",
		       pci, dev.info.max_seg_size,
		       (unsigned long long)dev.info.seg_boundary,
		       (unsigned long long)dev.info.max_mapping_size);
		EXPECT_EQ(bits, dev.info.dma_bits);
		EXPECT_EQ(SZ_64K, dev.info.max_seg_size);
		EXPECT_EQ(0xffffffffULL, dev.info.seg_boundary);
		if (!path_is_bounce()) {
			EXPECT_EQ(0, dev.info.dma_error);
			EXPECT_EQ(CMABUF_EDU_INFO_IOMMU, dev.info.flags);
		} else if (bits < 32) {
			/* RAM starts at 1 GiB: the direct mapping cannot. */
			EXPECT_EQ(-EIO, dev.info.dma_error);
		} else {
			EXPECT_EQ(0, dev.info.dma_error);
			EXPECT_EQ(CMABUF_EDU_INFO_BOUNCE, dev.info.flags);
		}
		edu_close(&dev);
		spec += consumed;
		if (*spec != ',')
			break;
		spec++;
	}
	EXPECT_LE(2, want);
	EXPECT_EQ(want, n);
}

/* ---- edu_data ---- */

FIXTURE(edu_data) {
	struct dma_state st;
	struct edu_dev edu;
	int buf;
	unsigned char *map;
	size_t size;
	__u32 handle;
	struct cmabuf_edu_map m;
	struct cmabuf_phys phys;
};

FIXTURE_VARIANT(edu_data) {
	bool large;
	const char *heap;	/* NULL: the instance, with @strategy */
	__u32 strategy;
	__u64 size;
};

FIXTURE_VARIANT_ADD(edu_data, general_64m_compound) {
	.strategy = CMABUF_STRATEGY_COMPOUND,
	.size = SZ_64M,
};

FIXTURE_VARIANT_ADD(edu_data, general_64m_frozen) {
	.strategy = CMABUF_STRATEGY_FROZEN,
	.size = SZ_64M,
};

FIXTURE_VARIANT_ADD(edu_data, general_64m_legacy) {
	.strategy = CMABUF_STRATEGY_LEGACY,
	.size = SZ_64M,
};

FIXTURE_VARIANT_ADD(edu_data, general_64m_heap) {
	.heap = "cmabuf-general",
	.size = SZ_64M,
};

FIXTURE_VARIANT_ADD(edu_data, large_1g_compound) {
	.large = true,
	.strategy = CMABUF_STRATEGY_COMPOUND,
	.size = SZ_1G,
};

FIXTURE_VARIANT_ADD(edu_data, large_1g_frozen) {
	.large = true,
	.strategy = CMABUF_STRATEGY_FROZEN,
	.size = SZ_1G,
};

FIXTURE_VARIANT_ADD(edu_data, large_1g_legacy) {
	.large = true,
	.strategy = CMABUF_STRATEGY_LEGACY,
	.size = SZ_1G,
};

FIXTURE_VARIANT_ADD(edu_data, large_1g_heap) {
	.large = true,
	.heap = "cmabuf-large",
	.size = SZ_1G,
};

/*
 * The device: through the SMMU a 64 MiB buffer goes to the 28-bit one,
 * which only an IOMMU lets reach memory above 1 GiB, and 1 GiB to the
 * widest; through swiotlb, every buffer to the widest.
 */
FIXTURE_SETUP(edu_data)
{
	int dev, ret;

	self->buf = -1;
	self->map = MAP_FAILED;
	self->size = variant->size;
	self->edu.fd = -1;
	self->st.dev[0] = -1;
	self->st.dev[1] = -1;
	if (path_is_bounce() && variant->size > SZ_64M)
		SKIP(return, "swiotlb holds 128 MiB: 1 GiB goes through the SMMU");

	state_begin(_metadata, &self->st);
	dev = self->st.dev[variant->large];
	edu_pick(_metadata, !path_is_bounce() && variant->size <= SZ_64M,
		 &self->edu);

	/* COMPOUND starts at a pageblock: 512 MiB with 64 KiB pages. */
	if (variant->strategy == CMABUF_STRATEGY_COMPOUND) {
		struct cmabuf_info info;
		char area[64];

		ASSERT_EQ(0, cmabuf_get_info(dev, &info, area, sizeof(area)));
		if (cmabuf_strategy_supported(&info, variant->strategy) &&
		    !cmabuf_compound_fits(&info, variant->size))
			SKIP(return, "%llu MiB is outside COMPOUND's orders %u..%u on %s",
			     (unsigned long long)variant->size >> 20,
			     info.min_compound_order, info.max_compound_order,
			     area);
	}
	ret = buffer_alloc(dev, variant->heap, variant->strategy,
			   variant->size, &self->buf);
	if (ret == ENOENT && variant->heap)
		SKIP(return, "no dma-heap %s on this kernel", variant->heap);
	if (ret == EOPNOTSUPP)
		SKIP(return, "%s is not on this kernel",
		     cmabuf_strategy_name(variant->strategy));
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, cmabuf_phys(dev, self->buf, &self->phys));
	self->map = mmap(NULL, self->size, PROT_READ | PROT_WRITE, MAP_SHARED,
			 self->buf, 0);
	ASSERT_NE(MAP_FAILED, self->map);

	ASSERT_EQ(0, edu_attach(self->edu.fd, self->buf, &self->handle));
	ASSERT_EQ(0, edu_map(self->edu.fd, self->handle, &self->m));
}

FIXTURE_TEARDOWN(edu_data)
{
	if (self->handle)
		EXPECT_EQ(0, edu_detach(self->edu.fd, self->handle, 0));
	if (self->map != MAP_FAILED)
		munmap(self->map, self->size);
	if (self->buf >= 0)
		close(self->buf);
	edu_close(&self->edu);
	state_end(_metadata, &self->st);
}

/*
 * The mapping the device got: segments within its limits covering the
 * buffer, at DMA addresses that are not the physical ones, and no struct
 * page in it where CONFIG_DMABUF_DEBUG hides them.
 */
TEST_F_TIMEOUT(edu_data, mapping_fits_the_device, TIMEOUT)
{
	const struct cmabuf_edu_info *info = &self->edu.info;
	const struct cmabuf_edu_map *m = &self->m;

	TH_LOG("%s, %zu MiB: physical %#llx, DMA %#llx (%u-bit device), %u segments, longest %u",
	       self->edu.pci, self->size >> 20,
	       (unsigned long long)self->phys.phys,
	       (unsigned long long)m->dma_addr, info->dma_bits,
	       m->dma_segments, m->longest);
	EXPECT_EQ(0U, m->violations);
	EXPECT_EQ(self->size, m->dma_total);
	EXPECT_LE(m->longest, info->max_seg_size);
	EXPECT_LE(self->size / info->max_seg_size, (__u64)m->dma_segments);
	EXPECT_NE(self->phys.phys, m->dma_addr);
	EXPECT_EQ((__u32)kernel_is_debug(), m->pages_hidden);
	if (path_is_bounce()) {
		EXPECT_EQ(CMABUF_EDU_INFO_BOUNCE, info->flags);
		EXPECT_LE((__u64)m->longest, info->max_mapping_size);
	} else {
		EXPECT_EQ(CMABUF_EDU_INFO_IOMMU, info->flags);
		/* The physical address does not fit the mask, this does. */
		if (info->dma_bits < 64)
			EXPECT_LE(m->dma_addr + self->size,
				  1ULL << info->dma_bits);
	}
}

/**
 * struct pair - a copy the device is asked to make
 * @src: where the CPU writes the region.
 * @dst: where the device is told to put it.
 * @what: which place of the buffer this is.
 */
struct pair {
	__u64 src;
	__u64 dst;
	const char *what;
};

static bool overlaps(__u64 a, __u64 b)
{
	return a < b + LEN + GUARD && b < a + LEN + GUARD;
}

/* Is @off clear of every region of @p[0..@n)? */
static bool clear_of(const struct pair *p, int n, __u64 off)
{
	int i;

	for (i = 0; i < n; i++)
		if (overlaps(off, p[i].src) || overlaps(off, p[i].dst))
			return false;
	return true;
}

/*
 * The places of the issue: start and end, across 64 KiB (a segment of a
 * PCI device) and 2 MiB boundaries, backwards across 1 MiB, and random
 * offsets of any alignment.
 */
static void make_pairs(struct pair *p, __u64 size, __u64 seed)
{
	struct rel_rng rng = { .state = seed };
	int i = 0, n;

	p[i++] = (struct pair){ 0, size - LEN, "start to end" };
	p[i++] = (struct pair){ 3 * SZ_64K - LEN / 2,
				size - 3 * SZ_64K - LEN / 2, "across 64 KiB" };
	p[i++] = (struct pair){ 2 * SZ_2M - LEN / 2,
				size - 2 * SZ_2M - LEN / 2, "across 2 MiB" };
	p[i++] = (struct pair){ size - SZ_1M - LEN / 2, SZ_1M - LEN / 2,
				"back across 1 MiB" };
	for (n = 0; n < RANDOM_PAIRS; n++, i++) {
		p[i].what = "random";
		do
			p[i].src = rel_below(&rng, size - LEN);
		while (!clear_of(p, i, p[i].src));
		do
			p[i].dst = rel_below(&rng, size - LEN);
		while (!clear_of(p, i, p[i].dst) || overlaps(p[i].src, p[i].dst));
	}
}

TEST_F_TIMEOUT(edu_data, device_copies_where_told, TIMEOUT)
{
	__u64 seed = rel_seed_default();
	unsigned char got[LEN];
	struct cmabuf_edu_dma dma;
	struct pair p[PAIRS];
	int i;

	TH_LOG("seed %llu", (unsigned long long)seed);
	make_pairs(p, self->size, seed);

	ASSERT_EQ(0, dmabuf_sync(self->buf, DMA_BUF_SYNC_START));
	for (i = 0; i < PAIRS; i++)
		bytes_fill(self->map + p[i].src, LEN, seed + i);
	ASSERT_EQ(0, dmabuf_sync(self->buf, DMA_BUF_SYNC_END));

	for (i = 0; i < PAIRS; i++) {
		ASSERT_EQ(0, edu_copy(self->edu.fd, self->handle, self->m.map,
				      p[i].src, p[i].dst, LEN, &dma));
		TH_LOG("%s: %#llx -> %#llx, from DMA %#llx, %u transfers",
		       p[i].what, (unsigned long long)p[i].src,
		       (unsigned long long)p[i].dst,
		       (unsigned long long)dma.dma_addr, dma.transfers);
	}

	/* Through mmap: each region where it was sent, and nothing around. */
	ASSERT_EQ(0, dmabuf_sync(self->buf, DMA_BUF_SYNC_START));
	for (i = 0; i < PAIRS; i++) {
		EXPECT_EQ(0U, bytes_mismatch(self->map + p[i].dst, LEN, seed + i))
			TH_LOG("%s: destination %#llx", p[i].what,
			       (unsigned long long)p[i].dst);
		EXPECT_EQ(0U, bytes_mismatch(self->map + p[i].src, LEN, seed + i));
		EXPECT_TRUE(p[i].dst < GUARD ||
			    zeroed(self->map + p[i].dst - GUARD, GUARD));
		EXPECT_TRUE(p[i].dst + LEN + GUARD > self->size ||
			    zeroed(self->map + p[i].dst + LEN, GUARD));
	}
	ASSERT_EQ(0, dmabuf_sync(self->buf, DMA_BUF_SYNC_END));

	/* Through the kernel's mapping, as the importing driver sees it. */
	for (i = 0; i < PAIRS; i++) {
		ASSERT_EQ(0, edu_vread(self->edu.fd, self->handle, p[i].dst,
				       got, LEN));
		EXPECT_EQ(0U, bytes_mismatch(got, LEN, seed + i))
			TH_LOG("%s, through vmap", p[i].what);
	}
}

/* ---- edu_misuse ---- */

/**
 * struct misuse - what a misuse test works with
 * @st: the state to leave as found.
 * @narrow: the edu device with the narrowest DMA mask.
 * @wide: the one with the widest.
 * @buf: the buffer, -1 before misuse_setup().
 * @map: its mapping.
 * @size: its size.
 * @pci_unbound: the device the test unbound, to bind again if it stopped.
 */
struct misuse {
	struct dma_state st;
	struct edu_dev narrow;
	struct edu_dev wide;
	int buf;
	unsigned char *map;
	size_t size;
	char pci_unbound[PCI_NAME_MAX];
};

FIXTURE(edu_misuse) {
	struct misuse m;
};

FIXTURE_SETUP(edu_misuse)
{
	self->m.buf = -1;
	self->m.map = MAP_FAILED;
	self->m.narrow.fd = -1;
	self->m.wide.fd = -1;
	self->m.st.dev[0] = -1;
	self->m.st.dev[1] = -1;
	state_begin(_metadata, &self->m.st);
	edu_pick(_metadata, true, &self->m.narrow);
	edu_pick(_metadata, false, &self->m.wide);
}

FIXTURE_TEARDOWN(edu_misuse)
{
	/* A test that stopped half-way must not leave the device unbound. */
	if (self->m.pci_unbound[0])
		pci_driver_bind(EDU_DRIVER, self->m.pci_unbound, true);
	if (self->m.map != MAP_FAILED)
		munmap(self->m.map, self->m.size);
	if (self->m.buf >= 0)
		close(self->m.buf);
	edu_close(&self->m.narrow);
	edu_close(&self->m.wide);
	state_end(_metadata, &self->m.st);
}

/*
 * The device a misuse is tried on: through the SMMU the 28-bit one, whose
 * 256 MiB of IOVA space (less page 0, the SMMU's MSI window at 128 MiB and
 * the driver's page) hold five 32 MiB mappings, so that leaked mappings
 * show, within ROUNDS, as a failure to map; through swiotlb the wide one,
 * with 16 MiB, and a leak shows in swiotlb's count of slots in use.
 */
static struct edu_dev *misuse_setup(struct __test_metadata *_metadata,
				    struct misuse *m)
{
	m->size = path_is_bounce() ? SZ_16M : SZ_32M;
	ASSERT_EQ(0, buffer_alloc(m->st.dev[0], NULL, CMABUF_STRATEGY_AUTO,
				  m->size, &m->buf));
	m->map = mmap(NULL, m->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      m->buf, 0);
	ASSERT_NE(MAP_FAILED, m->map);
	return path_is_bounce() ? &m->wide : &m->narrow;
}

/*
 * Through the SMMU, a 1 GiB buffer does not fit the 28-bit device's
 * addresses: mapping it fails cleanly, and the same buffer maps for the
 * wide device. Through swiotlb, the DMA API refuses the 28-bit mask at
 * probe (RAM starts at 1 GiB), and every use of the device fails with it.
 */
TEST_F_TIMEOUT(edu_misuse, mask_too_small_is_refused, TIMEOUT)
{
	struct cmabuf_edu_map m;
	__u32 narrow, wide;
	int buf;

	if (path_is_bounce()) {
		EXPECT_EQ(-EIO, self->m.narrow.info.dma_error);
		ASSERT_EQ(0, buffer_alloc(self->m.st.dev[0], NULL,
					  CMABUF_STRATEGY_AUTO, SZ_4K, &buf));
		EXPECT_EQ(EIO, edu_attach(self->m.narrow.fd, buf, &narrow));
		close(buf);
		return;
	}
	ASSERT_EQ(0, buffer_alloc(self->m.st.dev[1], NULL, CMABUF_STRATEGY_AUTO,
				  SZ_1G, &buf));
	ASSERT_EQ(0, edu_attach(self->m.narrow.fd, buf, &narrow));
	EXPECT_EQ(ENOMEM, edu_map(self->m.narrow.fd, narrow, &m))
		TH_LOG("a 1 GiB mapping in a %u-bit space",
		       self->m.narrow.info.dma_bits);
	ASSERT_EQ(0, edu_attach(self->m.wide.fd, buf, &wide));
	EXPECT_EQ(0, edu_map(self->m.wide.fd, wide, &m));
	EXPECT_EQ(0, edu_detach(self->m.wide.fd, wide, 0));
	EXPECT_EQ(0, edu_detach(self->m.narrow.fd, narrow, 0));
	close(buf);
}

/*
 * Two live mappings of one attachment, each with its own DMA addresses
 * that the device can use, and both unmapped: again and again, without
 * running out of addresses or bounce slots.
 */
TEST_F_TIMEOUT(edu_misuse, mapping_twice_leaks_nothing, TIMEOUT)
{
	struct edu_dev *edu = misuse_setup(_metadata, &self->m);
	unsigned long long swiotlb = counter(SWIOTLB_USED);
	struct cmabuf_edu_map m[2];
	struct cmabuf_edu_dma dma;
	unsigned char got[LEN];
	int round, i;
	__u32 h;

	ASSERT_EQ(0, dmabuf_sync(self->m.buf, DMA_BUF_SYNC_START));
	bytes_fill(self->m.map, LEN, 1);
	ASSERT_EQ(0, dmabuf_sync(self->m.buf, DMA_BUF_SYNC_END));
	ASSERT_EQ(0, edu_attach(edu->fd, self->m.buf, &h));
	for (round = 0; round < ROUNDS; round++) {
		/* ASSERT_*() is two statements: a loop body needs braces. */
		for (i = 0; i < 2; i++) {
			ASSERT_EQ(0, edu_map(edu->fd, h, &m[i]))
				TH_LOG("round %d, mapping %d", round, i);
		}
		EXPECT_NE(m[0].dma_addr, m[1].dma_addr);
		/* Each mapping is the device's: it reads back what it wrote. */
		for (i = 0; !round && i < 2; i++) {
			ASSERT_EQ(0, edu_copy(edu->fd, h, m[i].map, 0,
					      (i + 1) * SZ_1M, LEN, &dma));
			ASSERT_EQ(0, edu_read(edu->fd, h, m[i].map,
					      (i + 1) * SZ_1M, got, LEN));
			EXPECT_EQ(0U, bytes_mismatch(got, LEN, 1));
		}
		ASSERT_EQ(0, edu_unmap(edu->fd, h, m[0].map));
		ASSERT_EQ(0, edu_unmap(edu->fd, h, m[1].map));
		EXPECT_EQ(swiotlb, counter(SWIOTLB_USED)) TH_LOG("round %d", round);
	}
	EXPECT_EQ(0, edu_detach(edu->fd, h, 0));
}

/*
 * A driver that detaches with its mappings live: cmabuf unmaps them, so
 * that after doing it again and again mappings still fit. Not on the
 * debug kernel: with CONFIG_DMABUF_DEBUG the dma-buf core hands the
 * importer a copy of each table, which only dma_buf_unmap_attachment()
 * frees, so the importer's misuse leaks it there whatever the exporter
 * does (kmemleak, last, would report it).
 */
TEST_F_TIMEOUT(edu_misuse, detach_while_mapped_unwinds, TIMEOUT)
{
	struct edu_dev *edu;
	unsigned long long swiotlb = counter(SWIOTLB_USED);
	struct cmabuf_edu_map m;
	int round, i;
	__u32 h;

	if (kernel_is_debug())
		SKIP(return, "DMABUF_DEBUG: the core's copies of the tables leak");
	edu = misuse_setup(_metadata, &self->m);
	for (round = 0; round < ROUNDS; round++) {
		ASSERT_EQ(0, edu_attach(edu->fd, self->m.buf, &h));
		for (i = 0; i < 2; i++) {
			ASSERT_EQ(0, edu_map(edu->fd, h, &m))
				TH_LOG("round %d, mapping %d", round, i);
		}
		EXPECT_EQ(0, edu_detach(edu->fd, h, CMABUF_EDU_DETACH_MAPPED));
		EXPECT_EQ(swiotlb, counter(SWIOTLB_USED)) TH_LOG("round %d", round);
	}
	ASSERT_EQ(0, edu_attach(edu->fd, self->m.buf, &h));
	EXPECT_EQ(0, edu_map(edu->fd, h, &m));
	EXPECT_EQ(0, edu_map(edu->fd, h, &m));
	EXPECT_EQ(0, edu_detach(edu->fd, h, 0));
}

/*
 * The device unbound from its driver while it has the buffer attached
 * and mapped: the driver lets go of everything, the buffer stays whole
 * for its other users, and the device works again once bound.
 */
TEST_F_TIMEOUT(edu_misuse, unbind_while_mapped_unwinds, TIMEOUT)
{
	struct edu_dev *edu = misuse_setup(_metadata, &self->m);
	unsigned long long swiotlb = counter(SWIOTLB_USED);
	struct cmabuf_edu_info info;
	struct cmabuf_edu_map m;
	unsigned char got[LEN];
	char path[PCI_NAME_MAX + sizeof(CMABUF_EDU_DEV_PREFIX)];
	__u32 mapped, attached;
	char pci[PCI_NAME_MAX];

	ASSERT_EQ(0, dmabuf_sync(self->m.buf, DMA_BUF_SYNC_START));
	bytes_fill(self->m.map, LEN, 2);
	ASSERT_EQ(0, dmabuf_sync(self->m.buf, DMA_BUF_SYNC_END));
	ASSERT_EQ(0, edu_attach(edu->fd, self->m.buf, &mapped));
	ASSERT_EQ(0, edu_map(edu->fd, mapped, &m));
	ASSERT_EQ(0, edu_attach(edu->fd, self->m.buf, &attached));

	snprintf(pci, sizeof(pci), "%s", edu->pci);
	ASSERT_EQ(0, pci_driver_bind(EDU_DRIVER, pci, false));
	snprintf(self->m.pci_unbound, sizeof(self->m.pci_unbound), "%s", pci);
	EXPECT_EQ(ENODEV, edu_ioctl(edu->fd, CMABUF_EDU_IOC_INFO, &info));
	EXPECT_EQ(ENODEV, edu_attach(edu->fd, self->m.buf, &mapped));
	snprintf(path, sizeof(path), CMABUF_EDU_DEV_PREFIX "%s", pci);
	EXPECT_NE(0, access(path, F_OK)) TH_LOG("%s is still there", path);
	EXPECT_EQ(swiotlb, counter(SWIOTLB_USED));
	edu_close(edu);

	ASSERT_EQ(0, dmabuf_sync(self->m.buf, DMA_BUF_SYNC_START));
	EXPECT_EQ(0U, bytes_mismatch(self->m.map, LEN, 2));
	ASSERT_EQ(0, dmabuf_sync(self->m.buf, DMA_BUF_SYNC_END));

	ASSERT_EQ(0, pci_driver_bind(EDU_DRIVER, pci, true));
	self->m.pci_unbound[0] = '\0';
	ASSERT_EQ(0, edu_open(pci, edu));
	ASSERT_EQ(0, edu_attach(edu->fd, self->m.buf, &mapped));
	ASSERT_EQ(0, edu_map(edu->fd, mapped, &m));
	ASSERT_EQ(0, edu_read(edu->fd, mapped, m.map, 0, got, LEN));
	EXPECT_EQ(0U, bytes_mismatch(got, LEN, 2));
	EXPECT_EQ(0, edu_detach(edu->fd, mapped, 0));
}

/* ---- edu_bounce ---- */

FIXTURE(edu_bounce) {
	struct dma_state st;
	struct edu_dev edu;
	int buf;
	unsigned char *map;
	__u32 handle;
	struct cmabuf_edu_map m;
};

FIXTURE_SETUP(edu_bounce)
{
	unsigned long long before;

	self->buf = -1;
	self->map = MAP_FAILED;
	self->edu.fd = -1;
	self->st.dev[0] = -1;
	self->st.dev[1] = -1;
	if (!path_is_bounce())
		SKIP(return, "the guest was not booted with swiotlb=force");
	state_begin(_metadata, &self->st);
	edu_pick(_metadata, false, &self->edu);
	ASSERT_EQ(0, buffer_alloc(self->st.dev[0], NULL, CMABUF_STRATEGY_AUTO,
				  SZ_16M, &self->buf));
	self->map = mmap(NULL, SZ_16M, PROT_READ | PROT_WRITE, MAP_SHARED,
			 self->buf, 0);
	ASSERT_NE(MAP_FAILED, self->map);
	ASSERT_EQ(0, edu_attach(self->edu.fd, self->buf, &self->handle));
	before = counter(SWIOTLB_USED);
	ASSERT_EQ(0, edu_map(self->edu.fd, self->handle, &self->m));
	/* The whole buffer is in bounce slots of 2 KiB while mapped. */
	ASSERT_LE(before + SZ_16M / 2048, counter(SWIOTLB_USED));
}

FIXTURE_TEARDOWN(edu_bounce)
{
	if (self->handle)
		EXPECT_EQ(0, edu_detach(self->edu.fd, self->handle, 0));
	if (self->map != MAP_FAILED)
		munmap(self->map, SZ_16M);
	if (self->buf >= 0)
		close(self->buf);
	edu_close(&self->edu);
	state_end(_metadata, &self->st);
}

/* Across a 64 KiB segment: two bounce buffers. */
#define BOUNCE_OFF	(SZ_64K - LEN / 2)

/*
 * The device writes into its bounce buffer: the CPU sees the old data
 * until DMA_BUF_SYNC_START copies it back, and sees it then.
 */
TEST_F_TIMEOUT(edu_bounce, device_writes_need_sync_start, TIMEOUT)
{
	unsigned char data[LEN], got[LEN];

	ASSERT_EQ(0, dmabuf_sync(self->buf, DMA_BUF_SYNC_START));
	bytes_fill(self->map + BOUNCE_OFF, LEN, 10);
	ASSERT_EQ(0, dmabuf_sync(self->buf, DMA_BUF_SYNC_END));

	bytes_fill(data, LEN, 11);
	ASSERT_EQ(0, edu_write(self->edu.fd, self->handle, self->m.map,
			       BOUNCE_OFF, data, LEN));
	EXPECT_EQ(0U, bytes_mismatch(self->map + BOUNCE_OFF, LEN, 10))
		TH_LOG("the device's write showed before DMA_BUF_SYNC_START");

	ASSERT_EQ(0, dmabuf_sync(self->buf, DMA_BUF_SYNC_START));
	EXPECT_EQ(0U, bytes_mismatch(self->map + BOUNCE_OFF, LEN, 11));
	ASSERT_EQ(0, dmabuf_sync(self->buf, DMA_BUF_SYNC_END));

	/* The kernel's CPU access brackets sync the same way. */
	ASSERT_EQ(0, edu_vread(self->edu.fd, self->handle, BOUNCE_OFF, got,
			       LEN));
	EXPECT_EQ(0U, bytes_mismatch(got, LEN, 11));
}

/*
 * The CPU writes into the buffer: the device reads the old data from its
 * bounce buffer until DMA_BUF_SYNC_END copies the new data there.
 */
TEST_F_TIMEOUT(edu_bounce, cpu_writes_need_sync_end, TIMEOUT)
{
	unsigned char got[LEN];

	ASSERT_EQ(0, dmabuf_sync(self->buf, DMA_BUF_SYNC_START));
	bytes_fill(self->map + BOUNCE_OFF, LEN, 12);

	ASSERT_EQ(0, edu_read(self->edu.fd, self->handle, self->m.map,
			      BOUNCE_OFF, got, LEN));
	EXPECT_TRUE(zeroed(got, LEN))
		TH_LOG("the CPU's write reached the device before DMA_BUF_SYNC_END");

	ASSERT_EQ(0, dmabuf_sync(self->buf, DMA_BUF_SYNC_END));
	ASSERT_EQ(0, edu_read(self->edu.fd, self->handle, self->m.map,
			      BOUNCE_OFF, got, LEN));
	EXPECT_EQ(0U, bytes_mismatch(got, LEN, 12));
}

/* The test importer's pattern words, as CMABUF_IMPORTER_IOC_CHECK reads. */
static void importer_pattern_fill(unsigned char *map, size_t len, __u64 seed)
{
	size_t off;

	for (off = 0; off + sizeof(__u64) <= len;
	     off += CMABUF_IMPORTER_PATTERN_STRIDE)
		*(__u64 *)(map + off) = cmabuf_importer_pattern(seed, off);
}

/*
 * An importer without a segment limit of its own still gets segments
 * swiotlb can bounce (dma_max_mapping_size(), 256 KiB): one entry of the
 * whole buffer would fail to map.
 */
TEST_F_TIMEOUT(edu_bounce, importer_without_limits_is_cut_for_swiotlb, TIMEOUT)
{
	const __u64 size = 4 * SZ_1M;
	struct cmabuf_importer_check chk = { 0 };
	unsigned char *map;
	int imp, buf;

	imp = open(IMPORTER_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, imp) TH_LOG("%s absent: is the importer loaded?",
				 IMPORTER_DEV);
	ASSERT_EQ(0, buffer_alloc(self->st.dev[0], NULL, CMABUF_STRATEGY_AUTO,
				  size, &buf));
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, buf, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, dmabuf_sync(buf, DMA_BUF_SYNC_START));
	importer_pattern_fill(map, size, 13);
	ASSERT_EQ(0, dmabuf_sync(buf, DMA_BUF_SYNC_END));

	chk.fd = buf;
	chk.flags = CMABUF_IMPORTER_CHECK_VERIFY;
	chk.seed_in = 13;
	ASSERT_EQ(0, edu_ioctl(imp, CMABUF_IMPORTER_IOC_CHECK, &chk));
	TH_LOG("4 MiB for the importer: %u segments, first %llu bytes",
	       chk.dma_segments, (unsigned long long)chk.dma_len);
	EXPECT_EQ((__u32)CMABUF_IMPORTER_STEP_NONE, chk.failed_step)
		TH_LOG("step %u failed: %d", chk.failed_step, chk.error);
	EXPECT_EQ(0ULL, chk.mismatches);
	EXPECT_EQ(size, chk.dma_total);
	EXPECT_LE(size / (256 * 1024), (__u64)chk.dma_segments);
	munmap(map, size);
	close(buf);
	close(imp);
}

/* ---- reach ---- */

#define IMPORTER32_DEV	"/dev/cmabuf_importer32"
#define LARGE_INST	"cmabuf-large"
#define GENERAL_INST	"cmabuf-general"
/* A refusal's words in the kernel log (cmabuf_reach_warn()). */
#define REFUSAL_TEXT	"beyond this device's DMA mask"
/* Refusals in a row; the log tells one per rate-limit interval (5 s). */
#define REFUSALS	20
#define RATELIMIT_WAIT	6

/* CMABUF_IMPORTER_IOC_CHECK of @buf on @imp, verifying @seed if not 0. */
static int importer_check(int imp, int buf, __u64 seed,
			  struct cmabuf_importer_check *chk)
{
	memset(chk, 0, sizeof(*chk));
	chk->fd = buf;
	if (seed) {
		chk->flags = CMABUF_IMPORTER_CHECK_VERIFY;
		chk->seed_in = seed;
	}
	return edu_ioctl(imp, CMABUF_IMPORTER_IOC_CHECK, chk);
}

/* An instance's count of refused mappings, in @group ("stats"). */
static unsigned long long unreachable(const char *inst, const char *group)
{
	unsigned long long v = ~0ULL;

	rel_stat_read(inst, group, "unreachable_maps", &v);
	return v;
}

static const char *strategy_group(__u32 strategy)
{
	return cmabuf_stat_group(strategy) ?: "stats";
}

FIXTURE(reach) {
	struct dma_state st;
	int imp32;
	int kmsg;
	int buf;
	struct cmabuf_alloc_data data;
};

FIXTURE_SETUP(reach)
{
	self->buf = -1;
	self->kmsg = -1;
	self->st.dev[0] = -1;
	self->st.dev[1] = -1;
	self->imp32 = open(IMPORTER32_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->imp32) TH_LOG("%s absent: is the importer loaded?",
					 IMPORTER32_DEV);
	state_begin(_metadata, &self->st);
	self->kmsg = kmsg_open();
	ASSERT_LE(0, self->kmsg) TH_LOG("/dev/kmsg: %s", strerror(errno));
}

FIXTURE_TEARDOWN(reach)
{
	if (self->buf >= 0)
		close(self->buf);
	if (self->kmsg >= 0)
		close(self->kmsg);
	if (self->imp32 >= 0)
		close(self->imp32);
	state_end(_metadata, &self->st);
}

/*
 * A buffer of @size from the large (1) or the general (0) instance of
 * @st, into @data and @buf.
 */
static void reach_alloc(struct __test_metadata *_metadata,
			const struct dma_state *st, bool large, __u64 size,
			struct cmabuf_alloc_data *data, int *buf)
{
	ASSERT_EQ(0, cmabuf_alloc(st->dev[large], size, CMABUF_STRATEGY_AUTO,
				  data));
	*buf = data->fd;
}

/*
 * A device without an IOMMU whose mask is 32 bits cannot map a buffer
 * above 4 GiB: ERANGE, counted for the instance and the buffer's strategy,
 * and one line in the kernel log naming the device, the mask and the
 * instance that would do, one whose area lies below 4 GiB.
 */
TEST_F_TIMEOUT(reach, large_buffer_refused_for_32bit_device, TIMEOUT)
{
	const char *group;
	unsigned long long all, strat, bits = 0;
	struct cmabuf_importer_check chk;
	char line[1024], inst[64];
	const char *p;
	size_t n;

	reach_alloc(_metadata, &self->st, true, SZ_2M, &self->data, &self->buf);
	/* Past any refusal told before: this one is told. */
	sleep(RATELIMIT_WAIT);
	group = strategy_group(self->data.strategy);
	all = unreachable(LARGE_INST, "stats");
	strat = unreachable(LARGE_INST, group);

	ASSERT_EQ(0, importer_check(self->imp32, self->buf, 0, &chk));
	EXPECT_EQ((__u32)CMABUF_IMPORTER_STEP_MAP, chk.failed_step);
	EXPECT_EQ(-ERANGE, chk.error);
	EXPECT_TRUE(!!(chk.steps_done &
		       CMABUF_IMPORTER_STEP_BIT(CMABUF_IMPORTER_STEP_DETACH)));

	EXPECT_EQ(all + 1, unreachable(LARGE_INST, "stats"));
	EXPECT_EQ(strat + 1, unreachable(LARGE_INST, group)) TH_LOG("%s", group);
	EXPECT_EQ(1U, kmsg_count(self->kmsg, "cmabuf_importer32", REFUSAL_TEXT,
				 line, sizeof(line)));
	TH_LOG("%s", line);
	EXPECT_NE(NULL, strstr(line, "a " LARGE_INST " buffer ends at 0x"));
	EXPECT_NE(NULL, strstr(line, "DMA mask 0xffffffff"));
	p = strstr(line, "allocate from /dev/");
	ASSERT_NE(NULL, p) TH_LOG("no instance named");
	p += strlen("allocate from /dev/");
	n = strcspn(p, "\t\n ");
	ASSERT_GT(sizeof(inst), n);
	memcpy(inst, p, n);
	inst[n] = '\0';
	ASSERT_EQ(0, rel_stat_read(inst, ".", "dma_bits", &bits));
	EXPECT_LE(1ULL, bits);
	EXPECT_GE(32ULL, bits) TH_LOG("%s reaches up to %llu bits", inst, bits);
}

/* Every refusal is counted; the log tells the first of an interval. */
TEST_F_TIMEOUT(reach, refusals_counted_log_rate_limited, TIMEOUT)
{
	struct cmabuf_importer_check chk;
	unsigned long long all;
	unsigned int lines;
	int i;

	reach_alloc(_metadata, &self->st, true, SZ_2M, &self->data, &self->buf);
	sleep(RATELIMIT_WAIT);
	all = unreachable(LARGE_INST, "stats");
	for (i = 0; i < REFUSALS; i++) {
		ASSERT_EQ(0, importer_check(self->imp32, self->buf, 0, &chk));
		ASSERT_EQ(-ERANGE, chk.error) TH_LOG("refusal %d", i);
	}
	EXPECT_EQ(all + REFUSALS, unreachable(LARGE_INST, "stats"));
	lines = kmsg_count(self->kmsg, "cmabuf_importer32", REFUSAL_TEXT,
			   NULL, 0);
	TH_LOG("%d refusals, %u lines in the kernel log", REFUSALS, lines);
	EXPECT_EQ(1U, lines);
}

/*
 * The same device maps a buffer below 4 GiB, and reads and writes it
 * through the kernel's mapping: directly, or bounced where swiotlb=force
 * says so, as before the check.
 */
TEST_F_TIMEOUT(reach, general_buffer_maps_for_32bit_device, TIMEOUT)
{
	const __u64 size = 4 * SZ_1M;
	struct cmabuf_importer_check chk;
	unsigned long long all;
	unsigned char *map;

	reach_alloc(_metadata, &self->st, false, size, &self->data, &self->buf);
	all = unreachable(GENERAL_INST, "stats");
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, self->buf, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, dmabuf_sync(self->buf, DMA_BUF_SYNC_START));
	importer_pattern_fill(map, size, 21);
	ASSERT_EQ(0, dmabuf_sync(self->buf, DMA_BUF_SYNC_END));
	munmap(map, size);

	ASSERT_EQ(0, importer_check(self->imp32, self->buf, 21, &chk));
	EXPECT_EQ((__u32)CMABUF_IMPORTER_STEP_NONE, chk.failed_step)
		TH_LOG("step %u failed: %d", chk.failed_step, chk.error);
	EXPECT_EQ(size / CMABUF_IMPORTER_PATTERN_STRIDE, chk.words_checked);
	EXPECT_EQ(0ULL, chk.mismatches);
	EXPECT_EQ(size, chk.dma_total);
	if (!path_is_bounce())
		EXPECT_GE(0x100000000ULL, chk.dma_addr + chk.dma_total);
	EXPECT_EQ(all, unreachable(GENERAL_INST, "stats"));
	EXPECT_EQ(0U, kmsg_count(self->kmsg, "cmabuf_importer32", REFUSAL_TEXT,
				 NULL, 0));
}

/*
 * A buffer above 4 GiB goes to a device that reaches it: through the SMMU
 * even the 28-bit one, whose addresses the IOMMU gives; through swiotlb
 * the 40-bit one, whose mask reaches it, bounced as the policy wants.
 */
TEST_F_TIMEOUT(reach, large_buffer_maps_where_the_device_reaches, TIMEOUT)
{
	const __u64 size = 16 * SZ_1M, src = SZ_1M - LEN / 2;
	const __u64 dst = size - SZ_1M - LEN / 2;
	struct cmabuf_edu_map m;
	struct cmabuf_edu_dma dma;
	unsigned long long all;
	struct edu_dev edu = { .fd = -1 };
	unsigned char *map;
	__u32 h;

	reach_alloc(_metadata, &self->st, true, size, &self->data, &self->buf);
	all = unreachable(LARGE_INST, "stats");
	edu_pick(_metadata, !path_is_bounce(), &edu);
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, self->buf, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, edu_attach(edu.fd, self->buf, &h));
	ASSERT_EQ(0, edu_map(edu.fd, h, &m))
		TH_LOG("%u-bit device", edu.info.dma_bits);

	ASSERT_EQ(0, dmabuf_sync(self->buf, DMA_BUF_SYNC_START));
	bytes_fill(map + src, LEN, 23);
	ASSERT_EQ(0, dmabuf_sync(self->buf, DMA_BUF_SYNC_END));
	ASSERT_EQ(0, edu_copy(edu.fd, h, m.map, src, dst, LEN, &dma));
	ASSERT_EQ(0, dmabuf_sync(self->buf, DMA_BUF_SYNC_START));
	EXPECT_EQ(0U, bytes_mismatch(map + dst, LEN, 23));
	ASSERT_EQ(0, dmabuf_sync(self->buf, DMA_BUF_SYNC_END));
	TH_LOG("%u-bit device, DMA address %#llx", edu.info.dma_bits,
	       (unsigned long long)m.dma_addr);

	EXPECT_EQ(0, edu_detach(edu.fd, h, 0));
	munmap(map, size);
	edu_close(&edu);
	EXPECT_EQ(all, unreachable(LARGE_INST, "stats"));
}

/* ---- cpu_access ---- */

#define CPU_SIZE	SZ_1M
/* The test importer's device, as the DMA API's trace events name it. */
#define IMPORTER_NAME	"cmabuf_importer"
/* Enough for every event a test here makes. */
#define TRACE_LEN	0x100000U

/*
 * What the DMA API's trace events show of CPU access: with no importer
 * mapping live, the instance's own device syncs (where it is not
 * coherent and does not bounce, as INFO says) once PHYS gave the buffer's
 * address out, which the fixture's buffer has; with a mapping, the
 * importer's mapping does; and a range syncs only its bytes.
 */
/**
 * struct cpu_access - what a cpu_access test works with
 * @st: the state to leave as found.
 * @inst: the general instance's device, as the trace events name it.
 * @syncs: INFO says that device maintains the caches.
 * @arch: the function tracer also shows the architecture's cache
 *	maintenance calls (trace_arch_start()).
 * @trace: the events, %TRACE_LEN bytes.
 * @buf: a buffer of %CPU_SIZE from the general instance.
 * @imp: the test importer.
 * @hold: its handle of @buf while it holds it mapped, else 0.
 */
struct cpu_access {
	struct dma_state st;
	char inst[64];
	bool syncs;
	bool arch;
	char *trace;
	int buf;
	int imp;
	__u32 hold;
};

FIXTURE(cpu_access) {
	struct cpu_access c;
};

FIXTURE_SETUP(cpu_access)
{
	struct cmabuf_alloc_data data;
	struct cmabuf_phys phys;
	struct cmabuf_info info;
	int ret;

	self->c.buf = -1;
	self->c.imp = -1;
	self->c.st.dev[0] = -1;
	self->c.st.dev[1] = -1;
	self->c.trace = malloc(TRACE_LEN);
	ASSERT_NE(NULL, self->c.trace);
	if (!trace_available())
		SKIP(return, "no tracefs");
	if (!trace_dma_events())
		SKIP(return, "no DMA API trace events in this kernel (events/dma: 6.1 lacks them)");
	ret = trace_start();
	ASSERT_EQ(0, ret) TH_LOG("tracefs: %s", strerror(ret));
	ret = trace_arch_start();
	self->c.arch = !ret;
	if (ret)
		TH_LOG("no function tracer on %s, %s (%s): DMA API events only",
		       ARCH_CLEAN, ARCH_INVAL, strerror(ret));
	state_begin(_metadata, &self->c.st);
	ASSERT_EQ(0, misc_parent_name(GENERAL_INST, self->c.inst,
				      sizeof(self->c.inst)));
	ASSERT_EQ(0, cmabuf_get_info(self->c.st.dev[0], &info, NULL, 0));
	self->c.syncs = info.flags & CMABUF_INFO_CACHE_SYNC;
	TH_LOG("%s's device %s syncs CPU access: %s", GENERAL_INST, self->c.inst,
	       self->c.syncs ? "yes" : "no");
	ASSERT_EQ(0, cmabuf_alloc(self->c.st.dev[0], CPU_SIZE,
				  CMABUF_STRATEGY_AUTO, &data));
	self->c.buf = data.fd;
	/* Handed out, as to a device driven from it: the instance syncs. */
	ASSERT_EQ(0, cmabuf_phys(self->c.st.dev[0], self->c.buf, &phys));
	ASSERT_EQ(0, trace_take(self->c.trace, TRACE_LEN));
	self->c.imp = open(IMPORTER_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->c.imp)
		TH_LOG("%s absent: is the importer loaded?", IMPORTER_DEV);
}

FIXTURE_TEARDOWN(cpu_access)
{
	struct cmabuf_importer_release rel = { .handle = self->c.hold };

	if (self->c.hold)
		EXPECT_EQ(0, edu_ioctl(self->c.imp, CMABUF_IMPORTER_IOC_RELEASE,
				       &rel));
	if (self->c.imp >= 0)
		close(self->c.imp);
	if (self->c.buf >= 0)
		close(self->c.buf);
	trace_stop();
	free(self->c.trace);
	state_end(_metadata, &self->c.st);
}

/* DMA_BUF_IOCTL_SYNC with exactly @flags. */
static int sync_flags(int buf, __u64 flags)
{
	struct dma_buf_sync sync = { .flags = flags };

	return edu_ioctl(buf, DMA_BUF_IOCTL_SYNC, &sync);
}

/*
 * The test importer holds the buffer as @flags say: mapped
 * (bidirectionally) with CMABUF_IMPORTER_HOLD_MAP, vmapped with _VMAP.
 */
static void cpu_access_hold(struct __test_metadata *_metadata,
			    struct cpu_access *self, __u32 flags)
{
	struct cmabuf_importer_hold hold = {
		.fd = self->buf,
		.flags = flags,
	};

	ASSERT_EQ(0, edu_ioctl(self->imp, CMABUF_IMPORTER_IOC_HOLD, &hold));
	self->hold = hold.handle;
}

/* The test importer lets go of what cpu_access_hold() had it hold. */
static void cpu_access_release(struct __test_metadata *_metadata,
			       struct cpu_access *self)
{
	struct cmabuf_importer_release rel = { .handle = self->hold };

	ASSERT_EQ(0, edu_ioctl(self->imp, CMABUF_IMPORTER_IOC_RELEASE, &rel));
	self->hold = 0;
}

/* The events since the last call, into self->trace. */
static const char *cpu_access_trace(struct __test_metadata *_metadata,
				    struct cpu_access *self)
{
	ASSERT_EQ(0, trace_take(self->trace, TRACE_LEN));
	return self->trace;
}

TEST_F_TIMEOUT(cpu_access, no_importer_syncs_through_the_instance, TIMEOUT)
{
	const char *t;

	cpu_access_trace(_metadata, &self->c);
	ASSERT_EQ(0, sync_flags(self->c.buf, DMA_BUF_SYNC_START |
					   DMA_BUF_SYNC_READ));
	t = cpu_access_trace(_metadata, &self->c);
	EXPECT_EQ((unsigned int)self->c.syncs,
		  trace_count(t, "dma_sync_single_for_cpu", self->c.inst,
			      "FROM_DEVICE", CPU_SIZE)) TH_LOG("%s", t);
	/* Nothing wrote through the CPU meanwhile: no clean before it. */
	EXPECT_EQ(0U, trace_count(t, "dma_sync_single_for_device",
				  self->c.inst, "BIDIRECTIONAL", 0))
		TH_LOG("%s", t);
	ASSERT_EQ(0, sync_flags(self->c.buf, DMA_BUF_SYNC_END |
					   DMA_BUF_SYNC_WRITE));
	t = cpu_access_trace(_metadata, &self->c);
	EXPECT_EQ((unsigned int)self->c.syncs,
		  trace_count(t, "dma_sync_single_for_device", self->c.inst,
			      "TO_DEVICE", CPU_SIZE)) TH_LOG("%s", t);
}

/*
 * An importer that only vmaps the buffer (vb2-vmalloc: its CPU writes the
 * frames) dirties cache lines of the linear alias: START cleans them
 * before it invalidates, else their data would be thrown away. The clean
 * stops with the vmap.
 */
TEST_F_TIMEOUT(cpu_access, vmapping_importer_start_cleans_first, TIMEOUT)
{
	const char *t, *clean, *inval;

	cpu_access_hold(_metadata, &self->c, CMABUF_IMPORTER_HOLD_VMAP);
	cpu_access_trace(_metadata, &self->c);
	ASSERT_EQ(0, sync_flags(self->c.buf, DMA_BUF_SYNC_START |
					   DMA_BUF_SYNC_READ));
	t = cpu_access_trace(_metadata, &self->c);
	EXPECT_EQ((unsigned int)self->c.syncs,
		  trace_count(t, "dma_sync_single_for_device", self->c.inst,
			      "BIDIRECTIONAL", CPU_SIZE)) TH_LOG("%s", t);
	EXPECT_EQ((unsigned int)self->c.syncs,
		  trace_count(t, "dma_sync_single_for_cpu", self->c.inst,
			      "BIDIRECTIONAL", CPU_SIZE)) TH_LOG("%s", t);
	if (self->c.syncs) {
		clean = strstr(t, "dma_sync_single_for_device:");
		inval = strstr(t, "dma_sync_single_for_cpu:");
		ASSERT_NE(NULL, clean);
		ASSERT_NE(NULL, inval);
		EXPECT_LT(clean, inval) TH_LOG("%s", t);
	}

	cpu_access_release(_metadata, &self->c);
	cpu_access_trace(_metadata, &self->c);
	ASSERT_EQ(0, sync_flags(self->c.buf, DMA_BUF_SYNC_START |
					   DMA_BUF_SYNC_READ));
	t = cpu_access_trace(_metadata, &self->c);
	EXPECT_EQ(0U, trace_count(t, "dma_sync_single_for_device",
				  self->c.inst, "BIDIRECTIONAL", 0))
		TH_LOG("%s", t);
	EXPECT_EQ((unsigned int)self->c.syncs,
		  trace_count(t, "dma_sync_single_for_cpu", self->c.inst,
			      "FROM_DEVICE", CPU_SIZE)) TH_LOG("%s", t);
}

/*
 * The review's case (issue 30, item 4): a capture driver whose CPU writes
 * the frames through a vmap (vb2-vmalloc) and a display that imported the
 * buffer DMA_BIDIRECTIONAL (DRM PRIME), here both the test importer, one
 * device that is not coherent (a platform device without a node, on
 * arm64). START must clean the writer's lines through the instance's
 * device before the importer's mapping invalidates, else a CPU whose
 * invalidate discards dirty lines loses the frame. The DMA API's events
 * show the order; with the function tracer, that the clean reached the
 * architecture's arch_sync_dma_for_device() and the invalidate its
 * arch_sync_dma_for_cpu() (the devices are non-coherent). QEMU's TCG
 * keeps memory coherent, so no test here can see lost data: only that the
 * maintenance a non-coherent CPU needs is asked for, in that order.
 */
TEST_F_TIMEOUT(cpu_access, vmap_writer_and_mapping_start_cleans_first,
	       TIMEOUT)
{
	const char *t, *clean, *inval;

	cpu_access_hold(_metadata, &self->c,
			CMABUF_IMPORTER_HOLD_MAP | CMABUF_IMPORTER_HOLD_VMAP);
	cpu_access_trace(_metadata, &self->c);
	ASSERT_EQ(0, sync_flags(self->c.buf, DMA_BUF_SYNC_START |
					   DMA_BUF_SYNC_READ));
	t = cpu_access_trace(_metadata, &self->c);
	EXPECT_EQ((unsigned int)self->c.syncs,
		  trace_count(t, "dma_sync_single_for_device", self->c.inst,
			      "BIDIRECTIONAL", CPU_SIZE)) TH_LOG("%s", t);
	EXPECT_EQ(1U, trace_count(t, "dma_sync_sg_for_cpu", IMPORTER_NAME,
				  "BIDIRECTIONAL", 0)) TH_LOG("%s", t);
	/* The importer's mapping invalidates; the instance does not again. */
	EXPECT_EQ(0U, trace_count(t, "dma_sync_single_for_cpu", self->c.inst,
				  "BIDIRECTIONAL", 0)) TH_LOG("%s", t);
	if (self->c.syncs) {
		clean = strstr(t, " dma_sync_single_for_device: ");
		inval = strstr(t, " dma_sync_sg_for_cpu: ");
		ASSERT_NE(NULL, clean) TH_LOG("%s", t);
		ASSERT_NE(NULL, inval) TH_LOG("%s", t);
		EXPECT_LT(clean, inval) TH_LOG("%s", t);
	}
	if (self->c.arch) {
		EXPECT_EQ((unsigned int)self->c.syncs,
			  trace_count_arch(t, ARCH_CLEAN,
					   "dma_sync_single_for_device",
					   self->c.inst, "BIDIRECTIONAL",
					   CPU_SIZE)) TH_LOG("%s", t);
		EXPECT_EQ(1U, trace_count_arch(t, ARCH_INVAL,
					       "dma_sync_sg_for_cpu",
					       IMPORTER_NAME, "BIDIRECTIONAL",
					       0)) TH_LOG("%s", t);
		TH_LOG("START: %s, then the importer's %s", ARCH_CLEAN,
		       ARCH_INVAL);
	}

	/* END: the importer's mapping cleans, nothing else is needed. */
	ASSERT_EQ(0, sync_flags(self->c.buf, DMA_BUF_SYNC_END |
					   DMA_BUF_SYNC_READ));
	t = cpu_access_trace(_metadata, &self->c);
	EXPECT_EQ(1U, trace_count(t, "dma_sync_sg_for_device", IMPORTER_NAME,
				  "BIDIRECTIONAL", 0)) TH_LOG("%s", t);
	EXPECT_EQ(0U, trace_count(t, "dma_sync_single_for_device",
				  self->c.inst, "BIDIRECTIONAL", 0))
		TH_LOG("%s", t);
}

/* Allocate @strategy's buffer of @size bytes: its fd, or -errno. */
static int cpu_access_alloc(int dev, __u64 size, __u32 strategy)
{
	struct cmabuf_alloc_data data;
	int ret = cmabuf_alloc(dev, size, strategy, &data);

	return ret ? -ret : (int)data.fd;
}

/*
 * @want cleans of the whole of a buffer of @size bytes through the
 * instance, by this process (@own), or by anyone.
 */
static void cpu_access_expect_clean(struct __test_metadata *_metadata,
				    struct cpu_access *self, const char *t,
				    __u64 size, unsigned int want, bool own,
				    const char *what)
{
	unsigned int got;

	if (own)
		got = trace_count_pid(t, getpid(), "dma_sync_single_for_device",
				      self->inst, "TO_DEVICE", size);
	else
		got = trace_count(t, "dma_sync_single_for_device", self->inst,
				  "TO_DEVICE", size);
	EXPECT_EQ(want, got) TH_LOG("%s: %s", what, t);
	/* Each of them reached the architecture's clean. */
	if (self->arch) {
		got = trace_count_arch(t, ARCH_CLEAN,
				       "dma_sync_single_for_device",
				       self->inst, "TO_DEVICE", size);
		EXPECT_EQ(trace_count(t, "dma_sync_single_for_device",
				      self->inst, "TO_DEVICE", size), got)
			TH_LOG("%s: %s", what, t);
		TH_LOG("%s: %u cleans of %llu bytes reached %s", what, got,
		       (unsigned long long)size, ARCH_CLEAN);
	}
	/* Cleaning is all: no invalidate, nothing for the CPU. */
	EXPECT_EQ(0U, trace_count(t, "dma_sync_single_for_cpu", self->inst,
				  "TO_DEVICE", 0)) TH_LOG("%s: %s", what, t);
}

/* The instance's syncs in @t, any direction and size. */
static unsigned int cpu_access_inst_syncs(const char *t, const char *inst)
{
	static const char *const events[] = {
		"dma_sync_single_for_cpu", "dma_sync_single_for_device",
	};
	static const char *const dirs[] = {
		"TO_DEVICE", "FROM_DEVICE", "BIDIRECTIONAL",
	};
	unsigned int n = 0, e, d;

	for (e = 0; e < ARRAY_SIZE(events); e++)
		for (d = 0; d < ARRAY_SIZE(dirs); d++)
			n += trace_count(t, events[e], inst, dirs[d], 0);
	return n;
}

/*
 * A buffer no importer has mapped and whose address PHYS never gave out is
 * in reach of no device: CPU access to it, whole or a range, maintains
 * nothing (CMABUF_IOC_RW's brackets are these calls), nor does it once an
 * importer mapped and unmapped it (the unmap synced for the CPU); after
 * PHYS the instance syncs for the device driven from the address.
 */
TEST_F_TIMEOUT(cpu_access, buffer_no_device_reaches_maintains_nothing, TIMEOUT)
{
	struct cmabuf_phys phys;
	const char *t;
	int fd, i;

	if (!self->c.syncs)
		SKIP(return, "the instance maintains no cache here in any case");
	fd = cpu_access_alloc(self->c.st.dev[0], CPU_SIZE, CMABUF_STRATEGY_AUTO);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(-fd));
	for (i = 0; i < 2; i++) {
		cpu_access_trace(_metadata, &self->c);
		ASSERT_EQ(0, sync_flags(fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW));
		ASSERT_EQ(0, sync_flags(fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW));
		ASSERT_EQ(0, cmabuf_range_sync(self->c.st.dev[0], fd,
					       DMA_BUF_SYNC_START |
					       DMA_BUF_SYNC_READ, 8, 10000));
		t = cpu_access_trace(_metadata, &self->c);
		EXPECT_EQ(0U, cpu_access_inst_syncs(t, self->c.inst))
			TH_LOG("%s: %s", i ? "after a mapping" : "new", t);
		if (i)
			break;
		close(self->c.buf);
		self->c.buf = fd;
		cpu_access_hold(_metadata, &self->c, CMABUF_IMPORTER_HOLD_MAP);
		cpu_access_release(_metadata, &self->c);
	}

	ASSERT_EQ(0, cmabuf_phys(self->c.st.dev[0], fd, &phys));
	cpu_access_trace(_metadata, &self->c);
	ASSERT_EQ(0, sync_flags(fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ));
	t = cpu_access_trace(_metadata, &self->c);
	EXPECT_EQ(1U, trace_count(t, "dma_sync_single_for_cpu", self->c.inst,
				  "FROM_DEVICE", CPU_SIZE)) TH_LOG("%s", t);
}

/*
 * A buffer is cleared through the CPU's cacheable linear map (by cmabuf,
 * or by the page allocator under init_on_alloc for LEGACY): where the
 * instance's device is not coherent, the first CMABUF_IOC_PHYS of a buffer
 * cleans those zeros to memory, so that a device driven from its address
 * reads zeros, and no dirty line of the clearing is left to be written
 * back over what it writes; a second PHYS cleans nothing, and neither does
 * the ALLOC (importers' mappings clean, and a buffer no device is given
 * needs nothing). Every strategy, a fresh buffer and a prepared one
 * (nothing cleaned when it is made ready or taken), each over the buffer's
 * own physical range. What the test cannot show, TCG being coherent: that
 * memory held stale bytes without it.
 */
TEST_F_TIMEOUT(cpu_access, new_buffers_cleaned_at_first_phys, TIMEOUT)
{
	static const __u32 strategies[] = {
		CMABUF_STRATEGY_AUTO, CMABUF_STRATEGY_LEGACY,
		CMABUF_STRATEGY_FROZEN, CMABUF_STRATEGY_COMPOUND,
	};
	unsigned int want = self->c.syncs, i;
	struct cmabuf_prepare p;
	struct cmabuf_phys phys;
	struct cmabuf_info info;
	const char *t, *name;
	char at[80];
	__u64 size;
	int fd;

	ASSERT_EQ(0, cmabuf_get_info(self->c.st.dev[0], &info, NULL, 0));
	for (i = 0; i < ARRAY_SIZE(strategies); i++) {
		name = cmabuf_strategy_name(strategies[i]);
		/* COMPOUND's smallest buffer: a pageblock (2 MiB). */
		size = strategies[i] == CMABUF_STRATEGY_COMPOUND ?
		       (__u64)info.page_size << info.min_compound_order :
		       CPU_SIZE;
		if (!cmabuf_strategy_supported(&info, strategies[i]) ||
		    size > 64 * SZ_1M) {
			TH_LOG("%s: not here", name);
			continue;
		}
		cpu_access_trace(_metadata, &self->c);
		fd = cpu_access_alloc(self->c.st.dev[0], size, strategies[i]);
		ASSERT_LE(0, fd) TH_LOG("%s: %s", name, strerror(-fd));
		t = cpu_access_trace(_metadata, &self->c);
		cpu_access_expect_clean(_metadata, &self->c, t, size, 0, false,
					name);
		ASSERT_EQ(0, cmabuf_phys(self->c.st.dev[0], fd, &phys));
		t = cpu_access_trace(_metadata, &self->c);
		cpu_access_expect_clean(_metadata, &self->c, t, size, want,
					true, name);
		/* The lines cleaned are the buffer's: the instance maps it 1:1. */
		snprintf(at, sizeof(at), " dma_addr=%llx size=%llu\n",
			 (unsigned long long)phys.phys,
			 (unsigned long long)size);
		EXPECT_EQ(want, (unsigned int)!!strstr(t, at))
			TH_LOG("%s:%s %s", name, at, t);
		ASSERT_EQ(0, cmabuf_phys(self->c.st.dev[0], fd, &phys));
		t = cpu_access_trace(_metadata, &self->c);
		cpu_access_expect_clean(_metadata, &self->c, t, size, 0, false,
					"second PHYS");
		close(fd);
	}

	cpu_access_trace(_metadata, &self->c);
	ASSERT_EQ(0, cmabuf_prepare(self->c.st.dev[0], CPU_SIZE,
				    CMABUF_STRATEGY_AUTO | CMABUF_PREPARE_WAIT,
				    1, 60000, &p));
	ASSERT_EQ(1U, p.ready);
	fd = cpu_access_alloc(self->c.st.dev[0], CPU_SIZE,
			      CMABUF_STRATEGY_AUTO);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, cmabuf_prepare(self->c.st.dev[0], CPU_SIZE,
				    CMABUF_STRATEGY_AUTO, 0, 0, &p));
	t = cpu_access_trace(_metadata, &self->c);
	cpu_access_expect_clean(_metadata, &self->c, t, CPU_SIZE, 0, false,
				"prepared and taken");
	ASSERT_EQ(0, cmabuf_phys(self->c.st.dev[0], fd, &phys));
	t = cpu_access_trace(_metadata, &self->c);
	cpu_access_expect_clean(_metadata, &self->c, t, CPU_SIZE, want, true,
				"PHYS of a prepared buffer");
	close(fd);
}

#define COHERENT_NODE	"cmabuf-test-dma-coherent"
#define COHERENT_INST	"cmabuf-snooped"

/* Bind (or unbind) the test bed's dma-coherent node to cmabuf. */
static int coherent_node_bind(bool bind)
{
	const char *ovr = "/sys/bus/platform/devices/" COHERENT_NODE
			  "/driver_override";
	int ret;

	if (!bind) {
		ret = rel_write_str(REL_PLATFORM_DRIVER "/unbind", COHERENT_NODE);
		return rel_write_str(ovr, "\n") ?: ret;
	}
	ret = rel_write_str(ovr, REL_MODULE_NAME);
	return ret ?: rel_write_str(REL_PLATFORM_DRIVER "/bind", COHERENT_NODE);
}

/*
 * The same region through a node that says dma-coherent: INFO says no
 * maintenance, and neither clearing nor CPU access asks for any, while
 * the general instance's node (dma-noncoherent) has them (the tests
 * above). The decision is the node's, not the architecture's.
 */
TEST_F_TIMEOUT(cpu_access, coherent_node_maintains_nothing, TIMEOUT)
{
	struct cmabuf_info info;
	char name[64];
	const char *t;
	int dev, fd, i;

	if (access("/sys/bus/platform/devices/" COHERENT_NODE, F_OK))
		SKIP(return, "no %s node in this device tree", COHERENT_NODE);
	ASSERT_EQ(0, coherent_node_bind(true));
	for (i = 0; i < 5000 && access("/dev/" COHERENT_INST, F_OK); i++)
		usleep(1000);
	dev = rel_instance_open(COHERENT_INST, O_RDWR);
	ASSERT_LE(0, dev) {
		coherent_node_bind(false);
	}
	ASSERT_EQ(0, misc_parent_name(COHERENT_INST, name, sizeof(name)));
	EXPECT_EQ(0, cmabuf_get_info(dev, &info, NULL, 0));
	EXPECT_EQ(0U, info.flags & (CMABUF_INFO_CACHE_SYNC |
				    CMABUF_INFO_WRITECOMBINE));

	cpu_access_trace(_metadata, &self->c);
	fd = cpu_access_alloc(dev, CPU_SIZE, CMABUF_STRATEGY_AUTO);
	EXPECT_LE(0, fd);
	if (fd >= 0) {
		EXPECT_EQ(0, sync_flags(fd, DMA_BUF_SYNC_START |
					    DMA_BUF_SYNC_RW));
		EXPECT_EQ(0, sync_flags(fd, DMA_BUF_SYNC_END |
					    DMA_BUF_SYNC_RW));
		close(fd);
	}
	t = cpu_access_trace(_metadata, &self->c);
	EXPECT_EQ(0U, trace_count(t, "dma_sync_single_for_device", name,
				  "TO_DEVICE", 0)) TH_LOG("%s", t);
	EXPECT_EQ(0U, trace_count(t, "dma_sync_single_for_cpu", name,
				  "BIDIRECTIONAL", 0)) TH_LOG("%s", t);
	EXPECT_EQ(0U, trace_count(t, "dma_sync_single_for_device", name,
				  "BIDIRECTIONAL", 0)) TH_LOG("%s", t);
	close(dev);
	EXPECT_EQ(0, coherent_node_bind(false));
}

TEST_F_TIMEOUT(cpu_access, importer_mapping_takes_over, TIMEOUT)
{
	const char *t;

	cpu_access_hold(_metadata, &self->c, CMABUF_IMPORTER_HOLD_MAP);
	cpu_access_trace(_metadata, &self->c);
	ASSERT_EQ(0, sync_flags(self->c.buf, DMA_BUF_SYNC_START |
					   DMA_BUF_SYNC_READ));
	t = cpu_access_trace(_metadata, &self->c);
	EXPECT_EQ(0U, trace_count(t, "dma_sync_single_for_cpu", self->c.inst,
				  "FROM_DEVICE", 0)) TH_LOG("%s", t);
	/* The whole buffer: the importer's table, as it was mapped. */
	EXPECT_EQ(1U, trace_count(t, "dma_sync_sg_for_cpu", IMPORTER_NAME,
				  "BIDIRECTIONAL", 0)) TH_LOG("%s", t);
	EXPECT_EQ(0U, trace_count(t, "dma_sync_single_for_cpu", IMPORTER_NAME,
				  "BIDIRECTIONAL", 0)) TH_LOG("%s", t);

	cpu_access_release(_metadata, &self->c);
	cpu_access_trace(_metadata, &self->c);
	ASSERT_EQ(0, sync_flags(self->c.buf, DMA_BUF_SYNC_START |
					   DMA_BUF_SYNC_READ));
	t = cpu_access_trace(_metadata, &self->c);
	EXPECT_EQ((unsigned int)self->c.syncs,
		  trace_count(t, "dma_sync_single_for_cpu", self->c.inst,
			      "FROM_DEVICE", CPU_SIZE)) TH_LOG("%s", t);
}

/*
 * CMABUF_IOC_SYNC syncs its bytes and no more: through the instance with
 * no importer; through each segment of the importer's mapping that the
 * range touches, cut at 256 KiB where swiotlb bounces.
 */
TEST_F_TIMEOUT(cpu_access, range_syncs_only_its_bytes, TIMEOUT)
{
	const __u64 off = PAGE_4K + 8, len = 10000, seg = 256 * 1024;
	const char *t;

	cpu_access_trace(_metadata, &self->c);
	ASSERT_EQ(0, cmabuf_range_sync(self->c.st.dev[0], self->c.buf,
				       DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ,
				       off, len));
	t = cpu_access_trace(_metadata, &self->c);
	EXPECT_EQ((unsigned int)self->c.syncs,
		  trace_count(t, "dma_sync_single_for_cpu", self->c.inst,
			      "FROM_DEVICE", len)) TH_LOG("%s", t);
	EXPECT_EQ(0U, trace_count(t, "dma_sync_single_for_cpu", self->c.inst,
				  "FROM_DEVICE", CPU_SIZE));

	cpu_access_hold(_metadata, &self->c, CMABUF_IMPORTER_HOLD_MAP);
	cpu_access_trace(_metadata, &self->c);
	ASSERT_EQ(0, cmabuf_range_sync(self->c.st.dev[0], self->c.buf,
				       DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ,
				       off, len));
	t = cpu_access_trace(_metadata, &self->c);
	EXPECT_EQ(1U, trace_count(t, "dma_sync_single_for_cpu", IMPORTER_NAME,
				  "BIDIRECTIONAL", len)) TH_LOG("%s", t);
	EXPECT_EQ(0U, trace_count(t, "dma_sync_single_for_cpu", self->c.inst,
				  "FROM_DEVICE", 0));

	/* 100 bytes either side of the first 256 KiB. */
	ASSERT_EQ(0, cmabuf_range_sync(self->c.st.dev[0], self->c.buf,
				       DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE,
				       seg - 100, 200));
	t = cpu_access_trace(_metadata, &self->c);
	if (path_is_bounce()) {
		EXPECT_EQ(2U, trace_count(t, "dma_sync_single_for_device",
					  IMPORTER_NAME, "BIDIRECTIONAL", 100))
			TH_LOG("%s", t);
	} else {
		EXPECT_EQ(1U, trace_count(t, "dma_sync_single_for_device",
					  IMPORTER_NAME, "BIDIRECTIONAL", 200))
			TH_LOG("%s", t);
	}
}

/*
 * One device mapping the buffer twice: DMA API debugging cannot tell which
 * of the two a range belongs to, and reports the sync of a range as one of
 * memory never mapped. Both mappings are synced whole instead, and the
 * error count (state_end()) stays.
 */
TEST_F_TIMEOUT(cpu_access, range_of_a_buffer_one_device_maps_twice, TIMEOUT)
{
	struct cmabuf_importer_hold hold = {
		.fd = self->c.buf,
		.flags = CMABUF_IMPORTER_HOLD_MAP,
	};
	struct cmabuf_importer_release rel = { };
	const char *t;

	cpu_access_hold(_metadata, &self->c, CMABUF_IMPORTER_HOLD_MAP);
	ASSERT_EQ(0, edu_ioctl(self->c.imp, CMABUF_IMPORTER_IOC_HOLD, &hold));
	rel.handle = hold.handle;
	cpu_access_trace(_metadata, &self->c);
	EXPECT_EQ(0, cmabuf_range_sync(self->c.st.dev[0], self->c.buf,
				       DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ,
				       PAGE_4K + 8, 10000));
	t = cpu_access_trace(_metadata, &self->c);
	EXPECT_EQ(0, edu_ioctl(self->c.imp, CMABUF_IMPORTER_IOC_RELEASE, &rel));
	EXPECT_EQ(2U, trace_count(t, "dma_sync_sg_for_cpu", IMPORTER_NAME,
				  "BIDIRECTIONAL", 0)) TH_LOG("%s", t);
	EXPECT_EQ(0U, trace_count(t, "dma_sync_single_for_cpu", IMPORTER_NAME,
				  "BIDIRECTIONAL", 0)) TH_LOG("%s", t);
}

/*
 * A write-combined buffer's cacheable alias is cleaned and invalidated
 * once, before ALLOC returns; after that its CPU access needs nothing.
 */
TEST_F_TIMEOUT(cpu_access, wc_buffer_cleaned_once_at_allocation, TIMEOUT)
{
	struct cmabuf_alloc_data data = {
		.size = CPU_SIZE,
		.fd_flags = O_RDWR | O_CLOEXEC,
		.flags = CMABUF_ALLOC_WRITECOMBINE,
	};
	unsigned int wc;
	const char *t;

	cpu_access_trace(_metadata, &self->c);
	ASSERT_EQ(0, edu_ioctl(self->c.st.dev[0], CMABUF_IOC_ALLOC, &data));
	wc = !!(data.buf_flags & CMABUF_BUF_WRITECOMBINE);
	EXPECT_EQ((unsigned int)self->c.syncs, wc);
	t = cpu_access_trace(_metadata, &self->c);
	EXPECT_EQ(wc, trace_count(t, "dma_sync_single_for_device", self->c.inst,
				  "BIDIRECTIONAL", CPU_SIZE)) TH_LOG("%s", t);
	EXPECT_EQ(wc, trace_count(t, "dma_sync_single_for_cpu", self->c.inst,
				  "BIDIRECTIONAL", CPU_SIZE)) TH_LOG("%s", t);

	EXPECT_EQ(0, sync_flags(data.fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW));
	EXPECT_EQ(0, sync_flags(data.fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW));
	t = cpu_access_trace(_metadata, &self->c);
	EXPECT_EQ((unsigned int)(!wc && self->c.syncs),
		  trace_count(t, "dma_sync_single_for_cpu", self->c.inst,
			      "BIDIRECTIONAL", CPU_SIZE)) TH_LOG("%s", t);
	EXPECT_EQ((unsigned int)(!wc && self->c.syncs),
		  trace_count(t, "dma_sync_single_for_device", self->c.inst,
			      "BIDIRECTIONAL", CPU_SIZE)) TH_LOG("%s", t);
	close(data.fd);
}

/* ---- edu_bounce: CMABUF_IOC_SYNC ---- */

/*
 * The range: 4 KiB across the first 64 KiB boundary, where the edu
 * device's mapping has two bounce buffers. Inside it 2 KiB, and outside
 * it 512 bytes on each side, touching it.
 */
#define RANGE_OFF	(SZ_64K - 2048)
#define RANGE_LEN	4096ULL
#define IN_OFF		(SZ_64K - 1024)
#define IN_LEN		2048U
#define BEFORE_OFF	(RANGE_OFF - 512)
#define AFTER_OFF	(RANGE_OFF + RANGE_LEN)
#define SIDE_LEN	512U

/* CMABUF_IOC_SYNC of the range of @buf, through instance @dev. */
static int partial_sync(int dev, int buf, __u32 flags)
{
	return cmabuf_range_sync(dev, buf, flags, RANGE_OFF, RANGE_LEN);
}

/*
 * The device writes inside the range and on both sides of it: syncing the
 * range for the CPU copies the inside back, and nothing of the sides,
 * which a sync of the whole buffer then brings.
 */
TEST_F_TIMEOUT(edu_bounce, device_writes_outside_the_range_stay_unsynced,
	       TIMEOUT)
{
	unsigned char data[IN_LEN];

	bytes_fill(data, IN_LEN, 31);
	ASSERT_EQ(0, edu_write(self->edu.fd, self->handle, self->m.map, IN_OFF,
			       data, IN_LEN));
	bytes_fill(data, SIDE_LEN, 32);
	ASSERT_EQ(0, edu_write(self->edu.fd, self->handle, self->m.map,
			       BEFORE_OFF, data, SIDE_LEN));
	bytes_fill(data, SIDE_LEN, 33);
	ASSERT_EQ(0, edu_write(self->edu.fd, self->handle, self->m.map,
			       AFTER_OFF, data, SIDE_LEN));

	ASSERT_EQ(0, partial_sync(self->st.dev[0], self->buf,
				  DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ));
	EXPECT_EQ(0U, bytes_mismatch(self->map + IN_OFF, IN_LEN, 31));
	EXPECT_TRUE(zeroed(self->map + BEFORE_OFF, SIDE_LEN))
		TH_LOG("the device's write before the range was synced");
	EXPECT_TRUE(zeroed(self->map + AFTER_OFF, SIDE_LEN))
		TH_LOG("the device's write after the range was synced");
	ASSERT_EQ(0, partial_sync(self->st.dev[0], self->buf,
				  DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ));

	ASSERT_EQ(0, dmabuf_sync(self->buf, DMA_BUF_SYNC_START));
	EXPECT_EQ(0U, bytes_mismatch(self->map + BEFORE_OFF, SIDE_LEN, 32));
	EXPECT_EQ(0U, bytes_mismatch(self->map + AFTER_OFF, SIDE_LEN, 33));
	ASSERT_EQ(0, dmabuf_sync(self->buf, DMA_BUF_SYNC_END));
}

/*
 * The CPU writes inside the range and on both sides of it: syncing the
 * range for the device brings the inside to the device, and nothing of
 * the sides, which a sync of the whole buffer then brings.
 */
TEST_F_TIMEOUT(edu_bounce, cpu_writes_outside_the_range_stay_unsynced,
	       TIMEOUT)
{
	unsigned char got[IN_LEN];

	bytes_fill(self->map + IN_OFF, IN_LEN, 34);
	bytes_fill(self->map + BEFORE_OFF, SIDE_LEN, 35);
	bytes_fill(self->map + AFTER_OFF, SIDE_LEN, 36);
	ASSERT_EQ(0, partial_sync(self->st.dev[0], self->buf,
				  DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE));

	ASSERT_EQ(0, edu_read(self->edu.fd, self->handle, self->m.map, IN_OFF,
			      got, IN_LEN));
	EXPECT_EQ(0U, bytes_mismatch(got, IN_LEN, 34));
	ASSERT_EQ(0, edu_read(self->edu.fd, self->handle, self->m.map,
			      BEFORE_OFF, got, SIDE_LEN));
	EXPECT_TRUE(zeroed(got, SIDE_LEN))
		TH_LOG("the CPU's write before the range reached the device");
	ASSERT_EQ(0, edu_read(self->edu.fd, self->handle, self->m.map,
			      AFTER_OFF, got, SIDE_LEN));
	EXPECT_TRUE(zeroed(got, SIDE_LEN))
		TH_LOG("the CPU's write after the range reached the device");

	ASSERT_EQ(0, dmabuf_sync(self->buf, DMA_BUF_SYNC_END));
	ASSERT_EQ(0, edu_read(self->edu.fd, self->handle, self->m.map,
			      AFTER_OFF, got, SIDE_LEN));
	EXPECT_EQ(0U, bytes_mismatch(got, SIDE_LEN, 36));
}

/* ---- partial_time: a range against the whole buffer ---- */

/* A 1 MiB range of a 64 MiB buffer, both directions, nine times each. */
#define TIME_SIZE	SZ_64M
#define TIME_RANGE	SZ_1M
#define TIME_ROUNDS	9
/* What the range must at least save: a conservative quarter of 64. */
#define TIME_MIN_RATIO	4

FIXTURE(partial_time) {
	struct dma_state st;
	struct edu_dev edu;
	int buf;
	__u32 handle;
	struct cmabuf_edu_map m;
};

FIXTURE_SETUP(partial_time)
{
	self->buf = -1;
	self->edu.fd = -1;
	self->st.dev[0] = -1;
	self->st.dev[1] = -1;
	if (!path_is_bounce())
		SKIP(return, "the guest was not booted with swiotlb=force");
	state_begin(_metadata, &self->st);
	edu_pick(_metadata, false, &self->edu);
	ASSERT_EQ(0, buffer_alloc(self->st.dev[0], NULL, CMABUF_STRATEGY_AUTO,
				  TIME_SIZE, &self->buf));
	ASSERT_EQ(0, edu_attach(self->edu.fd, self->buf, &self->handle));
	ASSERT_EQ(0, edu_map(self->edu.fd, self->handle, &self->m));
}

FIXTURE_TEARDOWN(partial_time)
{
	if (self->handle)
		EXPECT_EQ(0, edu_detach(self->edu.fd, self->handle, 0));
	if (self->buf >= 0)
		close(self->buf);
	edu_close(&self->edu);
	state_end(_metadata, &self->st);
}

/*
 * Each round: a whole-buffer DMA_BUF_IOCTL_SYNC, START then END, and the
 * same with CMABUF_IOC_SYNC on 1 MiB in the middle, alternately, so that
 * whatever slows the guest down slows both. Under swiotlb each copies what
 * it syncs, both ways; the range must take well under the whole's time.
 */
TEST_F_TIMEOUT(partial_time, range_sync_is_faster_than_whole, TIMEOUT)
{
	unsigned long long whole[TIME_ROUNDS], part[TIME_ROUNDS], t;
	unsigned long long mw, mp;
	int i;

	for (i = 0; i < TIME_ROUNDS; i++) {
		t = now_ns();
		ASSERT_EQ(0, dmabuf_sync(self->buf, DMA_BUF_SYNC_START));
		ASSERT_EQ(0, dmabuf_sync(self->buf, DMA_BUF_SYNC_END));
		whole[i] = now_ns() - t;
		t = now_ns();
		ASSERT_EQ(0, cmabuf_range_sync(self->st.dev[0], self->buf,
					       DMA_BUF_SYNC_START |
					       DMA_BUF_SYNC_RW,
					       TIME_SIZE / 2, TIME_RANGE));
		ASSERT_EQ(0, cmabuf_range_sync(self->st.dev[0], self->buf,
					       DMA_BUF_SYNC_END |
					       DMA_BUF_SYNC_RW,
					       TIME_SIZE / 2, TIME_RANGE));
		part[i] = now_ns() - t;
	}
	mw = median_ull(whole, TIME_ROUNDS);
	mp = median_ull(part, TIME_ROUNDS);
	TH_LOG("START+END under swiotlb, median (min..max) of %d:",
	       TIME_ROUNDS);
	TH_LOG("whole 64 MiB %llu us (%llu..%llu), 1 MiB range %llu us (%llu..%llu)",
	       mw / 1000, whole[0] / 1000, whole[TIME_ROUNDS - 1] / 1000,
	       mp / 1000, part[0] / 1000, part[TIME_ROUNDS - 1] / 1000);
	TH_LOG("whole / range: %.1f", mp ? (double)mw / mp : 0.0);
	EXPECT_LE(TIME_MIN_RATIO * mp, mw);
}

/* ---- wc_dma: a write-combined buffer and real DMA ---- */

FIXTURE(wc_dma) {
	struct dma_state st;
	struct edu_dev edu;
	int buf;
	unsigned char *map[2];
	bool wc;
	__u32 handle;
	struct cmabuf_edu_map m;
};

#define WC_SIZE		SZ_16M

FIXTURE_SETUP(wc_dma)
{
	struct cmabuf_alloc_data data = {
		.size = WC_SIZE,
		.fd_flags = O_RDWR | O_CLOEXEC,
		.flags = CMABUF_ALLOC_WRITECOMBINE,
	};
	struct cmabuf_info info;
	int i;

	self->buf = -1;
	self->map[0] = MAP_FAILED;
	self->map[1] = MAP_FAILED;
	self->edu.fd = -1;
	self->st.dev[0] = -1;
	self->st.dev[1] = -1;
	state_begin(_metadata, &self->st);
	edu_pick(_metadata, false, &self->edu);
	ASSERT_EQ(0, edu_ioctl(self->st.dev[0], CMABUF_IOC_ALLOC, &data));
	self->buf = data.fd;
	self->wc = data.buf_flags & CMABUF_BUF_WRITECOMBINE;
	ASSERT_EQ(0, cmabuf_get_info(self->st.dev[0], &info, NULL, 0));
	EXPECT_EQ(!!(info.flags & CMABUF_INFO_WRITECOMBINE), self->wc);
	for (i = 0; i < 2; i++) {
		self->map[i] = mmap(NULL, WC_SIZE, PROT_READ | PROT_WRITE,
				    MAP_SHARED, self->buf, 0);
		ASSERT_NE(MAP_FAILED, self->map[i]);
	}
	ASSERT_EQ(0, edu_attach(self->edu.fd, self->buf, &self->handle));
	ASSERT_EQ(0, edu_map(self->edu.fd, self->handle, &self->m));
	TH_LOG("write-combined: %s; %s", self->wc ? "yes" : "no",
	       path_is_bounce() ? "bounced" : "through the SMMU");
}

FIXTURE_TEARDOWN(wc_dma)
{
	int i;

	if (self->handle)
		EXPECT_EQ(0, edu_detach(self->edu.fd, self->handle, 0));
	for (i = 0; i < 2; i++)
		if (self->map[i] != MAP_FAILED)
			munmap(self->map[i], WC_SIZE);
	if (self->buf >= 0)
		close(self->buf);
	edu_close(&self->edu);
	state_end(_metadata, &self->st);
}

/*
 * Syncs a write-combined buffer does not need for the CPU's sake; a buffer
 * that did not get it (swiotlb bounces) needs them for the bounce buffers.
 */
static void wc_dma_sync(struct __test_metadata *_metadata, bool wc, int buf,
			__u64 flags)
{
	if (!wc)
		ASSERT_EQ(0, dmabuf_sync(buf, flags));
}

TEST_F_TIMEOUT(wc_dma, device_reads_what_the_wc_mapping_wrote, TIMEOUT)
{
	const __u64 off = 3 * SZ_1M + 5;
	unsigned char got[LEN];

	bytes_fill(self->map[0] + off, LEN, 41);
	wc_dma_sync(_metadata, self->wc, self->buf, DMA_BUF_SYNC_END);
	ASSERT_EQ(0, edu_read(self->edu.fd, self->handle, self->m.map, off, got,
			      LEN));
	EXPECT_EQ(0U, bytes_mismatch(got, LEN, 41));
}

TEST_F_TIMEOUT(wc_dma, wc_mappings_read_what_the_device_wrote, TIMEOUT)
{
	const __u64 off = 5 * SZ_1M - 7;
	unsigned char data[LEN];

	bytes_fill(data, LEN, 42);
	ASSERT_EQ(0, edu_write(self->edu.fd, self->handle, self->m.map, off,
			       data, LEN));
	wc_dma_sync(_metadata, self->wc, self->buf, DMA_BUF_SYNC_START);
	EXPECT_EQ(0U, bytes_mismatch(self->map[0] + off, LEN, 42));
	EXPECT_EQ(0U, bytes_mismatch(self->map[1] + off, LEN, 42));
}

/* The importer's kernel mapping of the buffer (vmap) reads the CPU's writes. */
TEST_F_TIMEOUT(wc_dma, importer_vmap_reads_what_the_wc_mapping_wrote, TIMEOUT)
{
	struct cmabuf_importer_check chk;
	int imp;

	imp = open(IMPORTER_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, imp) TH_LOG("%s absent: is the importer loaded?",
				 IMPORTER_DEV);
	importer_pattern_fill(self->map[0], WC_SIZE, 43);
	wc_dma_sync(_metadata, self->wc, self->buf, DMA_BUF_SYNC_END);
	ASSERT_EQ(0, importer_check(imp, self->buf, 43, &chk));
	close(imp);
	EXPECT_EQ((__u32)CMABUF_IMPORTER_STEP_NONE, chk.failed_step)
		TH_LOG("step %u failed: %d", chk.failed_step, chk.error);
	EXPECT_EQ(WC_SIZE / CMABUF_IMPORTER_PATTERN_STRIDE, chk.words_checked);
	EXPECT_EQ(0ULL, chk.mismatches)
		TH_LOG("first at %#llx: %#llx",
		       (unsigned long long)chk.first_bad_offset,
		       (unsigned long long)chk.first_bad_value);
}

TEST_HARNESS_MAIN
