// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf_fuzz: CMABUF_IOC_RW, bytes moved between a file and a buffer.
 *
 * The file is the fuzzer's own, on tmpfs (/tmp), opened for each call
 * (read-write, read-only or write-only), or a file the call must refuse
 * (a pipe, /dev/null, a dma-buf, the cmabuf device), or an fd number of
 * the model. The buffer is any fd the model knows. Every expectation is
 * the DOC block's errors, by the header's copy-in rules.
 *
 * A transfer that may succeed keeps the model true: a WRITE (out of the
 * buffer) changes only the file, whose words at the buffer's page starts
 * must then be the model's; a READ (into the buffer) is preceded by a
 * WRITE of the same range to the same place, so that it brings back what
 * the buffer held, which a mapping must then show.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "fuzz.h"

/*
 * The file's bytes stay below this; a transfer moves at most FZ_RW_MAX,
 * mostly at most FZ_RW_SMALL (every byte is copied twice under TCG: the
 * operation must cost about what the others do).
 */
#define FZ_RW_FILE_MAX		(16ULL << 20)
#define FZ_RW_MAX		0x100000ULL	/* 1 MiB */
#define FZ_RW_SMALL		(64ULL << 10)

static char fz_rw_path[FZ_PATH_LEN];

/* The fuzzer's file, empty; removed at exit. */
void fz_rw_setup(void)
{
	int fd;

	snprintf(fz_rw_path, sizeof(fz_rw_path), "/tmp/cmabuf_fuzz_rw.%d",
		 getpid());
	fd = open(fz_rw_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	else
		fz_rw_path[0] = '\0';
}

void fz_rw_cleanup(void)
{
	if (fz_rw_path[0])
		unlink(fz_rw_path);
}

/* What the file side of a call is. */
enum fz_rw_file {
	FZ_RW_FILE_RDWR,	/* the fuzzer's file, O_RDWR */
	FZ_RW_FILE_RDONLY,	/* the same, O_RDONLY */
	FZ_RW_FILE_WRONLY,	/* the same, O_WRONLY */
	FZ_RW_FILE_PIPE,	/* a pipe's read end */
	FZ_RW_FILE_NULL,	/* /dev/null, a character device */
	FZ_RW_FILE_MODEL,	/* an fd number of the model */
};

/**
 * struct fz_rw_side - the file of one call
 * @kind: see &enum fz_rw_file.
 * @fd: the fd passed.
 * @close: fds to close after the call, -1 for none.
 */
struct fz_rw_side {
	enum fz_rw_file kind;
	int fd;
	int close[2];
};

static void fz_rw_open(struct fz *f, struct fz_rw_side *s)
{
	static const int modes[] = { O_RDWR, O_RDONLY, O_WRONLY };
	unsigned int roll = rel_below(&f->rng, 100);
	int p[2];

	s->close[0] = -1;
	s->close[1] = -1;
	s->kind = roll < 75 ? FZ_RW_FILE_RDWR :
		  roll < 82 ? FZ_RW_FILE_RDONLY :
		  roll < 88 ? FZ_RW_FILE_WRONLY :
		  roll < 91 ? FZ_RW_FILE_PIPE :
		  roll < 94 ? FZ_RW_FILE_NULL : FZ_RW_FILE_MODEL;
	if (!fz_rw_path[0] && s->kind <= FZ_RW_FILE_WRONLY)
		s->kind = FZ_RW_FILE_NULL;
	switch (s->kind) {
	case FZ_RW_FILE_PIPE:
		if (pipe2(p, O_CLOEXEC)) {
			s->kind = FZ_RW_FILE_NULL;
			break;
		}
		s->fd = p[0];
		s->close[0] = p[0];
		s->close[1] = p[1];
		return;
	case FZ_RW_FILE_MODEL:
		s->fd = fz_pick_any_fd(f);
		/* Stdio may be a file of any kind: not written into. */
		if (s->fd >= 0 && s->fd < FZ_MAX_FDS &&
		    f->fds[s->fd].kind == FZ_FD_OTHER)
			s->kind = FZ_RW_FILE_NULL;
		else
			return;
		break;
	case FZ_RW_FILE_NULL:
		break;
	default:
		s->fd = open(fz_rw_path, modes[s->kind] | O_CLOEXEC);
		s->close[0] = s->fd;
		return;
	}
	s->fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	s->close[0] = s->fd;
}

static void fz_rw_close(struct fz_rw_side *s)
{
	if (s->close[0] >= 0)
		close(s->close[0]);
	if (s->close[1] >= 0)
		close(s->close[1]);
}

/* Can a file opened with @accmode be read (@read) or written? */
static bool fz_rw_mode_ok(int accmode, bool read)
{
	return read ? accmode == O_RDONLY || accmode == O_RDWR :
		      accmode == O_WRONLY || accmode == O_RDWR;
}

/* The file side's rules: EBADF for its mode, EOPNOTSUPP for its kind. */
static void fz_rw_model_file(struct fz *f, const struct fz_rw_side *s,
			     bool to_buffer, struct fz_expect *e)
{
	const struct fz_fd *m;

	switch (s->kind) {
	case FZ_RW_FILE_RDWR:
		return;
	case FZ_RW_FILE_RDONLY:
	case FZ_RW_FILE_WRONLY:
		if (!fz_rw_mode_ok(s->kind == FZ_RW_FILE_RDONLY ? O_RDONLY :
				   O_WRONLY, to_buffer))
			fz_err(e, EBADF, "file not open for it");
		return;
	case FZ_RW_FILE_PIPE:
		if (!to_buffer)
			fz_err(e, EBADF, "a pipe's read end written");
		fz_err(e, EOPNOTSUPP, "a pipe");
		return;
	case FZ_RW_FILE_NULL:
		fz_err(e, EOPNOTSUPP, "a character device");
		return;
	case FZ_RW_FILE_MODEL:
		break;
	}
	m = s->fd >= 0 && s->fd < FZ_MAX_FDS ? &f->fds[s->fd] : NULL;
	if (!m || m->kind == FZ_FD_NONE) {
		fz_err(e, EBADF, "file fd not open");
		return;
	}
	/* Devices, dma-bufs, sync files: no kind it accepts. */
	if (m->kind == FZ_FD_BUF && !fz_rw_mode_ok(m->accmode, to_buffer))
		fz_err(e, EBADF, "file not open for it");
	if (m->kind == FZ_FD_SYNC && !to_buffer)
		fz_err(e, EBADF, NULL);
	if (m->kind == FZ_FD_HEAP && !to_buffer)
		fz_err(e, EBADF, NULL);
	fz_err(e, EOPNOTSUPP, "not a file it can reach safely");
}

/*
 * The buffer side's rules. An fd this operation opened for the file (the
 * model does not know it) is that file, whatever the model says of its
 * number: not a dma-buf.
 */
static void fz_rw_model_buf(struct fz *f, int fd, const struct cmabuf_rw *d,
			    const struct fz_rw_side *s, bool to_buffer,
			    struct fz_expect *e)
{
	const struct fz_fd *m = fd >= 0 && fd < FZ_MAX_FDS ? &f->fds[fd] : NULL;
	const struct fz_buf *b;

	if (fd >= 0 && (fd == s->close[0] || fd == s->close[1])) {
		fz_err(e, EINVAL, "the operation's own file as the buffer");
		return;
	}
	if (!m || m->kind == FZ_FD_NONE) {
		fz_err(e, EBADF, "buffer fd not open");
		return;
	}
	if (m->kind != FZ_FD_BUF || f->bufs[m->buf].inst < 0) {
		fz_err(e, EINVAL, "not a cmabuf dma-buf");
		return;
	}
	b = &f->bufs[m->buf];
	if (d->buf_offset >= b->size || d->length > b->size - d->buf_offset)
		fz_err(e, EINVAL, "range not within the buffer");
	if (!fz_rw_mode_ok(m->accmode, !to_buffer))
		fz_err(e, EBADF, "buffer not open for it");
}

/*
 * Return: true when the transfer happens, whether or not its count can
 * be written back (EFAULT then, after the bytes moved).
 */
static bool fz_rw_model(struct fz *f, const struct fz_call *c,
			const struct cmabuf_rw *d, const struct fz_rw_side *s,
			struct fz_expect *e)
{
	bool to_buffer = d->flags == CMABUF_RW_READ, moves;

	if (!fz_model_copy_in(f, c, sizeof(*d),
			      offsetof(struct cmabuf_rw, done), e))
		return false;
	if (c->out < sizeof(*d)) {
		fz_err(e, EINVAL, "structure too short for done");
		return false;
	}
	if (d->flags != CMABUF_RW_READ && d->flags != CMABUF_RW_WRITE) {
		fz_err(e, EINVAL, "not exactly one direction");
		return false;
	}
	if (d->pad || !d->length) {
		fz_err(e, EINVAL, "pad or zero length");
		return false;
	}
	if (d->file_offset > (__u64)LLONG_MAX ||
	    d->length > (__u64)LLONG_MAX - d->file_offset) {
		fz_err(e, EINVAL, "file range past the largest offset");
		return false;
	}
	fz_rw_model_buf(f, (int)d->buf_fd, d, s, to_buffer, e);
	fz_rw_model_file(f, s, to_buffer, e);
	moves = e->may_succeed;
	if (moves && !fz_writable(f, c->ptr, c->out))
		fz_err(e, EFAULT, "result not writable");
	return moves;
}

/* Mostly a range the call can take, sometimes one it must refuse. */
static void fz_rw_template(struct fz *f, int buf_fd, struct cmabuf_rw *d)
{
	const struct fz_fd *m = buf_fd >= 0 && buf_fd < FZ_MAX_FDS ?
				&f->fds[buf_fd] : NULL;
	__u64 size = m && m->kind == FZ_FD_BUF ? f->bufs[m->buf].size :
						 f->page;
	unsigned int roll = rel_below(&f->rng, 100);
	__u64 max;

	memset(d, 0, sizeof(*d));
	d->buf_fd = buf_fd;
	d->flags = rel_chance(&f->rng, 50) ? CMABUF_RW_READ : CMABUF_RW_WRITE;
	d->buf_offset = rel_chance(&f->rng, 50) ? 0 : rel_below(&f->rng, size);
	max = fz_min(size - d->buf_offset,
		     rel_chance(&f->rng, 80) ? FZ_RW_SMALL : FZ_RW_MAX);
	d->length = 1 + rel_below(&f->rng, max);
	d->file_offset = rel_below(&f->rng, FZ_RW_FILE_MAX - FZ_RW_MAX);
	if (roll < 80)
		return;
	if (roll < 85)
		d->length = size - d->buf_offset + 1 + rel_below(&f->rng, 3);
	else if (roll < 88)
		d->buf_offset = size + rel_below(&f->rng, 3);
	else if (roll < 91)
		d->length = 0;
	else if (roll < 94)
		d->file_offset = (__u64)LLONG_MAX - rel_below(&f->rng, 2 * f->page);
	else if (roll < 97)
		d->flags = rel_below(&f->rng, 8) | (rel_chance(&f->rng, 20) ?
						    1U << rel_below(&f->rng, 32) : 0);
	else
		d->pad = 1 + rel_below(&f->rng, 255);
}

/* A plain CMABUF_IOC_RW; the errno, 0 when it moved all @d->length. */
static int fz_rw_plain(int dev, struct cmabuf_rw d)
{
	if (ioctl(dev, CMABUF_IOC_RW, &d))
		return errno;
	return d.done == d.length ? 0 : EIO;
}

/*
 * After a WRITE of @d: the file's words at the buffer's page starts in
 * the range are the model's.
 */
static void fz_rw_check_file(struct fz *f, const struct fz_buf *b,
			     const struct cmabuf_rw *d)
{
	__u64 page = (d->buf_offset + f->page - 1) / f->page, off, want, got;
	int fd = open(fz_rw_path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	for (; (off = page * f->page) + 8 <= d->buf_offset + d->length;
	     page++) {
		want = fz_page_word(f, b, page);
		if (pread(fd, &got, 8, d->file_offset + off - d->buf_offset) != 8 ||
		    got != want) {
			fz_fail(f, FZ_DATA,
				"RW WRITE: buffer %u page %llu: file holds %#llx, model %#llx",
				b->id, (unsigned long long)page,
				(unsigned long long)got,
				(unsigned long long)want);
			break;
		}
	}
	close(fd);
	f->ops[FZ_DATA]++;
	f->oks[FZ_DATA]++;
}

/* After a READ: a mapping of the buffer shows the model's words. */
static void fz_rw_check_buf(struct fz *f, int buf_fd, const struct fz_buf *b,
			    const struct cmabuf_rw *d)
{
	__u64 page = (d->buf_offset + f->page - 1) / f->page, off, want;
	const __u8 *map;

	map = mmap(NULL, b->size, PROT_READ, MAP_SHARED, buf_fd, 0);
	if (map == MAP_FAILED)
		return;
	for (; (off = page * f->page) + 8 <= d->buf_offset + d->length;
	     page++) {
		want = fz_page_word(f, b, page);
		if (*(const __u64 *)(map + off) != want) {
			fz_fail(f, FZ_DATA, "RW READ: buffer %u page %llu holds %#llx, model %#llx",
				b->id, (unsigned long long)page,
				(unsigned long long)*(const __u64 *)(map + off),
				(unsigned long long)want);
			break;
		}
	}
	munmap((void *)map, b->size);
	f->ops[FZ_DATA]++;
	f->oks[FZ_DATA]++;
}

/*
 * Before a READ that moves bytes: a WRITE of the same range to the same
 * place, through a descriptor of the buffer that can be read (the
 * model's), so that the READ brings back what the buffer held. Return:
 * false when the buffer cannot be read that way (the READ is not made).
 */
static bool fz_rw_prepare_read(struct fz *f, int dev, const struct fz_buf *b,
			       const struct cmabuf_rw *d)
{
	struct cmabuf_rw prep = *d;
	int fd, file, err;

	for (fd = 0; fd < FZ_MAX_FDS; fd++)
		if (f->fds[fd].kind == FZ_FD_BUF &&
		    &f->bufs[f->fds[fd].buf] == b &&
		    fz_rw_mode_ok(f->fds[fd].accmode, true))
			break;
	if (fd == FZ_MAX_FDS)
		return false;
	prep.buf_fd = fd;
	prep.flags = CMABUF_RW_WRITE;
	prep.done = 0;
	file = open(fz_rw_path, O_RDWR | O_CLOEXEC);
	prep.file_fd = file;
	err = file < 0 ? errno : fz_rw_plain(dev, prep);
	if (file >= 0)
		close(file);
	if (err)
		fz_fail(f, FZ_IOCTL, "RW WRITE before a READ: %s",
			rel_errname(err));
	return !err;
}

void fz_op_rw(struct fz *f)
{
	static struct fz_call c;
	int inst = rel_below(&f->rng, f->ninst), err, buf_fd;
	const struct fz_buf *b = NULL;
	struct cmabuf_rw d, out;
	struct fz_rw_side s;
	struct fz_expect e;
	__u32 file_fd;
	bool moves;

	buf_fd = fz_pick_any_fd(f);
	fz_rw_template(f, buf_fd, &d);
	fz_call_prepare(f, &c, _IOC_NR(CMABUF_IOC_RW), sizeof(d), &d);
	fz_mutate(f, c.arg, c.size, sizeof(d), offsetof(struct cmabuf_rw, done));
	/* The file is the one opened here, whatever the mutation did. */
	fz_rw_open(f, &s);
	file_fd = s.fd;
	if (c.size >= offsetof(struct cmabuf_rw, file_offset))
		memcpy(c.arg + offsetof(struct cmabuf_rw, file_fd), &file_fd,
		       sizeof(file_fd));
	fz_call_place(f, &c);
	memset(&d, 0, sizeof(d));
	memcpy(&d, c.arg, fz_min(c.in, sizeof(d)));

	fz_expect_init(&e);
	moves = fz_rw_model(f, &c, &d, &s, &e);
	buf_fd = (int)d.buf_fd;
	if (moves)
		b = &f->bufs[f->fds[buf_fd].buf];
	if (moves && d.flags == CMABUF_RW_READ &&
	    !fz_rw_prepare_read(f, f->inst[inst].fd, b, &d))
		goto close;

	fz_describe(f,
		    "RW on %s: cmd %#x at %#lx: buf %d file %d (kind %d) foff %llu boff %llu len %llu flags %#x pad %u",
		    f->inst[inst].rel.name, c.cmd, (unsigned long)c.ptr,
		    (int)d.buf_fd, s.fd, s.kind,
		    (unsigned long long)d.file_offset,
		    (unsigned long long)d.buf_offset,
		    (unsigned long long)d.length, d.flags, d.pad);
	err = fz_call(f, f->inst[inst].fd, &c, &out, sizeof(out));
	if (!fz_judge(f, FZ_IOCTL, &e, err) || err)
		goto close;
	if (out.done != d.length)
		fz_fail(f, FZ_IOCTL, "RW moved %llu of %llu bytes",
			(unsigned long long)out.done,
			(unsigned long long)d.length);
	else if (d.flags == CMABUF_RW_WRITE)
		fz_rw_check_file(f, b, &d);
	else
		fz_rw_check_buf(f, buf_fd, b, &d);
close:
	fz_rw_close(&s);
}
