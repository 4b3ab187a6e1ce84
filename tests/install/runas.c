// SPDX-License-Identifier: GPL-2.0
/*
 * runas UID GID[,GID...] CMD [ARG...]: run CMD as the user UID, whose
 * groups are the GIDs (the first one primary), or "-" for none (then the
 * primary group is UID's number). The guest's busybox has no su; the
 * permissions suite needs users that are not root.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RUNAS_MAX_GROUPS	8

int main(int argc, char **argv)
{
	gid_t groups[RUNAS_MAX_GROUPS];
	char *list, *tok, *save;
	size_t n = 0;
	uid_t uid;
	gid_t gid;

	if (argc < 4) {
		fprintf(stderr, "usage: runas UID GID[,GID...]|- CMD [ARG...]\n");
		return 2;
	}
	uid = strtoul(argv[1], NULL, 10);
	gid = uid;
	list = strcmp(argv[2], "-") ? argv[2] : NULL;
	for (tok = list ? strtok_r(list, ",", &save) : NULL;
	     tok && n < RUNAS_MAX_GROUPS; tok = strtok_r(NULL, ",", &save))
		groups[n++] = strtoul(tok, NULL, 10);
	if (n)
		gid = groups[0];
	if (setgroups(n, groups) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid)) {
		perror("runas");
		return 126;
	}
	execvp(argv[3], argv + 3);
	perror(argv[3]);
	return 127;
}
