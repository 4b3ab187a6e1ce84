// SPDX-License-Identifier: GPL-2.0
/*
 * cmabufctl share: allocate a buffer, write a pattern into it and hand it
 * to each importer, which prints what it checked.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/dma-buf.h>

#include "cmd.h"
#include "dev.h"
#include "fmt.h"
#include "msg.h"
#include "parse.h"
#include "share.h"

/* Every importer, in the order they run. */
static const struct share_importer *const importers[] = {
	&share_vgem,
	&share_importer,
};

#define NR_IMPORTERS	ARRAY_SIZE(importers)

bool share_check(struct share_result *res, bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("  %-4s ", ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (ok)
		res->passed++;
	else
		res->failed++;
	return ok;
}

void share_skip(const char *fmt, ...)
{
	va_list ap;

	printf("  %-4s ", "skip");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
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
		msg_err("share: CMABUF_IOC_ALLOC of %llu bytes on %s: %s", buf->size,
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
 * Child side: allocate, report the fd number, wait until the parent has
 * taken its own reference (the "go" pipe closes), exit.
 */
static void share_child(const struct share_buf *buf, int report, int go)
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
static int share_take(pid_t pid, int report, int *fd)
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
int share_alloc_in_child(const struct share_buf *buf, int *fd)
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
		share_child(buf, report[1], go[0]);
	}
	/* A child that dies before reporting must end the read with EOF. */
	close(report[1]);
	report[1] = -1;
	ret = share_take(pid, report[0], fd);
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

static void share_usage(FILE *fp)
{
	size_t i;

	fprintf(fp,
		"usage: cmabufctl share [SIZE] [--importer NAME|all] [--strategy S]\n"
		"                       [--device DEV]\n"
		"\n"
		"Allocate a buffer of SIZE (default 1M), write a pattern into it through\n"
		"mmap, hand it to each importer and print what was checked for each.\n"
		"An importer that is not there (driver not loaded) is skipped, unless\n"
		"--importer names it: then it is an error.\n"
		"\nimporters:\n");
	for (i = 0; i < NR_IMPORTERS; i++)
		fprintf(fp, "  %-8s %s\n", importers[i]->name, importers[i]->help);
	fprintf(fp,
		"\n"
		"The importer module's run checks every step of a device driver's use\n"
		"(attach, map, vmap, CPU access, unmap, detach), the DMA segment, the\n"
		"pattern both ways, and that a buffer it holds after our fd is closed\n"
		"keeps its CMA pages until released. Comparing the DMA address with the\n"
		"physical one needs CAP_SYS_RAWIO; the CMA counters need debugfs.\n"
		"\n"
		"  -i, --importer NAME  only this importer (default: all)\n"
		"  -s, --strategy S     auto (default), compound, frozen or legacy\n"
		"  -d, --device DEV     a path, a label or 'default' (default /dev/cmabuf)\n");
}

static int share_parse(int argc, char **argv, struct share_buf *buf,
		       const char **importer)
{
	static const struct option opts[] = {
		{ "importer", required_argument, NULL, 'i' },
		{ "strategy", required_argument, NULL, 's' },
		{ "device", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *device = NULL;
	int c, s, ret;

	while ((c = getopt_long(argc, argv, "i:s:d:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			*importer = optarg;
			break;
		case 's':
			if (parse_strategy(optarg, &s) || s == PARSE_STRATEGY_ALL) {
				msg_err("share: bad strategy '%s' (auto, compound, frozen or legacy)",
					optarg);
				return EXIT_USAGE;
			}
			buf->strategy = s;
			break;
		case 'd':
			device = optarg;
			break;
		case 'h':
			share_usage(stdout);
			return -1;
		default:
			share_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc - 1) {
		msg_err("share: unexpected argument '%s'", argv[optind + 1]);
		return EXIT_USAGE;
	}
	if (optind == argc - 1) {
		ret = parse_size(argv[optind], &buf->size);
		if (ret || !buf->size) {
			msg_err("share: bad size '%s': %s (e.g. 4K, 1M)", argv[optind],
				ret ? parse_strerror(ret) : "must not be zero");
			return EXIT_USAGE;
		}
	}
	dev_resolve(device, buf->dev_path, sizeof(buf->dev_path));
	return 0;
}

/*
 * Run one importer and print its summary line. Return: 0 when every check
 * passed, 1 when one failed or a named importer is not there, -ENODEV when
 * an importer the user did not name is not there (skipped).
 */
static int share_one(const struct share_importer *imp,
		     const struct share_buf *buf, bool named)
{
	struct share_result res = { 0 };
	int ret;

	printf("%s:\n", imp->name);
	fflush(stdout);
	ret = imp->run(buf, &res);
	if (ret == -ENODEV && !named) {
		share_skip("%s", res.why);
		printf("%s: skipped, not available\n", imp->name);
		return ret;
	}
	if (ret < 0) {
		fflush(stdout);
		msg_err("share: %s: %s", imp->name,
			res.why[0] ? res.why : strerror(-ret));
	}
	printf("%s: %u checks passed, %u failed\n", imp->name, res.passed,
	       res.failed);
	return ret < 0 || res.failed;
}

static int share_run(struct share_buf *buf, const char *importer)
{
	bool named = strcmp(importer, "all");
	unsigned int i, ran = 0;
	char sz[FMT_LEN];
	int status = 0, ret;

	for (i = 0; i < NR_IMPORTERS; i++) {
		if (!strcmp(importer, "all") || !strcmp(importer, importers[i]->name))
			break;
	}
	if (i == NR_IMPORTERS) {
		msg_err("share: unknown importer '%s' (try 'cmabufctl share --help')",
			importer);
		return EXIT_USAGE;
	}
	buf->dev_fd = dev_open(buf->dev_path);
	if (buf->dev_fd < 0)
		return 1;
	if (share_alloc(buf, buf->dev_fd, &buf->fd)) {
		close(buf->dev_fd);
		return 1;
	}
	printf("buffer: fd %d, %s, strategy %s, pattern 0x%02x, from %s\n", buf->fd,
	       fmt_size(buf->size, sz, sizeof(sz)), strategy_name(buf->strategy),
	       buf->pattern, buf->dev_path);
	for (i = 0; i < NR_IMPORTERS; i++) {
		if (named && strcmp(importer, importers[i]->name))
			continue;
		ret = share_one(importers[i], buf, named);
		if (ret == -ENODEV)
			continue;
		ran++;
		status |= ret;
	}
	if (!ran) {
		fflush(stdout);
		msg_err("share: no importer is available (try 'cmabufctl share --help')");
		status = 1;
	}
	close(buf->fd);
	close(buf->dev_fd);
	return status;
}

int cmd_share(int argc, char **argv)
{
	struct share_buf buf = {
		.size = 1ULL << 20,
		.strategy = CMABUF_STRATEGY_AUTO,
		.pattern = 0x5a,
	};
	const char *importer = "all";
	int ret;

	ret = share_parse(argc, argv, &buf, &importer);
	if (ret)
		return ret < 0 ? 0 : ret;
	return share_run(&buf, importer);
}
