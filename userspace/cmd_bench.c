// SPDX-License-Identifier: GPL-2.0
/*
 * cmabufctl bench: time a buffer's whole cycle (cycle.c) through each
 * strategy of an instance, iteration i of every strategy before iteration
 * i + 1 of any, so that slow drifts of the machine touch all alike; each
 * cycle starts once the previous one's pages are back in CMA.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bench.h"
#include "cmd.h"
#include "cycle.h"
#include "dev.h"
#include "fmt.h"
#include "json.h"
#include "msg.h"
#include "opts.h"
#include "parse.h"
#include "stats.h"

/* How long a cycle waits for the frees before it to be released. */
#define BENCH_RELEASE_WAIT_MS	10000

static const char *const bench_phases[CYCLE_PHASES] = {
	[CYCLE_ALLOC] = "alloc",
	[CYCLE_MMAP] = "mmap",
	[CYCLE_SYNC] = "sync",
	[CYCLE_TOUCH] = "touch",
	[CYCLE_MUNMAP] = "munmap",
	[CYCLE_CLOSE] = "close",
	[CYCLE_WHOLE] = "cycle",
};

/**
 * struct bench_strategy - one strategy's cycles
 * @strategy: a %CMABUF_STRATEGY_* value
 * @ns: per phase, one sample per cycle
 * @done: cycles recorded
 * @error: the -errno that stopped it, or 0
 */
struct bench_strategy {
	unsigned int strategy;
	__u64 *ns[CYCLE_PHASES];
	__u32 done;
	int error;
};

/**
 * struct bench_run - a run
 * @o: what was asked
 * @dev_fd: open on @o->device
 * @di: its INFO
 * @s: the strategies timed
 * @n: how many
 */
struct bench_run {
	const struct bench_opts *o;
	int dev_fd;
	struct dev_info di;
	struct bench_strategy s[CMABUF_STRATEGY_COUNT];
	unsigned int n;
};

static void bench_usage(void)
{
	printf("usage: cmabufctl bench [SIZE] [--strategy S[,S...]|all] [--iterations N]\n"
	       "                       [--device DEV] [--json]\n"
	       "\n"
	       "Time buffers of SIZE bytes (default 64M) through their whole cycle:\n"
	       "allocate (CMABUF_IOC_ALLOC), mmap, write one word in every page inside\n"
	       "the CPU access bracket (DMA_BUF_IOCTL_SYNC), munmap, close (which frees\n"
	       "the buffer). Each strategy in turn, iteration i of every strategy before\n"
	       "iteration i + 1 of any; each cycle starts once the pages of the one\n"
	       "before are back in CMA. Reports per strategy and phase the median, the\n"
	       "90th and 99th percentiles, the fastest and the slowest.\n"
	       "\n"
	       "  -s, --strategy LIST  comma-separated strategies (auto, compound, frozen,\n"
	       "                       legacy, dma), or all (default): every strategy\n"
	       "                       the instance offers but auto\n"
	       "  -n, --iterations N   cycles of each strategy (default %u)\n"
	       "  -d, --device DEV     an instance: a path, a label or 'default'\n"
	       "  -j, --json           one JSON document instead of text\n"
	       "\n"
	       "Phases: alloc, mmap, sync (the bracket: cache maintenance where the\n"
	       "instance's devices are not coherent), touch, munmap, close, and cycle,\n"
	       "all of them.\n", BENCH_ITERATIONS);
}

/* One entry of --strategy into @arg's mask; BIT(31) for all. */
static int bench_parse_strategy(const char *tok, void *arg)
{
	__u32 *mask = arg;
	int s;

	if (parse_strategy(tok, &s)) {
		opt_error("bench", "bad strategy '%s' (%s)", tok,
			  "auto, compound, frozen, legacy, dma or all");
		return EXIT_USAGE;
	}
	*mask |= s == PARSE_STRATEGY_ALL ? BIT(31) : CMABUF_STRATEGY_BIT(s);
	return 0;
}

/* --strategy: a comma-separated list, or all (0); 0 or EXIT_USAGE. */
static int bench_parse_strategies(const char *cmd, const char *list,
				  __u32 *mask)
{
	int ret;

	*mask = 0;
	ret = parse_list(list, bench_parse_strategy, mask);
	if (ret)
		return EXIT_USAGE;
	if (*mask & BIT(31)) {
		*mask = 0;
		return 0;
	}
	if (!*mask) {
		opt_error(cmd, "no strategy in '%s'", list);
		return EXIT_USAGE;
	}
	return 0;
}

/**
 * bench_parse() - the command line of cmabufctl bench
 * @argc: arguments, the command's name first
 * @argv: them
 * @o: out: what they ask for
 *
 * Return: 0, -1 after --help, or %EXIT_USAGE after an error line.
 */
int bench_parse(int argc, char **argv, struct bench_opts *o)
{
	static const struct option opts[] = {
		{ "strategy", required_argument, NULL, 's' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "device", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct opt_common oc = { };
	int c, ret = 0;

	memset(o, 0, sizeof(*o));
	o->size = BENCH_SIZE;
	o->iterations = BENCH_ITERATIONS;
	/* From the start: a process may parse more than once (unit tests). */
	optind = 0;
	while (!ret && (c = opt_next(argc, argv, "s:n:", opts, &oc)) != -1) {
		switch (c) {
		case 's':
			ret = bench_parse_strategies(argv[0], optarg, &o->strategies);
			break;
		case 'n':
			ret = opt_u32(argv[0], "--iterations", optarg, 1,
				      BENCH_MAX_ITERATIONS, &o->iterations);
			break;
		case 'h':
			bench_usage();
			return -1;
		default:
			return EXIT_USAGE;
		}
	}
	ret = ret ?: opt_size_word(argc, argv, &o->size);
	if (ret)
		return ret;
	o->json = oc.json;
	dev_resolve(oc.device, o->device, sizeof(o->device));
	return 0;
}

/* Can a COMPOUND buffer be @size bytes here (a power of two of orders)? */
static bool bench_compound_fits(const struct cmabuf_info *i, __u64 size)
{
	__u64 pages = size / i->page_size;
	unsigned int order = __builtin_ctzll(pages);

	return pages >= 2 && !(pages & (pages - 1)) &&
	       order >= i->min_compound_order && order <= i->max_compound_order;
}

/* Add @s to the run, or say why not; 0, or 1 after an error line. */
static int bench_add(struct bench_run *r, unsigned int s, bool named)
{
	const struct cmabuf_info *i = &r->di.info;
	char sz[FMT_LEN], lo[FMT_LEN], hi[FMT_LEN];
	unsigned int ph;

	if (!(i->strategies & CMABUF_STRATEGY_BIT(s))) {
		msg_err("bench: strategy %s is not supported by this kernel (see 'cmabufctl info')",
			strategy_name(s));
		return 1;
	}
	if (s == CMABUF_STRATEGY_COMPOUND &&
	    !bench_compound_fits(i, r->o->size)) {
		fmt_size(r->o->size, sz, sizeof(sz));
		fmt_size((__u64)i->page_size << i->min_compound_order, lo, sizeof(lo));
		fmt_size((__u64)i->page_size << i->max_compound_order, hi, sizeof(hi));
		if (!named) {
			msg_warn("bench: compound left out: %s is not a COMPOUND size of %s (a power of two from %s to %s here)",
				 sz, r->o->device, lo, hi);
			return 0;
		}
		msg_err("bench: compound: %s is not a COMPOUND size of %s (a power of two from %s to %s here)",
			sz, r->o->device, lo, hi);
		return 1;
	}
	r->s[r->n].strategy = s;
	for (ph = 0; ph < CYCLE_PHASES; ph++) {
		r->s[r->n].ns[ph] = calloc(r->o->iterations, sizeof(__u64));
		if (!r->s[r->n].ns[ph]) {
			r->n++;
			msg_err("bench: %s", strerror(ENOMEM));
			return 1;
		}
	}
	r->n++;
	return 0;
}

/* What cycle_run() allocates through. */
struct bench_call {
	int dev_fd;
	unsigned int strategy;
};

static int bench_alloc(void *arg, __u64 size, int *fd)
{
	const struct bench_call *call = arg;

	return dev_alloc_fd(call->dev_fd, size, call->strategy, fd);
}

/* One cycle of @s; 0, or its -errno after an error line. */
static int bench_cycle(struct bench_run *r, struct bench_strategy *s)
{
	struct bench_call call = { r->dev_fd, s->strategy };
	__u64 ns[CYCLE_PHASES];
	const char *failed;
	unsigned int ph;
	int ret;

	ret = dev_wait_released(r->o->device, BENCH_RELEASE_WAIT_MS);
	if (ret) {
		msg_err("bench: %s: waiting for freed buffers to go back to CMA: %s",
			r->o->device, strerror(-ret));
		return ret;
	}
	ret = cycle_run(bench_alloc, &call, r->o->size, r->di.info.page_size, ns,
			&failed);
	if (ret) {
		msg_err("bench: %s: %s: %s", strategy_name(s->strategy),
			failed ? failed : "CMABUF_IOC_ALLOC", dev_strerror(ret));
		return ret;
	}
	for (ph = 0; ph < CYCLE_PHASES; ph++)
		s->ns[ph][s->done] = ns[ph];
	s->done++;
	return 0;
}

static void bench_print_text(const struct bench_run *r)
{
	char sz[FMT_LEN], t[5][FMT_LEN];
	struct stats_tail tail;
	struct utsname uts;
	struct stats st;
	unsigned int i, ph;

	uname(&uts);
	printf("bench: %s, %u iterations, %s (area %s), kernel %s\n",
	       fmt_size(r->o->size, sz, sizeof(sz)), r->o->iterations,
	       r->o->device, r->di.area, uts.release);
	printf("%-9s %-7s %6s %12s %12s %12s %12s %12s\n", "strategy", "phase",
	       "n", "median", "p90", "p99", "min", "max");
	for (i = 0; i < r->n; i++) {
		for (ph = 0; ph < CYCLE_PHASES; ph++) {
			if (stats_compute(r->s[i].ns[ph], r->s[i].done, &st) ||
			    stats_tail(r->s[i].ns[ph], r->s[i].done, &tail))
				continue;
			printf("%-9s %-7s %6llu %12s %12s %12s %12s %12s\n",
			       strategy_name(r->s[i].strategy), bench_phases[ph],
			       st.n, fmt_ns(st.median, t[0], FMT_LEN),
			       fmt_ns(tail.p90, t[1], FMT_LEN),
			       fmt_ns(tail.p99, t[2], FMT_LEN),
			       fmt_ns(st.min, t[3], FMT_LEN),
			       fmt_ns(st.max, t[4], FMT_LEN));
		}
	}
}

static void bench_print_json(const struct bench_run *r)
{
	struct stats_tail tail;
	struct utsname uts;
	struct stats st;
	unsigned int i, ph;
	struct json j;

	uname(&uts);
	json_begin(&j, stdout);
	json_str(&j, "kernel", uts.release);
	json_str(&j, "device", r->o->device);
	json_str(&j, "area", r->di.area);
	json_u64(&j, "size_bytes", r->o->size);
	json_u64(&j, "iterations", r->o->iterations);
	json_u64(&j, "page_size", r->di.info.page_size);
	json_array(&j, "results");
	for (i = 0; i < r->n; i++) {
		for (ph = 0; ph < CYCLE_PHASES; ph++) {
			if (stats_compute(r->s[i].ns[ph], r->s[i].done, &st) ||
			    stats_tail(r->s[i].ns[ph], r->s[i].done, &tail))
				continue;
			json_object(&j, NULL);
			json_str(&j, "strategy", strategy_name(r->s[i].strategy));
			json_str(&j, "phase", bench_phases[ph]);
			json_u64(&j, "n", st.n);
			json_u64(&j, "median_ns", st.median);
			json_u64(&j, "p90_ns", tail.p90);
			json_u64(&j, "p99_ns", tail.p99);
			json_u64(&j, "min_ns", st.min);
			json_u64(&j, "max_ns", st.max);
			json_u64(&j, "mean_ns", st.mean);
			json_close(&j);
		}
	}
	json_end(&j);
}

/* The strategies to time: those named, or every one the instance has. */
static int bench_pick(struct bench_run *r)
{
	unsigned int s;

	for (s = 0; s < CMABUF_STRATEGY_COUNT; s++) {
		if (r->o->strategies & CMABUF_STRATEGY_BIT(s)) {
			if (bench_add(r, s, true))
				return 1;
		} else if (!r->o->strategies && s != CMABUF_STRATEGY_AUTO &&
			   r->di.info.strategies & CMABUF_STRATEGY_BIT(s)) {
			if (bench_add(r, s, false))
				return 1;
		}
	}
	if (!r->n) {
		msg_err("bench: no strategy to time on %s", r->o->device);
		return 1;
	}
	return 0;
}

static int bench_run(struct bench_run *r)
{
	unsigned int i, it;
	int status = 0;

	if (bench_pick(r))
		return 1;
	for (it = 0; it < r->o->iterations; it++) {
		for (i = 0; i < r->n; i++) {
			if (!r->s[i].error)
				r->s[i].error = bench_cycle(r, &r->s[i]);
		}
	}
	for (i = 0; i < r->n; i++) {
		if (r->s[i].error)
			status = 1;
	}
	if (r->o->json)
		bench_print_json(r);
	else
		bench_print_text(r);
	return status;
}

int cmd_bench(int argc, char **argv)
{
	struct bench_run r = { 0 };
	struct bench_opts o;
	unsigned int i, ph;
	int ret;

	ret = bench_parse(argc, argv, &o);
	if (ret)
		return ret < 0 ? 0 : ret;
	r.o = &o;
	r.dev_fd = dev_open(o.device);
	if (r.dev_fd < 0)
		return 1;
	ret = dev_info(r.dev_fd, &r.di);
	if (ret || !r.di.info.page_size) {
		dev_explain_info(o.device, ret ?: -EPROTO);
		close(r.dev_fd);
		return 1;
	}
	/* Whole pages, as ALLOC hands them out. */
	o.size = (o.size + r.di.info.page_size - 1) / r.di.info.page_size *
		 r.di.info.page_size;
	ret = bench_run(&r);
	for (i = 0; i < r.n; i++) {
		for (ph = 0; ph < CYCLE_PHASES; ph++)
			free(r.s[i].ns[ph]);
	}
	close(r.dev_fd);
	return ret;
}
