/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the cmabuf sharing test: cmabuf and importer ioctls that
 * return an errno, the importer's pattern, debugfs bufinfo and fd passing.
 * The rest comes from the test library (tests/lib), which it includes.
 */
#ifndef SHARING_UTIL_H
#define SHARING_UTIL_H

#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/cmabuf.h>

#include <unistd.h>

#include "cmabuf_importer.h"
#include "cmabuf_test_util.h"
#include "reliability_util.h"
#include "vgem_util.h"

/* The page size: buffers are whole pages of it (4, 16 or 64 KiB). */
#define PAGE_SZ		((size_t)sysconf(_SC_PAGESIZE))

#define IMPORTER_DEV	"/dev/cmabuf_importer"
#define IMPORTER_NAME	"cmabuf_importer"
#define AREA_NAME_MAX	64
#define DEV_NAME_MAX	32

/* Every step of CMABUF_IMPORTER_IOC_CHECK, and those without the CPU. */
#define STEPS_ALL	(((1U << CMABUF_IMPORTER_STEP_COUNT) - 1) & \
			 ~CMABUF_IMPORTER_STEP_BIT(CMABUF_IMPORTER_STEP_NONE))
#define STEPS_NO_CPU	(STEPS_ALL & \
			 ~CMABUF_IMPORTER_STEP_BIT(CMABUF_IMPORTER_STEP_VERIFY) & \
			 ~CMABUF_IMPORTER_STEP_BIT(CMABUF_IMPORTER_STEP_WRITE))

int cmabuf_alloc_fd(int dev, unsigned long long size, int *buf);
int cmabuf_area_name(int dev, char *name, size_t size);
int cmabuf_live_buffers(int dev, unsigned long long *live);

int importer_check(int imp, int buf, __u32 flags, __u64 seed_in,
		   __u64 seed_out, struct cmabuf_importer_check *chk);
int importer_hold(int imp, int buf, __u32 flags,
		  struct cmabuf_importer_hold *hold);
int importer_release(int imp, __u32 handle);

void pattern_fill(void *map, size_t len, __u64 seed);
size_t pattern_mismatches(const void *map, size_t len, __u64 seed);

int cmabuf_settle_all(void);

/**
 * struct bufinfo_entry - one dma-buf in debugfs dma_buf/bufinfo
 * @size: its size.
 * @exp_name: its exporter.
 * @name: the name set with DMA_BUF_SET_NAME, "<none>" without.
 * @attached: devices attached to it.
 * @dev: the name of the first DEVS of them.
 */
struct bufinfo_entry {
	unsigned long long size;
	char exp_name[32];
	char name[64];
	int attached;
	char dev[4][DEV_NAME_MAX];
};

int bufinfo_find(int buf, struct bufinfo_entry *e);
bool bufinfo_attached(const struct bufinfo_entry *e, const char *dev);

int send_fd(int sock, int fd);
int recv_fd(int sock, int *fd);

bool file_contains(const char *path, const char *needle);

#endif /* SHARING_UTIL_H */
