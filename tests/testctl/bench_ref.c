// SPDX-License-Identifier: GPL-2.0
/*
 * cpu-ref: the same work in user space whatever the kernel, timed beside a
 * workload's paths iteration by iteration. Two runs on two boots (6.12
 * and 7.2) are then compared with each boot's speed taken out: an
 * emulator's host can change speed by 2.5x between them.
 *
 * The work is stores and loads, as most of an allocation's time is: a
 * buffer of small pages, faulted in once at setup, written with a
 * non-zero byte (no DC ZVA) and summed, several passes. No system call,
 * no page fault, nothing of the kernel's in the timed part.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "testbench.h"
#include "clock.h"
#include "msg.h"

/* Small enough to stay in the emulator's TLB, big enough not to be cache. */
#define CPU_REF_BYTES	(4UL << 20)
#define CPU_REF_PASSES	16

static int cpu_ref_setup(struct bench_path *p, struct bench_ctx *c)
{
	void *buf;
	int err;

	buf = mmap(NULL, CPU_REF_BYTES, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		err = -errno;
		msg_err("%s: mmap of %lu bytes: %s", p->name, CPU_REF_BYTES,
			strerror(-err));
		return err;
	}
	/* The same pages on every kernel, whatever its THP default. */
	madvise(buf, CPU_REF_BYTES, MADV_NOHUGEPAGE);
	memset(buf, 1, CPU_REF_BYTES);
	p->ref_buf = buf;
	return 0;
}

static int cpu_ref_run(struct bench_path *p, struct bench_ctx *c,
		       unsigned int iter)
{
	const __u64 *words = p->ref_buf;
	__u64 start, sum = 0;
	size_t i;
	int pass;

	start = clock_ns();
	for (pass = 0; pass < CPU_REF_PASSES; pass++) {
		memset(p->ref_buf, pass + 1, CPU_REF_BYTES);
		/* Read what memory holds, not what the compiler knows of it. */
		asm volatile("" : : "r" (p->ref_buf) : "memory");
		for (i = 0; i < CPU_REF_BYTES / sizeof(*words); i++)
			sum += words[i];
	}
	bench_record(p, PHASE_REF, iter, clock_ns() - start);
	/* The sums are the work: keep them. */
	asm volatile("" : : "r" (sum));
	return 0;
}

static void cpu_ref_teardown(struct bench_path *p)
{
	if (p->ref_buf)
		munmap(p->ref_buf, CPU_REF_BYTES);
	p->ref_buf = NULL;
}

const struct bench_path_ops bench_cpu_ref_ops = {
	.setup = cpu_ref_setup,
	.run = cpu_ref_run,
	.teardown = cpu_ref_teardown,
};
