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

#include "kselftest_harness.h"
#include "cmabuf_test_util.h"
#include "cmabuf_importer.h"
#include "dma_util.h"
#include "reliability_util.h"

#define DEV_GENERAL	"/dev/cmabuf-general"
#define DEV_LARGE	"/dev/cmabuf-large"
#define IMPORTER_DEV	"/dev/cmabuf_importer"

#define SZ_16M		0x01000000ULL
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

TEST_HARNESS_MAIN
