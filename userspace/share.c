// SPDX-License-Identifier: GPL-2.0
/*
 * What every importer of cmabufctl share uses: the report of each check
 * (text, or recorded for --json), mapping and filling dma-bufs, new
 * buffers from the instance, and why a device could not map one.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/dma-buf.h>

#include "dev.h"
#include "json.h"
#include "msg.h"
#include "share.h"

/**
 * struct share_log - what the running importer checked, for --json
 * @json: --json: record instead of printing
 * @node: the device node the next checks are about, "" for none
 * @what: one line per check
 * @nodes: per check: its node, NULL for none
 * @ok: per check: 1 passed, 0 failed, -1 skipped
 * @n: checks recorded
 */
static struct share_log {
	bool json;
	char node[PATH_MAX];
	char *what[SHARE_LOG_MAX];
	char *nodes[SHARE_LOG_MAX];
	int ok[SHARE_LOG_MAX];
	unsigned int n;
} share_log;

void share_log_json_mode(bool json)
{
	share_log.json = json;
}

/*
 * The device node the checks after this are about (NULL: none). Text
 * output puts it before each line; JSON gives every check its "node".
 */
void share_node(const char *node)
{
	snprintf(share_log.node, sizeof(share_log.node), "%s", node ?: "");
}

/* Is @name @prefix and a number ("video0", not "video-dec")? */
static bool share_numbered(const char *name, const char *prefix)
{
	size_t len = strlen(prefix);

	return !strncmp(name, prefix, len) && name[len] &&
	       strspn(name + len, "0123456789") == strlen(name + len);
}

/*
 * Run @run on every node of @dir called @prefix and a number, in numeric
 * order. Return: the nodes it tested, or -errno when @dir cannot be read;
 * the nodes it skipped in @skipped.
 */
int share_each_node(const char *dir, const char *prefix, share_node_fn run,
		    const struct share_buf *buf, struct share_result *res,
		    unsigned int *skipped)
{
	struct dirent **list;
	char path[PATH_MAX];
	int i, n, tested = 0;

	*skipped = 0;
	n = scandir(dir, &list, NULL, versionsort);
	if (n < 0)
		return -errno;
	for (i = 0; i < n; i++) {
		if (share_numbered(list[i]->d_name, prefix)) {
			snprintf(path, sizeof(path), "%s/%s", dir,
				 list[i]->d_name);
			if (run(buf, res, path, false) == SHARE_TESTED)
				tested++;
			else
				(*skipped)++;
		}
		free(list[i]);
	}
	free(list);
	share_node(NULL);
	return tested;
}

static void share_report(int ok, const char *fmt, va_list ap)
{
	char *line;

	if (!share_log.json) {
		printf("  %-4s ", ok > 0 ? "ok" : ok ? "skip" : "FAIL");
		if (share_log.node[0])
			printf("%s: ", share_log.node);
		vprintf(fmt, ap);
		printf("\n");
		return;
	}
	if (share_log.n == SHARE_LOG_MAX || vasprintf(&line, fmt, ap) < 0)
		return;
	share_log.nodes[share_log.n] = share_log.node[0] ?
				       strdup(share_log.node) : NULL;
	share_log.what[share_log.n] = line;
	share_log.ok[share_log.n++] = ok;
}

bool share_check(struct share_result *res, bool ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	share_report(ok, fmt, ap);
	va_end(ap);
	if (ok)
		res->passed++;
	else
		res->failed++;
	return ok;
}

void share_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	share_report(-1, fmt, ap);
	va_end(ap);
}

/* The recorded checks as a JSON array, and forget them. */
void share_log_json(struct json *j)
{
	unsigned int i;

	json_array(j, "checks");
	for (i = 0; i < share_log.n; i++) {
		json_object(j, NULL);
		if (share_log.ok[i] < 0)
			json_null(j, "ok");
		else
			json_bool(j, "ok", share_log.ok[i]);
		json_str(j, "what", share_log.what[i]);
		if (share_log.nodes[i])
			json_str(j, "node", share_log.nodes[i]);
		else
			json_null(j, "node");
		json_close(j);
		free(share_log.what[i]);
		free(share_log.nodes[i]);
	}
	json_close(j);
	share_log.n = 0;
	share_log.node[0] = '\0';
}

/* Record why the importer is not there; returns -ENODEV for run(). */
int share_absent(struct share_result *res, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(res->why, sizeof(res->why), fmt, ap);
	va_end(ap);
	return -ENODEV;
}

static int share_sync(int fd, __u64 flags)
{
	struct dma_buf_sync sync = { .flags = flags | DMA_BUF_SYNC_RW };
	int ret;

	do {
		ret = ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync);
	} while (ret < 0 && (errno == EINTR || errno == EAGAIN));
	return ret < 0 ? -errno : 0;
}

/*
 * Map @size bytes of the dma-buf @fd read-write and begin CPU access to
 * them; share_unmap() ends it. Return: 0 or -errno, with nothing mapped.
 */
int share_map(int fd, __u64 size, void **map)
{
	void *p;
	int ret;

	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	ret = share_sync(fd, DMA_BUF_SYNC_START);
	if (ret) {
		munmap(p, size);
		return ret;
	}
	*map = p;
	return 0;
}

/* End CPU access and unmap; the error of ending the access, or 0. */
int share_unmap(int fd, void *map, __u64 size)
{
	int ret = share_sync(fd, DMA_BUF_SYNC_END);

	munmap(map, size);
	return ret;
}

/* Write @pattern into every byte of the dma-buf @fd through mmap. */
int share_fill(int fd, __u64 size, __u8 pattern)
{
	void *p;
	int ret;

	ret = share_map(fd, size, &p);
	if (ret)
		return ret;
	memset(p, pattern, size);
	return share_unmap(fd, p, size);
}

/* A new buffer like @buf, from @dev_fd, holding @buf->pattern. */
int share_alloc(const struct share_buf *buf, int dev_fd, int *fd)
{
	struct cmabuf_alloc_data d = {
		.size = buf->size,
		.fd_flags = O_RDWR | O_CLOEXEC,
		.flags = buf->strategy,
	};
	int ret;

	ret = dev_alloc(dev_fd, &d);
	if (ret) {
		msg_err("share: CMABUF_IOC_ALLOC of %llu bytes on %s: %s", d.size,
			buf->dev_path, strerror(-ret));
		return ret;
	}
	ret = share_fill(d.fd, d.alloc_size, buf->pattern);
	if (ret) {
		msg_err("share: writing the pattern through mmap: %s", strerror(-ret));
		close(d.fd);
		return ret;
	}
	*fd = d.fd;
	return 0;
}

/*
 * A buffer of @size bytes for a device (a frame, a framebuffer), from the
 * instance and with the strategy of @buf, holding @buf->pattern.
 */
int share_alloc_size(const struct share_buf *buf, __u64 size, int *fd)
{
	struct share_buf sized = *buf;

	sized.size = size;
	return share_alloc(&sized, buf->dev_fd, fd);
}

/* The instance's refused mappings (stats/unreachable_maps); 0 if unknown. */
__u64 share_unreachable_maps(const struct share_buf *buf)
{
	__u64 n;

	return dev_sysfs_u64(buf->dev_path, "stats/unreachable_maps", &n) ? 0 : n;
}

/* The instance's stats/live_buffers, 0 if it cannot be read. */
__u64 share_live_buffers(const struct share_buf *buf)
{
	__u64 n;

	return dev_sysfs_u64(buf->dev_path, "stats/live_buffers", &n) ? 0 : n;
}

/*
 * Why the mapping a device just asked for failed, into @why: cmabuf
 * refused it when unreachable_maps went up from @before (the device's DMA
 * mask is below the area), with the instances a 32-bit mask reaches.
 */
void share_explain_unreachable(const struct share_buf *buf, __u64 before,
			       char *why, size_t len)
{
	char paths[DEV_LIST_MAX][PATH_MAX], reach[DEV_LIST_MAX * 40];
	__u64 bits = 0, b;
	size_t off = 0;
	int i, n;

	reach[0] = '\0';
	dev_sysfs_u64(buf->dev_path, "dma_bits", &bits);
	n = dev_list(paths, DEV_LIST_MAX);
	for (i = 0; i < n && off < sizeof(reach); i++) {
		if (dev_sysfs_u64(paths[i], "dma_bits", &b) || !b || b > 32)
			continue;
		off += snprintf(reach + off, sizeof(reach) - off, "%s%s", off ? ", " : "",
				paths[i]);
	}
	share_why_unreachable(why, len, buf->dev_path, before,
			      share_unreachable_maps(buf), bits, reach);
}
