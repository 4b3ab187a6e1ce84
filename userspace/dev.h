/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cmabuf device: naming, opening, one wrapper per ioctl, its sysfs
 * files and the counters of its CMA area (sysfs, debugfs).
 *
 * The wrappers return 0 or a negative errno and print nothing, except
 * dev_open() and dev_explain_*(), which print the one error line that
 * explains the failure and what fixes it.
 */
#ifndef CMABUFCTL_DEV_H
#define CMABUFCTL_DEV_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/cmabuf.h>

#define DEV_DIR			"/dev"
#define DEV_DEFAULT		"/dev/cmabuf"
#define DEV_AREA_NAME_MAX	64
#define DEV_LIST_MAX		16
#define DEV_MODULE_SYSFS	"/sys/module/cmabuf"
#define CMA_DEBUGFS		"/sys/kernel/debug/cma"
#define CMA_SYSFS		"/sys/kernel/mm/cma"
#define MISC_SYSFS		"/sys/class/misc"

/* A figure the kernel does not tell at all (not: not to this user). */
#define DEV_UNTOLD		(~0ULL)

/**
 * struct dev_info - what CMABUF_IOC_INFO tells about an instance
 * @info: the answer, the area's statistics completed from CMA sysfs
 * @area: name of the CMA area, NUL-terminated
 * @size_from_node: @info's total_bytes is the driver's, from the area's
 *	reserved-memory node, the free bytes CMA sysfs's
 * @stats_from_sysfs: @info's free and used bytes are CMA sysfs's
 */
struct dev_info {
	struct cmabuf_info info;
	char area[DEV_AREA_NAME_MAX];
	bool size_from_node;
	bool stats_from_sysfs;
};

const char *dev_resolve(const char *arg, char *buf, size_t len);
int dev_try_open(const char *path, int flags);
void dev_explain_open(const char *path, int err);
void dev_explain_info(const char *path, int err);
const char *dev_access_hint(const char *path, char *buf, size_t len);
int dev_open(const char *path);
int dev_ioctl(int fd, unsigned long cmd, void *arg);
int dev_info(int fd, struct dev_info *di);
void dev_area_stats(struct dev_info *di);
const char *dev_strerror(int err);
int dev_alloc(int fd, struct cmabuf_alloc_data *data);
int dev_alloc_fd(int fd, __u64 size, unsigned int strategy, int *buf_fd);
int dev_phys(int fd, int dmabuf_fd, struct cmabuf_phys *phys);
int dev_list(char paths[][PATH_MAX], int max);
int dev_read_line(const char *path, char *buf, size_t len);
int dev_area_read(const char *area, const char *file, __u64 *val);
__u64 dev_area_largest_free(const struct dev_info *di);
int dev_area_sysfs_read(const char *area, const char *file, __u64 *val);
int dev_sysfs_read(const char *path, const char *file, char *buf, size_t len);
int dev_sysfs_u64(const char *path, const char *file, __u64 *val);
int dev_sysfs_write(const char *path, const char *file, const char *text);
bool dev_cap_read(const char *path, __u64 *held, __u64 *max);
int dev_wait_released(const char *path, unsigned int timeout_ms);

#endif /* CMABUFCTL_DEV_H */
