// SPDX-License-Identifier: GPL-2.0
/*
 * cmabufctl prepare: have buffers ready before a stream asks for them.
 *
 * CMABUF_IOC_PREPARE asks the instance to keep COUNT buffers of SIZE
 * ready, allocated and cleared in the background; any allocation of that
 * size (ALLOC on any file of the instance, or its dma-heap) then takes
 * one at once, and the instance makes another. The want belongs to the
 * open device file: the buffers go back to CMA when this command exits,
 * so --hold is what keeps them for the stream.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "dev.h"
#include "explain.h"
#include "fmt.h"
#include "hold.h"
#include "json.h"
#include "msg.h"
#include "opts.h"
#include "parse.h"
#include "prepare.h"

#define PREPARE_PARAMS	DEV_MODULE_SYSFS "/parameters"

/* CAP_SYS_ADMIN, the capability that lifts the per-file limit. */
#define PREPARE_CAP_SYS_ADMIN	21

static void prepare_usage(void)
{
	printf("usage: cmabufctl prepare SIZE COUNT [--strategy S] [--align A] [--timeout MS]\n"
	       "                        [--wait] [--hold [SECONDS]] [--device DEV] [--json]\n"
	       "\n"
	       "Have COUNT buffers of SIZE bytes ready on the instance, allocated and\n"
	       "cleared in the background: an allocation of that size (cmabufctl alloc,\n"
	       "any program's CMABUF_IOC_ALLOC, the instance's dma-heap) takes one at\n"
	       "once, and another is made. They are kept while this command runs and go\n"
	       "back to CMA when it exits, when none was taken for the time-out, or when\n"
	       "memory is short. SIZE and A are bytes with binary units (12M, 64MiB).\n"
	       "For buffers kept whatever the time-out and memory pressure, see\n"
	       "'cmabufctl reserve'.\n"
	       "\n"
	       "  -s, --strategy S   auto (default), compound, frozen, legacy or dma: as the\n"
	       "                     allocations that are to take them ask\n"
	       "  -a, --align A      physical alignment, a power of two\n"
	       "  -t, --timeout MS   give them back when none was taken for MS ms\n"
	       "                     (default: the module's prepare_timeout_ms)\n"
	       "  -w, --wait         return once all COUNT are ready\n"
	       "      --hold [SECONDS] keep them that long, or without SECONDS until\n"
	       "                     SIGINT or SIGTERM (which end the hold sooner),\n"
	       "                     then give them back\n"
	       "  -d, --device DEV   an instance: a path, a label or 'default'\n"
	       "  -j, --json         one JSON document instead of text\n");
}

/**
 * prepare_parse() - the command line of cmabufctl prepare
 * @argc: arguments, the command's name first
 * @argv: them
 * @o: out: what they ask for
 *
 * --hold has no short form: -H means human-readable to other tools.
 *
 * Return: 0, -1 after --help, or %EXIT_USAGE after an error line.
 */
int prepare_parse(int argc, char **argv, struct prepare_opts *o)
{
	static const struct option opts[] = {
		{ "strategy", required_argument, NULL, 's' },
		{ "align", required_argument, NULL, 'a' },
		{ "timeout", required_argument, NULL, 't' },
		{ "wait", no_argument, NULL, 'w' },
		{ "hold", optional_argument, NULL, PREPARE_OPT_HOLD },
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
	while (!ret && (c = opt_next(argc, argv, "s:a:t:w", opts, &oc)) != -1) {
		switch (c) {
		case 's':
			ret = opt_strategy(argv[0], optarg, &o->strategy);
			break;
		case 'a':
			ret = opt_align(argv[0], optarg, &o->align);
			break;
		case 't':
			ret = opt_u32(argv[0], "--timeout", optarg, 0, UINT_MAX,
				      &o->timeout_ms);
			break;
		case 'w':
			o->wait = true;
			break;
		case PREPARE_OPT_HOLD:
			ret = hold_parse(argc, argv, &o->hold);
			break;
		case 'h':
			prepare_usage();
			return -1;
		default:
			return EXIT_USAGE;
		}
	}
	ret = ret ?: opt_words(argc, argv, 2, 2, "SIZE COUNT");
	ret = ret ?: opt_size(argv[0], "size", argv[optind], &o->size);
	ret = ret ?: opt_u32(argv[0], "count", argv[optind + 1], 1,
			     CMABUF_PREPARE_MAX_COUNT, &o->count);
	if (ret)
		return ret;
	o->json = oc.json;
	dev_resolve(oc.device, o->device, sizeof(o->device));
	return 0;
}

/**
 * prepare_explain_enospc() - why a PREPARE was over a limit
 * @l: the limits and the area
 * @size: bytes of each buffer asked for
 * @count: how many
 * @buf: out: the words after "prepare: DEV: "
 * @len: size of @buf
 */
void prepare_explain_enospc(const struct prepare_limits *l, __u64 size,
			    __u32 count, char *buf, size_t len)
{
	char want[FMT_LEN], all[FMT_LEN], file[FMT_LEN], sz[FMT_LEN];
	__u64 page = l->page_size ? l->page_size : 4096;
	__u64 pages = l->area_bytes / page;
	const char *max_param = l->default_area ?
		"prepare_default_percent, on the kernel's default area" :
		"prepare_max_percent";

	fmt_size(size * count, want, sizeof(want));
	fmt_size(size, sz, sizeof(sz));
	if (!l->area_bytes) {
		snprintf(buf, len,
			 "%u x %s (%s) is more than prepared buffers may hold: %u%% of the area for all files together, %u%% for one user without CAP_SYS_ADMIN, all its files together (module parameters %s, prepare_file_percent)",
			 count, sz, want, l->max_percent, l->file_percent,
			 max_param);
		return;
	}
	/* As the driver counts: whole pages, rounded down. */
	fmt_size(pages * l->max_percent / 100 * page, all, sizeof(all));
	fmt_size(pages * l->file_percent / 100 * page, file, sizeof(file));
	if (l->privileged)
		snprintf(buf, len,
			 "%u x %s (%s) and what other files prepare are more than prepared buffers may hold: %s, %u%% of the area (module parameter %s)",
			 count, sz, want, all, l->max_percent, max_param);
	else
		snprintf(buf, len,
			 "%u x %s (%s) and what your other files prepare are more than one user may have ready without CAP_SYS_ADMIN, %s (%u%% of the area), or than all files together may, %s (%u%%) (module parameters prepare_file_percent, %s)",
			 count, sz, want, file, l->file_percent, all,
			 l->max_percent, max_param);
}

/* A module parameter, or @dflt. */
static unsigned int prepare_param(const char *name, unsigned int dflt)
{
	char path[PATH_MAX], line[32];

	snprintf(path, sizeof(path), PREPARE_PARAMS "/%s", name);
	if (dev_read_line(path, line, sizeof(line)))
		return dflt;
	return strtoul(line, NULL, 10);
}

/* Does this process have CAP_SYS_ADMIN (CapEff in /proc/self/status)? */
static bool prepare_privileged(void)
{
	unsigned long long caps = 0;
	char line[128];
	bool found = false;
	FILE *fp;

	fp = fopen("/proc/self/status", "re");
	if (!fp)
		return geteuid() == 0;
	while (!found && fgets(line, sizeof(line), fp))
		found = sscanf(line, "CapEff: %llx", &caps) == 1;
	fclose(fp);
	return caps & (1ULL << PREPARE_CAP_SYS_ADMIN);
}

/*
 * On the kernel's default area all files may have less ready: the
 * instance's prepare_max_bytes is then prepare_default_percent of it.
 */
static void prepare_default_share(const char *device, struct prepare_limits *l)
{
	unsigned int pct = prepare_param("prepare_default_percent", 0);
	__u64 max, page = l->page_size ? l->page_size : 4096;

	if (!pct || pct >= l->max_percent || !l->area_bytes ||
	    dev_sysfs_u64(device, "prepare_max_bytes", &max))
		return;
	if (max == l->area_bytes / page * pct / 100 * page) {
		l->max_percent = pct;
		l->default_area = true;
	}
}

/* One line that says what was wrong and what would do. */
static void prepare_explain(int dev_fd, const struct prepare_opts *o, int err)
{
	struct prepare_limits l = { 0 };
	char why[512], sz[FMT_LEN];
	struct explain_cap cap;
	struct dev_info di;
	bool info;

	fmt_size(o->size, sz, sizeof(sz));
	info = !dev_info(dev_fd, &di);
	switch (err) {
	case -ENOTTY:
		msg_err("prepare: %s: this cmabuf.ko prepares no buffers (no CMABUF_IOC_PREPARE): load a newer one",
			o->device);
		return;
	case -EOPNOTSUPP:
		msg_err("prepare: strategy %s is not supported by this kernel (see 'cmabufctl info')",
			strategy_name(o->strategy));
		return;
	case -EINTR:
		msg_err("prepare: %s: interrupted while waiting; nothing is kept",
			o->device);
		return;
	case -ENODEV:
		msg_err("prepare: %s: the instance has been unbound", o->device);
		return;
	case -EPERM:
		msg_err("prepare: %s: a --timeout above %u ms needs CAP_SYS_ADMIN (module parameter prepare_max_timeout_ms)",
			o->device, prepare_param("prepare_max_timeout_ms", 60000));
		return;
	case -EDQUOT:
		cap.known = dev_cap_read(o->device, &cap.held, &cap.max);
		explain_edquot(&cap, o->size * o->count, why, sizeof(why));
		msg_err("prepare: %s: %u x %s: %s", o->device, o->count, sz,
			why);
		return;
	case -ENOBUFS:
		explain_enobufs(o->size * o->count, why, sizeof(why));
		msg_err("prepare: %s: %u x %s: %s", o->device, o->count, sz,
			why);
		return;
	}
	if (!info) {
		msg_err("prepare: %s: %u x %s: %s", o->device, o->count, sz,
			strerror(-err));
		return;
	}
	switch (err) {
	case -ENOSPC:
		/* The area the limits are of, where INFO tells it (node too). */
		l.area_bytes = di.info.total_bytes;
		l.page_size = di.info.page_size;
		l.max_percent = prepare_param("prepare_max_percent", 50);
		l.file_percent = prepare_param("prepare_file_percent", 25);
		prepare_default_share(o->device, &l);
		l.privileged = prepare_privileged();
		prepare_explain_enospc(&l, o->size, o->count, why, sizeof(why));
		msg_err("prepare: %s: %s", o->device, why);
		break;
	case -ENOMEM:
		explain_enomem(&di.info, o->size, dev_area_largest_free(&di), why,
			       sizeof(why));
		msg_err("prepare: %s (area %s): none could be made: %s",
			o->device, di.area, why);
		break;
	case -EBUSY:
		explain_ebusy(&di.info, o->size, dev_area_largest_free(&di), why,
			      sizeof(why));
		msg_err("prepare: %s (area %s): none could be made: %s",
			o->device, di.area, why);
		break;
	case -EINVAL:
		explain_einval(&di.info, o->size, o->align, o->strategy, why,
			       sizeof(why));
		msg_err("prepare: %s: %s", o->device, why);
		break;
	default:
		msg_err("prepare: %s: %s", o->device, strerror(-err));
	}
}

/* An instance-wide counter (stats/NAME), or ~0 when unreadable. */
static __u64 prepare_stat(const char *device, const char *name)
{
	char file[64], line[32];

	snprintf(file, sizeof(file), "stats/%s", name);
	if (dev_sysfs_read(device, file, line, sizeof(line)))
		return ~0ULL;
	return strtoull(line, NULL, 10);
}

static void prepare_print_json(const struct prepare_opts *o,
			       const struct cmabuf_prepare *p, __u64 hits)
{
	struct json j;

	json_begin(&j, stdout);
	json_str(&j, "device", o->device);
	json_u64(&j, "pid", getpid());
	json_u64(&j, "size_bytes", o->size);
	json_u64(&j, "count", o->count);
	json_str(&j, "strategy", strategy_name(o->strategy));
	if (o->timeout_ms)
		json_u64(&j, "timeout_ms", o->timeout_ms);
	else
		json_null(&j, "timeout_ms");
	json_bool(&j, "wait", o->wait);
	json_u64(&j, "ready", p->ready);
	if (o->hold == HOLD_UNTIL_SIGNAL)
		json_null(&j, "hold_seconds");
	else
		json_u64(&j, "hold_seconds", o->hold);
	if (hits != ~0ULL)
		json_u64(&j, "hits_while_held", hits);
	else
		json_null(&j, "hits_while_held");
	json_end(&j);
}

static int prepare_run(const struct prepare_opts *o)
{
	struct cmabuf_prepare p = {
		.size = o->size,
		.align = o->align,
		.flags = o->strategy | (o->wait ? CMABUF_PREPARE_WAIT : 0),
		.count = o->count,
		.timeout_ms = o->timeout_ms,
	};
	__u64 hits0, hits1, hits = ~0ULL;
	char sz[FMT_LEN], tmo[32], how[32];
	unsigned int held = 0;
	int dev_fd, ret;

	dev_fd = dev_open(o->device);
	if (dev_fd < 0)
		return 1;
	hits0 = prepare_stat(o->device, "prepare_hits");
	ret = dev_ioctl(dev_fd, CMABUF_IOC_PREPARE, &p);
	if (ret) {
		prepare_explain(dev_fd, o, ret);
		close(dev_fd);
		return 1;
	}
	if (o->hold)
		hold_catch_signals();
	if (o->timeout_ms)
		snprintf(tmo, sizeof(tmo), "%u ms", o->timeout_ms);
	else
		snprintf(tmo, sizeof(tmo), "%u ms (default)",
			 prepare_param("prepare_timeout_ms", 10000));
	if (!o->json) {
		printf("prepare: %u x %s on %s, strategy %s, time-out %s: %u ready\n",
		       o->count, fmt_size(o->size, sz, sizeof(sz)), o->device,
		       strategy_name(o->strategy), tmo, p.ready);
		if (o->hold)
			printf("holding %s (pid %d): allocations of %s take them\n",
			       hold_text(o->hold, how, sizeof(how)), getpid(), sz);
		fflush(stdout);
	}
	if (o->hold) {
		held = hold(o->hold);
		hits1 = prepare_stat(o->device, "prepare_hits");
		if (hits0 != ~0ULL && hits1 != ~0ULL)
			hits = hits1 - hits0;
		if (!o->json && hits != ~0ULL)
			printf("held %u s; allocations served ready meanwhile (all files): %llu\n",
			       held, hits);
	}
	if (o->json)
		prepare_print_json(o, &p, hits);
	/* Closing the file gives back whatever is still ready. */
	close(dev_fd);
	return 0;
}

int cmd_prepare(int argc, char **argv)
{
	struct prepare_opts o;
	int ret;

	ret = prepare_parse(argc, argv, &o);
	if (ret)
		return ret < 0 ? 0 : ret;
	return prepare_run(&o);
}
