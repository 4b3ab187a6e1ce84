// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of cmabuf_testctl's pure parts, as TAP through the
 * kernel's kselftest.h: the paths of bench's --strategy.
 */
#include <errno.h>
#include <string.h>

#include <linux/cmabuf.h>
#include "testbench.h"
#include "parse.h"
#include "kselftest.h"
#include "util.h"

struct bench_path_case {
	const char *text;
	int ret;
	int strategy;
	enum bench_variant variant;
	const char *name;
};

static const struct bench_path_case bench_path_cases[] = {
	{ "compound", 0, CMABUF_STRATEGY_COMPOUND, BENCH_COLD, "cmabuf-compound" },
	{ "cmabuf-frozen", 0, CMABUF_STRATEGY_FROZEN, BENCH_COLD, "cmabuf-frozen" },
	{ "legacy-4k", 0, CMABUF_STRATEGY_LEGACY, BENCH_SMALL_PAGES,
	  "cmabuf-legacy-4k" },
	{ "auto-prepared", 0, CMABUF_STRATEGY_AUTO, BENCH_PREPARED,
	  "cmabuf-auto-prepared" },
	{ "cmabuf-compound-prepared", 0, CMABUF_STRATEGY_COMPOUND, BENCH_PREPARED,
	  "cmabuf-compound-prepared" },
	{ "all", 0, PARSE_STRATEGY_ALL, BENCH_COLD, NULL },
	{ "all-prepared", -EINVAL, 0, BENCH_COLD, NULL },
	{ "all-4k", -EINVAL, 0, BENCH_COLD, NULL },
	{ "prepared", -EINVAL, 0, BENCH_COLD, NULL },
	{ "-prepared", -EINVAL, 0, BENCH_COLD, NULL },
	{ "legacy-4k-prepared", -EINVAL, 0, BENCH_COLD, NULL },
	{ "legacy-prepared-4k", -EINVAL, 0, BENCH_COLD, NULL },
	{ "auto-Prepared", -EINVAL, 0, BENCH_COLD, NULL },
	{ "cmabuf-", -EINVAL, 0, BENCH_COLD, NULL },
	{ "cma-heap-prepared", -EINVAL, 0, BENCH_COLD, NULL },
};

/* --strategy of bench: a strategy, its variants, and their names. */
static void test_bench_paths(void)
{
	const struct bench_path_case *c;
	enum bench_variant v;
	char name[32];
	size_t i;
	int s, ret;

	for (i = 0; i < ARRAY_SIZE(bench_path_cases); i++) {
		c = &bench_path_cases[i];
		s = -2;
		v = BENCH_PREPARED + 1;
		ret = bench_path_parse(c->text, &s, &v);
		name[0] = '\0';
		if (!ret && s >= 0)
			bench_path_name(name, sizeof(name), s, v);
		ksft_test_result(ret == c->ret &&
				 (ret || (s == c->strategy && v == c->variant)) &&
				 (!c->name || !strcmp(name, c->name)),
				 "bench path '%s': %d, %s\n", c->text, ret,
				 name[0] ? name : "no name");
	}
}

int main(void)
{
	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(bench_path_cases));
	test_bench_paths();
	ksft_finished();
}
