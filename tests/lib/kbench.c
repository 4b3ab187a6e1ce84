// SPDX-License-Identifier: GPL-2.0
/*
 * The client of the driver's debugfs benchmark (kbench.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/cmabuf.h>

#include "kbench.h"

static const char * const kbench_strategies[CMABUF_STRATEGY_COUNT] = {
	[CMABUF_STRATEGY_AUTO] = "auto",
	[CMABUF_STRATEGY_COMPOUND] = "compound",
	[CMABUF_STRATEGY_FROZEN] = "frozen",
	[CMABUF_STRATEGY_LEGACY] = "legacy",
	[CMABUF_STRATEGY_DMA] = "dma",
};

/*
 * The bench file of the instance behind @dev ("/dev/cmabuf-general",
 * "cmabuf-general"). Return: 0, or -ENAMETOOLONG.
 */
int kbench_path(const char *dev, char *buf, size_t len)
{
	const char *name = strrchr(dev, '/');
	int n;

	n = snprintf(buf, len, "%s/%s/bench", KBENCH_DEBUGFS,
		     name ? name + 1 : dev);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/*
 * Write @line to the bench file @path, then read the report into @report
 * (NUL-terminated). Return: 0 or the negative errno of the write (the
 * run's) or of the open or read.
 */
int kbench_request(const char *path, const char *line, char *report,
		   size_t len)
{
	size_t got = 0;
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, line, strlen(line));
	if (n < 0) {
		ret = -errno;
		goto close_fd;
	}
	while (got + 1 < len && (n = read(fd, report + got, len - 1 - got)) > 0)
		got += n;
	if (n < 0)
		ret = -errno;
	report[got] = '\0';
close_fd:
	close(fd);
	return ret;
}

static int kbench_phase(const char *line, const char *phase,
			struct kbench_stats *st)
{
	size_t n = strlen(phase);
	unsigned long long v[6];

	if (strncmp(line, phase, n) || line[n] != ' ')
		return 0;
	if (sscanf(line + n,
		   " samples=%llu min_ns=%llu median_ns=%llu max_ns=%llu mean_ns=%llu total_ns=%llu",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) != 6)
		return 0;
	st->samples = v[0];
	st->min_ns = v[1];
	st->median_ns = v[2];
	st->max_ns = v[3];
	st->mean_ns = v[4];
	st->total_ns = v[5];
	return 1;
}

/* Fill the output fields of @b from a report. Return: 0 or -EPROTO. */
int kbench_parse(const char *report, struct kbench *b)
{
	char name[16];
	const char *line;
	unsigned int cpus, s;
	int seen = 0;

	for (line = report; line && *line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (sscanf(line, "strategy %15s", name) == 1) {
			for (s = 0; s < CMABUF_STRATEGY_COUNT; s++)
				if (!strcmp(name, kbench_strategies[s]))
					b->strategy_used = s;
			seen |= 1;
		} else if (sscanf(line, "zero_cpus %u", &cpus) == 1) {
			b->zero_cpus = cpus;
		} else {
			seen |= kbench_phase(line, "alloc", &b->alloc) << 1;
			seen |= kbench_phase(line, "free", &b->free) << 2;
			kbench_phase(line, "zero_one", &b->zero_one);
			kbench_phase(line, "zero_all", &b->zero_all);
			kbench_phase(line, "clear", &b->clearing);
		}
	}
	return seen == 7 ? 0 : -EPROTO;
}

/*
 * Run @b on the instance behind @dev. Return: 0, or the negative errno of
 * the run (EINVAL, EOPNOTSUPP, ENOMEM, EINTR, ENODEV), of the bench file
 * (ENOENT without debugfs or a module built with it, EACCES without root), or
 * -EPROTO for a report that cannot be read.
 */
int kbench_run(const char *dev, struct kbench *b)
{
	char path[PATH_MAX], line[256], report[2048];
	int ret;

	ret = kbench_path(dev, path, sizeof(path));
	if (ret)
		return ret;
	if (b->strategy >= CMABUF_STRATEGY_COUNT)
		return -EINVAL;
	snprintf(line, sizeof(line),
		 "pages=%llu blocks=%u iterations=%u strategy=%s align=%u zero=%d%s\n",
		 (unsigned long long)b->pages, b->blocks ? b->blocks : 1,
		 b->iterations, kbench_strategies[b->strategy], b->align,
		 b->zero ? 1 : 0, b->clear ? " clear=1" : "");
	ret = kbench_request(path, line, report, sizeof(report));
	if (ret)
		return ret;
	return kbench_parse(report, b);
}
