// SPDX-License-Identifier: GPL-2.0
/*
 * The load as a process that stays: it holds its fill while the
 * benchmark runs, refills the area when asked over its control socket,
 * and may keep churning (new pages at a stated rate, as many old ones
 * given back) and holding pages in pipes meanwhile.
 *
 * Requests are one line: "refill [PATH ITERATION]", "set churn=RATE
 * splice=PAGES,HOLD_MS,GAP_MS" (either), "status" or "stop";
 * each answer is a JSON record, then the connection closes (for "stop",
 * once the threads have ended: the process exits right after).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "load.h"

#define CHURN_TICK_MS	20
#define REQUEST_MAX	256

/*
 * New pages at @churn_rate bytes a second, as many of ours given back:
 * first those outside the target area, so that the churn itself never
 * empties it, and the new ones go wherever the allocator puts them (into
 * the area's free pageblocks when it has some). Idle at rate 0.
 */
void *churn_thread(void *arg)
{
	struct load_daemon *d = arg;
	struct timespec tick = { 0, CHURN_TICK_MS * 1000000L };
	__u64 unit = d->mem.unit * d->sys.page_size, last = now_ns();
	__u64 owed = 0, now, in;
	size_t units, got, back;
	int area = d->target.area;

	while (!d->stop) {
		nanosleep(&tick, NULL);
		now = now_ns();
		owed = d->churn_rate ? owed + d->churn_rate * (now - last) / 1000000000ULL : 0;
		last = now;
		/* After a refill held the lock, no burst: a tenth of a second. */
		if (owed > d->churn_rate / 10)
			owed = d->churn_rate / 10;
		units = owed / unit;
		if (!units)
			continue;
		owed -= units * unit;
		in = 0;
		pthread_mutex_lock(&d->lock);
		got = mem_touch(&d->mem, &d->sys, area, area >= 0 ? &in : NULL, units);
		back = mem_release(&d->mem, &d->sys, area,
				   area >= 0 ? MEM_NOT_AREA : MEM_ANY, got);
		if (back < got)
			mem_release(&d->mem, &d->sys, area, MEM_ANY, got - back);
		d->churned += got * unit;
		d->churned_in_area += in * d->sys.page_size;
		pthread_mutex_unlock(&d->lock);
	}
	return NULL;
}

/* "churn=RATE splice=PAGES,HOLD_MS,GAP_MS", either or both. */
static int set_apply(struct load_daemon *d, const char *args)
{
	struct load_splice sp = d->splice;
	char word[64];
	int used;
	__u64 rate = d->churn_rate;

	while (sscanf(args, "%63s%n", word, &used) == 1) {
		args += used;
		if (!strncmp(word, "churn=", 6))
			rate = strtoull(word + 6, NULL, 10);
		else if (strncmp(word, "splice=", 7) || splice_parse(word + 7, &sp))
			return -EINVAL;
	}
	d->churn_rate = rate;
	d->splice.pages = sp.pages;
	d->splice.hold_ms = sp.hold_ms;
	d->splice.gap_ms = sp.gap_ms;
	return 0;
}

static void answer(struct load_daemon *d, FILE *out, const char *event,
		   const struct load_fill *fill, const char *path,
		   const char *iteration)
{
	struct load_record rec = {
		/* Refills come before every sample: what the fill did, cheaply. */
		.light = !!fill,
		.event = event,
		.sys = &d->sys,
		.mem = &d->mem,
		.target = &d->target,
		.fill = fill,
		.daemon = d,
		.bench_path = path,
		.bench_iteration = iteration,
	};

	report_json(out, &rec);
	fflush(out);
}

/* One request; for "stop", the connection to answer once all has stopped. */
static FILE *serve_one(struct load_daemon *d, int conn)
{
	char line[REQUEST_MAX], cmd[16], path[64], iter[32];
	struct load_fill fill;
	ssize_t len;
	FILE *out;
	int n;

	len = read(conn, line, sizeof(line) - 1);
	out = fdopen(conn, "w");
	if (len <= 0 || !out) {
		if (out)
			fclose(out);
		else
			close(conn);
		return NULL;
	}
	line[len] = '\0';
	n = sscanf(line, "%15s %63s %31s", cmd, path, iter);
	if (!strcmp(cmd, "refill")) {
		pthread_mutex_lock(&d->lock);
		if (load_fill(&d->mem, &d->sys, &d->target, &fill))
			fill.why = "the machine's memory could not be read";
		/* "-": not asked by a benchmark's --prepare. */
		if (n < 3 || !strcmp(path, "-"))
			answer(d, out, "refill", &fill, NULL, NULL);
		else
			answer(d, out, "refill", &fill, path, iter);
		pthread_mutex_unlock(&d->lock);
	} else if (!strcmp(cmd, "set")) {
		pthread_mutex_lock(&d->lock);
		if (set_apply(d, line + 3))
			fprintf(out, "{\"error\": \"bad set request\"}\n");
		else
			answer(d, out, "set", NULL, NULL, NULL);
		pthread_mutex_unlock(&d->lock);
	} else if (!strcmp(cmd, "status")) {
		pthread_mutex_lock(&d->lock);
		sys_read(&d->sys);
		answer(d, out, "status", NULL, NULL, NULL);
		pthread_mutex_unlock(&d->lock);
	} else if (strcmp(cmd, "stop")) {
		fprintf(out, "{\"error\": \"unknown request\"}\n");
	}
	if (!strcmp(cmd, "stop"))
		return out;
	fclose(out);
	return NULL;
}

/*
 * Start the churn and the pipes (idle until asked), and answer requests
 * until "stop".
 * Return: 0 or -errno when a thread could not be started.
 */
int daemon_serve(struct load_daemon *d)
{
	pthread_t churn, splice;
	bool churning = false, splicing = false;
	FILE *bye = NULL;
	int conn, ret = 0;

	ret = -pthread_create(&churn, NULL, churn_thread, d);
	churning = !ret;
	if (!ret) {
		ret = -pthread_create(&splice, NULL, splice_thread, d);
		splicing = !ret;
	}
	while (!ret) {
		conn = accept(d->listen_fd, NULL, NULL);
		if (conn < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		bye = serve_one(d, conn);
		if (bye)
			break;
	}
	d->stop = true;
	if (churning)
		pthread_join(churn, NULL);
	if (splicing)
		pthread_join(splice, NULL);
	pin_longterm_end(&d->longterm);
	if (bye) {
		sys_read(&d->sys);
		answer(d, bye, "stop", NULL, NULL, NULL);
		fclose(bye);
	}
	return ret;
}
