// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf_reclaim: the pool under real memory pressure (anonymous memory
 * touched until the kernel reclaims, not drop_caches), as the load suite
 * checks it.
 *
 * One pressure episode a boot: a second one may see kswapd given up on the
 * node (docs/benchmarks-load.md). Before it, general keeps a reserve of
 * 2 x 32 MiB (the administrator's, kept through reclaim), one file there
 * has 8 x 16 MiB prepared and another file has 512 MiB prepared on large;
 * the reserve first, the 512 MiB next: the least recently used. Then:
 *
 * - anonymous memory is touched until the memory outside CMA is near the
 *   min watermarks (as cmabuf_shrinktime does) and held: kswapd reclaims.
 *   It asks each instance's shrinker in proportion to what it holds, and a
 *   proportional shrinker gives a buffer back once what it was asked adds
 *   up to it: the 512 MiB buffer does not go back while general's file
 *   still has more than half of its 16 MiB ones (checked every 5 ms);
 * - after two of general's buffers are back, the reserve is whole: two
 *   ALLOCs of 32 MiB are both served ready (prepare_hits);
 * - while reclaim has asked within the last 5 s, another file's PREPARE
 *   (of count 0) has nothing refilled;
 * - once reclaim has left the instances alone, the wants refill.
 *
 * Run as root, with nothing else holding much memory (the guest's load
 * suite runs it before its own load). Under TCG (7.2, 2 vCPUs) the
 * pressure took 34-75 s until the first buffer came back (four boots),
 * the whole test 45-90 s.
 *
 * The proportion check can only catch a shrinker that gives a large
 * buffer back early: in this guest kswapd cannot balance (no swap, no
 * page cache) and walks all its priorities in one pass, which asks every
 * shrinker for about twice what it holds, so under any rule everything
 * soft goes within that pass, and the order is all there is to see. The
 * old shrinker (a whole buffer per call) tripped it in one of two runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "load.h"
#include "kselftest_harness.h"
#include "cmabuf_test_util.h"

#define RC_GENERAL	"/dev/cmabuf-general"
#define RC_LARGE	"/dev/cmabuf-large"
#define RC_SMALL	(16 * SZ_1M)
#define RC_SMALL_N	8
#define RC_BIG		(512 * SZ_1M)
#define RC_RESERVE	"33554432x2\n"	/* 2 x 32 MiB */
#define RC_RESERVE_SIZE	(32 * SZ_1M)
#define RC_RESERVE_BYTES (2 * RC_RESERVE_SIZE)
#define RC_STEP		(2 * SZ_1M)
/* Kept free outside CMA above the min watermarks, as cmabuf_shrinktime. */
#define RC_MARGIN	(4 * SZ_1M)
/* Far above the floor, touched without looking until this near it. */
#define RC_AHEAD	(64 * SZ_1M)
#define RC_HOUR_MS	(3600 * 1000)
#define RC_READY_MS	120000
#define RC_PRESS_MS	120000
/* Watched after another file's PREPARE: within the 5 s back-off. */
#define RC_QUIET_MS	2500
/* Released first, so that a refill would find room at once. */
#define RC_ROOM		(256 * SZ_1M)
#define RC_REFILL_MS	60000

/* The memory we press with: touched from the start, RC_STEP at a time. */
struct rc_mem {
	unsigned char *base;
	size_t len, touched;
	unsigned long long held_ms;	/* when touching stopped */
};

FIXTURE(reclaim) {
	int general, large;
	int owner_g, owner_l;
	char max[32];
	bool max_set, reserve_set;
	struct rc_mem mem;
};

static int rc_open(const char *path)
{
	return open(path, O_RDWR | O_CLOEXEC);
}

FIXTURE_SETUP(reclaim)
{
	struct load_sys sys = { };
	struct cmabuf_prepare p;
	unsigned long long v;
	char now[64];

	self->general = rc_open(RC_GENERAL);
	self->large = rc_open(RC_LARGE);
	self->owner_g = rc_open(RC_GENERAL);
	self->owner_l = rc_open(RC_LARGE);
	if (self->general < 0 || self->large < 0)
		SKIP(return, "no %s or %s", RC_GENERAL, RC_LARGE);
	ASSERT_LE(0, self->owner_g);
	ASSERT_LE(0, self->owner_l);
	if (cmabuf_sysfs_read_str(self->general, "reserve_max_bytes",
				  self->max, sizeof(self->max)))
		SKIP(return, "no reserve on this driver");
	ASSERT_EQ(0, cmabuf_sysfs_read_str(self->general, "reserve", now,
					   sizeof(now)));
	ASSERT_STREQ("\n", now) TH_LOG("a reserve is set before the test");
	ASSERT_EQ(0, cmabuf_sysfs_read(self->general, "prepared_bytes", &v));
	ASSERT_EQ(0ULL, v) TH_LOG("general has buffers prepared before the test");
	ASSERT_EQ(0, cmabuf_sysfs_read(self->large, "prepared_bytes", &v));
	ASSERT_EQ(0ULL, v) TH_LOG("large has buffers prepared before the test");

	/* The reserve first: the least recently used want of general. */
	ASSERT_EQ(0, cmabuf_sysfs_write(self->general, "reserve_max_bytes",
					"67108864"));
	self->max_set = true;
	ASSERT_EQ(0, cmabuf_sysfs_write(self->general, "reserve", RC_RESERVE));
	self->reserve_set = true;
	ASSERT_EQ(0, cmabuf_sysfs_wait(self->general, "prepared_bytes",
				       RC_RESERVE_BYTES, RC_READY_MS, &v))
		TH_LOG("reserve: %llu bytes ready", v);
	ASSERT_EQ(0, cmabuf_prepare(self->owner_l, RC_BIG,
				    CMABUF_STRATEGY_AUTO | CMABUF_PREPARE_WAIT,
				    1, RC_HOUR_MS, &p));
	ASSERT_EQ(1U, p.ready);
	ASSERT_EQ(0, cmabuf_prepare(self->owner_g, RC_SMALL,
				    CMABUF_STRATEGY_AUTO | CMABUF_PREPARE_WAIT,
				    RC_SMALL_N, RC_HOUR_MS, &p));
	ASSERT_EQ((__u32)RC_SMALL_N, p.ready);

	ASSERT_EQ(0, sys_read_meminfo(&sys));
	self->mem.len = sys.mem_total;
	self->mem.base = mmap(NULL, self->mem.len, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			      -1, 0);
	ASSERT_NE(MAP_FAILED, self->mem.base);
	TH_LOG("MemFree %llu MiB, CmaFree %llu MiB before the pressure",
	       sys.mem_free >> 20, sys.cma_free >> 20);
}

FIXTURE_TEARDOWN(reclaim)
{
	if (self->mem.base && self->mem.base != MAP_FAILED)
		munmap(self->mem.base, self->mem.len);
	if (self->owner_g >= 0)
		close(self->owner_g);
	if (self->owner_l >= 0)
		close(self->owner_l);
	if (self->reserve_set)
		EXPECT_EQ(0, cmabuf_sysfs_write(self->general, "reserve", "\n"));
	if (self->max_set)
		EXPECT_EQ(0, cmabuf_sysfs_write(self->general,
						"reserve_max_bytes", self->max));
	if (self->general >= 0) {
		EXPECT_EQ(0, cmabuf_settle(self->general));
		close(self->general);
	}
	if (self->large >= 0) {
		EXPECT_EQ(0, cmabuf_settle(self->large));
		close(self->large);
	}
}

/* Both instances' prepared bytes. */
struct rc_look {
	unsigned long long general, large, ms;
};

/* @dev: general and large. Return: 0 or -errno. */
static int rc_look(const int *dev, struct rc_look *l)
{
	l->ms = cmabuf_now_ms();
	return -(cmabuf_sysfs_read(dev[0], "prepared_bytes", &l->general) ?:
		 cmabuf_sysfs_read(dev[1], "prepared_bytes", &l->large));
}

/*
 * Touch @m, RC_STEP at a time, while the memory outside CMA stays above
 * @floor bytes (below the min watermarks the kernel's own allocations
 * fail: no swap, and what reclaim gets from the pool serves only movable
 * ones), then hold it, until general has given back two buffers' worth or
 * RC_PRESS_MS pass. After every step, and every 5 ms while holding,
 * @bad keeps the first look where the 512 MiB buffer had gone back while
 * general still had more than three quarters of its file's buffers.
 * Reclaim asks each instance in proportion to what it holds, so general's
 * requests shrink as it gives back and large's do not: by the time they
 * add up to large's 512 MiB, general's add up to about 1 - 1/e of its
 * file's (5 of 8). The kernel defers and batches its requests, and one
 * step can hide a whole burst of reclaim: 3 of 8 were seen (7.2,
 * 2026-12-05). A rule that takes the largest or the least recently used
 * buffer first gives none of general's.
 * Return: 0, -ETIMEDOUT, or -errno; @l: the last look.
 */
static int rc_press(struct rc_mem *m, const int *dev, __u64 floor,
		    const struct rc_look *start, struct rc_look *first,
		    struct rc_look *bad, struct rc_look *l)
{
	unsigned long long end = cmabuf_now_ms() + RC_PRESS_MS;
	size_t i, j, ps = sysconf(_SC_PAGESIZE);
	struct load_sys sys = { };
	__u64 room;
	int ret;

	for (;;) {
		ret = rc_look(dev, l);
		if (ret)
			return ret;
		if (!first->ms && (l->general < start->general ||
				   l->large < start->large))
			*first = *l;
		if (!bad->ms && l->large < start->large &&
		    l->general + RC_SMALL_N / 4 * RC_SMALL > start->general)
			*bad = *l;
		if (l->general + 2 * RC_SMALL <= start->general)
			return 0;
		if (l->ms > end)
			return -ETIMEDOUT;
		ret = sys_read_meminfo(&sys);
		if (ret)
			return ret;
		if (first->ms || sys.mem_free < sys.cma_free + floor + RC_STEP ||
		    m->touched + RC_STEP > m->len) {
			if (!m->held_ms)
				m->held_ms = l->ms;
			usleep(5000);
			continue;
		}
		/*
		 * What we touch takes at most as much from outside CMA: far
		 * above the floor, touch more before looking again.
		 */
		room = sys.mem_free - sys.cma_free - floor;
		room = room > 2 * RC_AHEAD ? room - RC_AHEAD : RC_STEP;
		if (room > m->len - m->touched)
			room = m->len - m->touched;
		for (i = 0; i + RC_STEP <= room; i += RC_STEP) {
			for (j = 0; j < RC_STEP; j += ps)
				m->base[m->touched + j] = 1;
			m->touched += RC_STEP;
		}
	}
}

static unsigned long long rc_stat(struct __test_metadata *_metadata, int dev,
				  const char *file)
{
	unsigned long long v = 0;

	EXPECT_EQ(0, cmabuf_sysfs_read(dev, file, &v)) TH_LOG("%s", file);
	return v;
}

/* Two ALLOCs of the reserve's size on a fresh file: how many were ready. */
static unsigned long long rc_reserve_hits(struct __test_metadata *_metadata,
					  int general)
{
	struct cmabuf_alloc_data data[2];
	unsigned long long hits0, hits;
	int fd, i;

	fd = rc_open(RC_GENERAL);
	EXPECT_LE(0, fd);
	if (fd < 0)
		return 0;
	hits0 = rc_stat(_metadata, general, "stats/prepare_hits");
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, cmabuf_alloc(fd, RC_RESERVE_SIZE,
					  CMABUF_STRATEGY_AUTO, &data[i]));
	hits = rc_stat(_metadata, general, "stats/prepare_hits") - hits0;
	for (i = 0; i < 2; i++)
		close(data[i].fd);
	close(fd);
	return hits;
}

/*
 * The pool gives back in proportion, keeps the reserve, and refills only
 * once reclaim has stopped, whatever another file asks meanwhile.
 */
TEST_F_TIMEOUT(reclaim, yields_in_proportion_keeps_reserve_backs_off, 600)
{
	int dev[2] = { self->general, self->large };
	struct rc_look start, first = { }, bad = { }, two, watch, high;
	unsigned long long t0, hits, v, backoff = 0;
	__u64 floor;
	struct rc_mem *m = &self->mem;
	struct cmabuf_prepare p;
	struct load_sys sys = { };
	int other, ret;

	ASSERT_EQ(0, rc_look(dev, &start));
	t0 = start.ms;
	ASSERT_EQ(0, sys_min_watermarks(&floor));
	floor += RC_MARGIN;

	ret = rc_press(m, dev, floor, &start, &first, &bad, &two);
	if (m->held_ms)
		TH_LOG("touched %zu MiB in %llu ms, then held", m->touched >> 20,
		       m->held_ms - t0);
	if (first.ms)
		TH_LOG("first back %llu ms in: general %llu MiB, large %llu MiB",
		       first.ms - t0, first.general >> 20, first.large >> 20);
	ASSERT_EQ(0, ret)
		TH_LOG("general has %llu MiB ready after %zu MiB touched, %llu ms",
		       two.general >> 20, m->touched >> 20, two.ms - t0);
	TH_LOG("two back %llu ms after the first: general %llu MiB, large %llu MiB",
	       two.ms - first.ms, two.general >> 20, two.large >> 20);
	/* Proportion: the 512 MiB buffer not before general's small ones. */
	EXPECT_EQ(0ULL, bad.ms)
		TH_LOG("the 512 MiB buffer back while general had %llu of %llu MiB, %llu ms in",
		       bad.general >> 20, start.general >> 20, bad.ms - t0);

	/* Room for a refill; the rest of the pressure holds. */
	munmap(m->base, RC_ROOM);
	ASSERT_EQ(0, sys_read_meminfo(&sys));
	TH_LOG("held %zu MiB; MemFree %llu MiB, CmaFree %llu MiB",
	       (m->touched - (size_t)RC_ROOM) >> 20, sys.mem_free >> 20,
	       sys.cma_free >> 20);

	/* The reserve, kept through it: both its buffers served ready. */
	hits = rc_reserve_hits(_metadata, self->general);
	EXPECT_EQ(2ULL, hits)
		TH_LOG("reclaim took the reserve: %llu of its 2 buffers left", hits);
	EXPECT_EQ(0, cmabuf_sysfs_write(self->general, "reserve", "\n"));
	self->reserve_set = false;

	/* Another file's PREPARE, count 0: no refill while the back-off lasts. */
	ASSERT_EQ(0, rc_look(dev, &watch));
	cmabuf_sysfs_read(self->general, "reclaim_backoff_ms", &backoff);
	other = rc_open(RC_GENERAL);
	ASSERT_LE(0, other);
	ASSERT_EQ(0, cmabuf_prepare(other, RC_SMALL, CMABUF_STRATEGY_AUTO, 0, 0,
				    &p));
	high = watch;
	while (cmabuf_now_ms() < watch.ms + RC_QUIET_MS) {
		struct rc_look l;

		ASSERT_EQ(0, rc_look(dev, &l));
		if (l.general > high.general)
			high.general = l.general;
		if (l.large > high.large)
			high.large = l.large;
		usleep(5000);
	}
	close(other);
	TH_LOG("another file's PREPARE, %llu ms of back-off left; in %u ms:",
	       backoff, RC_QUIET_MS);
	TH_LOG("general %llu -> max %llu MiB, large %llu -> max %llu MiB",
	       watch.general >> 20, high.general >> 20, watch.large >> 20,
	       high.large >> 20);
	EXPECT_EQ(watch.general, high.general)
		TH_LOG("general refilled while reclaim had just asked");
	EXPECT_EQ(watch.large, high.large)
		TH_LOG("large refilled while reclaim had just asked");

	/* Pressure gone: the wants stand and refill once reclaim stays away. */
	munmap(m->base + RC_ROOM, m->len - RC_ROOM);
	m->base = NULL;
	ASSERT_EQ(0, cmabuf_sysfs_wait(self->general, "prepared_bytes",
				       RC_SMALL_N * RC_SMALL, RC_REFILL_MS, &v))
		TH_LOG("general has %llu MiB of its want's 128", v >> 20);
	ASSERT_EQ(0, cmabuf_sysfs_wait(self->large, "prepared_bytes", RC_BIG,
				       RC_REFILL_MS, &v))
		TH_LOG("large has %llu MiB of its want's 512, back-off %llu ms, %llu failures",
		       v >> 20, rc_stat(_metadata, self->large, "reclaim_backoff_ms"),
		       rc_stat(_metadata, self->large, "stats/failures"));
	TH_LOG("refilled %llu ms after the pressure; general reclaimed %llu, refilled %llu",
	       cmabuf_now_ms() - watch.ms,
	       rc_stat(_metadata, self->general, "reclaimed_buffers"),
	       rc_stat(_metadata, self->general, "refilled_buffers"));
	EXPECT_LE(2ULL, rc_stat(_metadata, self->general, "refilled_buffers"));
}

TEST_HARNESS_MAIN
