/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * cmabuf_importer's ioctls, on /dev/cmabuf_importer (a device that reaches
 * all of memory) and /dev/cmabuf_importer32 (a 32-bit DMA mask), neither
 * behind an IOMMU. A command of another size is unknown (ENOTTY).
 */
#ifndef _UAPI_CMABUF_IMPORTER_H
#define _UAPI_CMABUF_IMPORTER_H

#include <linux/ioctl.h>
#include <linux/types.h>

/**
 * DOC: coherent
 *
 * Writing N to %CMABUF_IMPORTER_COHERENT frees what the 64-bit device kept
 * and keeps N bytes of dma_alloc_coherent() instead, as another driver
 * would (0 only frees; ENOMEM when there is no such memory): more than a
 * page comes from the default CMA area, or from the page allocator. Read,
 * it gives the bytes kept.
 */
#define CMABUF_IMPORTER_COHERENT "/sys/kernel/debug/cmabuf_importer/coherent"

/**
 * DOC: pattern
 *
 * At every multiple of %CMABUF_IMPORTER_PATTERN_STRIDE bytes, the 64-bit
 * word cmabuf_importer_pattern(seed, offset) in the CPU's byte order: one
 * in every cache line, at a sixteenth of the cost of filling the buffer.
 * The bytes in between are neither written nor read.
 */
#define CMABUF_IMPORTER_PATTERN_STRIDE	64

/**
 * cmabuf_importer_pattern() - the pattern word at @offset for @seed
 * @seed: the pattern's seed.
 * @offset: byte offset of the word in the buffer.
 *
 * Return: splitmix64 of @seed and @offset.
 */
static inline __u64 cmabuf_importer_pattern(__u64 seed, __u64 offset)
{
	__u64 x = seed + (offset + 1) * 0x9e3779b97f4a7c15ULL;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/**
 * DOC: steps of CMABUF_IMPORTER_IOC_CHECK
 *
 * In this order. The first that fails stops those after it, but what was
 * set up before it is still undone.
 */
#define CMABUF_IMPORTER_STEP_NONE	0
#define CMABUF_IMPORTER_STEP_ATTACH	1	/* dma_buf_attach() */
#define CMABUF_IMPORTER_STEP_MAP	2	/* dma_buf_map_attachment() */
#define CMABUF_IMPORTER_STEP_VMAP	3	/* dma_buf_vmap() */
#define CMABUF_IMPORTER_STEP_BEGIN_CPU	4	/* dma_buf_begin_cpu_access() */
#define CMABUF_IMPORTER_STEP_VERIFY	5	/* read the pattern of @seed_in */
#define CMABUF_IMPORTER_STEP_WRITE	6	/* write the pattern of @seed_out */
#define CMABUF_IMPORTER_STEP_END_CPU	7	/* dma_buf_end_cpu_access() */
#define CMABUF_IMPORTER_STEP_VUNMAP	8	/* dma_buf_vunmap() */
#define CMABUF_IMPORTER_STEP_UNMAP	9	/* dma_buf_unmap_attachment() */
#define CMABUF_IMPORTER_STEP_DETACH	10	/* dma_buf_detach() */
#define CMABUF_IMPORTER_STEP_COUNT	11

#define CMABUF_IMPORTER_STEP_BIT(s)	(1U << (s))

/* &cmabuf_importer_check.flags */
#define CMABUF_IMPORTER_CHECK_VERIFY	0x1U	/* run STEP_VERIFY */
#define CMABUF_IMPORTER_CHECK_WRITE	0x2U	/* run STEP_WRITE */
#define CMABUF_IMPORTER_CHECK_VALID_FLAGS \
	(CMABUF_IMPORTER_CHECK_VERIFY | CMABUF_IMPORTER_CHECK_WRITE)

/* &cmabuf_importer_hold.flags; at most one direction, else bidirectional */
#define CMABUF_IMPORTER_HOLD_MAP	0x1U	/* also keep a mapping */
#define CMABUF_IMPORTER_HOLD_TO_DEVICE	0x2U	/* map DMA_TO_DEVICE */
#define CMABUF_IMPORTER_HOLD_FROM_DEVICE 0x4U	/* map DMA_FROM_DEVICE */
#define CMABUF_IMPORTER_HOLD_VMAP	0x8U	/* also keep a vmap */
#define CMABUF_IMPORTER_HOLD_VALID_FLAGS \
	(CMABUF_IMPORTER_HOLD_MAP | CMABUF_IMPORTER_HOLD_TO_DEVICE | \
	 CMABUF_IMPORTER_HOLD_FROM_DEVICE | CMABUF_IMPORTER_HOLD_VMAP)

/* Most buffers held at once. */
#define CMABUF_IMPORTER_MAX_HOLDS	64

/**
 * struct cmabuf_importer_check - CMABUF_IMPORTER_IOC_CHECK argument
 * @fd: in: a dma-buf file descriptor.
 * @flags: in: %CMABUF_IMPORTER_CHECK_VALID_FLAGS.
 * @seed_in: in: seed of the pattern to verify (with
 *	%CMABUF_IMPORTER_CHECK_VERIFY).
 * @seed_out: in: seed of the pattern to write (with
 *	%CMABUF_IMPORTER_CHECK_WRITE).
 * @size: out: size of the dma-buf in bytes.
 * @dma_addr: out: DMA address of the first DMA segment.
 * @dma_len: out: length of the first DMA segment.
 * @dma_total: out: sum of the lengths of all DMA segments.
 * @dma_segments: out: DMA segments of the mapping (&sg_table.nents).
 * @sg_entries: out: scatterlist entries of the mapping
 *	(&sg_table.orig_nents).
 * @steps_done: out: CMABUF_IMPORTER_STEP_BIT() of each step that succeeded.
 * @failed_step: out: the step that failed, %CMABUF_IMPORTER_STEP_NONE when
 *	none did.
 * @error: out: the negative errno of @failed_step, 0 when none failed.
 * @pad: must be zero.
 * @words_checked: out: pattern words read by STEP_VERIFY.
 * @mismatches: out: pattern words that differed from the pattern.
 * @first_bad_offset: out: offset of the first differing word.
 * @first_bad_value: out: the value found there.
 *
 * All output fields must be zero on input.
 */
struct cmabuf_importer_check {
	__u32 fd;
	__u32 flags;
	__u64 seed_in;
	__u64 seed_out;
	__u64 size;
	__u64 dma_addr;
	__u64 dma_len;
	__u64 dma_total;
	__u32 dma_segments;
	__u32 sg_entries;
	__u32 steps_done;
	__u32 failed_step;
	__s32 error;
	__u32 pad;
	__u64 words_checked;
	__u64 mismatches;
	__u64 first_bad_offset;
	__u64 first_bad_value;
};

/**
 * struct cmabuf_importer_hold - CMABUF_IMPORTER_IOC_HOLD argument
 * @fd: in: a dma-buf file descriptor.
 * @flags: in: %CMABUF_IMPORTER_HOLD_VALID_FLAGS.
 * @handle: out: names the held buffer for CMABUF_IMPORTER_IOC_RELEASE;
 *	never 0.
 * @pad: must be zero.
 * @size: out: size of the dma-buf in bytes.
 * @dma_addr: out: DMA address of the mapping (with
 *	%CMABUF_IMPORTER_HOLD_MAP), else 0.
 *
 * All output fields must be zero on input.
 */
struct cmabuf_importer_hold {
	__u32 fd;
	__u32 flags;
	__u32 handle;
	__u32 pad;
	__u64 size;
	__u64 dma_addr;
};

/**
 * struct cmabuf_importer_release - CMABUF_IMPORTER_IOC_RELEASE argument
 * @handle: in: a handle from CMABUF_IMPORTER_IOC_HOLD.
 * @pad: must be zero.
 */
struct cmabuf_importer_release {
	__u32 handle;
	__u32 pad;
};

#define CMABUF_IMPORTER_IOC_MAGIC	0xBA

/**
 * DOC: CMABUF_IMPORTER_IOC_CHECK - import a dma-buf once and check it
 *
 * A step that fails is reported in @failed_step and @error, not as the
 * ioctl's error.
 *
 * Errors: EBADF for an fd that is not open; EINVAL for an fd that is not a
 * dma-buf, an unknown flag, a non-zero pad or output field; EFAULT for a
 * bad pointer.
 */
#define CMABUF_IMPORTER_IOC_CHECK \
	_IOWR(CMABUF_IMPORTER_IOC_MAGIC, 0x00, struct cmabuf_importer_check)

/**
 * DOC: CMABUF_IMPORTER_IOC_HOLD - keep a dma-buf attached
 *
 * The reference, the attachment and its mapping are kept, after every fd of
 * the buffer and of the importer is closed, until
 * CMABUF_IMPORTER_IOC_RELEASE or the module's unload.
 *
 * Errors: EBADF for an fd that is not open; EINVAL for an fd that is not a
 * dma-buf, an unknown flag, both direction flags or a direction without
 * %CMABUF_IMPORTER_HOLD_MAP, a non-zero pad or output field; ENOSPC when
 * %CMABUF_IMPORTER_MAX_HOLDS buffers are held; the error of
 * dma_buf_attach() or dma_buf_map_attachment(); ENOMEM; EFAULT for a bad
 * pointer.
 */
#define CMABUF_IMPORTER_IOC_HOLD \
	_IOWR(CMABUF_IMPORTER_IOC_MAGIC, 0x01, struct cmabuf_importer_hold)

/**
 * DOC: CMABUF_IMPORTER_IOC_RELEASE - let go of a held dma-buf
 *
 * Errors: ENOENT for a handle that is not held; EINVAL for a non-zero pad;
 * EFAULT for a bad pointer.
 */
#define CMABUF_IMPORTER_IOC_RELEASE \
	_IOW(CMABUF_IMPORTER_IOC_MAGIC, 0x02, struct cmabuf_importer_release)

#endif /* _UAPI_CMABUF_IMPORTER_H */
