// SPDX-License-Identifier: GPL-2.0
/*
 * cmabufctl alloc: allocate one buffer, optionally fill and verify it
 * through mmap, and hold it for inspection.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/dma-buf.h>

#include "cmd.h"
#include "dev.h"
#include "fmt.h"
#include "msg.h"
#include "parse.h"

/**
 * struct alloc_opts - what the command line asked for
 * @device: device path
 * @size: bytes
 * @strategy: a %CMABUF_STRATEGY_* value
 * @align: log2 of the alignment, 0 for the driver's choice
 * @hold: seconds to keep the buffer
 * @fill: byte to write into every byte of the buffer
 * @do_fill: @fill was given
 * @verify: check the buffer reads zero, and reads @fill after filling
 */
struct alloc_opts {
	char device[PATH_MAX];
	__u64 size;
	unsigned int strategy;
	__u32 align;
	__u32 hold;
	__u8 fill;
	bool do_fill;
	bool verify;
};

static void alloc_usage(FILE *fp)
{
	fprintf(fp,
		"usage: cmabufctl alloc SIZE [--strategy S] [--align A] [--hold SECONDS]\n"
		"                      [--fill BYTE] [--verify] [--device DEV]\n"
		"\n"
		"Allocate one physically contiguous dma-buf and print its fd, size and\n"
		"strategy (and its physical address when allowed). SIZE and A take the\n"
		"suffixes K, M, G (binary): 4K, 64M, 1G.\n"
		"\n"
		"  -s, --strategy S   auto (default), compound, frozen or legacy\n"
		"  -a, --align A      physical alignment, a power of two (default: the\n"
		"                     driver's choice)\n"
		"  -H, --hold SECONDS keep the buffer open that long before freeing it\n"
		"  -f, --fill BYTE    write BYTE (0-255 or 0x00-0xff) into every byte\n"
		"  -v, --verify       check the new buffer reads as zero, and reads BYTE\n"
		"                     back after --fill\n"
		"  -d, --device DEV   a path, a label or 'default' (default /dev/cmabuf)\n");
}

/* Offset of the first byte of @p that differs from @val, or @len. */
static size_t alloc_mismatch(const unsigned char *p, size_t len, __u8 val)
{
	__u64 pattern = 0x0101010101010101ULL * val;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		if (*(const __u64 *)(p + i) != pattern)
			break;
	}
	for (; i < len; i++) {
		if (p[i] != val)
			break;
	}
	return i;
}

static int alloc_sync(int fd, __u64 flags)
{
	struct dma_buf_sync sync = { .flags = flags };

	if (ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync)) {
		msg_err("DMA_BUF_IOCTL_SYNC: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int alloc_check(const unsigned char *p, size_t len, __u8 val,
		       const char *what)
{
	size_t off = alloc_mismatch(p, len, val);

	if (off < len) {
		msg_err("verify: %s: byte at offset %zu is 0x%02x, not 0x%02x",
			what, off, p[off], val);
		return -1;
	}
	printf("verify: %s: all %zu bytes are 0x%02x: ok\n", what, len, val);
	return 0;
}

/* Zero check, fill and read-back through a shared mapping. */
static int alloc_touch(int buf_fd, size_t len, const struct alloc_opts *o)
{
	unsigned char *p;
	int ret = -1;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, buf_fd, 0);
	if (p == MAP_FAILED) {
		msg_err("mmap of the dma-buf: %s", strerror(errno));
		return -1;
	}
	if (alloc_sync(buf_fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW))
		goto unmap;
	if (o->verify && alloc_check(p, len, 0, "zeroed on allocation"))
		goto end_sync;
	if (o->do_fill) {
		memset(p, o->fill, len);
		printf("fill: wrote 0x%02x to %zu bytes\n", o->fill, len);
	}
	if (o->verify && o->do_fill && alloc_check(p, len, o->fill, "fill read back"))
		goto end_sync;
	ret = 0;
end_sync:
	if (alloc_sync(buf_fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW))
		ret = -1;
unmap:
	munmap(p, len);
	return ret;
}

static void alloc_print(int dev_fd, const struct cmabuf_alloc_data *d)
{
	struct cmabuf_phys phys;
	char sz[FMT_LEN];
	int ret;

	printf("fd %u, size %s (%llu bytes), strategy %s\n", d->fd,
	       fmt_size(d->alloc_size, sz, sizeof(sz)), d->alloc_size,
	       strategy_name(d->strategy));
	ret = dev_phys(dev_fd, d->fd, &phys);
	if (!ret)
		printf("phys 0x%llx\n", phys.phys);
	else if (ret == -EPERM)
		printf("phys unknown (needs CAP_SYS_RAWIO)\n");
}

static void alloc_explain(const struct alloc_opts *o, int err)
{
	char sz[FMT_LEN];

	fmt_size(o->size, sz, sizeof(sz));
	switch (err) {
	case -EOPNOTSUPP:
		msg_err("alloc: strategy %s is not supported by this kernel",
			strategy_name(o->strategy));
		break;
	case -ENOMEM:
		msg_err("alloc: %s: no free contiguous range of %s", o->device, sz);
		break;
	case -EINVAL:
		msg_err("alloc: %s rejected %s with strategy %s (size, alignment or strategy invalid)",
			o->device, sz, strategy_name(o->strategy));
		break;
	default:
		msg_err("alloc: %s: %s", o->device, strerror(-err));
	}
}

static int alloc_run(const struct alloc_opts *o)
{
	struct cmabuf_alloc_data d = {
		.size = o->size,
		.align = o->align,
		.fd_flags = O_RDWR | O_CLOEXEC,
		.flags = o->strategy,
	};
	int dev_fd, ret, status = 1;

	dev_fd = dev_open(o->device);
	if (dev_fd < 0)
		return 1;
	ret = dev_alloc(dev_fd, &d);
	if (ret) {
		alloc_explain(o, ret);
		goto close_dev;
	}
	alloc_print(dev_fd, &d);
	fflush(stdout);
	if ((o->verify || o->do_fill) && alloc_touch(d.fd, d.alloc_size, o))
		goto close_buf;
	if (o->hold) {
		printf("holding for %u s (pid %d, fd %u)\n", o->hold, getpid(), d.fd);
		fflush(stdout);
		sleep(o->hold);
	}
	status = 0;
close_buf:
	close(d.fd);
close_dev:
	close(dev_fd);
	return status;
}

static int alloc_parse(int argc, char **argv, struct alloc_opts *o)
{
	static const struct option opts[] = {
		{ "strategy", required_argument, NULL, 's' },
		{ "align", required_argument, NULL, 'a' },
		{ "hold", required_argument, NULL, 'H' },
		{ "fill", required_argument, NULL, 'f' },
		{ "verify", no_argument, NULL, 'v' },
		{ "device", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *device = NULL;
	int c, s, ret;

	while ((c = getopt_long(argc, argv, "s:a:H:f:vd:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (parse_strategy(optarg, &s) || s == PARSE_STRATEGY_ALL) {
				msg_err("alloc: bad strategy '%s' (auto, compound, frozen or legacy)",
					optarg);
				return EXIT_USAGE;
			}
			o->strategy = s;
			break;
		case 'a':
			ret = parse_align(optarg, &o->align);
			if (ret) {
				msg_err("alloc: bad alignment '%s': %s (a power of two up to 2^%d, e.g. 2M)",
					optarg, parse_strerror(ret), CMABUF_ALIGN_MAX);
				return EXIT_USAGE;
			}
			break;
		case 'H':
			if (parse_u32(optarg, &o->hold)) {
				msg_err("alloc: bad --hold '%s' (whole seconds)", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'f':
			if (parse_byte(optarg, &o->fill)) {
				msg_err("alloc: bad --fill '%s' (0-255 or 0x00-0xff)", optarg);
				return EXIT_USAGE;
			}
			o->do_fill = true;
			break;
		case 'v':
			o->verify = true;
			break;
		case 'd':
			device = optarg;
			break;
		case 'h':
			alloc_usage(stdout);
			return -1;
		default:
			alloc_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		msg_err("alloc: expected exactly one SIZE (try 'cmabufctl alloc --help')");
		return EXIT_USAGE;
	}
	ret = parse_size(argv[optind], &o->size);
	if (ret || !o->size) {
		msg_err("alloc: bad size '%s': %s (e.g. 4K, 64M, 1G)", argv[optind],
			ret ? parse_strerror(ret) : "must not be zero");
		return EXIT_USAGE;
	}
	dev_resolve(device, o->device, sizeof(o->device));
	return 0;
}

int cmd_alloc(int argc, char **argv)
{
	struct alloc_opts o = { .strategy = CMABUF_STRATEGY_AUTO };
	int ret;

	ret = alloc_parse(argc, argv, &o);
	if (ret)
		return ret < 0 ? 0 : ret;
	return alloc_run(&o);
}
