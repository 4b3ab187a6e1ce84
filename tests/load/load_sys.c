// SPDX-License-Identifier: GPL-2.0
/*
 * The machine's memory: zones (/proc/zoneinfo), totals (/proc/meminfo),
 * the CMA areas (debugfs) and what holds each page of an area
 * (/proc/kpageflags, and the area's bitmap for what CMA handed out).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/kernel-page-flags.h>

#include "load.h"

#define CMA_DEBUGFS	"/sys/kernel/debug/cma"
#define SCAN_BATCH	65536

/* The clock every record and timing of the load uses. */
__u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The number in file @name of @dir. */
int sys_read_u64(const char *dir, const char *name, __u64 *val)
{
	char path[512], buf[64];
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -EIO;
	buf[len] = '\0';
	*val = strtoull(buf, NULL, 0);
	return 0;
}

/* "  pages free 123", "  nr_free_cma 4", "  start_pfn: 5" into @z. */
static void zone_line(struct load_zone *z, const char *line)
{
	static const struct { const char *key; size_t off; } keys[] = {
		{ "pages free", offsetof(struct load_zone, free) },
		{ "min", offsetof(struct load_zone, min) },
		{ "low", offsetof(struct load_zone, low) },
		{ "high", offsetof(struct load_zone, high) },
		{ "spanned", offsetof(struct load_zone, spanned) },
		{ "managed", offsetof(struct load_zone, managed) },
		{ "cma", offsetof(struct load_zone, cma) },
		{ "nr_free_cma", offsetof(struct load_zone, free_cma) },
		{ "start_pfn:", offsetof(struct load_zone, start_pfn) },
	};
	size_t i, len;

	while (*line == ' ')
		line++;
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		len = strlen(keys[i].key);
		if (!strncmp(line, keys[i].key, len) && line[len] == ' ') {
			*(__u64 *)((char *)z + keys[i].off) =
				strtoull(line + len, NULL, 10);
			return;
		}
	}
}

static int zones_read(struct load_sys *s)
{
	struct load_zone *z = NULL;
	char line[256], name[16];
	FILE *fp;

	fp = fopen("/proc/zoneinfo", "re");
	if (!fp)
		return -errno;
	s->nzones = 0;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "Node %*d, zone %15s", name) == 1) {
			z = s->nzones < LOAD_MAX_ZONES ? &s->zones[s->nzones++] : NULL;
			if (z) {
				memset(z, 0, sizeof(*z));
				snprintf(z->name, sizeof(z->name), "%s", name);
			}
		} else if (z) {
			zone_line(z, line);
		}
	}
	fclose(fp);
	return s->nzones ? 0 : -ENOENT;
}

/* The totals alone, from /proc/meminfo: cheap enough to poll. */
int sys_read_meminfo(struct load_sys *s)
{
	static const struct { const char *key; size_t off; } keys[] = {
		{ "MemTotal:", offsetof(struct load_sys, mem_total) },
		{ "MemFree:", offsetof(struct load_sys, mem_free) },
		{ "CmaTotal:", offsetof(struct load_sys, cma_total) },
		{ "CmaFree:", offsetof(struct load_sys, cma_free) },
		{ "AnonPages:", offsetof(struct load_sys, anon) },
		{ "AnonHugePages:", offsetof(struct load_sys, anon_huge) },
		{ "Shmem:", offsetof(struct load_sys, shmem) },
	};
	char line[256];
	unsigned long long kb;
	size_t i, len;
	FILE *fp;

	fp = fopen("/proc/meminfo", "re");
	if (!fp)
		return -errno;
	while (fgets(line, sizeof(line), fp)) {
		for (i = 0; i < ARRAY_SIZE(keys); i++) {
			len = strlen(keys[i].key);
			if (strncmp(line, keys[i].key, len) ||
			    sscanf(line + len, "%llu", &kb) != 1)
				continue;
			*(__u64 *)((char *)s + keys[i].off) = kb << 10;
		}
	}
	fclose(fp);
	return 0;
}

/* Every CMA area debugfs shows, with the zone it lies in. */
static int areas_read(struct load_sys *s)
{
	struct load_area *a;
	char dir[512];
	struct dirent *de;
	__u64 opb;
	DIR *d;
	int i, j;

	/* No debugfs (or no CMA): no area, which the caller says if it matters. */
	s->nareas = 0;
	d = opendir(CMA_DEBUGFS);
	if (!d)
		return 0;
	while ((de = readdir(d)) && s->nareas < LOAD_MAX_AREAS) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= LOAD_NAME_MAX)
			continue;
		a = &s->areas[s->nareas];
		memset(a, 0, sizeof(*a));
		memcpy(a->name, de->d_name, strlen(de->d_name) + 1);
		snprintf(dir, sizeof(dir), "%s/%s", CMA_DEBUGFS, de->d_name);
		if (sys_read_u64(dir, "base_pfn", &a->base_pfn) ||
		    sys_read_u64(dir, "count", &a->count) ||
		    sys_read_u64(dir, "order_per_bit", &opb))
			continue;
		a->order_per_bit = opb;
		sys_where(s, a->base_pfn, &a->zone, NULL);
		s->nareas++;
	}
	closedir(d);
	for (i = 0; i < s->nareas; i++) {
		a = &s->areas[i];
		a->zone_alone = a->zone >= 0 && s->zones[a->zone].cma == a->count;
		for (j = 0; j < s->nareas; j++)
			if (j != i && s->areas[j].zone == a->zone && s->areas[j].count)
				a->zone_alone = false;
	}
	return 0;
}

/* A fresh snapshot of zones, totals and areas (areas not scanned). */
int sys_read(struct load_sys *s)
{
	int ret;

	s->page_size = sysconf(_SC_PAGESIZE);
	ret = zones_read(s);
	if (!ret)
		ret = sys_read_meminfo(s);
	if (!ret)
		ret = areas_read(s);
	return ret;
}

/* The zone and the CMA area (-1: none) that frame @pfn belongs to. */
void sys_where(const struct load_sys *s, __u64 pfn, int *zone, int *area)
{
	int i;

	if (zone) {
		*zone = -1;
		for (i = 0; i < s->nzones; i++) {
			const struct load_zone *z = &s->zones[i];

			if (z->spanned && pfn >= z->start_pfn &&
			    pfn < z->start_pfn + z->spanned)
				*zone = i;
		}
	}
	if (area) {
		*area = -1;
		for (i = 0; i < s->nareas; i++) {
			const struct load_area *a = &s->areas[i];

			if (pfn >= a->base_pfn && pfn < a->base_pfn + a->count)
				*area = i;
		}
	}
}

/* An area by name; "large-pool" also finds "large-pool@100000000". */
int sys_area_find(const struct load_sys *s, const char *name)
{
	size_t len = strlen(name);
	int i;

	for (i = 0; i < s->nareas; i++) {
		if (!strcmp(s->areas[i].name, name) ||
		    (!strncmp(s->areas[i].name, name, len) &&
		     s->areas[i].name[len] == '@'))
			return i;
	}
	return -1;
}

/* The area's bitmap from debugfs: one bit per 2^order_per_bit pages. */
static __u32 *bitmap_read(const struct load_area *a, size_t *words)
{
	size_t bits = a->count >> a->order_per_bit, n = 0, max = (bits + 31) / 32;
	char path[512];
	__u32 *map;
	unsigned long v;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s/bitmap", CMA_DEBUGFS, a->name);
	map = calloc(max ? max : 1, sizeof(*map));
	fp = map ? fopen(path, "re") : NULL;
	if (!fp) {
		free(map);
		return NULL;
	}
	while (n < max && fscanf(fp, "%lu", &v) == 1)
		map[n++] = v;
	fclose(fp);
	*words = n;
	return map;
}

static bool bitmap_test(const __u32 *map, size_t words, __u64 bit)
{
	return bit / 32 < words && (map[bit / 32] >> (bit % 32)) & 1;
}

static void use_count(struct load_use *u, __u64 f)
{
	if (f & BIT_ULL(KPF_THP))
		u->thp++;
	else if (f & BIT_ULL(KPF_ANON))
		u->anon++;
	else if ((f & BIT_ULL(KPF_LRU)) && (f & BIT_ULL(KPF_SWAPBACKED)))
		u->shmem++;
	else if (f & BIT_ULL(KPF_LRU))
		u->file++;
	else if (!f || f == BIT_ULL(KPF_BUDDY))
		u->free++;
	else
		u->other++;
}

/*
 * What holds each page of @area: a page the area's bitmap marks is CMA's,
 * any other is counted by its flags. A free page shows no flag but the
 * buddy one (on the head of a free block) or none (the rest, and pages on
 * a per-CPU list), as do CMA's own frozen pages: hence the bitmap. Reading
 * it costs the kernel a large buffer, which a nearly full machine may not
 * have: it is read only when CMA has handed out some of the area.
 */
int sys_scan_area(struct load_sys *s, int area)
{
	struct load_area *a = &s->areas[area];
	__u64 *flags, pfn, i, n, used;
	char dir[512];
	__u32 *map;
	size_t words = 0;
	ssize_t got;
	int fd, ret = 0;

	memset(&a->use, 0, sizeof(a->use));
	fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	flags = malloc(SCAN_BATCH * sizeof(*flags));
	/* Only an area CMA hands out from has a bitmap worth reading. */
	snprintf(dir, sizeof(dir), "%s/%s", CMA_DEBUGFS, a->name);
	if (sys_read_u64(dir, "used", &used) || used)
		map = bitmap_read(a, &words);
	else
		map = calloc(1, sizeof(*map));
	if (!flags || !map) {
		ret = -ENOMEM;
		goto out;
	}
	for (pfn = a->base_pfn; pfn < a->base_pfn + a->count; pfn += n) {
		n = a->base_pfn + a->count - pfn;
		if (n > SCAN_BATCH)
			n = SCAN_BATCH;
		got = pread(fd, flags, n * sizeof(*flags), pfn * sizeof(*flags));
		if (got != (ssize_t)(n * sizeof(*flags))) {
			ret = got < 0 ? -errno : -EIO;
			goto out;
		}
		for (i = 0; i < n; i++) {
			if (bitmap_test(map, words,
					(pfn + i - a->base_pfn) >> a->order_per_bit))
				a->use.cma++;
			else
				use_count(&a->use, flags[i]);
		}
	}
	a->scanned = true;
out:
	free(map);
	free(flags);
	close(fd);
	return ret;
}

/*
 * Free pages of @area: the zone's count when the area is the only CMA of
 * its zone (cheap), else from a scan. Return: 0 or -errno.
 */
int sys_area_free(struct load_sys *s, int area, __u64 *pages)
{
	struct load_area *a = &s->areas[area];
	int ret;

	if (a->zone_alone) {
		*pages = s->zones[a->zone].free_cma;
		return 0;
	}
	ret = sys_scan_area(s, area);
	if (!ret)
		*pages = a->use.free;
	return ret;
}

/*
 * The min watermarks, in bytes, of the zones that have memory outside CMA:
 * below them the kernel's own allocations fail (there is no swap).
 */
int sys_min_watermarks(__u64 *bytes)
{
	struct load_sys sys;
	__u64 pages = 0;
	int i, ret;

	ret = sys_read(&sys);
	if (ret)
		return ret;
	for (i = 0; i < sys.nzones; i++) {
		if (sys.zones[i].managed > sys.zones[i].cma)
			pages += sys.zones[i].min;
	}
	*bytes = pages * sys.page_size;
	return 0;
}
