// SPDX-License-Identifier: GPL-2.0
/*
 * cmabufctl share: a diagnostic. Allocate a buffer, write a pattern into
 * it and hand it to each importer (a V4L2 capture device, a KMS display
 * device), which prints what it checked and, for what failed, why and
 * what to do. The test bed's program (tests/testctl) runs the same with
 * its own importers beside these (share_main()).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "dev.h"
#include "fmt.h"
#include "json.h"
#include "msg.h"
#include "opts.h"
#include "parse.h"
#include "share.h"

/* A board's importers, in the order they run. */
static const struct share_importer *const board_importers[] = {
	&share_v4l2,
	&share_kms,
};

static void share_usage(const struct share_set *set)
{
	size_t i;

	printf("usage: cmabufctl share [SIZE] [--importer NAME|all] [--video NODE]\n"
	       "                       [--card NODE] [--timeout MS] [--strategy S]\n"
	       "                       [--device DEV] [--json]\n"
	       "\n"
	       "A diagnostic: does a capture or display driver of this machine take\n"
	       "cmabuf's buffers, and if not, why. It allocates a buffer of SIZE\n"
	       "(default 1M) from DEV, writes a pattern into it through mmap, hands it\n"
	       "to each importer and prints what was checked, node by node. An importer\n"
	       "with no device here is skipped, with what it needs, unless --importer\n"
	       "names it: then it is an error.\n"
	       "\nimporters:\n");
	for (i = 0; i < set->n; i++)
		printf("  %-8s %s\n", set->importers[i]->name,
		       set->importers[i]->help);
	printf("\n"
	       "v4l2 captures one frame on every /dev/video* that captures with\n"
	       "streaming I/O (memory-to-memory and output nodes are skipped): the\n"
	       "current format, buffers of its sizeimage from DEV imported with\n"
	       "V4L2_MEMORY_DMABUF, then the frame's bytesused and that the device\n"
	       "wrote into the buffer. kms imports the buffer into every DRM card with\n"
	       "modesetting as an XRGB8888 framebuffer; with a writeback connector it\n"
	       "scans the buffer out on a free CRTC, writes the output back into a\n"
	       "second buffer and compares the pixels; otherwise it runs a TEST_ONLY\n"
	       "commit on a connected display's mode (nothing is displayed). Commits\n"
	       "need the DRM master: stop a compositor first.\n"
	       "A device whose DMA mask does not reach DEV's area is refused its\n"
	       "mapping: use an instance below the mask ('dma reach' in 'cmabufctl\n"
	       "info').\n%s\n"
	       "  -i, --importer NAME  only this importer (default: all)\n"
	       "      --video NODE     v4l2: only this node (/dev/video2 or video2)\n"
	       "      --card NODE      kms: only this card (/dev/dri/card0 or card0)\n"
	       "  -t, --timeout MS     wait for a frame or a writeback (default %u)\n"
	       "  -s, --strategy S     auto (default), compound, frozen, legacy or dma\n"
	       "  -d, --device DEV     an instance: a path, a label or 'default'\n"
	       "  -j, --json           one JSON document instead of text\n",
	       set->help ? set->help : "", SHARE_TIMEOUT_MS);
}

static void share_json_result(struct json *j, const struct share_importer *imp,
			      const struct share_result *res, const char *status)
{
	json_object(j, NULL);
	json_str(j, "name", imp->name);
	json_str(j, "status", status);
	json_u64(j, "passed", res->passed);
	json_u64(j, "failed", res->failed);
	if (res->why[0])
		json_str(j, "why", res->why);
	else
		json_null(j, "why");
	share_log_json(j);
	json_close(j);
}

/*
 * Run one importer and report it: a summary line, or its object in @j.
 * Return: 0 when every check passed, 1 when one failed or a named importer
 * is not there, -ENODEV when an importer the user did not name is not
 * there (skipped).
 */
static int share_one(const struct share_importer *imp,
		     const struct share_buf *buf, bool named, struct json *j)
{
	struct share_result res = { 0 };
	int ret;

	if (!j) {
		printf("%s:\n", imp->name);
		fflush(stdout);
	}
	ret = imp->run(buf, &res);
	share_node(NULL);
	if (ret == -ENODEV && !named) {
		if (j) {
			share_json_result(j, imp, &res, "skipped");
		} else {
			share_skip("%s", res.why);
			printf("%s: skipped, not available\n", imp->name);
		}
		return ret;
	}
	if (ret < 0) {
		fflush(stdout);
		msg_err("share: %s: %s", imp->name,
			res.why[0] ? res.why : strerror(-ret));
	}
	if (j)
		share_json_result(j, imp, &res, ret < 0 ? "error" :
				  res.failed ? "failed" : "passed");
	else
		printf("%s: %u checks passed, %u failed\n", imp->name, res.passed,
		       res.failed);
	return ret < 0 || res.failed;
}

static void share_json_begin(struct json *j, const struct share_buf *buf)
{
	json_begin(j, stdout);
	json_str(j, "device", buf->dev_path);
	json_u64(j, "size_bytes", buf->size);
	json_str(j, "strategy", strategy_name(buf->strategy));
	json_u64(j, "pattern", buf->pattern);
	if (buf->video)
		json_str(j, "video", buf->video);
	else
		json_null(j, "video");
	if (buf->card)
		json_str(j, "card", buf->card);
	else
		json_null(j, "card");
	json_u64(j, "timeout_ms", buf->timeout_ms);
	json_array(j, "importers");
}

static int share_run(struct share_buf *buf, const struct share_set *set,
		     const char *importer, bool json)
{
	bool named = strcmp(importer, "all");
	unsigned int i, ran = 0;
	char sz[FMT_LEN];
	int status = 0, ret;
	struct json j;

	for (i = 0; i < set->n; i++) {
		if (!strcmp(importer, "all") ||
		    !strcmp(importer, set->importers[i]->name))
			break;
	}
	if (i == set->n) {
		opt_error("share", "unknown importer '%s'", importer);
		return EXIT_USAGE;
	}
	buf->dev_fd = dev_open(buf->dev_path);
	if (buf->dev_fd < 0)
		return 1;
	if (share_alloc(buf, buf->dev_fd, &buf->fd)) {
		close(buf->dev_fd);
		return 1;
	}
	if (json)
		share_json_begin(&j, buf);
	else
		printf("buffer: fd %d, %s, strategy %s, pattern 0x%02x, from %s\n",
		       buf->fd, fmt_size(buf->size, sz, sizeof(sz)),
		       strategy_name(buf->strategy), buf->pattern, buf->dev_path);
	for (i = 0; i < set->n; i++) {
		if (named && strcmp(importer, set->importers[i]->name))
			continue;
		ret = share_one(set->importers[i], buf, named, json ? &j : NULL);
		if (ret == -ENODEV)
			continue;
		ran++;
		status |= ret;
	}
	if (json)
		json_end(&j);
	if (!ran) {
		fflush(stdout);
		msg_err("share: no importer is available (try '%s share --help')",
			msg_prog());
		status = 1;
	}
	close(buf->fd);
	close(buf->dev_fd);
	return status;
}

/**
 * share_main() - the share command with a set of importers
 * @argc: arguments, the command's name first
 * @argv: them
 * @set: the importers, in the order they run, and their help
 *
 * Return: the exit status.
 */
int share_main(int argc, char **argv, const struct share_set *set)
{
	struct share_opts o;
	struct share_buf buf = {
		.pattern = 0x5a,
	};
	int ret;

	ret = share_parse(argc, argv, &o);
	if (ret == SHARE_HELP) {
		share_usage(set);
		return 0;
	}
	if (ret)
		return ret;
	snprintf(buf.dev_path, sizeof(buf.dev_path), "%s", o.device);
	buf.size = o.size;
	buf.strategy = o.strategy;
	buf.video = o.video[0] ? o.video : NULL;
	buf.card = o.card[0] ? o.card : NULL;
	buf.timeout_ms = o.timeout_ms;
	share_log_json_mode(o.json);
	return share_run(&buf, set, o.importer, o.json);
}

int cmd_share(int argc, char **argv)
{
	static const struct share_set board = {
		.importers = board_importers,
		.n = ARRAY_SIZE(board_importers),
	};

	return share_main(argc, argv, &board);
}
