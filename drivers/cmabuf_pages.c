// SPDX-License-Identifier: GPL-2.0
/* cmabuf: a buffer's pages, charged, allocated, cleared and counted here */

#define pr_fmt(fmt) "cmabuf: " fmt

#include <linux/mm.h>
#include <linux/moduleparam.h>

#include "cmabuf.h"

/* Off by default, as dma_heap.mem_accounting: a service may not expect it. */
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

/* References the caller's user (none if @privileged) and memory cgroup. */
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

void cmabuf_charge_put(struct cmabuf_charge *c)
{
	if (c->user)
		cmabuf_user_put(c->user);
	cmabuf_memcg_put(c->objcg);
	c->user = NULL;
	c->objcg = NULL;
}

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
 * Context: may sleep (the memory cgroup may reclaim).
 * Return: 0; -EDQUOT past the user's cap, -ENOBUFS past memory.max.
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

/* Does not sleep: called under the pool's lock. */
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
 * @owner: the file whose prepared buffers are looked at first, or NULL.
 * @privileged: the caller has CAP_SYS_ADMIN: not held to the user's cap.
 * @range: out: the pages, every byte zero, and the charges they carry.
 *
 * Charged before any page moves. Followed by cmabuf_pages_commit() once the
 * buffer is handed out, or cmabuf_pages_abandon().
 * Return: 0 or a negative errno, as for CMABUF_IOC_ALLOC.
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

	cmabuf_align_to_order(align, &align_order);
	ret = cmabuf_pages_take_or_make(cdev, &plan, strategy, align_order,
					owner, range);
	if (ret)
		goto uncharge;
	range->charge = c;
	return 0;

uncharge:
	cmabuf_charge_sub(cdev, &c, bytes);
put_charge:
	cmabuf_charge_put(&c);
	return ret;
}

static void cmabuf_pages_uncharge(struct cmabuf_dev *cdev,
				  const struct cmabuf_range *range)
{
	struct cmabuf_charge c = range->charge;

	cmabuf_charge_sub(cdev, &c, (u64)range->count << PAGE_SHIFT);
	cmabuf_charge_put(&c);
}

void cmabuf_pages_commit(struct cmabuf_dev *cdev,
			 const struct cmabuf_range *range)
{
	cmabuf_stats_alloc(cdev, range->strategy, range->count << PAGE_SHIFT);
}

void cmabuf_pages_abandon(struct cmabuf_dev *cdev,
			  const struct cmabuf_range *range)
{
	cmabuf_stats_fail(cdev, range->strategy);
	cmabuf_pages_uncharge(cdev, range);
	cmabuf_range_release(cdev, range);
}

/* Uncharged at once: the cap is about buffers callers hold. */
void cmabuf_pages_put(struct cmabuf_dev *cdev, const struct cmabuf_range *range)
{
	cmabuf_stats_free(cdev, range->strategy, range->count << PAGE_SHIFT);
	cmabuf_pages_uncharge(cdev, range);
	cmabuf_pool_put(cdev, range);
}
