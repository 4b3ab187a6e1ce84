// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf_fuzz: the cmabuf ioctls, issued through raw command numbers.
 *
 * The driver dispatches on the command's number alone; the direction bits
 * say whether the caller's structure is read (_IOC_WRITE) and written back
 * (_IOC_READ), and its size how much of it there is. So, by the header's
 * rules: the input is the first _IOC_SIZE bytes when _IOC_WRITE is set
 * (nothing otherwise), missing input reads as zero, input past the
 * kernel's structure must be zero, and the output is copied back into at
 * most _IOC_SIZE bytes when _IOC_READ is set. Every expectation below is
 * built from those rules and the errors each DOC block lists.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "fuzz.h"

static int fz_ioctl(int fd, unsigned long cmd, uintptr_t arg)
{
	return ioctl(fd, cmd, arg) ? errno : 0;
}

static bool fz_zero(const __u8 *p, size_t len)
{
	while (len--)
		if (*p++)
			return false;
	return true;
}

static int fz_pick_inst(struct fz *f)
{
	return rel_below(&f->rng, f->ninst);
}

__u32 fz_best(const struct fz_inst *in)
{
	if (in->rel.strategies & CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_FROZEN))
		return CMABUF_STRATEGY_FROZEN;
	if (in->rel.strategies & CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_LEGACY))
		return CMABUF_STRATEGY_LEGACY;
	return CMABUF_STRATEGY_DMA;
}

unsigned int fz_shift(const struct fz_inst *in)
{
	return __builtin_ctz(in->rel.page_size);
}

/* COMPOUND's order for @pages on @in, or -1 when its rules refuse. */
static int fz_compound_order(const struct fz_inst *in, __u64 pages)
{
	unsigned int order;

	if (!(in->rel.strategies &
	      CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_COMPOUND)) ||
	    !in->rel.max_order)
		return -1;
	if (pages < 2 || (pages & (pages - 1)))
		return -1;
	order = __builtin_ctzll(pages);
	if (order < in->rel.min_order || order > in->rel.max_order)
		return -1;
	return order;
}

/*
 * The size, alignment and strategy rules every allocation path shares
 * (cmabuf's ALLOC, its dma-heap, the bench file): the allocation
 * strategies DOC block and CMABUF_IOC_ALLOC's errors.
 */
void fz_model_request(const struct fz_inst *in, __u64 size, __u32 align,
		      __u32 strategy, struct fz_expect *e, struct fz_req *rq)
{
	unsigned int shift = fz_shift(in);
	bool size_ok = size && size <= FZ_MAX_BYTES(in->rel.page_size);
	int order;

	memset(rq, 0, sizeof(*rq));
	rq->strategy = strategy;
	if (strategy >= CMABUF_STRATEGY_COUNT)
		fz_err(e, EINVAL, "unknown strategy");
	if (!size)
		fz_err(e, EINVAL, "size 0");
	else if (size > FZ_MAX_BYTES(in->rel.page_size))
		fz_err(e, EINVAL, "size above 4 GiB minus a page");
	if (align > CMABUF_ALIGN_MAX)
		fz_err(e, EINVAL, "alignment above CMABUF_ALIGN_MAX");
	if (strategy < CMABUF_STRATEGY_COUNT &&
	    !(in->rel.strategies & CMABUF_STRATEGY_BIT(strategy))) {
		fz_err(e, EOPNOTSUPP, "strategy not supported");
		return;
	}
	if (!size_ok)
		return;

	rq->pages = (size + in->rel.page_size - 1) >> shift;
	rq->align_order = align > shift ? align - shift : 0;
	rq->too_big = in->rel.total_pages && rq->pages > in->rel.total_pages;
	order = fz_compound_order(in, rq->pages);
	if (strategy == CMABUF_STRATEGY_COMPOUND) {
		if (order < 0)
			fz_err(e, EINVAL, "COMPOUND order out of bounds");
		else if (rq->align_order > (unsigned int)order)
			fz_err(e, EINVAL, "COMPOUND alignment above its size");
		rq->compound = true;
	} else if (strategy == CMABUF_STRATEGY_AUTO) {
		rq->compound = order >= 0 &&
			       rq->align_order <= (unsigned int)order;
	}
	/*
	 * DMA takes what the DMA API gives: the size rounded up to a power of
	 * two, and no more than CONFIG_CMA_ALIGNMENT, at least 2 (Kconfig).
	 * AUTO is DMA where the instance has nothing else (a kernel that
	 * exports nothing of CMA, such as Debian's 6.x: cmabuf_plan_make()).
	 */
	if ((strategy == CMABUF_STRATEGY_DMA ||
	     (strategy == CMABUF_STRATEGY_AUTO &&
	      !(in->rel.strategies & (CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_COMPOUND) |
				      CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_FROZEN) |
				      CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_LEGACY))))) &&
	    rq->align_order) {
		unsigned int most = rq->pages > 1 ?
				    64 - __builtin_clzll(rq->pages - 1) : 0;

		if (rq->align_order > most)
			fz_err(e, EINVAL, "DMA alignment above its size");
		else if (rq->align_order > 2)
			fz_err(e, EINVAL, NULL);
	}
}

/*
 * A valid request may still find no memory. ENOMEM is required when it
 * exceeds the area. It may fail when it depends on an aligned range
 * (COMPOUND without fallback, an explicit alignment) or needs more than
 * the largest free range: with ENOMEM when the area has fewer free pages
 * than it asks, EBUSY when it has them (fz_model_no_range()); otherwise
 * the allocation must succeed. Where buffers are being prepared in the
 * area, memory moves under the model: it may fail either way.
 */
static void fz_model_nomem(struct fz *f, int inst, const struct fz_req *rq,
			   __u64 pages, bool fallback, struct fz_expect *e)
{
	__u64 chunk = 0;

	if (rq->too_big) {
		fz_err(e, ENOMEM, "larger than the area");
		return;
	}
	if (fz_area_busy(f, inst) || fz_inst_maxchunk(f, inst, &chunk) ||
	    pages > chunk || rq->align_order || (rq->compound && !fallback))
		fz_model_no_range(f, inst, pages, e);
}

/*
 * The caller's copy-in, as copy_struct_from_user() does it: first the
 * bytes past the kernel's structure must be zero, checked in order, so a
 * non-zero byte before a hole is EINVAL and a hole before any is EFAULT;
 * then the structure must be readable (else nothing else can be judged).
 */
bool fz_model_copy_in(struct fz *f, const struct fz_call *c,
		      unsigned int ksize, unsigned int out_from,
		      struct fz_expect *e)
{
	unsigned int n = fz_min(c->in, ksize), tail = 0;
	const __u8 *past = c->arg + ksize;

	if (c->in > ksize) {
		tail = c->in - ksize;
		/*
		 * Placed, the kernel reads what lies there: a structure that
		 * starts in a guard page can reach into the next page with
		 * bytes an earlier call left behind, not those of @arg.
		 */
		if (c->placed) {
			tail = fz_readable_prefix(f, c->ptr + ksize, tail);
			past = (const __u8 *)(c->ptr + ksize);
		}
		if (!fz_zero(past, tail)) {
			fz_err(e, EINVAL, "non-zero bytes past the structure");
			return false;
		}
		if (tail < c->in - ksize) {
			fz_err(e, EFAULT, "bytes past the structure not readable");
			return false;
		}
	}
	if (c->placed && !fz_readable(f, c->ptr, n)) {
		fz_err(e, EFAULT, "argument not readable");
		return false;
	}
	if (out_from < n && !fz_zero(c->arg + out_from, n - out_from))
		fz_err(e, EINVAL, "output field or pad not zero");
	return true;
}

void fz_call_prepare(struct fz *f, struct fz_call *c, unsigned int nr,
		     unsigned int ksize, const void *tmpl)
{
	c->cmd = fz_cmd(f, CMABUF_IOC_MAGIC, nr, ksize, &c->dir, &c->size);
	c->in = c->dir & _IOC_WRITE ? c->size : 0;
	c->out = c->dir & _IOC_READ ? fz_min(c->size, ksize) : 0;
	c->placed = false;
	c->ptr = 0;
	memset(c->arg, 0, c->size);
	memcpy(c->arg, tmpl, fz_min(c->size, ksize));
}

/* Put the argument somewhere, good or bad. */
void fz_call_place(struct fz *f, struct fz_call *c)
{
	c->ptr = fz_place(f, c->arg, c->size);
	c->placed = true;
}

/* Issue @c on @fd; check nothing past what it may write back moved. */
int fz_call(struct fz *f, int fd, struct fz_call *c, void *out,
	    size_t out_size)
{
	int err;

	err = fz_ioctl(fd, c->cmd, c->ptr);
	if (!fz_intact(f, c->ptr, c->out, c->size, c->arg))
		fz_fail(f, FZ_IOCTL, "wrote past the %u bytes it may copy back",
			c->out);
	memset(out, 0, out_size);
	if (fz_readable(f, c->ptr, c->out))
		memcpy(out, (void *)c->ptr, fz_min(c->out, out_size));
	return err;
}

/* A request that is often right and sometimes at an edge. */
static void fz_alloc_template(struct fz *f, const struct fz_inst *in,
			      struct cmabuf_alloc_data *d)
{
	unsigned int page = in->rel.page_size, roll = rel_below(&f->rng, 100);
	__u32 s;

	memset(d, 0, sizeof(*d));
	if (roll < 60)
		d->size = 1 + rel_below(&f->rng, 16 * page);
	else if (roll < 72)
		d->size = (1 + rel_below(&f->rng, 64)) * (__u64)page;
	else if (roll < 80)
		d->size = (__u64)page << (in->rel.min_order +
					     rel_below(&f->rng, 3));
	else if (roll < 85 && in->rel.total_pages)
		d->size = (in->rel.total_pages + rel_below(&f->rng, 3)) * page;
	else
		d->size = fz_boundary(f);

	d->align = rel_chance(&f->rng, 80) ? 0 : rel_below(&f->rng, 46);
	d->fd_flags = O_RDWR | O_CLOEXEC;
	if (rel_chance(&f->rng, 25))
		d->fd_flags = rel_below(&f->rng, 4) |
			      (rel_chance(&f->rng, 50) ? O_CLOEXEC : 0);
	if (rel_chance(&f->rng, 4))
		d->fd_flags |= 1U << rel_below(&f->rng, 32);

	do {
		s = rel_below(&f->rng, CMABUF_STRATEGY_COUNT);
	} while (!(in->rel.strategies & CMABUF_STRATEGY_BIT(s)) &&
		 rel_chance(&f->rng, 90));
	d->flags = s;
	if (rel_chance(&f->rng, 5))
		d->flags = rel_chance(&f->rng, 50) ? rel_below(&f->rng, 256) :
						     (__u32)rel_rand(&f->rng);
}

static void fz_model_alloc(struct fz *f, int inst, const struct fz_call *c,
			   struct fz_expect *e, struct fz_req *rq)
{
	const unsigned int ksize = sizeof(struct cmabuf_alloc_data);
	struct cmabuf_alloc_data d = { 0 };

	fz_expect_init(e);
	memset(rq, 0, sizeof(*rq));
	if (!fz_model_copy_in(f, c, ksize, ksize, e))
		return;
	memcpy(&d, c->arg, fz_min(c->in, ksize));
	if (c->out < offsetof(struct cmabuf_alloc_data, pad))
		fz_err(e, EINVAL, "structure too short for fd");
	if (d.alloc_size || d.strategy || d.fd || d.pad || d.buf_flags ||
	    d.pad2)
		fz_err(e, EINVAL, "output field or pad not zero");
	if (d.flags & ~CMABUF_ALLOC_VALID_FLAGS)
		fz_err(e, EINVAL, "unknown flag");
	if (d.fd_flags & ~CMABUF_VALID_FD_FLAGS)
		fz_err(e, EINVAL, "unknown fd flag");
	fz_model_request(&f->inst[inst], d.size, d.align,
			 d.flags & CMABUF_ALLOC_STRATEGY_MASK, e, rq);
}

/* A valid request that would allocate too much for a fuzzer: shrink it. */
static bool fz_alloc_clamp(struct fz *f, const struct fz_req *rq,
			   struct fz_call *c, unsigned int page)
{
	__u64 size;

	if (rq->too_big || rq->pages <= FZ_SMALL_PAGES ||
	    c->in < offsetof(struct cmabuf_alloc_data, alloc_size))
		return false;
	size = (1 + rel_below(&f->rng, 8)) * (__u64)page;
	memcpy(c->arg + offsetof(struct cmabuf_alloc_data, size), &size,
	       sizeof(size));
	return true;
}

/* Check what a successful ALLOC returned and take the buffer in. */
static void fz_alloc_done(struct fz *f, int inst, const struct fz_req *rq,
			  const struct cmabuf_alloc_data *in,
			  const struct cmabuf_alloc_data *out)
{
	const struct fz_inst *fi = &f->inst[inst];
	__u64 want = rq->pages * fi->rel.page_size;
	int fd = out->fd, fl, b;
	__u32 s = out->strategy;
	bool strategy_ok;

	if (rq->strategy != CMABUF_STRATEGY_AUTO)
		strategy_ok = s == rq->strategy;
	else
		strategy_ok = s == fz_best(fi) ||
			      (rq->compound && s == CMABUF_STRATEGY_COMPOUND) ||
			      fz_prepared_strategy(f, inst, rq->pages, s);
	if (out->alloc_size != want)
		fz_fail(f, FZ_IOCTL, "alloc_size %llu, expected %llu",
			(unsigned long long)out->alloc_size,
			(unsigned long long)want);
	if (!strategy_ok)
		fz_fail(f, FZ_IOCTL, "strategy %u for a request of %u", s,
			rq->strategy);
	if (fd < 0 || fd >= FZ_MAX_FDS || f->fds[fd].kind != FZ_FD_NONE) {
		fz_fail(f, FZ_IOCTL, "returned fd %d, which is not a new fd",
			fd);
		return;
	}
	fl = fcntl(fd, F_GETFD);
	if (fl < 0 || !!(fl & FD_CLOEXEC) != !!(in->fd_flags & O_CLOEXEC))
		fz_fail(f, FZ_IOCTL, "fd %d: close-on-exec %d for fd_flags %#x",
			fd, fl, in->fd_flags);
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || (fl & O_ACCMODE) != (int)(in->fd_flags & O_ACCMODE))
		fz_fail(f, FZ_IOCTL, "fd %d: flags %#x for fd_flags %#x", fd,
			fl, in->fd_flags);

	b = fz_buf_new(f, inst, want, strategy_ok ? s : rq->strategy,
		       in->align);
	if (b < 0) {
		close(fd);
		return;
	}
	fz_fd_set(f, fd, FZ_FD_BUF, b, inst, in->fd_flags & O_ACCMODE);
}

/* Room for one more buffer and its fd? Otherwise close something. */
static bool fz_room(struct fz *f)
{
	unsigned int i, used = 0;

	for (i = 0; i < FZ_MAX_BUFS; i++)
		used += f->bufs[i].used;
	if (used < FZ_MAX_BUFS - 1 && f->open < FZ_MAX_OPEN)
		return true;
	fz_op_close(f);
	return false;
}

void fz_op_alloc(struct fz *f)
{
	static struct fz_call c;
	struct cmabuf_alloc_data d, out;
	int inst = fz_pick_inst(f), err;
	struct fz_expect e;
	struct fz_req rq;

	if (!fz_room(f))
		return;
	fz_alloc_template(f, &f->inst[inst], &d);
	fz_call_prepare(f, &c, _IOC_NR(CMABUF_IOC_ALLOC), sizeof(d), &d);
	fz_mutate(f, c.arg, c.size, sizeof(d),
		  offsetof(struct cmabuf_alloc_data, strategy));
	fz_model_alloc(f, inst, &c, &e, &rq);
	if (e.may_succeed)
		fz_alloc_clamp(f, &rq, &c, f->inst[inst].rel.page_size);
	fz_call_place(f, &c);
	fz_model_alloc(f, inst, &c, &e, &rq);
	memset(&d, 0, sizeof(d));
	memcpy(&d, c.arg, fz_min(c.in, sizeof(d)));

	fz_describe(f, "ALLOC on %s: cmd %#x at %#lx: size %llu align %u fd_flags %#x flags %#x",
		    f->inst[inst].rel.name, c.cmd, (unsigned long)c.ptr,
		    (unsigned long long)d.size, d.align, d.fd_flags, d.flags);
	if (e.may_succeed) {
		fz_model_nomem(f, inst, &rq, rq.pages,
			       rq.strategy == CMABUF_STRATEGY_AUTO, &e);
		if (!rq.too_big && !fz_writable(f, c.ptr, c.out))
			fz_err(&e, EFAULT, "result not writable");
	}
	err = fz_call(f, f->inst[inst].fd, &c, &out, sizeof(out));
	if (!fz_judge(f, FZ_IOCTL, &e, err) || err)
		goto unexpected;
	/* Write-combined only when asked; the instance may say no. */
	if (c.out >= offsetof(struct cmabuf_alloc_data, pad2) &&
	    out.buf_flags & ~(d.flags & CMABUF_ALLOC_WRITECOMBINE ?
			      CMABUF_BUF_WRITECOMBINE : 0))
		fz_fail(f, FZ_IOCTL, "buf_flags %#x for flags %#x",
			out.buf_flags, d.flags);
	fz_alloc_done(f, inst, &rq, &d, &out);
	return;

unexpected:
	/* A success that should not be still returned a live fd. */
	if (!err && c.out >= offsetof(struct cmabuf_alloc_data, pad) &&
	    out.fd < FZ_MAX_FDS && f->fds[out.fd].kind == FZ_FD_NONE)
		close(out.fd);
}

/* Did the caller get all of the field that ends where @next begins? */
#define FZ_HAS(next)	(out >= offsetof(struct cmabuf_info, next))

static void fz_info_check(struct fz *f, int inst,
			  const struct cmabuf_info *o, unsigned int out)
{
	const struct fz_inst *in = &f->inst[inst];
	__u64 live, bytes, total = in->rel.total_pages * in->rel.page_size;
	unsigned int len = strlen(in->rel.area) + 1;

	fz_model_live(f, inst, &live, &bytes);
	if (FZ_HAS(total_bytes) && o->area_name_len != len)
		fz_fail(f, FZ_IOCTL, "area_name_len %u, expected %u",
			o->area_name_len, len);
	if (FZ_HAS(free_bytes) && total && o->total_bytes != total)
		fz_fail(f, FZ_IOCTL, "total_bytes %llu, expected %llu",
			(unsigned long long)o->total_bytes,
			(unsigned long long)total);
	if (FZ_HAS(live_bytes) && total &&
	    o->free_bytes + o->used_bytes != total)
		fz_fail(f, FZ_IOCTL, "free %llu + used %llu != total",
			(unsigned long long)o->free_bytes,
			(unsigned long long)o->used_bytes);
	if (FZ_HAS(live_buffers) && o->live_bytes != bytes)
		fz_fail(f, FZ_LIVE, "INFO live_bytes %llu, model %llu",
			(unsigned long long)o->live_bytes,
			(unsigned long long)bytes);
	if (FZ_HAS(page_size) && o->live_buffers != live)
		fz_fail(f, FZ_LIVE, "INFO live_buffers %llu, model %llu",
			(unsigned long long)o->live_buffers,
			(unsigned long long)live);
	if (FZ_HAS(max_compound_order) && o->page_size != in->rel.page_size)
		fz_fail(f, FZ_IOCTL, "page_size %u", o->page_size);
	if (FZ_HAS(strategies) &&
	    o->max_compound_order != in->rel.max_order)
		fz_fail(f, FZ_IOCTL, "max_compound_order changed to %u",
			o->max_compound_order);
	if (FZ_HAS(flags) && o->strategies != in->rel.strategies)
		fz_fail(f, FZ_IOCTL, "strategies changed to %#x",
			o->strategies);
	if (FZ_HAS(version) &&
	    o->min_compound_order != in->rel.min_order)
		fz_fail(f, FZ_IOCTL, "min_compound_order changed to %u",
			o->min_compound_order);
	if (out >= sizeof(*o) && !o->version)
		fz_fail(f, FZ_IOCTL, "no driver version written back");
}

/* The name INFO wrote: the area's, cut to fit, NUL-terminated, no more. */
static void fz_info_name_check(struct fz *f, int inst, uintptr_t ptr,
			       __u32 size)
{
	const char *area = f->inst[inst].rel.area;
	size_t n = fz_min(strlen(area), (size_t)size - 1);
	const char *got = (const char *)ptr;

	if (!ptr || !size || !fz_writable(f, ptr, n + 2))
		return;
	if (memcmp(got, area, n) || got[n] != '\0' ||
	    (__u8)got[n + 1] != 0xc5)
		fz_fail(f, FZ_IOCTL, "area name \"%.*s\" for \"%s\" in %u bytes",
			(int)n, got, area, size);
}

void fz_op_info(struct fz *f)
{
	static struct fz_call c;
	int inst = fz_pick_inst(f), err;
	struct cmabuf_info d = { 0 }, out;
	struct fz_expect e;
	__u32 len, size;
	__u64 name;

	d.area_name_size = rel_chance(&f->rng, 60) ? 64 :
			   rel_chance(&f->rng, 75) ? rel_below(&f->rng, 24) :
						     fz_boundary(f);
	len = fz_min(d.area_name_size, 256U);
	d.area_name_ptr = rel_chance(&f->rng, 10) ? 0 :
			  fz_place_name(f, NULL, len + 8);
	name = d.area_name_ptr;
	size = d.area_name_size;
	fz_call_prepare(f, &c, _IOC_NR(CMABUF_IOC_INFO), sizeof(d), &d);
	fz_mutate(f, c.arg, c.size, sizeof(d),
		  offsetof(struct cmabuf_info, area_name_len));
	/*
	 * The name pointer stays as placed: mutated, it could point at any
	 * memory of this process, which the kernel would then write to.
	 */
	memcpy(c.arg, &name, fz_min(c.size, sizeof(name)));
	fz_call_place(f, &c);
	memset(&d, 0, sizeof(d));
	memcpy(&d, c.arg, fz_min(c.in, sizeof(d)));

	fz_expect_init(&e);
	if (fz_model_copy_in(f, &c, sizeof(d),
			     offsetof(struct cmabuf_info, area_name_len), &e) &&
	    e.may_succeed && d.area_name_ptr && d.area_name_size &&
	    !fz_writable(f, d.area_name_ptr,
			 fz_min(strlen(f->inst[inst].rel.area),
				(size_t)d.area_name_size - 1) + 1))
		fz_err(&e, EFAULT, "name buffer not writable");

	if (e.may_succeed && !fz_writable(f, c.ptr, c.out))
		fz_err(&e, EFAULT, "result not writable");

	fz_describe(f, "INFO on %s: cmd %#x at %#lx: name %#llx/%u",
		    f->inst[inst].rel.name, c.cmd, (unsigned long)c.ptr,
		    (unsigned long long)d.area_name_ptr, d.area_name_size);
	err = fz_call(f, f->inst[inst].fd, &c, &out, sizeof(out));
	if (!fz_judge(f, FZ_IOCTL, &e, err) || err)
		return;
	fz_info_check(f, inst, &out, c.out);
	/* Canaries follow the name only where it was put, not mutated to. */
	if (d.area_name_ptr == name && d.area_name_size == size)
		fz_info_name_check(f, inst, name, size);
}

/* PHYS told where buffer @b lives: check it against what is known. */
static void fz_phys_check(struct fz *f, int b, __u64 phys, __u64 size)
{
	struct fz_buf *buf = &f->bufs[b];
	const struct fz_inst *in = &f->inst[buf->inst];
	__u64 page = in->rel.page_size, base, end;
	int i;

	if (size != buf->size)
		fz_fail(f, FZ_IOCTL, "buffer %u: size %llu, expected %llu",
			buf->id, (unsigned long long)size,
			(unsigned long long)buf->size);
	if (phys % page ||
	    (buf->strategy == CMABUF_STRATEGY_COMPOUND && phys % buf->size) ||
	    (buf->align > fz_shift(in) && buf->align < 64 &&
	     phys % (1ULL << buf->align)))
		fz_fail(f, FZ_IOCTL, "buffer %u (strategy %u align %u): misaligned at %#llx",
			buf->id, buf->strategy, buf->align,
			(unsigned long long)phys);
	base = in->rel.base_pfn * page;
	end = base + in->rel.total_pages * page;
	if (in->rel.base_pfn && in->rel.total_pages &&
	    (phys < base || phys + buf->size > end))
		fz_fail(f, FZ_IOCTL, "buffer %u at %#llx, outside area %s",
			buf->id, (unsigned long long)phys, in->rel.area);
	if (buf->phys_known && buf->phys != phys)
		fz_fail(f, FZ_IOCTL, "buffer %u moved from %#llx to %#llx",
			buf->id, (unsigned long long)buf->phys,
			(unsigned long long)phys);
	for (i = 0; i < FZ_MAX_BUFS; i++) {
		const struct fz_buf *o = &f->bufs[i];

		if (i == b || !o->used || !o->phys_known)
			continue;
		if (phys < o->phys + o->size && o->phys < phys + buf->size)
			fz_fail(f, FZ_IOCTL, "buffers %u and %u overlap",
				buf->id, o->id);
	}
	buf->phys = phys;
	buf->phys_known = true;
}

void fz_op_phys(struct fz *f)
{
	static struct fz_call c;
	int inst = fz_pick_inst(f), err, fd;
	struct cmabuf_phys d = { 0 }, out;
	const struct fz_fd *e_fd;
	struct fz_expect e;

	d.fd = fz_pick_any_fd(f);
	fz_call_prepare(f, &c, _IOC_NR(CMABUF_IOC_PHYS), sizeof(d), &d);
	fz_mutate(f, c.arg, c.size, sizeof(d),
		  offsetof(struct cmabuf_phys, pad));
	fz_call_place(f, &c);
	memset(&d, 0, sizeof(d));
	memcpy(&d, c.arg, fz_min(c.in, sizeof(d)));
	fd = (int)d.fd;

	fz_expect_init(&e);
	if (!f->root)
		fz_err(&e, EPERM, "no CAP_SYS_RAWIO");
	e_fd = fd >= 0 && fd < FZ_MAX_FDS ? &f->fds[fd] : NULL;
	if (fz_model_copy_in(f, &c, sizeof(d),
			     offsetof(struct cmabuf_phys, pad), &e)) {
		if (!e_fd || e_fd->kind == FZ_FD_NONE)
			fz_err(&e, EBADF, "fd not open");
		else if (e_fd->kind != FZ_FD_BUF ||
			 f->bufs[e_fd->buf].inst < 0)
			fz_err(&e, EINVAL, "not a cmabuf dma-buf");
	}

	if (e.may_succeed && !fz_writable(f, c.ptr, c.out))
		fz_err(&e, EFAULT, "result not writable");

	fz_describe(f, "PHYS on %s: cmd %#x at %#lx: fd %d pad %u",
		    f->inst[inst].rel.name, c.cmd, (unsigned long)c.ptr, fd,
		    d.pad);
	err = fz_call(f, f->inst[inst].fd, &c, &out, sizeof(out));
	if (!fz_judge(f, FZ_IOCTL, &e, err) || err)
		return;
	if (c.out >= sizeof(out))
		fz_phys_check(f, e_fd->buf, out.phys, out.size);
}

/* The numbers of cmabuf's ioctls: ALLOC, INFO, PHYS, PREPARE, SYNC, RW. */
static bool fz_known_nr(unsigned int nr)
{
	return nr == _IOC_NR(CMABUF_IOC_ALLOC) ||
	       nr == _IOC_NR(CMABUF_IOC_INFO) ||
	       nr == _IOC_NR(CMABUF_IOC_PHYS) ||
	       nr == _IOC_NR(CMABUF_IOC_PREPARE) ||
	       nr == _IOC_NR(CMABUF_IOC_SYNC) ||
	       nr == _IOC_NR(CMABUF_IOC_RW);
}

/*
 * Commands the driver does not know: other numbers of its type (0x02,
 * BENCH's until the benchmark went to debugfs, among them), and other
 * types (none of which the VFS handles itself): ENOTTY, whatever the
 * argument.
 */
void fz_op_unknown(struct fz *f)
{
	int inst = fz_pick_inst(f), err;
	unsigned int type, nr, dir, size, cmd;
	struct fz_expect e;
	uintptr_t ptr;

	type = CMABUF_IOC_MAGIC;
	nr = rel_chance(&f->rng, 10) ? 0x02 : 4 + rel_below(&f->rng, 252);
	if (rel_chance(&f->rng, 30)) {
		type = 0xb0 + rel_below(&f->rng, 16);
		nr = rel_below(&f->rng, 256);
	}
	dir = rel_below(&f->rng, 4);
	size = rel_chance(&f->rng, 50) ? rel_below(&f->rng, 256) :
					 rel_below(&f->rng, 1 << 14);
	cmd = _IOC(dir, type, nr, size);
	if (type == CMABUF_IOC_MAGIC && fz_known_nr(nr))
		return;
	ptr = rel_chance(&f->rng, 50) ? (uintptr_t)f->arena.rw :
					fz_bad_pointer(f);

	fz_describe(f, "unknown command %#x on %s", cmd,
		    f->inst[inst].rel.name);
	fz_expect_init(&e);
	fz_err(&e, ENOTTY, "unknown command");
	err = fz_ioctl(f->inst[inst].fd, cmd, ptr);
	fz_judge(f, FZ_IOCTL, &e, err);
}

/*
 * A checkpoint: each instance's live buffers and bytes, from INFO and from
 * sysfs, against the model.
 */
void fz_check_live(struct fz *f)
{
	unsigned long long sys_live, sys_bytes;
	struct cmabuf_info info;
	__u64 live, bytes;
	unsigned int i;

	f->checkpoints++;
	f->ops[FZ_LIVE]++;
	fz_describe(f, "live counters checkpoint");
	for (i = 0; i < f->ninst; i++) {
		const char *name = f->inst[i].rel.name;

		fz_model_live(f, i, &live, &bytes);
		memset(&info, 0, sizeof(info));
		if (ioctl(f->inst[i].fd, CMABUF_IOC_INFO, &info)) {
			fz_fail(f, FZ_LIVE, "%s: INFO failed: %s", name,
				rel_errname(errno));
			continue;
		}
		if (info.live_buffers != live || info.live_bytes != bytes)
			fz_fail(f, FZ_LIVE,
				"%s: INFO says %llu buffers/%llu bytes live, model %llu/%llu",
				name, (unsigned long long)info.live_buffers,
				(unsigned long long)info.live_bytes,
				(unsigned long long)live,
				(unsigned long long)bytes);
		if (rel_stat_read(name, "stats", "live_buffers", &sys_live) ||
		    rel_stat_read(name, "stats", "live_bytes", &sys_bytes) ||
		    sys_live != live || sys_bytes != bytes)
			fz_fail(f, FZ_LIVE,
				"%s: sysfs says %llu buffers/%llu bytes live, model %llu/%llu",
				name, sys_live, sys_bytes,
				(unsigned long long)live,
				(unsigned long long)bytes);
	}
}

/* A plain AUTO allocation, taken into the model; false when it failed. */
bool fz_alloc_simple(struct fz *f, int inst, __u64 size, int *fd)
{
	struct cmabuf_alloc_data d = {
		.size = size,
		.fd_flags = O_RDWR | O_CLOEXEC,
	};
	int b;

	if (ioctl(f->inst[inst].fd, CMABUF_IOC_ALLOC, &d))
		return false;
	b = fz_buf_new(f, inst, d.alloc_size, d.strategy, 0);
	if (b < 0) {
		close(d.fd);
		return false;
	}
	fz_fd_set(f, d.fd, FZ_FD_BUF, b, inst, O_RDWR);
	*fd = d.fd;
	return true;
}
