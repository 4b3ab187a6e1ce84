// SPDX-License-Identifier: GPL-2.0
/*
 * The test library's cmabuf helpers (tests/lib): the device's ioctls, its
 * sysfs directory, CMA's debugfs and sysfs counters, page patterns,
 * fdinfo, dma-buf syncs and dma-heap allocations, children without
 * privileges. Nothing here asserts: every helper returns what it saw, and
 * the tests decide.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>

#include <linux/dma-buf.h>
#include <linux/dma-heap.h>

#include "cmabuf_test_util.h"
#include "reliability_util.h"

#define CMA_SYSFS	"/sys/kernel/mm/cma"

/* The errno of an ioctl, 0 when it succeeded. */
int cmabuf_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? errno : 0;
}

/* Command @nr with a structure of @size bytes: an older or newer caller. */
int cmabuf_ioctl_sized(int fd, unsigned int nr, void *arg, size_t size)
{
	return cmabuf_ioctl(fd, _IOC(_IOC_READ | _IOC_WRITE, CMABUF_IOC_MAGIC,
				     nr, size), arg);
}

/*
 * Drop every uid and gid to nobody, and with them every capability.
 * Return: 0 or the errno.
 */
int cmabuf_become_nobody(void)
{
	if (setgroups(0, NULL) ||
	    setresgid(CMABUF_NOBODY, CMABUF_NOBODY, CMABUF_NOBODY) ||
	    setresuid(CMABUF_NOBODY, CMABUF_NOBODY, CMABUF_NOBODY))
		return errno;
	return 0;
}

/*
 * What @act(@arg) returns, below 255, in a child that called @drop(@how)
 * first (gave up a privilege); -1 when the child could not be started or
 * @drop failed.
 */
int cmabuf_in_child(int (*drop)(int how), int how,
		    int (*act)(const void *arg), const void *arg)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (drop(how))
			_exit(255);
		_exit(act(arg));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) == 255)
		return -1;
	return WEXITSTATUS(status);
}

static int cmabuf_drop_to_nobody(int how __attribute__((unused)))
{
	return cmabuf_become_nobody();
}

static int cmabuf_as_nobody(int (*act)(const void *arg), const void *arg)
{
	return cmabuf_in_child(cmabuf_drop_to_nobody, 0, act, arg);
}

struct cmabuf_nobody_ioctl {
	int fd;
	unsigned long cmd;
	void *arg;
};

static int cmabuf_nobody_ioctl(const void *arg)
{
	const struct cmabuf_nobody_ioctl *io = arg;

	return cmabuf_ioctl(io->fd, io->cmd, io->arg);
}

/*
 * The errno an ioctl gets from a child that dropped every uid and gid to
 * nobody, and with them every capability, on the fd it inherited. Returns
 * -1 when the child could not be started or could not drop privileges.
 */
int cmabuf_ioctl_unprivileged(int fd, unsigned long cmd, void *arg)
{
	struct cmabuf_nobody_ioctl io = { .fd = fd, .cmd = cmd, .arg = arg };

	return cmabuf_as_nobody(cmabuf_nobody_ioctl, &io);
}

struct cmabuf_nobody_open {
	const char *path;
	int flags;
};

static int cmabuf_nobody_open(const void *arg)
{
	const struct cmabuf_nobody_open *o = arg;
	int fd = open(o->path, o->flags | O_CLOEXEC);

	return fd < 0 ? errno : 0;
}

/* The errno of open(@path, @flags) as nobody without capabilities, or 0. */
int cmabuf_open_unprivileged(const char *path, int flags)
{
	struct cmabuf_nobody_open o = { .path = path, .flags = flags };

	return cmabuf_as_nobody(cmabuf_nobody_open, &o);
}

/* Read all of @path into @buf, NUL-terminated. Return: 0 or an errno. */
int cmabuf_read_file(const char *path, char *buf, size_t size)
{
	size_t got = 0;
	ssize_t n = 0;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	while (got + 1 < size && (n = read(fd, buf + got, size - 1 - got)) > 0)
		got += n;
	if (n < 0)
		err = errno;
	buf[got] = '\0';
	close(fd);
	return err;
}

int cmabuf_get_info(int dev, struct cmabuf_info *info, char *name,
		    size_t name_size)
{
	memset(info, 0, sizeof(*info));
	info->area_name_ptr = (uintptr_t)name;
	info->area_name_size = name_size;
	return cmabuf_ioctl(dev, CMABUF_IOC_INFO, info);
}

int cmabuf_alloc(int dev, __u64 size, __u32 strategy,
		 struct cmabuf_alloc_data *data)
{
	memset(data, 0, sizeof(*data));
	data->size = size;
	data->fd_flags = O_RDWR | O_CLOEXEC;
	data->flags = strategy;
	return cmabuf_ioctl(dev, CMABUF_IOC_ALLOC, data);
}

int cmabuf_phys(int dev, int buf, struct cmabuf_phys *phys)
{
	memset(phys, 0, sizeof(*phys));
	phys->fd = buf;
	return cmabuf_ioctl(dev, CMABUF_IOC_PHYS, phys);
}

bool cmabuf_strategy_supported(const struct cmabuf_info *info, __u32 strategy)
{
	return strategy < CMABUF_STRATEGY_COUNT &&
	       (info->strategies & CMABUF_STRATEGY_BIT(strategy));
}

/* Whether COMPOUND takes @size bytes: a power of two within the orders. */
bool cmabuf_compound_fits(const struct cmabuf_info *info, __u64 size)
{
	__u64 pages = (size + info->page_size - 1) / info->page_size;
	unsigned int order = __builtin_ctzll(pages);

	return cmabuf_strategy_supported(info, CMABUF_STRATEGY_COMPOUND) &&
	       !(pages & (pages - 1)) && order >= info->min_compound_order &&
	       order <= info->max_compound_order;
}

/*
 * What AUTO must pick for @size bytes at the driver's alignment, by the
 * rule in the uapi header, in an area quiet enough for COMPOUND to find
 * its aligned range.
 */
__u32 cmabuf_auto_strategy(const struct cmabuf_info *info, __u64 size)
{
	if (cmabuf_compound_fits(info, size))
		return CMABUF_STRATEGY_COMPOUND;
	if (cmabuf_strategy_supported(info, CMABUF_STRATEGY_FROZEN))
		return CMABUF_STRATEGY_FROZEN;
	if (cmabuf_strategy_supported(info, CMABUF_STRATEGY_LEGACY))
		return CMABUF_STRATEGY_LEGACY;
	return CMABUF_STRATEGY_DMA;
}

const char *cmabuf_strategy_name(__u32 strategy)
{
	static const char * const names[CMABUF_STRATEGY_COUNT] = {
		[CMABUF_STRATEGY_AUTO] = "AUTO",
		[CMABUF_STRATEGY_COMPOUND] = "COMPOUND",
		[CMABUF_STRATEGY_FROZEN] = "FROZEN",
		[CMABUF_STRATEGY_LEGACY] = "LEGACY",
		[CMABUF_STRATEGY_DMA] = "DMA",
	};

	return strategy < CMABUF_STRATEGY_COUNT ? names[strategy] : "?";
}

/*
 * The strategies the running kernel can back: the frozen ones need its
 * frozen-page CMA API, which /proc/kallsyms lists when it exists, DMA its
 * dma_alloc_pages(). The test-bed kernels export whatever they have to
 * modules. A module built for a kernel that exports less (the stock
 * builds, tests/suites/stock.sh) offers less: CMABUF_TEST_STRATEGIES (a
 * bit mask) then says what. An instance offers DMA only where it knows
 * where its area lies: see cmabuf_instance_strategies().
 */
int cmabuf_kernel_strategies(__u32 *strategies)
{
	const char *want = getenv("CMABUF_TEST_STRATEGIES");
	char line[512], sym[256], *end;
	FILE *f;

	if (want && *want) {
		errno = 0;
		*strategies = strtoul(want, &end, 0);
		return errno || *end ? -EINVAL : 0;
	}
	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return -errno;
	*strategies = CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_AUTO) |
		      CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_LEGACY);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %*s %255s", sym) != 1)
			continue;
		if (!strcmp(sym, "cma_alloc_frozen"))
			*strategies |= CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_FROZEN);
		else if (!strcmp(sym, "cma_alloc_frozen_compound"))
			*strategies |= CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_COMPOUND);
		else if (!strcmp(sym, "dma_alloc_pages"))
			*strategies |= CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_DMA);
	}
	fclose(f);
	return 0;
}

/*
 * What an instance whose INFO is @info must offer on a kernel that backs
 * @kernel: DMA only where the instance knows where its area lies (INFO's
 * dma_bits; the default area made from cma= does not tell), since it
 * checks every buffer the DMA API gives against that.
 */
__u32 cmabuf_instance_strategies(const struct cmabuf_info *info,
				 __u32 kernel)
{
	if (!info->dma_bits)
		kernel &= ~CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_DMA);
	return kernel;
}

/* Like rel_read_ull(), but a negative errno. */
static int read_ull(const char *path, unsigned long long *val)
{
	return -rel_read_ull(path, val);
}

/*
 * A file of debugfs cma/<area>/, mounting debugfs when nobody did; without
 * CMA debugfs what rel_cma_read() reads instead, or -EOPNOTSUPP.
 */
int cmabuf_cma_read(const char *area, const char *file,
		    unsigned long long *val)
{
	rel_debugfs_mount();
	return -rel_cma_read(area, file, val);
}

/* Pages the area handed out and did not get back, from its sysfs stats. */
static int cma_held_pages(const char *area, unsigned long long *held)
{
	unsigned long long allocated, released;
	char path[256];
	int ret;

	snprintf(path, sizeof(path), CMA_SYSFS "/%s/alloc_pages_success", area);
	ret = read_ull(path, &allocated);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), CMA_SYSFS "/%s/release_pages_success",
		 area);
	ret = read_ull(path, &released);
	if (ret)
		return ret;
	*held = allocated - released;
	return 0;
}

/* A file of sysfs mm/cma/<area>/, such as alloc_pages_success. */
int cmabuf_cma_sysfs_read(const char *area, const char *file,
			  unsigned long long *val)
{
	char path[256];

	snprintf(path, sizeof(path), CMA_SYSFS "/%s/%s", area, file);
	return read_ull(path, val);
}

/*
 * A counter of the instance whose device is @path (/dev/<name>), from
 * sysfs misc/<name>/<group>/<counter>: group "stats" for the total,
 * cmabuf_stat_group() for one strategy's.
 */
int cmabuf_stat_read(const char *path, const char *group, const char *counter,
		     unsigned long long *val)
{
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char file[256];

	snprintf(file, sizeof(file), "/sys/class/misc/%s/%s/%s", name, group,
		 counter);
	return read_ull(file, val);
}

/* The sysfs group of one strategy's counters; NULL for AUTO. */
const char *cmabuf_stat_group(__u32 strategy)
{
	switch (strategy) {
	case CMABUF_STRATEGY_COMPOUND:
		return "stats_compound";
	case CMABUF_STRATEGY_FROZEN:
		return "stats_frozen";
	case CMABUF_STRATEGY_LEGACY:
		return "stats_legacy";
	case CMABUF_STRATEGY_DMA:
		return "stats_dma";
	default:
		return NULL;
	}
}

/*
 * Wait, up to 10 s, until the instance behind the open device @dev has
 * released every freed buffer (its releasing_bytes is 0): frees go back
 * to the area in the background. Return: 0, or an errno.
 */
int cmabuf_settle(int dev)
{
	unsigned long long bytes = 0;
	char path[128];
	struct stat st;
	int i, ret;

	if (fstat(dev, &st))
		return errno;
	snprintf(path, sizeof(path), "/sys/dev/char/%u:%u/releasing_bytes",
		 major(st.st_rdev), minor(st.st_rdev));
	for (i = 0; i < 10000; i++) {
		ret = read_ull(path, &bytes);
		if (ret == -ENOENT)
			return 0;	/* a driver without deferred frees */
		if (ret || !bytes)
			return -ret;
		usleep(1000);
	}
	ret = ETIMEDOUT;
	return ret;
}

/* The path of @file in the sysfs directory of the instance behind @dev. */
int cmabuf_sysfs_path(int dev, const char *file, char *path, size_t size)
{
	struct stat st;

	if (fstat(dev, &st))
		return errno;
	snprintf(path, size, "/sys/dev/char/%u:%u/%s", major(st.st_rdev),
		 minor(st.st_rdev), file);
	return 0;
}

/*
 * A number from the sysfs directory of the instance behind @dev: a file
 * such as "prepared_bytes", or "stats/prepare_hits". Return: 0 or an errno.
 */
int cmabuf_sysfs_read(int dev, const char *file, unsigned long long *val)
{
	char path[256];
	int ret;

	ret = cmabuf_sysfs_path(dev, file, path, sizeof(path));
	if (ret)
		return ret;
	return -read_ull(path, val);
}

/* The text of a sysfs file of the instance behind @dev, into @buf. */
int cmabuf_sysfs_read_str(int dev, const char *file, char *buf, size_t size)
{
	char path[256];
	int ret;

	ret = cmabuf_sysfs_path(dev, file, path, sizeof(path));
	return ret ?: cmabuf_read_file(path, buf, size);
}

/* Write @val to the file @path in one write(): 0 or the errno. */
int cmabuf_write_file(const char *path, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd, ret;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	n = write(fd, val, len);
	ret = n < 0 ? errno : (size_t)n == len ? 0 : EIO;
	close(fd);
	return ret;
}

/*
 * Write @val to a sysfs file of the instance behind @dev, in one write().
 * Return: 0, or the errno of the open or the write.
 */
int cmabuf_sysfs_write(int dev, const char *file, const char *val)
{
	char path[256];
	int ret;

	ret = cmabuf_sysfs_path(dev, file, path, sizeof(path));
	return ret ?: cmabuf_write_file(path, val);
}

/*
 * Wait up to @timeout_ms until @file of the instance behind @dev reads
 * @want. Return: 0, ETIMEDOUT or an errno; @last holds the last value
 * read.
 */
int cmabuf_sysfs_wait(int dev, const char *file, unsigned long long want,
		      unsigned int timeout_ms, unsigned long long *last)
{
	unsigned long long end = cmabuf_now_ms() + timeout_ms;
	int ret;

	for (;;) {
		ret = cmabuf_sysfs_read(dev, file, last);
		if (ret || *last == want)
			return ret;
		if (cmabuf_now_ms() >= end)
			break;
		usleep(1000);
	}
	ret = ETIMEDOUT;
	return ret;
}

/* CLOCK_MONOTONIC, in ms and in ns. */
unsigned long long cmabuf_now_ms(void)
{
	return cmabuf_now_ns() / 1000000;
}

unsigned long long cmabuf_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* CMABUF_IOC_PREPARE with the fields a test sets; @p holds the result. */
int cmabuf_prepare(int dev, __u64 size, __u32 flags, __u32 count,
		   __u32 timeout_ms, struct cmabuf_prepare *p)
{
	memset(p, 0, sizeof(*p));
	p->size = size;
	p->flags = flags;
	p->count = count;
	p->timeout_ms = timeout_ms;
	return cmabuf_ioctl(dev, CMABUF_IOC_PREPARE, p);
}

int cmabuf_counters_read(int dev, const char *area, struct cmabuf_counters *c)
{
	struct cmabuf_info info;
	int ret;

	memset(c, 0, sizeof(*c));
	ret = cmabuf_settle(dev);
	if (ret)
		return ret;
	ret = cmabuf_get_info(dev, &info, NULL, 0);
	if (ret)
		return -ret;
	c->live_buffers = info.live_buffers;
	c->live_bytes = info.live_bytes;
	if (info.flags & CMABUF_INFO_AREA_STATS)
		c->free_bytes = info.free_bytes;
	ret = cmabuf_cma_read(area, "used", &c->cma_used_pages);
	if (ret && ret != -EOPNOTSUPP)
		return ret;
	c->used_known = !ret;
	ret = cma_held_pages(area, &c->cma_held_pages);
	c->held_known = !ret;
	return ret == -ENOENT ? 0 : ret;
}

void *cmabuf_map(int fd, size_t len, off_t offset)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset);
}

/* Offset of the first non-zero byte of @buf, @len when there is none. */
size_t cmabuf_first_nonzero(const void *buf, size_t len)
{
	const unsigned long long *word = buf;
	const unsigned char *byte = buf;
	size_t i, j, words = len / sizeof(*word);

	/* One branch per 512 bytes: OR the words of a block together. */
	for (i = 0; i + 64 <= words; i += 64) {
		unsigned long long acc = 0;

		for (j = 0; j < 64; j++)
			acc |= word[i + j];
		if (acc)
			break;
	}
	for (i *= sizeof(*word); i < len; i++)
		if (byte[i])
			return i;
	return len;
}

/* The two words a page carries: distinct per page and per @seed. */
static unsigned long long page_mark(size_t page, unsigned long long seed,
				    int which)
{
	return (seed * 0x9e3779b97f4a7c15ULL) ^ ((unsigned long long)page << 1) ^
	       which;
}

/*
 * Mark the first and the last word of every page of @buf, so that a reader
 * can tell each page from every other without writing all of it.
 */
void cmabuf_fill_pages(void *buf, size_t len, unsigned long long seed)
{
	size_t page_size = getpagesize(), words = page_size / 8, p;
	unsigned long long *word = buf;

	for (p = 0; p < len / page_size; p++) {
		word[p * words] = page_mark(p, seed, 0);
		word[p * words + words - 1] = page_mark(p, seed, 1);
	}
}

/* Offset of the first mark cmabuf_fill_pages() did not leave, or @len. */
size_t cmabuf_check_pages(const void *buf, size_t len, unsigned long long seed)
{
	size_t page_size = getpagesize(), words = page_size / 8, p;
	const unsigned long long *word = buf;

	for (p = 0; p < len / page_size; p++) {
		if (word[p * words] != page_mark(p, seed, 0))
			return p * page_size;
		if (word[p * words + words - 1] != page_mark(p, seed, 1))
			return (p + 1) * page_size - 8;
	}
	return len;
}

/* The value of field @key in /proc/self/fdinfo/@fd, without its newline. */
int cmabuf_fdinfo(int fd, const char *key, char *val, size_t size)
{
	size_t key_len = strlen(key);
	char path[64], line[256];
	int ret = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, key_len) || line[key_len] != ':')
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(val, size, "%s", line + key_len + 1 +
			 strspn(line + key_len + 1, " \t"));
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

/* ioctl() that returns 0 or the errno, tried again after EINTR or EAGAIN. */
int cmabuf_ioctl_retry(int fd, unsigned long cmd, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, cmd, arg);
	} while (ret < 0 && (errno == EINTR || errno == EAGAIN));
	return ret < 0 ? errno : 0;
}

/* DMA_BUF_IOCTL_SYNC with @flags, read and write: 0 or the errno. */
int dmabuf_sync(int buf, __u64 flags)
{
	struct dma_buf_sync sync = { .flags = flags | DMA_BUF_SYNC_RW };

	return cmabuf_ioctl_retry(buf, DMA_BUF_IOCTL_SYNC, &sync);
}

/*
 * DMA_HEAP_IOCTL_ALLOC with a structure of @size bytes (the real one is
 * 24): shorter ones lack the last fields, longer ones end in zeros.
 * Return: 0 and the new fd in @buf, or the errno.
 */
int heap_alloc_sized(int heap, __u64 len, __u32 fd_flags, __u64 heap_flags,
		     __u32 fd_in, size_t size, int *buf)
{
	struct {
		struct dma_heap_allocation_data data;
		__u64 tail[2];
	} arg = {
		.data = {
			.len = len,
			.fd = fd_in,
			.fd_flags = fd_flags,
			.heap_flags = heap_flags,
		},
	};
	unsigned long cmd;
	int ret;

	if (size > sizeof(arg)) {
		errno = E2BIG;
		return errno;
	}
	cmd = _IOC(_IOC_READ | _IOC_WRITE, _IOC_TYPE(DMA_HEAP_IOCTL_ALLOC),
		   _IOC_NR(DMA_HEAP_IOCTL_ALLOC), size);
	ret = cmabuf_ioctl_retry(heap, cmd, &arg);
	if (!ret)
		*buf = arg.data.fd;
	return ret;
}

/* A buffer of @size from /dev/dma_heap/@name, O_RDWR: 0 or the errno. */
int heap_alloc_named(const char *name, __u64 size, int *buf)
{
	char path[128];
	int fd, ret;

	snprintf(path, sizeof(path), "/dev/dma_heap/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	ret = heap_alloc_sized(fd, size, O_RDWR | O_CLOEXEC, 0, 0,
			       sizeof(struct dma_heap_allocation_data), buf);
	close(fd);
	return ret;
}
