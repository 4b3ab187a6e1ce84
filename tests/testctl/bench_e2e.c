// SPDX-License-Identifier: GPL-2.0
/*
 * End-to-end paths: a buffer's whole cycle (cycle_run(), cycle.c), its
 * dma-buf from cmabuf's ALLOC ioctl or the CMA heap. A "-4k" path maps
 * the same buffer with 4 KiB page table entries only, so the two show
 * what 2 MiB entries are worth: with
 * THP disabled for the process (PR_SET_THP_DISABLE, for that path's cycle
 * alone) the kernel never calls cmabuf's huge_fault. MADV_NOHUGEPAGE would
 * do it per mapping, but kernels without CONFIG_ADVISE_SYSCALLS (the test
 * bed's) have no madvise(). A "-prepared" path has its buffer made ready
 * before each cycle (CMABUF_IOC_PREPARE, untimed): its ALLOC takes it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "testbench.h"
#include "cycle.h"
#include "heap.h"
#include "msg.h"
#include "parse.h"

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

/* The path's allocation, as cycle_run() calls it. */
struct e2e_call {
	struct bench_path *p;
	struct bench_ctx *c;
};

static int e2e_alloc(void *arg, __u64 size, int *fd)
{
	struct e2e_call *call = arg;

	return call->p->ops->alloc(call->p, call->c, size, fd);
}

static int e2e_cycle_timed(struct bench_path *p, struct bench_ctx *c,
			   unsigned int iter)
{
	static const enum bench_phase phase[CYCLE_PHASES] = {
		[CYCLE_ALLOC] = PHASE_ALLOC,
		[CYCLE_MMAP] = PHASE_MMAP,
		[CYCLE_SYNC] = PHASE_SYNC,
		[CYCLE_TOUCH] = PHASE_TOUCH,
		[CYCLE_MUNMAP] = PHASE_MUNMAP,
		[CYCLE_CLOSE] = PHASE_CLOSE,
		[CYCLE_WHOLE] = PHASE_CYCLE,
	};
	struct e2e_call call = { p, c };
	__u64 ns[CYCLE_PHASES];
	const char *failed;
	int i, ret;

	ret = cycle_run(e2e_alloc, &call, c->wl->size, c->page_size, ns,
			&failed);
	if (ret && !failed)
		e2e_alloc_explain(p, c, ret);
	else if (ret)
		msg_err("%s: %s: %s", p->name, failed, strerror(-ret));
	if (ret)
		return ret;
	for (i = 0; i < CYCLE_PHASES; i++)
		bench_record(p, phase[i], iter, ns[i]);
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
	return dev_alloc_fd(c->dev_fd, size, p->strategy, fd);
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
