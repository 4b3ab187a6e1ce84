// SPDX-License-Identifier: GPL-2.0
/*
 * KMS helpers of cmabuf_kms_test; see kms_util.h. libdrm's calls set
 * errno, which these return.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/sync_file.h>

#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "kms_util.h"

#define DRI_CARD	"/dev/dri/card"
#define DRI_MAX		16

static bool is_vkms(int card)
{
	drmVersionPtr v = drmGetVersion(card);
	bool match;

	if (!v)
		return false;
	match = v->name && !strcmp(v->name, "vkms");
	drmFreeVersion(v);
	return match;
}

int vkms_open(void)
{
	char path[32];
	int i, card;

	for (i = 0; i < DRI_MAX; i++) {
		snprintf(path, sizeof(path), DRI_CARD "%d", i);
		card = open(path, O_RDWR | O_CLOEXEC);
		if (card < 0)
			continue;
		if (is_vkms(card))
			return card;
		close(card);
	}
	return -1;
}

/* The id of @obj's property @name, its value in @val; 0 when it has none. */
static __u32 prop(int card, __u32 obj, __u32 type, const char *name,
		  __u64 *val)
{
	drmModeObjectPropertiesPtr props;
	drmModePropertyPtr p;
	__u32 i, id = 0;

	props = drmModeObjectGetProperties(card, obj, type);
	if (!props)
		return 0;
	for (i = 0; i < props->count_props && !id; i++) {
		p = drmModeGetProperty(card, props->props[i]);
		if (!p)
			continue;
		if (!strcmp(p->name, name)) {
			id = p->prop_id;
			if (val)
				*val = props->prop_values[i];
		}
		drmModeFreeProperty(p);
	}
	drmModeFreeObjectProperties(props);
	return id;
}

/* The value of enum property @id's entry @name into @val: 0 or ENOENT. */
static int enum_value(int card, __u32 id, const char *name, __u64 *val)
{
	drmModePropertyPtr p = drmModeGetProperty(card, id);
	int i, ret = ENOENT;

	if (!p)
		return ret;
	for (i = 0; i < p->count_enums; i++) {
		if (!strcmp(p->enums[i].name, name)) {
			*val = p->enums[i].value;
			ret = 0;
		}
	}
	drmModeFreeProperty(p);
	return ret;
}

static __u32 plane_prop(int card, __u32 plane, const char *name)
{
	return prop(card, plane, DRM_MODE_OBJECT_PLANE, name, NULL);
}

static int plane_props(int card, struct kms_plane *pl)
{
	drmModePlanePtr p = drmModeGetPlane(card, pl->id);
	__u32 i;

	if (!p)
		return errno;
	for (i = 0; i < p->count_formats; i++)
		pl->nv12 |= p->formats[i] == DRM_FORMAT_NV12;
	drmModeFreePlane(p);

	pl->fb_id = plane_prop(card, pl->id, "FB_ID");
	pl->crtc_id = plane_prop(card, pl->id, "CRTC_ID");
	pl->src_x = plane_prop(card, pl->id, "SRC_X");
	pl->src_y = plane_prop(card, pl->id, "SRC_Y");
	pl->src_w = plane_prop(card, pl->id, "SRC_W");
	pl->src_h = plane_prop(card, pl->id, "SRC_H");
	pl->crtc_x = plane_prop(card, pl->id, "CRTC_X");
	pl->crtc_y = plane_prop(card, pl->id, "CRTC_Y");
	pl->crtc_w = plane_prop(card, pl->id, "CRTC_W");
	pl->crtc_h = plane_prop(card, pl->id, "CRTC_H");
	pl->color_encoding = plane_prop(card, pl->id, "COLOR_ENCODING");
	pl->color_range = plane_prop(card, pl->id, "COLOR_RANGE");
	/* Optional: only a plane that takes YUV needs them. */
	if (pl->color_encoding &&
	    enum_value(card, pl->color_encoding, "ITU-R BT.601 YCbCr",
		       &pl->bt601))
		pl->color_encoding = 0;
	if (pl->color_range &&
	    enum_value(card, pl->color_range, "YCbCr full range",
		       &pl->full_range))
		pl->color_range = 0;
	return pl->fb_id && pl->crtc_id && pl->src_x && pl->src_y &&
	       pl->src_w && pl->src_h && pl->crtc_x && pl->crtc_y &&
	       pl->crtc_w && pl->crtc_h ? 0 : ENOENT;
}

/* The first primary and overlay planes of the CRTC of index @pipe. */
static int find_planes(struct kms *k, int pipe)
{
	drmModePlaneResPtr res = drmModeGetPlaneResources(k->card);
	drmModePlanePtr p;
	__u64 type;
	__u32 i;

	if (!res)
		return errno;
	for (i = 0; i < res->count_planes; i++) {
		p = drmModeGetPlane(k->card, res->planes[i]);
		if (!p)
			continue;
		if ((p->possible_crtcs & (1U << pipe)) &&
		    prop(k->card, p->plane_id, DRM_MODE_OBJECT_PLANE, "type",
			 &type)) {
			if (type == DRM_PLANE_TYPE_PRIMARY && !k->primary.id)
				k->primary.id = p->plane_id;
			if (type == DRM_PLANE_TYPE_OVERLAY && !k->overlay.id)
				k->overlay.id = p->plane_id;
		}
		drmModeFreePlane(p);
	}
	drmModeFreePlaneResources(res);
	return !k->primary.id || !k->overlay.id ? ENOENT :
	       plane_props(k->card, &k->primary) ?:
	       plane_props(k->card, &k->overlay);
}

static int find_writeback(struct kms *k)
{
	drmModeResPtr res = drmModeGetResources(k->card);
	drmModeConnectorPtr c;
	int i;

	if (!res)
		return errno;
	if (res->count_crtcs)
		k->crtc = res->crtcs[0];
	for (i = 0; i < res->count_connectors && !k->wb; i++) {
		c = drmModeGetConnector(k->card, res->connectors[i]);
		if (!c)
			continue;
		if (c->connector_type == DRM_MODE_CONNECTOR_WRITEBACK)
			k->wb = c->connector_id;
		drmModeFreeConnector(c);
	}
	drmModeFreeResources(res);
	/* Without a CRTC or a writeback connector, no property is found. */
	k->crtc_active = prop(k->card, k->crtc, DRM_MODE_OBJECT_CRTC,
			      "ACTIVE", NULL);
	k->crtc_mode_id = prop(k->card, k->crtc, DRM_MODE_OBJECT_CRTC,
			       "MODE_ID", NULL);
	k->wb_crtc_id = prop(k->card, k->wb, DRM_MODE_OBJECT_CONNECTOR,
			     "CRTC_ID", NULL);
	k->wb_fb_id = prop(k->card, k->wb, DRM_MODE_OBJECT_CONNECTOR,
			   "WRITEBACK_FB_ID", NULL);
	k->wb_fence_ptr = prop(k->card, k->wb, DRM_MODE_OBJECT_CONNECTOR,
			       "WRITEBACK_OUT_FENCE_PTR", NULL);
	return k->crtc_active && k->crtc_mode_id && k->wb_crtc_id &&
	       k->wb_fb_id && k->wb_fence_ptr ? 0 : ENOENT;
}

/*
 * Atomic and writeback on @k->card, its objects, and a blob of a mode of
 * @width x @height at 60 Hz, a small one to keep compositions cheap: vkms
 * takes any valid mode, not only those of its list.
 */
int kms_init(struct kms *k, __u16 width, __u16 height)
{
	drmModeModeInfo mode = {
		.hdisplay = width,
		.hsync_start = width + 4,
		.hsync_end = width + 8,
		.htotal = width + 16,
		.vdisplay = height,
		.vsync_start = height + 2,
		.vsync_end = height + 4,
		.vtotal = height + 6,
		.vrefresh = 60,
		.type = DRM_MODE_TYPE_USERDEF,
	};

	/* kHz, rounded up: the refresh is at least 60 Hz. */
	mode.clock = (mode.htotal * mode.vtotal * 60 + 999) / 1000;
	snprintf(mode.name, sizeof(mode.name), "%ux%u", width, height);

	if (drmSetClientCap(k->card, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1) ||
	    drmSetClientCap(k->card, DRM_CLIENT_CAP_ATOMIC, 1) ||
	    drmSetClientCap(k->card, DRM_CLIENT_CAP_WRITEBACK_CONNECTORS, 1))
		return errno;
	return find_writeback(k) ?: find_planes(k, 0) ?:
	       (drmModeCreatePropertyBlob(k->card, &mode, sizeof(mode),
					  &k->mode_blob) ? errno : 0);
}

static int add(drmModeAtomicReqPtr req, __u32 obj, __u32 id, __u64 val)
{
	return drmModeAtomicAddProperty(req, obj, id, val) < 0;
}

static int add_plane(drmModeAtomicReqPtr req, const struct kms *k,
		     const struct plane_cfg *c)
{
	const struct kms_plane *p = c->plane;
	__u32 id = p->id;
	int bad;

	/* Source coordinates are 16.16 fixed point. */
	bad = add(req, id, p->fb_id, c->fb) |
	      add(req, id, p->crtc_id, c->fb ? k->crtc : 0) |
	      add(req, id, p->src_x, (__u64)c->sx << 16) |
	      add(req, id, p->src_y, (__u64)c->sy << 16) |
	      add(req, id, p->src_w, (__u64)c->w << 16) |
	      add(req, id, p->src_h, (__u64)c->h << 16) |
	      add(req, id, p->crtc_x, (__u64)(__s64)c->x) |
	      add(req, id, p->crtc_y, (__u64)(__s64)c->y) |
	      add(req, id, p->crtc_w, c->w) |
	      add(req, id, p->crtc_h, c->h);
	/* Say which matrix: the expected colours are computed for it. */
	if (c->yuv)
		bad |= add(req, id, p->color_encoding, p->bt601) |
		       add(req, id, p->color_range, p->full_range);
	return bad;
}

/*
 * One commit: the CRTC on in the test's mode, driving the writeback
 * connector only, with @n planes and @wb_fb to write back into; the
 * writeback's out fence into @fence. @wb_fb 0: everything off.
 */
int kms_commit(struct kms *k, const struct plane_cfg *cfg, unsigned int n,
	       __u32 wb_fb, __s32 *fence)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	bool on = wb_fb;
	unsigned int i;
	int bad, ret;

	if (!req)
		return errno ?: ENOMEM;
	bad = add(req, k->crtc, k->crtc_active, on) |
	      add(req, k->crtc, k->crtc_mode_id, on ? k->mode_blob : 0) |
	      add(req, k->wb, k->wb_crtc_id, on ? k->crtc : 0) |
	      add(req, k->wb, k->wb_fb_id, wb_fb);
	if (on)
		bad |= add(req, k->wb, k->wb_fence_ptr, (uintptr_t)fence);
	for (i = 0; i < n; i++)
		bad |= add_plane(req, k, &cfg[i]);
	ret = bad ? ENOMEM :
	      drmModeAtomicCommit(k->card, req, DRM_MODE_ATOMIC_ALLOW_MODESET,
				  NULL) ? errno : 0;
	drmModeAtomicFree(req);
	if (!ret)
		k->lit = on;
	return ret;
}

/* Everything off: the CRTC, both planes, the writeback connector. */
int kms_off(struct kms *k)
{
	const struct plane_cfg off[] = {
		{ .plane = &k->primary },
		{ .plane = &k->overlay },
	};

	return kms_commit(k, off, 2, 0, NULL);
}

/* Wait for a writeback's out fence; 0 once it signalled without error. */
static int fence_wait(int fence, int timeout_ms)
{
	struct pollfd p = { .fd = fence, .events = POLLIN };
	struct sync_file_info info;
	int n;

	n = poll(&p, 1, timeout_ms);
	if (n <= 0)
		return n ? errno : ETIMEDOUT;
	memset(&info, 0, sizeof(info));
	if (ioctl(fence, SYNC_IOC_FILE_INFO, &info))
		return errno;
	return info.status == 1 ? 0 : EIO;
}

/*
 * Commit with the CRTC on and wait up to @timeout_ms for the writeback
 * into @wb_fb to land.
 */
int kms_scan_out(struct kms *k, const struct plane_cfg *cfg, unsigned int n,
		 __u32 wb_fb, int timeout_ms)
{
	__s32 fence = -1;
	int ret;

	ret = kms_commit(k, cfg, n, wb_fb, &fence);
	if (ret || fence < 0)
		return ret ?: EBADF;
	ret = fence_wait(fence, timeout_ms);
	close(fence);
	return ret;
}

/* AddFB2 of one buffer; a second plane of it where @pitch[1] is set. */
int kms_add_fb(int card, __u32 handle, __u32 format, __u32 w, __u32 h,
	       const __u32 pitch[2], const __u32 offset[2], __u32 *fb)
{
	__u32 handles[4] = { handle }, pitches[4] = { pitch[0] };
	__u32 offsets[4] = { offset[0] };

	if (pitch[1]) {
		handles[1] = handle;
		pitches[1] = pitch[1];
		offsets[1] = offset[1];
	}
	*fb = 0;
	return drmModeAddFB2(card, w, h, format, handles, pitches, offsets,
			     fb, 0) ? errno : 0;
}
