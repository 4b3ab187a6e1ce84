/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Human-readable sizes and durations.
 */
#ifndef CMABUFCTL_FMT_H
#define CMABUFCTL_FMT_H

#include <stddef.h>
#include <linux/types.h>

#define FMT_LEN	32

const char *fmt_size(__u64 bytes, char *buf, size_t len);
const char *fmt_ns(__u64 ns, char *buf, size_t len);

#endif /* CMABUFCTL_FMT_H */
