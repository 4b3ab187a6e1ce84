// SPDX-License-Identifier: GPL-2.0
/*
 * One buffer's whole cycle, timed (cycle.h).
 */
#include <errno.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/dma-buf.h>

#include "clock.h"
#include "cycle.h"

static int cycle_sync(int fd, __u64 flags)
{
	struct dma_buf_sync sync = { .flags = flags | DMA_BUF_SYNC_RW };

	return ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync) ? -errno : 0;
}

/*
 * Write one word in every page. The mapping escapes to munmap() and the
 * stores cannot be optimised away.
 */
static void cycle_touch(unsigned char *map, __u64 size, __u32 page)
{
	__u64 off;

	for (off = 0; off < size; off += page)
		*(__u64 *)(map + off) = off | 1;
}

/**
 * cycle_run() - one timed cycle of a buffer of @size bytes
 * @alloc: allocates it
 * @arg: for @alloc
 * @size: bytes
 * @page: the kernel's page size: one word is written per page
 * @ns: out: each phase's time, and the whole cycle's
 * @failed: out, on failure: the call that failed ("mmap",
 *	"DMA_BUF_IOCTL_SYNC"), or NULL when @alloc did
 *
 * Whatever fails, the buffer is unmapped and closed.
 *
 * Return: 0 or -errno.
 */
int cycle_run(cycle_alloc_fn alloc, void *arg, __u64 size, __u32 page,
	      __u64 ns[CYCLE_PHASES], const char **failed)
{
	unsigned char *map;
	__u64 t[8] = { };
	int fd, ret;

	*failed = NULL;
	t[0] = clock_ns();
	ret = alloc(arg, size, &fd);
	t[1] = clock_ns();
	if (ret)
		return ret;
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	t[2] = clock_ns();
	if (map == MAP_FAILED) {
		ret = -errno;
		*failed = "mmap";
		goto close_buf;
	}
	ret = cycle_sync(fd, DMA_BUF_SYNC_START);
	t[3] = clock_ns();
	if (!ret)
		cycle_touch(map, size, page);
	t[4] = clock_ns();
	if (!ret)
		ret = cycle_sync(fd, DMA_BUF_SYNC_END);
	t[5] = clock_ns();
	if (ret)
		*failed = "DMA_BUF_IOCTL_SYNC";
	munmap(map, size);
	t[6] = clock_ns();
close_buf:
	close(fd);
	t[7] = clock_ns();
	if (ret)
		return ret;

	ns[CYCLE_ALLOC] = t[1] - t[0];
	ns[CYCLE_MMAP] = t[2] - t[1];
	ns[CYCLE_SYNC] = t[3] - t[2] + t[5] - t[4];
	ns[CYCLE_TOUCH] = t[4] - t[3];
	ns[CYCLE_MUNMAP] = t[6] - t[5];
	ns[CYCLE_CLOSE] = t[7] - t[6];
	ns[CYCLE_WHOLE] = t[7] - t[0];
	return 0;
}
