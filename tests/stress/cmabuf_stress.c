// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf_stress: several processes of several threads allocating, mapping,
 * writing and verifying, sharing with the test importer and with each
 * other, and closing, all at once, for a bounded time.
 *
 *   cmabuf_stress [--seconds S] [--procs P] [--threads T] [--seed N]
 *
 * Each thread holds a few buffers of every size on every instance, big
 * enough now and then to fill an area: the only errors any call may return
 * are ENOMEM and EBUSY from CMABUF_IOC_ALLOC (no room, or the room split),
 * and only when the area has no free range of that size and alignment.
 * Every one is checked: with every other allocation held off, the area's
 * bitmap (debugfs) is read, the allocation tried again and the bitmap read
 * again; failing again while both reads show such a range fails the run.
 * Then the thread lets something go and carries on. Should no area have
 * filled up by half time, the threads turn to the smallest area with big
 * buffers until one does, past the end if need be (up to twice the time
 * again: a slow kernel under memory load may need it): a run always goes
 * through exhaustion and recovery. Every buffer is checked zero when it arrives and its pattern
 * is checked by userspace, by the importer (which writes a new one
 * that userspace checks in turn) and by the next process, which receives
 * it over a unix socket. When everything has exited, each CMA area's used
 * pages and largest free range and each instance's live counters must be
 * exactly what they were at the start. Output is TAP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/cmabuf.h>
#include <linux/dma-buf.h>

#include "kselftest.h"
#include "cmabuf_importer.h"
#include "reliability_util.h"

#define ST_TESTS	8
#define ST_MAX_PROCS	8
#define ST_MAX_THREADS	8
#define ST_HELD		6	/* buffers a thread holds at most */
#define ST_HOLDS_TOTAL	56	/* importer holds shared by everyone */
#define ST_CHECK_BYTES	(8ULL << 20)	/* importer checks up to this */

/* What every worker counts, in &struct st_stats. */
enum st_count {
	ST_OPS,		/* operations */
	ST_ALLOCS,	/* successful allocations */
	ST_ENOMEM,	/* allocations that found the area full */
	ST_EBUSY,	/* of those, the ones whose free pages were split */
	ST_RETRIED,	/* ENOMEM or EBUSY that a try alone turned into a buffer */
	ST_SQUEEZED,	/* allocations aimed at filling the smallest area */
	ST_UNEXPECTED,	/* calls that failed with anything but those */
	ST_VERIFIED,	/* buffers whose contents were checked */
	ST_MISMATCHES,	/* checks that found something else */
	ST_IMP_CHECKS,	/* importer CHECKs */
	ST_IMP_HOLDS,	/* importer HOLDs */
	ST_SENT,	/* buffers passed to the next process */
	ST_RECEIVED,	/* buffers received and checked */
	ST_COUNTS,
};

/* Tries of an allocation that found no memory, with the others held off. */
#define ST_ENOMEM_TRIES	3
#define ST_ROOM_BUT_ENOMEM \
	"ALLOC of %llu pages (%s) from %s: %s %d times while %s had %llu free pages in a row aligned to %llu, before and after"

/**
 * struct st_stats - shared by every process and thread
 * @n: the counters, by &enum st_count.
 * @first: description of the first unexpected error or mismatch.
 * @first_taken: @first is written.
 * @alloc_lock: every ALLOC holds it shared; the check of an ENOMEM holds
 *	it alone, so that nothing else takes memory from an area meanwhile
 *	(frees go on: they can only make room).
 */
struct st_stats {
	unsigned long long n[ST_COUNTS];
	char first[256];
	int first_taken;
	pthread_rwlock_t alloc_lock;
};

/**
 * struct st_buf - a buffer a thread holds
 * @fd: its dma-buf fd.
 * @map: a read-write mapping of all of it.
 * @size: its size.
 * @seed: the pattern it holds, 0 while it is still zero.
 */
struct st_buf {
	int fd;
	__u8 *map;
	size_t size;
	__u64 seed;
};

/**
 * struct st_msg - what travels with a buffer to the next process
 * @size: its size.
 * @seed: the pattern it holds.
 */
struct st_msg {
	__u64 size;
	__u64 seed;
};

/**
 * struct st_proc - one process of workers
 * @index: its number.
 * @threads: workers.
 * @holds: importer holds each worker may take.
 * @deadline: CLOCK_MONOTONIC ns at which to stop once an area has filled.
 * @overtime: CLOCK_MONOTONIC ns at which to stop in any case.
 * @squeeze: CLOCK_MONOTONIC ns from which, while no allocation has found
 *	an area full, allocations aim to fill the smallest area.
 * @seed: seed of the run.
 * @inst: the instances.
 * @ninst: entries in @inst.
 * @dev: each instance's device, open.
 * @imp: the importer, or -1.
 * @out: socket to the next process.
 * @in: socket from the previous one.
 */
struct st_proc {
	int index;
	int threads;
	int holds;
	__u64 deadline;
	__u64 overtime;
	__u64 squeeze;
	__u64 seed;
	const struct rel_instance *inst;
	unsigned int ninst;
	int dev[REL_MAX_INSTANCES];
	int imp;
	int out;
	int in;
};

/**
 * struct st_worker - one thread
 * @p: its process.
 * @rng: its own generator.
 * @bufs: the buffers it holds.
 * @nbufs: entries in @bufs.
 * @handles: importer holds it took.
 * @nhandles: entries in @handles.
 */
struct st_worker {
	struct st_proc *p;
	struct rel_rng rng;
	struct st_buf bufs[ST_HELD];
	int nbufs;
	__u32 handles[ST_HOLDS_TOTAL];
	int nhandles;
};

static struct st_stats *st;

static void st_add(enum st_count c)
{
	__atomic_add_fetch(&st->n[c], 1, __ATOMIC_RELAXED);
}

static __printf(1, 2) void st_problem(const char *fmt, ...)
{
	va_list ap;

	if (__atomic_exchange_n(&st->first_taken, 1, __ATOMIC_ACQ_REL))
		return;
	va_start(ap, fmt);
	vsnprintf(st->first, sizeof(st->first), fmt, ap);
	va_end(ap);
}

static int st_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? errno : 0;
}

static void st_unexpected(const char *what, int err)
{
	st_add(ST_UNEXPECTED);
	st_problem("%s: %s", what, rel_errname(err));
}

static int st_sync(int fd, __u64 flags)
{
	struct dma_buf_sync sync = { .flags = flags | DMA_BUF_SYNC_RW };

	return st_ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync);
}

static void st_fill(__u8 *map, size_t len, __u64 seed)
{
	size_t off;

	for (off = 0; off + 8 <= len; off += CMABUF_IMPORTER_PATTERN_STRIDE)
		*(__u64 *)(map + off) = cmabuf_importer_pattern(seed, off);
}

/* Words of @seed's pattern that @map lacks; seed 0 means all zero. */
static size_t st_mismatches(const __u8 *map, size_t len, __u64 seed)
{
	size_t off, bad = 0;

	if (!seed)
		return cmabuf_first_nonzero(map, len) != len;
	for (off = 0; off + 8 <= len; off += CMABUF_IMPORTER_PATTERN_STRIDE)
		if (*(const __u64 *)(map + off) !=
		    cmabuf_importer_pattern(seed, off))
			bad++;
	return bad;
}

/* Check a mapping between SYNC_START and SYNC_END, as users should. */
static void st_verify(int fd, const __u8 *map, size_t len, __u64 seed,
		      const char *who)
{
	size_t bad;
	int err;

	err = st_sync(fd, DMA_BUF_SYNC_START);
	if (err)
		st_unexpected("SYNC_START", err);
	bad = st_mismatches(map, len, seed);
	err = st_sync(fd, DMA_BUF_SYNC_END);
	if (err)
		st_unexpected("SYNC_END", err);
	st_add(ST_VERIFIED);
	if (bad) {
		st_add(ST_MISMATCHES);
		st_problem("%s: %zu words of a %zu-byte buffer differ from pattern %#llx",
			   who, bad, len, (unsigned long long)seed);
	}
}

/* A size: mostly small, now and then big enough to fill an area. */
static size_t st_size(struct st_worker *w, unsigned int page)
{
	unsigned int roll = rel_below(&w->rng, 100);

	if (roll < 50)
		return (1 + rel_below(&w->rng, 64)) * (size_t)page;
	if (roll < 75)
		return (64 + rel_below(&w->rng, 192)) * (size_t)page;
	if (roll < 90)
		return (1 + rel_below(&w->rng, 4)) << 20;
	return (8 + rel_below(&w->rng, 25)) << 20;
}

/* A strategy the instance supports that takes @size. */
static __u32 st_strategy(struct st_worker *w, const struct rel_instance *in,
			 size_t size)
{
	size_t pages = size / in->page_size;
	__u32 s = rel_below(&w->rng, CMABUF_STRATEGY_COUNT);
	unsigned int order = __builtin_ctzll(pages);

	if (!(in->strategies & CMABUF_STRATEGY_BIT(s)))
		return CMABUF_STRATEGY_AUTO;
	if (s == CMABUF_STRATEGY_COMPOUND &&
	    ((pages & (pages - 1)) || order < in->min_order ||
	     order > in->max_order))
		return CMABUF_STRATEGY_AUTO;
	return s;
}

static void st_drop(struct st_worker *w, int i)
{
	struct st_buf *b = &w->bufs[i];

	munmap(b->map, b->size);
	close(b->fd);
	*b = w->bufs[--w->nbufs];
}

/* The instance whose area has the fewest pages. */
static unsigned int st_smallest(const struct st_proc *p)
{
	unsigned int i, min = 0;

	for (i = 1; i < p->ninst; i++)
		if (p->inst[i].total_pages < p->inst[min].total_pages)
			min = i;
	return min;
}

/* The alignment, in pages, a buffer of @pages with @strategy needs. */
static unsigned long long st_align(__u32 strategy, unsigned long long pages)
{
	/* AUTO falls back to an unaligned range; only COMPOUND must align. */
	return strategy == CMABUF_STRATEGY_COMPOUND ? pages : 1;
}

/* What ALLOC says when no range could be had: no room, or split room. */
static bool st_no_range(int err)
{
	return err == ENOMEM || err == EBUSY;
}

/*
 * An ALLOC of @d found no memory in @in's area. Alone, look at the area's
 * bitmap, try again (a few times: the pages of a free range may be
 * migrating) and look again. Returns 0 with the buffer in @d when a try
 * succeeded, ENOMEM or EBUSY when the area really had no such range at one
 * of the looks, another errno of ALLOC, or -1 (counted and described) when
 * both looks saw one or the bitmap could not be read.
 */
static int st_enomem(const struct rel_instance *in, int dev,
		     struct cmabuf_alloc_data *d)
{
	unsigned long long pages = d->size / in->page_size;
	unsigned long long align = st_align(d->flags, pages);
	bool before = false, after = false;
	int err = ENOMEM, ret, i;

	pthread_rwlock_wrlock(&st->alloc_lock);
	ret = rel_cma_has_room(in->area, pages, align, &before);
	for (i = 0; i < ST_ENOMEM_TRIES && st_no_range(err); i++) {
		if (i)
			usleep(1000);
		err = st_ioctl(dev, CMABUF_IOC_ALLOC, d);
	}
	if (!ret)
		ret = rel_cma_has_room(in->area, pages, align, &after);
	pthread_rwlock_unlock(&st->alloc_lock);

	if (ret) {
		st_unexpected("reading the CMA bitmap", ret);
		return -1;
	}
	if (!err)
		st_add(ST_RETRIED);
	if (!st_no_range(err) || !before || !after)
		return err;
	st_add(ST_UNEXPECTED);
	st_problem(ST_ROOM_BUT_ENOMEM,
		   pages, d->flags == CMABUF_STRATEGY_COMPOUND ? "COMPOUND" :
		   "not COMPOUND", in->name, rel_errname(err), ST_ENOMEM_TRIES,
		   in->area, pages, align);
	return -1;
}

static void st_alloc(struct st_worker *w)
{
	struct st_proc *p = w->p;
	unsigned int i = rel_below(&w->rng, p->ninst);
	const struct rel_instance *in;
	struct cmabuf_alloc_data d = {
		.fd_flags = O_RDWR | O_CLOEXEC,
	};
	bool squeeze = rel_now_ns() >= p->squeeze &&
		       !__atomic_load_n(&st->n[ST_ENOMEM], __ATOMIC_RELAXED);
	struct st_buf *b;
	int err;

	if (w->nbufs == ST_HELD) {
		st_drop(w, rel_below(&w->rng, w->nbufs));
		return;
	}
	if (squeeze) {
		i = st_smallest(p);
		st_add(ST_SQUEEZED);
	}
	in = &p->inst[i];
	d.size = squeeze ? (size_t)(16 + rel_below(&w->rng, 17)) << 20 :
			   st_size(w, in->page_size);
	d.flags = st_strategy(w, in, d.size);
	pthread_rwlock_rdlock(&st->alloc_lock);
	err = st_ioctl(p->dev[i], CMABUF_IOC_ALLOC, &d);
	pthread_rwlock_unlock(&st->alloc_lock);
	if (st_no_range(err))
		err = st_enomem(in, p->dev[i], &d);
	if (st_no_range(err)) {
		/* The area is full: let something go and carry on. */
		st_add(ST_ENOMEM);
		if (err == EBUSY)
			st_add(ST_EBUSY);
		if (w->nbufs)
			st_drop(w, rel_below(&w->rng, w->nbufs));
		return;
	}
	if (err < 0)
		return;	/* counted by st_enomem() */
	if (err) {
		st_unexpected("ALLOC", err);
		return;
	}
	st_add(ST_ALLOCS);
	b = &w->bufs[w->nbufs];
	b->fd = d.fd;
	b->size = d.alloc_size;
	b->seed = 0;
	b->map = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      b->fd, 0);
	if (b->map == MAP_FAILED) {
		st_unexpected("mmap", errno);
		close(b->fd);
		return;
	}
	w->nbufs++;
	st_verify(b->fd, b->map, b->size, 0, "new buffer");
	b->seed = rel_rand(&w->rng) | 1;
	st_sync(b->fd, DMA_BUF_SYNC_START);
	st_fill(b->map, b->size, b->seed);
	st_sync(b->fd, DMA_BUF_SYNC_END);
}

/* The importer checks our pattern and writes its own, which we check. */
static void st_import(struct st_worker *w, struct st_buf *b)
{
	struct cmabuf_importer_check chk = {
		.fd = b->fd,
		.flags = CMABUF_IMPORTER_CHECK_VERIFY |
			 CMABUF_IMPORTER_CHECK_WRITE,
		.seed_in = b->seed,
		.seed_out = rel_rand(&w->rng) | 1,
	};
	int err;

	if (w->p->imp < 0 || b->size > ST_CHECK_BYTES)
		return;
	err = st_ioctl(w->p->imp, CMABUF_IMPORTER_IOC_CHECK, &chk);
	st_add(ST_IMP_CHECKS);
	if (err) {
		st_unexpected("importer CHECK", err);
		return;
	}
	if (chk.failed_step || chk.mismatches || chk.dma_segments != 1) {
		st_add(ST_MISMATCHES);
		st_problem("importer: step %u failed (%d), %llu mismatches, %u segments",
			   chk.failed_step, chk.error,
			   (unsigned long long)chk.mismatches,
			   chk.dma_segments);
		return;
	}
	b->seed = chk.seed_out;
	st_verify(b->fd, b->map, b->size, b->seed, "importer's pattern");
}

/* Hand a buffer to the importer, maybe keep no fd of it at all. */
static void st_hold(struct st_worker *w)
{
	struct cmabuf_importer_hold hold = { 0 };
	int i, err;

	if (w->p->imp < 0 || !w->nbufs || w->nhandles >= w->p->holds)
		return;
	i = rel_below(&w->rng, w->nbufs);
	hold.fd = w->bufs[i].fd;
	hold.flags = rel_below(&w->rng, 2) ? CMABUF_IMPORTER_HOLD_MAP : 0;
	err = st_ioctl(w->p->imp, CMABUF_IMPORTER_IOC_HOLD, &hold);
	st_add(ST_IMP_HOLDS);
	if (err) {
		st_unexpected("importer HOLD", err);
		return;
	}
	w->handles[w->nhandles++] = hold.handle;
	if (rel_chance(&w->rng, 50))
		st_drop(w, i);
}

static void st_release(struct st_worker *w, int i)
{
	struct cmabuf_importer_release rel = { .handle = w->handles[i] };
	int err;

	err = st_ioctl(w->p->imp, CMABUF_IMPORTER_IOC_RELEASE, &rel);
	if (err)
		st_unexpected("importer RELEASE", err);
	w->handles[i] = w->handles[--w->nhandles];
}

/* Pass a buffer, with its size and pattern, over a seqpacket socket. */
static int st_send(int sock, int fd, const struct st_msg *m)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = (void *)m, .iov_len = sizeof(*m) };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);

	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	return sendmsg(sock, &msg, MSG_DONTWAIT) < 0 ? errno : 0;
}

static int st_recv(int sock, int *fd, struct st_msg *m)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg;
	ssize_t n;

	n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	if (n <= 0)
		return n ? errno : ENODATA;
	cmsg = CMSG_FIRSTHDR(&msg);
	if (n != sizeof(*m) || !cmsg || cmsg->cmsg_type != SCM_RIGHTS)
		n = -1;
	else
		memcpy(fd, CMSG_DATA(cmsg), sizeof(int));
	return n < 0 ? EPROTO : 0;
}

static void st_pass(struct st_worker *w)
{
	struct st_buf *b;
	struct st_msg m;
	int i, err;

	if (!w->nbufs)
		return;
	i = rel_below(&w->rng, w->nbufs);
	b = &w->bufs[i];
	m.size = b->size;
	m.seed = b->seed;
	err = st_send(w->p->out, b->fd, &m);
	if (err == EAGAIN)
		return;	/* the next process is busy: keep it */
	if (err) {
		st_unexpected("sendmsg", err);
		return;
	}
	st_add(ST_SENT);
	st_drop(w, i);
}

/* Swap a buffer's fd for a duplicate. */
static void st_dup(struct st_worker *w)
{
	struct st_buf *b;
	int fd;

	if (!w->nbufs)
		return;
	b = &w->bufs[rel_below(&w->rng, w->nbufs)];
	fd = fcntl(b->fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0) {
		st_unexpected("dup", errno);
		return;
	}
	close(b->fd);
	b->fd = fd;
}

static void st_step(struct st_worker *w)
{
	unsigned int roll = rel_below(&w->rng, 100);
	struct st_buf *b = w->nbufs ?
			   &w->bufs[rel_below(&w->rng, w->nbufs)] : NULL;

	st_add(ST_OPS);
	if (roll < 32)
		st_alloc(w);
	else if (roll < 50 && b)
		st_verify(b->fd, b->map, b->size, b->seed, "own buffer");
	else if (roll < 62 && b)
		st_import(w, b);
	else if (roll < 68)
		st_hold(w);
	else if (roll < 74 && w->nhandles)
		st_release(w, rel_below(&w->rng, w->nhandles));
	else if (roll < 80)
		st_pass(w);
	else if (roll < 85)
		st_dup(w);
	else if (w->nbufs)
		st_drop(w, rel_below(&w->rng, w->nbufs));
}

/* Past the deadline only while no allocation has found an area full. */
static bool st_running(const struct st_proc *p)
{
	__u64 now = rel_now_ns();

	if (now < p->deadline)
		return true;
	return now < p->overtime &&
	       !__atomic_load_n(&st->n[ST_ENOMEM], __ATOMIC_RELAXED);
}

static void *st_worker_main(void *arg)
{
	struct st_worker *w = arg;

	while (st_running(w->p))
		st_step(w);
	while (w->nbufs)
		st_drop(w, 0);
	while (w->nhandles)
		st_release(w, 0);
	return NULL;
}

/* Receive buffers from the previous process until it has finished. */
static void *st_receiver_main(void *arg)
{
	struct st_proc *p = arg;
	struct pollfd pfd = { .fd = p->in, .events = POLLIN };
	struct st_msg m;
	int fd = -1, err;
	__u8 *map;

	for (;;) {
		if (poll(&pfd, 1, 1000) < 0 && errno != EINTR)
			break;
		err = st_recv(p->in, &fd, &m);
		if (err == ENODATA)
			break;	/* the sender hung up */
		if (err == EAGAIN || err == EINTR)
			continue;
		if (err) {
			st_unexpected("recvmsg", err);
			break;
		}
		map = mmap(NULL, m.size, PROT_READ, MAP_SHARED, fd, 0);
		if (map == MAP_FAILED) {
			st_unexpected("mmap of a received buffer", errno);
		} else {
			st_verify(fd, map, m.size, m.seed, "received buffer");
			munmap(map, m.size);
		}
		close(fd);
		st_add(ST_RECEIVED);
	}
	return NULL;
}

static int st_proc_main(struct st_proc *p)
{
	struct st_worker *w;
	pthread_t tid[ST_MAX_THREADS], rx;
	int i;

	w = calloc(p->threads, sizeof(*w));
	if (!w)
		return 1;
	if (pthread_create(&rx, NULL, st_receiver_main, p))
		return 1;
	for (i = 0; i < p->threads; i++) {
		w[i].p = p;
		w[i].rng.state = p->seed ^ ((__u64)p->index << 40) ^
				 ((__u64)i << 32);
		if (pthread_create(&tid[i], NULL, st_worker_main, &w[i]))
			return 1;
	}
	for (i = 0; i < p->threads; i++)
		pthread_join(tid[i], NULL);
	/* The next process's receiver sees the end of what we send. */
	shutdown(p->out, SHUT_WR);
	pthread_join(rx, NULL);
	return 0;
}

/**
 * struct st_opts - the command line
 * @seconds: how long the workers run.
 * @procs: processes.
 * @threads: worker threads per process.
 * @seed: seed of the run.
 */
struct st_opts {
	unsigned int seconds;
	int procs;
	int threads;
	__u64 seed;
};

static void st_parse(int argc, char **argv, struct st_opts *o)
{
	static const struct option longopts[] = {
		{ "seconds", required_argument, NULL, 't' },
		{ "procs", required_argument, NULL, 'p' },
		{ "threads", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' },
		{ }
	};
	int c;

	o->seconds = 30;
	o->procs = 3;
	o->threads = 3;
	o->seed = rel_seed_default();
	while ((c = getopt_long(argc, argv, "t:p:n:s:", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			o->seconds = strtoul(optarg, NULL, 0);
			break;
		case 'p':
			o->procs = strtol(optarg, NULL, 0);
			break;
		case 'n':
			o->threads = strtol(optarg, NULL, 0);
			break;
		case 's':
			o->seed = strtoull(optarg, NULL, 0);
			break;
		default:
			goto usage;
		}
	}
	if (optind == argc && o->procs > 0 && o->procs <= ST_MAX_PROCS &&
	    o->threads > 0 && o->threads <= ST_MAX_THREADS)
		return;
usage:
	fprintf(stderr, "usage: %s [--seconds S] [--procs 1..%d] [--threads 1..%d] [--seed N]\n",
		argv[0], ST_MAX_PROCS, ST_MAX_THREADS);
	exit(KSFT_FAIL);
}

/* Each area's largest free range, which must also come back. */
static void st_maxchunks(const struct rel_instance *inst, unsigned int n,
			 unsigned long long *chunk)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (rel_cma_read(inst[i].area, "maxchunk", &chunk[i]))
			chunk[i] = ~0ULL;
}

/* Fork the processes, each connected to the next by a socket pair. */
static int st_spawn(struct st_proc *tmpl, int procs, pid_t *pids)
{
	int sv[ST_MAX_PROCS][2], i, j;
	struct st_proc p;

	for (i = 0; i < procs; i++)
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv[i]))
			return errno;
	fflush(stdout);
	for (i = 0; i < procs; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			return errno;
		if (pids[i])
			continue;
		p = *tmpl;
		p.index = i;
		p.out = sv[i][0];
		p.in = sv[(i + procs - 1) % procs][1];
		for (j = 0; j < procs; j++) {
			if (sv[j][0] != p.out)
				close(sv[j][0]);
			if (sv[j][1] != p.in)
				close(sv[j][1]);
		}
		_exit(st_proc_main(&p));
	}
	for (i = 0; i < procs; i++) {
		close(sv[i][0]);
		close(sv[i][1]);
	}
	return 0;
}

/*
 * Shared by the processes; a waiting checker goes before new readers, or
 * nine busy threads could keep it waiting for the rest of the run.
 */
static int st_lock_init(pthread_rwlock_t *lock)
{
	pthread_rwlockattr_t attr;
	int ret;

	ret = pthread_rwlockattr_init(&attr);
	if (!ret)
		ret = pthread_rwlockattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
	if (!ret)
		ret = pthread_rwlockattr_setkind_np
			(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	if (!ret)
		ret = pthread_rwlock_init(lock, &attr);
	pthread_rwlockattr_destroy(&attr);
	return ret;
}

static int st_open_all(struct st_proc *p)
{
	unsigned int i;

	for (i = 0; i < p->ninst; i++) {
		p->dev[i] = rel_instance_open(p->inst[i].name, O_RDWR);
		if (p->dev[i] < 0)
			return errno;
	}
	p->imp = open(REL_IMPORTER_DEV, O_RDWR | O_CLOEXEC);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long chunk0[REL_MAX_INSTANCES], chunk1[REL_MAX_INSTANCES];
	struct rel_instance inst[REL_MAX_INSTANCES];
	struct rel_snapshot base, now;
	pid_t pids[ST_MAX_PROCS];
	struct st_proc p = { 0 };
	int i, status, crashed = 0, ret;
	bool chunks_same = true;
	__u64 start, ms;
	struct st_opts o;
	char why[256];

	st_parse(argc, argv, &o);
	ksft_print_header();
	ksft_set_plan(ST_TESTS);
	ksft_print_msg("%d processes x %d threads for %u s, seed %llu\n",
		       o.procs, o.threads, o.seconds,
		       (unsigned long long)o.seed);
	ret = rel_instances(inst, REL_MAX_INSTANCES, &p.ninst);
	if (ret || !p.ninst)
		ksft_exit_fail_msg("no cmabuf instance: %s\n",
				   rel_errname(ret ? ret : ENODEV));
	st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", rel_errname(errno));
	ret = st_lock_init(&st->alloc_lock);
	if (ret)
		ksft_exit_fail_msg("rwlock: %s\n", rel_errname(ret));
	p.inst = inst;
	p.threads = o.threads;
	p.seed = o.seed;
	p.holds = ST_HOLDS_TOTAL / (o.procs * o.threads);
	ret = st_open_all(&p);
	if (ret)
		ksft_exit_fail_msg("open: %s\n", rel_errname(ret));
	ksft_print_msg("importer %s\n", p.imp >= 0 ? "present" : "absent");

	ret = rel_snapshot_take(inst, p.ninst, &base);
	if (ret)
		ksft_exit_fail_msg("counters: %s\n", rel_errname(ret));
	st_maxchunks(inst, p.ninst, chunk0);

	start = rel_now_ns();
	p.deadline = start + o.seconds * 1000000000ULL;
	p.overtime = start + o.seconds * 3000000000ULL;
	p.squeeze = start + o.seconds * 500000000ULL;
	ret = st_spawn(&p, o.procs, pids);
	if (ret)
		ksft_exit_fail_msg("spawn: %s\n", rel_errname(ret));
	for (i = 0; i < o.procs; i++) {
		if (waitpid(pids[i], &status, 0) != pids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			ksft_print_msg("process %d: status %#x\n", i, status);
			crashed++;
		}
	}
	ms = (rel_now_ns() - start) / 1000000;

	ret = rel_snapshot_settle(inst, p.ninst, &base, 2000, &now, why,
				  sizeof(why));
	st_maxchunks(inst, p.ninst, chunk1);
	for (i = 0; i < (int)p.ninst; i++) {
		if (chunk0[i] == chunk1[i])
			continue;
		ksft_print_msg("area %s: largest free range %llu pages, %llu before\n",
			       inst[i].area, chunk1[i], chunk0[i]);
		chunks_same = false;
	}

	if (st->first_taken)
		ksft_print_msg("first problem: %s\n", st->first);
	if (st->n[ST_SQUEEZED])
		ksft_print_msg("no area full by half time: %llu allocations aimed at %s\n",
			       st->n[ST_SQUEEZED], inst[st_smallest(&p)].area);
	printf("# record: stress seconds=%llu ops=%llu enomem=%llu pages_lost=%lld\n",
	       (unsigned long long)(ms + 500) / 1000, st->n[ST_OPS],
	       st->n[ST_ENOMEM], rel_snapshot_pages_lost(&base, &now));
	ksft_test_result(!crashed && st->n[ST_OPS],
			 "%d processes x %d threads ran %llu ms: %llu operations, %llu allocations\n",
			 o.procs, o.threads, (unsigned long long)ms, st->n[ST_OPS],
			 st->n[ST_ALLOCS]);
	ksft_test_result(!st->n[ST_UNEXPECTED],
			 "only ENOMEM and EBUSY failed, each time with no free range of that size and alignment in the area's bitmap: %llu ENOMEM, %llu EBUSY (%llu more succeeded on a second try), %llu other errors\n",
			 st->n[ST_ENOMEM] - st->n[ST_EBUSY], st->n[ST_EBUSY],
			 st->n[ST_RETRIED], st->n[ST_UNEXPECTED]);
	ksft_test_result(st->n[ST_ENOMEM] > 0,
			 "an area filled up (%llu ENOMEM or EBUSY) and work went on\n",
			 st->n[ST_ENOMEM]);
	ksft_test_result(st->n[ST_VERIFIED] && !st->n[ST_MISMATCHES],
			 "contents: %llu checks, %llu found something else\n",
			 st->n[ST_VERIFIED], st->n[ST_MISMATCHES]);
	if (p.imp < 0)
		ksft_test_result_skip("importer: no %s\n", REL_IMPORTER_DEV);
	else
		ksft_test_result(st->n[ST_IMP_CHECKS] && st->n[ST_IMP_HOLDS],
				 "importer: %llu checks, %llu holds\n",
				 st->n[ST_IMP_CHECKS], st->n[ST_IMP_HOLDS]);
	ksft_test_result(st->n[ST_SENT] && st->n[ST_RECEIVED] == st->n[ST_SENT],
			 "fd passing: %llu buffers sent, %llu received and checked\n",
			 st->n[ST_SENT], st->n[ST_RECEIVED]);
	if (ret)
		ksft_print_msg("not back at baseline: %s\n", why);
	ksft_test_result(!ret,
			 "CMA used pages and live counters back at baseline\n");
	ksft_test_result(chunks_same,
			 "every area's largest free range back to its start\n");
	ksft_finished();
}
