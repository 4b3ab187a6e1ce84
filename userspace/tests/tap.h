/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal TAP producer for host-side unit tests.
 */
#ifndef CMABUFCTL_TAP_H
#define CMABUFCTL_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#include "util.h"

static unsigned int tap_count, tap_failed;

static inline void tap_plan(unsigned int n)
{
	printf("TAP version 13\n1..%u\n", n);
}

static inline __printf(2, 3)
bool tap_ok(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %u - ", ok ? "ok" : "not ok", ++tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!ok)
		tap_failed++;
	return ok;
}

/* Exit status: non-zero when a test failed or the plan was not met. */
static inline int tap_done(unsigned int planned)
{
	if (tap_count != planned)
		printf("# planned %u tests, ran %u\n", planned, tap_count);
	return tap_failed || tap_count != planned;
}

#endif /* CMABUFCTL_TAP_H */
