// SPDX-License-Identifier: GPL-2.0
/*
 * cmabufctl share: its command line, for the command (cmd_share.c) and the
 * unit tests.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <linux/cmabuf.h>

#include "dev.h"
#include "msg.h"
#include "opts.h"
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
			opt_error("share", "--video is for the v4l2 importer, not '%s'",
				  o->importer);
			return EXIT_USAGE;
		}
		if (o->card[0] && strcmp(o->importer, "kms")) {
			opt_error("share", "--card is for the kms importer, not '%s'",
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
		{ "video", required_argument, NULL, SHARE_OPT_VIDEO },
		{ "card", required_argument, NULL, SHARE_OPT_CARD },
		{ "timeout", required_argument, NULL, 't' },
		{ "device", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct opt_common oc = { };
	bool named = false;
	int c, ret = 0;

	memset(o, 0, sizeof(*o));
	o->importer = "all";
	o->size = 1ULL << 20;
	o->strategy = CMABUF_STRATEGY_AUTO;
	o->timeout_ms = SHARE_TIMEOUT_MS;
	/* From the start: a process may parse more than once (unit tests). */
	optind = 0;
	while (!ret && (c = opt_next(argc, argv, "i:s:t:", opts, &oc)) != -1) {
		switch (c) {
		case 'i':
			o->importer = optarg;
			named = true;
			break;
		case 's':
			ret = opt_strategy(argv[0], optarg, &o->strategy);
			break;
		case SHARE_OPT_VIDEO:
			share_node_path(optarg, DEV_DIR, o->video, sizeof(o->video));
			break;
		case SHARE_OPT_CARD:
			share_node_path(optarg, DEV_DIR "/dri", o->card,
					sizeof(o->card));
			break;
		case 't':
			ret = opt_u32(argv[0], "--timeout", optarg, 1, UINT_MAX,
				      &o->timeout_ms);
			break;
		case 'h':
			return SHARE_HELP;
		default:
			return EXIT_USAGE;
		}
	}
	ret = ret ?: opt_size_word(argc, argv, &o->size);
	if (ret)
		return ret;
	o->json = oc.json;
	dev_resolve(oc.device, o->device, sizeof(o->device));
	return share_parse_nodes(o, named);
}
