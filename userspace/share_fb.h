/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmabufctl share: the XRGB8888 framebuffers the kms importer makes of a
 * buffer, and the picture the CPU writes into them. Pure functions.
 */
#ifndef CMABUFCTL_SHARE_FB_H
#define CMABUFCTL_SHARE_FB_H

#include <linux/types.h>

/* Pitches aligned for the strictest display engines we know of. */
#define SHARE_FB_PITCH_ALIGN	256
#define SHARE_FB_CPP		4	/* XRGB8888 */

/**
 * struct share_fb - an XRGB8888 framebuffer's geometry
 * @width: pixels
 * @height: lines
 * @pitch: bytes from one line to the next
 */
struct share_fb {
	__u32 width;
	__u32 height;
	__u32 pitch;
};

int share_fb_fit(__u64 size, __u32 max_w, __u32 max_h, struct share_fb *fb);
__u64 share_fb_bytes(const struct share_fb *fb);
__u32 share_fb_pixel(__u32 x, __u32 y);
__u64 share_fb_compare(const void *got, const struct share_fb *got_fb,
		       const struct share_fb *want, __u32 *bad_x, __u32 *bad_y,
		       __u32 *bad_val);

#endif /* CMABUFCTL_SHARE_FB_H */
