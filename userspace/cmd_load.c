// SPDX-License-Identifier: GPL-2.0
/*
 * cmabufctl load: read a file into a new buffer, or into one another
 * process holds, with CMABUF_IOC_RW (xfer.c), and hold it.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "dev.h"
#include "fmt.h"
#include "json.h"
#include "msg.h"
#include "parse.h"
#include "opts.h"
#include "xfer.h"

static void load_usage(FILE *fp)
{
	fprintf(fp,
		"usage: cmabufctl load FILE [--offset OFF] [--length LEN] [--into PID:FD]\n"
		"                      [--strategy S] [--device DEV] [--hold SECONDS]\n"
		"                      [--buffered] [--verify] [--quiet] [--json]\n"
		"\n"
		"Read FILE, a regular file or a block device, into a new buffer (or into\n"
		"the buffer process PID holds as FD) with CMABUF_IOC_RW: with O_DIRECT the\n"
		"storage's DMA writes the buffer's pages, no CPU copy; what O_DIRECT\n"
		"cannot take (a tail that is not a whole 4 KiB block, a file system\n"
		"without O_DIRECT) goes through the page cache. A progress line goes to\n"
		"standard error on long transfers. OFF, LEN and SIZE are bytes with binary\n"
		"units: 4K, 64M, 64MiB, '1.50 GiB'.\n"
		"\n"
		"  -o, --offset OFF   start at byte OFF of FILE (default 0)\n"
		"  -l, --length LEN   read LEN bytes (default: to the end of FILE)\n"
		"      --into PID:FD  the buffer process PID holds as FD (needs the right\n"
		"                     to ptrace PID), from its start\n"
		"  -s, --strategy S   a new buffer's: auto (default), compound, frozen,\n"
		"                     legacy or dma\n"
		"  -d, --device DEV   a path, a label or 'default' (default /dev/cmabuf)\n"
		"      --hold SECONDS keep the new buffer open that long before freeing it\n"
		"      --buffered     through the page cache only (no O_DIRECT)\n"
		"      --verify       read FILE again through read() and compare\n"
		"  -q, --quiet        no progress line\n"
		"  -j, --json         one JSON document instead of text\n");
}

/* --hold; 0, or EXIT_USAGE after the error line. */
static int load_opt(int c, char **argv, struct xfer_opts *o)
{
	if (c != XFER_OPT_HOLD)
		return EXIT_USAGE;
	if (!parse_u32(optarg, &o->hold))
		return 0;
	opt_error(argv[0], "bad --hold '%s' (whole seconds)", optarg);
	return EXIT_USAGE;
}

/**
 * load_parse() - the command line of cmabufctl load
 * @argc: arguments, the command's name first
 * @argv: them
 * @o: out: what they ask for
 *
 * Return: 0, -1 after --help, or %EXIT_USAGE after an error line.
 */
int load_parse(int argc, char **argv, struct xfer_opts *o)
{
	static const struct option opts[] = {
		{ "into", required_argument, NULL, XFER_OPT_INTO },
		{ "hold", required_argument, NULL, XFER_OPT_HOLD },
		{ }
	};
	int ret;

	ret = xfer_parse(argc, argv, "", opts, load_opt, load_usage, o);
	if (ret)
		return ret;
	if (o->pid && o->hold) {
		opt_error(argv[0], "--hold keeps a new buffer; the one of --into is its holder's");
		return EXIT_USAGE;
	}
	return 0;
}

/* The buffer: another process's (--into), or a new one of @len bytes. */
static int load_buffer(const struct xfer_opts *o, int dev, __u64 len,
		       struct cmabuf_alloc_data *d)
{
	char sz[FMT_LEN];
	int buf, ret;

	if (o->pid) {
		buf = xfer_take_fd(o->pid, o->fd);
		if (buf < 0)
			msg_err("load: fd %d of process %d: %s", o->fd, o->pid,
				strerror(-buf));
		return buf;
	}
	memset(d, 0, sizeof(*d));
	d->size = len;
	d->fd_flags = O_RDWR | O_CLOEXEC;
	d->flags = o->strategy;
	ret = dev_alloc(dev, d);
	if (ret) {
		msg_err("load: %s: no %s buffer of %s: %s (see 'cmabufctl alloc' for why)",
			o->device, strategy_name(o->strategy),
			fmt_size(len, sz, sizeof(sz)), strerror(-ret));
		return ret;
	}
	return d->fd;
}

static void load_print_json(const struct xfer_opts *o,
			    const struct cmabuf_alloc_data *d,
			    const struct xfer_result *res, int verified)
{
	struct json j;

	json_begin(&j, stdout);
	json_str(&j, "file", o->file);
	json_u64(&j, "offset", o->offset);
	json_str(&j, "device", o->device);
	json_u64(&j, "pid", o->pid ? o->pid : getpid());
	json_u64(&j, "fd", o->pid ? (__u64)o->fd : d->fd);
	if (o->pid) {
		json_null(&j, "size_bytes");
		json_null(&j, "strategy");
	} else {
		json_u64(&j, "size_bytes", d->alloc_size);
		json_str(&j, "strategy", strategy_name(d->strategy));
	}
	json_u64(&j, "bytes", res->done);
	json_u64(&j, "direct_bytes", res->done ? res->direct : 0);
	json_u64(&j, "ns", res->ns);
	if (verified < 0)
		json_null(&j, "verified");
	else
		json_bool(&j, "verified", verified);
	json_u64(&j, "hold_seconds", o->hold);
	json_end(&j);
}

/* Compare the file with the buffer: 1 equal, 0 not, -1 could not. */
static int load_verify(const struct xfer_opts *o, const struct xfer *x,
		       __u64 done)
{
	__u64 bad;
	int ret;

	ret = xfer_compare(x->buf, 0, x->fd_buffered, o->offset, done, &bad);
	if (ret) {
		msg_err("load: verify: %s", strerror(-ret));
		return -1;
	}
	if (bad < done) {
		msg_err("load: verify: byte %llu of the buffer differs from byte %llu of %s",
			bad, o->offset + bad, o->file);
		return 0;
	}
	if (!o->json)
		printf("verify: the buffer holds the %llu bytes of %s: ok\n",
		       done, o->file);
	return 1;
}

static int load_run(const struct xfer_opts *o)
{
	struct xfer x = { .flags = CMABUF_RW_READ, .what = "load",
			  .progress = !o->quiet && !o->json };
	struct cmabuf_alloc_data d = { 0 };
	struct xfer_result res;
	int ret, verified = -1, status = 1;
	__u64 size, len;

	ret = xfer_open(o->file, O_RDONLY, o->buffered, &x.fd_direct,
			&x.fd_buffered);
	if (ret) {
		msg_err("load: %s: %s", o->file, strerror(-ret));
		return 1;
	}
	ret = xfer_file_size(x.fd_buffered, &size);
	if (ret || o->offset >= size) {
		msg_err("load: %s: %s", o->file,
			ret == -EINVAL ? "not a regular file or a block device" :
			ret ? strerror(-ret) : "the offset is at or past its end");
		goto close_file;
	}
	len = o->length ? o->length : size - o->offset;
	x.dev = dev_open(o->device);
	if (x.dev < 0)
		goto close_file;
	x.buf = load_buffer(o, x.dev, len, &d);
	if (x.buf < 0)
		goto close_dev;
	if (o->pid) {
		ret = xfer_buf_size(x.buf, &size);
		if (!ret && len > size) {
			msg_err("load: the buffer of --into holds %llu bytes, not %llu",
				size, len);
			goto close_buf;
		}
	}
	x.file_offset = o->offset;
	x.length = len;
	ret = xfer_run(&x, &res);
	if (ret) {
		msg_err("load: %s: after %llu bytes: %s", o->file, res.done,
			xfer_strerror(ret));
		goto close_buf;
	}
	if (!o->json)
		xfer_print("load", o->file, &res);
	if (o->verify) {
		verified = load_verify(o, &x, res.done);
		if (verified != 1)
			goto close_buf;
	}
	if (o->json)
		load_print_json(o, &d, &res, verified);
	if (o->hold) {
		if (!o->json)
			printf("holding for %u s (pid %d, fd %u)\n", o->hold,
			       getpid(), d.fd);
		fflush(stdout);
		sleep(o->hold);
	}
	status = 0;
close_buf:
	close(x.buf);
close_dev:
	close(x.dev);
close_file:
	if (x.fd_direct >= 0)
		close(x.fd_direct);
	close(x.fd_buffered);
	return status;
}

int cmd_load(int argc, char **argv)
{
	struct xfer_opts o;
	int ret;

	ret = load_parse(argc, argv, &o);
	if (ret)
		return ret < 0 ? 0 : ret;
	return load_run(&o);
}
