// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf_fuzz: what an operation may return, and the verdict.
 *
 * Every operation first works out, from its arguments alone, the set of
 * errors the contract (the uapi headers and, for core paths, the kernel's
 * documented behaviour) allows: each condition that holds adds its errno.
 * The contract does not order the checks, so when several conditions hold
 * any of their errnos is right. Success is allowed only when none holds;
 * some errors (ENOMEM of an allocation that may not fit, EFAULT of a
 * result that cannot be written back) are added without ruling success out
 * when the outcome depends on the moment.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "fuzz.h"

void fz_expect_init(struct fz_expect *e)
{
	memset(e, 0, sizeof(*e));
	e->may_succeed = true;
}

/* @err is possible; with @why, it is also required (no success). */
void fz_err(struct fz_expect *e, int err, const char *why)
{
	if (err > 0 && err < 64 * 3)
		e->errs[err / 64] |= BIT_ULL(err % 64);
	if (why) {
		if (e->may_succeed)
			e->why = why;
		e->may_succeed = false;
	}
}

bool fz_has(const struct fz_expect *e, int err)
{
	return err > 0 && err < 64 * 3 &&
	       (e->errs[err / 64] & BIT_ULL(err % 64));
}

static void fz_expect_print(const struct fz_expect *e, char *buf, size_t size)
{
	size_t len = 0;
	int err;

	buf[0] = '\0';
	if (e->may_succeed)
		len += snprintf(buf + len, size - len, "success");
	for (err = 1; err < 64 * 3 && len < size; err++)
		if (fz_has(e, err))
			len += snprintf(buf + len, size - len, "%s%s",
					len ? "|" : "", rel_errname(err));
}

#define FZ_NOW_BYTES	512

/*
 * With CMABUF_NOW_DIR set, each operation is also written to a shared
 * mapping of $CMABUF_NOW_DIR/PID before it runs: a run stuck in the kernel
 * or killed then still says which operation, with which arguments, it was
 * in. A store to memory per operation, no system call.
 */
void fz_now_open(struct fz *f)
{
	const char *dir = getenv("CMABUF_NOW_DIR");
	char path[256];
	void *map;
	int fd;

	if (!dir || !*dir)
		return;
	snprintf(path, sizeof(path), "%s/%d", dir, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	map = ftruncate(fd, FZ_NOW_BYTES) ? MAP_FAILED :
		mmap(NULL, FZ_NOW_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED,
		     fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return;
	f->now = map;
	snprintf(f->now, FZ_NOW_BYTES, "setting up\n");
}

void fz_describe(struct fz *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->what, sizeof(f->what), fmt, ap);
	va_end(ap);
	if (f->now)
		snprintf(f->now, FZ_NOW_BYTES, "op %llu: %s\n",
			 (unsigned long long)f->op, f->what);
	if (f->verbose)
		fprintf(stderr, "op %llu: %s\n", (unsigned long long)f->op,
			f->what);
}

/* The first two words of an operation's description: its name. */
static void fz_op_name(const char *what, char *op, size_t size)
{
	size_t i, words = 0;

	for (i = 0; i + 1 < size && what[i]; i++) {
		if (what[i] == ' ' && ++words == 2)
			break;
		op[i] = what[i];
	}
	op[i] = '\0';
}

void fz_fail(struct fz *f, enum fz_cat cat, const char *fmt, ...)
{
	char msg[256], op[FZ_OP_NAME];
	unsigned int i;
	va_list ap;

	/*
	 * The first few of every kind (told apart by the format), so that
	 * one frequent failure cannot hide another.
	 */
	f->fails[cat]++;
	fz_op_name(f->what, op, sizeof(op));
	for (i = 0; i < f->nkinds; i++)
		if (f->kinds[i].fmt == fmt && !strcmp(f->kinds[i].op, op))
			break;
	if (i == f->nkinds) {
		if (f->nkinds == FZ_MAX_KINDS)
			return;
		f->kinds[i].fmt = fmt;
		memcpy(f->kinds[i].op, op, sizeof(op));
		f->nkinds++;
	}
	if (++f->kinds[i].count > FZ_MAX_FAILS_PER_KIND)
		return;
	f->nfail_msgs++;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	printf("# FAIL op %llu: %s: %s\n", (unsigned long long)f->op, f->what,
	       msg);
	if (f->nfail_msgs == 1)
		printf("# replay: cmabuf_fuzz --seed %llu --ops %llu --verbose\n",
		       (unsigned long long)f->seed,
		       (unsigned long long)f->op + 1);
}

/*
 * Compare the outcome @err (0 for success, else the errno) with @e; count
 * the operation in @cat and a failure when it is not allowed.
 */
bool fz_judge(struct fz *f, enum fz_cat cat, const struct fz_expect *e,
	      int err)
{
	char want[160];

	f->ops[cat]++;
	f->oks[cat] += !err;
	if (!err && e->may_succeed)
		return true;
	if (err && fz_has(e, err))
		return true;

	fz_expect_print(e, want, sizeof(want));
	if (!err)
		fz_fail(f, cat, "succeeded, expected %s (%s)", want,
			e->why ? e->why : "?");
	else
		fz_fail(f, cat, "got %s, expected %s%s%s", rel_errname(err),
			want, e->why ? " because " : "", e->why ? e->why : "");
	return false;
}
