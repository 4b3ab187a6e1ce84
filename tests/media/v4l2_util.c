// SPDX-License-Identifier: GPL-2.0
/*
 * V4L2 and media-controller helpers of the tests/media programs; see
 * v4l2_util.h.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/v4l2-subdev.h>

#include "cmabuf_test_util.h"
#include "v4l2_util.h"

#define V4L2_CLASS	"/sys/class/video4linux"
#define VIVID_PARAMS	"/sys/module/vivid/parameters/"
#define VIVID_MAX_DEVS	64
#define MAX_REF_BUFS	4U

/* Offset of the first byte where @a and @b differ, @len when none. */
size_t first_diff(const unsigned char *a, const unsigned char *b, size_t len)
{
	size_t i = 0;

	if (!memcmp(a, b, len))
		return len;
	while (i < len && a[i] == b[i])
		i++;
	return i;
}

/*
 * Open the video node whose QUERYCAP says @driver and @bus_info (any when
 * NULL) and whose device capabilities include @caps.
 */
int video_find(const char *driver, const char *bus_info, __u32 caps)
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
int vivid_param(const char *name, unsigned int *val, unsigned int max)
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
	return n ? 0 : EINVAL;
}

/*
 * The capture node of the vivid instance with vb2 allocator @allocator
 * and the multi-planar API or not, as vivid's parameters say: -ENOENT
 * when vivid has no such instance, -ENODEV when it has no node.
 */
int vivid_open(unsigned int allocator, bool mplane)
{
	unsigned int alloc[VIVID_MAX_DEVS] = { 0 };
	unsigned int multi[VIVID_MAX_DEVS] = { 0 };
	unsigned int n_devs = 0, i;
	char bus[32];
	int fd, ret;

	ret = vivid_param("n_devs", &n_devs, 1) ?:
	      vivid_param("allocators", alloc, VIVID_MAX_DEVS) ?:
	      vivid_param("multiplanar", multi, VIVID_MAX_DEVS);
	if (ret)
		return -ret;
	for (i = 0; i < n_devs && i < VIVID_MAX_DEVS; i++)
		if (alloc[i] == allocator && multi[i] == (mplane ? 2U : 1U))
			break;
	if (i >= n_devs || i >= VIVID_MAX_DEVS)
		return -ENOENT;
	snprintf(bus, sizeof(bus), "platform:vivid-%03u", i);
	fd = video_find("vivid", bus, mplane ? V4L2_CAP_VIDEO_CAPTURE_MPLANE :
					       V4L2_CAP_VIDEO_CAPTURE);
	return fd < 0 ? -ENODEV : fd;
}

/* The control named @name, into @q. Return: whether there is one. */
bool ctrl_find(int fd, const char *name, struct v4l2_query_ext_ctrl *q)
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

/* Set control @id to @value, and read it back: EIO when it differs. */
int ctrl_set(int fd, __u32 id, __s32 value)
{
	struct v4l2_ext_controls cs;
	struct v4l2_ext_control c;
	int ret;

	memset(&cs, 0, sizeof(cs));
	memset(&c, 0, sizeof(c));
	c.id = id;
	c.value = value;
	cs.which = V4L2_CTRL_WHICH_CUR_VAL;
	cs.count = 1;
	cs.controls = &c;
	ret = cmabuf_ioctl(fd, VIDIOC_S_EXT_CTRLS, &cs);
	if (ret)
		return ret;
	c.value = ~value;
	ret = cmabuf_ioctl(fd, VIDIOC_G_EXT_CTRLS, &cs);
	return ret ?: c.value == value ? 0 : EIO;
}

/*
 * Press the button control named @name: ENOENT when there is no such
 * button. A button has no value to read back.
 */
int ctrl_press(int fd, const char *name)
{
	struct v4l2_query_ext_ctrl q;
	struct v4l2_control c;
	int ret = ENOENT;

	if (!ctrl_find(fd, name, &q) || q.type != V4L2_CTRL_TYPE_BUTTON)
		return ret;
	memset(&c, 0, sizeof(c));
	c.id = q.id;
	c.value = 1;
	return cmabuf_ioctl(fd, VIDIOC_S_CTRL, &c);
}

/*
 * Set the menu control named @name to its item named @item: ENOENT when
 * there is no such control or item.
 */
int ctrl_set_menu(int fd, const char *name, const char *item)
{
	struct v4l2_query_ext_ctrl q;
	struct v4l2_querymenu m;
	int ret = ENOENT;
	__s64 i;

	if (!ctrl_find(fd, name, &q) || q.type != V4L2_CTRL_TYPE_MENU)
		return ret;
	for (i = q.minimum; i <= q.maximum; i++) {
		memset(&m, 0, sizeof(m));
		m.id = q.id;
		m.index = i;
		if (!ioctl(fd, VIDIOC_QUERYMENU, &m) &&
		    !strcmp((char *)m.name, item))
			return ctrl_set(fd, q.id, i);
	}
	return ret;
}

/*
 * vivid's webcam input with a still test pattern: no OSD text (it prints
 * the time and the frame count), no movement, a pattern that changes
 * along both axes. Every frame is then the same, and a frame in the
 * wrong place, or cut short, differs. ENODEV: input 0 is no webcam.
 */
int vivid_still(int fd)
{
	struct v4l2_input in;
	int input = 0;

	memset(&in, 0, sizeof(in));
	return cmabuf_ioctl(fd, VIDIOC_ENUMINPUT, &in) ?:
	       (in.type != V4L2_INPUT_TYPE_CAMERA ? ENODEV : 0) ?:
	       cmabuf_ioctl(fd, VIDIOC_S_INPUT, &input) ?:
	       ctrl_set_menu(fd, "Test Pattern", "100% Color Squares") ?:
	       ctrl_set_menu(fd, "OSD Text Mode", "None") ?:
	       ctrl_set_menu(fd, "Horizontal Movement", "No Movement") ?:
	       ctrl_set_menu(fd, "Vertical Movement", "No Movement");
}

static bool type_mplane(__u32 type)
{
	return type == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE ||
	       type == V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE;
}

/*
 * S_FMT, which must give exactly what was asked (EINVAL when the driver
 * chose another fourcc or size); what it took in @f.
 */
int fmt_set(int fd, __u32 type, __u32 fourcc, __u32 width, __u32 height,
	    struct vfmt *f)
{
	struct v4l2_format v;
	unsigned int p;
	int ret;

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
	ret = cmabuf_ioctl(fd, VIDIOC_S_FMT, &v);
	if (ret)
		return ret;
	if (f->mplane) {
		f->width = v.fmt.pix_mp.width;
		f->height = v.fmt.pix_mp.height;
		f->fourcc = v.fmt.pix_mp.pixelformat;
		f->planes = v.fmt.pix_mp.num_planes;
		ret = f->planes > MAX_PLANES ? E2BIG : 0;
		if (ret)
			return ret;
		f->bytesperline = v.fmt.pix_mp.plane_fmt[0].bytesperline;
		for (p = 0; p < f->planes; p++)
			f->sizeimage[p] = v.fmt.pix_mp.plane_fmt[p].sizeimage;
	} else {
		f->width = v.fmt.pix.width;
		f->height = v.fmt.pix.height;
		f->fourcc = v.fmt.pix.pixelformat;
		f->planes = 1;
		f->bytesperline = v.fmt.pix.bytesperline;
		f->sizeimage[0] = v.fmt.pix.sizeimage;
	}
	return f->fourcc == fourcc && f->width == width &&
	       f->height == height && f->planes ? 0 : EINVAL;
}

/* @fps frames a second: EINVAL when the driver chose another rate. */
int fps_set(int fd, __u32 type, __u32 fps)
{
	struct v4l2_streamparm parm;
	int ret;

	memset(&parm, 0, sizeof(parm));
	parm.type = type;
	parm.parm.capture.timeperframe.numerator = 1;
	parm.parm.capture.timeperframe.denominator = fps;
	ret = cmabuf_ioctl(fd, VIDIOC_S_PARM, &parm);
	return ret ?: parm.parm.capture.timeperframe.denominator == fps &&
		      parm.parm.capture.timeperframe.numerator == 1 ? 0 : EINVAL;
}

/*
 * The fastest frame rate @fd offers for the format @f, at most @max frames
 * a second, set: 0, or EINVAL when it offers none or the driver chose
 * another. vivid's webcam has 720p at 60 frames a second on the
 * test-bed's kernels, an older one (Debian's 6.1) fewer.
 */
int fps_set_fastest(int fd, const struct vfmt *f, __u32 max)
{
	struct v4l2_fract best = { 0, 1 }, d;
	struct v4l2_streamparm parm;
	struct v4l2_frmivalenum iv;
	int ret;

	memset(&iv, 0, sizeof(iv));
	iv.pixel_format = f->fourcc;
	iv.width = f->width;
	iv.height = f->height;
	for (; !cmabuf_ioctl(fd, VIDIOC_ENUM_FRAMEINTERVALS, &iv); iv.index++) {
		if (iv.type != V4L2_FRMIVAL_TYPE_DISCRETE)
			break;
		d = iv.discrete;
		/* A rate of d.denominator / d.numerator frames a second. */
		if (!d.numerator ||
		    (__u64)d.denominator > (__u64)max * d.numerator)
			continue;
		if (!best.numerator ||
		    (__u64)d.denominator * best.numerator >
		    (__u64)best.denominator * d.numerator)
			best = d;
	}
	memset(&parm, 0, sizeof(parm));
	parm.type = f->type;
	parm.parm.capture.timeperframe = best;
	ret = best.numerator ? cmabuf_ioctl(fd, VIDIOC_S_PARM, &parm) : EINVAL;
	return ret ?: parm.parm.capture.timeperframe.denominator ==
		      best.denominator &&
		      parm.parm.capture.timeperframe.numerator ==
		      best.numerator ? 0 : EINVAL;
}

int v4l2_reqbufs(int fd, __u32 type, __u32 memory, __u32 count, __u32 *got)
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
int v4l2_qbuf(int fd, const struct vfmt *f, __u32 index,
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

/* DQBUF from the queue @f, waiting up to DQBUF_MS. */
int v4l2_dqbuf(int fd, const struct vfmt *f, __u32 memory, struct vframe *fr)
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
	fr->sequence = b.sequence;
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

int v4l2_stream(int fd, __u32 type, bool on)
{
	int t = type;

	return cmabuf_ioctl(fd, on ? VIDIOC_STREAMON : VIDIOC_STREAMOFF, &t);
}

/* Map and queue MMAP buffer @i of @f, its planes into @map and @len. */
static int mmap_queue(int fd, const struct vfmt *f, unsigned int i,
		      void **map, size_t *len)
{
	struct v4l2_plane planes[MAX_PLANES];
	struct v4l2_buffer b;
	unsigned int p;
	int ret;

	memset(&b, 0, sizeof(b));
	memset(planes, 0, sizeof(planes));
	b.type = f->type;
	b.memory = V4L2_MEMORY_MMAP;
	b.index = i;
	if (f->mplane) {
		b.m.planes = planes;
		b.length = f->planes;
	}
	ret = cmabuf_ioctl(fd, VIDIOC_QUERYBUF, &b);
	if (ret)
		return ret;
	for (p = 0; p < f->planes; p++) {
		len[p] = f->mplane ? planes[p].length : b.length;
		map[p] = mmap(NULL, len[p], PROT_READ, MAP_SHARED, fd,
			      f->mplane ? planes[p].m.mem_offset : b.m.offset);
		if (map[p] == MAP_FAILED) {
			map[p] = NULL;
			return errno;
		}
	}
	return v4l2_qbuf(fd, f, i, NULL, 0);
}

/*
 * Check frame @n of the reference (@fr in @map), or keep the first:
 * EIO for a frame flagged bad, ERANGE for one empty or too long, EILSEQ
 * for one that differs from the first.
 */
static int ref_frame(const struct vfmt *f, unsigned int n,
		     const struct vframe *fr, void **map, const size_t *len,
		     unsigned char **ref, struct vframe *rfr)
{
	unsigned int p;
	int ret = 0;

	if (fr->flags & V4L2_BUF_FLAG_ERROR)
		ret = EIO;
	for (p = 0; !ret && p < f->planes; p++) {
		if (fr->bytesused[p] > len[p] || !fr->bytesused[p]) {
			ret = ERANGE;
		} else if (!n) {
			ref[p] = malloc(fr->bytesused[p]);
			if (ref[p])
				memcpy(ref[p], map[p], fr->bytesused[p]);
			else
				ret = ENOMEM;
		} else if (rfr->bytesused[p] != fr->bytesused[p] ||
			   first_diff(map[p], ref[p], fr->bytesused[p]) !=
			   fr->bytesused[p]) {
			ret = EILSEQ;
		}
	}
	if (!ret && !n)
		*rfr = *fr;
	return ret;
}

/*
 * The frame the driver captures into @nbufs of its own MMAP buffers in the
 * format @f: each plane copied into @ref[p] (malloc()ed, the caller's to
 * free), with its bytesused and data_offset in @rfr. The @frames - 1
 * frames after the first must be the same (EILSEQ), or the pattern is
 * not still and no comparison could hold. The queue is left without
 * buffers.
 */
int mmap_reference(int fd, const struct vfmt *f, unsigned int nbufs,
		   unsigned int frames, unsigned char **ref,
		   struct vframe *rfr)
{
	void *map[MAX_REF_BUFS][MAX_PLANES] = { { NULL } };
	size_t len[MAX_REF_BUFS][MAX_PLANES] = { { 0 } };
	unsigned int i, n, p;
	struct vframe fr;
	__u32 count;
	int ret;

	ret = nbufs > MAX_REF_BUFS ? E2BIG :
	      v4l2_reqbufs(fd, f->type, V4L2_MEMORY_MMAP, nbufs, &count);
	if (ret)
		return ret;
	if (count < nbufs)
		ret = ENOBUFS;
	for (i = 0; !ret && i < nbufs; i++)
		ret = mmap_queue(fd, f, i, map[i], len[i]);
	ret = ret ?: v4l2_stream(fd, f->type, true);
	for (n = 0; !ret && n < frames; n++) {
		ret = v4l2_dqbuf(fd, f, V4L2_MEMORY_MMAP, &fr);
		if (!ret && fr.index >= nbufs)
			ret = ERANGE;
		ret = ret ?: ref_frame(f, n, &fr, map[fr.index], len[fr.index],
				       ref, rfr);
		ret = ret ?: v4l2_qbuf(fd, f, fr.index, NULL, 0);
	}
	v4l2_stream(fd, f->type, false);
	for (i = 0; i < nbufs; i++)
		for (p = 0; p < f->planes; p++)
			if (map[i][p])
				munmap(map[i][p], len[i][p]);
	return v4l2_reqbufs(fd, f->type, V4L2_MEMORY_MMAP, 0, NULL) ?: ret;
}

/* ---- media controller ---- */

/* Open the media device whose MEDIA_IOC_DEVICE_INFO says @driver. */
int media_find(const char *driver)
{
	struct media_device_info info;
	struct dirent *de;
	char path[300];
	int fd = -1;
	DIR *dir;

	dir = opendir("/dev");
	if (!dir)
		return -1;
	while ((de = readdir(dir))) {
		if (strncmp(de->d_name, "media", 5))
			continue;
		snprintf(path, sizeof(path), "/dev/%s", de->d_name);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		if (!ioctl(fd, MEDIA_IOC_DEVICE_INFO, &info) &&
		    !strcmp(info.driver, driver))
			break;
		close(fd);
		fd = -1;
	}
	closedir(dir);
	return fd;
}

/* The entity named @name, into @e: ENOENT when there is none. */
int media_entity(int media, const char *name, struct media_entity_desc *e)
{
	__u32 id = 0;

	for (;;) {
		memset(e, 0, sizeof(*e));
		e->id = id | MEDIA_ENT_ID_FLAG_NEXT;
		if (ioctl(media, MEDIA_IOC_ENUM_ENTITIES, e))
			return errno == EINVAL ? ENOENT : errno;
		if (!strcmp(e->name, name))
			return 0;
		id = e->id;
	}
}

/*
 * The device node of entity @e, by its major and minor: the DEVNAME the
 * kernel gives it in sysfs, under /dev.
 */
int media_devnode(const struct media_entity_desc *e, char *path, size_t size)
{
	char uevent[64], text[512], *name, *end;
	int ret = ENODEV;

	if (!e->dev.major)
		return ret;
	snprintf(uevent, sizeof(uevent), "/sys/dev/char/%u:%u/uevent",
		 e->dev.major, e->dev.minor);
	ret = cmabuf_read_file(uevent, text, sizeof(text));
	name = ret ? NULL : strstr(text, "DEVNAME=");
	if (!name)
		return ret ?: ENODEV;
	name += strlen("DEVNAME=");
	end = strchr(name, '\n');
	if (end)
		*end = '\0';
	snprintf(path, size, "/dev/%s", name);
	return 0;
}

/*
 * Enable the link from pad @src_pad of @src to pad @sink_pad of @sink: an
 * immutable one must already be (EPERM); ENOENT when there is no such
 * link.
 */
int media_link_enable(int media, const struct media_entity_desc *src,
		      __u16 src_pad, const struct media_entity_desc *sink,
		      __u16 sink_pad)
{
	struct media_link_desc links[64], setup;
	struct media_pad_desc pads[16];
	struct media_links_enum le;
	unsigned int i;
	int ret = E2BIG;

	if (src->links > 64 || src->pads > 16)
		return ret;
	memset(&le, 0, sizeof(le));
	memset(links, 0, sizeof(links));
	le.entity = src->id;
	le.pads = pads;
	le.links = links;
	if (ioctl(media, MEDIA_IOC_ENUM_LINKS, &le))
		return errno;
	for (i = 0; i < src->links; i++) {
		if (links[i].source.entity != src->id ||
		    links[i].source.index != src_pad ||
		    links[i].sink.entity != sink->id ||
		    links[i].sink.index != sink_pad)
			continue;
		if (links[i].flags & MEDIA_LNK_FL_ENABLED)
			return 0;
		setup = links[i];
		setup.flags |= MEDIA_LNK_FL_ENABLED;
		return links[i].flags & MEDIA_LNK_FL_IMMUTABLE ? EPERM :
		       ioctl(media, MEDIA_IOC_SETUP_LINK, &setup) ? errno : 0;
	}
	ret = ENOENT;
	return ret;
}

/*
 * The active format of pad @pad of the subdev @fd: @code, @width x
 * @height, progressive, @colorspace with its default encoding. EINVAL
 * when the subdev took another.
 */
int subdev_fmt_set(int fd, __u32 pad, __u32 code, __u32 width,
		   __u32 height, __u32 colorspace)
{
	struct v4l2_subdev_format sf;
	int ret;

	memset(&sf, 0, sizeof(sf));
	sf.which = V4L2_SUBDEV_FORMAT_ACTIVE;
	sf.pad = pad;
	sf.format.code = code;
	sf.format.width = width;
	sf.format.height = height;
	sf.format.field = V4L2_FIELD_NONE;
	sf.format.colorspace = colorspace;
	ret = cmabuf_ioctl(fd, VIDIOC_SUBDEV_S_FMT, &sf);
	if (ret)
		return ret;
	return sf.format.code == code && sf.format.width == width &&
	       sf.format.height == height ? 0 : EINVAL;
}
