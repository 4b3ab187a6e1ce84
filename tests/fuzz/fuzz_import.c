// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf_fuzz: the test importer (tests/importer/cmabuf_importer.h) and
 * the dma-heaps, cmabuf's own and the system heap (a foreign exporter).
 *
 * The importer takes exactly its structures' sizes (any other command is
 * ENOTTY) and documents its errors per command; a CHECK of a cmabuf
 * buffer must see one segment covering the buffer at its physical
 * address, and the pattern userspace left. A dma-heap allocation follows
 * the dma-heap core of the running kernel (which reads and writes the
 * caller's whole structure and ignores unknown trailing bytes), then
 * cmabuf's size rules with the AUTO strategy.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/dma-heap.h>

#include "fuzz.h"

#define FZ_MAX_FOREIGN	4

#define FZ_STEPS_ALL	(((1U << CMABUF_IMPORTER_STEP_COUNT) - 1) & \
			 ~CMABUF_IMPORTER_STEP_BIT(CMABUF_IMPORTER_STEP_NONE))

static bool fz_zero(const __u8 *p, size_t len)
{
	while (len--)
		if (*p++)
			return false;
	return true;
}

/* The importer's command @cmd, or now and then a wrong size or direction. */
static unsigned int fz_imp_cmd(struct fz *f, unsigned int cmd, bool *exact)
{
	unsigned int dir = _IOC_DIR(cmd), size = _IOC_SIZE(cmd);

	*exact = rel_chance(&f->rng, 94);
	if (*exact)
		return cmd;
	if (rel_chance(&f->rng, 50))
		dir ^= 1 + rel_below(&f->rng, 3);
	else
		size = size + 8 * (rel_below(&f->rng, 5) + 1) *
		       (rel_chance(&f->rng, 50) ? 1 : -1);
	if (dir == _IOC_DIR(cmd) && size == _IOC_SIZE(cmd))
		size += 4;
	return _IOC(dir, _IOC_TYPE(cmd), _IOC_NR(cmd), size & 0x3fff);
}

/* EBADF or EINVAL for an fd that cannot be taken as a dma-buf. */
static void fz_model_dmabuf_fd(struct fz *f, int fd, struct fz_expect *e)
{
	if (fd < 0 || fd >= FZ_MAX_FDS || f->fds[fd].kind == FZ_FD_NONE)
		fz_err(e, EBADF, "fd not open");
	else if (f->fds[fd].kind != FZ_FD_BUF)
		fz_err(e, EINVAL, "not a dma-buf");
}

/*
 * What CHECK and HOLD have in common: their exact command, a readable
 * structure, no unknown flag (@bad_flags), zero output fields from
 * @out_from on, and an fd of a dma-buf. False when the structure could
 * not even be read.
 */
static bool fz_model_imp(struct fz *f, bool exact, uintptr_t ptr,
			 const void *d, size_t ksize, size_t out_from,
			 __u32 bad_flags, int fd, struct fz_expect *e)
{
	if (!exact) {
		fz_err(e, ENOTTY, "not the importer's command");
		return false;
	}
	if (!fz_readable(f, ptr, ksize)) {
		fz_err(e, EFAULT, "argument not readable");
		return false;
	}
	if (bad_flags || !fz_zero((const __u8 *)d + out_from, ksize - out_from))
		fz_err(e, EINVAL, "unknown flag or output field set");
	fz_model_dmabuf_fd(f, fd, e);
	return true;
}

static int fz_buf_of(const struct fz *f, int fd)
{
	if (fd < 0 || fd >= FZ_MAX_FDS || f->fds[fd].kind != FZ_FD_BUF)
		return -1;
	return f->fds[fd].buf;
}

/* Pattern words of @seed that the importer should find different. */
static __u64 fz_expected_mismatches(const struct fz *f,
				    const struct fz_buf *b, __u64 seed,
				    __u64 words)
{
	__u64 n = 0;
	unsigned int i;

	if (!b->pattern || b->seed != seed)
		return words;
	for (i = 0; i < b->nmarks; i++)
		if (b->marks[i].val !=
		    cmabuf_importer_pattern(seed, b->marks[i].page * f->page))
			n++;
	return n;
}

/* The importer read what userspace (or its own last write) left. */
static void fz_check_verified(struct fz *f, const struct fz_buf *buf,
			      const struct cmabuf_importer_check *o)
{
	__u64 words = buf->size / CMABUF_IMPORTER_PATTERN_STRIDE;
	__u64 bad = fz_expected_mismatches(f, buf, o->seed_in, words);

	f->ops[FZ_DATA]++;
	if (o->words_checked == words && o->mismatches == bad)
		return;
	fz_fail(f, FZ_DATA, "buffer %u: %llu/%llu words differ, not %llu/%llu (%llu: %#llx)",
		buf->id, (unsigned long long)o->mismatches,
		(unsigned long long)o->words_checked, (unsigned long long)bad,
		(unsigned long long)words,
		(unsigned long long)o->first_bad_offset,
		(unsigned long long)o->first_bad_value);
}

/* What a CHECK of cmabuf buffer @b must report. */
static void fz_check_result(struct fz *f, int b, __u32 flags,
			    const struct cmabuf_importer_check *o)
{
	struct fz_buf *buf = &f->bufs[b];
	__u32 steps = FZ_STEPS_ALL;

	if (!(flags & CMABUF_IMPORTER_CHECK_VERIFY))
		steps &= ~CMABUF_IMPORTER_STEP_BIT(CMABUF_IMPORTER_STEP_VERIFY);
	if (!(flags & CMABUF_IMPORTER_CHECK_WRITE))
		steps &= ~CMABUF_IMPORTER_STEP_BIT(CMABUF_IMPORTER_STEP_WRITE);

	if (o->failed_step || o->error || o->steps_done != steps)
		fz_fail(f, FZ_IMPORT, "buffer %u: steps %#x (want %#x), step %u failed with %d",
			buf->id, o->steps_done, steps, o->failed_step,
			o->error);
	if (o->size != buf->size || o->dma_segments != 1 ||
	    o->sg_entries != 1 || o->dma_len != buf->size ||
	    o->dma_total != buf->size)
		fz_fail(f, FZ_IMPORT, "buffer %u: size %llu, segments %u/%u, %llu of %llu",
			buf->id, (unsigned long long)o->size, o->dma_segments,
			o->sg_entries, (unsigned long long)o->dma_len,
			(unsigned long long)o->dma_total);
	if (buf->phys_known && o->dma_addr != buf->phys)
		fz_fail(f, FZ_IMPORT, "buffer %u: DMA address %#llx, physical %#llx",
			buf->id, (unsigned long long)o->dma_addr,
			(unsigned long long)buf->phys);
	if (flags & CMABUF_IMPORTER_CHECK_VERIFY)
		fz_check_verified(f, buf, o);
	if (flags & CMABUF_IMPORTER_CHECK_WRITE) {
		buf->pattern = true;
		buf->seed = o->seed_out;
		buf->nmarks = 0;
	}
}

void fz_op_check(struct fz *f)
{
	struct cmabuf_importer_check d = { 0 }, out;
	const size_t ksize = sizeof(d);
	bool exact, ran = false;
	unsigned int cmd;
	struct fz_expect e;
	uintptr_t ptr;
	int b, err;

	if (f->imp < 0)
		return;
	d.fd = fz_pick_any_fd(f);
	b = fz_buf_of(f, d.fd);
	d.flags = rel_chance(&f->rng, 85) ? rel_below(&f->rng, 4) :
					    fz_boundary(f);
	if (b >= 0 && f->bufs[b].size > FZ_CHECK_BYTES)
		d.flags &= ~CMABUF_IMPORTER_CHECK_VALID_FLAGS;
	d.seed_in = b >= 0 && f->bufs[b].pattern && rel_chance(&f->rng, 80) ?
		    f->bufs[b].seed : rel_rand(&f->rng);
	d.seed_out = rel_rand(&f->rng);
	fz_mutate(f, (__u8 *)&d, ksize, ksize,
		  offsetof(struct cmabuf_importer_check, size));
	b = fz_buf_of(f, d.fd);
	cmd = fz_imp_cmd(f, CMABUF_IMPORTER_IOC_CHECK, &exact);
	ptr = fz_place(f, &d, ksize);

	fz_expect_init(&e);
	if (fz_model_imp(f, exact, ptr, &d, ksize,
			 offsetof(struct cmabuf_importer_check, size),
			 d.flags & ~CMABUF_IMPORTER_CHECK_VALID_FLAGS, d.fd, &e) &&
	    e.may_succeed && !fz_writable(f, ptr, ksize)) {
		fz_err(&e, EFAULT, "result not writable");
		ran = true;
	}
	fz_describe(f, "importer CHECK cmd %#x at %#lx: fd %d flags %#x",
		    cmd, (unsigned long)ptr, (int)d.fd, d.flags);
	err = ioctl(f->imp, cmd, ptr) ? errno : 0;
	if (!fz_judge(f, FZ_IMPORT, &e, err))
		return;
	if (err == EFAULT && ran &&
	    (d.flags & CMABUF_IMPORTER_CHECK_WRITE) && b >= 0) {
		/* Every step ran; only the report could not be written. */
		f->bufs[b].pattern = true;
		f->bufs[b].seed = d.seed_out;
		f->bufs[b].nmarks = 0;
	}
	if (err)
		return;
	memcpy(&out, (void *)ptr, ksize);
	if (b >= 0 && f->bufs[b].inst >= 0)
		fz_check_result(f, b, d.flags, &out);
}

static int fz_hold_slot(const struct fz *f, __u32 handle)
{
	int i;

	for (i = 0; i < FZ_MAX_HOLDS; i++)
		if (f->holds[i].handle && f->holds[i].handle == handle)
			return i;
	return -1;
}

static void fz_hold_done(struct fz *f, int b, __u32 flags,
			 const struct cmabuf_importer_hold *o)
{
	int i;

	if (!o->handle || o->handle > CMABUF_IMPORTER_MAX_HOLDS ||
	    fz_hold_slot(f, o->handle) >= 0) {
		fz_fail(f, FZ_IMPORT, "handle %u is not a new one", o->handle);
		return;
	}
	if (b >= 0 && f->bufs[b].inst >= 0 &&
	    (o->size != f->bufs[b].size ||
	     (!(flags & CMABUF_IMPORTER_HOLD_MAP) && o->dma_addr) ||
	     ((flags & CMABUF_IMPORTER_HOLD_MAP) && f->bufs[b].phys_known &&
	      o->dma_addr != f->bufs[b].phys)))
		fz_fail(f, FZ_IMPORT, "buffer %u held: size %llu, DMA address %#llx",
			f->bufs[b].id, (unsigned long long)o->size,
			(unsigned long long)o->dma_addr);
	for (i = 0; i < FZ_MAX_HOLDS; i++) {
		if (f->holds[i].handle)
			continue;
		f->holds[i].handle = o->handle;
		f->holds[i].buf = b;
		f->nholds++;
		if (b >= 0)
			f->bufs[b].holds++;
		return;
	}
}

/*
 * The flags HOLD refuses: unknown ones, a direction without a mapping, two
 * directions at once.
 */
static __u32 fz_hold_bad_flags(__u32 flags)
{
	__u32 dirs = flags & (CMABUF_IMPORTER_HOLD_TO_DEVICE |
			      CMABUF_IMPORTER_HOLD_FROM_DEVICE);

	if (dirs && !(flags & CMABUF_IMPORTER_HOLD_MAP))
		return dirs;
	if (dirs == (CMABUF_IMPORTER_HOLD_TO_DEVICE |
		     CMABUF_IMPORTER_HOLD_FROM_DEVICE))
		return dirs;
	return flags & ~CMABUF_IMPORTER_HOLD_VALID_FLAGS;
}

void fz_op_hold(struct fz *f)
{
	static const __u32 hold_flags[] = {
		0, CMABUF_IMPORTER_HOLD_MAP,
		CMABUF_IMPORTER_HOLD_MAP | CMABUF_IMPORTER_HOLD_TO_DEVICE,
		CMABUF_IMPORTER_HOLD_MAP | CMABUF_IMPORTER_HOLD_FROM_DEVICE,
	};
	struct cmabuf_importer_hold d = { 0 }, out;
	const size_t ksize = sizeof(d);
	unsigned int cmd;
	struct fz_expect e;
	uintptr_t ptr;
	int b, err;
	bool exact;

	if (f->imp < 0)
		return;
	d.fd = fz_pick_any_fd(f);
	b = fz_buf_of(f, d.fd);
	if (rel_chance(&f->rng, 85))
		d.flags = hold_flags[rel_below(&f->rng, ARRAY_SIZE(hold_flags))];
	else
		d.flags = fz_boundary(f);
	fz_mutate(f, (__u8 *)&d, ksize, ksize,
		  offsetof(struct cmabuf_importer_hold, handle));
	b = fz_buf_of(f, d.fd);
	/*
	 * A mapping in one direction only of cmabuf's buffers: the system
	 * heap syncs every mapping in the direction of the CPU access, not in
	 * that of the mapping, which the DMA API debugging reports.
	 */
	if (b >= 0 && f->bufs[b].inst < 0 && (d.flags & CMABUF_IMPORTER_HOLD_MAP))
		d.flags &= ~(CMABUF_IMPORTER_HOLD_TO_DEVICE |
			     CMABUF_IMPORTER_HOLD_FROM_DEVICE);
	cmd = fz_imp_cmd(f, CMABUF_IMPORTER_IOC_HOLD, &exact);
	ptr = fz_place(f, &d, ksize);

	fz_expect_init(&e);
	if (fz_model_imp(f, exact, ptr, &d, ksize,
			 offsetof(struct cmabuf_importer_hold, handle),
			 fz_hold_bad_flags(d.flags), d.fd, &e)) {
		if (e.may_succeed && f->nholds >= CMABUF_IMPORTER_MAX_HOLDS)
			fz_err(&e, ENOSPC, "every hold is taken");
		if (e.may_succeed && !fz_writable(f, ptr, ksize))
			fz_err(&e, EFAULT, "result not writable");
	}
	fz_describe(f, "importer HOLD cmd %#x at %#lx: fd %d flags %#x",
		    cmd, (unsigned long)ptr, (int)d.fd, d.flags);
	err = ioctl(f->imp, cmd, ptr) ? errno : 0;
	if (!fz_judge(f, FZ_IMPORT, &e, err) || err)
		return;
	memcpy(&out, (void *)ptr, ksize);
	fz_hold_done(f, b, d.flags, &out);
}

void fz_op_release(struct fz *f)
{
	struct cmabuf_importer_release d = { 0 };
	unsigned int cmd, seen = 0;
	struct fz_expect e;
	int i, slot, err;
	uintptr_t ptr;
	bool exact;

	if (f->imp < 0)
		return;
	for (i = 0; i < FZ_MAX_HOLDS; i++)
		if (f->holds[i].handle && !rel_below(&f->rng, ++seen))
			d.handle = f->holds[i].handle;
	if (!d.handle || rel_chance(&f->rng, 15))
		d.handle = rel_chance(&f->rng, 50) ?
			   rel_below(&f->rng, CMABUF_IMPORTER_MAX_HOLDS + 2) :
			   (__u32)fz_boundary(f);
	if (rel_chance(&f->rng, 6))
		d.pad = 1 + rel_below(&f->rng, 0xffff);
	cmd = fz_imp_cmd(f, CMABUF_IMPORTER_IOC_RELEASE, &exact);
	ptr = fz_place(f, &d, sizeof(d));
	slot = fz_hold_slot(f, d.handle);

	fz_expect_init(&e);
	if (!exact) {
		fz_err(&e, ENOTTY, "not the importer's command");
	} else if (!fz_readable(f, ptr, sizeof(d))) {
		fz_err(&e, EFAULT, "argument not readable");
	} else {
		if (d.pad)
			fz_err(&e, EINVAL, "pad not zero");
		if (slot < 0)
			fz_err(&e, ENOENT, "handle not held");
	}
	fz_describe(f, "importer RELEASE cmd %#x at %#lx: handle %u pad %u",
		    cmd, (unsigned long)ptr, d.handle, d.pad);
	err = ioctl(f->imp, cmd, ptr) ? errno : 0;
	if (!fz_judge(f, FZ_IMPORT, &e, err) || err)
		return;
	if (slot < 0)
		return;
	f->holds[slot].handle = 0;
	f->nholds--;
	if (f->holds[slot].buf >= 0) {
		f->bufs[f->holds[slot].buf].holds--;
		fz_buf_put(f, f->holds[slot].buf);
	}
}

/* cmabuf's heap of a random instance that has one, or -1. */
static int fz_pick_heap(struct fz *f)
{
	unsigned int i, seen = 0;
	int pick = -1;

	for (i = 0; i < f->ninst; i++)
		if (f->inst[i].heap >= 0 && !rel_below(&f->rng, ++seen))
			pick = i;
	return pick;
}

static unsigned int fz_count_bufs(const struct fz *f, bool foreign)
{
	unsigned int i, n = 0;

	for (i = 0; i < FZ_MAX_BUFS; i++)
		n += f->bufs[i].used && (f->bufs[i].inst < 0) == foreign;
	return n;
}

/* What the dma-heap core and cmabuf's heap say about a request. */
static void fz_model_heap(struct fz *f, int inst,
			  const struct dma_heap_allocation_data *d,
			  uintptr_t ptr, size_t size, struct fz_expect *e,
			  __u64 *pages, bool *too_big)
{
	const struct fz_inst *in = &f->inst[inst];
	__u64 page = in->rel.page_size;
	__u64 len = (d->len + page - 1) & ~(page - 1);

	*pages = 0;
	*too_big = false;
	if (!fz_readable(f, ptr, size)) {
		fz_err(e, EFAULT, "argument not readable");
		return;
	}
	if (d->fd)
		fz_err(e, EINVAL, "fd not zero");
	if (d->fd_flags & ~DMA_HEAP_VALID_FD_FLAGS)
		fz_err(e, EINVAL, "unknown fd flag");
	if (d->heap_flags & ~DMA_HEAP_VALID_HEAP_FLAGS)
		fz_err(e, EINVAL, "unknown heap flag");
	if (!len)
		fz_err(e, EINVAL, "length 0 once page-aligned");
	else if (len > FZ_MAX_BYTES(page))
		fz_err(e, EINVAL, "length above 4 GiB minus a page");
	if (!e->may_succeed)
		return;
	*pages = len / page;
	*too_big = in->rel.total_pages && *pages > in->rel.total_pages;
}

static void fz_heap_done(struct fz *f, int inst, __u64 pages,
			 const struct dma_heap_allocation_data *in,
			 const struct dma_heap_allocation_data *out)
{
	int b, fd = out->fd;

	if (fd >= FZ_MAX_FDS || f->fds[fd].kind != FZ_FD_NONE) {
		fz_fail(f, FZ_HEAP, "heap fd %d is not a new fd", fd);
		return;
	}
	b = fz_buf_new(f, inst, pages * f->page, FZ_STRATEGY_UNKNOWN, 0);
	if (b < 0) {
		close(fd);
		return;
	}
	fz_fd_set(f, fd, FZ_FD_BUF, b, inst, in->fd_flags & O_ACCMODE);
	if (lseek(fd, 0, SEEK_END) != (off_t)(pages * f->page))
		fz_fail(f, FZ_HEAP, "heap buffer of %llu pages has another size",
			(unsigned long long)pages);
}

void fz_op_heap(struct fz *f)
{
	struct dma_heap_allocation_data d = { 0 }, out;
	__u8 arg[64] = { 0 };
	int inst = fz_pick_heap(f), err;
	__u64 pages, chunk = 0;
	struct fz_expect e;
	size_t size = sizeof(d);
	unsigned int cmd;
	uintptr_t ptr;
	bool too_big;

	if (inst < 0 || fz_count_bufs(f, false) >= FZ_MAX_BUFS - 8 ||
	    f->open >= FZ_MAX_OPEN)
		return;
	d.len = rel_chance(&f->rng, 80) ? 1 + rel_below(&f->rng, 16 * f->page) :
					  fz_boundary(f);
	d.fd_flags = rel_chance(&f->rng, 85) ? O_RDWR | O_CLOEXEC :
						rel_below(&f->rng, 4);
	if (rel_chance(&f->rng, 4))
		d.fd_flags |= 1U << rel_below(&f->rng, 32);
	if (rel_chance(&f->rng, 4))
		d.heap_flags = fz_boundary(f);
	if (rel_chance(&f->rng, 4))
		d.fd = rel_rand(&f->rng);
	if (rel_chance(&f->rng, 15))
		size = 12 + 4 * rel_below(&f->rng, 13);
	memcpy(arg, &d, fz_min(size, sizeof(d)));
	if (size > sizeof(d) && rel_chance(&f->rng, 50))
		arg[sizeof(d) + rel_below(&f->rng, size - sizeof(d))] = 0xff;
	memset(&d, 0, sizeof(d));
	memcpy(&d, arg, fz_min(size, sizeof(d)));
	cmd = _IOC(_IOC_READ | _IOC_WRITE, _IOC_TYPE(DMA_HEAP_IOCTL_ALLOC),
		   _IOC_NR(DMA_HEAP_IOCTL_ALLOC), size);
	ptr = fz_place(f, arg, size);

	fz_expect_init(&e);
	fz_model_heap(f, inst, &d, ptr, size, &e, &pages, &too_big);
	if (e.may_succeed && !too_big && pages > FZ_SMALL_PAGES)
		return;
	if (e.may_succeed) {
		if (too_big) {
			fz_err(&e, ENOMEM, "larger than the area");
		} else if (fz_area_busy(f, inst) ||
			   fz_inst_maxchunk(f, inst, &chunk) || pages > chunk) {
			fz_model_no_range(f, inst, pages, &e);
		}
		if (!too_big && !fz_writable(f, ptr, size))
			fz_err(&e, EFAULT, "result not writable");
	}
	fz_describe(f, "heap %s ALLOC cmd %#x at %#lx: len %llu fd %u flags %#x/%#llx",
		    f->inst[inst].rel.name, cmd, (unsigned long)ptr,
		    (unsigned long long)d.len, d.fd, d.fd_flags,
		    (unsigned long long)d.heap_flags);
	err = ioctl(f->inst[inst].heap, cmd, ptr) ? errno : 0;
	if (!fz_judge(f, FZ_HEAP, &e, err) || err)
		return;
	memcpy(&out, (void *)ptr, sizeof(out));
	fz_heap_done(f, inst, pages, &d, &out);
}

/* A buffer from another exporter, the system heap. */
void fz_op_sysheap(struct fz *f)
{
	struct dma_heap_allocation_data d = {
		.fd_flags = O_RDWR | O_CLOEXEC,
	};
	struct fz_expect e;
	int b;

	if (f->sysheap < 0 || fz_count_bufs(f, true) >= FZ_MAX_FOREIGN ||
	    f->open >= FZ_MAX_OPEN)
		return;
	d.len = (1 + rel_below(&f->rng, 16)) * f->page;
	fz_describe(f, "system heap ALLOC len %llu",
		    (unsigned long long)d.len);
	fz_expect_init(&e);
	if (!fz_judge(f, FZ_HEAP, &e,
		      ioctl(f->sysheap, DMA_HEAP_IOCTL_ALLOC, &d) ? errno : 0))
		return;
	b = fz_buf_new(f, -1, d.len, FZ_STRATEGY_UNKNOWN, 0);
	if (b < 0) {
		close(d.fd);
		return;
	}
	fz_fd_set(f, d.fd, FZ_FD_BUF, b, -1, O_RDWR);
}
