// SPDX-License-Identifier: GPL-2.0
/*
 * The kms importer's lookups and commits: properties by name, the primary
 * plane of a CRTC that scans out XRGB8888, the CRTCs a connector can use,
 * and the atomic state that lights a CRTC with a framebuffer on its plane.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <drm_fourcc.h>

#include "share_kms.h"

/* The id of @obj's property @name, its value into @val (if not NULL); 0 if none. */
__u32 kms_prop(int fd, __u32 obj, __u32 type, const char *name, __u64 *val)
{
	drmModeObjectPropertiesPtr props;
	drmModePropertyPtr prop;
	__u32 i, id = 0;

	props = drmModeObjectGetProperties(fd, obj, type);
	if (!props)
		return 0;
	for (i = 0; i < props->count_props && !id; i++) {
		prop = drmModeGetProperty(fd, props->props[i]);
		if (!prop)
			continue;
		if (!strcmp(prop->name, name)) {
			id = prop->prop_id;
			if (val)
				*val = props->prop_values[i];
		}
		drmModeFreeProperty(prop);
	}
	drmModeFreeObjectProperties(props);
	return id;
}

/* Set @obj's property @name in @req; -ENOENT when it has none. */
int kms_add(drmModeAtomicReqPtr req, int fd, __u32 obj, __u32 type,
	    const char *name, __u64 val)
{
	__u32 id = kms_prop(fd, obj, type, name, NULL);

	if (!id)
		return -ENOENT;
	return drmModeAtomicAddProperty(req, obj, id, val) < 0 ? -ENOMEM : 0;
}

static bool kms_has_format(const drmModePlane *plane, __u32 format)
{
	__u32 i;

	for (i = 0; i < plane->count_formats; i++) {
		if (plane->formats[i] == format)
			return true;
	}
	return false;
}

/* The primary plane of CRTC @crtc that scans out XRGB8888; 0 if none. */
__u32 kms_primary(int fd, const drmModeRes *res, __u32 crtc)
{
	drmModePlaneResPtr planes;
	drmModePlanePtr plane;
	__u32 i, id = 0;
	__u64 type;
	int index;

	for (index = 0; index < res->count_crtcs; index++) {
		if (res->crtcs[index] == crtc)
			break;
	}
	planes = drmModeGetPlaneResources(fd);
	if (!planes || index == res->count_crtcs) {
		drmModeFreePlaneResources(planes);
		return 0;
	}
	for (i = 0; i < planes->count_planes && !id; i++) {
		plane = drmModeGetPlane(fd, planes->planes[i]);
		if (!plane)
			continue;
		if (plane->possible_crtcs & (1U << index) &&
		    kms_has_format(plane, DRM_FORMAT_XRGB8888) &&
		    kms_prop(fd, plane->plane_id, DRM_MODE_OBJECT_PLANE, "type", &type) &&
		    type == DRM_PLANE_TYPE_PRIMARY)
			id = plane->plane_id;
		drmModeFreePlane(plane);
	}
	drmModeFreePlaneResources(planes);
	return id;
}

/* The CRTCs @conn can be driven by, as a mask of CRTC indices. */
__u32 kms_crtcs_of(int fd, const drmModeConnector *conn)
{
	drmModeEncoderPtr enc;
	__u32 mask = 0;
	int i;

	for (i = 0; i < conn->count_encoders; i++) {
		enc = drmModeGetEncoder(fd, conn->encoders[i]);
		if (!enc)
			continue;
		mask |= enc->possible_crtcs;
		drmModeFreeEncoder(enc);
	}
	return mask;
}

/* Is @crtc on, and in which mode (into @mode, if not NULL)? */
bool kms_crtc_active(int fd, __u32 crtc, drmModeModeInfo *mode)
{
	drmModeCrtcPtr c = drmModeGetCrtc(fd, crtc);
	bool on;

	if (!c)
		return false;
	on = c->mode_valid;
	if (on && mode)
		*mode = c->mode;
	drmModeFreeCrtc(c);
	return on;
}

/*
 * Into @req: @fb on @pipe's primary plane at the top left, unscaled, and
 * unless the CRTC is on already, the CRTC in @pipe's mode (@mode_blob)
 * driving @pipe's connector.
 */
int kms_pipe_on(drmModeAtomicReqPtr req, int fd, const struct kms_pipe *pipe,
		const struct kms_fb *fb, __u32 mode_blob)
{
	const struct {
		const char *name;
		__u64 val;
	} plane[] = {
		{ "FB_ID", fb->id },
		{ "CRTC_ID", pipe->crtc },
		{ "SRC_X", 0 },
		{ "SRC_Y", 0 },
		{ "SRC_W", (__u64)fb->geo.width << 16 },	/* 16.16 fixed point */
		{ "SRC_H", (__u64)fb->geo.height << 16 },
		{ "CRTC_X", 0 },
		{ "CRTC_Y", 0 },
		{ "CRTC_W", fb->geo.width },
		{ "CRTC_H", fb->geo.height },
	};
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(plane); i++) {
		ret = kms_add(req, fd, pipe->plane, DRM_MODE_OBJECT_PLANE,
			      plane[i].name, plane[i].val);
		if (ret)
			return ret;
	}
	if (pipe->active)
		return 0;
	return kms_add(req, fd, pipe->crtc, DRM_MODE_OBJECT_CRTC, "MODE_ID", mode_blob) ?:
	       kms_add(req, fd, pipe->crtc, DRM_MODE_OBJECT_CRTC, "ACTIVE", 1) ?:
	       kms_add(req, fd, pipe->conn, DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID",
		       pipe->crtc);
}

/* drmModeAtomicCommit(): 0 or -errno. */
int kms_commit(int fd, drmModeAtomicReqPtr req, __u32 flags)
{
	return drmModeAtomicCommit(fd, req, flags, NULL) ? -errno : 0;
}

/* "HDMI-A-1", "Writeback-1": as the kernel names connectors. */
const char *kms_conn_name(const drmModeConnector *conn, char *buf, size_t len)
{
	const char *type = drmModeGetConnectorTypeName(conn->connector_type);

	snprintf(buf, len, "%s-%u", type ?: "Unknown", conn->connector_type_id);
	return buf;
}
