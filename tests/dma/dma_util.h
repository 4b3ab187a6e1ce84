/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the cmabuf DMA test: the edu devices and their ioctls, byte
 * patterns, PCI driver binding, dma-heaps, CMABUF_IOC_SYNC, timing, the
 * kernel log and the DMA API's trace events. With those of the reliability
 * programs (tests/stress/reliability_util.h), linked in. Every function
 * that can fail returns 0 or a positive errno.
 */
#ifndef DMA_UTIL_H
#define DMA_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "cmabuf_edu.h"

#define EDU_DRIVER	"cmabuf_edu"
#define EDU_MAX_DEVS	4
#define PCI_NAME_MAX	32

/* What swiotlb and the DMA API debugging say, in debugfs. */
#define SWIOTLB_USED	"/sys/kernel/debug/swiotlb/io_tlb_used"
#define DMA_API_ERRORS	"/sys/kernel/debug/dma-api/error_count"

/**
 * struct edu_dev - one edu device, as its driver describes it
 * @pci: its PCI name, "0000:00:02.0".
 * @fd: its misc device, open.
 * @info: CMABUF_EDU_IOC_INFO.
 */
struct edu_dev {
	char pci[PCI_NAME_MAX];
	int fd;
	struct cmabuf_edu_info info;
};

int edu_ioctl(int fd, unsigned long cmd, void *arg);
int edu_open(const char *pci, struct edu_dev *dev);
int edu_find_all(struct edu_dev *devs, int max, int *count);
void edu_close(struct edu_dev *dev);

int edu_attach(int edu, int buf, __u32 *handle);
int edu_map(int edu, __u32 handle, struct cmabuf_edu_map *map);
int edu_unmap(int edu, __u32 handle, __u32 map);
int edu_detach(int edu, __u32 handle, __u32 flags);
int edu_copy(int edu, __u32 handle, __u32 map, __u64 src, __u64 dst,
	     __u32 len, struct cmabuf_edu_dma *out);
int edu_read(int edu, __u32 handle, __u32 map, __u64 off, void *data,
	     __u32 len);
int edu_write(int edu, __u32 handle, __u32 map, __u64 off,
	      const void *data, __u32 len);
int edu_vread(int edu, __u32 handle, __u64 off, void *data, __u32 len);

int pci_driver_bind(const char *driver, const char *pci, bool bind);

void bytes_fill(unsigned char *p, size_t len, __u64 seed);
size_t bytes_mismatch(const unsigned char *p, size_t len, __u64 seed);

int cmabuf_range_sync(int dev, int buf, __u32 flags, __u64 off, __u64 len);

unsigned long long now_ns(void);
unsigned long long median_ull(unsigned long long *v, size_t n);

int kmsg_open(void);
unsigned int kmsg_count(int fd, const char *a, const char *b, char *first,
			size_t len);

bool trace_available(void);
bool trace_dma_events(void);
int trace_start(void);
void trace_stop(void);
int trace_take(char *buf, size_t len);
unsigned int trace_count(const char *trace, const char *event,
			 const char *dev, const char *dir,
			 unsigned long long size);
int misc_parent_name(const char *misc, char *name, size_t len);

/* The architecture's cache maintenance for DMA, as the function tracer names it. */
#define ARCH_CLEAN	"arch_sync_dma_for_device"
#define ARCH_INVAL	"arch_sync_dma_for_cpu"

int trace_arch_start(void);
unsigned int trace_count_pid(const char *trace, int pid, const char *event,
			     const char *dev, const char *dir,
			     unsigned long long size);
unsigned int trace_count_arch(const char *trace, const char *func,
			      const char *event, const char *dev,
			      const char *dir, unsigned long long size);

#endif /* DMA_UTIL_H */
