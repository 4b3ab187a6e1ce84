// SPDX-License-Identifier: GPL-2.0
/*
 * End-to-end paths, timed from userspace with CLOCK_MONOTONIC: allocate a
 * dma-buf (cmabuf ALLOC ioctl or the CMA heap), mmap it, write one word in
 * every page, munmap it, close it. The close drops the last reference and
 * so frees the buffer. A "-4k" path maps the same buffer with 4 KiB page
 * table entries only, so the two show what 2 MiB entries are worth: with
 * THP disabled for the process (PR_SET_THP_DISABLE, for that path's cycle
 * alone) the kernel never calls cmabuf's huge_fault. MADV_NOHUGEPAGE would
 * do it per mapping, but kernels without CONFIG_ADVISE_SYSCALLS (the test
 * bed's) have no madvise(). A "-prepared" path has its buffer made ready
 * before each cycle (CMABUF_IOC_PREPARE, untimed): its ALLOC takes it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <linux/dma-buf.h>

#include "bench.h"
#include "clock.h"
#ifdef CMABUFCTL_TESTS
#include "heap.h"
#endif
#include "msg.h"
#include "parse.h"

static int e2e_sync(int fd, __u64 flags)
{
	struct dma_buf_sync sync = { .flags = flags | DMA_BUF_SYNC_RW };

	return ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync) ? -errno : 0;
}

/*
 * Write one word in every page. The mapping escapes to munmap() and the
 * stores cannot be optimised away.
 */
static void e2e_touch(unsigned char *map, __u64 size, __u32 page)
{
	__u64 off;

	for (off = 0; off < size; off += page)
		*(__u64 *)(map + off) = off | 1;
}

/* Why an allocation of the workload's size failed, in one line. */
static void e2e_alloc_explain(const struct bench_path *p, const struct bench_ctx *c,
			      int err)
{
	if (err == -EOPNOTSUPP)
		msg_err("%s: strategy %s is not supported by this kernel", p->name,
			strategy_name(p->strategy));
	else if (p->ops != &bench_cmabuf_e2e_ops)	/* the CMA heap */
		msg_err("%s: DMA_HEAP_IOCTL_ALLOC of %llu bytes on %s: %s", p->name,
			c->wl->size, p->target, strerror(-err));
	else
		msg_err("%s: CMABUF_IOC_ALLOC of %llu bytes on %s: %s", p->name,
			c->wl->size, c->dev_path, strerror(-err));
}

static int e2e_cycle_timed(struct bench_path *p, struct bench_ctx *c,
			   unsigned int iter)
{
	__u64 size = c->wl->size, t[8] = { };
	unsigned char *map;
	int fd, ret;

	t[0] = clock_ns();
	ret = p->ops->alloc(p, c, size, &fd);
	t[1] = clock_ns();
	if (ret) {
		e2e_alloc_explain(p, c, ret);
		return ret;
	}
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	t[2] = clock_ns();
	if (map == MAP_FAILED) {
		ret = -errno;
		msg_err("%s: mmap: %s", p->name, strerror(-ret));
		goto close_buf;
	}
	/*
	 * The stores inside a CPU access bracket, timed apart: the bracket is
	 * cache maintenance where the exporter's device is not coherent.
	 */
	ret = e2e_sync(fd, DMA_BUF_SYNC_START);
	t[3] = clock_ns();
	if (!ret)
		e2e_touch(map, size, c->page_size);
	t[4] = clock_ns();
	if (!ret)
		ret = e2e_sync(fd, DMA_BUF_SYNC_END);
	t[5] = clock_ns();
	if (ret)
		msg_err("%s: DMA_BUF_IOCTL_SYNC: %s", p->name, strerror(-ret));
	munmap(map, size);
	t[6] = clock_ns();
close_buf:
	close(fd);
	t[7] = clock_ns();
	if (ret)
		return ret;

	bench_record(p, PHASE_ALLOC, iter, t[1] - t[0]);
	bench_record(p, PHASE_MMAP, iter, t[2] - t[1]);
	bench_record(p, PHASE_SYNC, iter, t[3] - t[2] + t[5] - t[4]);
	bench_record(p, PHASE_TOUCH, iter, t[4] - t[3]);
	bench_record(p, PHASE_MUNMAP, iter, t[6] - t[5]);
	bench_record(p, PHASE_CLOSE, iter, t[7] - t[6]);
	bench_record(p, PHASE_CYCLE, iter, t[7] - t[0]);
	return 0;
}

/* THP off (4 KiB entries) or back on for this process; 0 or -errno. */
static int e2e_small_pages(struct bench_path *p, unsigned long off)
{
	int ret;

	if (!prctl(PR_SET_THP_DISABLE, off, 0, 0, 0))
		return 0;
	ret = -errno;
	msg_err("%s: prctl(PR_SET_THP_DISABLE, %lu): %s", p->name, off,
		strerror(-ret));
	return ret;
}

/*
 * A prepared path's cycle: its buffer made ready before it and given back
 * after it, outside every phase (bench_prepared.c).
 */
static int e2e_cycle_prepared(struct bench_path *p, struct bench_ctx *c,
			      unsigned int iter)
{
	int ret, err;

	ret = bench_prepared_fill(p, c, 1);
	if (ret) {
		msg_err("%s: CMABUF_IOC_PREPARE of %llu bytes on %s, before iteration %u: %s",
			p->name, c->wl->size, c->dev_path, iter, strerror(-ret));
		return ret;
	}
	ret = e2e_cycle_timed(p, c, iter);
	err = bench_prepared_empty(p, c, 1);
	if (err)
		msg_err("%s: CMABUF_IOC_PREPARE giving the buffer back on %s: %s",
			p->name, c->dev_path, strerror(-err));
	return ret ? ret : err;
}

/*
 * One cycle; a -4k path's with THP off around it, a prepared path's with
 * its buffer made ready before it, both outside every phase.
 */
static int e2e_cycle(struct bench_path *p, struct bench_ctx *c,
		     unsigned int iter)
{
	int ret, err;

	if (p->prepared)
		return e2e_cycle_prepared(p, c, iter);
	if (!p->small_pages)
		return e2e_cycle_timed(p, c, iter);
	ret = e2e_small_pages(p, 1);
	if (ret)
		return ret;
	ret = e2e_cycle_timed(p, c, iter);
	err = e2e_small_pages(p, 0);
	return ret ? ret : err;
}

static int cmabuf_e2e_alloc(struct bench_path *p, struct bench_ctx *c,
			    __u64 size, int *fd)
{
	struct cmabuf_alloc_data d = {
		.size = size,
		.fd_flags = O_RDWR | O_CLOEXEC,
		.flags = p->strategy,
	};
	int ret;

	ret = dev_alloc(c->dev_fd, &d);
	if (!ret)
		*fd = d.fd;
	return ret;
}

/* A prepared path has a file of its own to prepare on. */
static int cmabuf_e2e_setup(struct bench_path *p, struct bench_ctx *c)
{
	return p->prepared ? bench_prepared_setup(p, c) : 0;
}

const struct bench_path_ops bench_cmabuf_e2e_ops = {
	.setup = cmabuf_e2e_setup,
	.run = e2e_cycle,
	.teardown = bench_prepared_teardown,
	.alloc = cmabuf_e2e_alloc,
};

#ifdef CMABUFCTL_TESTS
/* The peer: the upstream CMA dma-heap, the test bed's build only. */
static int cma_heap_setup(struct bench_path *p, struct bench_ctx *c)
{
	char name[NAME_MAX + 1];
	int fd;

	fd = heap_open(c->heap, c->dev.area, name, sizeof(name));
	if (fd < 0)
		return fd;
	p->fds[0] = fd;
	snprintf(p->target, sizeof(p->target), "%s/%s", HEAP_DIR, name);
	return 0;
}

static int cma_heap_alloc(struct bench_path *p, struct bench_ctx *c,
			  __u64 size, int *fd)
{
	return heap_alloc(p->fds[0], size, fd);
}

static void cma_heap_teardown(struct bench_path *p)
{
	if (p->fds[0] >= 0)
		close(p->fds[0]);
	p->fds[0] = -1;
}

const struct bench_path_ops bench_cma_heap_ops = {
	.setup = cma_heap_setup,
	.run = e2e_cycle,
	.teardown = cma_heap_teardown,
	.alloc = cma_heap_alloc,
};
#endif
