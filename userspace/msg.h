/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Error and warning lines: one line on stderr, prefixed with the program name.
 */
#ifndef CMABUFCTL_MSG_H
#define CMABUFCTL_MSG_H

#include "util.h"

/* Exit status of a bad command line; other failures exit with 1. */
#define EXIT_USAGE	2

const char *msg_prog(void);
const char *msg_last(void);
void msg_err(const char *fmt, ...) __printf(1, 2);
void msg_warn(const char *fmt, ...) __printf(1, 2);

#endif /* CMABUFCTL_MSG_H */
