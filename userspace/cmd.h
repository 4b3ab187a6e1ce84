/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The subcommands. Each takes the arguments after its own name (argv[0] is
 * the subcommand) and returns the process exit status.
 */
#ifndef CMABUFCTL_CMD_H
#define CMABUFCTL_CMD_H

int cmd_info(int argc, char **argv);
int cmd_alloc(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_share(int argc, char **argv);
int cmd_prepare(int argc, char **argv);
int cmd_reserve(int argc, char **argv);
int cmd_load(int argc, char **argv);
int cmd_save(int argc, char **argv);

#endif /* CMABUFCTL_CMD_H */
