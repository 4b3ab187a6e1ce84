/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmabufctl share: hand a buffer to importers and check what they see.
 *
 * An importer is a struct share_importer in the table of cmd_share.c. Its
 * run() gets a buffer that holds share_buf.pattern in every byte and calls
 * share_check() once per thing it verified, so that the user sees what was
 * checked for each importer. An importer that writes into the buffer puts
 * the pattern back before it returns, for the importers after it.
 *
 * An importer that is not there (no driver, no device node) says why with
 * share_absent(): it is skipped when the user asked for all importers, and
 * fails the command when the user named it.
 *
 * An importer that tests several device nodes (v4l2, kms) names the one its
 * next checks are about with share_node(). Those allocate buffers of their
 * devices' sizes from the same instance (share_alloc_size()), and say what
 * to do when a device cannot reach them.
 */
#ifndef CMABUFCTL_SHARE_H
#define CMABUFCTL_SHARE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "util.h"

/* How long an importer waits for its device by default: a frame, a writeback. */
#define SHARE_TIMEOUT_MS	2000

/**
 * struct share_opts - what the command line asked for
 * @device: the cmabuf device to allocate from
 * @video: the one V4L2 node the v4l2 importer tests, "" for every capture
 *	node
 * @card: the one DRM card the kms importer tests, "" for every card with
 *	modesetting
 * @importer: an importer's name, or "all"
 * @size: bytes of the buffer
 * @strategy: a %CMABUF_STRATEGY_* value
 * @timeout_ms: how long an importer waits for its device
 * @json: one JSON document instead of text
 */
struct share_opts {
	char device[PATH_MAX];
	char video[PATH_MAX];
	char card[PATH_MAX];
	const char *importer;
	__u64 size;
	unsigned int strategy;
	__u32 timeout_ms;
	bool json;
};

/**
 * struct share_buf - the buffer handed to the importers
 * @dev_path: the cmabuf device it came from
 * @dev_fd: open on @dev_path
 * @fd: the dma-buf
 * @size: its size in bytes
 * @strategy: the %CMABUF_STRATEGY_* it was allocated with (requested)
 * @pattern: the byte every byte of it holds
 * @video: the V4L2 node to test, NULL for every one
 * @card: the DRM card to test, NULL for every one
 * @timeout_ms: how long to wait for a device
 */
struct share_buf {
	char dev_path[PATH_MAX];
	int dev_fd;
	int fd;
	__u64 size;
	unsigned int strategy;
	__u8 pattern;
	const char *video;
	const char *card;
	__u32 timeout_ms;
};

#define SHARE_WHY_LEN	160
/* What EACCES on a device node means, for the check that failed. */
#define SHARE_EACCES_HINT \
	" (the node's group, usually video, must be one of yours)"
#define SHARE_LOG_MAX	512	/* checks one importer may report (--json) */

/**
 * struct share_result - checks of one importer
 * @passed: checks that held
 * @failed: checks that did not
 * @why: why the importer is not there, set by share_absent()
 */
struct share_result {
	unsigned int passed;
	unsigned int failed;
	char why[SHARE_WHY_LEN];
};

/**
 * struct share_importer - a driver that takes cmabuf's dma-bufs
 * @name: for --importer
 * @help: one line for --help
 * @run: import @buf, call share_check() for each thing checked; return 0,
 *	or share_absent() when the importer is not there at all
 */
struct share_importer {
	const char *name;
	const char *help;
	int (*run)(const struct share_buf *buf, struct share_result *res);
};

extern const struct share_importer share_v4l2;
extern const struct share_importer share_kms;

/**
 * struct share_set - the importers a share command runs
 * @importers: in the order they run
 * @n: how many
 * @help: more for --help, after the board's importers' text, or NULL
 */
struct share_set {
	const struct share_importer *const *importers;
	size_t n;
	const char *help;
};

int share_main(int argc, char **argv, const struct share_set *set);

/* share_opts.c: the command line (pure). */
#define SHARE_HELP	(-1)
int share_parse(int argc, char **argv, struct share_opts *o);
const char *share_node_path(const char *arg, const char *dir, char *buf,
			    size_t len);

/* share.c: reporting, and the buffers' life. */
struct json;
void share_log_json_mode(bool json);
void share_log_json(struct json *j);
void share_node(const char *node);

/* What share_each_node()'s @run made of one node. */
enum share_verdict {
	SHARE_TESTED,	/* checked, whatever the outcome */
	SHARE_SKIPPED,	/* not a node the importer can test */
};

typedef enum share_verdict (*share_node_fn)(const struct share_buf *buf,
					    struct share_result *res,
					    const char *path, bool named);
int share_each_node(const char *dir, const char *prefix, share_node_fn run,
		    const struct share_buf *buf, struct share_result *res,
		    unsigned int *skipped);

bool share_check(struct share_result *res, bool ok, const char *fmt, ...)
	__printf(3, 4);
void share_skip(const char *fmt, ...) __printf(1, 2);
int share_absent(struct share_result *res, const char *fmt, ...)
	__printf(2, 3);
int share_map(int fd, __u64 size, void **map);
int share_unmap(int fd, void *map, __u64 size);
int share_fill(int fd, __u64 size, __u8 pattern);
int share_alloc(const struct share_buf *buf, int dev_fd, int *fd);
int share_alloc_size(const struct share_buf *buf, __u64 size, int *fd);
__u64 share_unreachable_maps(const struct share_buf *buf);
__u64 share_live_buffers(const struct share_buf *buf);
void share_explain_unreachable(const struct share_buf *buf, __u64 before,
			       char *why, size_t len);

/* share_why.c: why a device refused, and what to do (pure). */
void share_why_unreachable(char *why, size_t len, const char *dev_path,
			   __u64 before, __u64 after, unsigned int dma_bits,
			   const char *reachable);
void share_why_leaked(char *why, size_t len, const char *dev_path,
		      __u64 before, __u64 after);
const char *share_why_reqbufs(int err);
const char *share_why_streamon(int err);
const char *share_why_commit(int err);

#endif /* CMABUFCTL_SHARE_H */
