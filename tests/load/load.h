/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmabuf_load: the test bed's memory load. It puts the guest's memory in
 * the states users have (CMA areas full of movable pages, refilled while
 * allocations run, pages that cannot move for a while) and says where the
 * pages went, from /proc/zoneinfo, /proc/meminfo, the CMA areas' debugfs
 * files, /proc/kpageflags and /proc/self/pagemap (root).
 */
#ifndef CMABUF_LOAD_H
#define CMABUF_LOAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#include "util.h"	/* cmabufctl's: ARRAY_SIZE(), BIT(), __printf() */

#define BIT_ULL(nr)		(1ULL << (nr))

#define LOAD_MAX_ZONES		8
#define LOAD_MAX_AREAS		16
#define LOAD_NAME_MAX		64
#define LOAD_MIB		(1024ULL * 1024)

/* Pages of an area, by what holds them (sys_scan_area()). */
struct load_use {
	__u64 free;		/* in the buddy or a per-CPU list */
	__u64 cma;		/* allocated through CMA (the area's bitmap) */
	__u64 anon;		/* anonymous, small pages */
	__u64 thp;		/* parts of transparent huge pages */
	__u64 shmem;		/* shmem and tmpfs page cache */
	__u64 file;		/* other page cache */
	__u64 other;		/* anything else in use */
};

struct load_zone {
	char name[16];
	__u64 start_pfn, spanned, managed, cma;
	__u64 free, free_cma, min, low, high;
};

struct load_area {
	char name[LOAD_NAME_MAX];
	__u64 base_pfn, count;
	unsigned int order_per_bit;
	int zone;		/* index in load_sys.zones */
	bool zone_alone;	/* the only CMA of its zone: zoneinfo counts it */
	bool scanned;
	struct load_use use;
};

/* The machine's memory as one snapshot: sizes in pages, meminfo in bytes. */
struct load_sys {
	struct load_zone zones[LOAD_MAX_ZONES];
	int nzones;
	struct load_area areas[LOAD_MAX_AREAS];
	int nareas;
	__u64 page_size;
	__u64 mem_total, mem_free, cma_free, cma_total;
	__u64 anon, anon_huge, shmem;
};

int sys_read(struct load_sys *s);
int sys_read_meminfo(struct load_sys *s);
int sys_read_u64(const char *dir, const char *name, __u64 *val);
int sys_scan_area(struct load_sys *s, int area);
int sys_area_find(const struct load_sys *s, const char *name);
int sys_area_free(struct load_sys *s, int area, __u64 *pages);
int sys_min_watermarks(__u64 *bytes);
void sys_where(const struct load_sys *s, __u64 pfn, int *zone, int *area);

enum load_kind { LOAD_ANON, LOAD_THP, LOAD_SHMEM, LOAD_KIND_COUNT };

/*
 * The memory this process holds: one reservation touched and released in
 * units (a page; 2 MiB for THP). @pfn is the last frame pagemap showed for
 * each page (0: not present; RAM never starts at frame 0 on arm64 virt).
 * Released units go on the @holes stack and are touched again from there.
 * @placed marks the units touched into the target area: those an
 * allocation then migrated out are the ones a refill gives back. No unit
 * at or above @top has ever been touched: scans stop there.
 */
struct load_mem {
	enum load_kind kind;
	unsigned char *base;
	size_t pages, unit, units;
	int memfd, pagemap;
	__u64 *pfn;
	size_t *holes;
	size_t nholes;
	size_t cursor, top;
	bool *placed;
};

const char *mem_kind_name(enum load_kind kind);
int mem_kind_parse(const char *s, enum load_kind *kind);
int mem_init(struct load_mem *m, enum load_kind kind, __u64 bytes,
	     __u64 page_size);
/* Which of our units mem_release() gives back, relative to an area. */
enum mem_where {
	MEM_IN_AREA,	/* in the area */
	MEM_NOT_CMA,	/* in no CMA area: memory every allocation can use */
	MEM_NOT_AREA,	/* anywhere but the area */
	MEM_MOVED_OUT,	/* left in the area by the last fill, elsewhere now */
	MEM_ANY,
};

size_t mem_touch(struct load_mem *m, const struct load_sys *s, int area,
		 __u64 *in_area, size_t units);
int mem_refresh(struct load_mem *m, size_t first, size_t units);
size_t mem_release(struct load_mem *m, const struct load_sys *s, int area,
		   enum mem_where where, size_t units);
void mem_placement(const struct load_mem *m, const struct load_sys *s,
		   __u64 *per_area, __u64 *per_zone, __u64 *elsewhere);
__u64 mem_held(const struct load_mem *m);
size_t mem_pick(struct load_mem *m, const struct load_sys *s, int area,
		unsigned char **addrs, size_t max);

/*
 * A fill's goal: the area's free bytes below @free_below, then at least
 * @room bytes free outside it (where its movable pages can go), never
 * fewer than @floor bytes free outside CMA (the kernel's own allocations
 * cannot use CMA; no swap). With @size set, fill that many bytes instead.
 */
struct load_target {
	int area;
	__u64 free_below, room, floor, size;
};

/* What a fill did; the times of its three steps, and all of it. */
struct load_fill {
	bool met;
	const char *why;
	__u64 touched, released, ns;
	__u64 ns_moved, ns_touch, ns_room;
	__u64 area_free, outside_free;
};

int load_fill(struct load_mem *m, struct load_sys *s,
	      const struct load_target *t, struct load_fill *r);

/* Pages a pipe holds after vmsplice(): they cannot move until read. */
#define LOAD_SPLICE_MAX		65536

struct load_splice {
	size_t pages;
	unsigned int hold_ms, gap_ms;
	__u64 cycles, pinned;
};

/* Buffers registered with io_uring: long-term pins, moved out of CMA first. */
struct load_longterm {
	__u64 bytes;
	int ring;
	__u64 in_cma_before, in_cma_after, cma_free_before, cma_free_after;
	int err;
};

int pin_longterm(struct load_longterm *lt, struct load_sys *s);
void pin_longterm_end(struct load_longterm *lt);

/*
 * The daemon's state, shared by its threads under @lock. The churn and
 * the pipes idle while their rate or pages are 0; "set" requests change
 * them.
 */
struct load_daemon {
	pthread_mutex_t lock;
	struct load_mem mem;
	struct load_sys sys;
	struct load_target target;
	struct load_splice splice;
	struct load_longterm longterm;
	__u64 churn_rate;		/* bytes a second, 0 for none */
	__u64 churned, churned_in_area;
	bool stop;		/* read by the threads between rounds */
	int listen_fd;
	FILE *log;
};

int splice_parse(const char *arg, struct load_splice *sp);

int daemon_serve(struct load_daemon *d);
void *churn_thread(void *arg);
void *splice_thread(void *arg);

/* Output: a JSON record of the machine's memory and, when given, ours. */
struct load_record {
	const char *event;
	struct load_sys *sys;
	struct load_mem *mem;
	const struct load_target *target;
	const struct load_fill *fill;
	const struct load_daemon *daemon;
	const char *bench_path, *bench_iteration;
	bool light;		/* a refill's: no scan of pages, ours or the areas' */
};

void report_json(FILE *fp, const struct load_record *rec);
void report_text(FILE *fp, const struct load_record *rec);

__u64 now_ns(void);
void load_err(const char *fmt, ...) __printf(1, 2);

#endif /* CMABUF_LOAD_H */
