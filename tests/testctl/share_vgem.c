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
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xf86drm.h>

#include "dev.h"
#include "share.h"
#include "testctl.h"

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

/*
 * Child side: allocate, report the fd number, wait until the parent has
 * taken its own reference (the "go" pipe closes), exit.
 */
static void vgem_child(const struct share_buf *buf, int report, int go)
{
	int dev_fd, fd;
	char byte;

	dev_fd = dev_open(buf->dev_path);
	if (dev_fd < 0 || share_alloc(buf, dev_fd, &fd))
		_exit(1);
	if (write(report, &fd, sizeof(fd)) != sizeof(fd))
		_exit(1);
	while (read(go, &byte, 1) > 0)
		;
	_exit(0);
}

/* The parent's own fd of the child's dma-buf, through pidfd_getfd(). */
static int vgem_take(pid_t pid, int report, int *fd)
{
	int pidfd, child_fd, ret = 0;

	if (read(report, &child_fd, sizeof(child_fd)) != sizeof(child_fd))
		return -EIO;
	pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		return -errno;
	*fd = syscall(SYS_pidfd_getfd, pidfd, child_fd, 0);
	if (*fd < 0)
		ret = -errno;
	close(pidfd);
	return ret;
}

/*
 * A buffer exported by a child process that has exited by the time this
 * returns: the parent took the fd with pidfd_getfd(), which needs no
 * sockets (CONFIG_NET may be off), and is the buffer's only user.
 */
static int vgem_alloc_in_child(const struct share_buf *buf, int *fd)
{
	int report[2], go[2], status, ret;
	pid_t pid;

	if (pipe2(report, O_CLOEXEC))
		return -errno;
	if (pipe2(go, O_CLOEXEC)) {
		ret = -errno;
		goto close_report;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		goto close_go;
	}
	if (!pid) {
		close(go[1]);
		vgem_child(buf, report[1], go[0]);
	}
	/* A child that dies before reporting must end the read with EOF. */
	close(report[1]);
	report[1] = -1;
	ret = vgem_take(pid, report[0], fd);
	close(go[1]);
	go[1] = -1;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		if (!ret)
			close(*fd);
		ret = ret ?: -ECHILD;
	}
close_go:
	close(go[0]);
	if (go[1] >= 0)
		close(go[1]);
close_report:
	close(report[0]);
	if (report[1] >= 0)
		close(report[1]);
	return ret;
}

/* Import of a buffer whose exporting process has already exited. */
static void vgem_orphan(struct share_result *res, const struct share_buf *buf,
			int drm_fd, __u32 other)
{
	__u32 handle = 0;
	int fd = -1, ret;

	ret = vgem_alloc_in_child(buf, &fd);
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
