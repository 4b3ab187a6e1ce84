// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf_security: what the driver must never give away.
 *
 *  - no stale data: buffers are filled, freed and allocated again (on the
 *    same pages, which the test checks it gets), a thousand times per
 *    strategy and through the dma-heaps, and not one byte of a new buffer
 *    may be non-zero;
 *  - CMABUF_IOC_PHYS needs CAP_SYS_RAWIO, exactly: an unprivileged user
 *    and root without that one capability get EPERM;
 *  - privilege is the caller's at the time of the call: a file root
 *    opened and passed to nobody lifts none of nobody's limits;
 *  - the benchmark's debugfs file is root's, mode 0600: nobody cannot
 *    open it (EACCES), whatever the device nodes' mode; debugfs checks
 *    the file's mode and owner, no capability, so root without any
 *    capability runs it, as the file's owner;
 *  - the device nodes are root's, mode 0600, unless the mode parameter
 *    says otherwise (checked by reloading the module where it can be);
 *  - no mapping beyond the buffer or private mapping, no writable mapping
 *    of a read-only fd, no way to grow a mapping;
 *  - PHYS answers for cmabuf's dma-bufs only.
 *
 * CMABUF_SECURITY_CYCLES sets the cycles per strategy (default 1000).
 * Output is TAP, from the kselftest harness.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/dma-heap.h>
#include <drm.h>
#include <drm_mode.h>

#include "kselftest_harness.h"
#include "kbench.h"
#include "cmabuf_test_util.h"
#include "reliability_util.h"
#include "vgem_util.h"

/* sec_without(): become nobody, or keep uid 0 and drop every capability. */
#define SEC_NOBODY	(-1)
#define SEC_NO_CAPS	(-2)

static int sec_alloc(int dev, __u64 size, __u32 strategy,
		     __u32 fd_flags)
{
	struct cmabuf_alloc_data d = {
		.size = size,
		.fd_flags = fd_flags,
		.flags = strategy,
	};
	int err = cmabuf_ioctl(dev, CMABUF_IOC_ALLOC, &d);

	return err ? -err : (int)d.fd;
}

static int sec_cycles(void)
{
	const char *s = getenv("CMABUF_SECURITY_CYCLES");

	return s ? atoi(s) : 1000;
}

/* ---- no stale data ---- */

FIXTURE(stale) {
	struct rel_instance inst[REL_MAX_INSTANCES];
	unsigned int ninst;
	int dev[REL_MAX_INSTANCES];
	int heap[REL_MAX_INSTANCES];
	struct rel_snapshot base;
};

/**
 * struct _fixture_variant_stale - how the buffers are allocated
 * @strategy: the %CMABUF_STRATEGY_* asked for.
 * @heap: through the instance's dma-heap (AUTO) instead of the ioctl.
 */
FIXTURE_VARIANT(stale) {
	__u32 strategy;
	bool heap;
};

FIXTURE_VARIANT_ADD(stale, auto) {
	.strategy = CMABUF_STRATEGY_AUTO,
};

FIXTURE_VARIANT_ADD(stale, compound) {
	.strategy = CMABUF_STRATEGY_COMPOUND,
};

FIXTURE_VARIANT_ADD(stale, frozen) {
	.strategy = CMABUF_STRATEGY_FROZEN,
};

FIXTURE_VARIANT_ADD(stale, legacy) {
	.strategy = CMABUF_STRATEGY_LEGACY,
};

/* Cleared once, by the DMA API: on the instances that offer DMA. */
FIXTURE_VARIANT_ADD(stale, dma) {
	.strategy = CMABUF_STRATEGY_DMA,
};

FIXTURE_VARIANT_ADD(stale, heap) {
	.strategy = CMABUF_STRATEGY_AUTO,
	.heap = true,
};

FIXTURE_SETUP(stale)
{
	char path[128];
	unsigned int i;

	ASSERT_EQ(0, rel_instances(self->inst, REL_MAX_INSTANCES,
				   &self->ninst));
	ASSERT_LT(0U, self->ninst);
	for (i = 0; i < self->ninst; i++) {
		self->dev[i] = rel_instance_open(self->inst[i].name, O_RDWR);
		ASSERT_LE(0, self->dev[i]);
		snprintf(path, sizeof(path), "/dev/dma_heap/%s",
			 self->inst[i].name);
		self->heap[i] = open(path, O_RDONLY | O_CLOEXEC);
	}
	ASSERT_EQ(0, rel_snapshot_take(self->inst, self->ninst, &self->base));
}

FIXTURE_TEARDOWN(stale)
{
	unsigned int i;

	for (i = 0; i < self->ninst; i++) {
		close(self->dev[i]);
		if (self->heap[i] >= 0)
			close(self->heap[i]);
	}
}

/*
 * The instance and size of cycle @c: runs of ten cycles of one size on
 * one instance, so that each allocation tends to land on the pages the
 * previous one filled; every 250th cycle a large buffer, and cycle 500 a
 * 1 GiB one on the largest area when it has 1 GiB.
 */
static __u64 stale_cycle(const struct rel_instance *insts, unsigned int n,
			 __u32 strategy, int c, unsigned int *inst, bool *big)
{
	static const __u64 small[] = {
		4096, 8192, 3 * 4096, 64 << 10, 1 << 20, (2 << 20) - 4096,
	};
	const struct rel_instance *in;
	unsigned int i;
	__u64 area;

	*inst = c / 50 % n;
	if (c == 500) {
		for (i = 0; i < n; i++)
			if (insts[i].total_pages > insts[*inst].total_pages)
				*inst = i;
	}
	in = &insts[*inst];
	area = in->total_pages * in->page_size;
	*big = c % 250 == 125 || (c == 500 && area >= BIT_ULL(30));
	if (c == 500 && *big)
		return BIT_ULL(30);
	if (*big)
		return area >= (256ULL << 20) ? 64ULL << 20 : 16ULL << 20;
	if (strategy == CMABUF_STRATEGY_COMPOUND)
		return ((__u64)in->page_size << in->min_order) <<
		       (c / 10 % 2);
	return small[c / 10 % 6];
}

/* A buffer from the device @dev, or from the dma-heap @heap if >= 0. */
static int stale_alloc(int dev, int heap, __u32 strategy, __u64 size, int *fd)
{
	int ret;

	if (heap >= 0)
		return heap_alloc_sized(heap, size, O_RDWR | O_CLOEXEC, 0, 0,
					sizeof(struct dma_heap_allocation_data), fd);
	ret = sec_alloc(dev, size, strategy, O_RDWR | O_CLOEXEC);
	*fd = ret;
	return ret < 0 ? -ret : 0;
}

/* Where a buffer lives, 0 when PHYS does not tell. */
static __u64 stale_phys(int dev, int fd)
{
	struct cmabuf_phys phys = { .fd = fd };

	return cmabuf_ioctl(dev, CMABUF_IOC_PHYS, &phys) ? 0 : phys.phys;
}

TEST_F_TIMEOUT(stale, no_stale_data, 1500)
{
	int c, n = sec_cycles(), fd, err, reused = 0, bigs = 0, n_skipped = 0;
	unsigned int offered;
	__u64 size, phys, prev = 0, prev_size = 0;
	const struct rel_instance *in;
	struct rel_snapshot now;
	char why[256];
	size_t bad;
	unsigned int i;
	__u8 *map;
	bool big;

	for (i = 0; i < self->ninst && variant->heap; i++)
		if (self->heap[i] < 0)
			SKIP(return, "no dma-heap of %s", self->inst[i].name);
	for (i = 0, offered = 0; i < self->ninst; i++)
		offered += !!(self->inst[i].strategies &
			      CMABUF_STRATEGY_BIT(variant->strategy));
	if (!offered)
		SKIP(return, "strategy %u not supported here", variant->strategy);

	for (c = 0; c < n; c++) {
		size = stale_cycle(self->inst, self->ninst, variant->strategy,
				   c, &i, &big);
		in = &self->inst[i];
		/* DMA: not where the instance does not know its area. */
		if (!(in->strategies & CMABUF_STRATEGY_BIT(variant->strategy))) {
			n_skipped++;
			continue;
		}
		err = stale_alloc(self->dev[i],
				  variant->heap ? self->heap[i] : -1,
				  variant->strategy, size, &fd);
		ASSERT_EQ(0, err) {
			TH_LOG("cycle %d: %llu bytes on %s: %s", c,
			       (unsigned long long)size, in->name,
			       rel_errname(err));
		}
		map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			   0);
		ASSERT_NE(MAP_FAILED, map);

		/* Every byte, not a sample. */
		bad = cmabuf_first_nonzero(map, size);
		EXPECT_EQ(size, bad) {
			TH_LOG("cycle %d: byte %zu of %llu on %s is %#x", c, bad,
			       (unsigned long long)size, in->name, map[bad]);
		}
		phys = stale_phys(self->dev[i], fd);
		if (prev && phys < prev + prev_size && prev < phys + size)
			reused++;
		prev = phys;
		prev_size = size;
		bigs += big;

		/* Leave something for the next one to find. */
		memset(map, (0xa5 ^ c) | 1, size);
		ASSERT_EQ(0, munmap(map, size));
		ASSERT_EQ(0, close(fd));
		/* Back in the area, where the next allocation looks first. */
		ASSERT_EQ(0, rel_instance_settle(in->name, REL_SETTLE_MS));
	}
	TH_LOG("%d cycles (%d left out: no such strategy), %d large, %d reused pages just filled",
	       n, n_skipped, bigs, reused);
	/* Without reuse the test would prove nothing. */
	EXPECT_LT((n - n_skipped) / 4, reused);
	EXPECT_EQ(0, rel_snapshot_settle(self->inst, self->ninst, &self->base,
					 3000, &now, why, sizeof(why))) {
		TH_LOG("%s", why);
	}
}

/* ---- capabilities ---- */

FIXTURE(sec) {
	struct rel_instance inst[REL_MAX_INSTANCES];
	unsigned int ninst;
	int dev;
	int buf;
};

FIXTURE_SETUP(sec)
{
	ASSERT_EQ(0, rel_instances(self->inst, REL_MAX_INSTANCES,
				   &self->ninst));
	ASSERT_LT(0U, self->ninst);
	self->dev = rel_instance_open(self->inst[0].name, O_RDWR);
	ASSERT_LE(0, self->dev);
	self->buf = sec_alloc(self->dev, 16 * 4096, CMABUF_STRATEGY_AUTO,
			      O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->buf);
}

FIXTURE_TEARDOWN(sec)
{
	close(self->buf);
	close(self->dev);
}

/* Drop one capability from every set of this process. */
static int sec_drop_cap(int cap)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return errno;
	data[cap / 32].effective &= ~(1U << (cap % 32));
	data[cap / 32].permitted &= ~(1U << (cap % 32));
	data[cap / 32].inheritable &= ~(1U << (cap % 32));
	return syscall(SYS_capset, &hdr, data) ? errno : 0;
}

/* Drop every capability of this process; its uid stays 0. */
static int sec_drop_all_caps(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = { 0 };

	return syscall(SYS_capset, &hdr, data) ? errno : 0;
}

/* Give up @cap, or become %SEC_NOBODY, or keep no capability at all. */
static int sec_without(int cap)
{
	if (cap == SEC_NOBODY)
		return cmabuf_become_nobody();
	if (cap == SEC_NO_CAPS)
		return sec_drop_all_caps();
	return sec_drop_cap(cap);
}

/*
 * The errno @act(@arg) returns in a child that first gave up @cap (see
 * sec_without()); -1 when the child could not.
 */
static int sec_child_without(int cap, int (*act)(const void *arg),
			     const void *arg)
{
	return cmabuf_in_child(sec_without, cap, act, arg);
}

/**
 * struct sec_ioctl_call - an ioctl for sec_child_without()
 * @fd: the file.
 * @cmd: the command.
 * @arg: its argument.
 */
struct sec_ioctl_call {
	int fd;
	unsigned long cmd;
	void *arg;
};

static int sec_ioctl_act(const void *p)
{
	const struct sec_ioctl_call *c = p;

	return cmabuf_ioctl(c->fd, c->cmd, c->arg);
}

/* The errno of @cmd on @fd once @cap is given up; -1 if it could not be. */
static int sec_ioctl_without(int cap, int fd, unsigned long cmd, void *arg)
{
	const struct sec_ioctl_call c = { fd, cmd, arg };

	return sec_child_without(cap, sec_ioctl_act, &c);
}

/* ---- the benchmark's debugfs file ---- */

/* The bench file of the first instance; fails when there is none. */
static void sec_bench_path(struct __test_metadata *_metadata,
			   const struct rel_instance *in, char *path,
			   size_t size)
{
	struct stat st;

	ASSERT_EQ(0, kbench_path(in->name, path, size));
	/* rel_instances() mounted debugfs: the driver must have made it. */
	ASSERT_EQ(0, stat(path, &st)) TH_LOG("%s: %s", path, strerror(errno));
}

/* A one-page run of the bench file @path: the errno of the open or write. */
static int sec_bench_act(const void *path)
{
	char report[1024];

	return -kbench_request(path, "pages=1 iterations=1\n", report,
			       sizeof(report));
}

/* The same once @cap is given up; -1 if it could not be. */
static int sec_bench_without(int cap, const char *path)
{
	return sec_child_without(cap, sec_bench_act, path);
}

TEST_F(sec, bench_file_is_roots_0600)
{
	char path[PATH_MAX];
	struct stat st;

	sec_bench_path(_metadata, &self->inst[0], path, sizeof(path));
	ASSERT_EQ(0, stat(path, &st));
	EXPECT_TRUE(S_ISREG(st.st_mode));
	EXPECT_EQ(0600U, st.st_mode & 07777)
		TH_LOG("%s: mode %o", path, st.st_mode & 07777);
	EXPECT_EQ(0U, st.st_uid);
	EXPECT_EQ(0U, st.st_gid);
}

TEST_F(sec, bench_file_refused_to_nobody)
{
	char path[PATH_MAX];

	sec_bench_path(_metadata, &self->inst[0], path, sizeof(path));
	EXPECT_EQ(EACCES, sec_bench_without(SEC_NOBODY, path));
}

/*
 * debugfs asks for no capability (fs/debugfs: the file's mode and owner,
 * and the kernel's lockdown): root is the owner and runs the benchmark
 * without CAP_SYS_ADMIN, or without any capability at all.
 */
TEST_F(sec, bench_file_needs_root_not_a_capability)
{
	char path[PATH_MAX];

	sec_bench_path(_metadata, &self->inst[0], path, sizeof(path));
	EXPECT_EQ(0, sec_bench_without(CAP_SYS_ADMIN, path));
	EXPECT_EQ(0, sec_bench_without(SEC_NO_CAPS, path));
	EXPECT_EQ(0, sec_bench_without(CAP_SYS_RAWIO, path));
}

TEST_F(sec, phys_refused_to_nobody)
{
	struct cmabuf_phys p = { .fd = self->buf };

	EXPECT_EQ(EPERM, sec_ioctl_without(SEC_NOBODY, self->dev, CMABUF_IOC_PHYS,
					   &p));
}

TEST_F(sec, phys_refused_without_cap_sys_rawio)
{
	struct cmabuf_phys p = { .fd = self->buf };

	EXPECT_EQ(EPERM, sec_ioctl_without(CAP_SYS_RAWIO, self->dev,
					   CMABUF_IOC_PHYS, &p));
	memset(&p, 0, sizeof(p));
	p.fd = self->buf;
	EXPECT_EQ(0, sec_ioctl_without(CAP_SYS_ADMIN, self->dev,
				       CMABUF_IOC_PHYS, &p));
}

/* ---- privilege is the caller's, not the opener's ---- */

#define SEC_CAP		(8 * 1024 * 1024ULL)	/* the cap the test sets */
#define SEC_CAP_BUF	(4 * 1024 * 1024ULL)

/*
 * What a caller gets, in order: ALLOC past the cap, PREPARE past the cap,
 * PREPARE with the longest timeout; each an errno.
 */
struct sec_limits {
	int alloc_past_cap;
	int prepare_past_cap;
	int prepare_long_timeout;
};

static void sec_limits_try(int dev, struct sec_limits *r)
{
	struct cmabuf_prepare p;
	int fd;

	fd = sec_alloc(dev, SEC_CAP + 4096, CMABUF_STRATEGY_AUTO,
		       O_RDWR | O_CLOEXEC);
	r->alloc_past_cap = fd < 0 ? -fd : 0;
	if (fd >= 0)
		close(fd);
	r->prepare_past_cap = cmabuf_prepare(dev, SEC_CAP_BUF, 0, 3, 0, &p);
	if (!r->prepare_past_cap)
		cmabuf_prepare(dev, SEC_CAP_BUF, 0, 0, 0, &p);
	r->prepare_long_timeout = cmabuf_prepare(dev, 4096, 0, 1, UINT32_MAX,
						 &p);
	if (!r->prepare_long_timeout)
		cmabuf_prepare(dev, 4096, 0, 0, 0, &p);
}

static int sec_send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	char byte = 0;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : errno;
}

static int sec_recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/*
 * A process of nobody, which cannot open the device, is sent a file root
 * opened (SCM_RIGHTS): it gets none of root's privilege through it. Past
 * the per-user cap its ALLOC and its PREPARE are EDQUOT, a PREPARE's
 * timeout past prepare_max_timeout_ms is EPERM, while root, on the same
 * file, gets all three. One rule for ALLOC and PREPARE: the caller's
 * CAP_SYS_ADMIN at the time of the call (before, PREPARE counted against
 * no cap and took any timeout).
 */
TEST_F_TIMEOUT(sec, passed_fd_gives_no_privilege, 60)
{
	struct sec_limits root, got = { -1, -1, -1 };
	char was[32], cap[32];
	int sv[2], status, fd;
	pid_t pid;

	if (cmabuf_sysfs_read_str(self->dev, "unprivileged_max_bytes", was,
				  sizeof(was)))
		SKIP(return, "%s has no cap", self->inst[0].name);
	snprintf(cap, sizeof(cap), "%llu", SEC_CAP);
	ASSERT_EQ(0, cmabuf_sysfs_write(self->dev, "unprivileged_max_bytes",
					cap));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(sv[0]);
		if (cmabuf_become_nobody())
			_exit(1);
		fd = sec_recv_fd(sv[1]);
		if (fd < 0)
			_exit(2);
		sec_limits_try(fd, &got);
		_exit(write(sv[1], &got, sizeof(got)) == sizeof(got) ? 0 : 3);
	}
	close(sv[1]);
	fd = rel_instance_open(self->inst[0].name, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, sec_send_fd(sv[0], fd));
	EXPECT_EQ((ssize_t)sizeof(got), read(sv[0], &got, sizeof(got)));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	close(sv[0]);

	EXPECT_EQ(EDQUOT, got.alloc_past_cap);
	EXPECT_EQ(EDQUOT, got.prepare_past_cap);
	EXPECT_EQ(EPERM, got.prepare_long_timeout);
	sec_limits_try(fd, &root);
	EXPECT_EQ(0, root.alloc_past_cap);
	EXPECT_EQ(0, root.prepare_past_cap);
	EXPECT_EQ(0, root.prepare_long_timeout);
	close(fd);
	EXPECT_EQ(0, cmabuf_sysfs_write(self->dev, "unprivileged_max_bytes",
					was));
}

/* nobody may not even open the device. */
TEST_F(sec, nobody_cannot_open_devices)
{
	unsigned int i;
	int status;
	pid_t pid;

	for (i = 0; i < self->ninst; i++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			if (cmabuf_become_nobody())
				_exit(255);
			_exit(rel_instance_open(self->inst[i].name, O_RDWR) < 0 ?
			      errno : 0);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		EXPECT_EQ(EACCES, WEXITSTATUS(status)) {
			TH_LOG("/dev/%s", self->inst[i].name);
		}
	}
}

/* ---- device node mode ---- */

static int sec_node_mode(const char *name, struct stat *st)
{
	char path[128];

	snprintf(path, sizeof(path), "/dev/%s", name);
	return stat(path, st) ? errno : 0;
}

TEST_F(sec, device_nodes_are_root_0600)
{
	unsigned long long mode = 0;
	struct stat st;
	unsigned int i;

	for (i = 0; i < self->ninst; i++) {
		ASSERT_EQ(0, sec_node_mode(self->inst[i].name, &st));
		EXPECT_TRUE(S_ISCHR(st.st_mode));
		EXPECT_EQ(0600U, st.st_mode & 07777) {
			TH_LOG("/dev/%s: mode %o", self->inst[i].name,
			       st.st_mode & 07777);
		}
		EXPECT_EQ(0U, st.st_uid);
		EXPECT_EQ(0U, st.st_gid);
	}
	ASSERT_EQ(0, rel_read_ull("/sys/module/cmabuf/parameters/mode",
				  &mode));
	EXPECT_EQ(0600ULL, mode);
}

static bool sec_nodes_ready(const struct rel_instance *inst, unsigned int n)
{
	struct stat st;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (sec_node_mode(inst[i].name, &st))
			return false;
	return true;
}

static int sec_reload(const struct rel_instance *inst, unsigned int n,
		      const char *params)
{
	__u64 end;
	int err;

	err = rel_module_unload(REL_MODULE_NAME);
	if (err)
		return err;
	err = rel_module_load(REL_MODULE_PATH, params);
	if (err)
		return err;
	end = rel_now_ns() + 5 * 1000000000ULL;
	while (!sec_nodes_ready(inst, n) && rel_now_ns() < end)
		usleep(1000);
	return sec_nodes_ready(inst, n) ? 0 : ETIMEDOUT;
}

/*
 * mode=0666 opens the nodes to everyone (with heap=0, so that the module
 * can be unloaded again), yet PHYS stays with its capability and the
 * bench file with root; the default parameters give 0600 back.
 */
TEST_F_TIMEOUT(sec, mode_parameter_sets_node_mode, 120)
{
	char path[PATH_MAX];
	struct stat st;
	unsigned int i;
	int status;
	pid_t pid;

	if (rel_module_pinned())
		SKIP(return, "%s", REL_PINNED_REASON);
	close(self->buf);
	close(self->dev);
	self->buf = -1;
	self->dev = -1;

	ASSERT_EQ(0, sec_reload(self->inst, self->ninst, "heap=0 mode=0666"));
	for (i = 0; i < self->ninst; i++) {
		ASSERT_EQ(0, sec_node_mode(self->inst[i].name, &st));
		EXPECT_EQ(0666U, st.st_mode & 07777);
	}
	sec_bench_path(_metadata, &self->inst[0], path, sizeof(path));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int dev, fd;

		if (cmabuf_become_nobody())
			_exit(255);
		dev = rel_instance_open(self->inst[0].name, O_RDWR);
		if (dev < 0)
			_exit(1);
		fd = sec_alloc(dev, 4096, CMABUF_STRATEGY_AUTO, O_RDWR);
		if (fd < 0)
			_exit(2);
		if (open(path, O_RDWR | O_CLOEXEC) >= 0 || errno != EACCES)
			_exit(3);
		{
			struct cmabuf_phys p = { .fd = fd };

			if (cmabuf_ioctl(dev, CMABUF_IOC_PHYS, &p) != EPERM)
				_exit(4);
		}
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) {
		TH_LOG("nobody with mode 0666: status %#x", status);
	}

	ASSERT_EQ(0, sec_reload(self->inst, self->ninst, "heap=0"));
	for (i = 0; i < self->ninst; i++) {
		ASSERT_EQ(0, sec_node_mode(self->inst[i].name, &st));
		EXPECT_EQ(0600U, st.st_mode & 07777);
	}
	self->dev = rel_instance_open(self->inst[0].name, O_RDWR);
	ASSERT_LE(0, self->dev);
	self->buf = sec_alloc(self->dev, 4096, CMABUF_STRATEGY_AUTO, O_RDWR);
}

/* ---- mappings ---- */

TEST_F(sec, map_private_refused)
{
	unsigned int i;
	int dev, fd;
	void *p;

	for (i = 0; i < self->ninst; i++) {
		dev = rel_instance_open(self->inst[i].name, O_RDWR);
		ASSERT_LE(0, dev);
		fd = sec_alloc(dev, 4 * 4096, CMABUF_STRATEGY_AUTO,
			       O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, fd);
		p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
		EXPECT_EQ(MAP_FAILED, p);
		EXPECT_EQ(EINVAL, errno);
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd,
			 0);
		EXPECT_EQ(MAP_FAILED, p);
		EXPECT_EQ(EINVAL, errno);
		close(fd);
		close(dev);
	}
}

TEST_F(sec, map_past_the_end_refused)
{
	const size_t page = 4096, size = 16 * page;
	static const struct {
		size_t len;
		off_t off;
	} bad[] = {
		{ 17 * 4096, 0 },
		{ 4096, 16 * 4096 },
		{ 2 * 4096, 15 * 4096 },
		{ 4096, 1L << 40 },
		{ 16 * 4096, 4096 },
		{ 16 * 4096 + 1, 0 },
	};
	unsigned int i;
	int fd;
	void *p;

	fd = sec_alloc(self->dev, size, CMABUF_STRATEGY_AUTO,
		       O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		p = mmap(NULL, bad[i].len, PROT_READ | PROT_WRITE, MAP_SHARED,
			 fd, bad[i].off);
		EXPECT_EQ(MAP_FAILED, p) {
			TH_LOG("%zu bytes at %lld mapped", bad[i].len,
			       (long long)bad[i].off);
			munmap(p, bad[i].len);
		}
		EXPECT_EQ(EINVAL, errno);
	}
	/* The last page alone is fine. */
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, size - page);
	EXPECT_NE(MAP_FAILED, p);
	munmap(p, page);
	close(fd);
}

TEST_F(sec, mapping_cannot_grow)
{
	const size_t page = 4096, size = 4 * page;
	void *p, *q;
	int fd;

	fd = sec_alloc(self->dev, size, CMABUF_STRATEGY_AUTO,
		       O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	q = mremap(p, size, size + page, MREMAP_MAYMOVE);
	EXPECT_EQ(MAP_FAILED, q);
	EXPECT_EQ(EFAULT, errno);
	q = mremap(p, size, size + page, 0);
	EXPECT_EQ(MAP_FAILED, q);
	munmap(p, size);
	close(fd);
}

TEST_F(sec, read_only_fd_cannot_map_writable)
{
	const size_t size = 4 * 4096;
	void *p;
	int fd;

	fd = sec_alloc(self->dev, size, CMABUF_STRATEGY_AUTO,
		       O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EACCES, errno);
	p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-1, mprotect(p, size, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	munmap(p, size);
	close(fd);
}

/* ---- PHYS on what cmabuf did not export ---- */

TEST_F(sec, phys_refuses_system_heap_buffer)
{
	struct cmabuf_phys p = { 0 };
	int heap, buf;

	heap = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);
	if (heap < 0)
		SKIP(return, "no system dma-heap");
	ASSERT_EQ(0, heap_alloc_sized(heap, 4 * 4096, O_RDWR | O_CLOEXEC, 0,
				      0, sizeof(struct dma_heap_allocation_data),
				      &buf));
	p.fd = buf;
	EXPECT_EQ(EINVAL, cmabuf_ioctl(self->dev, CMABUF_IOC_PHYS, &p));
	EXPECT_EQ(0ULL, p.phys);
	close(buf);
	close(heap);
}

TEST_F(sec, phys_refuses_vgem_buffer)
{
	struct drm_mode_create_dumb dumb = {
		.width = 64,
		.height = 64,
		.bpp = 32,
	};
	struct drm_prime_handle prime = { 0 };
	struct cmabuf_phys p = { 0 };
	int card, buf;

	card = vgem_open();
	if (card < 0)
		SKIP(return, "no vgem card");
	ASSERT_EQ(0, cmabuf_ioctl(card, DRM_IOCTL_MODE_CREATE_DUMB, &dumb));
	prime.handle = dumb.handle;
	prime.flags = DRM_CLOEXEC;
	ASSERT_EQ(0, cmabuf_ioctl(card, DRM_IOCTL_PRIME_HANDLE_TO_FD, &prime));
	buf = prime.fd;
	p.fd = buf;
	EXPECT_EQ(EINVAL, cmabuf_ioctl(self->dev, CMABUF_IOC_PHYS, &p));
	close(buf);
	close(card);
}

TEST_F(sec, phys_refuses_other_files)
{
	struct cmabuf_phys p = { 0 };
	int null;

	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, null);
	p.fd = null;
	EXPECT_EQ(EINVAL, cmabuf_ioctl(self->dev, CMABUF_IOC_PHYS, &p));
	p.fd = self->dev;
	EXPECT_EQ(EINVAL, cmabuf_ioctl(self->dev, CMABUF_IOC_PHYS, &p));
	close(null);
	p.fd = null;
	EXPECT_EQ(EBADF, cmabuf_ioctl(self->dev, CMABUF_IOC_PHYS, &p));
	/* And its own buffers, of course, it does tell. */
	p.fd = self->buf;
	EXPECT_EQ(0, cmabuf_ioctl(self->dev, CMABUF_IOC_PHYS, &p));
	EXPECT_NE(0ULL, p.phys);
}

TEST_HARNESS_MAIN
