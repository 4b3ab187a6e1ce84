// SPDX-License-Identifier: GPL-2.0
/*
 * cmabufctl share: its command line, for the command (cmd_share.c) and the
 * unit tests.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <linux/cmabuf.h>

#include "dev.h"
#include "msg.h"
#include "parse.h"
#include "share.h"

/* Long options without a short one. */
#define SHARE_OPT_VIDEO		0x100
#define SHARE_OPT_CARD		0x101

/*
 * A device node as the user named it: a path as it is, a bare name
 * ("video2", "card0") under @dir.
 */
const char *share_node_path(const char *arg, const char *dir, char *buf,
			    size_t len)
{
	if (strchr(arg, '/'))
		snprintf(buf, len, "%s", arg);
	else
		snprintf(buf, len, "%s/%s", dir, arg);
	return buf;
}

/*
 * --video and --card name the importer they are for: alone, they choose
 * it; with --importer, it must be theirs (or all).
 */
static int share_parse_nodes(struct share_opts *o, bool named)
{
	if (named && strcmp(o->importer, "all")) {
		if (o->video[0] && strcmp(o->importer, "v4l2")) {
			msg_err("share: --video is for the v4l2 importer, not '%s'",
				o->importer);
			return EXIT_USAGE;
		}
		if (o->card[0] && strcmp(o->importer, "kms")) {
			msg_err("share: --card is for the kms importer, not '%s'",
				o->importer);
			return EXIT_USAGE;
		}
		return 0;
	}
	if (!named && o->video[0] && !o->card[0])
		o->importer = "v4l2";
	else if (!named && o->card[0] && !o->video[0])
		o->importer = "kms";
	return 0;
}

/**
 * share_parse() - the command line of cmabufctl share
 * @argc: arguments, the command's name first
 * @argv: them
 * @o: out: what they ask for
 *
 * Return: 0, %SHARE_HELP for --help (the caller prints it, with the
 * importers), or %EXIT_USAGE after an error line.
 */
int share_parse(int argc, char **argv, struct share_opts *o)
{
	static const struct option opts[] = {
		{ "importer", required_argument, NULL, 'i' },
		{ "strategy", required_argument, NULL, 's' },
		{ "device", required_argument, NULL, 'd' },
		{ "video", required_argument, NULL, SHARE_OPT_VIDEO },
		{ "card", required_argument, NULL, SHARE_OPT_CARD },
		{ "timeout", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *device = NULL;
	bool named = false;
	int c, s, ret;

	memset(o, 0, sizeof(*o));
	o->importer = "all";
	o->size = 1ULL << 20;
	o->strategy = CMABUF_STRATEGY_AUTO;
	o->timeout_ms = SHARE_TIMEOUT_MS;
	/* From the start: a process may parse more than once (unit tests). */
	optind = 0;
	while ((c = getopt_long(argc, argv, "i:s:d:t:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->importer = optarg;
			named = true;
			break;
		case 's':
			if (parse_strategy(optarg, &s) || s == PARSE_STRATEGY_ALL) {
				msg_err("share: bad strategy '%s' (auto, compound, frozen, legacy or dma)",
					optarg);
				return EXIT_USAGE;
			}
			o->strategy = s;
			break;
		case 'd':
			device = optarg;
			break;
		case SHARE_OPT_VIDEO:
			share_node_path(optarg, DEV_DIR, o->video, sizeof(o->video));
			break;
		case SHARE_OPT_CARD:
			share_node_path(optarg, DEV_DIR "/dri", o->card,
					sizeof(o->card));
			break;
		case 't':
			if (parse_u32(optarg, &o->timeout_ms) || !o->timeout_ms) {
				msg_err("share: bad --timeout '%s' (milliseconds, at least 1)",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			return SHARE_HELP;
		default:
			msg_err("share: bad option (try 'cmabufctl share --help')");
			return EXIT_USAGE;
		}
	}
	if (optind < argc - 1) {
		msg_err("share: unexpected argument '%s'", argv[optind + 1]);
		return EXIT_USAGE;
	}
	if (optind == argc - 1) {
		ret = parse_size(argv[optind], &o->size);
		if (ret || !o->size) {
			msg_err("share: bad size '%s': %s (e.g. 4K, 1M, 1MiB)", argv[optind],
				ret ? parse_strerror(ret) : "must not be zero");
			return EXIT_USAGE;
		}
	}
	dev_resolve(device, o->device, sizeof(o->device));
	return share_parse_nodes(o, named);
}
