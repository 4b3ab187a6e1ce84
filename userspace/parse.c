// SPDX-License-Identifier: GPL-2.0
/*
 * Parsing of sizes ("64M", "1G", "4096"), plain numbers and strategy names.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include <linux/cmabuf.h>

#include "parse.h"

static const char * const strategy_names[CMABUF_STRATEGY_COUNT] = {
	[CMABUF_STRATEGY_AUTO] = "auto",
	[CMABUF_STRATEGY_COMPOUND] = "compound",
	[CMABUF_STRATEGY_FROZEN] = "frozen",
	[CMABUF_STRATEGY_LEGACY] = "legacy",
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

static int suffix_shift(const char *s, unsigned int *shift)
{
	static const char units[] = "KMGTPE";
	char c = s[0] & ~0x20;	/* upper case */
	const char *u;

	if (!s[0]) {
		*shift = 0;
		return 0;
	}
	if (s[1] || !c)
		return -EINVAL;
	u = strchr(units, c);
	if (!u)
		return -EINVAL;
	*shift = 10 * (u - units + 1);
	return 0;
}

/**
 * parse_size() - parse a byte count with an optional binary suffix
 * @s: decimal digits, then nothing or one of K, M, G, T, P, E (either case)
 * @out: the size in bytes
 *
 * "4K" is 4096, "64M" is 64 MiB, "1G" is 1 GiB. Zero is a valid size here;
 * callers that need a positive one say so.
 */
int parse_size(const char *s, __u64 *out)
{
	unsigned int shift;
	bool overflow;
	__u64 v;
	int n;

	n = parse_digits(s, &v, &overflow);
	if (!n)
		return -EINVAL;
	if (suffix_shift(s + n, &shift))
		return -EINVAL;
	if (overflow || (shift && v > (~0ULL >> shift)))
		return -ERANGE;
	*out = v << shift;
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

/* "auto", "compound", "frozen", "legacy" (any case), or "all". */
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
