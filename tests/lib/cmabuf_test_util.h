/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test library's cmabuf helpers (tests/lib), linked by every test
 * program: ioctl wrappers that return an errno, the CMA area's counters,
 * fdinfo, unprivileged ioctls, dma-buf syncs and dma-heap allocations.
 */
#ifndef CMABUF_TEST_UTIL_H
#define CMABUF_TEST_UTIL_H

#include <fcntl.h>	/* O_CLOEXEC and O_ACCMODE for <linux/cmabuf.h> */
#include <stdbool.h>
#include <stddef.h>
#include <linux/cmabuf.h>

#define SZ_4K	0x00001000ULL
#define SZ_1M	0x00100000ULL
#define SZ_2M	0x00200000ULL
#define SZ_64M	0x04000000ULL
#define SZ_1G	0x40000000ULL

/* The user that unprivileged tests run as. */
#define CMABUF_NOBODY	65534

/* Longest CMA area name the tests handle. */
#define CMABUF_AREA_NAME_MAX	64

/**
 * struct cmabuf_counters - what a buffer's life must leave as it found
 * @cma_used_pages: the area's allocated pages (debugfs cma/<area>/used;
 *	without CMA debugfs, CMA sysfs allocated minus released pages).
 * @used_known: the kernel tells @cma_used_pages: false without CMA
 *	debugfs and CMA sysfs (Debian's 6.x), where it is 0.
 * @cma_held_pages: pages allocated minus pages released, from sysfs
 *	mm/cma/<area>/ (0 when the kernel has no CMA sysfs).
 * @held_known: the kernel has CMA sysfs, @cma_held_pages means something.
 * @live_buffers: &cmabuf_info.live_buffers.
 * @live_bytes: &cmabuf_info.live_bytes.
 * @free_bytes: &cmabuf_info.free_bytes (0 without %CMABUF_INFO_AREA_STATS).
 */
struct cmabuf_counters {
	unsigned long long cma_used_pages;
	bool used_known;
	unsigned long long cma_held_pages;
	bool held_known;
	__u64 live_buffers;
	__u64 live_bytes;
	__u64 free_bytes;
};

int cmabuf_ioctl(int fd, unsigned long cmd, void *arg);
int cmabuf_ioctl_retry(int fd, unsigned long cmd, void *arg);
int cmabuf_ioctl_sized(int fd, unsigned int nr, void *arg, size_t size);
int cmabuf_become_nobody(void);
int cmabuf_in_child(int (*drop)(int how), int how,
		    int (*act)(const void *arg), const void *arg);
int cmabuf_ioctl_unprivileged(int fd, unsigned long cmd, void *arg);
int cmabuf_open_unprivileged(const char *path, int flags);
int cmabuf_read_file(const char *path, char *buf, size_t size);
int cmabuf_write_file(const char *path, const char *val);

int cmabuf_get_info(int dev, struct cmabuf_info *info, char *name,
		    size_t name_size);
int cmabuf_alloc(int dev, __u64 size, __u32 strategy,
		 struct cmabuf_alloc_data *data);
int cmabuf_phys(int dev, int buf, struct cmabuf_phys *phys);

bool cmabuf_strategy_supported(const struct cmabuf_info *info, __u32 strategy);
bool cmabuf_compound_fits(const struct cmabuf_info *info, __u64 size);
__u32 cmabuf_auto_strategy(const struct cmabuf_info *info, __u64 size);
const char *cmabuf_strategy_name(__u32 strategy);
int cmabuf_kernel_strategies(__u32 *strategies);
__u32 cmabuf_instance_strategies(const struct cmabuf_info *info,
				 __u32 kernel);

int cmabuf_cma_read(const char *area, const char *file,
		    unsigned long long *val);
int cmabuf_settle(int dev);
int cmabuf_sysfs_path(int dev, const char *file, char *path, size_t size);
int cmabuf_sysfs_read(int dev, const char *file, unsigned long long *val);
int cmabuf_sysfs_read_str(int dev, const char *file, char *buf, size_t size);
int cmabuf_sysfs_write(int dev, const char *file, const char *val);
int cmabuf_sysfs_wait(int dev, const char *file, unsigned long long want,
		      unsigned int timeout_ms, unsigned long long *last);
unsigned long long cmabuf_now_ms(void);
unsigned long long cmabuf_now_ns(void);
int cmabuf_prepare(int dev, __u64 size, __u32 flags, __u32 count,
		   __u32 timeout_ms, struct cmabuf_prepare *p);
int cmabuf_counters_read(int dev, const char *area,
			 struct cmabuf_counters *c);
int cmabuf_cma_sysfs_read(const char *area, const char *file,
			  unsigned long long *val);
int cmabuf_stat_read(const char *path, const char *group, const char *counter,
		     unsigned long long *val);
const char *cmabuf_stat_group(__u32 strategy);

void *cmabuf_map(int fd, size_t len, off_t offset);
size_t cmabuf_first_nonzero(const void *buf, size_t len);
void cmabuf_fill_pages(void *buf, size_t len, unsigned long long seed);
size_t cmabuf_check_pages(const void *buf, size_t len,
			  unsigned long long seed);

int cmabuf_fdinfo(int fd, const char *key, char *val, size_t size);

int dmabuf_sync(int buf, __u64 flags);
int heap_alloc_sized(int heap, __u64 len, __u32 fd_flags, __u64 heap_flags,
		     __u32 fd_in, size_t size, int *buf);
int heap_alloc_named(const char *name, __u64 size, int *buf);

#endif /* CMABUF_TEST_UTIL_H */
