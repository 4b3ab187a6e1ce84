// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf_fuzz: CMABUF_IOC_PREPARE, and the buffers made behind it.
 *
 * PREPARE is issued through raw command numbers like the other ioctls, on
 * the instance's own device file or on extra device files that the fuzzer
 * opens and closes while the driver is still making their buffers. The
 * model keeps each file's wants: it judges the errnos by the header's
 * rules, ENOSPC by the module's limits (the instance's prepare_max_bytes,
 * prepare_max_percent of the area where the driver does not show it, for
 * all files; prepare_file_percent for a file without CAP_SYS_ADMIN), and
 * @ready.
 *
 * A want whose time-out may have passed may be gone (unless an allocation
 * took one of its buffers meanwhile): where that changes the outcome of a
 * limit, both outcomes are allowed. While wants stand in an area, and for
 * a while after the last one went (a buffer being made is finished, then
 * released), the area's free memory moves under the model: allocations
 * from it may then fail with ENOMEM or EBUSY where it would otherwise
 * require success, and an AUTO allocation may be served a prepared buffer
 * of another strategy.
 *
 * At the end every want is dropped (its file closed), and the CMA areas
 * must be back where they started like everything else.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "fuzz.h"

/* How long after the last want of an area its pool may still be busy. */
#define FZ_POOL_SETTLE_NS	(3000ULL * 1000000)
/* Slack on a time-out: jiffies round, and the driver's clock starts later. */
#define FZ_TIMEOUT_SLACK_NS	(50ULL * 1000000)

#define FZ_PARAM_DIR	"/sys/module/cmabuf/parameters/"

/* Wants stand only in every other stretch of this many operations. */
#define FZ_PREPARE_EPOCH	4096

static unsigned int fz_param(const char *path, unsigned int dflt)
{
	unsigned long long v;

	return rel_read_ull(path, &v) ? dflt : (unsigned int)v;
}

/* The driver's limits and default time-out, and whether it prepares. */
void fz_prepare_setup(struct fz *f)
{
	unsigned int i;

	for (i = 0; i < FZ_MAX_PREP_FILES; i++)
		f->prep_fds[i] = -1;
	f->prepare = !access(FZ_PARAM_DIR "prepare_timeout_ms", R_OK);
	f->prepare_timeout_ms = fz_param(FZ_PARAM_DIR "prepare_timeout_ms",
					 10000);
	f->prepare_max_percent = fz_param(FZ_PARAM_DIR "prepare_max_percent",
					  50);
	f->prepare_file_percent =
		fz_param(FZ_PARAM_DIR "prepare_file_percent", 25);
}

static bool fz_same_area(const struct fz *f, int a, int b)
{
	return !strcmp(f->inst[a].rel.area, f->inst[b].rel.area);
}

/*
 * May the pools of @inst's area be making, keeping or recycling buffers
 * now? While any of our wants stands there, and for a while after the
 * last one went.
 */
bool fz_area_busy(struct fz *f, int inst)
{
	__u64 now = rel_now_ns();
	unsigned int i;

	for (i = 0; i < FZ_MAX_WANTS; i++)
		if (f->wants[i].used && fz_same_area(f, f->wants[i].inst, inst))
			return true;
	for (i = 0; i < f->ninst; i++)
		if (fz_same_area(f, i, inst) && now < f->busy_until[i])
			return true;
	return false;
}

/*
 * May an AUTO allocation of @pages from @inst have been served a prepared
 * buffer of @strategy? Buffers of any of our wants of that size qualify,
 * on whatever file: any allocation may take any ready buffer that fits.
 */
bool fz_prepared_strategy(const struct fz *f, int inst, __u64 pages,
			  __u32 strategy)
{
	const struct fz_want *w;
	unsigned int i;

	for (i = 0; i < FZ_MAX_WANTS; i++) {
		w = &f->wants[i];
		if (w->used && w->inst == inst && w->pages == pages &&
		    (w->strategy == strategy ||
		     w->strategy == CMABUF_STRATEGY_AUTO))
			return true;
	}
	return false;
}

/*
 * An allocation of @pages from @inst that may not find its range: the
 * errno it may fail with. The driver tells ENOMEM (fewer free pages than
 * asked, or a kernel that does not count them) from EBUSY (the pages are
 * free, not in one range it could take); frees in flight are waited for
 * first, here as there. Where the pools may be at work, either.
 */
void fz_model_no_range(struct fz *f, int inst, __u64 pages,
		       struct fz_expect *e)
{
	const struct rel_instance *in = &f->inst[inst].rel;
	unsigned long long count, used;
	unsigned int i;

	if (!in->total_pages) {
		fz_err(e, ENOMEM, NULL);
		return;
	}
	if (fz_area_busy(f, inst)) {
		fz_err(e, ENOMEM, NULL);
		fz_err(e, EBUSY, NULL);
		return;
	}
	for (i = 0; i < f->ninst; i++)
		if (fz_same_area(f, i, inst))
			rel_instance_settle(f->inst[i].rel.name, REL_SETTLE_MS);
	if (rel_cma_read(in->area, "count", &count) ||
	    rel_cma_read(in->area, "used", &used)) {
		fz_err(e, ENOMEM, NULL);
		fz_err(e, EBUSY, NULL);
		return;
	}
	fz_err(e, count - used < pages ? ENOMEM : EBUSY, NULL);
}

/* The want of @fd of that kind, or NULL. */
static struct fz_want *fz_want_find(struct fz *f, int fd,
				    const struct fz_req *rq)
{
	struct fz_want *w;
	unsigned int i;

	for (i = 0; i < FZ_MAX_WANTS; i++) {
		w = &f->wants[i];
		if (w->used && w->fd == fd && w->pages == rq->pages &&
		    w->align_order == rq->align_order &&
		    w->strategy == rq->strategy)
			return w;
	}
	return NULL;
}

static bool fz_want_sure(const struct fz_want *w, __u64 now)
{
	return now < w->sure_until;
}

/* A want is gone: the pool may finish a buffer for it a while longer. */
static void fz_want_forget(struct fz *f, struct fz_want *w)
{
	unsigned int i;

	for (i = 0; i < f->ninst; i++)
		if (fz_same_area(f, i, w->inst))
			f->busy_until[i] = rel_now_ns() + FZ_POOL_SETTLE_NS;
	memset(w, 0, sizeof(*w));
}

/* Every want of the device file @fd goes with it. */
static void fz_wants_of_fd_gone(struct fz *f, int fd)
{
	unsigned int i;

	for (i = 0; i < FZ_MAX_WANTS; i++)
		if (f->wants[i].used && f->wants[i].fd == fd)
			fz_want_forget(f, &f->wants[i]);
}

/**
 * struct fz_limit - what a PREPARE's limits are judged on
 * @area: pages the limits are shares of.
 * @max: pages all files' wants may hold (prepare_max_bytes, or
 *	prepare_max_percent of @area where the driver does not show it).
 * @priv: the caller has CAP_SYS_ADMIN.
 * @others: pages of every other want of the instance; @others_maybe of
 *	those may be gone.
 * @mine: pages of the file's other wants; @mine_maybe of those may be gone.
 * @old: pages of the want being replaced, 0 for none.
 * @old_maybe: that want may be gone.
 */
struct fz_limit {
	__u64 area;
	__u64 max;
	bool priv;
	__u64 others;
	__u64 others_maybe;
	__u64 mine;
	__u64 mine_maybe;
	__u64 old;
	bool old_maybe;
};

/* The driver's test, cmabuf_pool_over(), for one state of the wants. */
static bool fz_over(const struct fz *f, const struct fz_limit *l,
		    __u64 others, __u64 mine, __u64 old, __u64 now_pages)
{
	if (now_pages <= old)
		return false;
	if (others + mine + now_pages > l->max)
		return true;
	return !l->priv &&
	       mine + now_pages > l->area * f->prepare_file_percent / 100;
}

static void fz_limit_gather(struct fz *f, int fd, int inst,
			    const struct fz_want *self, struct fz_limit *l)
{
	const struct rel_instance *in = &f->inst[inst].rel;
	__u64 now = rel_now_ns(), pages;
	unsigned long long max;
	const struct fz_want *w;
	char path[128];
	unsigned int i;

	memset(l, 0, sizeof(*l));
	l->area = in->total_pages ?: (1ULL << 30) / in->page_size;
	/* Smaller on the kernel's default area (prepare_default_percent). */
	snprintf(path, sizeof(path), "/sys/class/misc/%s/prepare_max_bytes",
		 in->name);
	if (!rel_read_ull(path, &max))
		l->max = max / in->page_size;
	else
		l->max = l->area * f->prepare_max_percent / 100;
	l->priv = f->root;
	for (i = 0; i < FZ_MAX_WANTS; i++) {
		w = &f->wants[i];
		if (!w->used || w->inst != inst)
			continue;
		pages = w->pages * w->count;
		if (w == self) {
			l->old = pages;
			l->old_maybe = !fz_want_sure(w, now);
		} else if (w->fd == fd) {
			l->mine += pages;
			if (!fz_want_sure(w, now))
				l->mine_maybe += pages;
		} else {
			l->others += pages;
			if (!fz_want_sure(w, now))
				l->others_maybe += pages;
		}
	}
}

/*
 * ENOSPC for @count buffers of @pages: required when every state the
 * wants may be in says so, allowed when one does.
 */
static void fz_model_limit(struct fz *f, const struct fz_limit *l,
			   __u64 pages, __u32 count, struct fz_expect *e)
{
	__u64 want = pages * count;
	unsigned int over = 0, states = 0, s;

	for (s = 0; s < 8; s++) {
		__u64 others = l->others - (s & 1 ? l->others_maybe : 0);
		__u64 mine = l->mine - (s & 2 ? l->mine_maybe : 0);
		__u64 old = s & 4 ? 0 : l->old;

		if ((s & 1 && !l->others_maybe) || (s & 2 && !l->mine_maybe) ||
		    (s & 4 && !l->old_maybe))
			continue;
		states++;
		over += fz_over(f, l, others, mine, old, want);
	}
	if (over == states)
		fz_err(e, ENOSPC, "over a limit of prepared memory");
	else if (over)
		fz_err(e, ENOSPC, NULL);
}

/* A request that is mostly small and valid, sometimes at an edge. */
static void fz_prepare_template(struct fz *f, const struct fz_inst *in,
				struct cmabuf_prepare *d)
{
	unsigned int page = in->rel.page_size, roll = rel_below(&f->rng, 100);
	__u32 s;

	memset(d, 0, sizeof(*d));
	if (roll < 55)
		d->size = 1 + rel_below(&f->rng, 16 * page);
	else if (roll < 75)
		d->size = (1 + rel_below(&f->rng, 64)) * (__u64)page;
	else if (roll < 85)
		d->size = (__u64)page << (in->rel.min_order +
					     rel_below(&f->rng, 3));
	else if (roll < 90 && in->rel.total_pages)
		d->size = (in->rel.total_pages / 2 + 1 +
			   rel_below(&f->rng, 3)) * page;
	else
		d->size = fz_boundary(f);
	d->align = rel_chance(&f->rng, 85) ? 0 : rel_below(&f->rng, 46);

	roll = rel_below(&f->rng, 100);
	d->count = roll < 25 ? 0 : roll < 90 ? 1 + rel_below(&f->rng, 4) :
		   roll < 95 ? rel_below(&f->rng, 2 * CMABUF_PREPARE_MAX_COUNT) :
		   (__u32)rel_rand(&f->rng);

	roll = rel_below(&f->rng, 100);
	d->timeout_ms = roll < 30 ? 0 : roll < 70 ? 1 + rel_below(&f->rng, 300) :
			1000 + rel_below(&f->rng, 2000);

	do {
		s = rel_below(&f->rng, CMABUF_STRATEGY_COUNT);
	} while (!(in->rel.strategies & CMABUF_STRATEGY_BIT(s)) &&
		 rel_chance(&f->rng, 90));
	d->flags = s;
	if (rel_chance(&f->rng, 20))
		d->flags |= CMABUF_PREPARE_WAIT;
	if (rel_chance(&f->rng, 4))
		d->flags |= 1U << rel_below(&f->rng, 32);
	if (rel_chance(&f->rng, 3))
		d->ready = 1 + rel_below(&f->rng, 8);
	if (rel_chance(&f->rng, 3))
		d->pad = (__u32)rel_rand(&f->rng) | 1;
}

/*
 * What PREPARE may return. @rq gets the kind; @applies says whether a
 * success, or an EFAULT on the way back, set the want.
 */
static void fz_model_prepare(struct fz *f, int fd, int inst,
			     const struct fz_call *c, struct fz_expect *e,
			     struct fz_req *rq, bool *applies)
{
	const unsigned int ksize = sizeof(struct cmabuf_prepare);
	struct cmabuf_prepare d = { 0 };
	struct fz_limit l;

	fz_expect_init(e);
	memset(rq, 0, sizeof(*rq));
	*applies = false;
	if (!fz_model_copy_in(f, c, ksize,
			      offsetof(struct cmabuf_prepare, ready), e))
		return;
	memcpy(&d, c->arg, fz_min(c->in, ksize));
	if (d.flags & ~CMABUF_PREPARE_VALID_FLAGS)
		fz_err(e, EINVAL, "unknown flag");
	if (d.count > CMABUF_PREPARE_MAX_COUNT)
		fz_err(e, EINVAL, "count above CMABUF_PREPARE_MAX_COUNT");
	fz_model_request(&f->inst[inst], d.size, d.align,
			 d.flags & CMABUF_ALLOC_STRATEGY_MASK, e, rq);
	if (!e->may_succeed)
		return;
	fz_limit_gather(f, fd, inst, fz_want_find(f, fd, rq), &l);
	fz_model_limit(f, &l, rq->pages, d.count, e);
	*applies = true;
	if (d.count && d.flags & CMABUF_PREPARE_WAIT) {
		/* The background allocation may find no room. */
		fz_err(e, ENOMEM, NULL);
		fz_err(e, EBUSY, NULL);
	}
}

/* A device file of @inst to prepare on: its own, or one of ours. */
static int fz_prepare_file(struct fz *f, int inst)
{
	int slot = rel_below(&f->rng, FZ_MAX_PREP_FILES), fd;

	if (rel_chance(&f->rng, 50))
		return f->inst[inst].fd;
	fd = f->prep_fds[slot];
	if (fd >= 0)
		return f->fds[fd].inst == inst ? fd : f->inst[inst].fd;
	fd = rel_instance_open(f->inst[inst].rel.name, O_RDWR);
	if (fd < 0 || fd >= FZ_MAX_FDS) {
		fz_fail(f, FZ_IOCTL, "open %s: %s", f->inst[inst].rel.name,
			rel_errname(errno));
		if (fd >= 0)
			close(fd);
		return f->inst[inst].fd;
	}
	fz_fd_set(f, fd, FZ_FD_DEV, 0, inst, O_RDWR);
	f->prep_fds[slot] = fd;
	return fd;
}

/* Close one of our device files, with whatever it has being made. */
static void fz_prepare_close(struct fz *f)
{
	int slot = rel_below(&f->rng, FZ_MAX_PREP_FILES);
	int fd = f->prep_fds[slot];
	struct fz_expect e;

	if (fd < 0)
		return;
	fz_describe(f, "close device file %d of %s, with its wants", fd,
		    f->inst[f->fds[fd].inst].rel.name);
	fz_expect_init(&e);
	fz_judge(f, FZ_IOCTL, &e, close(fd) ? errno : 0);
	fz_wants_of_fd_gone(f, fd);
	fz_fd_closed(f, fd);
	f->prep_fds[slot] = -1;
}

/*
 * Give back the buffers of one want, with a request of its kind and count
 * 0, as a program would. False when there are no wants.
 */
static bool fz_prepare_drop_one(struct fz *f)
{
	unsigned int i, seen = 0, shift;
	struct fz_want *w = NULL;
	struct fz_expect e;
	struct cmabuf_prepare d;

	for (i = 0; i < FZ_MAX_WANTS; i++)
		if (f->wants[i].used && !rel_below(&f->rng, ++seen))
			w = &f->wants[i];
	if (!w)
		return false;
	shift = fz_shift(&f->inst[w->inst]);
	memset(&d, 0, sizeof(d));
	d.size = w->pages << shift;
	d.align = w->align_order ? w->align_order + shift : 0;
	d.flags = w->strategy;
	fz_describe(f, "PREPARE of 0 on %s fd %d: size %llu align %u flags %#x",
		    f->inst[w->inst].rel.name, w->fd,
		    (unsigned long long)d.size, d.align, d.flags);
	fz_expect_init(&e);
	if (fz_judge(f, FZ_IOCTL, &e,
		     ioctl(w->fd, CMABUF_IOC_PREPARE, &d) ? errno : 0) &&
	    d.ready)
		fz_fail(f, FZ_IOCTL, "PREPARE of 0: %u ready", d.ready);
	fz_want_forget(f, w);
	return true;
}

/* Take the outcome of a PREPARE into the model, and check @ready. */
static void fz_prepare_done(struct fz *f, int fd, int inst,
			    const struct fz_req *rq,
			    const struct cmabuf_prepare *d,
			    const struct cmabuf_prepare *out, bool got_out,
			    __u64 start)
{
	__u64 timeout = (__u64)(d->timeout_ms ?: f->prepare_timeout_ms) *
			1000000;
	struct fz_want *w = fz_want_find(f, fd, rq);
	unsigned int i;

	if (got_out) {
		bool wait = d->flags & CMABUF_PREPARE_WAIT;
		bool expired = rel_now_ns() - start + FZ_TIMEOUT_SLACK_NS >=
			       timeout;

		if (out->ready > d->count ||
		    (wait && d->count && out->ready != d->count &&
		     !(expired && !out->ready)))
			fz_fail(f, FZ_IOCTL, "PREPARE of %u%s: %u ready",
				d->count, wait ? " with WAIT" : "",
				out->ready);
	}
	if (!d->count) {
		if (w)
			fz_want_forget(f, w);
		return;
	}
	for (i = 0; !w && i < FZ_MAX_WANTS; i++)
		if (!f->wants[i].used)
			w = &f->wants[i];
	if (!w) {
		/* No room in the model: take it back at once. */
		struct cmabuf_prepare drop = *d;

		drop.count = 0;
		drop.flags &= CMABUF_ALLOC_STRATEGY_MASK;
		drop.ready = 0;
		drop.pad = 0;
		if (ioctl(fd, CMABUF_IOC_PREPARE, &drop))
			fz_fail(f, FZ_IOCTL, "PREPARE of 0 to drop a want: %s",
				rel_errname(errno));
		return;
	}
	w->used = true;
	w->fd = fd;
	w->inst = inst;
	w->pages = rq->pages;
	w->align_order = rq->align_order;
	w->strategy = rq->strategy;
	w->count = d->count;
	w->sure_until = start + timeout - FZ_TIMEOUT_SLACK_NS;
}

void fz_op_prepare(struct fz *f)
{
	static struct fz_call c;
	struct cmabuf_prepare d, out;
	int inst, fd, err;
	struct fz_expect e;
	struct fz_req rq;
	bool applies;
	__u64 start;

	if (!f->prepare)
		return;
	/*
	 * Every other stretch has no wants, so that the other operations
	 * are judged strictly there: memory moves under the model only
	 * while buffers are being prepared.
	 */
	if ((f->op / FZ_PREPARE_EPOCH) % 2 == 0) {
		fz_prepare_drop_all(f);
		return;
	}
	f->prep_dirty = true;
	if (rel_chance(&f->rng, 15)) {
		fz_prepare_close(f);
		return;
	}
	if (rel_chance(&f->rng, 25) && fz_prepare_drop_one(f))
		return;
	inst = rel_below(&f->rng, f->ninst);
	fd = fz_prepare_file(f, inst);
	fz_prepare_template(f, &f->inst[inst], &d);
	fz_call_prepare(f, &c, _IOC_NR(CMABUF_IOC_PREPARE), sizeof(d), &d);
	fz_mutate(f, c.arg, c.size, sizeof(d),
		  offsetof(struct cmabuf_prepare, ready));
	fz_call_place(f, &c);
	fz_model_prepare(f, fd, inst, &c, &e, &rq, &applies);
	memset(&d, 0, sizeof(d));
	memcpy(&d, c.arg, fz_min(c.in, sizeof(d)));
	/* Nothing past what the fuzzer can afford to have made. */
	if (applies && e.may_succeed && rq.pages * d.count > 4 * FZ_SMALL_PAGES)
		return;
	if (applies && !fz_writable(f, c.ptr, c.out))
		fz_err(&e, EFAULT, "result not writable");

	fz_describe(f,
		    "PREPARE on %s fd %d: cmd %#x at %#lx: size %llu align %u flags %#x count %u timeout %u ready %u pad %u",
		    f->inst[inst].rel.name, fd, c.cmd, (unsigned long)c.ptr,
		    (unsigned long long)d.size, d.align, d.flags, d.count,
		    d.timeout_ms, d.ready, d.pad);
	start = rel_now_ns();
	err = fz_call(f, fd, &c, &out, sizeof(out));
	if (!fz_judge(f, FZ_IOCTL, &e, err))
		return;
	if (applies && (!err || err == EFAULT || err == ENOMEM ||
			err == EBUSY || err == EINTR))
		fz_prepare_done(f, fd, inst, &rq, &d, &out,
				!err && c.out >= sizeof(out), start);
}

/*
 * Let go of every want: our device files are closed and each instance's
 * own is opened anew (closing a file drops its wants, whatever the model
 * knows of them).
 */
void fz_prepare_drop_all(struct fz *f)
{
	unsigned int i;
	int fd;

	if (!f->prep_dirty)
		return;
	f->prep_dirty = false;
	fz_describe(f, "drop every want: close our device files");

	for (i = 0; i < FZ_MAX_PREP_FILES; i++) {
		if (f->prep_fds[i] < 0)
			continue;
		close(f->prep_fds[i]);
		fz_fd_closed(f, f->prep_fds[i]);
		f->prep_fds[i] = -1;
	}
	for (i = 0; i < FZ_MAX_WANTS; i++)
		if (f->wants[i].used)
			fz_want_forget(f, &f->wants[i]);
	for (i = 0; i < f->ninst; i++) {
		close(f->inst[i].fd);
		fz_fd_closed(f, f->inst[i].fd);
		fd = rel_instance_open(f->inst[i].rel.name, O_RDWR);
		if (fd < 0) {
			fz_fail(f, FZ_IOCTL, "reopen %s: %s",
				f->inst[i].rel.name, rel_errname(errno));
			continue;
		}
		f->inst[i].fd = fd;
		fz_fd_set(f, fd, FZ_FD_DEV, 0, i, O_RDWR);
	}
}
