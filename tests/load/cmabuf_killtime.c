// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf_killtime: how long a process takes to go once SIGKILL hits it in
 * the middle of an allocation (under memory load, the migration), and what
 * it leaves behind.
 *
 *   cmabuf_killtime (--device DEV [--strategy S] | --heap NAME) --size SIZE
 *                   --after MS
 *
 * A child allocates SIZE bytes from cmabuf instance DEV (with strategy S:
 * compound, frozen, legacy or auto) or from dma-heap NAME; MS milliseconds
 * after it entered the call, it is killed, and the time until it has been
 * reaped is measured. Prints one JSON record ("record": "kill"): whether
 * the allocation had already returned, that time, and the area's pages in
 * CMA use and cmabuf's counters (failures, and interrupted where the
 * driver has it) before and after. Exit status 0 when it measured.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/cmabuf.h>
#include <linux/types.h>
#include <linux/dma-heap.h>

#include "json.h"
#include "load.h"
#include "parse.h"

#define KILL_STATS	"/sys/class/misc"
#define KILL_DEBUGFS	"/sys/kernel/debug/cma"

struct kill_opts {
	const char *device, *heap;
	int strategy;
	__u64 size;
	unsigned int after_ms;
};

/* What the area and the instance count, before or after. */
struct kill_counts {
	__u64 used, failures, interrupted;
	bool have_used, have_failures, have_interrupted;
};

/* The area's name: the instance's sysfs "area", or the heap's name. */
static void area_name(const struct kill_opts *o, char *area, size_t len)
{
	const char *dev = o->device ? strrchr(o->device, '/') : NULL;
	char path[256];
	ssize_t got;
	int fd;

	snprintf(area, len, "%s", o->heap ? o->heap : "");
	if (!dev)
		return;
	snprintf(path, sizeof(path), "%s/%s/area", KILL_STATS, dev + 1);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	got = read(fd, area, len - 1);
	close(fd);
	area[got > 0 ? got : 0] = '\0';
	area[strcspn(area, "\n")] = '\0';
}

static void counts_read(const struct kill_opts *o, const char *area,
			struct kill_counts *k)
{
	const char *dev = o->device ? strrchr(o->device, '/') : NULL;
	char dir[256];

	snprintf(dir, sizeof(dir), "%s/%s", KILL_DEBUGFS, area);
	k->have_used = !sys_read_u64(dir, "used", &k->used);
	if (!dev)
		return;
	snprintf(dir, sizeof(dir), "%s/%s/stats", KILL_STATS, dev + 1);
	k->have_failures = !sys_read_u64(dir, "failures", &k->failures);
	k->have_interrupted = !sys_read_u64(dir, "interrupted", &k->interrupted);
}

/* The child: say it is in the call, make it, say it returned, wait. */
static void __attribute__((noreturn))
kill_child(const struct kill_opts *o, int fd, int tell)
{
	struct cmabuf_alloc_data a = {
		.size = o->size,
		.fd_flags = O_RDWR | O_CLOEXEC,
		.flags = o->strategy,
	};
	struct dma_heap_allocation_data h = {
		.len = o->size,
		.fd_flags = O_RDWR | O_CLOEXEC,
	};
	char b = 's';
	int ret;

	if (write(tell, &b, 1) != 1)
		_exit(1);
	if (o->heap)
		ret = ioctl(fd, DMA_HEAP_IOCTL_ALLOC, &h);
	else
		ret = ioctl(fd, CMABUF_IOC_ALLOC, &a);
	b = ret ? 'f' : 'd';
	if (write(tell, &b, 1) != 1)
		_exit(1);
	/* Holding the buffer, if there is one, until the kill. */
	for (;;)
		pause();
}

static void json_counts(struct json *j, const char *key,
			const struct kill_counts *k)
{
	json_object(j, key);
	if (k->have_used)
		json_u64(j, "cma_used_pages", k->used);
	else
		json_null(j, "cma_used_pages");
	if (k->have_failures)
		json_u64(j, "failures", k->failures);
	else
		json_null(j, "failures");
	if (k->have_interrupted)
		json_u64(j, "interrupted", k->interrupted);
	else
		json_null(j, "interrupted");
	json_close(j);
}

/*
 * Kill the child @after_ms into its call; the time until it is reaped,
 * and what it had said by then ('s': in the call, 'd' or 'f': returned).
 */
static int kill_measure(pid_t pid, int heard, unsigned int after_ms,
			char *state, __u64 *ns)
{
	struct pollfd p = { .fd = heard, .events = POLLIN };
	__u64 start;
	int status;

	*state = 0;
	if (read(heard, state, 1) != 1)
		return -EIO;
	if (poll(&p, 1, after_ms) > 0 && read(heard, state, 1) != 1)
		return -EIO;
	start = now_ns();
	kill(pid, SIGKILL);
	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	*ns = now_ns() - start;
	return 0;
}

static void print_record(const struct kill_opts *o, const char *area, char state,
			 __u64 ns, const struct kill_counts *before,
			 const struct kill_counts *after)
{
	char path[64];
	struct json j;

	if (o->heap)
		snprintf(path, sizeof(path), "cma-heap");
	else
		snprintf(path, sizeof(path), "cmabuf-%s", strategy_name(o->strategy));
	json_begin(&j, stdout);
	json_str(&j, "record", "kill");
	json_str(&j, "path", path);
	json_str(&j, "area", area);
	json_u64(&j, "size_bytes", o->size);
	json_u64(&j, "after_ms", o->after_ms);
	json_str(&j, "call", state == 's' ? "in the call" :
		 state == 'd' ? "returned a buffer" : "returned an error");
	json_u64(&j, "exit_ns", ns);
	json_counts(&j, "before", before);
	json_counts(&j, "after", after);
	json_end(&j);
}

static int kill_parse(int argc, char **argv, struct kill_opts *o)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "heap", required_argument, NULL, 'H' },
		{ "strategy", required_argument, NULL, 's' },
		{ "size", required_argument, NULL, 'S' },
		{ "after", required_argument, NULL, 'a' },
		{ }
	};
	__u32 after;
	int ch;

	while ((ch = getopt_long(argc, argv, "d:H:s:S:a:", opts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			o->device = optarg;
			break;
		case 'H':
			o->heap = optarg;
			break;
		case 's':
			if (parse_strategy(optarg, &o->strategy) || o->strategy < 0)
				return -1;
			break;
		case 'S':
			if (parse_size(optarg, &o->size) || !o->size)
				return -1;
			break;
		case 'a':
			if (parse_u32(optarg, &after))
				return -1;
			o->after_ms = after;
			break;
		default:
			return -1;
		}
	}
	return optind == argc && !o->device != !o->heap && o->size ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct kill_opts o = { .strategy = CMABUF_STRATEGY_AUTO, .after_ms = 1000 };
	struct kill_counts before = { }, after = { };
	char heap[300], area[128], state;
	int fd, tell[2], ret;
	__u64 ns = 0;
	pid_t pid;

	if (kill_parse(argc, argv, &o)) {
		fprintf(stderr,
			"usage: cmabuf_killtime (--device DEV [--strategy S] | --heap NAME)\n"
			"                       --size SIZE [--after MS]\n");
		return 2;
	}
	snprintf(heap, sizeof(heap), "/dev/dma_heap/%s", o.heap ? o.heap : "");
	fd = open(o.heap ? heap : o.device, O_RDWR | O_CLOEXEC);
	if (fd < 0 || pipe(tell)) {
		fprintf(stderr, "cmabuf_killtime: %s: %s\n", o.heap ? heap : o.device,
			strerror(errno));
		return 1;
	}
	area_name(&o, area, sizeof(area));
	counts_read(&o, area, &before);
	pid = fork();
	if (!pid) {
		close(tell[0]);
		kill_child(&o, fd, tell[1]);
	}
	close(tell[1]);
	ret = pid < 0 ? -errno : kill_measure(pid, tell[0], o.after_ms, &state, &ns);
	if (ret) {
		fprintf(stderr, "cmabuf_killtime: %s\n", strerror(-ret));
		return 1;
	}
	counts_read(&o, area, &after);
	print_record(&o, area, state, ns, &before, &after);
	return 0;
}
