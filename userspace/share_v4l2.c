// SPDX-License-Identifier: GPL-2.0
/*
 * The v4l2 importer: does a capture driver take cmabuf's buffers? For each
 * /dev/video* that captures with streaming I/O (or the one --video names),
 * one frame in its current format, into buffers of its sizeimage from the
 * instance imported with V4L2_MEMORY_DMABUF (share_v4l2_stream.c).
 * Memory-to-memory and output nodes are skipped with the reason.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "dev.h"
#include "share.h"
#include "share_v4l2.h"

/*
 * A node share cannot test, and why: skipped among all nodes, a failure
 * when the user named it.
 */
static enum share_verdict v4l2_unfit(struct share_result *res, bool named,
				     const char *why)
{
	if (named) {
		share_check(res, false, "%s", why);
		return SHARE_TESTED;
	}
	share_skip("%s", why);
	return SHARE_SKIPPED;
}

/* The node's capabilities: can share capture from it, and how. */
static enum share_verdict v4l2_caps(struct share_result *res,
				    struct v4l2_node *node, bool named)
{
	struct v4l2_capability cap = { 0 };
	char why[SHARE_WHY_LEN];
	__u32 caps;

	if (v4l2_ioctl(node->fd, VIDIOC_QUERYCAP, &cap)) {
		snprintf(why, sizeof(why), "not a V4L2 device (VIDIOC_QUERYCAP: %s)",
			 strerror(errno));
		return v4l2_unfit(res, named, why);
	}
	caps = cap.capabilities & V4L2_CAP_DEVICE_CAPS ? cap.device_caps :
							  cap.capabilities;
	snprintf(node->desc, sizeof(node->desc), "%s (%s, %s)",
		 (const char *)cap.card, (const char *)cap.driver,
		 (const char *)cap.bus_info);
	if (caps & (V4L2_CAP_VIDEO_M2M | V4L2_CAP_VIDEO_M2M_MPLANE)) {
		snprintf(why, sizeof(why),
			 "%s: a memory-to-memory device, which needs its source buffers fed: not tested",
			 node->desc);
		return v4l2_unfit(res, named, why);
	}
	if (!(caps & (V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_VIDEO_CAPTURE_MPLANE))) {
		snprintf(why, sizeof(why), "%s: %s: not tested", node->desc,
			 caps & (V4L2_CAP_VIDEO_OUTPUT | V4L2_CAP_VIDEO_OUTPUT_MPLANE) ?
			 "an output device" :
			 "no video capture (metadata, VBI, radio or touch)");
		return v4l2_unfit(res, named, why);
	}
	if (!(caps & V4L2_CAP_STREAMING)) {
		snprintf(why, sizeof(why),
			 "%s: no streaming I/O (read() only), so no buffers to import",
			 node->desc);
		return v4l2_unfit(res, named, why);
	}
	/* Single-planar where the node has both: the simpler of the two. */
	node->mplane = !(caps & V4L2_CAP_VIDEO_CAPTURE);
	node->type = node->mplane ? V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE :
				    V4L2_BUF_TYPE_VIDEO_CAPTURE;
	share_check(res, true, "%s: video capture%s, streaming I/O", node->desc,
		    node->mplane ? " (multi-planar)" : "");
	return SHARE_TESTED;
}

/* The current format, and the size of each plane. */
static int v4l2_format(struct share_result *res, struct v4l2_node *node)
{
	struct v4l2_format fmt = { .type = node->type };
	__u32 fourcc, w, h;
	unsigned int p;
	char sizes[96];
	size_t off = 0;

	if (v4l2_ioctl(node->fd, VIDIOC_G_FMT, &fmt)) {
		share_check(res, false, "VIDIOC_G_FMT: %s", strerror(errno));
		return -1;
	}
	if (node->mplane) {
		fourcc = fmt.fmt.pix_mp.pixelformat;
		w = fmt.fmt.pix_mp.width;
		h = fmt.fmt.pix_mp.height;
		node->planes = fmt.fmt.pix_mp.num_planes;
		if (node->planes > VIDEO_MAX_PLANES)
			node->planes = VIDEO_MAX_PLANES;
		for (p = 0; p < node->planes; p++)
			node->sizes[p] = fmt.fmt.pix_mp.plane_fmt[p].sizeimage;
	} else {
		fourcc = fmt.fmt.pix.pixelformat;
		w = fmt.fmt.pix.width;
		h = fmt.fmt.pix.height;
		node->planes = 1;
		node->sizes[0] = fmt.fmt.pix.sizeimage;
	}
	sizes[0] = '\0';
	for (p = 0; p < node->planes && off < sizeof(sizes); p++)
		off += snprintf(sizes + off, sizeof(sizes) - off, "%s%u", p ? ", " : "",
				node->sizes[p]);
	for (p = 0; p < node->planes; p++) {
		if (!node->sizes[p])
			break;
	}
	return share_check(res, node->planes && p == node->planes,
			   "format %.4s %ux%u (VIDIOC_G_FMT), %u plane(s) of %s bytes",
			   (const char *)&fourcc, w, h, node->planes, sizes) ? 0 : -1;
}

static enum share_verdict v4l2_node_run(const struct share_buf *buf,
					struct share_result *res,
					const char *path, bool named)
{
	struct v4l2_node node = { .path = path };
	enum share_verdict v;

	share_node(path);
	node.fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (node.fd < 0) {
		share_check(res, false, "open: %s%s", strerror(errno),
			    errno == EACCES ? SHARE_EACCES_HINT : "");
		return SHARE_TESTED;
	}
	v = v4l2_caps(res, &node, named);
	if (v == SHARE_TESTED && node.type && !v4l2_format(res, &node))
		v4l2_stream(buf, res, &node);
	close(node.fd);
	return v;
}

static int v4l2_run(const struct share_buf *buf, struct share_result *res)
{
	unsigned int skipped;
	int tested;

	if (buf->video) {
		v4l2_node_run(buf, res, buf->video, true);
		return 0;
	}
	tested = share_each_node(DEV_DIR, "video", v4l2_node_run, buf, res,
				 &skipped);
	if (tested < 0)
		return share_absent(res, "%s: %s", DEV_DIR, strerror(-tested));
	if (!tested && !skipped)
		return share_absent(res,
				    "no /dev/video* node: no V4L2 driver is loaded (load the camera's driver; the test bed: modprobe vivid)");
	if (!tested)
		return share_absent(res,
				    "none of the %u /dev/video* nodes captures with streaming I/O (each skipped, with why)",
				    skipped);
	return 0;
}

const struct share_importer share_v4l2 = {
	.name = "v4l2",
	.help = "V4L2 capture nodes: a frame into buffers imported as DMABUF",
	.run = v4l2_run,
};
