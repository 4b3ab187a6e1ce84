/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parsing of command-line values: sizes, numbers, strategies.
 *
 * Every parser returns 0 on success or a negative errno: -EINVAL for text
 * that is not a value of the expected form, -ERANGE for a value that does
 * not fit. Nothing is printed; the caller says what was wrong.
 */
#ifndef CMABUFCTL_PARSE_H
#define CMABUFCTL_PARSE_H

#include <linux/types.h>

/* Pseudo strategy of "--strategy all": every strategy the device has. */
#define PARSE_STRATEGY_ALL	(-1)

int parse_size(const char *s, __u64 *out);
int parse_u64(const char *s, __u64 *out);
int parse_u32(const char *s, __u32 *out);
int parse_list(const char *list, int (*each)(const char *tok, void *arg),
	       void *arg);
int parse_byte(const char *s, __u8 *out);
int parse_align(const char *s, __u32 *log2_out);
int parse_strategy(const char *s, int *out);
const char *strategy_name(unsigned int strategy);
const char *parse_strerror(int err);

#endif /* CMABUFCTL_PARSE_H */
