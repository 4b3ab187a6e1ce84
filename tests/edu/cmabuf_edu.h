/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * cmabuf_edu's ioctls, on /dev/cmabuf_edu-<PCI name>, one per edu device.
 * What a file attached is detached when it is closed or the device unbound.
 */
#ifndef _UAPI_CMABUF_EDU_H
#define _UAPI_CMABUF_EDU_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define CMABUF_EDU_DEV_PREFIX	"/dev/cmabuf_edu-"

/* edu's 4 KiB but its last byte: QEMU before 8.0 fails a DMA ending there. */
#define CMABUF_EDU_MAX_LEN	4095

#define CMABUF_EDU_MAPS		2

#define CMABUF_EDU_MAX_ATTACH	16

/* &cmabuf_edu_info.flags */
#define CMABUF_EDU_INFO_IOMMU	0x1U	/* DMA addresses go through an IOMMU */
#define CMABUF_EDU_INFO_BOUNCE	0x2U	/* every mapping bounces (swiotlb) */

/**
 * struct cmabuf_edu_info - CMABUF_EDU_IOC_INFO argument
 * @dma_bits: out: width of the DMA mask the driver gave the device.
 * @flags: out: %CMABUF_EDU_INFO_IOMMU, %CMABUF_EDU_INFO_BOUNCE.
 * @dma_error: out: 0, or the negative errno of setting that mask: then the
 *	device cannot be used, and every other ioctl fails with it.
 * @max_seg_size: out: dma_get_max_seg_size() of the device.
 * @seg_boundary: out: dma_get_seg_boundary() of the device.
 * @max_mapping_size: out: dma_max_mapping_size() of the device.
 */
struct cmabuf_edu_info {
	__u32 dma_bits;
	__u32 flags;
	__s32 dma_error;
	__u32 max_seg_size;
	__u64 seg_boundary;
	__u64 max_mapping_size;
};

/**
 * struct cmabuf_edu_attach - CMABUF_EDU_IOC_ATTACH argument
 * @fd: in: a dma-buf file descriptor.
 * @handle: out: names the attachment in the other ioctls; never 0.
 * @size: out: size of the dma-buf in bytes.
 */
struct cmabuf_edu_attach {
	__u32 fd;
	__u32 handle;
	__u64 size;
};

/**
 * struct cmabuf_edu_map - CMABUF_EDU_IOC_MAP argument
 * @handle: in: an attachment.
 * @map: out: index of the new mapping, below %CMABUF_EDU_MAPS.
 * @dma_addr: out: DMA address of the first DMA segment.
 * @dma_total: out: sum of the lengths of the DMA segments.
 * @dma_segments: out: DMA segments of the mapping.
 * @longest: out: length of the longest DMA segment.
 * @violations: out: DMA segments longer than the device's
 *	dma_get_max_seg_size() or across its dma_get_seg_boundary().
 * @pages_hidden: out: 1 when the scatterlist the importer got has no
 *	struct page in it (CONFIG_DMABUF_DEBUG), else 0.
 */
struct cmabuf_edu_map {
	__u32 handle;
	__u32 map;
	__u64 dma_addr;
	__u64 dma_total;
	__u32 dma_segments;
	__u32 longest;
	__u32 violations;
	__u32 pages_hidden;
};

/**
 * struct cmabuf_edu_unmap - CMABUF_EDU_IOC_UNMAP argument
 * @handle: in: an attachment.
 * @map: in: one of its mappings.
 */
struct cmabuf_edu_unmap {
	__u32 handle;
	__u32 map;
};

/* &cmabuf_edu_detach.flags */
#define CMABUF_EDU_DETACH_MAPPED	0x1U	/* skip the unmapping: misuse */
#define CMABUF_EDU_DETACH_VALID_FLAGS	CMABUF_EDU_DETACH_MAPPED

/**
 * struct cmabuf_edu_detach - CMABUF_EDU_IOC_DETACH argument
 * @handle: in: an attachment.
 * @flags: in: %CMABUF_EDU_DETACH_VALID_FLAGS. Without
 *	%CMABUF_EDU_DETACH_MAPPED every mapping is unmapped first, as a
 *	driver must; with it the attachment is detached with its mappings
 *	live, as a buggy driver would, and the exporter has to clean up.
 */
struct cmabuf_edu_detach {
	__u32 handle;
	__u32 flags;
};

/* &cmabuf_edu_dma.op */
#define CMABUF_EDU_DMA_COPY	0	/* device copies @offset to @dst */
#define CMABUF_EDU_DMA_READ	1	/* device reads @offset into @data */
#define CMABUF_EDU_DMA_WRITE	2	/* device writes @data at @offset */
#define CMABUF_EDU_DMA_OPS	3

/**
 * struct cmabuf_edu_dma - CMABUF_EDU_IOC_DMA argument
 * @handle: in: an attachment.
 * @map: in: the mapping whose DMA addresses the device is given.
 * @op: in: a %CMABUF_EDU_DMA_COPY, ..._READ or ..._WRITE.
 * @len: in: bytes to move, 1 to %CMABUF_EDU_MAX_LEN.
 * @offset: in: where in the buffer the device reads (COPY, READ) or
 *	writes (WRITE).
 * @dst: in: where in the buffer the device writes (COPY), else 0.
 * @data: in: user pointer to @len bytes (READ: filled, WRITE: read),
 *	else 0.
 * @dma_addr: out: the DMA address of @offset the device was given.
 * @transfers: out: DMA transfers the device made, each within one DMA
 *	segment.
 * @pad: must be zero.
 *
 * The device copies through its own buffer; READ and WRITE go through a
 * page of the driver's, so that the CPU never touches the dma-buf.
 */
struct cmabuf_edu_dma {
	__u32 handle;
	__u32 map;
	__u32 op;
	__u32 len;
	__u64 offset;
	__u64 dst;
	__u64 data;
	__u64 dma_addr;
	__u32 transfers;
	__u32 pad;
};

/**
 * struct cmabuf_edu_vread - CMABUF_EDU_IOC_VREAD argument
 * @handle: in: an attachment.
 * @len: in: bytes to read, 1 to %CMABUF_EDU_MAX_LEN.
 * @offset: in: where in the buffer.
 * @data: in: user pointer to @len bytes, filled.
 */
struct cmabuf_edu_vread {
	__u32 handle;
	__u32 len;
	__u64 offset;
	__u64 data;
};

#define CMABUF_EDU_IOC_MAGIC	0xBB

/**
 * DOC: CMABUF_EDU_IOC_INFO - the device's DMA parameters
 *
 * Errors: ENODEV once the device is unbound; EFAULT.
 */
#define CMABUF_EDU_IOC_INFO \
	_IOR(CMABUF_EDU_IOC_MAGIC, 0x00, struct cmabuf_edu_info)

/**
 * DOC: CMABUF_EDU_IOC_ATTACH - attach the device to a dma-buf
 *
 * Errors: EBADF for an fd that is not open; EINVAL for one that is not a
 * dma-buf; ENOSPC when the file has %CMABUF_EDU_MAX_ATTACH attachments;
 * the error of dma_buf_attach(); &cmabuf_edu_info.dma_error; ENODEV once
 * the device is unbound; ENOMEM; EFAULT.
 */
#define CMABUF_EDU_IOC_ATTACH \
	_IOWR(CMABUF_EDU_IOC_MAGIC, 0x01, struct cmabuf_edu_attach)

/**
 * DOC: CMABUF_EDU_IOC_MAP - map an attachment (again) for the device
 *
 * Errors: ENOENT for an unknown handle; EBUSY when it has
 * %CMABUF_EDU_MAPS mappings; the error of dma_buf_map_attachment() (such
 * as ENOMEM when the buffer does not fit the device's DMA mask); ENODEV;
 * EFAULT.
 */
#define CMABUF_EDU_IOC_MAP \
	_IOWR(CMABUF_EDU_IOC_MAGIC, 0x02, struct cmabuf_edu_map)

/**
 * DOC: CMABUF_EDU_IOC_UNMAP - unmap one mapping of an attachment
 *
 * Errors: ENOENT for an unknown handle or mapping; ENODEV; EFAULT.
 */
#define CMABUF_EDU_IOC_UNMAP \
	_IOW(CMABUF_EDU_IOC_MAGIC, 0x03, struct cmabuf_edu_unmap)

/**
 * DOC: CMABUF_EDU_IOC_DETACH - detach (and drop) an attachment
 *
 * Errors: ENOENT for an unknown handle; EINVAL for an unknown flag;
 * ENODEV; EFAULT.
 */
#define CMABUF_EDU_IOC_DETACH \
	_IOW(CMABUF_EDU_IOC_MAGIC, 0x04, struct cmabuf_edu_detach)

/**
 * DOC: CMABUF_EDU_IOC_DMA - have the device move data in the buffer
 *
 * Errors: ENOENT for an unknown handle or mapping; EINVAL for an unknown
 * op, a length of 0 or over %CMABUF_EDU_MAX_LEN, a range outside the
 * buffer, overlapping COPY ranges or a non-zero pad; ETIMEDOUT when the
 * device did not finish; ENODEV; EFAULT.
 */
#define CMABUF_EDU_IOC_DMA \
	_IOWR(CMABUF_EDU_IOC_MAGIC, 0x05, struct cmabuf_edu_dma)

/**
 * DOC: CMABUF_EDU_IOC_VREAD - read the buffer through dma_buf_vmap()
 *
 * Errors: ENOENT for an unknown handle; EINVAL for a length of 0 or over
 * %CMABUF_EDU_MAX_LEN or a range outside the buffer; the error of
 * dma_buf_vmap() or of the CPU access; ENODEV; ENOMEM; EFAULT.
 */
#define CMABUF_EDU_IOC_VREAD \
	_IOW(CMABUF_EDU_IOC_MAGIC, 0x06, struct cmabuf_edu_vread)

#endif /* _UAPI_CMABUF_EDU_H */
