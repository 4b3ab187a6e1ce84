// SPDX-License-Identifier: GPL-2.0
/*
 * cmabufctl share: why a V4L2 or DRM device refused a step, in words that
 * name the fix. Pure functions: the caller gathers what they tell.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "share.h"

/* What "make install" installs beside the README (the top Makefile's DOCDIR). */
#define CMABUFCTL_IMPORTERS_DOC	CMABUFCTL_DOCDIR "/importers.md"

/**
 * share_why_unreachable() - a device could not map the buffer
 * @why: out: the text
 * @len: its size
 * @dev_path: the instance the buffer came from
 * @before: its stats/unreachable_maps before the device mapped
 * @after: and after
 * @dma_bits: the DMA mask width that reaches its whole area, 0 if unknown
 * @reachable: the instances a 32-bit mask reaches, comma-separated, or ""
 *
 * cmabuf refuses to map a buffer the device's DMA mask does not reach
 * (ERANGE, which videobuf2 reports as EINVAL at QBUF) and counts it.
 */
void share_why_unreachable(char *why, size_t len, const char *dev_path,
			   __u64 before, __u64 after, unsigned int dma_bits,
			   const char *reachable)
{
	const char *name = strrchr(dev_path, '/');
	char mask[64];

	name = name ? name + 1 : dev_path;
	if (dma_bits)
		snprintf(mask, sizeof(mask), "%s needs a %u-bit DMA mask", dev_path,
			 dma_bits);
	else
		snprintf(mask, sizeof(mask), "its DMA mask does not reach %s", dev_path);
	snprintf(why, len,
		 "the device cannot reach the buffer, cmabuf refused the mapping (%s/stats/unreachable_maps %llu -> %llu): %s. Allocate from an instance within the device's mask with -d: %s%s ('dma reach' in 'cmabufctl info'; %s; the kernel log names the device and its mask)",
		 name, (unsigned long long)before, (unsigned long long)after, mask,
		 reachable[0] ? "32-bit masks reach " : "no instance here lies below 4 GiB",
		 reachable, CMABUFCTL_IMPORTERS_DOC);
}

/**
 * share_why_leaked() - buffers a refused QBUF left behind
 * @why: out: the text
 * @len: its size
 * @dev_path: the instance the buffers came from
 * @before: its stats/live_buffers before they were allocated
 * @after: and after REQBUFS 0 and the close of every fd of them
 *
 * videobuf2's __prepare_dmabuf() takes a reference on every plane's
 * dma-buf before it attaches and maps them one by one; without the fix
 * "media: videobuf2-core: fix dma-buf leak when a plane fails to attach
 * or map" (kernel/patches/, Linux 6.12 and 7.2 lack it) a refused plane
 * leaves the references on the planes after it, and on itself when its
 * attach failed, for good.
 */
void share_why_leaked(char *why, size_t len, const char *dev_path,
		      __u64 before, __u64 after)
{
	snprintf(why, len,
		 "%llu buffer(s) still live after REQBUFS 0 and closing every fd (%s stats/live_buffers %llu -> %llu; another program may also have allocated): videobuf2 without the fix 'fix dma-buf leak when a plane fails to attach or map' keeps the planes after a refused one until reboot. Take every plane from an instance the device reaches; do not retry with this one (%s)",
		 (unsigned long long)(after - before), dev_path,
		 (unsigned long long)before, (unsigned long long)after,
		 CMABUFCTL_IMPORTERS_DOC);
}

/* An errno of one step, and what it means there. */
struct share_why_text {
	int err;
	const char *text;
};

static const char *share_why_find(const struct share_why_text *t, size_t n,
				  int err)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (t[i].err == err)
			return t[i].text;
	}
	return NULL;
}

static const struct share_why_text share_why_reqbufs_texts[] = {
	{
		-EINVAL,
		"the driver does not import dma-bufs (REQBUFS with V4L2_MEMORY_DMABUF: EINVAL): it cannot capture into cmabuf's buffers, only into its own (MMAP)",
	}, {
		-EBUSY,
		"the node is streaming for another program (REQBUFS: EBUSY): stop that program and retry",
	},
};

/* Nothing about the buffers: the node is skipped. */
static const struct share_why_text share_why_streamon_texts[] = {
	{
		-EPIPE,
		"the media pipeline is not configured (links or formats of its subdevices do not match): set it up with media-ctl, then retry",
	}, {
		-ENOLINK,
		"the media pipeline is not configured (no enabled link to a source): set it up with media-ctl, then retry",
	}, {
		-EBUSY,
		"the device is in use (EBUSY)",
	}, {
		-EIO,
		"the device did not start (no sensor, or it failed to power up)",
	}, {
		-ENODEV,
		"the device did not start (no sensor, or it failed to power up)",
	},
};

static const struct share_why_text share_why_commit_texts[] = {
	{
		-EACCES,
		"not the DRM master: another program (a compositor, X) drives this card; stop it, or test another card with --card",
	}, {
		-EPERM,
		"not the DRM master: another program (a compositor, X) drives this card; stop it, or test another card with --card",
	}, {
		-EINVAL,
		"the driver refused the configuration (EINVAL): the framebuffer, the plane or the mode",
	}, {
		-ERANGE,
		"a value out of the driver's range (ERANGE)",
	}, {
		-EBUSY,
		"a commit is still pending (EBUSY)",
	},
};

/* REQBUFS with V4L2_MEMORY_DMABUF failed with -@err; NULL: strerror() says it. */
const char *share_why_reqbufs(int err)
{
	return share_why_find(share_why_reqbufs_texts,
			      ARRAY_SIZE(share_why_reqbufs_texts), err);
}

/* STREAMON failed with -@err; NULL: strerror() says it. */
const char *share_why_streamon(int err)
{
	return share_why_find(share_why_streamon_texts,
			      ARRAY_SIZE(share_why_streamon_texts), err);
}

/* An atomic commit (or its TEST_ONLY) failed with -@err; NULL: strerror(). */
const char *share_why_commit(int err)
{
	return share_why_find(share_why_commit_texts,
			      ARRAY_SIZE(share_why_commit_texts), err);
}
