/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --hold [SECONDS]: keep what a command made (a buffer, prepared buffers)
 * for SECONDS, or without them until SIGINT or SIGTERM, which end the
 * hold and not the command: a service's way to keep them.
 */
#ifndef CMABUFCTL_HOLD_H
#define CMABUFCTL_HOLD_H

#include <stddef.h>
#include <linux/types.h>

#define HOLD_UNTIL_SIGNAL	(~0U)

int hold_parse(int argc, char **argv, __u32 *seconds);
const char *hold_text(__u32 seconds, char *buf, size_t len);
void hold_catch_signals(void);
unsigned int hold(__u32 seconds);

#endif /* CMABUFCTL_HOLD_H */
