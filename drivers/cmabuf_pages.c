// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf: the pages of a buffer, from request to release
 *
 * Every buffer, whatever front end asked for it, is planned, charged to
 * its caller's user under the instance's cap when the caller lacks
 * CAP_SYS_ADMIN and to its memory cgroup when asked, allocated, cleared
 * and counted here, and nowhere else: the counters of the buffers an
 * instance hands out, and both charges, change only in this file (the
 * pool charges its wants through cmabuf_charge_add() and co).
 */

#define pr_fmt(fmt) "cmabuf: " fmt

#include <linux/mm.h>
#include <linux/moduleparam.h>

#include "cmabuf.h"

/*
 * Off by default, as dma_heap.mem_accounting is for the system heap: a
 * buffer is often allocated by a service on behalf of others, and a
 * charge it did not expect can fail its allocations. Read per buffer, so
 * it may change at any time. -EOPNOTSUPP where the kernel does not export
 * the charging (CMABUF_CAN_CHARGE_MEMCG).
 */
static bool mem_accounting;

static int mem_accounting_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret;

	ret = kstrtobool(val, &on);
	if (ret)
		return ret;
	if (on && !CMABUF_CAN_CHARGE_MEMCG)
		return -EOPNOTSUPP;
	WRITE_ONCE(mem_accounting, on);
	return 0;
}

static const struct kernel_param_ops mem_accounting_ops = {
	.set = mem_accounting_set,
	.get = param_get_bool,
};
module_param_cb(mem_accounting, &mem_accounting_ops, &mem_accounting, 0644);
MODULE_PARM_DESC(mem_accounting,
		 "Charge each buffer, and each prepare's buffers, to the memory cgroup of the process that allocates or prepares them (default: off)");

/* Count @t, whose last try ended in @ret. */
static void cmabuf_pages_count(struct cmabuf_dev *cdev,
			       const struct cmabuf_plan *plan,
			       const struct cmabuf_tries *t, int ret)
{
	if (t->retries)
		cmabuf_stats_retry(cdev, t->last, t->retries);
	if (t->fell)
		cmabuf_stats_fail(cdev, plan->strategy);
	if (ret == -EINTR)
		cmabuf_stats_interrupted(cdev, t->last);
	else if (ret)
		cmabuf_stats_fail(cdev, t->last);
}

/* An allocation asked for now (cmabuf_pool_alloc_plan()), counted once. */
static int cmabuf_pages_alloc_now(struct cmabuf_dev *cdev,
				  const struct cmabuf_plan *plan,
				  struct cmabuf_range *range)
{
	struct cmabuf_tries t;
	int ret;

	ret = cmabuf_pool_alloc_plan(cdev, plan, &t, range);
	cmabuf_pages_count(cdev, plan, &t, ret);
	return ret;
}

/*
 * A ready buffer that fits @plan, else new pages, cleared: no page is left
 * allocated when this fails.
 */
static int cmabuf_pages_take_or_make(struct cmabuf_dev *cdev,
				     const struct cmabuf_plan *plan,
				     u32 strategy, unsigned int align_order,
				     const void *owner,
				     struct cmabuf_range *range)
{
	int ret;

	if (cmabuf_pool_take(cdev, plan, strategy, align_order, owner,
			     range)) {
		cmabuf_stats_hit(cdev, range->strategy);
		return 0;
	}

	ret = cmabuf_pages_alloc_now(cdev, plan, range);
	if (ret)
		return ret;

	ret = cmabuf_range_zero(range);
	if (ret) {
		cmabuf_stats_interrupted(cdev, range->strategy);
		cmabuf_range_release(cdev, range);
	}
	return ret;
}

/**
 * cmabuf_charge_get() - to whom the calling task's bytes are charged
 * @cdev: the instance; the caller holds a reference.
 * @privileged: the caller has CAP_SYS_ADMIN (cmabuf_caller_privileged()):
 *	its bytes are not held to the cap on each user's.
 * @c: out: the caller's user (without @privileged) and memory cgroup
 *	(with mem_accounting on), each holding a reference; nothing charged.
 *
 * Return: 0 or -ENOMEM.
 */
int cmabuf_charge_get(struct cmabuf_dev *cdev, bool privileged,
		      struct cmabuf_charge *c)
{
	c->user = NULL;
	c->objcg = NULL;
	if (!privileged) {
		c->user = cmabuf_user_get(cdev);
		if (IS_ERR(c->user)) {
			c->user = NULL;
			return -ENOMEM;
		}
	}
	if (READ_ONCE(mem_accounting))
		c->objcg = cmabuf_memcg_get();
	return 0;
}

/**
 * cmabuf_charge_put() - drop the references of cmabuf_charge_get()
 * @c: what it set; cleared.
 */
void cmabuf_charge_put(struct cmabuf_charge *c)
{
	if (c->user)
		cmabuf_user_put(c->user);
	cmabuf_memcg_put(c->objcg);
	c->user = NULL;
	c->objcg = NULL;
}

/* Do @a and @b charge the same user and memory cgroup? */
bool cmabuf_charge_same(const struct cmabuf_charge *a,
			const struct cmabuf_charge *b)
{
	return a->user == b->user && a->objcg == b->objcg;
}

/**
 * cmabuf_charge_add() - charge bytes, before anything is allocated for them
 * @cdev: the instance.
 * @c: from cmabuf_charge_get().
 * @bytes: what to charge.
 *
 * May sleep (the memory cgroup may reclaim).
 *
 * Return: 0; -EDQUOT past the cap on the user's bytes
 * (unprivileged_max_bytes); -ENOBUFS past the memory cgroup's memory.max.
 * Nothing is charged on failure.
 */
int cmabuf_charge_add(struct cmabuf_dev *cdev, const struct cmabuf_charge *c,
		      u64 bytes)
{
	int ret;

	if (c->user) {
		ret = cmabuf_stats_charge(cdev, c->user, bytes);
		if (ret)
			return ret;
	}
	ret = cmabuf_memcg_charge(c->objcg, bytes);
	if (ret && c->user)
		cmabuf_stats_uncharge(cdev, c->user, bytes);
	return ret;
}

/**
 * cmabuf_charge_sub() - take back bytes of cmabuf_charge_add()
 * @cdev: the instance.
 * @c: as charged.
 * @bytes: what to take back.
 *
 * Does not sleep: called under the pool's lock when a want is dropped.
 */
void cmabuf_charge_sub(struct cmabuf_dev *cdev, const struct cmabuf_charge *c,
		       u64 bytes)
{
	cmabuf_memcg_uncharge(c->objcg, bytes);
	if (c->user)
		cmabuf_stats_uncharge(cdev, c->user, bytes);
}

/**
 * cmabuf_pages_get() - the cleared pages of a new buffer
 * @cdev: the instance; the caller holds a reference.
 * @size: bytes asked for.
 * @align: log2 of the alignment in bytes, 0 for the driver's choice.
 * @strategy: a %CMABUF_STRATEGY_* value.
 * @owner: the file asking, whose prepared buffers are looked at first, or
 *	NULL.
 * @privileged: the caller has CAP_SYS_ADMIN (cmabuf_caller_privileged()):
 *	its buffer is not held to the instance's cap on each user's.
 * @range: out: the pages, every byte zero, the strategy used, and the
 *	charges the buffer carries.
 *
 * A caller without CAP_SYS_ADMIN is charged the buffer's bytes, as its
 * user's (uid), before any page is moved, so that a buffer past the cap
 * costs nothing; a prepared buffer it takes is charged too, since it
 * becomes a live one. So is the caller's memory cgroup, whoever the
 * caller, with mem_accounting on. A prepared buffer that fits is taken as
 * it is (cmabuf_pool_take()). The buffer is not counted yet: its owner
 * calls cmabuf_pages_commit() once it is handed out, or
 * cmabuf_pages_abandon() if that fails.
 *
 * Return: 0; -EINVAL or -EOPNOTSUPP for a request cmabuf_plan_make()
 * refuses; -EDQUOT when the caller is held to the instance's cap
 * (unprivileged_max_bytes) and the buffer would take its user past it;
 * -ENOBUFS when it would take the caller's memory cgroup past its limit
 * (mem_accounting); -ENOMEM or -EBUSY when no range could be had (see
 * cmabuf_range_alloc(); -EBUSY only after the retries, and neither while
 * freed memory is still on its way back); -EINTR when a fatal signal
 * stopped the allocation or the clearing; -ENOMEM without memory for the
 * user's count.
 */
int cmabuf_pages_get(struct cmabuf_dev *cdev, u64 size, u32 align,
		     u32 strategy, const void *owner, bool privileged,
		     struct cmabuf_range *range)
{
	struct cmabuf_charge c;
	unsigned int align_order;
	struct cmabuf_limits lim;
	struct cmabuf_plan plan;
	u64 bytes;
	int ret;

	cmabuf_dev_limits(cdev, &lim);
	ret = cmabuf_plan_make(&lim, size, align, strategy, &plan);
	if (ret)
		return ret;
	bytes = (u64)plan.pages << PAGE_SHIFT;
	ret = cmabuf_charge_get(cdev, privileged, &c);
	if (ret)
		return ret;
	ret = cmabuf_charge_add(cdev, &c, bytes);
	if (ret)
		goto put_charge;

	/* Valid now: cmabuf_plan_make() checked it. */
	cmabuf_align_to_order(align, &align_order);
	ret = cmabuf_pages_take_or_make(cdev, &plan, strategy, align_order,
					owner, range);
	if (ret)
		goto uncharge;
	/* The references go with the buffer, to cmabuf_pages_uncharge(). */
	range->charge = c;
	return 0;

uncharge:
	cmabuf_charge_sub(cdev, &c, bytes);
put_charge:
	cmabuf_charge_put(&c);
	return ret;
}

/* Take back what cmabuf_pages_get() charged for @range. */
static void cmabuf_pages_uncharge(struct cmabuf_dev *cdev,
				  const struct cmabuf_range *range)
{
	struct cmabuf_charge c = range->charge;

	cmabuf_charge_sub(cdev, &c, (u64)range->count << PAGE_SHIFT);
	cmabuf_charge_put(&c);
}

/**
 * cmabuf_pages_commit() - count a buffer handed out
 * @cdev: its instance.
 * @range: its pages, from cmabuf_pages_get().
 */
void cmabuf_pages_commit(struct cmabuf_dev *cdev,
			 const struct cmabuf_range *range)
{
	cmabuf_stats_alloc(cdev, range->strategy, range->count << PAGE_SHIFT);
}

/**
 * cmabuf_pages_abandon() - release the pages of a buffer never handed out
 * @cdev: its instance.
 * @range: its pages, from cmabuf_pages_get(), not committed.
 *
 * Counted as a failure of the strategy that allocated them; their charges
 * are taken back.
 */
void cmabuf_pages_abandon(struct cmabuf_dev *cdev,
			  const struct cmabuf_range *range)
{
	cmabuf_stats_fail(cdev, range->strategy);
	cmabuf_pages_uncharge(cdev, range);
	cmabuf_range_release(cdev, range);
}

/**
 * cmabuf_pages_put() - release the pages of a buffer that was handed out
 * @cdev: its instance.
 * @range: its pages, committed.
 *
 * The buffer counts as freed at once, and its charges are taken back with
 * it: like the live counters, the cap and the memory cgroup's charge are
 * about the buffers callers hold, and an allocation that needs the pages
 * still on their way back waits for them. The pages go back in the background
 * (cmabuf_pool_put()), or right here after an unbind: @cdev, which the
 * buffer held, is alive either way.
 */
void cmabuf_pages_put(struct cmabuf_dev *cdev, const struct cmabuf_range *range)
{
	cmabuf_stats_free(cdev, range->strategy, range->count << PAGE_SHIFT);
	cmabuf_pages_uncharge(cdev, range);
	cmabuf_pool_put(cdev, range);
}
