// SPDX-License-Identifier: GPL-2.0
/*
 * Sharing test of cmabuf: its dma-bufs taken by other drivers.
 *
 *  - importer: cmabuf_importer.ko attaches, maps, vmaps and holds buffers
 *    as a device driver does (tests/importer/cmabuf_importer.h);
 *  - importer_refusal: what the importer must refuse, cleanly;
 *  - vgem: the vgem DRM driver imports buffers through libdrm PRIME;
 *  - heap: the dma-heaps /dev/dma_heap/cmabuf* and the heap ABI;
 *  - bufinfo: buffers in debugfs dma_buf/bufinfo and fdinfo;
 *  - importer_unload: unloading the importer lets go of what it held.
 *
 * A fixture SKIP()s when its device is absent: no importer module, no vgem,
 * no heap on a kernel that does not export dma_heap_add (6.12). That the
 * heap is present wherever cmabuf.ko was built with dma_heap_add is
 * checked, so that a lost heap cannot hide as a SKIP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>

#include "kselftest_harness.h"
#include "sharing_util.h"

#define DEV_DEFAULT	"/dev/cmabuf"
#define DEV_GENERAL	"/dev/cmabuf-general"
#define HEAP_DIR	"/dev/dma_heap/"

/* Where the guest keeps the modules; CMABUF_MODULE_DIR overrides it. */
#define MODULE_DIR	"/lib/modules/cmabuf"

#define SEED_USER	0x75736572ULL	/* "user" */
#define SEED_IMPORTER	0x696d706fULL	/* "impo" */
#define NOBODY		65534

static const char *module_dir(void)
{
	const char *dir = getenv("CMABUF_MODULE_DIR");

	return dir && *dir ? dir : MODULE_DIR;
}

static void module_path(char *path, size_t size, const char *name)
{
	snprintf(path, size, "%s/%s.ko", module_dir(), name);
}

/* Open @path into @fd, or SKIP() the test saying why and return false. */
static bool open_or_skip(struct __test_metadata *_metadata, int *fd,
			 const char *path, const char *what)
{
	*fd = open(path, O_RDWR | O_CLOEXEC);
	if (*fd < 0)
		SKIP(return false, "%s: %s absent (%s)", what, path,
		     strerror(errno));
	return true;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/*
 * The area's used pages; where the kernel cannot tell them (no CMA debugfs
 * or sysfs: Debian's 6.x), the pages cmabuf's instances on it hold by
 * their own count, said once.
 */
static int area_pages(const char *area, unsigned long long *used)
{
	static bool said;
	int ret = rel_cma_read(area, "used", used);

	if (ret != EOPNOTSUPP)
		return ret;
	if (!said)
		ksft_print_msg("CMA area %s: the driver's own count of its pages stands in: %s\n",
			       area, REL_CMA_LACKS);
	said = true;
	return rel_area_held_pages(area, used);
}

/* The CMA area of the instance @dev and its used pages now. */
static void area_used(struct __test_metadata *_metadata, int dev,
		      char *area, unsigned long long *used)
{
	ASSERT_EQ(0, cmabuf_area_name(dev, area, AREA_NAME_MAX));
	ASSERT_EQ(0, cmabuf_settle_all());
	ASSERT_EQ(0, area_pages(area, used)) {
		TH_LOG("no debugfs cma/%s/used", area);
	}
}

/* The area's used pages once every free in flight is done. */
static unsigned long long used_now(struct __test_metadata *_metadata,
				   const char *area)
{
	unsigned long long used = 0;

	EXPECT_EQ(0, cmabuf_settle_all());
	EXPECT_EQ(0, area_pages(area, &used));
	return used;
}

/* A number of the area, or a skip that names what the kernel lacks. */
static bool cma_read(struct __test_metadata *_metadata, const char *area,
		     const char *file, unsigned long long *val)
{
	int ret = rel_cma_read(area, file, val);

	if (ret == EOPNOTSUPP)
		SKIP(return false, "CMA area %s, %s: " REL_CMA_LACKS, area, file);
	ASSERT_EQ(0, ret) TH_LOG("CMA area %s, %s", area, file);
	return true;
}

/*
 * importer: a buffer of each kind handed to the importer. @start is the
 * area's used pages before the buffer existed; every test leaves the area
 * there (checked by the teardown).
 */
struct test_buf {
	int dev;
	int imp;
	int buf;
	void *map;
	size_t size;
	__u32 handle;
	char area[AREA_NAME_MAX];
	unsigned long long start;
};

FIXTURE(importer) {
	struct test_buf t;
};

FIXTURE_VARIANT(importer) {
	const char *dev;
	unsigned long long size;
};

FIXTURE_VARIANT_ADD(importer, default_4k) {
	.dev = DEV_DEFAULT,
	.size = SZ_4K,
};

FIXTURE_VARIANT_ADD(importer, default_1m) {
	.dev = DEV_DEFAULT,
	.size = SZ_1M,
};

/* Not a power of two: FROZEN where COMPOUND exists. */
FIXTURE_VARIANT_ADD(importer, general_3m) {
	.dev = DEV_GENERAL,
	.size = 3 * SZ_1M,
};

FIXTURE_VARIANT_ADD(importer, general_64m) {
	.dev = DEV_GENERAL,
	.size = SZ_64M,
};

FIXTURE_SETUP(importer)
{
	self->t.dev = -1;
	self->t.imp = -1;
	self->t.buf = -1;
	self->t.map = MAP_FAILED;
	/* What the buffer is: the size asked for, rounded up to pages. */
	self->t.size = (variant->size + PAGE_SZ - 1) / PAGE_SZ * PAGE_SZ;
	if (!open_or_skip(_metadata, &self->t.dev, variant->dev, "cmabuf instance"))
		return;
	if (!open_or_skip(_metadata, &self->t.imp, IMPORTER_DEV, "importer"))
		return;
	area_used(_metadata, self->t.dev, self->t.area, &self->t.start);
	ASSERT_EQ(0, cmabuf_alloc_fd(self->t.dev, variant->size, &self->t.buf));
	self->t.map = mmap(NULL, self->t.size, PROT_READ | PROT_WRITE,
			   MAP_SHARED, self->t.buf, 0);
	ASSERT_NE(MAP_FAILED, self->t.map);
}

FIXTURE_TEARDOWN(importer)
{
	if (self->t.handle) {
		if (self->t.imp < 0)
			self->t.imp = open(IMPORTER_DEV, O_RDWR | O_CLOEXEC);
		EXPECT_EQ(0, importer_release(self->t.imp, self->t.handle));
	}
	if (self->t.map != MAP_FAILED)
		munmap(self->t.map, self->t.size);
	close_fd(&self->t.buf);
	close_fd(&self->t.imp);
	if (self->t.dev >= 0)
		EXPECT_EQ(self->t.start, used_now(_metadata, self->t.area));
	close_fd(&self->t.dev);
}

/* Userspace writes the pattern of @seed through its mapping. */
static void user_writes(struct __test_metadata *_metadata,
			struct test_buf *t, __u64 seed)
{
	ASSERT_EQ(0, dmabuf_sync(t->buf, DMA_BUF_SYNC_START));
	pattern_fill(t->map, t->size, seed);
	ASSERT_EQ(0, dmabuf_sync(t->buf, DMA_BUF_SYNC_END));
}

/* Drop the buffer's mapping and fd: only the importer is left. */
static void user_lets_go(struct test_buf *t)
{
	munmap(t->map, t->size);
	t->map = MAP_FAILED;
	close_fd(&t->buf);
}

TEST_F(importer, check_runs_every_step)
{
	struct cmabuf_importer_check chk;

	user_writes(_metadata, &self->t, SEED_USER);
	ASSERT_EQ(0, importer_check(self->t.imp, self->t.buf,
				    CMABUF_IMPORTER_CHECK_VALID_FLAGS,
				    SEED_USER, SEED_IMPORTER, &chk));
	EXPECT_EQ((__u32)CMABUF_IMPORTER_STEP_NONE, chk.failed_step);
	EXPECT_EQ(0, chk.error);
	EXPECT_EQ(STEPS_ALL, chk.steps_done);
	EXPECT_EQ(self->t.size, chk.size);
}

TEST_F(importer, check_without_cpu_access_skips_cpu_steps)
{
	struct cmabuf_importer_check chk;

	ASSERT_EQ(0, importer_check(self->t.imp, self->t.buf, 0, 0, 0, &chk));
	EXPECT_EQ((__u32)CMABUF_IMPORTER_STEP_NONE, chk.failed_step);
	EXPECT_EQ(STEPS_NO_CPU, chk.steps_done);
	EXPECT_EQ(0ULL, chk.words_checked);
}

TEST_F(importer, mapping_is_one_dma_segment)
{
	struct cmabuf_importer_check chk;

	ASSERT_EQ(0, importer_check(self->t.imp, self->t.buf, 0, 0, 0, &chk));
	ASSERT_NE(0U, chk.steps_done & CMABUF_IMPORTER_STEP_BIT(CMABUF_IMPORTER_STEP_MAP));
	EXPECT_EQ(1U, chk.sg_entries);
	EXPECT_EQ(1U, chk.dma_segments);
	EXPECT_EQ(self->t.size, chk.dma_len);
	EXPECT_EQ(self->t.size, chk.dma_total);
}

/* QEMU virt has no IOMMU in front of the importer: DMA address = physical. */
TEST_F(importer, dma_address_is_physical_address)
{
	struct cmabuf_importer_check chk;
	struct cmabuf_phys phys;

	ASSERT_EQ(0, cmabuf_phys(self->t.dev, self->t.buf, &phys));
	ASSERT_EQ(0, importer_check(self->t.imp, self->t.buf, 0, 0, 0, &chk));
	EXPECT_EQ(phys.phys, chk.dma_addr);
	EXPECT_EQ(phys.size, chk.dma_len);
	EXPECT_EQ(0ULL, phys.phys % PAGE_SZ);
}

TEST_F(importer, importer_reads_what_user_wrote)
{
	struct cmabuf_importer_check chk;

	user_writes(_metadata, &self->t, SEED_USER);
	ASSERT_EQ(0, importer_check(self->t.imp, self->t.buf,
				    CMABUF_IMPORTER_CHECK_VERIFY, SEED_USER, 0,
				    &chk));
	ASSERT_EQ((__u32)CMABUF_IMPORTER_STEP_NONE, chk.failed_step);
	EXPECT_EQ(self->t.size / CMABUF_IMPORTER_PATTERN_STRIDE,
		  chk.words_checked);
	EXPECT_EQ(0ULL, chk.mismatches) {
		TH_LOG("first bad word at %llu: %#llx",
		       (unsigned long long)chk.first_bad_offset,
		       (unsigned long long)chk.first_bad_value);
	}
}

TEST_F(importer, user_reads_what_importer_wrote)
{
	struct cmabuf_importer_check chk;

	ASSERT_EQ(0, importer_check(self->t.imp, self->t.buf,
				    CMABUF_IMPORTER_CHECK_WRITE, 0,
				    SEED_IMPORTER, &chk));
	ASSERT_EQ((__u32)CMABUF_IMPORTER_STEP_NONE, chk.failed_step);
	ASSERT_EQ(0, dmabuf_sync(self->t.buf, DMA_BUF_SYNC_START));
	EXPECT_EQ(0UL, pattern_mismatches(self->t.map, self->t.size,
					  SEED_IMPORTER));
	ASSERT_EQ(0, dmabuf_sync(self->t.buf, DMA_BUF_SYNC_END));
}

/* The verification is not blind: another seed's pattern differs everywhere. */
TEST_F(importer, importer_detects_wrong_pattern)
{
	struct cmabuf_importer_check chk;

	user_writes(_metadata, &self->t, SEED_USER);
	ASSERT_EQ(0, importer_check(self->t.imp, self->t.buf,
				    CMABUF_IMPORTER_CHECK_VERIFY,
				    SEED_USER + 1, 0, &chk));
	EXPECT_EQ(chk.words_checked, chk.mismatches);
	EXPECT_EQ(0ULL, chk.first_bad_offset);
	EXPECT_EQ(cmabuf_importer_pattern(SEED_USER, 0), chk.first_bad_value);
}

/*
 * The importer's hold is the buffer's last user: its pages stay allocated
 * after every fd and mapping is gone, and go back to CMA on release.
 */
static void held_until_release(struct __test_metadata *_metadata,
			       struct test_buf *t, __u32 flags)
{
	unsigned long long pages = t->size / PAGE_SZ;
	struct cmabuf_importer_hold hold;
	struct cmabuf_phys phys;

	ASSERT_EQ(0, cmabuf_phys(t->dev, t->buf, &phys));
	ASSERT_EQ(t->start + pages, used_now(_metadata, t->area));
	ASSERT_EQ(0, importer_hold(t->imp, t->buf, flags, &hold));
	t->handle = hold.handle;
	EXPECT_NE(0U, hold.handle);
	EXPECT_EQ(t->size, hold.size);
	EXPECT_EQ(flags & CMABUF_IMPORTER_HOLD_MAP ? phys.phys : 0,
		  hold.dma_addr);

	user_lets_go(t);
	EXPECT_EQ(t->start + pages, used_now(_metadata, t->area));

	ASSERT_EQ(0, importer_release(t->imp, t->handle));
	t->handle = 0;
	EXPECT_EQ(t->start, used_now(_metadata, t->area));
}

TEST_F(importer, held_attachment_keeps_buffer_until_release)
{
	held_until_release(_metadata, &self->t, 0);
}

TEST_F(importer, held_mapping_keeps_buffer_until_release)
{
	held_until_release(_metadata, &self->t, CMABUF_IMPORTER_HOLD_MAP);
}

/* Closing the importer's own device does not drop what it holds. */
TEST_F(importer, hold_survives_closing_importer)
{
	unsigned long long pages = self->t.size / PAGE_SZ;
	unsigned long long live;
	struct cmabuf_importer_hold hold;

	ASSERT_EQ(0, importer_hold(self->t.imp, self->t.buf,
				   CMABUF_IMPORTER_HOLD_MAP, &hold));
	self->t.handle = hold.handle;
	user_lets_go(&self->t);
	close_fd(&self->t.imp);

	EXPECT_EQ(self->t.start + pages, used_now(_metadata, self->t.area));
	ASSERT_EQ(0, cmabuf_live_buffers(self->t.dev, &live));
	EXPECT_LE(1ULL, live);

	self->t.imp = open(IMPORTER_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->t.imp);
	ASSERT_EQ(0, importer_release(self->t.imp, self->t.handle));
	self->t.handle = 0;
	EXPECT_EQ(self->t.start, used_now(_metadata, self->t.area));
}

/* DMA_BUF_IOCTL_SYNC with exactly @flags. */
static int sync_exactly(int buf, __u64 flags)
{
	struct dma_buf_sync sync = { .flags = flags };

	return cmabuf_ioctl_retry(buf, DMA_BUF_IOCTL_SYNC, &sync);
}

/*
 * CPU access while the importer holds mappings in each DMA direction: the
 * exporter syncs every mapping in the direction it was mapped with (the
 * debug kernel's DMA API checks complain otherwise), whatever direction
 * userspace asks for, and what userspace writes inside SYNC_START and
 * SYNC_END is what the importer reads afterwards.
 */
TEST_F(importer, cpu_access_with_mappings_in_each_direction)
{
	static const __u32 dirs[] = {
		0, CMABUF_IMPORTER_HOLD_TO_DEVICE,
		CMABUF_IMPORTER_HOLD_FROM_DEVICE,
	};
	static const __u64 access[] = {
		DMA_BUF_SYNC_WRITE, DMA_BUF_SYNC_READ, DMA_BUF_SYNC_RW,
	};
	struct cmabuf_importer_hold hold[ARRAY_SIZE(dirs)];
	struct cmabuf_importer_check chk;
	__u64 seed = SEED_USER;
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(dirs); i++)
		ASSERT_EQ(0, importer_hold(self->t.imp, self->t.buf,
					   CMABUF_IMPORTER_HOLD_MAP | dirs[i],
					   &hold[i]));
	for (j = 0; j < ARRAY_SIZE(access); j++) {
		ASSERT_EQ(0, sync_exactly(self->t.buf,
					  DMA_BUF_SYNC_START | access[j]));
		if (access[j] & DMA_BUF_SYNC_WRITE)
			pattern_fill(self->t.map, self->t.size, ++seed);
		else
			EXPECT_EQ(0U, pattern_mismatches(self->t.map,
							 self->t.size, seed));
		ASSERT_EQ(0, sync_exactly(self->t.buf,
					  DMA_BUF_SYNC_END | access[j]));
		ASSERT_EQ(0, importer_check(self->t.imp, self->t.buf,
					    CMABUF_IMPORTER_CHECK_VERIFY, seed,
					    0, &chk));
		EXPECT_EQ(0ULL, chk.mismatches);
		EXPECT_EQ((__u32)CMABUF_IMPORTER_STEP_NONE, chk.failed_step);
	}
	for (i = 0; i < ARRAY_SIZE(dirs); i++)
		EXPECT_EQ(0, importer_release(self->t.imp, hold[i].handle));
}

TEST_F(importer, release_twice_refused)
{
	struct cmabuf_importer_hold hold;

	ASSERT_EQ(0, importer_hold(self->t.imp, self->t.buf, 0, &hold));
	self->t.handle = hold.handle;
	ASSERT_EQ(0, importer_release(self->t.imp, hold.handle));
	self->t.handle = 0;
	EXPECT_EQ(ENOENT, importer_release(self->t.imp, hold.handle));
}

/*
 * importer_refusal: what the importer refuses. @buf is a live 4 KiB buffer,
 * @closed the number of a dma-buf fd that has been closed.
 */
FIXTURE(importer_refusal) {
	int dev;
	int imp;
	int buf;
	int closed;
};

FIXTURE_SETUP(importer_refusal)
{
	self->dev = -1;
	self->imp = -1;
	self->buf = -1;
	self->closed = -1;
	if (!open_or_skip(_metadata, &self->dev, DEV_DEFAULT, "cmabuf instance"))
		return;
	if (!open_or_skip(_metadata, &self->imp, IMPORTER_DEV, "importer"))
		return;
	ASSERT_EQ(0, cmabuf_alloc_fd(self->dev, SZ_4K, &self->buf));
	/* The highest fd: no test opens another before it uses this one. */
	ASSERT_EQ(0, cmabuf_alloc_fd(self->dev, SZ_4K, &self->closed));
	close(self->closed);
}

FIXTURE_TEARDOWN(importer_refusal)
{
	close_fd(&self->buf);
	close_fd(&self->imp);
	close_fd(&self->dev);
}

TEST_F(importer_refusal, check_of_closed_fd_refused)
{
	struct cmabuf_importer_check chk;

	EXPECT_EQ(EBADF, importer_check(self->imp, self->closed, 0, 0, 0, &chk));
}

TEST_F(importer_refusal, hold_of_closed_fd_refused)
{
	struct cmabuf_importer_hold hold;

	EXPECT_EQ(EBADF, importer_hold(self->imp, self->closed, 0, &hold));
}

TEST_F(importer_refusal, check_of_non_dmabuf_fd_refused)
{
	struct cmabuf_importer_check chk;
	int p[2];

	ASSERT_EQ(0, pipe(p));
	EXPECT_EQ(EINVAL, importer_check(self->imp, p[0], 0, 0, 0, &chk));
	EXPECT_EQ(EINVAL, importer_check(self->imp, self->dev, 0, 0, 0, &chk));
	close(p[0]);
	close(p[1]);
}

TEST_F(importer_refusal, hold_of_non_dmabuf_fd_refused)
{
	struct cmabuf_importer_hold hold;

	EXPECT_EQ(EINVAL, importer_hold(self->imp, self->dev, 0, &hold));
	EXPECT_EQ(EINVAL, importer_hold(self->imp, self->imp, 0, &hold));
}

TEST_F(importer_refusal, check_unknown_flag_refused)
{
	struct cmabuf_importer_check chk;

	EXPECT_EQ(EINVAL, importer_check(self->imp, self->buf,
					 ~CMABUF_IMPORTER_CHECK_VALID_FLAGS,
					 0, 0, &chk));
}

TEST_F(importer_refusal, check_nonzero_output_refused)
{
	struct cmabuf_importer_check chk = { .fd = self->buf, .dma_addr = 1 };

	EXPECT_EQ(EINVAL, cmabuf_ioctl_retry(self->imp, CMABUF_IMPORTER_IOC_CHECK,
					     &chk));
	memset(&chk, 0, sizeof(chk));
	chk.fd = self->buf;
	chk.pad = 1;
	EXPECT_EQ(EINVAL, cmabuf_ioctl_retry(self->imp, CMABUF_IMPORTER_IOC_CHECK,
					     &chk));
}

TEST_F(importer_refusal, hold_unknown_flag_refused)
{
	struct cmabuf_importer_hold hold;

	EXPECT_EQ(EINVAL, importer_hold(self->imp, self->buf,
					~CMABUF_IMPORTER_HOLD_VALID_FLAGS,
					&hold));
}

TEST_F(importer_refusal, hold_two_directions_refused)
{
	struct cmabuf_importer_hold hold;

	EXPECT_EQ(EINVAL, importer_hold(self->imp, self->buf,
					CMABUF_IMPORTER_HOLD_MAP |
					CMABUF_IMPORTER_HOLD_TO_DEVICE |
					CMABUF_IMPORTER_HOLD_FROM_DEVICE,
					&hold));
	EXPECT_EQ(EINVAL, importer_hold(self->imp, self->buf,
					CMABUF_IMPORTER_HOLD_TO_DEVICE, &hold));
}

TEST_F(importer_refusal, hold_nonzero_output_refused)
{
	struct cmabuf_importer_hold hold = { .fd = self->buf, .handle = 1 };

	EXPECT_EQ(EINVAL, cmabuf_ioctl_retry(self->imp, CMABUF_IMPORTER_IOC_HOLD,
					     &hold));
}

TEST_F(importer_refusal, release_unknown_handle_refused)
{
	EXPECT_EQ(ENOENT, importer_release(self->imp, 0));
	EXPECT_EQ(ENOENT, importer_release(self->imp,
					   CMABUF_IMPORTER_MAX_HOLDS + 1));
}

TEST_F(importer_refusal, release_nonzero_pad_refused)
{
	struct cmabuf_importer_hold hold;
	struct cmabuf_importer_release rel = { .pad = 1 };

	ASSERT_EQ(0, importer_hold(self->imp, self->buf, 0, &hold));
	rel.handle = hold.handle;
	EXPECT_EQ(EINVAL, cmabuf_ioctl_retry(self->imp, CMABUF_IMPORTER_IOC_RELEASE,
					     &rel));
	EXPECT_EQ(0, importer_release(self->imp, hold.handle));
}

TEST_F(importer_refusal, unknown_ioctl_refused)
{
	struct cmabuf_importer_check chk = { .fd = self->buf };
	unsigned long short_check = _IOC(_IOC_READ | _IOC_WRITE,
					 CMABUF_IMPORTER_IOC_MAGIC, 0x00,
					 sizeof(chk) - 8);

	EXPECT_EQ(ENOTTY, cmabuf_ioctl_retry(self->imp,
					     _IOWR(CMABUF_IMPORTER_IOC_MAGIC, 0x03,
						   struct cmabuf_importer_check),
					     &chk));
	EXPECT_EQ(ENOTTY, cmabuf_ioctl_retry(self->imp, short_check, &chk));
}

TEST_F(importer_refusal, holds_are_bounded)
{
	struct cmabuf_importer_hold hold;
	__u32 handles[CMABUF_IMPORTER_MAX_HOLDS];
	int i, n = 0;

	for (i = 0; i < CMABUF_IMPORTER_MAX_HOLDS; i++) {
		EXPECT_EQ(0, importer_hold(self->imp, self->buf, 0, &hold));
		if (hold.handle)
			handles[n++] = hold.handle;
	}
	EXPECT_EQ(CMABUF_IMPORTER_MAX_HOLDS, n);
	EXPECT_EQ(ENOSPC, importer_hold(self->imp, self->buf, 0, &hold));
	for (i = 0; i < n; i++)
		EXPECT_EQ(0, importer_release(self->imp, handles[i]));
}

TEST_F(importer_refusal, device_is_root_only)
{
	struct stat st;
	pid_t pid;
	int status;

	ASSERT_EQ(0, stat(IMPORTER_DEV, &st));
	EXPECT_EQ(0600U, st.st_mode & 07777);
	EXPECT_EQ(0U, st.st_uid);

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (setgid(NOBODY) || setuid(NOBODY))
			_exit(2);
		_exit(open(IMPORTER_DEV, O_RDWR) < 0 && errno == EACCES ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * vgem: a cmabuf buffer imported into vgem through libdrm. vgem attaches
 * to what it imports, so bufinfo shows "vgem" among the attached devices
 * while a handle exists.
 */
FIXTURE(vgem) {
	int dev;
	int card;
	int buf;
	char area[AREA_NAME_MAX];
	unsigned long long start;
};

FIXTURE_SETUP(vgem)
{
	self->dev = -1;
	self->card = -1;
	self->buf = -1;
	if (!open_or_skip(_metadata, &self->dev, DEV_DEFAULT, "cmabuf instance"))
		return;
	self->card = vgem_open();
	if (self->card < 0)
		SKIP(return, "no DRM card driven by vgem");
	area_used(_metadata, self->dev, self->area, &self->start);
	ASSERT_EQ(0, cmabuf_alloc_fd(self->dev, SZ_1M, &self->buf));
}

FIXTURE_TEARDOWN(vgem)
{
	close_fd(&self->buf);
	close_fd(&self->card);
	if (self->dev >= 0)
		EXPECT_EQ(self->start, used_now(_metadata, self->area));
	close_fd(&self->dev);
}

/* Attachments of @buf and whether vgem is one of them. */
static int vgem_attachments(struct __test_metadata *_metadata, int buf,
			    bool *vgem)
{
	struct bufinfo_entry e;

	EXPECT_EQ(0, bufinfo_find(buf, &e));
	*vgem = bufinfo_attached(&e, "vgem");
	return e.attached;
}

TEST_F(vgem, import_gives_handle)
{
	__u32 handle = 0;

	ASSERT_EQ(0, drm_import(self->card, self->buf, &handle));
	EXPECT_NE(0U, handle);
	EXPECT_EQ(0, drm_close_handle(self->card, handle));
}

TEST_F(vgem, import_attaches_vgem_until_handle_closed)
{
	__u32 handle;
	bool vgem;

	EXPECT_EQ(0, vgem_attachments(_metadata, self->buf, &vgem));
	ASSERT_EQ(0, drm_import(self->card, self->buf, &handle));
	EXPECT_EQ(1, vgem_attachments(_metadata, self->buf, &vgem));
	EXPECT_TRUE(vgem);
	ASSERT_EQ(0, drm_close_handle(self->card, handle));
	EXPECT_EQ(0, vgem_attachments(_metadata, self->buf, &vgem));
}

TEST_F(vgem, import_twice_gives_same_handle)
{
	__u32 first, second;
	bool vgem;

	ASSERT_EQ(0, drm_import(self->card, self->buf, &first));
	ASSERT_EQ(0, drm_import(self->card, self->buf, &second));
	EXPECT_EQ(first, second);
	EXPECT_EQ(1, vgem_attachments(_metadata, self->buf, &vgem));
	EXPECT_EQ(0, drm_close_handle(self->card, first));
}

TEST_F(vgem, import_of_dup_fd_gives_same_handle)
{
	__u32 first, second;
	int dup_fd;

	dup_fd = dup(self->buf);
	ASSERT_LE(0, dup_fd);
	ASSERT_EQ(0, drm_import(self->card, self->buf, &first));
	ASSERT_EQ(0, drm_import(self->card, dup_fd, &second));
	EXPECT_EQ(first, second);
	EXPECT_EQ(0, drm_close_handle(self->card, first));
	close(dup_fd);
}

TEST_F(vgem, import_into_two_drm_files)
{
	__u32 first, second;
	bool vgem;
	int card2;

	card2 = vgem_open();
	ASSERT_LE(0, card2);
	ASSERT_EQ(0, drm_import(self->card, self->buf, &first));
	ASSERT_EQ(0, drm_import(card2, self->buf, &second));
	EXPECT_NE(0U, second);
	EXPECT_EQ(2, vgem_attachments(_metadata, self->buf, &vgem));
	EXPECT_EQ(0, drm_close_handle(self->card, first));
	EXPECT_EQ(1, vgem_attachments(_metadata, self->buf, &vgem));
	EXPECT_EQ(0, drm_close_handle(card2, second));
	EXPECT_EQ(0, vgem_attachments(_metadata, self->buf, &vgem));
	close(card2);
}

/* A GEM handle is a user: the buffer lives until the handle is closed. */
TEST_F(vgem, handle_keeps_buffer_after_fd_closed)
{
	__u32 handle;

	ASSERT_EQ(0, drm_import(self->card, self->buf, &handle));
	close_fd(&self->buf);
	EXPECT_EQ(self->start + SZ_1M / PAGE_SZ,
		  used_now(_metadata, self->area));
	ASSERT_EQ(0, drm_close_handle(self->card, handle));
	EXPECT_EQ(self->start, used_now(_metadata, self->area));
}

/* In the child: a 1 MiB buffer holding the pattern of SEED_USER, or -1. */
static int exporter_alloc(void)
{
	void *map;
	int dev, buf;

	dev = open(DEV_DEFAULT, O_RDWR | O_CLOEXEC);
	if (dev < 0 || cmabuf_alloc_fd(dev, SZ_1M, &buf))
		return -1;
	close(dev);
	map = mmap(NULL, SZ_1M, PROT_READ | PROT_WRITE, MAP_SHARED, buf, 0);
	if (map == MAP_FAILED)
		return -1;
	pattern_fill(map, SZ_1M, SEED_USER);
	munmap(map, SZ_1M);
	return buf;
}

/*
 * The exporting child: allocate, then hand the fd over on @chan, either
 * with SCM_RIGHTS or as a number for pidfd_getfd(), which the parent
 * acknowledges on @ack; then exit.
 */
static int exporter_child(int chan, int ack, bool unix_socket)
{
	int buf = exporter_alloc();
	char c;

	if (buf < 0)
		return 1;
	if (unix_socket)
		return send_fd(chan, buf) ? 2 : 0;
	if (write(chan, &buf, sizeof(buf)) != sizeof(buf))
		return 3;
	return read(ack, &c, 1) == 1 ? 0 : 4;
}

/* In the parent: take the child's fd number @num with pidfd_getfd(). */
static int take_fd(struct __test_metadata *_metadata, pid_t pid, int num)
{
	int pidfd, fd;

	pidfd = syscall(SYS_pidfd_open, pid, 0);
	EXPECT_LE(0, pidfd);
	fd = syscall(SYS_pidfd_getfd, pidfd, num, 0);
	EXPECT_LE(0, fd);
	close(pidfd);
	return fd;
}

/*
 * A child process allocates a buffer, hands its fd to us and exits; then
 * vgem imports it, and the data the child wrote is still there.
 */
static void import_after_exit(struct __test_metadata *_metadata, int card,
			      bool unix_socket)
{
	int chan[2], ack[2] = { -1, -1 }, status, num, buf = -1;
	__u32 handle;
	void *map;
	pid_t pid;

	if (unix_socket) {
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, chan))
			SKIP(return, "no unix sockets (%s)", strerror(errno));
	} else {
		ASSERT_EQ(0, pipe2(chan, O_CLOEXEC));
		ASSERT_EQ(0, pipe2(ack, O_CLOEXEC));
	}
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(exporter_child(chan[1], ack[0], unix_socket));
	close(chan[1]);
	if (!unix_socket) {
		ASSERT_EQ((ssize_t)sizeof(num), read(chan[0], &num, sizeof(num)));
		buf = take_fd(_metadata, pid, num);
		ASSERT_EQ(1, write(ack[1], "k", 1));
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	if (unix_socket)
		ASSERT_EQ(0, recv_fd(chan[0], &buf));
	ASSERT_LE(0, buf);

	ASSERT_EQ(0, drm_import(card, buf, &handle));
	EXPECT_NE(0U, handle);
	map = mmap(NULL, SZ_1M, PROT_READ, MAP_SHARED, buf, 0);
	ASSERT_NE(MAP_FAILED, map);
	EXPECT_EQ(0UL, pattern_mismatches(map, SZ_1M, SEED_USER));
	munmap(map, SZ_1M);
	EXPECT_EQ(0, drm_close_handle(card, handle));
	close(buf);
}

TEST_F(vgem, import_after_exporter_exited_fd_over_unix_socket)
{
	import_after_exit(_metadata, self->card, true);
}

TEST_F(vgem, import_after_exporter_exited_fd_by_pidfd_getfd)
{
	import_after_exit(_metadata, self->card, false);
}

/*
 * heap: /dev/dma_heap/<name>, which allocates from the instance
 * /dev/<name>. Its absence is a SKIP only where cmabuf.ko was built
 * without dma_heap_add; a heap of that name that another exporter
 * registered first (the kernel's CMA heap names its heaps after their CMA
 * areas) is a SKIP too, since cmabuf cannot have that name. A heap that
 * cannot allocate fails every test.
 */
FIXTURE(heap) {
	int heap;
	int dev;
	int buf;
	char area[AREA_NAME_MAX];
	unsigned long long start;
};

FIXTURE_VARIANT(heap) {
	const char *name;
};

FIXTURE_VARIANT_ADD(heap, cmabuf) {
	.name = "cmabuf",
};

FIXTURE_VARIANT_ADD(heap, cmabuf_general) {
	.name = "cmabuf-general",
};

FIXTURE_VARIANT_ADD(heap, cmabuf_large) {
	.name = "cmabuf-large",
};

static int heap_alloc(int heap, __u64 len, __u32 fd_flags, int *buf)
{
	return heap_alloc_sized(heap, len, fd_flags, 0, 0,
				sizeof(struct dma_heap_allocation_data), buf);
}

/* The exp_name of the buffers that @heap hands out, into @exp. */
static int heap_exporter(int heap, char *exp, size_t size)
{
	int ret, buf;

	snprintf(exp, size, "?");
	ret = heap_alloc(heap, SZ_4K, O_RDWR | O_CLOEXEC, &buf);
	if (ret)
		return ret;
	ret = -cmabuf_fdinfo(buf, "exp_name", exp, size);
	close(buf);
	return ret;
}

FIXTURE_SETUP(heap)
{
	char path[128], exp[32];
	int ret;

	self->heap = -1;
	self->dev = -1;
	self->buf = -1;
	snprintf(path, sizeof(path), "/dev/%s", variant->name);
	if (!open_or_skip(_metadata, &self->dev, path, "cmabuf instance"))
		return;
	snprintf(path, sizeof(path), HEAP_DIR "%s", variant->name);
	self->heap = open(path, O_RDONLY | O_CLOEXEC);
	if (self->heap < 0) {
		char ko[256];

		module_path(ko, sizeof(ko), "cmabuf");
		ASSERT_FALSE(file_contains(ko, "dma_heap_add")) {
			TH_LOG("%s uses dma_heap_add but %s is absent", ko, path);
		}
		SKIP(return, "no heap %s: cmabuf.ko built without dma_heap_add",
		     path);
	}
	/*
	 * A heap that exists must allocate: only one whose buffers come from
	 * another exporter, which took the name first, is a reason to skip.
	 * cmabuf's buffers are exported under the instance's name.
	 */
	ret = heap_exporter(self->heap, exp, sizeof(exp));
	ASSERT_EQ(0, ret) {
		TH_LOG("%s exists but a 4 KiB allocation from it failed: %s",
		       path, strerror(ret));
	}
	if (strcmp(exp, variant->name))
		SKIP(return, "%s is not cmabuf's: its buffers come from '%s'",
		     path, exp);
	area_used(_metadata, self->dev, self->area, &self->start);
}

FIXTURE_TEARDOWN(heap)
{
	close_fd(&self->buf);
	close_fd(&self->heap);
	if (self->dev >= 0)
		EXPECT_EQ(self->start, used_now(_metadata, self->area));
	close_fd(&self->dev);
}

TEST_F(heap, alloc_gives_dmabuf_of_len)
{
	ASSERT_EQ(0, heap_alloc(self->heap, SZ_1M, O_RDWR | O_CLOEXEC,
				&self->buf));
	EXPECT_EQ((off_t)SZ_1M, lseek(self->buf, 0, SEEK_END));
	EXPECT_EQ(FD_CLOEXEC, fcntl(self->buf, F_GETFD) & FD_CLOEXEC);
}

TEST_F(heap, alloc_without_cloexec_gives_plain_fd)
{
	ASSERT_EQ(0, heap_alloc(self->heap, SZ_4K, O_RDWR, &self->buf));
	EXPECT_EQ(0, fcntl(self->buf, F_GETFD) & FD_CLOEXEC);
}

TEST_F(heap, alloc_rounds_len_up_to_pages)
{
	ASSERT_EQ(0, heap_alloc(self->heap, PAGE_SZ + 1, O_RDWR | O_CLOEXEC,
				&self->buf));
	EXPECT_EQ((off_t)(2 * PAGE_SZ), lseek(self->buf, 0, SEEK_END));
}

TEST_F(heap, buffer_is_zeroed)
{
	unsigned char *map;
	size_t i, nonzero = 0;

	ASSERT_EQ(0, heap_alloc(self->heap, SZ_1M, O_RDWR | O_CLOEXEC,
				&self->buf));
	map = mmap(NULL, SZ_1M, PROT_READ, MAP_SHARED, self->buf, 0);
	ASSERT_NE(MAP_FAILED, map);
	for (i = 0; i < SZ_1M; i++)
		nonzero += map[i] != 0;
	EXPECT_EQ(0UL, nonzero);
	munmap(map, SZ_1M);
}

TEST_F(heap, mmap_write_seen_by_second_mapping)
{
	void *a, *b;

	ASSERT_EQ(0, heap_alloc(self->heap, SZ_1M, O_RDWR | O_CLOEXEC,
				&self->buf));
	a = mmap(NULL, SZ_1M, PROT_READ | PROT_WRITE, MAP_SHARED, self->buf, 0);
	ASSERT_NE(MAP_FAILED, a);
	b = mmap(NULL, SZ_1M, PROT_READ, MAP_SHARED, self->buf, 0);
	ASSERT_NE(MAP_FAILED, b);
	pattern_fill(a, SZ_1M, SEED_USER);
	EXPECT_EQ(0UL, pattern_mismatches(b, SZ_1M, SEED_USER));
	munmap(a, SZ_1M);
	munmap(b, SZ_1M);
}

TEST_F(heap, readonly_fd_refuses_writable_mmap)
{
	void *map;

	ASSERT_EQ(0, heap_alloc(self->heap, SZ_4K, O_RDONLY | O_CLOEXEC,
				&self->buf));
	map = mmap(NULL, SZ_4K, PROT_READ | PROT_WRITE, MAP_SHARED,
		   self->buf, 0);
	EXPECT_EQ(MAP_FAILED, map);
	EXPECT_EQ(EACCES, errno);
}

/* Backed by the instance's allocator: from its area, back on close. */
TEST_F(heap, buffer_comes_from_instance_area)
{
	unsigned long long base, count;
	struct cmabuf_phys phys;

	ASSERT_EQ(0, heap_alloc(self->heap, SZ_1M, O_RDWR | O_CLOEXEC,
				&self->buf));
	EXPECT_EQ(self->start + SZ_1M / PAGE_SZ,
		  used_now(_metadata, self->area));
	ASSERT_EQ(0, cmabuf_phys(self->dev, self->buf, &phys));
	if (!cma_read(_metadata, self->area, "base_pfn", &base))
		return;
	if (!cma_read(_metadata, self->area, "count", &count))
		return;
	EXPECT_LE(base * PAGE_SZ, phys.phys);
	EXPECT_GE((base + count) * PAGE_SZ, phys.phys + phys.size);
	close_fd(&self->buf);
	EXPECT_EQ(self->start, used_now(_metadata, self->area));
}

TEST_F(heap, nonzero_heap_flags_refused)
{
	EXPECT_EQ(EINVAL, heap_alloc_sized(self->heap, SZ_4K, O_RDWR, 1, 0,
					   sizeof(struct dma_heap_allocation_data),
					   &self->buf));
	EXPECT_EQ(EINVAL, heap_alloc_sized(self->heap, SZ_4K, O_RDWR,
					   1ULL << 63, 0,
					   sizeof(struct dma_heap_allocation_data),
					   &self->buf));
}

TEST_F(heap, unknown_fd_flags_refused)
{
	EXPECT_EQ(EINVAL, heap_alloc(self->heap, SZ_4K, O_RDWR | O_NONBLOCK,
				     &self->buf));
	EXPECT_EQ(EINVAL, heap_alloc(self->heap, SZ_4K, O_RDWR | O_APPEND,
				     &self->buf));
}

TEST_F(heap, nonzero_input_fd_refused)
{
	EXPECT_EQ(EINVAL, heap_alloc_sized(self->heap, SZ_4K, O_RDWR, 0, 3,
					   sizeof(struct dma_heap_allocation_data),
					   &self->buf));
}

TEST_F(heap, zero_len_refused)
{
	EXPECT_EQ(EINVAL, heap_alloc(self->heap, 0, O_RDWR, &self->buf));
}

TEST_F(heap, len_beyond_area_refused)
{
	unsigned long long count;
	int ret;

	if (!cma_read(_metadata, self->area, "count", &count))
		return;
	ret = heap_alloc(self->heap, (count + 1) * PAGE_SZ, O_RDWR,
			 &self->buf);
	EXPECT_TRUE(ret == ENOMEM || ret == EINVAL) {
		TH_LOG("allocating %llu pages from %llu: %s", count + 1, count,
		       strerror(ret));
	}
}

/* An older, shorter structure: heap_flags reads as 0. */
TEST_F(heap, short_struct_accepted)
{
	ASSERT_EQ(0, heap_alloc_sized(self->heap, PAGE_SZ, O_RDWR | O_CLOEXEC,
				      0, 0,
				      offsetof(struct dma_heap_allocation_data,
					       heap_flags),
				      &self->buf));
	EXPECT_EQ((off_t)PAGE_SZ, lseek(self->buf, 0, SEEK_END));
}

/* A newer, longer structure with a zero tail. */
TEST_F(heap, long_struct_accepted)
{
	ASSERT_EQ(0, heap_alloc_sized(self->heap, PAGE_SZ, O_RDWR | O_CLOEXEC,
				      0, 0,
				      sizeof(struct dma_heap_allocation_data) + 8,
				      &self->buf));
	EXPECT_EQ((off_t)PAGE_SZ, lseek(self->buf, 0, SEEK_END));
}

/* Exported by the heap's instance, under its name, in bufinfo too. */
TEST_F(heap, heap_buffer_is_exported_by_its_instance)
{
	struct bufinfo_entry e;
	char exp[32];

	ASSERT_EQ(0, heap_alloc(self->heap, SZ_4K, O_RDWR | O_CLOEXEC,
				&self->buf));
	ASSERT_EQ(0, bufinfo_find(self->buf, &e));
	EXPECT_STREQ(variant->name, e.exp_name);
	ASSERT_EQ(0, cmabuf_fdinfo(self->buf, "exp_name", exp, sizeof(exp)));
	EXPECT_STREQ(variant->name, exp);
}

TEST_F(heap, vgem_imports_heap_buffer)
{
	__u32 handle;
	int card;

	card = vgem_open();
	if (card < 0)
		SKIP(return, "no DRM card driven by vgem");
	ASSERT_EQ(0, heap_alloc(self->heap, SZ_1M, O_RDWR | O_CLOEXEC,
				&self->buf));
	ASSERT_EQ(0, drm_import(card, self->buf, &handle));
	EXPECT_NE(0U, handle);
	EXPECT_EQ(0, drm_close_handle(card, handle));
	close(card);
}

TEST_F(heap, importer_maps_heap_buffer)
{
	struct cmabuf_importer_check chk;
	struct cmabuf_phys phys;
	int imp;

	imp = open(IMPORTER_DEV, O_RDWR | O_CLOEXEC);
	if (imp < 0)
		SKIP(return, "no %s", IMPORTER_DEV);
	ASSERT_EQ(0, heap_alloc(self->heap, SZ_1M, O_RDWR | O_CLOEXEC,
				&self->buf));
	ASSERT_EQ(0, importer_check(imp, self->buf,
				    CMABUF_IMPORTER_CHECK_VERIFY, 0, 0, &chk));
	EXPECT_EQ(STEPS_ALL & ~CMABUF_IMPORTER_STEP_BIT(CMABUF_IMPORTER_STEP_WRITE),
		  chk.steps_done);
	EXPECT_EQ(1U, chk.dma_segments);
	EXPECT_EQ(SZ_1M, chk.dma_len);
	ASSERT_EQ(0, cmabuf_phys(self->dev, self->buf, &phys));
	EXPECT_EQ(phys.phys, chk.dma_addr);
	close(imp);
}

/* bufinfo: a 4 KiB buffer as debugfs and fdinfo show it. */
FIXTURE(bufinfo) {
	int dev;
	int buf;
};

FIXTURE_SETUP(bufinfo)
{
	self->dev = -1;
	self->buf = -1;
	if (!open_or_skip(_metadata, &self->dev, DEV_DEFAULT, "cmabuf instance"))
		return;
	if (access("/sys/kernel/debug/dma_buf/bufinfo", R_OK))
		SKIP(return, "no debugfs dma_buf/bufinfo");
	ASSERT_EQ(0, cmabuf_alloc_fd(self->dev, PAGE_SZ, &self->buf));
}

FIXTURE_TEARDOWN(bufinfo)
{
	close_fd(&self->buf);
	close_fd(&self->dev);
}

#define BUF_NAME	"sharing-test"

TEST_F(bufinfo, exp_name_is_cmabuf)
{
	struct bufinfo_entry e;

	ASSERT_EQ(0, bufinfo_find(self->buf, &e));
	EXPECT_STREQ("cmabuf", e.exp_name);
	EXPECT_EQ((unsigned long long)PAGE_SZ, e.size);
	EXPECT_EQ(0, e.attached);
}

TEST_F(bufinfo, unnamed_buffer_has_no_name)
{
	struct bufinfo_entry e;

	ASSERT_EQ(0, bufinfo_find(self->buf, &e));
	EXPECT_STREQ("<none>", e.name);
}

TEST_F(bufinfo, set_name_shows_in_bufinfo)
{
	char name[] = BUF_NAME;
	struct bufinfo_entry e;

	ASSERT_EQ(0, cmabuf_ioctl_retry(self->buf, DMA_BUF_SET_NAME, name));
	ASSERT_EQ(0, bufinfo_find(self->buf, &e));
	EXPECT_STREQ(BUF_NAME, e.name);
}

TEST_F(bufinfo, set_name_shows_in_fdinfo)
{
	char name[] = BUF_NAME;
	char val[64];

	ASSERT_EQ(0, cmabuf_ioctl_retry(self->buf, DMA_BUF_SET_NAME, name));
	ASSERT_EQ(0, cmabuf_fdinfo(self->buf, "name", val, sizeof(val)));
	EXPECT_STREQ(BUF_NAME, val);
	ASSERT_EQ(0, cmabuf_fdinfo(self->buf, "exp_name", val, sizeof(val)));
	EXPECT_STREQ("cmabuf", val);
}

TEST_F(bufinfo, importer_shows_as_attached_device)
{
	struct cmabuf_importer_hold hold;
	struct cmabuf_importer_release rel = { 0 };
	struct bufinfo_entry e;
	int imp;

	imp = open(IMPORTER_DEV, O_RDWR | O_CLOEXEC);
	if (imp < 0)
		SKIP(return, "no %s", IMPORTER_DEV);
	ASSERT_EQ(0, importer_hold(imp, self->buf, 0, &hold));
	rel.handle = hold.handle;
	EXPECT_EQ(0, bufinfo_find(self->buf, &e));
	EXPECT_EQ(1, e.attached);
	EXPECT_TRUE(bufinfo_attached(&e, IMPORTER_NAME));
	ASSERT_EQ(0, cmabuf_ioctl_retry(imp, CMABUF_IMPORTER_IOC_RELEASE, &rel));
	EXPECT_EQ(0, bufinfo_find(self->buf, &e));
	EXPECT_EQ(0, e.attached);
	close(imp);
}

/*
 * importer_unload: unloading the importer drops what it holds. Last in the
 * file, since it unloads and reloads the module the fixtures above use.
 */
FIXTURE(importer_unload) {
	int dev;
	int buf;
	char ko[256];
	char area[AREA_NAME_MAX];
	unsigned long long start;
};

FIXTURE_SETUP(importer_unload)
{
	self->dev = -1;
	self->buf = -1;
	if (!open_or_skip(_metadata, &self->dev, DEV_GENERAL, "cmabuf instance"))
		return;
	if (access(IMPORTER_DEV, F_OK))
		SKIP(return, "importer not loaded");
	module_path(self->ko, sizeof(self->ko), IMPORTER_NAME);
	if (access(self->ko, R_OK))
		SKIP(return, "no %s to load the importer back from", self->ko);
	area_used(_metadata, self->dev, self->area, &self->start);
	ASSERT_EQ(0, cmabuf_alloc_fd(self->dev, SZ_1M, &self->buf));
}

FIXTURE_TEARDOWN(importer_unload)
{
	close_fd(&self->buf);
	if (access(IMPORTER_DEV, F_OK) && self->ko[0])
		EXPECT_EQ(0, rel_module_load(self->ko, NULL));
	if (self->dev >= 0)
		EXPECT_EQ(self->start, used_now(_metadata, self->area));
	close_fd(&self->dev);
}

TEST_F(importer_unload, unload_releases_held_buffers)
{
	struct cmabuf_importer_hold hold;
	int imp;

	imp = open(IMPORTER_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, imp);
	ASSERT_EQ(0, importer_hold(imp, self->buf, 0, &hold));
	ASSERT_EQ(0, importer_hold(imp, self->buf, CMABUF_IMPORTER_HOLD_MAP,
				   &hold));
	close(imp);
	close_fd(&self->buf);
	EXPECT_EQ(self->start + SZ_1M / PAGE_SZ,
		  used_now(_metadata, self->area));

	ASSERT_EQ(0, rel_module_unload(IMPORTER_NAME));
	EXPECT_NE(0, access(IMPORTER_DEV, F_OK));
	EXPECT_EQ(self->start, used_now(_metadata, self->area));

	ASSERT_EQ(0, rel_module_load(self->ko, NULL));
	EXPECT_EQ(0, access(IMPORTER_DEV, F_OK));
}

TEST_HARNESS_MAIN
