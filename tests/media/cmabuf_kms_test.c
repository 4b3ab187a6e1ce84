// SPDX-License-Identifier: GPL-2.0
/*
 * KMS importer test of cmabuf: a real display driver, vkms, scans out
 * cmabuf's buffers and writes its composed output back into another.
 *
 * Every test imports its buffers into vkms (PRIME), wraps them in
 * framebuffers and, for the scan-out cases, lights the CRTC with a small
 * mode and the writeback connector only, whose framebuffer is a second
 * cmabuf buffer. The CPU writes the picture through cmabuf's mmap and
 * reads the written-back one the same way, both between DMA_BUF_IOCTL_SYNC
 * brackets. What it proves:
 *
 *  - primary_xrgb8888: vkms reads an XRGB8888 buffer with a padded pitch
 *    and writes back exactly its colour bytes (and 0xff in X, as vkms
 *    does), touching nothing outside the writeback framebuffer's rows;
 *  - overlay_over_primary: an overlay plane, cropped and placed, composed
 *    over the primary is exactly the picture computed here;
 *  - nv12_primary: a YUV framebuffer, two planes of one buffer at two
 *    offsets, converted by vkms's BT.601 full-range matrix: greys exact,
 *    colours within vkms's rounding (skipped where vkms lists no NV12);
 *  - fb_beyond_buffer_refused: the DRM core refuses a framebuffer whose
 *    pitch, height and offset reach past the buffer (EINVAL) or past
 *    32 bits (ERANGE), and takes one that ends on its last byte;
 *  - fb_keeps_buffer: a framebuffer keeps its buffer, and it scans out,
 *    after the fd, mapping and GEM handle are gone; RmFB frees it.
 *
 * Each variant takes its buffers from one source: an instance's misc
 * device with each allocation strategy, or its dma-heap (none on 6.12: a
 * SKIP there, checked against cmabuf.ko). Both instances run: "large" is
 * above 4 GiB, which vkms (64-bit DMA mask) must reach. Every test ends
 * with the instance's counters and its CMA area where they started.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/dma-buf.h>

#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "kselftest_harness.h"
#include "cmabuf_test_util.h"
#include "reliability_util.h"
#include "kms_util.h"

/* A small mode keeps each composition cheap, on KASAN too. */
#define MODE_W		96
#define MODE_H		64

/* Pitches that are not width x 4: vkms must step by the pitch. */
#define PRIMARY_PITCH	(MODE_W * 4 + 64)
#define WB_PITCH	(MODE_W * 4 + 32)

/* The overlay: a 48x32 framebuffer, its 40x24 middle at (50, 30). */
#define OVL_FB_W	48
#define OVL_FB_H	32
#define OVL_PITCH	256
#define OVL_SRC_X	4
#define OVL_SRC_Y	2
#define OVL_W		40
#define OVL_H		24
#define OVL_X		50
#define OVL_Y		30

/*
 * NV12: Y then CbCr, in one buffer; a gap between them, padded pitches.
 * Every scanned-out framebuffer starts at offset 0 of its buffer: vkms
 * (6.12 and 7.2) adds offsets[0] twice to where a plane reads, once in
 * the address drm_gem_fb_vmap() hands it and once per pixel.
 */
#define NV12_PITCH	128
#define NV12_UV_OFFSET	(NV12_PITCH * MODE_H + 512)

#define BUF_SIZE	(64 * 1024)
#define CANARY		0xa5
#define FENCE_MS	5000
#define SETTLE_MS	5000

#define SEED_PRIMARY	0x7072696dU	/* "prim" */
#define SEED_OVERLAY	0x6f766c79U	/* "ovly" */

struct kbuf {
	int fd;
	void *map;
	size_t size;
	__u32 handle;
};

#define MAX_FBS		4

/**
 * struct kms_test - one test's state
 * @k: vkms.
 * @dev: the instance's misc device.
 * @heap: the dma-heap the buffers come from, NULL: @dev with @strategy.
 * @strategy: a %CMABUF_STRATEGY_*.
 * @info: the instance.
 * @area: its CMA area.
 * @start: the instance's and area's counters before any buffer.
 * @counting: @start was read: the teardown checks for leaks.
 * @src: the buffer scanned out.
 * @ovl: the overlay's buffer.
 * @wb: the buffer written back into.
 * @fbs: framebuffers the teardown removes.
 */
struct kms_test {
	struct kms k;
	int dev;
	const char *heap;
	__u32 strategy;
	struct cmabuf_info info;
	char area[CMABUF_AREA_NAME_MAX];
	struct cmabuf_counters start;
	bool counting;
	struct kbuf src, ovl, wb;
	__u32 fbs[MAX_FBS];
};

FIXTURE(kms) {
	struct kms_test t;
};

FIXTURE_VARIANT(kms) {
	const char *dev;
	const char *heap;	/* allocate from this dma-heap instead */
	__u32 strategy;
	bool high;		/* the instance lies above 4 GiB */
};

FIXTURE_VARIANT_ADD(kms, general_auto) {
	.dev = "/dev/cmabuf-general",
	.strategy = CMABUF_STRATEGY_AUTO,
};

FIXTURE_VARIANT_ADD(kms, general_compound) {
	.dev = "/dev/cmabuf-general",
	.strategy = CMABUF_STRATEGY_COMPOUND,
};

FIXTURE_VARIANT_ADD(kms, general_frozen) {
	.dev = "/dev/cmabuf-general",
	.strategy = CMABUF_STRATEGY_FROZEN,
};

FIXTURE_VARIANT_ADD(kms, general_legacy) {
	.dev = "/dev/cmabuf-general",
	.strategy = CMABUF_STRATEGY_LEGACY,
};

FIXTURE_VARIANT_ADD(kms, large_auto) {
	.dev = "/dev/cmabuf-large",
	.strategy = CMABUF_STRATEGY_AUTO,
	.high = true,
};

FIXTURE_VARIANT_ADD(kms, large_compound) {
	.dev = "/dev/cmabuf-large",
	.strategy = CMABUF_STRATEGY_COMPOUND,
	.high = true,
};

FIXTURE_VARIANT_ADD(kms, large_frozen) {
	.dev = "/dev/cmabuf-large",
	.strategy = CMABUF_STRATEGY_FROZEN,
	.high = true,
};

FIXTURE_VARIANT_ADD(kms, large_legacy) {
	.dev = "/dev/cmabuf-large",
	.strategy = CMABUF_STRATEGY_LEGACY,
	.high = true,
};

FIXTURE_VARIANT_ADD(kms, heap_general) {
	.dev = "/dev/cmabuf-general",
	.heap = "cmabuf-general",
};

FIXTURE_VARIANT_ADD(kms, heap_large) {
	.dev = "/dev/cmabuf-large",
	.heap = "cmabuf-large",
	.high = true,
};

/* ---- buffers ---- */

/*
 * A buffer of at least @want bytes from the variant's source, mapped and
 * imported into vkms. COMPOUND takes a power of two of pages, at least
 * its smallest order.
 */
static int buf_get(struct kms_test *t, size_t want, struct kbuf *b)
{
	struct cmabuf_alloc_data data;
	__u64 pages = want / t->info.page_size;
	unsigned int order = t->info.min_compound_order;
	off_t end;
	int ret;

	if (t->heap) {
		ret = heap_alloc_named(t->heap, want, &b->fd);
	} else {
		if (t->strategy == CMABUF_STRATEGY_COMPOUND) {
			while ((1ULL << order) < pages)
				order++;
			want = (size_t)t->info.page_size << order;
		}
		ret = cmabuf_alloc(t->dev, want, t->strategy, &data);
		if (!ret)
			b->fd = data.fd;
	}
	if (ret)
		return ret;
	end = lseek(b->fd, 0, SEEK_END);
	if (end < (off_t)want)
		return end < 0 ? errno : EINVAL;
	b->size = end;
	b->map = cmabuf_map(b->fd, b->size, 0);
	if (b->map == MAP_FAILED)
		return errno;
	return drmPrimeFDToHandle(t->k.card, b->fd, &b->handle) ? errno : 0;
}

static void buf_put(int card, struct kbuf *b)
{
	if (b->handle)
		drmCloseBufferHandle(card, b->handle);
	if (b->map != MAP_FAILED)
		munmap(b->map, b->size);
	if (b->fd >= 0)
		close(b->fd);
	b->handle = 0;
	b->map = MAP_FAILED;
	b->fd = -1;
}

/* A framebuffer the teardown removes. */
static int fb_add(struct kms_test *t, struct kbuf *b, __u32 format,
		  __u32 w, __u32 h, const __u32 pitch[2],
		  const __u32 offset[2], __u32 *fb)
{
	int i, ret;

	ret = kms_add_fb(t->k.card, b->handle, format, w, h, pitch, offset, fb);
	for (i = 0; !ret && i < MAX_FBS; i++) {
		if (!t->fbs[i]) {
			t->fbs[i] = *fb;
			return 0;
		}
	}
	return ret ?: ENOSPC;
}

static int fb_remove(struct kms_test *t, __u32 fb)
{
	int i;

	for (i = 0; i < MAX_FBS; i++)
		if (t->fbs[i] == fb)
			t->fbs[i] = 0;
	return drmModeRmFB(t->k.card, fb) ? errno : 0;
}

static bool counters_same(const struct cmabuf_counters *a,
			  const struct cmabuf_counters *b)
{
	return a->live_buffers == b->live_buffers &&
	       a->live_bytes == b->live_bytes &&
	       a->cma_used_pages == b->cma_used_pages &&
	       a->cma_held_pages == b->cma_held_pages;
}

/*
 * Wait until the instance holds @extra buffers more than at the start:
 * DRM drops its last references from work items (writeback cleanup,
 * framebuffer removal), so a free can come shortly after the call.
 */
static int counters_wait(struct kms_test *t, __u64 extra,
			 struct cmabuf_counters *now)
{
	unsigned long long end = cmabuf_now_ms() + SETTLE_MS;
	struct cmabuf_counters want = t->start;
	bool done;
	int ret;

	want.live_buffers += extra;
	for (;;) {
		ret = cmabuf_counters_read(t->dev, t->area, now);
		done = extra ? now->live_buffers == want.live_buffers :
			       counters_same(now, &want);
		if (ret || done)
			return ret;
		if (cmabuf_now_ms() > end)
			break;
		usleep(10000);
	}
	ret = ETIMEDOUT;
	return ret;
}

/* ---- pictures ---- */

/* An XRGB8888 pixel of picture @seed, X included: vkms must ignore it. */
static __u32 pixel(__u32 seed, unsigned int x, unsigned int y)
{
	__u32 v = seed ^ (x * 0x9e3779b1U) ^ (y * 0x85ebca77U);

	v ^= v >> 15;
	v *= 0x2c1b3c6dU;
	return v ^ (v >> 12);
}

/* Draw picture @seed, @w x @h, at @pitch; the bytes between rows too. */
static void draw(void *map, __u32 pitch, __u32 w, __u32 h, __u32 seed)
{
	unsigned int x, y;
	__u32 *row;

	for (y = 0; y < h; y++) {
		row = (__u32 *)((char *)map + y * pitch);
		memset(row, 0x3c, pitch);
		for (x = 0; x < w; x++)
			row[x] = pixel(seed, x, y);
	}
}

/* Y and CbCr of the NV12 picture: the left half grey, the right colour. */
static unsigned int nv12_y(unsigned int x, unsigned int y)
{
	return (x * 5 + y * 9) & 0xff;
}

static void nv12_c(unsigned int x, unsigned int y, unsigned int *cb,
		   unsigned int *cr)
{
	unsigned int bx = x / 2, by = y / 2;

	*cb = x < MODE_W / 2 ? 128 : 32 + (bx * 37 + by * 11) % 192;
	*cr = x < MODE_W / 2 ? 128 : 32 + (bx * 13 + by * 29) % 192;
}

static void draw_nv12(__u8 *map)
{
	unsigned int x, y, cb, cr;
	__u8 *uv;

	memset(map, 0x3c, NV12_UV_OFFSET + NV12_PITCH * MODE_H / 2);
	for (y = 0; y < MODE_H; y++)
		for (x = 0; x < MODE_W; x++)
			map[y * NV12_PITCH + x] = nv12_y(x, y);
	for (y = 0; y < MODE_H; y += 2) {
		uv = map + NV12_UV_OFFSET + y / 2 * NV12_PITCH;
		for (x = 0; x < MODE_W; x += 2) {
			nv12_c(x, y, &cb, &cr);
			uv[x] = cb;
			uv[x + 1] = cr;
		}
	}
}

static double clamp8(double v)
{
	return v < 0 ? 0 : v > 255 ? 255 : v;
}

/* BT.601 full range, from Kr = 0.299 and Kb = 0.114: R, G, B. */
static void bt601_full(unsigned int y, unsigned int cb, unsigned int cr,
		       double rgb[3])
{
	double u = (double)cb - 128, v = (double)cr - 128;

	rgb[0] = clamp8(y + 1.402 * v);
	rgb[1] = clamp8(y - 0.344136 * u - 0.714136 * v);
	rgb[2] = clamp8(y + 1.772 * u);
}

/* What the writeback must hold at (@x, @y) of the overlay test. */
static __u32 composed(unsigned int x, unsigned int y)
{
	if (x >= OVL_X && x < OVL_X + OVL_W && y >= OVL_Y && y < OVL_Y + OVL_H)
		return pixel(SEED_OVERLAY, x - OVL_X + OVL_SRC_X,
			     y - OVL_Y + OVL_SRC_Y);
	return pixel(SEED_PRIMARY, x, y);
}

/*
 * Check the written-back XRGB8888 picture against @want (NULL: the NV12
 * conversion): its colour bytes, the 0xff vkms writes into X, and the
 * canary everywhere else in the buffer. Returns the bad pixels.
 */
static unsigned int wb_check(struct __test_metadata *_metadata,
			     const struct kbuf *wb, __u32 (*want)(unsigned int,
								  unsigned int))
{
	const __u8 *map = wb->map;
	unsigned int x, y, bad = 0, cb, cr, c;
	double rgb[3], d;
	size_t i, from;
	__u32 got, exp;

	for (y = 0; y < MODE_H; y++) {
		for (x = 0; x < MODE_W; x++) {
			memcpy(&got, map + y * WB_PITCH + x * 4, 4);
			if (want) {
				exp = (want(x, y) & 0xffffff) | 0xff000000U;
				if (got == exp)
					continue;
				if (!bad++)
					TH_LOG("(%u, %u): %08x, want %08x", x,
					       y, got, exp);
				continue;
			}
			/*
			 * vkms converts in 16 bits with its 32.32 fixed-point
			 * BT.601 full-range matrix, rounds, clamps, and
			 * rounds again to 8 bits: the rounding to 16 bits and
			 * its coefficients' precision add well under 1/128 of
			 * a step to the last rounding. So each channel is
			 * within 0.51 of the ideal value, and greys (Cb = Cr
			 * = 128) are exact.
			 */
			nv12_c(x, y, &cb, &cr);
			bt601_full(nv12_y(x, y), cb, cr, rgb);
			for (c = 0; c < 3; c++) {
				d = (double)((got >> (16 - 8 * c)) & 0xff) -
				    rgb[c];
				if ((cb == 128 && cr == 128 && d != 0) ||
				    d > 0.51 || d < -0.51 || got >> 24 != 0xff)
					break;
			}
			if (c < 3 && !bad++)
				TH_LOG("(%u, %u) Y %u Cb %u Cr %u: %08x, want %.2f %.2f %.2f",
				       x, y, nv12_y(x, y), cb, cr, got,
				       rgb[0], rgb[1], rgb[2]);
		}
		for (i = MODE_W * 4; i < WB_PITCH; i++)
			if (map[y * WB_PITCH + i] != CANARY && !bad++)
				TH_LOG("row %u: byte %zu past the row written", y, i);
	}
	from = (size_t)MODE_H * WB_PITCH;
	for (i = from; i < wb->size; i++)
		if (map[i] != CANARY && !bad++)
			TH_LOG("byte %zu past the framebuffer written", i);
	return bad;
}

/* Fill the writeback buffer with the canary and add its framebuffer. */
static int wb_ready(struct kms_test *t, __u32 *fb)
{
	const __u32 pitch[2] = { WB_PITCH }, offset[2] = { 0 };
	int ret;

	ret = dmabuf_sync(t->wb.fd, DMA_BUF_SYNC_START);
	if (ret)
		return ret;
	memset(t->wb.map, CANARY, t->wb.size);
	return dmabuf_sync(t->wb.fd, DMA_BUF_SYNC_END) ?:
	       fb_add(t, &t->wb, DRM_FORMAT_XRGB8888, MODE_W, MODE_H,
		      pitch, offset, fb);
}

/* Read the writeback buffer between syncs and check it. */
static unsigned int wb_read(struct __test_metadata *_metadata,
			    struct kms_test *t,
			    __u32 (*want)(unsigned int, unsigned int))
{
	unsigned int bad;

	EXPECT_EQ(0, dmabuf_sync(t->wb.fd, DMA_BUF_SYNC_START));
	bad = wb_check(_metadata, &t->wb, want);
	EXPECT_EQ(0, dmabuf_sync(t->wb.fd, DMA_BUF_SYNC_END));
	return bad;
}

static __u32 primary_picture(unsigned int x, unsigned int y)
{
	return pixel(SEED_PRIMARY, x, y);
}

/* Draw the primary picture into @b between syncs. */
static int draw_primary(struct kbuf *b)
{
	int ret = dmabuf_sync(b->fd, DMA_BUF_SYNC_START);

	if (ret)
		return ret;
	draw(b->map, PRIMARY_PITCH, MODE_W, MODE_H, SEED_PRIMARY);
	return dmabuf_sync(b->fd, DMA_BUF_SYNC_END);
}

/* ---- the fixture ---- */

FIXTURE_SETUP(kms)
{
	const struct kbuf none = { .fd = -1, .map = MAP_FAILED };
	struct kms_test *t = &self->t;
	struct cmabuf_phys phys;
	__u32 kernel_has, bit;
	char path[64];
	int ret;

	t->k.card = -1;
	t->src = none;
	t->ovl = none;
	t->wb = none;
	t->heap = variant->heap;
	t->strategy = variant->strategy;
	t->dev = open(variant->dev, O_RDWR | O_CLOEXEC);
	if (t->dev < 0)
		SKIP(return, "no instance %s (%s)", variant->dev,
		     strerror(errno));
	ASSERT_EQ(0, cmabuf_get_info(t->dev, &t->info, t->area,
				     sizeof(t->area)));
	if (variant->heap) {
		snprintf(path, sizeof(path), "/dev/dma_heap/%s", variant->heap);
		if (access(path, F_OK)) {
			/* Only a module built without heaps may lack it. */
			ASSERT_FALSE(rel_module_has_heaps())
				TH_LOG("cmabuf has dma-heaps but no %s", path);
			SKIP(return, "no dma-heap %s: cmabuf has none here",
			     path);
		}
	} else if (!cmabuf_strategy_supported(&t->info, variant->strategy)) {
		/* Only a kernel without the frozen API may lack one. */
		ASSERT_EQ(0, cmabuf_kernel_strategies(&kernel_has));
		bit = CMABUF_STRATEGY_BIT(variant->strategy);
		ASSERT_EQ(0U, kernel_has & bit)
			TH_LOG("the kernel has %s, %s does not offer it",
			       cmabuf_strategy_name(variant->strategy),
			       variant->dev);
		SKIP(return, "%s: no %s on this kernel", variant->dev,
		     cmabuf_strategy_name(variant->strategy));
	}

	t->k.card = vkms_open();
	ASSERT_LE(0, t->k.card)
		TH_LOG("no DRM card driven by vkms (modprobe vkms)");
	ret = kms_init(&t->k, MODE_W, MODE_H);
	ASSERT_EQ(0, ret)
		TH_LOG("vkms lacks atomic, writeback or an overlay plane: %s",
		       strerror(ret));

	ASSERT_EQ(0, cmabuf_counters_read(t->dev, t->area, &t->start));
	t->counting = true;
	ASSERT_EQ(0, buf_get(t, BUF_SIZE, &t->src));
	ASSERT_EQ(0, buf_get(t, BUF_SIZE, &t->wb));

	/* The large instance's buffers must lie where 32 bits cannot reach. */
	ASSERT_EQ(0, cmabuf_phys(t->dev, t->src.fd, &phys));
	if (variant->high)
		ASSERT_LE(1ULL << 32, phys.phys);
}

FIXTURE_TEARDOWN(kms)
{
	struct kms_test *t = &self->t;
	struct cmabuf_counters now;
	int i;

	if (t->k.card >= 0) {
		if (t->k.lit)
			EXPECT_EQ(0, kms_off(&t->k));
		for (i = 0; i < MAX_FBS; i++)
			if (t->fbs[i])
				EXPECT_EQ(0, fb_remove(t, t->fbs[i]));
		buf_put(t->k.card, &t->src);
		buf_put(t->k.card, &t->ovl);
		buf_put(t->k.card, &t->wb);
		if (t->k.mode_blob)
			drmModeDestroyPropertyBlob(t->k.card,
						   t->k.mode_blob);
		close(t->k.card);
	}
	/* Nothing leaked: the instance and its area as they were. */
	if (t->counting) {
		EXPECT_EQ(0, counters_wait(t, 0, &now));
		EXPECT_EQ(t->start.live_buffers, now.live_buffers);
		EXPECT_EQ(t->start.live_bytes, now.live_bytes);
		EXPECT_EQ(t->start.cma_used_pages, now.cma_used_pages);
		EXPECT_EQ(t->start.cma_held_pages, now.cma_held_pages);
	}
	if (t->dev >= 0)
		close(t->dev);
}

/* ---- the tests ---- */

static const __u32 primary_pitch[2] = { PRIMARY_PITCH };
static const __u32 no_offset[2] = { 0 };

TEST_F(kms, primary_xrgb8888)
{
	struct kms_test *t = &self->t;
	struct plane_cfg cfg = {
		.plane = &t->k.primary, .w = MODE_W, .h = MODE_H,
	};
	__u32 wb_fb;

	ASSERT_EQ(0, draw_primary(&t->src));
	ASSERT_EQ(0, fb_add(t, &t->src, DRM_FORMAT_XRGB8888, MODE_W,
			    MODE_H, primary_pitch, no_offset, &cfg.fb));
	ASSERT_EQ(0, wb_ready(t, &wb_fb));
	ASSERT_EQ(0, kms_scan_out(&t->k, &cfg, 1, wb_fb, FENCE_MS));
	EXPECT_EQ(0U, wb_read(_metadata, t, primary_picture));
}

TEST_F(kms, overlay_over_primary)
{
	struct kms_test *t = &self->t;
	const __u32 ovl_pitch[2] = { OVL_PITCH };
	struct plane_cfg cfg[2] = {
		{ .plane = &t->k.primary, .w = MODE_W, .h = MODE_H },
		{
			.plane = &t->k.overlay,
			.sx = OVL_SRC_X, .sy = OVL_SRC_Y,
			.w = OVL_W, .h = OVL_H, .x = OVL_X, .y = OVL_Y,
		},
	};
	__u32 wb_fb;

	ASSERT_EQ(0, buf_get(t, BUF_SIZE, &t->ovl));
	ASSERT_EQ(0, draw_primary(&t->src));
	ASSERT_EQ(0, dmabuf_sync(t->ovl.fd, DMA_BUF_SYNC_START));
	draw(t->ovl.map, OVL_PITCH, OVL_FB_W, OVL_FB_H, SEED_OVERLAY);
	ASSERT_EQ(0, dmabuf_sync(t->ovl.fd, DMA_BUF_SYNC_END));
	ASSERT_EQ(0, fb_add(t, &t->src, DRM_FORMAT_XRGB8888, MODE_W,
			    MODE_H, primary_pitch, no_offset, &cfg[0].fb));
	ASSERT_EQ(0, fb_add(t, &t->ovl, DRM_FORMAT_XRGB8888, OVL_FB_W,
			    OVL_FB_H, ovl_pitch, no_offset, &cfg[1].fb));
	ASSERT_EQ(0, wb_ready(t, &wb_fb));
	ASSERT_EQ(0, kms_scan_out(&t->k, cfg, 2, wb_fb, FENCE_MS));
	EXPECT_EQ(0U, wb_read(_metadata, t, composed));
}

TEST_F(kms, nv12_primary)
{
	struct kms_test *t = &self->t;
	const __u32 pitch[2] = { NV12_PITCH, NV12_PITCH };
	const __u32 offset[2] = { 0, NV12_UV_OFFSET };
	struct plane_cfg cfg = {
		.plane = &t->k.primary, .w = MODE_W, .h = MODE_H,
		.yuv = true,
	};
	__u32 wb_fb;

	if (!t->k.primary.nv12)
		SKIP(return, "vkms lists no NV12 here (6.12 has no YUV)");
	ASSERT_NE(0U, t->k.primary.color_encoding);
	ASSERT_NE(0U, t->k.primary.color_range);
	ASSERT_EQ(0, dmabuf_sync(t->src.fd, DMA_BUF_SYNC_START));
	draw_nv12(t->src.map);
	ASSERT_EQ(0, dmabuf_sync(t->src.fd, DMA_BUF_SYNC_END));
	ASSERT_EQ(0, fb_add(t, &t->src, DRM_FORMAT_NV12, MODE_W, MODE_H,
			    pitch, offset, &cfg.fb));
	ASSERT_EQ(0, wb_ready(t, &wb_fb));
	ASSERT_EQ(0, kms_scan_out(&t->k, &cfg, 1, wb_fb, FENCE_MS));
	EXPECT_EQ(0U, wb_read(_metadata, t, NULL));
}

/*
 * The DRM core checks a framebuffer against its buffer's size (the GEM
 * framebuffer helper: EINVAL) after checking that pitch x height +
 * offset fits in 32 bits (ERANGE).
 */
static int xrgb_fb(struct kms_test *t, __u32 height, __u32 pitch,
		   __u32 offset, __u32 *fb)
{
	const __u32 pitches[2] = { pitch }, offsets[2] = { offset };

	return kms_add_fb(t->k.card, t->src.handle, DRM_FORMAT_XRGB8888, 1024,
			  height, pitches, offsets, fb);
}

TEST_F(kms, fb_beyond_buffer_refused)
{
	struct kms_test *t = &self->t;
	__u32 rows = t->src.size / 4096, fb;

	/* 1024 pixels: each row is exactly one pitch, the last one too. */
	ASSERT_EQ(0, xrgb_fb(t, rows, 4096, 0, &fb));
	EXPECT_EQ(0, drmModeRmFB(t->k.card, fb));
	EXPECT_EQ(EINVAL, xrgb_fb(t, rows + 1, 4096, 0, &fb));
	EXPECT_EQ(0U, fb);
	EXPECT_EQ(EINVAL, xrgb_fb(t, rows, 4096, 4096, &fb));
	EXPECT_EQ(0U, fb);
	EXPECT_EQ(ERANGE, xrgb_fb(t, 8192, 1U << 20, 0, &fb));
	EXPECT_EQ(0U, fb);
}

/*
 * The framebuffer holds the buffer once userspace let go of it: it still
 * scans out, and RmFB frees it.
 */
TEST_F(kms, fb_keeps_buffer)
{
	struct kms_test *t = &self->t;
	struct plane_cfg cfg = {
		.plane = &t->k.primary, .w = MODE_W, .h = MODE_H,
	};
	struct cmabuf_counters now;
	__u32 wb_fb;

	ASSERT_EQ(0, draw_primary(&t->src));
	ASSERT_EQ(0, fb_add(t, &t->src, DRM_FORMAT_XRGB8888, MODE_W,
			    MODE_H, primary_pitch, no_offset, &cfg.fb));
	buf_put(t->k.card, &t->src);
	ASSERT_EQ(0, counters_wait(t, 2, &now));

	ASSERT_EQ(0, wb_ready(t, &wb_fb));
	ASSERT_EQ(0, kms_scan_out(&t->k, &cfg, 1, wb_fb, FENCE_MS));
	EXPECT_EQ(0U, wb_read(_metadata, t, primary_picture));

	ASSERT_EQ(0, kms_off(&t->k));
	ASSERT_EQ(0, fb_remove(t, cfg.fb));
	EXPECT_EQ(0, counters_wait(t, 1, &now))
		TH_LOG("live buffers %llu, want %llu after RmFB",
		       now.live_buffers, t->start.live_buffers + 1);
}

TEST_HARNESS_MAIN
