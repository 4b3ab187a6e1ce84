// SPDX-License-Identifier: GPL-2.0
/*
 * Error and warning lines on stderr.
 */
#include <stdarg.h>
#include <stdio.h>

#include "msg.h"

static void msg_print(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "cmabufctl: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void msg_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_print("", fmt, ap);
	va_end(ap);
}

void msg_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_print("warning: ", fmt, ap);
	va_end(ap);
}
