// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf: buffers made ready, all zero, before they are asked for (a want:
 * CMABUF_IOC_PREPARE or the sysfs reserve), and frees nobody waits for.
 * See docs/prepared.md.
 */

#define pr_fmt(fmt) "cmabuf: " fmt

#include <kunit/visibility.h>
#include <linux/device.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/swap.h>
#include <linux/sysfs.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "cmabuf.h"

static unsigned int cmabuf_prepare_timeout_ms = 10000;
module_param_named(prepare_timeout_ms, cmabuf_prepare_timeout_ms, uint, 0644);
MODULE_PARM_DESC(prepare_timeout_ms,
		 "Prepared buffers nobody took for this long go back to CMA, unless the request said otherwise (default: 10000)");

static unsigned int cmabuf_prepare_max_percent = 50;
module_param_named(prepare_max_percent, cmabuf_prepare_max_percent, uint, 0644);
MODULE_PARM_DESC(prepare_max_percent,
		 "Share of an area that prepared buffers may take, all files together (default: 50)");

static unsigned int cmabuf_prepare_file_percent = 25;
module_param_named(prepare_file_percent, cmabuf_prepare_file_percent, uint,
		   0644);
MODULE_PARM_DESC(prepare_file_percent,
		 "Share of an area one user (all its files) may have prepared, without CAP_SYS_ADMIN (default: 25)");

/* Other drivers never wait for what a pool holds on the default area. */
static unsigned int cmabuf_prepare_default_percent = 10;
module_param_named(prepare_default_percent, cmabuf_prepare_default_percent,
		   uint, 0644);
MODULE_PARM_DESC(prepare_default_percent,
		 "Share of the kernel's default CMA area, where other drivers allocate, that prepared buffers may take, all files together; at most prepare_max_percent (default: 10)");

#define CMABUF_POOL_SHRUNK_PAUSE	(5 * HZ)

/* A refill clears on every CPU: let the taker's stream go first. */
#define CMABUF_POOL_REFILL_DELAY	msecs_to_jiffies(20)

/* close() arms a timer rather than waking a worker. */
#define CMABUF_POOL_RELEASE_DELAY	1

/* Where the area's size is unknown, the limits apply to this many pages. */
#define CMABUF_POOL_UNKNOWN_AREA_PAGES	(SZ_1G >> PAGE_SHIFT)

/* A buffer's pages on a want's @bufs or the pool's @releasing. */
struct cmabuf_pool_buf {
	struct list_head node;
	struct cmabuf_range range;
};

/**
 * struct cmabuf_want - a kind of buffer someone wants ready
 * @node: entry in &cmabuf_pool.wants.
 * @owner: the file that asked, or NULL for the administrator's reserve.
 * @plan: what an allocation of this kind plans.
 * @strategy: the strategy asked for (AUTO or one).
 * @align_order: the alignment asked for, as a page order.
 * @count: buffers wanted ready.
 * @ready: buffers on @bufs.
 * @filling: buffers being made or recycled for it.
 * @making: the fill worker is making one for it (at most one at a time).
 * @urgent: a PREPARE waits for it: made even while the pool backs off.
 * @shrunk: buffers the shrinker took from it and not yet made again.
 * @error: the worker's last failure for it; no more tries until it is
 *	asked again or memory is freed, or until @retry if @retrying.
 * @retrying: @error came from a try nobody waited for.
 * @retry: when (jiffies).
 * @timeout: how long it may go untaken before it is dropped; 0: never.
 * @used: when it was last asked for or taken from (jiffies).
 * @dead: dropped while a buffer was made for it; the worker frees it.
 * @bufs: the ready buffers, all zero.
 * @charge: the setter's, on the stocked bytes; none for the reserve.
 *
 * All fields are protected by &cmabuf_pool.lock.
 */
struct cmabuf_want {
	struct list_head node;
	const void *owner;
	struct cmabuf_plan plan;
	u32 strategy;
	unsigned int align_order;
	unsigned int count;
	unsigned int ready;
	unsigned int filling;
	bool making;
	bool urgent;
	unsigned int shrunk;
	int error;
	bool retrying;
	unsigned long retry;
	unsigned long timeout;
	unsigned long used;
	bool dead;
	struct list_head bufs;
	struct cmabuf_charge charge;
};

/**
 * struct cmabuf_pool - an instance's wants and its frees in flight
 * @cdev: the instance.
 * @lock: guards the lists and counts below.
 * @wants: &struct cmabuf_want.
 * @ready_pages: pages of all ready buffers.
 * @releasing: &struct cmabuf_pool_buf freed, waiting for the worker.
 * @releasing_pages: their pages, and dropped ready buffers' until back.
 * @unwanted_pages: those of the buffer being made for a dropped want.
 * @shrunk_until: no soft want is refilled before this (jiffies).
 * @credit: pages reclaim asked and not yet got, since the back-off began.
 * @reclaimed_buffers: ready buffers the shrinker gave back, since bind.
 * @reclaimed_pages: their pages.
 * @refilled_buffers: buffers made again for wants the shrinker took from.
 * @refilled_pages: their pages.
 * @stopped: the instance is unbound: nothing is made or kept any more.
 * @default_area: the instance's area is the kernel's default one.
 * @fill_work: makes the buffers wants lack.
 * @release_work: releases or recycles freed buffers.
 * @expire_work: drops wants past their time-out.
 * @wq: woken when a buffer gets ready, a try fails, or frees are done.
 * @shrinker: gives ready buffers back under memory pressure.
 */
struct cmabuf_pool {
	struct cmabuf_dev *cdev;
	spinlock_t lock;	/* see above */
	struct list_head wants;
	unsigned long ready_pages;
	struct list_head releasing;
	unsigned long releasing_pages;
	unsigned long unwanted_pages;
	unsigned long shrunk_until;
	unsigned long credit;
	u64 reclaimed_buffers;
	u64 reclaimed_pages;
	u64 refilled_buffers;
	u64 refilled_pages;
	bool stopped;
	bool default_area;
	struct delayed_work fill_work;
	struct delayed_work release_work;
	struct delayed_work expire_work;
	wait_queue_head_t wq;
	struct shrinker *shrinker;
};

static struct workqueue_struct *cmabuf_pool_wq;

/* One change of an instance's reserve at a time. */
static DEFINE_MUTEX(cmabuf_reserve_lock);

/*
 * Only what the plan's first try would make (a folio, a PMD-aligned range);
 * with @fallback, what the fallback makes too, for a want of this kind.
 */
static bool cmabuf_range_fits(const struct cmabuf_range *range,
			      const struct cmabuf_plan *plan,
			      unsigned int align_order, bool fallback)
{
	unsigned long pfn = page_to_pfn(range->page);

	if (range->count != plan->pages ||
	    !IS_ALIGNED(pfn, 1UL << align_order))
		return false;
	if (range->strategy == plan->strategy &&
	    IS_ALIGNED(pfn, 1UL << plan->align_order))
		return true;
	return fallback && plan->fallback != CMABUF_STRATEGY_AUTO &&
	       range->strategy == plan->fallback &&
	       IS_ALIGNED(pfn, 1UL << plan->fallback_align_order);
}

static bool cmabuf_want_is(const struct cmabuf_want *w,
			   const struct cmabuf_plan *plan, u32 strategy,
			   unsigned int align_order)
{
	return w->plan.pages == plan->pages && w->strategy == strategy &&
	       w->align_order == align_order;
}

static u64 cmabuf_want_bytes(const struct cmabuf_want *w)
{
	return ((u64)w->plan.pages << PAGE_SHIFT) * w->count;
}

/* Counted as releasing until back: an allocation waits rather than fail. */
static void cmabuf_pool_unready(struct cmabuf_pool *pool, unsigned long pages)
{
	lockdep_assert_held(&pool->lock);
	pool->ready_pages -= pages;
	pool->releasing_pages += pages;
}

static void cmabuf_pool_released(struct cmabuf_pool *pool,
				 unsigned long *count, unsigned long pages)
{
	spin_lock(&pool->lock);
	*count -= pages;
	spin_unlock(&pool->lock);
	wake_up_all(&pool->wq);
}

static void cmabuf_pool_release_list(struct cmabuf_dev *cdev,
				     struct list_head *list)
{
	struct cmabuf_pool_buf *b, *next;
	unsigned long pages = 0;

	list_for_each_entry_safe(b, next, list, node) {
		pages += b->range.count;
		cmabuf_range_release(cdev, &b->range);
		kfree(b);
	}
	if (pages)
		cmabuf_pool_released(cdev->pool, &cdev->pool->releasing_pages,
				     pages);
}

static void cmabuf_want_drop(struct cmabuf_pool *pool, struct cmabuf_want *w,
			     struct list_head *out)
{
	lockdep_assert_held(&pool->lock);
	cmabuf_charge_sub(pool->cdev, &w->charge, cmabuf_want_bytes(w));
	cmabuf_charge_put(&w->charge);
	cmabuf_pool_unready(pool, w->ready * w->plan.pages);
	list_splice_init(&w->bufs, out);
	w->ready = 0;
	w->count = 0;
	list_del(&w->node);
	if (w->making)
		pool->unwanted_pages += w->plan.pages;
	if (w->filling)
		w->dead = true;
	else
		kfree(w);
}

static unsigned long cmabuf_pool_backoff_left(struct cmabuf_pool *pool)
{
	unsigned long now = jiffies, until = READ_ONCE(pool->shrunk_until);

	return time_before(now, until) ? until - now : 0;
}

static bool cmabuf_pool_backing_off(struct cmabuf_pool *pool)
{
	return cmabuf_pool_backoff_left(pool) > 0;
}

/* While backing off, only the reserve and a want a PREPARE waits for. */
static bool cmabuf_want_short_now(const struct cmabuf_want *w, bool backoff)
{
	return w->ready + w->filling < w->count &&
	       (!backoff || !w->owner || w->urgent);
}

/* @later: jiffies until another want may be made, 0 when none waits. */
static struct cmabuf_want *cmabuf_pool_short(struct cmabuf_pool *pool,
					     unsigned long *later)
{
	unsigned long now = jiffies, left = cmabuf_pool_backoff_left(pool);
	struct cmabuf_want *w;

	lockdep_assert_held(&pool->lock);
	*later = 0;
	if (pool->stopped)
		return NULL;
	list_for_each_entry(w, &pool->wants, node) {
		if (w->error && w->retrying && !time_before(now, w->retry)) {
			w->error = 0;
			w->retrying = false;
		}
		if (w->error) {
			if (w->retrying)
				*later = min_not_zero(*later, w->retry - now);
			continue;
		}
		if (cmabuf_want_short_now(w, left > 0))
			return w;
		if (w->ready + w->filling < w->count)
			*later = min_not_zero(*later, max(left, 1UL));
	}
	return NULL;
}

static void cmabuf_pool_kick(struct cmabuf_pool *pool)
{
	lockdep_assert_held(&pool->lock);
	if (!pool->stopped)
		mod_delayed_work(cmabuf_pool_wq, &pool->fill_work, 0);
}

static void cmabuf_pool_kick_later(struct cmabuf_pool *pool)
{
	lockdep_assert_held(&pool->lock);
	if (!pool->stopped)
		queue_delayed_work(cmabuf_pool_wq, &pool->fill_work,
				   CMABUF_POOL_REFILL_DELAY);
}

static int cmabuf_pool_alloc_wait(struct cmabuf_dev *cdev,
				  const struct cmabuf_plan *plan,
				  struct cmabuf_tries *t,
				  struct cmabuf_range *range, bool give_back);

/*
 * Memory on its way back is waited for, as for an ALLOC; no other want's
 * ready buffer is taken back: that would only move the shortage.
 */
static int cmabuf_pool_make(struct cmabuf_dev *cdev,
			    const struct cmabuf_plan *plan,
			    struct cmabuf_range *range)
{
	struct cmabuf_tries t;
	int ret;

	ret = cmabuf_pool_alloc_wait(cdev, plan, &t, range, false);
	if (ret)
		return ret;
	ret = cmabuf_range_zero(range);
	if (ret)
		cmabuf_range_release(cdev, range);
	return ret;
}

static void cmabuf_pool_fill_work(struct work_struct *work)
{
	struct cmabuf_pool *pool = container_of(to_delayed_work(work),
						struct cmabuf_pool, fill_work);
	struct cmabuf_pool_buf *b;
	struct cmabuf_want *w;
	struct cmabuf_plan plan;
	unsigned long later;
	bool dropped;
	int ret;

	for (;;) {
		b = kzalloc_obj(*b, GFP_KERNEL | __GFP_NOWARN);
		spin_lock(&pool->lock);
		w = cmabuf_pool_short(pool, &later);
		if (!w && later)
			queue_delayed_work(cmabuf_pool_wq, &pool->fill_work,
					   later);
		if (!w || !b) {
			if (w)
				w->error = -ENOMEM;
			spin_unlock(&pool->lock);
			kfree(b);
			if (w)
				wake_up_all(&pool->wq);
			return;
		}
		w->filling++;
		w->making = true;
		plan = w->plan;
		spin_unlock(&pool->lock);

		ret = cmabuf_pool_make(pool->cdev, &plan, &b->range);

		spin_lock(&pool->lock);
		w->filling--;
		w->making = false;
		dropped = w->dead;
		if (ret) {
			w->error = ret;
			/* Nobody waits: retried after a pause. */
			w->retrying = !w->urgent;
			w->retry = jiffies + CMABUF_POOL_SHRUNK_PAUSE;
			w->urgent = false;
		} else if (!w->dead && !pool->stopped &&
			   w->ready < w->count) {
			list_add_tail(&b->node, &w->bufs);
			w->ready++;
			pool->ready_pages += b->range.count;
			cmabuf_stats_prepared(pool->cdev, b->range.strategy);
			if (w->shrunk) {
				w->shrunk--;
				pool->refilled_buffers++;
				pool->refilled_pages += b->range.count;
			}
			if (w->ready >= w->count)
				w->urgent = false;
			b = NULL;
		}
		if (w->dead && !w->filling)
			kfree(w);
		spin_unlock(&pool->lock);

		if (b && !ret)
			cmabuf_range_release(pool->cdev, &b->range);
		kfree(b);
		if (dropped)
			cmabuf_pool_released(pool, &pool->unwanted_pages,
					     plan.pages);
		else
			wake_up_all(&pool->wq);
		cond_resched();
	}
}

/* Kept only for a want whose plan's first try makes this very buffer. */
static bool cmabuf_pool_recycle(struct cmabuf_pool *pool,
				struct cmabuf_pool_buf *b)
{
	struct cmabuf_want *w;
	bool found = false, backoff;

	spin_lock(&pool->lock);
	backoff = cmabuf_pool_backing_off(pool);
	list_for_each_entry(w, &pool->wants, node) {
		if (!pool->stopped && cmabuf_want_short_now(w, backoff) &&
		    cmabuf_range_fits(&b->range, &w->plan, w->align_order,
				      false)) {
			w->filling++;
			found = true;
			break;
		}
	}
	spin_unlock(&pool->lock);
	if (!found)
		return false;

	/* A previous user's bytes: cleared whatever the allocator does. */
	found = cmabuf_zero_pages(b->range.page, b->range.count,
				  nr_cpu_ids) > 0;

	spin_lock(&pool->lock);
	w->filling--;
	if (found && !w->dead && !pool->stopped && w->ready < w->count) {
		list_add_tail(&b->node, &w->bufs);
		w->ready++;
		pool->ready_pages += b->range.count;
		w->error = 0;
		if (w->shrunk)
			w->shrunk--;
	} else {
		found = false;
	}
	if (w->dead && !w->filling)
		kfree(w);
	spin_unlock(&pool->lock);
	wake_up_all(&pool->wq);
	return found;
}

static void cmabuf_pool_retry(struct cmabuf_pool *pool)
{
	struct cmabuf_want *w;
	bool failed = false;

	spin_lock(&pool->lock);
	list_for_each_entry(w, &pool->wants, node) {
		failed |= w->error;
		w->error = 0;
	}
	if (failed)
		cmabuf_pool_kick(pool);
	spin_unlock(&pool->lock);
}

static void cmabuf_pool_release_work(struct work_struct *work)
{
	struct cmabuf_pool *pool = container_of(to_delayed_work(work),
						struct cmabuf_pool,
						release_work);
	struct cmabuf_pool_buf *b;
	unsigned long pages;

	for (;;) {
		spin_lock(&pool->lock);
		b = list_first_entry_or_null(&pool->releasing,
					     struct cmabuf_pool_buf, node);
		if (b)
			list_del(&b->node);
		spin_unlock(&pool->lock);
		if (!b)
			return;

		pages = b->range.count;
		if (!cmabuf_pool_recycle(pool, b)) {
			cmabuf_range_release(pool->cdev, &b->range);
			kfree(b);
			cmabuf_pool_retry(pool);
		}
		cmabuf_pool_released(pool, &pool->releasing_pages, pages);
		cond_resched();
	}
}

/* Return: jiffies to the nearest time-out, 0 when none. */
static unsigned long cmabuf_pool_expire(struct cmabuf_pool *pool,
					unsigned long now, struct list_head *out)
{
	struct cmabuf_want *w, *next;
	unsigned long wait = 0, left;

	lockdep_assert_held(&pool->lock);
	list_for_each_entry_safe(w, next, &pool->wants, node) {
		if (!w->timeout)
			continue;
		if (time_after_eq(now, w->used + w->timeout)) {
			cmabuf_want_drop(pool, w, out);
			continue;
		}
		left = w->used + w->timeout - now;
		wait = wait ? min(wait, left) : left;
	}
	return wait;
}

static void cmabuf_pool_expire_work(struct work_struct *work)
{
	struct cmabuf_pool *pool = container_of(to_delayed_work(work),
						struct cmabuf_pool,
						expire_work);
	unsigned long wait;
	LIST_HEAD(expired);

	spin_lock(&pool->lock);
	wait = cmabuf_pool_expire(pool, jiffies, &expired);
	if (wait && !pool->stopped)
		mod_delayed_work(cmabuf_pool_wq, &pool->expire_work, wait);
	spin_unlock(&pool->lock);
	cmabuf_pool_release_list(pool->cdev, &expired);
}

/*
 * Only reclaim for movable allocations, and kswapd, can use CMA's pages;
 * drop_caches and proactive reclaim get nothing (docs/prepared.md).
 */
static bool cmabuf_pool_reclaim_helps(const struct shrink_control *sc)
{
	/* gfp_migratetype() less the unexported mobility switch. */
	return current_is_kswapd() ||
	       (sc->gfp_mask & (__GFP_MOVABLE | __GFP_RECLAIMABLE)) ==
	       __GFP_MOVABLE;
}

static unsigned long cmabuf_pool_reserve_pages(struct cmabuf_pool *pool)
{
	struct cmabuf_want *w;
	unsigned long pages = 0;

	lockdep_assert_held(&pool->lock);
	list_for_each_entry(w, &pool->wants, node) {
		if (!w->owner)
			pages += (unsigned long)w->ready * w->plan.pages;
	}
	return pages;
}

/* Files' ready buffers, and the reserve's beyond a lowered cap. */
static unsigned long cmabuf_pool_soft_pages(struct cmabuf_pool *pool,
					    bool *reserve_over)
{
	unsigned long reserve = cmabuf_pool_reserve_pages(pool);
	u64 max = READ_ONCE(pool->cdev->reserve_max_bytes) >> PAGE_SHIFT;

	*reserve_over = reserve > max;
	return pool->ready_pages - (unsigned long)min_t(u64, reserve, max);
}

/* One that starts after a quiet pause starts without credit. */
static void cmabuf_pool_pressed(struct cmabuf_pool *pool)
{
	lockdep_assert_held(&pool->lock);
	if (!cmabuf_pool_backing_off(pool))
		pool->credit = 0;
	WRITE_ONCE(pool->shrunk_until, jiffies + CMABUF_POOL_SHRUNK_PAUSE);
}

static unsigned long cmabuf_pool_count(struct shrinker *shrinker,
				       struct shrink_control *sc)
{
	struct cmabuf_pool *pool = cmabuf_shrinker_data(shrinker);
	unsigned long pages;
	bool over;

	if (!cmabuf_pool_reclaim_helps(sc))
		return 0;
	spin_lock(&pool->lock);
	cmabuf_pool_pressed(pool);
	pages = cmabuf_pool_soft_pages(pool, &over);
	spin_unlock(&pool->lock);
	return pages ?: SHRINK_EMPTY;
}

static struct cmabuf_want *cmabuf_pool_victim(struct cmabuf_pool *pool,
					      unsigned long most, bool reserve)
{
	struct cmabuf_want *w, *lru = NULL;

	lockdep_assert_held(&pool->lock);
	list_for_each_entry(w, &pool->wants, node) {
		if (!w->ready || w->plan.pages > most ||
		    (!w->owner && !reserve))
			continue;
		if (!lru || time_before(w->used, lru->used))
			lru = w;
	}
	return lru;
}

static struct cmabuf_pool_buf *cmabuf_want_unready(struct cmabuf_pool *pool,
						   struct cmabuf_want *w,
						   struct list_head *out)
{
	struct cmabuf_pool_buf *b;

	b = list_first_entry(&w->bufs, struct cmabuf_pool_buf, node);
	list_move(&b->node, out);
	w->ready--;
	cmabuf_pool_unready(pool, b->range.count);
	return b;
}

/*
 * Ready buffers go back as reclaim's requests add up to cover them: a call
 * for 128 pages takes no 1 GiB buffer. The wants stand.
 */
static unsigned long cmabuf_pool_scan(struct shrinker *shrinker,
				      struct shrink_control *sc)
{
	struct cmabuf_pool *pool = cmabuf_shrinker_data(shrinker);
	unsigned long freed = 0, soft;
	struct cmabuf_pool_buf *b;
	struct cmabuf_want *w;
	bool over;
	LIST_HEAD(out);

	if (!cmabuf_pool_reclaim_helps(sc))
		return SHRINK_STOP;
	spin_lock(&pool->lock);
	cmabuf_pool_pressed(pool);
	soft = cmabuf_pool_soft_pages(pool, &over);
	if (!soft) {
		spin_unlock(&pool->lock);
		return SHRINK_STOP;
	}
	pool->credit = min(pool->credit + sc->nr_to_scan, soft);
	while ((w = cmabuf_pool_victim(pool, pool->credit, over))) {
		b = cmabuf_want_unready(pool, w, &out);
		w->shrunk++;
		pool->credit -= b->range.count;
		pool->reclaimed_buffers++;
		pool->reclaimed_pages += b->range.count;
		freed += b->range.count;
		if (!w->owner)
			cmabuf_pool_soft_pages(pool, &over);
	}
	if (freed)
		cmabuf_pool_kick(pool);
	spin_unlock(&pool->lock);
	cmabuf_pool_release_list(pool->cdev, &out);
	mm_account_reclaimed_pages(freed);
	return freed;
}

/*
 * An allocation served by a ready buffer, @owner's own wants first (NULL:
 * the heap). Return: true when one was taken; its want is refilled later.
 */
bool cmabuf_pool_take(struct cmabuf_dev *cdev, const struct cmabuf_plan *plan,
		      u32 strategy, unsigned int align_order,
		      const void *owner, struct cmabuf_range *range)
{
	struct cmabuf_pool *pool = cdev->pool;
	struct cmabuf_pool_buf *b, *found = NULL;
	struct cmabuf_want *w;
	bool mine;
	int pass;

	if (!READ_ONCE(pool->ready_pages))
		return false;

	spin_lock(&pool->lock);
	for (pass = 0; pass < 2 && !found; pass++) {
		list_for_each_entry(w, &pool->wants, node) {
			if (pass == 0 && w->owner != owner)
				continue;
			mine = cmabuf_want_is(w, plan, strategy, align_order);
			list_for_each_entry(b, &w->bufs, node) {
				if (cmabuf_range_fits(&b->range, plan,
						      align_order, mine)) {
					found = b;
					break;
				}
			}
			if (found) {
				list_del(&found->node);
				w->ready--;
				w->used = jiffies;
				pool->ready_pages -= found->range.count;
				break;
			}
		}
	}
	spin_unlock(&pool->lock);
	if (!found)
		return false;

	*range = found->range;
	kfree(found);
	spin_lock(&pool->lock);
	cmabuf_pool_kick_later(pool);
	spin_unlock(&pool->lock);
	return true;
}

/* Released in the background, or here once unbound or without memory. */
void cmabuf_pool_put(struct cmabuf_dev *cdev, const struct cmabuf_range *range)
{
	struct cmabuf_pool *pool = cdev->pool;
	struct cmabuf_pool_buf *b;

	b = kzalloc_obj(*b, GFP_KERNEL | __GFP_NOWARN);
	if (b) {
		b->range = *range;
		spin_lock(&pool->lock);
		if (!pool->stopped) {
			list_add_tail(&b->node, &pool->releasing);
			pool->releasing_pages += range->count;
			queue_delayed_work(cmabuf_pool_wq, &pool->release_work,
					   CMABUF_POOL_RELEASE_DELAY);
			b = NULL;
		}
		spin_unlock(&pool->lock);
		if (!b)
			return;
		kfree(b);
	}
	cmabuf_range_release(cdev, range);
}

static unsigned long cmabuf_pool_coming_back(struct cmabuf_pool *pool)
{
	unsigned long pages = READ_ONCE(pool->releasing_pages);

	if (current_work() != &pool->fill_work.work)
		pages += READ_ONCE(pool->unwanted_pages);
	return pages;
}

/* What a stopped pool's worker makes is released, and stop waits for it. */
static bool cmabuf_pool_worker_stopped(struct cmabuf_pool *pool)
{
	return READ_ONCE(pool->stopped) &&
	       current_work() == &pool->fill_work.work;
}

static bool cmabuf_pool_waited(struct cmabuf_pool *pool)
{
	return !cmabuf_pool_coming_back(pool) ||
	       cmabuf_pool_worker_stopped(pool);
}

/*
 * Return: true when frees were in flight and are done, false when none
 * or the caller is a stopped pool's worker; -EINTR on a fatal signal.
 */
static int cmabuf_pool_wait_released(struct cmabuf_dev *cdev)
{
	struct cmabuf_pool *pool = cdev->pool;

	if (cmabuf_pool_waited(pool))
		return false;
	/* Not after cmabuf_pool_stop() flushed it: the pool may go then. */
	spin_lock(&pool->lock);
	if (!pool->stopped)
		mod_delayed_work(cmabuf_pool_wq, &pool->release_work, 0);
	spin_unlock(&pool->lock);
	if (wait_event_killable(pool->wq, cmabuf_pool_waited(pool)))
		return -EINTR;
	return !cmabuf_pool_worker_stopped(pool);
}

/* Some buffers, then all, then all again (those made meanwhile). */
#define CMABUF_POOL_GIVE_BACK_ROUNDS	3

static unsigned long cmabuf_pool_files_ready(struct cmabuf_pool *pool)
{
	struct cmabuf_want *w;
	unsigned long pages = 0;

	lockdep_assert_held(&pool->lock);
	list_for_each_entry(w, &pool->wants, node) {
		if (w->owner)
			pages += w->ready * w->plan.pages;
	}
	return pages;
}

/*
 * Files' ready buffers go back, least recently used first; their wants wait
 * for freed memory, or the refill would take the room back. Return: pages.
 */
static unsigned long cmabuf_pool_give_back(struct cmabuf_pool *pool,
					   unsigned long pages, bool all)
{
	struct cma *cma = pool->cdev->cma;
	unsigned long freed = 0, free = cmabuf_area_free_pages(cma);
	struct cmabuf_want *w;
	LIST_HEAD(out);

	spin_lock(&pool->lock);
	if (cmabuf_area_pages(cma) &&
	    free + cmabuf_pool_files_ready(pool) < pages) {
		spin_unlock(&pool->lock);
		return 0;
	}
	while ((all || freed < pages) &&
	       (w = cmabuf_pool_victim(pool, ULONG_MAX, false))) {
		freed += cmabuf_want_unready(pool, w, &out)->range.count;
		w->error = -ENOMEM;
	}
	spin_unlock(&pool->lock);
	cmabuf_pool_release_list(pool->cdev, &out);
	return freed;
}

static int cmabuf_pool_alloc_wait(struct cmabuf_dev *cdev,
				  const struct cmabuf_plan *plan,
				  struct cmabuf_tries *t,
				  struct cmabuf_range *range, bool give_back)
{
	unsigned int round = 0;
	int ret, waited;

	for (;;) {
		ret = cmabuf_range_alloc_plan(cdev, plan, t, range);
		if (ret != -ENOMEM && ret != -EBUSY)
			return ret;
		waited = cmabuf_pool_wait_released(cdev);
		if (waited < 0)
			return waited;
		if (waited)
			continue;
		if (!give_back || round == CMABUF_POOL_GIVE_BACK_ROUNDS ||
		    !cmabuf_pool_give_back(cdev->pool, plan->pages, round++))
			return ret;
	}
}

/*
 * Neither memory on its way back to CMA nor files' ready buffers may make
 * an allocation fail: wait for the first, take back the second.
 */
int cmabuf_pool_alloc_plan(struct cmabuf_dev *cdev,
			   const struct cmabuf_plan *plan,
			   struct cmabuf_tries *t, struct cmabuf_range *range)
{
	return cmabuf_pool_alloc_wait(cdev, plan, t, range, true);
}

/* Pages files' wants hold stocked: @user's, or every file's for NULL. */
static unsigned long cmabuf_pool_wanted(struct cmabuf_pool *pool,
					const struct cmabuf_user *user)
{
	struct cmabuf_want *w;
	u64 bytes = 0;

	lockdep_assert_held(&pool->lock);
	list_for_each_entry(w, &pool->wants, node) {
		if (w->owner && (!user || w->charge.user == user))
			bytes += cmabuf_want_bytes(w);
	}
	return bytes >> PAGE_SHIFT;
}

static unsigned long cmabuf_pool_area(const struct cmabuf_pool *pool)
{
	return pool->cdev->area_pages ?: CMABUF_POOL_UNKNOWN_AREA_PAGES;
}

static unsigned long cmabuf_pool_max_pages(const struct cmabuf_pool *pool)
{
	unsigned int percent = READ_ONCE(cmabuf_prepare_max_percent);

	if (pool->default_area)
		percent = min(percent, READ_ONCE(cmabuf_prepare_default_percent));
	return mult_frac(cmabuf_pool_area(pool), percent, 100);
}

/* @user is NULL for a caller with CAP_SYS_ADMIN, held to no share. */
static bool cmabuf_pool_over(struct cmabuf_pool *pool, unsigned long more,
			     const struct cmabuf_user *user,
			     unsigned long user_more)
{
	unsigned long area = cmabuf_pool_area(pool);

	if (more && cmabuf_pool_wanted(pool, NULL) + more >
	    cmabuf_pool_max_pages(pool))
		return true;
	return user && user_more &&
	       cmabuf_pool_wanted(pool, user) + user_more >
	       mult_frac(area, READ_ONCE(cmabuf_prepare_file_percent), 100);
}

static struct cmabuf_want *cmabuf_pool_find(struct cmabuf_pool *pool,
					    const void *owner,
					    const struct cmabuf_plan *plan,
					    u32 strategy,
					    unsigned int align_order)
{
	struct cmabuf_want *w;

	lockdep_assert_held(&pool->lock);
	list_for_each_entry(w, &pool->wants, node) {
		if (w->owner == owner && w->plan.pages == plan->pages &&
		    w->strategy == strategy && w->align_order == align_order)
			return w;
	}
	return NULL;
}

/* A want as cmabuf_pool_want() last saw it: @w NULL for none. */
struct cmabuf_want_seen {
	struct cmabuf_want *w;
	unsigned int count;
	struct cmabuf_charge charge;
};

static void cmabuf_want_see(struct cmabuf_want *w, struct cmabuf_want_seen *s)
{
	s->w = w;
	s->count = w ? w->count : 0;
	s->charge = w ? w->charge : (struct cmabuf_charge){};
}

static bool cmabuf_want_seen_same(struct cmabuf_want *w,
				  const struct cmabuf_want_seen *s)
{
	struct cmabuf_want_seen now;

	cmabuf_want_see(w, &now);
	return now.w == s->w && now.count == s->count &&
	       cmabuf_charge_same(&now.charge, &s->charge);
}

/* What @count adds when @s was charged to the same, else all of it. */
static u64 cmabuf_want_more(const struct cmabuf_want_seen *s, bool same,
			    const struct cmabuf_plan *plan, unsigned int count)
{
	u64 bytes = (u64)plan->pages << PAGE_SHIFT;

	if (same)
		return count > s->count ? bytes * (count - s->count) : 0;
	return bytes * count;
}

/* Nothing charged on failure. */
static int cmabuf_want_charge(struct cmabuf_dev *cdev,
			      const struct cmabuf_want_seen *s,
			      const struct cmabuf_charge *c,
			      const struct cmabuf_plan *plan,
			      unsigned int count, u64 *more)
{
	struct cmabuf_charge u = { .user = c->user }, m = { .objcg = c->objcg };
	int ret;

	more[0] = cmabuf_want_more(s, s->w && s->charge.user == c->user,
				   plan, count);
	more[1] = cmabuf_want_more(s, s->w && s->charge.objcg == c->objcg,
				   plan, count);
	ret = cmabuf_charge_add(cdev, &u, more[0]);
	if (ret)
		return ret;
	ret = cmabuf_charge_add(cdev, &m, more[1]);
	if (ret)
		cmabuf_charge_sub(cdev, &u, more[0]);
	return ret;
}

static void cmabuf_want_uncharge(struct cmabuf_dev *cdev,
				 const struct cmabuf_charge *c, const u64 *bytes)
{
	struct cmabuf_charge u = { .user = c->user }, m = { .objcg = c->objcg };

	cmabuf_charge_sub(cdev, &u, bytes[0]);
	cmabuf_charge_sub(cdev, &m, bytes[1]);
}

static void cmabuf_want_recharge(struct cmabuf_want *w, unsigned long had,
				 unsigned long pages, struct cmabuf_charge *c,
				 struct cmabuf_charge *old, u64 *old_bytes)
{
	u64 shrink = had > pages ? (u64)(had - pages) << PAGE_SHIFT : 0;

	if (w->charge.user == c->user) {
		old->user = c->user;
		old_bytes[0] = shrink;
	} else {
		old->user = w->charge.user;
		old_bytes[0] = (u64)had << PAGE_SHIFT;
		w->charge.user = c->user;
	}
	if (w->charge.objcg == c->objcg) {
		old->objcg = c->objcg;
		old_bytes[1] = shrink;
	} else {
		old->objcg = w->charge.objcg;
		old_bytes[1] = (u64)had << PAGE_SHIFT;
		w->charge.objcg = c->objcg;
	}
	*c = (struct cmabuf_charge){};
}

/*
 * Only if nothing changed since @s was seen. Under the pool's lock.
 * Return: the buffers ready, -EAGAIN when it changed, -ENOSPC past a
 * limit (nothing changed then).
 */
static int cmabuf_want_set(struct cmabuf_pool *pool, const void *owner,
			   const struct cmabuf_plan *plan, u32 strategy,
			   unsigned int align_order, unsigned int count,
			   unsigned long timeout, struct cmabuf_charge *c,
			   struct cmabuf_want **fresh,
			   const struct cmabuf_want_seen *s,
			   struct cmabuf_charge *old, u64 *old_bytes,
			   struct list_head *out)
{
	unsigned long now = jiffies, pages = count * plan->pages;
	unsigned long had = s->count * plan->pages;
	unsigned long more = pages > had ? pages - had : 0;
	bool same_user = s->w && s->charge.user == c->user;
	struct cmabuf_want *w;

	lockdep_assert_held(&pool->lock);
	w = cmabuf_pool_find(pool, owner, plan, strategy, align_order);
	if (!cmabuf_want_seen_same(w, s))
		return -EAGAIN;
	if (owner && cmabuf_pool_over(pool, more, c->user,
				      same_user ? more : pages))
		return -ENOSPC;
	if (!count) {
		if (w)
			cmabuf_want_drop(pool, w, out);
		return 0;
	}
	if (!w) {
		w = *fresh;
		*fresh = NULL;
		w->owner = owner;
		w->plan = *plan;
		w->strategy = strategy;
		w->align_order = align_order;
		INIT_LIST_HEAD(&w->bufs);
		list_add_tail(&w->node, &pool->wants);
	}
	cmabuf_want_recharge(w, had, pages, c, old, old_bytes);
	w->count = count;
	w->error = 0;
	w->used = now;
	w->timeout = timeout;
	while (w->ready > count) {
		list_move(w->bufs.prev, out);
		w->ready--;
		cmabuf_pool_unready(pool, plan->pages);
	}
	/* Armed for the nearest time-out: a longer one must not put it off. */
	if (w->timeout)
		mod_delayed_work(cmabuf_pool_wq, &pool->expire_work,
				 cmabuf_pool_expire(pool, now, out));
	return w->ready;
}

/**
 * cmabuf_pool_want() - set how many buffers of a kind an owner wants ready
 * @cdev: the instance.
 * @owner: the file, or NULL for the reserve.
 * @plan: what an allocation of the kind plans.
 * @strategy: the strategy asked for.
 * @align_order: the alignment asked for, as a page order.
 * @count: buffers wanted ready; 0 drops the want and its buffers.
 * @timeout_ms: 0 for the default; ignored for the reserve (no time-out).
 * @privileged: the caller is held to no share nor cap.
 *
 * A file's want is charged to the calling task before anything changes, as
 * live buffers are; setting it from another user or cgroup moves the charge.
 *
 * Return: the buffers of the kind ready now; -ENOSPC (the area's share),
 * -EDQUOT or -ENOBUFS, with nothing changed; -ENOMEM; -ENODEV once unbound.
 */
int cmabuf_pool_want(struct cmabuf_dev *cdev, const void *owner,
		     const struct cmabuf_plan *plan, u32 strategy,
		     unsigned int align_order, unsigned int count,
		     unsigned int timeout_ms, bool privileged)
{
	struct cmabuf_charge c = {}, old = {};
	struct cmabuf_pool *pool = cdev->pool;
	u64 more[2], old_bytes[2] = {};
	struct cmabuf_want_seen seen;
	struct cmabuf_want *fresh;
	unsigned long timeout;
	LIST_HEAD(out);
	int ret;

	timeout = owner ? msecs_to_jiffies(timeout_ms ?:
				READ_ONCE(cmabuf_prepare_timeout_ms)) : 0;
	fresh = kzalloc_obj(*fresh);
	if (!fresh)
		return -ENOMEM;
	if (owner && count) {
		ret = cmabuf_charge_get(cdev, privileged, &c);
		if (ret)
			goto free_fresh;
	}

	do {
		spin_lock(&pool->lock);
		cmabuf_want_see(cmabuf_pool_find(pool, owner, plan, strategy,
						 align_order), &seen);
		spin_unlock(&pool->lock);

		ret = cmabuf_want_charge(cdev, &seen, &c, plan, count, more);
		if (ret)
			break;

		spin_lock(&pool->lock);
		ret = pool->stopped ? -ENODEV :
		      cmabuf_want_set(pool, owner, plan, strategy, align_order,
				      count, timeout, &c, &fresh, &seen, &old,
				      old_bytes, &out);
		if (ret >= 0)
			cmabuf_pool_kick(pool);
		spin_unlock(&pool->lock);
		if (ret < 0)
			cmabuf_want_uncharge(cdev, &c, more);
	} while (ret == -EAGAIN);

	cmabuf_want_uncharge(cdev, &old, old_bytes);
	cmabuf_charge_put(&old);
	cmabuf_charge_put(&c);
	cmabuf_pool_release_list(cdev, &out);
free_fresh:
	kfree(fresh);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_pool_want);

static bool cmabuf_pool_settled(struct cmabuf_pool *pool, const void *owner,
				const struct cmabuf_plan *plan, u32 strategy,
				unsigned int align_order, int *ret)
{
	struct cmabuf_want *w;

	spin_lock(&pool->lock);
	w = cmabuf_pool_find(pool, owner, plan, strategy, align_order);
	if (!w)
		*ret = 0;
	else if (w->ready >= w->count)
		*ret = w->ready;
	else
		*ret = w->error ?: -EAGAIN;
	spin_unlock(&pool->lock);
	return *ret != -EAGAIN;
}

/*
 * Return: the buffers ready; the error of the worker's last try when it
 * failed (-ENOMEM, -EBUSY); -EINTR on a fatal signal; 0 when the want is
 * gone.
 */
int cmabuf_pool_wait_ready(struct cmabuf_dev *cdev, const void *owner,
			   const struct cmabuf_plan *plan, u32 strategy,
			   unsigned int align_order)
{
	struct cmabuf_pool *pool = cdev->pool;
	struct cmabuf_want *w;
	int ret = 0;

	spin_lock(&pool->lock);
	w = cmabuf_pool_find(pool, owner, plan, strategy, align_order);
	if (w && w->ready < w->count && !w->urgent) {
		w->urgent = true;
		cmabuf_pool_kick(pool);
	}
	spin_unlock(&pool->lock);
	if (wait_event_killable(pool->wq,
				cmabuf_pool_settled(pool, owner, plan, strategy,
						    align_order, &ret)))
		return -EINTR;
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_pool_wait_ready);

void cmabuf_pool_drop_owner(struct cmabuf_dev *cdev, const void *owner)
{
	struct cmabuf_pool *pool = cdev->pool;
	struct cmabuf_want *w, *next;
	LIST_HEAD(out);

	spin_lock(&pool->lock);
	list_for_each_entry_safe(w, next, &pool->wants, node) {
		if (w->owner == owner)
			cmabuf_want_drop(pool, w, &out);
	}
	spin_unlock(&pool->lock);
	cmabuf_pool_release_list(cdev, &out);
}

/*
 * Replaces the reserve: no time-out, no file, kept through reclaim.
 * Return: 0; -EINVAL for a size an allocation would refuse or a repeated
 * one; -EOPNOTSUPP; -ENOSPC above @cdev->reserve_max_bytes (nothing
 * changed then); -ENOMEM; -ENODEV once unbound.
 */
int cmabuf_pool_reserve_set(struct cmabuf_dev *cdev, const u64 *sizes,
			    const u32 *counts, unsigned int n)
{
	struct cmabuf_plan plans[CMABUF_RESERVE_MAX];
	struct cmabuf_pool *pool = cdev->pool;
	struct cmabuf_want *w, *next;
	struct cmabuf_limits lim;
	unsigned int i, j;
	u64 bytes = 0;
	LIST_HEAD(out);
	int ret;

	if (n > CMABUF_RESERVE_MAX)
		return -EINVAL;
	cmabuf_dev_limits(cdev, &lim);
	for (i = 0; i < n; i++) {
		ret = cmabuf_plan_make(&lim, sizes[i], 0, CMABUF_STRATEGY_AUTO,
				       &plans[i]);
		if (ret)
			return ret;
		if (counts[i] > CMABUF_PREPARE_MAX_COUNT)
			return -EINVAL;
		for (j = 0; j < i; j++)
			if (plans[j].pages == plans[i].pages)
				return -EINVAL;
		bytes += ((u64)plans[i].pages << PAGE_SHIFT) * counts[i];
	}
	if (bytes > READ_ONCE(cdev->reserve_max_bytes))
		return -ENOSPC;

	mutex_lock(&cmabuf_reserve_lock);
	spin_lock(&pool->lock);
	list_for_each_entry_safe(w, next, &pool->wants, node) {
		if (!w->owner)
			cmabuf_want_drop(pool, w, &out);
	}
	spin_unlock(&pool->lock);
	cmabuf_pool_release_list(cdev, &out);

	ret = 0;
	for (i = 0; i < n && ret >= 0; i++) {
		if (counts[i])
			ret = cmabuf_pool_want(cdev, NULL, &plans[i],
					       CMABUF_STRATEGY_AUTO, 0,
					       counts[i], 0, true);
	}
	mutex_unlock(&cmabuf_reserve_lock);
	return ret < 0 ? ret : 0;
}

static int cmabuf_pool_reserve_show(struct cmabuf_dev *cdev, char *buf, size_t len)
{
	struct cmabuf_pool *pool = cdev->pool;
	struct cmabuf_want *w;
	int n = 0;

	spin_lock(&pool->lock);
	list_for_each_entry(w, &pool->wants, node) {
		if (!w->owner)
			n += scnprintf(buf + n, len - n, "%s%llux%u",
				       n ? " " : "",
				       (u64)w->plan.pages << PAGE_SHIFT,
				       w->count);
	}
	spin_unlock(&pool->lock);
	return n + scnprintf(buf + n, len - n, "\n");
}

static void cmabuf_pool_stats(struct cmabuf_dev *cdev, u64 *ready_bytes,
			      u64 *ready_buffers, u64 *releasing_bytes)
{
	struct cmabuf_pool *pool = cdev->pool;
	struct cmabuf_want *w;
	u64 buffers = 0;

	spin_lock(&pool->lock);
	list_for_each_entry(w, &pool->wants, node)
		buffers += w->ready;
	*ready_buffers = buffers;
	*ready_bytes = (u64)pool->ready_pages << PAGE_SHIFT;
	*releasing_bytes = (u64)(pool->releasing_pages + pool->unwanted_pages) <<
			   PAGE_SHIFT;
	spin_unlock(&pool->lock);
}

static struct cmabuf_dev *cmabuf_pool_dev(struct device *dev)
{
	struct miscdevice *misc = dev_get_drvdata(dev);

	return container_of(misc, struct cmabuf_dev, misc);
}

static ssize_t cmabuf_pool_show(struct device *dev, char *buf,
				unsigned int which)
{
	u64 v[3];

	cmabuf_pool_stats(cmabuf_pool_dev(dev), &v[0], &v[1], &v[2]);
	return sysfs_emit(buf, "%llu\n", v[which]);
}

static ssize_t prepared_bytes_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	return cmabuf_pool_show(dev, buf, 0);
}
static DEVICE_ATTR_RO(prepared_bytes);

static ssize_t prepared_buffers_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	return cmabuf_pool_show(dev, buf, 1);
}
static DEVICE_ATTR_RO(prepared_buffers);

static ssize_t releasing_bytes_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	return cmabuf_pool_show(dev, buf, 2);
}
static DEVICE_ATTR_RO(releasing_bytes);

enum cmabuf_pool_reclaim_stat {
	CMABUF_RECLAIMED_BUFFERS,
	CMABUF_RECLAIMED_BYTES,
	CMABUF_REFILLED_BUFFERS,
	CMABUF_REFILLED_BYTES,
	CMABUF_BACKOFF_MS,
};

static ssize_t cmabuf_pool_reclaim_show(struct device *dev, char *buf,
					enum cmabuf_pool_reclaim_stat which)
{
	struct cmabuf_pool *pool = cmabuf_pool_dev(dev)->pool;
	u64 v;

	spin_lock(&pool->lock);
	switch (which) {
	case CMABUF_RECLAIMED_BUFFERS:
		v = pool->reclaimed_buffers;
		break;
	case CMABUF_RECLAIMED_BYTES:
		v = pool->reclaimed_pages << PAGE_SHIFT;
		break;
	case CMABUF_REFILLED_BUFFERS:
		v = pool->refilled_buffers;
		break;
	case CMABUF_REFILLED_BYTES:
		v = pool->refilled_pages << PAGE_SHIFT;
		break;
	default:
		v = jiffies_to_msecs(cmabuf_pool_backoff_left(pool));
		break;
	}
	spin_unlock(&pool->lock);
	return sysfs_emit(buf, "%llu\n", v);
}

static ssize_t reclaimed_buffers_show(struct device *dev,
				      struct device_attribute *attr, char *buf)
{
	return cmabuf_pool_reclaim_show(dev, buf, CMABUF_RECLAIMED_BUFFERS);
}
static DEVICE_ATTR_RO(reclaimed_buffers);

static ssize_t reclaimed_bytes_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	return cmabuf_pool_reclaim_show(dev, buf, CMABUF_RECLAIMED_BYTES);
}
static DEVICE_ATTR_RO(reclaimed_bytes);

static ssize_t refilled_buffers_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	return cmabuf_pool_reclaim_show(dev, buf, CMABUF_REFILLED_BUFFERS);
}
static DEVICE_ATTR_RO(refilled_buffers);

static ssize_t refilled_bytes_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	return cmabuf_pool_reclaim_show(dev, buf, CMABUF_REFILLED_BYTES);
}
static DEVICE_ATTR_RO(refilled_bytes);

static ssize_t reclaim_backoff_ms_show(struct device *dev,
				       struct device_attribute *attr, char *buf)
{
	return cmabuf_pool_reclaim_show(dev, buf, CMABUF_BACKOFF_MS);
}
static DEVICE_ATTR_RO(reclaim_backoff_ms);

static ssize_t prepare_max_bytes_show(struct device *dev,
				      struct device_attribute *attr, char *buf)
{
	struct cmabuf_pool *pool = cmabuf_pool_dev(dev)->pool;

	return sysfs_emit(buf, "%llu\n",
			  (u64)cmabuf_pool_max_pages(pool) << PAGE_SHIFT);
}
static DEVICE_ATTR_RO(prepare_max_bytes);

static ssize_t reserve_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return cmabuf_pool_reserve_show(cmabuf_pool_dev(dev), buf, PAGE_SIZE);
}

/* "SIZExCOUNT ..." with memparse() sizes; "" drops the reserve. */
static ssize_t reserve_store(struct device *dev, struct device_attribute *attr,
			     const char *buf, size_t len)
{
	u64 sizes[CMABUF_RESERVE_MAX];
	u32 counts[CMABUF_RESERVE_MAX];
	char *copy, *cur, *word, *end;
	unsigned int n = 0;
	int ret = 0;

	copy = kstrndup(buf, len, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	cur = copy;
	while (!ret && (word = strsep(&cur, " \t\n"))) {
		if (!*word)
			continue;
		if (n == CMABUF_RESERVE_MAX) {
			ret = -EINVAL;
			break;
		}
		sizes[n] = memparse(word, &end);
		if (*end++ != 'x' || kstrtou32(end, 10, &counts[n]))
			ret = -EINVAL;
		n++;
	}
	kfree(copy);
	if (!ret)
		ret = cmabuf_pool_reserve_set(cmabuf_pool_dev(dev), sizes,
					      counts, n);
	return ret ?: len;
}
static DEVICE_ATTR_RW(reserve);

static ssize_t reserve_max_bytes_show(struct device *dev,
				      struct device_attribute *attr, char *buf)
{
	return cmabuf_stats_limit_show(&cmabuf_pool_dev(dev)->reserve_max_bytes,
				       buf);
}

/* A smaller cap leaves a larger reserve as it is, until it is set again. */
static ssize_t reserve_max_bytes_store(struct device *dev,
				       struct device_attribute *attr,
				       const char *buf, size_t len)
{
	return cmabuf_stats_limit_store(&cmabuf_pool_dev(dev)->reserve_max_bytes,
					buf, len);
}
static DEVICE_ATTR_RW(reserve_max_bytes);

static struct attribute *cmabuf_pool_attrs[] = {
	&dev_attr_prepared_bytes.attr,
	&dev_attr_prepared_buffers.attr,
	&dev_attr_releasing_bytes.attr,
	&dev_attr_reclaimed_buffers.attr,
	&dev_attr_reclaimed_bytes.attr,
	&dev_attr_refilled_buffers.attr,
	&dev_attr_refilled_bytes.attr,
	&dev_attr_reclaim_backoff_ms.attr,
	&dev_attr_prepare_max_bytes.attr,
	&dev_attr_reserve.attr,
	&dev_attr_reserve_max_bytes.attr,
	NULL,
};

const struct attribute_group cmabuf_pool_group = {
	.attrs = cmabuf_pool_attrs,
};

int cmabuf_pool_create(struct cmabuf_dev *cdev)
{
	struct cmabuf_pool *pool;

	pool = kzalloc_obj(*pool);
	if (!pool)
		return -ENOMEM;
	pool->cdev = cdev;
	pool->default_area = !cdev->dev->of_node ||
			     (cdev->cma && cdev->cma == cmabuf_default_cma(NULL));
	spin_lock_init(&pool->lock);
	INIT_LIST_HEAD(&pool->wants);
	INIT_LIST_HEAD(&pool->releasing);
	INIT_DELAYED_WORK(&pool->fill_work, cmabuf_pool_fill_work);
	pool->shrunk_until = jiffies;
	INIT_DELAYED_WORK(&pool->release_work, cmabuf_pool_release_work);
	INIT_DELAYED_WORK(&pool->expire_work, cmabuf_pool_expire_work);
	init_waitqueue_head(&pool->wq);

	pool->shrinker = cmabuf_shrinker_create(cdev->name, cmabuf_pool_count,
						cmabuf_pool_scan, pool);
	if (!pool->shrinker) {
		kfree(pool);
		return -ENOMEM;
	}
	cdev->pool = pool;
	return 0;
}

/*
 * Idle afterwards: buffers freed later are released at once. The dropped
 * ready buffers go back before the workers are waited for, so an unbind
 * never waits for a worker that waits for pages the unbind holds.
 */
void cmabuf_pool_stop(struct cmabuf_dev *cdev)
{
	struct cmabuf_pool *pool = cdev->pool;
	struct cmabuf_want *w, *next;
	LIST_HEAD(out);

	cmabuf_shrinker_free(pool->shrinker);
	pool->shrinker = NULL;

	spin_lock(&pool->lock);
	/* Read without the lock by cmabuf_pool_worker_stopped(). */
	WRITE_ONCE(pool->stopped, true);
	list_for_each_entry_safe(w, next, &pool->wants, node)
		cmabuf_want_drop(pool, w, &out);
	spin_unlock(&pool->lock);

	/*
	 * The fill worker may be in cmabuf_pool_wait_released() counting
	 * these very pages; the wake-up tells it the pool is stopped.
	 */
	cmabuf_pool_release_list(cdev, &out);
	wake_up_all(&pool->wq);
	cancel_delayed_work_sync(&pool->expire_work);
	cancel_delayed_work_sync(&pool->fill_work);
	flush_delayed_work(&pool->release_work);
}

/* For KUnit to call the shrinker as reclaim does. */
struct shrinker *cmabuf_pool_shrinker(struct cmabuf_dev *cdev)
{
	return cdev->pool->shrinker;
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_pool_shrinker);

int cmabuf_pool_init(void)
{
	cmabuf_pool_wq = alloc_workqueue("cmabuf_pool", WQ_UNBOUND, 0);
	return cmabuf_pool_wq ? 0 : -ENOMEM;
}

void cmabuf_pool_exit(void)
{
	destroy_workqueue(cmabuf_pool_wq);
}
