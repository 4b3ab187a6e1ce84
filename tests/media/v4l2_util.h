/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V4L2 and media-controller helpers of cmabuf_v4l2_test and
 * cmabuf_pipeline_test: video nodes found by what they say they are,
 * vivid's instances and its still test pattern, controls by name,
 * formats, queues, the frames a driver captures into its own MMAP
 * buffers, and a media device's entities, links and subdev formats.
 * Each returns 0 or a positive errno, unless it says otherwise.
 */
#ifndef CMABUF_V4L2_UTIL_H
#define CMABUF_V4L2_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/media.h>
#include <linux/videodev2.h>

/* The most planes a format here has. */
#define MAX_PLANES	3U
/* How long a frame may take, on a KASAN kernel under QEMU TCG. */
#define DQBUF_MS	10000

/* vivid's allocators= and vimc's allocator= values. */
#define ALLOC_VMALLOC		0
#define ALLOC_DMA_CONTIG	1

/**
 * struct vfmt - the format of a queue, as the driver took it
 * @type: V4L2_BUF_TYPE_*.
 * @mplane: @type is of the multi-planar API.
 * @width: pixels.
 * @height: lines.
 * @fourcc: V4L2_PIX_FMT_*.
 * @planes: memory planes, one buffer each.
 * @bytesperline: of the first plane.
 * @sizeimage: bytes of each.
 */
struct vfmt {
	__u32 type;
	bool mplane;
	__u32 width;
	__u32 height;
	__u32 fourcc;
	unsigned int planes;
	__u32 bytesperline;
	__u32 sizeimage[MAX_PLANES];
};

/**
 * struct vframe - a buffer as DQBUF gave it back
 * @index: its index.
 * @flags: V4L2_BUF_FLAG_*.
 * @sec: the seconds of its timestamp.
 * @sequence: the driver's frame count.
 * @bytesused: bytes of each plane the driver filled (data_offset included).
 * @data_offset: where the image starts in each plane.
 */
struct vframe {
	__u32 index;
	__u32 flags;
	long long sec;
	__u32 sequence;
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

size_t first_diff(const unsigned char *a, const unsigned char *b, size_t len);

/* Return the fd, or -1. */
int video_find(const char *driver, const char *bus_info, __u32 caps);
int vivid_param(const char *name, unsigned int *val, unsigned int max);
/* Return the fd, or a negative errno. */
int vivid_open(unsigned int allocator, bool mplane);

bool ctrl_find(int fd, const char *name, struct v4l2_query_ext_ctrl *q);
int ctrl_set(int fd, __u32 id, __s32 value);
int ctrl_set_menu(int fd, const char *name, const char *item);
int ctrl_press(int fd, const char *name);
int vivid_still(int fd);

int fmt_set(int fd, __u32 type, __u32 fourcc, __u32 width, __u32 height,
	    struct vfmt *f);
int fps_set(int fd, __u32 type, __u32 fps);
int fps_set_fastest(int fd, const struct vfmt *f, __u32 max);
int v4l2_reqbufs(int fd, __u32 type, __u32 memory, __u32 count, __u32 *got);
int v4l2_qbuf(int fd, const struct vfmt *f, __u32 index,
	      const struct vplane *vp, long long sec);
int v4l2_dqbuf(int fd, const struct vfmt *f, __u32 memory,
	       struct vframe *fr);
int v4l2_stream(int fd, __u32 type, bool on);
int mmap_reference(int fd, const struct vfmt *f, unsigned int nbufs,
		   unsigned int frames, unsigned char **ref,
		   struct vframe *rfr);

/* Return the fd, or -1. */
int media_find(const char *driver);
int media_entity(int media, const char *name, struct media_entity_desc *e);
int media_devnode(const struct media_entity_desc *e, char *path,
		  size_t size);
int media_link_enable(int media, const struct media_entity_desc *src,
		      __u16 src_pad, const struct media_entity_desc *sink,
		      __u16 sink_pad);
int subdev_fmt_set(int fd, __u32 pad, __u32 code, __u32 width,
		   __u32 height, __u32 colorspace);

#endif /* CMABUF_V4L2_UTIL_H */
