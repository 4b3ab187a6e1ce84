// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf_faults: every way into cmabuf with the kernel's allocations and
 * user copies made to fail, one failure point at a time (fault injection:
 * CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAULT_INJECTION_USERCOPY,
 * on the debug kernel).
 *
 * For each operation, N = 1, 2, ... is written to /proc/thread-self/fail-nth
 * right before its one system call: the Nth kmalloc, page allocation or
 * user copy of that call fails. fail-nth reads 0 afterwards when the call
 * got that far, and then the call must have succeeded or failed with an
 * errno its contract allows; once cleaned up, no fd may be left behind and
 * every instance's live counters and CMA area must be as before. The loop
 * ends at the first N the call does not reach, which must succeed. The
 * operations: open, INFO, ALLOC with every strategy, PHYS, a request to
 * the debugfs bench file, mmap,
 * DMA_BUF_IOCTL_SYNC, an importer's attach and map (CHECK, HOLD), a
 * dma-heap ALLOC, PREPARE (its want), a write to the sysfs reserve, the
 * last close() of a buffer (the note that queues its pages), and binding
 * instances of each kind, which runs misc_register(), the pool's shrinker
 * and, for a name not seen before, dma_heap_add(); a node with a reserve
 * makes its want in the probe. The pool's worker allocates outside the
 * caller's task, where fail-nth does not reach: failslab is aimed at the
 * unbound kworkers for that (task-filter). The
 * kmemleak suite, last, finds what a failure path leaked.
 *
 * Runs after heap-defaults, with the dma-heaps registered. Prints
 * "# record: faults calls=C injected=N", N failures that really happened.
 * Output is TAP, from the kselftest harness.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/cmabuf.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>

#include "kselftest_harness.h"
#include "cmabuf_importer.h"
#include "kbench.h"
#include "reliability_util.h"

#define FI_FAIL_NTH	"/proc/thread-self/fail-nth"
#define FI_DEBUGFS	"/sys/kernel/debug"
#define FI_DEVICES	"/sys/bus/platform/devices"
#define FI_MAX_POINTS	4000
#define SETTLE_MS	3000
/*
 * A test walks every injection point and compares the counters after each:
 * hundreds of comparisons, each up to a second on the debug kernel under
 * emulation. The harness's 30 s would end it half way; a hang still ends.
 */
#define FI_TIMEOUT	900

/* What the whole run counted, shared with the harness's parent. */
struct fi_record {
	unsigned long long calls;
	unsigned long long injected;
};

static struct fi_record *record;

static void __attribute__((constructor)) fi_record_init(void)
{
	record = mmap(NULL, sizeof(*record), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (record == MAP_FAILED)
		record = NULL;
}

/* Runs in the harness's own process only: its tests end with _exit(). */
static void __attribute__((destructor)) fi_record_report(void)
{
	if (record)
		printf("# record: faults calls=%llu injected=%llu\n",
		       record->calls, record->injected);
}

/**
 * struct fi_ctx - what the operations work on
 * @fail_nth: /proc/thread-self/fail-nth, open.
 * @inst: the instances.
 * @ninst: entries in @inst.
 * @base: their counters before the test.
 * @dev: /dev/cmabuf-general.
 * @general: its description.
 * @buf: a 2 MiB buffer of it, for the calls that need one.
 * @bench: its debugfs bench file, when a test opened it; else -1.
 * @imp: /dev/cmabuf_importer.
 * @fd: a file descriptor an operation made, -1 when none.
 * @handle: an importer hold an operation took, 0 when none.
 * @map: a mapping an operation made, MAP_FAILED when none.
 * @check: the result of an importer CHECK.
 * @node: the platform device a bind operation binds.
 * @misc: the device node it must get.
 */
struct fi_ctx {
	int fail_nth;
	struct rel_instance inst[REL_MAX_INSTANCES];
	unsigned int ninst;
	struct rel_snapshot base;
	int dev;
	const struct rel_instance *general;
	int buf;
	int bench;
	int imp;
	int fd;
	__u32 handle;
	void *map;
	struct cmabuf_importer_check check;
	const char *node;
	const char *misc;
};

/**
 * struct fi_op - one operation under fault injection
 * @name: what it is.
 * @call: the one system call; returns 0 or its errno.
 * @undo: undoes what the call made (@fd, @handle, @map); runs after a
 *	failed call too, which may have changed something before it failed
 *	(PREPARE sets the want before it copies the result back).
 * @allowed: errnos its contract allows under failing allocations and
 *	copies, 0-terminated.
 */
struct fi_op {
	const char *name;
	int (*call)(struct fi_ctx *ctx);
	void (*undo)(struct fi_ctx *ctx);
	int allowed[4];
};

static int fi_errno(int ret)
{
	return ret < 0 ? errno : 0;
}

/* Make the @nth failure point of this thread's next calls fail. */
static int fi_arm(struct fi_ctx *ctx, unsigned int nth)
{
	char s[16];
	int len = snprintf(s, sizeof(s), "%u", nth);

	return pwrite(ctx->fail_nth, s, len, 0) == len ? 0 : errno;
}

/*
 * Stop injecting; true when the armed failure happened. Reading fail-nth
 * is a user copy too: with one point left it fails (EFAULT), which means
 * the call did not get that far.
 */
static bool fi_disarm(struct fi_ctx *ctx)
{
	char s[16] = "";
	ssize_t n = pread(ctx->fail_nth, s, sizeof(s) - 1, 0);

	/* Writing 0 always leaves 0, even when its own copy fails. */
	if (pwrite(ctx->fail_nth, "0", 1, 0) < 0 && errno != EFAULT)
		return false;
	return n > 0 && strtoul(s, NULL, 10) == 0;
}

static int fi_write(const char *dir, const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), FI_DEBUGFS "/%s/%s", dir, file);
	return rel_write_str(path, val);
}

/*
 * Let fail-nth reach every kmalloc and page allocation a call makes, those
 * that may sleep and order 0 too, and keep the console free of the
 * injector's own reports (a stack dump there would read as a kernel splat).
 */
static int fi_setup_attrs(void)
{
	static const char * const dirs[] = {
		"failslab", "fail_page_alloc", "fail_usercopy",
	};
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		ret = fi_write(dirs[i], "verbose", "0");
		if (ret)
			return ret;
	}
	ret = fi_write("failslab", "ignore-gfp-wait", "N");
	if (!ret)
		ret = fi_write("fail_page_alloc", "ignore-gfp-wait", "N");
	if (!ret)
		ret = fi_write("fail_page_alloc", "min-order", "0");
	return ret;
}

static int fi_count_fds(void)
{
	struct dirent *de;
	int n = 0;
	DIR *dir;

	dir = opendir("/proc/self/fd");
	if (!dir)
		return -1;
	while ((de = readdir(dir)))
		n += de->d_name[0] != '.';
	closedir(dir);
	return n;
}

static bool fi_allowed(const struct fi_op *op, int err)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(op->allowed) && op->allowed[i]; i++)
		if (op->allowed[i] == err)
			return true;
	return !err;
}

static void fi_undo(struct fi_ctx *ctx, const struct fi_op *op)
{
	if (op->undo)
		op->undo(ctx);
	if (ctx->fd >= 0)
		close(ctx->fd);
	ctx->fd = -1;
}

/* Grow the stack by more than any call below needs. */
static void __attribute__((noinline)) fi_touch_stack(void)
{
	char deep[128 << 10];

	memset(deep, 0, sizeof(deep));
	/* The compiler must believe the stores are needed. */
	__asm__ __volatile__("" : : "r"(deep) : "memory");
}

FIXTURE(fi) {
	struct fi_ctx ctx;
};

FIXTURE_SETUP(fi)
{
	struct fi_ctx *ctx = &self->ctx;
	struct cmabuf_alloc_data d = {
		.size = 2 << 20,
		.fd_flags = O_RDWR | O_CLOEXEC,
	};
	unsigned int i;

	ctx->fd = -1;
	ctx->buf = -1;
	ctx->bench = -1;
	ctx->imp = -1;
	ctx->dev = -1;
	ctx->map = MAP_FAILED;
	ctx->fail_nth = open(FI_FAIL_NTH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, ctx->fail_nth) TH_LOG("%s: %s: the kernel has no fault injection",
					   FI_FAIL_NTH, strerror(errno));
	ASSERT_EQ(0, fi_setup_attrs());
	ASSERT_EQ(0, rel_debugfs_mount());
	ASSERT_EQ(0, rel_instances(ctx->inst, REL_MAX_INSTANCES, &ctx->ninst));
	for (i = 0; i < ctx->ninst; i++)
		if (!strcmp(ctx->inst[i].name, "cmabuf-general"))
			ctx->general = &ctx->inst[i];
	ASSERT_NE(NULL, ctx->general);
	ctx->dev = rel_instance_open("cmabuf-general", O_RDWR);
	ASSERT_LE(0, ctx->dev);
	ASSERT_EQ(0, ioctl(ctx->dev, CMABUF_IOC_ALLOC, &d));
	ctx->buf = d.fd;
	ctx->imp = open(REL_IMPORTER_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, ctx->imp);
	/*
	 * Every page this program touches is there before any call: a page
	 * fault that failed its allocation would be an OOM, not an errno.
	 */
	fi_touch_stack();
	ASSERT_EQ(0, mlockall(MCL_CURRENT | MCL_FUTURE));
	ASSERT_EQ(0, rel_snapshot_take(ctx->inst, ctx->ninst, &ctx->base));
}

FIXTURE_TEARDOWN(fi)
{
	struct fi_ctx *ctx = &self->ctx;

	if (ctx->imp >= 0)
		close(ctx->imp);
	if (ctx->bench >= 0)
		close(ctx->bench);
	if (ctx->buf >= 0)
		close(ctx->buf);
	if (ctx->dev >= 0)
		close(ctx->dev);
}

/* Every counter back where it was, give or take a workqueue's delay. */
#define EXPECT_BASELINE(what) do {					\
	struct rel_snapshot __now;					\
	char __why[256];						\
									\
	EXPECT_EQ(0, rel_snapshot_settle(ctx->inst, ctx->ninst,	\
					 &ctx->base, SETTLE_MS, &__now,	\
					 __why, sizeof(__why)))		\
		TH_LOG("%s: %s", what, __why);				\
} while (0)

/*
 * Fail each failure point of @op's call in turn. Returns how many there
 * were; the call without a failure must succeed.
 */
static unsigned int fi_run(struct __test_metadata *_metadata,
			   struct fi_ctx *ctx, const struct fi_op *op)
{
	char what[128];
	unsigned int nth;
	bool injected;
	int err, fds;

	for (nth = 1; nth < FI_MAX_POINTS; nth++) {
		fds = fi_count_fds();
		ASSERT_EQ(0, fi_arm(ctx, nth));
		err = op->call(ctx);
		injected = fi_disarm(ctx);
		snprintf(what, sizeof(what), "%s, failure point %u: %s",
			 op->name, nth, rel_errname(err));
		fi_undo(ctx, op);
		if (record) {
			record->calls++;
			record->injected += injected;
		}
		if (!injected) {
			EXPECT_EQ(0, err) TH_LOG("%s without a failure", what);
			break;
		}
		EXPECT_TRUE(fi_allowed(op, err)) TH_LOG("%s", what);
		EXPECT_EQ(fds, fi_count_fds()) TH_LOG("%s: an fd was left", what);
		EXPECT_BASELINE(what);
		if (_metadata->exit_code)
			break;
	}
	TH_LOG("%s: %u failure points, each failed once", op->name, nth - 1);
	EXPECT_LT(1U, nth) TH_LOG("%s: no failure point reached", op->name);
	return nth - 1;
}

/* ---- the device and its ioctls ---- */

static int fi_open(struct fi_ctx *ctx)
{
	ctx->fd = rel_instance_open("cmabuf-general", O_RDWR);
	return ctx->fd < 0 ? errno : 0;
}

static int fi_info(struct fi_ctx *ctx)
{
	char name[64];
	struct cmabuf_info info = {
		.area_name_ptr = (uintptr_t)name,
		.area_name_size = sizeof(name),
	};

	return fi_errno(ioctl(ctx->dev, CMABUF_IOC_INFO, &info));
}

static int fi_alloc(struct fi_ctx *ctx, __u64 size, __u32 strategy)
{
	struct cmabuf_alloc_data d = {
		.size = size,
		.fd_flags = O_RDWR | O_CLOEXEC,
		.flags = strategy,
	};
	int err = fi_errno(ioctl(ctx->dev, CMABUF_IOC_ALLOC, &d));

	if (!err)
		ctx->fd = d.fd;
	return err;
}

static int fi_alloc_auto(struct fi_ctx *ctx)
{
	return fi_alloc(ctx, 2 << 20, CMABUF_STRATEGY_AUTO);
}

static int fi_alloc_compound(struct fi_ctx *ctx)
{
	return fi_alloc(ctx, 2 << 20, CMABUF_STRATEGY_COMPOUND);
}

static int fi_alloc_frozen(struct fi_ctx *ctx)
{
	return fi_alloc(ctx, 64 << 10, CMABUF_STRATEGY_FROZEN);
}

static int fi_alloc_legacy(struct fi_ctx *ctx)
{
	return fi_alloc(ctx, 64 << 10, CMABUF_STRATEGY_LEGACY);
}

static int fi_phys(struct fi_ctx *ctx)
{
	struct cmabuf_phys phys = { .fd = ctx->buf };

	return fi_errno(ioctl(ctx->dev, CMABUF_IOC_PHYS, &phys));
}

/* The request is copied in, parsed, then timed: 2 x 2 x 16 pages. */
static int fi_bench(struct fi_ctx *ctx)
{
	static const char line[] = "pages=16 blocks=2 iterations=2\n";

	return fi_errno(write(ctx->bench, line, sizeof(line) - 1));
}

static int fi_mmap(struct fi_ctx *ctx)
{
	ctx->map = mmap(NULL, 2 << 20, PROT_READ | PROT_WRITE, MAP_SHARED,
			ctx->buf, 0);
	return ctx->map == MAP_FAILED ? errno : 0;
}

static void fi_munmap(struct fi_ctx *ctx)
{
	if (ctx->map != MAP_FAILED)
		munmap(ctx->map, 2 << 20);
	ctx->map = MAP_FAILED;
}

static int fi_sync(struct fi_ctx *ctx)
{
	struct dma_buf_sync sync = {
		.flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW,
	};
	int err = fi_errno(ioctl(ctx->buf, DMA_BUF_IOCTL_SYNC, &sync));

	sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW;
	if (!err)
		ioctl(ctx->buf, DMA_BUF_IOCTL_SYNC, &sync);
	return err;
}

/*
 * Misc devices and dma-bufs come from files, inodes and dentries and fd
 * tables, and the ioctls copy to and from the caller: ENOMEM, EFAULT and
 * EMFILE (an fd table that cannot grow) are what their contracts say, and
 * EBUSY, the area's pages free but not to be moved out of one range.
 */
#define FI_ALLOC_ERRORS	{ ENOMEM, EFAULT, EMFILE, EBUSY }

TEST_F_TIMEOUT(fi, open_device, FI_TIMEOUT)
{
	static const struct fi_op op = {
		"open /dev/cmabuf-general", fi_open, NULL, FI_ALLOC_ERRORS,
	};

	fi_run(_metadata, &self->ctx, &op);
}

TEST_F_TIMEOUT(fi, ioctl_info, FI_TIMEOUT)
{
	static const struct fi_op op = { "INFO", fi_info, NULL, { EFAULT } };

	fi_run(_metadata, &self->ctx, &op);
}

TEST_F_TIMEOUT(fi, ioctl_alloc, FI_TIMEOUT)
{
	static const struct {
		__u32 strategy;
		struct fi_op op;
	} ops[] = {
		{ CMABUF_STRATEGY_AUTO,
		  { "ALLOC 2 MiB AUTO", fi_alloc_auto, NULL, FI_ALLOC_ERRORS } },
		{ CMABUF_STRATEGY_COMPOUND,
		  { "ALLOC 2 MiB COMPOUND", fi_alloc_compound, NULL,
		    FI_ALLOC_ERRORS } },
		{ CMABUF_STRATEGY_FROZEN,
		  { "ALLOC 64 KiB FROZEN", fi_alloc_frozen, NULL,
		    FI_ALLOC_ERRORS } },
		{ CMABUF_STRATEGY_LEGACY,
		  { "ALLOC 64 KiB LEGACY", fi_alloc_legacy, NULL,
		    FI_ALLOC_ERRORS } },
	};
	struct fi_ctx *ctx = &self->ctx;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ops); i++)
		if (ctx->general->strategies &
		    CMABUF_STRATEGY_BIT(ops[i].strategy))
			fi_run(_metadata, ctx, &ops[i].op);
}

TEST_F_TIMEOUT(fi, ioctl_phys, FI_TIMEOUT)
{
	static const struct fi_op op = { "PHYS", fi_phys, NULL, { EFAULT } };

	fi_run(_metadata, &self->ctx, &op);
}

/*
 * The file is opened first: the one call under injection is the write.
 * A run does not retry, so a range that could not be emptied is EBUSY.
 */
TEST_F_TIMEOUT(fi, bench_file_write, FI_TIMEOUT)
{
	static const struct fi_op op = {
		"bench file write", fi_bench, NULL, { ENOMEM, EFAULT, EBUSY },
	};
	struct fi_ctx *ctx = &self->ctx;
	char path[PATH_MAX];

	ASSERT_EQ(0, kbench_path(ctx->general->name, path, sizeof(path)));
	ctx->bench = open(path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, ctx->bench) TH_LOG("%s: %s", path, strerror(errno));
	fi_run(_metadata, ctx, &op);
}

TEST_F_TIMEOUT(fi, mmap_buffer, FI_TIMEOUT)
{
	static const struct fi_op op = {
		"mmap 2 MiB", fi_mmap, fi_munmap, { ENOMEM },
	};

	fi_run(_metadata, &self->ctx, &op);
}

TEST_F_TIMEOUT(fi, dmabuf_sync, FI_TIMEOUT)
{
	static const struct fi_op op = {
		"DMA_BUF_IOCTL_SYNC", fi_sync, NULL, { EFAULT },
	};

	fi_run(_metadata, &self->ctx, &op);
}

/* ---- an importer: attach, map, vmap, CPU access ---- */

/*
 * CHECK succeeds whenever it could take the buffer and reports a step
 * that failed in the structure: only ENOMEM may fail a step.
 */
static int fi_check(struct fi_ctx *ctx)
{
	struct cmabuf_importer_check *chk = &ctx->check;
	int err;

	memset(chk, 0, sizeof(*chk));
	chk->fd = ctx->buf;
	chk->flags = CMABUF_IMPORTER_CHECK_VERIFY | CMABUF_IMPORTER_CHECK_WRITE;
	err = fi_errno(ioctl(ctx->imp, CMABUF_IMPORTER_IOC_CHECK, chk));
	if (!err && chk->failed_step != CMABUF_IMPORTER_STEP_NONE)
		err = -chk->error;
	return err;
}

static int fi_hold(struct fi_ctx *ctx)
{
	struct cmabuf_importer_hold hold = {
		.fd = ctx->buf,
		.flags = CMABUF_IMPORTER_HOLD_MAP,
	};
	int err = fi_errno(ioctl(ctx->imp, CMABUF_IMPORTER_IOC_HOLD, &hold));

	if (!err)
		ctx->handle = hold.handle;
	return err;
}

static void fi_release(struct fi_ctx *ctx)
{
	struct cmabuf_importer_release rel = { .handle = ctx->handle };

	if (ctx->handle)
		ioctl(ctx->imp, CMABUF_IMPORTER_IOC_RELEASE, &rel);
	ctx->handle = 0;
}

TEST_F_TIMEOUT(fi, importer_attach_map_access, FI_TIMEOUT)
{
	static const struct fi_op op = {
		"importer CHECK", fi_check, NULL, { ENOMEM, EFAULT },
	};

	fi_run(_metadata, &self->ctx, &op);
}

TEST_F_TIMEOUT(fi, importer_hold_mapped, FI_TIMEOUT)
{
	static const struct fi_op op = {
		"importer HOLD with a mapping", fi_hold, fi_release,
		{ ENOMEM, EFAULT },
	};

	fi_run(_metadata, &self->ctx, &op);
}

/* ---- a dma-heap ---- */

static int fi_heap_alloc(struct fi_ctx *ctx)
{
	struct dma_heap_allocation_data h = {
		.len = 2 << 20,
		.fd_flags = O_RDWR | O_CLOEXEC,
	};
	int heap, err;

	heap = open("/dev/dma_heap/cmabuf-general", O_RDONLY | O_CLOEXEC);
	if (heap < 0)
		return errno;
	err = fi_errno(ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &h));
	close(heap);
	if (!err)
		ctx->fd = h.fd;
	return err;
}

TEST_F_TIMEOUT(fi, dma_heap_alloc_2m, FI_TIMEOUT)
{
	static const struct fi_op op = {
		"dma-heap ALLOC 2 MiB", fi_heap_alloc, NULL, FI_ALLOC_ERRORS,
	};

	if (!rel_module_has_heaps()) {
		ASSERT_FALSE(rel_heaps_required())
			TH_LOG("%s=1, but cmabuf has no dma-heaps",
			       REL_REQUIRE_HEAPS);
		SKIP(return, "cmabuf has no dma-heaps here");
	}
	fi_run(_metadata, &self->ctx, &op);
}

/* ---- binding instances: probe, misc_register, dma_heap_add ---- */

static bool fi_bound(const char *node)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), REL_PLATFORM_DRIVER "/%s", node);
	return !lstat(path, &st);
}

static int fi_set_override(const char *node, const char *driver)
{
	char path[256];

	snprintf(path, sizeof(path), FI_DEVICES "/%s/driver_override", node);
	return rel_write_str(path, driver);
}

static int fi_bind(struct fi_ctx *ctx)
{
	return rel_write_str(REL_PLATFORM_DRIVER "/bind", ctx->node);
}

static bool fi_dev_exists(const char *name)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "/dev/%s", name);
	return !stat(path, &st);
}

/* The CMA area of the instance @misc: the general one for test nodes. */
static const char *fi_area_of(const struct fi_ctx *ctx, const char *misc)
{
	unsigned int i;

	for (i = 0; i < ctx->ninst; i++)
		if (!strcmp(ctx->inst[i].name, misc))
			return ctx->inst[i].area;
	return ctx->general->area;
}

/* Wait up to 2 s for /dev/@name to be there, or gone: devtmpfs is async. */
static bool fi_dev_settles(const char *name, bool there)
{
	int i;

	for (i = 0; i < 2000 && fi_dev_exists(name) != there; i++)
		usleep(1000);
	return fi_dev_exists(name) == there;
}

/*
 * Bind @node (unbound first) with each failure point of the bind failing
 * in turn. A bind that fails leaves it unbound, with no device node and
 * the CMA area as it was; one that survives its failure (a uevent that
 * could not be sent, a dma-heap that could not be made) gives a working
 * instance, which is unbound for the next round. The last bind reaches no
 * failure point and must give @misc and, with @heap, /dev/dma_heap/@heap.
 */
static void fi_run_bind(struct __test_metadata *_metadata,
			struct fi_ctx *ctx, const char *node, const char *misc,
			const char *heap)
{
	const char *area = fi_area_of(ctx, misc);
	unsigned long long used0, used;
	char what[128], path[128];
	unsigned int nth;
	struct stat st;
	bool injected;
	int err;

	ctx->node = node;
	if (fi_bound(node))
		ASSERT_EQ(0, rel_write_str(REL_PLATFORM_DRIVER "/unbind", node));
	ASSERT_TRUE(fi_dev_settles(misc, false));
	ASSERT_EQ(0, rel_cma_read(area, "used", &used0));
	for (nth = 1; nth < FI_MAX_POINTS; nth++) {
		ASSERT_EQ(0, fi_arm(ctx, nth));
		err = fi_bind(ctx);
		injected = fi_disarm(ctx);
		snprintf(what, sizeof(what), "bind %s, failure point %u: %s",
			 node, nth, rel_errname(err));
		if (record) {
			record->calls++;
			record->injected += injected;
		}
		if (!injected) {
			EXPECT_EQ(0, err) TH_LOG("%s without a failure", what);
			break;
		}
		if (err) {
			EXPECT_TRUE(err == ENOMEM || err == EFAULT)
				TH_LOG("%s", what);
			EXPECT_FALSE(fi_bound(node)) TH_LOG("%s: bound", what);
		} else {
			EXPECT_TRUE(fi_dev_settles(misc, true))
				TH_LOG("%s: bound, but no /dev/%s", what, misc);
			EXPECT_EQ(0, rel_write_str(REL_PLATFORM_DRIVER "/unbind",
						   node));
		}
		EXPECT_TRUE(fi_dev_settles(misc, false))
			TH_LOG("%s: /dev/%s is left", what, misc);
		ASSERT_EQ(0, rel_cma_read(area, "used", &used));
		EXPECT_EQ(used0, used) TH_LOG("%s", what);
		if (_metadata->exit_code)
			return;
	}
	TH_LOG("bind %s: %u failure points, each failed once", node, nth - 1);
	EXPECT_LT(1U, nth);
	EXPECT_TRUE(fi_bound(node));
	EXPECT_TRUE(fi_dev_settles(misc, true));
	snprintf(path, sizeof(path), "/dev/dma_heap/%s", heap ? heap : "");
	if (heap)
		EXPECT_EQ(0, stat(path, &st)) TH_LOG("no %s after the binds", path);
}

/*
 * A bind test probes the device once per failure point, some 175 times:
 * 5 s in make check's debug guest, but over 28 s (killed at the harness's
 * default 30 s) with two debug guests sharing the two cores.
 */
#define FI_BIND_TIMEOUT	300

/* An instance of the device tree with a label: misc_register(). */
TEST_F_TIMEOUT(fi, bind_labelled_instance, FI_BIND_TIMEOUT)
{
	struct fi_ctx *ctx = &self->ctx;

	/*
	 * The fixture's buffer would outlive the instance it came from, and
	 * the instance bound anew counts from zero: free it first.
	 */
	close(ctx->buf);
	ctx->buf = -1;
	ASSERT_EQ(0, rel_snapshot_take(ctx->inst, ctx->ninst, &ctx->base));
	fi_run_bind(_metadata, ctx, "cmabuf-general", "cmabuf-general", NULL);
	EXPECT_BASELINE("cmabuf-general bound again");
}

/* The module's own default instance, without a device tree node. */
TEST_F_TIMEOUT(fi, bind_default_instance, FI_BIND_TIMEOUT)
{
	struct fi_ctx *ctx = &self->ctx;

	if (!fi_dev_exists("cmabuf"))
		SKIP(return, "no default instance (default_instance=0)");
	fi_run_bind(_metadata, ctx, "cmabuf-default", "cmabuf", NULL);
	EXPECT_BASELINE("cmabuf bound again");
}

/*
 * Test nodes (tests/qemu/cmabuf-regions.dtsi): one without a label, which
 * gets a number from an IDA, and one labelled "faults", whose dma-heap
 * does not exist until it binds: dma_heap_add() under every failure.
 */
static void fi_run_test_node(struct __test_metadata *_metadata,
			     struct fi_ctx *ctx, const char *node,
			     const char *misc, const char *heap)
{
	ASSERT_EQ(0, fi_set_override(node, REL_MODULE_NAME));
	fi_run_bind(_metadata, ctx, node, misc, heap);
	if (fi_bound(node))
		EXPECT_EQ(0, rel_write_str(REL_PLATFORM_DRIVER "/unbind", node));
	EXPECT_EQ(0, fi_set_override(node, "\n"));
	EXPECT_TRUE(fi_dev_settles(misc, false));
}

TEST_F_TIMEOUT(fi, bind_unlabelled_node, FI_BIND_TIMEOUT)
{
	fi_run_test_node(_metadata, &self->ctx, "cmabuf-test-unlabelled",
			 "cmabuf-0", NULL);
}

TEST_F_TIMEOUT(fi, bind_node_with_new_heap, FI_BIND_TIMEOUT)
{
	struct fi_ctx *ctx = &self->ctx;
	struct stat st;

	if (!rel_module_has_heaps()) {
		ASSERT_FALSE(rel_heaps_required())
			TH_LOG("%s=1, but cmabuf has no dma-heaps",
			       REL_REQUIRE_HEAPS);
		SKIP(return, "cmabuf has no dma-heaps here");
	}
	if (!stat("/dev/dma_heap/cmabuf-faults", &st))
		SKIP(return, "%s", "the heap cmabuf-faults exists: its dma_heap_add() ran before");
	fi_run_test_node(_metadata, ctx, "cmabuf-test-faults", "cmabuf-faults",
			 "cmabuf-faults");
}

/* ---- prepared buffers and frees in the background ---- */

/* Does the general instance prepare buffers (and free in the background)? */
static bool fi_has_pool(const struct fi_ctx *ctx)
{
	unsigned long long v;
	char path[128];

	snprintf(path, sizeof(path), "/sys/class/misc/%s/prepared_bytes",
		 ctx->general->name);
	return !rel_read_ull(path, &v);
}

static int fi_prepare_count(struct fi_ctx *ctx, __u32 flags, __u32 count)
{
	struct cmabuf_prepare p = {
		.size = 2 << 20,
		.flags = flags,
		.count = count,
		.timeout_ms = 60000,
	};

	return fi_errno(ioctl(ctx->dev, CMABUF_IOC_PREPARE, &p));
}

static int fi_prepare(struct fi_ctx *ctx)
{
	return fi_prepare_count(ctx, 0, 2);
}

static int fi_prepare_wait(struct fi_ctx *ctx)
{
	return fi_prepare_count(ctx, CMABUF_PREPARE_WAIT, 2);
}

/* The want goes with whatever was made for it. */
static void fi_prepare_drop(struct fi_ctx *ctx)
{
	fi_prepare_count(ctx, 0, 0);
}

/*
 * The want itself is allocated in the caller's call: ENOMEM, or EFAULT
 * for the copies. With WAIT the buffers are made by a worker, whose own
 * failures fail_nth does not reach.
 */
TEST_F_TIMEOUT(fi, ioctl_prepare, FI_TIMEOUT)
{
	static const struct fi_op op = {
		"PREPARE 2 x 2 MiB", fi_prepare, fi_prepare_drop,
		{ ENOMEM, EFAULT },
	};

	if (!fi_has_pool(&self->ctx))
		SKIP(return, "%s prepares no buffers", self->ctx.general->name);
	fi_run(_metadata, &self->ctx, &op);
}

TEST_F_TIMEOUT(fi, ioctl_prepare_wait, FI_TIMEOUT)
{
	static const struct fi_op op = {
		"PREPARE 2 x 2 MiB, WAIT", fi_prepare_wait, fi_prepare_drop,
		{ ENOMEM, EFAULT },
	};

	if (!fi_has_pool(&self->ctx))
		SKIP(return, "%s prepares no buffers", self->ctx.general->name);
	fi_run(_metadata, &self->ctx, &op);
}

/* "2Mx2 1Mx1" into the general instance's reserve, "" to drop it. */
static int fi_reserve_set(const struct fi_ctx *ctx, const char *words)
{
	char path[128];
	int fd, err = 0;

	snprintf(path, sizeof(path), "/sys/class/misc/%s/reserve",
		 ctx->general->name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (write(fd, words, strlen(words)) < 0)
		err = errno;
	close(fd);
	return err;
}

/*
 * The write is the call under injection: open the file first. A failed
 * write may have set part of the reserve (ENOMEM while adding its second
 * kind): it is dropped after every round, like a successful one.
 */
TEST_F_TIMEOUT(fi, reserve_write, FI_TIMEOUT)
{
	static const char words[] = "2Mx2 1Mx1";
	struct fi_ctx *ctx = &self->ctx;
	unsigned int nth;
	char path[128], what[128];
	bool injected;
	int fd, err;

	if (!fi_has_pool(ctx))
		SKIP(return, "%s prepares no buffers", ctx->general->name);
	snprintf(path, sizeof(path), "/sys/class/misc/%s/reserve",
		 ctx->general->name);
	for (nth = 1; nth < FI_MAX_POINTS; nth++) {
		fd = open(path, O_WRONLY | O_CLOEXEC);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, fi_arm(ctx, nth));
		err = fi_errno(write(fd, words, sizeof(words) - 1));
		injected = fi_disarm(ctx);
		close(fd);
		snprintf(what, sizeof(what), "reserve write, failure point %u: %s",
			 nth, rel_errname(err));
		if (record) {
			record->calls++;
			record->injected += injected;
		}
		EXPECT_EQ(0, fi_reserve_set(ctx, "\n")) TH_LOG("%s", what);
		if (!injected) {
			EXPECT_EQ(0, err) TH_LOG("%s without a failure", what);
			break;
		}
		EXPECT_TRUE(!err || err == ENOMEM || err == EFAULT)
			TH_LOG("%s", what);
		EXPECT_BASELINE(what);
		if (_metadata->exit_code)
			break;
	}
	TH_LOG("reserve write: %u failure points, each failed once", nth - 1);
	EXPECT_LT(1U, nth);
}

/*
 * The last close() of a buffer queues its pages for the worker; without
 * memory for the note, they are released right there. Either way the
 * close succeeds and the pages come back.
 */
TEST_F_TIMEOUT(fi, close_last_reference, FI_TIMEOUT)
{
	struct fi_ctx *ctx = &self->ctx;
	unsigned int nth;
	char what[128];
	bool injected;
	int err;

	if (!fi_has_pool(ctx))
		SKIP(return, "%s prepares no buffers", ctx->general->name);
	for (nth = 1; nth < FI_MAX_POINTS; nth++) {
		ASSERT_EQ(0, fi_alloc(ctx, 2 << 20, CMABUF_STRATEGY_AUTO));
		ASSERT_EQ(0, fi_arm(ctx, nth));
		err = fi_errno(close(ctx->fd));
		injected = fi_disarm(ctx);
		ctx->fd = -1;
		snprintf(what, sizeof(what), "close, failure point %u: %s",
			 nth, rel_errname(err));
		if (record) {
			record->calls++;
			record->injected += injected;
		}
		EXPECT_EQ(0, err) TH_LOG("%s", what);
		EXPECT_BASELINE(what);
		if (!injected || _metadata->exit_code)
			break;
	}
	TH_LOG("close: %u failure points, each failed once", nth - 1);
	EXPECT_LT(1U, nth);
}

/* ---- the pool's worker: its own allocations made to fail ---- */

#define FI_FAILSLAB	FI_DEBUGFS "/failslab"

/* Set make-it-fail of every unbound kworker to @on; how many there are. */
static int fi_mark_kworkers(bool on)
{
	char path[64], comm[32];
	struct dirent *de;
	int n = 0, fd;
	ssize_t len;
	DIR *dir;

	dir = opendir("/proc");
	if (!dir)
		return -1;
	while ((de = readdir(dir))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.16s/comm", de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		len = read(fd, comm, sizeof(comm) - 1);
		close(fd);
		if (len <= 0)
			continue;
		comm[len] = '\0';
		if (strncmp(comm, "kworker/u", 9))
			continue;
		snprintf(path, sizeof(path), "/proc/%.16s/make-it-fail",
			 de->d_name);
		if (!rel_write_str(path, on ? "1" : "0"))
			n++;
	}
	closedir(dir);
	return n;
}

/*
 * The buffers of a want are made by a worker of an unbound workqueue, out
 * of reach of the caller's fail-nth. Here failslab fails the next slab
 * allocation of any unbound kworker, once (task-filter, times=1), right
 * before a PREPARE with WAIT queues the work: when it is the worker's
 * (WAIT says ENOMEM and failslab's count was used), nothing is ready and
 * nothing is lost, and the same want asked again is made. Another
 * kworker may take the one failure first: the round is tried again.
 */
TEST_F_TIMEOUT(fi, pool_worker_allocation, 400)
{
	struct fi_ctx *ctx = &self->ctx;
	/* Rounds stop after 150 s: each is seconds long on the debug kernel. */
	__u64 end = rel_now_ns() + 150 * 1000000000ULL;
	unsigned long long times, v;
	int r, landed = 0, err;
	char path[128];

	if (!fi_has_pool(ctx))
		SKIP(return, "%s prepares no buffers", ctx->general->name);
	snprintf(path, sizeof(path), "/sys/class/misc/%s/prepared_bytes",
		 ctx->general->name);
	ASSERT_EQ(0, fi_write("failslab", "task-filter", "Y"));
	for (r = 0; r < 20 && landed < 3 && rel_now_ns() < end; r++) {
		ASSERT_LT(0, fi_mark_kworkers(true));
		ASSERT_EQ(0, fi_write("failslab", "times", "1"));
		ASSERT_EQ(0, fi_write("failslab", "probability", "100"));
		err = fi_prepare_wait(ctx);
		EXPECT_EQ(0, fi_write("failslab", "probability", "0"));
		fi_mark_kworkers(false);
		ASSERT_EQ(0, rel_read_ull(FI_FAILSLAB "/times", &times));
		if (err == ENOMEM && !times) {
			landed++;
			EXPECT_EQ(0, rel_read_ull(path, &v));
			EXPECT_EQ(0ULL, v) TH_LOG("ready after a failed make");
			/* Asked again, the want is made. */
			EXPECT_EQ(0, fi_prepare_wait(ctx));
		} else {
			EXPECT_EQ(0, err) TH_LOG("PREPARE WAIT: %s",
						 rel_errname(err));
		}
		fi_prepare_drop(ctx);
		EXPECT_BASELINE("a want whose worker failed");
		if (record) {
			record->calls++;
			record->injected += err == ENOMEM && !times;
		}
	}
	EXPECT_EQ(0, fi_write("failslab", "task-filter", "N"));
	EXPECT_EQ(0, fi_write("failslab", "times", "1"));
	TH_LOG("%d of %d rounds failed the worker's allocation", landed, r);
	EXPECT_LT(0, landed);
}

/* A node with a reserve: the reserve's want is made in the probe. */
TEST_F_TIMEOUT(fi, bind_node_with_reserve, FI_BIND_TIMEOUT)
{
	fi_run_test_node(_metadata, &self->ctx, "cmabuf-test-reserve",
			 "cmabuf-reserve", NULL);
}

TEST_HARNESS_MAIN
