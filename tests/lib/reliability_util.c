// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the reliability programs; see reliability_util.h.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <linux/cmabuf.h>
#include <linux/magic.h>

#include "reliability_util.h"

#define CMA_DEBUGFS	"/sys/kernel/debug/cma"
#define REL_CMA_SYSFS	"/sys/kernel/mm/cma"
#define REL_DT_RESERVED	"/proc/device-tree/reserved-memory"
#define MISC_CLASS	"/sys/class/misc"

int rel_read_ull(const char *path, unsigned long long *val)
{
	int ret = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return errno;
	if (fscanf(f, "%llu", val) != 1)
		ret = EIO;
	fclose(f);
	return ret;
}

int rel_write_str(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	n = write(fd, s, len);
	if (n < 0)
		ret = errno;
	else if ((size_t)n != len)
		ret = EIO;
	close(fd);
	return ret;
}

/* debugfs holds the CMA areas' page counts; mount it if nobody did. */
int rel_debugfs_mount(void)
{
	struct stat st;

	struct statfs fs;

	if (!stat(CMA_DEBUGFS, &st))
		return 0;
	/* Mounted, without CMA's directory: mounting again would stack. */
	if (!statfs("/sys/kernel/debug", &fs) && fs.f_type == DEBUGFS_MAGIC)
		return stat(CMA_DEBUGFS, &st) ? errno : 0;
	if (mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL) &&
	    errno != EBUSY)
		return errno;
	return stat(CMA_DEBUGFS, &st) ? errno : 0;
}

/*
 * Where the CMA areas' debugfs directories are: CMABUF_CMA_DEBUGFS moves
 * them, for the host test of the helpers below (tests/stress/rel_test.c).
 */
static const char *rel_cma_debugfs(void)
{
	const char *dir = getenv("CMABUF_CMA_DEBUGFS");

	return dir ? dir : CMA_DEBUGFS;
}

/* A big-endian cell of a device tree property, as /proc/device-tree has it. */
static unsigned long long rel_dt_cells(const unsigned char *p, unsigned int n)
{
	unsigned long long v = 0;
	unsigned int i;

	for (i = 0; i < n * 4; i++)
		v = v << 8 | p[i];
	return v;
}

static int rel_dt_read(const char *path, unsigned char *buf, size_t size,
		       size_t *len)
{
	FILE *f = fopen(path, "re");

	if (!f)
		return errno;
	*len = fread(buf, 1, size, f);
	fclose(f);
	return 0;
}

/*
 * The place of @area from the kernel's log, where its node has no reg (a region the
 * kernel placed: "OF: reserved mem: 0xSTART..0xEND (N KiB) map reusable
 * NAME") or there is no node (the default area from cma=, "reserved":
 * "cma: Reserved N MiB at 0xSTART"). The boot's first lines, which a long
 * run may push out of the log buffer: then EOPNOTSUPP.
 */
static int rel_log_area(const char *area, unsigned long long *pfn,
			unsigned long long *pages)
{
	unsigned long long start, end, mib;
	long page = sysconf(_SC_PAGESIZE);
	char name[REL_NAME_MAX], *buf, *line, *save;
	int size, n, ret = EOPNOTSUPP;
	const char *p;

	size = klogctl(10, NULL, 0);	/* SYSLOG_ACTION_SIZE_BUFFER */
	if (size <= 0)
		return ret;
	buf = malloc(size + 1);
	if (!buf)
		return errno;
	n = klogctl(3, buf, size);	/* SYSLOG_ACTION_READ_ALL */
	buf[n > 0 ? n : 0] = '\0';
	for (line = strtok_r(buf, "\n", &save); line && ret;
	     line = strtok_r(NULL, "\n", &save)) {
		p = strstr(line, "OF: reserved mem: 0x");
		if (p && sscanf(p, "OF: reserved mem: %llx..%llx (%*u KiB) map %*s %63s",
				&start, &end, name) == 3 && !strcmp(name, area)) {
			*pfn = start / page;
			*pages = (end + 1 - start) / page;
			ret = 0;
		}
		p = strstr(line, "cma: Reserved ");
		if (p && !strcmp(area, "reserved") &&
		    sscanf(p, "cma: Reserved %llu MiB at %llx", &mib, &start) == 2) {
			*pfn = start / page;
			*pages = (mib << 20) / page;
			ret = 0;
		}
	}
	free(buf);
	return ret;
}

/*
 * The first page frame and the size in pages of the reserved-memory node
 * @area (the kernel names a CMA area made from a node after it), from
 * /proc/device-tree: where CMA debugfs is not there. EOPNOTSUPP for an
 * area without a node (the default area made from cma=).
 */
static int rel_dt_area(const char *area, unsigned long long *pfn,
		       unsigned long long *pages)
{
	unsigned char cells[4], reg[32];
	unsigned int ac, sc;
	long page = sysconf(_SC_PAGESIZE);
	char path[256];
	size_t len = 0;

	if (rel_dt_read(REL_DT_RESERVED "/#address-cells", cells, 4, &len) ||
	    len != 4)
		return rel_log_area(area, pfn, pages);
	ac = rel_dt_cells(cells, 1);
	if (rel_dt_read(REL_DT_RESERVED "/#size-cells", cells, 4, &len) ||
	    len != 4)
		return rel_log_area(area, pfn, pages);
	sc = rel_dt_cells(cells, 1);
	snprintf(path, sizeof(path), REL_DT_RESERVED "/%s/reg", area);
	if (ac > 2 || sc > 2 || rel_dt_read(path, reg, sizeof(reg), &len) ||
	    len < (ac + sc) * 4)
		return rel_log_area(area, pfn, pages);
	*pfn = rel_dt_cells(reg, ac) / page;
	*pages = rel_dt_cells(reg + ac * 4, sc) / page;
	return 0;
}

/*
 * Pages of @area allocated and not released, from CMA sysfs (7.2 has it,
 * Debian's 6.x do not): what debugfs "used" counts, for an area whose
 * pages all went through cma_alloc()/cma_release().
 */
static int rel_cma_sysfs_used(const char *area, unsigned long long *used)
{
	unsigned long long allocated, released;
	char path[256];
	int ret;

	snprintf(path, sizeof(path), REL_CMA_SYSFS "/%s/alloc_pages_success",
		 area);
	ret = rel_read_ull(path, &allocated);
	if (ret)
		return ret == ENOENT ? EOPNOTSUPP : ret;
	snprintf(path, sizeof(path), REL_CMA_SYSFS "/%s/release_pages_success",
		 area);
	ret = rel_read_ull(path, &released);
	if (ret)
		return ret == ENOENT ? EOPNOTSUPP : ret;
	*used = allocated - released;
	return 0;
}

/* Has the kernel CMA debugfs (CONFIG_CMA_DEBUGFS)? */
bool rel_cma_debugfs_there(void)
{
	struct stat st;

	rel_debugfs_mount();
	return !stat(rel_cma_debugfs(), &st);
}

/*
 * A number from debugfs cma/<area>/<file>. Where the kernel has no CMA
 * debugfs, "used" comes from CMA sysfs (allocated minus released pages),
 * "count" and "base_pfn" from the area's reserved-memory node or the
 * kernel's log of it; anything
 * else, or an area neither tells of, is EOPNOTSUPP, which the tests turn
 * into a skip that names what the kernel lacks (REL_CMA_LACKS).
 */
int rel_cma_read(const char *area, const char *file, unsigned long long *val)
{
	unsigned long long pfn, pages;
	char path[256];
	int ret;

	snprintf(path, sizeof(path), "%s/%s/%s", rel_cma_debugfs(), area, file);
	ret = rel_read_ull(path, val);
	if (ret != ENOENT || rel_cma_debugfs_there())
		return ret;
	if (!strcmp(file, "used"))
		return rel_cma_sysfs_used(area, val);
	if (strcmp(file, "count") && strcmp(file, "base_pfn") &&
	    strcmp(file, "ranges/0/base_pfn")) {
		ret = EOPNOTSUPP;
		return ret;
	}
	ret = rel_dt_area(area, &pfn, &pages);
	if (!ret)
		*val = strcmp(file, "count") ? pfn : pages;
	return ret;
}

/*
 * The first page frame of an area: 7.2 lists each range of an area under
 * ranges/<n>/, older kernels have one base_pfn per area.
 */
int rel_cma_base_pfn(const char *area, unsigned long long *pfn)
{
	if (!rel_cma_read(area, "ranges/0/base_pfn", pfn))
		return 0;
	return rel_cma_read(area, "base_pfn", pfn);
}

/*
 * Does @area have @pages free pages in a row starting on a multiple of
 * @align pages? Answered from the area's allocation bitmap in debugfs, one
 * bit per 2^order_per_bit pages: what the CMA allocator searches, without
 * the pages it would still have to migrate. Bits past the area's count are
 * padding and count as taken.
 */
int rel_cma_has_room(const char *area, unsigned long long pages,
		     unsigned long long align, bool *room)
{
	unsigned long long base, count, opb, bit, bits, start = 0, pfn, end;
	unsigned long word = 0;
	bool in_run = false;
	char path[256];
	int ret = 0, i;
	FILE *f;

	*room = false;
	ret = rel_cma_base_pfn(area, &base);
	if (!ret)
		ret = rel_cma_read(area, "count", &count);
	if (!ret)
		ret = rel_cma_read(area, "order_per_bit", &opb);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/%s/bitmap", rel_cma_debugfs(), area);
	f = fopen(path, "re");
	if (!f)
		return errno;
	bits = count >> opb;
	for (bit = 0; bit <= bits && !*room; bit++) {
		bool busy = true;

		if (bit < bits) {
			i = bit % 32;
			if (!i && fscanf(f, "%lu", &word) != 1) {
				ret = EIO;
				break;
			}
			busy = word & (1UL << i);
		}
		if (!busy && !in_run) {
			start = bit;
			in_run = true;
		} else if (busy && in_run) {
			/* A free run [start, bit): is there an aligned range in it? */
			pfn = base + (start << opb);
			end = base + (bit << opb);
			pfn = (pfn + align - 1) / align * align;
			*room = pfn + pages <= end;
			in_run = false;
		}
	}
	fclose(f);
	return ret;
}

/* Is @name a cmabuf instance's misc device (and not the importer's)? */
static bool rel_is_instance(const char *name)
{
	if (strncmp(name, "cmabuf", 6))
		return false;
	return name[6] == '\0' || name[6] == '-';
}

static int rel_instance_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rel_instance *)a)->name,
		      ((const struct rel_instance *)b)->name);
}

static int rel_instance_describe(struct rel_instance *in)
{
	struct cmabuf_info info = { 0 };
	int fd, ret = 0;

	fd = rel_instance_open(in->name, O_RDWR);
	if (fd < 0)
		return errno;
	info.area_name_ptr = (uintptr_t)in->area;
	info.area_name_size = sizeof(in->area);
	if (ioctl(fd, CMABUF_IOC_INFO, &info))
		ret = errno;
	close(fd);
	if (ret)
		return ret;

	in->page_size = info.page_size;
	in->strategies = info.strategies;
	in->min_order = info.min_compound_order;
	in->max_order = info.max_compound_order;
	in->info_flags = info.flags;
	if (info.flags & CMABUF_INFO_AREA_STATS)
		in->total_pages = info.total_bytes / info.page_size;
	if (rel_cma_base_pfn(in->area, &in->base_pfn))
		in->base_pfn = 0;
	return 0;
}

/*
 * Every bound instance, from /sys/class/misc, sorted by name so that runs
 * are reproducible whatever order the directory lists them in.
 */
int rel_instances(struct rel_instance *inst, unsigned int max,
		  unsigned int *count)
{
	struct dirent *de;
	unsigned int n = 0, i;
	DIR *dir;
	int ret;

	dir = opendir(MISC_CLASS);
	if (!dir)
		return errno;
	while ((de = readdir(dir)) && n < max) {
		if (!rel_is_instance(de->d_name))
			continue;
		memset(&inst[n], 0, sizeof(inst[n]));
		snprintf(inst[n].name, sizeof(inst[n].name), "%.63s",
			 de->d_name);
		n++;
	}
	closedir(dir);
	qsort(inst, n, sizeof(*inst), rel_instance_cmp);

	rel_debugfs_mount();
	for (i = 0; i < n; i++) {
		ret = rel_instance_describe(&inst[i]);
		if (ret)
			return ret;
	}
	*count = n;
	return 0;
}

int rel_instance_open(const char *name, int flags)
{
	char path[128];

	snprintf(path, sizeof(path), "/dev/%s", name);
	return open(path, flags | O_CLOEXEC);
}

/* A counter of sysfs misc/<name>/<group>/, group "stats" for the total. */
int rel_stat_read(const char *name, const char *group, const char *counter,
		  unsigned long long *val)
{
	char path[256];

	snprintf(path, sizeof(path), MISC_CLASS "/%s/%s/%s", name, group,
		 counter);
	return rel_read_ull(path, val);
}

/* A number from sysfs misc/<name>/<file>. */
static int rel_read_ull_in(const char *name, const char *file,
			   unsigned long long *val)
{
	char path[256];

	snprintf(path, sizeof(path), MISC_CLASS "/%s/%s", name, file);
	return rel_read_ull(path, val);
}

/*
 * The pages cmabuf's instances on @area hold by their own count (live,
 * prepared and releasing bytes): the stand-in for the area's used pages
 * where the kernel cannot tell them (rel_cma_read() gives EOPNOTSUPP). It
 * sees a buffer the driver never freed, not pages CMA lost underneath.
 */
int rel_area_held_pages(const char *area, unsigned long long *pages)
{
	static const char * const files[] = {
		"stats/live_bytes", "prepared_bytes", "releasing_bytes",
	};
	struct rel_instance inst[REL_MAX_INSTANCES];
	unsigned long long bytes = 0, v;
	unsigned int n, i, j;
	int ret;

	ret = rel_instances(inst, REL_MAX_INSTANCES, &n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		if (strcmp(inst[i].area, area))
			continue;
		for (j = 0; j < ARRAY_SIZE(files); j++) {
			ret = rel_read_ull_in(inst[i].name, files[j], &v);
			if (ret == ENOENT)
				continue;
			if (ret)
				return ret;
			bytes += v;
		}
	}
	*pages = bytes / sysconf(_SC_PAGESIZE);
	return 0;
}

/*
 * Wait up to @timeout_ms until the instance @name has released every
 * buffer freed so far (sysfs releasing_bytes is 0): frees go back to the
 * CMA area in the background, and the area's counters catch up only then.
 * 0 also for an unbound instance or a driver without deferred frees (no
 * such file); ETIMEDOUT, or the errno of the read.
 */
int rel_instance_settle(const char *name, unsigned int timeout_ms)
{
	__u64 end = rel_now_ns() + (__u64)timeout_ms * 1000000;
	unsigned long long bytes;
	int ret;

	for (;;) {
		ret = rel_read_ull_in(name, "releasing_bytes", &bytes);
		if (ret == ENOENT)
			return 0;
		if (ret || !bytes)
			return ret;
		if (rel_now_ns() >= end)
			break;
		usleep(1000);
	}
	ret = ETIMEDOUT;
	return ret;
}

static int rel_counts_take(const struct rel_instance *in, struct rel_counts *c)
{
	static const struct {
		const char *name;
		size_t offset;
	} files[] = {
		{ "live_buffers", offsetof(struct rel_counts, live_buffers) },
		{ "live_bytes", offsetof(struct rel_counts, live_bytes) },
	};
	static const struct {
		const char *name;
		size_t offset;
	} pool[] = {
		{ "prepared_bytes", offsetof(struct rel_counts, prepared_bytes) },
		{ "releasing_bytes", offsetof(struct rel_counts, releasing_bytes) },
	};
	unsigned int i;
	int ret;

	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", in->name);
	snprintf(c->area, sizeof(c->area), "%s", in->area);
	ret = rel_cma_read(in->area, "used", &c->used_pages);
	if (ret && ret != EOPNOTSUPP)
		return ret;
	c->used_known = !ret;

	c->present = true;
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		ret = rel_stat_read(in->name, "stats", files[i].name,
				    (void *)((char *)c + files[i].offset));
		if (ret == ENOENT) {
			/* Unbound: no counters, the area is still there. */
			c->present = false;
			return 0;
		}
		if (ret)
			return ret;
	}
	/* A driver without prepared buffers or deferred frees has neither. */
	for (i = 0; i < ARRAY_SIZE(pool); i++) {
		ret = rel_read_ull_in(in->name, pool[i].name,
				      (void *)((char *)c + pool[i].offset));
		if (ret && ret != ENOENT)
			return ret;
	}
	return 0;
}

/*
 * The counters of every instance in @inst and the use of their areas,
 * once every instance has released what was freed before (instances
 * share areas: all of them first, then the areas are read).
 */
int rel_snapshot_take(const struct rel_instance *inst, unsigned int count,
		      struct rel_snapshot *s)
{
	unsigned int i;
	int ret;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < count && i < REL_MAX_INSTANCES; i++) {
		ret = rel_instance_settle(inst[i].name, REL_SETTLE_MS);
		if (ret)
			return ret;
	}
	for (i = 0; i < count && i < REL_MAX_INSTANCES; i++) {
		ret = rel_counts_take(&inst[i], &s->inst[i]);
		if (ret)
			return ret;
	}
	s->count = i;
	return 0;
}

const struct rel_counts *rel_snapshot_find(const struct rel_snapshot *s,
					   const char *name)
{
	unsigned int i;

	for (i = 0; i < s->count; i++)
		if (!strcmp(s->inst[i].name, name))
			return &s->inst[i];
	return NULL;
}

/*
 * The CMA pages the areas of @base hold in @now beyond what they held in
 * @base, summed over every instance that is in both: what a run lost, for
 * the record (negative if something else let pages go meanwhile).
 */
long long rel_snapshot_pages_lost(const struct rel_snapshot *base,
				  const struct rel_snapshot *now)
{
	const struct rel_counts *c;
	long long lost = 0;
	unsigned int i;

	for (i = 0; i < base->count; i++) {
		c = rel_snapshot_find(now, base->inst[i].name);
		if (!c || !c->used_known || !base->inst[i].used_known)
			return REL_PAGES_UNKNOWN;
		lost += (long long)(c->used_pages - base->inst[i].used_pages);
	}
	return lost;
}

/*
 * Do @a and @b agree on what must come back: the pages each area has
 * allocated, and the live buffers and bytes and the prepared buffers of
 * each instance? Allocation, free and failure totals only grow and are not
 * compared. @why says what differs.
 */
bool rel_snapshot_same(const struct rel_snapshot *a,
		       const struct rel_snapshot *b, char *why, size_t size)
{
	const struct rel_counts *x, *y;
	unsigned int i;

	if (a->count != b->count) {
		snprintf(why, size, "%u instances, then %u", a->count,
			 b->count);
		return false;
	}
	for (i = 0; i < a->count; i++) {
		x = &a->inst[i];
		y = &b->inst[i];
		if (x->used_known != y->used_known) {
			snprintf(why, size, "area %s: pages used %s, then %s",
				 x->area, x->used_known ? "known" : "unknown",
				 y->used_known ? "known" : "unknown");
			return false;
		}
		if (x->used_pages != y->used_pages) {
			snprintf(why, size, "area %s: %llu pages used, then %llu",
				 x->area, x->used_pages, y->used_pages);
			return false;
		}
		if (x->present != y->present) {
			snprintf(why, size, "%s: %s, then %s", x->name,
				 x->present ? "bound" : "unbound",
				 y->present ? "bound" : "unbound");
			return false;
		}
		if (x->prepared_bytes != y->prepared_bytes) {
			snprintf(why, size,
				 "%s: %llu bytes of prepared buffers, then %llu",
				 x->name, x->prepared_bytes, y->prepared_bytes);
			return false;
		}
		if (x->live_buffers != y->live_buffers ||
		    x->live_bytes != y->live_bytes) {
			snprintf(why, size,
				 "%s: %llu live buffers (%llu bytes), then %llu (%llu bytes)",
				 x->name, x->live_buffers, x->live_bytes,
				 y->live_buffers, y->live_bytes);
			return false;
		}
	}
	if (size)
		why[0] = '\0';
	return true;
}

/*
 * Wait up to @timeout_ms for the counters to come back to @base: a process
 * that has just been reaped has let go of everything, but a dma-buf whose
 * last reference went away in a kernel thread (a socket's in-flight fds,
 * for instance) is freed from a workqueue, and every freed buffer's pages
 * go back to the area in the background (each snapshot waits for that).
 */
int rel_snapshot_settle(const struct rel_instance *inst, unsigned int count,
			const struct rel_snapshot *base, unsigned int timeout_ms,
			struct rel_snapshot *now, char *why, size_t size)
{
	__u64 end = rel_now_ns() + (__u64)timeout_ms * 1000000;
	int ret;

	for (;;) {
		ret = rel_snapshot_take(inst, count, now);
		if (ret) {
			snprintf(why, size, "cannot read counters: %s",
				 rel_errname(ret));
			return ret;
		}
		if (rel_snapshot_same(base, now, why, size))
			return 0;
		if (rel_now_ns() >= end)
			break;
		usleep(10000);
	}
	ret = EAGAIN;
	return ret;
}

int rel_module_load(const char *path, const char *params)
{
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	ret = syscall(SYS_finit_module, fd, params ? params : "", 0) ?
	      errno : 0;
	close(fd);
	return ret;
}

int rel_module_unload(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? errno : 0;
}

bool rel_module_loaded(const char *name)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/module/%s/initstate", name);
	return !stat(path, &st);
}

/* Is cmabuf loaded with heap=1? */
static bool rel_heap_param(void)
{
	char val[8] = "";
	FILE *f;

	f = fopen("/sys/module/" REL_MODULE_NAME "/parameters/heap", "re");
	if (!f)
		return false;
	if (!fgets(val, sizeof(val), f))
		val[0] = '\0';
	fclose(f);
	return val[0] == 'Y';
}

/*
 * A module that registered a dma-heap took a reference on itself that it
 * never drops (dma-heaps cannot be removed): it can never be unloaded.
 */
bool rel_module_pinned(void)
{
	struct dirent *de;
	bool heap = false;
	DIR *dir;

	if (!rel_heap_param())
		return false;

	dir = opendir("/dev/dma_heap");
	if (!dir)
		return false;
	while ((de = readdir(dir)))
		if (rel_is_instance(de->d_name))
			heap = true;
	closedir(dir);
	return heap;
}

/* Does the file at @path contain the bytes of @needle? */
static bool rel_file_contains(const char *path, const char *needle)
{
	size_t len = strlen(needle), n, keep = 0;
	char buf[4096 + 64];
	bool found = false;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && (n = fread(buf + keep, 1, 4096, f)) > 0) {
		n += keep;
		found = memmem(buf, n, needle, len);
		/* A match may straddle two reads. */
		keep = n < len - 1 ? n : len - 1;
		memmove(buf, buf + n - keep, keep);
	}
	fclose(f);
	return found;
}

/*
 * Must cmabuf have a dma-heap for each instance with a stable name? When
 * it was loaded with heap=1 and built against a kernel that exports
 * dma_heap_add (the module then refers to it by name).
 */
bool rel_module_has_heaps(void)
{
	return rel_heap_param() &&
	       rel_file_contains(REL_MODULE_PATH, "dma_heap_add");
}

/*
 * Set by the suites that run where heap-defaults has registered cmabuf's
 * dma-heaps: there a test that needs them fails instead of skipping.
 */
bool rel_heaps_required(void)
{
	const char *v = getenv(REL_REQUIRE_HEAPS);

	return v && !strcmp(v, "1");
}

/* "EINVAL" for EINVAL, "0" for success. */
const char *rel_errname(int err)
{
	const char *name;

	if (!err)
		return "0";
	name = strerrorname_np(err);
	return name ? name : "E?";
}

__u64 rel_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

__u64 rel_rand(struct rel_rng *rng)
{
	__u64 z = (rng->state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, @n), 0 when @n is 0. */
__u64 rel_below(struct rel_rng *rng, __u64 n)
{
	return n ? rel_rand(rng) % n : 0;
}

bool rel_chance(struct rel_rng *rng, unsigned int percent)
{
	return rel_below(rng, 100) < percent;
}

/* A seed for runs that were not given one: time and pid. */
__u64 rel_seed_default(void)
{
	struct rel_rng rng = {
		.state = rel_now_ns() ^ ((__u64)getpid() << 32),
	};

	return rel_rand(&rng) & 0xffffffffffffULL;
}
