// SPDX-License-Identifier: GPL-2.0
/*
 * --hold [SECONDS] (hold.h).
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hold.h"
#include "msg.h"
#include "opts.h"
#include "parse.h"

/**
 * hold_parse() - the value of --hold, in a getopt_long() loop
 * @argc: the loop's
 * @argv: the loop's
 * @seconds: out: whole seconds, or %HOLD_UNTIL_SIGNAL
 *
 * For an option declared with optional_argument: "--hold=N", or "--hold N"
 * where the next word is made of digits and dots (it is taken: "1.5" is
 * refused, not left for a SIZE), else until a signal.
 *
 * Return: 0, or EXIT_USAGE after the error line of a value that is no
 * number of seconds.
 */
int hold_parse(int argc, char **argv, __u32 *seconds)
{
	const char *arg = optarg, *next = optind < argc ? argv[optind] : "";
	__u32 val;

	if (!arg && *next && strspn(next, "0123456789.") == strlen(next)) {
		arg = next;
		optind++;
	}
	if (!arg) {
		*seconds = HOLD_UNTIL_SIGNAL;
		return 0;
	}
	if (parse_u32(arg, &val) || val == HOLD_UNTIL_SIGNAL) {
		opt_error(argv[0], "bad --hold '%s' (whole seconds)", arg);
		return EXIT_USAGE;
	}
	*seconds = val;
	return 0;
}

/* "for 60 s", "until SIGINT or SIGTERM". */
const char *hold_text(__u32 seconds, char *buf, size_t len)
{
	if (seconds == HOLD_UNTIL_SIGNAL)
		snprintf(buf, len, "until SIGINT or SIGTERM");
	else
		snprintf(buf, len, "for %u s", seconds);
	return buf;
}

/* SIGINT and SIGTERM only cut the hold short: what follows still comes. */
static void hold_on_signal(int sig)
{
}

/* From now on SIGINT and SIGTERM end a hold (before it is announced). */
void hold_catch_signals(void)
{
	struct sigaction sa = { .sa_handler = hold_on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* Hold for @seconds, or until a signal; the seconds it held. */
unsigned int hold(__u32 seconds)
{
	time_t start = time(NULL);

	if (seconds != HOLD_UNTIL_SIGNAL)
		return seconds - sleep(seconds);
	pause();
	return time(NULL) - start;
}
