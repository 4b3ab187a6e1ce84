// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf_fuzz: the benchmark's debugfs file of each instance,
 * /sys/kernel/debug/cmabuf/<name>/bench (drivers/cmabuf_bench.c).
 *
 * An operation writes one request line and reads the report back. Most
 * lines are well formed, with values inside or outside the bounds and the
 * rules ALLOC's requests follow; the rest carry an unknown key, a number
 * the driver cannot read or that does not fit, a strategy it does not
 * know, a NUL, or are too long. The line is read here as the driver reads
 * it (split at blanks, then match_token() and kstrtoull() of lib/), so
 * whether it is read at all is known exactly: a run leaves its report, a
 * refused run none, and a line that was not read the report as it was.
 * Valid runs stay small: the guest is emulated. Without root the file
 * cannot even be opened (EACCES).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "fuzz.h"
#include "kbench.h"

#define FZ_BENCH_REQUEST_MAX	256	/* the driver reads shorter lines only */
#define FZ_BENCH_LINE		1100	/* the longest line written */
#define FZ_BENCH_WORDS		10
#define FZ_BENCH_WORD		48
#define FZ_BENCH_REPORT		1024
#define FZ_NUMBER_MAX		24	/* lib/parser.c: longer is ERANGE */
#define FZ_NUMBER_MAX_SINCE	603	/* from 6.3 (see fz_number_max()) */

static const char * const fz_strategy_names[CMABUF_STRATEGY_COUNT] = {
	[CMABUF_STRATEGY_AUTO] = "auto",
	[CMABUF_STRATEGY_COMPOUND] = "compound",
	[CMABUF_STRATEGY_FROZEN] = "frozen",
	[CMABUF_STRATEGY_LEGACY] = "legacy",
	[CMABUF_STRATEGY_DMA] = "dma",
};

/**
 * struct fz_bench_req - a request as the driver reads it
 * @pages: pages per allocation.
 * @blocks: allocations held at once.
 * @iterations: iterations.
 * @strategy: a %CMABUF_STRATEGY_* value.
 * @align: log2 of the alignment in bytes.
 * @zero: time clearing too.
 */
struct fz_bench_req {
	__u64 pages;
	__u32 blocks;
	__u32 iterations;
	__u32 strategy;
	__u32 align;
	bool zero;
};

/**
 * struct fz_bench_line - the line an operation writes
 * @buf: its bytes; a NUL among them ends what the driver reads.
 * @len: how many are written.
 */
struct fz_bench_line {
	char buf[FZ_BENCH_LINE];
	size_t len;
};

/**
 * struct fz_bench_words - the words of a line, before they are joined
 * @word: each one.
 * @n: entries in @word.
 */
struct fz_bench_words {
	char word[FZ_BENCH_WORDS][FZ_BENCH_WORD];
	unsigned int n;
};

void fz_bench_setup(struct fz *f, int inst)
{
	struct fz_inst *in = &f->inst[inst];
	struct stat st;

	/* Without root, debugfs's own directory (0700) hides the file. */
	if (kbench_path(in->rel.name, in->bench, sizeof(in->bench)) ||
	    (stat(in->bench, &st) && errno != EACCES))
		in->bench[0] = '\0';
	in->report.state = FZ_REPORT_UNKNOWN;
}

bool fz_any_bench(const struct fz *f)
{
	unsigned int i;

	for (i = 0; i < f->ninst; i++)
		if (f->inst[i].bench[0])
			return true;
	return false;
}

/* ---- the driver's parser, modelled ---- */

/* The value of a digit in any base up to 16; 16 for anything else. */
static unsigned int fz_digit(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
		return (c | 0x20) - 'a' + 10;
	return 16;
}

/* Base 0: "0x" and a hex digit is 16 (skipped), "0" 8, else 10. */
static unsigned int fz_radix(const char **s)
{
	const char *p = *s;

	if (p[0] != '0')
		return 10;
	if ((p[1] | 0x20) == 'x' && fz_digit(p[2]) < 16) {
		*s = p + 2;
		return 16;
	}
	return 8;
}

/* The characters simple_strtoul(@s, base 0) reads: match_one()'s %u. */
static size_t fz_strtoul_len(const char *s)
{
	const char *p = s;
	unsigned int base = fz_radix(&p);

	while (fz_digit(*p) < base)
		p++;
	return p - s;
}

/* kstrtoull(): 0, -EINVAL or -ERANGE (overflow wins over junk after). */
static int fz_kstrtoull(const char *s, unsigned int base, __u64 *res)
{
	unsigned long long v = 0;
	unsigned int d;
	bool over = false;
	size_t n;

	if (*s == '+')
		s++;
	if (!base)
		base = fz_radix(&s);
	for (n = 0; (d = fz_digit(s[n])) < base; n++)
		over |= __builtin_mul_overflow(v, base, &v) ||
			__builtin_add_overflow(v, d, &v);
	if (over)
		return -ERANGE;
	if (!n)
		return -EINVAL;
	s += n;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*res = v;
	return 0;
}

/*
 * The length from which lib/parser.c's match_u64() and match_uint()
 * refuse a number with ERANGE: FZ_NUMBER_MAX from 6.3 on, which parses
 * into an array of that size (commit 67222c4ba8af, "lib: parser: optimize
 * match_NUMBER apis to use local array"); none before (Debian's 6.1 copies
 * any length for kstrtoull()).
 */
static size_t fz_number_max(void)
{
	static size_t max;
	unsigned int major, minor;
	struct utsname u;

	if (!max)
		max = !uname(&u) &&
		      sscanf(u.release, "%u.%u", &major, &minor) == 2 &&
		      major * 100 + minor < FZ_NUMBER_MAX_SINCE ?
		      SIZE_MAX : FZ_NUMBER_MAX;
	return max;
}

/* match_u64() (base 0) and match_uint() (base 10, 32 bits) of @v. */
static int fz_match_number(const char *v, unsigned int base, bool u32,
			   __u64 *res)
{
	int ret;

	if (strlen(v) >= fz_number_max())
		return -ERANGE;
	ret = fz_kstrtoull(v, base, res);
	if (!ret && u32 && *res > UINT_MAX)
		ret = -ERANGE;
	return ret;
}

enum fz_bench_key {
	FZ_KEY_PAGES,
	FZ_KEY_ITERATIONS,
	FZ_KEY_BLOCKS,
	FZ_KEY_STRATEGY,
	FZ_KEY_ALIGN,
	FZ_KEY_ZERO,
	FZ_KEYS,
};

/* The driver's match table: "%s" takes any value, "%u" digits only. */
static const struct {
	const char *prefix;
	bool digits;
} fz_bench_keys[FZ_KEYS] = {
	[FZ_KEY_PAGES] = { "pages=", false },
	[FZ_KEY_ITERATIONS] = { "iterations=", true },
	[FZ_KEY_BLOCKS] = { "blocks=", true },
	[FZ_KEY_STRATEGY] = { "strategy=", false },
	[FZ_KEY_ALIGN] = { "align=", true },
	[FZ_KEY_ZERO] = { "zero=", true },
};

/* Which key @w matches, and where its value starts; FZ_KEYS for none. */
static enum fz_bench_key fz_bench_match(const char *w, const char **val)
{
	size_t n;
	int k;

	for (k = 0; k < FZ_KEYS; k++) {
		n = strlen(fz_bench_keys[k].prefix);
		if (strncmp(w, fz_bench_keys[k].prefix, n) || !w[n])
			continue;
		if (fz_bench_keys[k].digits && fz_strtoul_len(w + n) != strlen(w + n))
			continue;
		*val = w + n;
		return k;
	}
	return FZ_KEYS;
}

/* One word, as cmabuf_bench_word() reads it: 0 or a negative errno. */
static int fz_bench_word(const char *w, struct fz_bench_req *rq)
{
	enum fz_bench_key k;
	const char *v = NULL;
	__u64 x = 0;
	__u32 s;
	int ret;

	k = fz_bench_match(w, &v);
	switch (k) {
	case FZ_KEY_PAGES:
		return fz_match_number(v, 0, false, &rq->pages);
	case FZ_KEY_STRATEGY:
		for (s = 0; s < CMABUF_STRATEGY_COUNT; s++) {
			if (!strcmp(v, fz_strategy_names[s])) {
				rq->strategy = s;
				return 0;
			}
		}
		return -EINVAL;
	case FZ_KEYS:
		return -EINVAL;
	default:
		break;
	}
	ret = fz_match_number(v, 10, true, &x);
	if (k == FZ_KEY_ZERO) {
		if (ret || x > 1)
			return -EINVAL;
		rq->zero = x;
		return 0;
	}
	if (ret)
		return ret;
	if (k == FZ_KEY_ITERATIONS)
		rq->iterations = x;
	else if (k == FZ_KEY_BLOCKS)
		rq->blocks = x;
	else
		rq->align = x;
	return 0;
}

/*
 * The request the driver reads from @l (cmabuf_bench_parse(): words split
 * at blanks, up to the first NUL; blocks=1 unless told). True when every
 * word was read; else the errno of each word refused is in @e.
 */
static bool fz_bench_parse(const struct fz_bench_line *l,
			   struct fz_bench_req *rq, struct fz_expect *e)
{
	char word[FZ_BENCH_REQUEST_MAX];
	size_t end = strnlen(l->buf, l->len), i = 0, n;
	bool ok = true;
	int ret;

	memset(rq, 0, sizeof(*rq));
	rq->blocks = 1;
	while (i < end) {
		for (n = 0; i + n < end && !strchr(" \t\n", l->buf[i + n]); n++)
			;
		if (n && n < sizeof(word)) {
			memcpy(word, l->buf + i, n);
			word[n] = '\0';
			ret = fz_bench_word(word, rq);
			if (ret) {
				fz_err(e, -ret, "request not read");
				ok = false;
			}
		}
		i += n + 1;
	}
	return ok;
}

/* ---- what a request that is read must give ---- */

/*
 * The bounds of one run (cmabuf_bench_check()), then the rules of ALLOC.
 * Fills @fr when the bounds hold.
 */
static void fz_bench_model(const struct fz_inst *in,
			   const struct fz_bench_req *rq, struct fz_expect *e,
			   struct fz_req *fr)
{
	unsigned int shift = fz_shift(in);
	__u64 calls = (__u64)rq->iterations * rq->blocks;
	bool bounds = true;

	memset(fr, 0, sizeof(*fr));
	if (!rq->pages || rq->pages > FZ_MAX_BYTES(in->rel.page_size) >> shift) {
		fz_err(e, EINVAL, "pages out of bounds");
		bounds = false;
	}
	if (!rq->iterations || rq->iterations > KBENCH_MAX_ITERATIONS ||
	    !rq->blocks || rq->blocks > KBENCH_MAX_BLOCKS ||
	    calls > KBENCH_MAX_SAMPLES)
		fz_err(e, EINVAL, "iterations or blocks out of bounds");
	else if (bounds && (calls * rq->pages) << shift > KBENCH_MAX_BYTES)
		fz_err(e, EINVAL, "more than the bytes bound in all");
	if (bounds)
		fz_model_request(in, rq->pages << shift, rq->align,
				 rq->strategy, e, fr);
	else if (rq->align > CMABUF_ALIGN_MAX)
		fz_err(e, EINVAL, "alignment above CMABUF_ALIGN_MAX");
	else if (!(in->rel.strategies & CMABUF_STRATEGY_BIT(rq->strategy)))
		fz_err(e, EOPNOTSUPP, NULL);
}

/*
 * A run that may allocate may find no room: ENOMEM when one allocation is
 * larger than the area; ENOMEM or EBUSY when the blocks together are, or
 * when they may not fit the largest free range or need an aligned one
 * (the bench file does not fall back from COMPOUND, nor retry), and
 * where buffers are being prepared in the area (memory moves under the
 * model).
 */
static void fz_bench_nomem(struct fz *f, int inst,
			   const struct fz_bench_req *rq,
			   const struct fz_req *fr, struct fz_expect *e)
{
	const struct fz_inst *in = &f->inst[inst];
	__u64 need = fr->pages * rq->blocks, chunk = 0;

	if (fr->too_big) {
		fz_err(e, ENOMEM, "larger than the area");
		return;
	}
	if (in->rel.total_pages && need > in->rel.total_pages) {
		fz_err(e, ENOMEM, "the blocks together are larger than the area");
		fz_err(e, EBUSY, NULL);
	} else if (fz_area_busy(f, inst) ||
		   fz_inst_maxchunk(f, inst, &chunk) || need > chunk ||
		   fr->align_order || fr->compound) {
		fz_err(e, ENOMEM, NULL);
		fz_err(e, EBUSY, NULL);
	}
}

/* ---- making a line ---- */

static void fz_bench_add(struct fz_bench_words *w, const char *fmt, ...)
	__printf(2, 3);

static void fz_bench_add(struct fz_bench_words *w, const char *fmt, ...)
{
	va_list ap;

	if (w->n == FZ_BENCH_WORDS)
		return;
	va_start(ap, fmt);
	vsnprintf(w->word[w->n++], FZ_BENCH_WORD, fmt, ap);
	va_end(ap);
}

/* A request that is often valid and cheap, sometimes at an edge. */
static void fz_bench_words(struct fz *f, const struct fz_inst *in,
			   struct fz_bench_words *w)
{
	unsigned long long pages;
	unsigned int blocks;
	__u32 s;

	do {
		s = rel_below(&f->rng, CMABUF_STRATEGY_COUNT);
	} while (!(in->rel.strategies & CMABUF_STRATEGY_BIT(s)) &&
		 rel_chance(&f->rng, 90));
	pages = 1 + rel_below(&f->rng, 32);
	if (s == CMABUF_STRATEGY_COMPOUND || rel_chance(&f->rng, 10))
		pages = 1ULL << (in->rel.min_order + rel_below(&f->rng, 2));
	if (rel_chance(&f->rng, 8))
		pages = fz_boundary(f);
	blocks = rel_chance(&f->rng, 5) ? 0 : 1 + rel_below(&f->rng, 3);

	w->n = 0;
	fz_bench_add(w, "pages=%llu", pages);
	fz_bench_add(w, "iterations=%llu", rel_chance(&f->rng, 5) ?
		     (unsigned long long)fz_boundary(f) :
		     1 + rel_below(&f->rng, 3));
	if (rel_chance(&f->rng, 70))
		fz_bench_add(w, "blocks=%u", blocks);
	if (s != CMABUF_STRATEGY_AUTO || rel_chance(&f->rng, 50))
		fz_bench_add(w, "strategy=%s", fz_strategy_names[s]);
	if (rel_chance(&f->rng, 15))
		fz_bench_add(w, "align=%llu", rel_chance(&f->rng, 90) ?
			     rel_below(&f->rng, 24) :
			     (unsigned long long)fz_boundary(f));
	if (rel_chance(&f->rng, 20))
		fz_bench_add(w, "zero=%d", rel_chance(&f->rng, 75));
}

/* A value the driver may not read as a number, or not as that one. */
static void fz_bench_bad_number(struct fz *f, char *out, size_t size)
{
	unsigned long long v = rel_below(&f->rng, 40);

	switch (rel_below(&f->rng, 12)) {
	case 0:
		snprintf(out, size, "-%llu", v);
		break;
	case 1:
		snprintf(out, size, "+%llu", v);
		break;
	case 2:
		snprintf(out, size, "0x%llx", v);
		break;
	case 3:
		snprintf(out, size, "0%llo", v);
		break;
	case 4:
		snprintf(out, size, "0%llu9", v);
		break;
	case 5:
		snprintf(out, size, "%llu%c", v, "axX.,:"[rel_below(&f->rng, 6)]);
		break;
	case 6:
		snprintf(out, size, "0x");
		break;
	case 7:
		snprintf(out, size, "%llu%019llu", v + 1, v);
		break;
	case 8:
		snprintf(out, size, "%030llu", v);
		break;
	case 9:
		snprintf(out, size, "18446744073709551616");
		break;
	case 10:
		snprintf(out, size, "4294967296");
		break;
	default:
		out[0] = '\0';
	}
}

/* Add a word the driver cannot read: a key, a number, a strategy. */
static void fz_bench_spoil_word(struct fz *f, struct fz_bench_words *w)
{
	static const char * const keys[] = {
		"flags=1", "Pages=1", "page=1", "pages", "=1", "blocks:2",
		"zero", "strategy", "iterations=1=1", "pages==1",
	};
	static const char * const names[] = {
		"fast", "AUTO", "Legacy", "auto2", "", "1", "frozen,legacy",
		"legacy\r", "compound\v",
	};
	static const char * const numeric[] = {
		"pages", "iterations", "blocks", "align", "zero",
	};
	char v[FZ_BENCH_WORD - 12];

	switch (rel_below(&f->rng, 3)) {
	case 0:
		fz_bench_add(w, "%s", keys[rel_below(&f->rng, ARRAY_SIZE(keys))]);
		break;
	case 1:
		fz_bench_add(w, "strategy=%s",
			     names[rel_below(&f->rng, ARRAY_SIZE(names))]);
		break;
	default:
		fz_bench_bad_number(f, v, sizeof(v));
		fz_bench_add(w, "%s=%s",
			     numeric[rel_below(&f->rng, ARRAY_SIZE(numeric))], v);
	}
}

/* Join the words in a random order with blanks; a newline at the end. */
static void fz_bench_join(struct fz *f, struct fz_bench_words *w,
			  struct fz_bench_line *l)
{
	static const char * const blanks[] = { " ", " ", " ", "\t", "  ", " \t" };
	char tmp[FZ_BENCH_WORD];
	unsigned int i, j;
	int n;

	for (i = w->n; i > 1; i--) {
		j = rel_below(&f->rng, i);
		memcpy(tmp, w->word[i - 1], sizeof(tmp));
		memcpy(w->word[i - 1], w->word[j], sizeof(tmp));
		memcpy(w->word[j], tmp, sizeof(tmp));
	}
	l->len = 0;
	for (i = 0; i < w->n; i++) {
		n = snprintf(l->buf + l->len, sizeof(l->buf) - l->len, "%s%s",
			     i ? blanks[rel_below(&f->rng, ARRAY_SIZE(blanks))] :
				 "",
			     w->word[i]);
		l->len += n;
	}
	if (rel_chance(&f->rng, 70))
		l->buf[l->len++] = '\n';
}

/*
 * Now and then a line the driver must refuse or read in part: a word it
 * cannot read, words run together, a repeated key (the last one counts),
 * blanks only, nothing, a run at the bytes bound or just above it (the
 * one skipped as too long to run, the other refused), a NUL and junk
 * after it (not read), or blanks up to the longest line the driver reads
 * and beyond.
 */
static void fz_bench_line(struct fz *f, const struct fz_inst *in,
			  struct fz_bench_line *l)
{
	static const size_t lengths[] = {
		FZ_BENCH_REQUEST_MAX - 2, FZ_BENCH_REQUEST_MAX - 1,
		FZ_BENCH_REQUEST_MAX, FZ_BENCH_REQUEST_MAX + 1,
		FZ_BENCH_REQUEST_MAX + 100, 1000,
	};
	unsigned int roll = rel_below(&f->rng, 100);
	struct fz_bench_words w;
	char tmp[FZ_BENCH_WORD];
	unsigned int order;
	size_t want;

	fz_bench_words(f, in, &w);
	if (roll < 12) {
		fz_bench_spoil_word(f, &w);
	} else if (roll < 14 && w.n > 1) {
		/* Two words run together. */
		snprintf(tmp, sizeof(tmp), "%.23s%.23s", w.word[w.n - 2],
			 w.word[w.n - 1]);
		memcpy(w.word[w.n - 2], tmp, sizeof(tmp));
		w.n--;
	} else if (roll < 16) {
		fz_bench_add(&w, "pages=%llu", rel_below(&f->rng, 3));
	} else if (roll < 18) {
		w.n = 0;
	} else if (roll < 20) {
		order = 11 + rel_below(&f->rng, 9);
		w.n = 0;
		fz_bench_add(&w, "pages=%llu", 1ULL << order);
		fz_bench_add(&w, "iterations=%llu",
			     (KBENCH_MAX_BYTES >> (order + fz_shift(in))) +
			     rel_below(&f->rng, 2));
	}
	fz_bench_join(f, &w, l);

	if (roll >= 16 && roll < 18 && rel_chance(&f->rng, 30)) {
		l->len = 0;
	} else if (roll >= 20 && roll < 23) {
		memcpy(l->buf + l->len, "\0flags=1 pages=x", 16);
		l->len += 16;
	} else if (roll >= 23 && roll < 28) {
		want = lengths[rel_below(&f->rng, ARRAY_SIZE(lengths))];
		if (want > l->len) {
			memset(l->buf + l->len, ' ', want - l->len);
			l->len = want;
		}
	}
}

/* The line for a description: blanks and NULs shown, cut to fit. */
static void fz_bench_show(const struct fz_bench_line *l, char *out,
			  size_t size)
{
	size_t i, n = 0;
	unsigned char c;

	for (i = 0; i < l->len && n + 5 < size; i++) {
		c = l->buf[i];
		if (c == ' ' && i + 1 < l->len && l->buf[i + 1] == ' ') {
			while (i + 1 < l->len && l->buf[i + 1] == ' ')
				i++;
			n += snprintf(out + n, size - n, "_");
		} else if (c < ' ' || c >= 0x7f) {
			n += snprintf(out + n, size - n, "\\x%02x", c);
		} else {
			out[n++] = c;
		}
	}
	out[n] = '\0';
}

/* ---- the report ---- */

static void fz_bench_stats_check(struct fz *f, const char *phase,
				 const struct kbench_stats *st, __u64 samples)
{
	if (st->samples != samples || !samples ||
	    st->min_ns > st->median_ns || st->median_ns > st->max_ns ||
	    st->mean_ns < st->min_ns || st->mean_ns > st->max_ns ||
	    st->total_ns < st->max_ns || st->mean_ns != st->total_ns / samples)
		fz_fail(f, FZ_BENCH,
			"%s stats: samples %llu (want %llu) min %llu median %llu max %llu mean %llu total %llu",
			phase, (unsigned long long)st->samples,
			(unsigned long long)samples,
			(unsigned long long)st->min_ns,
			(unsigned long long)st->median_ns,
			(unsigned long long)st->max_ns,
			(unsigned long long)st->mean_ns,
			(unsigned long long)st->total_ns);
}

/* What the file reads back must be what the last run left. */
static void fz_bench_report_check(struct fz *f, int fd,
				  const struct fz_report *want)
{
	char report[FZ_BENCH_REPORT];
	struct kbench b = { 0 };
	ssize_t n;

	n = pread(fd, report, sizeof(report) - 1, 0);
	if (n < 0) {
		fz_fail(f, FZ_BENCH, "reading the report: %s",
			rel_errname(errno));
		return;
	}
	report[n] = '\0';
	if (want->state == FZ_REPORT_NONE && n)
		fz_fail(f, FZ_BENCH, "a report after a refused run: %.60s",
			report);
	if (want->state != FZ_REPORT_RUN)
		return;
	if (kbench_parse(report, &b)) {
		fz_fail(f, FZ_BENCH, "a report that cannot be read: %.80s",
			report);
		return;
	}
	if (b.strategy_used != want->strategy)
		fz_fail(f, FZ_BENCH, "strategy %s timed, expected %s",
			fz_strategy_names[b.strategy_used],
			fz_strategy_names[want->strategy]);
	fz_bench_stats_check(f, "alloc", &b.alloc, want->calls);
	fz_bench_stats_check(f, "free", &b.free, want->calls);
	if (!want->zero) {
		if (strstr(report, "zero"))
			fz_fail(f, FZ_BENCH, "clearing timed unasked");
		return;
	}
	fz_bench_stats_check(f, "zero_one", &b.zero_one, want->iterations);
	fz_bench_stats_check(f, "zero_all", &b.zero_all, want->iterations);
	if (!b.zero_cpus)
		fz_fail(f, FZ_BENCH, "clearing on all CPUs used none");
}

/* ---- the operation ---- */

/* Without root the file stays shut: debugfs is root's. */
static int fz_bench_open(struct fz *f, int inst, int flags)
{
	const char *path = f->inst[inst].bench;
	struct fz_expect e;
	int fd, err;

	fd = open(path, flags | O_CLOEXEC);
	err = fd < 0 ? errno : 0;
	if (f->root) {
		if (err)
			fz_fail(f, FZ_BENCH, "open %s as root: %s", path,
				rel_errname(err));
		return fd;
	}
	fz_expect_init(&e);
	fz_err(&e, EACCES, "debugfs is root's");
	fz_judge(f, FZ_BENCH, &e, err);
	if (fd >= 0)
		close(fd);
	return -1;
}

/* What the write may give, and whether the driver reads the request. */
static bool fz_bench_expect(struct fz *f, int inst, bool rdonly,
			    const struct fz_bench_line *l, uintptr_t ptr,
			    struct fz_expect *e, struct fz_bench_req *rq,
			    struct fz_req *fr)
{
	fz_expect_init(e);
	memset(rq, 0, sizeof(*rq));
	memset(fr, 0, sizeof(*fr));
	if (rdonly) {
		fz_err(e, EBADF, "file open read-only");
		return false;
	}
	if (l->len >= FZ_BENCH_REQUEST_MAX)
		fz_err(e, EINVAL, "request too long");
	if (!fz_readable(f, ptr, l->len))
		fz_err(e, EFAULT, "request not readable");
	if (!e->may_succeed || !fz_bench_parse(l, rq, e))
		return false;
	fz_bench_model(&f->inst[inst], rq, e, fr);
	return true;
}

void fz_op_bench(struct fz *f)
{
	static struct fz_bench_line l;
	int inst = rel_below(&f->rng, f->ninst), fd, err;
	struct fz_inst *in = &f->inst[inst];
	bool rdonly = rel_chance(&f->rng, 3), reached;
	char shown[160];
	struct fz_bench_req rq;
	struct fz_expect e;
	struct fz_req fr;
	uintptr_t ptr;

	if (!in->bench[0])
		return;
	fz_bench_line(f, in, &l);
	ptr = l.len ? fz_place(f, l.buf, l.len) : (uintptr_t)f->arena.rw;
	reached = fz_bench_expect(f, inst, rdonly, &l, ptr, &e, &rq, &fr);
	/* A valid run must stay cheap: the guest is emulated. */
	if (e.may_succeed && !fr.too_big &&
	    (rq.pages * rq.blocks * rq.iterations > 4096 ||
	     rq.iterations * rq.blocks > 16))
		return;
	if (e.may_succeed)
		fz_bench_nomem(f, inst, &rq, &fr, &e);

	fz_bench_show(&l, shown, sizeof(shown));
	fz_describe(f, "bench file on %s: \"%s\" (%zu bytes at %#lx)%s",
		    in->rel.name, shown, l.len, (unsigned long)ptr,
		    rdonly ? " on a read-only fd" : "");
	fd = fz_bench_open(f, inst, rdonly ? O_RDONLY : O_RDWR);
	if (fd < 0)
		return;
	err = write(fd, (const void *)ptr, l.len) < 0 ? errno : 0;
	fz_judge(f, FZ_BENCH, &e, err);

	if (!err) {
		in->report.state = FZ_REPORT_RUN;
		in->report.strategy = fr.strategy;
		if (fr.strategy == CMABUF_STRATEGY_AUTO)
			in->report.strategy = fr.compound ?
				CMABUF_STRATEGY_COMPOUND : fz_best(in);
		in->report.calls = (__u64)rq.iterations * rq.blocks;
		in->report.iterations = rq.iterations;
		in->report.zero = rq.zero;
	} else if (reached) {
		in->report.state = FZ_REPORT_NONE;
	}
	fz_bench_report_check(f, fd, &in->report);
	close(fd);
}
