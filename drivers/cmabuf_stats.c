// SPDX-License-Identifier: GPL-2.0
/*
 * cmabuf: per-instance sysfs files, world-readable so that anyone can see
 * what an instance is and holds without opening its device node
 * (Documentation/ABI/testing/sysfs-class-misc-cmabuf):
 *
 *   /sys/class/misc/<name>/area                       the CMA area's name
 *
 * and the counters:
 *
 *   /sys/class/misc/<name>/stats/<counter>            all strategies
 *   /sys/class/misc/<name>/stats_compound/<counter>   COMPOUND only
 *   /sys/class/misc/<name>/stats_frozen/<counter>     FROZEN only
 *   /sys/class/misc/<name>/stats_legacy/<counter>     LEGACY only
 *
 * where <name> is cmabuf, cmabuf-<label> or cmabuf-<n>, and <counter> is
 * one of
 *
 *   allocations    buffers handed out (ioctl and dma-heap)
 *   frees          buffers released
 *   failures       allocator calls that found no memory, and buffers
 *                  abandoned after allocation (killed while zeroing, export
 *                  failure); an AUTO fallback counts one COMPOUND failure
 *   live_buffers   buffers alive now
 *   live_bytes     bytes of the buffers alive now
 *
 * CMABUF_IOC_BENCH is not counted: it hands nothing out. The files vanish
 * when the instance is unbound; its buffers are still counted until freed,
 * which is when the instance itself goes away.
 */

#define pr_fmt(fmt) "cmabuf: " fmt

#include <linux/atomic.h>
#include <linux/cma.h>
#include <linux/device.h>
#include <linux/miscdevice.h>
#include <linux/stddef.h>
#include <linux/sysfs.h>
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

#define CMABUF_STAT(_counter, _strategy) {				\
	.attr = {							\
		.attr = { .name = #_counter, .mode = 0444 },		\
		.show = cmabuf_stat_show,				\
	},								\
	.strategy = _strategy,						\
	.offset = offsetof(struct cmabuf_counters, _counter),		\
}

static struct cmabuf_stat_attr cmabuf_stat_all[] = {
	CMABUF_STAT(allocations, CMABUF_STRATEGY_COUNT),
	CMABUF_STAT(frees, CMABUF_STRATEGY_COUNT),
	CMABUF_STAT(failures, CMABUF_STRATEGY_COUNT),
	CMABUF_STAT(live_buffers, CMABUF_STRATEGY_COUNT),
	CMABUF_STAT(live_bytes, CMABUF_STRATEGY_COUNT),
};

static struct cmabuf_stat_attr cmabuf_stat_compound[] = {
	CMABUF_STAT(allocations, CMABUF_STRATEGY_COMPOUND),
	CMABUF_STAT(frees, CMABUF_STRATEGY_COMPOUND),
	CMABUF_STAT(failures, CMABUF_STRATEGY_COMPOUND),
	CMABUF_STAT(live_buffers, CMABUF_STRATEGY_COMPOUND),
	CMABUF_STAT(live_bytes, CMABUF_STRATEGY_COMPOUND),
};

static struct cmabuf_stat_attr cmabuf_stat_frozen[] = {
	CMABUF_STAT(allocations, CMABUF_STRATEGY_FROZEN),
	CMABUF_STAT(frees, CMABUF_STRATEGY_FROZEN),
	CMABUF_STAT(failures, CMABUF_STRATEGY_FROZEN),
	CMABUF_STAT(live_buffers, CMABUF_STRATEGY_FROZEN),
	CMABUF_STAT(live_bytes, CMABUF_STRATEGY_FROZEN),
};

static struct cmabuf_stat_attr cmabuf_stat_legacy[] = {
	CMABUF_STAT(allocations, CMABUF_STRATEGY_LEGACY),
	CMABUF_STAT(frees, CMABUF_STRATEGY_LEGACY),
	CMABUF_STAT(failures, CMABUF_STRATEGY_LEGACY),
	CMABUF_STAT(live_buffers, CMABUF_STRATEGY_LEGACY),
	CMABUF_STAT(live_bytes, CMABUF_STRATEGY_LEGACY),
};

static struct attribute *cmabuf_stat_all_attrs[] = {
	&cmabuf_stat_all[0].attr.attr,
	&cmabuf_stat_all[1].attr.attr,
	&cmabuf_stat_all[2].attr.attr,
	&cmabuf_stat_all[3].attr.attr,
	&cmabuf_stat_all[4].attr.attr,
	NULL,
};

static struct attribute *cmabuf_stat_compound_attrs[] = {
	&cmabuf_stat_compound[0].attr.attr,
	&cmabuf_stat_compound[1].attr.attr,
	&cmabuf_stat_compound[2].attr.attr,
	&cmabuf_stat_compound[3].attr.attr,
	&cmabuf_stat_compound[4].attr.attr,
	NULL,
};

static struct attribute *cmabuf_stat_frozen_attrs[] = {
	&cmabuf_stat_frozen[0].attr.attr,
	&cmabuf_stat_frozen[1].attr.attr,
	&cmabuf_stat_frozen[2].attr.attr,
	&cmabuf_stat_frozen[3].attr.attr,
	&cmabuf_stat_frozen[4].attr.attr,
	NULL,
};

static struct attribute *cmabuf_stat_legacy_attrs[] = {
	&cmabuf_stat_legacy[0].attr.attr,
	&cmabuf_stat_legacy[1].attr.attr,
	&cmabuf_stat_legacy[2].attr.attr,
	&cmabuf_stat_legacy[3].attr.attr,
	&cmabuf_stat_legacy[4].attr.attr,
	NULL,
};

static const struct attribute_group cmabuf_stat_all_group = {
	.name = "stats",
	.attrs = cmabuf_stat_all_attrs,
};

static const struct attribute_group cmabuf_stat_compound_group = {
	.name = "stats_compound",
	.attrs = cmabuf_stat_compound_attrs,
};

static const struct attribute_group cmabuf_stat_frozen_group = {
	.name = "stats_frozen",
	.attrs = cmabuf_stat_frozen_attrs,
};

static const struct attribute_group cmabuf_stat_legacy_group = {
	.name = "stats_legacy",
	.attrs = cmabuf_stat_legacy_attrs,
};

static ssize_t area_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct miscdevice *misc = dev_get_drvdata(dev);
	struct cmabuf_dev *cdev = container_of(misc, struct cmabuf_dev, misc);

	return sysfs_emit(buf, "%s\n", cma_get_name(cdev->cma));
}
static DEVICE_ATTR_RO(area);

static struct attribute *cmabuf_dev_attrs[] = {
	&dev_attr_area.attr,
	NULL,
};

static const struct attribute_group cmabuf_dev_group = {
	.attrs = cmabuf_dev_attrs,
};

const struct attribute_group *cmabuf_stats_groups[] = {
	&cmabuf_dev_group,
	&cmabuf_stat_all_group,
	&cmabuf_stat_compound_group,
	&cmabuf_stat_frozen_group,
	&cmabuf_stat_legacy_group,
	NULL,
};

static struct cmabuf_counters *cmabuf_counters(struct cmabuf_dev *cdev,
					       u32 strategy)
{
	if (WARN_ON_ONCE(strategy >= CMABUF_STRATEGY_COUNT))
		strategy = CMABUF_STRATEGY_AUTO;
	return &cdev->counters[strategy];
}

/* A buffer of @bytes came to life. */
void cmabuf_stats_alloc(struct cmabuf_dev *cdev, u32 strategy, u64 bytes)
{
	struct cmabuf_counters *c = cmabuf_counters(cdev, strategy);

	atomic64_inc(&c->allocations);
	atomic64_inc(&c->live_buffers);
	atomic64_add(bytes, &c->live_bytes);
}

/* A buffer of @bytes was released. */
void cmabuf_stats_free(struct cmabuf_dev *cdev, u32 strategy, u64 bytes)
{
	struct cmabuf_counters *c = cmabuf_counters(cdev, strategy);

	atomic64_inc(&c->frees);
	atomic64_dec(&c->live_buffers);
	atomic64_sub(bytes, &c->live_bytes);
}

/* @strategy found no memory, or its buffer was abandoned. */
void cmabuf_stats_fail(struct cmabuf_dev *cdev, u32 strategy)
{
	atomic64_inc(&cmabuf_counters(cdev, strategy)->failures);
}

/* Live buffers and bytes of the instance, all strategies. */
void cmabuf_stats_live(struct cmabuf_dev *cdev, u64 *buffers, u64 *bytes)
{
	*buffers = cmabuf_stat_read(cdev, CMABUF_STRATEGY_COUNT,
				    offsetof(struct cmabuf_counters,
					     live_buffers));
	*bytes = cmabuf_stat_read(cdev, CMABUF_STRATEGY_COUNT,
				  offsetof(struct cmabuf_counters, live_bytes));
}
EXPORT_SYMBOL_IF_KUNIT(cmabuf_stats_live);
