// SPDX-License-Identifier: GPL-2.0
/*
 * The memory the load holds: one reservation of anonymous memory (small
 * pages, or THPs) or of a memfd (shmem), touched and released unit by
 * unit. Where each page is comes from /proc/self/pagemap, read again
 * before every decision that depends on it: an allocation in a CMA area
 * migrates the pages it finds there, and they change frames.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "load.h"

#define PM_PRESENT	BIT_ULL(63)
#define PM_PFN_MASK	(BIT_ULL(55) - 1)
#define PM_BATCH	65536
#define THP_BYTES	(2ULL << 20)

static const char * const kind_names[LOAD_KIND_COUNT] = {
	[LOAD_ANON] = "anon",
	[LOAD_THP] = "thp",
	[LOAD_SHMEM] = "shmem",
};

const char *mem_kind_name(enum load_kind kind)
{
	return kind < LOAD_KIND_COUNT ? kind_names[kind] : "?";
}

int mem_kind_parse(const char *s, enum load_kind *kind)
{
	int k;

	for (k = 0; k < LOAD_KIND_COUNT; k++) {
		if (!strcmp(s, kind_names[k])) {
			*kind = k;
			return 0;
		}
	}
	return -EINVAL;
}

/* A reservation of @len bytes of anonymous memory, 2 MiB aligned. */
static unsigned char *reserve_anon(size_t len)
{
	unsigned char *p, *aligned;
	size_t slop;

	p = mmap(NULL, len + THP_BYTES, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	aligned = (unsigned char *)(((unsigned long)p + THP_BYTES - 1) & ~(THP_BYTES - 1));
	slop = aligned - p;
	if (slop)
		munmap(p, slop);
	munmap(aligned + len, THP_BYTES - slop);
	return aligned;
}

static unsigned char *reserve_shmem(struct load_mem *m, size_t len)
{
	void *p;

	m->memfd = memfd_create("cmabuf_load", MFD_CLOEXEC);
	if (m->memfd < 0)
		return NULL;
	if (ftruncate(m->memfd, len))
		return NULL;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE,
		 m->memfd, 0);
	return p == MAP_FAILED ? NULL : p;
}

/*
 * Reserve @bytes of @kind. Small anonymous pages need THP off for the
 * process (PR_SET_THP_DISABLE): the test-bed kernels have THP "always"
 * and no madvise(). Return: 0 or -errno.
 */
int mem_init(struct load_mem *m, enum load_kind kind, __u64 bytes,
	     __u64 page_size)
{
	size_t len, u;

	memset(m, 0, sizeof(*m));
	m->kind = kind;
	m->memfd = -1;
	m->unit = kind == LOAD_THP ? THP_BYTES / page_size : 1;
	m->units = bytes / page_size / m->unit;
	m->pages = m->units * m->unit;
	len = m->pages * page_size;
	if (!m->units)
		return -EINVAL;
	if (prctl(PR_SET_THP_DISABLE, kind == LOAD_ANON, 0, 0, 0))
		return -errno;
	m->base = kind == LOAD_SHMEM ? reserve_shmem(m, len) : reserve_anon(len);
	if (!m->base)
		return -errno ? -errno : -ENOMEM;
	m->pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (m->pagemap < 0)
		return -errno;
	m->pfn = calloc(m->pages, sizeof(*m->pfn));
	m->holes = malloc(m->units * sizeof(*m->holes));
	m->placed = calloc(m->units, sizeof(*m->placed));
	if (!m->pfn || !m->holes || !m->placed)
		return -ENOMEM;
	/* Popped from the end: units are touched in address order. */
	for (u = 0; u < m->units; u++)
		m->holes[u] = m->units - 1 - u;
	m->nholes = m->units;
	return 0;
}

static size_t page_bytes(void)
{
	return sysconf(_SC_PAGESIZE);
}

/* Read the frames of @units units from @first on. Return: 0 or -errno. */
int mem_refresh(struct load_mem *m, size_t first, size_t units)
{
	size_t p = first * m->unit, end = (first + units) * m->unit, n, i;
	__u64 buf[PM_BATCH];
	unsigned long vpage;
	ssize_t got;

	for (; p < end; p += n) {
		n = end - p < PM_BATCH ? end - p : PM_BATCH;
		vpage = (unsigned long)(m->base + p * page_bytes()) / page_bytes();
		got = pread(m->pagemap, buf, n * sizeof(buf[0]),
			    vpage * sizeof(buf[0]));
		if (got != (ssize_t)(n * sizeof(buf[0])))
			return got < 0 ? -errno : -EIO;
		for (i = 0; i < n; i++)
			m->pfn[p + i] = buf[i] & PM_PRESENT ? buf[i] & PM_PFN_MASK : 0;
	}
	return 0;
}

static void touch_unit(struct load_mem *m, size_t u)
{
	unsigned char *p = m->base + u * m->unit * page_bytes();
	size_t i;

	for (i = 0; i < m->unit; i++)
		p[i * page_bytes()] = 1;
	/* The stores are the point: keep them. */
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

/*
 * Frames of a run of units just touched; those in @area (-1: none) are
 * the fill's, and their pages are added to @in_area if given.
 */
static void touched_run(struct load_mem *m, const struct load_sys *s, int area,
			__u64 *in_area, size_t first, size_t units)
{
	size_t u, p;
	int a;

	if (!units || mem_refresh(m, first, units) || area < 0)
		return;
	for (u = first; u < first + units; u++) {
		for (p = u * m->unit; p < (u + 1) * m->unit; p++) {
			if (!m->pfn[p])
				continue;
			sys_where(s, m->pfn[p], NULL, &a);
			if (a != area)
				continue;
			m->placed[u] = true;
			if (in_area)
				(*in_area)++;
		}
	}
}

/*
 * Touch up to @units released units; those that land in @area (-1: none)
 * are marked the fill's, and with @in_area, their pages counted. Return:
 * how many units were touched.
 */
size_t mem_touch(struct load_mem *m, const struct load_sys *s, int area,
		 __u64 *in_area, size_t units)
{
	size_t done = 0, first = 0, len = 0, u;

	while (done < units && m->nholes) {
		u = m->holes[--m->nholes];
		touch_unit(m, u);
		if (u >= m->top)
			m->top = u + 1;
		done++;
		/* Runs in either order: holes go back on the stack ascending. */
		if (len && (u == first + len || u + 1 == first)) {
			first = u < first ? u : first;
			len++;
			continue;
		}
		touched_run(m, s, area, in_area, first, len);
		first = u;
		len = 1;
	}
	touched_run(m, s, area, in_area, first, len);
	return done;
}

/*
 * Give units @u..@u + @n back to the kernel, in one call: the range stays
 * reserved. Return: 0 or -errno.
 */
static int release_run(struct load_mem *m, size_t u, size_t n)
{
	size_t len = n * m->unit * page_bytes(), off = u * m->unit * page_bytes();
	size_t i;

	if (!n)
		return 0;
	if (m->kind == LOAD_SHMEM) {
		if (fallocate(m->memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      off, len))
			return -errno;
	} else if (mmap(m->base + off, len, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
			-1, 0) == MAP_FAILED) {
		/* A new mapping the same as its neighbours merges with them. */
		return -errno;
	}
	memset(&m->pfn[u * m->unit], 0, n * m->unit * sizeof(*m->pfn));
	memset(&m->placed[u], 0, n * sizeof(*m->placed));
	for (i = 0; i < n; i++)
		m->holes[m->nholes++] = u + i;
	return 0;
}

static bool in_area(const struct load_sys *s, int area, __u64 pfn)
{
	const struct load_area *a;

	if (area < 0)
		return false;
	a = &s->areas[area];
	return pfn >= a->base_pfn && pfn < a->base_pfn + a->count;
}

/* The first frame of unit @u, 0 when none of its pages is present. */
static __u64 unit_pfn(const struct load_mem *m, size_t u)
{
	size_t i;

	for (i = 0; i < m->unit; i++) {
		if (m->pfn[u * m->unit + i])
			return m->pfn[u * m->unit + i];
	}
	return 0;
}

/* Is unit @u where @where asks, relative to @area? */
static bool unit_matches(const struct load_mem *m, const struct load_sys *s,
			 size_t u, int area, enum mem_where where)
{
	__u64 pfn = unit_pfn(m, u);
	int a;

	if (!pfn)
		return false;
	/* The common question, asked of every unit a refill scans. */
	if (where == MEM_MOVED_OUT)
		return m->placed[u] && !in_area(s, area, pfn);
	sys_where(s, pfn, NULL, &a);
	switch (where) {
	case MEM_IN_AREA:
		return a == area;
	case MEM_NOT_CMA:
		return a < 0;
	case MEM_NOT_AREA:
		return a != area;
	default:
		return true;
	}
}

/*
 * Release up to @units units that lie where @where says, going round from
 * where the last call stopped. Return: how many were released.
 */
size_t mem_release(struct load_mem *m, const struct load_sys *s, int area,
		   enum mem_where where, size_t units)
{
	size_t done = 0, seen, batch, u, i, run;

	for (seen = 0; seen < m->top && done < units; seen += batch) {
		u = m->cursor < m->top ? m->cursor : 0;
		batch = m->top - u < 4096 ? m->top - u : 4096;
		if (mem_refresh(m, u, batch))
			break;
		/* Neighbours that match go back together. */
		for (i = 0, run = 0; i < batch && done + run < units; i++) {
			if (unit_matches(m, s, u + i, area, where)) {
				run++;
				continue;
			}
			if (!release_run(m, u + i - run, run))
				done += run;
			run = 0;
		}
		if (!release_run(m, u + i - run, run))
			done += run;
		m->cursor = (u + i) % m->top;
		batch = i;
	}
	return done;
}

/*
 * Our pages per area, and per zone for those in no area. The caller
 * refreshes the frames first.
 */
void mem_placement(const struct load_mem *m, const struct load_sys *s,
		   __u64 *per_area, __u64 *per_zone, __u64 *elsewhere)
{
	int zone, area;
	size_t p;

	memset(per_area, 0, LOAD_MAX_AREAS * sizeof(*per_area));
	memset(per_zone, 0, LOAD_MAX_ZONES * sizeof(*per_zone));
	*elsewhere = 0;
	for (p = 0; p < m->top * m->unit; p++) {
		if (!m->pfn[p])
			continue;
		sys_where(s, m->pfn[p], &zone, &area);
		if (area >= 0)
			per_area[area]++;
		else if (zone >= 0)
			per_zone[zone]++;
		else
			(*elsewhere)++;
	}
}

/* Bytes of the units this process holds. */
__u64 mem_held(const struct load_mem *m)
{
	return (__u64)(m->units - m->nholes) * m->unit * page_bytes();
}

/*
 * Up to @max addresses of our pages that are in @area now, from a random
 * place on. Return: how many.
 */
size_t mem_pick(struct load_mem *m, const struct load_sys *s, int area,
		unsigned char **addrs, size_t max)
{
	size_t n = 0, seen, batch, u, i;
	int a;

	if (!m->top)
		return 0;
	u = (size_t)random() % m->top;
	for (seen = 0; seen < m->top && n < max; seen += batch) {
		batch = m->top - u < 4096 ? m->top - u : 4096;
		if (mem_refresh(m, u, batch))
			break;
		for (i = u * m->unit; i < (u + batch) * m->unit && n < max; i++) {
			if (!m->pfn[i])
				continue;
			sys_where(s, m->pfn[i], NULL, &a);
			/* One round at most: no page is picked twice. */
			if (a == area)
				addrs[n++] = m->base + i * page_bytes();
		}
		u = (u + batch) % m->top;
	}
	return n;
}
