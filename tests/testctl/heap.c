// SPDX-License-Identifier: GPL-2.0
/*
 * Finding and using the upstream CMA dma-heap.
 *
 * The CMA heap registers one heap per CMA area: "default_cma_region" (7.x)
 * or the area's name ("reserved" for cma=) for the default area, and on
 * newer kernels one per reserved-memory area, named after the area. cmabuf
 * registers its own heaps, "cmabuf" and "cmabuf-<label>", which may share a
 * name with an area. A candidate is therefore probed with a one-page buffer
 * and kept only if that dma-buf was exported by someone other than cmabuf.
 */
#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/dma-heap.h>

#include "heap.h"
#include "msg.h"
#include "util.h"

#define HEAP_CANDIDATES	16
#define HEAP_NAME_MAX	(NAME_MAX + 1)

int heap_alloc(int heap_fd, __u64 len, int *buf_fd)
{
	struct dma_heap_allocation_data data = {
		.len = len,
		.fd_flags = O_RDWR | O_CLOEXEC,
	};

	if (ioctl(heap_fd, DMA_HEAP_IOCTL_ALLOC, &data))
		return -errno;
	*buf_fd = data.fd;
	return 0;
}

/* The exp_name of a dma-buf, from /proc/self/fdinfo. */
int heap_exporter(int buf_fd, char *name, size_t len)
{
	char path[64], line[256];
	int ret = -ENOENT;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", buf_fd);
	fp = fopen(path, "re");
	if (!fp)
		return -errno;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "exp_name: %255s", line) == 1) {
			snprintf(name, len, "%s", line);
			ret = 0;
			break;
		}
	}
	fclose(fp);
	return ret;
}

/* Open heap @name if a one-page buffer from it is not cmabuf's. */
static int heap_probe(const char *name)
{
	char path[PATH_MAX], exp[64];
	int fd, buf_fd = -1, ret;

	snprintf(path, sizeof(path), "%s/%s", HEAP_DIR, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = heap_alloc(fd, (__u64)getpagesize(), &buf_fd);
	if (ret)
		goto close_heap;
	ret = heap_exporter(buf_fd, exp, sizeof(exp));
	close(buf_fd);
	/* cmabuf exports under its instances' names: "cmabuf", "cmabuf-x". */
	if (!ret && (!strcmp(exp, "cmabuf") || !strncmp(exp, "cmabuf-", 7)))
		ret = -EEXIST;
	if (!ret)
		return fd;
close_heap:
	close(fd);
	return ret;
}

static int heap_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Heaps other than system ones, in the order they are tried. */
static int heap_candidates(const char *area, char names[][HEAP_NAME_MAX],
			   int max)
{
	static const char * const defaults[] = { "default_cma_region", "reserved" };
	struct dirent *de;
	int n = 0, first;
	unsigned int i;
	DIR *dir;

	dir = opendir(HEAP_DIR);
	if (!dir)
		return -errno;
	if (area)
		snprintf(names[n++], HEAP_NAME_MAX, "%s", area);
	for (i = 0; i < ARRAY_SIZE(defaults); i++)
		snprintf(names[n++], HEAP_NAME_MAX, "%s", defaults[i]);
	first = n;
	while (n < max && (de = readdir(dir))) {
		if (de->d_name[0] == '.' || !strncmp(de->d_name, "system", 6) ||
		    !strncmp(de->d_name, "cmabuf", 6))
			continue;
		snprintf(names[n++], HEAP_NAME_MAX, "%s", de->d_name);
	}
	closedir(dir);
	qsort(names + first, n - first, HEAP_NAME_MAX, heap_cmp);
	return n;
}

/**
 * heap_open() - open the upstream CMA heap
 * @want: a heap name from the command line, or NULL to search
 * @area: the CMA area of the cmabuf device, tried first when searching
 * @name: the name of the heap opened
 * @len: size of @name
 *
 * Return: an fd of the heap, or -errno after printing why none was found.
 */
int heap_open(const char *want, const char *area, char *name, size_t len)
{
	char names[HEAP_CANDIDATES][HEAP_NAME_MAX];
	int i, n, fd = -ENOENT;

	if (want) {
		fd = heap_probe(want);
		if (fd >= 0)
			snprintf(name, len, "%s", want);
		else if (fd == -EEXIST)
			msg_err("cma-heap: %s/%s is a cmabuf heap, not the CMA heap",
				HEAP_DIR, want);
		else
			msg_err("cma-heap: %s/%s: %s", HEAP_DIR, want, strerror(-fd));
		return fd;
	}
	n = heap_candidates(area, names, HEAP_CANDIDATES);
	if (n < 0) {
		msg_err("cma-heap: %s: %s", HEAP_DIR, strerror(-n));
		return n;
	}
	for (i = 0; i < n; i++) {
		fd = heap_probe(names[i]);
		if (fd >= 0) {
			snprintf(name, len, "%s", names[i]);
			break;
		}
	}
	if (fd < 0)
		msg_err("cma-heap: no CMA heap in %s that can allocate", HEAP_DIR);
	return fd;
}
