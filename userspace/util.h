/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel idioms that userspace lacks.
 */
#ifndef CMABUFCTL_UTIL_H
#define CMABUFCTL_UTIL_H

#define __printf(a, b)	__attribute__((format(printf, a, b)))
#define ARRAY_SIZE(arr)	(sizeof(arr) / sizeof((arr)[0]))
#define BIT(nr)		(1U << (nr))

#endif /* CMABUFCTL_UTIL_H */
