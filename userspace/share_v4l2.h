/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The v4l2 importer's node (share_v4l2.c) and its one-frame stream
 * (share_v4l2_stream.c).
 */
#ifndef CMABUFCTL_SHARE_V4L2_H
#define CMABUFCTL_SHARE_V4L2_H

#include <errno.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <linux/videodev2.h>

#include "share.h"

/* Buffers queued at most: REQBUFS may grant more than asked for. */
#define V4L2_SHARE_BUFS		8
#define V4L2_SHARE_DESC_LEN	96

/**
 * struct v4l2_node - a capture node under test
 * @path: its device node
 * @desc: its card, driver and bus, from VIDIOC_QUERYCAP
 * @fd: open on @path, non-blocking
 * @type: the buffer type it captures, single- or multi-planar
 * @mplane: @type is V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE
 * @planes: planes of the current format
 * @sizes: sizeimage of each plane
 */
struct v4l2_node {
	const char *path;
	char desc[V4L2_SHARE_DESC_LEN];
	int fd;
	__u32 type;
	bool mplane;
	unsigned int planes;
	__u32 sizes[VIDEO_MAX_PLANES];
};

/* An ioctl, again after a signal; -1 with errno set on failure. */
static inline int v4l2_ioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret < 0 && errno == EINTR);
	return ret;
}

void v4l2_stream(const struct share_buf *buf, struct share_result *res,
		 const struct v4l2_node *node);

#endif /* CMABUFCTL_SHARE_V4L2_H */
