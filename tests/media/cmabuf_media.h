/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cmabuf side of the tests/media programs that capture into cmabuf
 * buffers (cmabuf_v4l2_test, cmabuf_pipeline_test), with the kselftest
 * harness: where a test's buffers come from and whether it can have them
 * here (a SKIP only for what the kernel or the module lacks), buffers
 * allocated, mapped and checked zero, a frame checked through cmabuf's
 * mmap between DMA_BUF_IOCTL_SYNC brackets, and every instance's live
 * buffers and CMA area back where a test found them. Include it after
 * kselftest_harness.h, in the one file of a program.
 */
#ifndef CMABUF_MEDIA_H
#define CMABUF_MEDIA_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/dma-buf.h>

#include "cmabuf_test_util.h"
#include "reliability_util.h"
#include "v4l2_util.h"

/* How long frees in flight may take to land. */
#define SETTLE_MS	5000

/* Where a variant's buffers come from (struct src). */
#define GENERAL(s)	{ .inst = "general", .strategy = CMABUF_STRATEGY_##s }
#define LARGE(s)	{ .inst = "large", .strategy = CMABUF_STRATEGY_##s }
#define GENERAL_HEAP	{ .inst = "general", .heap = true }
#define LARGE_HEAP	{ .inst = "large", .heap = true }

/**
 * struct src - where a test's buffers come from
 * @inst: the cmabuf instance, "general" (below 4 GiB) or "large" (above).
 * @heap: from its dma-heap rather than its misc device.
 * @strategy: CMABUF_STRATEGY_* for the misc device.
 */
struct src {
	const char *inst;
	bool heap;
	__u32 strategy;
};

/**
 * struct inst - an open cmabuf instance
 * @dev: /dev/cmabuf-<label>.
 * @info: its CMABUF_IOC_INFO.
 */
struct inst {
	int dev;
	struct cmabuf_info info;
};

/**
 * struct cbuf - a cmabuf buffer and its CPU mapping
 * @fd: the dma-buf.
 * @map: all of it, mapped shared.
 * @size: its size.
 * @strategy: the strategy that allocated it.
 */
struct cbuf {
	int fd;
	unsigned char *map;
	size_t size;
	__u32 strategy;
};

/**
 * kernel_lacks() - the kernel has no @driver at all
 * @driver: a test driver's module name (vim2m, vimc)
 *
 * A stock Debian kernel may be built without some of the test drivers;
 * tests/suites/v4l2.sh lists those it lacks in CMABUF_MEDIA_ABSENT,
 * separated by spaces, and their tests skip, naming the driver.
 *
 * Return: true when @driver is listed there.
 */
static inline bool kernel_lacks(const char *driver)
{
	const char *p = getenv("CMABUF_MEDIA_ABSENT");
	size_t n = strlen(driver);

	while (p && *p) {
		p += strspn(p, " ");
		if (!strncmp(p, driver, n) && (p[n] == ' ' || !p[n]))
			return true;
		p += strcspn(p, " ");
	}
	return false;
}

/**
 * vb2_keeps_refused() - the kernel's videobuf2 leaks a refused QBUF's buffers
 *
 * Without the videobuf2-core fix of kernel/patches/ (7.2's 0006, 6.12's
 * 0003), a QBUF an allocator refuses leaves vb2 holding the planes'
 * dma-bufs for good: a test that provokes it would leave buffers live for
 * every test after it. tests/suites/v4l2.sh sets CMABUF_VB2_KEEPS_REFUSED
 * on kernels that lack the fix (Debian's, as packaged).
 *
 * Return: true on such a kernel.
 */
static inline bool vb2_keeps_refused(void)
{
	const char *p = getenv("CMABUF_VB2_KEEPS_REFUSED");

	return p && *p == '1';
}

#define VB2_KEEPS_REFUSED_WHY \
	"this kernel's videobuf2 keeps a refused QBUF's buffers for good " \
	"(no fix of kernel/patches/; docs/importers.md): not provoked here"

/**
 * struct leak - what a test must leave as it found it
 * @inst: every instance of the driver.
 * @count: entries of @inst.
 * @base: their live buffers and CMA areas.
 */
struct leak {
	struct rel_instance inst[REL_MAX_INSTANCES];
	unsigned int count;
	struct rel_snapshot base;
};

static inline int leak_take(struct leak *l)
{
	int ret = rel_instances(l->inst, REL_MAX_INSTANCES, &l->count);

	return ret ?: rel_snapshot_take(l->inst, l->count, &l->base);
}

/* Every instance back where @l found it, once frees in flight are done. */
static inline void leak_check(struct __test_metadata *_metadata,
			      const struct leak *l)
{
	struct rel_snapshot now;
	char why[256] = "";

	EXPECT_EQ(0, rel_snapshot_settle(l->inst, l->count, &l->base,
					 SETTLE_MS, &now, why, sizeof(why)))
		TH_LOG("not back where it started: %s", why);
}

/* Live buffers of instance "cmabuf-@label" now, frees in flight done. */
static inline unsigned long long live_buffers(struct __test_metadata *_metadata,
					      const struct leak *l, const char *label)
{
	const struct rel_counts *c;
	struct rel_snapshot now;
	char name[REL_NAME_MAX];

	snprintf(name, sizeof(name), "cmabuf-%s", label);
	EXPECT_EQ(0, rel_snapshot_take(l->inst, l->count, &now));
	c = rel_snapshot_find(&now, name);
	EXPECT_NE(NULL, c) TH_LOG("no instance %s", name);
	return c ? c->live_buffers : 0;
}

static inline unsigned long long base_live(const struct leak *l, const char *label)
{
	const struct rel_counts *c;
	char name[REL_NAME_MAX];

	snprintf(name, sizeof(name), "cmabuf-%s", label);
	c = rel_snapshot_find(&l->base, name);
	return c ? c->live_buffers : 0;
}

static inline void inst_open(struct __test_metadata *_metadata, struct inst *in,
			     const char *label)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/cmabuf-%s", label);
	in->dev = open(path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, in->dev) TH_LOG("%s: %s", path, strerror(errno));
	ASSERT_EQ(0, cmabuf_get_info(in->dev, &in->info, NULL, 0));
}

static inline void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/*
 * Can @s be had here? A missing dma-heap SKIPs where cmabuf has none
 * (heap=0, or 6.12, which does not export dma_heap_add), and fails where
 * it must have one; a strategy the kernel lacks SKIPs.
 */
static inline bool src_usable(struct __test_metadata *_metadata,
			      const struct inst *in, const struct src *s)
{
	char path[64];
	__u32 kernel;

	if (s->heap) {
		snprintf(path, sizeof(path), "/dev/dma_heap/cmabuf-%s",
			 s->inst);
		if (!access(path, F_OK))
			return true;
		ASSERT_FALSE(rel_module_has_heaps())
			TH_LOG("cmabuf has dma-heaps, but no %s", path);
		SKIP(return false,
		     "no %s: cmabuf has no dma-heaps here (heap=0, or no dma_heap_add)",
		     path);
	}
	if (cmabuf_strategy_supported(&in->info, s->strategy))
		return true;
	/* Only what the kernel lacks may SKIP, not a strategy cmabuf lost. */
	ASSERT_EQ(0, cmabuf_kernel_strategies(&kernel));
	ASSERT_EQ(0U, kernel & CMABUF_STRATEGY_BIT(s->strategy))
		TH_LOG("the kernel has %s, cmabuf-%s does not offer it",
		       cmabuf_strategy_name(s->strategy), s->inst);
	SKIP(return false, "%s is not supported by this kernel (strategies %#x)",
	     cmabuf_strategy_name(s->strategy), in->info.strategies);
}

/* DMA_BUF_IOCTL_SYNC with exactly @flags. */
static inline int sync_exactly(int buf, __u64 flags)
{
	struct dma_buf_sync sync = { .flags = flags };

	return cmabuf_ioctl_retry(buf, DMA_BUF_IOCTL_SYNC, &sync);
}

/*
 * Bytes to ask for @size with @strategy: whole pages, and for COMPOUND a
 * power of two of them within its orders, since frames are neither.
 */
static inline __u64 alloc_size(const struct cmabuf_info *info, __u32 strategy,
			       __u64 size)
{
	__u64 pages = (size + info->page_size - 1) / info->page_size;
	unsigned int order = info->min_compound_order;

	if (strategy != CMABUF_STRATEGY_COMPOUND)
		return pages * info->page_size;
	while ((1ULL << order) < pages)
		order++;
	return (__u64)info->page_size << order;
}

static inline void cbuf_init(struct cbuf *b)
{
	b->fd = -1;
	b->map = MAP_FAILED;
	b->size = 0;
}

static inline void cbuf_free(struct cbuf *b)
{
	if (b->map != MAP_FAILED)
		munmap(b->map, b->size);
	close_fd(&b->fd);
	cbuf_init(b);
}

/* A buffer of at least @size bytes from @s, mapped, checked zero. */
static inline void cbuf_alloc(struct __test_metadata *_metadata,
			      const struct inst *in, const struct src *s, __u64 size,
			      struct cbuf *b)
{
	struct cmabuf_alloc_data data;
	char heap[64];
	off_t end;

	if (s->heap) {
		snprintf(heap, sizeof(heap), "cmabuf-%s", s->inst);
		ASSERT_EQ(0, heap_alloc_named(heap, size, &b->fd))
			TH_LOG("%llu bytes from dma-heap %s",
			       (unsigned long long)size, heap);
		/* The heap allocates with AUTO: what it must have picked. */
		b->strategy = cmabuf_auto_strategy(&in->info, size);
	} else {
		size = alloc_size(&in->info, s->strategy, size);
		ASSERT_EQ(0, cmabuf_alloc(in->dev, size, s->strategy, &data))
			TH_LOG("%llu bytes %s from cmabuf-%s",
			       (unsigned long long)size,
			       cmabuf_strategy_name(s->strategy), s->inst);
		b->fd = data.fd;
		b->strategy = data.strategy;
		if (s->strategy != CMABUF_STRATEGY_AUTO)
			ASSERT_EQ(s->strategy, data.strategy);
	}
	end = lseek(b->fd, 0, SEEK_END);
	ASSERT_LE((off_t)size, end);
	b->size = end;
	b->map = cmabuf_map(b->fd, b->size, 0);
	ASSERT_NE(MAP_FAILED, (void *)b->map);
	/* Zero from the start: what is not zero later, a driver wrote. */
	ASSERT_EQ(0, sync_exactly(b->fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ));
	ASSERT_EQ(b->size, cmabuf_first_nonzero(b->map, b->size));
	ASSERT_EQ(0, sync_exactly(b->fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ));
}

/* The planes of a QBUF of the buffers @b, @n planes, each whole. */
static inline void planes_of(const struct cbuf *b, unsigned int n,
			     struct vplane *vp)
{
	unsigned int p;

	for (p = 0; p < n; p++) {
		vp[p].fd = b[p].fd;
		vp[p].length = 0;
		vp[p].bytesused = 0;
	}
}

/*
 * What the driver left in @b, read through cmabuf's mapping inside
 * DMA_BUF_SYNC_START and _END: the @len bytes of @want, not all zero,
 * and nothing written past them.
 */
static inline void check_frame(struct __test_metadata *_metadata,
			       const struct cbuf *b, const unsigned char *want,
			       size_t len)
{
	size_t diff;

	ASSERT_LE(len, b->size);
	ASSERT_EQ(0, sync_exactly(b->fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ));
	diff = first_diff(b->map, want, len);
	EXPECT_EQ(len, diff)
		TH_LOG("byte %zu of %zu is %#x, expected %#x", diff, len,
		       diff < len ? b->map[diff] : 0,
		       diff < len ? want[diff] : 0);
	EXPECT_GT(len, cmabuf_first_nonzero(b->map, len))
		TH_LOG("the frame is all zero: nothing was written");
	EXPECT_EQ(b->size - len,
		  cmabuf_first_nonzero(b->map + len, b->size - len))
		TH_LOG("bytes past the frame were written");
	ASSERT_EQ(0, sync_exactly(b->fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ));
}

/* ---- V4L2 steps a test cannot go on without ---- */

/* The capture node of vivid's instance with @allocator and API @mplane. */
static inline int vivid_node(struct __test_metadata *_metadata,
			     unsigned int allocator, bool mplane)
{
	int fd = vivid_open(allocator, mplane);

	ASSERT_LE(0, fd)
		TH_LOG("no vivid node with allocator %u, %s-planar: %s",
		       allocator, mplane ? "multi" : "single", strerror(-fd));
	ASSERT_EQ(0, vivid_still(fd))
		TH_LOG("vivid's webcam input and still pattern");
	return fd;
}

/* S_FMT, which must give exactly what was asked; the result in @f. */
static inline void fmt_must(struct __test_metadata *_metadata, int fd,
			    __u32 type, __u32 fourcc, __u32 width,
			    __u32 height, struct vfmt *f)
{
	int ret = fmt_set(fd, type, fourcc, width, height, f);

	ASSERT_EQ(0, ret)
		TH_LOG("S_FMT %.4s %ux%u: %s; the driver chose %.4s %ux%u",
		       (char *)&fourcc, width, height, strerror(ret),
		       (char *)&f->fourcc, f->width, f->height);
}

/* ---- the whole program ---- */

/* Every instance as the program found it, for its last test. */
static struct leak media_at_start;
static int media_at_start_err;

/* main(): every instance's counters, then the tests. */
static inline int media_harness_run(int argc, char **argv)
{
	media_at_start_err = leak_take(&media_at_start);
	return test_harness_run(argc, argv);
}

/*
 * The last test of a program: every buffer of every test is gone, the
 * instances and their CMA areas are where they were before the first.
 */
static inline void media_back_at_start(struct __test_metadata *_metadata)
{
	ASSERT_EQ(0, media_at_start_err);
	leak_check(_metadata, &media_at_start);
}

#endif /* CMABUF_MEDIA_H */
