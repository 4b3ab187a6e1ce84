// SPDX-License-Identifier: GPL-2.0
/*
 * cmabufctl info: every instance and its CMA area.
 *
 * CMABUF_IOC_INFO needs the device node open, which udev gives to root and
 * group video only. Anyone can read sysfs, though: an instance that cannot
 * be opened is described from there (its area, its counters, the area's
 * size where the kernel tells), and says what opening it would add. What
 * the instance holds ready (prepared buffers, its reserve), what it is
 * still releasing and its cap on callers without CAP_SYS_ADMIN come from
 * sysfs either way.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cmd.h"
#include "dev.h"
#include "explain.h"
#include "fmt.h"
#include "json.h"
#include "msg.h"
#include "opts.h"
#include "parse.h"

/**
 * struct info_inst - what is known of one instance
 * @path: its device node
 * @di: the CMABUF_IOC_INFO answer, valid when @ioctl
 * @ioctl: the node could be opened and INFO answered
 * @open_err: why the node could not be opened (-errno), else 0
 * @have_area_stats: @di.info's total and free bytes are known
 * @counters: from sysfs when not @ioctl: those info_counters names
 * @have_pool: the driver prepares buffers and frees in the background
 * @prepared_buffers: buffers ready now (sysfs prepared_buffers)
 * @prepared_bytes: their bytes (sysfs prepared_bytes)
 * @releasing_bytes: freed, not yet back in the area (sysfs releasing_bytes)
 * @reserve: the administrator's reserve, "SIZExCOUNT ...", "" for none
 * @cap: the cap on callers without CAP_SYS_ADMIN and what they hold
 */
struct info_inst {
	const char *path;
	struct dev_info di;
	bool ioctl;
	int open_err;
	bool have_area_stats;
	__u64 counters[5];
	bool have_pool;
	__u64 prepared_buffers;
	__u64 prepared_bytes;
	__u64 releasing_bytes;
	char reserve[256];
	struct explain_cap cap;
};

static const char *const info_counters[] = {
	"allocations", "frees", "failures", "interrupted", "busy_retries",
};

static void info_usage(void)
{
	printf("usage: cmabufctl info [--device DEV] [--json]\n"
	       "\n"
	       "Describe each cmabuf instance (/dev/cmabuf, /dev/cmabuf-<label>):\n"
	       "its CMA area's size, free and used bytes, the live buffers of the\n"
	       "instance, the buffers it holds ready (prepared, and its reserve), the\n"
	       "bytes it is still releasing, its cap on the buffers of callers without\n"
	       "CAP_SYS_ADMIN, the largest compound order, the strategies this kernel\n"
	       "supports and the driver's version. Without access to the device node,\n"
	       "what sysfs shows (the area, its size where the kernel tells, the\n"
	       "instance's counters).\n"
	       "\n"
	       "  -d, --device DEV  only this instance: a path, a label or 'default'\n"
	       "  -j, --json        one JSON document: {\"format\": 1, ..., \"instances\": [...]}\n");
}

/*
 * What one PMD entry maps: INFO's pmd_order, or from a driver that predates
 * it a page of 8-byte entries' worth of pages (2 MiB with 4 KiB pages).
 */
static __u64 info_pmd_bytes(const struct cmabuf_info *i)
{
	unsigned int order = i->pmd_order;

	if (!order)
		order = __builtin_ctz(i->page_size) - 3;
	return (__u64)i->page_size << order;
}

static void info_version_text(char *buf, size_t len, __u32 v)
{
	if (v)
		snprintf(buf, len, "%u.%u.%u", CMABUF_VERSION_MAJOR(v),
			 CMABUF_VERSION_MINOR(v), CMABUF_VERSION_PATCH(v));
	else
		snprintf(buf, len, "unknown");
}

/* sysfs: the area's name and size, the instance's counters. */
static void info_from_sysfs(struct info_inst *in)
{
	struct cmabuf_info *i = &in->di.info;
	char line[32], file[32];
	unsigned int c;
	__u64 val;

	memset(&in->di, 0, sizeof(in->di));
	if (dev_sysfs_read(in->path, "area", in->di.area, sizeof(in->di.area)))
		snprintf(in->di.area, sizeof(in->di.area), "unknown");
	i->page_size = getpagesize();
	dev_area_stats(&in->di);
	in->have_area_stats = i->flags & CMABUF_INFO_AREA_STATS;
	if (!dev_sysfs_read(in->path, "stats/live_buffers", line, sizeof(line)))
		sscanf(line, "%llu", &i->live_buffers);
	if (!dev_sysfs_read(in->path, "stats/live_bytes", line, sizeof(line)))
		sscanf(line, "%llu", &i->live_bytes);
	for (c = 0; c < ARRAY_SIZE(info_counters); c++) {
		snprintf(file, sizeof(file), "stats/%s", info_counters[c]);
		if (!dev_sysfs_read(in->path, file, line, sizeof(line)) &&
		    sscanf(line, "%llu", &val) == 1)
			in->counters[c] = val;
	}
}

/*
 * Prepared buffers, frees in flight, the reserve, the cap on callers
 * without CAP_SYS_ADMIN: sysfs, for anyone.
 */
static void info_pool(struct info_inst *in)
{
	in->have_pool =
		!dev_sysfs_u64(in->path, "prepared_buffers",
			       &in->prepared_buffers) &&
		!dev_sysfs_u64(in->path, "prepared_bytes",
			       &in->prepared_bytes) &&
		!dev_sysfs_u64(in->path, "releasing_bytes",
			       &in->releasing_bytes);
	if (dev_sysfs_read(in->path, "reserve", in->reserve,
			   sizeof(in->reserve)))
		in->reserve[0] = '\0';
	in->cap.known = dev_cap_read(in->path, &in->cap.held, &in->cap.max);
}

/* INFO when the node opens, sysfs otherwise; 0 or 1 after a message. */
static int info_gather(struct info_inst *in)
{
	int fd, ret;

	info_pool(in);
	fd = dev_try_open(in->path, O_RDONLY);
	if (fd == -EACCES || fd == -EPERM) {
		in->open_err = fd;
		info_from_sysfs(in);
		return 0;
	}
	if (fd < 0) {
		dev_explain_open(in->path, fd);
		return 1;
	}
	ret = dev_info(fd, &in->di);
	close(fd);
	if (ret) {
		dev_explain_info(in->path, ret);
		return 1;
	}
	in->ioctl = true;
	in->have_area_stats = in->di.info.flags & CMABUF_INFO_AREA_STATS;
	return 0;
}

static void info_strategies(char *buf, size_t len, __u32 mask)
{
	size_t off = 0;
	unsigned int s;

	buf[0] = '\0';
	for (s = 0; s < CMABUF_STRATEGY_COUNT && off < len; s++) {
		if (mask & CMABUF_STRATEGY_BIT(s))
			off += snprintf(buf + off, len - off, "%s%s",
					off ? " " : "", strategy_name(s));
	}
}

/*
 * Who clears a new buffer. With CMABUF_INFO_CLEARS_FROZEN cmabuf clears
 * FROZEN and COMPOUND buffers itself even where the page allocator clears
 * (init_on_alloc), which then clears LEGACY ones alone.
 */
static const char *info_clearing(__u32 flags)
{
	if (!(flags & CMABUF_INFO_ALLOCATOR_ZEROES))
		return "by cmabuf, on every CPU of the area's node";
	if (flags & CMABUF_INFO_CLEARS_FROZEN)
		return "by cmabuf, on every CPU of the area's node (LEGACY: by the page allocator)";
	return "by the page allocator (init_on_alloc), not again by cmabuf";
}

static void info_print_text(const struct info_inst *in)
{
	const struct cmabuf_info *i = &in->di.info;
	char a[FMT_LEN], c[FMT_LEN], hint[PATH_MAX + 160];
	char strategies[64], cap[128];

	printf("%s\n", in->path);
	printf("  area        %s\n", in->di.area);
	if (in->have_area_stats) {
		printf("  size        %s%s\n", fmt_size(i->total_bytes, a, sizeof(a)),
		       in->di.size_from_node ? " (from the reserved-memory node)" : "");
		printf("  free        %s%s\n", fmt_size(i->free_bytes, a, sizeof(a)),
		       in->di.stats_from_sysfs ? " (from CMA sysfs)" : "");
		printf("  used        %s\n", fmt_size(i->used_bytes, a, sizeof(a)));
	} else if (i->total_bytes) {
		printf("  size        %s (from the reserved-memory node; %s)\n",
		       fmt_size(i->total_bytes, a, sizeof(a)),
		       "this kernel does not report free bytes");
	} else {
		printf("  size        unknown (this kernel does not report area statistics)\n");
	}
	printf("  live        %llu buffers, %s\n", i->live_buffers,
	       fmt_size(i->live_bytes, a, sizeof(a)));
	if (in->have_pool) {
		printf("  prepared    %llu buffers, %s ready%s%s\n",
		       in->prepared_buffers,
		       fmt_size(in->prepared_bytes, a, sizeof(a)),
		       in->reserve[0] ? "; reserve " : "", in->reserve);
		printf("  releasing   %s\n",
		       fmt_size(in->releasing_bytes, a, sizeof(a)));
	}
	if (in->cap.known)
		printf("  user cap    %s\n",
		       explain_cap_text(&in->cap, cap, sizeof(cap)));
	if (!in->ioctl) {
		printf("  counted     %llu allocations, %llu frees, %llu failures, ",
		       in->counters[0], in->counters[1], in->counters[2]);
		printf("%llu interrupted, %llu busy retries\n", in->counters[3],
		       in->counters[4]);
		printf("  more        from CMABUF_IOC_INFO, for whoever may open the node: %s\n",
		       dev_access_hint(in->path, hint, sizeof(hint)));
		return;
	}
	info_version_text(a, sizeof(a), i->version);
	printf("  driver      %s\n", a);
	printf("  page size   %u (%s)\n", i->page_size,
	       fmt_size(i->page_size, a, sizeof(a)));
	if (i->max_compound_order)
		printf("  compound    orders %u to %u (%s to %s)\n",
		       i->min_compound_order, i->max_compound_order,
		       fmt_size((__u64)i->page_size << i->min_compound_order,
				a, sizeof(a)),
		       fmt_size((__u64)i->page_size << i->max_compound_order,
				c, sizeof(c)));
	else
		printf("  compound    unavailable\n");
	info_strategies(strategies, sizeof(strategies), i->strategies);
	printf("  strategies  %s\n", strategies);
	printf("  clearing    %s\n", info_clearing(i->flags));
	if (!(i->flags & CMABUF_INFO_MMAP_PMD))
		printf("  mapping     one page per entry\n");
	else
		printf("  mapping     %s entries%s\n",
		       fmt_size(info_pmd_bytes(i), a, sizeof(a)),
		       i->flags & CMABUF_INFO_MMAP_PLACED ?
		       "; mmap() picks addresses that line up" :
		       " where the address lines up");
	/* Devices without an IOMMU must reach the area with their mask. */
	if (i->dma_bits)
		printf("  dma reach   masks of %u bits or more (32-bit: %s, 36: %s, 40: %s)\n",
		       i->dma_bits, i->dma_bits <= 32 ? "yes" : "no",
		       i->dma_bits <= 36 ? "yes" : "no",
		       i->dma_bits <= 40 ? "yes" : "no");
	else
		printf("  dma reach   unknown (the driver is not told where this area lies)\n");
	printf("  cpu caches  %s\n", i->flags & CMABUF_INFO_CACHE_SYNC ?
	       "maintained at DMA_BUF_IOCTL_SYNC; write-combined buffers granted" :
	       "no maintenance by the instance (coherent, or swiotlb bounces)");
}

/* A flag INFO gave, or null where only sysfs was read. */
static void info_json_flag(struct json *j, const struct info_inst *in,
			   const char *key, __u32 flag)
{
	if (in->ioctl)
		json_bool(j, key, in->di.info.flags & flag);
	else
		json_null(j, key);
}

/* A number INFO gave, or null where only sysfs was read. */
static void info_json_u64(struct json *j, const struct info_inst *in,
			  const char *key, __u64 val)
{
	if (in->ioctl)
		json_u64(j, key, val);
	else
		json_null(j, key);
}

static void info_json_one(struct json *j, const struct info_inst *in)
{
	const struct cmabuf_info *i = &in->di.info;
	char version[32];
	unsigned int s;

	json_object(j, NULL);
	json_str(j, "device", in->path);
	json_str(j, "source", in->ioctl ? "ioctl" : "sysfs");
	json_str(j, "area", in->di.area);
	if (in->have_area_stats) {
		json_u64(j, "total_bytes", i->total_bytes);
		json_u64(j, "free_bytes", i->free_bytes);
		json_u64(j, "used_bytes", i->used_bytes);
	} else {
		json_null(j, "total_bytes");
		json_null(j, "free_bytes");
		json_null(j, "used_bytes");
	}
	json_u64(j, "live_bytes", i->live_bytes);
	json_u64(j, "live_buffers", i->live_buffers);
	if (in->have_pool) {
		json_u64(j, "prepared_buffers", in->prepared_buffers);
		json_u64(j, "prepared_bytes", in->prepared_bytes);
		json_u64(j, "releasing_bytes", in->releasing_bytes);
		json_str(j, "reserve", in->reserve);
	} else {
		json_null(j, "prepared_buffers");
		json_null(j, "prepared_bytes");
		json_null(j, "releasing_bytes");
		json_null(j, "reserve");
	}
	if (in->cap.known) {
		json_u64(j, "unprivileged_bytes", in->cap.held);
		json_u64(j, "unprivileged_max_bytes", in->cap.max);
	} else {
		json_null(j, "unprivileged_bytes");
		json_null(j, "unprivileged_max_bytes");
	}
	json_u64(j, "page_size", i->page_size);
	info_json_u64(j, in, "min_compound_order", i->min_compound_order);
	info_json_u64(j, in, "max_compound_order", i->max_compound_order);
	if (in->ioctl && i->flags & CMABUF_INFO_MMAP_PMD)
		json_u64(j, "pmd_bytes", info_pmd_bytes(i));
	else
		json_null(j, "pmd_bytes");
	if (in->ioctl) {
		json_array(j, "strategies");
		for (s = 0; s < CMABUF_STRATEGY_COUNT; s++) {
			if (i->strategies & CMABUF_STRATEGY_BIT(s))
				json_str(j, NULL, strategy_name(s));
		}
		json_close(j);
		info_version_text(version, sizeof(version), i->version);
		json_str(j, "driver_version", version);
	} else {
		json_null(j, "strategies");
		json_null(j, "driver_version");
	}
	info_json_flag(j, in, "allocator_zeroes", CMABUF_INFO_ALLOCATOR_ZEROES);
	info_json_flag(j, in, "clears_frozen", CMABUF_INFO_CLEARS_FROZEN);
	info_json_flag(j, in, "mmap_pmd", CMABUF_INFO_MMAP_PMD);
	info_json_flag(j, in, "mmap_placed", CMABUF_INFO_MMAP_PLACED);
	info_json_flag(j, in, "cache_sync", CMABUF_INFO_CACHE_SYNC);
	info_json_flag(j, in, "writecombine", CMABUF_INFO_WRITECOMBINE);
	info_json_u64(j, in, "dma_bits", i->dma_bits);
	json_close(j);
}

static void info_print_json(const struct info_inst *insts, int n)
{
	char module[32];
	struct utsname uts;
	struct json j;
	int i;

	uname(&uts);
	json_begin(&j, stdout);
	json_str(&j, "kernel", uts.release);
	json_str(&j, "cmabufctl_version", CMABUFCTL_VERSION);
	if (!dev_read_line(DEV_MODULE_SYSFS "/version", module, sizeof(module)))
		json_str(&j, "module_version", module);
	else
		json_null(&j, "module_version");
	json_array(&j, "instances");
	for (i = 0; i < n; i++)
		info_json_one(&j, &insts[i]);
	json_end(&j);
}

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	static char paths[DEV_LIST_MAX][PATH_MAX];
	static struct info_inst insts[DEV_LIST_MAX];
	struct opt_common oc = { };
	const char *device;
	int json, status = 0;
	int c, i, n, shown = 0;

	while ((c = opt_next(argc, argv, "", opts, &oc)) != -1) {
		if (c != 'h')
			return EXIT_USAGE;
		info_usage();
		return 0;
	}
	if (opt_words(argc, argv, 0, 0, ""))
		return EXIT_USAGE;
	device = oc.device;
	json = oc.json;

	if (device) {
		dev_resolve(device, paths[0], PATH_MAX);
		n = 1;
	} else {
		n = dev_list(paths, DEV_LIST_MAX);
		if (n <= 0) {
			dev_explain_open(DEV_DEFAULT, -ENOENT);
			return 1;
		}
	}
	for (i = 0; i < n; i++) {
		insts[shown].path = paths[i];
		if (info_gather(&insts[shown]))
			status = 1;
		else
			shown++;
	}
	if (json) {
		info_print_json(insts, shown);
		return status;
	}
	for (i = 0; i < shown; i++) {
		if (i)
			printf("\n");
		info_print_text(&insts[i]);
	}
	return status;
}
