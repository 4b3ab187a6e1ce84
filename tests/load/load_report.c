// SPDX-License-Identifier: GPL-2.0
/*
 * What the load did and where the machine's pages are, as one JSON
 * record (for the benchmark's results) or as text (for a person). Sizes
 * are bytes in JSON, MiB in text.
 */
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "load.h"

static void json_bytes(struct json *j, const char *key, __u64 pages,
		       const struct load_sys *s)
{
	json_u64(j, key, pages * s->page_size);
}

static void json_meminfo(struct json *j, const struct load_sys *s)
{
	json_object(j, "meminfo");
	json_u64(j, "mem_total", s->mem_total);
	json_u64(j, "mem_free", s->mem_free);
	json_u64(j, "cma_total", s->cma_total);
	json_u64(j, "cma_free", s->cma_free);
	json_u64(j, "anon", s->anon);
	json_u64(j, "anon_huge", s->anon_huge);
	json_u64(j, "shmem", s->shmem);
	json_close(j);
}

static void json_zones(struct json *j, const struct load_sys *s,
		       const __u64 *ours)
{
	const struct load_zone *z;
	int i;

	json_array(j, "zones");
	for (i = 0; i < s->nzones; i++) {
		z = &s->zones[i];
		if (!z->spanned)
			continue;
		json_object(j, NULL);
		json_str(j, "name", z->name);
		json_u64(j, "start_pfn", z->start_pfn);
		json_bytes(j, "managed", z->managed, s);
		json_bytes(j, "cma", z->cma, s);
		json_bytes(j, "free", z->free, s);
		json_bytes(j, "free_cma", z->free_cma, s);
		json_bytes(j, "high", z->high, s);
		if (ours)
			json_bytes(j, "ours_outside_cma", ours[i], s);
		json_close(j);
	}
	json_close(j);
}

static void json_areas(struct json *j, struct load_sys *s, const __u64 *ours)
{
	struct load_area *a;
	int i;

	json_array(j, "areas");
	for (i = 0; i < s->nareas; i++) {
		a = &s->areas[i];
		json_object(j, NULL);
		json_str(j, "name", a->name);
		json_str(j, "zone", a->zone >= 0 ? s->zones[a->zone].name : "?");
		json_u64(j, "base_pfn", a->base_pfn);
		json_bytes(j, "bytes", a->count, s);
		if (!sys_scan_area(s, i)) {
			json_bytes(j, "free", a->use.free, s);
			json_bytes(j, "cma", a->use.cma, s);
			json_bytes(j, "anon", a->use.anon, s);
			json_bytes(j, "thp", a->use.thp, s);
			json_bytes(j, "shmem", a->use.shmem, s);
			json_bytes(j, "file", a->use.file, s);
			json_bytes(j, "other", a->use.other, s);
		}
		if (ours)
			json_bytes(j, "ours", ours[i], s);
		json_close(j);
	}
	json_close(j);
}

static void json_fill(struct json *j, const struct load_fill *f)
{
	json_object(j, "fill");
	json_bool(j, "met", f->met);
	if (f->why)
		json_str(j, "why", f->why);
	else
		json_null(j, "why");
	json_u64(j, "touched", f->touched);
	json_u64(j, "released", f->released);
	json_u64(j, "ns", f->ns);
	json_u64(j, "ns_moved", f->ns_moved);
	json_u64(j, "ns_touch", f->ns_touch);
	json_u64(j, "ns_room", f->ns_room);
	json_u64(j, "area_free", f->area_free);
	json_u64(j, "outside_free", f->outside_free);
	json_close(j);
}

static void json_target(struct json *j, const struct load_target *t,
			const struct load_sys *s, enum load_kind kind)
{
	json_object(j, "target");
	json_str(j, "kind", mem_kind_name(kind));
	if (t->area >= 0) {
		json_str(j, "area", s->areas[t->area].name);
		json_bytes(j, "area_bytes", s->areas[t->area].count, s);
	} else {
		json_null(j, "area");
		json_null(j, "area_bytes");
	}
	json_u64(j, "free_below", t->free_below);
	json_u64(j, "room", t->room);
	json_u64(j, "floor", t->floor);
	json_u64(j, "size", t->size);
	json_close(j);
}

static void json_daemon(struct json *j, const struct load_daemon *d)
{
	const struct load_longterm *lt = &d->longterm;
	const struct load_splice *sp = &d->splice;

	json_object(j, "churn");
	json_u64(j, "rate", d->churn_rate);
	json_u64(j, "bytes", d->churned);
	json_u64(j, "in_area", d->churned_in_area);
	json_close(j);
	json_object(j, "splice");
	json_u64(j, "pages", sp->pages);
	json_u64(j, "hold_ms", sp->hold_ms);
	json_u64(j, "gap_ms", sp->gap_ms);
	json_u64(j, "cycles", sp->cycles);
	json_u64(j, "pinned", sp->pinned);
	json_close(j);
	json_object(j, "longterm");
	json_u64(j, "bytes", lt->bytes);
	if (lt->err)
		json_str(j, "error", strerror(-lt->err));
	else
		json_null(j, "error");
	json_bytes(j, "in_cma_before", lt->in_cma_before, &d->sys);
	json_bytes(j, "in_cma_after", lt->in_cma_after, &d->sys);
	json_u64(j, "cma_free_before", lt->cma_free_before);
	json_u64(j, "cma_free_after", lt->cma_free_after);
	json_close(j);
}

/* Our pages per area and per zone, from fresh frames. */
static void ours(const struct load_record *rec, __u64 *area, __u64 *zone)
{
	__u64 elsewhere;

	mem_refresh(rec->mem, 0, rec->mem->top);
	mem_placement(rec->mem, rec->sys, area, zone, &elsewhere);
}

/*
 * The record: what the load did, the machine's totals and zones, and
 * unless @rec->light, where every page is (each area's, from kpageflags)
 * and where ours are (from pagemap); those scans take seconds under TCG.
 */
void report_json(FILE *fp, const struct load_record *rec)
{
	__u64 area[LOAD_MAX_AREAS], zone[LOAD_MAX_ZONES];
	bool ours_too = rec->mem && !rec->light;
	struct json j;

	if (ours_too)
		ours(rec, area, zone);
	json_begin(&j, fp);
	json_str(&j, "record", "load");
	json_str(&j, "event", rec->event);
	json_u64(&j, "pid", getpid());
	if (rec->bench_path) {
		json_str(&j, "bench_path", rec->bench_path);
		json_str(&j, "bench_iteration", rec->bench_iteration);
	}
	if (rec->mem) {
		json_target(&j, rec->target, rec->sys, rec->mem->kind);
		json_u64(&j, "held", mem_held(rec->mem));
	}
	if (rec->fill)
		json_fill(&j, rec->fill);
	json_meminfo(&j, rec->sys);
	json_zones(&j, rec->sys, ours_too ? zone : NULL);
	if (!rec->light)
		json_areas(&j, rec->sys, ours_too ? area : NULL);
	if (rec->daemon)
		json_daemon(&j, rec->daemon);
	json_end(&j);
}

static double mib(__u64 pages, const struct load_sys *s)
{
	return (double)(pages * s->page_size) / LOAD_MIB;
}

void report_text(FILE *fp, const struct load_record *rec)
{
	struct load_sys *s = rec->sys;
	const struct load_zone *z;
	struct load_area *a;
	int i;

	fprintf(fp,
		"MemFree %.0f MiB, CmaFree %.0f of %.0f MiB, anonymous %.0f MiB (THP %.0f), shmem %.0f MiB\n",
		(double)s->mem_free / LOAD_MIB, (double)s->cma_free / LOAD_MIB,
		(double)s->cma_total / LOAD_MIB, (double)s->anon / LOAD_MIB,
		(double)s->anon_huge / LOAD_MIB, (double)s->shmem / LOAD_MIB);
	for (i = 0; i < s->nzones; i++) {
		z = &s->zones[i];
		if (z->spanned)
			fprintf(fp,
				"zone %-8s free %7.1f MiB (in CMA %7.1f), CMA %6.0f of %6.0f MiB\n",
				z->name, mib(z->free, s), mib(z->free_cma, s),
				mib(z->cma, s), mib(z->managed, s));
	}
	for (i = 0; i < s->nareas; i++) {
		a = &s->areas[i];
		if (sys_scan_area(s, i))
			continue;
		fprintf(fp, "area %-22s %5.0f MiB in %-6s free %7.1f, CMA-allocated %7.1f,\n",
			a->name, mib(a->count, s),
			a->zone >= 0 ? s->zones[a->zone].name : "?",
			mib(a->use.free, s), mib(a->use.cma, s));
		fprintf(fp, "     anon %7.1f, THP %7.1f, shmem %7.1f, file %5.1f, other %.1f MiB\n",
			mib(a->use.anon, s), mib(a->use.thp, s), mib(a->use.shmem, s),
			mib(a->use.file, s), mib(a->use.other, s));
	}
}
