// SPDX-License-Identifier: GPL-2.0
/*
 * Host-side unit tests of cmabufctl's parsing (prepare's and share's command
 * lines too), statistics, formatting, JSON output, and share's framebuffers
 * and explanations. Prints TAP; exits non-zero on
 * any failure.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/cmabuf.h>
#include "alloc.h"
#include "bench.h"
#include "cmd.h"
#include "dev.h"
#include "explain.h"
#include "fmt.h"
#include "hold.h"
#include "json.h"
#include "msg.h"
#include "parse.h"
#include "prepare.h"
#include "share.h"
#include "share_fb.h"
#include "stats.h"
#include "xfer.h"
#include "kselftest.h"
#include "util.h"

struct size_case {
	const char *text;
	int ret;
	__u64 value;
};

static const struct size_case size_cases[] = {
	{ "0", 0, 0 },
	{ "4096", 0, 4096 },
	{ "4K", 0, 4096 },
	{ "4k", 0, 4096 },
	{ "64M", 0, 64ULL << 20 },
	{ "1G", 0, 1ULL << 30 },
	{ "2T", 0, 2ULL << 40 },
	{ "15E", 0, 15ULL << 60 },
	{ "18446744073709551615", 0, ~0ULL },
	{ "18446744073709551616", -ERANGE, 0 },
	{ "16E", -ERANGE, 0 },
	{ "17179869184G", -ERANGE, 0 },
	{ "17179869183G", 0, 17179869183ULL << 30 },
	{ "", -EINVAL, 0 },
	{ "M", -EINVAL, 0 },
	{ "12X", -EINVAL, 0 },
	{ "1MB", -EINVAL, 0 },
	{ "-1", -EINVAL, 0 },
	{ "+1", -EINVAL, 0 },
	{ "0x10", -EINVAL, 0 },
	{ "1M ", -EINVAL, 0 },
	/* As cmabufctl prints sizes (fmt_size). */
	{ "64MiB", 0, 64ULL << 20 },
	{ "64 MiB", 0, 64ULL << 20 },
	{ "1 M", 0, 1ULL << 20 },
	{ "4 KiB", 0, 4096 },
	{ "4kiB", 0, 4096 },
	{ "1000 B", 0, 1000 },
	{ "1000B", 0, 1000 },
	{ "1.50 GiB", 0, 1536ULL << 20 },
	{ "1.5G", 0, 1536ULL << 20 },
	{ "0.5K", 0, 512 },
	{ "15.5 EiB", 0, 31ULL << 59 },
	{ "16.5 EiB", -ERANGE, 0 },
	{ "1.5", -EINVAL, 0 },
	{ "1.0001K", -EINVAL, 0 },
	{ "1.K", -EINVAL, 0 },
	{ ".5K", -EINVAL, 0 },
	{ "1.0000000001G", -EINVAL, 0 },
	{ "64 MB", -EINVAL, 0 },
	{ "64  MiB", -EINVAL, 0 },
	{ "64 ", -EINVAL, 0 },
	{ "64Mi", -EINVAL, 0 },
	{ "1iB", -EINVAL, 0 },
};

static void test_sizes(void)
{
	const struct size_case *c;
	__u64 v;
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(size_cases); i++) {
		c = &size_cases[i];
		v = 0;
		ret = parse_size(c->text, &v);
		ksft_test_result(ret == c->ret && (ret || v == c->value),
				 "parse_size(\"%s\") = %d, %llu (want %d, %llu)\n", c->text, ret,
				 v, c->ret, c->value);
	}
}

static void test_numbers(void)
{
	__u32 u32 = 0, log2 = 0;
	__u8 byte = 0;
	__u64 u64 = 0;

	ksft_test_result(!parse_u64("20", &u64) && u64 == 20, "parse_u64 20\n");
	ksft_test_result(parse_u64("20K", &u64) == -EINVAL, "parse_u64 rejects a suffix\n");
	ksft_test_result(!parse_u32("4294967295", &u32) && u32 == 0xffffffffU,
			 "parse_u32 takes 2^32 - 1\n");
	ksft_test_result(parse_u32("4294967296", &u32) == -ERANGE, "parse_u32 rejects 2^32\n");
	ksft_test_result(!parse_byte("0xab", &byte) && byte == 0xab, "parse_byte 0xab\n");
	ksft_test_result(!parse_byte("255", &byte) && byte == 255, "parse_byte 255\n");
	ksft_test_result(parse_byte("256", &byte) == -ERANGE, "parse_byte rejects 256\n");
	ksft_test_result(parse_byte("0x100", &byte) == -ERANGE, "parse_byte rejects 0x100\n");
	ksft_test_result(parse_byte("0x", &byte) == -EINVAL, "parse_byte rejects 0x\n");
	ksft_test_result(parse_byte("0xg1", &byte) == -EINVAL, "parse_byte rejects 0xg1\n");
	ksft_test_result(!parse_align("2M", &log2) && log2 == 21, "parse_align 2M is 2^21\n");
	ksft_test_result(!parse_align("1", &log2) && log2 == 0, "parse_align 1 is 2^0\n");
	ksft_test_result(parse_align("3K", &log2) == -EINVAL, "parse_align rejects 3K\n");
	ksft_test_result(parse_align("0", &log2) == -EINVAL, "parse_align rejects 0\n");
	ksft_test_result(parse_align("2T", &log2) == -ERANGE,
			 "parse_align rejects 2^41 (above CMABUF_ALIGN_MAX)\n");
}

static void test_strategies(void)
{
	static const char * const names[] = {
		"auto", "compound", "frozen", "legacy", "dma",
	};
	static const int values[] = {
		CMABUF_STRATEGY_AUTO, CMABUF_STRATEGY_COMPOUND,
		CMABUF_STRATEGY_FROZEN, CMABUF_STRATEGY_LEGACY,
		CMABUF_STRATEGY_DMA,
	};
	size_t i;
	int s;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		s = -2;
		ksft_test_result(!parse_strategy(names[i], &s) && s == values[i] &&
				 !strcmp(strategy_name(s), names[i]),
				 "strategy %s round-trips\n", names[i]);
	}
	ksft_test_result(!parse_strategy("FROZEN", &s) && s == CMABUF_STRATEGY_FROZEN,
			 "strategy names ignore case\n");
	ksft_test_result(!parse_strategy("all", &s) && s == PARSE_STRATEGY_ALL,
			 "strategy all\n");
	ksft_test_result(parse_strategy("frozen2", &s) == -EINVAL, "strategy frozen2 rejected\n");
	ksft_test_result(parse_strategy("", &s) == -EINVAL, "empty strategy rejected\n");
	ksft_test_result(!strcmp(strategy_name(CMABUF_STRATEGY_COUNT), "unknown"),
			 "strategy_name of an unknown value\n");
}

static void test_stats(void)
{
	static const __u64 odd[] = { 9, 1, 5, 7, 3 };
	static const __u64 even[] = { 40, 10, 30, 20 };
	static const __u64 big[] = { ~0ULL - 1, ~0ULL - 3 };
	static const __u64 one[] = { 42 };
	__u64 copy[ARRAY_SIZE(odd)];
	struct stats st = { };
	int ret;

	memcpy(copy, odd, sizeof(odd));
	ret = stats_compute(odd, ARRAY_SIZE(odd), &st);
	ksft_test_result(!ret && st.median == 5,
			 "median of an odd count is the middle sample (%llu)\n", st.median);
	ksft_test_result(st.min == 1 && st.max == 9 && st.n == 5,
			 "min 1, max 9, n 5 (%llu, %llu, %llu)\n", st.min, st.max, st.n);
	ksft_test_result(st.total == 25 && st.mean == 5, "total 25, mean 5\n");
	ksft_test_result(!memcmp(copy, odd, sizeof(odd)), "samples left unsorted\n");
	ret = stats_compute(even, ARRAY_SIZE(even), &st);
	ksft_test_result(!ret && st.median == 25,
			 "median of an even count is the mean of the middle two (%llu)\n",
			 st.median);
	ksft_test_result(st.min == 10 && st.max == 40 && st.mean == 25,
			 "even count: min 10, max 40, mean 25\n");
	ret = stats_compute(big, ARRAY_SIZE(big), &st);
	ksft_test_result(!ret && st.median == ~0ULL - 2,
			 "median of two huge samples does not overflow\n");
	ret = stats_compute(one, 1, &st);
	ksft_test_result(!ret && st.median == 42 && st.min == 42 && st.max == 42,
			 "one sample is its own median, min and max\n");
	ksft_test_result(stats_compute(one, 0, &st) == -EINVAL, "no samples is an error\n");
	st.min = 90;
	st.max = 110;
	st.median = 100;
	ksft_test_result(stats_spread_pct(&st) > 19.99 && stats_spread_pct(&st) < 20.01,
			 "spread of 90..110 around 100 is 20%%\n");
}

static void test_tail(void)
{
	static const __u64 ten[] = { 10, 1, 9, 2, 8, 3, 7, 4, 6, 5 };
	__u64 hundred[100], copy[ARRAY_SIZE(ten)];
	struct stats_tail t = { };
	unsigned int i;
	int ret;

	memcpy(copy, ten, sizeof(ten));
	ret = stats_tail(ten, ARRAY_SIZE(ten), &t);
	ksft_test_result(!ret && t.p90 == 9 && t.p99 == 10,
			 "of 1..10, p90 is 9 and p99 the maximum (%llu, %llu)\n",
			 t.p90, t.p99);
	ksft_test_result(!memcmp(copy, ten, sizeof(ten)),
			 "tail: samples left unsorted\n");
	for (i = 0; i < ARRAY_SIZE(hundred); i++)
		hundred[i] = 100 - i;
	ret = stats_tail(hundred, ARRAY_SIZE(hundred), &t);
	ksft_test_result(!ret && t.p90 == 90 && t.p99 == 99,
			 "of 1..100, p90 is 90 and p99 is 99 (%llu, %llu)\n",
			 t.p90, t.p99);
	ret = stats_tail(ten, 1, &t);
	ksft_test_result(!ret && t.p90 == 10 && t.p99 == 10,
			 "one sample is its own tail\n");
	ksft_test_result(stats_tail(ten, 0, &t) == -EINVAL,
			 "tail of no samples is an error\n");
}

/* Escape @in into a memory stream and compare with @want. */
static void json_case(const char *what, const char *in, const char *want)
{
	char *out = NULL;
	size_t len = 0;
	FILE *fp;

	fp = open_memstream(&out, &len);
	if (!fp) {
		ksft_test_result(false, "%s: open_memstream\n", what);
		return;
	}
	json_string(fp, in);
	fclose(fp);
	ksft_test_result(!strcmp(out, want), "json escape %s: %s\n", what, out);
	free(out);
}

/* Compare a document written to a memory stream, then free it. */
static void json_expect(const char *what, char *out, const char *want)
{
	ksft_test_result(!strcmp(out, want), "%s: %.*s\n", what, (int)strcspn(out, "\n"), out);
	free(out);
}

static void test_json(void)
{
	char *out = NULL;
	size_t len = 0;
	struct json j;
	FILE *fp;

	json_case("plain", "cmabuf-frozen", "\"cmabuf-frozen\"");
	json_case("quote and backslash", "a\"b\\c", "\"a\\\"b\\\\c\"");
	json_case("named controls", "\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\"");
	json_case("other controls", "\x01\x1f", "\"\\u0001\\u001f\"");
	json_case("UTF-8 passes", "\xc2\xb5s", "\"\xc2\xb5s\"");
	json_case("empty", "", "\"\"");

	fp = open_memstream(&out, &len);
	if (!fp) {
		ksft_test_result(false, "json object: open_memstream\n");
		return;
	}
	json_begin(&j, fp);
	json_str(&j, "path", "cma-heap");
	json_u64(&j, "median_ns", 18446744073709551615ULL);
	json_end(&j);
	fclose(fp);
	json_expect("json object line", out,
		    "{\"format\": 1, \"path\": \"cma-heap\", \"median_ns\": 18446744073709551615}\n");
}

/* A document as info writes it: nested objects, arrays, null, booleans. */
static void test_json_document(void)
{
	char *out = NULL;
	size_t len = 0;
	struct json j;
	FILE *fp;

	fp = open_memstream(&out, &len);
	if (!fp) {
		ksft_test_result(false, "json document: open_memstream\n");
		return;
	}
	json_begin(&j, fp);
	json_array(&j, "a");
	json_object(&j, NULL);
	json_str(&j, "b", "/dev/x");
	json_null(&j, "c");
	json_array(&j, "d");
	json_str(&j, NULL, "e");
	json_str(&j, NULL, "f");
	json_close(&j);
	json_close(&j);
	json_object(&j, NULL);
	json_bool(&j, "g", true);
	json_array(&j, "h");
	/* json_end() closes what is still open. */
	json_end(&j);
	fclose(fp);
	json_expect("json document", out,
		    "{\"format\": 1, \"a\": [{\"b\": \"/dev/x\", \"c\": null, \"d\": [\"e\", \"f\"]}, {\"g\": true, \"h\": []}]}\n");
}

/* An instance like the test bed's general one on 7.2. */
static const struct cmabuf_info explain_info = {
	.total_bytes = 256ULL << 20,
	.free_bytes = 40ULL << 20,
	.used_bytes = 216ULL << 20,
	.page_size = 4096,
	.min_compound_order = 9,
	.max_compound_order = 16,
	.strategies = 0xf,
	.flags = CMABUF_INFO_AREA_STATS,
};

struct einval_case {
	__u64 size;
	__u32 align;
	unsigned int strategy;
	enum explain_what what;
	const char *says;
};

static const struct einval_case einval_cases[] = {
	{ 0, 0, CMABUF_STRATEGY_AUTO, EXPLAIN_SIZE, "size: " },
	{ 4ULL << 30, 0, CMABUF_STRATEGY_FROZEN, EXPLAIN_SIZE, "to 4294963200 bytes" },
	{ 4096, 41, CMABUF_STRATEGY_AUTO, EXPLAIN_ALIGN, "alignment: at most 2^40" },
	{ 3 << 20, 0, CMABUF_STRATEGY_COMPOUND, EXPLAIN_SIZE, "from 2 MiB to 256 MiB" },
	{ 1 << 20, 0, CMABUF_STRATEGY_COMPOUND, EXPLAIN_SIZE, "from 2 MiB to 256 MiB" },
	{ 512ULL << 20, 0, CMABUF_STRATEGY_COMPOUND, EXPLAIN_SIZE, "power of two" },
	{ 2 << 20, 22, CMABUF_STRATEGY_COMPOUND, EXPLAIN_ALIGN, "aligned to its size (2 MiB)" },
	{ 2 << 20, 21, CMABUF_STRATEGY_COMPOUND, EXPLAIN_UNKNOWN, "refused size 2 MiB" },
	{ 4096, 0, 7, EXPLAIN_STRATEGY, "unknown strategy 7" },
};

static void test_explain(void)
{
	struct cmabuf_info info = explain_info;
	const struct einval_case *c;
	enum explain_what what;
	char buf[512];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(einval_cases); i++) {
		c = &einval_cases[i];
		what = explain_einval(&info, c->size, c->align, c->strategy, buf,
				      sizeof(buf));
		ksft_test_result(what == c->what && strstr(buf, c->says),
				 "explain_einval(%llu, 2^%u, %s): %d '%s'\n", c->size, c->align,
				 strategy_name(c->strategy), what, buf);
	}

	info.max_compound_order = 0;
	what = explain_einval(&info, 2 << 20, 0, CMABUF_STRATEGY_COMPOUND, buf,
			      sizeof(buf));
	ksft_test_result(what == EXPLAIN_STRATEGY && strstr(buf, "no COMPOUND buffer"),
			 "explain_einval: an area too small for COMPOUND: '%s'\n", buf);

	info = explain_info;
	explain_enomem(&info, 64ULL << 20, 8ULL << 20, buf, sizeof(buf));
	ksft_test_result(strstr(buf, "40 MiB of 256 MiB free") &&
			 strstr(buf, "can hold is 256 MiB") &&
			 strstr(buf, "largest free range now is 8 MiB"),
			 "explain_enomem: free bytes, largest buffer, largest range: '%s'\n", buf);
	explain_enomem(&info, 64ULL << 20, 0, buf, sizeof(buf));
	ksft_test_result(strstr(buf, "maxchunk"),
			 "explain_enomem without debugfs says where root looks: '%s'\n", buf);
	explain_enomem(&info, 64ULL << 20, DEV_UNTOLD, buf, sizeof(buf));
	ksft_test_result(strstr(buf, "40 MiB of 256 MiB free") &&
			 !strstr(buf, "largest free range"),
			 "explain_enomem where the kernel has no CMA debugfs: no largest range, no hint: '%s'\n",
			 buf);
	explain_enomem(&info, 32ULL << 20, 8ULL << 20, buf, sizeof(buf));
	ksft_test_result(strstr(buf, "memory cgroup's limit"),
			 "explain_enomem with room names the memory cgroup: '%s'\n", buf);
	explain_enomem(&info, 64ULL << 20, 8ULL << 20, buf, sizeof(buf));
	ksft_test_result(!strstr(buf, "memory cgroup"),
			 "explain_enomem without room in the area does not: '%s'\n", buf);
	explain_enomem(&info, 1ULL << 30, 0, buf, sizeof(buf));
	ksft_test_result(strstr(buf, "more than the whole area (256 MiB)"),
			 "explain_enomem: larger than the area: '%s'\n", buf);
	info.flags = 0;
	explain_enomem(&info, 64ULL << 20, 0, buf, sizeof(buf));
	ksft_test_result(strstr(buf, "does not tell the area's free bytes"),
			 "explain_enomem: a kernel without area statistics: '%s'\n", buf);

	info = explain_info;
	explain_ebusy(&info, 16ULL << 20, 2ULL << 20, buf, sizeof(buf));
	ksft_test_result(strstr(buf, "40 MiB of the area is free") &&
			 strstr(buf, "no range of 16 MiB could be emptied") &&
			 strstr(buf, "try again later") &&
			 strstr(buf, "largest free range now is 2 MiB"),
			 "explain_ebusy: free bytes, why, what to do, largest range: '%s'\n",
			 buf);
}

/* EDQUOT, and the cap as info shows it: in the words of sysfs. */
static void test_cap(void)
{
	struct explain_cap cap = { .known = true, .held = 8ULL << 20,
				   .max = 8ULL << 20 };
	char buf[512];

	explain_enobufs(32ULL << 20, buf, sizeof(buf));
	ksft_test_result(strstr(buf, "32 MiB would take") &&
			 strstr(buf, "memory cgroup past its memory.max") &&
			 strstr(buf, "mem_accounting"),
			 "explain_enobufs: the cgroup, its limit, the parameter: '%s'\n",
			 buf);
	explain_edquot(&cap, 1ULL << 20, buf, sizeof(buf));
	ksft_test_result(strstr(buf, "a buffer of 1 MiB") &&
			 strstr(buf, "cap for callers without CAP_SYS_ADMIN: ") &&
			 strstr(buf, ": 8 MiB for each user") &&
			 strstr(buf, "(unprivileged_max_bytes; 8 MiB held by all"),
			 "explain_edquot: the cap, what is held, its file: '%s'\n", buf);
	cap.max = 0;
	explain_edquot(&cap, 1ULL << 20, buf, sizeof(buf));
	ksft_test_result(strstr(buf, "lifted since") && strstr(buf, "try again"),
			 "explain_edquot: a cap lifted since the refusal: '%s'\n", buf);
	cap.known = false;
	explain_edquot(&cap, 1ULL << 20, buf, sizeof(buf));
	ksft_test_result(strstr(buf, "without CAP_SYS_ADMIN") &&
			 strstr(buf, "could not be read") && !strstr(buf, " held"),
			 "explain_edquot: sysfs not readable: '%s'\n", buf);

	cap = (struct explain_cap){ .known = true, .held = 3ULL << 20,
				    .max = 64ULL << 20 };
	ksft_test_result(strstr(explain_cap_text(&cap, buf, sizeof(buf)),
				"64 MiB for each user, 3 MiB held by all (") &&
			 strstr(buf, "(callers without CAP_SYS_ADMIN)"),
			 "explain_cap_text: a cap: '%s'\n", buf);
	cap.max = 0;
	ksft_test_result(!strcmp(explain_cap_text(&cap, buf, sizeof(buf)),
				 "none (callers without CAP_SYS_ADMIN hold 3 MiB)"),
			 "explain_cap_text: no cap: '%s'\n", buf);
}

static void test_fmt(void)
{
	char buf[FMT_LEN];

	ksft_test_result(!strcmp(fmt_size(64ULL << 20, buf, sizeof(buf)), "64 MiB"),
			 "fmt_size 64 MiB\n");
	ksft_test_result(!strcmp(fmt_size(1536ULL << 20, buf, sizeof(buf)), "1.50 GiB"),
			 "fmt_size 1.50 GiB\n");
	ksft_test_result(!strcmp(fmt_size(1000, buf, sizeof(buf)), "1000 B"), "fmt_size 1000 B\n");
	ksft_test_result(!strcmp(fmt_ns(1234567, buf, sizeof(buf)), "1.235 ms"),
			 "fmt_ns 1234567 ns (%s)\n", buf);
	ksft_test_result(!strcmp(fmt_ns(123456, buf, sizeof(buf)), "123.456 us"),
			 "fmt_ns 123456 ns (%s)\n", buf);
	ksft_test_result(!strcmp(fmt_ns(12345678, buf, sizeof(buf)), "12.346 ms"),
			 "fmt_ns 12345678 ns (%s)\n", buf);
	ksft_test_result(!strcmp(fmt_ns(999, buf, sizeof(buf)), "999 ns"), "fmt_ns 999 ns\n");
}

static void test_devices(void)
{
	char buf[PATH_MAX];

	ksft_test_result(!strcmp(dev_resolve(NULL, buf, sizeof(buf)), "/dev/cmabuf"),
			 "no --device is /dev/cmabuf\n");
	ksft_test_result(!strcmp(dev_resolve("default", buf, sizeof(buf)), "/dev/cmabuf"),
			 "--device default is /dev/cmabuf\n");
	ksft_test_result(!strcmp(dev_resolve("large", buf, sizeof(buf)), "/dev/cmabuf-large"),
			 "--device large is /dev/cmabuf-large\n");
	ksft_test_result(!strcmp(dev_resolve("/tmp/node", buf, sizeof(buf)), "/tmp/node"),
			 "a path is taken as it is\n");
}

struct prepare_case {
	const char *args[16];
	int ret;
};

/* cmabufctl prepare's command lines: what is taken, what is refused. */
static const struct prepare_case prepare_cases[] = {
	{ { "12M", "8" }, 0 },
	{ { "-w", "-t", "100", "64MiB", "2" }, 0 },
	{ { "4K", "256" }, 0 },
	{ { "12M" }, EXIT_USAGE },
	{ { "12M", "0" }, EXIT_USAGE },
	{ { "12M", "257" }, EXIT_USAGE },
	{ { "12M", "x" }, EXIT_USAGE },
	{ { "0", "1" }, EXIT_USAGE },
	{ { "12X", "1" }, EXIT_USAGE },
	{ { "12M", "1", "extra" }, EXIT_USAGE },
	{ { "12M", "1", "--timeout", "-1" }, EXIT_USAGE },
	{ { "12M", "1", "--hold", "1.5" }, EXIT_USAGE },
	{ { "12M", "1", "--strategy", "all" }, EXIT_USAGE },
	{ { "12M", "1", "--align", "3K" }, EXIT_USAGE },
	/* -H is human-readable elsewhere: --hold alone. */
	{ { "12M", "1", "-H", "30" }, EXIT_USAGE },
	{ { "12M", "1", "--hold", "30" }, 0 },
};

/* prepare_parse() of "prepare" and @args. */
static int prepare_parse_args(const char *const *args, struct prepare_opts *o)
{
	char *argv[18] = { "prepare" };
	int argc = 1;

	while (argc < 17 && args[argc - 1]) {
		argv[argc] = (char *)args[argc - 1];
		argc++;
	}
	return prepare_parse(argc, argv, o);
}

static void test_prepare(void)
{
	static const char *const all[] = {
		"12M", "8", "--wait", "--hold", "30", "--timeout", "5000",
		"--strategy", "frozen", "--device", "video", "--align", "2M",
		"--json", NULL,
	};
	struct prepare_limits l = {
		.area_bytes = 256ULL << 20,
		.page_size = 4096,
		.max_percent = 50,
		.file_percent = 25,
	};
	struct prepare_opts o;
	char buf[512];
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(prepare_cases); i++) {
		const char *const *a = prepare_cases[i].args;
		size_t k, off = 0;

		for (k = 0; a[k] && off < sizeof(buf); k++)
			off += snprintf(buf + off, sizeof(buf) - off, " %s",
					a[k]);
		ret = prepare_parse_args(a, &o);
		ksft_test_result(ret == prepare_cases[i].ret, "prepare%s: %d (want %d)\n",
				 buf, ret, prepare_cases[i].ret);
	}

	ret = prepare_parse_args((const char *const[]){ "12M", "8", NULL }, &o);
	ksft_test_result(!ret && o.size == 12ULL << 20 && o.count == 8 &&
			 o.strategy == CMABUF_STRATEGY_AUTO && !o.align && !o.timeout_ms &&
			 !o.wait && !o.hold && !o.json && !strcmp(o.device, "/dev/cmabuf"),
			 "prepare 12M 8: AUTO, no wait, no hold, the default device\n");
	ret = prepare_parse_args(all, &o);
	ksft_test_result(!ret && o.size == 12ULL << 20 && o.count == 8 &&
			 o.strategy == CMABUF_STRATEGY_FROZEN && o.align == 21 &&
			 o.timeout_ms == 5000 && o.wait && o.hold == 30 && o.json &&
			 !strcmp(o.device, "/dev/cmabuf-video"),
			 "prepare with every option: each one taken\n");

	prepare_explain_enospc(&l, 96ULL << 20, 2, buf, sizeof(buf));
	ksft_test_result(strstr(buf, "2 x 96 MiB (192 MiB)") &&
			 strstr(buf, "without CAP_SYS_ADMIN") && strstr(buf, "25%") &&
			 strstr(buf, "50%"),
			 "prepare ENOSPC, unprivileged: both limits: '%s'\n", buf);
	l.privileged = true;
	prepare_explain_enospc(&l, 96ULL << 20, 2, buf, sizeof(buf));
	ksft_test_result(strstr(buf, "50% of the area") &&
			 strstr(buf, "prepare_max_percent") &&
			 !strstr(buf, "CAP_SYS_ADMIN"),
			 "prepare ENOSPC, privileged: the limit of all files: '%s'\n", buf);
	l.default_area = true;
	l.max_percent = 10;
	prepare_explain_enospc(&l, 96ULL << 20, 2, buf, sizeof(buf));
	ksft_test_result(strstr(buf, "10% of the area") &&
			 strstr(buf, "prepare_default_percent, on the kernel's default area"),
			 "prepare ENOSPC on the default area: its own share: '%s'\n", buf);
	l.default_area = false;
	l.max_percent = 50;
	l.area_bytes = 0;
	prepare_explain_enospc(&l, 4096, 1, buf, sizeof(buf));
	ksft_test_result(strstr(buf, "50% of the area for all files") &&
			 strstr(buf, "25% for one user"),
			 "prepare ENOSPC, area size unknown: the shares: '%s'\n", buf);
}

/* @cmd and @args (NULL-terminated) into @argv, room for 32; argc. */
static int unit_argv(const char *cmd, const char *const *args, char **argv)
{
	int argc = 1;

	argv[0] = (char *)cmd;
	while (argc < 31 && args[argc - 1]) {
		argv[argc] = (char *)args[argc - 1];
		argc++;
	}
	argv[argc] = NULL;
	return argc;
}

/* alloc_parse() of "alloc" and @args (NULL-terminated). */
static int alloc_parse_args(const char *const *args, struct alloc_opts *o)
{
	char *argv[32];

	return alloc_parse(unit_argv("alloc", args, argv), argv, o);
}

/* bench_parse() of "bench" and @args (NULL-terminated). */
static int bench_parse_args(const char *const *args, struct bench_opts *o)
{
	char *argv[32];

	return bench_parse(unit_argv("bench", args, argv), argv, o);
}

/* bench's command line: a size, strategies, iterations; what it refuses. */
static void test_bench(void)
{
	struct bench_opts o;
	int ret;

	ret = bench_parse_args((const char *const[]){ NULL }, &o);
	ksft_test_result(!ret && o.size == 64ULL << 20 && !o.strategies &&
			 o.iterations == 20 && !o.json,
			 "bench: 64 MiB, every strategy, 20 iterations\n");
	ret = bench_parse_args((const char *const[]){
		"2M", "-s", "compound,legacy", "-n", "3", "-j", NULL,
	}, &o);
	ksft_test_result(!ret && o.size == 2ULL << 20 && o.iterations == 3 && o.json &&
			 o.strategies == (CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_COMPOUND) |
					  CMABUF_STRATEGY_BIT(CMABUF_STRATEGY_LEGACY)),
			 "bench 2M -s compound,legacy -n 3 -j: each one taken\n");
	ret = bench_parse_args((const char *const[]){ "-s", "legacy,all", NULL }, &o);
	ksft_test_result(!ret && !o.strategies, "bench -s legacy,all: all\n");
	ret = bench_parse_args((const char *const[]){ "-s", "legacy,bogus", NULL }, &o);
	ksft_test_result(ret == EXIT_USAGE, "bench -s legacy,bogus: refused (%d)\n", ret);
	ret = bench_parse_args((const char *const[]){ "-s", ",", NULL }, &o);
	ksft_test_result(ret == EXIT_USAGE, "bench -s ',': no strategy, refused (%d)\n", ret);
	ret = bench_parse_args((const char *const[]){ "-n", "0", NULL }, &o);
	ksft_test_result(ret == EXIT_USAGE, "bench -n 0: refused (%d)\n", ret);
	ret = bench_parse_args((const char *const[]){ "4M", "8M", NULL }, &o);
	ksft_test_result(ret == EXIT_USAGE, "bench 4M 8M: one size only (%d)\n", ret);
	ret = bench_parse_args((const char *const[]){ "0", NULL }, &o);
	ksft_test_result(ret == EXIT_USAGE, "bench 0: refused (%d)\n", ret);
}

/*
 * -v and -H mean verbose and human-readable to other tools: alloc refuses
 * them rather than verify or hold, and the long options still work.
 */
static void test_alloc(void)
{
	struct alloc_opts o;
	int ret;

	ret = alloc_parse_args((const char *const[]){ "4M", NULL }, &o);
	ksft_test_result(!ret && o.size == 4ULL << 20 && !o.verify && !o.hold &&
			 o.strategy == CMABUF_STRATEGY_AUTO && !o.do_fill && !o.json,
			 "alloc 4M: AUTO, no verify, no hold\n");
	ret = alloc_parse_args((const char *const[]){
		"4M", "--verify", "--hold", "3", "--fill", "0xa5", "-j", NULL,
	}, &o);
	ksft_test_result(!ret && o.verify && o.hold == 3 && o.do_fill && o.fill == 0xa5 &&
			 o.json, "alloc 4M --verify --hold 3 --fill 0xa5 -j: each one taken\n");
	ret = alloc_parse_args((const char *const[]){ "4M", "-v", NULL }, &o);
	ksft_test_result(ret == EXIT_USAGE, "alloc 4M -v: refused (%d), not --verify\n", ret);
	ret = alloc_parse_args((const char *const[]){ "4M", "-H", "3", NULL }, &o);
	ksft_test_result(ret == EXIT_USAGE, "alloc 4M -H 3: refused (%d), not --hold\n", ret);
	ret = alloc_parse_args((const char *const[]){ "4M", "--hold", NULL }, &o);
	ksft_test_result(!ret && o.hold == HOLD_UNTIL_SIGNAL,
			 "alloc 4M --hold: until a signal\n");
	ret = alloc_parse_args((const char *const[]){ "--hold", "4M", NULL }, &o);
	ksft_test_result(!ret && o.hold == HOLD_UNTIL_SIGNAL && o.size == 4ULL << 20,
			 "alloc --hold 4M: until a signal, 4M the size\n");
	ret = alloc_parse_args((const char *const[]){ "--hold=5", "4M", NULL }, &o);
	ksft_test_result(!ret && o.hold == 5, "alloc --hold=5 4M: 5 s\n");
	ret = alloc_parse_args((const char *const[]){ "--hold=x", "4M", NULL }, &o);
	ksft_test_result(ret == EXIT_USAGE, "alloc --hold=x: refused (%d)\n", ret);
}

/* What a test printed on stderr, from unit_stderr_begin() on. */
static FILE *unit_err;
static int unit_saved_stderr = -1;
static char unit_err_text[2048];

static void unit_stderr_begin(void)
{
	fflush(stderr);
	unit_err = tmpfile();
	unit_saved_stderr = dup(STDERR_FILENO);
	dup2(fileno(unit_err), STDERR_FILENO);
}

static const char *unit_stderr_end(void)
{
	size_t n;

	fflush(stderr);
	dup2(unit_saved_stderr, STDERR_FILENO);
	close(unit_saved_stderr);
	rewind(unit_err);
	n = fread(unit_err_text, 1, sizeof(unit_err_text) - 1, unit_err);
	unit_err_text[n] = '\0';
	fclose(unit_err);
	return unit_err_text;
}

/* The parser of @cmd on @argc words of @argv, its command's name first. */
static int unit_parse(int argc, char **argv)
{
	union {
		struct alloc_opts alloc;
		struct prepare_opts prepare;
		struct bench_opts bench;
		struct reserve_opts reserve;
		struct share_opts share;
		struct xfer_opts xfer;
	} o;

	optind = 0;
	if (!strcmp(argv[0], "alloc"))
		return alloc_parse(argc, argv, &o.alloc);
	if (!strcmp(argv[0], "prepare"))
		return prepare_parse(argc, argv, &o.prepare);
	if (!strcmp(argv[0], "bench"))
		return bench_parse(argc, argv, &o.bench);
	if (!strcmp(argv[0], "reserve"))
		return reserve_parse(argc, argv, &o.reserve);
	if (!strcmp(argv[0], "share"))
		return share_parse(argc, argv, &o.share);
	if (!strcmp(argv[0], "load"))
		return load_parse(argc, argv, &o.xfer);
	if (!strcmp(argv[0], "save"))
		return save_parse(argc, argv, &o.xfer);
	return cmd_info(argc, argv);
}

struct cmdline_case {
	const char *cmd;
	const char *args[4];
	const char *err;
};

/*
 * A command line that is wrong: one line on stderr, "PROG: CMD: <err>
 * (try 'PROG CMD --help')", and exit status 2; no help text.
 */
static const struct cmdline_case cmdline_cases[] = {
	{ "info", { "--bogus" }, "unknown option '--bogus'" },
	{ "alloc", { "4M", "--bogus" }, "unknown option '--bogus'" },
	{ "alloc", { "4M", "-v" }, "unknown option '-v'" },
	{ "alloc", { "4M", "-s" }, "option '-s' needs a value" },
	{ "prepare", { "12M", "4", "--strategy" }, "option '--strategy' needs a value" },
	{ "bench", { "--bogus=3" }, "unknown option '--bogus'" },
	{ "reserve", { "-x" }, "unknown option '-x'" },
	{ "share", { "--bogus" }, "unknown option '--bogus'" },
	{ "prepare", { "12M", "4", "extra" }, "unexpected argument 'extra'" },
	{ "prepare", { "12M" }, "missing COUNT" },
	{ "alloc", { }, "missing SIZE" },
	{ "alloc", { "4M", "8M" }, "unexpected argument '8M'" },
	{ "info", { "general" }, "unexpected argument 'general'" },
	{ "share", { "1M", "2M" }, "unexpected argument '2M'" },
	{ "load", { "a", "--bogus" }, "unknown option '--bogus'" },
	{ "load", { }, "missing FILE" },
	{ "save", { "a", "b" }, "unexpected argument 'b'" },
	{ "save", { "a", "-o" }, "option '-o' needs a value" },
};

/* Issue 34, 2.1 and 2.4: a wrong command line is said alike everywhere. */
static void test_cmdlines(void)
{
	const struct cmdline_case *c;
	char want[512], *argv[32];
	const char *got;
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(cmdline_cases); i++) {
		c = &cmdline_cases[i];
		snprintf(want, sizeof(want), "%s: %s: %s (try '%s %s --help')\n",
			 msg_prog(), c->cmd, c->err, msg_prog(), c->cmd);
		unit_stderr_begin();
		ret = unit_parse(unit_argv(c->cmd, c->args, argv), argv);
		got = unit_stderr_end();
		ksft_test_result(ret == EXIT_USAGE && !strcmp(got, want),
				 "%s %s ...: exit %d, '%.*s'\n", c->cmd,
				 c->args[0] ? c->args[0] : "", ret,
				 (int)strcspn(got, "\n"), got);
	}
}

/* Issue 34, 2.2: whatever the command, a file that is not cmabuf's says so. */
static void test_not_cmabuf(void)
{
	static const struct {
		int (*run)(int argc, char **argv);
		const char *cmd;
		const char *args[6];
	} cases[] = {
		{ cmd_info, "info", { "-d", "/dev/null" } },
		{ cmd_alloc, "alloc", { "4K", "-d", "/dev/null" } },
		{ cmd_prepare, "prepare", { "4K", "1", "-d", "/dev/null" } },
		{ cmd_bench, "bench", { "4K", "-n", "1", "-d", "/dev/null" } },
		{ cmd_reserve, "reserve", { "-d", "/dev/null" } },
	};
	char want[128], *argv[32];
	const char *got;
	size_t i;
	int ret;

	snprintf(want, sizeof(want), "%s: /dev/null: not a cmabuf device\n",
		 msg_prog());
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		unit_stderr_begin();
		optind = 0;
		ret = cases[i].run(unit_argv(cases[i].cmd, cases[i].args, argv), argv);
		got = unit_stderr_end();
		ksft_test_result(ret == 1 && !strcmp(got, want),
				 "%s -d /dev/null: exit %d, '%.*s'\n", cases[i].cmd, ret,
				 (int)strcspn(got, "\n"), got);
	}
}

/* reserve_parse() of "reserve" and @args (NULL-terminated). */
static int reserve_parse_args(const char *const *args, struct reserve_opts *o)
{
	char *argv[32];

	return reserve_parse(unit_argv("reserve", args, argv), argv, o);
}

/* reserve's command line: its words, none, --max; what it refuses. */
static void test_reserve(void)
{
	const char *many[18] = { NULL };
	struct reserve_opts o;
	int i, ret;

	ret = reserve_parse_args((const char *const[]){ NULL }, &o);
	ksft_test_result(!ret && !o.set && !o.set_max && !strcmp(o.device, "/dev/cmabuf"),
			 "reserve: show it\n");
	ret = reserve_parse_args((const char *const[]){
		"12Mx4", "64MiBx2", "-d", "video", "--max", "512M", NULL,
	}, &o);
	ksft_test_result(!ret && o.set && o.n == 2 && o.sizes[0] == 12ULL << 20 &&
			 o.counts[0] == 4 && o.sizes[1] == 64ULL << 20 && o.counts[1] == 2 &&
			 o.set_max && o.max == 512ULL << 20 &&
			 !strcmp(o.device, "/dev/cmabuf-video"),
			 "reserve 12Mx4 64MiBx2 -d video --max 512M: each one taken\n");
	ret = reserve_parse_args((const char *const[]){ "none", NULL }, &o);
	ksft_test_result(!ret && o.set && !o.n, "reserve none: drop it\n");
	ret = reserve_parse_args((const char *const[]){ "12M", NULL }, &o);
	ksft_test_result(ret == EXIT_USAGE, "reserve 12M: no count, refused (%d)\n", ret);
	ret = reserve_parse_args((const char *const[]){ "12Mx0", NULL }, &o);
	ksft_test_result(ret == EXIT_USAGE, "reserve 12Mx0: refused (%d)\n", ret);
	ret = reserve_parse_args((const char *const[]){ "12Mx257", NULL }, &o);
	ksft_test_result(ret == EXIT_USAGE, "reserve 12Mx257: refused (%d)\n", ret);
	for (i = 0; i < 17; i++)
		many[i] = "1Mx1";
	ret = reserve_parse_args(many, &o);
	ksft_test_result(ret == EXIT_USAGE, "reserve with 17 sizes: refused (%d)\n", ret);
}

/* @parse() of @cmd and @args (NULL-terminated). */
static int xfer_parse_args(int (*parse)(int, char **, struct xfer_opts *),
			   const char *cmd, const char *const *args,
			   struct xfer_opts *o)
{
	char *argv[18] = { (char *)cmd };
	int argc = 1;

	while (argc < 17 && args[argc - 1]) {
		argv[argc] = (char *)args[argc - 1];
		argc++;
	}
	return parse(argc, argv, o);
}

/*
 * load and save: the file, offsets and lengths, the holder of a buffer
 * (PID:FD), and what each refuses: no file, two files, a bad holder,
 * load's --hold with --into, save without a buffer or with two, save's
 * --fill of a buffer it does not make.
 */
static void test_xfer(void)
{
	struct xfer_opts o;
	pid_t pid;
	int ret, fd;

	ret = xfer_parse_args(load_parse, "load", (const char *const[]){
		"model.bin", NULL }, &o);
	ksft_test_result(!ret && !strcmp(o.file, "model.bin") && !o.offset &&
			 !o.length && !o.pid && !o.buffered && !o.verify &&
			 o.strategy == CMABUF_STRATEGY_AUTO,
			 "load FILE: the whole file, into a new AUTO buffer\n");
	ret = xfer_parse_args(load_parse, "load", (const char *const[]){
		"/dev/vda", "-o", "1M", "-l", "64M", "--into", "123:7",
		"--buffered", "--verify", "-q", "-j", NULL }, &o);
	ksft_test_result(!ret && o.offset == 1ULL << 20 && o.offset_given &&
			 o.length == 64ULL << 20 && o.pid == 123 && o.fd == 7 &&
			 o.buffered && o.verify && o.quiet && o.json,
			 "load -o 1M -l 64M --into 123:7 --buffered --verify -q -j: each taken\n");
	ret = xfer_parse_args(load_parse, "load", (const char *const[]){
		"a", "b", NULL }, &o);
	ksft_test_result(ret == EXIT_USAGE, "load a b: refused (%d)\n", ret);
	ret = xfer_parse_args(load_parse, "load", (const char *const[]){
		"a", "--into", "1:2", "--hold", "5", NULL }, &o);
	ksft_test_result(ret == EXIT_USAGE,
			 "load --into with --hold: refused (%d)\n", ret);
	ret = xfer_parse_args(load_parse, "load", (const char *const[]){
		"a", "-l", "0", NULL }, &o);
	ksft_test_result(ret == EXIT_USAGE, "load -l 0: refused (%d)\n", ret);
	ret = xfer_parse_args(save_parse, "save", (const char *const[]){
		"out.bin", "--size", "4M", "-f", "0x5a", NULL }, &o);
	ksft_test_result(!ret && o.size == 4ULL << 20 && o.do_fill &&
			 o.fill == 0x5a && !o.offset_given && !o.pid,
			 "save FILE --size 4M -f 0x5a: a new buffer, filled\n");
	ret = xfer_parse_args(save_parse, "save", (const char *const[]){
		"out.bin", "--from", "99:4", "-o", "8K", NULL }, &o);
	ksft_test_result(!ret && o.pid == 99 && o.fd == 4 &&
			 o.offset == 8192 && o.offset_given,
			 "save --from 99:4 -o 8K: that buffer, at that offset\n");
	ret = xfer_parse_args(save_parse, "save", (const char *const[]){
		"out.bin", NULL }, &o);
	ksft_test_result(ret == EXIT_USAGE, "save without a buffer: refused (%d)\n",
			 ret);
	ret = xfer_parse_args(save_parse, "save", (const char *const[]){
		"out.bin", "--from", "1:2", "--size", "4M", NULL }, &o);
	ksft_test_result(ret == EXIT_USAGE, "save with two buffers: refused (%d)\n",
			 ret);
	ret = xfer_parse_args(save_parse, "save", (const char *const[]){
		"out.bin", "--from", "1:2", "-f", "1", NULL }, &o);
	ksft_test_result(ret == EXIT_USAGE,
			 "save --from with --fill: refused (%d)\n", ret);
	ksft_test_result(!xfer_parse_holder("4242:17", &pid, &fd) &&
			 pid == 4242 && fd == 17 &&
			 xfer_parse_holder("0:1", &pid, &fd) &&
			 xfer_parse_holder("12", &pid, &fd) &&
			 xfer_parse_holder("12:", &pid, &fd) &&
			 xfer_parse_holder(":3", &pid, &fd) &&
			 xfer_parse_holder("1:2x", &pid, &fd) &&
			 xfer_parse_holder("-1:2", &pid, &fd),
			 "PID:FD: 4242:17 taken; 0:1, 12, 12:, :3, 1:2x, -1:2 refused\n");
}

/* @parse() of FILE and @args, with what it said on stderr into @err. */
static int xfer_parse_err(int (*parse)(int, char **, struct xfer_opts *),
			  const char *cmd, const char *const *args,
			  struct xfer_opts *o, char *err, size_t len)
{
	char *argv[32];
	const char *got;
	int ret;

	unit_stderr_begin();
	ret = parse(unit_argv(cmd, args, argv), argv, o);
	got = unit_stderr_end();
	snprintf(err, len, "%s", got);
	return ret;
}

struct xfer_opt_case {
	const char *load_opt;	/* as load writes it */
	const char *save_opt;	/* as save writes it */
	int c;			/* what opt_next() gives load */
	const char *arg;
	const char *err;	/* the text, %s for the option as written */
};

/* A bad value of every option load and save share, and what is said. */
static const struct xfer_opt_case xfer_opt_cases[] = {
	{ "-o", "-o", 'o', "1MB", "bad offset '1MB': not a valid value" },
	{ "--length", "--length", 'l', "0",
	  "bad length '0': must not be zero (e.g. 4K, 12M, 64MiB, 1G)" },
	{ "-s", "-s", 's', "all",
	  "bad strategy 'all' (auto, compound, frozen, legacy or dma)" },
	{ "--into", "--from", XFER_OPT_INTO, "12",
	  "bad %s '12' (PID:FD, as 'cmabufctl alloc --hold' prints them)" },
};

/*
 * xfer_opt(), the options load and save share: each taken, one not shared
 * left to the command; a bad value said by xfer_opt() in the words load
 * and save say it, but for the command's and the holder option's names.
 * Fails when one of the two parses a shared option its own way.
 */
static void test_xfer_opt(void)
{
	static const char *const shared[] = {
		"-o", "1M", "-l", "8K", "-s", "dma", "--buffered", "--verify",
		"-q", "-j", "-d", "video",
	};
	const char *file_args[16] = { "f" };
	char err[512], want[512], text[256], load_err[512], save_err[512];
	const struct xfer_opt_case *c;
	struct xfer_opts o = { }, l, v;
	int ret, i, n;
	size_t k;

	ret = xfer_opt("load", 'o', "0", &o) | xfer_opt("load", 'l', "8K", &o) |
	      xfer_opt("load", 's', "legacy", &o) |
	      xfer_opt("load", XFER_OPT_INTO, "12:3", &o) |
	      xfer_opt("load", XFER_OPT_BUFFERED, NULL, &o) |
	      xfer_opt("load", XFER_OPT_VERIFY, NULL, &o) |
	      xfer_opt("load", 'q', NULL, &o);
	ksft_test_result(!ret && !o.offset && o.offset_given && o.length == 8192 &&
			 o.strategy == CMABUF_STRATEGY_LEGACY && o.pid == 12 &&
			 o.fd == 3 && o.buffered && o.verify && o.quiet,
			 "xfer_opt: -o 0 -l 8K -s legacy --into 12:3 --buffered --verify -q taken\n");
	unit_stderr_begin();
	ret = xfer_opt("save", 'f', "1", &o) == 1 &&
	      xfer_opt("load", XFER_OPT_HOLD, "5", &o) == 1;
	ksft_test_result(ret && !*unit_stderr_end(),
			 "xfer_opt: --fill, --hold are the command's own, nothing said\n");

	for (k = 0; k < ARRAY_SIZE(xfer_opt_cases); k++) {
		c = &xfer_opt_cases[k];
		unit_stderr_begin();
		ret = xfer_opt("load", c->c, c->arg, &o);
		snprintf(err, sizeof(err), "%s", unit_stderr_end());
		snprintf(text, sizeof(text), c->err, c->load_opt);
		snprintf(want, sizeof(want), "%s: load: %s (try '%s load --help')\n",
			 msg_prog(), text, msg_prog());
		n = ret == EXIT_USAGE && !strcmp(err, want);

		ret = xfer_parse_err(load_parse, "load", (const char *const[]){
			"f", c->load_opt, c->arg, NULL }, &l, load_err, sizeof(load_err));
		n = n && ret == EXIT_USAGE && !strcmp(load_err, want);
		snprintf(text, sizeof(text), c->err, c->save_opt);
		snprintf(want, sizeof(want), "%s: save: %s (try '%s save --help')\n",
			 msg_prog(), text, msg_prog());
		ret = xfer_parse_err(save_parse, "save", (const char *const[]){
			"f", "--size", "4K", c->save_opt, c->arg, NULL }, &v,
			save_err, sizeof(save_err));
		n = n && ret == EXIT_USAGE && !strcmp(save_err, want);
		ksft_test_result(n,
				 "load %s %s, save %s %s: as xfer_opt() says it: '%.*s', '%.*s'\n",
				 c->load_opt, c->arg, c->save_opt, c->arg,
				 (int)strcspn(load_err, "\n"), load_err,
				 (int)strcspn(save_err, "\n"), save_err);
	}

	/* The same shared options give load and save the same values. */
	for (i = 0; i < (int)ARRAY_SIZE(shared); i++)
		file_args[i + 1] = shared[i];
	ret = xfer_parse_err(load_parse, "load", file_args, &l, err, sizeof(err));
	file_args[i + 1] = "--size";
	file_args[i + 2] = "4K";
	ret |= xfer_parse_err(save_parse, "save", file_args, &v, err, sizeof(err));
	ksft_test_result(!ret && l.offset == v.offset && l.offset == 1ULL << 20 &&
			 l.offset_given && v.offset_given && l.length == v.length &&
			 l.length == 8192 && l.strategy == v.strategy &&
			 l.strategy == CMABUF_STRATEGY_DMA && l.buffered && v.buffered &&
			 l.verify && v.verify && l.quiet && v.quiet && l.json && v.json &&
			 !strcmp(l.device, v.device) &&
			 !strcmp(l.device, "/dev/cmabuf-video") &&
			 !strcmp(l.file, "f") && !strcmp(v.file, "f"),
			 "load and save: -o 1M -l 8K -s dma --buffered --verify -q -j -d video alike\n");
}

struct share_case {
	const char *args[12];
	int ret;
	const char *importer;	/* when taken */
};

/* cmabufctl share's command lines: what is taken, what is refused. */
static const struct share_case share_cases[] = {
	{ { NULL }, 0, "all" },
	{ { "--video", "video2" }, 0, "v4l2" },
	{ { "--card", "/dev/dri/card1" }, 0, "kms" },
	{ { "--video", "video2", "--card", "card0" }, 0, "all" },
	{ { "--importer", "v4l2", "--video", "video0" }, 0, "v4l2" },
	{ { "--importer", "all", "--card", "card0" }, 0, "all" },
	{ { "-i", "kms", "--video", "video0" }, EXIT_USAGE, NULL },
	{ { "-i", "v4l2", "--card", "card0" }, EXIT_USAGE, NULL },
	{ { "-t", "5000" }, 0, "all" },
	{ { "-t", "0" }, EXIT_USAGE, NULL },
	{ { "--timeout", "1.5" }, EXIT_USAGE, NULL },
	{ { "-s", "all" }, EXIT_USAGE, NULL },
	{ { "0" }, EXIT_USAGE, NULL },
	{ { "1M", "2M" }, EXIT_USAGE, NULL },
	{ { "--bogus" }, EXIT_USAGE, NULL },
	{ { "-h" }, SHARE_HELP, NULL },
};

/* share_parse() of "share" and @args (NULL-terminated). */
static int share_parse_args(const char *const *args, struct share_opts *o)
{
	char *argv[14] = { "share" };
	int argc = 1;

	while (argc < 13 && args[argc - 1]) {
		argv[argc] = (char *)args[argc - 1];
		argc++;
	}
	return share_parse(argc, argv, o);
}

static void test_share_parse(void)
{
	struct share_opts o;
	char buf[256];
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(share_cases); i++) {
		const struct share_case *c = &share_cases[i];
		size_t k, off = 0;

		buf[0] = '\0';
		for (k = 0; c->args[k] && off < sizeof(buf); k++)
			off += snprintf(buf + off, sizeof(buf) - off, " %s", c->args[k]);
		ret = share_parse_args(c->args, &o);
		ksft_test_result(ret == c->ret && (ret || !strcmp(o.importer, c->importer)),
				 "share%s: %d (want %d), importer %s\n", buf, ret, c->ret,
				 ret ? "-" : o.importer);
	}
	ret = share_parse_args((const char *const[]){ NULL }, &o);
	ksft_test_result(!ret && o.size == 1ULL << 20 && o.strategy == CMABUF_STRATEGY_AUTO &&
			 o.timeout_ms == SHARE_TIMEOUT_MS && !o.json && !o.video[0] &&
			 !o.card[0] && !strcmp(o.device, "/dev/cmabuf"),
			 "share: 1 MiB, AUTO, 2 s, every node, the default device\n");
	ret = share_parse_args((const char *const[]){
		"3M", "-d", "general", "-s", "frozen", "-j", "-t", "500",
		"--video", "video2", "--card", "card0", NULL,
	}, &o);
	ksft_test_result(!ret && o.size == 3ULL << 20 && o.strategy == CMABUF_STRATEGY_FROZEN &&
			 o.json && o.timeout_ms == 500 &&
			 !strcmp(o.device, "/dev/cmabuf-general") &&
			 !strcmp(o.video, "/dev/video2") && !strcmp(o.card, "/dev/dri/card0"),
			 "share with every option: each one taken, bare nodes under /dev and /dev/dri\n");
	ksft_test_result(!strcmp(share_node_path("/dev/v4l/by-path/cam", "/dev", buf, sizeof(buf)),
				 "/dev/v4l/by-path/cam"),
			 "share: a node's path is taken as it is\n");
}

static void test_share_fb(void)
{
	__u32 px[3][8], bx = 0, by = 0, bv = 0, x, y;
	struct share_fb fb, got = { 4, 3, sizeof(px[0]) }, want = { 4, 3, 0 };
	int ret;

	ret = share_fb_fit(1ULL << 20, 640, 350, &fb);
	ksft_test_result(!ret && fb.width == 640 && fb.pitch == 2560 && fb.height == 350,
			 "fb_fit 1 MiB in 640x350: the whole mode (%ux%u, pitch %u)\n",
			 fb.width, fb.height, fb.pitch);
	ret = share_fb_fit(1ULL << 20, 1920, 1080, &fb);
	ksft_test_result(!ret && fb.width == 1920 && fb.pitch == 7680 && fb.height == 136,
			 "fb_fit 1 MiB in 1920x1080: full width, 136 lines (%ux%u)\n",
			 fb.width, fb.height);
	ret = share_fb_fit(1ULL << 20, 65, 10, &fb);
	ksft_test_result(!ret && fb.width == 65 && fb.pitch == 512 && fb.height == 10,
			 "fb_fit: the pitch aligned to 256 bytes (%u)\n", fb.pitch);
	ret = share_fb_fit(4096, 1920, 1080, &fb);
	ksft_test_result(!ret && fb.width == 1024 && fb.pitch == 4096 && fb.height == 1,
			 "fb_fit 4 KiB in 1920x1080: one line of 1024 (%ux%u)\n",
			 fb.width, fb.height);
	ksft_test_result(share_fb_fit(200, 640, 480, &fb) == -ENOSPC &&
			 share_fb_fit(4096, 0, 480, &fb) == -EINVAL,
			 "fb_fit: no line fits, or no mode: refused\n");
	ksft_test_result(share_fb_pixel(0, 0) != share_fb_pixel(1, 0) &&
			 share_fb_pixel(0, 0) != share_fb_pixel(0, 1) &&
			 share_fb_pixel(0, 0) != share_fb_pixel(256, 0) &&
			 !(share_fb_pixel(300, 300) >> 24),
			 "fb_pixel: neighbours, lines and columns 256 apart differ; X is 0\n");
	for (y = 0; y < 3; y++) {
		for (x = 0; x < 8; x++)
			px[y][x] = x < 4 ? share_fb_pixel(x, y) | 0xff000000 : 0;
	}
	ksft_test_result(!share_fb_compare(px, &got, &want, &bx, &by, &bv),
			 "fb_compare: a padded pitch, X set: no pixel differs\n");
	px[2][1] ^= 0x100;
	ksft_test_result(share_fb_compare(px, &got, &want, &bx, &by, &bv) == 1 && bx == 1 &&
			 by == 2 && bv == (share_fb_pixel(1, 2) ^ 0x100),
			 "fb_compare: one colour off, found at (%u, %u)\n", bx, by);
}

static void test_share_why(void)
{
	char buf[512];

	share_why_unreachable(buf, sizeof(buf), "/dev/cmabuf-large", 0, 1, 33,
			      "/dev/cmabuf-general");
	ksft_test_result(strstr(buf, "cannot reach") &&
			 strstr(buf, "cmabuf-large/stats/unreachable_maps 0 -> 1") &&
			 strstr(buf, "33-bit DMA mask") && strstr(buf, "/dev/cmabuf-general") &&
			 strstr(buf, "dma reach") && strstr(buf, CMABUFCTL_DOCDIR "/importers.md"),
			 "why_unreachable: the counter, the mask, an instance that fits: '%s'\n",
			 buf);
	share_why_leaked(buf, sizeof(buf), "/dev/cmabuf-large", 5, 8);
	ksft_test_result(strstr(buf, "3 buffer(s)") &&
			 strstr(buf, "/dev/cmabuf-large stats/live_buffers 5 -> 8") &&
			 strstr(buf, "videobuf2") && strstr(buf, "until reboot") &&
			 strstr(buf, CMABUFCTL_DOCDIR "/importers.md"),
			 "why_leaked: how many, the counter, videobuf2, what to do: '%s'\n",
			 buf);
	share_why_unreachable(buf, sizeof(buf), "/dev/cmabuf", 2, 3, 0, "");
	ksft_test_result(strstr(buf, "no instance here lies below 4 GiB") &&
			 !strstr(buf, "-bit DMA mask"),
			 "why_unreachable: no mask known, no instance below 4 GiB: '%s'\n", buf);
	ksft_test_result(strstr(share_why_reqbufs(-EINVAL), "does not import dma-bufs") &&
			 strstr(share_why_reqbufs(-EBUSY), "another program") &&
			 !share_why_reqbufs(-EIO),
			 "why_reqbufs: EINVAL no DMABUF, EBUSY in use, others strerror\n");
	ksft_test_result(strstr(share_why_streamon(-EPIPE), "media-ctl") &&
			 strstr(share_why_streamon(-ENOLINK), "media-ctl") &&
			 !share_why_streamon(-EINVAL),
			 "why_streamon: EPIPE and ENOLINK are the media pipeline\n");
	ksft_test_result(strstr(share_why_commit(-EACCES), "DRM master") &&
			 strstr(share_why_commit(-EINVAL), "refused") &&
			 !share_why_commit(-EIO),
			 "why_commit: EACCES is the DRM master, EINVAL the configuration\n");
}

#define PLAN	(ARRAY_SIZE(size_cases) + 15 + 10 + 10 + 5 + 7 + 1 + 2 + \
		 ARRAY_SIZE(einval_cases) + 7 + 5 + 7 + 4 + \
		 ARRAY_SIZE(prepare_cases) + 6 + 4 + \
		 ARRAY_SIZE(share_cases) + 3 + 8 + 7 + 8 + 4 + 7 + \
		 ARRAY_SIZE(cmdline_cases) + 5 + 11 + \
		 3 + ARRAY_SIZE(xfer_opt_cases))

int main(void)
{
	ksft_print_header();
	ksft_set_plan(PLAN);
	test_sizes();
	test_numbers();
	test_strategies();
	test_stats();
	test_tail();
	test_json();
	test_json_document();
	test_explain();
	test_cap();
	test_fmt();
	test_devices();
	test_prepare();
	test_alloc();
	test_cmdlines();
	test_not_cmabuf();
	test_reserve();
	test_bench();
	test_xfer();
	test_xfer_opt();
	test_share_parse();
	test_share_fb();
	test_share_why();
	ksft_finished();
}
