// SPDX-License-Identifier: GPL-2.0
/* cmabuf: clearing buffers, once (docs/design.md, "Clearing") */

#define pr_fmt(fmt) "cmabuf: " fmt

#include <linux/cpumask.h>
#include <linux/gfp.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/topology.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include "cmabuf.h"

#define CMABUF_ZERO_CHUNK_PAGES		(SZ_2M >> PAGE_SHIFT)

/* Below this size, waking other CPUs costs more than they save. */
static unsigned int cmabuf_zero_parallel_min_mb = 8;
module_param_named(clear_parallel_min_mb, cmabuf_zero_parallel_min_mb, uint,
		   0644);
MODULE_PARM_DESC(clear_parallel_min_mb,
		 "Buffers of at least this many MiB are cleared by every CPU of their node (default: 8)");

static struct workqueue_struct *cmabuf_zero_wq;

/*
 * One range cleared by the caller and @helpers work items, each taking the
 * chunk at @next; @stop is set on a fatal signal, @pause is KUnit's.
 */
struct cmabuf_zero_job {
	unsigned long pfn;
	unsigned long count;
	unsigned long chunks;
	atomic_long_t next;
	atomic_long_t by_caller;
	unsigned int helpers;
	bool stop;
	void (*pause)(void);
};

struct cmabuf_zero_worker {
	struct work_struct work;
	struct cmabuf_zero_job *job;
};

/* At most %CMABUF_ZERO_LEAD chunks per helper beyond the caller's. */
VISIBLE_IF_KUNIT bool cmabuf_zero_helper_may_take(unsigned long taken,
						  unsigned long by_caller,
						  unsigned int helpers)
{
	return taken - by_caller <=
	       (unsigned long)helpers * (by_caller + CMABUF_ZERO_LEAD);
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_zero_helper_may_take);

/* The caller's count first: @next, read after it, is never below it. */
static bool cmabuf_zero_helper_go(struct cmabuf_zero_job *job)
{
	unsigned long by_caller = atomic_long_read_acquire(&job->by_caller);
	unsigned long taken = atomic_long_read(&job->next);

	return READ_ONCE(job->stop) || taken >= job->chunks ||
	       cmabuf_zero_helper_may_take(taken, by_caller, job->helpers);
}

static void cmabuf_zero_chunks(struct cmabuf_zero_job *job, bool caller)
{
	unsigned long chunk, first;

	for (;;) {
		if (caller && fatal_signal_pending(current))
			WRITE_ONCE(job->stop, true);
		if (!caller)
			wait_var_event(&job->by_caller,
				       cmabuf_zero_helper_go(job));
		if (READ_ONCE(job->stop))
			return;
		chunk = atomic_long_fetch_inc(&job->next);
		if (chunk >= job->chunks)
			return;
		if (caller) {
			/* Ordered: a helper that saw the old count is woken. */
			atomic_long_inc_return(&job->by_caller);
			wake_up_var(&job->by_caller);
		}
		first = chunk * CMABUF_ZERO_CHUNK_PAGES;
		cmabuf_clear_pages(job->pfn + first,
				   min(job->count - first,
				       CMABUF_ZERO_CHUNK_PAGES));
		if (caller && job->pause)
			job->pause();
		cond_resched();
	}
}

static void cmabuf_zero_work(struct work_struct *work)
{
	struct cmabuf_zero_worker *w =
		container_of(work, struct cmabuf_zero_worker, work);

	cmabuf_zero_chunks(w->job, false);
}

static unsigned int cmabuf_zero_helpers(int nid, unsigned int max_cpus)
{
	unsigned int cpus = cpumask_weight_and(cpumask_of_node(nid),
					       cpu_online_mask);

	if (!cpus)
		cpus = num_online_cpus();
	return min(cpus, max_cpus) - 1;
}

/* cmabuf_zero_pages() with a @pause after each of the caller's chunks. */
VISIBLE_IF_KUNIT int cmabuf_zero_pages_paced(struct page *page,
					     unsigned long count,
					     unsigned int max_cpus,
					     void (*pause)(void),
					     unsigned long *by_caller)
{
	struct cmabuf_zero_job job = {
		.pfn = page_to_pfn(page),
		.count = count,
		.chunks = DIV_ROUND_UP(count, CMABUF_ZERO_CHUNK_PAGES),
		.next = ATOMIC_LONG_INIT(0),
		.by_caller = ATOMIC_LONG_INIT(0),
		.pause = pause,
	};
	struct cmabuf_zero_worker *workers = NULL;
	int nid = page_to_nid(page);
	unsigned int i, helpers = 0;

	if (count >= (unsigned long)READ_ONCE(cmabuf_zero_parallel_min_mb) <<
		     (20 - PAGE_SHIFT))
		helpers = min_t(unsigned long, cmabuf_zero_helpers(nid, max_cpus),
				job.chunks - 1);
	if (helpers)
		workers = kmalloc_objs(*workers, helpers, GFP_KERNEL | __GFP_NOWARN);
	if (!workers)
		helpers = 0;
	job.helpers = helpers;

	for (i = 0; i < helpers; i++) {
		INIT_WORK(&workers[i].work, cmabuf_zero_work);
		workers[i].job = &job;
		queue_work_node(nid, cmabuf_zero_wq, &workers[i].work);
	}

	cmabuf_zero_chunks(&job, true);
	/* No chunk is left, or the job stopped: waiting helpers may go. */
	smp_mb();
	wake_up_var(&job.by_caller);

	/* @job is on this stack: every helper must be done with it. */
	for (i = 0; i < helpers; i++)
		flush_work(&workers[i].work);
	kfree(workers);

	if (by_caller)
		*by_caller = atomic_long_read(&job.by_caller);
	return job.stop ? -EINTR : helpers + 1;
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_zero_pages_paced);

/*
 * @max_cpus counts the caller. Return: the CPUs that took part, or -EINTR
 * (a fatal signal: the rest is left, and the range must not be handed out).
 */
int cmabuf_zero_pages(struct page *page, unsigned long count,
		      unsigned int max_cpus)
{
	return cmabuf_zero_pages_paced(page, count, max_cpus, NULL, NULL);
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_zero_pages);

/* init_on_alloc clears, unless init_on_free is on; the DMA API always does. */
bool cmabuf_zeroed_by_allocator(u32 strategy)
{
	if (strategy == CMABUF_STRATEGY_DMA)
		return true;
	if (CMABUF_CLEARS_FROZEN && strategy != CMABUF_STRATEGY_LEGACY)
		return false;
	return want_init_on_alloc(GFP_KERNEL) && !want_init_on_free();
}

/* -EINTR on a fatal signal; the caller frees the range then. */
int cmabuf_range_zero(const struct cmabuf_range *range)
{
	int ret;

	if (cmabuf_zeroed_by_allocator(range->strategy))
		return 0;
	ret = cmabuf_zero_pages(range->page, range->count, nr_cpu_ids);
	return ret < 0 ? ret : 0;
}

int cmabuf_zero_init(void)
{
	cmabuf_zero_wq = alloc_workqueue("cmabuf_zero", WQ_UNBOUND, 0);
	return cmabuf_zero_wq ? 0 : -ENOMEM;
}

void cmabuf_zero_exit(void)
{
	destroy_workqueue(cmabuf_zero_wq);
}
