// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf_rw_test: bytes moved between files and buffers (CMABUF_IOC_RW).
 *
 *  - mapping: what users hit without it: read() and write() of a file
 *    opened O_DIRECT fail with EFAULT on a mapping of a cmabuf buffer
 *    (VM_IO | VM_PFNMAP: nothing the block layer can pin), while the same
 *    calls on anonymous memory work;
 *  - rw: for every strategy (and a write-combined buffer), with a block
 *    device and an ext4 file opened O_DIRECT, an ext4 file through the
 *    page cache and a tmpfs file: whole buffers and ranges, both ways,
 *    equal byte for byte, what lies outside the range untouched; reads at
 *    and past the end of the file;
 *  - rw_args: every error: flags, pads, lengths, ranges, structure sizes,
 *    fds that are not what the call needs, files of kinds it refuses,
 *    read-only buffers and files, O_DIRECT's alignment, the end and the
 *    read-only state of a block device;
 *  - rw_life: a signal stops a long transfer between two pieces with a
 *    count; the buffer's fd closed, its process killed, its instance
 *    unbound while the transfer runs: the bytes are right, and the buffer
 *    goes back to its area once its last user let go.
 *
 * Every fixture leaves every instance's counters and CMA area as it found
 * them. The guest says where the files are (tests/suites/rw.sh):
 *   CMABUF_RW_BLOCK  a block device the test may overwrite (the raw
 *                    virtio-blk disk), absent: the block cases SKIP;
 *   CMABUF_RW_FS     a directory on ext4 for the file cases, absent: SKIP.
 * tmpfs is /tmp.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <linux/dma-heap.h>
#include <linux/fs.h>

#include "kselftest_harness.h"
#include "cmabuf_test_util.h"
#include "reliability_util.h"

#define DEV_DEFAULT	"/dev/cmabuf"
#define DEV_GENERAL	"/dev/cmabuf-general"
#define DEV_LARGE	"/dev/cmabuf-large"
#define SYSTEM_HEAP	"/dev/dma_heap/system"

#define SZ_512		512ULL
#define SZ_16M		0x01000000ULL
#define SZ_8M		0x00800000ULL

/*
 * Bytes the driver moves per call of read_iter (its module parameter
 * rw_piece_mib, which suites/rw.sh sets low so that 16 MiB buffers hold
 * two pieces), and so between two looks at signals.
 */
static __u64 piece(void)
{
	unsigned long long mib = 0;

	if (rel_read_ull("/sys/module/cmabuf/parameters/rw_piece_mib", &mib) ||
	    !mib)
		mib = 128;
	return mib << 20;
}

/* Why a test of @len bytes cannot span two pieces, or NULL. */
#define PIECE_TOO_BIG(len)						\
	(piece() >= (len) ?						\
	 "rw_piece_mib too large for two pieces here (suites/rw.sh sets 4)" : NULL)

/* A 64 MiB transfer under KASAN takes long. */
#define TIMEOUT		600

enum rw_kind {
	RW_BLOCK,		/* the raw disk, O_DIRECT */
	RW_EXT4_DIRECT,		/* a file on ext4, O_DIRECT */
	RW_EXT4_BUFFERED,	/* a file on ext4, the page cache */
	RW_TMPFS,		/* a file on tmpfs */
};

static const char *const kind_names[] = {
	[RW_BLOCK] = "block device, O_DIRECT",
	[RW_EXT4_DIRECT] = "ext4 file, O_DIRECT",
	[RW_EXT4_BUFFERED] = "ext4 file, page cache",
	[RW_TMPFS] = "tmpfs file",
};

/**
 * struct rw_file - the file side of a transfer
 * @fd: open read-write, -1 when closed.
 * @kind: what it is.
 * @path: a regular file's path, removed at close; empty for the device.
 * @dev_size: a block device's size in bytes.
 */
struct rw_file {
	int fd;
	enum rw_kind kind;
	char path[PATH_MAX];
	__u64 dev_size;
};

static size_t page_size(void)
{
	return getpagesize();
}

/* A file of @kind, opened read-write (@extra_flags added): 0, or a reason. */
static const char *rw_file_open(struct rw_file *f, enum rw_kind kind,
				int extra_flags)
{
	const char *dir = NULL, *env;
	int flags = O_RDWR | O_CLOEXEC | extra_flags;

	f->fd = -1;
	f->kind = kind;
	f->path[0] = '\0';
	f->dev_size = 0;
	switch (kind) {
	case RW_BLOCK:
		env = getenv("CMABUF_RW_BLOCK");
		if (!env || !*env)
			return "no block device to overwrite (CMABUF_RW_BLOCK)";
		f->fd = open(env, flags | O_DIRECT);
		if (f->fd < 0)
			return "the block device does not open";
		if (ioctl(f->fd, BLKGETSIZE64, &f->dev_size))
			return "BLKGETSIZE64 fails";
		return NULL;
	case RW_EXT4_DIRECT:
	case RW_EXT4_BUFFERED:
		if (kind == RW_EXT4_DIRECT)
			flags |= O_DIRECT;
		dir = getenv("CMABUF_RW_FS");
		if (!dir || !*dir)
			return "no ext4 directory (CMABUF_RW_FS)";
		break;
	case RW_TMPFS:
		dir = "/tmp";
		break;
	}
	snprintf(f->path, sizeof(f->path), "%s/cmabuf_rw_test.%d", dir,
		 getpid());
	f->fd = open(f->path, flags | O_CREAT | O_TRUNC, 0600);
	if (f->fd < 0)
		return "the file does not open";
	return NULL;
}

static void rw_file_close(struct rw_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (f->path[0])
		unlink(f->path);
	f->path[0] = '\0';
}

/* The 64-bit word of pattern @seed at word index @i. */
static __u64 pattern_word(__u64 seed, __u64 i)
{
	__u64 z = seed * 0x9e3779b97f4a7c15ULL + i + 1;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* @len bytes of pattern @seed from its byte @pos (both multiples of 8). */
static void pattern_fill(void *p, size_t len, __u64 seed, __u64 pos)
{
	__u64 *w = p;
	size_t i;

	for (i = 0; i < len / 8; i++)
		w[i] = pattern_word(seed, pos / 8 + i);
}

/* The first byte of @p that is not pattern @seed from @pos, or @len. */
static size_t pattern_check(const void *p, size_t len, __u64 seed, __u64 pos)
{
	const __u64 *w = p;
	size_t i;

	for (i = 0; i < len / 8; i++)
		if (w[i] != pattern_word(seed, pos / 8 + i))
			return i * 8;
	return len;
}

/* Memory O_DIRECT can use, NULL (errno set) when there is none. */
static void *anon_alloc(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * Write pattern @seed from its byte @pos, @len bytes, to @f at @off, from
 * anonymous memory (which O_DIRECT takes): 0 or the errno.
 */
static int file_fill(const struct rw_file *f, __u64 off, size_t len,
		     __u64 seed, __u64 pos)
{
	size_t piece = 4 * SZ_1M, done = 0, n;
	void *tmp = anon_alloc(piece);
	ssize_t w;
	int ret = 0;

	if (!tmp)
		return errno;
	while (done < len && !ret) {
		n = len - done < piece ? len - done : piece;
		pattern_fill(tmp, n, seed, pos + done);
		w = pwrite(f->fd, tmp, n, off + done);
		if (w != (ssize_t)n)
			ret = w < 0 ? errno : EIO;
		done += n;
	}
	munmap(tmp, piece);
	return ret;
}

/*
 * Read @len bytes of @f at @off into anonymous memory and compare them
 * with pattern @seed from @pos: the first byte that differs, @len when
 * none does, or (size_t)-1 when the read fails.
 */
static size_t file_check(const struct rw_file *f, __u64 off, size_t len,
			 __u64 seed, __u64 pos)
{
	size_t piece = 4 * SZ_1M, done = 0, n, bad;
	void *tmp = anon_alloc(piece);

	if (!tmp)
		return (size_t)-1;
	while (done < len) {
		n = len - done < piece ? len - done : piece;
		if (pread(f->fd, tmp, n, off + done) != (ssize_t)n)
			break;
		bad = pattern_check(tmp, n, seed, pos + done);
		if (bad < n) {
			done += bad;
			break;
		}
		done += n;
	}
	munmap(tmp, piece);
	return done;
}

/* CMABUF_IOC_RW on @dev: 0 or the errno; @done gets &cmabuf_rw.done. */
static int do_rw(int dev, int buf, int file, __u64 file_offset,
		 __u64 buf_offset, __u64 length, __u32 flags, __u64 *done)
{
	struct cmabuf_rw r = {
		.buf_fd = buf,
		.file_fd = file,
		.file_offset = file_offset,
		.buf_offset = buf_offset,
		.length = length,
		.flags = flags,
	};
	int ret = cmabuf_ioctl(dev, CMABUF_IOC_RW, &r);

	if (done)
		*done = r.done;
	return ret;
}

/* A buffer of @size with @strategy and @alloc_flags: its fd, or -errno. */
static int buf_alloc(int dev, __u64 size, __u32 strategy, __u32 alloc_flags,
		     __u32 fd_flags, __u32 *buf_flags)
{
	struct cmabuf_alloc_data d = {
		.size = size,
		.fd_flags = fd_flags,
		.flags = strategy | alloc_flags,
	};
	int err = cmabuf_ioctl(dev, CMABUF_IOC_ALLOC, &d);

	if (err)
		return -err;
	if (buf_flags)
		*buf_flags = d.buf_flags;
	return d.fd;
}

/**
 * struct rw_state - what a fixture must leave as it found it
 * @inst: every instance of the driver.
 * @count: entries of @inst.
 * @base: their counters and CMA areas at the start.
 */
struct rw_state {
	struct rel_instance inst[REL_MAX_INSTANCES];
	unsigned int count;
	struct rel_snapshot base;
};

static void state_begin(struct __test_metadata *_metadata,
			struct rw_state *st)
{
	rel_debugfs_mount();
	ASSERT_EQ(0, rel_instances(st->inst, REL_MAX_INSTANCES, &st->count));
	ASSERT_EQ(0, rel_snapshot_take(st->inst, st->count, &st->base));
}

static void state_end(struct __test_metadata *_metadata,
		      struct rw_state *st)
{
	struct rel_snapshot now;
	char why[256] = "";

	if (!st->count)
		return;
	EXPECT_EQ(0, rel_snapshot_settle(st->inst, st->count, &st->base,
					 REL_SETTLE_MS, &now, why,
					 sizeof(why)))
		TH_LOG("%s", why);
}

/* ---- mapping: the problem, on the mapping users have today ---- */

FIXTURE(mapping) {
	struct rw_state st;
	struct rw_file f;
	int dev, buf;
	void *map, *anon;
	size_t len;
};

FIXTURE_SETUP(mapping)
{
	const char *why;

	self->dev = -1;
	self->buf = -1;
	self->map = NULL;
	self->anon = NULL;
	self->len = SZ_1M;
	state_begin(_metadata, &self->st);
	why = rw_file_open(&self->f, RW_BLOCK, 0);
	if (why)
		SKIP(return, "%s", why);
	self->dev = open(DEV_GENERAL, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->dev);
	self->buf = buf_alloc(self->dev, self->len, CMABUF_STRATEGY_AUTO, 0,
			      O_RDWR | O_CLOEXEC, NULL);
	ASSERT_LE(0, self->buf);
	self->map = cmabuf_map(self->buf, self->len, 0);
	ASSERT_NE(MAP_FAILED, self->map);
	self->anon = anon_alloc(self->len);
	ASSERT_NE(NULL, self->anon);
}

FIXTURE_TEARDOWN(mapping)
{
	if (self->map && self->map != MAP_FAILED)
		munmap(self->map, self->len);
	if (self->anon)
		munmap(self->anon, self->len);
	if (self->buf >= 0)
		close(self->buf);
	if (self->dev >= 0)
		close(self->dev);
	rw_file_close(&self->f);
	state_end(_metadata, &self->st);
}

/*
 * read() of a block device opened O_DIRECT into a cmabuf mapping: EFAULT,
 * the block layer finds no page to pin behind a VM_PFNMAP mapping; the
 * same read into anonymous memory moves every byte.
 */
TEST_F(mapping, odirect_read_into_mapping_efault)
{
	ASSERT_EQ(0, file_fill(&self->f, 0, self->len, 11, 0));
	EXPECT_EQ(-1, pread(self->f.fd, self->map, self->len, 0));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ((ssize_t)self->len,
		  pread(self->f.fd, self->anon, self->len, 0));
	EXPECT_EQ(self->len, pattern_check(self->anon, self->len, 11, 0));
}

/* The same for write(): the data cannot leave a mapping by O_DIRECT. */
TEST_F(mapping, odirect_write_from_mapping_efault)
{
	pattern_fill(self->map, self->len, 12, 0);
	EXPECT_EQ(-1, pwrite(self->f.fd, self->map, self->len, 0));
	EXPECT_EQ(EFAULT, errno);
	pattern_fill(self->anon, self->len, 12, 0);
	EXPECT_EQ((ssize_t)self->len,
		  pwrite(self->f.fd, self->anon, self->len, 0));
	EXPECT_EQ(self->len, file_check(&self->f, 0, self->len, 12, 0));
}

/* And CMABUF_IOC_RW does what the read could not. */
TEST_F(mapping, rw_ioctl_reads_what_read_could_not)
{
	__u64 done = 0;

	ASSERT_EQ(0, file_fill(&self->f, 0, self->len, 13, 0));
	ASSERT_EQ(0, do_rw(self->dev, self->buf, self->f.fd, 0, 0, self->len,
			   CMABUF_RW_READ, &done));
	EXPECT_EQ(self->len, done);
	EXPECT_EQ(self->len, pattern_check(self->map, self->len, 13, 0));
}

/* ---- rw: byte for byte, every strategy and file ---- */

FIXTURE(rw) {
	struct rw_state st;
	struct rw_file f;
	int dev, buf;
	__u8 *map;
	size_t size;
	__u32 buf_flags;
};

FIXTURE_VARIANT(rw) {
	const char *path;
	__u32 strategy;
	__u32 alloc_flags;
	enum rw_kind kind;
};

FIXTURE_VARIANT_ADD(rw, compound_block) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_COMPOUND, .kind = RW_BLOCK,
};

FIXTURE_VARIANT_ADD(rw, frozen_block) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_FROZEN, .kind = RW_BLOCK,
};

FIXTURE_VARIANT_ADD(rw, legacy_block) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_LEGACY, .kind = RW_BLOCK,
};

FIXTURE_VARIANT_ADD(rw, dma_block) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_DMA, .kind = RW_BLOCK,
};

FIXTURE_VARIANT_ADD(rw, auto_block) {
	.path = DEV_LARGE, .strategy = CMABUF_STRATEGY_AUTO, .kind = RW_BLOCK,
};

FIXTURE_VARIANT_ADD(rw, compound_ext4_direct) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_COMPOUND, .kind = RW_EXT4_DIRECT,
};

FIXTURE_VARIANT_ADD(rw, frozen_ext4_direct) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_FROZEN, .kind = RW_EXT4_DIRECT,
};

FIXTURE_VARIANT_ADD(rw, legacy_ext4_direct) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_LEGACY, .kind = RW_EXT4_DIRECT,
};

FIXTURE_VARIANT_ADD(rw, dma_ext4_direct) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_DMA, .kind = RW_EXT4_DIRECT,
};

FIXTURE_VARIANT_ADD(rw, compound_ext4_buffered) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_COMPOUND, .kind = RW_EXT4_BUFFERED,
};

FIXTURE_VARIANT_ADD(rw, frozen_ext4_buffered) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_FROZEN, .kind = RW_EXT4_BUFFERED,
};

FIXTURE_VARIANT_ADD(rw, legacy_ext4_buffered) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_LEGACY, .kind = RW_EXT4_BUFFERED,
};

FIXTURE_VARIANT_ADD(rw, dma_ext4_buffered) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_DMA, .kind = RW_EXT4_BUFFERED,
};

FIXTURE_VARIANT_ADD(rw, compound_tmpfs) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_COMPOUND, .kind = RW_TMPFS,
};

FIXTURE_VARIANT_ADD(rw, frozen_tmpfs) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_FROZEN, .kind = RW_TMPFS,
};

FIXTURE_VARIANT_ADD(rw, legacy_tmpfs) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_LEGACY, .kind = RW_TMPFS,
};

FIXTURE_VARIANT_ADD(rw, dma_tmpfs) {
	.path = DEV_GENERAL, .strategy = CMABUF_STRATEGY_DMA, .kind = RW_TMPFS,
};

/* Write-combined where granted: a copy goes through the cacheable alias. */
FIXTURE_VARIANT_ADD(rw, wc_frozen_block) {
	.path = DEV_DEFAULT, .strategy = CMABUF_STRATEGY_FROZEN, .kind = RW_BLOCK,
	.alloc_flags = CMABUF_ALLOC_WRITECOMBINE,
};

FIXTURE_VARIANT_ADD(rw, wc_frozen_tmpfs) {
	.path = DEV_DEFAULT, .strategy = CMABUF_STRATEGY_FROZEN, .kind = RW_TMPFS,
	.alloc_flags = CMABUF_ALLOC_WRITECOMBINE,
};

FIXTURE_VARIANT_ADD(rw, wc_legacy_ext4_buffered) {
	.path = DEV_DEFAULT, .strategy = CMABUF_STRATEGY_LEGACY, .kind = RW_EXT4_BUFFERED,
	.alloc_flags = CMABUF_ALLOC_WRITECOMBINE,
};

FIXTURE_SETUP(rw)
{
	struct cmabuf_info info;
	const char *why;

	self->dev = -1;
	self->buf = -1;
	self->map = NULL;
	self->size = SZ_16M;
	state_begin(_metadata, &self->st);
	why = rw_file_open(&self->f, variant->kind, 0);
	if (why)
		SKIP(return, "%s: %s", kind_names[variant->kind], why);
	self->dev = open(variant->path, O_RDWR | O_CLOEXEC);
	if (self->dev < 0 && !strcmp(variant->path, DEV_DEFAULT))
		SKIP(return, "no %s on this kernel", DEV_DEFAULT);
	ASSERT_LE(0, self->dev) TH_LOG("%s: %s", variant->path, strerror(errno));
	ASSERT_EQ(0, cmabuf_get_info(self->dev, &info, NULL, 0));
	if (!cmabuf_strategy_supported(&info, variant->strategy))
		SKIP(return, "%s is not supported here (strategies %#x)",
		     cmabuf_strategy_name(variant->strategy), info.strategies);
	/* COMPOUND's smallest buffer is a pageblock (32 MiB with 16 KiB pages). */
	if (variant->strategy == CMABUF_STRATEGY_COMPOUND &&
	    ((size_t)info.page_size << info.min_compound_order) > self->size)
		self->size = (size_t)info.page_size << info.min_compound_order;
	if (variant->strategy == CMABUF_STRATEGY_COMPOUND &&
	    !cmabuf_compound_fits(&info, self->size))
		SKIP(return, "COMPOUND of %zu bytes does not fit %s", self->size,
		     variant->path);
	if (variant->alloc_flags & CMABUF_ALLOC_WRITECOMBINE &&
	    !(info.flags & CMABUF_INFO_WRITECOMBINE))
		SKIP(return, "%s grants no write-combined buffers", variant->path);
	self->buf = buf_alloc(self->dev, self->size, variant->strategy,
			      variant->alloc_flags, O_RDWR | O_CLOEXEC,
			      &self->buf_flags);
	ASSERT_LE(0, self->buf) TH_LOG("ALLOC %s: %s",
				       cmabuf_strategy_name(variant->strategy),
				       strerror(-self->buf));
	if (variant->alloc_flags & CMABUF_ALLOC_WRITECOMBINE)
		ASSERT_NE(0U, self->buf_flags & CMABUF_BUF_WRITECOMBINE);
	self->map = cmabuf_map(self->buf, self->size, 0);
	ASSERT_NE(MAP_FAILED, self->map);
	TH_LOG("%s buffer of %s, %s", cmabuf_strategy_name(variant->strategy),
	       variant->path, kind_names[variant->kind]);
}

FIXTURE_TEARDOWN(rw)
{
	if (self->map && self->map != MAP_FAILED)
		munmap(self->map, self->size);
	if (self->buf >= 0)
		close(self->buf);
	if (self->dev >= 0)
		close(self->dev);
	rw_file_close(&self->f);
	state_end(_metadata, &self->st);
}

/* The whole file range lands in the whole buffer, byte for byte. */
TEST_F_TIMEOUT(rw, read_whole_buffer_equals_file, TIMEOUT)
{
	__u64 foff = SZ_1M, done = 0;

	pattern_fill(self->map, self->size, 2, 0);
	ASSERT_EQ(0, file_fill(&self->f, foff, self->size, 1, foff));
	ASSERT_EQ(0, do_rw(self->dev, self->buf, self->f.fd, foff, 0,
			   self->size, CMABUF_RW_READ, &done));
	EXPECT_EQ(self->size, done);
	EXPECT_EQ(self->size, pattern_check(self->map, self->size, 1, foff));
}

/* The whole buffer lands in the file, byte for byte. */
TEST_F_TIMEOUT(rw, write_whole_buffer_equals_buffer, TIMEOUT)
{
	__u64 foff = 2 * SZ_1M, done = 0;

	ASSERT_EQ(0, file_fill(&self->f, foff, self->size, 4, 0));
	pattern_fill(self->map, self->size, 3, 0);
	ASSERT_EQ(0, do_rw(self->dev, self->buf, self->f.fd, foff, 0,
			   self->size, CMABUF_RW_WRITE, &done));
	EXPECT_EQ(self->size, done);
	EXPECT_EQ(self->size, file_check(&self->f, foff, self->size, 3, 0));
	/* And nothing of the buffer changed. */
	EXPECT_EQ(self->size, pattern_check(self->map, self->size, 3, 0));
}

/*
 * A range that starts inside a page and spans two pieces (the odd one
 * first): the range is the file's, the bytes around it are the buffer's.
 */
TEST_F_TIMEOUT(rw, read_range_leaves_the_rest, TIMEOUT)
{
	__u64 boff = 3 * page_size() + 3 * SZ_512;
	__u64 foff = 7 * page_size() + SZ_512;
	__u64 len = piece() + SZ_1M + 5 * SZ_512, done = 0;

	if (PIECE_TOO_BIG(SZ_8M))
		SKIP(return, "%s", PIECE_TOO_BIG(SZ_8M));
	pattern_fill(self->map, self->size, 5, 0);
	ASSERT_EQ(0, file_fill(&self->f, 0, foff + len + SZ_1M, 6, 0));
	ASSERT_EQ(0, do_rw(self->dev, self->buf, self->f.fd, foff, boff, len,
			   CMABUF_RW_READ, &done));
	EXPECT_EQ(len, done);
	EXPECT_EQ(boff, pattern_check(self->map, boff, 5, 0));
	EXPECT_EQ(len, pattern_check(self->map + boff, len, 6, foff));
	EXPECT_EQ(self->size - boff - len,
		  pattern_check(self->map + boff + len,
				self->size - boff - len, 5, boff + len));
}

/* The same out of the buffer: the file around the range keeps its bytes. */
TEST_F_TIMEOUT(rw, write_range_leaves_the_rest_of_the_file, TIMEOUT)
{
	__u64 boff = 5 * page_size() + SZ_512;
	__u64 foff = 3 * page_size() + 7 * SZ_512;
	__u64 len = piece() + 2 * SZ_1M + 3 * SZ_512, done = 0;
	__u64 end = foff + len + SZ_1M;

	if (PIECE_TOO_BIG(SZ_8M))
		SKIP(return, "%s", PIECE_TOO_BIG(SZ_8M));
	pattern_fill(self->map, self->size, 7, 0);
	ASSERT_EQ(0, file_fill(&self->f, 0, end, 8, 0));
	ASSERT_EQ(0, do_rw(self->dev, self->buf, self->f.fd, foff, boff, len,
			   CMABUF_RW_WRITE, &done));
	EXPECT_EQ(len, done);
	EXPECT_EQ(foff, file_check(&self->f, 0, foff, 8, 0));
	EXPECT_EQ(len, file_check(&self->f, foff, len, 7, boff));
	EXPECT_EQ(end - foff - len,
		  file_check(&self->f, foff + len, end - foff - len, 8,
			     foff + len));
}

/*
 * Reading across the end of the file moves what there is, as read()
 * does: a file whose size is not a whole number of blocks, or the last
 * blocks of the device.
 */
TEST_F_TIMEOUT(rw, read_across_the_end_is_short, TIMEOUT)
{
	__u64 fsize = SZ_1M + 3 * SZ_512 + 40, foff = 0, want, done = 0;
	__u64 len = 2 * SZ_1M;

	if (self->f.kind == RW_BLOCK) {
		foff = self->f.dev_size - 4 * SZ_512;
		want = 4 * SZ_512;
		ASSERT_EQ(0, file_fill(&self->f, foff, want, 9, 0));
	} else {
		/* The tail through a descriptor without O_DIRECT. */
		int fd = open(self->f.path, O_WRONLY | O_CLOEXEC);
		void *tmp = anon_alloc(fsize + 8);

		ASSERT_LE(0, fd);
		ASSERT_NE(NULL, tmp);
		pattern_fill(tmp, fsize + 8, 9, 0);
		ASSERT_EQ((ssize_t)fsize, pwrite(fd, tmp, fsize, 0));
		close(fd);
		munmap(tmp, fsize + 8);
		want = fsize;
	}
	pattern_fill(self->map, self->size, 10, 0);
	ASSERT_EQ(0, do_rw(self->dev, self->buf, self->f.fd, foff, 0, len,
			   CMABUF_RW_READ, &done));
	EXPECT_EQ(want, done);
	EXPECT_EQ(want & ~7ULL, pattern_check(self->map, want & ~7ULL, 9, 0));
	/* Past the range asked for nothing changed. */
	EXPECT_EQ(self->size - len,
		  pattern_check(self->map + len, self->size - len, 10, len));
}

/* Reading from the end of the file on moves nothing, and says so. */
TEST_F(rw, read_past_the_end_moves_nothing)
{
	__u64 foff = SZ_1M, done = 1;

	if (self->f.kind == RW_BLOCK)
		foff = self->f.dev_size;
	else
		ASSERT_EQ(0, file_fill(&self->f, 0, SZ_1M, 1, 0));
	pattern_fill(self->map, self->size, 14, 0);
	ASSERT_EQ(0, do_rw(self->dev, self->buf, self->f.fd, foff, 0, SZ_1M,
			   CMABUF_RW_READ, &done));
	EXPECT_EQ(0ULL, done);
	EXPECT_EQ(self->size, pattern_check(self->map, self->size, 14, 0));
}

/*
 * Out of one buffer into the file and back into another: both the same,
 * and the second's pages are its own (the first one freed meanwhile).
 */
TEST_F_TIMEOUT(rw, round_trip_through_the_file, TIMEOUT)
{
	__u64 done = 0;
	__u8 *map2;
	int buf2;

	pattern_fill(self->map, self->size, 15, 0);
	ASSERT_EQ(0, do_rw(self->dev, self->buf, self->f.fd, 0, 0, self->size,
			   CMABUF_RW_WRITE, &done));
	ASSERT_EQ(self->size, done);
	munmap(self->map, self->size);
	self->map = NULL;
	close(self->buf);
	self->buf = -1;

	buf2 = buf_alloc(self->dev, self->size, variant->strategy,
			 variant->alloc_flags, O_RDWR | O_CLOEXEC, NULL);
	ASSERT_LE(0, buf2);
	map2 = cmabuf_map(buf2, self->size, 0);
	ASSERT_NE(MAP_FAILED, map2);
	EXPECT_EQ(self->size, cmabuf_first_nonzero(map2, self->size));
	EXPECT_EQ(0, do_rw(self->dev, buf2, self->f.fd, 0, 0, self->size,
			   CMABUF_RW_READ, &done));
	EXPECT_EQ(self->size, done);
	EXPECT_EQ(self->size, pattern_check(map2, self->size, 15, 0));
	munmap(map2, self->size);
	close(buf2);
}

/* ---- rw_args: every refusal, and nothing moved by one ---- */

FIXTURE(rw_args) {
	struct rw_state st;
	struct rw_file f;
	int dev, buf;
	__u8 *map;
	size_t size;
};

FIXTURE_SETUP(rw_args)
{
	self->dev = -1;
	self->buf = -1;
	self->map = NULL;
	self->size = SZ_1M;
	state_begin(_metadata, &self->st);
	ASSERT_EQ(NULL, rw_file_open(&self->f, RW_TMPFS, 0));
	ASSERT_EQ(0, file_fill(&self->f, 0, 2 * self->size, 21, 0));
	self->dev = open(DEV_GENERAL, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->dev);
	self->buf = buf_alloc(self->dev, self->size, CMABUF_STRATEGY_AUTO, 0,
			      O_RDWR | O_CLOEXEC, NULL);
	ASSERT_LE(0, self->buf);
	self->map = cmabuf_map(self->buf, self->size, 0);
	ASSERT_NE(MAP_FAILED, self->map);
	pattern_fill(self->map, self->size, 22, 0);
}

FIXTURE_TEARDOWN(rw_args)
{
	/* No refusal touched the buffer. */
	if (self->map && self->map != MAP_FAILED) {
		EXPECT_EQ(self->size,
			  pattern_check(self->map, self->size, 22, 0));
		munmap(self->map, self->size);
	}
	if (self->buf >= 0)
		close(self->buf);
	if (self->dev >= 0)
		close(self->dev);
	rw_file_close(&self->f);
	state_end(_metadata, &self->st);
}

/* A READ of the whole buffer @buf from the start of @file. */
static struct cmabuf_rw rw_req(int buf, int file, __u64 len)
{
	struct cmabuf_rw r = {
		.buf_fd = buf,
		.file_fd = file,
		.length = len,
		.flags = CMABUF_RW_READ,
	};

	return r;
}

/* What a refused call gets, @done never written. */
#define EXPECT_REFUSED(err, r) do {					\
	struct cmabuf_rw _r = (r);					\
	EXPECT_EQ(err, cmabuf_ioctl(self->dev, CMABUF_IOC_RW, &_r));	\
	EXPECT_EQ(0ULL, _r.done);						\
} while (0)

TEST_F(rw_args, flags_einval)
{
	struct cmabuf_rw r = rw_req(self->buf, self->f.fd, self->size);

	r.flags = 0;
	EXPECT_REFUSED(EINVAL, r);
	r.flags = CMABUF_RW_READ | CMABUF_RW_WRITE;
	EXPECT_REFUSED(EINVAL, r);
	r.flags = CMABUF_RW_READ | (1U << 2);
	EXPECT_REFUSED(EINVAL, r);
	r.flags = CMABUF_RW_WRITE | (1U << 31);
	EXPECT_REFUSED(EINVAL, r);
}

TEST_F(rw_args, pad_or_done_nonzero_einval)
{
	struct cmabuf_rw r = rw_req(self->buf, self->f.fd, self->size);

	r.pad = 1;
	EXPECT_REFUSED(EINVAL, r);
	r = rw_req(self->buf, self->f.fd, self->size);
	r.done = 1;
	EXPECT_EQ(EINVAL, cmabuf_ioctl(self->dev, CMABUF_IOC_RW, &r));
}

TEST_F(rw_args, zero_length_einval)
{
	struct cmabuf_rw r = rw_req(self->buf, self->f.fd, self->size);

	r.length = 0;
	EXPECT_REFUSED(EINVAL, r);
}

/* Every way out of the buffer, overflows included. */
TEST_F(rw_args, range_not_within_the_buffer_einval)
{
	struct cmabuf_rw r = rw_req(self->buf, self->f.fd, self->size);

	r.length = self->size + 1;
	EXPECT_REFUSED(EINVAL, r);
	r.length = 1;
	r.buf_offset = self->size;
	EXPECT_REFUSED(EINVAL, r);
	r.buf_offset = self->size - 4096;
	r.length = 4097;
	EXPECT_REFUSED(EINVAL, r);
	r.buf_offset = 4096;
	r.length = ~0ULL;
	EXPECT_REFUSED(EINVAL, r);
	r.buf_offset = ~0ULL;
	r.length = 2;
	EXPECT_REFUSED(EINVAL, r);
}

/* A file range past the largest offset a file has. */
TEST_F(rw_args, file_range_past_the_largest_offset_einval)
{
	struct cmabuf_rw r = rw_req(self->buf, self->f.fd, self->size);

	r.file_offset = (__u64)LLONG_MAX + 1;
	EXPECT_REFUSED(EINVAL, r);
	r.file_offset = LLONG_MAX - 4095;
	r.length = 8192;
	EXPECT_REFUSED(EINVAL, r);
	r.file_offset = ~0ULL;
	r.length = 1;
	EXPECT_REFUSED(EINVAL, r);
}

/* A structure too short for @done; a longer one with a zero tail works. */
TEST_F(rw_args, structure_sizes)
{
	struct {
		struct cmabuf_rw r;
		__u64 tail;
	} big = { .r = rw_req(self->buf, self->f.fd, self->size) };
	struct cmabuf_rw r = rw_req(self->buf, self->f.fd, self->size);

	EXPECT_EQ(EINVAL, cmabuf_ioctl_sized(self->dev, _IOC_NR(CMABUF_IOC_RW),
					     &r, offsetof(struct cmabuf_rw,
							  done)));
	EXPECT_EQ(0ULL, r.done);
	big.tail = 1;
	EXPECT_EQ(EINVAL, cmabuf_ioctl_sized(self->dev, _IOC_NR(CMABUF_IOC_RW),
					     &big, sizeof(big)));
	EXPECT_EQ(0ULL, big.r.done);
	big.tail = 0;
	pattern_fill(self->map, self->size, 21, 0);
	EXPECT_EQ(0, cmabuf_ioctl_sized(self->dev, _IOC_NR(CMABUF_IOC_RW),
					&big, sizeof(big)));
	EXPECT_EQ(self->size, big.r.done);
	EXPECT_EQ(self->size, pattern_check(self->map, self->size, 21, 0));
	/* The teardown's check. */
	pattern_fill(self->map, self->size, 22, 0);
}

TEST_F(rw_args, bad_pointer_efault)
{
	EXPECT_EQ(EFAULT, cmabuf_ioctl(self->dev, CMABUF_IOC_RW, NULL));
	EXPECT_EQ(EFAULT, cmabuf_ioctl(self->dev, CMABUF_IOC_RW,
				       (void *)(uintptr_t)16));
}

/* Closed fds, on either side. */
TEST_F(rw_args, closed_fd_ebadf)
{
	struct cmabuf_rw r = rw_req(self->buf, self->f.fd, self->size);
	int fd = dup(self->f.fd);

	ASSERT_LE(0, fd);
	close(fd);
	r.file_fd = fd;
	EXPECT_REFUSED(EBADF, r);
	r = rw_req(self->buf, self->f.fd, self->size);
	r.buf_fd = fd;
	EXPECT_REFUSED(EBADF, r);
	r.buf_fd = -1;
	EXPECT_REFUSED(EBADF, r);
}

/* Not a dma-buf, or another exporter's. */
TEST_F(rw_args, not_a_cmabuf_buffer_einval)
{
	struct cmabuf_rw r = rw_req(self->buf, self->f.fd, self->size);
	struct dma_heap_allocation_data h = {
		.len = self->size,
		.fd_flags = O_RDWR | O_CLOEXEC,
	};
	int heap;

	r.buf_fd = self->f.fd;
	EXPECT_REFUSED(EINVAL, r);
	heap = open(SYSTEM_HEAP, O_RDONLY | O_CLOEXEC);
	if (heap < 0)
		SKIP(return, "no %s", SYSTEM_HEAP);
	ASSERT_EQ(0, cmabuf_ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &h));
	close(heap);
	r.buf_fd = h.fd;
	EXPECT_REFUSED(EINVAL, r);
	close(h.fd);
}

/* Files of kinds whose I/O could take page references are refused. */
TEST_F(rw_args, files_it_cannot_reach_safely_eopnotsupp)
{
	struct cmabuf_rw r = rw_req(self->buf, self->f.fd, self->size);
	int p[2], s[2], null, dir;

	ASSERT_EQ(0, pipe(p));
	r.file_fd = p[0];
	EXPECT_REFUSED(EOPNOTSUPP, r);
	r.file_fd = p[1];
	r.flags = CMABUF_RW_WRITE;
	EXPECT_REFUSED(EOPNOTSUPP, r);
	close(p[0]);
	close(p[1]);

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, s));
	r.file_fd = s[0];
	EXPECT_REFUSED(EOPNOTSUPP, r);
	close(s[0]);
	close(s[1]);

	null = open("/dev/zero", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, null);
	r = rw_req(self->buf, self->f.fd, self->size);
	r.file_fd = null;
	EXPECT_REFUSED(EOPNOTSUPP, r);
	close(null);

	dir = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, dir);
	r.file_fd = dir;
	EXPECT_REFUSED(EOPNOTSUPP, r);
	close(dir);

	/* The buffer itself, or another one, as the file. */
	r.file_fd = self->buf;
	EXPECT_REFUSED(EOPNOTSUPP, r);
	/* procfs and sysfs files are regular files of no block device. */
	null = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, null);
	r.file_fd = null;
	EXPECT_REFUSED(EOPNOTSUPP, r);
	close(null);
}

/* A file not open for what the transfer does to it. */
TEST_F(rw_args, file_not_open_for_it_ebadf)
{
	struct cmabuf_rw r = rw_req(self->buf, self->f.fd, self->size);
	int ro = open(self->f.path, O_RDONLY | O_CLOEXEC);
	int wo = open(self->f.path, O_WRONLY | O_CLOEXEC);

	ASSERT_LE(0, ro);
	ASSERT_LE(0, wo);
	r.file_fd = wo;
	EXPECT_REFUSED(EBADF, r);
	r.file_fd = ro;
	r.flags = CMABUF_RW_WRITE;
	EXPECT_REFUSED(EBADF, r);
	close(ro);
	close(wo);
	/* And the file still holds what it held. */
	EXPECT_EQ(2 * self->size, file_check(&self->f, 0, 2 * self->size, 21, 0));
}

/*
 * A read-only buffer (fd_flags O_RDONLY) cannot be written into (EBADF,
 * as copy_file_range() says of an output file opened read-only), and is
 * saved to a file as well as any.
 */
TEST_F(rw_args, read_only_buffer)
{
	struct cmabuf_rw r = rw_req(self->buf, self->f.fd, self->size);
	__u64 done = 0;
	__u8 *map;
	int ro;

	ro = buf_alloc(self->dev, self->size, CMABUF_STRATEGY_AUTO, 0,
		       O_RDONLY | O_CLOEXEC, NULL);
	ASSERT_LE(0, ro);
	r.buf_fd = ro;
	EXPECT_REFUSED(EBADF, r);
	map = mmap(NULL, self->size, PROT_READ, MAP_SHARED, ro, 0);
	ASSERT_NE(MAP_FAILED, map);
	EXPECT_EQ(self->size, cmabuf_first_nonzero(map, self->size));
	EXPECT_EQ(0, do_rw(self->dev, ro, self->f.fd, 0, 0, self->size,
			   CMABUF_RW_WRITE, &done));
	EXPECT_EQ(self->size, done);
	EXPECT_EQ(self->size, cmabuf_first_nonzero(map, self->size));
	munmap(map, self->size);
	close(ro);
	/* Zeros now, where the pattern was. */
	EXPECT_EQ(0UL, file_check(&self->f, 0, 8, 21, 0));
}

/* O_DIRECT's alignment: refused before any byte moves, whatever is wrong. */
static void odirect_alignment(struct __test_metadata *_metadata, int dev,
			      enum rw_kind kind)
{
	struct rw_file f;
	const char *why;
	__u64 len = piece() + SZ_1M;
	struct {
		__u64 foff, boff, len;
	} bad[] = {
		{ 100, 0, SZ_1M },		/* file offset */
		{ 0, 100, SZ_1M },		/* buffer offset */
		{ 0, 0, SZ_1M + 100 },		/* length */
		{ 0, 0, len + 8 },		/* the tail of a long one */
		{ SZ_512 + 8, 0, len },		/* and its offset */
	};
	unsigned int i;
	__u8 *map;
	int buf;

	if (PIECE_TOO_BIG(SZ_8M))
		SKIP(return, "%s", PIECE_TOO_BIG(SZ_8M));
	why = rw_file_open(&f, kind, 0);
	if (why)
		SKIP(return, "%s: %s", kind_names[kind], why);
	ASSERT_EQ(0, file_fill(&f, 0, 2 * len, 23, 0));
	buf = buf_alloc(dev, SZ_16M, CMABUF_STRATEGY_FROZEN, 0,
			O_RDWR | O_CLOEXEC, NULL);
	if (buf == -EOPNOTSUPP)
		buf = buf_alloc(dev, SZ_16M, CMABUF_STRATEGY_AUTO, 0,
				O_RDWR | O_CLOEXEC, NULL);
	ASSERT_LE(0, buf);
	map = cmabuf_map(buf, SZ_16M, 0);
	ASSERT_NE(MAP_FAILED, map);
	pattern_fill(map, SZ_16M, 24, 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct cmabuf_rw r = {
			.buf_fd = buf, .file_fd = f.fd,
			.file_offset = bad[i].foff, .buf_offset = bad[i].boff,
			.length = bad[i].len, .flags = CMABUF_RW_READ,
		};

		EXPECT_EQ(EINVAL, cmabuf_ioctl(dev, CMABUF_IOC_RW, &r))
			TH_LOG("case %u", i);
		EXPECT_EQ(0ULL, r.done);
		r.flags = CMABUF_RW_WRITE;
		r.done = 0;
		EXPECT_EQ(EINVAL, cmabuf_ioctl(dev, CMABUF_IOC_RW, &r))
			TH_LOG("case %u, out of the buffer", i);
		EXPECT_EQ(0ULL, r.done);
	}
	EXPECT_EQ(SZ_16M, pattern_check(map, SZ_16M, 24, 0));
	EXPECT_EQ(2 * len, file_check(&f, 0, 2 * len, 23, 0));
	munmap(map, SZ_16M);
	close(buf);
	rw_file_close(&f);
}

TEST_F_TIMEOUT(rw_args, odirect_alignment_block_einval, TIMEOUT)
{
	odirect_alignment(_metadata, self->dev, RW_BLOCK);
}

TEST_F_TIMEOUT(rw_args, odirect_alignment_ext4_einval, TIMEOUT)
{
	odirect_alignment(_metadata, self->dev, RW_EXT4_DIRECT);
}

/*
 * The end of a block device: a write from there is ENOSPC, one across it
 * moves what fits; a read-only device refuses writes (EPERM).
 */
TEST_F(rw_args, block_device_end_and_read_only)
{
	struct rw_file f;
	const char *why;
	__u64 done = 0;
	int ro = 1;

	why = rw_file_open(&f, RW_BLOCK, 0);
	if (why)
		SKIP(return, "%s", why);
	EXPECT_EQ(ENOSPC, do_rw(self->dev, self->buf, f.fd, f.dev_size, 0,
				4096, CMABUF_RW_WRITE, &done));
	EXPECT_EQ(0ULL, done);
	EXPECT_EQ(0, do_rw(self->dev, self->buf, f.fd, f.dev_size - 4096, 0,
			   self->size, CMABUF_RW_WRITE, &done));
	EXPECT_EQ(4096ULL, done);
	EXPECT_EQ(4096UL, file_check(&f, f.dev_size - 4096, 4096, 22, 0));

	ASSERT_EQ(0, ioctl(f.fd, BLKROSET, &ro));
	EXPECT_EQ(EPERM, do_rw(self->dev, self->buf, f.fd, 0, 0, 4096,
			       CMABUF_RW_WRITE, &done));
	ro = 0;
	ASSERT_EQ(0, ioctl(f.fd, BLKROSET, &ro));
	rw_file_close(&f);
}

/* ---- rw_life: signals, and the buffer's life around a transfer ---- */

FIXTURE(rw_life) {
	struct rw_state st;
	struct rw_file f;
	int dev;
	size_t size;
};

FIXTURE_SETUP(rw_life)
{
	self->dev = -1;
	self->size = 64 * SZ_1M;
	state_begin(_metadata, &self->st);
	ASSERT_EQ(NULL, rw_file_open(&self->f, RW_TMPFS, 0));
	ASSERT_EQ(0, file_fill(&self->f, 0, self->size, 31, 0));
	self->dev = open(DEV_GENERAL, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->dev);
}

FIXTURE_TEARDOWN(rw_life)
{
	if (self->dev >= 0)
		close(self->dev);
	rw_file_close(&self->f);
	state_end(_metadata, &self->st);
}

/* SIGALRM only has to interrupt. */
static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * A signal that arrives while a long transfer runs stops it between two
 * pieces, as a short read: the count says how far it went, those bytes
 * are the file's, the rest is untouched; the rest then comes on request.
 */
TEST_F_TIMEOUT(rw_life, signal_stops_between_pieces_with_a_count, TIMEOUT)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval tick = {
		.it_interval = { .tv_usec = 1000 },
		.it_value = { .tv_usec = 1000 },
	}, off = { 0 };
	__u64 done = 0, more = 0;
	__u8 *map;
	int buf, ret;

	if (PIECE_TOO_BIG(self->size / 2))
		SKIP(return, "%s", PIECE_TOO_BIG(self->size / 2));
	buf = buf_alloc(self->dev, self->size, CMABUF_STRATEGY_AUTO, 0,
			O_RDWR | O_CLOEXEC, NULL);
	ASSERT_LE(0, buf);
	map = cmabuf_map(buf, self->size, 0);
	ASSERT_NE(MAP_FAILED, map);
	pattern_fill(map, self->size, 32, 0);

	/* No SA_RESTART: the signal ends the call, as it would a read(). */
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &tick, NULL));
	ret = do_rw(self->dev, buf, self->f.fd, 0, 0, self->size,
		    CMABUF_RW_READ, &done);
	setitimer(ITIMER_REAL, &off, NULL);
	signal(SIGALRM, SIG_DFL);
	ASSERT_EQ(0, ret);
	TH_LOG("%llu of %zu bytes before the signal",
	       (unsigned long long)done, self->size);
	EXPECT_LT(0ULL, done);
	EXPECT_GT(self->size, done);
	EXPECT_EQ(0ULL, done % piece());
	EXPECT_EQ(done, pattern_check(map, done, 31, 0));
	EXPECT_EQ(self->size - done,
		  pattern_check(map + done, self->size - done, 32, done));

	EXPECT_EQ(0, do_rw(self->dev, buf, self->f.fd, done, done,
			   self->size - done, CMABUF_RW_READ, &more));
	EXPECT_EQ(self->size - done, more);
	EXPECT_EQ(self->size, pattern_check(map, self->size, 31, 0));
	munmap(map, self->size);
	close(buf);
}

struct closer {
	int fd;
	unsigned int delay_us;
	struct timespec closed;
};

static void *close_later(void *arg)
{
	struct closer *c = arg;

	usleep(c->delay_us);
	close(c->fd);
	clock_gettime(CLOCK_MONOTONIC, &c->closed);
	return NULL;
}

static bool ts_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/*
 * The buffer's only fd closed by another thread while the transfer
 * runs: the transfer holds the buffer and finishes; then the buffer goes
 * back to its area (the fixture's check), none of its pages before.
 * Which comes first is the scheduler's choice: a close before the ioctl
 * took the fd (EBADF) is tried again later, one after the transfer ended
 * sooner, until a close lands inside a transfer.
 */
TEST_F_TIMEOUT(rw_life, fd_closed_mid_transfer, TIMEOUT)
{
	struct closer c = { .delay_us = 2000 };
	unsigned long long live = 0;
	struct timespec end;
	int tries, ret = -1;
	bool inside = false;
	pthread_t t;
	__u64 done = 0;
	int buf;

	for (tries = 0; tries < 10 && !inside; tries++) {
		buf = buf_alloc(self->dev, self->size, CMABUF_STRATEGY_AUTO, 0,
				O_RDWR | O_CLOEXEC, NULL);
		ASSERT_LE(0, buf);
		c.fd = buf;
		ASSERT_EQ(0, pthread_create(&t, NULL, close_later, &c));
		ret = do_rw(self->dev, buf, self->f.fd, 0, 0, self->size,
			    CMABUF_RW_READ, &done);
		clock_gettime(CLOCK_MONOTONIC, &end);
		pthread_join(t, NULL);
		if (ret == EBADF) {
			c.delay_us *= 2;
			continue;
		}
		ASSERT_EQ(0, ret);
		EXPECT_EQ(self->size, done);
		inside = ts_before(&c.closed, &end);
		if (!inside)
			c.delay_us = c.delay_us / 2 + 1;
	}
	TH_LOG("%d tries, the last closing after %u us", tries, c.delay_us);
	ASSERT_TRUE(inside);
	ASSERT_EQ(0, rel_stat_read("cmabuf-general", "stats", "live_buffers",
				   &live));
	EXPECT_EQ(0ULL, live);
}

/*
 * A process killed while its transfers run (its buffer's only user,
 * after a first one went through whole): the kill waits for the device,
 * and the buffer goes back to its area.
 */
TEST_F_TIMEOUT(rw_life, killed_mid_transfer, TIMEOUT)
{
	int status, ready[2];
	pid_t pid;
	char c;

	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int buf = buf_alloc(self->dev, self->size,
				    CMABUF_STRATEGY_AUTO, 0, O_RDWR, NULL);
		__u64 done = 0;

		if (buf < 0)
			_exit(1);
		/* Ready once a whole transfer went through. */
		if (do_rw(self->dev, buf, self->f.fd, 0, 0, self->size,
			  CMABUF_RW_READ, &done) || done != self->size)
			_exit(3);
		if (write(ready[1], "r", 1) != 1)
			_exit(2);
		for (;;)
			do_rw(self->dev, buf, self->f.fd, 0, 0, self->size,
			      CMABUF_RW_READ, NULL);
	}
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1)) TH_LOG("the child's first transfer failed");
	close(ready[0]);
	usleep(20000);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

/* The platform device of an instance: its misc device's parent. */
static int platform_name(const char *misc, char *out, size_t size)
{
	char path[256], link[256];
	const char *base;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/class/misc/%s/device", misc);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return errno;
	link[n] = '\0';
	base = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	if (strlen(base) < size)
		memcpy(out, base, strlen(base) + 1);
	return strlen(base) < size ? 0 : EOVERFLOW;
}

struct unbinder {
	const char *pdev;
	unsigned int delay_us;
	int err;
};

static void *unbind_later(void *arg)
{
	struct unbinder *u = arg;

	usleep(u->delay_us);
	u->err = rel_write_str(REL_PLATFORM_DRIVER "/unbind", u->pdev);
	return NULL;
}

/*
 * The instance unbound while a transfer into one of its buffers runs:
 * the transfer finishes with every byte right, the buffer lives on its
 * mapping, and goes back to the area once let go, the instance bound
 * again.
 */
TEST_F_TIMEOUT(rw_life, instance_unbound_mid_transfer, TIMEOUT)
{
	struct unbinder u = { .delay_us = 2000 };
	char pdev[64], path[128];
	__u64 done = 0;
	struct stat sb;
	pthread_t t;
	__u8 *map;
	int buf, i;

	ASSERT_EQ(0, platform_name("cmabuf-general", pdev, sizeof(pdev)));
	buf = buf_alloc(self->dev, self->size, CMABUF_STRATEGY_AUTO, 0,
			O_RDWR | O_CLOEXEC, NULL);
	ASSERT_LE(0, buf);
	map = cmabuf_map(buf, self->size, 0);
	ASSERT_NE(MAP_FAILED, map);
	u.pdev = pdev;
	ASSERT_EQ(0, pthread_create(&t, NULL, unbind_later, &u));
	EXPECT_EQ(0, do_rw(self->dev, buf, self->f.fd, 0, 0, self->size,
			   CMABUF_RW_READ, &done));
	pthread_join(t, NULL);
	EXPECT_EQ(0, u.err);
	EXPECT_EQ(self->size, done);
	EXPECT_NE(0, stat("/dev/cmabuf-general", &sb));
	EXPECT_EQ(self->size, pattern_check(map, self->size, 31, 0));
	/* And after the unbind, out of the buffer again. */
	EXPECT_EQ(0, do_rw(self->dev, buf, self->f.fd, self->size, 0,
			   self->size, CMABUF_RW_WRITE, &done));
	EXPECT_EQ(self->size, done);
	EXPECT_EQ(self->size, file_check(&self->f, self->size, self->size,
					 31, 0));
	munmap(map, self->size);
	close(buf);
	close(self->dev);
	self->dev = -1;

	ASSERT_EQ(0, rel_write_str(REL_PLATFORM_DRIVER "/bind", pdev));
	snprintf(path, sizeof(path), "/dev/cmabuf-general");
	for (i = 0; i < 500 && stat(path, &sb); i++)
		usleep(10000);
	ASSERT_EQ(0, stat(path, &sb));
}

TEST_HARNESS_MAIN
