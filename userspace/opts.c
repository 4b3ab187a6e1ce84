// SPDX-License-Identifier: GPL-2.0
/*
 * The command line of every command (opts.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <linux/cmabuf.h>

#include "msg.h"
#include "opts.h"
#include "parse.h"

/**
 * opt_error() - a command line's error, in one line
 * @cmd: the command ("alloc")
 * @fmt: what is wrong
 *
 * "cmabufctl: alloc: <what> (try 'cmabufctl alloc --help')".
 */
void opt_error(const char *cmd, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	msg_err("%s: %s (try '%s %s --help')", cmd, what, msg_prog(), cmd);
}

/* The option getopt_long() stopped at, as the user wrote it. */
static const char *opt_bad(char **argv, char *buf, size_t len)
{
	const char *word = argv[optind - 1];

	if (!strncmp(word, "--", 2))
		snprintf(buf, len, "%.*s", (int)strcspn(word, "="), word);
	else
		snprintf(buf, len, "-%c", optopt);
	return buf;
}

/**
 * opt_next() - the next option of a command
 * @argc: the command's arguments, its name first
 * @argv: them
 * @shorts: its own short options, as for getopt_long() ("s:a:")
 * @longs: its long options, ending with device, json and help
 * @oc: -d and -j, taken here
 *
 * Return: the next option of the command's own, 'h' for --help, -1 at
 * the end, or '?' after the error line of an unknown option or one
 * without its value.
 */
int opt_next(int argc, char **argv, const char *shorts,
	     const struct option *longs, struct opt_common *oc)
{
	char spec[64], bad[64];
	int c;

	snprintf(spec, sizeof(spec), ":%sd:jh", shorts);
	opterr = 0;
	for (;;) {
		c = getopt_long(argc, argv, spec, longs, NULL);
		if (c == 'd')
			oc->device = optarg;
		else if (c == 'j')
			oc->json = true;
		else
			break;
	}
	if (c == '?')
		opt_error(argv[0], "unknown option '%s'",
			  opt_bad(argv, bad, sizeof(bad)));
	else if (c == ':')
		opt_error(argv[0], "option '%s' needs a value",
			  opt_bad(argv, bad, sizeof(bad)));
	return c == ':' ? '?' : c;
}

/**
 * opt_words() - the words after a command's options
 * @argc: the command's arguments
 * @argv: them
 * @min: words it needs
 * @max: words it takes
 * @names: their names, blank-separated ("SIZE COUNT"), for the message
 *
 * Return: 0, or EXIT_USAGE after a line naming the first word missing or
 * the first one too many.
 */
int opt_words(int argc, char **argv, int min, int max, const char *names)
{
	int n = argc - optind, i;
	const char *name = names;

	if (n > max) {
		opt_error(argv[0], "unexpected argument '%s'", argv[optind + max]);
		return EXIT_USAGE;
	}
	if (n >= min)
		return 0;
	for (i = 0; i < n && strchr(name, ' '); i++)
		name = strchr(name, ' ') + 1;
	opt_error(argv[0], "missing %.*s", (int)strcspn(name, " "), name);
	return EXIT_USAGE;
}

/* An optional SIZE, the only word; 0 or EXIT_USAGE after the error line. */
int opt_size_word(int argc, char **argv, __u64 *size)
{
	if (opt_words(argc, argv, 0, 1, "SIZE"))
		return EXIT_USAGE;
	return optind < argc ? opt_size(argv[0], "size", argv[optind], size) : 0;
}

/**
 * opt_size() - a size of the command line: bytes, not zero
 * @cmd: the command
 * @what: "size", or the option ("--max")
 * @arg: the text
 * @out: the bytes
 *
 * Return: 0, or EXIT_USAGE after the error line.
 */
int opt_size(const char *cmd, const char *what, const char *arg, __u64 *out)
{
	int ret = parse_size(arg, out);

	if (!ret && *out)
		return 0;
	opt_error(cmd, "bad %s '%s': %s (e.g. 4K, 12M, 64MiB, 1G)", what, arg,
		  ret ? parse_strerror(ret) : "must not be zero");
	return EXIT_USAGE;
}

/* -s S: one strategy (not "all"); 0, or EXIT_USAGE after the error line. */
int opt_strategy(const char *cmd, const char *arg, unsigned int *out)
{
	int s;

	if (!parse_strategy(arg, &s) && s != PARSE_STRATEGY_ALL) {
		*out = s;
		return 0;
	}
	opt_error(cmd, "bad strategy '%s' (auto, compound, frozen, legacy or dma)", arg);
	return EXIT_USAGE;
}

/* -a A: log2 of the alignment; 0, or EXIT_USAGE after the error line. */
int opt_align(const char *cmd, const char *arg, __u32 *out)
{
	int ret = parse_align(arg, out);

	if (!ret)
		return 0;
	opt_error(cmd, "bad alignment '%s': %s (a power of two up to 2^%d, e.g. 2M)",
		  arg, parse_strerror(ret), CMABUF_ALIGN_MAX);
	return EXIT_USAGE;
}

/* A number of the command line, @min to @max; 0 or EXIT_USAGE. */
int opt_u32(const char *cmd, const char *what, const char *arg, __u32 min,
	    __u32 max, __u32 *out)
{
	if (!parse_u32(arg, out) && *out >= min && *out <= max)
		return 0;
	if (max == UINT_MAX)
		opt_error(cmd, "bad %s '%s' (a whole number, %u or more)", what, arg, min);
	else
		opt_error(cmd, "bad %s '%s' (%u to %u)", what, arg, min, max);
	return EXIT_USAGE;
}
