/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KMS helpers of cmabuf_kms_test, through libdrm: vkms's card, its CRTC,
 * primary and overlay planes and writeback connector, atomic commits that
 * write back, framebuffers. Each returns 0 or a positive errno.
 */
#ifndef CMABUF_KMS_UTIL_H
#define CMABUF_KMS_UTIL_H

#include <stdbool.h>
#include <linux/types.h>

/**
 * struct kms_plane - a plane and the ids of its properties
 * @id: the plane.
 * @fb_id: through @crtc_h: property ids.
 * @color_encoding: COLOR_ENCODING, 0 when the plane has none.
 * @color_range: COLOR_RANGE, 0 when the plane has none.
 * @bt601: the value of COLOR_ENCODING's BT.601 entry.
 * @full_range: the value of COLOR_RANGE's full range entry.
 * @nv12: the plane lists DRM_FORMAT_NV12.
 */
struct kms_plane {
	__u32 id;
	__u32 fb_id, crtc_id;
	__u32 src_x, src_y, src_w, src_h;
	__u32 crtc_x, crtc_y, crtc_w, crtc_h;
	__u32 color_encoding, color_range;
	__u64 bt601, full_range;
	bool nv12;
};

/**
 * struct kms - vkms's card and the objects the tests drive
 * @card: the DRM file.
 * @crtc: the first CRTC; @crtc_active, @crtc_mode_id: its properties.
 * @wb: the writeback connector; @wb_crtc_id, @wb_fb_id, @wb_fence_ptr:
 *	its properties.
 * @primary: the CRTC's first primary plane.
 * @overlay: its first overlay plane.
 * @mode_blob: the blob of the mode kms_init() was given.
 * @lit: the last commit turned the CRTC on.
 */
struct kms {
	int card;
	__u32 crtc, crtc_active, crtc_mode_id;
	__u32 wb, wb_crtc_id, wb_fb_id, wb_fence_ptr;
	struct kms_plane primary, overlay;
	__u32 mode_blob;
	bool lit;
};

/**
 * struct plane_cfg - what one plane shows in a commit
 * @plane: the plane.
 * @fb: the framebuffer, 0 to turn the plane off.
 * @sx: through @h: the source rectangle, in whole pixels (no scaling).
 * @x: and @y: where on the CRTC.
 * @yuv: set BT.601 full range (the colours a test expects).
 */
struct plane_cfg {
	struct kms_plane *plane;
	__u32 fb;
	__u32 sx, sy, w, h;
	__s32 x, y;
	bool yuv;
};

int vkms_open(void);
int kms_init(struct kms *k, __u16 width, __u16 height);
int kms_commit(struct kms *k, const struct plane_cfg *cfg, unsigned int n,
	       __u32 wb_fb, __s32 *fence);
int kms_off(struct kms *k);
int kms_scan_out(struct kms *k, const struct plane_cfg *cfg, unsigned int n,
		 __u32 wb_fb, int timeout_ms);
int kms_add_fb(int card, __u32 handle, __u32 format, __u32 w, __u32 h,
	       const __u32 pitch[2], const __u32 offset[2], __u32 *fb);

#endif /* CMABUF_KMS_UTIL_H */
