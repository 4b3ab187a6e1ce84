// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf_testctl bench: time one of the test bed's workloads through every
 * path it can take, with the iterations of the paths interleaved: what
 * "make bench", "make check"'s speedup checks and the load suites measure.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testbench.h"
#include "fmt.h"
#include "msg.h"
#include "opts.h"
#include "parse.h"
#include "testctl.h"

#define BENCH_MAX_PATHS		12
#define BENCH_MAX_ITERATIONS	100000

/* Long options without a short one. */
#define BENCH_OPT_SIZE		0x100
#define BENCH_OPT_HEAP		0x101
#define BENCH_OPT_PREPARE	0x102
#define BENCH_OPT_CONCLUDE	0x103
#define BENCH_OPT_PROCS		0x104
#define BENCH_OPT_SPREAD	0x105
#define BENCH_OPT_STEPS		0x106
#define BENCH_OPT_SEED		0x107

/* A 3840x2160 NV12 frame; ALLOC rounds it up to whole pages. */
#define BENCH_CAMERA_FRAME	(3840ULL * 2160 * 3 / 2)

static const struct bench_workload workloads[] = {
	{ "contig-64m", "general", 64ULL << 20, 1, 20, false, false,
	  "64 MiB allocated and freed in the kernel", NULL },
	{ "gigantic-1g", "large", 1ULL << 30, 1, 10, false, false,
	  "1 GiB allocated and freed in the kernel: compound vs frozen", NULL },
	{ "blocks-2m", "large", 2ULL << 20, 512, 3, false, false,
	  "512 allocations of 2 MiB held at once, then 512 frees", NULL },
	{ "e2e-64m", "general", 64ULL << 20, 1, 20, true, false,
	  "64 MiB: alloc, mmap, touch every page, munmap, close", NULL },
	{ "e2e-1g", "large", 1ULL << 30, 1, 3, true, false,
	  "1 GiB: alloc, mmap, touch every page, munmap, close", NULL },
	{ "zero-64m", "general", 64ULL << 20, 1, 20, false, true,
	  "64 MiB cleared in the kernel on one CPU, then on all", NULL },
	{ "zero-1g", "large", 1ULL << 30, 1, 5, false, true,
	  "1 GiB cleared in the kernel on one CPU, then on all", NULL },
	{ "load-64m", "general", 64ULL << 20, 1, 20, true, false,
	  "64 MiB allocated and closed, every call a sample (for memory load)",
	  bench_sampled_loop },
	{ "load-1g", "large", 1ULL << 30, 1, 5, true, false,
	  "1 GiB allocated and closed, every call a sample (for memory load)",
	  bench_sampled_loop },
	{ "load-blocks-2m", "large", 2ULL << 20, 512, 5, true, false,
	  "512 x 2 MiB allocated, then closed, per-block tail (for memory load)",
	  bench_sampled_loop },
	{ "camera", "general", BENCH_CAMERA_FRAME, 8, 10, true, false,
	  "a stream's 8 buffers of 3840x2160 NV12 allocated, then closed",
	  bench_sampled_loop },
	{ "concurrent", "general", 64ULL << 20, 1, 10, true, false,
	  "64 MiB allocated by --procs processes at once (--spread: 2 areas)",
	  bench_concurrent_loop },
	{ "fragment", "general", 1ULL << 20, 1, 1, true, false,
	  "--steps allocations of 1 to 64 MiB and frees; largest buffer probed",
	  bench_fragment_loop },
};

/**
 * struct bench_opts - the command line
 * @wl: the workload
 * @paths: the --strategy list
 * @device: --device, or NULL to pick one
 * @iterations: --iterations, 0 for the workload's default
 * @size: --size, 0 for the workload's or what fits
 * @json: --json
 * @picked: the workload as run, when its size was changed
 */
struct bench_opts {
	const struct bench_workload *wl;
	const char *paths;
	const char *device;
	__u32 iterations;
	__u64 size;
	int json;
	struct bench_workload picked;
};

static void bench_usage(FILE *fp)
{
	size_t i;

	fprintf(fp,
		"usage: cmabuf_testctl bench WORKLOAD [--strategy S[,S...]|all]\n"
		"                            [--iterations N] [--json] [--device DEV]\n"
		"                            [--size SIZE] [--heap NAME]\n"
		"\n"
		"Time WORKLOAD through several paths, iteration i of every path before\n"
		"iteration i + 1 of any. Reports median, min, max, mean, n and spread\n"
		"((max - min) / median) of every phase.\n"
		"\nworkloads (preferred instance, iterations):\n");
	for (i = 0; i < ARRAY_SIZE(workloads); i++)
		fprintf(fp, "  %-14s %s (%s, %u)\n", workloads[i].name, workloads[i].help,
			workloads[i].device, workloads[i].iterations);
	fprintf(fp,
		"\npaths (--strategy):\n"
		"  compound, frozen, legacy, dma, auto  cmabuf with that strategy (cmabuf-<S>)\n"
		"  <S>-4k        end-to-end workloads: cmabuf-<S> mapped with 4 KiB\n"
		"                entries only (THP off for it), to compare with 2 MiB\n"
		"  <S>-prepared  e2e-*, load-64m, load-1g, camera: cmabuf-<S>, every\n"
		"                sample's buffers prepared ahead on a file of its own\n"
		"                (CMABUF_IOC_PREPARE, waited for, after --prepare) and\n"
		"                given back after it, untimed: a prepared ALLOC, not\n"
		"                ALLOC's cold time; skipped where the driver cannot\n"
		"  cpu-ref       workloads timed iteration by iteration: the same\n"
		"                user-space memory work on any kernel (phase ref),\n"
		"                to take each boot's speed out of a comparison of two\n"
		"  cma-debugfs   in-kernel workloads: /sys/kernel/debug/cma/<area>/{alloc,free}\n"
		"  cma-heap      end-to-end workloads: the upstream CMA dma-heap\n"
		"  all           (default) every strategy the device supports\n"
		"                (end to end, with THP, compound-4k too; never a\n"
		"                prepared path: name them beside it, all,auto-prepared);\n"
		"                and the peer of the workload when it is there;\n"
		"                for the zero workloads, cmabuf-auto alone: clearing\n"
		"                is the same whichever strategy allocated\n"
		"\n"
		"  -s, --strategy LIST  comma-separated paths, or all\n"
		"  -n, --iterations N   iterations of every path\n"
		"  -j, --json           one JSON document, a result per path and phase\n"
		"      --prepare CMD    load-*, camera, concurrent, fragment: a shell\n"
		"                       command run before every sample, untimed (its\n"
		"                       environment names it: CMABUF_BENCH_WORKLOAD,\n"
		"                       CMABUF_BENCH_PATH, CMABUF_BENCH_ITERATION; its\n"
		"                       output goes to standard error); a failure stops\n"
		"                       the run. A prepared path's PREPARE comes after\n"
		"                       it\n"
		"      --conclude CMD   the same, after every sample\n"
		"      --procs LIST     concurrent: numbers of processes (default 1,2,4)\n"
		"      --spread DEV     concurrent: every other process allocates from\n"
		"                       DEV, another area\n"
		"      --steps N        fragment: allocations and frees (default 400)\n"
		"      --seed N         fragment: the random sequence (default 1)\n"
		"  -d, --device DEV     a path, a label or 'default' (default: the\n"
		"                       workload's preferred instance when there is one,\n"
		"                       else the instance with the largest area)\n"
		"      --size SIZE      bytes per allocation (default: the workload's, or\n"
		"                       the largest power of two that fits the area's\n"
		"                       free bytes when it does not)\n"
		"      --heap NAME      the CMA heap to use (default: the heap of the\n"
		"                       device's area, else of the default area)\n"
		"\nPhases: in-kernel alloc (the allocator's call: it clears the pages for\n"
		"some strategies and not others), alloc+clear (with the clearing ALLOC\n"
		"adds: compare strategies on it), free (and zero-1cpu, zero-all for the\n"
		"zero workloads); end-to-end alloc, mmap, sync (the CPU access bracket\n"
		"around the touch: cache maintenance where the device is not coherent),\n"
		"touch, munmap, close, and cycle, all of them; cpu-ref's ref.\n"
		"load-*, camera, concurrent and fragment map nothing: they make\n"
		"every allocation a sample that may fail (its errno kept), report\n"
		"the percentiles of those that succeeded and the success rate, run\n"
		"the paths in turn (each goes first in one iteration) and read the\n"
		"kernel's migration and CMA counters around every sample.\n"
		"In-kernel workloads need root and debugfs (/sys/kernel/debug).\n"
		"Exits 1 when no path measured anything.\n");
}

static struct bench_path *path_add(struct bench_path *paths, int *n,
				   const char *name, const struct bench_path_ops *ops,
				   unsigned int phases)
{
	struct bench_path *p;
	int i;

	for (i = 0; i < *n; i++) {
		if (!strcmp(paths[i].name, name))
			return NULL;
	}
	if (*n == BENCH_MAX_PATHS) {
		msg_warn("bench: %s left out: at most %d paths in one run", name,
			 BENCH_MAX_PATHS);
		return NULL;
	}
	p = &paths[(*n)++];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->ops = ops;
	p->phases = phases;
	p->fds[0] = -1;
	p->fds[1] = -1;
	return p;
}

/*
 * cmabuf-<S>; cmabuf-<S>-4k, mapped with 4 KiB entries (end to end);
 * cmabuf-<S>-prepared, every sample's buffers prepared ahead.
 */
static void path_add_cmabuf(struct bench_path *paths, int *n,
			    const struct bench_ctx *c, unsigned int s,
			    enum bench_variant v, bool implied)
{
	const struct bench_workload *wl = c->wl;
	struct bench_path *p;
	char name[32];

	bench_path_name(name, sizeof(name), s, v);
	p = path_add(paths, n, name, wl->e2e ? &bench_cmabuf_e2e_ops :
		     &bench_cmabuf_kernel_ops,
		     wl->e2e ? BENCH_E2E_PHASES :
		     wl->zero ? BENCH_ZERO_PHASES : BENCH_CLEARED_PHASES);
	if (p) {
		p->strategy = s;
		p->small_pages = v == BENCH_SMALL_PAGES;
		p->prepared = v == BENCH_PREPARED;
		p->implied = implied;
	}
}

/* Can mappings be told to use small pages (a kernel with THP)? */
static bool thp_present(void)
{
	return !access("/sys/kernel/mm/transparent_hugepage", F_OK);
}

static void path_add_peer(struct bench_path *paths, int *n,
			  const struct bench_ctx *c, bool implied)
{
	struct bench_path *p;

	if (c->wl->e2e)
		p = path_add(paths, n, "cma-heap", &bench_cma_heap_ops,
			     BENCH_E2E_PHASES);
	else
		p = path_add(paths, n, "cma-debugfs", &bench_cma_debugfs_ops,
			     BENCH_KERNEL_PHASES);
	if (p)
		p->implied = implied;
}

/* Would a COMPOUND allocation of the workload's size fit a folio here? */
static bool compound_fits(const struct bench_ctx *c)
{
	__u64 pages = c->wl->size / c->page_size;
	unsigned int order = __builtin_ctzll(pages);

	return pages >= 2 && !(pages & (pages - 1)) &&
	       order >= c->dev.info.min_compound_order &&
	       order <= c->dev.info.max_compound_order;
}

static void paths_all(struct bench_path *paths, int *n, const struct bench_ctx *c)
{
	unsigned int s;

	if (c->wl->zero) {
		path_add_cmabuf(paths, n, c, CMABUF_STRATEGY_AUTO, BENCH_COLD, true);
		return;
	}
	for (s = CMABUF_STRATEGY_COMPOUND; s < CMABUF_STRATEGY_COUNT; s++) {
		if (!(c->dev.info.strategies & CMABUF_STRATEGY_BIT(s)))
			continue;
		if (s == CMABUF_STRATEGY_COMPOUND && !compound_fits(c)) {
			msg_warn("cmabuf-compound skipped: %llu pages are not a compound order %u..%u of %s",
				 c->wl->size / c->page_size,
				 c->dev.info.min_compound_order,
				 c->dev.info.max_compound_order, c->dev_path);
			continue;
		}
		path_add_cmabuf(paths, n, c, s, BENCH_COLD, true);
		/* The same buffer with 4 KiB entries: what 2 MiB ones are worth. */
		if (s == CMABUF_STRATEGY_COMPOUND && c->wl->e2e && !c->wl->loop &&
		    thp_present())
			path_add_cmabuf(paths, n, c, s, BENCH_SMALL_PAGES, true);
	}
	path_add_peer(paths, n, c, true);
	/* The ALLOC's limit, timed beside the cycles (root's). */
	if (c->wl->e2e && !c->wl->loop) {
		struct bench_path *p = path_add(paths, n, "cmabuf-limit",
						&bench_cmabuf_limit_ops,
						BENCH_ZERO_PHASES);

		if (p) {
			p->strategy = CMABUF_STRATEGY_AUTO;
			p->implied = true;
		}
	}
}

/*
 * Can every sample's buffers be prepared ahead: a held set or an
 * end-to-end cycle, within one PREPARE? 0 or EXIT_USAGE after a message.
 */
static int paths_prepared_fit(const struct bench_ctx *c, const char *tok)
{
	const struct bench_workload *wl = c->wl;

	if (!wl->e2e || (wl->loop && wl->loop != bench_sampled_loop)) {
		msg_err("bench: path %s prepares every sample's buffers: e2e-*, load-* and camera workloads only",
			tok);
		return EXIT_USAGE;
	}
	if (wl->blocks > CMABUF_PREPARE_MAX_COUNT) {
		msg_err("bench: path %s prepares the %u buffers of %s at once: at most %d",
			tok, wl->blocks, wl->name, CMABUF_PREPARE_MAX_COUNT);
		return EXIT_USAGE;
	}
	return 0;
}

/* One entry of --strategy; 0 or EXIT_USAGE after a message. */
static int paths_one(struct bench_path *paths, int *n, const struct bench_ctx *c,
		     const char *tok)
{
	enum bench_variant v;
	int s, ret;

	if (!strcmp(tok, "cma-heap") || !strcmp(tok, "cma-debugfs")) {
		const char *peer = c->wl->e2e ? "cma-heap" : "cma-debugfs";

		if (c->wl->zero) {
			msg_err("bench: workload %s times cmabuf's clearing alone, not %s",
				c->wl->name, tok);
			return EXIT_USAGE;
		}
		if (strcmp(tok, peer)) {
			msg_err("bench: path %s does not fit %s workload %s (use %s)", tok,
				c->wl->e2e ? "end-to-end" : "in-kernel", c->wl->name, peer);
			return EXIT_USAGE;
		}
		path_add_peer(paths, n, c, false);
		return 0;
	}
	if (!strcmp(tok, BENCH_CPU_REF)) {
		if (c->wl->loop) {
			msg_err("bench: path %s is timed beside iterations: not in workload %s",
				tok, c->wl->name);
			return EXIT_USAGE;
		}
		path_add(paths, n, BENCH_CPU_REF, &bench_cpu_ref_ops, BIT(PHASE_REF));
		return 0;
	}
	if (bench_path_parse(tok, &s, &v)) {
		opt_error("bench", "unknown path '%s'", tok);
		return EXIT_USAGE;
	}
	if (v == BENCH_SMALL_PAGES && (!c->wl->e2e || c->wl->loop)) {
		msg_err("bench: path %s maps the buffer: e2e-* workloads only", tok);
		return EXIT_USAGE;
	}
	if (v == BENCH_PREPARED) {
		ret = paths_prepared_fit(c, tok);
		if (ret)
			return ret;
	}
	/* The driver would only say EINVAL: say why (a 64 KiB page's 512 MiB). */
	if (s == CMABUF_STRATEGY_COMPOUND &&
	    c->dev.info.strategies & CMABUF_STRATEGY_BIT(s) && !compound_fits(c)) {
		char sz[FMT_LEN], lo[FMT_LEN], hi[FMT_LEN];

		msg_err("bench: path %s: %s is not a COMPOUND size of %s (a power of two from %s to %s here; --size to choose)",
			tok, fmt_size(c->wl->size, sz, sizeof(sz)), c->dev_path,
			fmt_size((__u64)c->page_size << c->dev.info.min_compound_order,
				 lo, sizeof(lo)),
			fmt_size((__u64)c->page_size << c->dev.info.max_compound_order,
				 hi, sizeof(hi)));
		return EXIT_FAILURE;
	}
	if (s == PARSE_STRATEGY_ALL)
		paths_all(paths, n, c);
	else
		path_add_cmabuf(paths, n, c, s, v, false);
	return 0;
}

/* paths_one()'s arguments but the entry, for parse_list(). */
struct paths_call {
	struct bench_path *paths;
	int *n;
	const struct bench_ctx *c;
};

static int paths_each(const char *tok, void *arg)
{
	const struct paths_call *call = arg;

	return paths_one(call->paths, call->n, call->c, tok);
}

static int paths_parse(struct bench_path *paths, int *n, const struct bench_ctx *c,
		       const char *list)
{
	struct paths_call call = { paths, n, c };
	int ret;

	ret = parse_list(list, paths_each, &call);
	if (ret == -ENOMEM)
		ret = 1;
	if (!ret && !*n) {
		msg_err("bench: no path to time");
		ret = EXIT_USAGE;
	}
	return ret;
}

static int paths_alloc(struct bench_path *p, const struct bench_ctx *c)
{
	int ph;

	for (ph = 0; ph < PHASE_COUNT; ph++) {
		if (!(p->phases & BIT(ph)))
			continue;
		p->samples[ph] = calloc(c->iterations, sizeof(__u64));
		if (!p->samples[ph])
			return -ENOMEM;
		if (c->wl->blocks <= 1)
			continue;
		p->blocks[ph] = calloc(c->iterations, sizeof(struct stats));
		if (!p->blocks[ph])
			return -ENOMEM;
	}
	return 0;
}

static void paths_free(struct bench_path *paths, int n)
{
	int i, ph;

	for (i = 0; i < n; i++) {
		if (paths[i].ops->teardown)
			paths[i].ops->teardown(&paths[i]);
		for (ph = 0; ph < PHASE_COUNT; ph++) {
			free(paths[i].samples[ph]);
			free(paths[i].blocks[ph]);
		}
	}
}

/*
 * A loop workload compares paths on one area: the CMA heap must be the
 * device's area's (6.12 has only the default area's).
 */
static int path_same_area(const struct bench_path *p, const struct bench_ctx *c)
{
	const char *heap;

	if (!c->wl->loop || p->ops != &bench_cma_heap_ops)
		return 0;
	heap = strrchr(p->target, '/');
	if (!heap || !strcmp(heap + 1, c->dev.area))
		return 0;
	msg_warn("%s: %s allocates from another area than %s's (%s)", p->name,
		 p->target, c->dev_path, c->dev.area);
	return -EXDEV;
}

/*
 * A path that cannot run here, yet is no error when named: a prepared one
 * whose driver prepares nothing or whose kernel lacks the strategy (its
 * setup said which).
 */
static bool path_unavailable(const struct bench_path *p, int ret)
{
	return p->prepared && (ret == -ENOTTY || ret == -EOPNOTSUPP);
}

/* Set every path up; drop the implied and unavailable ones that cannot run. */
static int paths_setup(struct bench_path *paths, int *n, struct bench_ctx *c)
{
	int i, ret;

	for (i = 0; i < *n; i++) {
		ret = paths_alloc(&paths[i], c);
		if (!ret && paths[i].ops->setup)
			ret = paths[i].ops->setup(&paths[i], c);
		if (!ret)
			ret = path_same_area(&paths[i], c);
		if (!ret)
			continue;
		/* Its absence is no error then, as if "all" had chosen it. */
		if (path_unavailable(&paths[i], ret))
			paths[i].implied = true;
		if (!paths[i].implied)
			return ret;
		msg_warn("%s skipped", paths[i].name);
		paths[i].error = ret;
	}
	return 0;
}

/* Iteration i of every path, then iteration i + 1. */
static void bench_loop(struct bench_path *paths, int n, struct bench_ctx *c)
{
	bool progress = isatty(STDERR_FILENO);
	unsigned int iter;
	int i, ret;

	for (iter = 0; iter < c->iterations; iter++) {
		if (progress)
			fprintf(stderr, "\r%s: iteration %u/%u", c->wl->name, iter + 1,
				c->iterations);
		for (i = 0; i < n; i++) {
			if (paths[i].error)
				continue;
			/*
			 * The previous cycle's pages go back to CMA in the
			 * background: not during this one, nor taken from it.
			 */
			ret = bench_wait_released(c);
			if (!ret)
				ret = paths[i].ops->run(&paths[i], c, iter);
			if (ret)
				paths[i].error = ret;
			else
				paths[i].done = iter + 1;
		}
	}
	if (progress)
		fprintf(stderr, "\r\033[K");
}

/*
 * Without --device: the workload's preferred instance when this machine
 * has it, else the instance with the largest area (the first one when no
 * area tells its size), so that any board with cmabuf can run it.
 */
static void bench_pick_device(const struct bench_opts *o, struct bench_ctx *c)
{
	static char paths[DEV_LIST_MAX][PATH_MAX];
	char own[PATH_MAX];
	__u64 best_bytes = 0;
	struct dev_info di;
	int i, n, fd;

	dev_resolve(o->wl->device, own, sizeof(own));
	memcpy(c->dev_path, own, sizeof(c->dev_path));
	if (!access(own, F_OK))
		return;
	n = dev_list(paths, DEV_LIST_MAX);
	for (i = 0; i < n; i++) {
		fd = dev_try_open(paths[i], O_RDONLY);
		if (fd < 0)
			continue;
		if (!dev_info(fd, &di) &&
		    (!best_bytes || di.info.total_bytes > best_bytes)) {
			best_bytes = di.info.total_bytes ?: 1;
			memcpy(c->dev_path, paths[i], sizeof(c->dev_path));
		}
		close(fd);
	}
	/* None to open: dev_open() then says which there are. */
	if (best_bytes)
		msg_warn("bench: no %s here, using %s (--device to choose)", own,
			 c->dev_path);
}

/*
 * --size, or the workload's size where it fits: on its own instance
 * unless it exceeds the whole area (the test bed's are made for them),
 * elsewhere unless it exceeds what is free. Else the largest power of two
 * whose blocks fill at most half of what is free (a whole free area is
 * rarely one free range).
 */
static void bench_pick_size(struct bench_opts *o, struct bench_ctx *c)
{
	const struct cmabuf_info *in = &c->dev.info;
	__u64 size = o->size ? o->size : o->wl->size;
	char a[FMT_LEN], b[FMT_LEN], d[FMT_LEN];
	char own[PATH_MAX];
	__u64 room;

	dev_resolve(o->wl->device, own, sizeof(own));
	room = strcmp(own, c->dev_path) ? in->free_bytes : in->total_bytes;
	if (!o->size && (in->flags & CMABUF_INFO_AREA_STATS) &&
	    size * o->wl->blocks > room) {
		while (size > c->page_size &&
		       size * o->wl->blocks > in->free_bytes / 2)
			size /= 2;
		msg_warn("bench: %s free on %s: %s per allocation instead of %s (--size to choose)",
			 fmt_size(in->free_bytes, a, sizeof(a)), c->dev_path,
			 fmt_size(size, b, sizeof(b)),
			 fmt_size(o->wl->size, d, sizeof(d)));
	}
	/* End to end, as ALLOC would: whole pages (a camera frame is not). */
	if (o->wl->loop)
		size = (size + c->page_size - 1) / c->page_size * c->page_size;
	if (size == o->wl->size)
		return;
	o->picked = *o->wl;
	o->picked.size = size;
	c->wl = &o->picked;
}

static int bench_ctx_init(struct bench_ctx *c, struct bench_opts *o)
{
	int ret;

	c->wl = o->wl;
	c->iterations = o->iterations ? o->iterations : o->wl->iterations;
	c->cpus = sysconf(_SC_NPROCESSORS_ONLN);
	uname(&c->uts);
	if (o->device)
		dev_resolve(o->device, c->dev_path, sizeof(c->dev_path));
	else
		bench_pick_device(o, c);
	c->dev_fd = dev_open(c->dev_path);
	if (c->dev_fd < 0)
		return c->dev_fd;
	ret = dev_info(c->dev_fd, &c->dev);
	if (ret) {
		dev_explain_info(c->dev_path, ret);
		goto close_dev;
	}
	c->page_size = c->dev.info.page_size;
	if (c->page_size)
		bench_pick_size(o, c);
	if (!c->page_size || c->wl->size % c->page_size) {
		msg_err("%s: page size %u does not divide %llu", c->dev_path,
			c->page_size, c->wl->size);
		ret = -EINVAL;
		goto close_dev;
	}
	return 0;
close_dev:
	close(c->dev_fd);
	return ret;
}

static int bench_run(struct bench_opts *o, struct bench_ctx *c)
{
	struct bench_path paths[BENCH_MAX_PATHS];
	int i, n = 0, status = 0, measured = 0;

	if (bench_ctx_init(c, o))
		return 1;
	status = paths_parse(paths, &n, c, o->paths);
	if (status)
		goto close_dev;
	if (paths_setup(paths, &n, c)) {
		status = 1;
		goto free_paths;
	}
	if (c->wl->loop) {
		status = c->wl->loop(c, paths, n);
		goto free_paths;
	}
	bench_loop(paths, n, c);
	if (o->json)
		bench_print_json(c, paths, n);
	else
		bench_print_text(c, paths, n);
	for (i = 0; i < n; i++) {
		if (paths[i].done)
			measured++;
		if (paths[i].error && !paths[i].implied)
			status = 1;
		else if (paths[i].error && paths[i].done)
			msg_warn("%s stopped after %u iterations", paths[i].name,
				 paths[i].done);
	}
	if (!measured) {
		msg_err("bench: measured nothing: no path ran (see above)");
		status = 1;
	}
free_paths:
	paths_free(paths, n);
close_dev:
	close(c->dev_fd);
	return status;
}

static const struct bench_workload *workload_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(workloads); i++) {
		if (!strcmp(name, workloads[i].name))
			return &workloads[i];
	}
	return NULL;
}

/*
 * An entry of --strategy is a path's name: checked before any device is
 * looked at; 0 or EXIT_USAGE after the error line.
 */
static int paths_name(const char *tok, void *arg)
{
	enum bench_variant v;
	int s;

	if (strcmp(tok, "cma-heap") && strcmp(tok, "cma-debugfs") &&
	    strcmp(tok, BENCH_CPU_REF) && bench_path_parse(tok, &s, &v)) {
		opt_error("bench", "unknown path '%s'", tok);
		return EXIT_USAGE;
	}
	return 0;
}

/*
 * An option of a workload it means nothing to is refused, as share
 * refuses --video for kms; 0 or EXIT_USAGE after the error line.
 */
static int bench_option_fits(const char *cmd, const struct bench_ctx *c,
			     const char *opt, bool given)
{
	const struct bench_workload *wl = c->wl;
	const char *only;

	if (!given)
		return 0;
	if (!strcmp(opt, "--procs") || !strcmp(opt, "--spread"))
		only = wl->loop == bench_concurrent_loop ? NULL : "concurrent";
	else if (!strcmp(opt, "--steps") || !strcmp(opt, "--seed"))
		only = wl->loop == bench_fragment_loop ? NULL : "fragment";
	else if (!strcmp(opt, "--heap"))
		only = wl->e2e ? NULL : "the end-to-end workloads";
	else
		only = wl->loop ? NULL : "load-*, camera, concurrent and fragment";
	if (!only)
		return 0;
	opt_error(cmd, "%s means nothing to workload %s (%s only)", opt,
		  wl->name, only);
	return EXIT_USAGE;
}

static int bench_parse(int argc, char **argv, struct bench_opts *o,
		       struct bench_ctx *c)
{
	static const struct option opts[] = {
		{ "strategy", required_argument, NULL, 's' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, BENCH_OPT_SIZE },
		{ "heap", required_argument, NULL, BENCH_OPT_HEAP },
		{ "prepare", required_argument, NULL, BENCH_OPT_PREPARE },
		{ "conclude", required_argument, NULL, BENCH_OPT_CONCLUDE },
		{ "procs", required_argument, NULL, BENCH_OPT_PROCS },
		{ "spread", required_argument, NULL, BENCH_OPT_SPREAD },
		{ "steps", required_argument, NULL, BENCH_OPT_STEPS },
		{ "seed", required_argument, NULL, BENCH_OPT_SEED },
		{ "device", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	bool steps = false, seed = false;
	struct opt_common oc = { };
	int ch, ret = 0;

	while (!ret && (ch = opt_next(argc, argv, "s:n:", opts, &oc)) != -1) {
		switch (ch) {
		case 's':
			o->paths = optarg;
			break;
		case 'n':
			ret = opt_u32(argv[0], "--iterations", optarg, 1,
				      BENCH_MAX_ITERATIONS, &o->iterations);
			break;
		case BENCH_OPT_SIZE:
			ret = opt_size(argv[0], "--size", optarg, &o->size);
			break;
		case BENCH_OPT_HEAP:
			c->heap = optarg;
			break;
		case BENCH_OPT_PREPARE:
			c->prepare = optarg;
			break;
		case BENCH_OPT_CONCLUDE:
			c->conclude = optarg;
			break;
		case BENCH_OPT_PROCS:
			c->procs = optarg;
			break;
		case BENCH_OPT_SPREAD:
			c->spread = optarg;
			break;
		case BENCH_OPT_STEPS:
			ret = opt_u32(argv[0], "--steps", optarg, 1, UINT_MAX,
				      &c->steps);
			steps = true;
			break;
		case BENCH_OPT_SEED:
			ret = opt_u32(argv[0], "--seed", optarg, 0, UINT_MAX,
				      &c->seed);
			seed = true;
			break;
		case 'h':
			bench_usage(stdout);
			return -1;
		default:
			return EXIT_USAGE;
		}
	}
	ret = ret ?: opt_words(argc, argv, 1, 1, "WORKLOAD");
	if (ret)
		return ret;
	o->device = oc.device;
	o->json = oc.json;
	c->json = oc.json;
	o->wl = workload_find(argv[optind]);
	if (!o->wl) {
		opt_error(argv[0], "unknown workload '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	c->wl = o->wl;
	ret = parse_list(o->paths, paths_name, NULL) ? EXIT_USAGE : 0;
	ret = ret ?: bench_option_fits(argv[0], c, "--procs", c->procs);
	ret = ret ?: bench_option_fits(argv[0], c, "--spread", c->spread);
	ret = ret ?: bench_option_fits(argv[0], c, "--steps", steps);
	ret = ret ?: bench_option_fits(argv[0], c, "--seed", seed);
	ret = ret ?: bench_option_fits(argv[0], c, "--heap", c->heap);
	ret = ret ?: bench_option_fits(argv[0], c, "--prepare", c->prepare);
	return ret ?: bench_option_fits(argv[0], c, "--conclude", c->conclude);
}

int testctl_bench(int argc, char **argv)
{
	struct bench_opts o = { .paths = "all" };
	struct bench_ctx c = { .dev_fd = -1, .steps = 400, .seed = 1 };
	int ret;

	ret = bench_parse(argc, argv, &o, &c);
	if (ret)
		return ret < 0 ? 0 : ret;
	return bench_run(&o, &c);
}
