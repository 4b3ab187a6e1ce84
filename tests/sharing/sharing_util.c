// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers of the cmabuf sharing test. Every function returns 0 or a
 * positive errno, so that tests can compare it with the errno they expect.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "sharing_util.h"

#define BUFINFO		"/sys/kernel/debug/dma_buf/bufinfo"

/* A buffer of @size from the AUTO strategy, as an O_RDWR | O_CLOEXEC fd. */
int cmabuf_alloc_fd(int dev, unsigned long long size, int *buf)
{
	struct cmabuf_alloc_data data = {
		.size = size,
		.fd_flags = O_RDWR | O_CLOEXEC,
		.flags = CMABUF_STRATEGY_AUTO,
	};
	int ret;

	ret = cmabuf_ioctl_retry(dev, CMABUF_IOC_ALLOC, &data);
	if (!ret)
		*buf = data.fd;
	return ret;
}

int cmabuf_area_name(int dev, char *name, size_t size)
{
	struct cmabuf_info info = {
		.area_name_ptr = (uintptr_t)name,
		.area_name_size = size,
	};

	return cmabuf_ioctl_retry(dev, CMABUF_IOC_INFO, &info);
}

int cmabuf_live_buffers(int dev, unsigned long long *live)
{
	struct cmabuf_info info = { 0 };
	int ret;

	ret = cmabuf_ioctl_retry(dev, CMABUF_IOC_INFO, &info);
	if (!ret)
		*live = info.live_buffers;
	return ret;
}

int importer_check(int imp, int buf, __u32 flags, __u64 seed_in,
		   __u64 seed_out, struct cmabuf_importer_check *chk)
{
	memset(chk, 0, sizeof(*chk));
	chk->fd = buf;
	chk->flags = flags;
	chk->seed_in = seed_in;
	chk->seed_out = seed_out;
	return cmabuf_ioctl_retry(imp, CMABUF_IMPORTER_IOC_CHECK, chk);
}

int importer_hold(int imp, int buf, __u32 flags,
		  struct cmabuf_importer_hold *hold)
{
	memset(hold, 0, sizeof(*hold));
	hold->fd = buf;
	hold->flags = flags;
	return cmabuf_ioctl_retry(imp, CMABUF_IMPORTER_IOC_HOLD, hold);
}

int importer_release(int imp, __u32 handle)
{
	struct cmabuf_importer_release rel = { .handle = handle };

	return cmabuf_ioctl_retry(imp, CMABUF_IMPORTER_IOC_RELEASE, &rel);
}

void pattern_fill(void *map, size_t len, __u64 seed)
{
	size_t off;

	for (off = 0; off + sizeof(__u64) <= len;
	     off += CMABUF_IMPORTER_PATTERN_STRIDE)
		*(__u64 *)((char *)map + off) =
			cmabuf_importer_pattern(seed, off);
}

/* Words of the pattern of @seed that @map does not hold. */
size_t pattern_mismatches(const void *map, size_t len, __u64 seed)
{
	size_t off, bad = 0;

	for (off = 0; off + sizeof(__u64) <= len;
	     off += CMABUF_IMPORTER_PATTERN_STRIDE)
		if (*(const __u64 *)((const char *)map + off) !=
		    cmabuf_importer_pattern(seed, off))
			bad++;
	return bad;
}

/*
 * Wait up to 10 s until no cmabuf instance has frees in flight (each one's
 * sysfs releasing_bytes is 0): freed buffers go back to their CMA area in
 * the background, and the area's counters catch up only then. Return: 0,
 * ETIMEDOUT, or the errno of a read.
 */
int cmabuf_settle_all(void)
{
	unsigned long long bytes;
	char path[512];
	struct dirent *de;
	int i, ret = ETIMEDOUT;
	bool busy;
	DIR *dir;
	FILE *f;

	for (i = 0; i < 10000; i++) {
		dir = opendir("/sys/class/misc");
		if (!dir)
			return errno;
		busy = false;
		while (!busy && (de = readdir(dir))) {
			if (strncmp(de->d_name, "cmabuf", 6))
				continue;
			snprintf(path, sizeof(path),
				 "/sys/class/misc/%s/releasing_bytes",
				 de->d_name);
			f = fopen(path, "re");
			if (!f)
				continue;	/* the importer, an old driver */
			busy = fscanf(f, "%llu", &bytes) != 1 || bytes;
			fclose(f);
		}
		closedir(dir);
		if (!busy)
			return 0;
		usleep(1000);
	}
	return ret;
}

/* The attached devices that follow an entry, up to "Total N devices". */
static void bufinfo_devices(FILE *f, struct bufinfo_entry *e)
{
	char line[256];
	bool in_list = false;
	int n;

	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Total %d devices attached", &n) == 1) {
			e->attached = n;
			return;
		}
		if (strstr(line, "Attached Devices:")) {
			in_list = true;
			continue;
		}
		if (!in_list || line[0] != '\t')
			continue;
		n = e->attached++;
		if (n < 4)
			sscanf(line + 1, "%31s", e->dev[n]);
	}
}

/* The bufinfo entry of the dma-buf @buf, found by its inode. */
int bufinfo_find(int buf, struct bufinfo_entry *e)
{
	unsigned long long ino;
	char line[512];
	struct stat st;
	FILE *f;
	int ret = ENOENT;

	if (fstat(buf, &st))
		return errno;
	f = fopen(BUFINFO, "r");
	if (!f)
		return errno;
	while (fgets(line, sizeof(line), f)) {
		memset(e, 0, sizeof(*e));
		if (sscanf(line, "%llu %*x %*x %*d %31s %llu %63[^\n]",
			   &e->size, e->exp_name, &ino, e->name) != 4)
			continue;
		if (ino != st.st_ino)
			continue;
		bufinfo_devices(f, e);
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

bool bufinfo_attached(const struct bufinfo_entry *e, const char *dev)
{
	int i;

	for (i = 0; i < e->attached && i < 4; i++)
		if (!strcmp(e->dev[i], dev))
			return true;
	return false;
}

/**
 * struct fd_msg - a one-byte message that carries one fd
 * @byte: the payload, which nobody reads.
 * @iov: @byte.
 * @cbuf: room for the SCM_RIGHTS control message.
 * @msg: the header that points at all of it.
 */
struct fd_msg {
	char byte;
	struct iovec iov;
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct msghdr msg;
};

static void fd_msg_init(struct fd_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->iov.iov_base = &m->byte;
	m->iov.iov_len = 1;
	m->msg.msg_iov = &m->iov;
	m->msg.msg_iovlen = 1;
	m->msg.msg_control = m->cbuf;
	m->msg.msg_controllen = sizeof(m->cbuf);
}

/* Pass @fd over the unix socket @sock. */
int send_fd(int sock, int fd)
{
	struct cmsghdr *cmsg;
	struct fd_msg m;

	fd_msg_init(&m);
	cmsg = CMSG_FIRSTHDR(&m.msg);
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	return sendmsg(sock, &m.msg, 0) == 1 ? 0 : errno;
}

/* Receive an fd that send_fd() passed. */
int recv_fd(int sock, int *fd)
{
	struct cmsghdr *cmsg;
	struct fd_msg m;

	fd_msg_init(&m);
	errno = EPROTO;
	if (recvmsg(sock, &m.msg, MSG_CMSG_CLOEXEC) != 1)
		return errno;
	cmsg = CMSG_FIRSTHDR(&m.msg);
	if (!cmsg || cmsg->cmsg_level != SOL_SOCKET ||
	    cmsg->cmsg_type != SCM_RIGHTS ||
	    cmsg->cmsg_len != CMSG_LEN(sizeof(int))) {
		errno = EPROTO;
		return errno;
	}
	memcpy(fd, CMSG_DATA(cmsg), sizeof(int));
	return 0;
}

/* Does the file at @path hold the string @needle? */
bool file_contains(const char *path, const char *needle)
{
	struct stat st;
	bool found;
	void *map;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) || !st.st_size) {
		close(fd);
		return false;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return false;
	found = memmem(map, st.st_size, needle, strlen(needle));
	munmap(map, st.st_size);
	return found;
}
