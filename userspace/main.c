// SPDX-License-Identifier: GPL-2.0
/*
 * cmabufctl: inspect, allocate, prepare, load, save, time and share cmabuf
 * buffers.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "dev.h"
#include "json.h"
#include "msg.h"
#include "util.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "info", cmd_info, "list every instance and its CMA area" },
	{ "alloc", cmd_alloc, "allocate a buffer, optionally fill, verify, hold it" },
	{ "prepare", cmd_prepare, "have buffers of a size ready before they are asked for" },
	{ "load", cmd_load, "read a file into a buffer, by the storage's DMA" },
	{ "save", cmd_save, "write a buffer to a file, by the storage's DMA" },
	{ "reserve", cmd_reserve, "keep buffers ready for a service, whatever the pressure" },
	{ "bench", cmd_bench, "time a buffer's allocation, mapping and release" },
	{ "share", cmd_share, "check that capture and display drivers take the buffers" },
};

static void main_usage(FILE *fp)
{
	size_t i;

	fprintf(fp, "usage: cmabufctl COMMAND [ARGS]\n"
		"       cmabufctl help [COMMAND]\n"
		"       cmabufctl -V, --version\n\ncommands:\n");
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(fp, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(fp, "\n'cmabufctl COMMAND --help' describes each command; 'man cmabufctl'\n"
		"all of them. Options mean the same in every command: -d device,\n"
		"-j JSON, -s strategy, -h help. Without -d, the default instance\n"
		"(/dev/cmabuf) where you may open it, else the first instance you may\n"
		"(cmabufctl info lists them).\n");
}

/* Ours, and the loaded module's (MODULE_VERSION, world-readable). */
static int main_version(void)
{
	char module[32];

	printf("cmabufctl %s\n", CMABUFCTL_VERSION);
	if (!dev_read_line(DEV_MODULE_SYSFS "/version", module, sizeof(module)))
		printf("cmabuf.ko %s\n", module);
	else
		printf("cmabuf.ko not loaded\n");
	return 0;
}

static const struct command *main_command(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	}
	msg_err("unknown command '%s' (try 'cmabufctl --help')", name);
	return NULL;
}

/* help COMMAND: the command's own --help. */
static int main_help(int argc, char **argv)
{
	char opt[] = "--help";
	const struct command *cmd;
	char *help[3];

	if (argc < 3) {
		main_usage(stdout);
		return 0;
	}
	if (argc > 3) {
		msg_err("help: unexpected argument '%s' (try 'cmabufctl --help')",
			argv[3]);
		return EXIT_USAGE;
	}
	cmd = main_command(argv[2]);
	help[0] = argv[2];
	help[1] = opt;
	help[2] = NULL;
	return cmd ? cmd->run(2, help) : EXIT_USAGE;
}

/* Does the command line ask for JSON (-j or --json, before any "--")? */
static bool main_json(int argc, char **argv)
{
	int i;

	for (i = 2; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "--json"))
			return true;
	}
	return false;
}

/*
 * With --json, a command that failed before its document is still one
 * document on stdout: what went wrong, as its last error line said.
 */
static void main_json_error(const char *cmd, int status)
{
	struct json j;

	json_begin(&j, stdout);
	json_str(&j, "command", cmd);
	json_u64(&j, "exit_status", status);
	json_str(&j, "error", msg_last());
	json_end(&j);
}

int main(int argc, char **argv)
{
	const struct command *cmd;
	int status;

	if (argc < 2) {
		main_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help"))
		return main_help(argc, argv);
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V") ||
	    !strcmp(argv[1], "version"))
		return main_version();
	cmd = main_command(argv[1]);
	if (!cmd)
		return EXIT_USAGE;
	status = cmd->run(argc - 1, argv + 1);
	if (status && !json_documents() && main_json(argc, argv))
		main_json_error(cmd->name, status);
	return status;
}
