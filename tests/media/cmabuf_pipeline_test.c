// SPDX-License-Identifier: GPL-2.0
/*
 * Zero-copy camera to display test of cmabuf: the path users build. A
 * real capture driver, vivid, captures into cmabuf buffers with
 * V4L2_MEMORY_DMABUF, and a real display driver, vkms, scans out the very
 * same buffers: each dma-buf is imported into vkms once (PRIME), wrapped
 * in a framebuffer, and shown with an atomic commit as soon as DQBUF gives
 * it back, while vivid fills the other; vkms's writeback connector writes
 * what it scanned out into another cmabuf buffer. What it proves, with
 * each vb2 allocator (vmalloc vmaps the buffer, dma-contig maps it for a
 * 32-bit device) and buffers from the misc device and the dma-heap, below
 * 4 GiB and above it (vmalloc only: dma-contig's device cannot reach it):
 *
 *  - vivid's still test pattern in XBGR32, which is DRM's XRGB8888 byte
 *    for byte, lands in the cmabuf buffer exactly as in vivid's own MMAP
 *    buffers (read through cmabuf's mmap after DMA_BUF_SYNC_START), not
 *    all zero;
 *  - what vkms wrote back from that buffer is that frame, every colour
 *    byte of it (vkms writes 0xff into X), at the writeback framebuffer's
 *    padded pitch, with nothing written outside its rows; it equals both
 *    the bytes in the captured buffer after the scan-out and vivid's MMAP
 *    frame, every buffer shown twice, re-queued to vivid in between;
 *  - each framebuffer is its capture buffer's memory, not a copy made at
 *    import: a picture the CPU then draws into the buffer is what vkms
 *    shows from it (vivid's frames are all alike, so this is what tells
 *    the buffers apart);
 *  - the framebuffers hold the capture buffers once vb2 and the user let
 *    go of them, and the instance's counters and CMA area are back where
 *    they were once the framebuffers are gone.
 *
 * The guest suite (tests/suites/pipeline.sh) loads vivid with one
 * single-planar instance per allocator, and vkms with its writeback
 * connector.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/videodev2.h>

#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "kselftest_harness.h"
#include "cmabuf_test_util.h"
#include "reliability_util.h"
#include "v4l2_util.h"
#include "cmabuf_media.h"
#include "kms_util.h"

/* vivid's webcam size, the mode vkms shows it in; no power of two. */
#define CAP_W		320
#define CAP_H		180
/* V4L2's XBGR32 is DRM's XRGB8888: B, G, R, X in memory. */
#define CAP_FOURCC	V4L2_PIX_FMT_XBGR32
#define CAP_BPP		4
/* The writeback's pitch: not the width's, vkms must step by it. */
#define WB_PITCH	(CAP_W * CAP_BPP + 64)
#define CANARY		0xa5

/* Capture buffers; MMAP frames of the reference; frames shown. */
#define NBUFS		2U
#define REF_FRAMES	2U
#define FRAMES		4U
#define FENCE_MS	10000
#define TIMEOUT		120

_Static_assert(CAP_FOURCC == DRM_FORMAT_XRGB8888,
	       "V4L2 XBGR32 and DRM XRGB8888 are one layout and one fourcc");

FIXTURE(pipeline) {
	int video;
	struct kms k;
	struct inst in;
	struct vfmt fmt;
	struct cbuf buf[NBUFS];
	struct cbuf wb;
	__u32 handle[NBUFS];
	__u32 wb_handle;
	__u32 fb[NBUFS];
	unsigned char *ref[MAX_PLANES];
	struct vframe rfr;
	struct leak leak;
};

/**
 * struct _fixture_variant_pipeline - one camera and where its buffers are
 * @allocator: the vivid instance's vb2 allocator, ALLOC_*.
 * @src: where the capture and writeback buffers come from.
 */
FIXTURE_VARIANT(pipeline) {
	unsigned int allocator;
	struct src src;
};

FIXTURE_VARIANT_ADD(pipeline, vmalloc_general_auto) {
	.allocator = ALLOC_VMALLOC,
	.src = GENERAL(AUTO),
};

FIXTURE_VARIANT_ADD(pipeline, vmalloc_general_heap) {
	.allocator = ALLOC_VMALLOC,
	.src = GENERAL_HEAP,
};

/* Above 4 GiB: vmalloc's vmap and vkms (64-bit DMA mask) reach it. */
FIXTURE_VARIANT_ADD(pipeline, vmalloc_large_auto) {
	.allocator = ALLOC_VMALLOC,
	.src = LARGE(AUTO),
};

FIXTURE_VARIANT_ADD(pipeline, vmalloc_large_heap) {
	.allocator = ALLOC_VMALLOC,
	.src = LARGE_HEAP,
};

FIXTURE_VARIANT_ADD(pipeline, dma_contig_general_auto) {
	.allocator = ALLOC_DMA_CONTIG,
	.src = GENERAL(AUTO),
};

FIXTURE_VARIANT_ADD(pipeline, dma_contig_general_frozen) {
	.allocator = ALLOC_DMA_CONTIG,
	.src = GENERAL(FROZEN),
};

FIXTURE_VARIANT_ADD(pipeline, dma_contig_general_heap) {
	.allocator = ALLOC_DMA_CONTIG,
	.src = GENERAL_HEAP,
};

FIXTURE_SETUP(pipeline)
{
	const struct vfmt *f = &self->fmt;
	unsigned int i;
	int ret;

	self->video = -1;
	self->k.card = -1;
	self->in.dev = -1;
	for (i = 0; i < NBUFS; i++)
		cbuf_init(&self->buf[i]);
	cbuf_init(&self->wb);
	ASSERT_EQ(0, leak_take(&self->leak));
	inst_open(_metadata, &self->in, variant->src.inst);
	if (!src_usable(_metadata, &self->in, &variant->src))
		return;

	self->video = vivid_node(_metadata, variant->allocator, false);
	fmt_must(_metadata, self->video, V4L2_BUF_TYPE_VIDEO_CAPTURE,
		 CAP_FOURCC, CAP_W, CAP_H, &self->fmt);
	ASSERT_EQ(CAP_W * CAP_BPP, (int)f->bytesperline);
	ASSERT_EQ(f->bytesperline * CAP_H, f->sizeimage[0]);
	ASSERT_EQ(0, fps_set(self->video, f->type, 60));

	self->k.card = vkms_open();
	ASSERT_LE(0, self->k.card)
		TH_LOG("no DRM card driven by vkms (tests/suites/pipeline.sh loads it)");
	ret = kms_init(&self->k, CAP_W, CAP_H);
	ASSERT_EQ(0, ret)
		TH_LOG("vkms lacks atomic, writeback or planes: %s",
		       strerror(ret));
}

FIXTURE_TEARDOWN(pipeline)
{
	struct kms *k = &self->k;
	unsigned int i, p;

	/* The queue goes with its fd, and with it vb2's hold on the buffers. */
	close_fd(&self->video);
	if (k->card >= 0) {
		if (k->lit)
			EXPECT_EQ(0, kms_off(k));
		for (i = 0; i < NBUFS; i++) {
			if (self->fb[i])
				EXPECT_EQ(0, drmModeRmFB(k->card, self->fb[i]));
			if (self->handle[i])
				drmCloseBufferHandle(k->card, self->handle[i]);
		}
		if (self->wb_handle)
			drmCloseBufferHandle(k->card, self->wb_handle);
		if (k->mode_blob)
			drmModeDestroyPropertyBlob(k->card, k->mode_blob);
		close(k->card);
	}
	for (i = 0; i < NBUFS; i++)
		cbuf_free(&self->buf[i]);
	cbuf_free(&self->wb);
	for (p = 0; p < MAX_PLANES; p++)
		free(self->ref[p]);
	close_fd(&self->in.dev);
	/* DRM lets go of the buffers from work items: settle first. */
	leak_check(_metadata, &self->leak);
}

/* Import @b into vkms and wrap it in an XRGB8888 framebuffer. */
static void fb_of(struct __test_metadata *_metadata, struct kms *k,
		  const struct cbuf *b, __u32 pitch, __u32 *handle, __u32 *fb)
{
	const __u32 pitches[2] = { pitch }, offsets[2] = { 0 };
	int ret;

	ASSERT_EQ(0, drmPrimeFDToHandle(k->card, b->fd, handle))
		TH_LOG("PRIME import into vkms: %s", strerror(errno));
	ret = kms_add_fb(k->card, *handle, DRM_FORMAT_XRGB8888, CAP_W, CAP_H,
			 pitches, offsets, fb);
	ASSERT_EQ(0, ret) TH_LOG("AddFB2: %s", strerror(ret));
}

/*
 * The writeback against the frame @frame (pitch CAP_W * CAP_BPP, as
 * vivid captured it): each pixel's B, G and R, 0xff in X, and the
 * canary between the rows and past the last. Returns the bad bytes.
 */
static size_t wb_check(struct __test_metadata *_metadata,
		       const struct cbuf *wb, const unsigned char *frame,
		       const char *what)
{
	const unsigned char *got, *want;
	size_t bad = 0, i, from;
	unsigned int x, y, c;

	for (y = 0; y < CAP_H; y++) {
		for (x = 0; x < CAP_W; x++) {
			got = wb->map + (size_t)y * WB_PITCH + x * CAP_BPP;
			want = frame + ((size_t)y * CAP_W + x) * CAP_BPP;
			for (c = 0; c < CAP_BPP; c++) {
				if (got[c] == (c == 3 ? 0xff : want[c]))
					continue;
				if (!bad++)
					TH_LOG("%s: pixel (%u, %u) byte %u is %#x, expected %#x",
					       what, x, y, c, got[c],
					       c == 3 ? 0xff : want[c]);
			}
		}
		for (i = CAP_W * CAP_BPP; i < WB_PITCH; i++)
			if (wb->map[(size_t)y * WB_PITCH + i] != CANARY &&
			    !bad++)
				TH_LOG("row %u: byte %zu past the row written",
				       y, i);
	}
	from = (size_t)CAP_H * WB_PITCH;
	for (i = from; i < wb->size; i++)
		if (wb->map[i] != CANARY && !bad++)
			TH_LOG("byte %zu past the framebuffer written", i);
	return bad;
}

/* A picture unlike vivid's, and unlike that of another @seed. */
static void draw(unsigned char *p, size_t len, unsigned int seed)
{
	__u32 x = 0x9e3779b9U * (seed + 1);
	size_t i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = x >> 24;
	}
}

/*
 * Remove framebuffer @fb and wait until it is gone, which is when the
 * last reference on it went.
 */
static int fb_gone(int card, __u32 fb)
{
	unsigned long long end = cmabuf_now_ms() + FENCE_MS;
	drmModeFBPtr info;
	int ret;

	if (drmModeRmFB(card, fb))
		return errno;
	for (;;) {
		info = drmModeGetFB(card, fb);
		if (!info)
			return errno == ENOENT ? 0 : errno;
		drmModeFreeFB(info);
		if (cmabuf_now_ms() > end)
			break;
		usleep(1000);
	}
	ret = ETIMEDOUT;
	return ret;
}

/*
 * Show framebuffer @fb on vkms's primary plane, written back into @wb
 * (imported as @wb_handle), which is filled with the canary first.
 *
 * vkms (6.12 and 7.2) turns its composer on in each writeback commit and
 * off when it cleans a job up, in a work item queued once the job's fence
 * signalled: a flag, not a count. A cleanup that runs after the next
 * commit turns the composer off under that commit's job, whose fence
 * then never signals. So each writeback gets a framebuffer of its own,
 * removed after its fence, and the next waits until it is gone: the
 * cleanup drops the job's reference on it after vkms's own cleanup.
 */
static void show(struct __test_metadata *_metadata, struct kms *k, __u32 fb,
		 const struct cbuf *wb, __u32 wb_handle)
{
	const __u32 pitches[2] = { WB_PITCH }, offsets[2] = { 0 };
	struct plane_cfg cfg = {
		.plane = &k->primary, .fb = fb, .w = CAP_W, .h = CAP_H,
	};
	__u32 wb_fb;
	int ret;

	ASSERT_EQ(0, sync_exactly(wb->fd,
				  DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE));
	memset(wb->map, CANARY, wb->size);
	ASSERT_EQ(0, sync_exactly(wb->fd,
				  DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE));
	ret = kms_add_fb(k->card, wb_handle, DRM_FORMAT_XRGB8888, CAP_W,
			 CAP_H, pitches, offsets, &wb_fb);
	ASSERT_EQ(0, ret) TH_LOG("AddFB2 of the writeback: %s", strerror(ret));
	ret = kms_scan_out(k, &cfg, 1, wb_fb, FENCE_MS);
	EXPECT_EQ(0, ret) TH_LOG("atomic commit with writeback: %s",
				 strerror(ret));
	ASSERT_EQ(0, fb_gone(k->card, wb_fb))
		TH_LOG("the writeback job never let go of its framebuffer");
	ASSERT_EQ(0, ret);
}

/*
 * What vivid captured into a cmabuf buffer is what vkms shows from it:
 * see the header. The buffers are imported and framed before streaming
 * starts, as a camera-to-display pipeline sets them up once.
 */
TEST_F_TIMEOUT(pipeline, vivid_frames_shown_by_vkms, TIMEOUT)
{
	const struct vfmt *f = &self->fmt;
	unsigned long long unreachable[2];
	const char *label = variant->src.inst;
	struct vplane vp;
	struct vframe fr;
	unsigned int i, n;
	__u32 count;

	ASSERT_EQ(0, mmap_reference(self->video, f, NBUFS, REF_FRAMES,
				    self->ref, &self->rfr))
		TH_LOG("vivid's own MMAP frames (EILSEQ: they differ, the pattern is not still)");
	ASSERT_EQ(f->sizeimage[0], self->rfr.bytesused[0]);

	for (i = 0; i < NBUFS; i++) {
		cbuf_alloc(_metadata, &self->in, &variant->src,
			   f->sizeimage[0], &self->buf[i]);
		fb_of(_metadata, &self->k, &self->buf[i], f->bytesperline,
		      &self->handle[i], &self->fb[i]);
	}
	cbuf_alloc(_metadata, &self->in, &variant->src,
		   (__u64)WB_PITCH * CAP_H, &self->wb);
	ASSERT_EQ(0, drmPrimeFDToHandle(self->k.card, self->wb.fd,
					&self->wb_handle));
	ASSERT_EQ(0, cmabuf_sysfs_read(self->in.dev, "stats/unreachable_maps",
				       &unreachable[0]));

	ASSERT_EQ(0, v4l2_reqbufs(self->video, f->type, V4L2_MEMORY_DMABUF,
				  NBUFS, &count));
	ASSERT_LE(NBUFS, count);
	for (i = 0; i < NBUFS; i++) {
		planes_of(&self->buf[i], 1, &vp);
		ASSERT_EQ(0, v4l2_qbuf(self->video, f, i, &vp, 0));
	}
	ASSERT_EQ(0, v4l2_stream(self->video, f->type, true));
	for (n = 0; n < FRAMES; n++) {
		ASSERT_EQ(0, v4l2_dqbuf(self->video, f, V4L2_MEMORY_DMABUF,
					&fr));
		ASSERT_GT(NBUFS, fr.index);
		EXPECT_EQ(0U, fr.flags & V4L2_BUF_FLAG_ERROR);
		EXPECT_EQ(self->rfr.bytesused[0], fr.bytesused[0]);
		check_frame(_metadata, &self->buf[fr.index], self->ref[0],
			    f->sizeimage[0]);

		/* vivid fills the other buffer meanwhile. */
		show(_metadata, &self->k, self->fb[fr.index], &self->wb,
		     self->wb_handle);
		ASSERT_EQ(0, sync_exactly(self->wb.fd,
					  DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ));
		ASSERT_EQ(0, sync_exactly(self->buf[fr.index].fd,
					  DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ));
		EXPECT_EQ(0U, wb_check(_metadata, &self->wb,
				       self->buf[fr.index].map,
				       "the captured buffer"));
		EXPECT_EQ(0U, wb_check(_metadata, &self->wb, self->ref[0],
				       "vivid's MMAP frame"));
		ASSERT_EQ(0, sync_exactly(self->buf[fr.index].fd,
					  DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ));
		ASSERT_EQ(0, sync_exactly(self->wb.fd,
					  DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ));

		if (n + NBUFS < FRAMES) {
			planes_of(&self->buf[fr.index], 1, &vp);
			ASSERT_EQ(0, v4l2_qbuf(self->video, f, fr.index, &vp,
					       0));
		}
	}
	ASSERT_EQ(0, v4l2_stream(self->video, f->type, false));
	ASSERT_EQ(0, v4l2_reqbufs(self->video, f->type, V4L2_MEMORY_DMABUF, 0,
				  NULL));
	ASSERT_EQ(0, cmabuf_sysfs_read(self->in.dev, "stats/unreachable_maps",
				       &unreachable[1]));
	EXPECT_EQ(unreachable[0], unreachable[1]);

	/*
	 * Zero copy: each framebuffer reads its capture buffer's memory, not
	 * a copy taken at import. With vivid stopped, the CPU draws a picture
	 * of its own into each buffer, and vkms shows exactly that.
	 */
	for (i = 0; i < NBUFS; i++) {
		ASSERT_EQ(0, sync_exactly(self->buf[i].fd,
					  DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE));
		draw(self->buf[i].map, f->sizeimage[0], i);
		ASSERT_EQ(0, sync_exactly(self->buf[i].fd,
					  DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE));
		show(_metadata, &self->k, self->fb[i], &self->wb,
		     self->wb_handle);
		ASSERT_EQ(0, sync_exactly(self->wb.fd,
					  DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ));
		EXPECT_EQ(0U, wb_check(_metadata, &self->wb, self->buf[i].map,
				       "the CPU's picture"));
		ASSERT_EQ(0, sync_exactly(self->wb.fd,
					  DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ));
	}

	/* vb2 and the user gone: the framebuffers hold the buffers. */
	ASSERT_EQ(0, kms_off(&self->k));
	for (i = 0; i < NBUFS; i++) {
		drmCloseBufferHandle(self->k.card, self->handle[i]);
		self->handle[i] = 0;
		cbuf_free(&self->buf[i]);
	}
	EXPECT_EQ(base_live(&self->leak, label) + NBUFS + 1,
		  live_buffers(_metadata, &self->leak, label))
		TH_LOG("the framebuffers do not hold the capture buffers");
	/* RmFB lets go of them: the teardown's check. */
}

/* ---- the whole program ---- */

/* The fixture of the last test: the harness runs fixtures in order. */
FIXTURE(end) {
	int unused;
};

FIXTURE_SETUP(end)
{
}

FIXTURE_TEARDOWN(end)
{
}

/*
 * Every buffer of every test is gone: the instances and their CMA areas
 * are where they were before the first test, and vivid and vkms hold
 * nothing (pipeline.sh unloads them after).
 */
TEST_F(end, counters_back_where_they_started)
{
	media_back_at_start(_metadata);
}

int main(int argc, char **argv)
{
	return media_harness_run(argc, argv);
}
