// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf-<S>-prepared: before every sample, untimed and after --prepare,
 * the path asks its own file of the instance to have the sample's buffers
 * ready (CMABUF_IOC_PREPARE with CMABUF_PREPARE_WAIT, for the workload's
 * size, strategy S and number of buffers), so that the sample's ALLOCs,
 * the same calls on the run's file as cmabuf-<S> makes, take them ready.
 * After the sample, untimed again, it gives them back. What it times is a
 * prepared ALLOC, never to be quoted as ALLOC: its name and its results'
 * "prepared" say so, and the instance's stats/prepare_hits, read around
 * every sample, says how many of its allocations took a ready buffer.
 *
 * The instance refills a want in the background as soon as a buffer is
 * taken, and keeps the sample's closed buffers for it. So after the sample
 * the path first waits for the want to be stocked again, which leaves
 * none of it being made, then sets its count to 0, which gives every
 * ready buffer back to CMA before the ioctl returns: the next sample, of
 * any path, neither runs beside this one's background work nor finds its
 * buffers ready.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testbench.h"
#include "msg.h"
#include "parse.h"

/* Longer than any sample: no want may expire before its sample ends. */
#define BENCH_PREPARED_TIMEOUT_MS	600000

/* PREPARE @count of the sample's buffers on @p's file; 0 or -errno. */
static int prepared_ioctl(const struct bench_path *p, const struct bench_ctx *c,
			  __u32 count, bool wait, __u32 *ready)
{
	struct cmabuf_prepare prep = {
		.size = c->wl->size,
		.flags = p->strategy | (wait ? CMABUF_PREPARE_WAIT : 0),
		.count = count,
		.timeout_ms = BENCH_PREPARED_TIMEOUT_MS,
	};
	int ret;

	ret = dev_ioctl(p->fds[0], CMABUF_IOC_PREPARE, &prep);
	if (!ret && ready)
		*ready = prep.ready;
	return ret;
}

/* The instance's prepare_hits (all files, all strategies); 0 or -errno. */
static int prepared_hits(const struct bench_ctx *c, __u64 *hits)
{
	char buf[32];
	int ret;

	ret = dev_sysfs_read(c->dev_path, "stats/prepare_hits", buf, sizeof(buf));
	if (!ret)
		*hits = strtoull(buf, NULL, 10);
	return ret;
}

/*
 * Open the path's own file and ask for nothing (count 0), which tells
 * whether the driver prepares and the kernel has the strategy. Return: 0,
 * or -errno after a message: -ENOTTY or -EOPNOTSUPP when it cannot, which
 * skips the path.
 */
int bench_prepared_setup(struct bench_path *p, struct bench_ctx *c)
{
	int fd, ret;

	fd = dev_open(c->dev_path);
	if (fd < 0)
		return fd;
	p->fds[0] = fd;
	ret = prepared_ioctl(p, c, 0, false, NULL);
	if (ret == -ENOTTY)
		msg_warn("%s: %s prepares no buffers (no CMABUF_IOC_PREPARE): a newer cmabuf.ko does",
			 p->name, c->dev_path);
	else if (ret == -EOPNOTSUPP)
		msg_warn("%s: strategy %s is not supported by this kernel",
			 p->name, strategy_name(p->strategy));
	else if (ret)
		msg_err("%s: CMABUF_IOC_PREPARE of %llu bytes on %s: %s", p->name,
			c->wl->size, c->dev_path, strerror(-ret));
	return ret;
}

void bench_prepared_teardown(struct bench_path *p)
{
	if (p->fds[0] >= 0)
		close(p->fds[0]);
	p->fds[0] = -1;
}

/**
 * bench_prepared_fill() - have a sample's buffers ready, untimed
 * @p: a prepared path
 * @c: the run
 * @count: buffers the sample allocates
 *
 * Return: 0 once @count are ready, then the sample must end with
 * bench_prepared_empty(); else nothing is left wanted and the PREPARE's
 * -errno is the sample's failure (-ENOSPC over a limit, -ENOMEM or -EBUSY
 * as the background allocation failed), or -ENODATA when the want went
 * away before it was stocked. Prints nothing.
 */
int bench_prepared_fill(struct bench_path *p, const struct bench_ctx *c,
			__u32 count)
{
	__u32 ready = 0;
	int ret;

	ret = prepared_ioctl(p, c, count, true, &ready);
	if (!ret && ready < count)
		ret = -ENODATA;
	if (ret) {
		prepared_ioctl(p, c, 0, false, NULL);
		return ret;
	}
	if (prepared_hits(c, &p->hits_mark))
		p->hits_unknown = true;
	return 0;
}

/**
 * bench_prepared_empty() - give a sample's buffers back, untimed
 * @p: a prepared path whose bench_prepared_fill() succeeded
 * @c: the run
 * @count: as for bench_prepared_fill()
 *
 * Counts the allocations since bench_prepared_fill() that took a ready
 * buffer, waits until the want is stocked again (its failure leaves
 * nothing being made either), then gives it back.
 *
 * Return: 0, or the -errno of the PREPARE that gives it back. Prints
 * nothing.
 */
int bench_prepared_empty(struct bench_path *p, const struct bench_ctx *c,
			 __u32 count)
{
	__u64 hits;

	if (!prepared_hits(c, &hits))
		p->prepare_hits += hits - p->hits_mark;
	else
		p->hits_unknown = true;
	prepared_ioctl(p, c, count, true, NULL);
	return prepared_ioctl(p, c, 0, false, NULL);
}
