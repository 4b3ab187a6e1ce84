// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf_rw_test: bytes moved between files and buffers.
 *
 *  - mapping: what users hit: read() and write() of a file opened
 *    O_DIRECT fail with EFAULT on a mapping of a cmabuf buffer (VM_IO |
 *    VM_PFNMAP: nothing the block layer can pin), while the same calls on
 *    anonymous memory work.
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

#define DEV_GENERAL	"/dev/cmabuf-general"

enum rw_kind {
	RW_BLOCK,		/* the raw disk, O_DIRECT */
	RW_EXT4_DIRECT,		/* a file on ext4, O_DIRECT */
	RW_EXT4_BUFFERED,	/* a file on ext4, the page cache */
	RW_TMPFS,		/* a file on tmpfs */
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

TEST_HARNESS_MAIN
