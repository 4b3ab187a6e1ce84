// SPDX-License-Identifier: GPL-2.0
/*
 * Opening cmabuf devices and issuing their ioctls.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "dev.h"
#include "msg.h"

/**
 * dev_resolve() - turn a --device argument into a path
 * @arg: a path ("/dev/cmabuf-large"), a label ("large"), or "default"
 * @buf: room for the result
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *dev_resolve(const char *arg, char *buf, size_t len)
{
	if (!arg || !strcmp(arg, "default"))
		snprintf(buf, len, "%s", DEV_DEFAULT);
	else if (strchr(arg, '/'))
		snprintf(buf, len, "%s", arg);
	else
		snprintf(buf, len, "%s-%s", DEV_DEFAULT, arg);
	return buf;
}

/* Open @path read-write; on failure print why and return -errno. */
int dev_open(const char *path)
{
	int fd, err;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd >= 0)
		return fd;

	err = errno;
	switch (err) {
	case ENOENT:
	case ENODEV:
	case ENXIO:
		msg_err("%s: no such device (is cmabuf.ko loaded?)", path);
		break;
	case EACCES:
	case EPERM:
		msg_err("%s: permission denied (run as root or grant access to the device)",
			path);
		break;
	default:
		msg_err("%s: %s", path, strerror(err));
	}
	return -err;
}

/* ioctl() restarted on EINTR; 0 or -errno. Also for other drivers' devices. */
int dev_ioctl(int fd, unsigned long cmd, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, cmd, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : 0;
}

int dev_info(int fd, struct dev_info *di)
{
	memset(di, 0, sizeof(*di));
	di->info.area_name_ptr = (unsigned long)di->area;
	di->info.area_name_size = sizeof(di->area);
	return dev_ioctl(fd, CMABUF_IOC_INFO, &di->info);
}

/* An ioctl's negative errno as words; ENOTTY means the file is not ours. */
const char *dev_strerror(int err)
{
	if (err == -ENOTTY)
		return "not a cmabuf device";
	return strerror(-err);
}

/* @data carries size, align, fd_flags and flags in; the rest must be 0. */
int dev_alloc(int fd, struct cmabuf_alloc_data *data)
{
	return dev_ioctl(fd, CMABUF_IOC_ALLOC, data);
}

int dev_bench(int fd, struct cmabuf_bench *bench)
{
	return dev_ioctl(fd, CMABUF_IOC_BENCH, bench);
}

int dev_phys(int fd, int dmabuf_fd, struct cmabuf_phys *phys)
{
	memset(phys, 0, sizeof(*phys));
	phys->fd = dmabuf_fd;
	return dev_ioctl(fd, CMABUF_IOC_PHYS, phys);
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(a, b);
}

/*
 * Every /dev/cmabuf and /dev/cmabuf-<label>, sorted by name.
 * Return: how many were found (at most @max), or -errno.
 */
int dev_list(char paths[][PATH_MAX], int max)
{
	struct dirent *de;
	int n = 0;
	DIR *dir;

	dir = opendir(DEV_DIR);
	if (!dir)
		return -errno;
	while (n < max && (de = readdir(dir))) {
		if (strcmp(de->d_name, "cmabuf") &&
		    strncmp(de->d_name, "cmabuf-", strlen("cmabuf-")))
			continue;
		snprintf(paths[n++], PATH_MAX, "%s/%s", DEV_DIR, de->d_name);
	}
	closedir(dir);
	qsort(paths, n, PATH_MAX, cmp_path);
	return n;
}

/*
 * A number from the CMA debugfs file @file of the area @area, such as
 * "used" (pages allocated from it). Return: 0 or -errno.
 */
int dev_area_read(const char *area, const char *file, __u64 *val)
{
	char path[PATH_MAX];
	unsigned long long v;
	FILE *fp;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/%s/%s", CMA_DEBUGFS, area, file);
	fp = fopen(path, "re");
	if (!fp)
		return -errno;
	if (fscanf(fp, "%llu", &v) == 1)
		*val = v;
	else
		ret = -EIO;
	fclose(fp);
	return ret;
}
