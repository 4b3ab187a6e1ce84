// SPDX-License-Identifier: GPL-2.0
/*
 * Samples of a benchmark run, and their report as a table or one JSON
 * document.
 */
#include <stdio.h>
#include <stdlib.h>

#include "testbench.h"
#include "fmt.h"
#include "json.h"
#include "parse.h"

static const char * const phase_names[PHASE_COUNT] = {
	[PHASE_ALLOC] = "alloc",
	[PHASE_CLEARED] = "alloc+clear",
	[PHASE_FREE] = "free",
	[PHASE_MMAP] = "mmap",
	[PHASE_SYNC] = "sync",
	[PHASE_TOUCH] = "touch",
	[PHASE_MUNMAP] = "munmap",
	[PHASE_CLOSE] = "close",
	[PHASE_CYCLE] = "cycle",
	[PHASE_ZERO_ONE] = "zero-1cpu",
	[PHASE_ZERO_ALL] = "zero-all",
	[PHASE_REF] = "ref",
};

const char *bench_phase_name(enum bench_phase phase)
{
	return phase < PHASE_COUNT ? phase_names[phase] : "unknown";
}

/* One sample: the whole phase of iteration @iter. */
void bench_record(struct bench_path *p, enum bench_phase phase,
		  unsigned int iter, __u64 ns)
{
	p->samples[phase][iter] = ns;
}

/* Per-block statistics of iteration @iter of a blocks workload. */
void bench_record_blocks(struct bench_path *p, enum bench_phase phase,
			 unsigned int iter, const struct stats *st)
{
	p->blocks[phase][iter] = *st;
}

/*
 * Per-block statistics over all iterations: exact count, minimum, maximum
 * and mean; the median is the median of the iterations' medians.
 */
static int blocks_merge(const struct bench_path *p, enum bench_phase phase,
			struct stats *out)
{
	const struct stats *b = p->blocks[phase];
	__u64 *medians;
	unsigned int i;
	int ret;

	medians = calloc(p->done, sizeof(*medians));
	if (!medians)
		return -1;
	for (i = 0; i < p->done; i++)
		medians[i] = b[i].median;
	ret = stats_compute(medians, p->done, out);
	free(medians);
	if (ret)
		return ret;
	out->n = 0;
	out->total = 0;
	out->min = b[0].min;
	out->max = b[0].max;
	for (i = 0; i < p->done; i++) {
		out->n += b[i].n;
		out->total += b[i].total;
		if (b[i].min < out->min)
			out->min = b[i].min;
		if (b[i].max > out->max)
			out->max = b[i].max;
	}
	out->mean = out->n ? out->total / out->n : 0;
	return 0;
}

const char *bench_path_strategy(const struct bench_path *p)
{
	if (p->ops == &bench_cpu_ref_ops)
		return "none";
	return p->ops == &bench_cmabuf_kernel_ops || p->ops == &bench_cmabuf_e2e_ops ||
	       p->ops == &bench_cmabuf_limit_ops ?
		strategy_name(p->strategy) : "cma_alloc";
}

static void print_header(const struct bench_ctx *c, struct bench_path *paths, int n)
{
	char sz[FMT_LEN];
	int i;

	printf("%s: %u x %s per iteration, %u iterations, %s (area %s), kernel %s\n",
	       c->wl->name, c->wl->blocks, fmt_size(c->wl->size, sz, sizeof(sz)),
	       c->iterations, c->dev_path, c->dev.area, c->uts.release);
	for (i = 0; i < n; i++) {
		if (paths[i].target[0])
			printf("%s: %s\n", paths[i].name, paths[i].target);
	}
}

static void print_row(const char *path, const char *phase, const struct stats *st)
{
	char med[FMT_LEN], min[FMT_LEN], max[FMT_LEN], mean[FMT_LEN];

	printf("%-24s %-11s %5llu %13s %13s %13s %13s %6.1f%%\n", path, phase, st->n,
	       fmt_ns(st->median, med, sizeof(med)), fmt_ns(st->min, min, sizeof(min)),
	       fmt_ns(st->max, max, sizeof(max)), fmt_ns(st->mean, mean, sizeof(mean)),
	       stats_spread_pct(st));
}

static void print_blocks(const struct bench_ctx *c, struct bench_path *paths, int n)
{
	char tot[FMT_LEN], avg[FMT_LEN], min[FMT_LEN], med[FMT_LEN], max[FMT_LEN];
	char sz[FMT_LEN];
	struct stats it, bl;
	int i, ph;

	printf("\nper block: %u blocks of %s per iteration; total is the median over iterations,\n"
	       "median per block the median of the iterations' medians\n",
	       c->wl->blocks, fmt_size(c->wl->size, sz, sizeof(sz)));
	printf("%-24s %-11s %6s %13s %13s %13s %13s %13s\n", "path", "phase", "blocks",
	       "total", "avg/block", "min", "median", "max");
	for (i = 0; i < n; i++) {
		for (ph = 0; ph < PHASE_COUNT; ph++) {
			if (!paths[i].done || !paths[i].blocks[ph] ||
			    stats_compute(paths[i].samples[ph], paths[i].done, &it) ||
			    blocks_merge(&paths[i], ph, &bl))
				continue;
			printf("%-24s %-11s %6u %13s %13s %13s %13s %13s\n", paths[i].name,
			       bench_phase_name(ph), c->wl->blocks,
			       fmt_ns(it.median, tot, sizeof(tot)),
			       fmt_ns(bl.mean, avg, sizeof(avg)),
			       fmt_ns(bl.min, min, sizeof(min)),
			       fmt_ns(bl.median, med, sizeof(med)),
			       fmt_ns(bl.max, max, sizeof(max)));
		}
	}
}

/*
 * Under an in-kernel table: what "alloc" holds on this kernel, which is
 * not the same work for every strategy, and that "alloc+clear" is.
 */
static void print_cleared(const struct bench_ctx *c, const struct bench_path *paths,
			  int n)
{
	__u32 flags = c->dev.info.flags;
	const char *what;
	int i;

	for (i = 0; i < n && !(paths[i].done && paths[i].phases & BIT(PHASE_CLEARED)); i++)
		;
	if (i == n)
		return;
	if (!(flags & CMABUF_INFO_ALLOCATOR_ZEROES))
		what = "nothing clears the pages in it (init_on_alloc is off)";
	else if (flags & CMABUF_INFO_CLEARS_FROZEN)
		what = "the page allocator clears LEGACY's pages in it (init_on_alloc),\n"
		       "not COMPOUND's or FROZEN's";
	else
		what = "the page allocator clears the pages in it (init_on_alloc)";
	printf("alloc: the allocator's call; %s.\n"
	       "alloc+clear: with the clearing ALLOC adds to it, the same work on every\n"
	       "path: compare paths on it.\n", what);
}

void bench_print_text(const struct bench_ctx *c, struct bench_path *paths, int n)
{
	struct stats st;
	int i, ph;

	print_header(c, paths, n);
	printf("%-24s %-11s %5s %13s %13s %13s %13s %7s\n", "path", "phase", "n",
	       "median", "min", "max", "mean", "spread");
	for (i = 0; i < n; i++) {
		for (ph = 0; ph < PHASE_COUNT; ph++) {
			if (!paths[i].done || !(paths[i].phases & BIT(ph)) ||
			    stats_compute(paths[i].samples[ph], paths[i].done, &st))
				continue;
			print_row(paths[i].name, bench_phase_name(ph), &st);
		}
	}
	if (c->wl->blocks > 1)
		print_blocks(c, paths, n);
	print_cleared(c, paths, n);
	bench_print_prepared(paths, n);
}

static void json_blocks(struct json *j, const struct bench_path *p,
			enum bench_phase phase)
{
	struct stats bl;

	if (!p->blocks[phase] || blocks_merge(p, phase, &bl))
		return;
	json_u64(j, "block_n", bl.n);
	json_u64(j, "block_median_ns", bl.median);
	json_u64(j, "block_min_ns", bl.min);
	json_u64(j, "block_max_ns", bl.max);
	json_u64(j, "block_mean_ns", bl.mean);
}

/*
 * One document, like every command's --json: the run's settings once, then
 * "results", opened for bench_json_result().
 */
void bench_json_begin(struct json *j, const struct bench_ctx *c)
{
	json_begin(j, stdout);
	json_str(j, "kernel", c->uts.release);
	json_str(j, "workload", c->wl->name);
	json_u64(j, "size_bytes", c->wl->size);
	json_u64(j, "blocks", c->wl->blocks);
	json_u64(j, "iterations", c->iterations);
	json_str(j, "device", c->dev_path);
	json_str(j, "area", c->dev.area);
	json_u64(j, "cpus", c->cpus);
	json_bool(j, "allocator_zeroes",
		  c->dev.info.flags & CMABUF_INFO_ALLOCATOR_ZEROES);
	json_bool(j, "clears_frozen",
		  c->dev.info.flags & CMABUF_INFO_CLEARS_FROZEN);
	json_array(j, "results");
}

/*
 * One result of "results": what it is; the caller adds its figures, closes.
 * A prepared path's say so, and how many of its allocations took a ready
 * buffer (null where the driver does not count them).
 */
void bench_json_result(struct json *j, const struct bench_path *p,
		       const char *phase)
{
	json_object(j, NULL);
	json_str(j, "path", p->name);
	json_str(j, "phase", phase);
	json_str(j, "strategy", bench_path_strategy(p));
	if (p->target[0])
		json_str(j, "target", p->target);
	else
		json_null(j, "target");
	json_bool(j, "prepared", p->prepared);
	if (!p->prepared)
		return;
	if (p->hits_unknown)
		json_null(j, "prepare_hits");
	else
		json_u64(j, "prepare_hits", p->prepare_hits);
}

/* Under a table: what a prepared path's rows are not (cold ALLOCs). */
void bench_print_prepared(const struct bench_path *paths, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (!paths[i].prepared || (!paths[i].done && !paths[i].rec.n))
			continue;
		printf("%s: prepared ahead of every sample, untimed (not ALLOC's cold time): ",
		       paths[i].name);
		if (paths[i].hits_unknown)
			printf("allocations that took a ready buffer not counted\n");
		else
			printf("%llu allocations took a ready buffer\n",
			       paths[i].prepare_hits);
	}
}

void bench_print_json(const struct bench_ctx *c, struct bench_path *paths, int n)
{
	struct stats st;
	struct json j;
	int i, ph;

	bench_json_begin(&j, c);
	for (i = 0; i < n; i++) {
		for (ph = 0; ph < PHASE_COUNT; ph++) {
			if (!paths[i].done || !(paths[i].phases & BIT(ph)) ||
			    stats_compute(paths[i].samples[ph], paths[i].done, &st))
				continue;
			bench_json_result(&j, &paths[i], bench_phase_name(ph));
			json_u64(&j, "median_ns", st.median);
			json_u64(&j, "min_ns", st.min);
			json_u64(&j, "max_ns", st.max);
			json_u64(&j, "mean_ns", st.mean);
			json_u64(&j, "n", st.n);
			json_blocks(&j, &paths[i], ph);
			json_close(&j);
		}
	}
	json_end(&j);
	fflush(stdout);
}
