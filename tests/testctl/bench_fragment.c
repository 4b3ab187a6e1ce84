// SPDX-License-Identifier: GPL-2.0
/*
 * fragment: a long random mix of buffers of 1 to 64 MiB, allocated and
 * freed, the area kept about three quarters full. Every path gets the same
 * sequence (--seed). Every few steps a probe finds the largest buffer that
 * can be allocated now (a binary search of real allocations, freed at
 * once), beside the area's free bytes and its largest free range
 * (debugfs): how far fragmentation, and the movable pages in the way,
 * keep an area's free bytes from being one buffer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "testbench.h"
#include "clock.h"
#include "fmt.h"
#include "msg.h"

#define FRAG_MIB		(1024ULL * 1024)
#define FRAG_MAX_MIB		64
#define FRAG_PROBE_EVERY	25
#define FRAG_FILL_PCT		75
#define FRAG_ALLOC_PCT		60

struct frag_buf {
	int fd;
	__u64 size;
};

/* The probes of one run, one entry each. */
struct frag_series {
	unsigned int n, max;
	__u64 *step, *held, *free, *maxchunk, *largest;
};

static __u32 frag_rand(__u32 *state)
{
	__u32 x = *state ? *state : 1;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

/* Free bytes of the area and its largest free range (0: not known). */
static void frag_area(const struct bench_ctx *c, __u64 *free, __u64 *maxchunk)
{
	struct dev_info di;
	__u64 pages;

	*free = 0;
	*maxchunk = 0;
	if (!dev_info(c->dev_fd, &di) && (di.info.flags & CMABUF_INFO_AREA_STATS))
		*free = di.info.free_bytes;
	if (!dev_area_read(c->dev.area, "maxchunk", &pages))
		*maxchunk = pages * c->page_size;
}

/* The largest whole MiB that allocates now, up to @max bytes. */
static __u64 frag_largest(struct bench_path *p, struct bench_ctx *c, __u64 max)
{
	__u64 lo = 0, hi = max / FRAG_MIB, mid;
	int fd;

	while (lo < hi) {
		mid = (lo + hi + 1) / 2;
		/* Not what a probe freed a moment ago, still releasing. */
		if (bench_wait_released(c))
			break;
		if (!p->ops->alloc(p, c, mid * FRAG_MIB, &fd)) {
			close(fd);
			lo = mid;
		} else {
			hi = mid - 1;
		}
	}
	return lo * FRAG_MIB;
}

static void frag_probe(struct bench_path *p, struct bench_ctx *c,
		       struct frag_series *s, unsigned int step, __u64 held)
{
	__u64 free, maxchunk;
	unsigned int i = s->n;

	if (i == s->max)
		return;
	/* The steps' frees count as free once they are back in CMA. */
	bench_wait_released(c);
	frag_area(c, &free, &maxchunk);
	s->step[i] = step;
	s->held[i] = held;
	s->free[i] = free;
	s->maxchunk[i] = maxchunk;
	s->largest[i] = frag_largest(p, c, free ? free : c->dev.info.total_bytes);
	s->n++;
}

/* One step: allocate a random size, or free a random buffer we hold. */
static void frag_step(struct bench_path *p, struct bench_ctx *c, __u32 *rng,
		      struct frag_buf *bufs, unsigned int *nbufs, __u64 *held,
		      unsigned int turn)
{
	__u64 area = c->dev.info.total_bytes, size, start;
	unsigned int roll = frag_rand(rng) % 100, victim;
	int fd, err;

	size = (1 + frag_rand(rng) % FRAG_MAX_MIB) * FRAG_MIB;
	victim = frag_rand(rng);
	if (*nbufs && (*held * 100 >= area * FRAG_FILL_PCT || roll >= FRAG_ALLOC_PCT)) {
		victim %= *nbufs;
		close(bufs[victim].fd);
		*held -= bufs[victim].size;
		bufs[victim] = bufs[--*nbufs];
		return;
	}
	start = clock_ns();
	err = p->ops->alloc(p, c, size, &fd);
	bench_samples_add(&p->rec, start, clock_ns() - start, err, turn);
	if (err)
		return;
	bufs[*nbufs].fd = fd;
	bufs[(*nbufs)++].size = size;
	*held += size;
}

static int frag_run(struct bench_path *p, struct bench_ctx *c, int index,
		    unsigned int turn, void *arg)
{
	struct frag_series *s = (struct frag_series *)arg + index;
	unsigned int nbufs = 0, step, i;
	struct frag_buf *bufs;
	__u32 rng = c->seed;
	__u64 held = 0;

	/* Each buffer is at least a MiB and the area is at most 3/4 full. */
	bufs = calloc(c->dev.info.total_bytes / FRAG_MIB + 1, sizeof(*bufs));
	if (!bufs)
		return -ENOMEM;
	for (step = 0; step < c->steps; step++) {
		frag_step(p, c, &rng, bufs, &nbufs, &held, turn);
		if (step % FRAG_PROBE_EVERY == FRAG_PROBE_EVERY - 1)
			frag_probe(p, c, s, step + 1, held);
	}
	for (i = 0; i < nbufs; i++)
		close(bufs[i].fd);
	free(bufs);
	return 0;
}

static void json_series(struct json *j, const char *key, const __u64 *v,
			unsigned int n)
{
	unsigned int i;

	json_array(j, key);
	for (i = 0; i < n; i++)
		json_u64(j, NULL, v[i]);
	json_close(j);
}

/* One path's run: a line, or with @j a result of the run's document. */
static void frag_print(const struct bench_ctx *c, struct json *j,
		       const struct bench_path *p, const struct frag_series *s)
{
	const struct bench_samples *r = &p->rec;
	char a[FMT_LEN], b[FMT_LEN];
	unsigned int i, ok = 0;

	for (i = 0; i < r->n; i++)
		ok += !r->err[i];
	if (!j) {
		printf("%-16s %4u/%-4u allocations; at the last probe %s free, largest %s\n",
		       p->name, ok, r->n,
		       fmt_size(s->n ? s->free[s->n - 1] : 0, a, sizeof(a)),
		       fmt_size(s->n ? s->largest[s->n - 1] : 0, b, sizeof(b)));
		return;
	}
	bench_json_result(j, p, "alloc");
	json_u64(j, "max_size_bytes", FRAG_MAX_MIB * FRAG_MIB);
	json_u64(j, "steps", c->steps);
	json_u64(j, "seed", c->seed);
	bench_json_latency(j, r->ns, r->err, r->n);
	json_object(j, "series");
	json_series(j, "step", s->step, s->n);
	json_series(j, "held_bytes", s->held, s->n);
	json_series(j, "free_bytes", s->free, s->n);
	json_series(j, "maxchunk_bytes", s->maxchunk, s->n);
	json_series(j, "largest_bytes", s->largest, s->n);
	json_close(j);
	json_close(j);
}

/* Every path's run: lines, or one JSON document. */
static void frag_report(const struct bench_ctx *c, const struct bench_path *paths,
			int n, const struct frag_series *series)
{
	struct json j;
	int i;

	if (c->json)
		bench_json_begin(&j, c);
	else
		printf("%s: %u steps of 1 to %u MiB on %s (area %s), kernel %s\n",
		       c->wl->name, c->steps, FRAG_MAX_MIB, c->dev_path,
		       c->dev.area, c->uts.release);
	for (i = 0; i < n; i++) {
		if (paths[i].rec.n)
			frag_print(c, c->json ? &j : NULL, &paths[i], &series[i]);
	}
	if (c->json)
		json_end(&j);
	fflush(stdout);
}

static int frag_series_init(struct frag_series *s, unsigned int max)
{
	s->n = 0;
	s->max = max;
	s->step = calloc(max, sizeof(__u64));
	s->held = calloc(max, sizeof(__u64));
	s->free = calloc(max, sizeof(__u64));
	s->maxchunk = calloc(max, sizeof(__u64));
	s->largest = calloc(max, sizeof(__u64));
	return s->step && s->held && s->free && s->maxchunk && s->largest ?
	       0 : -ENOMEM;
}

static void frag_series_free(struct frag_series *s)
{
	free(s->step);
	free(s->held);
	free(s->free);
	free(s->maxchunk);
	free(s->largest);
}

/*
 * Every iteration runs each path's sequence once, paths taking turns; the
 * samples and probes of all its iterations are the path's.
 */
int bench_fragment_loop(struct bench_ctx *c, struct bench_path *paths, int n)
{
	unsigned int probes = (c->steps / FRAG_PROBE_EVERY + 1) * c->iterations;
	struct frag_series *series = calloc(n, sizeof(*series));
	int i, ret = series ? 0 : -ENOMEM;

	for (i = 0; i < n && !ret; i++) {
		ret = bench_samples_init(&paths[i].rec, c->steps * c->iterations, 1);
		if (!ret)
			ret = frag_series_init(&series[i], probes);
	}
	if (!ret)
		ret = bench_turns(c, paths, n, frag_run, series);
	if (!ret)
		frag_report(c, paths, n, series);
	for (i = 0; i < n && series; i++) {
		bench_samples_free(&paths[i].rec);
		frag_series_free(&series[i]);
	}
	free(series);
	return ret ? 1 : 0;
}
