// SPDX-License-Identifier: GPL-2.0
/*
 * cmabufctl share: allocate a buffer, write a pattern into it and hand it
 * to each importer, which prints what it checked. Test-bed machinery: only
 * in the cmabufctl built with TESTS=1, never the installed one.
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
#include "json.h"
#include "msg.h"
#include "parse.h"
#include "share.h"

/* Every importer, in the order they run. */
static const struct share_importer *const importers[] = {
	&share_vgem,
	&share_importer,
};

#define NR_IMPORTERS	ARRAY_SIZE(importers)

/**
 * struct share_log - what the running importer checked, for --json
 * @json: --json: record instead of printing
 * @what: one line per check
 * @ok: per check: 1 passed, 0 failed, -1 skipped
 * @n: checks recorded
 */
static struct share_log {
	bool json;
	char *what[SHARE_LOG_MAX];
	int ok[SHARE_LOG_MAX];
	unsigned int n;
} share_log;

static void share_report(int ok, const char *fmt, va_list ap)
{
	char *line;

	if (!share_log.json) {
		printf("  %-4s ", ok > 0 ? "ok" : ok ? "skip" : "FAIL");
		vprintf(fmt, ap);
		printf("\n");
		return;
	}
	if (share_log.n == SHARE_LOG_MAX || vasprintf(&line, fmt, ap) < 0)
		return;
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
static void share_log_json(struct json *j)
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
		json_close(j);
		free(share_log.what[i]);
	}
	json_close(j);
	share_log.n = 0;
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
		"                       [--device DEV] [--json]\n"
		"\n"
		"A diagnostic: allocate a buffer of SIZE (default 1M), write a pattern\n"
		"into it through mmap, hand it to each importer and print what was\n"
		"checked for each. An importer that is not there is skipped, with what\n"
		"it needs, unless --importer names it: then it is an error.\n"
		"\nimporters:\n");
	for (i = 0; i < NR_IMPORTERS; i++)
		fprintf(fp, "  %-8s %s\n", importers[i]->name, importers[i]->help);
	fprintf(fp,
		"\n"
		"vgem needs the vgem DRM driver (CONFIG_DRM_VGEM, 'modprobe vgem'). The\n"
		"importer needs the test module cmabuf_importer.ko and a cmabufctl built\n"
		"with it, both from 'make TESTS=1'; its run checks every step of a device\n"
		"driver's use (attach, map, vmap, CPU access, unmap, detach), the DMA\n"
		"segment, the pattern both ways, and that a buffer it holds after our fd\n"
		"is closed keeps its CMA pages until released. Comparing the DMA address\n"
		"with the physical one needs CAP_SYS_RAWIO; the CMA counters need debugfs.\n"
		"\n"
		"  -i, --importer NAME  only this importer (default: all)\n"
		"  -s, --strategy S     auto (default), compound, frozen or legacy\n"
		"  -d, --device DEV     a path, a label or 'default' (default /dev/cmabuf)\n"
		"  -j, --json           one JSON document instead of text\n");
}

static int share_parse(int argc, char **argv, struct share_buf *buf,
		       const char **importer)
{
	static const struct option opts[] = {
		{ "importer", required_argument, NULL, 'i' },
		{ "strategy", required_argument, NULL, 's' },
		{ "device", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *device = NULL;
	int c, s, ret;

	while ((c = getopt_long(argc, argv, "i:s:d:jh", opts, NULL)) != -1) {
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
		case 'j':
			share_log.json = true;
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
			msg_err("share: bad size '%s': %s (e.g. 4K, 1M, 1MiB)", argv[optind],
				ret ? parse_strerror(ret) : "must not be zero");
			return EXIT_USAGE;
		}
	}
	dev_resolve(device, buf->dev_path, sizeof(buf->dev_path));
	return 0;
}

static void share_json_result(struct json *j, const struct share_importer *imp,
			      const struct share_result *res, const char *status)
{
	json_object(j, NULL);
	json_str(j, "name", imp->name);
	json_str(j, "status", status);
	json_u64(j, "passed", res->passed);
	json_u64(j, "failed", res->failed);
	if (res->why[0])
		json_str(j, "why", res->why);
	else
		json_null(j, "why");
	share_log_json(j);
	json_close(j);
}

/*
 * Run one importer and report it: a summary line, or its object in @j.
 * Return: 0 when every check passed, 1 when one failed or a named importer
 * is not there, -ENODEV when an importer the user did not name is not
 * there (skipped).
 */
static int share_one(const struct share_importer *imp,
		     const struct share_buf *buf, bool named, struct json *j)
{
	struct share_result res = { 0 };
	int ret;

	if (!j) {
		printf("%s:\n", imp->name);
		fflush(stdout);
	}
	ret = imp->run(buf, &res);
	if (ret == -ENODEV && !named) {
		if (j) {
			share_json_result(j, imp, &res, "skipped");
		} else {
			share_skip("%s", res.why);
			printf("%s: skipped, not available\n", imp->name);
		}
		return ret;
	}
	if (ret < 0) {
		fflush(stdout);
		msg_err("share: %s: %s", imp->name,
			res.why[0] ? res.why : strerror(-ret));
	}
	if (j)
		share_json_result(j, imp, &res, ret < 0 ? "error" :
				  res.failed ? "failed" : "passed");
	else
		printf("%s: %u checks passed, %u failed\n", imp->name, res.passed,
		       res.failed);
	return ret < 0 || res.failed;
}

static void share_json_begin(struct json *j, const struct share_buf *buf)
{
	json_begin(j, stdout);
	json_str(j, "device", buf->dev_path);
	json_u64(j, "size_bytes", buf->size);
	json_str(j, "strategy", strategy_name(buf->strategy));
	json_u64(j, "pattern", buf->pattern);
	json_array(j, "importers");
}

static int share_run(struct share_buf *buf, const char *importer)
{
	bool named = strcmp(importer, "all");
	unsigned int i, ran = 0;
	char sz[FMT_LEN];
	int status = 0, ret;
	struct json j;

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
	if (share_log.json)
		share_json_begin(&j, buf);
	else
		printf("buffer: fd %d, %s, strategy %s, pattern 0x%02x, from %s\n",
		       buf->fd, fmt_size(buf->size, sz, sizeof(sz)),
		       strategy_name(buf->strategy), buf->pattern, buf->dev_path);
	for (i = 0; i < NR_IMPORTERS; i++) {
		if (named && strcmp(importer, importers[i]->name))
			continue;
		ret = share_one(importers[i], buf, named,
				share_log.json ? &j : NULL);
		if (ret == -ENODEV)
			continue;
		ran++;
		status |= ret;
	}
	if (share_log.json)
		json_end(&j);
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
