/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the reliability programs (cmabuf_fuzz, cmabuf_stress,
 * cmabuf_lifecycle, cmabuf_security): the instances of the driver, a
 * snapshot of everything a buffer's life must leave as it found it, a
 * seeded random number generator, and module loading with parameters.
 *
 * Nothing here asserts: helpers return 0 or a positive errno, and the
 * programs decide.
 */
#ifndef RELIABILITY_UTIL_H
#define RELIABILITY_UTIL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "kselftest.h"	/* ARRAY_SIZE(), __printf() */

#ifndef BIT_ULL
#define BIT_ULL(nr)		(1ULL << (nr))
#endif

#define REL_MAX_INSTANCES	8
#define REL_NAME_MAX		64

/* The module and its files in the guest. */
#define REL_MODULE_NAME		"cmabuf"
#define REL_MODULE_PATH		"/lib/modules/cmabuf/cmabuf.ko"
#define REL_IMPORTER_NAME	"cmabuf_importer"
#define REL_IMPORTER_PATH	"/lib/modules/cmabuf/cmabuf_importer.ko"
#define REL_IMPORTER_DEV	"/dev/cmabuf_importer"
#define REL_PLATFORM_DRIVER	"/sys/bus/platform/drivers/cmabuf"

/* Why a test that unloads cmabuf cannot run (see rel_module_pinned()). */
#define REL_PINNED_REASON \
	"cmabuf registered a dma-heap and can never be unloaded: load it with heap=0 to run this"

/* "1" where cmabuf's dma-heaps must exist (see rel_heaps_required()). */
#define REL_REQUIRE_HEAPS	"CMABUF_REQUIRE_HEAPS"

/**
 * struct rel_instance - one instance of the driver, as userspace sees it
 * @name: misc device name: "cmabuf", "cmabuf-general", ...
 * @area: name of its CMA area, from CMABUF_IOC_INFO.
 * @total_pages: size of the area in pages (0 when the kernel does not tell).
 * @base_pfn: first page frame of the area, from debugfs (0 when unknown).
 * @page_size: the kernel's page size.
 * @strategies: CMABUF_STRATEGY_BIT() of every supported strategy.
 * @min_order: smallest COMPOUND page order, 0 without COMPOUND.
 * @max_order: largest COMPOUND page order, 0 without COMPOUND.
 * @info_flags: &cmabuf_info.flags.
 */
struct rel_instance {
	char name[REL_NAME_MAX];
	char area[REL_NAME_MAX];
	unsigned long long total_pages;
	unsigned long long base_pfn;
	unsigned int page_size;
	unsigned int strategies;
	unsigned int min_order;
	unsigned int max_order;
	unsigned int info_flags;
};

/**
 * struct rel_counts - one instance's counters and its area's use
 * @name: the instance.
 * @area: its CMA area.
 * @present: the instance's sysfs directory exists (it is bound).
 * @used_pages: pages of the area allocated by anyone (debugfs used, or
 *	CMA sysfs allocated minus released pages without CMA debugfs).
 * @used_known: the kernel tells @used_pages (false: neither CMA debugfs
 *	nor CMA sysfs, @used_pages is 0 and not compared).
 * @live_buffers: sysfs stats/live_buffers.
 * @live_bytes: sysfs stats/live_bytes.
 * @prepared_bytes: sysfs prepared_bytes, buffers ready ahead (0 where the
 *	driver has none).
 * @releasing_bytes: sysfs releasing_bytes, freed and not yet back in the
 *	area; 0 in a snapshot, which waits for it.
 */
struct rel_counts {
	char name[REL_NAME_MAX];
	char area[REL_NAME_MAX];
	bool present;
	bool used_known;
	unsigned long long used_pages;
	unsigned long long live_buffers;
	unsigned long long live_bytes;
	unsigned long long prepared_bytes;
	unsigned long long releasing_bytes;
};

/**
 * struct rel_snapshot - counters of every instance at one moment
 * @count: entries in @inst.
 * @inst: one per instance, in the order rel_instances() found them.
 */
struct rel_snapshot {
	unsigned int count;
	struct rel_counts inst[REL_MAX_INSTANCES];
};

int rel_read_ull(const char *path, unsigned long long *val);
int rel_write_str(const char *path, const char *s);
int rel_debugfs_mount(void);
bool rel_cma_debugfs_there(void);
int rel_area_held_pages(const char *area, unsigned long long *pages);
int rel_cma_read(const char *area, const char *file, unsigned long long *val);

/*
 * Why a check of a CMA area cannot be made (rel_cma_read() returned
 * EOPNOTSUPP): what the kernel lacks, for the skip that says so.
 */
#define REL_CMA_LACKS \
	"the kernel has no CMA debugfs (CONFIG_CMA_DEBUGFS), and neither CMA sysfs (CONFIG_CMA_SYSFS) nor the area's reserved-memory node or boot log tells it"

/* rel_snapshot_pages_lost() where an area's use cannot be read. */
#define REL_PAGES_UNKNOWN	LLONG_MIN
int rel_cma_base_pfn(const char *area, unsigned long long *pfn);
int rel_cma_has_room(const char *area, unsigned long long pages,
		     unsigned long long align, bool *room);

int rel_instances(struct rel_instance *inst, unsigned int max,
		  unsigned int *count);
int rel_instance_open(const char *name, int flags);
int rel_stat_read(const char *name, const char *group, const char *counter,
		  unsigned long long *val);

/* How long a snapshot waits for the frees in flight of an instance. */
#define REL_SETTLE_MS		10000

int rel_instance_settle(const char *name, unsigned int timeout_ms);
int rel_snapshot_take(const struct rel_instance *inst, unsigned int count,
		      struct rel_snapshot *s);
bool rel_snapshot_same(const struct rel_snapshot *a,
		       const struct rel_snapshot *b, char *why, size_t size);
int rel_snapshot_settle(const struct rel_instance *inst, unsigned int count,
			const struct rel_snapshot *base, unsigned int timeout_ms,
			struct rel_snapshot *now, char *why, size_t size);
const struct rel_counts *rel_snapshot_find(const struct rel_snapshot *s,
					   const char *name);
long long rel_snapshot_pages_lost(const struct rel_snapshot *base,
				  const struct rel_snapshot *now);

int rel_module_load(const char *path, const char *params);
int rel_module_unload(const char *name);
bool rel_module_loaded(const char *name);
bool rel_module_pinned(void);
bool rel_module_has_heaps(void);
bool rel_heaps_required(void);

/*
 * From the selftest's helpers (tests/selftests/cmabuf_test_util.c, linked
 * in): the offset of the first non-zero byte of @buf, @len when there is
 * none; a file of sysfs mm/cma/<area>/. Declared here because that
 * header's size macros clash with the sharing test's, which some programs
 * use too.
 */
size_t cmabuf_first_nonzero(const void *buf, size_t len);
int cmabuf_cma_sysfs_read(const char *area, const char *file,
			  unsigned long long *val);
const char *rel_errname(int err);
__u64 rel_now_ns(void);

/**
 * struct rel_rng - splitmix64, small and reproducible
 * @state: advanced by every draw.
 */
struct rel_rng {
	__u64 state;
};

__u64 rel_rand(struct rel_rng *rng);
__u64 rel_below(struct rel_rng *rng, __u64 n);
bool rel_chance(struct rel_rng *rng, unsigned int percent);
__u64 rel_seed_default(void);

#endif /* RELIABILITY_UTIL_H */
