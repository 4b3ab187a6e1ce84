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
 *  - m2m: vim2m reads cmabuf OUTPUT buffers and writes cmabuf CAPTURE
 *    buffers in one stream: a copy when the formats are equal, red and
 *    blue swapped from RGB24 to BGR24;
 *  - import: what a user meets: a buffer smaller than sizeimage (EINVAL
 *    from vb2); a buffer above 4 GiB, which dma-contig's 32-bit device
 *    cannot reach (EINVAL from vb2, each refusal counted once in the
 *    instance's stats/unreachable_maps) and vmalloc takes; a queued buffer
 *    is held until REQBUFS(0), a refused one is not held at all. What vb2
 *    leaks (see smaller_than_sizeimage_refused) is left out.
 *
 * Every test leaves every instance's live buffers and CMA area as it found
 * them, and so does the whole program (the last test). The guest suite
 * (tests/suites/v4l2.sh) loads vivid with one instance per allocator and
 * API and vim2m; devices are found by VIDIOC_QUERYCAP, never by number.
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
#include <linux/dma-buf.h>
#include <linux/videodev2.h>

#include "kselftest_harness.h"
#include "cmabuf_test_util.h"
#include "reliability_util.h"

#define V4L2_CLASS	"/sys/class/video4linux"
#define VIVID_PARAMS	"/sys/module/vivid/parameters/"
#define VIVID_MAX_DEVS	64

/* vivid's allocators= values. */
#define ALLOC_VMALLOC		0
#define ALLOC_DMA_CONTIG	1

/* Buffers a queue gets, and the most planes a format here has. */
#define NBUFS		2U
#define MAX_PLANES	3U
/* MMAP frames of the reference, and cmabuf frames: one buffer twice. */
#define REF_FRAMES	2U
#define FRAMES		3U
/* How long a frame may take, on a KASAN kernel under QEMU TCG. */
#define DQBUF_MS	10000
/* QBUFs of a buffer the device cannot reach. */
#define ROUNDS		3U
#define SETTLE_MS	5000
#define TIMEOUT		120

/* vim2m's frames: small, and no power of two. */
#define M2M_WIDTH	176
#define M2M_HEIGHT	144

/**
 * struct vfmt - the format of a queue, as the driver took it
 * @type: V4L2_BUF_TYPE_*.
 * @mplane: @type is of the multi-planar API.
 * @width: pixels.
 * @height: lines.
 * @fourcc: V4L2_PIX_FMT_*.
 * @planes: memory planes, one buffer each.
 * @sizeimage: bytes of each.
 */
struct vfmt {
	__u32 type;
	bool mplane;
	__u32 width;
	__u32 height;
	__u32 fourcc;
	unsigned int planes;
	__u32 sizeimage[MAX_PLANES];
};

/**
 * struct vframe - a buffer as DQBUF gave it back
 * @index: its index.
 * @flags: V4L2_BUF_FLAG_*.
 * @sec: the seconds of its timestamp.
 * @bytesused: bytes of each plane the driver filled (data_offset included).
 * @data_offset: where the image starts in each plane.
 */
struct vframe {
	__u32 index;
	__u32 flags;
	long long sec;
	__u32 bytesused[MAX_PLANES];
	__u32 data_offset[MAX_PLANES];
};

/**
 * struct vplane - one plane of a QBUF
 * @fd: DMABUF: the dma-buf.
 * @length: DMABUF: bytes the driver may use, 0 for the dma-buf's size.
 * @bytesused: OUTPUT: bytes of the frame.
 */
struct vplane {
	int fd;
	__u32 length;
	__u32 bytesused;
};

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

/* ---- cmabuf side ---- */

static int leak_take(struct leak *l)
{
	int ret = rel_instances(l->inst, REL_MAX_INSTANCES, &l->count);

	return ret ?: rel_snapshot_take(l->inst, l->count, &l->base);
}

/* Every instance back where @l found it, once frees in flight are done. */
static void leak_check(struct __test_metadata *_metadata,
		       const struct leak *l)
{
	struct rel_snapshot now;
	char why[256] = "";

	EXPECT_EQ(0, rel_snapshot_settle(l->inst, l->count, &l->base,
					 SETTLE_MS, &now, why, sizeof(why)))
		TH_LOG("not back where it started: %s", why);
}

/* Live buffers of instance "cmabuf-@label" now, frees in flight done. */
static unsigned long long live_buffers(struct __test_metadata *_metadata,
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

static unsigned long long base_live(const struct leak *l, const char *label)
{
	const struct rel_counts *c;
	char name[REL_NAME_MAX];

	snprintf(name, sizeof(name), "cmabuf-%s", label);
	c = rel_snapshot_find(&l->base, name);
	return c ? c->live_buffers : 0;
}

static void inst_open(struct __test_metadata *_metadata, struct inst *in,
		      const char *label)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/cmabuf-%s", label);
	in->dev = open(path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, in->dev) TH_LOG("%s: %s", path, strerror(errno));
	ASSERT_EQ(0, cmabuf_get_info(in->dev, &in->info, NULL, 0));
}

static void close_fd(int *fd)
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
static bool src_usable(struct __test_metadata *_metadata,
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
static int sync_exactly(int buf, __u64 flags)
{
	struct dma_buf_sync sync = { .flags = flags };

	return cmabuf_ioctl_retry(buf, DMA_BUF_IOCTL_SYNC, &sync);
}

/*
 * Bytes to ask for @size with @strategy: whole pages, and for COMPOUND a
 * power of two of them within its orders, since frames are neither.
 */
static __u64 alloc_size(const struct cmabuf_info *info, __u32 strategy,
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

static void cbuf_init(struct cbuf *b)
{
	b->fd = -1;
	b->map = MAP_FAILED;
	b->size = 0;
}

static void cbuf_free(struct cbuf *b)
{
	if (b->map != MAP_FAILED)
		munmap(b->map, b->size);
	close_fd(&b->fd);
	cbuf_init(b);
}

/* A buffer of at least @size bytes from @s, mapped, checked zero. */
static void cbuf_alloc(struct __test_metadata *_metadata,
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
static void planes_of(const struct cbuf *b, unsigned int n,
		      struct vplane *vp)
{
	unsigned int p;

	for (p = 0; p < n; p++) {
		vp[p].fd = b[p].fd;
		vp[p].length = 0;
		vp[p].bytesused = 0;
	}
}

/* Offset of the first byte where @a and @b differ, @len when none. */
static size_t first_diff(const unsigned char *a, const unsigned char *b,
			 size_t len)
{
	size_t i = 0;

	if (!memcmp(a, b, len))
		return len;
	while (i < len && a[i] == b[i])
		i++;
	return i;
}

/*
 * What the driver left in @b, read through cmabuf's mapping inside
 * DMA_BUF_SYNC_START and _END: the @len bytes of @want, not all zero,
 * and nothing written past them.
 */
static void check_frame(struct __test_metadata *_metadata,
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

/* ---- V4L2 side ---- */

/*
 * Open the video node whose QUERYCAP says @driver and @bus_info and whose
 * device capabilities include @caps. Return: the fd, or -1.
 */
static int video_find(const char *driver, const char *bus_info, __u32 caps)
{
	struct v4l2_capability cap;
	struct dirent *de;
	char path[300];
	__u32 dcaps;
	int fd = -1;
	DIR *dir;

	dir = opendir(V4L2_CLASS);
	if (!dir)
		return -1;
	while ((de = readdir(dir))) {
		if (strncmp(de->d_name, "video", 5))
			continue;
		snprintf(path, sizeof(path), "/dev/%s", de->d_name);
		fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		memset(&cap, 0, sizeof(cap));
		if (!ioctl(fd, VIDIOC_QUERYCAP, &cap)) {
			dcaps = cap.capabilities & V4L2_CAP_DEVICE_CAPS ?
				cap.device_caps : cap.capabilities;
			if (!strcmp((char *)cap.driver, driver) &&
			    (!bus_info || !strcmp((char *)cap.bus_info, bus_info)) &&
			    (dcaps & caps) == caps)
				break;
		}
		close(fd);
		fd = -1;
	}
	closedir(dir);
	return fd;
}

/* The values of vivid's parameter @name ("0,1,0,1,..."), into @val. */
static int vivid_param(const char *name, unsigned int *val, unsigned int max)
{
	char path[128], text[512], *p, *end;
	unsigned int n = 0;
	int ret;

	snprintf(path, sizeof(path), VIVID_PARAMS "%s", name);
	ret = cmabuf_read_file(path, text, sizeof(text));
	if (ret)
		return ret;
	for (p = text; n < max; p = end + 1) {
		val[n] = strtoul(p, &end, 0);
		if (end == p)
			break;
		n++;
		if (*end != ',')
			break;
	}
	return n ? 0 : -1;
}

/*
 * The capture node of the vivid instance with vb2 allocator @allocator
 * and the multi-planar API or not, as vivid's parameters say.
 */
static int vivid_open(struct __test_metadata *_metadata,
		      unsigned int allocator, bool mplane)
{
	unsigned int alloc[VIVID_MAX_DEVS] = { 0 };
	unsigned int multi[VIVID_MAX_DEVS] = { 0 };
	unsigned int n_devs = 0, i;
	char bus[32];
	int fd;

	ASSERT_EQ(0, vivid_param("n_devs", &n_devs, 1))
		TH_LOG("vivid is not loaded (tests/suites/v4l2.sh loads it)");
	ASSERT_EQ(0, vivid_param("allocators", alloc, VIVID_MAX_DEVS));
	ASSERT_EQ(0, vivid_param("multiplanar", multi, VIVID_MAX_DEVS));
	for (i = 0; i < n_devs && i < VIVID_MAX_DEVS; i++)
		if (alloc[i] == allocator && multi[i] == (mplane ? 2U : 1U))
			break;
	ASSERT_GT(n_devs, i)
		TH_LOG("no vivid instance with allocator %u, %s-planar: see v4l2.sh",
		       allocator, mplane ? "multi" : "single");
	snprintf(bus, sizeof(bus), "platform:vivid-%03u", i);
	fd = video_find("vivid", bus, mplane ? V4L2_CAP_VIDEO_CAPTURE_MPLANE :
					       V4L2_CAP_VIDEO_CAPTURE);
	ASSERT_LE(0, fd) TH_LOG("no video capture node of %s", bus);
	return fd;
}

/* The control named @name, into @q. Return: whether there is one. */
static bool ctrl_find(int fd, const char *name, struct v4l2_query_ext_ctrl *q)
{
	__u32 id = 0;

	for (;;) {
		memset(q, 0, sizeof(*q));
		q->id = id | V4L2_CTRL_FLAG_NEXT_CTRL;
		if (ioctl(fd, VIDIOC_QUERY_EXT_CTRL, q))
			return false;
		if (!strcmp(q->name, name) &&
		    !(q->flags & V4L2_CTRL_FLAG_DISABLED))
			return true;
		id = q->id;
	}
}

/* Set control @id to @value, and read it back. */
static void ctrl_set(struct __test_metadata *_metadata, int fd, __u32 id,
		     __s32 value)
{
	struct v4l2_ext_controls cs;
	struct v4l2_ext_control c;

	memset(&cs, 0, sizeof(cs));
	memset(&c, 0, sizeof(c));
	c.id = id;
	c.value = value;
	cs.which = V4L2_CTRL_WHICH_CUR_VAL;
	cs.count = 1;
	cs.controls = &c;
	ASSERT_EQ(0, cmabuf_ioctl(fd, VIDIOC_S_EXT_CTRLS, &cs))
		TH_LOG("control %#x = %d", id, value);
	c.value = ~value;
	ASSERT_EQ(0, cmabuf_ioctl(fd, VIDIOC_G_EXT_CTRLS, &cs));
	ASSERT_EQ(value, c.value);
}

/* Set the menu control named @name to its item named @item. */
static void ctrl_set_menu(struct __test_metadata *_metadata, int fd,
			  const char *name, const char *item)
{
	struct v4l2_query_ext_ctrl q;
	struct v4l2_querymenu m;
	__s64 i;

	ASSERT_TRUE(ctrl_find(fd, name, &q)) TH_LOG("no control \"%s\"", name);
	ASSERT_EQ((__u32)V4L2_CTRL_TYPE_MENU, q.type);
	for (i = q.minimum; i <= q.maximum; i++) {
		memset(&m, 0, sizeof(m));
		m.id = q.id;
		m.index = i;
		if (!ioctl(fd, VIDIOC_QUERYMENU, &m) &&
		    !strcmp((char *)m.name, item))
			break;
	}
	ASSERT_GE(q.maximum, i) TH_LOG("\"%s\" has no item \"%s\"", name, item);
	ctrl_set(_metadata, fd, q.id, i);
}

/*
 * vivid's webcam input with a still test pattern: no OSD text (it prints
 * the time and the frame count), no movement, a pattern that changes
 * along both axes. Every frame is then the same, and a frame in the
 * wrong place, or cut short, differs.
 */
static void vivid_still(struct __test_metadata *_metadata, int fd)
{
	struct v4l2_input in;
	int input = 0;

	memset(&in, 0, sizeof(in));
	ASSERT_EQ(0, cmabuf_ioctl(fd, VIDIOC_ENUMINPUT, &in));
	ASSERT_EQ((__u32)V4L2_INPUT_TYPE_CAMERA, in.type)
		TH_LOG("vivid's input 0 is \"%s\", not its webcam", in.name);
	ASSERT_EQ(0, cmabuf_ioctl(fd, VIDIOC_S_INPUT, &input));
	ctrl_set_menu(_metadata, fd, "Test Pattern", "100% Color Squares");
	ctrl_set_menu(_metadata, fd, "OSD Text Mode", "None");
	ctrl_set_menu(_metadata, fd, "Horizontal Movement", "No Movement");
	ctrl_set_menu(_metadata, fd, "Vertical Movement", "No Movement");
}

static bool type_mplane(__u32 type)
{
	return type == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE ||
	       type == V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE;
}

/* S_FMT, which must give exactly what was asked; the result in @f. */
static void fmt_set(struct __test_metadata *_metadata, int fd, __u32 type,
		    __u32 fourcc, __u32 width, __u32 height, struct vfmt *f)
{
	struct v4l2_format v;
	unsigned int p;

	memset(&v, 0, sizeof(v));
	memset(f, 0, sizeof(*f));
	v.type = type;
	f->type = type;
	f->mplane = type_mplane(type);
	if (f->mplane) {
		v.fmt.pix_mp.width = width;
		v.fmt.pix_mp.height = height;
		v.fmt.pix_mp.pixelformat = fourcc;
		v.fmt.pix_mp.field = V4L2_FIELD_NONE;
	} else {
		v.fmt.pix.width = width;
		v.fmt.pix.height = height;
		v.fmt.pix.pixelformat = fourcc;
		v.fmt.pix.field = V4L2_FIELD_NONE;
	}
	ASSERT_EQ(0, cmabuf_ioctl(fd, VIDIOC_S_FMT, &v))
		TH_LOG("S_FMT %.4s %ux%u", (char *)&fourcc, width, height);
	if (f->mplane) {
		f->width = v.fmt.pix_mp.width;
		f->height = v.fmt.pix_mp.height;
		f->fourcc = v.fmt.pix_mp.pixelformat;
		f->planes = v.fmt.pix_mp.num_planes;
		ASSERT_GE(MAX_PLANES, f->planes);
		for (p = 0; p < f->planes; p++)
			f->sizeimage[p] = v.fmt.pix_mp.plane_fmt[p].sizeimage;
	} else {
		f->width = v.fmt.pix.width;
		f->height = v.fmt.pix.height;
		f->fourcc = v.fmt.pix.pixelformat;
		f->planes = 1;
		f->sizeimage[0] = v.fmt.pix.sizeimage;
	}
	ASSERT_EQ(fourcc, f->fourcc)
		TH_LOG("no %.4s: the driver chose %.4s", (char *)&fourcc,
		       (char *)&f->fourcc);
	ASSERT_EQ(width, f->width);
	ASSERT_EQ(height, f->height);
	ASSERT_LT(0U, f->planes);
}

/* vivid's webcam at 60 frames a second, the most 720p may have. */
static void fps_set(struct __test_metadata *_metadata, int fd, __u32 type)
{
	struct v4l2_streamparm parm;

	memset(&parm, 0, sizeof(parm));
	parm.type = type;
	parm.parm.capture.timeperframe.numerator = 1;
	parm.parm.capture.timeperframe.denominator = 60;
	ASSERT_EQ(0, cmabuf_ioctl(fd, VIDIOC_S_PARM, &parm));
	EXPECT_EQ(60U, parm.parm.capture.timeperframe.denominator);
}

static int v4l2_reqbufs(int fd, __u32 type, __u32 memory, __u32 count,
			__u32 *got)
{
	struct v4l2_requestbuffers rb;
	int ret;

	memset(&rb, 0, sizeof(rb));
	rb.count = count;
	rb.type = type;
	rb.memory = memory;
	ret = cmabuf_ioctl(fd, VIDIOC_REQBUFS, &rb);
	if (!ret && got)
		*got = rb.count;
	return ret;
}

/*
 * QBUF buffer @index of the queue @f: DMABUF with the planes @vp, or MMAP
 * when @vp is NULL. @sec is the timestamp an OUTPUT buffer carries.
 */
static int v4l2_qbuf(int fd, const struct vfmt *f, __u32 index,
		     const struct vplane *vp, long long sec)
{
	struct v4l2_plane planes[MAX_PLANES];
	struct v4l2_buffer b;
	unsigned int p;

	memset(&b, 0, sizeof(b));
	memset(planes, 0, sizeof(planes));
	b.type = f->type;
	b.memory = vp ? V4L2_MEMORY_DMABUF : V4L2_MEMORY_MMAP;
	b.index = index;
	b.field = V4L2_FIELD_NONE;
	b.timestamp.tv_sec = sec;
	if (f->mplane) {
		b.m.planes = planes;
		b.length = f->planes;
		for (p = 0; vp && p < f->planes; p++) {
			planes[p].m.fd = vp[p].fd;
			planes[p].length = vp[p].length;
			planes[p].bytesused = vp[p].bytesused;
		}
	} else if (vp) {
		b.m.fd = vp[0].fd;
		b.length = vp[0].length;
		b.bytesused = vp[0].bytesused;
	}
	return cmabuf_ioctl(fd, VIDIOC_QBUF, &b);
}

/* DQBUF from the queue @f, waiting up to DQBUF_MS. Return: 0 or errno. */
static int v4l2_dqbuf(int fd, const struct vfmt *f, __u32 memory,
		      struct vframe *fr)
{
	unsigned long long end = cmabuf_now_ms() + DQBUF_MS, now;
	struct v4l2_plane planes[MAX_PLANES];
	struct pollfd pfd = { .fd = fd };
	struct v4l2_buffer b;
	unsigned int p;
	int ret;

	pfd.events = V4L2_TYPE_IS_OUTPUT(f->type) ? POLLOUT : POLLIN;
	for (;;) {
		memset(&b, 0, sizeof(b));
		memset(planes, 0, sizeof(planes));
		b.type = f->type;
		b.memory = memory;
		if (f->mplane) {
			b.m.planes = planes;
			b.length = f->planes;
		}
		ret = cmabuf_ioctl(fd, VIDIOC_DQBUF, &b);
		if (ret != EAGAIN)
			break;
		now = cmabuf_now_ms();
		if (now >= end) {
			ret = ETIMEDOUT;
			break;
		}
		poll(&pfd, 1, end - now);
	}
	if (ret)
		return ret;
	memset(fr, 0, sizeof(*fr));
	fr->index = b.index;
	fr->flags = b.flags;
	fr->sec = b.timestamp.tv_sec;
	if (f->mplane) {
		for (p = 0; p < f->planes; p++) {
			fr->bytesused[p] = planes[p].bytesused;
			fr->data_offset[p] = planes[p].data_offset;
		}
	} else {
		fr->bytesused[0] = b.bytesused;
	}
	return 0;
}

static int v4l2_stream(int fd, __u32 type, bool on)
{
	int t = type;

	return cmabuf_ioctl(fd, on ? VIDIOC_STREAMON : VIDIOC_STREAMOFF, &t);
}

/*
 * The frame vivid captures into its own MMAP buffers in the format @f:
 * each plane copied into @ref[p], with its bytesused and data_offset in
 * @rfr. The frames after the first must be the same, or the pattern is
 * not still and no comparison could hold.
 */
static void mmap_reference(struct __test_metadata *_metadata, int fd,
			   const struct vfmt *f, unsigned char **ref,
			   struct vframe *rfr)
{
	void *map[NBUFS][MAX_PLANES] = { { NULL } };
	size_t len[NBUFS][MAX_PLANES] = { { 0 } };
	struct v4l2_plane planes[MAX_PLANES];
	struct v4l2_buffer b;
	unsigned int i, n, p;
	struct vframe fr;
	__u32 count;

	ASSERT_EQ(0, v4l2_reqbufs(fd, f->type, V4L2_MEMORY_MMAP, NBUFS,
				  &count));
	ASSERT_LE(NBUFS, count);
	for (i = 0; i < NBUFS; i++) {
		memset(&b, 0, sizeof(b));
		memset(planes, 0, sizeof(planes));
		b.type = f->type;
		b.memory = V4L2_MEMORY_MMAP;
		b.index = i;
		if (f->mplane) {
			b.m.planes = planes;
			b.length = f->planes;
		}
		ASSERT_EQ(0, cmabuf_ioctl(fd, VIDIOC_QUERYBUF, &b));
		for (p = 0; p < f->planes; p++) {
			len[i][p] = f->mplane ? planes[p].length : b.length;
			map[i][p] = mmap(NULL, len[i][p], PROT_READ, MAP_SHARED,
					 fd, f->mplane ? planes[p].m.mem_offset :
							 b.m.offset);
			ASSERT_NE(MAP_FAILED, map[i][p]);
		}
		ASSERT_EQ(0, v4l2_qbuf(fd, f, i, NULL, 0));
	}
	ASSERT_EQ(0, v4l2_stream(fd, f->type, true));
	for (n = 0; n < REF_FRAMES; n++) {
		ASSERT_EQ(0, v4l2_dqbuf(fd, f, V4L2_MEMORY_MMAP, &fr));
		ASSERT_GT(NBUFS, fr.index);
		ASSERT_EQ(0U, fr.flags & V4L2_BUF_FLAG_ERROR);
		for (p = 0; p < f->planes; p++) {
			ASSERT_GE(len[fr.index][p], fr.bytesused[p]);
			if (!n) {
				ref[p] = malloc(fr.bytesused[p]);
				ASSERT_NE(NULL, ref[p]);
				memcpy(ref[p], map[fr.index][p],
				       fr.bytesused[p]);
				continue;
			}
			ASSERT_EQ(rfr->bytesused[p], fr.bytesused[p]);
			ASSERT_EQ(fr.bytesused[p],
				  first_diff(map[fr.index][p], ref[p],
					     fr.bytesused[p]))
				TH_LOG("vivid's frames differ: its pattern is not still");
		}
		if (!n)
			*rfr = fr;
		ASSERT_EQ(0, v4l2_qbuf(fd, f, fr.index, NULL, 0));
	}
	ASSERT_EQ(0, v4l2_stream(fd, f->type, false));
	for (i = 0; i < NBUFS; i++)
		for (p = 0; p < f->planes; p++)
			munmap(map[i][p], len[i][p]);
	ASSERT_EQ(0, v4l2_reqbufs(fd, f->type, V4L2_MEMORY_MMAP, 0, NULL));
}

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

#define GENERAL(s)	{ .inst = "general", .strategy = CMABUF_STRATEGY_##s }
#define LARGE(s)	{ .inst = "large", .strategy = CMABUF_STRATEGY_##s }
#define GENERAL_HEAP	{ .inst = "general", .heap = true }
#define LARGE_HEAP	{ .inst = "large", .heap = true }

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
	self->video = vivid_open(_metadata, c->allocator, c->mplane);
	vivid_still(_metadata, self->video);
	fmt_set(_metadata, self->video,
		c->mplane ? V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE :
			    V4L2_BUF_TYPE_VIDEO_CAPTURE,
		c->fourcc, c->width, c->height, &self->fmt);
	ASSERT_EQ(c->planes, self->fmt.planes);
	fps_set(_metadata, self->video, self->fmt.type);
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
 * Frames vivid captured into cmabuf buffers are those it captured into
 * its own: the same bytes, bytesused and data_offset, each buffer used
 * again after its first frame. The instance never refused a mapping.
 */
TEST_F_TIMEOUT(capture, frames_equal_vivid_mmap_frames, TIMEOUT)
{
	const struct vfmt *f = &self->fmt;
	unsigned long long unreachable[2];
	struct vplane vp[MAX_PLANES];
	unsigned int i, n, p;
	struct vframe fr;
	__u32 count;

	mmap_reference(_metadata, self->video, f, self->ref, &self->rfr);
	EXPECT_EQ(variant->c.data_offset, self->rfr.data_offset[0]);
	for (p = 0; p < f->planes; p++)
		EXPECT_EQ(f->sizeimage[p], self->rfr.bytesused[p]);

	for (i = 0; i < NBUFS; i++)
		for (p = 0; p < f->planes; p++)
			cbuf_alloc(_metadata, &self->in, &variant->src,
				   f->sizeimage[p], &self->buf[i][p]);
	ASSERT_EQ(0, cmabuf_sysfs_read(self->in.dev, "stats/unreachable_maps",
				       &unreachable[0]));
	ASSERT_EQ(0, v4l2_reqbufs(self->video, f->type, V4L2_MEMORY_DMABUF,
				  NBUFS, &count));
	ASSERT_LE(NBUFS, count);
	for (i = 0; i < NBUFS; i++) {
		planes_of(self->buf[i], f->planes, vp);
		ASSERT_EQ(0, v4l2_qbuf(self->video, f, i, vp, 0));
	}
	ASSERT_EQ(0, v4l2_stream(self->video, f->type, true));
	for (n = 0; n < FRAMES; n++) {
		ASSERT_EQ(0, v4l2_dqbuf(self->video, f, V4L2_MEMORY_DMABUF,
					&fr));
		ASSERT_GT(NBUFS, fr.index);
		EXPECT_EQ(0U, fr.flags & V4L2_BUF_FLAG_ERROR);
		for (p = 0; p < f->planes; p++) {
			EXPECT_EQ(self->rfr.bytesused[p], fr.bytesused[p]);
			EXPECT_EQ(self->rfr.data_offset[p], fr.data_offset[p]);
			check_frame(_metadata, &self->buf[fr.index][p],
				    self->ref[p], self->rfr.bytesused[p]);
		}
		if (n + NBUFS < FRAMES) {
			planes_of(self->buf[fr.index], f->planes, vp);
			ASSERT_EQ(0, v4l2_qbuf(self->video, f, fr.index, vp, 0));
		}
	}
	ASSERT_EQ(0, v4l2_stream(self->video, f->type, false));
	ASSERT_EQ(0, v4l2_reqbufs(self->video, f->type, V4L2_MEMORY_DMABUF, 0,
				  NULL));
	ASSERT_EQ(0, cmabuf_sysfs_read(self->in.dev, "stats/unreachable_maps",
				       &unreachable[1]));
	EXPECT_EQ(unreachable[0], unreachable[1]);
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
	self->video = vivid_open(_metadata, variant->allocator,
				 variant->mplane);
	if (variant->mplane)
		fmt_set(_metadata, self->video,
			V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE,
			V4L2_PIX_FMT_NV12M, 320, 180, &self->fmt);
	else
		fmt_set(_metadata, self->video, V4L2_BUF_TYPE_VIDEO_CAPTURE,
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

/*
 * A plane's dma-buf smaller than its sizeimage: vb2 takes a length of 0
 * as the dma-buf's size, and refuses it, or the dma-buf's size given as
 * the length, against the plane's minimum (EINVAL) before it attaches
 * anything. Neither holds on to any buffer, and the queue takes a buffer
 * of the right size after.
 *
 * Not done: a length that claims the sizeimage, which passes that check
 * for the allocator's attach to refuse (EFAULT): vb2 (6.12 and 7.2,
 * __prepare_dmabuf()) then leaks its reference on that plane's dma-buf
 * and on those of the planes after it, so that the buffers can never be
 * freed.
 */
TEST_F_TIMEOUT(import, smaller_than_sizeimage_refused, TIMEOUT)
{
	const struct src *s = import_src(variant->heap, false);
	const struct vfmt *f = &self->fmt;
	unsigned int last = f->planes - 1, p;
	unsigned long long unreachable[2];
	struct vplane vp[MAX_PLANES];

	ASSERT_EQ(0, v4l2_reqbufs(self->video, f->type, V4L2_MEMORY_DMABUF, 1,
				  NULL));
	for (p = 0; p < f->planes; p++)
		cbuf_alloc(_metadata, &self->general, s,
			   f->sizeimage[p] - (p == last ? SZ_4K : 0),
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

	for (p = 0; p < f->planes; p++)
		cbuf_alloc(_metadata, &self->general, s, f->sizeimage[p],
			   &self->buf[p]);
	planes_of(self->buf, f->planes, vp);
	EXPECT_EQ(0, v4l2_qbuf(self->video, f, 0, vp, 0));
}

/*
 * A buffer above 4 GiB (instance "large"): vivid's device has a 32-bit
 * DMA mask and no IOMMU, so dma-contig's map_attachment gets ERANGE,
 * which vb2 reports as EINVAL at QBUF, and the large instance counts each
 * refusal once, in its total and its strategy's stats; multi-planar, the
 * first plane (below 4 GiB) was mapped before the second was refused, and
 * is let go. vmalloc vmaps it and takes it, and holds it until
 * REQBUFS(0). The large buffer is the last plane: vb2 leaks its reference
 * on every plane after the one it fails to map.
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
	unsigned int p;

	ASSERT_EQ(0, v4l2_reqbufs(self->video, f->type, V4L2_MEMORY_DMABUF, 1,
				  NULL));
	for (p = 0; p < f->planes; p++)
		cbuf_alloc(_metadata, &self->general, s, f->sizeimage[p],
			   &self->buf[p]);
	planes_of(self->buf, f->planes, vp);
	ASSERT_EQ(0, v4l2_qbuf(self->video, f, 0, vp, 0));
	buffers_free(self->buf);
	EXPECT_EQ(base + f->planes,
		  live_buffers(_metadata, &self->leak, "general"));
	ASSERT_EQ(0, v4l2_reqbufs(self->video, f->type, V4L2_MEMORY_DMABUF, 0,
				  NULL));
	EXPECT_EQ(base, live_buffers(_metadata, &self->leak, "general"));
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
	ASSERT_EQ(0, leak_take(&self->leak));
	inst_open(_metadata, &m->in, variant->src.inst);
	if (!src_usable(_metadata, &m->in, &variant->src))
		return;
	m->video = video_find("vim2m", NULL, V4L2_CAP_VIDEO_M2M);
	ASSERT_LE(0, m->video)
		TH_LOG("no single-planar vim2m (tests/suites/v4l2.sh loads it)");
	/* A new context starts unflipped; say so, vim2m copies then. */
	ctrl_set(_metadata, m->video, V4L2_CID_HFLIP, 0);
	ctrl_set(_metadata, m->video, V4L2_CID_VFLIP, 0);
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

	fmt_set(_metadata, m->video, V4L2_BUF_TYPE_VIDEO_OUTPUT,
		V4L2_PIX_FMT_RGB24, M2M_WIDTH, M2M_HEIGHT, &out);
	fmt_set(_metadata, m->video, V4L2_BUF_TYPE_VIDEO_CAPTURE, fourcc,
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

static struct leak at_start;
static int at_start_err;

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
 * are where they were before the first test, and vivid and vim2m hold
 * nothing (v4l2.sh unloads them after).
 */
TEST_F(end, counters_back_where_they_started)
{
	ASSERT_EQ(0, at_start_err);
	leak_check(_metadata, &at_start);
}

int main(int argc, char **argv)
{
	at_start_err = leak_take(&at_start);
	return test_harness_run(argc, argv);
}
