// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf_rw_bench: how fast bytes move between a disk and a buffer.
 *
 *   cmabuf_rw_bench --disk DEV [--size SIZE]... [--runs N] [--device CMABUF]
 *
 * Three paths, both ways, on the raw block device DEV (which it
 * overwrites), SIZE bytes from its start:
 *   cmabuf-rw     CMABUF_IOC_RW with DEV opened O_DIRECT: the disk's DMA
 *                 into or out of a cmabuf buffer;
 *   anon-odirect  pread()/pwrite() of DEV opened O_DIRECT into or out of
 *                 anonymous memory: the limit, the disk's own speed;
 *   pagecache     pread()/pwrite() of DEV without O_DIRECT into or out of
 *                 the buffer's mapping, what users do today (O_DIRECT on
 *                 the mapping fails with EFAULT), between DMA_BUF_IOCTL_SYNC
 *                 brackets; a write counts until fdatasync() returns, when
 *                 its bytes are on the disk as O_DIRECT's are;
 *   brackets      no I/O: the DMA_BUF_IOCTL_SYNC calls that do what
 *                 cmabuf-rw's own brackets do (a read: START and END with
 *                 DMA_BUF_SYNC_WRITE; a write: START with _READ), the cache
 *                 maintenance of a non-coherent instance, part of
 *                 cmabuf-rw's time.
 * Before every timed call the page cache is dropped, so that every read
 * comes from the disk. Every path runs once untimed first (the mapping's
 * faults, the first bios). The paths take turns, their order rotating from
 * run to run; writes first (they put the bytes on the disk the reads read).
 * For each call: the time, the process's CPU time (getrusage) and the
 * CPU time the whole guest spent busy (/proc/stat, every CPU: the block
 * layer's and the writeback's work in other threads included). A read's
 * bytes are checked after it, outside the time.
 *
 * Output: one line per call, "# bench-rw-json {...}", then per size,
 * direction and path the median and the range of the throughput and of
 * the CPU times, and the ratios of the medians. With --min-lead RATIO the
 * exit status is 1 when cmabuf-rw's median throughput is below RATIO
 * times pagecache's in either direction, with --min-of-anon RATIO when it
 * is below RATIO times anon-odirect's (the speedup suite's checks).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <linux/cmabuf.h>
#include <linux/dma-buf.h>

#define MAX_SIZES	4
#define MAX_RUNS	32
#define NPATHS		4

enum { PATH_RW, PATH_ANON, PATH_CACHE, PATH_SYNC };

static const char *const path_names[NPATHS] = {
	"cmabuf-rw", "anon-odirect", "pagecache", "brackets",
};

/**
 * struct sample - one timed call
 * @ns: its wall-clock time
 * @proc_ns: the process's CPU time (user and system)
 * @busy_ns: the guest's busy CPU time, every CPU
 */
struct sample {
	unsigned long long ns;
	unsigned long long proc_ns;
	unsigned long long busy_ns;
};

struct bench {
	const char *disk;
	const char *device;
	unsigned long long sizes[MAX_SIZES];
	unsigned int nsizes;
	unsigned int runs;
	double min_lead;
	double min_of_anon;
	bool behind;
	__u32 strategy;
	int fd_direct, fd_cache, dev;
};

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static unsigned long long proc_cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL;
}

/* Busy time of every CPU, from /proc/stat's first line: all but idle and iowait. */
static unsigned long long busy_ns(void)
{
	unsigned long long v[10] = { 0 }, busy = 0;
	FILE *f = fopen("/proc/stat", "r");
	int i, n;

	if (!f)
		return 0;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7],
		   &v[8], &v[9]);
	fclose(f);
	/* user nice system idle iowait irq softirq steal guest guest_nice */
	for (i = 0; i < n && i < 8; i++)
		if (i != 3 && i != 4)
			busy += v[i];
	return busy * (1000000000ULL / sysconf(_SC_CLK_TCK));
}

static void cache_drop(void)
{
	int fd;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "3", 1) != 1)
			perror("/proc/sys/vm/drop_caches");
		close(fd);
	}
}

static __u64 word(__u64 i)
{
	__u64 z = i * 0x9e3779b97f4a7c15ULL + 0x1234567ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	return z ^ (z >> 27);
}

static void fill(void *p, size_t len)
{
	__u64 *w = p;
	size_t i;

	for (i = 0; i < len / 8; i++)
		w[i] = word(i);
}

/* Every 4 KiB block's first and last word: the first that differs, or -1. */
static long long check(const void *p, size_t len)
{
	const __u64 *w = p;
	size_t i;

	for (i = 0; i < len / 8; i += 512) {
		if (w[i] != word(i))
			return i * 8;
		if (w[i + 511] != word(i + 511))
			return (i + 511) * 8;
	}
	return -1;
}

static int buf_sync(int buf, __u64 flags)
{
	struct dma_buf_sync s = { .flags = flags };

	return ioctl(buf, DMA_BUF_IOCTL_SYNC, &s);
}

/* One call of @path, @write or read, of @len bytes: 0 or -1 (errno set). */
static int run_one(const struct bench *b, int path, bool write, int buf,
		   void *map, void *anon, size_t len)
{
	struct cmabuf_rw r = {
		.buf_fd = buf, .file_fd = b->fd_direct, .length = len,
		.flags = write ? CMABUF_RW_WRITE : CMABUF_RW_READ,
	};
	ssize_t n;

	switch (path) {
	case PATH_RW:
		if (ioctl(b->dev, CMABUF_IOC_RW, &r))
			return -1;
		n = r.done;
		break;
	case PATH_ANON:
		n = write ? pwrite(b->fd_direct, anon, len, 0) :
			    pread(b->fd_direct, anon, len, 0);
		break;
	case PATH_SYNC:
		if (write)
			return buf_sync(buf, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ);
		return buf_sync(buf, DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE) ||
		       buf_sync(buf, DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE);
	default:
		buf_sync(buf, DMA_BUF_SYNC_START |
			 (write ? DMA_BUF_SYNC_READ : DMA_BUF_SYNC_WRITE));
		n = write ? pwrite(b->fd_cache, map, len, 0) :
			    pread(b->fd_cache, map, len, 0);
		buf_sync(buf, DMA_BUF_SYNC_END |
			 (write ? DMA_BUF_SYNC_READ : DMA_BUF_SYNC_WRITE));
		if (write && n == (ssize_t)len && fdatasync(b->fd_cache))
			return -1;
		break;
	}
	if (n != (ssize_t)len) {
		if (n >= 0)
			errno = EIO;
		return -1;
	}
	return 0;
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/* Median, smallest and largest of @n values (sorted in place). */
static void stats(unsigned long long *v, unsigned int n,
		  unsigned long long *med, unsigned long long *lo,
		  unsigned long long *hi)
{
	qsort(v, n, sizeof(*v), cmp_ull);
	*med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	*lo = v[0];
	*hi = v[n - 1];
}

static double mib_s(size_t len, unsigned long long ns)
{
	return ns ? (double)len / (1 << 20) / (ns / 1e9) : 0;
}

static void report(struct bench *b, size_t len, bool write,
		   struct sample s[NPATHS][MAX_RUNS])
{
	unsigned long long v[MAX_RUNS], med[NPATHS], lo, hi, pm, bm, x, y;
	unsigned int p, r;

	for (p = 0; p < NPATHS; p++) {
		for (r = 0; r < b->runs; r++)
			v[r] = s[p][r].ns;
		stats(v, b->runs, &med[p], &lo, &hi);
		for (r = 0; r < b->runs; r++)
			v[r] = s[p][r].proc_ns;
		stats(v, b->runs, &pm, &x, &y);
		for (r = 0; r < b->runs; r++)
			v[r] = s[p][r].busy_ns;
		stats(v, b->runs, &bm, &x, &y);
		/* The slowest run is the lowest throughput. */
		printf("# %4llu MiB %-5s %-12s ", (unsigned long long)len >> 20,
		       write ? "write" : "read", path_names[p]);
		printf("%8.1f MiB/s (%.1f-%.1f)  %8.1f ms  ", mib_s(len, med[p]),
		       mib_s(len, hi), mib_s(len, lo), med[p] / 1e6);
		printf("cpu %7.1f ms  busy %7.1f ms\n", pm / 1e6, bm / 1e6);
	}
	printf("# %4llu MiB %-5s ", (unsigned long long)len >> 20,
	       write ? "write" : "read");
	printf("cmabuf-rw / anon-odirect %.2f, cmabuf-rw / pagecache %.2f (throughput, medians)\n",
	       (double)med[PATH_ANON] / med[PATH_RW],
	       (double)med[PATH_CACHE] / med[PATH_RW]);
	printf("# %4llu MiB %-5s ", (unsigned long long)len >> 20,
	       write ? "write" : "read");
	printf("cmabuf-rw without its brackets / anon-odirect %.2f (medians)\n",
	       med[PATH_RW] > med[PATH_SYNC] ?
	       (double)med[PATH_ANON] / (med[PATH_RW] - med[PATH_SYNC]) : 0);
	if ((double)med[PATH_CACHE] < b->min_lead * med[PATH_RW]) {
		printf("# %4llu MiB %-5s cmabuf-rw is not %.1f times pagecache\n",
		       (unsigned long long)len >> 20, write ? "write" : "read",
		       b->min_lead);
		b->behind = true;
	}
	if ((double)med[PATH_ANON] < b->min_of_anon * med[PATH_RW]) {
		printf("# %4llu MiB %-5s cmabuf-rw is not %.2f of anon-odirect\n",
		       (unsigned long long)len >> 20, write ? "write" : "read",
		       b->min_of_anon);
		b->behind = true;
	}
}

static void sample_print(size_t len, bool read, int path, unsigned int run,
			 const struct sample *s)
{
	printf("# bench-rw-json {\"size\": %zu, \"dir\": \"%s\", ", len,
	       read ? "read" : "write");
	printf("\"path\": \"%s\", \"run\": %u, \"ns\": %llu, ",
	       path_names[path], run, s->ns);
	printf("\"proc_ns\": %llu, \"busy_ns\": %llu}\n", s->proc_ns,
	       s->busy_ns);
}

static int bench_size(struct bench *b, size_t len)
{
	static struct sample s[2][NPATHS][MAX_RUNS];
	struct cmabuf_alloc_data d = {
		.size = len, .fd_flags = O_RDWR | O_CLOEXEC,
		.flags = b->strategy,
	};
	unsigned long long t, c, busy;
	unsigned int run, i, w;
	void *map, *anon;
	long long bad;
	int p;

	if (ioctl(b->dev, CMABUF_IOC_ALLOC, &d)) {
		fprintf(stderr, "ALLOC %zu bytes on %s: %s\n", len, b->device,
			strerror(errno));
		return -1;
	}
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, d.fd, 0);
	anon = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (map == MAP_FAILED || anon == MAP_FAILED) {
		perror("mmap");
		return -1;
	}
	fill(map, len);
	fill(anon, len);
	/* The bytes on the disk before the first read. */
	if (pwrite(b->fd_direct, anon, len, 0) != (ssize_t)len) {
		perror("pwrite of the disk");
		return -1;
	}
	/* Untimed: the mapping's faults, the first bios of each path. */
	for (w = 0; w < 2; w++)
		for (p = 0; p < NPATHS; p++)
			if (run_one(b, p, !w, d.fd, map, anon, len)) {
				fprintf(stderr, "%s (untimed): %s\n", path_names[p],
					strerror(errno));
				return -1;
			}
	printf("# %zu MiB: %s buffer of %s, disk %s\n", len >> 20,
	       d.strategy == CMABUF_STRATEGY_COMPOUND ? "COMPOUND" :
	       d.strategy == CMABUF_STRATEGY_FROZEN ? "FROZEN" :
	       d.strategy == CMABUF_STRATEGY_LEGACY ? "LEGACY" : "DMA",
	       b->device, b->disk);
	for (run = 0; run < b->runs; run++) {
		for (w = 0; w < 2; w++) {
			for (i = 0; i < NPATHS; i++) {
				p = (i + run) % NPATHS;
				cache_drop();
				t = now_ns();
				c = proc_cpu_ns();
				busy = busy_ns();
				if (run_one(b, p, !w, d.fd, map, anon, len)) {
					fprintf(stderr, "%s %s: %s\n", path_names[p],
						w ? "read" : "write", strerror(errno));
					return -1;
				}
				s[w][p][run].ns = now_ns() - t;
				s[w][p][run].proc_ns = proc_cpu_ns() - c;
				s[w][p][run].busy_ns = busy_ns() - busy;
				sample_print(len, w, p, run, &s[w][p][run]);
				fflush(stdout);
				if (!w || p == PATH_SYNC)
					continue;
				bad = check(p == PATH_ANON ? anon : map, len);
				if (bad >= 0) {
					fprintf(stderr, "%s read: byte %lld is wrong\n",
						path_names[p], bad);
					return -1;
				}
			}
		}
	}
	report(b, len, true, s[0]);
	report(b, len, false, s[1]);
	munmap(anon, len);
	munmap(map, len);
	close(d.fd);
	return 0;
}

static int parse_size(const char *s, unsigned long long *v)
{
	char *end;

	*v = strtoull(s, &end, 0);
	if (*end == 'K')
		*v <<= 10;
	else if (*end == 'M')
		*v <<= 20;
	else if (*end == 'G')
		*v <<= 30;
	else if (*end)
		return -1;
	return *v ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "disk", required_argument, NULL, 'D' },
		{ "size", required_argument, NULL, 's' },
		{ "runs", required_argument, NULL, 'n' },
		{ "device", required_argument, NULL, 'd' },
		{ "compound", no_argument, NULL, 'c' },
		{ "min-lead", required_argument, NULL, 'l' },
		{ "min-of-anon", required_argument, NULL, 'a' },
		{ }
	};
	struct bench b = { .device = "/dev/cmabuf-large", .runs = 5 };
	unsigned int i;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'D':
			b.disk = optarg;
			break;
		case 's':
			if (b.nsizes == MAX_SIZES ||
			    parse_size(optarg, &b.sizes[b.nsizes++]))
				goto usage;
			break;
		case 'n':
			b.runs = atoi(optarg);
			if (!b.runs || b.runs > MAX_RUNS)
				goto usage;
			break;
		case 'd':
			b.device = optarg;
			break;
		case 'c':
			b.strategy = CMABUF_STRATEGY_COMPOUND;
			break;
		case 'l':
			b.min_lead = atof(optarg);
			if (b.min_lead <= 0)
				goto usage;
			break;
		case 'a':
			b.min_of_anon = atof(optarg);
			if (b.min_of_anon <= 0)
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	if (!b.disk)
		goto usage;
	if (!b.nsizes)
		b.sizes[b.nsizes++] = 64ULL << 20;
	b.fd_direct = open(b.disk, O_RDWR | O_DIRECT | O_CLOEXEC);
	b.fd_cache = open(b.disk, O_RDWR | O_CLOEXEC);
	b.dev = open(b.device, O_RDWR | O_CLOEXEC);
	if (b.fd_direct < 0 || b.fd_cache < 0 || b.dev < 0) {
		perror("open");
		return 1;
	}
	for (i = 0; i < b.nsizes; i++)
		if (bench_size(&b, b.sizes[i]))
			return 1;
	return b.behind;
usage:
	fprintf(stderr, "usage: cmabuf_rw_bench --disk DEV [--size SIZE]... [--runs N (1-%d)]\n"
		"                       [--device CMABUF] [--compound] [--min-lead RATIO]\n"
		"                       [--min-of-anon RATIO]\n",
		MAX_RUNS);
	return 2;
}
