// SPDX-License-Identifier: GPL-2.0
/*
 * tlbbench: one-off (not part of make check), for docs/parallel-migration.md.
 * Runs one kind of loop for SECONDS and prints its rate, so that the rate
 * of one instance can be set beside that of two at once on two vCPUs:
 *   spin      a counter, no system call, no memory traffic
 *   getppid   a system call
 *   mprotect  one touched page made read-only and writable again: the
 *             read-only change invalidates its TLB entry on every CPU
 *             (arm64: TLBI VALE1IS), as unmapping a page for migration does
 *   dontneed  one page zapped (MADV_DONTNEED: unmap, TLBI VALE1IS, free)
 *             and touched again (fault, allocate, clear, map): the shape of
 *             migrating one anonymous page
 * Build: aarch64-linux-gnu-gcc -static -O2 -o tlbbench tlbbench.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "spin";
	double secs = argc > 2 ? atof(argv[2]) : 5, t0, t;
	volatile unsigned long spin = 0;
	unsigned long ops = 0, i;
	long psz = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, psz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 1;
	p[0] = 1;
	t0 = now();
	do {
		for (i = 0; i < 256; i++) {
			if (!strcmp(mode, "spin")) {
				spin++;
			} else if (!strcmp(mode, "getppid")) {
				getppid();
			} else if (!strcmp(mode, "mprotect")) {
				mprotect(p, psz, PROT_READ);
				mprotect(p, psz, PROT_READ | PROT_WRITE);
				p[0] = 1;
			} else if (!strcmp(mode, "dontneed")) {
				madvise(p, psz, MADV_DONTNEED);
				p[0] = 1;
			} else {
				fprintf(stderr, "tlbbench: unknown mode %s\n", mode);
				return 2;
			}
		}
		ops += 256;
		t = now();
	} while (t - t0 < secs);
	printf("%s %.0f ops/s\n", mode, ops / (t - t0));
	return 0;
}
