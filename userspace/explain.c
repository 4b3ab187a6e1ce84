// SPDX-License-Identifier: GPL-2.0
/*
 * Why CMABUF_IOC_ALLOC refused a request, told from CMABUF_IOC_INFO (and,
 * for the cap on callers without CAP_SYS_ADMIN, from sysfs). The rules are
 * the driver's (cmabuf_plan_make(), include/uapi/linux/cmabuf.h).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "dev.h"
#include "explain.h"
#include "fmt.h"
#include "parse.h"

/* A buffer is one scatterlist entry: at most 4 GiB less one page. */
static __u64 explain_max_bytes(const struct cmabuf_info *info)
{
	__u64 page = info->page_size ? info->page_size : 4096;

	return 0xffffffffULL & ~(page - 1);
}

static bool explain_pow2(__u64 v)
{
	return v && !(v & (v - 1));
}

/* COMPOUND's rules: a power of two between the two orders, aligned to it. */
static enum explain_what explain_compound(const struct cmabuf_info *info,
					  __u64 size, __u32 align, char *buf,
					  size_t len)
{
	__u64 page = info->page_size, pages = (size + page - 1) / page;
	char lo[FMT_LEN], hi[FMT_LEN], sz[FMT_LEN];

	if (!info->max_compound_order) {
		snprintf(buf, len,
			 "strategy: this area can hold no COMPOUND buffer (use auto or frozen)");
		return EXPLAIN_STRATEGY;
	}
	fmt_size(page << info->min_compound_order, lo, sizeof(lo));
	fmt_size(page << info->max_compound_order, hi, sizeof(hi));
	if (pages < 2 || !explain_pow2(pages) ||
	    pages < 1ULL << info->min_compound_order ||
	    pages > 1ULL << info->max_compound_order) {
		snprintf(buf, len, "size: a COMPOUND buffer is a power of two from %s to %s here",
			 lo, hi);
		return EXPLAIN_SIZE;
	}
	if (align && (1ULL << align) > pages * page) {
		snprintf(buf, len,
			 "alignment: a COMPOUND buffer is aligned to its size (%s), no further",
			 fmt_size(pages * page, sz, sizeof(sz)));
		return EXPLAIN_ALIGN;
	}
	return EXPLAIN_UNKNOWN;
}

/**
 * explain_einval() - which part of a request EINVAL is about
 * @info: what the instance told
 * @size: bytes asked for
 * @align: log2 of the alignment asked for, 0 for none
 * @strategy: the %CMABUF_STRATEGY_* asked for
 * @buf: the explanation, "size: ..." or "alignment: ..." or "strategy: ..."
 * @len: size of @buf
 *
 * Return: the part that is wrong, %EXPLAIN_UNKNOWN when the rules known
 * here do not tell.
 */
enum explain_what explain_einval(const struct cmabuf_info *info, __u64 size,
				 __u32 align, unsigned int strategy,
				 char *buf, size_t len)
{
	char sz[FMT_LEN];
	enum explain_what what;

	if (strategy >= CMABUF_STRATEGY_COUNT) {
		snprintf(buf, len, "strategy: unknown strategy %u", strategy);
		return EXPLAIN_STRATEGY;
	}
	if (!size || size > explain_max_bytes(info)) {
		snprintf(buf, len,
			 "size: a buffer is one scatterlist entry, from 1 byte to %llu bytes (4 GiB less one page)",
			 explain_max_bytes(info));
		return EXPLAIN_SIZE;
	}
	if (align > CMABUF_ALIGN_MAX) {
		snprintf(buf, len, "alignment: at most 2^%d bytes", CMABUF_ALIGN_MAX);
		return EXPLAIN_ALIGN;
	}
	if (strategy == CMABUF_STRATEGY_COMPOUND && info->page_size) {
		what = explain_compound(info, size, align, buf, len);
		if (what != EXPLAIN_UNKNOWN)
			return what;
	}
	if (strategy == CMABUF_STRATEGY_DMA && align) {
		snprintf(buf, len,
			 "alignment: the DMA API aligns a buffer to its size rounded up to a power of two, and to no more than the kernel's CONFIG_CMA_ALIGNMENT pages order");
		return EXPLAIN_ALIGN;
	}
	snprintf(buf, len, "the driver refused size %s with strategy %s",
		 fmt_size(size, sz, sizeof(sz)), strategy_name(strategy));
	return EXPLAIN_UNKNOWN;
}

/*
 * "; the largest free range now is ...", or where root can see it, or
 * nothing where the kernel does not tell it.
 */
static void explain_largest(__u64 largest_free, char *buf, size_t len)
{
	char big[FMT_LEN];

	if (largest_free == DEV_UNTOLD)
		buf[0] = '\0';
	else if (largest_free)
		snprintf(buf, len, "; the largest free range now is %s",
			 fmt_size(largest_free, big, sizeof(big)));
	else
		snprintf(buf, len,
			 "; root can see the largest free range in /sys/kernel/debug/cma/<area>/maxchunk");
}

/**
 * explain_enomem() - the area's room, for an allocation that found none
 * @info: what the instance told
 * @size: bytes asked for
 * @largest_free: bytes of the largest free range of the area, 0 when not
 *	known (it needs debugfs, which needs root), %DEV_UNTOLD where the
 *	kernel does not tell it (no CMA debugfs)
 * @buf: the explanation
 * @len: size of @buf
 *
 * ENOMEM: the area does not have @size bytes free, or is smaller; or,
 * where it has them, the caller's memory cgroup had no room for the
 * charge (the module parameter mem_accounting).
 */
void explain_enomem(const struct cmabuf_info *info, __u64 size,
		    __u64 largest_free, char *buf, size_t len)
{
	char sz[FMT_LEN], fr[FMT_LEN], tot[FMT_LEN], big[FMT_LEN];
	__u64 most = explain_max_bytes(info);
	size_t off;

	fmt_size(size, sz, sizeof(sz));
	/* Without the area's statistics its size may still be known (node). */
	if (info->total_bytes && size > info->total_bytes) {
		snprintf(buf, len, "%s is more than the whole area (%s)", sz,
			 fmt_size(info->total_bytes, tot, sizeof(tot)));
		return;
	}
	if (!(info->flags & CMABUF_INFO_AREA_STATS)) {
		off = snprintf(buf, len,
			       "no free contiguous range of %s (this kernel does not tell the area's free bytes)",
			       sz);
	} else {
		if (info->total_bytes < most)
			most = info->total_bytes;
		off = snprintf(buf, len,
			       "no room for %s: %s of %s free, the rest held by other buffers (the largest buffer the area can hold is %s)",
			       sz, fmt_size(info->free_bytes, fr, sizeof(fr)),
			       fmt_size(info->total_bytes, tot, sizeof(tot)),
			       fmt_size(most, big, sizeof(big)));
	}
	if (off < len)
		explain_largest(largest_free, buf + off, len - off);
	off = strlen(buf);
	if (info->flags & CMABUF_INFO_AREA_STATS && info->free_bytes >= size &&
	    off < len)
		snprintf(buf + off, len - off,
			 "; or, with cmabuf's mem_accounting on, your memory cgroup's limit (memory.max)");
}

/**
 * explain_ebusy() - why an area with room had no range to give
 * @info: what the instance told
 * @size: bytes asked for
 * @largest_free: as for explain_enomem()
 * @buf: the explanation
 * @len: size of @buf
 *
 * EBUSY: the area has @size bytes free, but no aligned range of them could
 * be emptied, even after the driver's retries.
 */
void explain_ebusy(const struct cmabuf_info *info, __u64 size,
		   __u64 largest_free, char *buf, size_t len)
{
	char sz[FMT_LEN], fr[FMT_LEN];
	size_t off;

	off = snprintf(buf, len,
		       "%s of the area is free, but no range of %s could be emptied: its pages are pinned or being migrated, or other buffers split the free bytes; try again later",
		       fmt_size(info->free_bytes, fr, sizeof(fr)),
		       fmt_size(size, sz, sizeof(sz)));
	if (off < len)
		explain_largest(largest_free, buf + off, len - off);
}

/**
 * explain_edquot() - why a caller without CAP_SYS_ADMIN was refused
 * @cap: the cap and what is held, read after the refusal
 * @size: bytes asked for
 * @buf: the explanation
 * @len: size of @buf
 *
 * EDQUOT: the buffer would take what the caller's user (without
 * CAP_SYS_ADMIN) holds on the instance, live and prepared, past the cap
 * root set for each user (unprivileged_max_bytes).
 */
void explain_edquot(const struct explain_cap *cap, __u64 size, char *buf,
		    size_t len)
{
	char sz[FMT_LEN], held[FMT_LEN], max[FMT_LEN];

	fmt_size(size, sz, sizeof(sz));
	if (!cap->known) {
		snprintf(buf, len,
			 "a buffer of %s would go past the instance's cap for callers without CAP_SYS_ADMIN (sysfs unprivileged_max_bytes, which could not be read)",
			 sz);
		return;
	}
	fmt_size(cap->held, held, sizeof(held));
	if (!cap->max) {
		snprintf(buf, len,
			 "a buffer of %s went past the instance's cap for callers without CAP_SYS_ADMIN, which root has lifted since (unprivileged_max_bytes is 0, %s held): try again",
			 sz, held);
		return;
	}
	snprintf(buf, len,
		 "a buffer of %s would go past the instance's cap for callers without CAP_SYS_ADMIN: %s for each user, its live and prepared buffers together (unprivileged_max_bytes; %s held by all such users); free some, or ask root to raise it",
		 sz, fmt_size(cap->max, max, sizeof(max)), held);
}

/**
 * explain_enobufs() - why the memory cgroup refused
 * @bytes: bytes asked for
 * @buf: the explanation
 * @len: size of @buf
 *
 * ENOBUFS: with the module parameter mem_accounting on, the buffers would
 * take the caller's memory cgroup past its memory.max. The area may well
 * have the room (that would be ENOMEM).
 */
void explain_enobufs(__u64 bytes, char *buf, size_t len)
{
	char sz[FMT_LEN];

	snprintf(buf, len,
		 "%s would take this process's memory cgroup past its memory.max (cmabuf charges buffers to it: module parameter mem_accounting); free memory in the cgroup, or raise its memory.max",
		 fmt_size(bytes, sz, sizeof(sz)));
}

/**
 * explain_cap_text() - the cap as cmabufctl info shows it
 * @cap: the cap and what is held
 * @buf: "64 MiB for each user, 3 MiB held by all (callers without
 *	CAP_SYS_ADMIN)", or "none (callers without CAP_SYS_ADMIN hold 3 MiB)"
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *explain_cap_text(const struct explain_cap *cap, char *buf,
			     size_t len)
{
	char held[FMT_LEN], max[FMT_LEN];

	fmt_size(cap->held, held, sizeof(held));
	if (cap->max)
		snprintf(buf, len,
			 "%s for each user, %s held by all (callers without CAP_SYS_ADMIN)",
			 fmt_size(cap->max, max, sizeof(max)), held);
	else
		snprintf(buf, len, "none (callers without CAP_SYS_ADMIN hold %s)",
			 held);
	return buf;
}
