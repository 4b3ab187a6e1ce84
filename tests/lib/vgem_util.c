// SPDX-License-Identifier: GPL-2.0
/*
 * The test library's vgem helpers; see vgem_util.h. Each returns 0 or a
 * positive errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <xf86drm.h>

#include "vgem_util.h"

#define DRI_DIR		"/dev/dri/card"
#define DRI_MAX		16

static bool drm_driver_is(int card, const char *name)
{
	drmVersionPtr v = drmGetVersion(card);
	bool match;

	if (!v)
		return false;
	match = v->name && !strcmp(v->name, name);
	drmFreeVersion(v);
	return match;
}

/* A new file of the first DRM card driven by vgem, or -1. */
int vgem_open(void)
{
	char path[64];
	int i, card;

	for (i = 0; i < DRI_MAX; i++) {
		snprintf(path, sizeof(path), "%s%d", DRI_DIR, i);
		card = open(path, O_RDWR | O_CLOEXEC);
		if (card < 0)
			continue;
		if (drm_driver_is(card, "vgem"))
			return card;
		close(card);
	}
	return -1;
}

int drm_import(int card, int buf, __u32 *handle)
{
	return drmPrimeFDToHandle(card, buf, handle) ? errno : 0;
}

int drm_close_handle(int card, __u32 handle)
{
	return drmCloseBufferHandle(card, handle) ? errno : 0;
}
