/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmabufctl prepare and reserve: their command lines and prepare's error
 * text, for the commands (cmd_prepare.c, cmd_reserve.c) and the unit tests.
 */
#ifndef CMABUFCTL_PREPARE_H
#define CMABUFCTL_PREPARE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* A long option without a short one (see prepare_parse()). */
#define PREPARE_OPT_HOLD	0x100

/**
 * struct prepare_opts - what the command line asked for
 * @device: device path
 * @size: bytes of each buffer
 * @count: buffers to have ready, 1 to %CMABUF_PREPARE_MAX_COUNT
 * @strategy: a %CMABUF_STRATEGY_* value
 * @align: log2 of the alignment, 0 for the driver's choice
 * @timeout_ms: how long untaken buffers stay ready, 0 for the driver's
 *	default
 * @wait: return once all are ready
 * @hold: seconds to keep them (the file) before giving them back, or
 *	%HOLD_UNTIL_SIGNAL
 * @json: print one JSON document instead of text
 */
struct prepare_opts {
	char device[PATH_MAX];
	__u64 size;
	__u32 count;
	unsigned int strategy;
	__u32 align;
	__u32 timeout_ms;
	bool wait;
	__u32 hold;
	bool json;
};

/**
 * struct prepare_limits - what ENOSPC is about
 * @area_bytes: size of the area, 0 when unknown
 * @page_size: the kernel's page size
 * @max_percent: module parameter prepare_max_percent (all files), or
 *	prepare_default_percent where that is the lower share in force (the
 *	kernel's default area)
 * @default_area: @max_percent is prepare_default_percent
 * @file_percent: module parameter prepare_file_percent (one file without
 *	CAP_SYS_ADMIN)
 * @privileged: the caller has CAP_SYS_ADMIN
 */
struct prepare_limits {
	__u64 area_bytes;
	__u32 page_size;
	unsigned int max_percent;
	bool default_area;
	unsigned int file_percent;
	bool privileged;
};

int prepare_parse(int argc, char **argv, struct prepare_opts *o);

/* Kinds of buffers a reserve may have: the driver's CMABUF_RESERVE_MAX. */
#define RESERVE_MAX_KINDS	16

/**
 * struct reserve_opts - what the command line of reserve asked for
 * @device: device path
 * @sizes: bytes of each kind of buffer
 * @counts: buffers of each kind
 * @n: kinds
 * @set: write @sizes and @counts as the reserve ("none": @n is 0, drop it)
 * @max: bytes for reserve_max_bytes
 * @set_max: write @max first
 * @json: print one JSON document instead of text
 */
struct reserve_opts {
	char device[PATH_MAX];
	__u64 sizes[RESERVE_MAX_KINDS];
	__u32 counts[RESERVE_MAX_KINDS];
	unsigned int n;
	bool set;
	__u64 max;
	bool set_max;
	bool json;
};

int reserve_parse(int argc, char **argv, struct reserve_opts *o);
void prepare_explain_enospc(const struct prepare_limits *l, __u64 size,
			    __u32 count, char *buf, size_t len);

#endif /* CMABUFCTL_PREPARE_H */
