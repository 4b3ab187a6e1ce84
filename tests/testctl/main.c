// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf_testctl: what the test bed runs beside cmabufctl. bench times the
 * reports' workloads through every path (the in-kernel benchmark, the
 * loaded and concurrent workloads, cpu-ref, the CMA heap and CMA debugfs
 * as peers, hooks around the samples); share is cmabufctl share with the
 * test bed's importers after a board's: vgem and the test module.
 */
#include <stdio.h>
#include <string.h>

#include "msg.h"
#include "testctl.h"
#include "util.h"

static const struct share_importer *const importers[] = {
	&share_v4l2,
	&share_kms,
	&share_vgem,
	&share_importer,
};

static int testctl_share(int argc, char **argv)
{
	static const struct share_set all = {
		.importers = importers,
		.n = ARRAY_SIZE(importers),
		.help = "\n"
			"vgem needs the vgem DRM driver (CONFIG_DRM_VGEM, 'modprobe vgem'). The\n"
			"importer needs the test module cmabuf_importer.ko ('make TESTS=1'); its\n"
			"run checks every step of a device driver's use (attach, map, vmap, CPU\n"
			"access, unmap, detach), the DMA segment, the pattern both ways, and that\n"
			"a buffer it holds after our fd is closed keeps its CMA pages until\n"
			"released. Comparing the DMA address with the physical one needs\n"
			"CAP_SYS_RAWIO; the CMA counters need debugfs or CMA sysfs.\n",
	};

	return share_main(argc, argv, &all);
}

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "bench", testctl_bench },
	{ "share", testctl_share },
};

int main(int argc, char **argv)
{
	size_t i;

	for (i = 0; argc > 1 && i < ARRAY_SIZE(commands); i++) {
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	}
	fprintf(stderr,
		"usage: cmabuf_testctl bench WORKLOAD [OPTIONS]  (bench --help)\n"
		"       cmabuf_testctl share [SIZE] [OPTIONS]     (share --help)\n"
		"The test bed's workloads and importers; cmabufctl is what users run.\n");
	return EXIT_USAGE;
}
