// SPDX-License-Identifier: GPL-2.0
/*
 * cmabufctl load and save: moving bytes between a file and a buffer with
 * CMABUF_IOC_RW, in pieces, with a progress line.
 *
 * The file is opened twice: with O_DIRECT, which moves whole blocks by the
 * storage's DMA into or out of the buffer, and without, for what O_DIRECT
 * cannot take (a tail that is not a whole block, an offset not on one, a
 * file system without O_DIRECT), which goes through the page cache.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/dma-buf.h>
#include <linux/fs.h>

#include "clock.h"
#include "dev.h"
#include "fmt.h"
#include "msg.h"
#include "opts.h"
#include "parse.h"
#include "util.h"
#include "xfer.h"

/* Bytes per ioctl: the progress line moves once per piece. */
#define XFER_PIECE		(64ULL << 20)
/* How often the progress line may change: on a terminal, elsewhere. */
#define XFER_TTY_NS		200000000ULL
#define XFER_LOG_NS		2000000000ULL

/**
 * struct xfer_progress - the progress line of one transfer
 * @start: when the transfer started
 * @last: when the line last changed, 0 before it was first printed
 * @tty: standard error is a terminal: one line, rewritten
 */
struct xfer_progress {
	__u64 start;
	__u64 last;
	bool tty;
};

/* Bytes per second, 0 when no time passed. */
static __u64 xfer_rate(__u64 bytes, __u64 ns)
{
	return ns ? (__u64)((double)bytes * 1e9 / (double)ns) : 0;
}

static void xfer_progress_show(const struct xfer *x, struct xfer_progress *p,
			       __u64 done, bool final)
{
	char a[FMT_LEN], b[FMT_LEN], r[FMT_LEN];
	__u64 now = clock_ns();

	if (!x->progress)
		return;
	if (final) {
		if (p->last && p->tty)
			fputc('\n', stderr);
		return;
	}
	if (now - (p->last ? p->last : p->start) <
	    (p->tty ? XFER_TTY_NS : XFER_LOG_NS))
		return;
	p->last = now;
	fprintf(stderr, "%s%s: %s of %s (%llu%%), %s/s%s", p->tty ? "\r" : "",
		x->what, fmt_size(done, a, sizeof(a)),
		fmt_size(x->length, b, sizeof(b)), done * 100 / x->length,
		fmt_size(xfer_rate(done, now - p->start), r, sizeof(r)),
		p->tty ? "   " : "\n");
}

/*
 * Move [@from, @to) of the transfer through @fd, piece by piece. Return:
 * 0, with *@done at the end of what moved (short at the end of the
 * file, *@eof then true), or -errno with *@done where it stopped.
 */
static int xfer_span(const struct xfer *x, struct xfer_progress *p, int fd,
		     __u64 from, __u64 to, __u64 *done, bool *eof)
{
	struct cmabuf_rw r;
	__u64 len;
	int ret;

	*done = from;
	while (*done < to) {
		len = to - *done < XFER_PIECE ? to - *done : XFER_PIECE;
		memset(&r, 0, sizeof(r));
		r.buf_fd = x->buf;
		r.file_fd = fd;
		r.file_offset = x->file_offset + *done;
		r.buf_offset = x->buf_offset + *done;
		r.length = len;
		r.flags = x->flags;
		ret = dev_ioctl(x->dev, CMABUF_IOC_RW, &r);
		if (ret)
			return ret;
		*done += r.done;
		xfer_progress_show(x, p, *done, false);
		/*
		 * A short count is the end of the file, or a signal that
		 * stopped the transfer: the next piece says which.
		 */
		if (!r.done) {
			*eof = true;
			return 0;
		}
	}
	return 0;
}

/**
 * xfer_run() - move the bytes of one transfer
 * @x: the transfer
 * @res: out: how far it went and how
 *
 * Whole blocks of %XFER_DIRECT_ALIGN go through @x->fd_direct when the
 * offsets allow it, the rest through @x->fd_buffered. When O_DIRECT
 * refuses the first piece (EINVAL: an alignment the device wants
 * larger), everything goes through the page cache, and a line says so.
 *
 * Return: 0, or -errno of the ioctl that failed (@res says how far the
 * transfer went before).
 */
int xfer_run(const struct xfer *x, struct xfer_result *res)
{
	struct xfer_progress p = { .start = clock_ns(), .tty = isatty(2) };
	__u64 direct_end = 0, done = 0;
	bool eof = false;
	int ret = 0;

	memset(res, 0, sizeof(*res));
	if (x->fd_direct >= 0 &&
	    !(x->file_offset % XFER_DIRECT_ALIGN) &&
	    !(x->buf_offset % XFER_DIRECT_ALIGN))
		direct_end = x->length - x->length % XFER_DIRECT_ALIGN;
	if (direct_end) {
		ret = xfer_span(x, &p, x->fd_direct, 0, direct_end, &done, &eof);
		if (ret == -EINVAL && !done) {
			msg_warn("%s: O_DIRECT refused the transfer (the device wants another alignment): through the page cache",
				 x->what);
			ret = 0;
		}
		res->direct = done;
	}
	if (!ret && !eof && done < x->length)
		ret = xfer_span(x, &p, x->fd_buffered, done, x->length, &done,
				&eof);
	xfer_progress_show(x, &p, done, true);
	res->done = done;
	res->ns = clock_ns() - p.start;
	return ret;
}

/**
 * xfer_parse_holder() - "PID:FD", a buffer another process holds
 * @s: the argument
 * @pid: out: the process
 * @fd: out: its file descriptor
 *
 * Return: 0, or -EINVAL.
 */
int xfer_parse_holder(const char *s, pid_t *pid, int *fd)
{
	unsigned long p, f;
	char *end;

	errno = 0;
	p = strtoul(s, &end, 10);
	if (errno || end == s || *end != ':' || !p || p > INT_MAX)
		return -EINVAL;
	s = end + 1;
	f = strtoul(s, &end, 10);
	if (errno || end == s || *end || f > INT_MAX)
		return -EINVAL;
	*pid = p;
	*fd = f;
	return 0;
}

/**
 * xfer_opt() - an option load and save share, in their getopt_long() loops
 * @cmd: the command ("load")
 * @c: what opt_next() returned
 * @arg: its value (optarg)
 * @o: where it goes
 *
 * -o OFF (0 allowed), -l LEN, -s S, --into or --from PID:FD (the buffer
 * another process holds), --buffered, --verify and -q: one parse and one
 * error text for both commands.
 *
 * Return: 0 when taken, 1 when @c is none of them, or %EXIT_USAGE after
 * the error line.
 */
int xfer_opt(const char *cmd, int c, const char *arg, struct xfer_opts *o)
{
	int ret;

	switch (c) {
	case 'o':
		ret = parse_size(arg, &o->offset);
		if (ret) {
			opt_error(cmd, "bad offset '%s': %s", arg,
				  parse_strerror(ret));
			return EXIT_USAGE;
		}
		o->offset_given = true;
		return 0;
	case 'l':
		return opt_size(cmd, "length", arg, &o->length);
	case 's':
		return opt_strategy(cmd, arg, &o->strategy);
	case XFER_OPT_INTO:
	case XFER_OPT_FROM:
		if (!xfer_parse_holder(arg, &o->pid, &o->fd))
			return 0;
		opt_error(cmd, "bad %s '%s' (PID:FD, as 'cmabufctl alloc --hold' prints them)",
			  c == XFER_OPT_INTO ? "--into" : "--from", arg);
		return EXIT_USAGE;
	case XFER_OPT_BUFFERED:
		o->buffered = true;
		return 0;
	case XFER_OPT_VERIFY:
		o->verify = true;
		return 0;
	case 'q':
		o->quiet = true;
		return 0;
	}
	return 1;
}

/* The long options load and save share, after each one's own. */
static const struct option xfer_longs[] = {
	{ "offset", required_argument, NULL, 'o' },
	{ "length", required_argument, NULL, 'l' },
	{ "strategy", required_argument, NULL, 's' },
	{ "buffered", no_argument, NULL, XFER_OPT_BUFFERED },
	{ "verify", no_argument, NULL, XFER_OPT_VERIFY },
	{ "quiet", no_argument, NULL, 'q' },
	{ "device", required_argument, NULL, 'd' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ }
};

/**
 * xfer_parse() - the command line of load or save
 * @argc: arguments, the command's name first
 * @argv: them
 * @shorts: the command's own short options ("f:"), before those of
 *	xfer_opt()
 * @longs: its own long options, at most %XFER_OWN_LONGS, ending with { }
 * @own: takes one of them: 0, or %EXIT_USAGE after its error line (for
 *	an option opt_next() refused, at once)
 * @usage: prints the command's --help
 * @o: out: what they ask for; FILE is the one word
 *
 * Return: 0, -1 after --help, or %EXIT_USAGE after an error line.
 */
int xfer_parse(int argc, char **argv, const char *shorts,
	       const struct option *longs,
	       int (*own)(int c, char **argv, struct xfer_opts *o),
	       void (*usage)(FILE *fp), struct xfer_opts *o)
{
	struct option all[XFER_OWN_LONGS + ARRAY_SIZE(xfer_longs)];
	struct opt_common oc = { };
	char spec[32];
	int c, ret;
	size_t n;

	for (n = 0; n < XFER_OWN_LONGS && longs[n].name; n++)
		all[n] = longs[n];
	memcpy(all + n, xfer_longs, sizeof(xfer_longs));
	snprintf(spec, sizeof(spec), "%so:l:s:q", shorts);
	memset(o, 0, sizeof(*o));
	o->strategy = CMABUF_STRATEGY_AUTO;
	optind = 0;
	while ((c = opt_next(argc, argv, spec, all, &oc)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return -1;
		}
		ret = xfer_opt(argv[0], c, optarg, o);
		if (ret == 1)
			ret = own(c, argv, o);
		if (ret)
			return ret;
	}
	ret = opt_words(argc, argv, 1, 1, "FILE");
	if (ret)
		return ret;
	o->file = argv[optind];
	o->json = oc.json;
	dev_resolve(oc.device, o->device, sizeof(o->device));
	return 0;
}

/**
 * xfer_take_fd() - a duplicate of another process's file descriptor
 * @pid: the process
 * @fd: its descriptor
 *
 * pidfd_getfd(): the caller must be allowed to ptrace @pid (root, or the
 * same user where ptrace is not restricted).
 *
 * Return: the new descriptor, or -errno.
 */
int xfer_take_fd(pid_t pid, int fd)
{
	int pidfd, ret;

	pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		return -errno;
	ret = syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	if (ret < 0)
		ret = -errno;
	close(pidfd);
	return ret;
}

/**
 * xfer_file_size() - the bytes of a regular file or a block device
 * @fd: it
 * @size: out: its size
 *
 * Return: 0, -EINVAL for another kind of file, or -errno.
 */
int xfer_file_size(int fd, __u64 *size)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (S_ISREG(st.st_mode)) {
		*size = st.st_size;
		return 0;
	}
	if (S_ISBLK(st.st_mode))
		return ioctl(fd, BLKGETSIZE64, size) ? -errno : 0;
	return -EINVAL;
}

/**
 * xfer_open() - open a file twice: with O_DIRECT and without
 * @path: the file
 * @flags: open()'s flags, O_CLOEXEC added
 * @buffered: no O_DIRECT (*@fd_direct is -1)
 * @fd_direct: out: the file with O_DIRECT, -1 where its file system
 *	refuses it (EINVAL)
 * @fd_buffered: out: the file without
 *
 * Return: 0, or -errno of the open that failed (nothing left open).
 */
int xfer_open(const char *path, int flags, bool buffered, int *fd_direct,
	      int *fd_buffered)
{
	*fd_direct = -1;
	*fd_buffered = open(path, flags | O_CLOEXEC, 0644);
	if (*fd_buffered < 0)
		return -errno;
	if (buffered)
		return 0;
	/* Created, and truncated, by the first open already. */
	*fd_direct = open(path, (flags & ~(O_CREAT | O_TRUNC | O_EXCL)) |
			  O_DIRECT | O_CLOEXEC);
	if (*fd_direct < 0 && errno != EINVAL) {
		int err = -errno;

		close(*fd_buffered);
		return err;
	}
	return 0;
}

/**
 * xfer_buf_size() - the size of a dma-buf
 * @buf: it
 * @size: out: its size
 *
 * Return: 0 or -errno.
 */
int xfer_buf_size(int buf, __u64 *size)
{
	off_t end = lseek(buf, 0, SEEK_END);

	if (end < 0)
		return -errno;
	*size = end;
	return 0;
}

static int xfer_sync(int buf, __u64 flags)
{
	struct dma_buf_sync sync = { .flags = flags };

	return dev_ioctl(buf, DMA_BUF_IOCTL_SYNC, &sync);
}

/**
 * xfer_compare() - does a file hold what a buffer holds
 * @buf: the dma-buf
 * @buf_offset: where in it
 * @fd: the file, read with pread()
 * @file_offset: where in it
 * @length: bytes to compare
 * @bad: out: offset of the first byte that differs, or @length
 *
 * Return: 0, or -errno of the mapping or a read (-EIO for a read that
 * ends early).
 */
int xfer_compare(int buf, __u64 buf_offset, int fd, __u64 file_offset,
		 __u64 length, __u64 *bad)
{
	size_t piece = 4 << 20, n, i;
	__u64 size = 0, done = 0;
	unsigned char *map, *tmp;
	ssize_t got;
	int ret;

	*bad = length;
	ret = xfer_buf_size(buf, &size);
	if (ret)
		return ret;
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, buf, 0);
	if (map == MAP_FAILED)
		return -errno;
	tmp = malloc(piece);
	if (!tmp) {
		munmap(map, size);
		return -ENOMEM;
	}
	ret = xfer_sync(buf, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ);
	while (!ret && done < length) {
		n = length - done < piece ? length - done : piece;
		got = pread(fd, tmp, n, file_offset + done);
		if (got != (ssize_t)n) {
			ret = got < 0 ? -errno : -EIO;
			break;
		}
		if (memcmp(tmp, map + buf_offset + done, n)) {
			for (i = 0; tmp[i] == map[buf_offset + done + i]; i++)
				;
			*bad = done + i;
			break;
		}
		done += n;
	}
	xfer_sync(buf, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ);
	free(tmp);
	munmap(map, size);
	return ret;
}

/**
 * xfer_strerror() - what an error of CMABUF_IOC_RW means here
 * @err: a negative errno
 *
 * Return: a phrase that names the fix where there is one.
 */
const char *xfer_strerror(int err)
{
	switch (err) {
	case -EOPNOTSUPP:
		return "not a file it moves bytes of (block devices; files on disks, tmpfs, ramfs)";
	case -ENOTTY:
		return "the cmabuf module is older than CMABUF_IOC_RW";
	case -EBADF:
		return "not open for that (a read-only buffer, or a file not open for it)";
	default:
		return strerror(-err);
	}
}

/* The line that says what a transfer did. */
void xfer_print(const char *what, const char *file,
		const struct xfer_result *res)
{
	char sz[FMT_LEN], t[FMT_LEN], r[FMT_LEN], d[FMT_LEN];

	printf("%s: %s (%llu bytes) %s %s in %s, %s/s", what,
	       fmt_size(res->done, sz, sizeof(sz)), res->done,
	       !strcmp(what, "load") ? "from" : "to", file,
	       fmt_ns(res->ns, t, sizeof(t)),
	       fmt_size(xfer_rate(res->done, res->ns), r, sizeof(r)));
	if (res->direct == res->done)
		printf(", O_DIRECT\n");
	else if (!res->direct)
		printf(", through the page cache\n");
	else
		printf(", %s with O_DIRECT, the rest through the page cache\n",
		       fmt_size(res->direct, d, sizeof(d)));
}
