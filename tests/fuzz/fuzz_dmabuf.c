// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf_fuzz: operations on the exported dma-bufs.
 *
 * The rules come from the cmabuf header (mmap is MAP_SHARED only, within
 * the buffer), the dma-buf uapi (SYNC flags, SET_NAME's 32-byte limit, the
 * sync_file ioctls) and the VFS: mmap(2) needs a readable file, a shared
 * writable mapping a writable one, and an executable one a file system
 * that allows it (whether dma-bufs do differs between kernels, so it is
 * probed once at the start).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <linux/dma-buf.h>

#include "cmabuf_test_util.h"
#include "fuzz.h"

#define FZ_HUGE		BIT_ULL(47)	/* lengths the generator calls huge */
#define FZ_VAST		BIT_ULL(40)	/* may not fit the address space */

static struct fz *fz_faulting;

static void fz_fault_handler(int sig)
{
	siglongjmp(fz_faulting->jmp, sig);
}

static void fz_catch_faults(struct fz *f)
{
	struct sigaction sa = { .sa_handler = fz_fault_handler };

	fz_faulting = f;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
}

static bool fz_acc_read(int accmode)
{
	return accmode == O_RDONLY || accmode == O_RDWR;
}

static bool fz_acc_write(int accmode)
{
	return accmode == O_WRONLY || accmode == O_RDWR;
}

/*
 * Can dma-bufs be mapped executable here? 7.2 marks pseudo file systems
 * noexec (EPERM), 6.12 does not. Everything else is the same.
 */
int fz_probe_noexec(struct fz *f)
{
	void *p;
	int fd;

	fz_catch_faults(f);
	if (!fz_alloc_simple(f, 0, f->page, &fd))
		return errno;
	p = mmap(NULL, f->page, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED && errno != EPERM)
		return errno;
	f->noexec = p == MAP_FAILED;
	if (p != MAP_FAILED)
		munmap(p, f->page);
	close(fd);
	fz_fd_closed(f, fd);
	return 0;
}

/*
 * Check one whole page of a mapping against the model: the first word may
 * be a mark, every word on the importer's 64-byte stride holds the pattern
 * if one was written, and everything else is zero.
 */
static bool fz_page_ok(struct fz *f, const struct fz_buf *b, __u64 page,
		       const __u64 *p, __u64 *bad_off, __u64 *bad_val)
{
	size_t i, words = f->page / 8, stride = CMABUF_IMPORTER_PATTERN_STRIDE / 8;
	__u64 want;

	for (i = 0; i < words; i++) {
		if (!i)
			want = fz_page_word(f, b, page);
		else if (b->pattern && !(i % stride))
			want = cmabuf_importer_pattern(b->seed,
						       page * f->page + i * 8);
		else
			want = 0;
		if (p[i] != want) {
			*bad_off = i * 8;
			*bad_val = p[i];
			return false;
		}
	}
	return true;
}

/* Read (and maybe write) one page of mapping @m, catching any fault. */
static void fz_touch(struct fz *f, int m)
{
	struct fz_map *map = &f->maps[m];
	struct fz_buf *b = &f->bufs[map->buf];
	__u64 k = rel_below(&f->rng, map->len / f->page);
	__u64 *p = (__u64 *)(map->addr + k * f->page);
	__u64 page = map->pgoff + k, off = 0, val = 0;
	int sig;

	f->ops[FZ_DATA]++;
	sig = sigsetjmp(f->jmp, 1);
	if (sig) {
		fz_fail(f, FZ_DATA, "signal %d touching page %llu of buffer %u",
			sig, (unsigned long long)page, b->id);
		return;
	}
	if ((map->prot & PROT_READ) &&
	    !fz_page_ok(f, b, page, (const __u64 *)p, &off, &val))
		fz_fail(f, FZ_DATA, "buffer %u page %llu offset %llu holds %#llx, expected %#llx",
			b->id, (unsigned long long)page,
			(unsigned long long)off, (unsigned long long)val,
			(unsigned long long)(off ? 0 : fz_page_word(f, b, page)));
	if ((map->prot & PROT_WRITE) && rel_chance(&f->rng, 50)) {
		val = rel_rand(&f->rng) | 1;
		if (fz_mark(b, page, val))
			p[0] = val;
	}
}

/* A random mapping, -1 when there is none. */
static int fz_pick_map(struct fz *f)
{
	unsigned int seen = 0;
	int m, pick = -1;

	for (m = 0; m < FZ_MAX_MAPS; m++)
		if (f->maps[m].used && !rel_below(&f->rng, ++seen))
			pick = m;
	return pick;
}

void fz_op_touch(struct fz *f)
{
	int pick = fz_pick_map(f);

	if (pick < 0)
		return;
	fz_describe(f, "touch mapping %d of buffer %u", pick,
		    f->bufs[f->maps[pick].buf].id);
	fz_touch(f, pick);
}

static __u64 fz_mmap_pgoff(struct fz *f, __u64 pages)
{
	unsigned int roll = rel_below(&f->rng, 100);

	if (roll < 75)
		return rel_below(&f->rng, pages);
	if (roll < 85)
		return pages + rel_below(&f->rng, 3);
	if (roll < 95)
		return rel_below(&f->rng, 2) ? pages - 1 : 0;
	return fz_boundary(f) / f->page;
}

static __u64 fz_mmap_len(struct fz *f, __u64 pages, __u64 pgoff)
{
	__u64 left = pgoff < pages ? pages - pgoff : 1;
	unsigned int roll = rel_below(&f->rng, 100);

	if (roll < 60)
		return (1 + rel_below(&f->rng, left)) * f->page;
	if (roll < 72)
		return (left + 1 + rel_below(&f->rng, 3)) * f->page;
	if (roll < 84)
		return left * f->page - rel_below(&f->rng, f->page);
	if (roll < 90)
		return 0;
	if (roll < 95)
		return pages * f->page;
	return FZ_HUGE + fz_boundary(f);
}

/* The page offset arm64's mmap() makes of a (signed) off_t. */
static __u64 fz_pgoff(const struct fz *f, __u64 off)
{
	return (__u64)((__s64)off >> __builtin_ctzl(f->page));
}

/* The mmap(2) rules that do not depend on the file. */
static void fz_model_mmap_common(struct fz *f, __u64 len, __u64 off,
				 struct fz_expect *e)
{
	if (!len)
		fz_err(e, EINVAL, "length 0");
	if (off % f->page)
		fz_err(e, EINVAL, "offset not page-aligned");
	if (len >= FZ_VAST) {
		fz_err(e, ENOMEM, "length beyond the address space");
		fz_err(e, EINVAL, NULL);
		fz_err(e, EOVERFLOW, NULL);
	}
	if (fz_pgoff(f, off) + (len + f->page - 1) / f->page <
	    fz_pgoff(f, off))
		fz_err(e, EOVERFLOW, "offset plus length overflows");
}

static void fz_model_mmap_buf(struct fz *f, const struct fz_fd *e_fd,
			      __u64 len, __u64 off, int prot, int flags,
			      struct fz_expect *e)
{
	__u64 pages = f->bufs[e_fd->buf].size / f->page;
	__u64 pgoff = fz_pgoff(f, off);
	__u64 npages = (len + f->page - 1) / f->page;

	if (!fz_acc_read(e_fd->accmode))
		fz_err(e, EACCES, "fd not open for reading");
	if ((flags & MAP_TYPE) != MAP_PRIVATE && (prot & PROT_WRITE) &&
	    !fz_acc_write(e_fd->accmode))
		fz_err(e, EACCES, "shared writable mapping of a read-only fd");
	if ((prot & PROT_EXEC) && f->noexec)
		fz_err(e, EPERM, "dma-bufs are noexec");
	if ((flags & MAP_TYPE) == MAP_PRIVATE)
		fz_err(e, EINVAL, "MAP_PRIVATE");
	if (pgoff >= pages || npages > pages - pgoff)
		fz_err(e, EINVAL, "beyond the buffer");
}

void fz_op_mmap(struct fz *f)
{
	static const int prots[] = {
		PROT_READ | PROT_WRITE, PROT_READ | PROT_WRITE, PROT_READ,
		PROT_WRITE, PROT_NONE, PROT_READ | PROT_EXEC,
		PROT_READ | PROT_WRITE | PROT_EXEC,
	};
	int m = fz_free_map_slot(f), fd, prot, flags, err;
	__u64 pages, pgoff, len, off;
	const struct fz_fd *e_fd;
	struct fz_expect e;
	void *p;

	if (m < 0) {
		fz_op_munmap(f);
		return;
	}
	fd = fz_pick_fd(f, rel_chance(&f->rng, 3) ? FZ_FD_DEV : FZ_FD_BUF);
	if (fd < 0)
		return;
	e_fd = &f->fds[fd];
	if (e_fd->kind == FZ_FD_BUF && f->bufs[e_fd->buf].inst < 0)
		return;

	pages = e_fd->kind == FZ_FD_BUF ? f->bufs[e_fd->buf].size / f->page : 1;
	pgoff = fz_mmap_pgoff(f, pages);
	len = fz_mmap_len(f, pages, pgoff);
	off = pgoff * f->page;
	if (rel_chance(&f->rng, 3))
		off += 1 + rel_below(&f->rng, f->page - 1);
	prot = prots[rel_below(&f->rng, ARRAY_SIZE(prots))];
	flags = rel_chance(&f->rng, 88) ? MAP_SHARED :
		rel_chance(&f->rng, 70) ? MAP_PRIVATE : MAP_SHARED_VALIDATE;
	if (rel_chance(&f->rng, 10))
		flags |= MAP_POPULATE;
	/*
	 * A private writable mapping is accounted before anything else is
	 * looked at, and a vast one makes the kernel log a warning: keep
	 * vast lengths shared, where only the rules under test apply.
	 */
	if (len >= FZ_VAST)
		flags = MAP_SHARED;

	fz_expect_init(&e);
	fz_model_mmap_common(f, len, off, &e);
	if (e_fd->kind == FZ_FD_DEV)
		fz_err(&e, ENODEV, "the device cannot be mapped");
	else
		fz_model_mmap_buf(f, e_fd, len, off, prot, flags, &e);

	fz_describe(f, "mmap fd %d (%s) len %#llx offset %#llx prot %#x flags %#x",
		    fd, e_fd->kind == FZ_FD_DEV ? "device" : "buffer",
		    (unsigned long long)len, (unsigned long long)off, prot,
		    flags);
	p = mmap(NULL, len, prot, flags, fd, off);
	err = p == MAP_FAILED ? errno : 0;
	if (!fz_judge(f, FZ_DMABUF, &e, err) || err) {
		if (!err)
			munmap(p, len);
		return;
	}

	f->maps[m].used = true;
	f->maps[m].addr = (uintptr_t)p;
	f->maps[m].len = (len + f->page - 1) / f->page * f->page;
	f->maps[m].buf = e_fd->buf;
	f->maps[m].pgoff = pgoff;
	f->maps[m].prot = prot;
	f->maps[m].accmode = e_fd->accmode;
	f->bufs[e_fd->buf].maps++;
	if (rel_chance(&f->rng, 50))
		fz_touch(f, m);
}

void fz_op_munmap(struct fz *f)
{
	int pick = fz_pick_map(f);
	struct fz_map *map;
	struct fz_expect e;
	size_t pages, cut;
	uintptr_t addr;

	if (pick < 0)
		return;
	map = &f->maps[pick];
	pages = map->len / f->page;
	cut = pages > 1 && rel_chance(&f->rng, 30) ?
	      1 + rel_below(&f->rng, pages - 1) : pages;
	addr = map->addr;
	if (cut < pages && rel_chance(&f->rng, 50))
		addr += (pages - cut) * f->page;

	fz_describe(f, "munmap %zu of %zu pages of buffer %u at %s", cut,
		    pages, f->bufs[map->buf].id,
		    addr == map->addr ? "the start" : "the end");
	fz_expect_init(&e);
	fz_judge(f, FZ_DMABUF, &e,
		 munmap((void *)addr, cut * f->page) ? errno : 0);
	if (cut == pages) {
		fz_map_remove(f, pick);
		return;
	}
	if (addr == map->addr) {
		map->addr += cut * f->page;
		map->pgoff += cut;
	}
	map->len -= cut * f->page;
}

/*
 * mprotect() may not go beyond what the fd allowed at mmap() time: no
 * write access to a read-only fd's shared mapping, no execution from a
 * noexec file system.
 */
void fz_op_mprotect(struct fz *f)
{
	static const int prots[] = {
		PROT_READ, PROT_READ | PROT_WRITE, PROT_NONE, PROT_WRITE,
		PROT_READ | PROT_EXEC,
	};
	int pick = fz_pick_map(f), prot, err;
	struct fz_expect e;
	struct fz_map *map;

	if (pick < 0)
		return;
	map = &f->maps[pick];
	prot = prots[rel_below(&f->rng, ARRAY_SIZE(prots))];

	fz_expect_init(&e);
	if ((prot & PROT_WRITE) && !fz_acc_write(map->accmode))
		fz_err(&e, EACCES, "fd was not writable");
	if ((prot & PROT_EXEC) && f->noexec)
		fz_err(&e, EACCES, "dma-bufs are noexec");
	fz_describe(f, "mprotect mapping of buffer %u to %#x",
		    f->bufs[map->buf].id, prot);
	err = mprotect((void *)map->addr, map->len, prot) ? errno : 0;
	if (!fz_judge(f, FZ_DMABUF, &e, err) || err)
		return;
	map->prot = prot;
	if (rel_chance(&f->rng, 50))
		fz_touch(f, pick);
}

/* DMA_BUF_IOCTL_SYNC with random flags, at a random address. */
void fz_op_sync(struct fz *f)
{
	struct dma_buf_sync sync = { 0 };
	int fd = fz_pick_fd(f, FZ_FD_BUF);
	struct fz_expect e;
	uintptr_t ptr;

	if (fd < 0)
		return;
	sync.flags = rel_below(&f->rng, 8);
	if (rel_chance(&f->rng, 15))
		sync.flags = fz_boundary(f);
	ptr = fz_place(f, &sync, sizeof(sync));

	fz_expect_init(&e);
	if (!fz_readable(f, ptr, sizeof(sync)))
		fz_err(&e, EFAULT, "argument not readable");
	else if (sync.flags & ~DMA_BUF_SYNC_VALID_FLAGS_MASK)
		fz_err(&e, EINVAL, "unknown flag");
	else if (!(sync.flags & DMA_BUF_SYNC_RW))
		fz_err(&e, EINVAL, "neither read nor write");
	fz_describe(f, "SYNC fd %d flags %#llx at %#lx", fd,
		    (unsigned long long)sync.flags, (unsigned long)ptr);
	fz_judge(f, FZ_DMABUF, &e,
		 ioctl(fd, DMA_BUF_IOCTL_SYNC, ptr) ? errno : 0);
}

/* The name DMA_BUF_SET_NAME must have stored, as fdinfo shows it. */
static void fz_check_name(struct fz *f, int fd, const char *want)
{
	char got[64] = "";

	/* got stays "" when fdinfo shows no name. */
	cmabuf_fdinfo(fd, "name", got, sizeof(got));
	if (strcmp(got, want))
		fz_fail(f, FZ_DMABUF, "fdinfo name \"%s\", expected \"%s\"",
			got, want);
}

/*
 * DMA_BUF_SET_NAME: strndup_user() of at most 32 bytes, so a name of 31
 * characters fits, a longer one is EINVAL and one that runs into unmapped
 * memory before its NUL (within those 32 bytes) is EFAULT.
 */
void fz_op_set_name(struct fz *f)
{
	unsigned long cmds[] = {
		DMA_BUF_SET_NAME_A, DMA_BUF_SET_NAME_B,
		_IOW(DMA_BUF_BASE, 1, __u16), _IOR(DMA_BUF_BASE, 1, __u64),
	};
	char name[64];
	int fd = fz_pick_fd(f, FZ_FD_BUF), ci, len, i, err;
	const __u8 *s;
	struct fz_expect e;
	uintptr_t ptr;

	if (fd < 0)
		return;
	len = rel_below(&f->rng, 100) < 80 ? rel_below(&f->rng, FZ_NAME_LEN) :
					     rel_below(&f->rng, 48);
	for (i = 0; i < len; i++)
		name[i] = 'a' + rel_below(&f->rng, 26);
	name[len] = '\0';
	ptr = fz_place_name(f, name, len + 1);
	ci = rel_chance(&f->rng, 92) ? rel_below(&f->rng, 2) :
				       2 + rel_below(&f->rng, 2);

	fz_expect_init(&e);
	if (ci >= 2) {
		fz_err(&e, ENOTTY, "not a dma-buf command");
	} else {
		s = (const __u8 *)ptr;
		for (i = 0; i < FZ_NAME_LEN; i++) {
			if (!fz_readable(f, ptr + i, 1)) {
				fz_err(&e, EFAULT, "name runs into a hole");
				break;
			}
			if (!s[i])
				break;
		}
		if (i == FZ_NAME_LEN)
			fz_err(&e, EINVAL, "name of 32 bytes or more");
	}
	fz_describe(f, "SET_NAME fd %d cmd %#lx name of %d at %#lx", fd,
		    cmds[ci], len, (unsigned long)ptr);
	err = ioctl(fd, cmds[ci], ptr) ? errno : 0;
	if (fz_judge(f, FZ_DMABUF, &e, err) && !err && rel_chance(&f->rng, 10))
		fz_check_name(f, fd, name);
}

/* Export a sync_file from a buffer, or import one into it. */
void fz_op_sync_file(struct fz *f)
{
	struct dma_buf_export_sync_file ex = { 0 };
	struct dma_buf_import_sync_file im = { 0 };
	int fd = fz_pick_fd(f, FZ_FD_BUF), err;
	const struct fz_fd *src;
	struct fz_expect e;
	uintptr_t ptr;

	if (fd < 0)
		return;
	fz_expect_init(&e);
	if (rel_chance(&f->rng, 50) && f->open < FZ_MAX_OPEN) {
		ex.flags = rel_chance(&f->rng, 80) ? 1 + rel_below(&f->rng, 3) :
						     fz_boundary(f);
		ex.fd = rel_chance(&f->rng, 90) ? 0 : rel_rand(&f->rng);
		ptr = fz_place(f, &ex, sizeof(ex));
		if (!fz_readable(f, ptr, sizeof(ex)))
			fz_err(&e, EFAULT, "argument not readable");
		else if ((ex.flags & ~DMA_BUF_SYNC_RW) ||
			 !(ex.flags & DMA_BUF_SYNC_RW))
			fz_err(&e, EINVAL, "bad flags");
		else if (!fz_writable(f, ptr, sizeof(ex)))
			fz_err(&e, EFAULT, "result not writable");
		fz_describe(f, "EXPORT_SYNC_FILE fd %d flags %#x at %#lx", fd,
			    ex.flags, (unsigned long)ptr);
		err = ioctl(fd, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, ptr) ? errno : 0;
		if (!fz_judge(f, FZ_DMABUF, &e, err) || err)
			return;
		memcpy(&ex, (void *)ptr, sizeof(ex));
		if (ex.fd < 0 || ex.fd >= FZ_MAX_FDS ||
		    f->fds[ex.fd].kind != FZ_FD_NONE) {
			fz_fail(f, FZ_DMABUF, "sync_file fd %d is not new",
				ex.fd);
			return;
		}
		fz_fd_set(f, ex.fd, FZ_FD_SYNC, 0, -1, O_RDONLY);
		return;
	}

	im.fd = fz_pick_fd(f, FZ_FD_SYNC);
	if (im.fd < 0 || rel_chance(&f->rng, 20))
		im.fd = fz_pick_any_fd(f);
	im.flags = rel_chance(&f->rng, 80) ? 1 + rel_below(&f->rng, 3) :
					     fz_boundary(f);
	ptr = fz_place(f, &im, sizeof(im));
	src = im.fd >= 0 && im.fd < FZ_MAX_FDS ? &f->fds[im.fd] : NULL;
	if (!fz_readable(f, ptr, sizeof(im)))
		fz_err(&e, EFAULT, "argument not readable");
	else if ((im.flags & ~DMA_BUF_SYNC_RW) || !(im.flags & DMA_BUF_SYNC_RW))
		fz_err(&e, EINVAL, "bad flags");
	else if (!src || src->kind != FZ_FD_SYNC)
		fz_err(&e, EINVAL, "not a sync_file");
	fz_describe(f, "IMPORT_SYNC_FILE fd %d from %d flags %#x at %#lx", fd,
		    im.fd, im.flags, (unsigned long)ptr);
	fz_judge(f, FZ_DMABUF, &e,
		 ioctl(fd, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, ptr) ? errno : 0);
}

/*
 * lseek() finds the size (SEEK_END) or the start (SEEK_SET) with offset 0
 * and nothing else; read() and write() are not supported (EINVAL), or the
 * fd lacks the access (EBADF).
 */
void fz_op_seek_rw(struct fz *f)
{
	static const int whences[] = {
		SEEK_SET, SEEK_END, SEEK_END, SEEK_CUR, SEEK_DATA, SEEK_HOLE,
	};
	int fd = fz_pick_fd(f, FZ_FD_BUF), whence, err;
	const struct fz_fd *e_fd;
	struct fz_expect e;
	char byte = 0;
	off_t off, ret;

	if (fd < 0)
		return;
	e_fd = &f->fds[fd];
	fz_expect_init(&e);
	if (rel_chance(&f->rng, 30)) {
		bool rd = rel_chance(&f->rng, 50);
		int ok = rd ? fz_acc_read(e_fd->accmode) :
			      fz_acc_write(e_fd->accmode);

		fz_err(&e, ok ? EINVAL : EBADF,
		       ok ? "dma-bufs have no read or write" : "no access");
		fz_describe(f, "%s fd %d", rd ? "read" : "write", fd);
		err = (rd ? read(fd, &byte, 1) : write(fd, &byte, 1)) < 0 ?
		      errno : 0;
		fz_judge(f, FZ_DMABUF, &e, err);
		return;
	}

	whence = whences[rel_below(&f->rng, 6)];
	off = rel_chance(&f->rng, 80) ? 0 : (off_t)fz_boundary(f);
	if (off || (whence != SEEK_SET && whence != SEEK_END))
		fz_err(&e, EINVAL, "only SEEK_SET or SEEK_END to 0");
	fz_describe(f, "lseek fd %d offset %lld whence %d", fd,
		    (long long)off, whence);
	ret = lseek(fd, off, whence);
	err = ret < 0 ? errno : 0;
	if (!fz_judge(f, FZ_DMABUF, &e, err) || err)
		return;
	if (ret != (whence == SEEK_END ? (off_t)f->bufs[e_fd->buf].size : 0))
		fz_fail(f, FZ_DMABUF, "lseek returned %lld", (long long)ret);
}

/* dup(), dup2() over any fd of ours (closing it) or F_DUPFD_CLOEXEC. */
void fz_op_dup(struct fz *f)
{
	int fd = fz_pick_fd(f, FZ_FD_BUF), nfd, target = -1, how;
	struct fz_fd copy;
	struct fz_expect e;

	if (fd < 0 || f->open >= FZ_MAX_OPEN)
		return;
	copy = f->fds[fd];
	how = rel_below(&f->rng, 3);
	if (how == 1) {
		target = FZ_DUP_BASE + rel_below(&f->rng, FZ_DUP_SPAN);
		switch (f->fds[target].kind) {
		case FZ_FD_NONE:
		case FZ_FD_BUF:
		case FZ_FD_SYNC:
			break;
		default:
			return;
		}
	}
	fz_describe(f, "%s fd %d%s", how == 0 ? "dup" : how == 1 ? "dup2" :
		    "F_DUPFD_CLOEXEC", fd, how == 1 ? " over a target" : "");
	if (how == 0)
		nfd = dup(fd);
	else if (how == 1)
		nfd = dup2(fd, target);
	else
		nfd = fcntl(fd, F_DUPFD_CLOEXEC, rel_below(&f->rng, FZ_DUP_BASE));
	fz_expect_init(&e);
	if (!fz_judge(f, FZ_DMABUF, &e, nfd < 0 ? errno : 0) || nfd < 0)
		return;
	if (nfd == fd)
		return;
	if (nfd >= FZ_MAX_FDS || (how != 1 && f->fds[nfd].kind != FZ_FD_NONE)) {
		fz_fail(f, FZ_DMABUF, "new fd %d was already in use", nfd);
		return;
	}
	/* dup2() closed what @target was; the buffer of @fd lives on. */
	f->bufs[copy.buf].fds++;
	fz_fd_closed(f, nfd);
	f->bufs[copy.buf].fds--;
	fz_fd_set(f, nfd, FZ_FD_BUF, copy.buf, copy.inst, copy.accmode);
}

void fz_op_close(struct fz *f)
{
	int fd = fz_pick_fd(f, rel_chance(&f->rng, 85) ? FZ_FD_BUF : FZ_FD_SYNC);
	struct fz_expect e;

	fz_expect_init(&e);
	if (fd < 0 || rel_chance(&f->rng, 3)) {
		fd = FZ_DUP_BASE + rel_below(&f->rng, FZ_DUP_SPAN);
		if (f->fds[fd].kind != FZ_FD_NONE)
			return;
		fz_err(&e, EBADF, "fd not open");
	}
	fz_describe(f, "close fd %d", fd);
	fz_judge(f, FZ_DMABUF, &e, close(fd) ? errno : 0);
	if (e.may_succeed)
		fz_fd_closed(f, fd);
}

/*
 * A child inherits every fd and mapping, reads a page of each readable
 * mapping, closes its fds and exits: what it had must not change ours.
 */
void fz_op_fork(struct fz *f)
{
	int status, m, bad = 0, fd;
	__u64 off, val;
	pid_t pid;

	fz_describe(f, "fork a child that reads every mapping and exits");
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		fz_fail(f, FZ_DMABUF, "fork: %s", rel_errname(errno));
		return;
	}
	if (pid == 0) {
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		for (m = 0; m < FZ_MAX_MAPS; m++) {
			const struct fz_map *map = &f->maps[m];

			if (!map->used || !(map->prot & PROT_READ))
				continue;
			if (!fz_page_ok(f, &f->bufs[map->buf], map->pgoff,
					(const __u64 *)map->addr, &off, &val))
				bad++;
		}
		for (fd = 0; fd < FZ_MAX_FDS; fd++)
			if (f->fds[fd].kind == FZ_FD_BUF)
				close(fd);
		_exit(bad > 100 ? 100 : bad);
	}
	f->ops[FZ_DATA]++;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		fz_fail(f, FZ_DATA, "child status %#x: pages that differ in the child",
			status);
}
