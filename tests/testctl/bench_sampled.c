// SPDX-License-Identifier: GPL-2.0
/*
 * Held sets (load-64m, load-1g, load-blocks-2m, camera): one sample
 * allocates the workload's buffers one after another from userspace, as a
 * program starting a stream would, then closes them all. Nothing is
 * mapped: the allocation is what a caller waits for, and under memory
 * load it is what migration makes slow.
 *
 * Iteration i runs every path once, path k going (k + i) % n-th, so that
 * paths take turns going first: the first allocation after the memory was
 * filled pays the migration, a later one may find a range an earlier
 * path emptied. --prepare (refill the area) and --conclude run around
 * every sample, and the kernel's counters are read around it. A
 * "-prepared" path has each sample's set made ready after --prepare and
 * given back after the closes, both untimed (bench_prepared.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testbench.h"
#include "clock.h"
#include "fmt.h"
#include "msg.h"

/*
 * Allocate the set, then close it; the sample whatever the outcome. A
 * prepared path has the set made ready first and gives it back after,
 * both untimed; a PREPARE that fails is the sample's failure.
 */
static int sample_set(struct bench_path *p, struct bench_ctx *c, int index,
		      unsigned int turn, void *arg)
{
	int *fds = arg;
	struct bench_samples *r = &p->rec;
	__u32 blocks = c->wl->blocks, got = 0, b;
	__u64 start, t, ns, freed;
	struct bench_counters before, after;
	unsigned int i = r->n;
	int err, prep = 0, ret = 0;

	if (p->prepared)
		prep = bench_prepared_fill(p, c, blocks);
	err = prep;
	bench_counters_read(c, &before);
	start = clock_ns();
	for (b = 0; b < blocks && !err; b++) {
		t = clock_ns();
		err = p->ops->alloc(p, c, c->wl->size, &fds[b]);
		if (!err && blocks > 1)
			r->block_ns[(size_t)i * blocks + b] = clock_ns() - t;
		got += !err;
	}
	ns = clock_ns() - start;
	t = clock_ns();
	for (b = 0; b < got; b++)
		close(fds[b]);
	freed = clock_ns() - t;
	bench_counters_read(c, &after);
	if (p->prepared && !prep)
		ret = bench_prepared_empty(p, c, blocks);
	i = bench_samples_add(r, start, ns, err, turn);
	r->free_ns[i] = freed;
	r->prep_err[i] = prep;
	bench_samples_delta(r, i, &before, &after);
	/* A want left standing would serve the next path's samples. */
	if (ret)
		msg_err("%s: CMABUF_IOC_PREPARE giving %u buffers back on %s: %s; stopping",
			p->name, blocks, c->dev_path, strerror(-ret));
	return ret;
}

/* One path's results in the run's document @j. */
static void print_json(struct json *j, const struct bench_path *p)
{
	const struct bench_samples *r = &p->rec;
	__u64 *blocks;
	unsigned int i, n = 0;
	int *none;

	bench_json_result(j, p, "alloc");
	bench_json_latency(j, r->ns, r->err, r->n);
	bench_json_counters(j, r);
	if (p->prepared)
		bench_json_prepare_errors(j, r);
	json_close(j);
	bench_json_result(j, p, "free");
	bench_json_latency(j, r->free_ns, r->err, r->n);
	json_close(j);
	if (r->blocks <= 1)
		return;
	/* Every buffer of every sample that got one: the per-block tail. */
	blocks = calloc((size_t)r->n * r->blocks, sizeof(*blocks));
	none = calloc((size_t)r->n * r->blocks, sizeof(*none));
	for (i = 0; blocks && none && i < r->n * r->blocks; i++) {
		if (r->block_ns[i])
			blocks[n++] = r->block_ns[i];
	}
	bench_json_result(j, p, "alloc-block");
	if (blocks && none)
		bench_json_latency(j, blocks, none, n);
	json_close(j);
	free(blocks);
	free(none);
}

static void print_text(const struct bench_ctx *c, const struct bench_path *p)
{
	const struct bench_samples *r = &p->rec;
	char p50[FMT_LEN], p99[FMT_LEN], max[FMT_LEN], mv[FMT_LEN];
	struct stats_tail t = { };
	struct stats st = { };
	__u64 *good, moved = 0;
	unsigned int i, ok = 0;

	good = calloc(r->n ? r->n : 1, sizeof(*good));
	for (i = 0; good && i < r->n; i++) {
		if (!r->err[i])
			good[ok++] = r->ns[i];
		moved += r->delta[i][BENCH_PGMIGRATE_SUCCESS];
	}
	if (ok && !stats_compute(good, ok, &st))
		stats_tail(good, ok, &t);
	free(good);
	printf("%-24s %3u/%-3u %13s %13s %13s %10s\n", p->name, ok, r->n,
	       fmt_ns(st.median, p50, sizeof(p50)), fmt_ns(t.p99, p99, sizeof(p99)),
	       fmt_ns(st.max, max, sizeof(max)),
	       r->present & BIT(BENCH_PGMIGRATE_SUCCESS) && r->n ?
	       fmt_size(moved / r->n * c->page_size, mv, sizeof(mv)) : "-");
}

int bench_sampled_loop(struct bench_ctx *c, struct bench_path *paths, int n)
{
	unsigned int measured = 0;
	int i, *fds, ret = 0;
	struct json j;

	fds = calloc(c->wl->blocks, sizeof(*fds));
	if (!fds)
		return 1;
	for (i = 0; i < n && !ret; i++)
		ret = bench_samples_init(&paths[i].rec, c->iterations, c->wl->blocks);
	if (!ret)
		ret = bench_turns(c, paths, n, sample_set, fds);
	if (c->json)
		bench_json_begin(&j, c);
	else
		printf("%s: %u x %llu bytes from %s (area %s), kernel %s\n"
		       "%-24s %7s %13s %13s %13s %10s\n", c->wl->name, c->wl->blocks,
		       c->wl->size, c->dev_path, c->dev.area, c->uts.release,
		       "path", "ok/n", "p50", "p99", "max", "moved/smp");
	for (i = 0; i < n; i++) {
		if (!paths[i].rec.n)
			continue;
		measured++;
		bench_samples_warn(&paths[i], &paths[i].rec);
		if (c->json)
			print_json(&j, &paths[i]);
		else
			print_text(c, &paths[i]);
	}
	if (c->json)
		json_end(&j);
	else
		bench_print_prepared(paths, n);
	fflush(stdout);
	for (i = 0; i < n; i++)
		bench_samples_free(&paths[i].rec);
	free(fds);
	return ret || !measured;
}
