// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf: per-instance counters and their sysfs files, world-readable; only
 * root writes the cap (Documentation/ABI/testing/sysfs-class-misc-cmabuf).
 */

#define pr_fmt(fmt) "cmabuf: " fmt

#include <linux/atomic.h>
#include <linux/cma.h>
#include <linux/cred.h>
#include <linux/device.h>
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/kstrtox.h>
#include <linux/miscdevice.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/stddef.h>
#include <linux/sysfs.h>
#include <linux/uidgid.h>
#include <kunit/visibility.h>

#include "cmabuf.h"

/**
 * struct cmabuf_stat_attr - one counter file
 * @attr: the sysfs attribute.
 * @strategy: the strategy it reads, or %CMABUF_STRATEGY_COUNT for the sum.
 * @offset: offset of the counter in &struct cmabuf_counters.
 */
struct cmabuf_stat_attr {
	struct device_attribute attr;
	u32 strategy;
	size_t offset;
};

static u64 cmabuf_stat_read(struct cmabuf_dev *cdev, u32 strategy,
			    size_t offset)
{
	u64 sum = 0;
	u32 s;

	for (s = 0; s < CMABUF_STRATEGY_COUNT; s++) {
		atomic64_t *counter = (void *)&cdev->counters[s] + offset;

		if (strategy == CMABUF_STRATEGY_COUNT || strategy == s)
			sum += atomic64_read(counter);
	}
	return sum;
}

static ssize_t cmabuf_stat_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct miscdevice *misc = dev_get_drvdata(dev);
	struct cmabuf_dev *cdev = container_of(misc, struct cmabuf_dev, misc);
	struct cmabuf_stat_attr *sa;

	sa = container_of(attr, struct cmabuf_stat_attr, attr);
	return sysfs_emit(buf, "%llu\n",
			  cmabuf_stat_read(cdev, sa->strategy, sa->offset));
}

static ssize_t dma_bits_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	struct miscdevice *misc = dev_get_drvdata(dev);
	struct cmabuf_dev *cdev = container_of(misc, struct cmabuf_dev, misc);

	return sysfs_emit(buf, "%u\n", cmabuf_dma_bits(cdev->area_end));
}
static DEVICE_ATTR_RO(dma_bits);

static const struct {
	const char *name;
	size_t offset;
} cmabuf_stat_files[] = {
	{ "allocations", offsetof(struct cmabuf_counters, allocations) },
	{ "frees", offsetof(struct cmabuf_counters, frees) },
	{ "failures", offsetof(struct cmabuf_counters, failures) },
	{ "interrupted", offsetof(struct cmabuf_counters, interrupted) },
	{ "busy_retries", offsetof(struct cmabuf_counters, busy_retries) },
	{ "prepared", offsetof(struct cmabuf_counters, prepared) },
	{ "prepare_hits", offsetof(struct cmabuf_counters, prepare_hits) },
	{ "live_buffers", offsetof(struct cmabuf_counters, live_buffers) },
	{ "live_bytes", offsetof(struct cmabuf_counters, live_bytes) },
	{ "unreachable_maps", offsetof(struct cmabuf_counters,
					unreachable_maps) },
};

#define CMABUF_STAT_FILES	ARRAY_SIZE(cmabuf_stat_files)
static_assert(CMABUF_STAT_FILES ==
	      sizeof(struct cmabuf_counters) / sizeof(atomic64_t));

/* The directories, and the strategy each sums (COUNT: all of them). */
static const struct {
	const char *name;
	u32 strategy;
} cmabuf_stat_dirs[] = {
	{ "stats", CMABUF_STRATEGY_COUNT },
	{ "stats_compound", CMABUF_STRATEGY_COMPOUND },
	{ "stats_frozen", CMABUF_STRATEGY_FROZEN },
	{ "stats_legacy", CMABUF_STRATEGY_LEGACY },
	{ "stats_dma", CMABUF_STRATEGY_DMA },
};

static_assert(ARRAY_SIZE(cmabuf_stat_dirs) == CMABUF_STAT_DIRS);

static struct cmabuf_stat_attr cmabuf_stat_attrs[CMABUF_STAT_DIRS][CMABUF_STAT_FILES];
static struct attribute *cmabuf_stat_ptrs[CMABUF_STAT_DIRS][CMABUF_STAT_FILES + 1];
struct attribute_group cmabuf_stat_groups[CMABUF_STAT_DIRS];

static struct cmabuf_dev *cmabuf_stats_dev(struct device *dev)
{
	struct miscdevice *misc = dev_get_drvdata(dev);

	return container_of(misc, struct cmabuf_dev, misc);
}

static ssize_t area_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n", cmabuf_stats_dev(dev)->area_name);
}
static DEVICE_ATTR_RO(area);

static struct attribute *cmabuf_area_attrs[] = {
	&dev_attr_dma_bits.attr,
	&dev_attr_area.attr,
	NULL,
};

const struct attribute_group cmabuf_area_group = {
	.attrs = cmabuf_area_attrs,
};

static ssize_t unprivileged_bytes_show(struct device *dev,
				       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lld\n",
			  atomic64_read(&cmabuf_stats_dev(dev)->unprivileged_bytes));
}
static DEVICE_ATTR_RO(unprivileged_bytes);

ssize_t cmabuf_stats_limit_show(const u64 *limit, char *buf)
{
	return sysfs_emit(buf, "%llu\n", READ_ONCE(*limit));
}

/* Return: @len; -EINVAL or -ERANGE, @limit unchanged. */
ssize_t cmabuf_stats_limit_store(u64 *limit, const char *buf, size_t len)
{
	u64 v;
	int ret;

	ret = kstrtou64(buf, 0, &v);
	if (ret)
		return ret;
	WRITE_ONCE(*limit, v);
	return len;
}

static ssize_t unprivileged_max_bytes_show(struct device *dev,
					   struct device_attribute *attr,
					   char *buf)
{
	return cmabuf_stats_limit_show(&cmabuf_stats_dev(dev)->unprivileged_max_bytes,
				       buf);
}

/* A cap below what is held refuses new buffers and takes back none. */
static ssize_t unprivileged_max_bytes_store(struct device *dev,
					    struct device_attribute *attr,
					    const char *buf, size_t len)
{
	return cmabuf_stats_limit_store(&cmabuf_stats_dev(dev)->unprivileged_max_bytes,
					buf, len);
}
static DEVICE_ATTR_RW(unprivileged_max_bytes);

static struct attribute *cmabuf_cap_attrs[] = {
	&dev_attr_unprivileged_bytes.attr,
	&dev_attr_unprivileged_max_bytes.attr,
	NULL,
};

const struct attribute_group cmabuf_cap_group = {
	.attrs = cmabuf_cap_attrs,
};

/* Before the first instance registers. */
void cmabuf_stats_init(void)
{
	struct cmabuf_stat_attr *sa;
	unsigned int d, f;

	for (d = 0; d < CMABUF_STAT_DIRS; d++) {
		for (f = 0; f < CMABUF_STAT_FILES; f++) {
			sa = &cmabuf_stat_attrs[d][f];
			sysfs_attr_init(&sa->attr.attr);
			sa->attr.attr.name = cmabuf_stat_files[f].name;
			sa->attr.attr.mode = 0444;
			sa->attr.show = cmabuf_stat_show;
			sa->strategy = cmabuf_stat_dirs[d].strategy;
			sa->offset = cmabuf_stat_files[f].offset;
			cmabuf_stat_ptrs[d][f] = &sa->attr.attr;
		}
		cmabuf_stat_groups[d].name = cmabuf_stat_dirs[d].name;
		cmabuf_stat_groups[d].attrs = cmabuf_stat_ptrs[d];
	}
}

static struct cmabuf_counters *cmabuf_counters(struct cmabuf_dev *cdev,
					       u32 strategy)
{
	if (WARN_ON_ONCE(strategy >= CMABUF_STRATEGY_COUNT))
		strategy = CMABUF_STRATEGY_AUTO;
	return &cdev->counters[strategy];
}

void cmabuf_stats_alloc(struct cmabuf_dev *cdev, u32 strategy, u64 bytes)
{
	struct cmabuf_counters *c = cmabuf_counters(cdev, strategy);

	atomic64_inc(&c->allocations);
	atomic64_inc(&c->live_buffers);
	atomic64_add(bytes, &c->live_bytes);
}

void cmabuf_stats_free(struct cmabuf_dev *cdev, u32 strategy, u64 bytes)
{
	struct cmabuf_counters *c = cmabuf_counters(cdev, strategy);

	atomic64_inc(&c->frees);
	atomic64_dec(&c->live_buffers);
	atomic64_sub(bytes, &c->live_bytes);
}

/* @strategy found no range, or its buffer was abandoned. */
void cmabuf_stats_fail(struct cmabuf_dev *cdev, u32 strategy)
{
	atomic64_inc(&cmabuf_counters(cdev, strategy)->failures);
}

void cmabuf_stats_interrupted(struct cmabuf_dev *cdev, u32 strategy)
{
	atomic64_inc(&cmabuf_counters(cdev, strategy)->interrupted);
}

void cmabuf_stats_retry(struct cmabuf_dev *cdev, u32 strategy, unsigned int n)
{
	atomic64_add(n, &cmabuf_counters(cdev, strategy)->busy_retries);
}

void cmabuf_stats_prepared(struct cmabuf_dev *cdev, u32 strategy)
{
	atomic64_inc(&cmabuf_counters(cdev, strategy)->prepared);
}

void cmabuf_stats_hit(struct cmabuf_dev *cdev, u32 strategy)
{
	atomic64_inc(&cmabuf_counters(cdev, strategy)->prepare_hits);
}

void cmabuf_stats_unreachable(struct cmabuf_dev *cdev, u32 strategy)
{
	atomic64_inc(&cmabuf_counters(cdev, strategy)->unreachable_maps);
}

void cmabuf_stats_live(struct cmabuf_dev *cdev, u64 *buffers, u64 *bytes)
{
	*buffers = cmabuf_stat_read(cdev, CMABUF_STRATEGY_COUNT,
				    offsetof(struct cmabuf_counters,
					     live_buffers));
	*bytes = cmabuf_stat_read(cdev, CMABUF_STRATEGY_COUNT,
				  offsetof(struct cmabuf_counters, live_bytes));
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_stats_live);

/*
 * Checked and added in one step: adding first and subtracting on failure
 * would fail a charge that fits for another that did not. A cap lowered
 * below @held refuses every charge but takes nothing back; 0: no cap.
 * Return: false, @held unchanged, past @cap.
 */
VISIBLE_IF_KUNIT bool cmabuf_charge(atomic64_t *held, u64 cap, u64 bytes)
{
	s64 old = atomic64_read(held);

	do {
		if (cap && ((u64)old > cap || bytes > cap - (u64)old))
			return false;
	} while (!atomic64_try_cmpxchg(held, &old, old + bytes));
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_charge);

/**
 * struct cmabuf_user - what one unprivileged user holds on an instance
 * @node: entry in cmabuf_users. Protected by cmabuf_users_lock.
 * @cdev: the instance (a key only: every reference comes with one on it).
 * @uid: the real uid of the callers charged, as RLIMIT_MEMLOCK counts.
 * @ref: a reference per charged buffer and want, one per lookup in
 *	progress. Dropped to 0 under cmabuf_users_lock only.
 * @bytes: bytes of its live buffers and wants, held to the instance's cap.
 */
struct cmabuf_user {
	struct hlist_node node;
	const struct cmabuf_dev *cdev;
	kuid_t uid;
	refcount_t ref;
	atomic64_t bytes;
};

static DEFINE_HASHTABLE(cmabuf_users, 6);
static DEFINE_SPINLOCK(cmabuf_users_lock);

static u32 cmabuf_user_hash(const struct cmabuf_dev *cdev, kuid_t uid)
{
	return hash_ptr(cdev, 32) ^ hash_32(__kuid_val(uid), 32);
}

static struct cmabuf_user *cmabuf_user_find(const struct cmabuf_dev *cdev,
					    kuid_t uid, u32 key)
{
	struct cmabuf_user *user;

	lockdep_assert_held(&cmabuf_users_lock);
	hash_for_each_possible(cmabuf_users, user, node, key) {
		if (user->cdev == cdev && uid_eq(user->uid, uid) &&
		    refcount_inc_not_zero(&user->ref))
			return user;
	}
	return NULL;
}

/* Return: the user, referenced; ERR_PTR(-ENOMEM). */
struct cmabuf_user *cmabuf_user_get(struct cmabuf_dev *cdev)
{
	kuid_t uid = current_uid();
	u32 key = cmabuf_user_hash(cdev, uid);
	struct cmabuf_user *user, *fresh;

	spin_lock(&cmabuf_users_lock);
	user = cmabuf_user_find(cdev, uid, key);
	spin_unlock(&cmabuf_users_lock);
	if (user)
		return user;

	fresh = kzalloc_obj(*fresh);
	if (!fresh)
		return ERR_PTR(-ENOMEM);
	fresh->cdev = cdev;
	fresh->uid = uid;
	refcount_set(&fresh->ref, 1);
	atomic64_set(&fresh->bytes, 0);

	spin_lock(&cmabuf_users_lock);
	user = cmabuf_user_find(cdev, uid, key);
	if (!user) {
		hash_add(cmabuf_users, &fresh->node, key);
		user = fresh;
		fresh = NULL;
	}
	spin_unlock(&cmabuf_users_lock);
	kfree(fresh);
	return user;
}

/* Freed with its last reference, when it holds nothing. */
void cmabuf_user_put(struct cmabuf_user *user)
{
	/* refcount_dec_and_lock() open-coded: 6.12's lacks sparse's annotation. */
	if (refcount_dec_not_one(&user->ref))
		return;
	spin_lock(&cmabuf_users_lock);
	if (!refcount_dec_and_test(&user->ref)) {
		spin_unlock(&cmabuf_users_lock);
		return;
	}
	hash_del(&user->node);
	spin_unlock(&cmabuf_users_lock);
	WARN_ON_ONCE(atomic64_read(&user->bytes));
	kfree(user);
}

/* Return: 0, or -EDQUOT past the cap (nothing added then). */
int cmabuf_stats_charge(struct cmabuf_dev *cdev, struct cmabuf_user *user,
			u64 bytes)
{
	if (!cmabuf_charge(&user->bytes,
			   READ_ONCE(cdev->unprivileged_max_bytes), bytes))
		return -EDQUOT;
	atomic64_add(bytes, &cdev->unprivileged_bytes);
	return 0;
}

void cmabuf_stats_uncharge(struct cmabuf_dev *cdev, struct cmabuf_user *user,
			   u64 bytes)
{
	WARN_ON_ONCE(atomic64_sub_return(bytes, &user->bytes) < 0);
	WARN_ON_ONCE(atomic64_sub_return(bytes, &cdev->unprivileged_bytes) < 0);
}
