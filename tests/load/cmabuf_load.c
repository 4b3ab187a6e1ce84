// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf_load: the test bed's memory load (see load.h), run as root in
 * the guest.
 *
 *   start   fill memory as asked, then stay: a process that holds the
 *           fill, refills it on request and churns or pins while asked
 *   refill  ask it to fill the area again (after an allocation emptied
 *           it); the answer says what moved where
 *   status  where the machine's pages are (with --socket, the load's too)
 *   stop    end it, and return once its memory is free
 *   copy    the machine's page-copy rate, to set migration beside
 *
 * Each prints one JSON record ("record": "load" or "copy").
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "load.h"
#include "parse.h"

#define OPT_FREE_BELOW	0x100
#define OPT_ROOM	0x101
#define OPT_FLOOR	0x102
#define OPT_CHURN	0x103
#define OPT_SPLICE	0x104
#define OPT_LONGTERM	0x105
#define OPT_LOG		0x106

#define ANSWER_MAX	(1024 * 1024)
#define STOP_WAIT_MS	120000

struct opts {
	const char *socket, *area, *log;
	enum load_kind kind;
	__u64 free_below, room, floor, size, churn, longterm;
	struct load_splice splice;
	bool json, churn_given, splice_given;
};

void load_err(const char *fmt, ...)
{
	va_list ap;

	fputs("cmabuf_load: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void print_usage(FILE *fp)
{
	fprintf(fp,
		"usage: cmabuf_load start --socket PATH (--area NAME --free-below SIZE | --size SIZE)\n"
		"                   [--kind anon|thp|shmem] [--room SIZE] [--floor SIZE]\n"
		"                   [--churn RATE] [--splice PAGES,HOLD_MS,GAP_MS]\n"
		"                   [--longterm SIZE] [--log FILE]\n"
		"       cmabuf_load refill|stop --socket PATH\n"
		"       cmabuf_load set --socket PATH [--churn RATE] [--splice P,H,G]\n"
		"       cmabuf_load status [--socket PATH] [--json]\n"
		"       cmabuf_load copy [--size SIZE]\n"
		"\n"
		"start fills memory with KIND pages (anon: 4 KiB, thp: 2 MiB, shmem:\n"
		"tmpfs page cache) until area NAME has fewer than --free-below bytes\n"
		"free (or until it holds --size bytes), then gives back pages outside\n"
		"CMA until --room bytes (default: the area's size and 32 MiB) are free\n"
		"outside the area, never leaving less than --floor (32 MiB) free\n"
		"outside CMA. It stays, holding them, until stop: refill fills again;\n"
		"--churn touches RATE bytes a second of new pages and gives back as\n"
		"many; --splice holds PAGES of its pages in the area in pipes\n"
		"(vmsplice) for HOLD_MS, then none for GAP_MS, over and over;\n"
		"--longterm registers SIZE bytes, touched first, with io_uring\n"
		"(long-term pins, which the kernel moves out of CMA). set changes\n"
		"--churn and --splice of a started load (0 and 0,0,0: none).\n"
		"Every command prints one JSON record; status without --json, text.\n");
}

static int size_arg(const char *name, const char *arg, __u64 *out)
{
	__u64 v;

	if (parse_size(arg, &v)) {
		load_err("bad %s '%s' (e.g. 64M, 1G)", name, arg);
		return -1;
	}
	*out = v;
	return 0;
}

static int splice_arg(const char *arg, struct load_splice *sp)
{
	if (!splice_parse(arg, sp))
		return 0;
	load_err("bad --splice '%s' (PAGES,HOLD_MS,GAP_MS, up to %u pages, e.g. 256,200,50)",
		 arg, LOAD_SPLICE_MAX);
	return -1;
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "area", required_argument, NULL, 'a' },
		{ "kind", required_argument, NULL, 'k' },
		{ "size", required_argument, NULL, 'S' },
		{ "json", no_argument, NULL, 'j' },
		{ "free-below", required_argument, NULL, OPT_FREE_BELOW },
		{ "room", required_argument, NULL, OPT_ROOM },
		{ "floor", required_argument, NULL, OPT_FLOOR },
		{ "churn", required_argument, NULL, OPT_CHURN },
		{ "splice", required_argument, NULL, OPT_SPLICE },
		{ "longterm", required_argument, NULL, OPT_LONGTERM },
		{ "log", required_argument, NULL, OPT_LOG },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int ch, bad = 0;

	while ((ch = getopt_long(argc, argv, "s:a:k:S:jh", longopts, NULL)) != -1) {
		switch (ch) {
		case 's':
			o->socket = optarg;
			break;
		case 'a':
			o->area = optarg;
			break;
		case 'k':
			if (mem_kind_parse(optarg, &o->kind)) {
				load_err("bad --kind '%s' (anon, thp or shmem)", optarg);
				bad = 1;
			}
			break;
		case 'S':
			bad |= size_arg("--size", optarg, &o->size);
			break;
		case 'j':
			o->json = true;
			break;
		case OPT_FREE_BELOW:
			bad |= size_arg("--free-below", optarg, &o->free_below);
			break;
		case OPT_ROOM:
			bad |= size_arg("--room", optarg, &o->room);
			break;
		case OPT_FLOOR:
			bad |= size_arg("--floor", optarg, &o->floor);
			break;
		case OPT_CHURN:
			bad |= size_arg("--churn", optarg, &o->churn);
			o->churn_given = true;
			break;
		case OPT_SPLICE:
			bad |= splice_arg(optarg, &o->splice);
			o->splice_given = true;
			break;
		case OPT_LONGTERM:
			bad |= size_arg("--longterm", optarg, &o->longterm);
			break;
		case OPT_LOG:
			o->log = optarg;
			break;
		case 'h':
			print_usage(stdout);
			exit(0);
		default:
			bad = 1;
		}
	}
	return bad ? -1 : 0;
}

static int socket_at(const char *path, struct sockaddr_un *sun)
{
	int fd;

	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun->sun_path)) {
		load_err("socket path too long: %s", path);
		return -1;
	}
	memcpy(sun->sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		load_err("socket: %s", strerror(errno));
	return fd;
}

/* The target of start, from the options; -1 after a message. */
static int target_make(const struct opts *o, struct load_sys *s,
		       struct load_target *t)
{
	int i;

	memset(t, 0, sizeof(*t));
	t->area = -1;
	t->floor = o->floor ? o->floor : 32 * LOAD_MIB;
	t->size = o->size;
	if (!o->area && !o->size) {
		load_err("start: give --area and --free-below, or --size");
		return -1;
	}
	if (!o->area)
		return 0;
	t->area = sys_area_find(s, o->area);
	if (t->area < 0) {
		load_err("start: no CMA area %s in /sys/kernel/debug/cma (mounted?), which has:",
			 o->area);
		for (i = 0; i < s->nareas; i++)
			load_err("  %s", s->areas[i].name);
		return -1;
	}
	t->free_below = o->free_below;
	t->room = o->room ? o->room :
		  s->areas[t->area].count * s->page_size + 32 * LOAD_MIB;
	if (!o->size && !o->free_below) {
		load_err("start: --area needs --free-below");
		return -1;
	}
	return 0;
}

/* The child that stays: fill, say so on @ready, then serve. */
static int daemon_main(struct load_daemon *d, const struct opts *o, int ready)
{
	struct load_fill fill;
	struct load_record rec = { .event = "start", .sys = &d->sys, .mem = &d->mem,
				   .target = &d->target, .fill = &fill, .daemon = d };
	FILE *out;
	int fd, ret;

	/* Out of memory, the load goes first. */
	fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "1000", 4) != 4)
			load_err("oom_score_adj: %s", strerror(errno));
		close(fd);
	}
	d->log = fopen(o->log ? o->log : "/dev/null", "we");
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (!d->log || fd < 0)
		return 1;
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(fileno(d->log), STDERR_FILENO);
	ret = mem_init(&d->mem, o->kind, d->sys.mem_total, d->sys.page_size);
	if (ret) {
		load_err("reserving %llu bytes: %s",
			 (unsigned long long)d->sys.mem_total, strerror(-ret));
		return 1;
	}
	if (o->longterm) {
		d->longterm.bytes = o->longterm;
		ret = pin_longterm(&d->longterm, &d->sys);
		if (ret)
			load_err("io_uring buffers: %s", strerror(-ret));
	}
	if (load_fill(&d->mem, &d->sys, &d->target, &fill)) {
		load_err("the machine's memory could not be read");
		return 1;
	}
	out = fdopen(ready, "w");
	if (!out)
		return 1;
	report_json(out, &rec);
	fclose(out);
	return daemon_serve(d) ? 1 : 0;
}

/* Copy what the child says (its first record) to stdout; 0 if it said it. */
static int relay(int fd)
{
	static char buf[ANSWER_MAX];
	size_t len = 0;
	ssize_t got;

	while (len < sizeof(buf) - 1 &&
	       (got = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += got;
	buf[len] = '\0';
	if (!len || buf[0] != '{')
		return -1;
	fputs(buf, stdout);
	fflush(stdout);
	if (strstr(buf, "\"met\": false"))
		load_err("the fill did not reach its target (see \"why\")");
	return 0;
}

static int cmd_start(const struct opts *o)
{
	struct load_daemon *d;
	struct sockaddr_un sun;
	int ready[2];
	pid_t pid;

	if (!o->socket) {
		load_err("start: --socket PATH is needed");
		return 2;
	}
	d = calloc(1, sizeof(*d));
	if (!d || sys_read(&d->sys)) {
		load_err("cannot read /proc/zoneinfo, /proc/meminfo or %s",
			 "/sys/kernel/debug/cma (root, debugfs mounted?)");
		return 1;
	}
	if (target_make(o, &d->sys, &d->target))
		return 2;
	d->churn_rate = o->churn;
	d->splice = o->splice;
	pthread_mutex_init(&d->lock, NULL);
	d->listen_fd = socket_at(o->socket, &sun);
	if (d->listen_fd < 0)
		return 1;
	unlink(o->socket);
	if (bind(d->listen_fd, (struct sockaddr *)&sun, sizeof(sun)) ||
	    listen(d->listen_fd, 4) || pipe2(ready, O_CLOEXEC)) {
		load_err("%s: %s", o->socket, strerror(errno));
		return 1;
	}
	/* No setsid(): the load stays in the suite's session, which ends it. */
	pid = fork();
	if (pid < 0) {
		load_err("fork: %s", strerror(errno));
		return 1;
	}
	if (!pid) {
		close(ready[0]);
		_exit(daemon_main(d, o, ready[1]));
	}
	close(ready[1]);
	close(d->listen_fd);
	if (relay(ready[0])) {
		load_err("the load process ended before it was ready%s%s",
			 o->log ? "; see " : "", o->log ? o->log : "");
		return 1;
	}
	return 0;
}

/* Has process @pid exited (gone, or a zombie: its memory is free)? */
static bool exited(pid_t pid)
{
	char path[64], line[512], *state;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fp = fopen(path, "re");
	if (!fp)
		return true;
	state = fgets(line, sizeof(line), fp) ? strrchr(line, ')') : NULL;
	fclose(fp);
	return !state || state[2] == 'Z' || state[2] == 'X';
}

/* Send @request to the load at @path, print its answer; 0 if it answered. */
static int client(const char *path, const char *request, bool stop)
{
	static char buf[ANSWER_MAX];
	struct sockaddr_un sun;
	struct timespec nap = { 0, 10000000L };
	size_t len = 0;
	ssize_t got;
	char *p;
	int fd, waited;
	pid_t pid = 0;

	fd = socket_at(path, &sun);
	if (fd < 0)
		return 1;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) ||
	    write(fd, request, strlen(request)) != (ssize_t)strlen(request)) {
		load_err("%s: %s (is the load started?)", path, strerror(errno));
		close(fd);
		return 1;
	}
	while (len < sizeof(buf) - 1 &&
	       (got = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += got;
	close(fd);
	buf[len] = '\0';
	if (!len || buf[0] != '{') {
		load_err("%s: no answer to %.*s", path, (int)strcspn(request, "\n"),
			 request);
		return 1;
	}
	fputs(buf, stdout);
	p = strstr(buf, "\"pid\": ");
	if (p)
		pid = atoi(p + 7);
	if (!stop || !pid)
		return 0;
	for (waited = 0; !exited(pid); waited += 10) {
		if (waited >= STOP_WAIT_MS) {
			load_err("the load (pid %d) has not exited %d s after stop",
				 pid, STOP_WAIT_MS / 1000);
			return 1;
		}
		nanosleep(&nap, NULL);
	}
	unlink(path);
	return 0;
}

static int cmd_refill(const struct opts *o)
{
	const char *path = getenv("CMABUF_BENCH_PATH");
	const char *iter = getenv("CMABUF_BENCH_ITERATION");
	char req[256];

	if (!o->socket) {
		load_err("refill: --socket PATH is needed");
		return 2;
	}
	/* A benchmark's --prepare names the sample it prepares. */
	snprintf(req, sizeof(req), "refill %s %s\n", path && *path ? path : "-",
		 iter && *iter ? iter : "-");
	return client(o->socket, req, false);
}

static int cmd_set(const struct opts *o, bool churn, bool splice)
{
	char req[256];
	int len;

	if (!o->socket || (!churn && !splice)) {
		load_err("set: --socket PATH and --churn or --splice are needed");
		return 2;
	}
	len = snprintf(req, sizeof(req), "set");
	if (churn)
		len += snprintf(req + len, sizeof(req) - len, " churn=%llu", o->churn);
	if (splice)
		len += snprintf(req + len, sizeof(req) - len, " splice=%zu,%u,%u",
				o->splice.pages, o->splice.hold_ms, o->splice.gap_ms);
	snprintf(req + len, sizeof(req) - len, "\n");
	return client(o->socket, req, false);
}

static int cmd_status(const struct opts *o)
{
	struct load_record rec = { .event = "status" };
	struct load_sys *s;

	if (o->socket)
		return client(o->socket, "status\n", false);
	s = calloc(1, sizeof(*s));
	if (!s || sys_read(s)) {
		load_err("cannot read the machine's memory (root, debugfs mounted?)");
		return 1;
	}
	rec.sys = s;
	if (o->json)
		report_json(stdout, &rec);
	else
		report_text(stdout, &rec);
	return 0;
}

/*
 * The page-copy rate of one CPU: pages copied one by one between two
 * buffers larger than the caches, as migration copies them.
 */
static int cmd_copy(const struct opts *o)
{
	__u64 size = o->size ? o->size : 64 * LOAD_MIB, ps = sysconf(_SC_PAGESIZE);
	__u64 pages = 0, start, ns, off;
	unsigned char *src, *dst;
	struct json j;
	int round;

	src = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	dst = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (src == MAP_FAILED || dst == MAP_FAILED) {
		load_err("copy: %s", strerror(errno));
		return 1;
	}
	memset(src, 0x5a, size);
	memcpy(dst, src, size);
	start = now_ns();
	for (round = 0; round < 4; round++) {
		for (off = 0; off < size; off += ps)
			memcpy(dst + off, src + off, ps);
		pages += size / ps;
	}
	ns = now_ns() - start;
	json_begin(&j, stdout);
	json_str(&j, "record", "copy");
	json_u64(&j, "page_bytes", ps);
	json_u64(&j, "pages", pages);
	json_u64(&j, "ns", ns);
	json_u64(&j, "pages_per_s", ns ? pages * 1000000000ULL / ns : 0);
	json_end(&j);
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = { .kind = LOAD_ANON };
	const char *cmd;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	cmd = argv[1];
	if (parse(argc - 1, argv + 1, &o) || optind != argc - 1) {
		print_usage(stderr);
		return 2;
	}
	if (!strcmp(cmd, "start"))
		return cmd_start(&o);
	if (!strcmp(cmd, "refill"))
		return cmd_refill(&o);
	if (!strcmp(cmd, "stop")) {
		if (!o.socket) {
			load_err("stop: --socket PATH is needed");
			return 2;
		}
		return client(o.socket, "stop\n", true);
	}
	if (!strcmp(cmd, "status"))
		return cmd_status(&o);
	if (!strcmp(cmd, "set"))
		return cmd_set(&o, o.churn_given, o.splice_given);
	if (!strcmp(cmd, "copy"))
		return cmd_copy(&o);
	load_err("unknown command '%s'", cmd);
	print_usage(stderr);
	return 2;
}
