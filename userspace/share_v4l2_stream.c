// SPDX-License-Identifier: GPL-2.0
/*
 * One frame from a capture node into cmabuf's buffers: REQBUFS with
 * V4L2_MEMORY_DMABUF, a buffer per plane of sizeimage from the instance
 * (holding the pattern), QBUF, STREAMON, a frame within the time-out,
 * DQBUF, and what the device wrote, read through mmap. Each step that
 * fails says why; STREAMOFF and REQBUFS 0 always follow.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "share.h"
#include "share_v4l2.h"

#define V4L2_SHARE_WANT	2	/* buffers asked for; the driver may want more */

/**
 * struct v4l2_bufs - the buffers imported into a node
 * @count: buffers, each of the node's planes
 * @fds: their dma-bufs, -1 where none is allocated
 */
struct v4l2_bufs {
	unsigned int count;
	int fds[V4L2_SHARE_BUFS][VIDEO_MAX_PLANES];
};

static int v4l2_reqbufs(const struct v4l2_node *node, __u32 *count)
{
	struct v4l2_requestbuffers req = {
		.count = *count,
		.type = node->type,
		.memory = V4L2_MEMORY_DMABUF,
	};

	if (v4l2_ioctl(node->fd, VIDIOC_REQBUFS, &req))
		return -errno;
	*count = req.count;
	return 0;
}

/* Buffer @i as QBUF takes it: its planes' dma-bufs and lengths. */
static void v4l2_buffer(const struct v4l2_node *node, const struct v4l2_bufs *b,
			unsigned int i, struct v4l2_buffer *vb,
			struct v4l2_plane *planes)
{
	unsigned int p;

	memset(vb, 0, sizeof(*vb));
	vb->type = node->type;
	vb->memory = V4L2_MEMORY_DMABUF;
	vb->index = i;
	if (!node->mplane) {
		vb->m.fd = b->fds[i][0];
		vb->length = node->sizes[0];
		return;
	}
	memset(planes, 0, sizeof(*planes) * VIDEO_MAX_PLANES);
	vb->m.planes = planes;
	vb->length = node->planes;
	for (p = 0; p < node->planes; p++) {
		planes[p].m.fd = b->fds[i][p];
		planes[p].length = node->sizes[p];
	}
}

static int v4l2_alloc(const struct share_buf *buf, struct share_result *res,
		      const struct v4l2_node *node, struct v4l2_bufs *b)
{
	unsigned int i, p;
	int ret;

	for (i = 0; i < b->count; i++) {
		for (p = 0; p < node->planes; p++) {
			ret = share_alloc_size(buf, node->sizes[p], &b->fds[i][p]);
			if (ret) {
				share_check(res, false,
					    "allocating plane %u of buffer %u (%u bytes) from %s: %s",
					    p, i, node->sizes[p], buf->dev_path, strerror(-ret));
				return ret;
			}
		}
	}
	share_check(res, true, "%u buffer(s) of %u plane(s) allocated from %s, filled with 0x%02x",
		    b->count, node->planes, buf->dev_path, buf->pattern);
	return 0;
}

/*
 * QBUF every buffer: videobuf2 attaches and maps each plane here, so here
 * is where a device that cannot reach the instance's area is refused.
 */
static int v4l2_queue(const struct share_buf *buf, struct share_result *res,
		      const struct v4l2_node *node, const struct v4l2_bufs *b)
{
	struct v4l2_plane planes[VIDEO_MAX_PLANES];
	__u64 before = share_unreachable_maps(buf);
	struct v4l2_buffer vb;
	char why[512];
	unsigned int i;
	int err;

	for (i = 0; i < b->count; i++) {
		v4l2_buffer(node, b, i, &vb, planes);
		if (!v4l2_ioctl(node->fd, VIDIOC_QBUF, &vb))
			continue;
		err = errno;
		if (err == ERANGE || share_unreachable_maps(buf) > before) {
			share_explain_unreachable(buf, before, why, sizeof(why));
			share_check(res, false, "QBUF of buffer %u: %s: %s", i,
				    strerrorname_np(err), why);
		} else {
			share_check(res, false,
				    "QBUF of buffer %u: %s (%s): the driver refused the buffer; the kernel log may say why",
				    i, strerrorname_np(err), strerror(err));
		}
		return -err;
	}
	share_check(res, true, "QBUF of %u buffer(s): the driver imported and mapped them",
		    b->count);
	return 0;
}

/* Bytes of @fd in [@off, @end) that no longer hold the pattern. */
static int v4l2_written(const struct share_buf *buf, int fd, __u32 size,
			__u32 off, __u32 end, __u64 *differ)
{
	const unsigned char *p;
	void *map;
	int ret;

	ret = share_map(fd, size, &map);
	if (ret)
		return ret;
	p = map;
	*differ = 0;
	for (; off < end && off < size; off++)
		*differ += p[off] != buf->pattern;
	return share_unmap(fd, map, size);
}

/* Wait for a frame, dequeue it, and check what the device wrote. */
static void v4l2_capture(const struct share_buf *buf, struct share_result *res,
			 const struct v4l2_node *node, const struct v4l2_bufs *b)
{
	struct pollfd pfd = { .fd = node->fd, .events = POLLIN };
	struct v4l2_plane planes[VIDEO_MAX_PLANES];
	__u32 used, off, end, p;
	struct v4l2_buffer vb;
	__u64 differ;
	int n, ret;

	do {
		n = poll(&pfd, 1, buf->timeout_ms);
	} while (n < 0 && errno == EINTR);
	if (!n) {
		share_check(res, false,
			    "no frame within %u ms: does the device have a signal (a sensor that streams, a cable)? A slow start needs a longer --timeout",
			    buf->timeout_ms);
		return;
	}
	if (n < 0) {
		share_check(res, false, "poll: %s", strerror(errno));
		return;
	}
	v4l2_buffer(node, b, 0, &vb, planes);
	if (v4l2_ioctl(node->fd, VIDIOC_DQBUF, &vb)) {
		share_check(res, false, "DQBUF: %s", strerror(errno));
		return;
	}
	if (vb.index >= b->count) {
		share_check(res, false, "DQBUF: buffer %u, which was not queued", vb.index);
		return;
	}
	share_check(res, !(vb.flags & V4L2_BUF_FLAG_ERROR), "frame %u dequeued in buffer %u%s",
		    vb.sequence, vb.index, vb.flags & V4L2_BUF_FLAG_ERROR ?
		    ", flagged V4L2_BUF_FLAG_ERROR: the driver saw the transfer fail" : "");
	for (p = 0; p < node->planes; p++) {
		used = node->mplane ? planes[p].bytesused : vb.bytesused;
		off = node->mplane ? planes[p].data_offset : 0;
		share_check(res, used > off, "plane %u: %u bytes used (data offset %u)",
			    p, used, off);
		/* Without bytesused, whatever the device may have written. */
		end = used > off ? used : node->sizes[p];
		if (end > node->sizes[p])
			end = node->sizes[p];
		ret = v4l2_written(buf, b->fds[vb.index][p], node->sizes[p], off, end,
				   &differ);
		if (ret) {
			share_check(res, false, "plane %u: reading it through mmap: %s", p,
				    strerror(-ret));
			continue;
		}
		share_check(res, differ,
			    "plane %u: the device wrote into the buffer: %llu of %u bytes differ from the pattern 0x%02x (read through mmap, DMA_BUF_IOCTL_SYNC)",
			    p, (unsigned long long)differ, end > off ? end - off : 0,
			    buf->pattern);
	}
}

void v4l2_stream(const struct share_buf *buf, struct share_result *res,
		 const struct v4l2_node *node)
{
	struct v4l2_bufs b = { 0 };
	__u32 count = V4L2_SHARE_WANT;
	__u64 live = share_live_buffers(buf), now;
	int type = node->type;
	bool refused = false;
	char leaked[640];
	const char *why;
	unsigned int i, p;
	int ret;

	memset(b.fds, -1, sizeof(b.fds));
	ret = v4l2_reqbufs(node, &count);
	if (ret) {
		why = share_why_reqbufs(ret);
		share_check(res, false, "REQBUFS with V4L2_MEMORY_DMABUF: %s",
			    why ?: strerror(-ret));
		return;
	}
	if (!share_check(res, count, "REQBUFS with V4L2_MEMORY_DMABUF: %u buffer(s) granted",
			 count))
		goto release;
	b.count = count < V4L2_SHARE_BUFS ? count : V4L2_SHARE_BUFS;
	if (v4l2_alloc(buf, res, node, &b))
		goto release;
	if (v4l2_queue(buf, res, node, &b)) {
		refused = true;
		goto release;
	}
	if (v4l2_ioctl(node->fd, VIDIOC_STREAMON, &type)) {
		ret = -errno;
		why = share_why_streamon(ret);
		share_skip("STREAMON: %s: %s; the buffers were taken, no frame was captured",
			   strerrorname_np(-ret), why ?: strerror(-ret));
		goto release;
	}
	v4l2_capture(buf, res, node, &b);
	if (v4l2_ioctl(node->fd, VIDIOC_STREAMOFF, &type))
		share_check(res, false, "STREAMOFF: %s", strerror(errno));
release:
	count = 0;
	ret = v4l2_reqbufs(node, &count);
	if (ret)
		share_check(res, false, "REQBUFS 0 (freeing the buffers): %s",
			    strerror(-ret));
	for (i = 0; i < V4L2_SHARE_BUFS; i++) {
		for (p = 0; p < VIDEO_MAX_PLANES; p++) {
			if (b.fds[i][p] >= 0)
				close(b.fds[i][p]);
		}
	}
	if (!refused)
		return;
	/* videobuf2 may keep what it refused: see share_why_leaked(). */
	now = share_live_buffers(buf);
	if (now > live) {
		share_why_leaked(leaked, sizeof(leaked), buf->dev_path, live, now);
		share_check(res, false, "the refused buffers went back: %s", leaked);
	} else {
		share_check(res, true,
			    "the refused buffers went back: %s has %llu live buffer(s), as before",
			    buf->dev_path, (unsigned long long)now);
	}
}
