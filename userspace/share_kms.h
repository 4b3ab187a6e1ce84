/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kms importer: a card under test (share_kms.c), the objects and
 * properties it looks up and commits (share_kms_obj.c), and its writeback
 * check (share_kms_wb.c).
 */
#ifndef CMABUFCTL_SHARE_KMS_H
#define CMABUFCTL_SHARE_KMS_H

#include <stdbool.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "share.h"
#include "share_fb.h"

/**
 * struct kms_card - a DRM card with modesetting
 * @fd: open on its node
 * @res: its CRTCs, connectors and encoders (writeback connectors included
 *	when @writeback)
 * @atomic: the driver does atomic modesetting (DRM_CLIENT_CAP_ATOMIC)
 * @writeback: and shows its writeback connectors
 */
struct kms_card {
	int fd;
	drmModeResPtr res;
	bool atomic;
	bool writeback;
};

/**
 * struct kms_fb - a buffer imported into the card and framed
 * @handle: its GEM handle
 * @id: the framebuffer, 0 for none
 * @geo: its geometry
 */
struct kms_fb {
	__u32 handle;
	__u32 id;
	struct share_fb geo;
};

/**
 * struct kms_pipe - what a commit lights: a CRTC in a mode, a primary
 * plane on it, a connector
 * @crtc: the CRTC's id
 * @plane: the primary plane's id
 * @conn: the connector's id
 * @mode: the mode
 * @active: the CRTC is on already (then only the plane changes)
 */
struct kms_pipe {
	__u32 crtc;
	__u32 plane;
	__u32 conn;
	drmModeModeInfo mode;
	bool active;
};

/* share_kms.c */
int kms_import(const struct share_buf *buf, struct share_result *res,
	       const struct kms_card *card, int fd, const char *what,
	       __u32 *handle);
int kms_add_fb(struct share_result *res, const struct kms_card *card,
	       struct kms_fb *fb, const char *what);
void kms_drop(const struct kms_card *card, struct kms_fb *fb);

/* share_kms_obj.c */
__u32 kms_prop(int fd, __u32 obj, __u32 type, const char *name, __u64 *val);
int kms_add(drmModeAtomicReqPtr req, int fd, __u32 obj, __u32 type,
	    const char *name, __u64 val);
__u32 kms_primary(int fd, const drmModeRes *res, __u32 crtc);
__u32 kms_crtcs_of(int fd, const drmModeConnector *conn);
bool kms_crtc_active(int fd, __u32 crtc, drmModeModeInfo *mode);
int kms_pipe_on(drmModeAtomicReqPtr req, int fd, const struct kms_pipe *pipe,
		const struct kms_fb *fb, __u32 mode_blob);
int kms_commit(int fd, drmModeAtomicReqPtr req, __u32 flags);
const char *kms_conn_name(const drmModeConnector *conn, char *buf, size_t len);

/* share_kms_wb.c */
int kms_writeback(const struct share_buf *buf, struct share_result *res,
		  const struct kms_card *card, struct kms_fb *src);

#endif /* CMABUFCTL_SHARE_KMS_H */
