// SPDX-License-Identifier: GPL-2.0
/*
 * cmabufctl save: write a buffer another process holds, or a new one, to
 * a file with CMABUF_IOC_RW (xfer.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/dma-buf.h>

#include "cmd.h"
#include "dev.h"
#include "fmt.h"
#include "json.h"
#include "msg.h"
#include "parse.h"
#include "opts.h"
#include "xfer.h"

static void save_usage(FILE *fp)
{
	fprintf(fp,
		"usage: cmabufctl save FILE (--from PID:FD | --size SIZE [--fill BYTE])\n"
		"                      [--offset OFF] [--length LEN] [--strategy S]\n"
		"                      [--device DEV] [--buffered] [--verify] [--quiet]\n"
		"                      [--json]\n"
		"\n"
		"Write the buffer process PID holds as FD (or a new buffer of SIZE) to FILE,\n"
		"a regular file (created, and truncated unless --offset is given) or a\n"
		"block device, with CMABUF_IOC_RW: with O_DIRECT the storage's DMA reads\n"
		"the buffer's pages, no CPU copy; what O_DIRECT cannot take goes through\n"
		"the page cache; the file is synced at the end. A progress line goes to\n"
		"standard error on long transfers. Sizes are bytes with binary units.\n"
		"\n"
		"      --from PID:FD  the buffer process PID holds as FD, as 'cmabufctl\n"
		"                     alloc --hold' prints them (needs the right to\n"
		"                     ptrace PID)\n"
		"      --size SIZE    a new buffer of SIZE bytes instead\n"
		"  -f, --fill BYTE    fill the new buffer with BYTE (default: its zeros)\n"
		"  -o, --offset OFF   write at byte OFF of FILE (default 0)\n"
		"  -l, --length LEN   write LEN bytes from the buffer's start (default:\n"
		"                     all of it)\n"
		"  -s, --strategy S   the new buffer's: auto (default), compound, frozen,\n"
		"                     legacy or dma\n"
		"  -d, --device DEV   a path, a label or 'default' (default /dev/cmabuf)\n"
		"      --buffered     through the page cache only (no O_DIRECT)\n"
		"      --verify       read FILE back through read() and compare\n"
		"  -q, --quiet        no progress line\n"
		"  -j, --json         one JSON document instead of text\n");
}

/* --size, --fill; 0, or EXIT_USAGE after the error line. */
static int save_opt(int c, char **argv, struct xfer_opts *o)
{
	int ret;

	switch (c) {
	case XFER_OPT_SIZE:
		ret = parse_size(optarg, &o->size);
		if (!ret && o->size)
			return 0;
		opt_error(argv[0], "bad size '%s': %s", optarg,
			  ret ? parse_strerror(ret) : "must not be zero");
		return EXIT_USAGE;
	case 'f':
		if (parse_byte(optarg, &o->fill)) {
			opt_error(argv[0], "bad --fill '%s' (0-255 or 0x00-0xff)", optarg);
			return EXIT_USAGE;
		}
		o->do_fill = true;
		return 0;
	}
	return EXIT_USAGE;
}

/**
 * save_parse() - the command line of cmabufctl save
 * @argc: arguments, the command's name first
 * @argv: them
 * @o: out: what they ask for
 *
 * Return: 0, -1 after --help, or %EXIT_USAGE after an error line.
 */
int save_parse(int argc, char **argv, struct xfer_opts *o)
{
	static const struct option opts[] = {
		{ "from", required_argument, NULL, XFER_OPT_FROM },
		{ "size", required_argument, NULL, XFER_OPT_SIZE },
		{ "fill", required_argument, NULL, 'f' },
		{ }
	};
	int ret;

	ret = xfer_parse(argc, argv, "f:", opts, save_opt, save_usage, o);
	if (ret)
		return ret;
	if (!o->pid == !o->size) {
		opt_error(argv[0], "give the buffer: --from PID:FD or --size SIZE, one of them");
		return EXIT_USAGE;
	}
	if (o->pid && o->do_fill) {
		opt_error(argv[0],
			  "--fill fills a new buffer; the one of --from is saved as it is");
		return EXIT_USAGE;
	}
	return 0;
}

static int save_fill(int buf, __u64 size, __u8 fill)
{
	struct dma_buf_sync sync = { DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE };
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, buf, 0);

	if (p == MAP_FAILED)
		return -errno;
	dev_ioctl(buf, DMA_BUF_IOCTL_SYNC, &sync);
	memset(p, fill, size);
	sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE;
	dev_ioctl(buf, DMA_BUF_IOCTL_SYNC, &sync);
	munmap(p, size);
	return 0;
}

/* The buffer: another process's (--from), or a new one; its size. */
static int save_buffer(const struct xfer_opts *o, int dev,
		       struct cmabuf_alloc_data *d, __u64 *size)
{
	char sz[FMT_LEN];
	int buf, ret;

	if (o->pid) {
		buf = xfer_take_fd(o->pid, o->fd);
		if (buf < 0) {
			msg_err("save: fd %d of process %d: %s", o->fd, o->pid,
				strerror(-buf));
			return buf;
		}
		ret = xfer_buf_size(buf, size);
		if (ret) {
			msg_err("save: fd %d of process %d is no dma-buf: %s",
				o->fd, o->pid, strerror(-ret));
			close(buf);
			return ret;
		}
		return buf;
	}
	memset(d, 0, sizeof(*d));
	d->size = o->size;
	d->fd_flags = O_RDWR | O_CLOEXEC;
	d->flags = o->strategy;
	ret = dev_alloc(dev, d);
	if (ret) {
		msg_err("save: %s: no %s buffer of %s: %s (see 'cmabufctl alloc' for why)",
			o->device, strategy_name(o->strategy),
			fmt_size(o->size, sz, sizeof(sz)), strerror(-ret));
		return ret;
	}
	*size = d->alloc_size;
	if (o->do_fill) {
		ret = save_fill(d->fd, *size, o->fill);
		if (ret) {
			msg_err("save: mmap of the new buffer: %s", strerror(-ret));
			close(d->fd);
			return ret;
		}
	}
	return d->fd;
}

static void save_print_json(const struct xfer_opts *o,
			    const struct cmabuf_alloc_data *d,
			    const struct xfer_result *res, int verified)
{
	struct json j;

	json_begin(&j, stdout);
	json_str(&j, "file", o->file);
	json_u64(&j, "offset", o->offset);
	json_str(&j, "device", o->device);
	if (o->pid) {
		json_u64(&j, "pid", o->pid);
		json_u64(&j, "fd", o->fd);
		json_null(&j, "strategy");
	} else {
		json_null(&j, "pid");
		json_null(&j, "fd");
		json_str(&j, "strategy", strategy_name(d->strategy));
	}
	json_u64(&j, "bytes", res->done);
	json_u64(&j, "direct_bytes", res->done ? res->direct : 0);
	json_u64(&j, "ns", res->ns);
	if (verified < 0)
		json_null(&j, "verified");
	else
		json_bool(&j, "verified", verified);
	json_end(&j);
}

/* Compare the file with the buffer: 1 equal, 0 not, -1 could not. */
static int save_verify(const struct xfer_opts *o, const struct xfer *x,
		       __u64 done)
{
	__u64 bad;
	int ret;

	ret = xfer_compare(x->buf, 0, x->fd_buffered, o->offset, done, &bad);
	if (ret) {
		msg_err("save: verify: %s", strerror(-ret));
		return -1;
	}
	if (bad < done) {
		msg_err("save: verify: byte %llu of %s differs from byte %llu of the buffer",
			o->offset + bad, o->file, bad);
		return 0;
	}
	if (!o->json)
		printf("verify: %s holds the %llu bytes of the buffer: ok\n",
		       o->file, done);
	return 1;
}

/* O_TRUNC for a new file written from its start; never a device's. */
static int save_flags(const struct xfer_opts *o)
{
	int flags = O_WRONLY | O_CREAT;

	return o->offset_given ? flags : flags | O_TRUNC;
}

static int save_run(const struct xfer_opts *o)
{
	struct xfer x = { .flags = CMABUF_RW_WRITE, .what = "save",
			  .progress = !o->quiet && !o->json };
	struct cmabuf_alloc_data d = { 0 };
	int ret, verified = -1, status = 1;
	struct xfer_result res;
	__u64 size;

	x.dev = dev_open(o->device);
	if (x.dev < 0)
		return 1;
	x.buf = save_buffer(o, x.dev, &d, &size);
	if (x.buf < 0)
		goto close_dev;
	if (o->length > size) {
		msg_err("save: the buffer holds %llu bytes, not %llu", size,
			o->length);
		goto close_buf;
	}
	/* --verify reads the file back: open it read-write then. */
	ret = xfer_open(o->file, (save_flags(o) & ~O_WRONLY) |
			(o->verify ? O_RDWR : O_WRONLY), o->buffered,
			&x.fd_direct, &x.fd_buffered);
	if (ret) {
		msg_err("save: %s: %s", o->file, strerror(-ret));
		goto close_buf;
	}
	x.file_offset = o->offset;
	x.length = o->length ? o->length : size;
	ret = xfer_run(&x, &res);
	if (!ret && fsync(x.fd_buffered))
		ret = -errno;
	if (ret) {
		msg_err("save: %s: after %llu bytes: %s", o->file, res.done,
			xfer_strerror(ret));
		goto close_file;
	}
	if (res.done < x.length)
		msg_warn("save: %s took %llu of %llu bytes (the end of a device?)",
			 o->file, res.done, x.length);
	if (!o->json)
		xfer_print("save", o->file, &res);
	if (o->verify) {
		verified = save_verify(o, &x, res.done);
		if (verified != 1)
			goto close_file;
	}
	if (o->json)
		save_print_json(o, &d, &res, verified);
	status = 0;
close_file:
	if (x.fd_direct >= 0)
		close(x.fd_direct);
	close(x.fd_buffered);
close_buf:
	close(x.buf);
close_dev:
	close(x.dev);
	return status;
}

int cmd_save(int argc, char **argv)
{
	struct xfer_opts o;
	int ret;

	ret = save_parse(argc, argv, &o);
	if (ret)
		return ret < 0 ? 0 : ret;
	return save_run(&o);
}
