// SPDX-License-Identifier: GPL-2.0
/*
 * The kms importer's real scan-out, where the card has a writeback
 * connector: a CRTC that drives nothing is lit in the connector's smallest
 * mode with the buffer on its primary plane and the writeback connector
 * only, a second cmabuf buffer as WRITEBACK_FB_ID. Once the out fence
 * signals, the written-back colours must be what the CPU wrote. A CRTC
 * that drives a display is never used: a diagnostic does not modeset one.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "share_kms.h"

#define KMS_WB_NAME_LEN	32

static bool kms_wb_takes_xrgb(int fd, __u32 conn)
{
	drmModePropertyBlobPtr blob;
	const __u32 *formats;
	bool found = false;
	__u64 id;
	__u32 i;

	if (!kms_prop(fd, conn, DRM_MODE_OBJECT_CONNECTOR, "WRITEBACK_PIXEL_FORMATS", &id))
		return false;
	blob = drmModeGetPropertyBlob(fd, id);
	if (!blob)
		return false;
	formats = blob->data;
	for (i = 0; i < blob->length / sizeof(*formats) && !found; i++)
		found = formats[i] == DRM_FORMAT_XRGB8888;
	drmModeFreePropertyBlob(blob);
	return found;
}

/* The connector's smallest progressive mode: the least to compose. */
static bool kms_wb_mode(const drmModeConnector *conn, drmModeModeInfo *mode)
{
	const drmModeModeInfo *m, *best = NULL;
	int i;

	for (i = 0; i < conn->count_modes; i++) {
		m = &conn->modes[i];
		if (m->flags & (DRM_MODE_FLAG_INTERLACE | DRM_MODE_FLAG_DBLSCAN))
			continue;
		if (!best || (__u32)m->hdisplay * m->vdisplay <
			     (__u32)best->hdisplay * best->vdisplay)
			best = m;
	}
	if (best)
		*mode = *best;
	return best;
}

/* A CRTC @conn can use that is off, with an XRGB8888 primary plane. */
static const char *kms_wb_crtc(const struct kms_card *card,
			       const drmModeConnector *conn,
			       struct kms_pipe *pipe)
{
	__u32 mask = kms_crtcs_of(card->fd, conn);
	bool busy = false;
	int i;

	for (i = 0; i < card->res->count_crtcs; i++) {
		if (!(mask & (1U << i)))
			continue;
		if (kms_crtc_active(card->fd, card->res->crtcs[i], NULL)) {
			busy = true;
			continue;
		}
		pipe->plane = kms_primary(card->fd, card->res, card->res->crtcs[i]);
		if (pipe->plane) {
			pipe->crtc = card->res->crtcs[i];
			return NULL;
		}
	}
	if (busy)
		return "its CRTCs all drive a display, which a diagnostic does not modeset";
	return "no CRTC it can use has a primary plane for XRGB8888";
}

/*
 * The writeback connector and a pipe for it, into @pipe and @name.
 * Return: 0, or -ENODEV when the card has none that share can use (with
 * a skip line saying why, when it has one).
 */
static int kms_wb_find(const struct kms_card *card, struct kms_pipe *pipe,
		       char *name, size_t len)
{
	const char *why = NULL;
	drmModeConnectorPtr conn;
	int i;

	for (i = 0; i < card->res->count_connectors; i++) {
		conn = drmModeGetConnector(card->fd, card->res->connectors[i]);
		if (!conn)
			continue;
		if (conn->connector_type != DRM_MODE_CONNECTOR_WRITEBACK) {
			drmModeFreeConnector(conn);
			continue;
		}
		kms_conn_name(conn, name, len);
		pipe->conn = conn->connector_id;
		if (!kms_wb_takes_xrgb(card->fd, conn->connector_id))
			why = "XRGB8888 is not among its WRITEBACK_PIXEL_FORMATS";
		else if (!kms_wb_mode(conn, &pipe->mode))
			why = "it lists no progressive mode";
		else
			why = kms_wb_crtc(card, conn, pipe);
		drmModeFreeConnector(conn);
		if (!why)
			return 0;
	}
	if (why)
		share_skip("writeback connector %s: %s; a TEST_ONLY commit instead", name, why);
	return -ENODEV;
}

/* The picture into the buffer, through mmap. */
static int kms_wb_draw(const struct share_buf *buf, const struct share_fb *geo)
{
	unsigned char *line;
	void *map;
	__u32 x, y;
	int ret;

	ret = share_map(buf->fd, buf->size, &map);
	if (ret)
		return ret;
	line = map;
	for (y = 0; y < geo->height; y++, line += geo->pitch) {
		for (x = 0; x < geo->width; x++)
			((__u32 *)line)[x] = share_fb_pixel(x, y);
	}
	return share_unmap(buf->fd, map, buf->size);
}

/* What the writeback wrote, against the picture. */
static void kms_wb_compare(struct share_result *res, int fd,
			   const struct kms_fb *wb, const struct kms_fb *src)
{
	__u32 bx = 0, by = 0, bv = 0;
	__u64 bad;
	void *map;
	int ret;

	ret = share_map(fd, share_fb_bytes(&wb->geo), &map);
	if (ret) {
		share_check(res, false, "reading the writeback buffer through mmap: %s",
			    strerror(-ret));
		return;
	}
	bad = share_fb_compare(map, &wb->geo, &src->geo, &bx, &by, &bv);
	share_unmap(fd, map, share_fb_bytes(&wb->geo));
	if (!bad)
		share_check(res, true,
			    "written-back colours are what the CPU wrote: %ux%u pixels compared (read through mmap, DMA_BUF_IOCTL_SYNC)",
			    src->geo.width, src->geo.height);
	else
		share_check(res, false,
			    "written-back colours differ from what the CPU wrote at %llu of %ux%u pixels, first at (%u, %u): 0x%06x, wrote 0x%06x",
			    (unsigned long long)bad, src->geo.width, src->geo.height,
			    bx, by, bv, share_fb_pixel(bx, by));
}

/* Wait for the writeback's out fence: 0, or -ETIMEDOUT, -errno. */
static int kms_wb_wait(int fence, __u32 timeout_ms)
{
	struct pollfd pfd = { .fd = fence, .events = POLLIN };
	int n;

	do {
		n = poll(&pfd, 1, timeout_ms);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n ? 0 : -ETIMEDOUT;
}

/* The CRTC, its plane and the writeback connector off again. */
static void kms_wb_off(struct share_result *res, const struct kms_card *card,
		       const struct kms_pipe *pipe)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	int ret;

	ret = !req ? -ENOMEM :
	      kms_add(req, card->fd, pipe->plane, DRM_MODE_OBJECT_PLANE, "FB_ID", 0) ?:
	      kms_add(req, card->fd, pipe->plane, DRM_MODE_OBJECT_PLANE, "CRTC_ID", 0) ?:
	      kms_add(req, card->fd, pipe->conn, DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID", 0) ?:
	      kms_add(req, card->fd, pipe->crtc, DRM_MODE_OBJECT_CRTC, "ACTIVE", 0) ?:
	      kms_add(req, card->fd, pipe->crtc, DRM_MODE_OBJECT_CRTC, "MODE_ID", 0) ?:
	      kms_commit(card->fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET);
	share_check(res, !ret, "CRTC %u off again: %s", pipe->crtc,
		    ret ? strerror(-ret) : "ok");
	drmModeAtomicFree(req);
}

/* Light the pipe with @src scanned out and @wb written back; check it. */
static void kms_wb_run(const struct share_buf *buf, struct share_result *res,
		       const struct kms_card *card, const struct kms_pipe *pipe,
		       const struct kms_fb *src, const struct kms_fb *wb, int wb_fd)
{
	drmModeAtomicReqPtr req;
	__s32 fence = -1;
	const char *why;
	__u32 blob = 0;
	int ret;

	req = drmModeAtomicAlloc();
	if (!req || drmModeCreatePropertyBlob(card->fd, &pipe->mode, sizeof(pipe->mode),
					      &blob)) {
		share_check(res, false, "the mode's property blob: %s", strerror(errno));
		goto free;
	}
	ret = kms_pipe_on(req, card->fd, pipe, src, blob) ?:
	      kms_add(req, card->fd, pipe->conn, DRM_MODE_OBJECT_CONNECTOR, "WRITEBACK_FB_ID",
		      wb->id) ?:
	      kms_add(req, card->fd, pipe->conn, DRM_MODE_OBJECT_CONNECTOR,
		      "WRITEBACK_OUT_FENCE_PTR", (__u64)(uintptr_t)&fence) ?:
	      kms_commit(card->fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET);
	why = ret == -ENOENT ? "the driver lacks an atomic property share sets" :
	      share_why_commit(ret);
	if (ret == -EACCES || ret == -EPERM) {
		share_skip("atomic commit: %s", why);
		goto free;
	}
	if (!share_check(res, !ret,
			 "atomic commit: CRTC %u in %s with the writeback connector only, the buffer on plane %u, a second buffer as WRITEBACK_FB_ID%s%s",
			 pipe->crtc, pipe->mode.name, pipe->plane, ret ? ": " : "",
			 ret ? why ?: strerror(-ret) : ""))
		goto free;
	ret = fence < 0 ? -ENOENT : kms_wb_wait(fence, buf->timeout_ms);
	if (share_check(res, !ret, "writeback's out fence signalled within %u ms%s%s",
			buf->timeout_ms, ret ? ": " : "", ret ? strerror(-ret) : ""))
		kms_wb_compare(res, wb_fd, wb, src);
	kms_wb_off(res, card, pipe);
free:
	if (fence >= 0)
		close(fence);
	if (blob)
		drmModeDestroyPropertyBlob(card->fd, blob);
	drmModeAtomicFree(req);
}

/**
 * kms_writeback() - scan @src out and compare what is written back
 * @buf: the buffer, imported as @src
 * @res: the checks
 * @card: the card, with writeback connectors shown
 * @src: @buf's handle; its framebuffer is made here, to fit the mode
 *
 * Return: 0 when the writeback ran (whatever its checks said), -ENODEV
 * when the card has no writeback connector share can use.
 */
int kms_writeback(const struct share_buf *buf, struct share_result *res,
		  const struct kms_card *card, struct kms_fb *src)
{
	struct kms_pipe pipe = { 0 };
	char name[KMS_WB_NAME_LEN];
	struct kms_fb wb = { 0 };
	int wb_fd = -1, ret;

	if (kms_wb_find(card, &pipe, name, sizeof(name)))
		return -ENODEV;
	share_check(res, true, "writeback connector %s, CRTC %u (off), primary plane %u, mode %s",
		    name, pipe.crtc, pipe.plane, pipe.mode.name);
	ret = share_fb_fit(buf->size, pipe.mode.hdisplay, pipe.mode.vdisplay, &src->geo);
	if (ret) {
		share_check(res, false,
			    "the buffer holds not one line of the %ux%u mode: give share a larger SIZE",
			    pipe.mode.hdisplay, pipe.mode.vdisplay);
		return 0;
	}
	/* The writeback frame is the whole mode: a buffer of its own size. */
	share_fb_fit(~0ULL, pipe.mode.hdisplay, pipe.mode.vdisplay, &wb.geo);
	ret = share_alloc_size(buf, share_fb_bytes(&wb.geo), &wb_fd);
	if (!share_check(res, !ret, "writeback buffer of %llu bytes from %s%s%s",
			 (unsigned long long)share_fb_bytes(&wb.geo), buf->dev_path,
			 ret ? ": " : "", ret ? strerror(-ret) : ""))
		return 0;
	if (kms_add_fb(res, card, src, "the buffer") ||
	    kms_import(buf, res, card, wb_fd, "the writeback buffer", &wb.handle) ||
	    kms_add_fb(res, card, &wb, "the writeback buffer"))
		goto drop;
	ret = kms_wb_draw(buf, &src->geo);
	if (share_check(res, !ret, "picture written into the buffer through mmap%s%s",
			ret ? ": " : "", ret ? strerror(-ret) : ""))
		kms_wb_run(buf, res, card, &pipe, src, &wb, wb_fd);
	ret = share_fill(buf->fd, buf->size, buf->pattern);
	if (ret)
		share_check(res, false, "the pattern back into the buffer: %s", strerror(-ret));
drop:
	kms_drop(card, &wb);
	close(wb_fd);
	return 0;
}
