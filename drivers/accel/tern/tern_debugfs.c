// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 */

#include <linux/debugfs.h>
#include <linux/kstrtox.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include <drm/drm_debugfs.h>
#include <drm/drm_drv.h>
#include <drm/drm_print.h>

#include "tern_context.h"
#include "tern_debugfs.h"
#include "tern_device.h"

/**
 * DOC: debugfs
 *
 * /sys/kernel/debug/accel/<device>/ holds:
 *
 * - engines: per engine, its class, counters (jobs run and completed,
 *   faults, resets, interrupts), the status, progress and busy registers,
 *   and what each slot holds;
 * - queues: the jobs waiting in each engine's FIFO;
 * - contexts: every context of the device with its state, counters and
 *   last fault;
 * - inject (write only, present if the device has the fault-injection
 *   block): "<engine> <op>" arms TERN_INJECT_<op> (0 none, 1 hang, 2 drop
 *   irq, 3 fault) on an engine, to exercise recovery.
 */

static struct tern_device *entry_to_tdev(struct seq_file *m)
{
	struct drm_debugfs_entry *entry = m->private;

	return to_tern_device(entry->dev);
}

static int tern_debugfs_engines(struct seq_file *m, void *data)
{
	struct tern_device *tdev = entry_to_tdev(m);
	struct drm_printer p = drm_seq_file_printer(m);
	unsigned int i;

	drm_printf(&p, "engine resets: %d\n", atomic_read(&tdev->device_resets));
	for (i = 0; i < tdev->engine_count; i++)
		tern_sched_debugfs_show(&tdev->sched[i], &p);
	return 0;
}

static int tern_debugfs_queues(struct seq_file *m, void *data)
{
	struct tern_device *tdev = entry_to_tdev(m);
	struct drm_printer p = drm_seq_file_printer(m);
	unsigned int i;

	for (i = 0; i < tdev->engine_count; i++)
		tern_sched_debugfs_show_queue(&tdev->sched[i], &p);
	return 0;
}

static int tern_debugfs_contexts(struct seq_file *m, void *data)
{
	struct tern_device *tdev = entry_to_tdev(m);
	struct drm_printer p = drm_seq_file_printer(m);

	tern_context_debugfs_show(tdev, &p);
	return 0;
}

static const struct drm_debugfs_info tern_debugfs_list[] = {
	{ "engines", tern_debugfs_engines, 0 },
	{ "queues", tern_debugfs_queues, 0 },
	{ "contexts", tern_debugfs_contexts, 0 },
};

static ssize_t tern_debugfs_inject_write(struct file *file,
					 const char __user *ubuf, size_t len,
					 loff_t *pos)
{
	struct tern_device *tdev = file->private_data;
	unsigned int engine, op;
	char buf[32];
	int idx;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%u %u", &engine, &op) != 2)
		return -EINVAL;
	if (engine >= tdev->engine_count || op > TERN_INJECT_FAULT)
		return -EINVAL;

	if (!drm_dev_enter(&tdev->drm, &idx))
		return -ENODEV;
	tern_write(tdev, TERN_REG_INJECT,
		   TERN_INJECT_ENGINE(engine) | TERN_INJECT_OP(op));
	drm_dev_exit(idx);
	return len;
}

static const struct file_operations tern_debugfs_inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = tern_debugfs_inject_write,
	.llseek = noop_llseek,
};

/**
 * tern_debugfs_init() - create the driver's debugfs files
 * @tdev: the device, before drm_dev_register()
 */
void tern_debugfs_init(struct tern_device *tdev)
{
	struct drm_device *drm = &tdev->drm;

	drm_debugfs_add_files(drm, tern_debugfs_list,
			      ARRAY_SIZE(tern_debugfs_list));
	if (tdev->caps & TERN_CAPS_FAULT_INJECT)
		debugfs_create_file("inject", 0200, drm->debugfs_root, tdev,
				    &tern_debugfs_inject_fops);
}
