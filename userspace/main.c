// SPDX-License-Identifier: GPL-2.0
/*
 * cmabufctl: inspect, allocate, prepare, load, save, time and share cmabuf
 * buffers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "dev.h"
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
	{ "bench", cmd_bench, "time allocation and release workloads" },
	{ "share", cmd_share, "check that capture and display drivers take the buffers" },
};

static void main_usage(FILE *fp)
{
	size_t i;

	fprintf(fp, "usage: cmabufctl COMMAND [ARGS]\n"
		"       cmabufctl --version\n\ncommands:\n");
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(fp, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(fp, "\n'cmabufctl COMMAND --help' describes each command; 'man cmabufctl'\n"
		"all of them. Options mean the same in every command: -d device,\n"
		"-j JSON, -s strategy, -h help.\n");
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

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		main_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		main_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V") ||
	    !strcmp(argv[1], "version"))
		return main_version();
	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	}
	msg_err("unknown command '%s' (try 'cmabufctl --help')", argv[1]);
	return EXIT_USAGE;
}
