// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf_floor: what creating and closing any dma-buf costs on this
 * machine, beside cmabuf's prepared ALLOC and its close.
 *
 *   cmabuf_floor [--samples N] [--size BYTES] [DEVICE]
 *
 * Five paths, each timed back to back and paced (PACE_MS between calls,
 * as a benchmark's samples are, with untimed work between them): a
 * getppid(), the least any system call costs; the system dma-heap's 4 KiB
 * ALLOC and its close, the least any dma-buf costs; and cmabuf's prepared
 * ALLOC of --size (default 64 MiB) on DEVICE (default /dev/cmabuf-large,
 * where eight fit the prepare limits) and its close, which frees it.
 * Paced twice: asleep between calls (the CPU may go idle), and spinning
 * (it never does), which tells the cost of a call made cold from the cost
 * of the first call after idle. Prints one line per path and pacing: p50,
 * p99 and max in microseconds, and exits non-zero when a call failed.
 * Needs a kernel with the system heap.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/dma-heap.h>

#include "cmabuf_test_util.h"

#define PACE_MS		30
#define MAX_SAMPLES	1000

enum floor_pacing { BACK_TO_BACK, SLEEP, SPIN };

static const char *const floor_pacing_name[] = {
	[BACK_TO_BACK] = "back-to-back",
	[SLEEP] = "slept",
	[SPIN] = "spun",
};

struct floor_run {
	int dev;
	int heap;
	__u64 size;
	unsigned int samples;
	enum floor_pacing pacing;
	unsigned long long alloc_ns[MAX_SAMPLES];
	unsigned long long close_ns[MAX_SAMPLES];
};

static void floor_pause(const struct floor_run *r)
{
	unsigned long long end;

	if (r->pacing == SLEEP)
		usleep(PACE_MS * 1000);
	if (r->pacing != SPIN)
		return;
	end = cmabuf_now_ns() + PACE_MS * 1000000ULL;
	while (cmabuf_now_ns() < end)
		;
}

static int floor_cmp(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

static void floor_print(const char *path, const struct floor_run *r,
			unsigned long long *ns)
{
	unsigned int n = r->samples;

	qsort(ns, n, sizeof(*ns), floor_cmp);
	printf("%-24s %-12s %6u %10.1f %10.1f %10.1f\n", path,
	       floor_pacing_name[r->pacing], n, ns[n / 2] / 1e3,
	       ns[(n * 99) / 100] / 1e3, ns[n - 1] / 1e3);
}

/* One system call that does nothing: what entering the kernel costs. */
static void floor_syscall(struct floor_run *r)
{
	unsigned long long t;
	unsigned int i;

	for (i = 0; i < r->samples; i++) {
		floor_pause(r);
		t = cmabuf_now_ns();
		syscall(SYS_getppid);
		r->alloc_ns[i] = cmabuf_now_ns() - t;
	}
	floor_print("getppid", r, r->alloc_ns);
}

/* The system heap's 4 KiB buffers, allocated and closed one at a time. */
static int floor_heap(struct floor_run *r)
{
	unsigned long long t;
	unsigned int i;
	int buf, ret;

	for (i = 0; i < r->samples; i++) {
		floor_pause(r);
		t = cmabuf_now_ns();
		ret = heap_alloc_sized(r->heap, 4096, O_RDWR | O_CLOEXEC, 0, 0,
				       sizeof(struct dma_heap_allocation_data),
				       &buf);
		r->alloc_ns[i] = cmabuf_now_ns() - t;
		if (ret)
			return ret;
		floor_pause(r);
		t = cmabuf_now_ns();
		close(buf);
		r->close_ns[i] = cmabuf_now_ns() - t;
	}
	floor_print("system-heap-4k alloc", r, r->alloc_ns);
	floor_print("system-heap-4k close", r, r->close_ns);
	return 0;
}

static int floor_prepare(const struct floor_run *r, __u32 count)
{
	struct cmabuf_prepare p;
	__u32 flags = CMABUF_STRATEGY_AUTO | (count ? CMABUF_PREPARE_WAIT : 0);
	int ret;

	ret = cmabuf_prepare(r->dev, r->size, flags, count, 0, &p);
	if (!ret && p.ready < count)
		ret = ENODATA;
	return ret;
}

static int floor_alloc(struct floor_run *r, unsigned int i, int *buf)
{
	struct cmabuf_alloc_data d;
	unsigned long long t = cmabuf_now_ns();
	int ret;

	ret = cmabuf_alloc(r->dev, r->size, CMABUF_STRATEGY_AUTO, &d);
	r->alloc_ns[i] = cmabuf_now_ns() - t;
	*buf = d.fd;
	return ret;
}

static void floor_close(struct floor_run *r, unsigned int i, int buf)
{
	unsigned long long t = cmabuf_now_ns();

	close(buf);
	r->close_ns[i] = cmabuf_now_ns() - t;
}

/*
 * Back to back: as many samples prepared at once as the prepare limits
 * allow, then allocated, then closed, batch after batch. Paced: one
 * prepared, allocated and closed at a time.
 */
static int floor_prepared(struct floor_run *r)
{
	static int bufs[MAX_SAMPLES];
	unsigned int i, first, batch = r->samples;
	unsigned long long left;
	int ret = 0;

	if (r->pacing == BACK_TO_BACK) {
		for (first = 0; !ret && first < r->samples; first += batch) {
			batch = r->samples - first < batch ?
				r->samples - first : batch;
			while ((ret = floor_prepare(r, batch)) == ENOSPC &&
			       batch > 1)
				batch /= 2;
			for (i = first; !ret && i < first + batch; i++)
				ret = floor_alloc(r, i, &bufs[i]);
			for (i = first; !ret && i < first + batch; i++)
				floor_close(r, i, bufs[i]);
		}
	} else {
		for (i = 0, ret = 0; !ret && i < r->samples; i++) {
			ret = floor_prepare(r, 1);
			if (ret)
				break;
			floor_pause(r);
			ret = floor_alloc(r, i, &bufs[i]);
			if (ret)
				break;
			floor_pause(r);
			floor_close(r, i, bufs[i]);
			/* The free is back in CMA before the next sample. */
			ret = cmabuf_sysfs_wait(r->dev, "releasing_bytes", 0,
						5000, &left);
		}
	}
	floor_prepare(r, 0);
	if (ret)
		return ret;
	floor_print("cmabuf-prepared alloc", r, r->alloc_ns);
	floor_print("cmabuf-prepared close", r, r->close_ns);
	return 0;
}

int main(int argc, char **argv)
{
	static struct floor_run r = { .size = 64 << 20, .samples = 41 };
	const char *dev = "/dev/cmabuf-large";
	unsigned int pass;
	int i, ret = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--samples") && i + 1 < argc)
			r.samples = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--size") && i + 1 < argc)
			r.size = strtoull(argv[++i], NULL, 0);
		else if (argv[i][0] != '-')
			dev = argv[i];
		else
			break;
	}
	if (i < argc || !r.samples || r.samples > MAX_SAMPLES || !r.size) {
		fprintf(stderr, "usage: cmabuf_floor [--samples 1-%d] [--size BYTES] [DEVICE]\n",
			MAX_SAMPLES);
		return 2;
	}
	r.dev = open(dev, O_RDWR | O_CLOEXEC);
	r.heap = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);
	if (r.dev < 0 || r.heap < 0) {
		perror(r.dev < 0 ? dev : "/dev/dma_heap/system");
		return 1;
	}

	printf("%-24s %-12s %6s %10s %10s %10s\n", "path", "pacing", "n",
	       "p50 us", "p99 us", "max us");
	for (pass = BACK_TO_BACK; pass <= SPIN && !ret; pass++) {
		r.pacing = pass;
		floor_syscall(&r);
		ret = floor_heap(&r);
		if (!ret)
			ret = floor_prepared(&r);
	}
	if (ret)
		fprintf(stderr, "cmabuf_floor: %s\n", strerror(ret));
	return ret ? 1 : 0;
}
