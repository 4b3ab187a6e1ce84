// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf_fuzz: where arguments live, and the raw material of arguments.
 *
 * One mapping holds every argument the fuzzer passes by address:
 *
 *   rw[5 pages] | guard | ro[1 page] | guard | names[2 pages] | guard
 *
 * Guards are PROT_NONE. A structure is put at a random place in rw (most
 * of the time), across the end of rw into the guard, in the read-only page
 * or at an address that is not mapped at all, and the kernel may read or
 * write exactly the bytes that lie in rw (write) or rw and ro (read).
 * Those predicates are what the expected results are built on.
 */
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "fuzz.h"

#define FZ_CANARY	0xc5
#define FZ_CANARY_LEN	32
#define FZ_PAGES	(FZ_RW_PAGES + 1 + 1 + 1 + FZ_NAME_PAGES + 1)

int fz_arena_init(struct fz_arena *a, size_t page)
{
	a->page = page;
	a->base = mmap(NULL, FZ_PAGES * page, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a->base == MAP_FAILED)
		return -1;
	a->rw = a->base;
	a->ro = a->rw + (FZ_RW_PAGES + 1) * page;
	a->names = a->ro + 2 * page;
	if (mprotect(a->rw, FZ_RW_PAGES * page, PROT_READ | PROT_WRITE) ||
	    mprotect(a->ro, page, PROT_READ) ||
	    mprotect(a->names, FZ_NAME_PAGES * page, PROT_READ | PROT_WRITE))
		return -1;
	return 0;
}

static bool fz_within(uintptr_t addr, size_t len, const __u8 *start,
		      size_t size)
{
	uintptr_t s = (uintptr_t)start;

	return addr >= s && addr - s <= size && len <= size - (addr - s);
}

/* May the kernel read @len bytes at @addr? Zero bytes always. */
bool fz_readable(const struct fz *f, uintptr_t addr, size_t len)
{
	const struct fz_arena *a = &f->arena;

	if (!len)
		return true;
	return fz_within(addr, len, a->rw, FZ_RW_PAGES * a->page) ||
	       fz_within(addr, len, a->ro, a->page) ||
	       fz_within(addr, len, a->names, FZ_NAME_PAGES * a->page);
}

/* May the kernel write @len bytes at @addr? Zero bytes always. */
bool fz_writable(const struct fz *f, uintptr_t addr, size_t len)
{
	const struct fz_arena *a = &f->arena;

	if (!len)
		return true;
	return fz_within(addr, len, a->rw, FZ_RW_PAGES * a->page) ||
	       fz_within(addr, len, a->names, FZ_NAME_PAGES * a->page);
}

/* How many of the @len bytes at @addr can be read, from the first on. */
size_t fz_readable_prefix(const struct fz *f, uintptr_t addr, size_t len)
{
	size_t lo = 0, hi = len, mid;

	while (lo < hi) {
		mid = lo + (hi - lo + 1) / 2;
		if (fz_readable(f, addr, mid))
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* An address nothing is mapped at, or that userspace may not name. */
uintptr_t fz_bad_pointer(struct fz *f)
{
	const struct fz_arena *a = &f->arena;
	uintptr_t good = (uintptr_t)a->rw + rel_below(&f->rng, a->page);

	switch (rel_below(&f->rng, 7)) {
	case 0:
		return 0;
	case 1:
		return 1 + rel_below(&f->rng, 0xffff);
	case 2:	/* the guard after rw */
		return (uintptr_t)a->rw + FZ_RW_PAGES * a->page +
		       rel_below(&f->rng, a->page);
	case 3:	/* the kernel's half */
		return 0xffff000000000000ULL + rel_below(&f->rng, 1 << 30) * 8;
	case 4:	/* not canonical */
		return 0x0010000000000000ULL | good;
	case 5:	/* a tag in the top byte, without the tagged-address ABI */
		return 0x5a00000000000000ULL | good;
	default:
		return UINT64_MAX - rel_below(&f->rng, 4096);
	}
}

/* Copy what of @bytes lands in the read-only page, which needs a detour. */
static void fz_fill_ro(struct fz *f, uintptr_t addr, const void *bytes,
		       size_t len)
{
	struct fz_arena *a = &f->arena;
	size_t off = addr - (uintptr_t)a->ro;
	size_t n = len < a->page - off ? len : a->page - off;

	mprotect(a->ro, a->page, PROT_READ | PROT_WRITE);
	memcpy(a->ro + off, bytes, n);
	mprotect(a->ro, a->page, PROT_READ);
}

/*
 * Put @len bytes somewhere in the region @start of @size bytes, or across
 * its end, or in the read-only page, or nowhere at all; return the address
 * the kernel is given. A canary follows them where there is room.
 */
static uintptr_t fz_place_in(struct fz *f, __u8 *start, size_t size,
			     const void *bytes, size_t len)
{
	struct fz_arena *a = &f->arena;
	unsigned int kind = rel_below(&f->rng, 100);
	uintptr_t addr;
	size_t room;

	if (kind < 88 && len + FZ_CANARY_LEN <= size) {
		room = size - len - FZ_CANARY_LEN;
		addr = (uintptr_t)start + rel_below(&f->rng, room + 1);
		if (rel_chance(&f->rng, 75))
			addr &= ~(uintptr_t)7;
		memcpy((void *)addr, bytes, len);
		memset((void *)(addr + len), FZ_CANARY, FZ_CANARY_LEN);
		return addr;
	}
	if (kind < 93 && len) {
		/* Cut off: the last bytes fall into the guard page. */
		room = len - 1 < size ? len - 1 : size - 1;
		addr = (uintptr_t)start + size - 1 - rel_below(&f->rng, room);
		memcpy((void *)addr, bytes, (uintptr_t)start + size - addr);
		return addr;
	}
	if (kind < 96) {
		addr = (uintptr_t)a->ro + rel_below(&f->rng, a->page);
		if (len <= a->page && rel_chance(&f->rng, 75))
			addr = (uintptr_t)a->ro +
			       rel_below(&f->rng, a->page - len + 1);
		fz_fill_ro(f, addr, bytes, len);
		return addr;
	}
	return fz_bad_pointer(f);
}

/* A structure argument of @len bytes. */
uintptr_t fz_place(struct fz *f, const void *bytes, size_t len)
{
	return fz_place_in(f, f->arena.rw, FZ_RW_PAGES * f->arena.page,
			   bytes, len);
}

/*
 * A string or name buffer of @len bytes in the names region (or across its
 * end, or read-only, or nowhere): @bytes, or canaries when it is NULL.
 */
uintptr_t fz_place_name(struct fz *f, const void *bytes, size_t len)
{
	static __u8 junk[FZ_NAME_PAGES * 4096];

	if (len > sizeof(junk))
		len = sizeof(junk);
	if (!bytes) {
		memset(junk, FZ_CANARY, len);
		bytes = junk;
	}
	return fz_place_in(f, f->arena.names, FZ_NAME_PAGES * f->arena.page,
			   bytes, len);
}

/*
 * Did the kernel leave alone what it had no business writing: bytes
 * @from..@len of the structure at @addr (which held @orig), and the canary
 * after it? Only for structures wholly in the read-write region.
 */
bool fz_intact(const struct fz *f, uintptr_t addr, size_t from, size_t len,
	       const __u8 *orig)
{
	const __u8 *p = (const __u8 *)addr;
	size_t i;

	if (!fz_writable(f, addr, len + FZ_CANARY_LEN))
		return true;
	for (i = from; i < len; i++)
		if (p[i] != orig[i])
			return false;
	for (i = 0; i < FZ_CANARY_LEN; i++)
		if (p[len + i] != FZ_CANARY)
			return false;
	return true;
}

void fz_read_back(const struct fz *f, uintptr_t addr, void *out, size_t len)
{
	if (fz_readable(f, addr, len))
		memcpy(out, (const void *)addr, len);
	else
		memset(out, 0, len);
}

/* A value at an edge: of sizes, page arithmetic, signedness, widths. */
__u64 fz_boundary(struct fz *f)
{
	static const __u64 edges[] = {
		0, 1, 2, 3, 7, 8, 63, 64, 255, 256, 4095, 4096, 4097, 8191,
		0x7fff, 0x8000, 0xffff, 0x10000, 0x1fffff, 0x200000, 0x200001,
		0x7fffffff, 0x80000000, 0xfffff000, 0xfffff001, 0xffffffff,
		/* The largest buffer with 16 and 64 KiB pages, and past it. */
		0xffffc000, 0xffffc001, 0xffff0000, 0xffff0001,
		0x2000000, 0x20000000,
		0x100000000ULL, 0x100000001ULL, 0x40000000, 0x10000000,
		0x4000000, 0x7fffffffffffffffULL, 0x8000000000000000ULL,
		UINT64_MAX - 4095, UINT64_MAX - 4094, UINT64_MAX - 1,
		UINT64_MAX,
	};
	__u64 v;

	switch (rel_below(&f->rng, 4)) {
	case 0:
		return rel_rand(&f->rng);
	case 1:
		v = BIT_ULL(rel_below(&f->rng, 64));
		return v + rel_below(&f->rng, 3) - 1;
	default:
		return edges[rel_below(&f->rng, ARRAY_SIZE(edges))];
	}
}

/*
 * Spoil a structure now and then: a random byte, a field at an edge, a
 * non-zero byte in the unknown tail (beyond @ksize) or in the output
 * fields (from @out_from on).
 */
void fz_mutate(struct fz *f, __u8 *arg, size_t len, size_t ksize,
	       size_t out_from)
{
	unsigned int n, roll = rel_below(&f->rng, 100);
	size_t known = len < ksize ? len : ksize;
	__u64 v;
	size_t off;

	n = roll < 65 ? 0 : roll < 88 ? 1 : 2 + rel_below(&f->rng, 3);
	while (n--) {
		switch (rel_below(&f->rng, 4)) {
		case 0:
			if (len)
				arg[rel_below(&f->rng, len)] = rel_rand(&f->rng);
			break;
		case 1:
			if (known < 8)
				break;
			off = rel_below(&f->rng, known / 4) * 4;
			v = fz_boundary(f);
			memcpy(arg + off, &v, off + 8 <= known ? 8 : 4);
			break;
		case 2:
			if (len > ksize)
				arg[ksize + rel_below(&f->rng, len - ksize)] =
					1 + rel_below(&f->rng, 255);
			break;
		default:
			if (out_from < known)
				arg[out_from + rel_below(&f->rng, known - out_from)] =
					1 + rel_below(&f->rng, 255);
			break;
		}
	}
}

/*
 * A command number for @type and @nr whose direction and size are right
 * most of the time: otherwise a random direction, a size near the real
 * one @ksize, an older or newer structure, or anything 14 bits hold.
 */
unsigned int fz_cmd(struct fz *f, unsigned int type, unsigned int nr,
		    unsigned int ksize, unsigned int *dir, unsigned int *size)
{
	static const unsigned int near[] = {
		0, 1, 4, 8, 12, 16, 24, 28, 32, 35, 36, 40,
	};
	unsigned int roll = rel_below(&f->rng, 100);

	*dir = rel_chance(&f->rng, 85) ? _IOC_READ | _IOC_WRITE :
					 rel_below(&f->rng, 4);
	if (roll < 70)
		*size = ksize;
	else if (roll < 78)
		*size = ksize + rel_below(&f->rng, 9) - 4;
	else if (roll < 84)
		*size = near[rel_below(&f->rng, ARRAY_SIZE(near))];
	else if (roll < 94)
		*size = ksize + 8 * (1 + rel_below(&f->rng, 16));
	else
		*size = rel_chance(&f->rng, 50) ? rel_below(&f->rng, 512) :
						  rel_below(&f->rng, 1 << 14);
	if (*size >= 1 << 14)
		*size = ksize;
	return _IOC(*dir, type, nr, *size);
}
