// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf: moving bytes between a file and a buffer (CMABUF_IOC_RW)
 *
 * read() of a file opened O_DIRECT into a mapping of a buffer fails with
 * EFAULT: the mapping is VM_PFNMAP, and the block layer cannot pin what
 * has no struct page behind it in the page tables. The kernel can do the
 * same I/O on the buffer's own pages: they are described by bio_vecs, an
 * ITER_BVEC iov_iter goes to the file's read_iter or write_iter, and the
 * block layer hands those bio_vecs to the device as they are
 * (bio_iov_bvec_set()), without a reference or a pin. Without O_DIRECT
 * the page cache copies through kmap_local_page(), without references
 * either.
 *
 * FROZEN and COMPOUND pages have a zero reference count, so no code that
 * takes references may see them: iov_iter_get_pages2() does, for bio_vecs,
 * and NFS's, FUSE's, 9p's and ceph's direct I/O use it, as do sockets'
 * zero-copy paths. Only files whose reads and writes are known not to are
 * accepted (cmabuf_rw_file_ok()). The buffer's dma-buf is held for the
 * whole call, and the file's read_iter and write_iter are called with a
 * synchronous kiocb, which returns only once the device is done: no page
 * can go back to CMA while I/O can reach it.
 */

#define pr_fmt(fmt) "cmabuf: " fmt

#include <linux/bvec.h>
#include <linux/dma-buf.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "cmabuf.h"

/*
 * Bytes one call of read_iter or write_iter moves: a piece. Signals are
 * looked at between two; each call waits for its bios, so the device's
 * queue drains once per piece. The first piece carries the remainder of
 * the length modulo the piece, so that an O_DIRECT alignment error shows
 * before any byte moved, and the others start where it ended (a whole
 * number of MiB from the start: a multiple of any alignment).
 */
static unsigned int cmabuf_rw_piece_mib = 128;
module_param_named(rw_piece_mib, cmabuf_rw_piece_mib, uint, 0644);
MODULE_PARM_DESC(rw_piece_mib,
		 "MiB a CMABUF_IOC_RW moves between two looks at signals, 1 to 1024 (default: 128)");

#define CMABUF_RW_PIECE_MAX_MIB	1024

/*
 * A bio_vec spans at most an aligned block of MAX_ORDER_NR_PAGES pages:
 * their struct pages are contiguous whatever the memory model, as the
 * iterators' page arithmetic (bv_page + n) wants.
 */
#define CMABUF_RW_BVEC_BYTES	((u64)MAX_ORDER_NR_PAGES << PAGE_SHIFT)

static u64 cmabuf_rw_piece(void)
{
	return (u64)clamp(READ_ONCE(cmabuf_rw_piece_mib), 1U,
			  CMABUF_RW_PIECE_MAX_MIB) << 20;
}

/*
 * Files whose reads and writes take no page reference from an ITER_BVEC
 * iterator: block devices (block/fops.c: bio_iov_bvec_set() for direct
 * I/O, filemap_read() and the buffered write's copy otherwise); regular
 * files of file systems on block devices, whose direct I/O goes through
 * iomap or fs/direct-io.c (iov_iter_extract_pages(), which neither takes
 * references nor pins for bio_vecs), except FUSE's fuseblk, whose direct
 * I/O takes references; tmpfs and ramfs, which copy. Every other file is
 * refused.
 */
static bool cmabuf_rw_file_ok(struct file *file)
{
	struct inode *inode = file_inode(file);
	struct super_block *sb = inode->i_sb;

	if (S_ISBLK(inode->i_mode))
		return true;
	if (!S_ISREG(inode->i_mode))
		return false;
	if (sb->s_magic == TMPFS_MAGIC || sb->s_magic == RAMFS_MAGIC)
		return true;
	return (sb->s_type->fs_flags & FS_REQUIRES_DEV) &&
	       sb->s_magic != FUSE_SUPER_MAGIC;
}

/*
 * Describe @len bytes of the buffer that starts at page frame @pfn, from
 * its byte @offset: physically contiguous, so one bio_vec per aligned
 * block of MAX_ORDER_NR_PAGES pages it touches. Return: the bio_vecs used.
 */
static unsigned int cmabuf_rw_bvecs(struct bio_vec *bv, unsigned long pfn,
				    u64 offset, size_t len)
{
	unsigned long frame;
	unsigned int n = 0;
	size_t part, room;

	while (len) {
		frame = pfn + (offset >> PAGE_SHIFT);
		room = ((MAX_ORDER_NR_PAGES -
			 (frame & (MAX_ORDER_NR_PAGES - 1))) << PAGE_SHIFT) -
		       offset_in_page(offset);
		part = min(len, room);
		bvec_set_page(&bv[n++], pfn_to_page(frame), part,
			      offset_in_page(offset));
		offset += part;
		len -= part;
	}
	return n;
}

/*
 * Move @length bytes between @file at @pos and the buffer at page frame
 * @pfn from its byte @offset, a chunk per call of the file's read_iter
 * (@to_buffer) or write_iter. Stops at a short chunk (the end of the
 * file, or a file that took fewer), an error or a pending signal.
 *
 * Return: the bytes moved when any moved, else 0 (the end of the file)
 * or the file's error.
 */
static ssize_t cmabuf_rw_file(struct file *file, loff_t pos,
			      unsigned long pfn, u64 offset, u64 length,
			      bool to_buffer)
{
	u64 piece = cmabuf_rw_piece(), done = 0, rem;
	size_t len;
	struct iov_iter iter;
	struct kiocb kiocb;
	struct bio_vec *bv;
	ssize_t ret = 0;
	unsigned int n;

	/* One more for a piece that does not start on a block. */
	bv = kmalloc_array(div64_u64(piece, CMABUF_RW_BVEC_BYTES) + 2,
			   sizeof(*bv), GFP_KERNEL);
	if (!bv)
		return -ENOMEM;
	div64_u64_rem(length, piece, &rem);
	len = rem ?: piece;

	while (done < length) {
		n = cmabuf_rw_bvecs(bv, pfn, offset + done, len);
		iov_iter_bvec(&iter, to_buffer ? ITER_DEST : ITER_SOURCE, bv,
			      n, len);
		init_sync_kiocb(&kiocb, file);
		kiocb.ki_pos = pos + done;
		if (to_buffer)
			ret = vfs_iocb_iter_read(file, &kiocb, &iter);
		else
			ret = vfs_iocb_iter_write(file, &kiocb, &iter);
		if (ret <= 0)
			break;
		done += ret;
		if ((size_t)ret < len || signal_pending(current))
			break;
		len = piece;
		cond_resched();
	}

	kfree(bv);
	return done ? done : ret;
}

/*
 * The dma-buf's file must allow what the transfer does to the buffer, as
 * copy_file_range() asks of its two files: writing it (@to_buffer), or
 * reading it.
 */
static int cmabuf_rw_modes(struct dma_buf *dmabuf, struct file *file,
			   bool to_buffer)
{
	fmode_t buf_mode = to_buffer ? FMODE_WRITE : FMODE_READ;
	fmode_t file_mode = to_buffer ? FMODE_READ : FMODE_WRITE;

	if (!(dmabuf->file->f_mode & buf_mode) || !(file->f_mode & file_mode))
		return -EBADF;
	if (!cmabuf_rw_file_ok(file))
		return -EOPNOTSUPP;
	return 0;
}

/**
 * cmabuf_rw() - move bytes between a file and a buffer (CMABUF_IOC_RW)
 * @req: the request; its flags, pad and length are checked by the caller.
 * @done: out: bytes moved.
 *
 * Return: 0 when any byte moved or the file ended at once (@done says how
 * many), else a negative errno: see DOC: CMABUF_IOC_RW.
 */
int cmabuf_rw(const struct cmabuf_rw *req, u64 *done)
{
	bool to_buffer = req->flags & CMABUF_RW_READ;
	struct dma_buf *dmabuf;
	struct file *file;
	struct page *page;
	ssize_t ret;

	*done = 0;
	if (req->file_offset > LLONG_MAX ||
	    req->length > LLONG_MAX - req->file_offset)
		return -EINVAL;

	/* Held to the end: the pages stay the buffer's whoever closes it. */
	dmabuf = dma_buf_get(req->buf_fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	page = cmabuf_dmabuf_page(dmabuf);
	if (!page || req->buf_offset >= dmabuf->size ||
	    req->length > dmabuf->size - req->buf_offset) {
		ret = -EINVAL;
		goto put_dmabuf;
	}

	file = fget(req->file_fd);
	if (!file) {
		ret = -EBADF;
		goto put_dmabuf;
	}
	ret = cmabuf_rw_modes(dmabuf, file, to_buffer);
	if (ret)
		goto put_file;

	ret = cmabuf_dmabuf_io_begin(dmabuf, req->buf_offset, req->length,
				     to_buffer);
	if (ret)
		goto put_file;
	ret = cmabuf_rw_file(file, req->file_offset, page_to_pfn(page),
			     req->buf_offset, req->length, to_buffer);
	/* A transfer out of the buffer changed nothing in it. */
	if (to_buffer)
		cmabuf_dmabuf_io_end(dmabuf, req->buf_offset, req->length);
	if (ret > 0) {
		*done = ret;
		ret = 0;
	}

put_file:
	fput(file);
put_dmabuf:
	dma_buf_put(dmabuf);
	return ret;
}
