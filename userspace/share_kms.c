// SPDX-License-Identifier: GPL-2.0
/*
 * The kms importer: does a display driver take cmabuf's buffers? For each
 * /dev/dri/card* with modesetting (or the one --card names): import the
 * buffer (PRIME), frame it as XRGB8888, and commit it. With a writeback
 * connector the buffer is really scanned out and the output compared
 * (share_kms_wb.c); without one, an atomic TEST_ONLY commit on a connected
 * display's mode, which changes nothing on the screen.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "share_kms.h"

#define DRI_DIR		"/dev/dri"
#define KMS_NAME_LEN	32

/* Without a mode to fit (no display, no atomic): a framebuffer this big at most. */
#define KMS_FB_ONLY_W	1024
#define KMS_FB_ONLY_H	768

/* A TEST_ONLY commit refused for a framebuffer smaller than the mode. */
#define KMS_PART_HINT \
	"; it covers part of the mode: the driver may want all of it, give share a SIZE of width x height x 4 bytes"

/**
 * kms_import() - a dma-buf into the card (drmPrimeFDToHandle)
 * @buf: the buffer share runs with, for its instance
 * @res: the checks
 * @card: the card
 * @fd: the dma-buf: @buf's, or another from its instance
 * @what: what it is, for the check's line
 * @handle: out: its GEM handle, 0 on failure
 *
 * A driver that maps at import is refused here when its device cannot
 * reach the instance's area. Return: 0 or -errno.
 */
int kms_import(const struct share_buf *buf, struct share_result *res,
	       const struct kms_card *card, int fd, const char *what,
	       __u32 *handle)
{
	__u64 before = share_unreachable_maps(buf);
	char why[512];
	int err;

	*handle = 0;
	if (!drmPrimeFDToHandle(card->fd, fd, handle)) {
		share_check(res, true, "%s imported (drmPrimeFDToHandle): handle %u", what,
			    *handle);
		return 0;
	}
	err = errno;
	*handle = 0;
	if (err == ERANGE || share_unreachable_maps(buf) > before)
		share_explain_unreachable(buf, before, why, sizeof(why));
	else
		snprintf(why, sizeof(why), "%s%s", strerror(err),
			 err == EOPNOTSUPP ?
			 ": the driver does not import dma-bufs (no PRIME import)" : "");
	share_check(res, false, "%s not imported (drmPrimeFDToHandle): %s: %s", what,
		    strerrorname_np(err), why);
	return -err;
}

/* An XRGB8888 framebuffer of @fb->geo on @fb->handle (drmModeAddFB2). */
int kms_add_fb(struct share_result *res, const struct kms_card *card,
	       struct kms_fb *fb, const char *what)
{
	__u32 handles[4] = { fb->handle }, pitches[4] = { fb->geo.pitch };
	__u32 offsets[4] = { 0 };
	int ret;

	ret = drmModeAddFB2(card->fd, fb->geo.width, fb->geo.height, DRM_FORMAT_XRGB8888,
			    handles, pitches, offsets, &fb->id, 0) ? -errno : 0;
	if (ret)
		fb->id = 0;
	share_check(res, !ret, "framebuffer of %s (drmModeAddFB2): XRGB8888 %ux%u, pitch %u%s%s",
		    what, fb->geo.width, fb->geo.height, fb->geo.pitch,
		    ret ? ": " : "", ret ? strerror(-ret) : "");
	return ret;
}

/* RmFB and GEM close; only a failure is worth a line. */
void kms_drop(const struct kms_card *card, struct kms_fb *fb)
{
	if (fb->id && drmModeRmFB(card->fd, fb->id))
		share_skip("RmFB %u: %s", fb->id, strerror(errno));
	if (fb->handle && drmCloseBufferHandle(card->fd, fb->handle))
		share_skip("closing GEM handle %u: %s", fb->handle, strerror(errno));
	fb->id = 0;
	fb->handle = 0;
}

/* The mode a connector prefers, else its first. */
static void kms_preferred(const drmModeConnector *conn, drmModeModeInfo *mode)
{
	int i;

	*mode = conn->modes[0];
	for (i = 0; i < conn->count_modes; i++) {
		if (conn->modes[i].type & DRM_MODE_TYPE_PREFERRED) {
			*mode = conn->modes[i];
			return;
		}
	}
}

/*
 * A pipe for @conn: the CRTC it is shown on, in its mode; else a CRTC it
 * can use that is off, in its preferred mode. Return: whether one is.
 */
static bool kms_display_pipe(const struct kms_card *card,
			     const drmModeConnector *conn, struct kms_pipe *pipe)
{
	drmModeEncoderPtr enc = NULL;
	__u32 mask;
	int i;

	memset(pipe, 0, sizeof(*pipe));
	pipe->conn = conn->connector_id;
	if (conn->encoder_id)
		enc = drmModeGetEncoder(card->fd, conn->encoder_id);
	if (enc && enc->crtc_id && kms_crtc_active(card->fd, enc->crtc_id, &pipe->mode)) {
		pipe->crtc = enc->crtc_id;
		pipe->active = true;
	}
	drmModeFreeEncoder(enc);
	mask = kms_crtcs_of(card->fd, conn);
	for (i = 0; i < card->res->count_crtcs && !pipe->crtc; i++) {
		if (mask & (1U << i) &&
		    !kms_crtc_active(card->fd, card->res->crtcs[i], NULL)) {
			pipe->crtc = card->res->crtcs[i];
			kms_preferred(conn, &pipe->mode);
		}
	}
	if (pipe->crtc)
		pipe->plane = kms_primary(card->fd, card->res, pipe->crtc);
	return pipe->crtc && pipe->plane;
}

/* A connected display (not a writeback connector) and its pipe; why not. */
static const char *kms_display(const struct kms_card *card,
			       struct kms_pipe *pipe, char *name, size_t len)
{
	const char *why = "no connected display";
	drmModeConnectorPtr conn;
	bool found = false;
	int i;

	for (i = 0; i < card->res->count_connectors && !found; i++) {
		conn = drmModeGetConnector(card->fd, card->res->connectors[i]);
		if (!conn)
			continue;
		if (conn->connector_type != DRM_MODE_CONNECTOR_WRITEBACK &&
		    conn->connection == DRM_MODE_CONNECTED && conn->count_modes) {
			kms_conn_name(conn, name, len);
			found = kms_display_pipe(card, conn, pipe);
			if (!found)
				why = "no free CRTC with an XRGB8888 primary plane for the display";
		}
		drmModeFreeConnector(conn);
	}
	return found ? NULL : why;
}

/* The framebuffer alone: there is nothing share may commit it to. */
static void kms_fb_only(const struct share_buf *buf, struct share_result *res,
			const struct kms_card *card, struct kms_fb *src,
			const char *why)
{
	if (share_fb_fit(buf->size, KMS_FB_ONLY_W, KMS_FB_ONLY_H, &src->geo))
		share_check(res, false,
			    "the buffer holds not one line of %u pixels: give share a larger SIZE",
			    KMS_FB_ONLY_W);
	else
		kms_add_fb(res, card, src, "the buffer");
	share_skip("%s: only the import and a framebuffer were checked, no commit", why);
}

/* Did the TEST_ONLY commit pass, and if not, why; EACCES is no failure. */
static void kms_test_result(struct share_result *res, const struct kms_pipe *pipe,
			    const struct kms_fb *src, int ret)
{
	const char *why = ret == -ENOENT ? "the driver lacks an atomic property share sets" :
			  share_why_commit(ret);
	bool part = src->geo.width < pipe->mode.hdisplay ||
		    src->geo.height < pipe->mode.vdisplay;

	if (ret == -EACCES || ret == -EPERM) {
		share_skip("TEST_ONLY commit: %s", why);
		return;
	}
	if (!ret) {
		share_check(res, true,
			    "TEST_ONLY commit of the framebuffer on plane %u: accepted; only the test commit ran (no writeback connector to scan out to): nothing was displayed, no pixel was read back",
			    pipe->plane);
		return;
	}
	share_check(res, false, "TEST_ONLY commit of the framebuffer on plane %u: %s%s",
		    pipe->plane, why ?: strerror(-ret),
		    ret == -EINVAL && part ? KMS_PART_HINT : "");
}

/* A TEST_ONLY commit of @src on a connected display's pipe. */
static void kms_test_only(const struct share_buf *buf, struct share_result *res,
			  const struct kms_card *card, struct kms_fb *src)
{
	drmModeAtomicReqPtr req = NULL;
	struct kms_pipe pipe;
	char name[KMS_NAME_LEN];
	const char *why;
	__u32 blob = 0;
	int ret;

	why = kms_display(card, &pipe, name, sizeof(name));
	if (why) {
		kms_fb_only(buf, res, card, src, why);
		return;
	}
	share_check(res, true, "display %s on CRTC %u (%s), mode %s, primary plane %u", name,
		    pipe.crtc, pipe.active ? "on" : "off", pipe.mode.name, pipe.plane);
	if (share_fb_fit(buf->size, pipe.mode.hdisplay, pipe.mode.vdisplay, &src->geo)) {
		share_check(res, false,
			    "the buffer holds not one line of the %ux%u mode: give share a larger SIZE",
			    pipe.mode.hdisplay, pipe.mode.vdisplay);
		return;
	}
	if (kms_add_fb(res, card, src, "the buffer"))
		return;
	req = drmModeAtomicAlloc();
	ret = !req ? -ENOMEM : 0;
	if (!ret && !pipe.active &&
	    drmModeCreatePropertyBlob(card->fd, &pipe.mode, sizeof(pipe.mode), &blob))
		ret = -errno;
	/* A display that is on keeps its mode: only the plane is tested. */
	ret = ret ?: kms_pipe_on(req, card->fd, &pipe, src, blob) ?:
	      kms_commit(card->fd, req, DRM_MODE_ATOMIC_TEST_ONLY |
			 (pipe.active ? 0 : DRM_MODE_ATOMIC_ALLOW_MODESET));
	kms_test_result(res, &pipe, src, ret);
	if (blob)
		drmModeDestroyPropertyBlob(card->fd, blob);
	drmModeAtomicFree(req);
}

/* A card the importer cannot test: skipped among all, failed when named. */
static enum share_verdict kms_unfit(struct share_result *res, bool named,
				    const char *why)
{
	if (named) {
		share_check(res, false, "%s", why);
		return SHARE_TESTED;
	}
	share_skip("%s", why);
	return SHARE_SKIPPED;
}

/* Open the card, its capabilities and resources. */
static enum share_verdict kms_open(struct share_result *res, const char *path,
				   bool named, struct kms_card *card)
{
	char why[SHARE_WHY_LEN], driver[KMS_NAME_LEN] = "?";
	drmVersionPtr ver;

	card->fd = open(path, O_RDWR | O_CLOEXEC);
	if (card->fd < 0) {
		share_check(res, false, "open: %s%s", strerror(errno),
			    errno == EACCES ? SHARE_EACCES_HINT : "");
		return SHARE_TESTED;
	}
	ver = drmGetVersion(card->fd);
	if (ver && ver->name)
		snprintf(driver, sizeof(driver), "%s", ver->name);
	drmFreeVersion(ver);
	/* Writeback connectors show once both capabilities are set. */
	drmSetClientCap(card->fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1);
	card->atomic = !drmSetClientCap(card->fd, DRM_CLIENT_CAP_ATOMIC, 1);
	card->writeback = card->atomic &&
			  !drmSetClientCap(card->fd, DRM_CLIENT_CAP_WRITEBACK_CONNECTORS, 1);
	card->res = drmModeGetResources(card->fd);
	if (!card->res || !card->res->count_crtcs) {
		snprintf(why, sizeof(why),
			 "driver %s: no modesetting (a render or GEM-only device)", driver);
		return kms_unfit(res, named, why);
	}
	share_check(res, true, "driver %s: %d CRTC(s), %d connector(s), %s", driver,
		    card->res->count_crtcs, card->res->count_connectors,
		    card->atomic ? "atomic modesetting" : "legacy modesetting only");
	return SHARE_TESTED;
}

static enum share_verdict kms_card_run(const struct share_buf *buf,
				       struct share_result *res,
				       const char *path, bool named)
{
	struct kms_card card = { 0 };
	struct kms_fb src = { 0 };
	enum share_verdict v;

	share_node(path);
	v = kms_open(res, path, named, &card);
	if (!card.res || !card.res->count_crtcs ||
	    kms_import(buf, res, &card, buf->fd, "the buffer", &src.handle))
		goto close;
	if (!card.atomic)
		kms_fb_only(buf, res, &card, &src, "no atomic modesetting");
	else if (!card.writeback || kms_writeback(buf, res, &card, &src))
		kms_test_only(buf, res, &card, &src);
	kms_drop(&card, &src);
close:
	drmModeFreeResources(card.res);
	if (card.fd >= 0)
		close(card.fd);
	return v;
}

static int kms_run(const struct share_buf *buf, struct share_result *res)
{
	unsigned int skipped;
	int tested;

	if (buf->card) {
		kms_card_run(buf, res, buf->card, true);
		return 0;
	}
	tested = share_each_node(DRI_DIR, "card", kms_card_run, buf, res,
				 &skipped);
	if (tested <= 0 && !skipped)
		return share_absent(res,
				    "no DRM card in %s: no display driver is loaded (load the display's driver; the test bed: modprobe vkms)",
				    DRI_DIR);
	if (!tested)
		return share_absent(res,
				    "none of the %u DRM card(s) in %s does modesetting (each skipped, with why)",
				    skipped, DRI_DIR);
	return 0;
}

const struct share_importer share_kms = {
	.name = "kms",
	.help = "DRM display cards: the buffer scanned out, or test-committed",
	.run = kms_run,
};
