// SPDX-License-Identifier: GPL-2.0
/*
 * The names of cmabuf's bench paths: cmabuf-<S>, and its variants
 * cmabuf-<S>-4k (end to end, the buffer mapped with 4 KiB entries) and
 * cmabuf-<S>-prepared (every sample's buffers prepared ahead). Apart from
 * cmd_bench.c, for the unit tests.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "testbench.h"
#include "parse.h"

static const char * const variant_suffix[] = {
	[BENCH_COLD] = "",
	[BENCH_SMALL_PAGES] = BENCH_SMALL_PAGES_SUFFIX,
	[BENCH_PREPARED] = BENCH_PREPARED_SUFFIX,
};

/**
 * bench_path_parse() - one cmabuf entry of --strategy
 * @tok: a strategy's name, or "all", optionally after "cmabuf-"; a
 *	strategy's name may end in one variant's suffix ("-4k", "-prepared")
 * @strategy: out: a %CMABUF_STRATEGY_* value, or %PARSE_STRATEGY_ALL
 * @variant: out: which path of that strategy
 *
 * Whether the variant fits the workload is the caller's to say.
 *
 * Return: 0, or -EINVAL for anything else ("all" has no variant).
 */
int bench_path_parse(const char *tok, int *strategy,
		     enum bench_variant *variant)
{
	char name[32];
	size_t len, sfx = 0;
	int v;

	if (!strncmp(tok, "cmabuf-", 7))
		tok += 7;
	len = strlen(tok);
	for (v = ARRAY_SIZE(variant_suffix) - 1; v > BENCH_COLD; v--) {
		sfx = strlen(variant_suffix[v]);
		if (len > sfx && !strcmp(tok + len - sfx, variant_suffix[v]))
			break;
	}
	if (v == BENCH_COLD)
		sfx = 0;
	if (len - sfx >= sizeof(name))
		return -EINVAL;
	memcpy(name, tok, len - sfx);
	name[len - sfx] = '\0';
	if (parse_strategy(name, strategy) ||
	    (v != BENCH_COLD && *strategy == PARSE_STRATEGY_ALL))
		return -EINVAL;
	*variant = v;
	return 0;
}

/* cmabuf-<S> and the variant's suffix, as results name the path. */
void bench_path_name(char *buf, size_t len, unsigned int strategy,
		     enum bench_variant variant)
{
	snprintf(buf, len, "cmabuf-%s%s", strategy_name(strategy),
		 variant_suffix[variant]);
}
