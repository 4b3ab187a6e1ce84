// SPDX-License-Identifier: GPL-2.0
/*
 * cmabufctl reserve: the instance's standing reserve (sysfs reserve and
 * reserve_max_bytes, root's): buffers of given sizes kept ready for the
 * allocations of those sizes, refilled in the background and kept through
 * memory pressure, until the reserve is changed or dropped. What a service
 * sets once at boot, where "prepare --hold" keeps buffers only while it
 * runs and gives them back under pressure.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "dev.h"
#include "fmt.h"
#include "json.h"
#include "msg.h"
#include "opts.h"
#include "parse.h"
#include "prepare.h"

#define RESERVE_OPT_MAX		0x100

static void reserve_usage(void)
{
	printf("usage: cmabufctl reserve [SIZExCOUNT...|none] [--max BYTES] [--device DEV]\n"
	       "                         [--json]\n"
	       "\n"
	       "The instance's standing reserve: COUNT buffers of each SIZE kept ready\n"
	       "for allocations of that size (strategy auto), refilled in the background\n"
	       "and kept when memory runs short, until changed, dropped (none) or the\n"
	       "module is unloaded. Without words, show it. Setting it is root's (sysfs\n"
	       "reserve); it may hold at most reserve_max_bytes. SIZE as elsewhere\n"
	       "(12M, 64MiB); at most %d sizes, %d buffers each.\n"
	       "\n"
	       "      --max BYTES    first set what the reserve may hold (reserve_max_bytes)\n"
	       "  -d, --device DEV   an instance: a path, a label or 'default'\n"
	       "  -j, --json         one JSON document instead of text\n",
	       RESERVE_MAX_KINDS, CMABUF_PREPARE_MAX_COUNT);
}

/* One word, SIZExCOUNT; 0 or EXIT_USAGE after an error line. */
static int reserve_word(const char *cmd, const char *word,
			struct reserve_opts *o)
{
	char size[64];
	const char *x = strrchr(word, 'x');
	__u64 bytes;
	__u32 count;

	if (o->n == RESERVE_MAX_KINDS) {
		opt_error(cmd, "at most %d sizes", RESERVE_MAX_KINDS);
		return EXIT_USAGE;
	}
	if (!x || x == word || (size_t)(x - word) >= sizeof(size)) {
		opt_error(cmd, "bad word '%s' (SIZExCOUNT, e.g. 12Mx4)", word);
		return EXIT_USAGE;
	}
	memcpy(size, word, x - word);
	size[x - word] = '\0';
	if (opt_size(cmd, "size", size, &bytes) ||
	    opt_u32(cmd, "count", x + 1, 1, CMABUF_PREPARE_MAX_COUNT, &count))
		return EXIT_USAGE;
	o->sizes[o->n] = bytes;
	o->counts[o->n++] = count;
	return 0;
}

/**
 * reserve_parse() - the command line of cmabufctl reserve
 * @argc: arguments, the command's name first
 * @argv: them
 * @o: out: what they ask for
 *
 * Return: 0, -1 after --help, or %EXIT_USAGE after an error line.
 */
int reserve_parse(int argc, char **argv, struct reserve_opts *o)
{
	static const struct option opts[] = {
		{ "max", required_argument, NULL, RESERVE_OPT_MAX },
		{ "device", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct opt_common oc = { };
	int c, i, ret = 0;

	memset(o, 0, sizeof(*o));
	/* From the start: a process may parse more than once (unit tests). */
	optind = 0;
	while (!ret && (c = opt_next(argc, argv, "", opts, &oc)) != -1) {
		switch (c) {
		case RESERVE_OPT_MAX:
			ret = opt_size(argv[0], "--max", optarg, &o->max);
			o->set_max = true;
			break;
		case 'h':
			reserve_usage();
			return -1;
		default:
			return EXIT_USAGE;
		}
	}
	if (!ret && optind == argc - 1 && !strcmp(argv[optind], "none")) {
		o->set = true;
	} else {
		for (i = optind; i < argc && !ret; i++)
			ret = reserve_word(argv[0], argv[i], o);
		o->set = o->n;
	}
	if (ret)
		return ret;
	o->json = oc.json;
	dev_resolve(oc.device, o->device, sizeof(o->device));
	return 0;
}

/* The one line that says why a write of @file failed. */
static void reserve_explain(const struct reserve_opts *o, const char *file,
			    int err)
{
	char max[FMT_LEN];
	__u64 cap;

	switch (err) {
	case -EACCES:
	case -EPERM:
		msg_err("reserve: %s: its %s is root's (run as root)", o->device, file);
		break;
	case -ENOENT:
		msg_err("reserve: %s: no sysfs %s: this cmabuf.ko has no reserve (load a newer one)",
			o->device, file);
		break;
	case -ENOSPC:
		if (dev_sysfs_u64(o->device, "reserve_max_bytes", &cap))
			cap = 0;
		msg_err("reserve: %s: more than the reserve may hold, %s (reserve_max_bytes: raise it with --max)",
			o->device, fmt_size(cap, max, sizeof(max)));
		break;
	case -EINVAL:
		msg_err("reserve: %s: the driver refused %s: a size an allocation would refuse, or one given twice (see 'cmabufctl info')",
			o->device, file);
		break;
	default:
		msg_err("reserve: %s: writing %s: %s", o->device, file, strerror(-err));
	}
}

/* What the command line asks to write; 0 or 1 after an error line. */
static int reserve_write(const struct reserve_opts *o)
{
	char text[RESERVE_MAX_KINDS * 48] = "\n";
	size_t off = 0;
	unsigned int i;
	int ret;

	if (o->set_max) {
		snprintf(text, sizeof(text), "%llu\n", o->max);
		ret = dev_sysfs_write(o->device, "reserve_max_bytes", text);
		if (ret) {
			reserve_explain(o, "reserve_max_bytes", ret);
			return 1;
		}
	}
	if (!o->set)
		return 0;
	text[0] = '\0';
	for (i = 0; i < o->n; i++)
		off += snprintf(text + off, sizeof(text) - off, "%s%llux%u",
				i ? " " : "", o->sizes[i], o->counts[i]);
	snprintf(text + off, sizeof(text) - off, "\n");
	ret = dev_sysfs_write(o->device, "reserve", text);
	if (ret) {
		reserve_explain(o, "reserve", ret);
		return 1;
	}
	return 0;
}

static void reserve_print(const struct reserve_opts *o, const char *now,
			  __u64 max, __u64 buffers, __u64 bytes)
{
	char sz[FMT_LEN], total[FMT_LEN], cap[FMT_LEN], copy[256];
	unsigned long long b, n, sum = 0;
	char *word, *save;
	struct json j;

	if (o->json) {
		json_begin(&j, stdout);
		json_str(&j, "device", o->device);
		json_array(&j, "reserve");
	} else {
		printf("%s\n  reserve     ", o->device);
	}
	snprintf(copy, sizeof(copy), "%s", now);
	for (word = strtok_r(copy, " ", &save); word;
	     word = strtok_r(NULL, " ", &save)) {
		if (sscanf(word, "%llux%llu", &b, &n) != 2)
			continue;
		if (o->json) {
			json_object(&j, NULL);
			json_u64(&j, "size_bytes", b);
			json_u64(&j, "count", n);
			json_close(&j);
		} else {
			printf("%s%llu x %s", sum ? ", " : "", n,
			       fmt_size(b, sz, sizeof(sz)));
		}
		sum += b * n;
	}
	if (o->json) {
		json_close(&j);
		json_u64(&j, "reserve_bytes", sum);
		json_u64(&j, "reserve_max_bytes", max);
		json_u64(&j, "prepared_buffers", buffers);
		json_u64(&j, "prepared_bytes", bytes);
		json_end(&j);
		return;
	}
	if (sum)
		printf(" (%s)", fmt_size(sum, total, sizeof(total)));
	else
		printf("none");
	printf("; at most %s (reserve_max_bytes)\n", fmt_size(max, cap, sizeof(cap)));
	printf("  ready       %llu buffers, %s (the reserve's and what files prepared)\n",
	       buffers, fmt_size(bytes, sz, sizeof(sz)));
}

int cmd_reserve(int argc, char **argv)
{
	__u64 max, buffers, bytes;
	struct reserve_opts o;
	char now[256], area[64];
	int ret;

	ret = reserve_parse(argc, argv, &o);
	if (ret)
		return ret < 0 ? 0 : ret;
	if (access(o.device, F_OK)) {
		dev_explain_open(o.device, -errno);
		return 1;
	}
	/* An instance has its CMA area in sysfs. */
	if (dev_sysfs_read(o.device, "area", area, sizeof(area))) {
		dev_explain_info(o.device, -ENOTTY);
		return 1;
	}
	if (reserve_write(&o))
		return 1;
	ret = dev_sysfs_read(o.device, "reserve", now, sizeof(now));
	if (!ret)
		ret = dev_sysfs_u64(o.device, "reserve_max_bytes", &max);
	if (!ret)
		ret = dev_sysfs_u64(o.device, "prepared_buffers", &buffers);
	if (!ret)
		ret = dev_sysfs_u64(o.device, "prepared_bytes", &bytes);
	if (ret) {
		reserve_explain(&o, "reserve", ret);
		return 1;
	}
	reserve_print(&o, now, max, buffers, bytes);
	return 0;
}
