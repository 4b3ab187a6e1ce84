// SPDX-License-Identifier: GPL-2.0
/*
 * Error and warning lines on stderr.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "msg.h"

/* The program's name, as it was run: cmabufctl, or the test bed's. */
const char *msg_prog(void)
{
	return program_invocation_short_name;
}

static void msg_print(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s", msg_prog(), prefix);
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
