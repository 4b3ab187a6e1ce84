/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test library's vgem helpers (tests/lib), through libdrm: for the
 * programs that link it (TESTLIB_DRM in tests/programs.mk).
 */
#ifndef CMABUF_VGEM_UTIL_H
#define CMABUF_VGEM_UTIL_H

#include <linux/types.h>

int vgem_open(void);
int drm_import(int card, int buf, __u32 *handle);
int drm_close_handle(int card, __u32 handle);

#endif /* CMABUF_VGEM_UTIL_H */
