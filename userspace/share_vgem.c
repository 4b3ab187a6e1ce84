// SPDX-License-Identifier: GPL-2.0
/*
 * The vgem importer, driven through libdrm: find the vgem node by driver
 * name, import the buffer with PRIME, import it again and into a second DRM
 * file, re-export it, import a buffer whose exporter has exited, and close
 * every handle. vgem only attaches; the attachments are counted in the
 * dma-buf debugfs file when it is there.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xf86drm.h>

#include "share.h"

#define DRI_DIR		"/dev/dri"
#define BUFINFO		"/sys/kernel/debug/dma_buf/bufinfo"

/* Is @fd a DRM device whose driver is @name? */
static bool vgem_is_driver(int fd, const char *name)
{
	drmVersionPtr v = drmGetVersion(fd);
	bool match;

	if (!v)
		return false;
	match = v->name && !strcmp(v->name, name);
	drmFreeVersion(v);
	return match;
}

/* Open the first /dev/dri/card* driven by vgem; its path into @path. */
static int vgem_open(char *path, size_t len)
{
	struct dirent *de;
	int fd = -ENODEV;
	DIR *dir;

	dir = opendir(DRI_DIR);
	if (!dir)
		return -ENODEV;
	while ((de = readdir(dir))) {
		if (strncmp(de->d_name, "card", 4))
			continue;
		snprintf(path, len, "%s/%s", DRI_DIR, de->d_name);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (vgem_is_driver(fd, "vgem"))
			break;
		close(fd);
		fd = -ENODEV;
	}
	closedir(dir);
	return fd;
}

static ino_t vgem_ino(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? 0 : st.st_ino;
}

/*
 * Attachments of the dma-buf with inode @ino, from debugfs bufinfo: -1 if
 * the file cannot be read or the buffer is not listed.
 */
static int vgem_attachments(ino_t ino)
{
	unsigned long long size, inode;
	char line[512], exp[64];
	bool found = false;
	int count = -1;
	FILE *fp;

	fp = fopen(BUFINFO, "re");
	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		if (!found) {
			found = sscanf(line, "%llu %*x %*x %*d %63s %llu", &size, exp,
				       &inode) == 3 && inode == ino;
			continue;
		}
		if (sscanf(line, "Total %d devices attached", &count) == 1)
			break;
	}
	fclose(fp);
	return count;
}

static void vgem_check_attached(struct share_result *res, ino_t ino,
				int expected, const char *when)
{
	int n = vgem_attachments(ino);

	if (n < 0)
		share_skip("attachments %s: %s not readable or buffer not listed",
			   when, BUFINFO);
	else
		share_check(res, n == expected, "%s: %d attachment(s) in %s, expected %d",
			    when, n, BUFINFO, expected);
}

static void vgem_reexport(struct share_result *res, int drm_fd, __u32 handle,
			  int buf_fd)
{
	int fd, ret;

	ret = drmPrimeHandleToFD(drm_fd, handle, DRM_CLOEXEC, &fd);
	if (!share_check(res, !ret, "re-export of handle %u (drmPrimeHandleToFD): %s",
			 handle, ret ? strerror(errno) : "ok"))
		return;
	share_check(res, vgem_ino(fd) == vgem_ino(buf_fd),
		    "re-export is the same dma-buf (inode %lu, ours %lu)",
		    (unsigned long)vgem_ino(fd), (unsigned long)vgem_ino(buf_fd));
	close(fd);
}

/* Import of a buffer whose exporting process has already exited. */
static void vgem_orphan(struct share_result *res, const struct share_buf *buf,
			int drm_fd, __u32 other)
{
	__u32 handle = 0;
	int fd, ret;

	ret = share_alloc_in_child(buf, &fd);
	if (!share_check(res, !ret, "buffer from a child process that exited: %s",
			 ret ? strerror(-ret) : "received"))
		return;
	ret = drmPrimeFDToHandle(drm_fd, fd, &handle);
	if (share_check(res, !ret && handle && handle != other,
			"import after the exporter exited: handle %u (%s)", handle,
			ret ? strerror(errno) : "a new object"))
		share_check(res, !drmCloseBufferHandle(drm_fd, handle),
			    "close of handle %u", handle);
	close(fd);
}

static int vgem_run(const struct share_buf *buf, struct share_result *res)
{
	__u32 h1 = 0, h2 = 0, h3 = 0;
	char path[PATH_MAX];
	int fd1, fd2, ret;
	ino_t ino = vgem_ino(buf->fd);

	fd1 = vgem_open(path, sizeof(path));
	if (fd1 < 0)
		return share_absent(res,
				    "no DRM device with driver vgem in %s (CONFIG_DRM_VGEM; modprobe vgem)",
				    DRI_DIR);
	share_check(res, true, "%s is driven by vgem (drmGetVersion)", path);

	ret = drmPrimeFDToHandle(fd1, buf->fd, &h1);
	if (!share_check(res, !ret && h1, "import (drmPrimeFDToHandle): handle %u%s%s",
			 h1, ret ? ": " : "", ret ? strerror(errno) : ""))
		goto close_fd1;
	vgem_check_attached(res, ino, 1, "after import");
	ret = drmPrimeFDToHandle(fd1, buf->fd, &h2);
	share_check(res, !ret && h2 == h1,
		    "second import on the same DRM fd: handle %u, same as the first", h2);
	vgem_reexport(res, fd1, h1, buf->fd);

	fd2 = open(path, O_RDWR | O_CLOEXEC);
	if (!share_check(res, fd2 >= 0, "second DRM fd on %s", path))
		goto close_h1;
	ret = drmPrimeFDToHandle(fd2, buf->fd, &h3);
	share_check(res, !ret && h3, "import on the second DRM fd: handle %u", h3);
	vgem_check_attached(res, ino, 2, "after import on two DRM fds");
	if (!ret)
		share_check(res, !drmCloseBufferHandle(fd2, h3),
			    "close of handle %u on the second DRM fd", h3);
	close(fd2);

	vgem_orphan(res, buf, fd1, h1);
close_h1:
	share_check(res, !drmCloseBufferHandle(fd1, h1),
		    "close of handle %u (drmCloseBufferHandle)", h1);
	share_check(res, drmCloseBufferHandle(fd1, h1) && errno == EINVAL,
		    "a second close of handle %u is refused (EINVAL): the double import took no extra handle",
		    h1);
	vgem_check_attached(res, ino, 0, "after every handle is closed");
close_fd1:
	close(fd1);
	return 0;
}

const struct share_importer share_vgem = {
	.name = "vgem",
	.help = "the virtual GEM driver, through libdrm (PRIME import)",
	.run = vgem_run,
};
