// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers of the cmabuf DMA test. Nothing here asserts: every helper
 * returns what it saw, and the tests decide.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "dma_util.h"
#include "reliability_util.h"

int edu_ioctl(int fd, unsigned long cmd, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, cmd, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? errno : 0;
}

/* Open the device of PCI name @pci and read its INFO. */
int edu_open(const char *pci, struct edu_dev *dev)
{
	char path[PCI_NAME_MAX + sizeof(CMABUF_EDU_DEV_PREFIX)];
	int ret;

	memset(dev, 0, sizeof(*dev));
	snprintf(dev->pci, sizeof(dev->pci), "%s", pci);
	snprintf(path, sizeof(path), CMABUF_EDU_DEV_PREFIX "%s", pci);
	dev->fd = open(path, O_RDWR | O_CLOEXEC);
	if (dev->fd < 0)
		return errno;
	ret = edu_ioctl(dev->fd, CMABUF_EDU_IOC_INFO, &dev->info);
	if (ret)
		edu_close(dev);
	return ret;
}

void edu_close(struct edu_dev *dev)
{
	if (dev->fd >= 0)
		close(dev->fd);
	dev->fd = -1;
}

/* Every /dev/cmabuf_edu-*, opened, in the order readdir() gives. */
int edu_find_all(struct edu_dev *devs, int max, int *count)
{
	const char *prefix = CMABUF_EDU_DEV_PREFIX + strlen("/dev/");
	struct dirent *d;
	DIR *dir;
	int ret = 0;

	*count = 0;
	dir = opendir("/dev");
	if (!dir)
		return errno;
	while ((d = readdir(dir)) && *count < max) {
		if (strncmp(d->d_name, prefix, strlen(prefix)))
			continue;
		ret = edu_open(d->d_name + strlen(prefix), &devs[*count]);
		if (ret)
			break;
		(*count)++;
	}
	closedir(dir);
	return ret;
}

int edu_attach(int edu, int buf, __u32 *handle)
{
	struct cmabuf_edu_attach arg = { .fd = buf };
	int ret;

	ret = edu_ioctl(edu, CMABUF_EDU_IOC_ATTACH, &arg);
	if (!ret)
		*handle = arg.handle;
	return ret;
}

int edu_map(int edu, __u32 handle, struct cmabuf_edu_map *map)
{
	memset(map, 0, sizeof(*map));
	map->handle = handle;
	return edu_ioctl(edu, CMABUF_EDU_IOC_MAP, map);
}

int edu_unmap(int edu, __u32 handle, __u32 map)
{
	struct cmabuf_edu_unmap arg = { .handle = handle, .map = map };

	return edu_ioctl(edu, CMABUF_EDU_IOC_UNMAP, &arg);
}

int edu_detach(int edu, __u32 handle, __u32 flags)
{
	struct cmabuf_edu_detach arg = { .handle = handle, .flags = flags };

	return edu_ioctl(edu, CMABUF_EDU_IOC_DETACH, &arg);
}

int edu_copy(int edu, __u32 handle, __u32 map, __u64 src, __u64 dst,
	     __u32 len, struct cmabuf_edu_dma *out)
{
	memset(out, 0, sizeof(*out));
	out->handle = handle;
	out->map = map;
	out->op = CMABUF_EDU_DMA_COPY;
	out->len = len;
	out->offset = src;
	out->dst = dst;
	return edu_ioctl(edu, CMABUF_EDU_IOC_DMA, out);
}

static int edu_rw(int edu, __u32 handle, __u32 map, __u32 op, __u64 off,
		  void *data, __u32 len)
{
	struct cmabuf_edu_dma arg = {
		.handle = handle,
		.map = map,
		.op = op,
		.len = len,
		.offset = off,
		.data = (uintptr_t)data,
	};

	return edu_ioctl(edu, CMABUF_EDU_IOC_DMA, &arg);
}

/* What the device reads at @off: @len bytes into @data. */
int edu_read(int edu, __u32 handle, __u32 map, __u64 off, void *data,
	     __u32 len)
{
	return edu_rw(edu, handle, map, CMABUF_EDU_DMA_READ, off, data, len);
}

/* The device writes the @len bytes of @data at @off. */
int edu_write(int edu, __u32 handle, __u32 map, __u64 off,
	      const void *data, __u32 len)
{
	return edu_rw(edu, handle, map, CMABUF_EDU_DMA_WRITE, off,
		      (void *)data, len);
}

/* The CPU reads @len bytes at @off through the kernel's mapping. */
int edu_vread(int edu, __u32 handle, __u64 off, void *data, __u32 len)
{
	struct cmabuf_edu_vread arg = {
		.handle = handle,
		.len = len,
		.offset = off,
		.data = (uintptr_t)data,
	};

	return edu_ioctl(edu, CMABUF_EDU_IOC_VREAD, &arg);
}

/* Bind (@bind) or unbind the PCI device @pci and the driver @driver. */
int pci_driver_bind(const char *driver, const char *pci, bool bind)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/bus/pci/drivers/%s/%s", driver,
		 bind ? "bind" : "unbind");
	return rel_write_str(path, pci);
}

/* The bytes of the pattern of @seed, from the reliability programs' rng. */
void bytes_fill(unsigned char *p, size_t len, __u64 seed)
{
	struct rel_rng rng = { .state = seed };
	__u64 word = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		if (!(i % 8))
			word = rel_rand(&rng);
		p[i] = word >> (8 * (i % 8));
	}
}

/* Bytes of @p that differ from the pattern of @seed; @len at most 4 KiB. */
size_t bytes_mismatch(const unsigned char *p, size_t len, __u64 seed)
{
	unsigned char want[CMABUF_EDU_MAX_LEN];
	size_t i, bad = 0;

	if (len > sizeof(want))
		return len;
	bytes_fill(want, len, seed);
	for (i = 0; i < len; i++)
		bad += p[i] != want[i];
	return bad;
}
