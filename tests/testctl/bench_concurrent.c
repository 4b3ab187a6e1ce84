// SPDX-License-Identifier: GPL-2.0
/*
 * concurrent: N processes allocate one buffer each at the same moment,
 * from one area or (--spread) alternately from two, then close them.
 * Within an area the kernel serialises allocations on the area's mutex,
 * and the page allocator's clearing (init_on_alloc) happens inside it;
 * across areas nothing is shared. Per round: every call's latency, and
 * the round's wall time from the first call to the last return, whose
 * inverse is the throughput. After every iteration of the paths, where
 * the driver's bench file is there (root, debugfs), the limit beside them:
 * one buffer's size cleared on every CPU, timed in the kernel. Taken in
 * the same minutes as the rounds, it drifts with the machine as they do.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testbench.h"
#include "clock.h"
#include "fmt.h"
#include "kbench.h"
#include "msg.h"
#include "parse.h"

#define CONC_MAX_PROCS	16
#define CONC_MAX_SETS	8

/* One worker's answer. */
struct conc_msg {
	__u64 start;
	__u64 end;
	__s32 err;
	__u32 pad;
};

/* The samples of one number of processes, for one path. */
struct conc_set {
	unsigned int procs;
	struct bench_samples calls;
	struct bench_samples rounds;
};

/*
 * The clearing of one buffer on every CPU, into @limit; once it fails
 * (not root, no debugfs), no more are tried and there is no limit row.
 */
static void conc_limit(const struct bench_ctx *c, struct bench_samples *limit,
		       bool *off, unsigned int turn)
{
	struct kbench b = {
		.pages = c->wl->size / c->page_size,
		.iterations = 1,
		.strategy = CMABUF_STRATEGY_AUTO,
		.zero = 1,
	};
	int ret;

	if (*off || bench_wait_released(c))
		return;
	ret = kbench_run(c->dev_path, &b);
	if (ret) {
		msg_warn("concurrent: no clearing limit beside the rounds: %s",
			 strerror(-ret));
		*off = true;
		return;
	}
	bench_samples_add(limit, 0, b.zero_all.total_ns, 0, turn);
}

/* Say ready, wait for go, allocate, answer, wait, close, exit. */
static void __attribute__((noreturn))
conc_worker(struct bench_path *p, struct bench_ctx *c, int go, int res)
{
	struct conc_msg m = { };
	char b = 'r';
	int fd = -1;

	if (write(res, &b, 1) != 1 || read(go, &b, 1) != 1)
		_exit(1);
	m.start = clock_ns();
	m.err = p->ops->alloc(p, c, c->wl->size, &fd);
	m.end = clock_ns();
	if (write(res, &m, sizeof(m)) != sizeof(m))
		_exit(1);
	/* Until every worker has its buffer: the area holds them all. */
	if (read(go, &b, 1) != 1)
		_exit(1);
	if (!m.err)
		close(fd);
	_exit(0);
}

static int read_full(int fd, void *buf, size_t len)
{
	ssize_t got;
	size_t done;

	for (done = 0; done < len; done += got) {
		got = read(fd, (char *)buf + done, len - done);
		if (got <= 0)
			return -EIO;
	}
	return 0;
}

/* Start @procs workers, the odd ones on @p2 (another area) if given. */
static int conc_round(struct bench_path *p, struct bench_ctx *c,
		      struct bench_path *p2, struct bench_ctx *c2,
		      unsigned int procs, struct conc_msg *out)
{
	int go[CONC_MAX_PROCS], res[2], pair[2], ret = 0;
	pid_t pid[CONC_MAX_PROCS];
	unsigned int w, started;
	char b;

	if (pipe2(res, O_CLOEXEC))
		return -errno;
	fflush(stdout);
	for (started = 0; started < procs; started++) {
		if (pipe2(pair, O_CLOEXEC)) {
			ret = -errno;
			break;
		}
		pid[started] = fork();
		if (!pid[started]) {
			close(res[0]);
			close(pair[1]);
			if (p2 && started % 2)
				conc_worker(p2, c2, pair[0], res[1]);
			conc_worker(p, c, pair[0], res[1]);
		}
		close(pair[0]);
		if (pid[started] < 0) {
			ret = -errno;
			close(pair[1]);
			break;
		}
		go[started] = pair[1];
	}
	close(res[1]);
	for (w = 0; w < started && !ret; w++)
		ret = read_full(res[0], &b, 1);
	for (w = 0; w < started && !ret; w++)
		ret = write(go[w], "g", 1) == 1 ? 0 : -EIO;
	for (w = 0; w < started && !ret; w++)
		ret = read_full(res[0], &out[w], sizeof(out[w]));
	/* "c": close the buffer; without it a worker just exits. */
	for (w = 0; w < started; w++) {
		if (!ret && write(go[w], "c", 1) != 1)
			ret = -EIO;
		close(go[w]);
	}
	for (w = 0; w < started; w++)
		waitpid(pid[w], NULL, 0);
	close(res[0]);
	return ret;
}

static void conc_record(struct conc_set *set, const struct conc_msg *m,
			unsigned int turn, const struct bench_counters *before,
			const struct bench_counters *after)
{
	__u64 first = m[0].start, last = m[0].end;
	unsigned int w, i;
	int err = 0;

	for (w = 0; w < set->procs; w++) {
		bench_samples_add(&set->calls, m[w].start, m[w].end - m[w].start,
				  m[w].err, turn);
		if (m[w].start < first)
			first = m[w].start;
		if (m[w].end > last)
			last = m[w].end;
		if (!err)
			err = m[w].err;
	}
	i = bench_samples_add(&set->rounds, first, last - first, err, turn);
	bench_samples_delta(&set->rounds, i, before, after);
}

/* "1,2,4" into @procs; the count, or 0 after a message. */
static unsigned int conc_procs(const char *list, unsigned int *procs)
{
	char *copy = strdup(list), *tok, *save;
	unsigned int n = 0;
	__u32 v;

	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == CONC_MAX_SETS || parse_u32(tok, &v) || !v ||
		    v > CONC_MAX_PROCS) {
			msg_err("bench: bad --procs '%s' (up to %u numbers of 1 to %u)",
				list, CONC_MAX_SETS, CONC_MAX_PROCS);
			n = 0;
			break;
		}
		procs[n++] = v;
	}
	free(copy);
	return n;
}

/* The second area's instance, and each path set up on it. */
static int conc_spread(struct bench_ctx *c, struct bench_ctx *c2,
		       struct bench_path *paths, struct bench_path *p2, int n)
{
	int i, ret;

	*c2 = *c;
	dev_resolve(c->spread, c2->dev_path, sizeof(c2->dev_path));
	c2->dev_fd = dev_open(c2->dev_path);
	if (c2->dev_fd < 0)
		return c2->dev_fd;
	ret = dev_info(c2->dev_fd, &c2->dev);
	if (ret) {
		dev_explain_info(c2->dev_path, ret);
		return ret;
	}
	for (i = 0; i < n; i++) {
		p2[i] = paths[i];
		p2[i].fds[0] = -1;
		p2[i].fds[1] = -1;
		p2[i].target[0] = '\0';
		if (!p2[i].error && p2[i].ops->setup)
			p2[i].error = p2[i].ops->setup(&p2[i], c2);
		/* One heap for both (6.12 has the default area's only). */
		if (!p2[i].error && p2[i].target[0] &&
		    !strcmp(p2[i].target, paths[i].target)) {
			msg_warn("%s: %s serves both instances: not spread",
				 paths[i].name, paths[i].target);
			p2[i].error = -EEXIST;
		}
	}
	return 0;
}

static void conc_text(const struct bench_path *p, const struct conc_set *set,
		      unsigned int areas, __u64 mib_s)
{
	char p50[FMT_LEN], p99[FMT_LEN], round[FMT_LEN];
	struct stats_tail t = { };
	struct stats st = { }, rs = { };
	__u64 *good = calloc(set->calls.n ? set->calls.n : 1, sizeof(*good));
	unsigned int i, ok = 0;

	for (i = 0; good && i < set->calls.n; i++) {
		if (!set->calls.err[i])
			good[ok++] = set->calls.ns[i];
	}
	if (ok && !stats_compute(good, ok, &st))
		stats_tail(good, ok, &t);
	free(good);
	stats_compute(set->rounds.ns, set->rounds.n, &rs);
	printf("%-16s %5u %5u %4u/%-4u %13s %13s %13s %8llu\n", p->name, set->procs,
	       areas, ok, set->calls.n, fmt_ns(st.median, p50, sizeof(p50)),
	       fmt_ns(t.p99, p99, sizeof(p99)),
	       fmt_ns(rs.median, round, sizeof(round)), mib_s);
}

/* One set's results: a table row, or with @j two results of its document. */
static void conc_print(const struct bench_ctx *c, struct json *j,
		       const struct bench_path *p, const struct conc_set *set,
		       unsigned int areas)
{
	__u64 *mibs = calloc(set->rounds.n ? set->rounds.n : 1, sizeof(*mibs));
	const struct bench_samples *r = &set->rounds;
	unsigned int i, ok = 0;
	struct stats st = { };

	for (i = 0; mibs && i < r->n; i++) {
		if (!r->err[i] && r->ns[i])
			mibs[ok++] = set->procs * (c->wl->size >> 10) *
				     1000000000ULL / r->ns[i] >> 10;
	}
	if (ok)
		stats_compute(mibs, ok, &st);
	free(mibs);
	if (!j) {
		conc_text(p, set, areas, st.median);
		return;
	}
	bench_json_result(j, p, "alloc");
	json_u64(j, "procs", set->procs);
	json_u64(j, "areas", areas);
	bench_json_latency(j, set->calls.ns, set->calls.err, set->calls.n);
	json_close(j);
	bench_json_result(j, p, "round");
	json_u64(j, "procs", set->procs);
	json_u64(j, "areas", areas);
	json_u64(j, "throughput_mib_s", st.median);
	bench_json_latency(j, r->ns, r->err, r->n);
	bench_json_counters(j, r);
	json_close(j);
}

/* The limit: a result of its own (as zero-64m's), or a line under the table. */
static void conc_limit_print(struct json *j, const struct bench_samples *limit)
{
	/* Named as zero-64m's clearing, which it stands in for. */
	const struct bench_path zero = {
		.name = "cmabuf-auto",
		.ops = &bench_cmabuf_kernel_ops,
		.strategy = CMABUF_STRATEGY_AUTO,
	};
	char p50[FMT_LEN];
	struct stats st = { };

	if (!limit->n)
		return;
	if (j) {
		bench_json_result(j, &zero, "zero-all");
		bench_json_latency(j, limit->ns, limit->err, limit->n);
		json_close(j);
		return;
	}
	stats_compute(limit->ns, limit->n, &st);
	printf("limit: one buffer cleared on every CPU, p50 %s (%u samples)\n",
	       fmt_ns(st.median, p50, sizeof(p50)), limit->n);
}

/* Every path's sets: a table, or one JSON document. */
static void conc_report(const struct bench_ctx *c, const struct bench_ctx *c2,
			const struct bench_path *paths, int n,
			struct conc_set (*sets)[CONC_MAX_SETS], unsigned int nsets,
			const struct bench_samples *limit)
{
	unsigned int areas = c->spread ? 2 : 1, s;
	struct json j;
	int i;

	if (c->json)
		bench_json_begin(&j, c);
	else
		printf("%s: %llu bytes a call from %s%s%s, kernel %s\n"
		       "%-16s %5s %5s %9s %13s %13s %13s %8s\n", c->wl->name,
		       c->wl->size, c->dev_path, c->spread ? " and " : "",
		       c->spread ? c2->dev_path : "", c->uts.release, "path",
		       "procs", "areas", "ok/n", "call p50", "call p99",
		       "round p50", "MiB/s");
	for (i = 0; i < n; i++) {
		for (s = 0; s < nsets; s++) {
			if (sets[i][s].rounds.n)
				conc_print(c, c->json ? &j : NULL, &paths[i],
					   &sets[i][s], areas);
		}
	}
	conc_limit_print(c->json ? &j : NULL, limit);
	if (c->json)
		json_end(&j);
	fflush(stdout);
}

static int conc_sets_init(struct conc_set *sets, const unsigned int *procs,
			  unsigned int nsets, unsigned int iterations)
{
	unsigned int s;
	int ret = 0;

	for (s = 0; s < nsets && !ret; s++) {
		sets[s].procs = procs[s];
		ret = bench_samples_init(&sets[s].calls, iterations * procs[s], 1);
		if (!ret)
			ret = bench_samples_init(&sets[s].rounds, iterations, 1);
	}
	return ret;
}

/* Iteration @iter of path @p: one round of every number of processes. */
static int conc_iteration(struct bench_ctx *c, struct bench_path *p,
			  struct bench_ctx *c2, struct bench_path *p2,
			  struct conc_set *sets, unsigned int nsets,
			  unsigned int iter, unsigned int turn)
{
	struct conc_msg m[CONC_MAX_PROCS];
	struct bench_counters before, after;
	unsigned int s;
	int ret = 0;

	for (s = 0; s < nsets && !ret; s++) {
		ret = bench_wait_released(c);
		if (!ret && p2)
			ret = bench_wait_released(c2);
		if (!ret)
			ret = bench_hook(c, c->prepare, p, iter);
		if (ret)
			break;
		bench_counters_read(c, &before);
		ret = conc_round(p, c, p2, c2, sets[s].procs, m);
		bench_counters_read(c, &after);
		if (ret) {
			msg_err("%s: %u processes: %s", p->name, sets[s].procs,
				strerror(-ret));
			break;
		}
		conc_record(&sets[s], m, turn, &before, &after);
		ret = bench_hook(c, c->conclude, p, iter);
	}
	return ret;
}

int bench_concurrent_loop(struct bench_ctx *c, struct bench_path *paths, int n)
{
	struct conc_set (*sets)[CONC_MAX_SETS] = calloc(n, sizeof(*sets));
	struct bench_path *p2 = calloc(n, sizeof(*p2));
	unsigned int procs[CONC_MAX_SETS], nsets, iter, s;
	struct bench_ctx c2 = { .dev_fd = -1 };
	struct bench_samples limit = { };
	bool limit_off = false;
	int i, k, ret = 0;

	nsets = conc_procs(c->procs ? c->procs : "1,2,4", procs);
	if (!sets || !p2 || !nsets)
		ret = -EINVAL;
	if (!ret && c->spread)
		ret = conc_spread(c, &c2, paths, p2, n);
	for (i = 0; i < n && !ret; i++)
		ret = conc_sets_init(sets[i], procs, nsets, c->iterations);
	if (!ret)
		ret = bench_samples_init(&limit, c->iterations, 1);
	for (iter = 0; iter < c->iterations && !ret; iter++) {
		for (k = 0; k < n && !ret; k++) {
			i = (k + iter) % n;
			if (paths[i].error || (c->spread && p2[i].error))
				continue;
			ret = conc_iteration(c, &paths[i], &c2,
					     c->spread ? &p2[i] : NULL, sets[i],
					     nsets, iter, k);
		}
		if (!ret)
			conc_limit(c, &limit, &limit_off, n);
	}
	if (!ret)
		conc_report(c, &c2, paths, n, sets, nsets, &limit);
	bench_samples_free(&limit);
	for (i = 0; i < n && sets; i++) {
		for (s = 0; s < nsets; s++) {
			bench_samples_free(&sets[i][s].calls);
			bench_samples_free(&sets[i][s].rounds);
		}
		if (c->spread && p2[i].ops && p2[i].ops->teardown)
			p2[i].ops->teardown(&p2[i]);
	}
	if (c2.dev_fd >= 0)
		close(c2.dev_fd);
	free(sets);
	free(p2);
	return ret ? 1 : 0;
}
