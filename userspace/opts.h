/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command line of every command, read alike: its options through
 * getopt_long() with -d DEV and -j taken for it (opt_next(); its table
 * of long options ends with "device", "json" and "help"), then the
 * words after them (opt_words()). What is wrong is one line naming the
 * command and its --help, and the command exits with EXIT_USAGE.
 */
#ifndef CMABUFCTL_OPTS_H
#define CMABUFCTL_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <linux/types.h>

#include "util.h"

/**
 * struct opt_common - what the options every command has asked for
 * @device: -d DEV, or NULL for the default instance
 * @json: -j
 */
struct opt_common {
	const char *device;
	bool json;
};

int opt_next(int argc, char **argv, const char *shorts,
	     const struct option *longs, struct opt_common *oc);
int opt_words(int argc, char **argv, int min, int max, const char *names);
void opt_error(const char *cmd, const char *fmt, ...) __printf(2, 3);
int opt_size(const char *cmd, const char *what, const char *arg, __u64 *out);
int opt_size_word(int argc, char **argv, __u64 *size);
int opt_strategy(const char *cmd, const char *arg, unsigned int *out);
int opt_align(const char *cmd, const char *arg, __u32 *out);
int opt_u32(const char *cmd, const char *what, const char *arg, __u32 min,
	    __u32 max, __u32 *out);

#endif /* CMABUFCTL_OPTS_H */
