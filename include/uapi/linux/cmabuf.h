/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * cmabuf: physically contiguous dma-bufs from CMA
 *
 * Every instance of the driver is a misc device, /dev/cmabuf or
 * /dev/cmabuf-<label>, that allocates from one CMA area. The ioctls below
 * are issued on that device.
 *
 * All structures may grow at their end. The kernel accepts shorter (older)
 * and longer (newer) structures than its own: missing input fields read as
 * zero, and trailing input bytes it does not know must be zero.
 */
#ifndef _UAPI_LINUX_CMABUF_H
#define _UAPI_LINUX_CMABUF_H

#include <linux/ioctl.h>
#include <linux/types.h>

/**
 * DOC: allocation strategies
 *
 * %CMABUF_STRATEGY_AUTO: the best strategy this kernel, instance and request
 * allow: COMPOUND when the page count is a power of two that the area can
 * align, otherwise FROZEN, otherwise LEGACY (kernels that export cma_alloc()),
 * otherwise DMA.
 *
 * %CMABUF_STRATEGY_COMPOUND: one compound (possibly gigantic) folio from
 * cma_alloc_frozen_compound(), freed in one call by cma_release_frozen().
 * The page count must be a power of two whose order lies between
 * &cmabuf_info.min_compound_order (the CMA pageblock: the kernel cannot
 * hand out smaller compound ranges from CMA) and
 * &cmabuf_info.max_compound_order, and the buffer is aligned to its size.
 *
 * %CMABUF_STRATEGY_FROZEN: cma_alloc_frozen(), freed by cma_release_frozen()
 * through the batched free_contig_frozen_range() path.
 *
 * %CMABUF_STRATEGY_LEGACY: cma_alloc() and cma_release(), page by page
 * reference counting; the only CMA strategy of kernels that export
 * cma_alloc() but not the frozen API.
 *
 * %CMABUF_STRATEGY_DMA: dma_alloc_pages() and dma_free_pages() on the
 * instance's own device, which the kernel binds to the instance's CMA
 * region: nothing of CMA needs to be exported, so it is the strategy of
 * stock kernels that export none of it (Debian's 6.1 and 6.12). The DMA
 * API falls back to the page allocator when the area has no room, and may
 * take memory from a restricted pool: every buffer is checked to lie
 * inside the instance's region, and one that does not is freed and the
 * ALLOC fails with ENOMEM, as for a full area. The DMA API clears the
 * pages itself (so cmabuf does not clear them again) and aligns a buffer
 * to its size rounded up to a power of two, but to no more than the
 * kernel's CONFIG_CMA_ALIGNMENT pages order: a larger @align is EINVAL.
 * Offered on an instance only where the place of its region is known (a
 * "linux,cmabuf" node's memory-region; for the default instance a
 * reserved-memory node marked linux,cma-default). The device it allocates
 * on is the instance's own, with the direct mapping: a DMA buffer is
 * memory, not a mapping for any device. The default area gives single
 * pages from the page allocator, never from CMA: one-page DMA buffers of
 * the default instance fail with ENOMEM.
 */
#define CMABUF_STRATEGY_AUTO		0
#define CMABUF_STRATEGY_COMPOUND	1
#define CMABUF_STRATEGY_FROZEN		2
#define CMABUF_STRATEGY_LEGACY		3
#define CMABUF_STRATEGY_DMA		4
#define CMABUF_STRATEGY_COUNT		5

/* Bit of a strategy in &cmabuf_info.strategies. */
#define CMABUF_STRATEGY_BIT(s)		(1U << (s))

/* &cmabuf_alloc_data.flags: the strategy lives in the low byte. */
#define CMABUF_ALLOC_STRATEGY_MASK	0x000000ffU
/*
 * Write-combined CPU mappings (mmap, and the kernel's vmap for importers):
 * CPU writes go to memory without cache maintenance. Granted where the
 * instance's device is not cache-coherent (%CMABUF_INFO_WRITECOMBINE);
 * elsewhere the buffer keeps cacheable mappings, as the DMA API gives a
 * coherent device. &cmabuf_alloc_data.buf_flags says which it got.
 */
#define CMABUF_ALLOC_WRITECOMBINE	(1U << 8)
#define CMABUF_ALLOC_VALID_FLAGS	(CMABUF_ALLOC_STRATEGY_MASK | \
					 CMABUF_ALLOC_WRITECOMBINE)

/* &cmabuf_alloc_data.buf_flags: what the buffer got. */
#define CMABUF_BUF_WRITECOMBINE		(1U << 0)	/* CPU mappings are */

/*
 * &cmabuf_alloc_data.fd_flags: as for DMA_HEAP_IOCTL_ALLOC. O_CLOEXEC and
 * O_ACCMODE come from <fcntl.h>; this header does not include
 * <linux/fcntl.h>, whose struct flock clashes with the C library's.
 */
#define CMABUF_VALID_FD_FLAGS		(O_CLOEXEC | O_ACCMODE)

/* Largest &cmabuf_alloc_data.align: 1 TiB, anything above is absurd. */
#define CMABUF_ALIGN_MAX		40

/* &cmabuf_info.flags */
#define CMABUF_INFO_AREA_STATS		(1U << 0)	/* total and free are known */
/*
 * The page allocator clears every page it hands out (init_on_alloc), so
 * cmabuf does not clear new buffers again (but see
 * %CMABUF_INFO_CLEARS_FROZEN).
 */
#define CMABUF_INFO_ALLOCATOR_ZEROES	(1U << 1)
/*
 * A fault in a CPU mapping of the calling process maps a whole PMD-sized,
 * PMD-aligned stretch (2 MiB with 4 KiB pages) with one PMD entry where the
 * user address and the buffer line up modulo that size. Not set for a
 * process that turned THP off with prctl(PR_SET_THP_DISABLE); a mapping
 * marked MADV_NOHUGEPAGE gets page entries whatever this says.
 */
#define CMABUF_INFO_MMAP_PMD		(1U << 2)
/*
 * mmap() without an address picks one that lines up: at the file offset's
 * place in a PMD. Buffers of a PMD or more start on a PMD boundary (when
 * the area has such a range free), so that is where their pages are.
 */
#define CMABUF_INFO_MMAP_PLACED		(1U << 3)
/*
 * cmabuf asks the page allocator not to clear FROZEN and COMPOUND buffers
 * and clears them itself, on every CPU of the area's node and outside the
 * area's allocation lock, whatever init_on_alloc says (kernels with the
 * noinit frozen API). LEGACY buffers are cleared as
 * %CMABUF_INFO_ALLOCATOR_ZEROES says.
 */
#define CMABUF_INFO_CLEARS_FROZEN	(1U << 4)
/*
 * The instance's device is not cache-coherent (a device-tree node without
 * dma-coherent; the default instance on arm64), and CPU access that no
 * importer's mapping covers has the CPU caches cleaned and invalidated
 * through it: see DOC: CPU access. Not set where that device is coherent,
 * where nothing needs doing, nor where its mappings would bounce
 * (swiotlb=force), where nothing can be done for it.
 */
#define CMABUF_INFO_CACHE_SYNC		(1U << 5)
/* CMABUF_ALLOC_WRITECOMBINE is granted here (the same conditions). */
#define CMABUF_INFO_WRITECOMBINE	(1U << 6)

/* &cmabuf_sync.flags: DMA_BUF_SYNC_START or _END, with _READ, _WRITE or _RW. */
#define CMABUF_SYNC_VALID_FLAGS		0x7U	/* DMA_BUF_SYNC_RW | DMA_BUF_SYNC_END */

/* &cmabuf_rw.flags: exactly one direction. */
#define CMABUF_RW_READ			(1U << 0)	/* file to buffer */
#define CMABUF_RW_WRITE			(1U << 1)	/* buffer to file */
#define CMABUF_RW_VALID_FLAGS		(CMABUF_RW_READ | CMABUF_RW_WRITE)

/* &cmabuf_prepare.flags: the strategy in the low byte, as for ALLOC. */
#define CMABUF_PREPARE_WAIT		(1U << 8)
#define CMABUF_PREPARE_VALID_FLAGS	(CMABUF_ALLOC_STRATEGY_MASK | \
					 CMABUF_PREPARE_WAIT)

/* Most buffers of one kind a file may ask to have ready. */
#define CMABUF_PREPARE_MAX_COUNT	256

/* &cmabuf_info.version: the driver's version, major.minor.patch. */
#define CMABUF_VERSION_NUMBER(major, minor, patch) \
	(((major) << 16) | ((minor) << 8) | (patch))
#define CMABUF_VERSION_MAJOR(v)		((v) >> 16)
#define CMABUF_VERSION_MINOR(v)		(((v) >> 8) & 0xff)
#define CMABUF_VERSION_PATCH(v)		((v) & 0xff)

/**
 * struct cmabuf_alloc_data - CMABUF_IOC_ALLOC argument
 * @size: in: bytes wanted, rounded up to whole pages.
 * @alloc_size: out: bytes allocated, the size of the dma-buf.
 * @align: in: log2 of the physical alignment in bytes, 0 for the driver's
 *	choice (the page size, or the buffer size for COMPOUND). Alignments
 *	below the page size are raised to it.
 * @fd_flags: in: flags of the new file descriptor, %CMABUF_VALID_FD_FLAGS.
 * @flags: in: a %CMABUF_STRATEGY_* value in %CMABUF_ALLOC_STRATEGY_MASK,
 *	and %CMABUF_ALLOC_WRITECOMBINE; all other bits must be zero.
 * @strategy: out: the %CMABUF_STRATEGY_* that was used.
 * @fd: out: the dma-buf file descriptor.
 * @pad: must be zero.
 * @buf_flags: out: %CMABUF_BUF_* bits: what the buffer got.
 * @pad2: must be zero.
 */
struct cmabuf_alloc_data {
	__u64 size;
	__u64 alloc_size;
	__u32 align;
	__u32 fd_flags;
	__u32 flags;
	__u32 strategy;
	__u32 fd;
	__u32 pad;
	__u32 buf_flags;
	__u32 pad2;
};

/**
 * struct cmabuf_info - CMABUF_IOC_INFO argument
 * @area_name_ptr: in: user buffer for the CMA area's name, or 0.
 * @area_name_size: in: size of that buffer; the name is truncated to fit
 *	and always NUL-terminated.
 * @area_name_len: out: length of the full name including its NUL.
 * @total_bytes: out: size of the CMA area, 0 when unknown; known where
 *	the kernel tells (%CMABUF_INFO_AREA_STATS) and, where it does not,
 *	from the instance's reserved-memory node.
 * @free_bytes: out: bytes of the area not allocated by anyone.
 * @used_bytes: out: bytes of the area allocated by anyone.
 * @live_bytes: out: bytes held by live buffers of this instance.
 * @live_buffers: out: live buffers of this instance.
 * @page_size: out: the kernel's page size.
 * @max_compound_order: out: largest page order COMPOUND can allocate from
 *	this area on this kernel; 0 when COMPOUND is unavailable.
 * @strategies: out: %CMABUF_STRATEGY_BIT() of every strategy this kernel
 *	supports on this instance, AUTO included (DMA only where the
 *	instance knows where its area lies; the CMA strategies only where
 *	the kernel lets it reach the area).
 * @flags: out: %CMABUF_INFO_* bits.
 * @min_compound_order: out: smallest page order COMPOUND accepts; 0 when
 *	COMPOUND is unavailable.
 * @version: out: the driver's version, CMABUF_VERSION_NUMBER(); 0 from
 *	drivers that predate this field (it was a pad).
 * @dma_bits: out: the bits a device's DMA mask needs to reach every byte of
 *	the area: 32 or less for an area below 4 GiB, which any 32-bit device
 *	reaches. 0 when the kernel does not tell where the area is (the
 *	default area), and from drivers that predate this field.
 * @pmd_order: out: page order of what one PMD entry maps (2 MiB with
 *	4 KiB pages, 32 MiB with 16 KiB, 512 MiB with 64 KiB) where this
 *	kernel can map buffers with PMD entries: buffers of that size or
 *	more are placed on its boundary. 0 where it cannot, and from drivers
 *	that predate this field (it was a pad).
 */
struct cmabuf_info {
	__u64 area_name_ptr;
	__u32 area_name_size;
	__u32 area_name_len;
	__u64 total_bytes;
	__u64 free_bytes;
	__u64 used_bytes;
	__u64 live_bytes;
	__u64 live_buffers;
	__u32 page_size;
	__u32 max_compound_order;
	__u32 strategies;
	__u32 flags;
	__u32 min_compound_order;
	__u32 version;
	__u32 dma_bits;
	__u32 pmd_order;
};

/**
 * struct cmabuf_phys - CMABUF_IOC_PHYS argument
 * @fd: in: a dma-buf file descriptor exported by cmabuf.
 * @pad: must be zero.
 * @phys: out: physical address of the buffer's first byte.
 * @size: out: size of the buffer in bytes.
 */
struct cmabuf_phys {
	__u32 fd;
	__u32 pad;
	__u64 phys;
	__u64 size;
};

/**
 * struct cmabuf_prepare - CMABUF_IOC_PREPARE argument
 * @size: in: bytes of each buffer, as &cmabuf_alloc_data.size.
 * @align: in: as &cmabuf_alloc_data.align.
 * @flags: in: a %CMABUF_STRATEGY_* value in %CMABUF_ALLOC_STRATEGY_MASK,
 *	and %CMABUF_PREPARE_WAIT to return only once all are ready.
 * @count: in: buffers of this kind this file wants ready, at most
 *	%CMABUF_PREPARE_MAX_COUNT; 0 gives back those it has.
 * @timeout_ms: in: how long the buffers stay ready while no allocation
 *	takes one; 0 for the driver's default (module parameter
 *	prepare_timeout_ms). Without CAP_SYS_ADMIN at most the module
 *	parameter prepare_max_timeout_ms (default 60000): more is EPERM.
 * @ready: out: buffers of this kind ready now for this file.
 * @pad: must be zero.
 */
struct cmabuf_prepare {
	__u64 size;
	__u32 align;
	__u32 flags;
	__u32 count;
	__u32 timeout_ms;
	__u32 ready;
	__u32 pad;
};

/**
 * struct cmabuf_sync - CMABUF_IOC_SYNC argument
 * @fd: in: a dma-buf file descriptor exported by cmabuf (any instance).
 * @flags: in: DMA_BUF_SYNC_START or DMA_BUF_SYNC_END, with
 *	DMA_BUF_SYNC_READ, DMA_BUF_SYNC_WRITE or DMA_BUF_SYNC_RW, as for
 *	DMA_BUF_IOCTL_SYNC (<linux/dma-buf.h>).
 * @offset: in: first byte of the range.
 * @length: in: bytes in the range, at least 1.
 */
struct cmabuf_sync {
	__u32 fd;
	__u32 flags;
	__u64 offset;
	__u64 length;
};

/**
 * struct cmabuf_rw - CMABUF_IOC_RW argument
 * @buf_fd: in: a dma-buf file descriptor exported by cmabuf (any instance).
 * @file_fd: in: the file: a block device, or a regular file of a file
 *	system on a block device, of tmpfs or of ramfs (DOC: CMABUF_IOC_RW).
 * @file_offset: in: where in the file the transfer starts.
 * @buf_offset: in: where in the buffer the transfer starts.
 * @length: in: bytes to move, at least 1; [@buf_offset, @buf_offset +
 *	@length) must lie within the buffer.
 * @flags: in: %CMABUF_RW_READ (from the file into the buffer) or
 *	%CMABUF_RW_WRITE (from the buffer to the file); all other bits must
 *	be zero.
 * @pad: must be zero.
 * @done: out: bytes moved, from the start of the range; below @length at
 *	the end of the file, when an error or a signal stopped the transfer
 *	after some bytes, or when the file took fewer. Must be zero on input.
 */
struct cmabuf_rw {
	__u32 buf_fd;
	__u32 file_fd;
	__u64 file_offset;
	__u64 buf_offset;
	__u64 length;
	__u32 flags;
	__u32 pad;
	__u64 done;
};

#define CMABUF_IOC_MAGIC	0xB9

/**
 * DOC: CMABUF_IOC_ALLOC - allocate a zeroed contiguous dma-buf
 *
 * A buffer is one scatterlist entry, so @size may not exceed 4 GiB minus
 * one page.
 *
 * Every buffer is zero when it is handed out. It is cleared through the
 * CPU's caches; where the instance's device is not cache-coherent
 * (%CMABUF_INFO_CACHE_SYNC), those lines reach memory before any device
 * can read it: an importer's mapping cleans them (dma_buf_map_attachment),
 * and so does the first CMABUF_IOC_PHYS of the buffer, so that a device
 * driven through its address reads zeros, not a previous owner's bytes,
 * and no dirty line is left to be written back later over what it wrote.
 * A buffer no device is given costs no cleaning.
 *
 * With %CMABUF_ALLOC_WRITECOMBINE, and where the instance grants it
 * (%CMABUF_INFO_WRITECOMBINE), the buffer's cacheable alias in the kernel's
 * linear map is cleaned and invalidated before the call returns, as the
 * DMA API does for memory it remaps for a non-coherent device, and every
 * CPU mapping of the buffer is write-combined. Buffers from the instance's
 * dma-heap cannot ask for it: the dma-heap ABI has no flags to carry it.
 *
 * Errors: EINVAL for a zero or overflowing size, a size above 4 GiB minus
 * one page, an unknown flag, strategy or fd flag, an alignment above
 * %CMABUF_ALIGN_MAX, a non-zero pad or output field, a structure too short
 * to hold @fd, or a COMPOUND request whose page order is not within
 * &cmabuf_info.min_compound_order and &cmabuf_info.max_compound_order or
 * whose alignment exceeds its size, or a DMA request (or an AUTO one that
 * can only be DMA) whose alignment exceeds what the DMA API gives;
 * EOPNOTSUPP for a strategy this kernel or instance lacks; EFAULT for a
 * bad pointer; EMFILE when no file descriptor is left (checked before any
 * memory is touched); ENODEV when the device has been
 * unbound.
 *
 * EDQUOT: the caller lacks CAP_SYS_ADMIN, and the buffer would take the
 * bytes its user (real uid) holds on this instance, in live buffers and
 * in buffers it prepared (CMABUF_IOC_PREPARE), past the cap its
 * administrator set for each user (sysfs unprivileged_max_bytes, or the
 * device tree's cmabuf,unprivileged-max-bytes; none by default). Other
 * users' buffers do not count. Checked before any memory is touched:
 * nothing was allocated. A buffer counts until its last user lets go,
 * whoever holds it then, to the user that allocated it; a ready buffer
 * taken counts like any other, to its taker. Only frees, fewer prepared
 * buffers or a higher cap can help. The instance's dma-heap, whose
 * allocations run in the caller's task, refuses the same way.
 * CAP_SYS_ADMIN is the calling task's at the time of the call, for
 * ALLOC, PREPARE and the dma-heap alike: a file opened by a privileged
 * process and passed to another gives the latter no privilege.
 *
 * ENOBUFS: with the module parameter mem_accounting on, the buffer would
 * take the caller's memory cgroup past its memory.max (every buffer, and
 * every prepared one, is charged to the cgroup of the process that
 * allocates or prepares it, whoever the caller). Nothing was allocated;
 * freeing memory in the cgroup or raising its limit can help, not
 * waiting for the area.
 *
 * Before an allocation fails for want of a range, it waits for the frees
 * in flight, and buffers that files have prepared on this instance
 * (CMABUF_IOC_PREPARE) and no allocation took go back to the area, the
 * least recently used first, for it to try again; the reserve its
 * administrator set (sysfs reserve) stays. A served buffer is what the
 * allocation's plan makes first: an AUTO allocation that gets a COMPOUND
 * folio, or a buffer on a PMD boundary, when it allocates gets one from
 * the ready buffers too.
 *
 * When no range can be had, the errno says whether waiting can help:
 * ENOMEM: the area does not have @size bytes free: other buffers hold
 * them, or @size exceeds the area. Only a free can help; nothing was moved.
 * DMA also gives ENOMEM when the DMA API found no room in the area and
 * offered memory from elsewhere, which is given back.
 * EBUSY: the area has the bytes free, but no suitably aligned range of them
 * could be emptied, even after the driver tried again (module parameter
 * busy_retries): pages in every window were pinned or being migrated, or
 * other buffers split the free bytes. A later call may succeed.
 * EINTR: a fatal signal arrived while pages were being moved or the buffer
 * cleared; nothing was allocated. Other signals do not stop an allocation.
 */
#define CMABUF_IOC_ALLOC	_IOWR(CMABUF_IOC_MAGIC, 0x00, struct cmabuf_alloc_data)

/**
 * DOC: CMABUF_IOC_INFO - describe the instance and its CMA area
 *
 * Errors: EINVAL for a non-zero output field; EFAULT for a bad pointer.
 */
#define CMABUF_IOC_INFO		_IOWR(CMABUF_IOC_MAGIC, 0x01, struct cmabuf_info)

/*
 * 0x02 was CMABUF_IOC_BENCH up to cmabuf 0.1; the benchmark is now in
 * debugfs, and the number is not reused.
 */

/**
 * DOC: CMABUF_IOC_PHYS - physical address of a cmabuf dma-buf
 *
 * Needs CAP_SYS_RAWIO.
 *
 * A device driven from this address, with no importer's mapping, finds the
 * buffer's memory zero once this call returned: the first PHYS of a buffer
 * cleans what the CPU wrote to it so far, the clearing's zeros among them,
 * to memory (DOC: CMABUF_IOC_ALLOC); around the CPU's own access to the
 * buffer, the usual DMA_BUF_IOCTL_SYNC brackets (or CMABUF_IOC_SYNC's) are
 * all it needs (DOC: CPU access). Where %CMABUF_INFO_CACHE_SYNC is not
 * set, the instance's device is coherent, and cmabuf takes every device of
 * its area's buffers to be; or its mappings bounce (swiotlb=force), and no
 * cache maintenance is done: a non-coherent device cannot be driven from
 * this address then.
 *
 * Errors: EPERM without the capability; EBADF for a closed fd; EINVAL for
 * an fd that is not a dma-buf exported by cmabuf, or a non-zero pad or
 * output field; EFAULT for a bad pointer.
 */
#define CMABUF_IOC_PHYS		_IOWR(CMABUF_IOC_MAGIC, 0x03, struct cmabuf_phys)

/**
 * DOC: CMABUF_IOC_PREPARE - have buffers ready before they are asked for
 *
 * Sets how many buffers of a kind this file wants ready: the buffers an
 * ALLOC of that size, alignment and strategy would get. The instance
 * allocates them, moves the pages out of them and clears them in the
 * background; an ALLOC (on this file, another, or the instance's dma-heap)
 * that fits a ready buffer takes it at once, and the instance makes another
 * while the want stands. A second PREPARE of the same kind replaces the
 * count. Ready buffers go back to CMA when the count is set to 0, when
 * none was taken for @timeout_ms, when the file is closed, when memory
 * is short, and when an allocation from the instance (ALLOC or its
 * dma-heap) finds no room without them: a want whose buffers went is made
 * again once memory is freed or it is asked again. Every buffer handed out
 * is zero, prepared or not.
 *
 * On the kernel's default CMA area (/dev/cmabuf), where other drivers
 * allocate too (dma_alloc_coherent() of a device without an area of its
 * own) and neither wait for nor take back ready buffers, all files
 * together may have a smaller share ready: module parameter
 * prepare_default_percent (10 % by default). The instance's sysfs
 * prepare_max_bytes shows the bytes all files may have ready.
 *
 * Prepared buffers are soft: the kernel's reclaim takes them back when it
 * can use CMA's pages (for movable allocations, and kswapd's), a buffer
 * once the pages it asked for add up to one, and none is made again until
 * reclaim has left the instance alone for 5 s, whatever PREPAREs come
 * meanwhile. The administrator's reserve (sysfs) is kept instead; see
 * Documentation/ABI/testing/sysfs-class-misc-cmabuf.
 *
 * Without %CMABUF_PREPARE_WAIT the call returns at once, @ready saying how
 * many are ready; with it, once @count are: those are made at once even
 * while reclaim keeps the others waiting.
 *
 * The buffers wanted are charged at once, ready or not, to the caller as
 * its live buffers are (see ALLOC's EDQUOT and ENOBUFS): @count times
 * the buffer's size to its user's bytes under the instance's cap without
 * CAP_SYS_ADMIN, and to its memory cgroup with mem_accounting on. A
 * higher count charges the difference, a lower one, 0, the time-out, the
 * file's close or the instance's unbind give it back. A want is the
 * file's: a PREPARE of the same kind by another user or cgroup on the
 * same file (passed to it) moves the whole charge to that caller. A
 * buffer an ALLOC takes from a want is charged to its taker as well,
 * while the want, which stands, keeps its own charge.
 *
 * Errors: EINVAL as for ALLOC's request, for a @count above
 * %CMABUF_PREPARE_MAX_COUNT, an unknown flag or a non-zero @ready or @pad;
 * EOPNOTSUPP for a strategy this kernel lacks; EPERM for a @timeout_ms
 * above prepare_max_timeout_ms without CAP_SYS_ADMIN (with a @count);
 * ENOSPC when the buffers would take more of the area than one user
 * without CAP_SYS_ADMIN (all its files together) or all files together
 * may (module parameters prepare_file_percent and prepare_max_percent,
 * prepare_default_percent on the default area);
 * EDQUOT past the user's cap and ENOBUFS past the memory cgroup's limit,
 * as for ALLOC. Nothing is changed after any of these. ENOMEM without
 * memory for the request; ENODEV when the device has been unbound;
 * EFAULT. With %CMABUF_PREPARE_WAIT also: ENOMEM or EBUSY as ALLOC would
 * have failed, from the last background try (an allocation that took
 * this want's ready buffers back counts as one); EINTR on a fatal signal.
 */
#define CMABUF_IOC_PREPARE	_IOWR(CMABUF_IOC_MAGIC, 0x04, struct cmabuf_prepare)

/**
 * DOC: CPU access
 *
 * DMA_BUF_IOCTL_SYNC (and an importer's dma_buf_begin_cpu_access() and
 * dma_buf_end_cpu_access()) syncs every live mapping of the buffer for the
 * CPU or for its device, in the direction it was mapped with: under
 * swiotlb that copies the bounce buffers, on a non-coherent importer it
 * cleans or invalidates the CPU caches. While no importer has the buffer
 * mapped but CMABUF_IOC_PHYS has handed its address out (userspace drives
 * a device from it), the instance maps the buffer for its own device for
 * the length of the call and syncs through that instead (as udmabuf does
 * with its misc device): where that device is not cache-coherent
 * (%CMABUF_INFO_CACHE_SYNC), the CPU caches are cleaned at
 * DMA_BUF_SYNC_END and invalidated at DMA_BUF_SYNC_START, so the usual
 * brackets around CPU access are all a user of a non-coherent device
 * needs. A buffer no importer has mapped and whose address was never
 * handed out is in reach of no device: it gets no maintenance, as the CMA
 * heap's buffers without mappings get none. While an importer has the buffer
 * vmapped (a driver whose CPU writes it, as videobuf2's vmalloc allocator
 * does), DMA_BUF_SYNC_START first cleans the buffer's CPU caches through
 * the instance's device, then invalidates (through the importers'
 * mappings, or the instance's device), so that those writes are not
 * thrown away: also while another importer, such as a display mapped
 * DMA_BIDIRECTIONAL, has it mapped. Write-combined buffers need no CPU
 * cache maintenance and get none of that.
 *
 * The instance's device is its "linux,cmabuf" node, coherent when the node
 * (or a parent) says dma-coherent, and not when it says dma-noncoherent;
 * the default instance's has no node and is as the architecture makes
 * such devices (not coherent on arm64). A node that says dma-coherent
 * says that every device using its area's buffers snoops the CPU caches:
 * the caches are then maintained only through importers' own mappings.
 */

/**
 * DOC: CMABUF_IOC_SYNC - sync part of a buffer
 *
 * What DMA_BUF_IOCTL_SYNC does for the whole buffer (DOC: CPU access), for
 * the bytes [@offset, @offset + @length) only: for every live mapping of
 * the buffer, each of its DMA segments that overlaps the range is synced
 * for the overlap. Under swiotlb only those bytes are copied; on a
 * non-coherent device only their cache lines are maintained. Where one
 * device has the buffer mapped twice, the whole buffer is synced, as by
 * DMA_BUF_IOCTL_SYNC (DMA API debugging cannot tell which of the two
 * mappings a part belongs to). Like
 * DMA_BUF_IOCTL_SYNC, DMA_BUF_SYNC_START first waits for the fences that
 * the access conflicts with. Issued on any cmabuf instance's device node.
 *
 * Errors: EBADF for an fd that is not open; EINVAL for an fd that is not
 * a dma-buf exported by cmabuf, an unknown flag, no READ or WRITE, a zero
 * @length or a range that does not lie within the buffer; EINTR or
 * ERESTARTSYS when a signal arrived while waiting for fences; EFAULT for a
 * bad pointer.
 */
#define CMABUF_IOC_SYNC		_IOW(CMABUF_IOC_MAGIC, 0x05, struct cmabuf_sync)

/**
 * DOC: CMABUF_IOC_RW - move bytes between a file and a buffer
 *
 * What pread() into, or pwrite() from, a mapping of the buffer would do,
 * done by the kernel on the buffer's own pages: a file opened with
 * O_DIRECT is read or written by its device's DMA straight into or out
 * of the buffer, with no copy by the CPU (read() into a mapping of a
 * cmabuf buffer fails there with EFAULT: the mapping has no struct pages
 * the block layer could pin). A file opened without O_DIRECT goes through
 * the page cache as read() and write() would, one CPU copy. Issued on any
 * cmabuf instance's device node; the buffer may be any instance's.
 *
 * The file's rules apply as for pread() and pwrite() on it: O_DIRECT's
 * alignment (@file_offset, @length and @buf_offset on the device's logical
 * block and memory alignment; EINVAL otherwise, before any byte moves),
 * O_APPEND (writes go to the end), the end of a block device (a write that
 * starts there: ENOSPC), file size limits (EFBIG). Large transfers are
 * done in pieces (module parameter rw_piece_mib, 128 MiB by default); a
 * signal stops the transfer between two pieces, and @done says how many
 * bytes moved, as read() returns a short count. The call returns 0
 * whenever a byte moved: an error after that ends the transfer early,
 * and the next call from there reports it.
 *
 * Only files whose reads and writes cmabuf knows not to take references
 * on the buffer's pages are accepted (FROZEN and COMPOUND pages have none
 * to take: DOC: struct pages): block devices, and regular files of file
 * systems on block devices (not FUSE), tmpfs and ramfs. Others (network
 * file systems, FUSE, pipes, sockets, character devices) are EOPNOTSUPP.
 *
 * The transfer is CPU access in dma-buf terms, over [@buf_offset,
 * @buf_offset + @length): it begins as DMA_BUF_IOCTL_SYNC's
 * DMA_BUF_SYNC_START does (waiting for the fences it conflicts with, then
 * syncing every importer's mapping, or the instance's device once PHYS
 * handed the address out, for the CPU), with DMA_BUF_SYNC_WRITE for READ
 * and DMA_BUF_SYNC_READ for WRITE, and a READ ends as DMA_BUF_SYNC_END
 * does (a WRITE changed nothing in the buffer). Around it no other
 * bracket is needed. The buffer stays
 * allocated until the call returns, whatever else closes it.
 *
 * Errors: EBADF when either fd is not open, when @file_fd is not open for
 * reading (READ) or writing (WRITE), or when @buf_fd's dma-buf is not open
 * for writing (READ: a read-only buffer) or reading (WRITE); EINVAL for an
 * fd that is not a dma-buf exported by cmabuf, an unknown flag, not
 * exactly one direction, a non-zero @pad or @done, a zero @length, a range
 * not within the buffer, a file range past the largest file offset, a
 * structure too short to hold @done, or O_DIRECT's alignment;
 * EOPNOTSUPP for a file of a kind not listed above; EINTR or ERESTARTSYS
 * when a signal arrived while waiting for fences; ENOMEM; EFAULT for a bad
 * pointer; and the errors of the file's own reads and writes (EIO,
 * ENOSPC, EFBIG, EPERM for a read-only block device, ...) when no byte
 * moved.
 */
#define CMABUF_IOC_RW		_IOWR(CMABUF_IOC_MAGIC, 0x06, struct cmabuf_rw)

/**
 * DOC: DMA mask
 *
 * A device that maps buffers without an IOMMU's translation (the direct
 * mapping, with or without swiotlb) must reach the buffer with its DMA
 * mask: dma_buf_map_attachment() fails with ERANGE for a buffer that lies
 * beyond it, rather than bouncing a contiguous buffer through swiotlb (the
 * importer's errno may differ: V4L2's videobuf2 turns it into EINVAL).
 * The kernel log names the device, the buffer's end and the mask, and the
 * instance whose area the device reaches (one refusal every 5 seconds at
 * most); sysfs counts every refusal in stats/unreachable_maps.
 * &cmabuf_info.dma_bits says which masks reach an area. Through an IOMMU
 * any buffer can be mapped.
 */

/**
 * DOC: struct pages
 *
 * An importer gets DMA addresses. The struct pages of its scatterlist
 * (sg_page()) are the exporter's, as the dma-buf rules say for every
 * exporter: those of FROZEN and COMPOUND buffers (AUTO's choice wherever
 * the kernel has them) have a reference count of zero from allocation to
 * release, which cmabuf never raises. An importer must not take a page
 * reference there (get_page(), folio_get(), vm_insert_page()): one that
 * takes one and drops it gives part of a live buffer back to the page
 * allocator. A kernel built with CONFIG_DMABUF_DEBUG (the test bed's
 * debug kernel) hands importers a copy of the scatterlist without the
 * pages, so that such an importer fails at once, at its first sg_page().
 * LEGACY buffers' pages carry one reference each, cma_alloc()'s: an
 * importer that cannot be fixed needs LEGACY buffers, and cma_release()
 * still warns ("pages are still in use") if it keeps a reference past the
 * buffer's release.
 */

#endif /* _UAPI_LINUX_CMABUF_H */
