/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What an allocation error means for this request on this instance, from
 * what CMABUF_IOC_INFO told: the words after "alloc: ..." that name the
 * fix. Pure functions: they only format.
 */
#ifndef CMABUFCTL_EXPLAIN_H
#define CMABUFCTL_EXPLAIN_H

#include <stdbool.h>
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

/**
 * struct explain_cap - the instance's cap on each user without CAP_SYS_ADMIN
 * @known: its sysfs files could be read; the rest means nothing otherwise
 * @held: bytes all such users' live and prepared buffers hold (sysfs
 *	unprivileged_bytes); each user is held to @max on its own
 * @max: the cap (sysfs unprivileged_max_bytes), 0 for none
 */
struct explain_cap {
	bool known;
	__u64 held;
	__u64 max;
};

void explain_edquot(const struct explain_cap *cap, __u64 size, char *buf,
		    size_t len);
const char *explain_cap_text(const struct explain_cap *cap, char *buf,
			     size_t len);
void explain_enobufs(__u64 bytes, char *buf, size_t len);

#endif /* CMABUFCTL_EXPLAIN_H */
