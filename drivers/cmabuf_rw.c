// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf: CMABUF_IOC_RW, file I/O on a buffer's pages as bio_vecs. Their
 * refcount may be zero: which files are safe is in docs/direct-io.md.
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

/* The first piece takes length % piece: O_DIRECT misalignment fails first. */
static unsigned int cmabuf_rw_piece_mib = 256;
module_param_named(rw_piece_mib, cmabuf_rw_piece_mib, uint, 0644);
MODULE_PARM_DESC(rw_piece_mib,
		 "MiB a CMABUF_IOC_RW moves between two looks at signals, 1 to 1024 (default: 256)");

#define CMABUF_RW_PIECE_MAX_MIB	1024

/* struct pages are contiguous only within a MAX_ORDER_NR_PAGES block. */
#define CMABUF_RW_BVEC_BYTES	((u64)MAX_ORDER_NR_PAGES << PAGE_SHIFT)

static u64 cmabuf_rw_piece(void)
{
	return (u64)clamp(READ_ONCE(cmabuf_rw_piece_mib), 1U,
			  CMABUF_RW_PIECE_MAX_MIB) << 20;
}

/* Files whose I/O takes no page reference from an ITER_BVEC iterator. */
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
 * Context: process; sleeps for the whole transfer.
 * Return: 0 when any byte moved or the file ended at once, else a negative
 * errno (DOC: CMABUF_IOC_RW).
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
