// SPDX-License-Identifier: GPL-2.0
/*
 * V4L2 test of cmabuf: real V4L2 drivers import its buffers with
 * V4L2_MEMORY_DMABUF, as a camera pipeline would.
 *
 *  - capture: vivid captures into cmabuf buffers with each vb2 allocator
 *    (vmalloc vmaps the dma-buf; dma-contig maps the attachment and wants
 *    one contiguous DMA range), single- and multi-planar (NV12M: a buffer
 *    per plane; NV12: both planes in one; NV16M: a data_offset), at
 *    320x180 and 1280x720, from the misc device with each strategy and
 *    from the dma-heap, below and above 4 GiB (vmalloc only). With vivid's
 *    test pattern made still, every frame read through cmabuf's mmap
 *    after DMA_BUF_SYNC_START equals byte for byte the frame vivid put in
 *    its own MMAP buffers, is not zero (the buffers come zeroed), and the
 *    rest of the buffer stays zero;
 *  - vimc: a media-controller device, set up through the media and subdev
 *    APIs by entity name: its sensor's still test pattern (no text) in
 *    SRGGB8 straight into "Raw Capture 0", and debayered to RGB24 and
 *    scaled from 330x186 to 440x248 into "RGB/YUV Capture", with each vb2
 *    allocator, into cmabuf buffers from the misc device and the dma-heap,
 *    below 4 GiB and above (vmalloc only): every frame equals byte for byte
 *    the frame vimc put in its own MMAP buffers, as for vivid;
 *  - m2m: vim2m reads cmabuf OUTPUT buffers and writes cmabuf CAPTURE
 *    buffers in one stream: a copy when the formats are equal, red and
 *    blue swapped from RGB24 to BGR24;
 *  - import: what a user meets: a buffer smaller than sizeimage (EINVAL
 *    from vb2); a buffer above 4 GiB, which dma-contig's 32-bit device
 *    cannot reach (EINVAL from vb2, each refusal counted once in the
 *    instance's stats/unreachable_maps) and vmalloc takes; a queued buffer
 *    is held until REQBUFS(0), a refused one is not held at all, whichever
 *    step refuses it: vb2's own check of the length, the allocator's
 *    attach (a length past the dma-buf), its map (every plane above
 *    4 GiB, again and again) or the driver's buf_prepare. That needs the
 *    videobuf2-core fix of kernel/patches/: without it vb2 keeps its
 *    references on the planes after the one it failed to attach or map,
 *    and on that one if the attach failed, and those buffers never go;
 *  - share: cmabufctl share's v4l2 importer on vivid's dma-contig node
 *    with the large instance explains the refused QBUF and checks that
 *    the instance's live buffers came back.
 *
 * Every test leaves every instance's live buffers and CMA area as it found
 * them, and so does the whole program (the last test). The guest suite
 * (tests/suites/v4l2.sh) loads vivid with one instance per allocator and
 * API, vim2m, and vimc with vmalloc, which the vimc tests reload with
 * dma-contig (vimc has one allocator per load); devices are found by
 * VIDIOC_QUERYCAP or by media entity name, never by number.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <linux/dma-buf.h>
#include <linux/media-bus-format.h>
#include <linux/videodev2.h>

#include "kselftest_harness.h"
#include "cmabuf_test_util.h"
#include "reliability_util.h"
#include "v4l2_util.h"
#include "cmabuf_media.h"

/* Buffers a queue gets. */
#define NBUFS		2U
/* MMAP frames of the reference, and cmabuf frames: one buffer twice. */
#define REF_FRAMES	2U
#define FRAMES		3U
/* QBUFs of a buffer the device cannot reach. */
#define ROUNDS		3U
#define TIMEOUT		120

/* vim2m's frames: small, and no power of two. */
#define M2M_WIDTH	176
#define M2M_HEIGHT	144

/* ---- capture: vivid into cmabuf buffers ---- */

/**
 * struct capture_case - what vivid captures, and how
 * @allocator: the vivid instance's vb2 allocator, ALLOC_*.
 * @mplane: its API is multi-planar.
 * @fourcc: the format.
 * @width: pixels.
 * @height: lines.
 * @planes: memory planes the format has.
 * @data_offset: where vivid starts the image in the first plane.
 */
struct capture_case {
	unsigned int allocator;
	bool mplane;
	__u32 fourcc;
	__u32 width;
	__u32 height;
	unsigned int planes;
	__u32 data_offset;
};

FIXTURE(capture) {
	int video;
	struct inst in;
	struct vfmt fmt;
	struct cbuf buf[NBUFS][MAX_PLANES];
	unsigned char *ref[MAX_PLANES];
	struct vframe rfr;
	struct leak leak;
};

FIXTURE_VARIANT(capture) {
	struct capture_case c;
	struct src src;
};

/* Single-planar YUYV 320x180. */
#define YUYV(alloc)	{ .allocator = alloc, .fourcc = V4L2_PIX_FMT_YUYV, \
			  .width = 320, .height = 180, .planes = 1 }
/* The larger size, 2.6 MiB a frame, no power of two of pages. */
#define RGB24_720P(alloc) { .allocator = alloc, .width = 1280, .height = 720, \
			  .fourcc = V4L2_PIX_FMT_RGB24, .planes = 1 }
/* Multi-planar API, 320x180: NV12M a buffer per plane, NV12 both in one. */
#define MPLANE(alloc, fmt, nplanes, offset) { .allocator = alloc,	\
			  .mplane = true, .fourcc = V4L2_PIX_FMT_##fmt,	\
			  .width = 320, .height = 180, .planes = nplanes, \
			  .data_offset = offset }

FIXTURE_VARIANT_ADD(capture, vmalloc_yuyv_auto) {
	.c = YUYV(ALLOC_VMALLOC),
	.src = GENERAL(AUTO),
};

FIXTURE_VARIANT_ADD(capture, vmalloc_yuyv_compound) {
	.c = YUYV(ALLOC_VMALLOC),
	.src = GENERAL(COMPOUND),
};

FIXTURE_VARIANT_ADD(capture, vmalloc_yuyv_frozen) {
	.c = YUYV(ALLOC_VMALLOC),
	.src = GENERAL(FROZEN),
};

FIXTURE_VARIANT_ADD(capture, vmalloc_yuyv_legacy) {
	.c = YUYV(ALLOC_VMALLOC),
	.src = GENERAL(LEGACY),
};

FIXTURE_VARIANT_ADD(capture, vmalloc_yuyv_heap) {
	.c = YUYV(ALLOC_VMALLOC),
	.src = GENERAL_HEAP,
};

FIXTURE_VARIANT_ADD(capture, dma_contig_yuyv_auto) {
	.c = YUYV(ALLOC_DMA_CONTIG),
	.src = GENERAL(AUTO),
};

FIXTURE_VARIANT_ADD(capture, dma_contig_yuyv_compound) {
	.c = YUYV(ALLOC_DMA_CONTIG),
	.src = GENERAL(COMPOUND),
};

FIXTURE_VARIANT_ADD(capture, dma_contig_yuyv_frozen) {
	.c = YUYV(ALLOC_DMA_CONTIG),
	.src = GENERAL(FROZEN),
};

FIXTURE_VARIANT_ADD(capture, dma_contig_yuyv_legacy) {
	.c = YUYV(ALLOC_DMA_CONTIG),
	.src = GENERAL(LEGACY),
};

FIXTURE_VARIANT_ADD(capture, dma_contig_yuyv_heap) {
	.c = YUYV(ALLOC_DMA_CONTIG),
	.src = GENERAL_HEAP,
};

/* Above 4 GiB: vmalloc's vmap reaches it (dma-contig's: see import). */
FIXTURE_VARIANT_ADD(capture, vmalloc_yuyv_large_auto) {
	.c = YUYV(ALLOC_VMALLOC),
	.src = LARGE(AUTO),
};

FIXTURE_VARIANT_ADD(capture, vmalloc_yuyv_large_heap) {
	.c = YUYV(ALLOC_VMALLOC),
	.src = LARGE_HEAP,
};

FIXTURE_VARIANT_ADD(capture, vmalloc_rgb24_720p_auto) {
	.c = RGB24_720P(ALLOC_VMALLOC),
	.src = GENERAL(AUTO),
};

FIXTURE_VARIANT_ADD(capture, dma_contig_rgb24_720p_auto) {
	.c = RGB24_720P(ALLOC_DMA_CONTIG),
	.src = GENERAL(AUTO),
};

FIXTURE_VARIANT_ADD(capture, dma_contig_rgb24_720p_heap) {
	.c = RGB24_720P(ALLOC_DMA_CONTIG),
	.src = GENERAL_HEAP,
};

FIXTURE_VARIANT_ADD(capture, vmalloc_nv12m_auto) {
	.c = MPLANE(ALLOC_VMALLOC, NV12M, 2, 0),
	.src = GENERAL(AUTO),
};

FIXTURE_VARIANT_ADD(capture, vmalloc_nv12m_heap) {
	.c = MPLANE(ALLOC_VMALLOC, NV12M, 2, 0),
	.src = GENERAL_HEAP,
};

FIXTURE_VARIANT_ADD(capture, vmalloc_nv12m_large_auto) {
	.c = MPLANE(ALLOC_VMALLOC, NV12M, 2, 0),
	.src = LARGE(AUTO),
};

FIXTURE_VARIANT_ADD(capture, dma_contig_nv12m_auto) {
	.c = MPLANE(ALLOC_DMA_CONTIG, NV12M, 2, 0),
	.src = GENERAL(AUTO),
};

FIXTURE_VARIANT_ADD(capture, dma_contig_nv12m_legacy) {
	.c = MPLANE(ALLOC_DMA_CONTIG, NV12M, 2, 0),
	.src = GENERAL(LEGACY),
};

FIXTURE_VARIANT_ADD(capture, dma_contig_nv12m_heap) {
	.c = MPLANE(ALLOC_DMA_CONTIG, NV12M, 2, 0),
	.src = GENERAL_HEAP,
};

FIXTURE_VARIANT_ADD(capture, vmalloc_nv12_auto) {
	.c = MPLANE(ALLOC_VMALLOC, NV12, 1, 0),
	.src = GENERAL(AUTO),
};

FIXTURE_VARIANT_ADD(capture, dma_contig_nv12_auto) {
	.c = MPLANE(ALLOC_DMA_CONTIG, NV12, 1, 0),
	.src = GENERAL(AUTO),
};

/* vivid starts NV16M's first plane 128 bytes in (PLANE0_DATA_OFFSET). */
FIXTURE_VARIANT_ADD(capture, vmalloc_nv16m_auto) {
	.c = MPLANE(ALLOC_VMALLOC, NV16M, 2, 128),
	.src = GENERAL(AUTO),
};

FIXTURE_VARIANT_ADD(capture, dma_contig_nv16m_auto) {
	.c = MPLANE(ALLOC_DMA_CONTIG, NV16M, 2, 128),
	.src = GENERAL(AUTO),
};

FIXTURE_SETUP(capture)
{
	const struct capture_case *c = &variant->c;
	unsigned int i, p;

	self->video = -1;
	self->in.dev = -1;
	for (i = 0; i < NBUFS; i++)
		for (p = 0; p < MAX_PLANES; p++)
			cbuf_init(&self->buf[i][p]);
	ASSERT_EQ(0, leak_take(&self->leak));
	inst_open(_metadata, &self->in, variant->src.inst);
	if (!src_usable(_metadata, &self->in, &variant->src))
		return;
	self->video = vivid_node(_metadata, c->allocator, c->mplane);
	fmt_must(_metadata, self->video,
		 c->mplane ? V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE :
			     V4L2_BUF_TYPE_VIDEO_CAPTURE,
		 c->fourcc, c->width, c->height, &self->fmt);
	ASSERT_EQ(c->planes, self->fmt.planes);
	/*
	 * vivid's webcam at 60 frames a second, the most 720p may have, or
	 * the fastest an older vivid offers below (Debian's 6.1).
	 */
	ASSERT_EQ(0, fps_set_fastest(self->video, &self->fmt, 60));
}

FIXTURE_TEARDOWN(capture)
{
	unsigned int i, p;

	/* The queue goes with its fd, and with it vb2's hold on the buffers. */
	close_fd(&self->video);
	for (i = 0; i < NBUFS; i++)
		for (p = 0; p < MAX_PLANES; p++)
			cbuf_free(&self->buf[i][p]);
	for (p = 0; p < MAX_PLANES; p++)
		free(self->ref[p]);
	close_fd(&self->in.dev);
	leak_check(_metadata, &self->leak);
}

/*
 * Capture FRAMES frames of the format @f from @video into NBUFS buffers
 * of @s (@buf), each buffer used again after its first frame, and check
 * each against the driver's own MMAP frame @ref / @rfr: the same bytes,
 * bytesused and data_offset, read through cmabuf's mmap. The instance
 * never refused a mapping.
 */
static void frames_check(struct __test_metadata *_metadata, int video,
			 const struct vfmt *f, const struct inst *in,
			 const struct src *s, struct cbuf buf[][MAX_PLANES],
			 unsigned char *const *ref, const struct vframe *rfr)
{
	unsigned long long unreachable[2];
	struct vplane vp[MAX_PLANES];
	unsigned int i, n, p;
	struct vframe fr;
	__u32 count;

	for (i = 0; i < NBUFS; i++)
		for (p = 0; p < f->planes; p++)
			cbuf_alloc(_metadata, in, s, f->sizeimage[p],
				   &buf[i][p]);
	ASSERT_EQ(0, cmabuf_sysfs_read(in->dev, "stats/unreachable_maps",
				       &unreachable[0]));
	ASSERT_EQ(0, v4l2_reqbufs(video, f->type, V4L2_MEMORY_DMABUF, NBUFS,
				  &count));
	ASSERT_LE(NBUFS, count);
	for (i = 0; i < NBUFS; i++) {
		planes_of(buf[i], f->planes, vp);
		ASSERT_EQ(0, v4l2_qbuf(video, f, i, vp, 0));
	}
	ASSERT_EQ(0, v4l2_stream(video, f->type, true));
	for (n = 0; n < FRAMES; n++) {
		ASSERT_EQ(0, v4l2_dqbuf(video, f, V4L2_MEMORY_DMABUF, &fr));
		ASSERT_GT(NBUFS, fr.index);
		EXPECT_EQ(0U, fr.flags & V4L2_BUF_FLAG_ERROR);
		for (p = 0; p < f->planes; p++) {
			EXPECT_EQ(rfr->bytesused[p], fr.bytesused[p]);
			EXPECT_EQ(rfr->data_offset[p], fr.data_offset[p]);
			check_frame(_metadata, &buf[fr.index][p], ref[p],
				    rfr->bytesused[p]);
		}
		if (n + NBUFS < FRAMES) {
			planes_of(buf[fr.index], f->planes, vp);
			ASSERT_EQ(0, v4l2_qbuf(video, f, fr.index, vp, 0));
		}
	}
	ASSERT_EQ(0, v4l2_stream(video, f->type, false));
	ASSERT_EQ(0, v4l2_reqbufs(video, f->type, V4L2_MEMORY_DMABUF, 0, NULL));
	ASSERT_EQ(0, cmabuf_sysfs_read(in->dev, "stats/unreachable_maps",
				       &unreachable[1]));
	EXPECT_EQ(unreachable[0], unreachable[1]);
}

/*
 * Frames vivid captured into cmabuf buffers are those it captured into
 * its own: the same bytes, bytesused and data_offset, each buffer used
 * again after its first frame. The instance never refused a mapping.
 */
TEST_F_TIMEOUT(capture, frames_equal_vivid_mmap_frames, TIMEOUT)
{
	const struct vfmt *f = &self->fmt;
	unsigned int p;

	ASSERT_EQ(0, mmap_reference(self->video, f, NBUFS, REF_FRAMES,
				    self->ref, &self->rfr))
		TH_LOG("vivid's own MMAP frames (EILSEQ: they differ, the pattern is not still)");
	EXPECT_EQ(variant->c.data_offset, self->rfr.data_offset[0]);
	for (p = 0; p < f->planes; p++)
		EXPECT_EQ(f->sizeimage[p], self->rfr.bytesused[p]);
	frames_check(_metadata, self->video, f, &self->in, &variant->src,
		     self->buf, self->ref, &self->rfr);
}

/* ---- vimc: a media-controller pipeline into cmabuf buffers ---- */

#define VIMC_ALLOCATOR	"/sys/module/vimc/parameters/allocator"

/* The sensor's frames, and the scaler's: even, and no power of two. */
#define VIMC_W		330
#define VIMC_H		186
#define VIMC_SCALED_W	440
#define VIMC_SCALED_H	248

FIXTURE(vimc) {
	int media;
	int sensor;
	int video;
	struct inst in;
	struct vfmt fmt;
	struct cbuf buf[NBUFS][MAX_PLANES];
	unsigned char *ref[MAX_PLANES];
	struct vframe rfr;
	struct leak leak;
};

/**
 * struct _fixture_variant_vimc - one vimc capture
 * @allocator: vimc's vb2 allocator, ALLOC_*.
 * @scaled: "RGB/YUV Capture", RGB24 through the debayer and the scaler
 *	(VIMC_SCALED_W x VIMC_SCALED_H); else "Raw Capture 0", SRGGB8 from
 *	the sensor (VIMC_W x VIMC_H).
 * @src: where the buffers come from.
 */
FIXTURE_VARIANT(vimc) {
	unsigned int allocator;
	bool scaled;
	struct src src;
};

/* vmalloc first: the program reloads vimc once, for dma-contig. */
FIXTURE_VARIANT_ADD(vimc, vmalloc_raw_auto) {
	.allocator = ALLOC_VMALLOC,
	.src = GENERAL(AUTO),
};

FIXTURE_VARIANT_ADD(vimc, vmalloc_scaled_heap) {
	.allocator = ALLOC_VMALLOC,
	.scaled = true,
	.src = GENERAL_HEAP,
};

/* Above 4 GiB: vmalloc's vmap reaches it, dma-contig's 32 bits do not. */
FIXTURE_VARIANT_ADD(vimc, vmalloc_scaled_large_auto) {
	.allocator = ALLOC_VMALLOC,
	.scaled = true,
	.src = LARGE(AUTO),
};

FIXTURE_VARIANT_ADD(vimc, dma_contig_raw_auto) {
	.allocator = ALLOC_DMA_CONTIG,
	.src = GENERAL(AUTO),
};

FIXTURE_VARIANT_ADD(vimc, dma_contig_scaled_legacy) {
	.allocator = ALLOC_DMA_CONTIG,
	.scaled = true,
	.src = GENERAL(LEGACY),
};

FIXTURE_VARIANT_ADD(vimc, dma_contig_scaled_heap) {
	.allocator = ALLOC_DMA_CONTIG,
	.scaled = true,
	.src = GENERAL_HEAP,
};

/* modprobe vimc allocator=@allocator. Return: its exit status, or -1. */
static int vimc_modprobe(unsigned int allocator)
{
	char param[32];
	int status;
	pid_t pid;

	snprintf(param, sizeof(param), "allocator=%u", allocator);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		execlp("modprobe", "modprobe", "vimc", param, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * vimc with vb2 allocator @allocator: it takes one per load, so when the
 * suite's (tests/suites/v4l2.sh) has another, it is reloaded with this
 * one. Nothing holds vimc between tests: each test's fds went with it.
 */
static void vimc_use(struct __test_metadata *_metadata,
		     unsigned int allocator)
{
	unsigned long long now;

	ASSERT_EQ(0, rel_read_ull(VIMC_ALLOCATOR, &now))
		TH_LOG("vimc is not loaded (tests/suites/v4l2.sh loads it)");
	if (now == allocator)
		return;
	ASSERT_EQ(0, rel_module_unload("vimc"));
	ASSERT_EQ(0, vimc_modprobe(allocator))
		TH_LOG("modprobe vimc allocator=%u", allocator);
	ASSERT_EQ(0, rel_read_ull(VIMC_ALLOCATOR, &now));
	ASSERT_EQ(allocator, now);
}

/* Open the device node of vimc's entity @name. */
static int vimc_node(struct __test_metadata *_metadata, int media,
		     const char *name, struct media_entity_desc *e)
{
	char path[300];
	int fd;

	ASSERT_EQ(0, media_entity(media, name, e))
		TH_LOG("vimc has no entity \"%s\"", name);
	ASSERT_EQ(0, media_devnode(e, path, sizeof(path)))
		TH_LOG("no device node of \"%s\"", name);
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", path, strerror(errno));
	return fd;
}

/* S_FMT on the capture node of vimc's entity @name; its fd. */
static int vimc_capture(struct __test_metadata *_metadata, int media,
			const char *name, __u32 fourcc, __u32 width,
			__u32 height, struct vfmt *f)
{
	struct media_entity_desc e;
	struct v4l2_capability cap;
	int fd = vimc_node(_metadata, media, name, &e);

	memset(&cap, 0, sizeof(cap));
	ASSERT_EQ(0, cmabuf_ioctl(fd, VIDIOC_QUERYCAP, &cap));
	ASSERT_STREQ("vimc", (char *)cap.driver);
	fmt_must(_metadata, fd, V4L2_BUF_TYPE_VIDEO_CAPTURE, fourcc, width,
		 height, f);
	return fd;
}

/*
 * vimc's pipeline, by entity name: Sensor A's still test pattern (100%
 * colour squares, no text) in SRGGB8 at VIMC_W x VIMC_H into Raw Capture
 * 0, and through Debayer A (RGB888) and the Scaler, which scales it to
 * VIMC_SCALED_W x VIMC_SCALED_H, into RGB/YUV Capture. Streaming from one
 * capture validates every link the sensor reaches, so both branches are
 * set up whichever the test captures from.
 */
FIXTURE_SETUP(vimc)
{
	struct media_entity_desc sensor, debayer, scaler, raw, rgb;
	struct vfmt other;
	unsigned int i, p;
	int deb, sc, fd;

	self->media = -1;
	self->sensor = -1;
	self->video = -1;
	self->in.dev = -1;
	for (i = 0; i < NBUFS; i++)
		for (p = 0; p < MAX_PLANES; p++)
			cbuf_init(&self->buf[i][p]);
	if (kernel_lacks("vimc"))
		SKIP(return, "vimc: this kernel has no vimc (CONFIG_VIDEO_VIMC off)");
	ASSERT_EQ(0, leak_take(&self->leak));
	inst_open(_metadata, &self->in, variant->src.inst);
	if (!src_usable(_metadata, &self->in, &variant->src))
		return;
	vimc_use(_metadata, variant->allocator);
	self->media = media_find("vimc");
	ASSERT_LE(0, self->media) TH_LOG("no media device of vimc");

	self->sensor = vimc_node(_metadata, self->media, "Sensor A", &sensor);
	deb = vimc_node(_metadata, self->media, "Debayer A", &debayer);
	sc = vimc_node(_metadata, self->media, "Scaler", &scaler);
	ASSERT_EQ(0, media_entity(self->media, "Raw Capture 0", &raw));
	ASSERT_EQ(0, media_entity(self->media, "RGB/YUV Capture", &rgb));
	ASSERT_EQ(0, media_link_enable(self->media, &sensor, 0, &raw, 0));
	ASSERT_EQ(0, media_link_enable(self->media, &sensor, 0, &debayer, 0));
	ASSERT_EQ(0, media_link_enable(self->media, &debayer, 1, &scaler, 0));
	ASSERT_EQ(0, media_link_enable(self->media, &scaler, 1, &rgb, 0));

	ASSERT_EQ(0, ctrl_set_menu(self->sensor, "Test Pattern",
				   "100% Color Squares"));
	ASSERT_EQ(0, ctrl_set_menu(self->sensor, "Show Information", "None"));
	ASSERT_EQ(0, subdev_fmt_set(self->sensor, 0, MEDIA_BUS_FMT_SRGGB8_1X8,
				    VIMC_W, VIMC_H, V4L2_COLORSPACE_SRGB));
	ASSERT_EQ(0, subdev_fmt_set(deb, 0, MEDIA_BUS_FMT_SRGGB8_1X8, VIMC_W,
				    VIMC_H, V4L2_COLORSPACE_SRGB));
	ASSERT_EQ(0, subdev_fmt_set(sc, 0, MEDIA_BUS_FMT_RGB888_1X24, VIMC_W,
				    VIMC_H, V4L2_COLORSPACE_SRGB));
	ASSERT_EQ(0, subdev_fmt_set(sc, 1, MEDIA_BUS_FMT_RGB888_1X24,
				    VIMC_SCALED_W, VIMC_SCALED_H,
				    V4L2_COLORSPACE_SRGB));
	close(deb);
	close(sc);

	fd = vimc_capture(_metadata, self->media, "Raw Capture 0",
			  V4L2_PIX_FMT_SRGGB8, VIMC_W, VIMC_H,
			  variant->scaled ? &other : &self->fmt);
	if (variant->scaled)
		close(fd);
	else
		self->video = fd;
	fd = vimc_capture(_metadata, self->media, "RGB/YUV Capture",
			  V4L2_PIX_FMT_RGB24, VIMC_SCALED_W, VIMC_SCALED_H,
			  variant->scaled ? &self->fmt : &other);
	if (variant->scaled)
		self->video = fd;
	else
		close(fd);
}

FIXTURE_TEARDOWN(vimc)
{
	unsigned int i, p;

	close_fd(&self->video);
	close_fd(&self->sensor);
	close_fd(&self->media);
	for (i = 0; i < NBUFS; i++)
		for (p = 0; p < MAX_PLANES; p++)
			cbuf_free(&self->buf[i][p]);
	for (p = 0; p < MAX_PLANES; p++)
		free(self->ref[p]);
	close_fd(&self->in.dev);
	leak_check(_metadata, &self->leak);
}

/*
 * Frames vimc captured into cmabuf buffers through its media pipeline
 * are those it captured into its own MMAP buffers, byte for byte: the
 * whole frame (bytesused is sizeimage), width x height x bytes a pixel.
 */
TEST_F_TIMEOUT(vimc, frames_equal_vimc_mmap_frames, TIMEOUT)
{
	const struct vfmt *f = &self->fmt;
	__u32 bpp = variant->scaled ? 3 : 1;

	ASSERT_EQ(f->width * f->height * bpp, f->sizeimage[0]);
	ASSERT_EQ(0, mmap_reference(self->video, f, NBUFS, REF_FRAMES,
				    self->ref, &self->rfr))
		TH_LOG("vimc's own MMAP frames (EILSEQ: they differ, the pattern is not still)");
	EXPECT_EQ(f->sizeimage[0], self->rfr.bytesused[0]);
	EXPECT_EQ(0U, self->rfr.data_offset[0]);
	frames_check(_metadata, self->video, f, &self->in, &variant->src,
		     self->buf, self->ref, &self->rfr);
}

/* ---- import: what a user meets ---- */

FIXTURE(import) {
	int video;
	struct inst general;
	struct inst large;
	struct vfmt fmt;
	struct cbuf buf[MAX_PLANES];
	struct leak leak;
};

/**
 * struct _fixture_variant_import - one importing queue
 * @allocator: the vivid instance's vb2 allocator, ALLOC_*.
 * @mplane: its API is multi-planar (NV12M, two buffers), else YUYV.
 * @heap: the buffers come from the dma-heaps, else the misc devices.
 */
FIXTURE_VARIANT(import) {
	unsigned int allocator;
	bool mplane;
	bool heap;
};

FIXTURE_VARIANT_ADD(import, vmalloc_single) {
	.allocator = ALLOC_VMALLOC,
};

FIXTURE_VARIANT_ADD(import, dma_contig_single) {
	.allocator = ALLOC_DMA_CONTIG,
};

FIXTURE_VARIANT_ADD(import, vmalloc_mplane) {
	.allocator = ALLOC_VMALLOC,
	.mplane = true,
};

FIXTURE_VARIANT_ADD(import, dma_contig_mplane) {
	.allocator = ALLOC_DMA_CONTIG,
	.mplane = true,
};

FIXTURE_VARIANT_ADD(import, vmalloc_single_heap) {
	.allocator = ALLOC_VMALLOC,
	.heap = true,
};

FIXTURE_VARIANT_ADD(import, dma_contig_single_heap) {
	.allocator = ALLOC_DMA_CONTIG,
	.heap = true,
};

FIXTURE_SETUP(import)
{
	struct src s = { .inst = "large", .heap = variant->heap };
	unsigned int p;

	self->video = -1;
	self->general.dev = -1;
	self->large.dev = -1;
	for (p = 0; p < MAX_PLANES; p++)
		cbuf_init(&self->buf[p]);
	ASSERT_EQ(0, leak_take(&self->leak));
	inst_open(_metadata, &self->general, "general");
	inst_open(_metadata, &self->large, "large");
	if (!src_usable(_metadata, &self->large, &s))
		return;
	s.inst = "general";
	if (!src_usable(_metadata, &self->general, &s))
		return;
	self->video = vivid_node(_metadata, variant->allocator,
				 variant->mplane);
	if (variant->mplane)
		fmt_must(_metadata, self->video,
			 V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE,
			 V4L2_PIX_FMT_NV12M, 320, 180, &self->fmt);
	else
		fmt_must(_metadata, self->video, V4L2_BUF_TYPE_VIDEO_CAPTURE,
			 V4L2_PIX_FMT_YUYV, 320, 180, &self->fmt);
}

FIXTURE_TEARDOWN(import)
{
	unsigned int p;

	close_fd(&self->video);
	for (p = 0; p < MAX_PLANES; p++)
		cbuf_free(&self->buf[p]);
	close_fd(&self->general.dev);
	close_fd(&self->large.dev);
	leak_check(_metadata, &self->leak);
}

static const struct src *import_src(bool heap, bool large)
{
	static const struct src srcs[2][2] = {
		{ GENERAL(AUTO), GENERAL_HEAP },
		{ LARGE(AUTO), LARGE_HEAP },
	};

	return &srcs[large][heap];
}

static void buffers_free(struct cbuf *b)
{
	unsigned int p;

	for (p = 0; p < MAX_PLANES; p++)
		cbuf_free(&b[p]);
}

/* A buffer of @s from @in for every plane of @f, into @buf and @vp. */
static void import_planes(struct __test_metadata *_metadata, struct inst *in,
			  const struct vfmt *f, const struct src *s,
			  struct cbuf *buf, struct vplane *vp)
{
	unsigned int p;

	for (p = 0; p < f->planes; p++)
		cbuf_alloc(_metadata, in, s, f->sizeimage[p], &buf[p]);
	planes_of(buf, f->planes, vp);
}

/*
 * A plane's dma-buf smaller than its sizeimage: vb2 takes a length of 0
 * as the dma-buf's size, and refuses it, or the dma-buf's size given as
 * the length, against the plane's minimum (EINVAL) before it attaches
 * anything. Neither holds on to any buffer, and the queue takes a buffer
 * of the right size after.
 *
 * A length that claims the sizeimage passes that check for the
 * allocator's attach to refuse:
 * length_past_the_dma_buf_nothing_held_after_close.
 */
TEST_F_TIMEOUT(import, smaller_than_sizeimage_refused, TIMEOUT)
{
	const struct src *s = import_src(variant->heap, false);
	const struct vfmt *f = &self->fmt;
	unsigned int last = f->planes - 1, p;
	unsigned long long unreachable[2];
	struct vplane vp[MAX_PLANES];

	/* Whole pages below sizeimage: 4K less is no less with 16 KiB pages. */
	const unsigned long long page = getpagesize();
	unsigned long long short_size = (f->sizeimage[last] - 1) / page * page;

	if (!short_size)
		SKIP(return, "the last plane's sizeimage (%u) is within one page",
		     f->sizeimage[last]);
	ASSERT_EQ(0, v4l2_reqbufs(self->video, f->type, V4L2_MEMORY_DMABUF, 1,
				  NULL));
	for (p = 0; p < f->planes; p++)
		cbuf_alloc(_metadata, &self->general, s,
			   p == last ? short_size : f->sizeimage[p],
			   &self->buf[p]);
	ASSERT_GT(f->sizeimage[last], self->buf[last].size);
	ASSERT_EQ(0, cmabuf_sysfs_read(self->general.dev,
				       "stats/unreachable_maps",
				       &unreachable[0]));

	planes_of(self->buf, f->planes, vp);
	EXPECT_EQ(EINVAL, v4l2_qbuf(self->video, f, 0, vp, 0));
	for (p = 0; p < f->planes; p++)
		vp[p].length = self->buf[p].size;
	EXPECT_EQ(EINVAL, v4l2_qbuf(self->video, f, 0, vp, 0));

	ASSERT_EQ(0, cmabuf_sysfs_read(self->general.dev,
				       "stats/unreachable_maps",
				       &unreachable[1]));
	EXPECT_EQ(unreachable[0], unreachable[1]);
	buffers_free(self->buf);
	EXPECT_EQ(base_live(&self->leak, "general"),
		  live_buffers(_metadata, &self->leak, "general"))
		TH_LOG("a refused buffer is still held");

	import_planes(_metadata, &self->general, f, s, self->buf, vp);
	EXPECT_EQ(0, v4l2_qbuf(self->video, f, 0, vp, 0));
}

/*
 * A buffer above 4 GiB (instance "large"): vivid's device has a 32-bit
 * DMA mask and no IOMMU, so dma-contig's map_attachment gets ERANGE,
 * which vb2 reports as EINVAL at QBUF, and the large instance counts each
 * refusal once, in its total and its strategy's stats; multi-planar, the
 * first plane (below 4 GiB) was mapped before the second was refused, and
 * is let go. vmalloc vmaps it and takes it, and holds it until
 * REQBUFS(0). Every plane above 4 GiB, where the first is refused:
 * every_plane_above_4g_nothing_held_after_close.
 */
TEST_F_TIMEOUT(import, above_4g_refused_by_dma_contig_only, TIMEOUT)
{
	const struct vfmt *f = &self->fmt;
	unsigned int last = f->planes - 1, p, r;
	unsigned long long before[3], after[3], held;
	bool contig = variant->allocator == ALLOC_DMA_CONTIG;
	struct vplane vp[MAX_PLANES];
	char group[64];

	ASSERT_LT(0U, self->general.info.dma_bits);
	ASSERT_GE(32U, self->general.info.dma_bits)
		TH_LOG("the general area is not below 4 GiB");
	ASSERT_LT(32U, self->large.info.dma_bits)
		TH_LOG("the large area is not above 4 GiB");

	ASSERT_EQ(0, v4l2_reqbufs(self->video, f->type, V4L2_MEMORY_DMABUF, 1,
				  NULL));
	for (p = 0; p < f->planes; p++)
		cbuf_alloc(_metadata, p == last ? &self->large : &self->general,
			   import_src(variant->heap, p == last), f->sizeimage[p],
			   &self->buf[p]);
	snprintf(group, sizeof(group), "%s/unreachable_maps",
		 cmabuf_stat_group(self->buf[last].strategy));
	ASSERT_EQ(0, cmabuf_sysfs_read(self->large.dev, "stats/unreachable_maps",
				       &before[0]));
	ASSERT_EQ(0, cmabuf_sysfs_read(self->large.dev, group, &before[1]));
	ASSERT_EQ(0, cmabuf_sysfs_read(self->general.dev,
				       "stats/unreachable_maps", &before[2]));

	planes_of(self->buf, f->planes, vp);
	for (r = 0; r < (contig ? ROUNDS : 1); r++)
		EXPECT_EQ(contig ? EINVAL : 0,
			  v4l2_qbuf(self->video, f, 0, vp, 0));

	ASSERT_EQ(0, cmabuf_sysfs_read(self->large.dev, "stats/unreachable_maps",
				       &after[0]));
	ASSERT_EQ(0, cmabuf_sysfs_read(self->large.dev, group, &after[1]));
	ASSERT_EQ(0, cmabuf_sysfs_read(self->general.dev,
				       "stats/unreachable_maps", &after[2]));
	EXPECT_EQ(before[0] + (contig ? ROUNDS : 0), after[0]);
	EXPECT_EQ(before[1] + (contig ? ROUNDS : 0), after[1]);
	EXPECT_EQ(before[2], after[2]);

	/* What the queue holds once only it could. */
	buffers_free(self->buf);
	held = contig ? 0 : f->planes;
	EXPECT_EQ(base_live(&self->leak, "general") + (held ? held - 1 : 0),
		  live_buffers(_metadata, &self->leak, "general"));
	EXPECT_EQ(base_live(&self->leak, "large") + (held ? 1 : 0),
		  live_buffers(_metadata, &self->leak, "large"));
	ASSERT_EQ(0, v4l2_reqbufs(self->video, f->type, V4L2_MEMORY_DMABUF, 0,
				  NULL));
	EXPECT_EQ(base_live(&self->leak, "large"),
		  live_buffers(_metadata, &self->leak, "large"));
}

/*
 * Every plane above 4 GiB (instance "large"), new buffers each round as a
 * program that retries would allocate them. dma-contig's 32-bit device
 * cannot map the first plane: EINVAL at every QBUF, one refusal counted
 * each round, since vb2 stops at the plane it fails to map. With the
 * user's fds closed the refused buffers are nobody's: vb2 lets go of its
 * references on the planes after that one too (not before the
 * videobuf2-core fix of kernel/patches/, 0006 of 7.2 and 0003 of 6.12:
 * each round of the multi-planar queue left its second plane's buffer live
 * for good). vmalloc vmaps them, takes the buffer, and holds it until its
 * queue is closed.
 */
TEST_F_TIMEOUT(import, every_plane_above_4g_nothing_held_after_close, TIMEOUT)
{
	const struct src *s = import_src(variant->heap, true);
	const struct vfmt *f = &self->fmt;
	bool contig = variant->allocator == ALLOC_DMA_CONTIG;
	unsigned int p, r, rounds = contig ? ROUNDS : 1;
	unsigned long long base = base_live(&self->leak, "large");
	unsigned long long unreachable[2];
	struct vplane vp[MAX_PLANES];

	if (contig && vb2_keeps_refused())
		SKIP(return, VB2_KEEPS_REFUSED_WHY);
	ASSERT_LT(32U, self->large.info.dma_bits)
		TH_LOG("the large area is not above 4 GiB");
	ASSERT_EQ(0, v4l2_reqbufs(self->video, f->type, V4L2_MEMORY_DMABUF, 1,
				  NULL));
	ASSERT_EQ(0, cmabuf_sysfs_read(self->large.dev, "stats/unreachable_maps",
				       &unreachable[0]));
	for (r = 0; r < rounds; r++) {
		for (p = 0; p < f->planes; p++)
			cbuf_alloc(_metadata, &self->large, s, f->sizeimage[p],
				   &self->buf[p]);
		planes_of(self->buf, f->planes, vp);
		EXPECT_EQ(contig ? EINVAL : 0,
			  v4l2_qbuf(self->video, f, 0, vp, 0));
		buffers_free(self->buf);
	}
	ASSERT_EQ(0, cmabuf_sysfs_read(self->large.dev, "stats/unreachable_maps",
				       &unreachable[1]));
	EXPECT_EQ(unreachable[0] + (contig ? rounds : 0), unreachable[1]);

	EXPECT_EQ(base + (contig ? 0 : f->planes),
		  live_buffers(_metadata, &self->leak, "large"))
		TH_LOG("%u refused QBUFs of %u planes each", contig ? rounds : 0,
		       f->planes);
	close_fd(&self->video);
	EXPECT_EQ(base, live_buffers(_metadata, &self->leak, "large"))
		TH_LOG("buffers still live with every fd closed: vb2 leaked them");
}

/*
 * A plane whose length claims more than its dma-buf holds passes vb2's
 * check against the plane's minimum (the sizeimage), and the allocator's
 * attach refuses it: EFAULT, from vmalloc and dma-contig alike. The short
 * plane is the first, so that vb2 had taken the dma-bufs of every plane
 * and attached none: with the user's fds closed nothing is held, nor
 * after the queue is closed (before the videobuf2-core fix vb2 kept its
 * references on the refused plane and on every plane after it, one
 * buffer a round single-planar, two multi-planar).
 */
TEST_F_TIMEOUT(import, length_past_the_dma_buf_nothing_held_after_close,
	       TIMEOUT)
{
	const struct src *s = import_src(variant->heap, false);
	const struct vfmt *f = &self->fmt;
	unsigned long long base = base_live(&self->leak, "general");
	unsigned long long unreachable[2];
	struct vplane vp[MAX_PLANES];
	unsigned int p, r;

	if (vb2_keeps_refused())
		SKIP(return, VB2_KEEPS_REFUSED_WHY);
	ASSERT_EQ(0, v4l2_reqbufs(self->video, f->type, V4L2_MEMORY_DMABUF, 1,
				  NULL));
	ASSERT_EQ(0, cmabuf_sysfs_read(self->general.dev,
				       "stats/unreachable_maps",
				       &unreachable[0]));
	for (r = 0; r < ROUNDS; r++) {
		for (p = 0; p < f->planes; p++)
			cbuf_alloc(_metadata, &self->general, s,
				   f->sizeimage[p] - (p ? 0 : SZ_4K),
				   &self->buf[p]);
		ASSERT_GT(f->sizeimage[0], self->buf[0].size);
		planes_of(self->buf, f->planes, vp);
		for (p = 0; p < f->planes; p++)
			vp[p].length = f->sizeimage[p];
		EXPECT_EQ(EFAULT, v4l2_qbuf(self->video, f, 0, vp, 0));
		buffers_free(self->buf);
	}
	ASSERT_EQ(0, cmabuf_sysfs_read(self->general.dev,
				       "stats/unreachable_maps",
				       &unreachable[1]));
	EXPECT_EQ(unreachable[0], unreachable[1]);

	EXPECT_EQ(base, live_buffers(_metadata, &self->leak, "general"))
		TH_LOG("%u refused QBUFs of %u planes each", ROUNDS, f->planes);
	close_fd(&self->video);
	EXPECT_EQ(base, live_buffers(_metadata, &self->leak, "general"))
		TH_LOG("buffers still live with every fd closed: vb2 leaked them");
}

/*
 * The driver's buf_prepare refuses the buffer (vivid's "Inject
 * VIDIOC_QBUF Error" button: EINVAL, once): at a first QBUF, the planes
 * just attached and mapped, and at a QBUF of the same dma-bufs after a
 * frame was captured into them, where vb2 keeps the attachments it has.
 * Either time vb2 lets go of every plane, as it did before the
 * videobuf2-core fix, which leaves this path as it was, and the next
 * QBUF takes the buffer.
 */
TEST_F_TIMEOUT(import, buf_prepare_refusal_nothing_held, TIMEOUT)
{
	const struct src *s = import_src(variant->heap, false);
	const struct vfmt *f = &self->fmt;
	unsigned long long base = base_live(&self->leak, "general");
	struct vplane vp[MAX_PLANES];
	struct vframe fr;

	ASSERT_EQ(0, v4l2_reqbufs(self->video, f->type, V4L2_MEMORY_DMABUF, 1,
				  NULL));
	import_planes(_metadata, &self->general, f, s, self->buf, vp);
	ASSERT_EQ(0, ctrl_press(self->video, "Inject VIDIOC_QBUF Error"));
	EXPECT_EQ(EINVAL, v4l2_qbuf(self->video, f, 0, vp, 0));
	buffers_free(self->buf);
	EXPECT_EQ(base, live_buffers(_metadata, &self->leak, "general"))
		TH_LOG("refused at the first QBUF, and still held");

	import_planes(_metadata, &self->general, f, s, self->buf, vp);
	ASSERT_EQ(0, v4l2_qbuf(self->video, f, 0, vp, 0));
	ASSERT_EQ(0, v4l2_stream(self->video, f->type, true));
	ASSERT_EQ(0, v4l2_dqbuf(self->video, f, V4L2_MEMORY_DMABUF, &fr));
	ASSERT_EQ(0U, fr.index);
	ASSERT_EQ(0, ctrl_press(self->video, "Inject VIDIOC_QBUF Error"));
	EXPECT_EQ(EINVAL, v4l2_qbuf(self->video, f, 0, vp, 0));
	ASSERT_EQ(0, v4l2_stream(self->video, f->type, false));
	buffers_free(self->buf);
	EXPECT_EQ(base, live_buffers(_metadata, &self->leak, "general"))
		TH_LOG("refused at a QBUF of the same dma-bufs, and still held");
}

/*
 * A queued buffer is the queue's too: with the user's fd and mapping
 * gone it stays live (vmalloc vmapped it, dma-contig mapped it) until
 * REQBUFS(0) lets go of it.
 */
TEST_F_TIMEOUT(import, queued_buffer_held_until_reqbufs_0, TIMEOUT)
{
	const struct src *s = import_src(variant->heap, false);
	const struct vfmt *f = &self->fmt;
	unsigned long long base = base_live(&self->leak, "general");
	struct vplane vp[MAX_PLANES];

	ASSERT_EQ(0, v4l2_reqbufs(self->video, f->type, V4L2_MEMORY_DMABUF, 1,
				  NULL));
	import_planes(_metadata, &self->general, f, s, self->buf, vp);
	ASSERT_EQ(0, v4l2_qbuf(self->video, f, 0, vp, 0));
	buffers_free(self->buf);
	EXPECT_EQ(base + f->planes,
		  live_buffers(_metadata, &self->leak, "general"));
	ASSERT_EQ(0, v4l2_reqbufs(self->video, f->type, V4L2_MEMORY_DMABUF, 0,
				  NULL));
	EXPECT_EQ(base, live_buffers(_metadata, &self->leak, "general"));
}

/* ---- share: what cmabufctl tells a user whose QBUF was refused ---- */

FIXTURE(share) {
	int video;
	struct inst large;
	struct vfmt fmt;
	struct leak leak;
};

/**
 * struct _fixture_variant_share - the vivid node cmabufctl share tries
 * @mplane: multi-planar (NV12M, a buffer per plane), else YUYV.
 */
FIXTURE_VARIANT(share) {
	bool mplane;
};

FIXTURE_VARIANT_ADD(share, dma_contig_mplane) {
	.mplane = true,
};

FIXTURE_VARIANT_ADD(share, dma_contig_single) {
	.mplane = false,
};

FIXTURE_SETUP(share)
{
	self->video = -1;
	self->large.dev = -1;
	ASSERT_EQ(0, leak_take(&self->leak));
	inst_open(_metadata, &self->large, "large");
	self->video = vivid_node(_metadata, ALLOC_DMA_CONTIG, variant->mplane);
	if (variant->mplane)
		fmt_must(_metadata, self->video,
			 V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE,
			 V4L2_PIX_FMT_NV12M, 320, 180, &self->fmt);
	else
		fmt_must(_metadata, self->video, V4L2_BUF_TYPE_VIDEO_CAPTURE,
			 V4L2_PIX_FMT_YUYV, 320, 180, &self->fmt);
}

FIXTURE_TEARDOWN(share)
{
	close_fd(&self->video);
	close_fd(&self->large.dev);
	leak_check(_metadata, &self->leak);
}

/*
 * Run "cmabufctl share -d large --importer v4l2 --video @node", its
 * stdout and stderr into @out (@size bytes, NUL-terminated). Return: its
 * exit status, 127 if it could not be run, or -1.
 */
static int share_v4l2_large(const char *node, char *out, size_t size)
{
	size_t len = 0;
	int pipefd[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(pipefd[1], STDOUT_FILENO);
		dup2(pipefd[1], STDERR_FILENO);
		execlp("cmabufctl", "cmabufctl", "share", "-d", "large",
		       "--importer", "v4l2", "--video", node, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	while ((n = read(pipefd[0], out + len, size - 1 - len)) > 0)
		len += n;
	out[len] = '\0';
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * cmabufctl share's v4l2 importer on vivid's dma-contig node with the
 * large instance: the QBUF is refused (share fails, and explains the
 * refusal with the instance's unreachable_maps), and once REQBUFS 0 is
 * done and every buffer closed, share checks that the instance's live
 * buffers are back, and says so. Without the videobuf2-core fix the
 * multi-planar buffer's second plane stays live: share then reports it
 * as a failed check that says how many videobuf2 kept, and this test
 * fails with share's output.
 */
TEST_F_TIMEOUT(share, v4l2_refused_qbuf_buffers_went_back, TIMEOUT)
{
	char node[64], link[64], out[16384];
	ssize_t n;
	int status;

	if (vb2_keeps_refused())
		SKIP(return, VB2_KEEPS_REFUSED_WHY);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", self->video);
	n = readlink(link, node, sizeof(node) - 1);
	ASSERT_LT(0, n);
	node[n] = '\0';
	status = share_v4l2_large(node, out, sizeof(out));
	ASSERT_NE(127, status) TH_LOG("cmabufctl is not installed");
	EXPECT_EQ(1, status) TH_LOG("cmabufctl share: %s", out);
	EXPECT_NE(NULL, strstr(out, "stats/unreachable_maps"))
		TH_LOG("no explanation of the refused QBUF: %s", out);
	EXPECT_NE(NULL, strstr(out, "the refused buffers went back: /dev/cmabuf-large has"))
		TH_LOG("cmabufctl share: %s", out);
	EXPECT_EQ(NULL, strstr(out, "still live")) TH_LOG("cmabufctl share: %s", out);
	EXPECT_EQ(base_live(&self->leak, "large"),
		  live_buffers(_metadata, &self->leak, "large"));
}

/* ---- m2m: vim2m between cmabuf buffers ---- */

/**
 * struct m2m - a vim2m context and its buffers
 * @video: the open vim2m node, one context.
 * @in: the instance the buffers come from.
 * @out: OUTPUT buffers, what vim2m reads.
 * @cap: CAPTURE buffers, what it writes.
 * @want: what a capture must hold.
 */
struct m2m {
	int video;
	struct inst in;
	struct cbuf out[NBUFS];
	struct cbuf cap[NBUFS];
	unsigned char *want;
};

FIXTURE(m2m) {
	struct m2m m;
	struct leak leak;
};

FIXTURE_VARIANT(m2m) {
	struct src src;
};

FIXTURE_VARIANT_ADD(m2m, general_auto) {
	.src = GENERAL(AUTO),
};

FIXTURE_VARIANT_ADD(m2m, general_legacy) {
	.src = GENERAL(LEGACY),
};

FIXTURE_VARIANT_ADD(m2m, general_heap) {
	.src = GENERAL_HEAP,
};

/* vim2m's queues are vmalloc: above 4 GiB is fine. */
FIXTURE_VARIANT_ADD(m2m, large_auto) {
	.src = LARGE(AUTO),
};

FIXTURE_VARIANT_ADD(m2m, large_heap) {
	.src = LARGE_HEAP,
};

FIXTURE_SETUP(m2m)
{
	struct m2m *m = &self->m;
	unsigned int i;

	m->video = -1;
	m->in.dev = -1;
	for (i = 0; i < NBUFS; i++) {
		cbuf_init(&m->out[i]);
		cbuf_init(&m->cap[i]);
	}
	if (kernel_lacks("vim2m"))
		SKIP(return, "vim2m: this kernel has no vim2m (CONFIG_VIDEO_VIM2M off)");
	ASSERT_EQ(0, leak_take(&self->leak));
	inst_open(_metadata, &m->in, variant->src.inst);
	if (!src_usable(_metadata, &m->in, &variant->src))
		return;
	m->video = video_find("vim2m", NULL, V4L2_CAP_VIDEO_M2M);
	ASSERT_LE(0, m->video)
		TH_LOG("no single-planar vim2m (tests/suites/v4l2.sh loads it)");
	/* A new context starts unflipped; say so, vim2m copies then. */
	ASSERT_EQ(0, ctrl_set(m->video, V4L2_CID_HFLIP, 0));
	ASSERT_EQ(0, ctrl_set(m->video, V4L2_CID_VFLIP, 0));
}

FIXTURE_TEARDOWN(m2m)
{
	struct m2m *m = &self->m;
	unsigned int i;

	close_fd(&m->video);
	for (i = 0; i < NBUFS; i++) {
		cbuf_free(&m->out[i]);
		cbuf_free(&m->cap[i]);
	}
	free(m->want);
	close_fd(&m->in.dev);
	leak_check(_metadata, &self->leak);
}

/* Bytes that differ along a line, between lines and between frames. */
static void fill_frame(unsigned char *p, size_t len, unsigned int seed)
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
 * What vim2m makes of the RGB24 frame @in at the same size, unflipped:
 * the same bytes, or (BGR24) each pixel's red and blue swapped.
 */
static void m2m_expect(const unsigned char *in, unsigned char *want,
		       size_t len, __u32 fourcc)
{
	size_t i;

	memcpy(want, in, len);
	if (fourcc != V4L2_PIX_FMT_BGR24)
		return;
	for (i = 0; i + 3 <= len; i += 3) {
		want[i] = in[i + 2];
		want[i + 2] = in[i];
	}
}

/*
 * cmabuf buffers on vim2m's OUTPUT and CAPTURE queues at once, streaming:
 * RGB24 written by the CPU in, @fourcc out. The timestamp vim2m copies
 * says which input a capture came from.
 */
static void m2m_run(struct __test_metadata *_metadata, struct m2m *m,
		    const struct src *s, __u32 fourcc)
{
	struct vfmt out, cap;
	struct vplane vp;
	struct vframe fr;
	unsigned int i;
	__u32 count;

	fmt_must(_metadata, m->video, V4L2_BUF_TYPE_VIDEO_OUTPUT,
		 V4L2_PIX_FMT_RGB24, M2M_WIDTH, M2M_HEIGHT, &out);
	fmt_must(_metadata, m->video, V4L2_BUF_TYPE_VIDEO_CAPTURE, fourcc,
		 M2M_WIDTH, M2M_HEIGHT, &cap);
	ASSERT_EQ(M2M_WIDTH * M2M_HEIGHT * 3U, out.sizeimage[0]);
	ASSERT_EQ(out.sizeimage[0], cap.sizeimage[0]);
	m->want = malloc(cap.sizeimage[0]);
	ASSERT_NE(NULL, m->want);

	for (i = 0; i < NBUFS; i++) {
		cbuf_alloc(_metadata, &m->in, s, out.sizeimage[0],
			   &m->out[i]);
		cbuf_alloc(_metadata, &m->in, s, cap.sizeimage[0],
			   &m->cap[i]);
		ASSERT_EQ(0, sync_exactly(m->out[i].fd,
					  DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE));
		fill_frame(m->out[i].map, out.sizeimage[0], i);
		ASSERT_EQ(0, sync_exactly(m->out[i].fd,
					  DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE));
	}
	ASSERT_EQ(0, v4l2_reqbufs(m->video, out.type, V4L2_MEMORY_DMABUF,
				  NBUFS, &count));
	ASSERT_LE(NBUFS, count);
	ASSERT_EQ(0, v4l2_reqbufs(m->video, cap.type, V4L2_MEMORY_DMABUF,
				  NBUFS, &count));
	ASSERT_LE(NBUFS, count);
	for (i = 0; i < NBUFS; i++) {
		vp.fd = m->out[i].fd;
		vp.length = 0;
		vp.bytesused = out.sizeimage[0];
		ASSERT_EQ(0, v4l2_qbuf(m->video, &out, i, &vp, i + 1));
		planes_of(&m->cap[i], 1, &vp);
		ASSERT_EQ(0, v4l2_qbuf(m->video, &cap, i, &vp, 0));
	}
	ASSERT_EQ(0, v4l2_stream(m->video, out.type, true));
	ASSERT_EQ(0, v4l2_stream(m->video, cap.type, true));
	for (i = 0; i < NBUFS; i++) {
		ASSERT_EQ(0, v4l2_dqbuf(m->video, &cap, V4L2_MEMORY_DMABUF,
					&fr));
		ASSERT_GT(NBUFS, fr.index);
		EXPECT_EQ(0U, fr.flags & V4L2_BUF_FLAG_ERROR);
		EXPECT_EQ(cap.sizeimage[0], fr.bytesused[0]);
		ASSERT_LE(1, fr.sec);
		ASSERT_GE(NBUFS, fr.sec);
		/* The CPU reads back what it wrote, then what vim2m made. */
		ASSERT_EQ(0, sync_exactly(m->out[fr.sec - 1].fd,
					  DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ));
		m2m_expect(m->out[fr.sec - 1].map, m->want,
			   cap.sizeimage[0], fourcc);
		ASSERT_EQ(0, sync_exactly(m->out[fr.sec - 1].fd,
					  DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ));
		check_frame(_metadata, &m->cap[fr.index], m->want,
			    cap.sizeimage[0]);
		ASSERT_EQ(0, v4l2_dqbuf(m->video, &out, V4L2_MEMORY_DMABUF,
					&fr));
		EXPECT_EQ(0U, fr.flags & V4L2_BUF_FLAG_ERROR);
	}
	ASSERT_EQ(0, v4l2_stream(m->video, cap.type, false));
	ASSERT_EQ(0, v4l2_stream(m->video, out.type, false));
	ASSERT_EQ(0, v4l2_reqbufs(m->video, cap.type, V4L2_MEMORY_DMABUF, 0,
				  NULL));
	ASSERT_EQ(0, v4l2_reqbufs(m->video, out.type, V4L2_MEMORY_DMABUF, 0,
				  NULL));
}

/* Equal formats and sizes, no flip: vim2m copies line by line. */
TEST_F_TIMEOUT(m2m, equal_formats_copied, TIMEOUT)
{
	m2m_run(_metadata, &self->m, &variant->src, V4L2_PIX_FMT_RGB24);
}

/* RGB24 to BGR24: vim2m's converter swaps red and blue in every pixel. */
TEST_F_TIMEOUT(m2m, rgb24_to_bgr24_swaps_red_and_blue, TIMEOUT)
{
	m2m_run(_metadata, &self->m, &variant->src, V4L2_PIX_FMT_BGR24);
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
 * are where they were before the first test, and vivid, vimc and vim2m hold
 * nothing (v4l2.sh unloads them after).
 */
TEST_F(end, counters_back_where_they_started)
{
	media_back_at_start(_metadata);
}

int main(int argc, char **argv)
{
	return media_harness_run(argc, argv);
}
