// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf_lifecycle: faults and lifecycle events, each repeated, each
 * ending with every CMA area's used pages and every instance's live
 * counters back where they were.
 *
 *  - a process killed while the driver zeroes a 1 GiB buffer;
 *  - an area filled until ENOMEM, emptied, and filled again;
 *  - a buffer's last fd closed while it is mapped, while the importer
 *    holds an attachment or a mapping of it, and while the importer's own
 *    fd is closed too;
 *  - a process killed while it holds buffers, fds, mappings and holds;
 *  - an instance unbound and bound again through sysfs while it has
 *    buffers alive and its debugfs bench file open, and while a
 *    benchmark runs;
 *  - rmmod while buffers are alive (refused), after they are gone (then
 *    reloaded with heap=0), and rmmod of the importer while it holds
 *    buffers;
 *  - a process killed while PREPARE waits for its buffers; unbind and
 *    rmmod while buffers are being prepared and freed ones are still on
 *    their way back (both drain, the area is whole when they return);
 *  - unbind while a refill fails on a nearly full area, and the pool
 *    holds ready buffers (the unbind returns);
 *  - another driver's dma_alloc_coherent() on the default area while
 *    /dev/cmabuf's files have prepared all they may;
 *  - a dma-heap allocation served by a PREPARE on the misc device, and a
 *    node with a standing reserve (cmabuf,reserve) ready from its bind.
 *
 * and, where they can run, how the instances and their dma-heaps bind:
 *
 *  - probe errors (a region that is not reusable CMA, no memory-region)
 *    leave nothing behind, an unlabelled node becomes /dev/cmabuf-<n>,
 *    and default_instance=0 leaves out /dev/cmabuf;
 *  - a dma-heap refuses with ENODEV while its instance is unbound and
 *    allocates again once it is bound, and a name that the kernel's CMA
 *    heap took gets no cmabuf heap (EEXIST) but a working instance.
 *
 * The extra device tree nodes (tests/qemu/cmabuf-regions.dtsi) are
 * "linux,cmabuf-test": nothing binds them until a test sets their
 * driver_override.
 *
 * CMABUF_LIFECYCLE_REPEAT scales every repeat count (default 1.0 = as
 * written below). The faults and events that really happened (a kill that
 * landed while the buffer was zeroed, an area seen full, an unbind with
 * buffers alive, ...) are counted and printed at the end as
 * "# record: faults injected=N". Output is TAP, from the kselftest harness.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/cmabuf.h>
#include <linux/dma-heap.h>

#include "kselftest_harness.h"
#include "cmabuf_importer.h"
#include "cmabuf_test_util.h"
#include "kbench.h"
#include "reliability_util.h"

#define SETTLE_MS	3000

static unsigned long long *faults;

static void __attribute__((constructor)) lc_faults_init(void)
{
	faults = mmap(NULL, sizeof(*faults), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (faults == MAP_FAILED)
		faults = NULL;
}

/* Runs in the harness's own process only: its tests end with _exit(). */
static void __attribute__((destructor)) lc_faults_report(void)
{
	if (faults)
		printf("# record: faults injected=%llu\n", *faults);
}

/* Count one fault or event, if it really happened as the test meant. */
static void lc_fault_if(bool happened)
{
	if (faults && happened)
		__atomic_add_fetch(faults, 1, __ATOMIC_RELAXED);
}

/* A repeat count, scaled by CMABUF_LIFECYCLE_REPEAT. */
static int lc_repeat(int n)
{
	const char *s = getenv("CMABUF_LIFECYCLE_REPEAT");
	double scale = s ? atof(s) : 1.0;
	int r = n * scale + 0.5;

	return r > 0 ? r : 1;
}

/**
 * struct lc_ctx - what every test starts from
 * @inst: the instances.
 * @ninst: entries in @inst.
 * @base: their counters before the test.
 * @imp: /dev/cmabuf_importer, or -1.
 */
struct lc_ctx {
	struct rel_instance inst[REL_MAX_INSTANCES];
	unsigned int ninst;
	struct rel_snapshot base;
	int imp;
};

FIXTURE(lc) {
	struct lc_ctx ctx;
};

FIXTURE_SETUP(lc)
{
	struct lc_ctx *ctx = &self->ctx;

	ASSERT_EQ(0, rel_debugfs_mount());
	ASSERT_EQ(0, rel_instances(ctx->inst, REL_MAX_INSTANCES,
				   &ctx->ninst));
	ASSERT_LT(0U, ctx->ninst);
	ASSERT_EQ(0, rel_snapshot_take(ctx->inst, ctx->ninst, &ctx->base));
	ctx->imp = open(REL_IMPORTER_DEV, O_RDWR | O_CLOEXEC);
}

FIXTURE_TEARDOWN(lc)
{
	struct lc_ctx *ctx = &self->ctx;

	if (ctx->imp >= 0)
		close(ctx->imp);
}

/* The instance called @name, or NULL. */
static const struct rel_instance *lc_find(struct lc_ctx *ctx,
					  const char *name)
{
	unsigned int i;

	for (i = 0; i < ctx->ninst; i++)
		if (!strcmp(ctx->inst[i].name, name))
			return &ctx->inst[i];
	return NULL;
}

static int lc_open(const struct rel_instance *in)
{
	return rel_instance_open(in->name, O_RDWR);
}

/* Allocate @size bytes with @strategy; the fd, or -errno. */
static int lc_alloc(int dev, __u64 size, __u32 strategy)
{
	struct cmabuf_alloc_data d = {
		.size = size,
		.fd_flags = O_RDWR | O_CLOEXEC,
		.flags = strategy,
	};
	int err = cmabuf_ioctl(dev, CMABUF_IOC_ALLOC, &d);

	return err ? -err : (int)d.fd;
}

static void lc_fill(__u8 *map, size_t len, __u64 seed)
{
	size_t off;

	for (off = 0; off + 8 <= len; off += CMABUF_IMPORTER_PATTERN_STRIDE)
		*(__u64 *)(map + off) = cmabuf_importer_pattern(seed, off);
}

static size_t lc_mismatches(const __u8 *map, size_t len, __u64 seed)
{
	size_t off, bad = 0;

	for (off = 0; off + 8 <= len; off += CMABUF_IMPORTER_PATTERN_STRIDE)
		bad += *(const __u64 *)(map + off) !=
		       cmabuf_importer_pattern(seed, off);
	return bad;
}

static unsigned long long lc_live(const struct rel_instance *in)
{
	unsigned long long v = ~0ULL;

	rel_stat_read(in->name, "stats", "live_buffers", &v);
	return v;
}

/* Wait until every counter is back at the fixture's baseline. */
#define ASSERT_BASELINE() do {						\
	struct rel_snapshot __now;					\
	char __why[256];						\
									\
	if (rel_snapshot_settle(ctx->inst, ctx->ninst, &ctx->base,	\
				SETTLE_MS, &__now, __why,		\
				sizeof(__why)))				\
		TH_LOG("not back at baseline: %s", __why);		\
	ASSERT_TRUE(rel_snapshot_same(&ctx->base, &__now, __why,	\
				      sizeof(__why)));			\
} while (0)

/* ---- SIGKILL while a 1 GiB buffer is zeroed ---- */

/*
 * The child allocates 1 GiB and reports through @pipe once the ioctl has
 * returned. Returns its pid.
 */
static pid_t lc_spawn_big_alloc(const struct rel_instance *in,
				__u32 strategy, int pipe_w)
{
	pid_t pid = fork();
	int dev, fd;

	if (pid)
		return pid;
	dev = lc_open(in);
	fd = lc_alloc(dev, SZ_1G, strategy);
	if (write(pipe_w, &fd, sizeof(fd)) != sizeof(fd))
		_exit(2);
	pause();
	_exit(1);
}

/* Pages the area has handed out since boot, from its sysfs statistics. */
static int lc_cma_allocated(const struct rel_instance *in,
			    unsigned long long *pages)
{
	return cmabuf_cma_sysfs_read(in->area, "alloc_pages_success", pages);
}

/*
 * Wait until the CMA allocator has handed out @pages pages more than
 * @base (it counts a success only once the range is the caller's) while
 * the child, which writes to @pipe_r's other end when its call returned,
 * is still in it. False when the call returned first, or never got there.
 */
static bool lc_wait_allocated(const struct rel_instance *in,
			      unsigned long long base,
			      unsigned long long pages, int pipe_r)
{
	struct pollfd pfd = { .fd = pipe_r, .events = POLLIN };
	__u64 end = rel_now_ns() + 60 * 1000000000ULL;
	unsigned long long done;

	while (rel_now_ns() < end) {
		if (!lc_cma_allocated(in, &done) && done >= base + pages)
			return poll(&pfd, 1, 0) == 0;
		if (poll(&pfd, 1, 0) > 0)
			return false;
		usleep(200);
	}
	return false;
}

/*
 * Does cmabuf clear what @strategy allocates itself, so that there is a
 * clearing to interrupt? Not where the page allocator clears
 * (init_on_alloc), except FROZEN and COMPOUND on a kernel where cmabuf
 * asks for them uncleared (CMABUF_INFO_CLEARS_FROZEN). AUTO here is FROZEN
 * or COMPOUND where the kernel has them.
 */
static bool lc_cmabuf_clears(const struct rel_instance *in, __u32 strategy)
{
	if (!(in->info_flags & CMABUF_INFO_ALLOCATOR_ZEROES))
		return true;
	if (!(in->info_flags & CMABUF_INFO_CLEARS_FROZEN))
		return false;
	if (strategy == CMABUF_STRATEGY_AUTO)
		return in->strategies &
		       (CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_FROZEN) |
			CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_COMPOUND));
	return strategy != CMABUF_STRATEGY_LEGACY;
}

/*
 * A fatal signal while the pages are cleared: the ioctl gives up, frees
 * the 1 GiB and counts it interrupted (not a failure: it found its
 * memory); nothing is left behind. Every strategy the kernel has whose
 * buffers cmabuf clears is tried in turn.
 */
TEST_F_TIMEOUT(lc, kill_while_zeroing_1g, 1200)
{
	struct lc_ctx *ctx = &self->ctx;

	static const __u32 strategies[] = {
		CMABUF_STRATEGY_AUTO, CMABUF_STRATEGY_FROZEN,
		CMABUF_STRATEGY_LEGACY,
	};
	const struct rel_instance *in = lc_find(ctx, "cmabuf-large");
	int i, n = lc_repeat(12), tried = 0, zeroing = 0, status, pipefd[2];
	unsigned long long fail0, fail1, alloc0, alloc1, done0, cfail0, cfail1;
	unsigned long long int0, int1, retry0, retry1, missed;
	bool mid;
	__u32 s;
	pid_t pid;

	if (!in)
		SKIP(return, "no cmabuf-large");
	if (!lc_cmabuf_clears(in, CMABUF_STRATEGY_AUTO))
		SKIP(return,
		     "the page allocator clears (init_on_alloc): cmabuf has no clearing to interrupt");
	for (i = 0; i < n; i++) {
		s = strategies[i % 3];
		if (!(in->strategies & CMABUF_STRATEGY_BIT(s)) ||
		    !lc_cmabuf_clears(in, s))
			s = CMABUF_STRATEGY_AUTO;
		tried++;
		ASSERT_EQ(0, rel_stat_read(in->name, "stats", "failures",
					   &fail0));
		ASSERT_EQ(0, rel_stat_read(in->name, "stats", "interrupted",
					   &int0));
		ASSERT_EQ(0, rel_stat_read(in->name, "stats", "allocations",
					   &alloc0));
		ASSERT_EQ(0, rel_stat_read(in->name, "stats", "busy_retries",
					   &retry0));
		ASSERT_EQ(0, lc_cma_allocated(in, &done0));
		ASSERT_EQ(0, cmabuf_cma_sysfs_read(in->area, "alloc_pages_fail",
						   &cfail0));
		ASSERT_EQ(0, pipe2(pipefd, O_CLOEXEC));

		pid = lc_spawn_big_alloc(in, s, pipefd[1]);
		ASSERT_LT(0, pid);
		/* Once the 1 GiB is handed out, the driver is zeroing it. */
		mid = lc_wait_allocated(in, done0, SZ_1G / in->page_size,
					pipefd[0]);
		kill(pid, SIGKILL);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		close(pipefd[0]);
		close(pipefd[1]);
		EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
		ASSERT_BASELINE();

		ASSERT_EQ(0, rel_stat_read(in->name, "stats", "failures",
					   &fail1));
		ASSERT_EQ(0, rel_stat_read(in->name, "stats", "interrupted",
					   &int1));
		ASSERT_EQ(0, rel_stat_read(in->name, "stats", "allocations",
					   &alloc1));
		ASSERT_EQ(0, rel_stat_read(in->name, "stats", "busy_retries",
					   &retry1));
		if (!mid) {
			TH_LOG("strategy %u: the kill missed the zeroing", s);
			continue;
		}
		/*
		 * Killed while zeroing: interrupted once, no buffer handed out,
		 * no failure. An attempt that found no 1 GiB first (while a
		 * page of the area was still on its way back), which the
		 * area's statistics count, is a failure of its own where AUTO
		 * fell back from COMPOUND, and none where it was tried again
		 * (after busy retries, or once the frees in flight were done).
		 */
		ASSERT_EQ(0, cmabuf_cma_sysfs_read(in->area, "alloc_pages_fail",
						   &cfail1));
		missed = (cfail1 - cfail0) / (SZ_1G / in->page_size) -
			 (retry1 - retry0);
		if (missed)
			TH_LOG("strategy %u: %llu attempt(s) found no room first",
			       s, missed);
		zeroing++;
		EXPECT_EQ(alloc0, alloc1);
		EXPECT_EQ(int0 + 1, int1);
		EXPECT_LE(fail0, fail1);
		EXPECT_LE(fail1, fail0 + missed);
		lc_fault_if(alloc0 == alloc1 && int0 + 1 == int1 &&
			    fail0 <= fail1 && fail1 <= fail0 + missed);
	}
	TH_LOG("%d of %d kills landed while 1 GiB was being zeroed", zeroing,
	       tried);
	EXPECT_LT(tried / 2, zeroing);
}

/* ---- exhaustion to ENOMEM and recovery ---- */

/*
 * Fill @in with @chunk-sized buffers until ENOMEM, or EBUSY while the
 * area's bitmap has no free range of that size (the free pages are
 * enough, split); returns how many.
 */
static int lc_fill_area(struct __test_metadata *_metadata,
			const struct rel_instance *in, int dev,
			__u64 chunk, int *fds, int max)
{
	int n = 0, fd;
	bool room;

	while (n < max) {
		fd = lc_alloc(dev, chunk, CMABUF_STRATEGY_AUTO);
		if (fd == -ENOMEM)
			break;
		if (fd == -EBUSY) {
			ASSERT_EQ(0, rel_cma_has_room(in->area,
						      chunk / in->page_size, 1,
						      &room));
			EXPECT_FALSE(room)
				TH_LOG("%s: EBUSY for %llu bytes with a free range of them",
				       in->name, (unsigned long long)chunk);
			break;
		}
		EXPECT_LE(0, fd) {
			TH_LOG("%s: ALLOC of %llu bytes: %s", in->name,
			       (unsigned long long)chunk, rel_errname(-fd));
			break;
		}
		fds[n++] = fd;
	}
	return n;
}

TEST_F_TIMEOUT(lc, exhaust_then_recover, 600)
{
	struct lc_ctx *ctx = &self->ctx;
	const struct rel_instance *in = lc_find(ctx, "cmabuf-general");
	int i, r, n, n0 = -1, small, small0 = -1, dev, fd, fds[512];
	struct cmabuf_info info;

	if (!in)
		SKIP(return, "no cmabuf-general");
	dev = lc_open(in);
	ASSERT_LE(0, dev);
	for (r = 0; r < lc_repeat(5); r++) {
		n = lc_fill_area(_metadata, in, dev, 24 * SZ_1M, fds, 64);
		small = lc_fill_area(_metadata, in, dev, SZ_1M, fds + n,
				     512 - n);
		ASSERT_LT(0, n);
		/* Full: not even one more page. */
		fd = lc_alloc(dev, in->page_size, CMABUF_STRATEGY_AUTO);
		EXPECT_EQ(-ENOMEM, fd);
		lc_fault_if(fd == -ENOMEM);
		memset(&info, 0, sizeof(info));
		ASSERT_EQ(0, cmabuf_ioctl(dev, CMABUF_IOC_INFO, &info));
		EXPECT_EQ((__u64)(n * 24 + small) * SZ_1M, info.live_bytes);
		for (i = 0; i < n + small; i++)
			close(fds[i]);
		ASSERT_BASELINE();
		/* Emptied, it takes exactly as much again. */
		if (n0 >= 0) {
			EXPECT_EQ(n0, n);
			EXPECT_EQ(small0, small);
		}
		n0 = n;
		small0 = small;
	}
	TH_LOG("%s held %d x 24 MiB + %d x 1 MiB each time", in->name, n0,
	       small0);
	close(dev);
}

/* ---- last fd closed while mapped or attached ---- */

TEST_F_TIMEOUT(lc, close_fd_while_mapped, 300)
{
	struct lc_ctx *ctx = &self->ctx;
	int i, dev, fd, n = lc_repeat(50);
	const struct rel_instance *in;
	unsigned long long live;
	size_t size;
	__u8 *map;

	for (i = 0; i < n; i++) {
		in = &ctx->inst[i % ctx->ninst];
		size = (1 + i % 16) * 16 * (size_t)in->page_size;
		dev = lc_open(in);
		ASSERT_LE(0, dev);
		fd = lc_alloc(dev, size, CMABUF_STRATEGY_AUTO);
		ASSERT_LE(0, fd);
		map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
			   fd, 0);
		ASSERT_NE(MAP_FAILED, map);
		lc_fill(map, size, i + 1);
		ASSERT_EQ(0, close(fd));
		close(dev);
		/* The mapping keeps the buffer, its pages and its data. */
		live = lc_live(in);
		EXPECT_EQ(ctx->base.inst[i % ctx->ninst].live_buffers + 1, live);
		lc_fault_if(live == ctx->base.inst[i % ctx->ninst].live_buffers + 1);
		EXPECT_EQ(0U, lc_mismatches(map, size, i + 1));
		lc_fill(map, size, i + 2);
		EXPECT_EQ(0U, lc_mismatches(map, size, i + 2));
		ASSERT_EQ(0, munmap(map, size));
		ASSERT_BASELINE();
	}
}

/*
 * The tests that loop compare every instance's counters after each round:
 * on the debug kernel under emulation one comparison has taken a second,
 * so their time-outs are generous (a hang still ends them).
 *
 * The importer keeps an attachment (and with @map a DMA mapping) after
 * every fd is gone; with @own_fd the hold is taken through an importer fd
 * of its own, closed before the release.
 */
static void lc_close_while_held(struct __test_metadata *_metadata,
				struct lc_ctx *ctx, __u32 flags,
				bool own_fd)
{
	int i, dev, fd, imp, n = lc_repeat(30);
	struct cmabuf_importer_check chk;
	struct cmabuf_importer_hold hold;
	struct cmabuf_importer_release rel;
	const struct rel_instance *in;
	unsigned long long live;
	size_t size;
	__u8 *map;

	if (ctx->imp < 0)
		SKIP(return, "no %s", REL_IMPORTER_DEV);
	for (i = 0; i < n; i++) {
		in = &ctx->inst[i % ctx->ninst];
		size = (1 + i % 8) * 64 * (size_t)in->page_size;
		dev = lc_open(in);
		ASSERT_LE(0, dev);
		fd = lc_alloc(dev, size, CMABUF_STRATEGY_AUTO);
		close(dev);
		ASSERT_LE(0, fd);
		map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
			   fd, 0);
		ASSERT_NE(MAP_FAILED, map);
		lc_fill(map, size, i + 7);
		ASSERT_EQ(0, munmap(map, size));

		imp = own_fd ? open(REL_IMPORTER_DEV, O_RDWR | O_CLOEXEC) :
			       ctx->imp;
		ASSERT_LE(0, imp);
		memset(&hold, 0, sizeof(hold));
		hold.fd = fd;
		hold.flags = flags;
		ASSERT_EQ(0, cmabuf_ioctl(imp, CMABUF_IMPORTER_IOC_HOLD, &hold));
		/* Still checkable while held, through another attachment. */
		memset(&chk, 0, sizeof(chk));
		chk.fd = fd;
		chk.flags = CMABUF_IMPORTER_CHECK_VERIFY;
		chk.seed_in = i + 7;
		ASSERT_EQ(0, cmabuf_ioctl(ctx->imp, CMABUF_IMPORTER_IOC_CHECK,
					  &chk));
		EXPECT_EQ(0ULL, chk.mismatches);
		ASSERT_EQ(0, close(fd));
		if (own_fd)
			ASSERT_EQ(0, close(imp));
		live = lc_live(in);
		EXPECT_EQ(ctx->base.inst[i % ctx->ninst].live_buffers + 1, live);
		lc_fault_if(live == ctx->base.inst[i % ctx->ninst].live_buffers + 1);

		memset(&rel, 0, sizeof(rel));
		rel.handle = hold.handle;
		ASSERT_EQ(0, cmabuf_ioctl(ctx->imp, CMABUF_IMPORTER_IOC_RELEASE,
					  &rel));
		ASSERT_BASELINE();
	}
}

TEST_F_TIMEOUT(lc, close_fd_while_importer_attached, 300)
{
	struct lc_ctx *ctx = &self->ctx;

	lc_close_while_held(_metadata, ctx, 0, false);
}

TEST_F_TIMEOUT(lc, close_fd_while_importer_mapped, 300)
{
	struct lc_ctx *ctx = &self->ctx;

	lc_close_while_held(_metadata, ctx, CMABUF_IMPORTER_HOLD_MAP, false);
}

TEST_F_TIMEOUT(lc, close_fd_and_importer_fd_while_held, 300)
{
	struct lc_ctx *ctx = &self->ctx;

	lc_close_while_held(_metadata, ctx, CMABUF_IMPORTER_HOLD_MAP, true);
}

/* ---- the process holding buffers killed ---- */

/*
 * A child allocates on every instance, maps, duplicates and has the
 * importer hold some of it, says how many holds it took, and is killed.
 */
static void lc_holder(struct lc_ctx *ctx, int pipe_w)
{
	struct cmabuf_importer_hold hold;
	unsigned int i, k;
	int dev, fd, held = 0;
	__u32 handles[8];
	size_t size;
	void *map;

	for (i = 0; i < ctx->ninst; i++) {
		dev = lc_open(&ctx->inst[i]);
		for (k = 0; k < 3; k++) {
			size = (1 + k * 7) * 64 * (size_t)ctx->inst[i].page_size;
			fd = lc_alloc(dev, size, CMABUF_STRATEGY_AUTO);
			if (fd < 0)
				_exit(1);
			map = mmap(NULL, size, PROT_READ | PROT_WRITE,
				   MAP_SHARED, fd, 0);
			if (map != MAP_FAILED)
				lc_fill(map, size, k + 1);
			if (k == 1)
				dup(fd);
			if (k == 2 && ctx->imp >= 0 && held < 8) {
				memset(&hold, 0, sizeof(hold));
				hold.fd = fd;
				hold.flags = CMABUF_IMPORTER_HOLD_MAP;
				if (!cmabuf_ioctl(ctx->imp,
						  CMABUF_IMPORTER_IOC_HOLD, &hold))
					handles[held++] = hold.handle;
			}
		}
	}
	if (write(pipe_w, &held, sizeof(held)) != sizeof(held) ||
	    write(pipe_w, handles, held * sizeof(handles[0])) !=
	    (ssize_t)(held * sizeof(handles[0])))
		_exit(2);
	pause();
	_exit(3);
}

TEST_F_TIMEOUT(lc, process_killed_holding_buffers, 300)
{
	struct lc_ctx *ctx = &self->ctx;
	struct cmabuf_importer_release rel = { 0 };
	int i, j, held, status, pipefd[2];
	__u32 handles[8];
	pid_t pid;

	for (i = 0; i < lc_repeat(20); i++) {
		ASSERT_EQ(0, pipe2(pipefd, O_CLOEXEC));
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid)
			lc_holder(ctx, pipefd[1]);
		ASSERT_EQ((ssize_t)sizeof(held),
			  read(pipefd[0], &held, sizeof(held)));
		ASSERT_EQ((ssize_t)(held * sizeof(handles[0])),
			  read(pipefd[0], handles, held * sizeof(handles[0])));
		kill(pid, SIGKILL);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		close(pipefd[0]);
		close(pipefd[1]);
		EXPECT_TRUE(WIFSIGNALED(status));
		lc_fault_if(WIFSIGNALED(status));
		/* What the importer holds outlives the process. */
		for (j = 0; j < held; j++) {
			rel.handle = handles[j];
			EXPECT_EQ(0, cmabuf_ioctl(ctx->imp,
						  CMABUF_IMPORTER_IOC_RELEASE,
						  &rel));
		}
		ASSERT_BASELINE();
	}
}

/* ---- unbind and bind through sysfs while buffers are alive ---- */

/* The platform device of an instance: its misc device's parent. */
static int lc_platform_name(const char *misc, char *out, size_t size)
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
	if (strlen(base) >= size)
		errno = ENAMETOOLONG;
	else
		memcpy(out, base, strlen(base) + 1);
	return strlen(base) >= size ? errno : 0;
}

static bool lc_dev_exists(const char *name)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "/dev/%s", name);
	return !stat(path, &st);
}

/* Bind @pdev if it is not bound; wait for its device node. */
static int lc_bind(const char *pdev, const char *misc)
{
	__u64 end = rel_now_ns() + 5 * 1000000000ULL;
	int ret = 0;

	if (!lc_dev_exists(misc))
		ret = rel_write_str(REL_PLATFORM_DRIVER "/bind", pdev);
	while (!lc_dev_exists(misc) && rel_now_ns() < end)
		usleep(1000);
	return lc_dev_exists(misc) ? 0 : ret ? ret : ETIMEDOUT;
}

/*
 * Allocate @size from the dma-heap @name: the dma-buf fd, -errno, or
 * -ENOENT when there is no such heap.
 */
static int lc_heap_buf(const char *name, __u64 size)
{
	int fd, err;

	err = heap_alloc_named(name, size, &fd);
	return err ? -err : fd;
}

/*
 * Allocate a page from the dma-heap @name and free it at once: 0, the
 * errno, or -1 when there is no such heap (6.12, heap=0).
 */
static int lc_heap_alloc_name(const char *name)
{
	int fd = lc_heap_buf(name, 4096);

	if (fd == -ENOENT)
		return -1;
	if (fd < 0)
		return -fd;
	close(fd);
	return 0;
}

/* The exporter of a buffer from the dma-heap @name, from its fdinfo. */
static int lc_heap_exporter(const char *name, char exp[64])
{
	int fd, ret;

	fd = lc_heap_buf(name, 4096);
	if (fd < 0)
		return -fd;
	ret = -cmabuf_fdinfo(fd, "exp_name", exp, 64);
	close(fd);
	return ret;
}

/* One page, once: the cheapest run of the bench file. */
#define LC_BENCH_RUN	"pages=1 iterations=1\n"

/* Write @line to the bench file open at @fd: 0 or the errno. */
static int lc_bench_write(int fd, const char *line)
{
	ssize_t n = write(fd, line, strlen(line));

	if (n < 0)
		return errno;
	return (size_t)n == strlen(line) ? 0 : EIO;
}

/* The report of the bench file open at @fd: its length, or -errno. */
static ssize_t lc_bench_report(int fd, char *buf, size_t size)
{
	ssize_t n = pread(fd, buf, size - 1, 0);

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return n;
}

/* open(@path) for the bench file: the fd, or -errno. */
static int lc_bench_open(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/*
 * Buffers alive while their instance goes away stay usable, keep their
 * pages until freed, and the area is whole again afterwards; the old fd
 * of the device answers INFO and refuses to allocate. The instance's
 * debugfs directory goes at unbind: its bench file is not there any more
 * (ENOENT), and debugfs fails every later call on an fd opened before
 * (EIO: fs/debugfs/file.c, debugfs_file_get() of a removed file), the
 * report of a run made before included. Bound again, the instance has a
 * new bench file, with no report, that runs.
 */
TEST_F_TIMEOUT(lc, unbind_bind_while_alive, 300)
{
	struct lc_ctx *ctx = &self->ctx;
	struct cmabuf_importer_release rel = { 0 };
	struct cmabuf_importer_hold hold;
	const struct rel_instance *in;
	bool heaps = rel_module_has_heaps();
	struct cmabuf_info info;
	int i, dev, fd[2], other, err, bench;
	char pdev[64], bpath[PATH_MAX], report[1024];
	size_t size;
	__u8 *map;

	ASSERT_TRUE(heaps || !rel_heaps_required())
		TH_LOG("%s=1, but cmabuf has no dma-heaps", REL_REQUIRE_HEAPS);
	TH_LOG("dma-heaps %s", heaps ? "registered: checked across unbind and bind" :
	       "off (heap=0 or no dma_heap_add): none may exist");
	for (i = 0; i < lc_repeat(20); i++) {
		in = &ctx->inst[i % ctx->ninst];
		size = (4 + i) * (size_t)in->page_size;
		ASSERT_EQ(0, lc_platform_name(in->name, pdev, sizeof(pdev)));
		dev = lc_open(in);
		ASSERT_LE(0, dev);
		fd[0] = lc_alloc(dev, size, CMABUF_STRATEGY_AUTO);
		fd[1] = lc_alloc(dev, size, CMABUF_STRATEGY_AUTO);
		ASSERT_LE(0, fd[0]);
		ASSERT_LE(0, fd[1]);
		map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
			   fd[0], 0);
		ASSERT_NE(MAP_FAILED, map);
		lc_fill(map, size, i + 3);
		memset(&hold, 0, sizeof(hold));
		hold.fd = fd[1];
		hold.flags = CMABUF_IMPORTER_HOLD_MAP;
		if (ctx->imp >= 0)
			ASSERT_EQ(0, cmabuf_ioctl(ctx->imp,
						  CMABUF_IMPORTER_IOC_HOLD, &hold));
		ASSERT_EQ(0, kbench_path(in->name, bpath, sizeof(bpath)));
		bench = lc_bench_open(bpath);
		ASSERT_LE(0, bench) TH_LOG("%s: %s", bpath, strerror(-bench));
		ASSERT_EQ(0, lc_bench_write(bench, LC_BENCH_RUN));
		ASSERT_LT(0, lc_bench_report(bench, report, sizeof(report)));

		ASSERT_EQ(0, rel_write_str(REL_PLATFORM_DRIVER "/unbind",
					   pdev));
		EXPECT_FALSE(lc_dev_exists(in->name));
		err = lc_alloc(dev, size, CMABUF_STRATEGY_AUTO);
		EXPECT_EQ(-ENODEV, err);
		lc_fault_if(!lc_dev_exists(in->name) && err == -ENODEV);
		EXPECT_EQ(-ENOENT, lc_bench_open(bpath));
		EXPECT_EQ(EIO, lc_bench_write(bench, LC_BENCH_RUN));
		EXPECT_EQ(-EIO, lc_bench_report(bench, report, sizeof(report)));
		EXPECT_EQ(0, close(bench));
		memset(&info, 0, sizeof(info));
		EXPECT_EQ(0, cmabuf_ioctl(dev, CMABUF_IOC_INFO, &info));
		EXPECT_EQ(2ULL, info.live_buffers);
		/* Its dma-heap stays, and refuses until it is bound again. */
		err = lc_heap_alloc_name(in->name);
		EXPECT_EQ(heaps ? ENODEV : -1, err)
			TH_LOG("%s's heap, unbound: %d", in->name, err);
		EXPECT_EQ(0U, lc_mismatches(map, size, i + 3));
		/* Still a cmabuf buffer, for any instance left. */
		other = lc_open(&ctx->inst[(i + 1) % ctx->ninst]);
		if (other >= 0) {
			struct cmabuf_phys phys = { .fd = fd[0] };

			EXPECT_EQ(0, cmabuf_ioctl(other, CMABUF_IOC_PHYS, &phys));
			EXPECT_EQ(size, phys.size);
			close(other);
		}

		munmap(map, size);
		close(fd[0]);
		close(fd[1]);
		if (ctx->imp >= 0) {
			rel.handle = hold.handle;
			EXPECT_EQ(0, cmabuf_ioctl(ctx->imp,
						  CMABUF_IMPORTER_IOC_RELEASE, &rel));
		}
		close(dev);
		ASSERT_EQ(0, lc_bind(pdev, in->name));
		/* Bound again: its heap is served by the new instance. */
		err = lc_heap_alloc_name(in->name);
		if (heaps) {
			EXPECT_EQ(0, err) TH_LOG("%s: heap ALLOC after bind: %d",
						 in->name, err);
		}
		/* And a bench file of its own: no report yet, then one. */
		bench = lc_bench_open(bpath);
		ASSERT_LE(0, bench) TH_LOG("%s after bind: %s", bpath,
					   strerror(-bench));
		EXPECT_EQ(0, lc_bench_report(bench, report, sizeof(report)));
		EXPECT_EQ(0, lc_bench_write(bench, LC_BENCH_RUN));
		EXPECT_LT(0, lc_bench_report(bench, report, sizeof(report)));
		close(bench);
		ASSERT_BASELINE();
	}
}

/*
 * A DMA buffer goes back through its device's binding to the area:
 * dma_free_pages() frees into dev->cma_area (dma_free_contiguous()), and
 * into the page allocator once of_reserved_mem_device_release() has
 * cleared it, the area's pages then lost. Freed after its instance was
 * unbound, the area's used pages must come back all the same. Bound again
 * while a buffer of the old instance lives, the old buffer's free (the
 * old instance's last reference) must not end the new instance's
 * binding, whose buffer must come back too.
 */
TEST_F_TIMEOUT(lc, unbind_with_live_dma_buffer, 300)
{
	struct lc_ctx *ctx = &self->ctx;
	const struct rel_instance *in = NULL;
	unsigned long long used, used_alive;
	int dev, old, dev2, fresh;
	char pdev[64];
	unsigned int i;
	size_t size;
	__u8 *map;

	for (i = 0; i < ctx->ninst && !in; i++)
		if (ctx->inst[i].strategies &
		    CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_DMA))
			in = &ctx->inst[i];
	if (!in)
		SKIP(return, "no instance offers DMA here");
	size = 64 * (size_t)in->page_size;
	ASSERT_EQ(0, lc_platform_name(in->name, pdev, sizeof(pdev)));
	TH_LOG("%s (%s) on area %s", in->name, pdev, in->area);

	/* Freed after the unbind, before anything is bound again. */
	dev = lc_open(in);
	ASSERT_LE(0, dev);
	old = lc_alloc(dev, size, CMABUF_STRATEGY_DMA);
	ASSERT_LE(0, old) TH_LOG("DMA ALLOC: %s", strerror(-old));
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, old, 0);
	ASSERT_NE(MAP_FAILED, map);
	lc_fill(map, size, 31);
	ASSERT_EQ(0, rel_cma_read(in->area, "used", &used_alive));
	ASSERT_EQ(0, rel_write_str(REL_PLATFORM_DRIVER "/unbind", pdev));
	EXPECT_FALSE(lc_dev_exists(in->name));
	EXPECT_EQ(0U, lc_mismatches(map, size, 31));
	munmap(map, size);
	close(old);
	close(dev);
	/* Back in the area while nothing is bound to it (frees are queued). */
	for (i = 0; i < 500; i++) {
		ASSERT_EQ(0, rel_cma_read(in->area, "used", &used));
		if (used + size / in->page_size == used_alive)
			break;
		usleep(10000);
	}
	EXPECT_EQ(used_alive - size / in->page_size, used)
		TH_LOG("area %s: %llu pages used with the buffer, %llu after its free",
		       in->area, used_alive, used);
	ASSERT_EQ(0, lc_bind(pdev, in->name));
	ASSERT_BASELINE();

	/* Alive across unbind and bind, freed under the new instance. */
	dev = lc_open(in);
	ASSERT_LE(0, dev);
	old = lc_alloc(dev, size, CMABUF_STRATEGY_DMA);
	ASSERT_LE(0, old);
	ASSERT_EQ(0, rel_write_str(REL_PLATFORM_DRIVER "/unbind", pdev));
	close(dev);
	ASSERT_EQ(0, lc_bind(pdev, in->name));
	dev2 = lc_open(in);
	ASSERT_LE(0, dev2);
	fresh = lc_alloc(dev2, size, CMABUF_STRATEGY_DMA);
	ASSERT_LE(0, fresh) TH_LOG("DMA ALLOC after bind: %s",
				   strerror(-fresh));
	/* The old instance's last reference goes with its buffer. */
	close(old);
	ASSERT_EQ(0, rel_cma_read(in->area, "used", &used));
	TH_LOG("used pages: %llu with one buffer before, %llu now", used_alive,
	       used);
	close(fresh);
	close(dev2);
	ASSERT_BASELINE();
}

/*
 * The child runs a long benchmark on @path and writes its errno to
 * @pipe_w once the write has returned.
 */
static pid_t lc_spawn_long_bench(const char *path, int pipe_w)
{
	char line[64];
	pid_t pid = fork();
	int fd, err;

	if (pid)
		return pid;
	snprintf(line, sizeof(line), "pages=64 iterations=%d strategy=legacy",
		 KBENCH_MAX_ITERATIONS);
	fd = lc_bench_open(path);
	err = fd < 0 ? -fd : lc_bench_write(fd, line);
	_exit(write(pipe_w, &err, sizeof(err)) == sizeof(err) ? 0 : 2);
}

/*
 * A benchmark under way when its instance is unbound stops at its next
 * iteration with ENODEV: the unbind waits for it, since debugfs lets no
 * call outlive the file's removal, and everything it held is back in the
 * area. LEGACY, which every kernel has.
 */
TEST_F_TIMEOUT(lc, unbind_stops_bench_run, 600)
{
	struct lc_ctx *ctx = &self->ctx;
	const struct rel_instance *in;
	unsigned long long base;
	int i, err, status, pipefd[2];
	char pdev[64], bpath[PATH_MAX];
	bool running;
	pid_t pid;

	for (i = 0; i < lc_repeat(4); i++) {
		in = &ctx->inst[i % ctx->ninst];
		ASSERT_EQ(0, lc_platform_name(in->name, pdev, sizeof(pdev)));
		ASSERT_EQ(0, kbench_path(in->name, bpath, sizeof(bpath)));
		ASSERT_EQ(0, lc_cma_allocated(in, &base));
		ASSERT_EQ(0, pipe2(pipefd, O_CLOEXEC));

		pid = lc_spawn_long_bench(bpath, pipefd[1]);
		ASSERT_LT(0, pid);
		running = lc_wait_allocated(in, base, 1, pipefd[0]);
		ASSERT_EQ(0, rel_write_str(REL_PLATFORM_DRIVER "/unbind",
					   pdev));
		ASSERT_EQ((ssize_t)sizeof(err),
			  read(pipefd[0], &err, sizeof(err)));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		close(pipefd[0]);
		close(pipefd[1]);
		EXPECT_TRUE(running) TH_LOG("%s: the run ended (%s) before the unbind",
					    in->name, rel_errname(err));
		EXPECT_EQ(ENODEV, err) TH_LOG("%s: %s", in->name,
					      rel_errname(err));
		lc_fault_if(running && err == ENODEV);
		ASSERT_EQ(0, lc_bind(pdev, in->name));
		ASSERT_BASELINE();
	}
}

/* ---- the test nodes: probe errors, numbered instances, taken names ---- */

#define LC_PLATFORM_DEVICES	"/sys/bus/platform/devices"

/* Let cmabuf bind the test node @node: 0, or the errno of its probe. */
static int lc_test_bind(const char *node)
{
	char path[256];
	int ret;

	snprintf(path, sizeof(path), LC_PLATFORM_DEVICES "/%s/driver_override",
		 node);
	ret = rel_write_str(path, REL_MODULE_NAME);
	if (ret)
		return ret;
	return rel_write_str(REL_PLATFORM_DRIVER "/bind", node);
}

static bool lc_node_bound(const char *node)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), REL_PLATFORM_DRIVER "/%s", node);
	return !lstat(path, &st);
}

/*
 * Unbind @node if cmabuf has it and clear its driver_override, so that no
 * later load of the module binds it.
 */
static int lc_test_release(const char *node)
{
	char path[256];
	int ret = 0;

	if (lc_node_bound(node))
		ret = rel_write_str(REL_PLATFORM_DRIVER "/unbind", node);
	snprintf(path, sizeof(path), LC_PLATFORM_DEVICES "/%s/driver_override",
		 node);
	return rel_write_str(path, "\n") ?: ret;
}

/* The misc device a bound node got, from sysfs, into @name. */
static int lc_node_misc(const char *node, char *name, size_t size)
{
	char path[256];
	struct dirent *de;
	int ret = ENOENT;
	DIR *dir;

	snprintf(path, sizeof(path), LC_PLATFORM_DEVICES "/%s/misc", node);
	dir = opendir(path);
	if (!dir)
		return errno;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(name, size, "%.63s", de->d_name);
		ret = 0;
	}
	closedir(dir);
	return ret;
}

/* Wait up to 5 s for /dev/@name. */
static bool lc_wait_dev(const char *name)
{
	__u64 end = rel_now_ns() + 5 * 1000000000ULL;

	while (!lc_dev_exists(name) && rel_now_ns() < end)
		usleep(1000);
	return lc_dev_exists(name);
}

/*
 * Probes that must fail leave no device, no binding and no name behind:
 * each fails the same way again, every time.
 */
TEST_F(lc, probe_errors_leave_nothing)
{
	static const struct {
		const char *node;
		const char *misc;
		int err;
		const char *what;
	} cases[] = {
		{ "cmabuf-test-coherent", "cmabuf-coherent", EINVAL,
		  "a memory-region that is not reusable CMA" },
		{ "cmabuf-test-no-region", "cmabuf-no-region", ENODEV,
		  "no memory-region" },
	};
	struct lc_ctx *ctx = &self->ctx;
	unsigned int i;
	bool clean;
	int r, err;

	for (r = 0; r < lc_repeat(5); r++) {
		for (i = 0; i < ARRAY_SIZE(cases); i++) {
			err = lc_test_bind(cases[i].node);
			clean = !lc_node_bound(cases[i].node) &&
				!lc_dev_exists(cases[i].misc);
			EXPECT_EQ(cases[i].err, err) {
				TH_LOG("%s (%s): bind gave %s", cases[i].node,
				       cases[i].what, rel_errname(err));
			}
			EXPECT_TRUE(clean);
			EXPECT_EQ(0, lc_test_release(cases[i].node));
			lc_fault_if(err == cases[i].err && clean);
		}
	}
	ASSERT_BASELINE();
}

/*
 * A node without a label is /dev/cmabuf-<n> on its region, with no heap
 * (its name is not stable); unbound, it gives its number back.
 */
TEST_F(lc, unlabelled_node_is_numbered)
{
	static const char node[] = "cmabuf-test-unlabelled";
	struct lc_ctx *ctx = &self->ctx;
	char name[REL_NAME_MAX], first[REL_NAME_MAX] = "", area[64];
	struct cmabuf_info info;
	int r, n, matched, dev, fd;

	for (r = 0; r < lc_repeat(5); r++) {
		ASSERT_EQ(0, lc_test_bind(node));
		ASSERT_EQ(0, lc_node_misc(node, name, sizeof(name)));
		matched = sscanf(name, "cmabuf-%d", &n);
		EXPECT_EQ(1, matched) TH_LOG("%s", name);
		if (!first[0])
			snprintf(first, sizeof(first), "%s", name);
		EXPECT_STREQ(first, name);
		ASSERT_TRUE(lc_wait_dev(name));
		dev = rel_instance_open(name, O_RDWR);
		ASSERT_LE(0, dev);
		memset(&info, 0, sizeof(info));
		info.area_name_ptr = (uintptr_t)area;
		info.area_name_size = sizeof(area);
		EXPECT_EQ(0, cmabuf_ioctl(dev, CMABUF_IOC_INFO, &info));
		EXPECT_STREQ("general-pool", area);
		fd = lc_alloc(dev, 16ULL * info.page_size, CMABUF_STRATEGY_AUTO);
		EXPECT_LE(0, fd);
		if (fd >= 0)
			close(fd);
		close(dev);
		EXPECT_EQ(-1, lc_heap_alloc_name(name));
		ASSERT_EQ(0, lc_test_release(node));
		EXPECT_FALSE(lc_dev_exists(name));
		lc_fault_if(!lc_dev_exists(name));
		ASSERT_BASELINE();
	}
}

/* A 16-page buffer from /dev/@name (its fd, or -errno) and its exporter. */
static int lc_numbered_alloc(const char *name, char *exp, size_t len)
{
	int dev, fd, err;

	dev = rel_instance_open(name, O_RDWR);
	if (dev < 0)
		return dev;
	fd = lc_alloc(dev, 16ULL * sysconf(_SC_PAGESIZE), CMABUF_STRATEGY_AUTO);
	close(dev);
	if (fd < 0)
		return fd;
	err = cmabuf_fdinfo(fd, "exp_name", exp, len);
	if (err) {
		close(fd);
		return -err;
	}
	return fd;
}

/*
 * A numbered instance unbound while one of its buffers lives keeps its
 * number until the buffer goes: the buffer's exporter (and the instance's
 * shrinker) still carry the name, and an instance bound meanwhile gets
 * another, never two live exporters of one name. Once the buffer is
 * freed, the number is free again. With the number freed at unbind, the
 * second bind repeated it.
 */
TEST_F(lc, numbered_name_kept_while_buffers_live)
{
	static const char node[] = "cmabuf-test-unlabelled";
	char first[REL_NAME_MAX], again[REL_NAME_MAX];
	char exp_old[64], exp_new[64];
	struct lc_ctx *ctx = &self->ctx;
	int r, old, fd;

	for (r = 0; r < lc_repeat(3); r++) {
		ASSERT_EQ(0, lc_test_bind(node));
		ASSERT_EQ(0, lc_node_misc(node, first, sizeof(first)));
		ASSERT_TRUE(lc_wait_dev(first));
		old = lc_numbered_alloc(first, exp_old, sizeof(exp_old));
		ASSERT_LE(0, old) TH_LOG("%s: %s", first, strerror(-old));
		EXPECT_STREQ(first, exp_old);
		ASSERT_EQ(0, lc_test_release(node));

		/* The buffer holds the number: the rebound node gets another. */
		ASSERT_EQ(0, lc_test_bind(node));
		ASSERT_EQ(0, lc_node_misc(node, again, sizeof(again)));
		EXPECT_STRNE(first, again);
		ASSERT_TRUE(lc_wait_dev(again));
		fd = lc_numbered_alloc(again, exp_new, sizeof(exp_new));
		ASSERT_LE(0, fd) TH_LOG("%s: %s", again, strerror(-fd));
		EXPECT_STREQ(again, exp_new);
		EXPECT_STRNE(exp_old, exp_new);
		lc_fault_if(strcmp(exp_old, exp_new) != 0);
		close(fd);
		ASSERT_EQ(0, lc_test_release(node));

		/* The last buffer of the first instance gone: its number too. */
		close(old);
		ASSERT_EQ(0, lc_test_bind(node));
		ASSERT_EQ(0, lc_node_misc(node, again, sizeof(again)));
		EXPECT_STREQ(first, again);
		ASSERT_EQ(0, lc_test_release(node));
		ASSERT_BASELINE();
	}
}

/* Does the kernel log say @text between @kmsg's position and now? */
static bool lc_kmsg_says(int kmsg, const char *text)
{
	char rec[1024];
	bool found = false;
	ssize_t n;

	while ((n = read(kmsg, rec, sizeof(rec) - 1)) > 0 || errno == EPIPE) {
		if (n <= 0)
			continue;	/* overwritten records */
		rec[n] = '\0';
		found |= !!strstr(rec, text);
	}
	return found;
}

/*
 * The instance labelled "taken" would serve /dev/dma_heap/cmabuf-taken,
 * but the kernel's CMA heap named a heap after the CMA area of that name
 * first: cmabuf registers none (EEXIST), says so, and the instance works.
 */
TEST_F(lc, heap_name_taken_gets_no_heap)
{
	static const char node[] = "cmabuf-test-taken";
	static const char name[] = "cmabuf-taken";
	static const char said[] =
		"no dma-heap cmabuf-taken: the CMA heap of an area took the name";
	struct lc_ctx *ctx = &self->ctx;
	char exp[64] = "";
	int kmsg, dev, fd, err;
	bool warned;

	if (!rel_module_has_heaps()) {
		ASSERT_FALSE(rel_heaps_required())
			TH_LOG("%s=1, but cmabuf has no dma-heaps",
			       REL_REQUIRE_HEAPS);
		SKIP(return, "%s: %s", "cmabuf has no dma-heaps here",
		     "heap=0, or built without dma_heap_add (lifecycle-heap runs this)");
	}
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ASSERT_LE(0, kmsg);
	lseek(kmsg, 0, SEEK_END);
	err = lc_test_bind(node);
	EXPECT_EQ(0, err) TH_LOG("bind %s: %s", node, rel_errname(err));
	warned = lc_kmsg_says(kmsg, said);
	close(kmsg);
	EXPECT_TRUE(warned) TH_LOG("the kernel log lacks '%s'", said);
	EXPECT_TRUE(lc_wait_dev(name));

	dev = rel_instance_open(name, O_RDWR);
	EXPECT_LE(0, dev);
	fd = dev >= 0 ? lc_alloc(dev, SZ_1M, CMABUF_STRATEGY_AUTO) : -1;
	EXPECT_LE(0, fd);
	if (fd >= 0)
		close(fd);
	if (dev >= 0)
		close(dev);
	/* The heap of that name is the CMA heap's. */
	err = lc_heap_exporter(name, exp);
	EXPECT_EQ(0, err);
	EXPECT_STRNE("cmabuf", exp);
	TH_LOG("/dev/dma_heap/%s hands out buffers of '%s'", name, exp);

	EXPECT_EQ(0, lc_test_release(node));
	EXPECT_FALSE(lc_dev_exists(name));
	lc_fault_if(warned && !err && strcmp(exp, "cmabuf"));
	ASSERT_BASELINE();
}

/* ---- rmmod ---- */

/* A buffer pins the module: rmmod is refused and the buffer works on. */
TEST_F(lc, rmmod_refused_while_buffers_alive)
{
	struct lc_ctx *ctx = &self->ctx;
	const struct rel_instance *in = &ctx->inst[0];
	int i, dev, fd, err;
	size_t size = 16 * (size_t)in->page_size;
	__u8 *map;

	for (i = 0; i < lc_repeat(20); i++) {
		dev = lc_open(in);
		ASSERT_LE(0, dev);
		fd = lc_alloc(dev, size, CMABUF_STRATEGY_AUTO);
		ASSERT_LE(0, fd);
		close(dev);
		map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
			   fd, 0);
		ASSERT_NE(MAP_FAILED, map);
		lc_fill(map, size, i + 11);

		err = rel_module_unload(REL_MODULE_NAME);
		lc_fault_if(err == EAGAIN || err == EBUSY);
		EXPECT_TRUE(err == EAGAIN || err == EBUSY) {
			TH_LOG("rmmod with a buffer alive: %s",
			       rel_errname(err));
		}
		ASSERT_TRUE(rel_module_loaded(REL_MODULE_NAME));
		EXPECT_EQ(0U, lc_mismatches(map, size, i + 11));
		munmap(map, size);
		close(fd);
		ASSERT_BASELINE();
	}
}

static bool lc_all_devices(struct lc_ctx *ctx)
{
	unsigned int i;

	for (i = 0; i < ctx->ninst; i++)
		if (!lc_dev_exists(ctx->inst[i].name))
			return false;
	return true;
}

/* Load the module with @params and wait for every instance's node. */
static int lc_reload(struct lc_ctx *ctx, const char *params)
{
	__u64 end;
	int err;

	err = rel_module_load(REL_MODULE_PATH, params);
	if (err)
		return err;
	end = rel_now_ns() + 5 * 1000000000ULL;
	while (!lc_all_devices(ctx) && rel_now_ns() < end)
		usleep(1000);
	return lc_all_devices(ctx) ? 0 : ETIMEDOUT;
}

/* default_instance=0: the device tree's instances, and no /dev/cmabuf. */
TEST_F_TIMEOUT(lc, default_instance_0_leaves_out_cmabuf, 120)
{
	struct lc_ctx *ctx = &self->ctx;
	struct stat st;
	bool absent;

	if (rel_module_pinned())
		SKIP(return, "%s", REL_PINNED_REASON);
	ASSERT_EQ(0, rel_module_unload(REL_MODULE_NAME));
	ASSERT_EQ(0, rel_module_load(REL_MODULE_PATH,
				     "heap=0 default_instance=0"));
	EXPECT_TRUE(lc_wait_dev("cmabuf-general"));
	EXPECT_TRUE(lc_wait_dev("cmabuf-large"));
	absent = !lc_dev_exists("cmabuf") &&
		 stat(LC_PLATFORM_DEVICES "/cmabuf-default", &st);
	EXPECT_TRUE(absent);
	ASSERT_EQ(0, rel_module_unload(REL_MODULE_NAME));
	ASSERT_EQ(0, lc_reload(ctx, "heap=0"));
	EXPECT_TRUE(lc_dev_exists("cmabuf"));
	lc_fault_if(absent);
	ASSERT_BASELINE();
}

/*
 * Without buffers the module unloads, its devices go, and loaded again
 * (heap=0, so that it stays unloadable) everything works as before.
 */
TEST_F_TIMEOUT(lc, rmmod_after_buffers_gone_and_reload, 300)
{
	struct lc_ctx *ctx = &self->ctx;
	const struct rel_instance *in = &ctx->inst[0];
	int i, dev, fd;

	if (rel_module_pinned())
		SKIP(return, "%s", REL_PINNED_REASON);
	for (i = 0; i < lc_repeat(20); i++) {
		ASSERT_EQ(0, rel_module_unload(REL_MODULE_NAME));
		lc_fault_if(!rel_module_loaded(REL_MODULE_NAME));
		EXPECT_FALSE(rel_module_loaded(REL_MODULE_NAME));
		EXPECT_FALSE(lc_dev_exists(in->name));
		ASSERT_EQ(0, lc_reload(ctx, "heap=0"));
		dev = lc_open(in);
		ASSERT_LE(0, dev);
		fd = lc_alloc(dev, 4 * (size_t)in->page_size,
			      CMABUF_STRATEGY_AUTO);
		EXPECT_LE(0, fd);
		close(fd);
		close(dev);
		ASSERT_BASELINE();
	}
}

/*
 * Unloading the importer drops what it holds: the buffers are freed
 * although no fd of them is left anywhere.
 */
TEST_F_TIMEOUT(lc, rmmod_importer_while_holding, 300)
{
	struct lc_ctx *ctx = &self->ctx;
	struct cmabuf_importer_hold hold;
	const struct rel_instance *in;
	int i, k, dev, fd, err;

	if (ctx->imp < 0)
		SKIP(return, "no %s", REL_IMPORTER_DEV);
	for (i = 0; i < lc_repeat(20); i++) {
		for (k = 0; k < 3; k++) {
			in = &ctx->inst[(i + k) % ctx->ninst];
			dev = lc_open(in);
			ASSERT_LE(0, dev);
			fd = lc_alloc(dev, (1 + k) * 32 * (size_t)in->page_size,
				      CMABUF_STRATEGY_AUTO);
			close(dev);
			ASSERT_LE(0, fd);
			memset(&hold, 0, sizeof(hold));
			hold.fd = fd;
			hold.flags = k ? CMABUF_IMPORTER_HOLD_MAP : 0;
			ASSERT_EQ(0, cmabuf_ioctl(ctx->imp,
						  CMABUF_IMPORTER_IOC_HOLD, &hold));
			close(fd);
		}
		close(ctx->imp);
		ctx->imp = -1;
		err = rel_module_unload(REL_IMPORTER_NAME);
		ASSERT_EQ(0, err);
		ASSERT_BASELINE();
		lc_fault_if(true);
		ASSERT_EQ(0, rel_module_load(REL_IMPORTER_PATH, NULL));
		ctx->imp = open(REL_IMPORTER_DEV, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, ctx->imp);
	}
}

/* ---- prepared buffers and frees in flight ---- */

/* A number from the instance's sysfs directory, ~0 when unreadable. */
static unsigned long long lc_pool(const char *name, const char *file)
{
	unsigned long long v = ~0ULL;
	char path[256];

	snprintf(path, sizeof(path), "/sys/class/misc/%s/%s", name, file);
	rel_read_ull(path, &v);
	return v;
}

/* Write @words to the instance's sysfs reserve: 0 or the errno. */
static int lc_reserve(const char *name, const char *words)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/class/misc/%s/reserve", name);
	return rel_write_str(path, words);
}

/* Does the instance prepare buffers (and free in the background)? */
static bool lc_has_pool(const struct rel_instance *in)
{
	return lc_pool(in->name, "prepared_bytes") != ~0ULL;
}

/* PREPARE @count buffers of @size on @dev: 0 or the errno. */
static int lc_prepare(int dev, __u64 size, __u32 flags, __u32 count,
		      __u32 *ready)
{
	struct cmabuf_prepare p = {
		.size = size,
		.flags = flags,
		.count = count,
		.timeout_ms = 60000,
	};
	int err = cmabuf_ioctl(dev, CMABUF_IOC_PREPARE, &p);

	if (ready)
		*ready = p.ready;
	return err;
}

/*
 * The child asks for @count buffers of @size and waits for them; it
 * writes to @pipe_w before the call and once it returned.
 */
static pid_t lc_spawn_prepare_wait(const struct rel_instance *in, __u64 size,
				   __u32 count, int pipe_w)
{
	pid_t pid = fork();
	int dev, err;

	if (pid)
		return pid;
	dev = lc_open(in);
	err = 0;
	if (write(pipe_w, &err, sizeof(err)) != sizeof(err))
		_exit(2);
	err = lc_prepare(dev, size, CMABUF_PREPARE_WAIT, count, NULL);
	if (write(pipe_w, &err, sizeof(err)) != sizeof(err))
		_exit(2);
	pause();
	_exit(1);
}

/*
 * A process blocked in PREPARE with WAIT while its buffers are made is
 * killed: it dies (the wait is killable), and its file's wants and every
 * buffer made for them go back to the area.
 */
TEST_F_TIMEOUT(lc, kill_while_prepare_waits, 600)
{
	struct lc_ctx *ctx = &self->ctx;
	const struct rel_instance *in = lc_find(ctx, "cmabuf-large");
	struct pollfd pfd = { .events = POLLIN };
	int i, n = lc_repeat(6), blocked = 0, status, err, pipefd[2];
	__u64 end;
	pid_t pid;

	if (!in)
		in = &ctx->inst[0];
	if (!lc_has_pool(in))
		SKIP(return, "%s prepares no buffers", in->name);
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, pipe2(pipefd, O_CLOEXEC));
		pid = lc_spawn_prepare_wait(in, 64 * SZ_1M, 4, pipefd[1]);
		ASSERT_LT(0, pid);
		ASSERT_EQ((ssize_t)sizeof(err),
			  read(pipefd[0], &err, sizeof(err)));
		/* Once the first buffer is ready, three are still to come. */
		pfd.fd = pipefd[0];
		end = rel_now_ns() + 30 * 1000000000ULL;
		while (lc_pool(in->name, "prepared_buffers") < 1 &&
		       !poll(&pfd, 1, 0) && rel_now_ns() < end)
			usleep(500);
		err = poll(&pfd, 1, 0);
		kill(pid, SIGKILL);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		close(pipefd[0]);
		close(pipefd[1]);
		EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
		blocked += !err;
		lc_fault_if(!err);
		ASSERT_BASELINE();
	}
	TH_LOG("%d of %d kills landed while PREPARE waited", blocked, n);
	EXPECT_LT(n / 2, blocked);
}

/*
 * Buffers freed just before (their pages on the way back), a file's want
 * and the administrator's reserve being made: the instance is unbound
 * nonetheless, and the unbind drains it all, so that the area is whole
 * when it returns. The old file then refuses with ENODEV.
 */
TEST_F_TIMEOUT(lc, unbind_with_prepares_and_frees_pending, 600)
{
	struct lc_ctx *ctx = &self->ctx;
	const struct rel_instance *in;
	const struct rel_counts *base;
	unsigned long long used;
	int i, k, dev, fd[4], pending = 0;
	char pdev[64];

	for (i = 0; i < lc_repeat(4); i++) {
		in = &ctx->inst[i % ctx->ninst];
		if (!lc_has_pool(in))
			SKIP(return, "%s prepares no buffers", in->name);
		base = rel_snapshot_find(&ctx->base, in->name);
		ASSERT_NE(NULL, base);
		ASSERT_EQ(0, lc_platform_name(in->name, pdev, sizeof(pdev)));
		dev = lc_open(in);
		ASSERT_LE(0, dev);
		for (k = 0; k < 4; k++) {
			fd[k] = lc_alloc(dev, 8 * SZ_1M, CMABUF_STRATEGY_AUTO);
			ASSERT_LE(0, fd[k]);
		}
		ASSERT_EQ(0, lc_prepare(dev, 4 * SZ_1M, 0, 3, NULL));
		ASSERT_EQ(0, lc_reserve(in->name, "2Mx3"));
		for (k = 0; k < 4; k++)
			close(fd[k]);
		pending += lc_pool(in->name, "releasing_bytes") > 0 ||
			   lc_pool(in->name, "prepared_buffers") < 6;

		ASSERT_EQ(0, rel_write_str(REL_PLATFORM_DRIVER "/unbind",
					   pdev));
		ASSERT_EQ(0, rel_cma_read(in->area, "used", &used));
		EXPECT_EQ(base->used_pages, used)
			TH_LOG("%s unbound: %llu pages of %s used, %llu before",
			       in->name, used, in->area, base->used_pages);
		EXPECT_EQ(ENODEV, lc_prepare(dev, 4 * SZ_1M, 0, 1, NULL));
		EXPECT_EQ(-ENODEV, lc_alloc(dev, SZ_1M, CMABUF_STRATEGY_AUTO));
		lc_fault_if(used == base->used_pages);
		close(dev);
		ASSERT_EQ(0, lc_bind(pdev, in->name));
		/* Bound again, with no reserve: it came from sysfs. */
		EXPECT_EQ(0ULL, lc_pool(in->name, "prepared_bytes"));
		ASSERT_BASELINE();
	}
	TH_LOG("%d unbinds found work still in flight", pending);
}

/*
 * rmmod while the reserve is being made and freed buffers are on their
 * way back (no file or buffer pins the module then): the unload drains
 * it all, the area is whole once rmmod returns, and the module loads
 * again as before.
 */
TEST_F_TIMEOUT(lc, rmmod_with_prepares_and_frees_pending, 600)
{
	struct lc_ctx *ctx = &self->ctx;
	const struct rel_instance *in = lc_find(ctx, "cmabuf-general");
	const struct rel_counts *base;
	unsigned long long used;
	int i, k, dev, fd[4], pending = 0, err;

	if (rel_module_pinned())
		SKIP(return, "%s", REL_PINNED_REASON);
	if (!in)
		in = &ctx->inst[0];
	if (!lc_has_pool(in))
		SKIP(return, "%s prepares no buffers", in->name);
	base = rel_snapshot_find(&ctx->base, in->name);
	ASSERT_NE(NULL, base);
	for (i = 0; i < lc_repeat(6); i++) {
		dev = lc_open(in);
		ASSERT_LE(0, dev);
		for (k = 0; k < 4; k++) {
			fd[k] = lc_alloc(dev, 8 * SZ_1M, CMABUF_STRATEGY_AUTO);
			ASSERT_LE(0, fd[k]);
		}
		close(dev);
		ASSERT_EQ(0, lc_reserve(in->name, "4Mx4 1Mx8"));
		for (k = 0; k < 4; k++)
			close(fd[k]);
		pending += lc_pool(in->name, "releasing_bytes") > 0 ||
			   lc_pool(in->name, "prepared_buffers") < 12;

		err = rel_module_unload(REL_MODULE_NAME);
		ASSERT_EQ(0, err) TH_LOG("rmmod: %s", rel_errname(err));
		ASSERT_EQ(0, rel_cma_read(in->area, "used", &used));
		EXPECT_EQ(base->used_pages, used)
			TH_LOG("cmabuf unloaded: %llu pages of %s used, %llu before",
			       used, in->area, base->used_pages);
		lc_fault_if(used == base->used_pages);
		ASSERT_EQ(0, lc_reload(ctx, "heap=0"));
		ASSERT_BASELINE();
	}
	TH_LOG("%d unloads found work still in flight", pending);
}

/* ---- unbind while a refill fails on a nearly full area ---- */

#define LC_HOLE		SZ_1M
#define LC_REFILL	(4 * SZ_1M)
#define LC_HOLES_MAX	512	/* 1 MiB buffers of a 512 MiB area */
#define LC_UNBIND_WAIT_S	60
/* The EBUSY back-off of a refill: 10 + 20 + 40 + 80 + 160 ms. */
#define LC_BACKOFF_MS	310

/*
 * Fill @in's area through @dev with 1 MiB buffers until it has no room,
 * then close every other one: half of it is free, in holes of 1 MiB.
 * The buffers kept are in @fd. Return: how many, or -errno.
 */
static int lc_fragment(int dev, int *fd)
{
	int n, i, kept = 0, last = 0;

	for (n = 0; n < LC_HOLES_MAX; n++) {
		last = lc_alloc(dev, LC_HOLE, CMABUF_STRATEGY_AUTO);
		if (last < 0)
			break;
		fd[n] = last;
	}
	for (i = 0; i < n; i++) {
		if (i % 2)
			close(fd[i]);
		else
			fd[kept++] = fd[i];
	}
	if (last == -ENOMEM || last == -EBUSY)
		return kept;
	while (kept)
		close(fd[--kept]);
	return last < 0 ? last : -EFBIG;
}

/*
 * Unbind @pdev in a child. Return: the write's errno, or ETIMEDOUT when it
 * had not returned after @secs (the child is left, stuck in the kernel);
 * @ms: how long it took.
 */
static int lc_unbind_timed(const char *pdev, unsigned int secs, __u64 *ms)
{
	__u64 start = rel_now_ns(), end = start + secs * 1000000000ULL;
	int status = 0, err;
	pid_t pid, done;

	pid = fork();
	if (pid < 0)
		return errno;
	if (!pid)
		_exit(rel_write_str(REL_PLATFORM_DRIVER "/unbind", pdev));
	while (!(done = waitpid(pid, &status, WNOHANG)) && rel_now_ns() <= end)
		usleep(1000);
	*ms = (rel_now_ns() - start) / 1000000;
	if (done != pid) {
		err = ETIMEDOUT;	/* the child is still in the kernel */
		return err;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : EINTR;
}

/*
 * An area half full of live buffers, its free half in 1 MiB holes: ready
 * buffers of 1 MiB fill four holes, and a want of 4 MiB has the worker try
 * and back off (the pages are free, no range is: EBUSY, retried for about
 * 310 ms). The instance is unbound meanwhile. The unbind drops the ready
 * buffers and waits for the worker; the worker, its allocation failed,
 * waited for the frees in flight, those ready buffers among them, which
 * only the unbind could release: both waited for good. Now the unbind
 * returns (well within 60 s), and everything goes back to the area.
 * The general instance and the default one, in turn.
 */
TEST_F_TIMEOUT(lc, unbind_while_refill_fails, 900)
{
	static const char * const names[] = { "cmabuf-general", "cmabuf" };
	struct lc_ctx *ctx = &self->ctx;
	int i, k, dev, n, err, fd[LC_HOLES_MAX], landed = 0, runs = 0;
	const struct rel_instance *in;
	__u64 asked, after, ms = 0, slowest = 0;
	__u32 ready;
	char pdev[64];

	for (i = 0; i < lc_repeat(8); i++) {
		in = lc_find(ctx, names[i % 2]);
		if (!in || !lc_has_pool(in))
			continue;
		if (in->total_pages * in->page_size > LC_HOLES_MAX * LC_HOLE)
			continue;
		ASSERT_EQ(0, lc_platform_name(in->name, pdev, sizeof(pdev)));
		dev = lc_open(in);
		ASSERT_LE(0, dev);
		n = lc_fragment(dev, fd);
		ASSERT_LE(0, n) TH_LOG("%s: filling: %s", in->name,
				       rel_errname(-n));
		ASSERT_EQ(0, rel_instance_settle(in->name, REL_SETTLE_MS));
		ASSERT_EQ(0, lc_prepare(dev, LC_HOLE, CMABUF_PREPARE_WAIT, 4,
					&ready));
		ASSERT_EQ(4U, ready);
		ASSERT_EQ(0, lc_prepare(dev, LC_REFILL, 0, 1, &ready));
		EXPECT_EQ(0U, ready);
		asked = rel_now_ns();
		/* Somewhere in the back-off, whose first pause is 10 ms. */
		usleep(5000 + i * 20000 % (LC_BACKOFF_MS * 1000 / 2));
		err = lc_unbind_timed(pdev, LC_UNBIND_WAIT_S, &ms);
		ASSERT_EQ(0, err) TH_LOG("%s: unbind while its refill failed: %s",
					 in->name, err == ETIMEDOUT ?
					 "still waiting after 60 s" :
					 rel_errname(err));
		runs++;
		/* When the unbind began, after the refill was asked for. */
		after = (rel_now_ns() - asked) / 1000000 - ms;
		landed += after < LC_BACKOFF_MS;
		lc_fault_if(after < LC_BACKOFF_MS);
		slowest = ms > slowest ? ms : slowest;
		EXPECT_EQ(ENODEV, lc_prepare(dev, LC_HOLE, 0, 1, NULL));
		for (k = 0; k < n; k++)
			close(fd[k]);
		close(dev);
		ASSERT_EQ(0, lc_bind(pdev, in->name));
		ASSERT_BASELINE();
	}
	if (!runs)
		SKIP(return, "no instance that prepares on an area of 512 MiB or less");
	TH_LOG("%d of %d unbinds began within %d ms of the refill; the slowest took %llu ms",
	       landed, runs, LC_BACKOFF_MS, (unsigned long long)slowest);
	EXPECT_LT(runs / 2, landed);
}

/* ---- the default area: room for the kernel's other drivers ---- */

/* The module parameter @name of cmabuf, or @dflt. */
static unsigned long long lc_param(const char *name, unsigned long long dflt)
{
	unsigned long long v;
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/cmabuf/parameters/%s", name);
	return rel_read_ull(path, &v) ? dflt : v;
}

/* Have the importer allocate @bytes with dma_alloc_coherent(): 0 or errno. */
static int lc_coherent(unsigned long long bytes)
{
	char n[32];

	snprintf(n, sizeof(n), "%llu", bytes);
	return rel_write_str(CMABUF_IMPORTER_COHERENT, n);
}

/*
 * The kernel's default area (/dev/cmabuf's) serves other drivers too: a
 * device without an area of its own gets its dma_alloc_coherent() there,
 * and such an allocation neither waits for nor takes back what cmabuf's
 * pool holds. So /dev/cmabuf's files may have prepared only
 * prepare_default_percent of it (10 %; it was half): with all a file may
 * prepare ready, another driver (the importer) still gets what the area
 * had free before, less that share and 4 MiB for alignment, in one
 * allocation larger than the page allocator's largest block, which only
 * CMA can serve. Before the prepares, the same allocation shows the area
 * could give it.
 */
TEST_F_TIMEOUT(lc, default_area_leaves_other_drivers_room, 300)
{
	struct lc_ctx *ctx = &self->ctx;
	const struct rel_instance *in = lc_find(ctx, "cmabuf");
	unsigned long long area, share, want, max, held;
	struct cmabuf_info info;
	__u32 count, ready;
	int dev, err;

	if (!in || !lc_has_pool(in))
		SKIP(return, "no /dev/cmabuf that prepares buffers");
	if (access(CMABUF_IMPORTER_COHERENT, W_OK))
		SKIP(return, "no %s (test importer not loaded)",
		     CMABUF_IMPORTER_COHERENT);
	dev = lc_open(in);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, cmabuf_get_info(dev, &info, NULL, 0));
	if (!(info.flags & CMABUF_INFO_AREA_STATS))
		SKIP(return, "the default area's size is not known here");
	area = info.total_bytes;
	share = area * lc_param("prepare_default_percent", 10) / 100;
	want = (info.free_bytes - share - 4 * SZ_1M) / SZ_1M * SZ_1M;
	ASSERT_LT(8 * SZ_1M, want) TH_LOG("%llu of %llu bytes free", info.free_bytes, area);
	err = lc_coherent(want);
	ASSERT_EQ(0, err) TH_LOG("%llu bytes before any prepare: %s", want,
				 rel_errname(err));
	ASSERT_EQ(0, lc_coherent(0));

	/* As many 2 MiB buffers as a file may have ready. */
	for (count = 1; count <= CMABUF_PREPARE_MAX_COUNT; count++)
		if (lc_prepare(dev, 2 * SZ_1M, 0, count, NULL))
			break;
	ASSERT_LT(1U, count);
	err = lc_prepare(dev, 2 * SZ_1M, CMABUF_PREPARE_WAIT, count - 1,
			 &ready);
	ASSERT_EQ(0, err) TH_LOG("%u x 2 MiB: %s", count - 1, rel_errname(err));
	held = lc_pool(in->name, "prepared_bytes");
	max = lc_pool(in->name, "prepare_max_bytes");
	TH_LOG("%llu of %llu bytes prepared, prepare_max_bytes %lld", held,
	       area, (long long)max);
	EXPECT_GE(share, held);

	err = lc_coherent(want);
	EXPECT_EQ(0, err) TH_LOG("%llu bytes with %llu prepared: %s", want,
				 held, rel_errname(err));
	lc_fault_if(!err);
	EXPECT_EQ(0, lc_coherent(0));
	close(dev);
	ASSERT_BASELINE();
}

/*
 * The dma-heap of an instance takes what a PREPARE on its misc device
 * made ready: AUTO, the driver's alignment, the size asked for. A
 * client of the heap needs nothing of cmabuf's.
 */
TEST_F_TIMEOUT(lc, prepare_serves_dma_heap, 120)
{
	struct lc_ctx *ctx = &self->ctx;
	const struct rel_instance *in = lc_find(ctx, "cmabuf-general");
	unsigned long long hits0, hits1;
	int dev, fd, i;
	__u32 ready;
	__u8 *map;

	if (!rel_module_has_heaps()) {
		ASSERT_FALSE(rel_heaps_required())
			TH_LOG("%s=1, but cmabuf has no dma-heaps",
			       REL_REQUIRE_HEAPS);
		SKIP(return, "%s", "cmabuf has no dma-heaps here (lifecycle-heap runs this)");
	}
	if (!in)
		in = &ctx->inst[0];
	if (!lc_has_pool(in))
		SKIP(return, "%s prepares no buffers", in->name);
	dev = lc_open(in);
	ASSERT_LE(0, dev);
	for (i = 0; i < lc_repeat(5); i++) {
		ASSERT_EQ(0, lc_prepare(dev, 4 * SZ_1M, CMABUF_PREPARE_WAIT, 1,
					&ready));
		ASSERT_EQ(1U, ready);
		ASSERT_EQ(0, rel_stat_read(in->name, "stats", "prepare_hits",
					   &hits0));
		fd = lc_heap_buf(in->name, 4 * SZ_1M);
		ASSERT_LE(0, fd) TH_LOG("%s's heap: %s", in->name,
					rel_errname(-fd));
		ASSERT_EQ(0, rel_stat_read(in->name, "stats", "prepare_hits",
					   &hits1));
		EXPECT_EQ(hits0 + 1, hits1);
		map = mmap(NULL, 4 * SZ_1M, PROT_READ, MAP_SHARED, fd, 0);
		ASSERT_NE(MAP_FAILED, map);
		EXPECT_EQ(4 * SZ_1M, cmabuf_first_nonzero(map, 4 * SZ_1M));
		munmap(map, 4 * SZ_1M);
		close(fd);
		lc_fault_if(hits1 == hits0 + 1);
		ASSERT_EQ(0, lc_prepare(dev, 4 * SZ_1M, 0, 0, NULL));
	}
	close(dev);
	ASSERT_BASELINE();
}

/*
 * A device tree node with cmabuf,reserve (cmabuf-test-reserve: two of
 * 4 MiB) shows its reserve from the bind on and makes it ready in the
 * background; an allocation of that size takes one. Unbound, it gives it
 * all back.
 */
TEST_F_TIMEOUT(lc, reserve_node_binds_with_reserve_ready, 300)
{
	static const char node[] = "cmabuf-test-reserve";
	static const char name[] = "cmabuf-reserve";
	struct lc_ctx *ctx = &self->ctx;
	char shown[64] = "", path[128];
	unsigned long long ready;
	int r, dev, fd, err;
	__u64 end;

	for (r = 0; r < lc_repeat(3); r++) {
		err = lc_test_bind(node);
		if (err == ENOENT)
			SKIP(return, "no %s in the device tree", node);
		ASSERT_EQ(0, err) TH_LOG("bind %s: %s", node, rel_errname(err));
		ASSERT_TRUE(lc_wait_dev(name));
		snprintf(path, sizeof(path), "/sys/class/misc/%s/reserve", name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, fd);
		EXPECT_LT(0, read(fd, shown, sizeof(shown) - 1));
		close(fd);
		EXPECT_STREQ("4194304x2\n", shown);
		end = rel_now_ns() + 10 * 1000000000ULL;
		while ((ready = lc_pool(name, "prepared_buffers")) < 2 &&
		       rel_now_ns() < end)
			usleep(1000);
		EXPECT_EQ(2ULL, ready);

		dev = rel_instance_open(name, O_RDWR);
		ASSERT_LE(0, dev);
		fd = lc_alloc(dev, 4 * SZ_1M, CMABUF_STRATEGY_AUTO);
		EXPECT_LE(0, fd);
		EXPECT_EQ(1ULL, lc_pool(name, "stats/prepare_hits"));
		if (fd >= 0)
			close(fd);
		close(dev);
		lc_fault_if(ready == 2);
		ASSERT_EQ(0, lc_test_release(node));
		EXPECT_FALSE(lc_dev_exists(name));
		ASSERT_BASELINE();
	}
}

TEST_HARNESS_MAIN
