/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmabufctl alloc: its command line, for the command (cmd_alloc.c) and the
 * unit tests.
 */
#ifndef CMABUFCTL_ALLOC_H
#define CMABUFCTL_ALLOC_H

#include <limits.h>
#include <stdbool.h>
#include <linux/types.h>

/* Long options without a short one (see alloc_parse()). */
#define ALLOC_OPT_HOLD		0x100
#define ALLOC_OPT_VERIFY	0x101
#define ALLOC_OPT_WC		0x102

/**
 * struct alloc_opts - what the command line asked for
 * @device: device path
 * @size: bytes
 * @strategy: a %CMABUF_STRATEGY_* value
 * @align: log2 of the alignment, 0 for the driver's choice
 * @hold: seconds to keep the buffer, or %HOLD_UNTIL_SIGNAL
 * @fill: byte to write into every byte of the buffer
 * @do_fill: @fill was given
 * @verify: check the buffer reads zero, and reads @fill after filling
 * @writecombine: ask for write-combined CPU mappings
 * @json: print one JSON document instead of text
 */
struct alloc_opts {
	char device[PATH_MAX];
	__u64 size;
	unsigned int strategy;
	__u32 align;
	__u32 hold;
	__u8 fill;
	bool do_fill;
	bool verify;
	bool writecombine;
	bool json;
};

int alloc_parse(int argc, char **argv, struct alloc_opts *o);

#endif /* CMABUFCTL_ALLOC_H */
