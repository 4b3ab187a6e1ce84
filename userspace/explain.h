/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What an allocation error means for this request on this instance, from
 * what CMABUF_IOC_INFO told: the words after "alloc: ..." that name the
 * fix. Pure functions: they only format.
 */
#ifndef CMABUFCTL_EXPLAIN_H
#define CMABUFCTL_EXPLAIN_H

#include <stddef.h>
#include <linux/cmabuf.h>

/* The part of a request that EINVAL is about. */
enum explain_what {
	EXPLAIN_SIZE,
	EXPLAIN_ALIGN,
	EXPLAIN_STRATEGY,
	EXPLAIN_UNKNOWN,
};

enum explain_what explain_einval(const struct cmabuf_info *info, __u64 size,
				 __u32 align, unsigned int strategy,
				 char *buf, size_t len);
void explain_enomem(const struct cmabuf_info *info, __u64 size,
		    __u64 largest_free, char *buf, size_t len);
void explain_ebusy(const struct cmabuf_info *info, __u64 size,
		   __u64 largest_free, char *buf, size_t len);

#endif /* CMABUFCTL_EXPLAIN_H */
