// SPDX-License-Identifier: GPL-2.0
/*
 * cmabufctl info: every instance and its CMA area.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cmd.h"
#include "dev.h"
#include "fmt.h"
#include "json.h"
#include "msg.h"
#include "parse.h"

static void info_usage(FILE *fp)
{
	fprintf(fp,
		"usage: cmabufctl info [--device DEV] [--json]\n"
		"\n"
		"Describe each cmabuf instance (/dev/cmabuf, /dev/cmabuf-<label>):\n"
		"its CMA area's size, free and used bytes, the live buffers of the\n"
		"instance, the largest compound order and the strategies this kernel\n"
		"supports.\n"
		"\n"
		"  -d, --device DEV  only this instance: a path, a label or 'default'\n"
		"  -j, --json        one JSON object per instance\n");
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

static void info_print_text(const char *path, const struct dev_info *di)
{
	const struct cmabuf_info *in = &di->info;
	char a[FMT_LEN], b[FMT_LEN], c[FMT_LEN];
	char strategies[64];

	info_strategies(strategies, sizeof(strategies), in->strategies);
	printf("%s\n", path);
	printf("  area        %s\n", di->area);
	if (in->flags & CMABUF_INFO_AREA_STATS) {
		printf("  size        %s\n", fmt_size(in->total_bytes, a, sizeof(a)));
		printf("  free        %s\n", fmt_size(in->free_bytes, a, sizeof(a)));
		printf("  used        %s\n", fmt_size(in->used_bytes, a, sizeof(a)));
	} else {
		printf("  size        unknown (this kernel does not report area statistics)\n");
	}
	printf("  live        %llu buffers, %s\n", in->live_buffers,
	       fmt_size(in->live_bytes, b, sizeof(b)));
	printf("  page size   %u\n", in->page_size);
	if (in->max_compound_order)
		printf("  compound    orders %u to %u (%s to %s)\n",
		       in->min_compound_order, in->max_compound_order,
		       fmt_size((__u64)in->page_size << in->min_compound_order,
				a, sizeof(a)),
		       fmt_size((__u64)in->page_size << in->max_compound_order,
				c, sizeof(c)));
	else
		printf("  compound    unavailable\n");
	printf("  strategies  %s\n", strategies);
}

static void info_print_json(const char *path, const struct dev_info *di)
{
	const struct cmabuf_info *in = &di->info;
	char strategies[64];
	struct utsname uts;
	struct json j;

	uname(&uts);
	info_strategies(strategies, sizeof(strategies), in->strategies);
	json_begin(&j, stdout);
	json_str(&j, "kernel", uts.release);
	json_str(&j, "device", path);
	json_str(&j, "area", di->area);
	if (in->flags & CMABUF_INFO_AREA_STATS) {
		json_u64(&j, "total_bytes", in->total_bytes);
		json_u64(&j, "free_bytes", in->free_bytes);
		json_u64(&j, "used_bytes", in->used_bytes);
	}
	json_u64(&j, "live_bytes", in->live_bytes);
	json_u64(&j, "live_buffers", in->live_buffers);
	json_u64(&j, "page_size", in->page_size);
	json_u64(&j, "min_compound_order", in->min_compound_order);
	json_u64(&j, "max_compound_order", in->max_compound_order);
	json_str(&j, "strategies", strategies);
	json_end(&j);
}

static int info_one(const char *path, int json)
{
	struct dev_info di;
	int fd, ret;

	fd = dev_open(path);
	if (fd < 0)
		return 1;
	ret = dev_info(fd, &di);
	close(fd);
	if (ret) {
		msg_err("%s: CMABUF_IOC_INFO: %s", path, dev_strerror(ret));
		return 1;
	}
	if (json)
		info_print_json(path, &di);
	else
		info_print_text(path, &di);
	return 0;
}

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	char paths[DEV_LIST_MAX][PATH_MAX];
	const char *device = NULL;
	int json = 0, status = 0;
	int c, i, n;

	while ((c = getopt_long(argc, argv, "d:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			device = optarg;
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			info_usage(stdout);
			return 0;
		default:
			info_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		msg_err("info: unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}

	if (device) {
		dev_resolve(device, paths[0], PATH_MAX);
		return info_one(paths[0], json);
	}
	n = dev_list(paths, DEV_LIST_MAX);
	if (n <= 0) {
		msg_err("no cmabuf device in %s (is cmabuf.ko loaded?)", DEV_DIR);
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (i && !json)
			printf("\n");
		status |= info_one(paths[i], json);
	}
	return status;
}
