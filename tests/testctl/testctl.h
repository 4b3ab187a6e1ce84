/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmabuf_testctl: the test bed's machinery beside cmabufctl's code. Its
 * commands, and share's importers of the test bed.
 */
#ifndef TESTCTL_H
#define TESTCTL_H

#include "share.h"

int testctl_bench(int argc, char **argv);

/* vgem, and the test module cmabuf_importer.ko (tests/importer). */
extern const struct share_importer share_vgem;
extern const struct share_importer share_importer;

#endif /* TESTCTL_H */
