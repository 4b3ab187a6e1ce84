// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf_shrinktime: how long ready buffers stay out of movable use once
 * memory runs short: real pressure, not drop_caches.
 *
 *   cmabuf_shrinktime --device DEV --size SIZE --count N [--reserve]
 *                     [--step SIZE] [--margin SIZE] [--timeout MS]
 *
 * Has N buffers of SIZE bytes prepared on cmabuf instance DEV (with
 * --reserve, as the instance's standing reserve instead of by this file)
 * and waits until they are ready. Then touches anonymous memory, STEP
 * bytes at a time (2 MiB), until the kernel starts to reclaim
 * (/proc/vmstat's scans, stalls or kswapd runs move), and holds it: kswapd
 * runs, and the instance's shrinker is asked for its pages. It stops
 * touching earlier when the memory outside CMA, which the kernel's own
 * allocations need, comes within MARGIN (4 MiB) of the min watermarks.
 * Measured from the first reclaim until the instance's prepared_bytes is
 * 0, within TIMEOUT ms (10 000) of it; touching that has not made the
 * kernel reclaim in 2 minutes gives up. Prepared buffers are asked to
 * stay ready for an hour, so that no time-out gives them back instead.
 * The reserve is kept through reclaim (up to reserve_max_bytes): with
 * --reserve the pressure is held for the whole TIMEOUT and the lowest
 * prepared_bytes seen is what it kept ("kept").
 * Then, the pressure still held, the COUNT ALLOCs of SIZE a camera's
 * first frames would make, timed ("alloc_after": each ALLOC's ns, and how
 * many took a ready buffer, from stats/prepare_hits): a kept reserve serves
 * them at once, buffers a file prepared before the pressure are gone.
 * The instance's reclaim counters (reclaimed_buffers, reclaimed_bytes,
 * refilled_buffers, refilled_bytes) over the run go in "counts" (null on
 * a driver without them). Prints one JSON record ("record": "shrink");
 * exit status 0 when everything prepared by the file came back, or the
 * reserve was kept through a reclaim, 1 when not, 2 on bad arguments.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/cmabuf.h>
#include <linux/types.h>

#include "json.h"
#include "load.h"
#include "parse.h"

#define SHRINK_STATS	"/sys/class/misc"
#define SHRINK_COUNTS	4
#define SHRINK_ALLOCS	16
#define SHRINK_POLL_US	5000
#define SHRINK_READY_NS	(60 * 1000000000ULL)
/* Touching that has not made the kernel reclaim by then never will. */
#define SHRINK_PRESS_NS	(120 * 1000000000ULL)

/* The ALLOCs made under the held pressure at the end. */
struct shrink_allocs {
	__u32 n;
	__u64 ns[SHRINK_ALLOCS];
	__u64 hits;
	int err;
};

struct shrink_opts {
	const char *device;
	__u64 size, step, margin;
	__u32 count, timeout_ms;
	bool reserve;
};

/* One look at the machine and the instance. */
struct shrink_look {
	__u64 ns;
	__u64 prepared;		/* the instance's prepared_bytes */
	__u64 low;		/* the lowest prepared_bytes so far */
	__u64 mem_free, cma_free;	/* bytes, /proc/meminfo */
	__u64 reclaim;		/* pgscan_*, allocstall_*, pageoutrun */
	__u64 slabs_scanned;	/* objects every shrinker was asked for */
	__u64 touched;		/* bytes of ours */
};

static int write_str(const char *path, const char *s)
{
	ssize_t len = strlen(s), done;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	done = write(fd, s, len);
	if (done != len)
		done = done < 0 ? -errno : -EIO;
	close(fd);
	return done < 0 ? done : 0;
}

/* The instance's reserve, as SIZExCOUNT words; "\n" drops it. */
static int reserve_set(const char *sys, const char *words)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/reserve", sys);
	return write_str(path, words);
}

static bool starts(const char *line, const char *prefix)
{
	return !strncmp(line, prefix, strlen(prefix));
}

/* The free memory, and the counters of /proc/vmstat we watch. */
static int read_proc(struct shrink_look *l)
{
	struct load_sys sys = { };
	unsigned long long v;
	char key[64], line[256];
	FILE *fp;
	int ret;

	ret = sys_read_meminfo(&sys);
	if (ret)
		return ret;
	l->mem_free = sys.mem_free;
	l->cma_free = sys.cma_free;

	fp = fopen("/proc/vmstat", "re");
	if (!fp)
		return -errno;
	l->reclaim = 0;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%63s %llu", key, &v) != 2)
			continue;
		if (starts(key, "pgscan_") || starts(key, "allocstall_") ||
		    !strcmp(key, "pageoutrun"))
			l->reclaim += v;
		else if (!strcmp(key, "slabs_scanned"))
			l->slabs_scanned = v;
	}
	fclose(fp);
	return 0;
}

/* The instance's reclaim counters, in order; see shrink_counts(). */
static const char *const counts_name[SHRINK_COUNTS] = {
	"reclaimed_buffers", "reclaimed_bytes", "refilled_buffers",
	"refilled_bytes",
};

/* The counters now; false on a driver without them. */
static bool shrink_counts(const char *sys, __u64 *v)
{
	int i;

	for (i = 0; i < SHRINK_COUNTS; i++)
		if (sys_read_u64(sys, counts_name[i], &v[i]))
			return false;
	return true;
}

/* @sys: the instance's sysfs directory. */
static int look(const char *sys, __u64 touched, struct shrink_look *l)
{
	int ret;

	l->ns = now_ns();
	l->touched = touched;
	ret = sys_read_u64(sys, "prepared_bytes", &l->prepared);
	return ret ?: read_proc(l);
}

/* @l, its time counted from @start's; null if it never happened. */
static void json_look(struct json *j, const char *key,
		      const struct shrink_look *l, const struct shrink_look *start)
{
	if (!l->ns) {
		json_null(j, key);
		return;
	}
	json_object(j, key);
	json_u64(j, "at_ns", l->ns - start->ns);
	json_u64(j, "prepared_bytes", l->prepared);
	json_u64(j, "mem_free_bytes", l->mem_free);
	json_u64(j, "cma_free_bytes", l->cma_free);
	json_u64(j, "touched_bytes", l->touched);
	json_u64(j, "slabs_scanned", l->slabs_scanned);
	json_close(j);
}

static int shrink_parse(int argc, char **argv, struct shrink_opts *o)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "size", required_argument, NULL, 'S' },
		{ "count", required_argument, NULL, 'n' },
		{ "step", required_argument, NULL, 's' },
		{ "margin", required_argument, NULL, 'm' },
		{ "timeout", required_argument, NULL, 't' },
		{ "reserve", no_argument, NULL, 'r' },
		{ }
	};
	int ch, bad = 0;

	while ((ch = getopt_long(argc, argv, "d:S:n:s:m:t:r", opts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			o->device = optarg;
			break;
		case 'S':
			bad |= parse_size(optarg, &o->size);
			break;
		case 'n':
			bad |= parse_u32(optarg, &o->count);
			break;
		case 's':
			bad |= parse_size(optarg, &o->step);
			break;
		case 'm':
			bad |= parse_size(optarg, &o->margin);
			break;
		case 't':
			bad |= parse_u32(optarg, &o->timeout_ms);
			break;
		case 'r':
			o->reserve = true;
			break;
		default:
			return -1;
		}
	}
	return !bad && optind == argc && o->device && o->size && o->count &&
	       o->step && o->timeout_ms ? 0 : -1;
}

/*
 * Touch memory until the kernel reclaims, then hold it until the instance
 * has nothing prepared or the time-out after the first reclaim passes.
 * @held: the look when touching stopped; @t0: the first that saw reclaim;
 * @first: the first with less prepared; @all: the first with none.
 */
/*
 * @o->count ALLOCs of @o->size on @fd, each timed, kept until all are made;
 * ready buffers among them from the instance's stats/prepare_hits.
 */
static void alloc_after(const struct shrink_opts *o, int fd, const char *sys,
			struct shrink_allocs *a)
{
	__u64 hits0 = 0, hits1 = 0, t;
	int fds[SHRINK_ALLOCS];
	char stats[300];
	__u32 i;

	snprintf(stats, sizeof(stats), "%s/stats", sys);
	sys_read_u64(stats, "prepare_hits", &hits0);
	for (i = 0; i < o->count && i < SHRINK_ALLOCS; i++) {
		struct cmabuf_alloc_data data = {
			.size = o->size,
			.fd_flags = O_RDWR | O_CLOEXEC,
			.flags = CMABUF_STRATEGY_AUTO,
		};

		t = now_ns();
		if (ioctl(fd, CMABUF_IOC_ALLOC, &data)) {
			a->err = errno;
			break;
		}
		a->ns[i] = now_ns() - t;
		fds[i] = data.fd;
		a->n++;
	}
	sys_read_u64(stats, "prepare_hits", &hits1);
	a->hits = hits1 - hits0;
	for (i = 0; i < a->n; i++)
		close(fds[i]);
}

static int press(const struct shrink_opts *o, const char *sys, int fd,
		 struct shrink_look *start, struct shrink_look *held,
		 struct shrink_look *t0, struct shrink_look *first,
		 struct shrink_look *all, struct shrink_allocs *allocs)
{
	__u64 keep = 0, mem, touched = 0, ps = sysconf(_SC_PAGESIZE), i;
	struct shrink_look l;
	unsigned char *base;
	int ret;

	ret = sys_min_watermarks(&keep);
	if (ret)
		return ret;
	keep += o->margin;
	ret = look(sys, 0, start);
	if (ret)
		return ret;
	mem = start->mem_free;
	start->low = start->prepared;
	base = mmap(NULL, mem, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		return -errno;
	for (;;) {
		ret = look(sys, touched, &l);
		if (ret)
			break;
		if (!t0->ns && l.reclaim != start->reclaim)
			*t0 = l;
		if (!first->ns && l.prepared < start->prepared)
			*first = l;
		if (!l.prepared && !o->reserve) {
			*all = l;
			break;
		}
		start->low = l.prepared < start->low ? l.prepared : start->low;
		if (t0->ns && l.ns - t0->ns > o->timeout_ms * 1000000ULL)
			break;
		if (!t0->ns && l.ns - start->ns > SHRINK_PRESS_NS)
			break;
		if (!t0->ns && l.mem_free > l.cma_free + keep + o->step &&
		    touched + o->step <= mem) {
			for (i = 0; i < o->step; i += ps)
				base[touched + i] = 1;
			touched += o->step;
		} else {
			if (!held->ns)
				*held = l;
			usleep(SHRINK_POLL_US);
		}
	}
	if (!ret && t0->ns)
		alloc_after(o, fd, sys, allocs);
	munmap(base, mem);
	return ret;
}

/*
 * The buffers made ready: by this file (@fd), or as the reserve, which is
 * ready once prepared_bytes has all of it (the instance has nothing else
 * prepared here).
 */
static int make_ready(const struct shrink_opts *o, int fd, const char *sys)
{
	struct cmabuf_prepare prep = {
		.size = o->size,
		.flags = CMABUF_STRATEGY_AUTO | CMABUF_PREPARE_WAIT,
		.count = o->count,
		/* Not the time-out's doing: an hour unused. */
		.timeout_ms = 3600 * 1000,
	};
	__u64 ready, until = now_ns() + SHRINK_READY_NS;
	char words[64];
	int ret;

	if (!o->reserve)
		return ioctl(fd, CMABUF_IOC_PREPARE, &prep) ? -errno :
		       prep.ready == o->count ? 0 : -EAGAIN;
	snprintf(words, sizeof(words), "%llux%u\n",
		 (unsigned long long)o->size, o->count);
	ret = reserve_set(sys, words);
	if (ret)
		return ret;
	while (!(ret = sys_read_u64(sys, "prepared_bytes", &ready)) &&
	       ready < o->size * o->count) {
		if (now_ns() > until)
			return -ETIMEDOUT;
		usleep(SHRINK_POLL_US);
	}
	return ret;
}

int main(int argc, char **argv)
{
	struct shrink_opts o = { .step = 2 << 20, .margin = 4 << 20,
				 .timeout_ms = 10000 };
	struct shrink_look start = { }, held = { }, t0 = { }, first = { };
	struct shrink_look all = { };
	__u64 c0[SHRINK_COUNTS], c1[SHRINK_COUNTS];
	struct shrink_allocs allocs = { };
	__u32 i;
	bool counted, kept;
	char sys[256];
	const char *dev;
	struct json j;
	int fd, ret;

	if (shrink_parse(argc, argv, &o)) {
		fprintf(stderr,
			"usage: cmabuf_shrinktime --device DEV --size SIZE --count N [--reserve]\n"
			"                         [--step SIZE] [--margin SIZE] [--timeout MS]\n");
		return 2;
	}
	dev = strrchr(o.device, '/');
	snprintf(sys, sizeof(sys), "%s/%s", SHRINK_STATS, dev ? dev + 1 : o.device);
	fd = open(o.device, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "cmabuf_shrinktime: %s: %s\n", o.device,
			strerror(errno));
		return 1;
	}
	ret = make_ready(&o, fd, sys);
	counted = shrink_counts(sys, c0);
	if (!ret)
		ret = press(&o, sys, fd, &start, &held, &t0, &first, &all,
			    &allocs);
	counted = counted && shrink_counts(sys, c1);
	/* The reserve stands until dropped; the file's go with the file. */
	if (o.reserve)
		reserve_set(sys, "\n");
	close(fd);
	if (ret) {
		fprintf(stderr, "cmabuf_shrinktime: %u x %llu%s: %s\n", o.count,
			(unsigned long long)o.size, o.reserve ? " reserved" : "",
			strerror(-ret));
		return 1;
	}

	json_begin(&j, stdout);
	json_str(&j, "record", "shrink");
	json_str(&j, "device", o.device);
	json_str(&j, "by", o.reserve ? "reserve" : "prepare");
	json_u64(&j, "size_bytes", o.size);
	json_u64(&j, "count", o.count);
	json_u64(&j, "timeout_ms", o.timeout_ms);
	json_look(&j, "start", &start, &start);
	json_look(&j, "held", &held, &start);
	json_look(&j, "reclaim", &t0, &start);
	json_look(&j, "first_back", &first, &start);
	json_look(&j, "all_back", &all, &start);
	if (t0.ns && all.ns)
		json_u64(&j, "back_after_reclaim_ns",
			 all.ns > t0.ns ? all.ns - t0.ns : 0);
	else
		json_null(&j, "back_after_reclaim_ns");
	json_u64(&j, "min_prepared_bytes", start.low);
	json_object(&j, "alloc_after");
	json_array(&j, "ns");
	for (i = 0; i < allocs.n; i++)
		json_u64(&j, NULL, allocs.ns[i]);
	json_close(&j);
	json_u64(&j, "hits", allocs.hits);
	json_u64(&j, "errno", allocs.err);
	json_close(&j);
	kept = t0.ns && start.low >= o.size * o.count;
	json_bool(&j, "kept", kept);
	if (counted) {
		json_object(&j, "counts");
		for (i = 0; i < SHRINK_COUNTS; i++)
			json_u64(&j, counts_name[i], c1[i] - c0[i]);
		json_close(&j);
	} else {
		json_null(&j, "counts");
	}
	json_end(&j);
	return (o.reserve ? kept : all.ns) ? 0 : 1;
}
