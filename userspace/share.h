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
 */
#ifndef CMABUFCTL_SHARE_H
#define CMABUFCTL_SHARE_H

#include <limits.h>
#include <stdbool.h>
#include <linux/types.h>

#include "util.h"

/**
 * struct share_buf - the buffer handed to the importers
 * @dev_path: the cmabuf device it came from
 * @dev_fd: open on @dev_path
 * @fd: the dma-buf
 * @size: its size in bytes
 * @strategy: the %CMABUF_STRATEGY_* it was allocated with (requested)
 * @pattern: the byte every byte of it holds
 */
struct share_buf {
	char dev_path[PATH_MAX];
	int dev_fd;
	int fd;
	__u64 size;
	unsigned int strategy;
	__u8 pattern;
};

#define SHARE_WHY_LEN	160
#define SHARE_LOG_MAX	128	/* checks one importer may report */

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

extern const struct share_importer share_vgem;
extern const struct share_importer share_importer;

bool share_check(struct share_result *res, bool ok, const char *fmt, ...)
	__printf(3, 4);
void share_skip(const char *fmt, ...) __printf(1, 2);
int share_absent(struct share_result *res, const char *fmt, ...)
	__printf(2, 3);
int share_map(int fd, __u64 size, void **map);
int share_unmap(int fd, void *map, __u64 size);
int share_fill(int fd, __u64 size, __u8 pattern);
int share_alloc(const struct share_buf *buf, int dev_fd, int *fd);
int share_alloc_in_child(const struct share_buf *buf, int *fd);

#endif /* CMABUFCTL_SHARE_H */
