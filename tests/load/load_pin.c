// SPDX-License-Identifier: GPL-2.0
/*
 * Pages that do not move. A page a pipe holds after vmsplice() has a
 * reference migration cannot account for: an allocation whose range holds
 * one finds it busy until the pipe is read. A buffer registered with
 * io_uring is pinned for good (FOLL_LONGTERM), and the kernel first
 * migrates its pages out of CMA, which CmaFree and pagemap show.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <linux/io_uring.h>

#include "load.h"

#define PIPE_BYTES	(1024 * 1024)
#define PM_PRESENT	BIT_ULL(63)
#define PM_PFN_MASK	(BIT_ULL(55) - 1)

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Pages of [@p, @p + @len) that are in some CMA area now. */
static __u64 pages_in_cma(const struct load_sys *s, unsigned char *p,
			  __u64 len)
{
	__u64 ps = s->page_size, n = 0, e, i;
	int fd, area;

	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	for (i = 0; i < len / ps; i++) {
		if (pread(fd, &e, sizeof(e), ((unsigned long)p / ps + i) * sizeof(e)) !=
		    sizeof(e) || !(e & PM_PRESENT))
			continue;
		sys_where(s, e & PM_PFN_MASK, NULL, &area);
		n += area >= 0;
	}
	close(fd);
	return n;
}

/*
 * Touch @lt->bytes of new memory (before the fill, so that it lands in
 * CMA) and register it with io_uring. What io_uring refused (a kernel
 * without it) is in @lt->err, for the record. Return: 0, or -errno when
 * the memory could not be had or the machine read.
 */
int pin_longterm(struct load_longterm *lt, struct load_sys *s)
{
	struct io_uring_params params;
	struct iovec iov;
	unsigned char *p;
	__u64 i;

	lt->ring = -1;
	p = mmap(NULL, lt->bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	for (i = 0; i < lt->bytes; i += s->page_size)
		p[i] = 1;
	if (sys_read(s))
		return -EIO;
	lt->in_cma_before = pages_in_cma(s, p, lt->bytes);
	lt->cma_free_before = s->cma_free;
	memset(&params, 0, sizeof(params));
	lt->ring = syscall(__NR_io_uring_setup, 4, &params);
	if (lt->ring < 0) {
		lt->err = -errno;
		return 0;
	}
	iov.iov_base = p;
	iov.iov_len = lt->bytes;
	if (syscall(__NR_io_uring_register, lt->ring, IORING_REGISTER_BUFFERS,
		    &iov, 1)) {
		lt->err = -errno;
		return 0;
	}
	if (sys_read(s))
		return -EIO;
	lt->in_cma_after = pages_in_cma(s, p, lt->bytes);
	lt->cma_free_after = s->cma_free;
	return 0;
}

void pin_longterm_end(struct load_longterm *lt)
{
	if (lt->ring >= 0)
		close(lt->ring);
	lt->ring = -1;
}

/* Read everything the pipe holds: its pages are free to move again. */
static void pipe_drain(int fd)
{
	static char sink[PIPE_BYTES];

	while (read(fd, sink, sizeof(sink)) > 0)
		;
}

/* Pipes that hold @pages pages; NULL after a message. */
static int (*pipes_open(struct load_daemon *d, size_t pages, size_t *n))[2]
{
	int (*pipes)[2];
	size_t i;

	*n = (pages * d->sys.page_size + PIPE_BYTES - 1) / PIPE_BYTES;
	pipes = calloc(*n, sizeof(*pipes));
	for (i = 0; pipes && i < *n; i++) {
		if (pipe2(pipes[i], O_NONBLOCK | O_CLOEXEC)) {
			fprintf(d->log, "cmabuf_load: splice: pipe: %s\n", strerror(errno));
			*n = i;
			return pipes;
		}
		/* Root may go past pipe-max-size. */
		fcntl(pipes[i][1], F_SETPIPE_SZ, PIPE_BYTES);
	}
	return pipes;
}

static void pipes_close(int (*pipes)[2], size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		close(pipes[i][0]);
		close(pipes[i][1]);
	}
	free(pipes);
}

/* Splice up to @n of our pages in the target area into the pipes. */
static __u64 splice_some(struct load_daemon *d, int (*pipes)[2], size_t npipes,
			 unsigned char **addrs, size_t n)
{
	size_t per_pipe = PIPE_BYTES / d->sys.page_size, got, i;
	struct iovec iov;
	__u64 done = 0;

	pthread_mutex_lock(&d->lock);
	got = mem_pick(&d->mem, &d->sys, d->target.area, addrs, n);
	for (i = 0; i < got && i / per_pipe < npipes; i++) {
		iov.iov_base = addrs[i];
		iov.iov_len = d->sys.page_size;
		if (vmsplice(pipes[i / per_pipe][1], &iov, 1, 0) > 0)
			done++;
	}
	pthread_mutex_unlock(&d->lock);
	return done;
}

/*
 * Over and over: hold @splice.pages of our pages in the area in pipes for
 * @hold_ms, then let them go for @gap_ms. Idle while @pages is 0; a "set"
 * request changes it.
 */
void *splice_thread(void *arg)
{
	struct load_daemon *d = arg;
	struct load_splice *sp = &d->splice;
	unsigned char **addrs = NULL;
	int (*pipes)[2] = NULL;
	size_t npipes = 0, pages = 0, i;

	while (!d->stop) {
		if (sp->pages != pages) {
			pipes_close(pipes, npipes);
			npipes = 0;
			free(addrs);
			pages = sp->pages;
			pipes = pages ? pipes_open(d, pages, &npipes) : NULL;
			addrs = pages ? calloc(pages, sizeof(*addrs)) : NULL;
			if (pages && (!pipes || !addrs)) {
				fprintf(d->log, "cmabuf_load: splice: no memory for %zu pages\n",
					pages);
				break;
			}
		}
		if (!pages) {
			sleep_ms(50);
			continue;
		}
		sp->pinned += splice_some(d, pipes, npipes, addrs, pages);
		sp->cycles++;
		sleep_ms(sp->hold_ms);
		for (i = 0; i < npipes; i++)
			pipe_drain(pipes[i][0]);
		sleep_ms(sp->gap_ms);
	}
	pipes_close(pipes, npipes);
	free(addrs);
	return NULL;
}

/* "PAGES,HOLD_MS,GAP_MS" (0,0,0 for none); 0 or -EINVAL. */
int splice_parse(const char *arg, struct load_splice *sp)
{
	unsigned long pages;
	unsigned int hold, gap;

	if (sscanf(arg, "%lu,%u,%u", &pages, &hold, &gap) != 3 ||
	    pages > LOAD_SPLICE_MAX || (pages && !hold))
		return -EINVAL;
	sp->pages = pages;
	sp->hold_ms = hold;
	sp->gap_ms = gap;
	return 0;
}
