// SPDX-License-Identifier: GPL-2.0
/*
 * The test importer, cmabuf_importer.ko, driven through its device
 * /dev/cmabuf_importer. It uses the buffer as a device driver does
 * (CMABUF_IMPORTER_IOC_CHECK): every step, the DMA segment of its mapping,
 * our pattern read and its own written, each reported here. Then it holds
 * a second buffer after our fd of it is closed (CMABUF_IMPORTER_IOC_HOLD),
 * and the CMA area's used pages show that the buffer lives until the
 * importer lets go (CMABUF_IMPORTER_IOC_RELEASE).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmabuf_importer.h"
#include "dev.h"
#include "fmt.h"
#include "share.h"
#include "testctl.h"

#define IMPORTER_DEV	"/dev/cmabuf_importer"

/* Seeds of our pattern, written through mmap, and of the importer's. */
#define SEED_USER	0x636d616275660001ULL
#define SEED_IMPORTER	0x636d616275660002ULL

static const char *const importer_steps[CMABUF_IMPORTER_STEP_COUNT] = {
	[CMABUF_IMPORTER_STEP_NONE] = "no step",
	[CMABUF_IMPORTER_STEP_ATTACH] = "attach (dma_buf_attach)",
	[CMABUF_IMPORTER_STEP_MAP] = "map (dma_buf_map_attachment)",
	[CMABUF_IMPORTER_STEP_VMAP] = "vmap (dma_buf_vmap)",
	[CMABUF_IMPORTER_STEP_BEGIN_CPU] = "begin CPU access (dma_buf_begin_cpu_access)",
	[CMABUF_IMPORTER_STEP_VERIFY] = "verify our pattern through the vmap",
	[CMABUF_IMPORTER_STEP_WRITE] = "write the importer's pattern through the vmap",
	[CMABUF_IMPORTER_STEP_END_CPU] = "end CPU access (dma_buf_end_cpu_access)",
	[CMABUF_IMPORTER_STEP_VUNMAP] = "vunmap (dma_buf_vunmap)",
	[CMABUF_IMPORTER_STEP_UNMAP] = "unmap (dma_buf_unmap_attachment)",
	[CMABUF_IMPORTER_STEP_DETACH] = "detach (dma_buf_detach)",
};

/**
 * struct importer_scan - a pattern looked for through mmap
 * @words: pattern words read
 * @bad: words that differed
 * @first_off: offset of the first that differed
 * @first_val: what was found there
 */
struct importer_scan {
	__u64 words;
	__u64 bad;
	__u64 first_off;
	__u64 first_val;
};

static bool importer_done(const struct cmabuf_importer_check *chk,
			  unsigned int step)
{
	return chk->steps_done & CMABUF_IMPORTER_STEP_BIT(step);
}

/* Pattern words in @size bytes: one at every stride that has room for it. */
static __u64 importer_words(__u64 size)
{
	if (size < sizeof(__u64))
		return 0;
	return (size - sizeof(__u64)) / CMABUF_IMPORTER_PATTERN_STRIDE + 1;
}

/* The size of the dma-buf @fd: its file ends there. */
static int importer_size(int fd, __u64 *size)
{
	off_t end = lseek(fd, 0, SEEK_END);

	if (end < 0)
		return -errno;
	*size = end;
	return 0;
}

/* Write the pattern of @seed into the dma-buf @fd through mmap. */
static int importer_fill(int fd, __u64 size, __u64 seed)
{
	__u64 off;
	void *map;
	int ret;

	ret = share_map(fd, size, &map);
	if (ret)
		return ret;
	for (off = 0; off + sizeof(__u64) <= size;
	     off += CMABUF_IMPORTER_PATTERN_STRIDE)
		*(__u64 *)((char *)map + off) = cmabuf_importer_pattern(seed, off);
	return share_unmap(fd, map, size);
}

/* Compare the dma-buf @fd with the pattern of @seed, through mmap. */
static int importer_scan(int fd, __u64 size, __u64 seed,
			 struct importer_scan *sc)
{
	__u64 off, val;
	void *map;
	int ret;

	memset(sc, 0, sizeof(*sc));
	ret = share_map(fd, size, &map);
	if (ret)
		return ret;
	for (off = 0; off + sizeof(__u64) <= size;
	     off += CMABUF_IMPORTER_PATTERN_STRIDE) {
		val = *(const __u64 *)((const char *)map + off);
		sc->words++;
		if (val == cmabuf_importer_pattern(seed, off))
			continue;
		if (!sc->bad++) {
			sc->first_off = off;
			sc->first_val = val;
		}
	}
	return share_unmap(fd, map, size);
}

/* One line per step of the check: ok, failed with its errno, or not run. */
static void importer_report_steps(struct share_result *res,
				  const struct cmabuf_importer_check *chk)
{
	unsigned int s, failed = chk->failed_step;
	const char *name;

	if (failed >= CMABUF_IMPORTER_STEP_COUNT)
		failed = CMABUF_IMPORTER_STEP_NONE;
	for (s = CMABUF_IMPORTER_STEP_ATTACH; s < CMABUF_IMPORTER_STEP_COUNT; s++) {
		name = importer_steps[s];
		if (importer_done(chk, s))
			share_check(res, true, "%s: ok", name);
		else if (s == failed)
			share_check(res, false, "%s: failed, %s (errno %d)", name,
				    strerror(-chk->error), -chk->error);
		else
			share_check(res, false, "%s: not run (%s failed)", name,
				    importer_steps[failed]);
	}
}

/* The mapping is one DMA segment over the whole buffer, at its address. */
static void importer_report_segment(struct share_result *res,
				    const struct share_buf *buf,
				    const struct cmabuf_importer_check *chk,
				    __u64 size)
{
	struct cmabuf_phys phys;
	bool whole;
	int ret;

	if (!importer_done(chk, CMABUF_IMPORTER_STEP_MAP))
		return;
	whole = chk->dma_segments == 1 && chk->dma_len == size &&
		chk->dma_total == size;
	share_check(res, whole, "%u DMA segment%s covering %llu bytes at 0x%llx (%s)",
		    chk->dma_segments, chk->dma_segments == 1 ? "" : "s",
		    chk->dma_total, chk->dma_addr,
		    whole ? "the whole buffer" : "expected one over the whole buffer");

	ret = dev_phys(buf->dev_fd, buf->fd, &phys);
	if (ret == -EPERM)
		share_skip("DMA address vs CMABUF_IOC_PHYS: needs CAP_SYS_RAWIO");
	else if (ret)
		share_check(res, false, "CMABUF_IOC_PHYS: %s", dev_strerror(ret));
	else
		share_check(res, phys.phys == chk->dma_addr,
			    "DMA address 0x%llx %s the physical address from CMABUF_IOC_PHYS (0x%llx)",
			    chk->dma_addr, phys.phys == chk->dma_addr ? "equals" : "differs from",
			    phys.phys);
}

/* What the importer read of our pattern. */
static void importer_report_verify(struct share_result *res,
				   const struct cmabuf_importer_check *chk,
				   __u64 size)
{
	__u64 expected = importer_words(size);

	if (!importer_done(chk, CMABUF_IMPORTER_STEP_VERIFY))
		return;
	if (chk->mismatches)
		share_check(res, false,
			    "pattern: %llu words verified, %llu differ (first at offset 0x%llx: 0x%016llx, expected 0x%016llx)",
			    chk->words_checked, chk->mismatches, chk->first_bad_offset,
			    chk->first_bad_value,
			    cmabuf_importer_pattern(SEED_USER, chk->first_bad_offset));
	else
		share_check(res, chk->words_checked == expected,
			    "pattern: %llu words verified, 0 differ%s",
			    chk->words_checked,
			    chk->words_checked == expected ? "" : " (too few words)");
}

/* What we read through mmap of the importer's pattern. */
static void importer_report_seen(struct share_result *res, int fd,
				 const struct cmabuf_importer_check *chk,
				 __u64 size)
{
	struct importer_scan sc;
	int ret;

	if (!importer_done(chk, CMABUF_IMPORTER_STEP_WRITE))
		return;
	ret = importer_scan(fd, size, SEED_IMPORTER, &sc);
	if (ret)
		share_check(res, false, "importer's pattern seen through mmap: %s",
			    strerror(-ret));
	else if (sc.bad)
		share_check(res, false,
			    "importer's pattern seen through mmap: %llu of %llu words differ (first at offset 0x%llx: 0x%016llx, expected 0x%016llx)",
			    sc.bad, sc.words, sc.first_off, sc.first_val,
			    cmabuf_importer_pattern(SEED_IMPORTER, sc.first_off));
	else
		share_check(res, sc.words == importer_words(size),
			    "importer's pattern seen through mmap: ok (%llu words)",
			    sc.words);
}

/*
 * Our pattern in, CHECK with VERIFY and WRITE, the importer's pattern out;
 * then the buffer's byte pattern back for the importers after this one.
 */
static void importer_check(struct share_result *res, const struct share_buf *buf,
			   int imp)
{
	struct cmabuf_importer_check chk = {
		.fd = buf->fd,
		.flags = CMABUF_IMPORTER_CHECK_VERIFY | CMABUF_IMPORTER_CHECK_WRITE,
		.seed_in = SEED_USER,
		.seed_out = SEED_IMPORTER,
	};
	__u64 size = 0;
	int ret;

	ret = importer_size(buf->fd, &size);
	if (!ret)
		ret = importer_fill(buf->fd, size, SEED_USER);
	if (!share_check(res, !ret, "our pattern (seed 0x%llx) written through mmap: %s",
			 SEED_USER, ret ? strerror(-ret) : "ok"))
		return;

	ret = dev_ioctl(imp, CMABUF_IMPORTER_IOC_CHECK, &chk);
	if (ret)
		share_check(res, false, "CMABUF_IMPORTER_IOC_CHECK with VERIFY|WRITE: %s",
			    strerror(-ret));
	else if (share_check(res, chk.size == size,
			     "CMABUF_IMPORTER_IOC_CHECK with VERIFY|WRITE: a dma-buf of %llu bytes%s",
			     chk.size, chk.size == size ? "" : ", not ours")) {
		importer_report_steps(res, &chk);
		importer_report_segment(res, buf, &chk, size);
		importer_report_verify(res, &chk, size);
		importer_report_seen(res, buf->fd, &chk, size);
	}

	ret = share_fill(buf->fd, size, buf->pattern);
	if (ret)
		share_check(res, false, "pattern 0x%02x put back for the next importer: %s",
			    buf->pattern, strerror(-ret));
}

/**
 * struct importer_area - the CMA area's used pages, around the held buffer
 * @di: the instance and the name of its area
 * @start: pages used before the held buffer was allocated
 * @pages: pages of the held buffer
 * @counted: @start could be read (debugfs is there)
 */
struct importer_area {
	const char *dev_path;
	struct dev_info di;
	__u64 start;
	__u64 pages;
	bool counted;
};

/* A freed buffer's pages go back in the background: wait for them. */
static void importer_settle(struct share_result *res,
			    const struct importer_area *a, const char *when)
{
	if (dev_wait_released(a->dev_path, 10000))
		share_check(res, false, "%s: %s still releasing after 10 s",
			    when, a->dev_path);
}

/*
 * The pages of @area in use: debugfs "used" (root's), or where the kernel
 * has no CMA debugfs (Debian's kernels) its world-readable CMA sysfs
 * counters, pages allocated minus pages released. Return: 0 or the -errno
 * of the debugfs read when neither is there.
 */
static int importer_area_used(const char *area, __u64 *val)
{
	__u64 allocated, released;
	int ret;

	ret = dev_area_read(area, "used", val);
	if (ret != -ENOENT)
		return ret;
	if (dev_area_sysfs_read(area, "alloc_pages_success", &allocated) ||
	    dev_area_sysfs_read(area, "release_pages_success", &released))
		return ret;
	*val = allocated - released;
	return 0;
}

/* The area's used pages now are @start, plus the buffer's when @held. */
static void importer_used(struct share_result *res, const struct importer_area *a,
			  bool held, const char *when)
{
	__u64 used, expected = a->start + (held ? a->pages : 0);
	int ret;

	if (!a->counted)
		return;
	if (!held)
		importer_settle(res, a, when);
	ret = importer_area_used(a->di.area, &used);
	if (ret)
		share_check(res, false, "%s: %s/%s/used: %s", when, CMA_DEBUGFS,
			    a->di.area, strerror(-ret));
	else if (held)
		share_check(res, used == expected,
			    "%s: CMA area %s has %llu pages used, %sstart %llu + %llu",
			    when, a->di.area, used, used == expected ? "" : "expected ",
			    a->start, a->pages);
	else
		share_check(res, used == expected,
			    "%s: CMA area %s has %llu pages used, %s the start value %llu",
			    when, a->di.area, used,
			    used == expected ? "back at" : "expected", a->start);
}

/* The area's name and used pages before the held buffer exists. */
static int importer_area_start(struct share_result *res,
			       const struct share_buf *buf, struct importer_area *a)
{
	int ret;

	a->dev_path = buf->dev_path;
	ret = dev_info(buf->dev_fd, &a->di);
	if (!share_check(res, !ret, "CMABUF_IOC_INFO of %s: %s", buf->dev_path,
			 ret ? dev_strerror(ret) : a->di.area))
		return ret;
	/* Not counting buffers freed before, still on their way back. */
	importer_settle(res, a, "start");
	ret = importer_area_used(a->di.area, &a->start);
	a->counted = !ret;
	if (ret)
		share_skip("CMA used pages: %s/%s/used: %s (no CMA debugfs or sysfs?)",
			   CMA_DEBUGFS, a->di.area, strerror(-ret));
	return 0;
}

/*
 * A second buffer, held by the importer once our fd is closed: its pages
 * stay allocated until the importer releases it, then go back to CMA.
 */
static void importer_lifetime(struct share_result *res,
			      const struct share_buf *buf, int imp)
{
	struct cmabuf_importer_hold hold = { .flags = CMABUF_IMPORTER_HOLD_MAP };
	struct cmabuf_importer_release rel = { 0 };
	struct importer_area a = { 0 };
	char sz[FMT_LEN];
	__u64 size = 0;
	int fd, ret;

	if (importer_area_start(res, buf, &a))
		return;
	ret = share_alloc(buf, buf->dev_fd, &fd);
	if (!ret)
		ret = importer_size(fd, &size);
	if (!share_check(res, !ret, "a second buffer for the importer to hold: %s",
			 ret ? strerror(-ret) : fmt_size(size, sz, sizeof(sz))))
		return;
	a.pages = size / sysconf(_SC_PAGESIZE);
	importer_used(res, &a, true, "allocated");

	hold.fd = fd;
	ret = dev_ioctl(imp, CMABUF_IMPORTER_IOC_HOLD, &hold);
	close(fd);
	if (ret) {
		share_check(res, false, "hold (CMABUF_IMPORTER_IOC_HOLD, attached and mapped): %s",
			    strerror(-ret));
		return;
	}
	share_check(res, true,
		    "hold (CMABUF_IMPORTER_IOC_HOLD, attached and mapped): handle %u, DMA address 0x%llx",
		    hold.handle, hold.dma_addr);
	importer_used(res, &a, true, "our fd closed, the importer's hold is the last user");

	rel.handle = hold.handle;
	ret = dev_ioctl(imp, CMABUF_IMPORTER_IOC_RELEASE, &rel);
	if (share_check(res, !ret, "release of handle %u (CMABUF_IMPORTER_IOC_RELEASE): %s",
			hold.handle, ret ? strerror(-ret) : "ok"))
		importer_used(res, &a, false, "after release");
}

static int importer_run(const struct share_buf *buf, struct share_result *res)
{
	int imp;

	imp = open(IMPORTER_DEV, O_RDWR | O_CLOEXEC);
	if (imp < 0 && (errno == ENOENT || errno == ENODEV || errno == ENXIO))
		return share_absent(res, "%s not found: cmabuf_importer.ko is not loaded",
				    IMPORTER_DEV);
	if (!share_check(res, imp >= 0, "%s is open: %s", IMPORTER_DEV,
			 imp >= 0 ? "ok" : strerror(errno)))
		return 0;

	importer_check(res, buf, imp);
	importer_lifetime(res, buf, imp);
	close(imp);
	return 0;
}

const struct share_importer share_importer = {
	.name = "importer",
	.help = "cmabuf_importer.ko, the test driver (ioctls CHECK, HOLD, RELEASE)",
	.run = importer_run,
};
