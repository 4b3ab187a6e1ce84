/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmabufctl share: hand a buffer to importers and check what they see.
 *
 * An importer is a struct share_importer in the table of cmd_share.c. Its
 * run() gets a buffer that holds share_buf.pattern in every byte and calls
 * share_check() once per thing it verified, so that the user sees what was
 * checked for each importer.
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

/**
 * struct share_result - checks of one importer
 * @passed: checks that held
 * @failed: checks that did not
 */
struct share_result {
	unsigned int passed;
	unsigned int failed;
};

/**
 * struct share_importer - a driver that takes cmabuf's dma-bufs
 * @name: for --importer
 * @help: one line for --help
 * @run: import @buf, call share_check() for each thing checked; return 0,
 *	or -errno when the importer is not there at all (after a message)
 */
struct share_importer {
	const char *name;
	const char *help;
	int (*run)(const struct share_buf *buf, struct share_result *res);
};

extern const struct share_importer share_vgem;

bool share_check(struct share_result *res, bool ok, const char *fmt, ...)
	__printf(3, 4);
int share_alloc(const struct share_buf *buf, int dev_fd, int *fd);
int share_alloc_in_child(const struct share_buf *buf, int *fd);

#endif /* CMABUFCTL_SHARE_H */
