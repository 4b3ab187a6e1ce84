// SPDX-License-Identifier: GPL-2.0
/*
 * Parsing of sizes ("64M", "64 MiB", "1G", "4096"), plain numbers and
 * strategy names.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <linux/cmabuf.h>

#include "parse.h"

static const char * const strategy_names[CMABUF_STRATEGY_COUNT] = {
	[CMABUF_STRATEGY_AUTO] = "auto",
	[CMABUF_STRATEGY_COMPOUND] = "compound",
	[CMABUF_STRATEGY_FROZEN] = "frozen",
	[CMABUF_STRATEGY_LEGACY] = "legacy",
	[CMABUF_STRATEGY_DMA] = "dma",
};

/*
 * Decimal digits only: no sign, no blanks, no octal or hex surprises.
 * Returns the number of characters consumed, 0 if there was no digit.
 */
static int parse_digits(const char *s, __u64 *out, bool *overflow)
{
	__u64 v = 0;
	int i;

	*overflow = false;
	for (i = 0; s[i] >= '0' && s[i] <= '9'; i++) {
		unsigned int d = s[i] - '0';

		if (v > (~0ULL - d) / 10)
			*overflow = true;
		else
			v = v * 10 + d;
	}
	*out = v;
	return i;
}

/* "", "B", or one of K M G T P E (either case), alone or followed by "iB". */
static int suffix_shift(const char *s, unsigned int *shift)
{
	static const char units[] = "KMGTPE";
	char c = s[0] & ~0x20;	/* upper case */
	const char *u;

	*shift = 0;
	if (!s[0] || !strcmp(s, "B"))
		return 0;
	u = c ? strchr(units, c) : NULL;
	if (!u || (s[1] && strcmp(s + 1, "iB")))
		return -EINVAL;
	*shift = 10 * (u - units + 1);
	return 0;
}

/* Digits after a decimal point: at most nine, a whole number of bytes. */
#define PARSE_FRACTION_MAX	9

/**
 * parse_size() - parse a byte count as cmabufctl prints it, or shorter
 * @s: decimal digits, optionally a point and up to nine more, then
 *	optionally one space and a unit: B, or K, M, G, T, P, E (either case)
 *	alone or followed by "iB"
 * @out: the size in bytes
 *
 * "4K", "4KiB" and "4096" are 4096; "64M" and "64 MiB" are 64 MiB; "1.50
 * GiB" is 1536 MiB. Units are binary; "MB" is refused rather than guessed.
 * A fraction must come to a whole number of bytes. Zero is a valid size
 * here; callers that need a positive one say so.
 */
int parse_size(const char *s, __u64 *out)
{
	unsigned __int128 v, scale = 1;
	unsigned int shift, fraction = 0;
	bool overflow;
	__u64 whole;
	int n;

	n = parse_digits(s, &whole, &overflow);
	if (!n)
		return -EINVAL;
	v = whole;
	s += n;
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, fraction++) {
			if (fraction == PARSE_FRACTION_MAX)
				return -EINVAL;
			v = v * 10 + (*s - '0');
			scale *= 10;
		}
		if (!fraction)
			return -EINVAL;
	}
	if (*s == ' ' && s[1])
		s++;
	if (suffix_shift(s, &shift))
		return -EINVAL;
	if (overflow || (v >> (127 - shift)))
		return -ERANGE;
	v <<= shift;
	if (v % scale)
		return -EINVAL;
	v /= scale;
	if (v > ~0ULL)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_u64(const char *s, __u64 *out)
{
	bool overflow;
	__u64 v;
	int n;

	n = parse_digits(s, &v, &overflow);
	if (!n || s[n])
		return -EINVAL;
	if (overflow)
		return -ERANGE;
	*out = v;
	return 0;
}

/* A decimal number no larger than @max. */
static int parse_max(const char *s, __u64 max, __u64 *out)
{
	int ret;

	ret = parse_u64(s, out);
	if (!ret && *out > max)
		ret = -ERANGE;
	return ret;
}

/**
 * parse_list() - each entry of a comma-separated list
 * @list: the list ("compound,legacy")
 * @each: called with each non-empty entry, in order, until it returns
 *	non-zero
 * @arg: for @each
 *
 * Return: what the last @each returned, 0 for none, or -ENOMEM.
 */
int parse_list(const char *list, int (*each)(const char *tok, void *arg),
	       void *arg)
{
	char *copy, *tok, *save;
	int ret = 0;

	copy = strdup(list);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save))
		ret = each(tok, arg);
	free(copy);
	return ret;
}

int parse_u32(const char *s, __u32 *out)
{
	__u64 v;
	int ret;

	ret = parse_max(s, 0xffffffffU, &v);
	if (!ret)
		*out = v;
	return ret;
}

/* A byte: decimal 0..255 or hexadecimal 0x00..0xff. */
int parse_byte(const char *s, __u8 *out)
{
	__u64 v = 0;
	int i, ret;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (i = 2; s[i]; i++) {
			char c = s[i] | 0x20;

			if (c >= '0' && c <= '9')
				v = v * 16 + (c - '0');
			else if (c >= 'a' && c <= 'f')
				v = v * 16 + (c - 'a' + 10);
			else
				return -EINVAL;
			if (v > 0xff)
				return -ERANGE;
		}
		if (i == 2)
			return -EINVAL;
		*out = v;
		return 0;
	}
	ret = parse_max(s, 0xff, &v);
	if (!ret)
		*out = v;
	return ret;
}

/* An alignment given as a power-of-two size ("2M"), returned as its log2. */
int parse_align(const char *s, __u32 *log2_out)
{
	__u64 v;
	int ret;

	ret = parse_size(s, &v);
	if (ret)
		return ret;
	if (!v || (v & (v - 1)))
		return -EINVAL;
	*log2_out = __builtin_ctzll(v);
	if (*log2_out > CMABUF_ALIGN_MAX)
		return -ERANGE;
	return 0;
}

/* "auto", "compound", "frozen", "legacy", "dma" (any case), or "all". */
int parse_strategy(const char *s, int *out)
{
	unsigned int i;

	if (!strcasecmp(s, "all")) {
		*out = PARSE_STRATEGY_ALL;
		return 0;
	}
	for (i = 0; i < CMABUF_STRATEGY_COUNT; i++) {
		if (!strcasecmp(s, strategy_names[i])) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *strategy_name(unsigned int strategy)
{
	if (strategy >= CMABUF_STRATEGY_COUNT)
		return "unknown";
	return strategy_names[strategy];
}

const char *parse_strerror(int err)
{
	if (err == -ERANGE)
		return "out of range";
	return "not a valid value";
}
