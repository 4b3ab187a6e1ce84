// SPDX-License-Identifier: GPL-2.0
/*
 * What the loop workloads share: the wait for released frees before every
 * sample (every workload's cycles have it), the commands run around every
 * sample (--prepare, --conclude), the kernel counters read around it, the
 * samples themselves, and their JSON.
 *
 * Under memory load an allocation may fail, and a slow one is the point:
 * every allocation is a sample with its errno, and the percentiles are of
 * those that succeeded, beside the success rate. The counters say what
 * the sample cost the kernel: pages migrated, CMA allocations that failed,
 * cmabuf's own failures (and, where the driver has them, its interrupted
 * calls, busy retries and allocations that took a prepared buffer).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testbench.h"
#include "msg.h"

static const char * const counter_names[BENCH_COUNTERS] = {
	[BENCH_PGMIGRATE_SUCCESS] = "pgmigrate_success",
	[BENCH_PGMIGRATE_FAIL] = "pgmigrate_fail",
	[BENCH_COMPACT_ISOLATED] = "compact_isolated",
	[BENCH_COMPACT_MIGRATE_SCANNED] = "compact_migrate_scanned",
	[BENCH_THP_MIGRATION_SUCCESS] = "thp_migration_success",
	[BENCH_THP_MIGRATION_SPLIT] = "thp_migration_split",
	[BENCH_CMA_ALLOC_SUCCESS] = "cma_alloc_success",
	[BENCH_CMA_ALLOC_FAIL] = "cma_alloc_fail",
	[BENCH_AREA_ALLOC_PAGES_SUCCESS] = "area_alloc_pages_success",
	[BENCH_AREA_ALLOC_PAGES_FAIL] = "area_alloc_pages_fail",
	[BENCH_CMABUF_FAILURES] = "cmabuf_failures",
	[BENCH_CMABUF_INTERRUPTED] = "cmabuf_interrupted",
	[BENCH_CMABUF_BUSY_RETRIES] = "cmabuf_busy_retries",
	[BENCH_CMABUF_PREPARE_HITS] = "cmabuf_prepare_hits",
};

/*
 * Wait for the instance to release every buffer freed so far: freed pages
 * go back to CMA in the background, and a cycle or a sample must neither
 * run beside that nor find those pages taken. Every workload's cycles
 * start with it. Return: 0, or -errno after saying so.
 */
int bench_wait_released(const struct bench_ctx *c)
{
	int ret;

	ret = dev_wait_released(c->dev_path, BENCH_RELEASE_WAIT_MS);
	if (ret)
		msg_err("%s: freed buffers not released: %s", c->dev_path,
			strerror(-ret));
	return ret;
}

/*
 * Run @cmd through the shell for iteration @iter of path @p, with what it
 * prepares in its environment; its output goes to our standard error.
 * Return: 0 when it exited 0, else -ECANCELED after saying so.
 */
int bench_hook(const struct bench_ctx *c, const char *cmd,
	       const struct bench_path *p, unsigned int iter)
{
	char it[16];
	int status;
	pid_t pid;

	if (!cmd)
		return 0;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		msg_err("bench: fork for '%s': %s", cmd, strerror(errno));
		return -ECANCELED;
	}
	if (!pid) {
		snprintf(it, sizeof(it), "%u", iter);
		setenv("CMABUF_BENCH_WORKLOAD", c->wl->name, 1);
		setenv("CMABUF_BENCH_PATH", p->name, 1);
		setenv("CMABUF_BENCH_ITERATION", it, 1);
		dup2(STDERR_FILENO, STDOUT_FILENO);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -ECANCELED;
	}
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	if (WIFEXITED(status))
		msg_err("bench: '%s' (%s, iteration %u) exited with %d", cmd,
			p->name, iter, WEXITSTATUS(status));
	else
		msg_err("bench: '%s' (%s, iteration %u) was killed by signal %d",
			cmd, p->name, iter, WTERMSIG(status));
	return -ECANCELED;
}

/**
 * bench_turns() - every path once an iteration, taking turns
 * @c: the run
 * @paths: its paths, @n of them
 * @n: how many
 * @sample: one sample of path @paths[index], which went @turn-th
 * @arg: for @sample
 *
 * Path k goes (k + iteration) % n-th, so that each goes first in turn;
 * every sample waits for the frees before it to be released, then
 * --prepare and --conclude run around it. Paths whose setup failed are
 * left out.
 *
 * Return: 0, or the first failure of the wait, a command or @sample.
 */
int bench_turns(struct bench_ctx *c, struct bench_path *paths, int n,
		bench_sample_fn sample, void *arg)
{
	unsigned int iter;
	int i, k, ret = 0;

	for (iter = 0; iter < c->iterations && !ret; iter++) {
		for (k = 0; k < n && !ret; k++) {
			i = (k + iter) % n;
			if (paths[i].error)
				continue;
			ret = bench_wait_released(c);
			if (!ret)
				ret = bench_hook(c, c->prepare, &paths[i], iter);
			if (!ret)
				ret = sample(&paths[i], c, i, k, arg);
			if (!ret)
				ret = bench_hook(c, c->conclude, &paths[i], iter);
		}
	}
	return ret;
}

static void vmstat_read(struct bench_counters *k)
{
	char name[64];
	unsigned long long v;
	FILE *fp;
	int i;

	fp = fopen("/proc/vmstat", "re");
	if (!fp)
		return;
	while (fscanf(fp, "%63s %llu", name, &v) == 2) {
		for (i = 0; i <= BENCH_CMA_ALLOC_FAIL; i++) {
			if (!strcmp(name, counter_names[i])) {
				k->v[i] = v;
				k->present |= BIT(i);
			}
		}
	}
	fclose(fp);
}

static void cma_free_read(struct bench_counters *k)
{
	char line[128];
	unsigned long long kb;
	FILE *fp;

	fp = fopen("/proc/meminfo", "re");
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "CmaFree: %llu kB", &kb) == 1)
			k->cma_free = kb << 10;
	}
	fclose(fp);
}

static void cmabuf_stat_read(const struct bench_ctx *c, const char *file,
			     enum bench_counter i, struct bench_counters *k)
{
	char buf[32];

	if (dev_sysfs_read(c->dev_path, file, buf, sizeof(buf)))
		return;
	k->v[i] = strtoull(buf, NULL, 10);
	k->present |= BIT(i);
}

/* Every counter this machine has; those it lacks stay out of @present. */
void bench_counters_read(const struct bench_ctx *c, struct bench_counters *k)
{
	static const struct {
		enum bench_counter i;
		const char *file;
	} area[] = {
		{ BENCH_AREA_ALLOC_PAGES_SUCCESS, "alloc_pages_success" },
		{ BENCH_AREA_ALLOC_PAGES_FAIL, "alloc_pages_fail" },
	};
	size_t i;

	memset(k, 0, sizeof(*k));
	vmstat_read(k);
	cma_free_read(k);
	for (i = 0; i < ARRAY_SIZE(area); i++) {
		if (!dev_area_sysfs_read(c->dev.area, area[i].file, &k->v[area[i].i]))
			k->present |= BIT(area[i].i);
	}
	cmabuf_stat_read(c, "stats/failures", BENCH_CMABUF_FAILURES, k);
	cmabuf_stat_read(c, "stats/interrupted", BENCH_CMABUF_INTERRUPTED, k);
	cmabuf_stat_read(c, "stats/busy_retries", BENCH_CMABUF_BUSY_RETRIES, k);
	cmabuf_stat_read(c, "stats/prepare_hits", BENCH_CMABUF_PREPARE_HITS, k);
}

int bench_samples_init(struct bench_samples *r, unsigned int max,
		       unsigned int blocks)
{
	memset(r, 0, sizeof(*r));
	r->max = max;
	r->blocks = blocks;
	r->ns = calloc(max, sizeof(*r->ns));
	r->free_ns = calloc(max, sizeof(*r->free_ns));
	r->start_ns = calloc(max, sizeof(*r->start_ns));
	r->err = calloc(max, sizeof(*r->err));
	r->prep_err = calloc(max, sizeof(*r->prep_err));
	r->turn = calloc(max, sizeof(*r->turn));
	r->delta = calloc(max, sizeof(*r->delta));
	r->cma_free = calloc(max, sizeof(*r->cma_free));
	if (blocks > 1)
		r->block_ns = calloc((size_t)max * blocks, sizeof(*r->block_ns));
	if (!r->ns || !r->free_ns || !r->start_ns || !r->err || !r->prep_err ||
	    !r->turn || !r->delta || !r->cma_free ||
	    (blocks > 1 && !r->block_ns)) {
		bench_samples_free(r);
		return -ENOMEM;
	}
	return 0;
}

void bench_samples_free(struct bench_samples *r)
{
	free(r->ns);
	free(r->free_ns);
	free(r->start_ns);
	free(r->err);
	free(r->prep_err);
	free(r->turn);
	free(r->delta);
	free(r->cma_free);
	free(r->block_ns);
	memset(r, 0, sizeof(*r));
}

/* Record one sample; its index, for what the caller adds. */
unsigned int bench_samples_add(struct bench_samples *r, __u64 start, __u64 ns,
			       int err, unsigned int turn)
{
	unsigned int i = r->n;

	if (i == r->max)
		return i - 1;
	r->start_ns[i] = start;
	r->ns[i] = ns;
	r->err[i] = err;
	r->turn[i] = turn;
	r->n++;
	return i;
}

void bench_samples_delta(struct bench_samples *r, unsigned int i,
			 const struct bench_counters *before,
			 const struct bench_counters *after)
{
	int k;

	r->present = before->present & after->present;
	for (k = 0; k < BENCH_COUNTERS; k++)
		r->delta[i][k] = after->v[k] - before->v[k];
	r->cma_free[i][0] = before->cma_free;
	r->cma_free[i][1] = after->cma_free;
}

/* How many attempts failed with each errno: {"ENOMEM": 2, ...}. */
static void json_errors(struct json *j, const char *key, const int *err,
			unsigned int n)
{
	unsigned int i, k, count;
	const char *name;

	json_object(j, key);
	for (i = 0; i < n; i++) {
		if (!err[i])
			continue;
		for (k = 0; k < i && err[k] != err[i]; k++)
			;
		if (k < i)
			continue;	/* counted at its first occurrence */
		for (count = 0, k = i; k < n; k++)
			count += err[k] == err[i];
		name = strerrorname_np(-err[i]);
		json_u64(j, name ? name : "unknown", count);
	}
	json_close(j);
}

/*
 * The latencies of @n attempts, @err[i] the outcome of each: percentiles
 * of the successful ones, the success rate, and every attempt in order.
 */
void bench_json_latency(struct json *j, const __u64 *ns, const int *err,
			unsigned int n)
{
	struct stats_tail t = { };
	struct stats st = { };
	unsigned int i, ok = 0;
	__u64 *good;

	good = calloc(n ? n : 1, sizeof(*good));
	for (i = 0; good && i < n; i++) {
		if (!err[i])
			good[ok++] = ns[i];
	}
	if (ok && !stats_compute(good, ok, &st))
		stats_tail(good, ok, &t);
	free(good);
	json_u64(j, "median_ns", st.median);
	json_u64(j, "min_ns", st.min);
	json_u64(j, "max_ns", st.max);
	json_u64(j, "mean_ns", st.mean);
	json_u64(j, "n", st.n);
	json_u64(j, "p50_ns", st.median);
	json_u64(j, "p90_ns", t.p90);
	json_u64(j, "p99_ns", t.p99);
	json_u64(j, "attempts", n);
	json_u64(j, "failures", n - ok);
	json_errors(j, "errors", err, n);
	json_array(j, "samples_ns");
	for (i = 0; i < n; i++)
		json_u64(j, NULL, ns[i]);
	json_close(j);
	json_array(j, "errno");
	for (i = 0; i < n; i++)
		json_u64(j, NULL, -err[i]);
	json_close(j);
}

/*
 * When each sample started, its turn, what each counter did in it (null for
 * a counter this kernel or driver lacks), and CmaFree before and after it.
 */
void bench_json_counters(struct json *j, const struct bench_samples *r)
{
	unsigned int i;
	int k;

	json_array(j, "start_ns");
	for (i = 0; i < r->n; i++)
		json_u64(j, NULL, r->start_ns[i]);
	json_close(j);
	json_array(j, "turn");
	for (i = 0; i < r->n; i++)
		json_u64(j, NULL, r->turn[i]);
	json_close(j);
	json_object(j, "counters");
	for (k = 0; k < BENCH_COUNTERS; k++) {
		if (!(r->present & BIT(k))) {
			json_null(j, counter_names[k]);
			continue;
		}
		json_array(j, counter_names[k]);
		for (i = 0; i < r->n; i++)
			json_u64(j, NULL, r->delta[i][k]);
		json_close(j);
	}
	json_close(j);
	for (k = 0; k < 2; k++) {
		json_array(j, k ? "cma_free_after" : "cma_free_before");
		for (i = 0; i < r->n; i++)
			json_u64(j, NULL, r->cma_free[i][k]);
		json_close(j);
	}
}

/*
 * A prepared path's PREPAREs that failed their samples: how many, with
 * each errno, and every sample's (0 where it succeeded).
 */
void bench_json_prepare_errors(struct json *j, const struct bench_samples *r)
{
	unsigned int i, failed = 0;

	for (i = 0; i < r->n; i++)
		failed += !!r->prep_err[i];
	json_u64(j, "prepare_failures", failed);
	json_errors(j, "prepare_errors", r->prep_err, r->n);
	json_array(j, "prepare_errno");
	for (i = 0; i < r->n; i++)
		json_u64(j, NULL, -r->prep_err[i]);
	json_close(j);
}

/* How many of @err's @n are failures, and the last one's errno. */
static unsigned int samples_failed(const int *err, unsigned int n, int *last)
{
	unsigned int i, failed = 0;

	for (i = 0; i < n; i++) {
		if (err[i]) {
			failed++;
			*last = err[i];
		}
	}
	return failed;
}

/*
 * A warning that says how many samples of @p failed, and how; for a
 * prepared path, another for those whose PREPARE failed.
 */
void bench_samples_warn(const struct bench_path *p, const struct bench_samples *r)
{
	unsigned int failed;
	int last = 0;

	failed = samples_failed(r->err, r->n, &last);
	if (failed)
		msg_warn("%s: %u of %u samples failed (the last: %s)", p->name,
			 failed, r->n, strerror(-last));
	failed = samples_failed(r->prep_err, r->n, &last);
	if (failed)
		msg_warn("%s: %u of them before their allocations, in CMABUF_IOC_PREPARE (the last: %s)",
			 p->name, failed, strerror(-last));
}
