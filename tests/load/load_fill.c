// SPDX-License-Identifier: GPL-2.0
/*
 * Filling an area: give back our pages that an allocation migrated out of
 * it since the last fill, touch new pages until the area has fewer free
 * bytes than asked, then give back pages of ours that lie outside CMA
 * until the area's movable pages fit into free memory elsewhere (there is
 * no swap). What the fill holds outside the area so stays the same from
 * one refill to the next.
 *
 * Where a new page goes is the page allocator's choice. A movable page
 * prefers the highest zone (in the test bed ZONE_NORMAL is the whole
 * large-pool area), and within a zone it comes from CMA when more than
 * half of the zone's free memory is CMA, or when the zone's movable
 * pageblocks have nothing left. Filling an area that shares its zone with
 * ordinary memory therefore first fills that memory; what the fill holds
 * there is then given back, to be the room the area's pages move to.
 */
#include <errno.h>
#include <string.h>

#include "load.h"

#define FILL_STEP_MIN	(2 * LOAD_MIB)
#define FILL_STEP_MAX	(256 * LOAD_MIB)
#define FILL_STALLS	6
#define ROOM_ROUNDS	16

/* Bytes free outside CMA: what the kernel's own allocations can use. */
static __u64 noncma_free(const struct load_sys *s)
{
	return s->mem_free > s->cma_free ? s->mem_free - s->cma_free : 0;
}

/*
 * The free memory outside CMA never to go below: the high watermarks of
 * the zones that have such memory (below them the kernel reclaims, and
 * with no swap and nothing to reclaim it kills), and @t->floor on top.
 */
static __u64 floor_of(const struct load_sys *s, const struct load_target *t)
{
	__u64 pages = 0;
	int i;

	for (i = 0; i < s->nzones; i++) {
		if (s->zones[i].managed > s->zones[i].cma)
			pages += s->zones[i].high;
	}
	return t->floor + pages * s->page_size;
}

static __u64 clamp_u64(__u64 v, __u64 lo, __u64 hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/*
 * How many bytes to touch next, 0 to stop (with @r->why). Below the floor
 * of free memory outside CMA, small steps, and only while most of the
 * last one went to CMA (the zone's movable pageblocks are used up, so
 * CMA is where new movable pages go); never below the watermarks and half
 * of @t->floor.
 */
static __u64 fill_step(const struct load_sys *s, const struct load_target *t,
		       __u64 want, __u64 noncma_drop, struct load_fill *r)
{
	__u64 free = noncma_free(s), floor = floor_of(s, t), step;

	step = clamp_u64(want, FILL_STEP_MIN, FILL_STEP_MAX);
	if (free > floor + step)
		return step;
	if (free < floor - t->floor / 2 ||
	    (free < floor && noncma_drop > FILL_STEP_MIN / 2)) {
		r->why = "free memory outside CMA is at the floor";
		return 0;
	}
	return FILL_STEP_MIN;
}

/*
 * Is the area's zone down to its watermarks? Then the allocator puts no
 * more pages there, whatever the area still has free.
 */
static bool zone_full(const struct load_sys *s, int area)
{
	int zone = s->areas[area].zone;

	return zone >= 0 && s->zones[zone].free < 2 * s->zones[zone].high;
}

/* Touch until the area has fewer than @t->free_below bytes free. */
static int fill_area(struct load_mem *m, struct load_sys *s,
		     const struct load_target *t, struct load_fill *r)
{
	__u64 ps = s->page_size, unit = m->unit * ps, last = 0, free, step;
	__u64 noncma = 0, drop = 0;
	int stalls = 0, ret;
	size_t got;

	for (;;) {
		ret = sys_read(s);
		if (!ret)
			ret = sys_area_free(s, t->area, &free);
		if (ret)
			return ret;
		free *= ps;
		if (noncma)
			drop = noncma > noncma_free(s) ? noncma - noncma_free(s) : 0;
		noncma = noncma_free(s);
		r->area_free = free;
		if (free < t->free_below)
			return 0;
		stalls = zone_full(s, t->area) && last &&
			 last - (last > free ? free : last) < FILL_STEP_MIN / 4 ?
			 stalls + 1 : 0;
		if (stalls >= FILL_STALLS) {
			r->why = "the area's zone is at its watermarks";
			return 0;
		}
		last = free;
		step = fill_step(s, t, free - t->free_below, drop, r);
		if (!step)
			return 0;
		got = mem_touch(m, s, t->area, NULL, (step + unit - 1) / unit);
		if (!got) {
			r->why = "the reservation is all touched";
			return 0;
		}
		r->touched += got * unit;
	}
}

/* Touch until we hold @t->size bytes, minding the floor. */
static int fill_size(struct load_mem *m, struct load_sys *s,
		     const struct load_target *t, struct load_fill *r)
{
	__u64 unit = m->unit * s->page_size, held, step;
	__u64 noncma = 0, drop = 0;
	size_t got;
	int ret;

	while ((held = mem_held(m)) < t->size) {
		ret = sys_read(s);
		if (ret)
			return ret;
		if (noncma)
			drop = noncma > noncma_free(s) ? noncma - noncma_free(s) : 0;
		noncma = noncma_free(s);
		step = fill_step(s, t, t->size - held, drop, r);
		if (!step)
			return 0;
		got = mem_touch(m, s, -1, NULL, (step + unit - 1) / unit);
		if (!got) {
			r->why = "the reservation is all touched";
			return 0;
		}
		r->touched += got * unit;
	}
	return 0;
}

/*
 * Give back pages outside CMA (then, if that is not enough, in other
 * areas) until @t->room bytes are free outside the area.
 */
static int make_room(struct load_mem *m, struct load_sys *s,
		     const struct load_target *t, struct load_fill *r)
{
	__u64 unit = m->unit * s->page_size, free, outside;
	enum mem_where where = MEM_NOT_CMA;
	size_t want, got;
	int round, ret;

	for (round = 0; round < ROOM_ROUNDS; round++) {
		ret = sys_read(s);
		if (!ret)
			ret = sys_area_free(s, t->area, &free);
		if (ret)
			return ret;
		free *= s->page_size;
		outside = s->mem_free > free ? s->mem_free - free : 0;
		r->area_free = free;
		r->outside_free = outside;
		if (outside >= t->room)
			return 0;
		want = (t->room - outside + unit - 1) / unit;
		got = mem_release(m, s, t->area, where, want);
		r->released += got * unit;
		if (got < want && where == MEM_NOT_CMA)
			where = MEM_NOT_AREA;
		else if (!got)
			break;
	}
	r->why = "too little room outside the area: no page of ours left to give back";
	return 0;
}

/*
 * Fill as @t says. Return: 0 with @r telling whether the target was met
 * (and if not, why), or -errno when the machine could not be read.
 */
int load_fill(struct load_mem *m, struct load_sys *s,
	      const struct load_target *t, struct load_fill *r)
{
	__u64 start = now_ns();
	const char *why;
	int ret;

	memset(r, 0, sizeof(*r));
	if (t->size) {
		ret = fill_size(m, s, t, r);
		r->met = !ret && !r->why;
		r->ns = now_ns() - start;
		return ret;
	}
	/* What an allocation moved out goes back first: it is not the load. */
	ret = sys_read(s);
	if (!ret)
		r->released = mem_release(m, s, t->area, MEM_MOVED_OUT, m->top) *
			      m->unit * s->page_size;
	r->ns_moved = now_ns() - start;
	/* Room even when the area did not fill: what is there must move. */
	if (!ret)
		ret = fill_area(m, s, t, r);
	r->ns_touch = now_ns() - start - r->ns_moved;
	why = r->why;
	r->why = NULL;
	if (!ret)
		ret = make_room(m, s, t, r);
	r->ns_room = now_ns() - start - r->ns_moved - r->ns_touch;
	if (why)
		r->why = why;
	r->met = !ret && !r->why;
	r->ns = now_ns() - start;
	return ret;
}
