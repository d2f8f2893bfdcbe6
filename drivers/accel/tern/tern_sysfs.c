// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 */

#include <linux/device.h>
#include <linux/pci.h>
#include <linux/sysfs.h>

#include <drm/drm_drv.h>

#include "tern_device.h"
#include "tern_sysfs.h"
#include "tern_ttm.h"

/**
 * DOC: sysfs
 *
 * Whole-device figures any user may read, as attributes of the PCI device
 * (/sys/class/accel/accelN/device/tern_*), in the manner of ivpu's npu_*
 * files; docs/abi/sysfs-driver-tern describes each one.  Per-engine files
 * hold one value per engine, in engine order, separated by spaces.
 *
 * The attributes are the driver's dev_groups: the driver core creates them
 * after probe and removes them before remove, so a read never finds the
 * registers unmapped; drm_dev_enter() guards the reads all the same.
 */

static struct tern_device *to_tdev(struct device *dev)
{
	return pci_get_drvdata(to_pci_dev(dev));
}

/* Device time each engine spent running slots, ns; false if it is gone. */
static bool tern_sysfs_busy(struct tern_device *tdev, u64 *busy)
{
	unsigned int i;
	int idx;

	if (!drm_dev_enter(&tdev->drm, &idx))
		return false;
	for (i = 0; i < tdev->engine_count; i++)
		busy[i] = tern_engine_busy_ns(&tdev->engines[i]);
	drm_dev_exit(idx);
	return true;
}

static ssize_t tern_busy_time_us_show(struct device *dev,
				      struct device_attribute *attr, char *buf)
{
	struct tern_device *tdev = to_tdev(dev);
	u64 busy[TERN_MAX_ENGINES], sum = 0;
	unsigned int i;

	if (!tern_sysfs_busy(tdev, busy))
		return -ENODEV;
	for (i = 0; i < tdev->engine_count; i++)
		sum += busy[i];
	return sysfs_emit(buf, "%llu\n", div_u64(sum, NSEC_PER_USEC));
}
static DEVICE_ATTR_RO(tern_busy_time_us);

static ssize_t tern_engine_busy_time_us_show(struct device *dev,
					     struct device_attribute *attr,
					     char *buf)
{
	struct tern_device *tdev = to_tdev(dev);
	u64 busy[TERN_MAX_ENGINES];
	unsigned int i;
	int len = 0;

	if (!tern_sysfs_busy(tdev, busy))
		return -ENODEV;
	for (i = 0; i < tdev->engine_count; i++)
		len += sysfs_emit_at(buf, len, "%s%llu", i ? " " : "",
				     div_u64(busy[i], NSEC_PER_USEC));
	return len + sysfs_emit_at(buf, len, "\n");
}
static DEVICE_ATTR_RO(tern_engine_busy_time_us);

static ssize_t tern_engine_class_show(struct device *dev,
				      struct device_attribute *attr, char *buf)
{
	struct tern_device *tdev = to_tdev(dev);
	unsigned int i;
	int len = 0;

	for (i = 0; i < tdev->engine_count; i++)
		len += sysfs_emit_at(buf, len, "%s%s", i ? " " : "",
				     tdev->engines[i].class == TERN_ENG_CLASS_COPY ?
				     "copy" : "compute");
	return len + sysfs_emit_at(buf, len, "\n");
}
static DEVICE_ATTR_RO(tern_engine_class);

static ssize_t tern_engine_preemptions_show(struct device *dev,
					    struct device_attribute *attr,
					    char *buf)
{
	struct tern_device *tdev = to_tdev(dev);
	unsigned long flags;
	unsigned int i;
	int len = 0;
	u64 n;

	for (i = 0; i < tdev->engine_count; i++) {
		spin_lock_irqsave(&tdev->sched[i].lock, flags);
		n = tdev->sched[i].preempt.jobs;
		spin_unlock_irqrestore(&tdev->sched[i].lock, flags);
		len += sysfs_emit_at(buf, len, "%s%llu", i ? " " : "", n);
	}
	return len + sysfs_emit_at(buf, len, "\n");
}
static DEVICE_ATTR_RO(tern_engine_preemptions);

/* Every engine's scheduler gets the same tunables: report the first one's. */
static void tern_sysfs_params(struct tern_device *tdev,
			      struct tern_sched_params *params)
{
	tern_sched_get_params(&tdev->sched[0], params);
}

static ssize_t tern_sched_mode_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	struct tern_sched_params params;

	tern_sysfs_params(to_tdev(dev), &params);
	return sysfs_emit(buf, "%s\n", tern_sched_mode_name(params.mode));
}
static DEVICE_ATTR_RO(tern_sched_mode);

static ssize_t tern_sched_quantum_us_show(struct device *dev,
					  struct device_attribute *attr,
					  char *buf)
{
	struct tern_sched_params params;

	tern_sysfs_params(to_tdev(dev), &params);
	return sysfs_emit(buf, "%u\n", params.quantum_us);
}
static DEVICE_ATTR_RO(tern_sched_quantum_us);

static ssize_t tern_sched_starve_ms_show(struct device *dev,
					 struct device_attribute *attr,
					 char *buf)
{
	struct tern_sched_params params;

	tern_sysfs_params(to_tdev(dev), &params);
	return sysfs_emit(buf, "%u\n", params.starve_ms);
}
static DEVICE_ATTR_RO(tern_sched_starve_ms);

static ssize_t tern_memory_utilization_show(struct device *dev,
					    struct device_attribute *attr,
					    char *buf)
{
	return sysfs_emit(buf, "%lld\n",
			  (long long)atomic64_read(&to_tdev(dev)->bo_bytes));
}
static DEVICE_ATTR_RO(tern_memory_utilization);

static ssize_t tern_local_memory_used_show(struct device *dev,
					   struct device_attribute *attr,
					   char *buf)
{
	struct tern_device *tdev = to_tdev(dev);
	struct ttm_resource_manager *man;

	man = ttm_manager_type(&tdev->ttm, TERN_PL_LOCAL);
	return sysfs_emit(buf, "%llu\n",
			  man ? ttm_resource_manager_usage(man) : 0ull);
}
static DEVICE_ATTR_RO(tern_local_memory_used);

static struct attribute *tern_sysfs_attrs[] = {
	&dev_attr_tern_busy_time_us.attr,
	&dev_attr_tern_engine_busy_time_us.attr,
	&dev_attr_tern_engine_class.attr,
	&dev_attr_tern_engine_preemptions.attr,
	&dev_attr_tern_sched_mode.attr,
	&dev_attr_tern_sched_quantum_us.attr,
	&dev_attr_tern_sched_starve_ms.attr,
	&dev_attr_tern_memory_utilization.attr,
	&dev_attr_tern_local_memory_used.attr,
	NULL,
};

static const struct attribute_group tern_sysfs_group = {
	.attrs = tern_sysfs_attrs,
};

/* &pci_driver.driver.dev_groups of tern */
const struct attribute_group *tern_sysfs_groups[] = {
	&tern_sysfs_group,
	NULL,
};
