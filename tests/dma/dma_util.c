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
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/cmabuf.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>

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

/* CMABUF_IOC_SYNC of [@off, @off + @len) of @buf, through instance @dev. */
int cmabuf_range_sync(int dev, int buf, __u32 flags, __u64 off, __u64 len)
{
	struct cmabuf_sync sync = {
		.fd = buf,
		.flags = flags,
		.offset = off,
		.length = len,
	};

	return edu_ioctl(dev, CMABUF_IOC_SYNC, &sync);
}

/* Nanoseconds of CLOCK_MONOTONIC. */
unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/* The median of @n samples, which it sorts. */
unsigned long long median_ull(unsigned long long *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_ull);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* /dev/kmsg, positioned after the last record: only new ones are read. */
int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0 && lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Records of @fd since it was opened (or last read) that contain both @a
 * and @b; the text of the first is copied to @first.
 */
unsigned int kmsg_count(int fd, const char *a, const char *b, char *first,
			size_t len)
{
	unsigned int n = 0;
	char rec[2048];
	ssize_t got;

	if (first && len)
		first[0] = '\0';
	for (;;) {
		got = read(fd, rec, sizeof(rec) - 1);
		if (got < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on */
		if (got <= 0)
			break;
		rec[got] = '\0';
		if (!strstr(rec, a) || !strstr(rec, b))
			continue;
		if (!n++ && first && len)
			snprintf(first, len, "%s", rec);
	}
	return n;
}

/* Where tracefs is: its own mount, or debugfs's; "" when nowhere. */
static const char *trace_dir(void)
{
	if (!access("/sys/kernel/tracing/trace", W_OK))
		return "/sys/kernel/tracing";
	if (!access("/sys/kernel/debug/tracing/trace", W_OK))
		return "/sys/kernel/debug/tracing";
	return "";
}

/* Can the DMA API's events be traced here? */
bool trace_available(void)
{
	return *trace_dir();
}

/*
 * Has the kernel the DMA API's sync events (include/trace/events/dma.h:
 * 6.12 has them, Debian's 6.1 not)?
 */
bool trace_dma_events(void)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/events/dma/dma_sync_single_for_cpu",
		 trace_dir());
	return !access(path, F_OK);
}

static int trace_write(const char *file, const char *s)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", trace_dir(), file);
	return rel_write_str(path, s);
}

/*
 * Set the function tracer's filter to the functions of @list, one a line
 * ("" clears it). The file takes a write at a time as far as its first
 * name: write until all of @list is taken.
 */
static int trace_filter(const char *list)
{
	size_t len = strlen(list), done = 0;
	char path[256];
	ssize_t n = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/set_ftrace_filter", trace_dir());
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return errno;
	while (done < len && (n = write(fd, list + done, len - done)) > 0)
		done += n;
	close(fd);
	return done == len ? 0 : n < 0 ? errno : EIO;
}

/* Empty the trace buffer, as "echo > trace" does: by truncating it. */
static int trace_clear(void)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/trace", trace_dir());
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static const char * const trace_events[] = {
	"events/dma/dma_sync_single_for_cpu/enable",
	"events/dma/dma_sync_single_for_device/enable",
	"events/dma/dma_sync_sg_for_cpu/enable",
	"events/dma/dma_sync_sg_for_device/enable",
};

/* The DMA API's sync events of every device, in a cleared buffer. */
int trace_start(void)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; !ret && i < ARRAY_SIZE(trace_events); i++)
		ret = trace_write(trace_events[i], "1");
	if (!ret)
		ret = trace_clear();
	if (!ret)
		ret = trace_write("tracing_on", "1");
	return ret;
}

void trace_stop(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(trace_events); i++)
		trace_write(trace_events[i], "0");
	trace_write("current_tracer", "nop");
	trace_filter("");
	trace_clear();
}

/* Does tracefs file @file list @word (words split by spaces and lines)? */
static bool trace_file_has(const char *file, const char *word)
{
	char path[256], line[512], *tok, *save;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", trace_dir(), file);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		for (tok = strtok_r(line, " \t\n", &save); tok && !found;
		     tok = strtok_r(NULL, " \t\n", &save))
			found = !strcmp(tok, word);
	fclose(f);
	return found;
}

/*
 * Also trace calls of the architecture's cache maintenance for DMA,
 * arch_sync_dma_for_device() (clean) and arch_sync_dma_for_cpu()
 * (invalidate), which the direct mapping makes only for a device that
 * is not coherent, just before the DMA API's sync event. 0, or ENOTSUP
 * where the function tracer or those functions are not there.
 */
int trace_arch_start(void)
{
	const int absent = ENOTSUP;

	if (!trace_file_has("available_tracers", "function") ||
	    !trace_file_has("available_filter_functions", ARCH_CLEAN) ||
	    !trace_file_has("available_filter_functions", ARCH_INVAL))
		return absent;
	return trace_filter(ARCH_CLEAN "\n" ARCH_INVAL "\n") ?:
	       trace_write("current_tracer", "function") ?: trace_clear();
}

/* What was traced since trace_start(), cleared after. */
int trace_take(char *buf, size_t len)
{
	char path[256];
	size_t got = 0;
	ssize_t n = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/trace", trace_dir());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	while (got + 1 < len && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	buf[got] = '\0';
	close(fd);
	return trace_clear();
}

/* A line of a DMA sync event for one device, direction and size. */
struct trace_match {
	char head[160];
	char tail[64];
	unsigned long long size;
};

static void trace_match_init(struct trace_match *m, const char *event,
			     const char *dev, const char *dir,
			     unsigned long long size)
{
	snprintf(m->head, sizeof(m->head), " %s: %s dir=%s ", event, dev, dir);
	snprintf(m->tail, sizeof(m->tail), " size=%llu\n", size);
	m->size = size;
}

/* Is the line from @line to its newline @end one @m matches? */
static bool trace_match_line(const struct trace_match *m, const char *line,
			     const char *end)
{
	size_t tl = strlen(m->tail);
	const char *p = strstr(line, m->head);

	if (!p || p > end)
		return false;
	return !m->size || !strncmp(end - tl + 1, m->tail, tl);
}

/*
 * Lines of @trace of @event ("dma_sync_single_for_cpu") for device @dev in
 * direction @dir ("FROM_DEVICE"), of @size bytes, or of any size for 0
 * (the only choice for a dma_sync_sg_* event, which lists its segments).
 */
unsigned int trace_count(const char *trace, const char *event,
			 const char *dev, const char *dir,
			 unsigned long long size)
{
	const char *line = trace, *end;
	struct trace_match m;
	unsigned int n = 0;

	trace_match_init(&m, event, dev, dir, size);
	for (; *line; line = end + 1) {
		end = strchr(line, '\n');
		if (!end)
			break;
		if (trace_match_line(&m, line, end))
			n++;
	}
	return n;
}

/* The task ("comm-pid") of a trace line, into @task; false for none. */
static bool trace_task(const char *line, const char *end, char *task,
		       size_t len)
{
	size_t n;

	while (line < end && *line == ' ')
		line++;
	n = strcspn(line, " ");
	if (!n || line + n > end || n >= len || *line == '#')
		return false;
	memcpy(task, line, n);
	task[n] = '\0';
	return true;
}

/* Lines counted as trace_count() counts them, of task @pid's only. */
unsigned int trace_count_pid(const char *trace, int pid, const char *event,
			     const char *dev, const char *dir,
			     unsigned long long size)
{
	char task[64], want[24];
	const char *line = trace, *end;
	struct trace_match m;
	unsigned int n = 0;
	size_t tl, wl;

	trace_match_init(&m, event, dev, dir, size);
	wl = snprintf(want, sizeof(want), "-%d", pid);
	for (; *line; line = end + 1) {
		end = strchr(line, '\n');
		if (!end)
			break;
		if (!trace_match_line(&m, line, end) ||
		    !trace_task(line, end, task, sizeof(task)))
			continue;
		tl = strlen(task);
		if (tl >= wl && !strcmp(task + tl - wl, want))
			n++;
	}
	return n;
}

/*
 * Lines counted as trace_count() counts them, each of whose task's line
 * before it is a call of @func (trace_arch_start()): DMA API syncs that
 * reached the architecture's cache maintenance.
 */
unsigned int trace_count_arch(const char *trace, const char *func,
			      const char *event, const char *dev,
			      const char *dir, unsigned long long size)
{
	char call[96], task[64], other[64];
	const char *line = trace, *end, *p, *q, *qend;
	struct trace_match m;
	unsigned int n = 0;

	trace_match_init(&m, event, dev, dir, size);
	snprintf(call, sizeof(call), ": %s <-", func);
	for (; *line; line = end + 1) {
		end = strchr(line, '\n');
		if (!end)
			break;
		if (!trace_match_line(&m, line, end) ||
		    !trace_task(line, end, task, sizeof(task)))
			continue;
		/* The task's previous line, walking back. */
		for (qend = line - 1; qend > trace; qend = q - 1) {
			for (q = qend; q > trace && q[-1] != '\n'; q--)
				;
			if (!trace_task(q, qend, other, sizeof(other)) ||
			    strcmp(task, other))
				continue;
			p = strstr(q, call);
			if (p && p < qend)
				n++;
			break;
		}
	}
	return n;
}

/* The name of the device behind misc device @misc ("cmabuf-general"). */
int misc_parent_name(const char *misc, char *name, size_t len)
{
	char path[256], target[256];
	const char *base;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/class/misc/%s/device", misc);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return errno;
	target[n] = '\0';
	base = strrchr(target, '/');
	snprintf(name, len, "%s", base ? base + 1 : target);
	return 0;
}
