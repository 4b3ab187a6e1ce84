// SPDX-License-Identifier: GPL-2.0
/*
 * In-kernel paths: cmabuf's debugfs bench file, which times each allocator
 * call in the kernel and the clearing an ALLOC adds to it (and, for the
 * zero workloads, clearing on one CPU and on all), and the CMA debugfs
 * files alloc and free, whose writes are timed from here. Nothing is
 * mapped.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testbench.h"
#include "clock.h"
#include "kbench.h"
#include "msg.h"
#include "parse.h"

static void kernel_stats(struct stats *st, const struct kbench_stats *k)
{
	st->n = k->samples;
	st->min = k->min_ns;
	st->median = k->median_ns;
	st->max = k->max_ns;
	st->mean = k->mean_ns;
	st->total = k->total_ns;
}

static void kernel_explain(const struct bench_path *p, const struct bench_ctx *c,
			   int err)
{
	switch (err) {
	case -EPERM:
	case -EACCES:
		msg_err("%s: the bench file in %s is root's (run as root)",
			p->name, KBENCH_DEBUGFS);
		break;
	case -ENOENT:
		msg_err("%s: no bench file for %s in %s (debugfs not mounted, or a module built without it: CMABUF_BENCH=1)",
			p->name, c->dev_path, KBENCH_DEBUGFS);
		break;
	case -EOPNOTSUPP:
		msg_err("%s: strategy %s is not supported by this kernel", p->name,
			strategy_name(p->strategy));
		break;
	case -ENOMEM:
		msg_err("%s: area %s of %s has no room for %u x %llu pages",
			p->name, c->dev.area, c->dev_path, c->wl->blocks,
			c->wl->size / c->page_size);
		break;
	default:
		msg_err("%s: %s/.../bench: %s", p->name, KBENCH_DEBUGFS,
			strerror(-err));
	}
}

/*
 * One iteration; with @zero, clearing on one CPU and on all timed too;
 * with @clear, each allocation cleared as ALLOC clears it, and "alloc+clear"
 * recorded: the allocations and their clearing, the buffers as ALLOC hands
 * them out (the page allocator clears some strategies' pages in the call,
 * under init_on_alloc, and ALLOC adds nothing to those).
 */
static int cmabuf_kernel_iter(struct bench_path *p, struct bench_ctx *c,
			      unsigned int iter, bool zero, bool clear)
{
	struct kbench b = {
		.pages = c->wl->size / c->page_size,
		.blocks = c->wl->blocks,
		.iterations = 1,
		.strategy = p->strategy,
		.zero = zero,
		.clear = clear,
	};
	struct stats st;
	int ret;

	ret = kbench_run(c->dev_path, &b);
	if (ret == -EINVAL && clear) {
		/* A module from before clear=1: the rest without alloc+clear. */
		b.clear = 0;
		ret = kbench_run(c->dev_path, &b);
		if (!ret) {
			msg_warn("%s: this module's bench file does not time the clearing ALLOC adds (clear=1): no alloc+clear",
				 p->name);
			p->phases &= ~BIT(PHASE_CLEARED);
			clear = false;
		}
	}
	if (ret) {
		kernel_explain(p, c, ret);
		return ret;
	}
	bench_record(p, PHASE_ALLOC, iter, b.alloc.total_ns);
	bench_record(p, PHASE_FREE, iter, b.free.total_ns);
	if (clear)
		bench_record(p, PHASE_CLEARED, iter,
			     b.alloc.total_ns + b.clearing.total_ns);
	if (zero) {
		bench_record(p, PHASE_ZERO_ONE, iter, b.zero_one.total_ns);
		bench_record(p, PHASE_ZERO_ALL, iter, b.zero_all.total_ns);
	}
	if (c->wl->blocks > 1) {
		kernel_stats(&st, &b.alloc);
		bench_record_blocks(p, PHASE_ALLOC, iter, &st);
		kernel_stats(&st, &b.free);
		bench_record_blocks(p, PHASE_FREE, iter, &st);
	}
	return 0;
}

static int cmabuf_kernel_run(struct bench_path *p, struct bench_ctx *c,
			     unsigned int iter)
{
	return cmabuf_kernel_iter(p, c, iter, c->wl->zero,
				  p->phases & BIT(PHASE_CLEARED));
}

const struct bench_path_ops bench_cmabuf_kernel_ops = {
	.run = cmabuf_kernel_run,
};

/*
 * cmabuf-limit: beside an end-to-end workload's paths, iteration by
 * iteration, the parts of an ALLOC's limit (the allocation without
 * clearing, the clearing on every CPU), so that they drift with the
 * machine as the ALLOCs do. Root's, where debugfs is: else skipped.
 */
static int cmabuf_limit_setup(struct bench_path *p, struct bench_ctx *c)
{
	char path[PATH_MAX];
	int ret;

	ret = kbench_path(c->dev_path, path, sizeof(path));
	if (!ret && access(path, W_OK))
		ret = -errno;
	return ret;
}

static int cmabuf_limit_run(struct bench_path *p, struct bench_ctx *c,
			    unsigned int iter)
{
	return cmabuf_kernel_iter(p, c, iter, true, false);
}

const struct bench_path_ops bench_cmabuf_limit_ops = {
	.setup = cmabuf_limit_setup,
	.run = cmabuf_limit_run,
};

/* The peer: CMA's own debugfs files, the test bed's build only. */
static int debugfs_open(struct bench_path *p, const char *file)
{
	char path[PATH_MAX + 8];
	int fd, err;

	snprintf(path, sizeof(path), "%s/%s", p->target, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	err = errno;
	if (err == ENOENT)
		msg_err("%s: %s not found (is debugfs mounted on /sys/kernel/debug, CONFIG_CMA_DEBUGFS set?)",
			p->name, path);
	else if (err == EACCES || err == EPERM)
		msg_err("%s: %s: permission denied (run as root)", p->name, path);
	else
		msg_err("%s: %s: %s", p->name, path, strerror(err));
	return -err;
}

static int cma_debugfs_setup(struct bench_path *p, struct bench_ctx *c)
{
	int fd;

	snprintf(p->target, sizeof(p->target), "%s/%s", CMA_DEBUGFS, c->dev.area);
	fd = debugfs_open(p, "alloc");
	if (fd < 0)
		return fd;
	p->fds[0] = fd;
	fd = debugfs_open(p, "free");
	if (fd < 0)
		return fd;
	p->fds[1] = fd;
	return 0;
}

/* Write a page count into alloc or free; the time it took, or 0 on error. */
static __u64 debugfs_write(int fd, const char *count, size_t len, int *err)
{
	__u64 t0 = clock_ns();

	if (write(fd, count, len) != (ssize_t)len) {
		*err = errno ? -errno : -EIO;
		return 0;
	}
	return clock_ns() - t0;
}

static int debugfs_record(struct bench_path *p, unsigned int iter,
			  enum bench_phase phase, const __u64 *t, __u32 n)
{
	struct stats st;
	int ret;

	ret = stats_compute(t, n, &st);
	if (ret)
		return ret;
	bench_record(p, phase, iter, st.total);
	if (n > 1)
		bench_record_blocks(p, phase, iter, &st);
	return 0;
}

static int cma_debugfs_run(struct bench_path *p, struct bench_ctx *c,
			   unsigned int iter)
{
	__u32 i, n = c->wl->blocks;
	__u64 pages = c->wl->size / c->page_size;
	char count[24], rest[24];
	__u64 *t_alloc, *t_free;
	int len, err = 0;

	t_alloc = calloc(2 * (size_t)n, sizeof(*t_alloc));
	if (!t_alloc)
		return -ENOMEM;
	t_free = t_alloc + n;
	len = snprintf(count, sizeof(count), "%llu\n", pages);
	for (i = 0; i < n && !err; i++)
		t_alloc[i] = debugfs_write(p->fds[0], count, len, &err);
	if (err) {
		/* Give back the blocks that were allocated before the failure. */
		snprintf(rest, sizeof(rest), "%llu\n", pages * (i - 1));
		if (i > 1 && write(p->fds[1], rest, strlen(rest)) < 0)
			msg_warn("%s: could not free %u blocks: %s", p->name, i - 1,
				 strerror(errno));
		msg_err("%s: writing %llu to %s/alloc: %s", p->name, pages,
			p->target, strerror(-err));
		goto out;
	}
	for (i = 0; i < n && !err; i++)
		t_free[i] = debugfs_write(p->fds[1], count, len, &err);
	if (err) {
		msg_err("%s: writing %llu to %s/free: %s", p->name, pages, p->target,
			strerror(-err));
		goto out;
	}
	err = debugfs_record(p, iter, PHASE_ALLOC, t_alloc, n);
	if (!err)
		err = debugfs_record(p, iter, PHASE_FREE, t_free, n);
out:
	free(t_alloc);
	return err;
}

static void cma_debugfs_teardown(struct bench_path *p)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (p->fds[i] >= 0)
			close(p->fds[i]);
		p->fds[i] = -1;
	}
}

const struct bench_path_ops bench_cma_debugfs_ops = {
	.setup = cma_debugfs_setup,
	.run = cma_debugfs_run,
	.teardown = cma_debugfs_teardown,
};
