// SPDX-License-Identifier: GPL-2.0
/*
 * cmabufctl alloc: allocate one buffer, optionally fill and verify it
 * through mmap, and hold it for inspection.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/dma-buf.h>

#include "alloc.h"
#include "cmd.h"
#include "dev.h"
#include "explain.h"
#include "fmt.h"
#include "hold.h"
#include "json.h"
#include "msg.h"
#include "opts.h"
#include "parse.h"

/* What alloc_touch() found; -1 where it did not look. */
struct alloc_checks {
	int zeroed;
	int fill_read_back;
};

static void alloc_usage(void)
{
	printf("usage: cmabufctl alloc SIZE [--strategy S] [--align A] [--hold [SECONDS]]\n"
	       "                      [--fill BYTE] [--verify] [--writecombine]\n"
	       "                      [--device DEV] [--json]\n"
	       "\n"
	       "Allocate one physically contiguous dma-buf and print its fd, size and\n"
	       "strategy (and its physical address when allowed). SIZE and A are bytes\n"
	       "with binary units, as cmabufctl prints them: 4K, 64M, 64MiB, '1.50 GiB'.\n"
	       "\n"
	       "  -s, --strategy S   auto (default), compound, frozen, legacy or dma\n"
	       "  -a, --align A      physical alignment, a power of two (default: the\n"
	       "                     driver's choice)\n"
	       "      --hold [SECONDS] keep the buffer open that long, or without\n"
	       "                     SECONDS until SIGINT or SIGTERM, then free it\n"
	       "  -f, --fill BYTE    write BYTE (0-255 or 0x00-0xff) into every byte\n"
	       "      --verify       check the new buffer reads as zero, and reads BYTE\n"
	       "                     back after --fill (both through the mapping,\n"
	       "                     inside CMABUF_IOC_SYNC's bracket)\n"
	       "      --writecombine write-combined CPU mappings, where the instance's\n"
	       "                     device is not coherent ('cpu caches' in info)\n"
	       "  -d, --device DEV   an instance: a path, a label or 'default'\n"
	       "  -j, --json         one JSON document instead of text\n");
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

/**
 * struct alloc_access - the CPU's access to the new buffer
 * @dev_fd: the instance's node
 * @buf_fd: the buffer
 * @len: its bytes
 * @sync: the bracket that worked, NULL before the first
 */
struct alloc_access {
	int dev_fd;
	int buf_fd;
	size_t len;
	const char *sync;
};

/*
 * One end of the bracket around the CPU's access: CMABUF_IOC_SYNC over the
 * whole buffer, or DMA_BUF_IOCTL_SYNC on a driver without it (ENOTTY).
 */
static int alloc_sync(struct alloc_access *a, __u32 flags)
{
	struct cmabuf_sync part = {
		.fd = a->buf_fd, .flags = flags, .offset = 0, .length = a->len,
	};
	struct dma_buf_sync whole = { .flags = flags };
	int ret;

	if (!a->sync || !strcmp(a->sync, "CMABUF_IOC_SYNC")) {
		ret = dev_ioctl(a->dev_fd, CMABUF_IOC_SYNC, &part);
		if (!ret) {
			a->sync = "CMABUF_IOC_SYNC";
			return 0;
		}
		if (ret != -ENOTTY || a->sync) {
			msg_err("CMABUF_IOC_SYNC: %s", strerror(-ret));
			return -1;
		}
	}
	if (ioctl(a->buf_fd, DMA_BUF_IOCTL_SYNC, &whole)) {
		msg_err("DMA_BUF_IOCTL_SYNC: %s", strerror(errno));
		return -1;
	}
	a->sync = "DMA_BUF_IOCTL_SYNC";
	return 0;
}

static int alloc_check(const unsigned char *p, size_t len, __u8 val,
		       const char *what, bool quiet)
{
	size_t off = alloc_mismatch(p, len, val);

	if (off < len) {
		msg_err("verify: %s: byte at offset %zu is 0x%02x, not 0x%02x",
			what, off, p[off], val);
		return 0;
	}
	if (!quiet)
		printf("verify: %s: all %zu bytes are 0x%02x: ok\n", what, len, val);
	return 1;
}

/* Zero check, fill and read-back through a shared mapping. */
static int alloc_touch(struct alloc_access *a, const struct alloc_opts *o,
		       struct alloc_checks *chk)
{
	size_t len = a->len;
	unsigned char *p;
	int ret = -1;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, a->buf_fd, 0);
	if (p == MAP_FAILED) {
		msg_err("mmap of the dma-buf: %s", strerror(errno));
		return -1;
	}
	if (alloc_sync(a, DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW))
		goto unmap;
	if (!o->json)
		printf("cpu access: through the mapping, inside %s's bracket\n",
		       a->sync);
	if (o->verify) {
		chk->zeroed = alloc_check(p, len, 0, "zeroed on allocation", o->json);
		if (!chk->zeroed)
			goto end_sync;
	}
	if (o->do_fill) {
		memset(p, o->fill, len);
		if (!o->json)
			printf("fill: wrote 0x%02x to %zu bytes\n", o->fill, len);
	}
	if (o->verify && o->do_fill) {
		chk->fill_read_back = alloc_check(p, len, o->fill, "fill read back",
						  o->json);
		if (!chk->fill_read_back)
			goto end_sync;
	}
	ret = 0;
end_sync:
	if (alloc_sync(a, DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW))
		ret = -1;
unmap:
	munmap(p, len);
	return ret;
}

static void alloc_print(const struct alloc_opts *o,
			const struct cmabuf_alloc_data *d, int phys_ret,
			const struct cmabuf_phys *phys)
{
	char sz[FMT_LEN];

	printf("fd %u, size %s (%llu bytes), strategy %s, from %s\n", d->fd,
	       fmt_size(d->alloc_size, sz, sizeof(sz)), d->alloc_size,
	       strategy_name(d->strategy), o->device);
	if (o->writecombine)
		printf("write-combined: %s\n", d->buf_flags & CMABUF_BUF_WRITECOMBINE ?
		       "yes, CPU writes go to memory without the cache" :
		       "no, the instance's device is coherent: cacheable mappings");
	if (!phys_ret)
		printf("phys 0x%llx\n", phys->phys);
	else if (phys_ret == -EPERM)
		printf("phys unknown (needs CAP_SYS_RAWIO)\n");
}

/* -1 (not looked at) is null, else true or false. */
static void alloc_json_check(struct json *j, const char *key, int val)
{
	if (val < 0)
		json_null(j, key);
	else
		json_bool(j, key, val);
}

static void alloc_print_json(const struct alloc_opts *o,
			     const struct cmabuf_alloc_data *d, int phys_ret,
			     const struct cmabuf_phys *phys,
			     const struct alloc_checks *chk,
			     const struct alloc_access *a)
{
	struct json j;

	json_begin(&j, stdout);
	json_str(&j, "device", o->device);
	json_u64(&j, "pid", getpid());
	json_u64(&j, "fd", d->fd);
	json_u64(&j, "size_bytes", d->alloc_size);
	json_str(&j, "strategy", strategy_name(d->strategy));
	if (!phys_ret)
		json_u64(&j, "phys", phys->phys);
	else
		json_null(&j, "phys");
	alloc_json_check(&j, "zeroed", chk->zeroed);
	if (o->do_fill)
		json_u64(&j, "fill", o->fill);
	else
		json_null(&j, "fill");
	alloc_json_check(&j, "fill_read_back", chk->fill_read_back);
	json_bool(&j, "writecombine", d->buf_flags & CMABUF_BUF_WRITECOMBINE);
	if (a->sync)
		json_str(&j, "cpu_sync", a->sync);
	else
		json_null(&j, "cpu_sync");
	if (o->hold == HOLD_UNTIL_SIGNAL)
		json_null(&j, "hold_seconds");
	else
		json_u64(&j, "hold_seconds", o->hold);
	json_end(&j);
}

/* One line that says what was wrong with the request and what would do. */
static void alloc_explain(int dev_fd, const struct alloc_opts *o, int err)
{
	char why[512], sz[FMT_LEN];
	struct explain_cap cap;
	struct dev_info di;

	fmt_size(o->size, sz, sizeof(sz));
	if (err == -EDQUOT) {
		cap.known = dev_cap_read(o->device, &cap.held, &cap.max);
		explain_edquot(&cap, o->size, why, sizeof(why));
		msg_err("alloc: %s: %s", o->device, why);
		return;
	}
	if (err == -ENOBUFS) {
		explain_enobufs(o->size, why, sizeof(why));
		msg_err("alloc: %s: %s", o->device, why);
		return;
	}
	if ((err == -EINVAL || err == -ENOMEM || err == -EBUSY) &&
	    dev_info(dev_fd, &di)) {
		msg_err("alloc: %s: %s of %s with strategy %s: %s", o->device,
			err == -EINVAL ? "the driver refused" : "no room for",
			sz, strategy_name(o->strategy), strerror(-err));
		return;
	}
	switch (err) {
	case -EOPNOTSUPP:
		msg_err("alloc: strategy %s is not supported by this kernel (see 'cmabufctl info')",
			strategy_name(o->strategy));
		break;
	case -ENOMEM:
		explain_enomem(&di.info, o->size, dev_area_largest_free(&di), why,
			       sizeof(why));
		msg_err("alloc: %s (area %s): %s", o->device, di.area, why);
		break;
	case -EBUSY:
		explain_ebusy(&di.info, o->size, dev_area_largest_free(&di), why,
			      sizeof(why));
		msg_err("alloc: %s (area %s): %s", o->device, di.area, why);
		break;
	case -EINTR:
		msg_err("alloc: %s: interrupted by a fatal signal; nothing was allocated",
			o->device);
		break;
	case -EINVAL:
		explain_einval(&di.info, o->size, o->align, o->strategy, why,
			       sizeof(why));
		msg_err("alloc: %s: %s", o->device, why);
		break;
	case -ENODEV:
		msg_err("alloc: %s: the instance has been unbound", o->device);
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
		.flags = o->strategy |
			 (o->writecombine ? CMABUF_ALLOC_WRITECOMBINE : 0),
	};
	struct alloc_access a = { };
	struct alloc_checks chk = { -1, -1 };
	int dev_fd, ret, phys_ret, status = 1;
	char how[32];
	struct cmabuf_phys phys;

	dev_fd = dev_open(o->device);
	if (dev_fd < 0)
		return 1;
	ret = dev_alloc(dev_fd, &d);
	if (ret) {
		alloc_explain(dev_fd, o, ret);
		goto close_dev;
	}
	phys_ret = dev_phys(dev_fd, d.fd, &phys);
	if (!o->json) {
		alloc_print(o, &d, phys_ret, &phys);
		fflush(stdout);
	}
	a.dev_fd = dev_fd;
	a.buf_fd = d.fd;
	a.len = d.alloc_size;
	if ((o->verify || o->do_fill) && alloc_touch(&a, o, &chk))
		goto close_buf;
	if (o->json)
		alloc_print_json(o, &d, phys_ret, &phys, &chk, &a);
	if (o->hold) {
		hold_catch_signals();
		if (!o->json)
			printf("holding %s (pid %d, fd %u)\n",
			       hold_text(o->hold, how, sizeof(how)), getpid(),
			       d.fd);
		fflush(stdout);
		hold(o->hold);
	}
	status = 0;
close_buf:
	close(d.fd);
close_dev:
	close(dev_fd);
	return status;
}

/**
 * alloc_parse() - the command line of cmabufctl alloc
 * @argc: arguments, the command's name first
 * @argv: them
 * @o: out: what they ask for
 *
 * --hold and --verify have no short form: -v and -H mean --verbose and
 * human-readable to other tools, and would surprise here.
 *
 * Return: 0, -1 after --help, or %EXIT_USAGE after an error line.
 */
int alloc_parse(int argc, char **argv, struct alloc_opts *o)
{
	static const struct option opts[] = {
		{ "strategy", required_argument, NULL, 's' },
		{ "align", required_argument, NULL, 'a' },
		{ "hold", optional_argument, NULL, ALLOC_OPT_HOLD },
		{ "fill", required_argument, NULL, 'f' },
		{ "verify", no_argument, NULL, ALLOC_OPT_VERIFY },
		{ "writecombine", no_argument, NULL, ALLOC_OPT_WC },
		{ "device", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct opt_common oc = { };
	int c, ret = 0;

	memset(o, 0, sizeof(*o));
	o->strategy = CMABUF_STRATEGY_AUTO;
	/* From the start: a process may parse more than once (unit tests). */
	optind = 0;
	while (!ret && (c = opt_next(argc, argv, "s:a:f:", opts, &oc)) != -1) {
		switch (c) {
		case 's':
			ret = opt_strategy(argv[0], optarg, &o->strategy);
			break;
		case 'a':
			ret = opt_align(argv[0], optarg, &o->align);
			break;
		case ALLOC_OPT_HOLD:
			ret = hold_parse(argc, argv, &o->hold);
			break;
		case 'f':
			if (parse_byte(optarg, &o->fill)) {
				opt_error(argv[0], "bad --fill '%s' (0-255 or 0x00-0xff)", optarg);
				ret = EXIT_USAGE;
			}
			o->do_fill = true;
			break;
		case ALLOC_OPT_VERIFY:
			o->verify = true;
			break;
		case ALLOC_OPT_WC:
			o->writecombine = true;
			break;
		case 'h':
			alloc_usage();
			return -1;
		default:
			return EXIT_USAGE;
		}
	}
	ret = ret ?: opt_words(argc, argv, 1, 1, "SIZE");
	ret = ret ?: opt_size(argv[0], "size", argv[optind], &o->size);
	if (ret)
		return ret;
	o->json = oc.json;
	dev_resolve(oc.device, o->device, sizeof(o->device));
	return 0;
}

int cmd_alloc(int argc, char **argv)
{
	struct alloc_opts o;
	int ret;

	ret = alloc_parse(argc, argv, &o);
	if (ret)
		return ret < 0 ? 0 : ret;
	return alloc_run(&o);
}
