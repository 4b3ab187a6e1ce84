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

/* The last error line, without the program's name. */
static char msg_last_err[512];

const char *msg_last(void)
{
	return msg_last_err;
}

static void msg_print(const char *prefix, const char *text)
{
	fprintf(stderr, "%s: %s%s\n", msg_prog(), prefix, text);
}

void msg_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg_last_err, sizeof(msg_last_err), fmt, ap);
	va_end(ap);
	msg_print("", msg_last_err);
}

void msg_warn(const char *fmt, ...)
{
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	msg_print("warning: ", text);
}
