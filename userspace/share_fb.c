// SPDX-License-Identifier: GPL-2.0
/*
 * cmabufctl share: framebuffer geometry and the picture the kms importer
 * writes (see share_fb.h).
 */
#include <errno.h>

#include "share_fb.h"

/* Narrower than this, a framebuffer says little about a scan-out. */
#define SHARE_FB_MIN_W	64

/**
 * share_fb_fit() - the largest framebuffer of @size bytes within a mode
 * @size: bytes of the buffer
 * @max_w: the mode's width
 * @max_h: the mode's height
 * @fb: out: its geometry, as wide as the mode and the buffer allow
 *
 * Return: 0, or -ENOSPC when not even one line of %SHARE_FB_MIN_W pixels
 * (or of the mode's width, if narrower) fits, -EINVAL for an empty mode.
 */
int share_fb_fit(__u64 size, __u32 max_w, __u32 max_h, struct share_fb *fb)
{
	__u64 w = max_w, pitch;

	if (!max_w || !max_h)
		return -EINVAL;
	pitch = (w * SHARE_FB_CPP + SHARE_FB_PITCH_ALIGN - 1) /
		SHARE_FB_PITCH_ALIGN * SHARE_FB_PITCH_ALIGN;
	if (pitch > size) {
		/* Narrower, a whole number of aligned pitches. */
		w = size / SHARE_FB_PITCH_ALIGN * SHARE_FB_PITCH_ALIGN /
		    SHARE_FB_CPP;
		pitch = w * SHARE_FB_CPP;
	}
	if (w < SHARE_FB_MIN_W && w < max_w)
		return -ENOSPC;
	fb->width = w;
	fb->pitch = pitch;
	fb->height = size / pitch < max_h ? size / pitch : max_h;
	return 0;
}

/* The bytes @fb spans. */
__u64 share_fb_bytes(const struct share_fb *fb)
{
	return (__u64)fb->pitch * fb->height;
}

/*
 * The colour the CPU writes at (@x, @y): every pixel of a line differs
 * from its neighbours and lines differ from each other, so that a device
 * reading the wrong line, pitch or offset shows. X (bits 31-24) is 0.
 */
__u32 share_fb_pixel(__u32 x, __u32 y)
{
	__u32 r = x & 0xff, g = y & 0xff, b = ((x >> 8) | (y >> 8) << 4) ^ 0x5a;

	return r << 16 | g << 8 | (b & 0xff);
}

/**
 * share_fb_compare() - the colours a device wrote, against the picture
 * @got: the written buffer, mapped
 * @got_fb: its geometry
 * @want: the region of it that must hold share_fb_pixel()
 * @bad_x: out: the first pixel that differs (when one does)
 * @bad_y: out: its line
 * @bad_val: out: its colour
 *
 * X bytes are not compared: a device writes what it likes there.
 * Return: the pixels whose colour differs.
 */
__u64 share_fb_compare(const void *got, const struct share_fb *got_fb,
		       const struct share_fb *want, __u32 *bad_x, __u32 *bad_y,
		       __u32 *bad_val)
{
	const unsigned char *line = got;
	__u64 bad = 0;
	__u32 x, y, v;

	for (y = 0; y < want->height && y < got_fb->height; y++) {
		for (x = 0; x < want->width && x < got_fb->width; x++) {
			v = ((const __u32 *)line)[x] & 0xffffff;
			if (v == share_fb_pixel(x, y))
				continue;
			if (!bad++) {
				*bad_x = x;
				*bad_y = y;
				*bad_val = v;
			}
		}
		line += got_fb->pitch;
	}
	return bad;
}
