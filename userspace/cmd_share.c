// SPDX-License-Identifier: GPL-2.0
/*
 * cmabufctl share: a diagnostic. Allocate a buffer, write a pattern into
 * it and hand it to each importer (a V4L2 capture device, a KMS display
 * device), which prints what it checked and, for what failed, why and
 * what to do. The test bed's build adds its own importers (vgem and the
 * test module), which the installed tool neither has nor names.
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
#include "parse.h"
#include "share.h"

/* Every importer, in the order they run. */
static const struct share_importer *const importers[] = {
	&share_v4l2,
	&share_kms,
#ifdef CMABUFCTL_TESTS
	&share_vgem,
	&share_importer,
#endif
};

#define NR_IMPORTERS	ARRAY_SIZE(importers)

static void share_usage(FILE *fp)
{
	size_t i;

	fprintf(fp,
		"usage: cmabufctl share [SIZE] [--importer NAME|all] [--video NODE]\n"
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
	for (i = 0; i < NR_IMPORTERS; i++)
		fprintf(fp, "  %-8s %s\n", importers[i]->name, importers[i]->help);
	fprintf(fp,
		"\n"
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
		"info').\n"
#ifdef CMABUFCTL_TESTS
		"\n"
		"vgem needs the vgem DRM driver (CONFIG_DRM_VGEM, 'modprobe vgem'). The\n"
		"importer needs the test module cmabuf_importer.ko and a cmabufctl built\n"
		"with it, both from 'make TESTS=1'; its run checks every step of a device\n"
		"driver's use (attach, map, vmap, CPU access, unmap, detach), the DMA\n"
		"segment, the pattern both ways, and that a buffer it holds after our fd\n"
		"is closed keeps its CMA pages until released. Comparing the DMA address\n"
		"with the physical one needs CAP_SYS_RAWIO; the CMA counters need debugfs.\n"
#endif
		"\n"
		"  -i, --importer NAME  only this importer (default: all)\n"
		"      --video NODE     v4l2: only this node (/dev/video2 or video2)\n"
		"      --card NODE      kms: only this card (/dev/dri/card0 or card0)\n"
		"  -t, --timeout MS     wait for a frame or a writeback (default %u)\n"
		"  -s, --strategy S     auto (default), compound, frozen, legacy or dma\n"
		"  -d, --device DEV     a path, a label or 'default' (default /dev/cmabuf)\n"
		"  -j, --json           one JSON document instead of text\n",
		SHARE_TIMEOUT_MS);
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

static int share_run(struct share_buf *buf, const char *importer, bool json)
{
	bool named = strcmp(importer, "all");
	unsigned int i, ran = 0;
	char sz[FMT_LEN];
	int status = 0, ret;
	struct json j;

	for (i = 0; i < NR_IMPORTERS; i++) {
		if (!strcmp(importer, "all") || !strcmp(importer, importers[i]->name))
			break;
	}
	if (i == NR_IMPORTERS) {
		msg_err("share: unknown importer '%s' (try 'cmabufctl share --help')",
			importer);
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
	for (i = 0; i < NR_IMPORTERS; i++) {
		if (named && strcmp(importer, importers[i]->name))
			continue;
		ret = share_one(importers[i], buf, named, json ? &j : NULL);
		if (ret == -ENODEV)
			continue;
		ran++;
		status |= ret;
	}
	if (json)
		json_end(&j);
	if (!ran) {
		fflush(stdout);
		msg_err("share: no importer is available (try 'cmabufctl share --help')");
		status = 1;
	}
	close(buf->fd);
	close(buf->dev_fd);
	return status;
}

int cmd_share(int argc, char **argv)
{
	struct share_opts o;
	struct share_buf buf = {
		.pattern = 0x5a,
	};
	int ret;

	ret = share_parse(argc, argv, &o);
	if (ret == SHARE_HELP) {
		share_usage(stdout);
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
	return share_run(&buf, o.importer, o.json);
}
