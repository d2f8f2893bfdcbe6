// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 */

#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/kstrtox.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include <drm/drm_debugfs.h>
#include <drm/drm_drv.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include <drm/tern_accel.h>

#include "tern_context.h"
#include "tern_debugfs.h"
#include "tern_device.h"
#include "tern_paging.h"
#include "tern_ttm.h"
#include "tern_vm.h"

/**
 * DOC: debugfs
 *
 * /sys/kernel/debug/accel/<device>/ holds:
 *
 * - engines: per engine, its class, counters (jobs run and completed,
 *   faults, resets, interrupts), the status, progress and busy registers,
 *   and what each slot holds,
 *   and per engine its scheduling policy and preemption counters;
 * - queues: per engine, every context bound to it with its priority class,
 *   weight, ready jobs, virtual time and device time charged;
 * - contexts: every context of the device with its state, counters and
 *   last fault;
 * - vms: every address space with its mappings and binds;
 * - jobs: "live" (jobs submitted and not yet released), "reaped"
 *   (finished jobs released by a later submission), "freed_by_work" and
 *   "free_work_runs" (released by the free work, and how often it ran;
 *   see tern_job_reap());
 * - memory: "bos" (BOs not yet destroyed, imported and kernel-owned ones
 *   included), "bo_bytes" (the BOs created and not yet freed),
 *   "system_bytes" (the system pages allocated for the device's BOs,
 *   imported ones left out), "tt_bytes" (the BOs in %TTM_PL_TT: their
 *   pages are mapped for the device, pinned or not), "local_bytes" and
 *   "local_size" (device-local memory used and in all), then per kind of
 *   paging buffer ("in", "out", "clear") the buffers run (one per move)
 *   and bytes moved, failures and device time, and the paging queue
 *   ("paging_queue_engine", "paging_queue_ctx": its engine and context
 *   tag; its jobs, retries, preemptions and busy time);
 * - sched_policy (rw): "fair", "fifo" or "drmfair"; writing one switches
 *   every engine at its next decision;
 * - quantum_us, starve_ms (rw): the policy's time slice and starvation
 *   bound, applied to every engine at its next decision;
 * - preempt_latency (rw): "<engine> <ns>" for each of the last
 *   TERN_PREEMPT_LATENCY_SAMPLES served preemption requests of each engine
 *   (request to PREEMPT_DONE), oldest first; writing clears them;
 * - raw_nop (rw): "<engine> <count> serial|pipelined" runs count NOP
 *   buffers on the engine straight from the driver, bypassing the
 *   scheduler (tern_sched_raw_run()); "all <count> pipelined" runs count
 *   on every compute engine at once; reading prints the last result:
 *   "engine <e>|all mode <m> count <n> total_ns <t>" (count per engine,
 *   wall time), then for serial runs one round-trip time in ns per line;
 * - inject (write only, present if the device has the fault-injection
 *   block): "<engine> <op>" arms TERN_INJECT_<op> (0 none, 1 hang, 2 drop
 *   irq, 3 fault, 4 reset stuck) on an engine, to exercise recovery.
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

static int tern_debugfs_vms(struct seq_file *m, void *data)
{
	struct tern_device *tdev = entry_to_tdev(m);
	struct drm_printer p = drm_seq_file_printer(m);

	tern_vm_debugfs_show(tdev, &p);
	return 0;
}

static int tern_debugfs_jobs(struct seq_file *m, void *data)
{
	struct tern_device *tdev = entry_to_tdev(m);

	seq_printf(m, "live: %d\n", atomic_read(&tdev->live_jobs));
	seq_printf(m, "reaped: %lld\n", atomic64_read(&tdev->jobs_reaped));
	seq_printf(m, "freed_by_work: %lld\n",
		   atomic64_read(&tdev->jobs_freed_by_work));
	seq_printf(m, "free_work_runs: %lld\n",
		   atomic64_read(&tdev->free_work_runs));
	return 0;
}

static int tern_debugfs_memory(struct seq_file *m, void *data)
{
	struct tern_device *tdev = entry_to_tdev(m);
	struct drm_printer p = drm_seq_file_printer(m);
	struct ttm_resource_manager *local;

	drm_printf(&p, "bos: %d\n", atomic_read(&tdev->bos));
	drm_printf(&p, "bo_bytes: %lld\n", atomic64_read(&tdev->bo_bytes));
	drm_printf(&p, "system_bytes: %lld\n",
		   atomic64_read(&tdev->system_bytes));
	drm_printf(&p, "tt_bytes: %llu\n",
		   ttm_resource_manager_usage(&tdev->tt_mgr));
	local = ttm_manager_type(&tdev->ttm, TERN_PL_LOCAL);
	drm_printf(&p, "local_bytes: %llu\nlocal_size: %llu\n",
		   local ? ttm_resource_manager_usage(local) : 0,
		   tdev->local_mem_size);
	tern_paging_debugfs_show(tdev, &p);
	return 0;
}

static int tern_debugfs_preempt_latency(struct seq_file *m, void *data)
{
	struct tern_device *tdev = m->private;
	struct drm_printer p = drm_seq_file_printer(m);
	unsigned int i;

	for (i = 0; i < tdev->engine_count; i++)
		tern_sched_debugfs_show_latency(&tdev->sched[i], &p);
	return 0;
}

static const struct drm_debugfs_info tern_debugfs_list[] = {
	{ "engines", tern_debugfs_engines, 0 },
	{ "queues", tern_debugfs_queues, 0 },
	{ "contexts", tern_debugfs_contexts, 0 },
	{ "vms", tern_debugfs_vms, 0 },
	{ "jobs", tern_debugfs_jobs, 0 },
	{ "memory", tern_debugfs_memory, 0 },
};

/* Copy a short user write into @buf as a string. */
static int tern_debugfs_get_text(char *buf, size_t size,
				 const char __user *ubuf, size_t len)
{
	if (!len || len >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	return 0;
}

/**
 * struct tern_raw_nop - the last run of the raw_nop debugfs file
 * @lock: serialises runs and reads
 * @cmd: the NOP buffer (CPU address)
 * @cmd_dma: its bus address
 * @engine: engine of the last run, TERN_RAW_NOP_ALL for every compute engine
 * @pipelined: its mode
 * @count: its runs; 0 before the first
 * @total_ns: its time
 * @sample_ns: round-trip time of each run (serial mode), @count entries
 */
struct tern_raw_nop {
	struct mutex lock; /* see above */
	u32 *cmd;
	dma_addr_t cmd_dma;
	unsigned int engine;
	bool pipelined;
	unsigned int count;
	u64 total_ns;
	u64 *sample_ns;
};

#define TERN_RAW_NOP_MAX	100000
#define TERN_RAW_NOP_ALL	UINT_MAX

/* One engine's share of an "all" run of raw_nop, on a work item. */
struct tern_raw_nop_part {
	struct work_struct work;
	struct tern_sched *sched;
	const struct tern_slot_desc *desc;
	unsigned int count;
	u64 total_ns;
	int ret;
};

static void tern_raw_nop_part_run(struct work_struct *work)
{
	struct tern_raw_nop_part *part =
		container_of(work, struct tern_raw_nop_part, work);

	part->ret = tern_sched_raw_run(part->sched, part->desc, part->count,
				       true, &part->total_ns, NULL);
}

/*
 * Pipelined runs on every compute engine at once: what the device gives
 * when all its engines are kept busy.  *@total_ns is the wall time until
 * the last engine finished.  The runs wait in work items, where no signal
 * reaches them: a run of at most TERN_RAW_NOP_MAX NOPs per engine, a few
 * seconds at worst, cannot be interrupted.
 */
static int tern_raw_nop_all(struct tern_device *tdev,
			    const struct tern_slot_desc *desc,
			    unsigned int count, u64 *total_ns)
{
	unsigned int n = tdev->compute_count, i;
	struct tern_raw_nop_part *parts;
	u64 t0;
	int ret = 0;

	if (!n)
		return -ENODEV;
	parts = kcalloc(n, sizeof(*parts), GFP_KERNEL);
	if (!parts)
		return -ENOMEM;
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		INIT_WORK(&parts[i].work, tern_raw_nop_part_run);
		parts[i].sched = &tdev->sched[i];
		parts[i].desc = desc;
		parts[i].count = count;
		queue_work(system_unbound_wq, &parts[i].work);
	}
	for (i = 0; i < n; i++) {
		flush_work(&parts[i].work);
		if (!ret)
			ret = parts[i].ret;
	}
	*total_ns = ktime_get_ns() - t0;
	kfree(parts);
	return ret;
}

static int tern_debugfs_raw_nop_show(struct seq_file *m, void *data)
{
	struct tern_device *tdev = m->private;
	struct tern_raw_nop *raw = tdev->raw_nop;
	unsigned int i;

	mutex_lock(&raw->lock);
	if (raw->count && raw->engine == TERN_RAW_NOP_ALL) {
		seq_printf(m, "engine all mode pipelined count %u total_ns %llu\n",
			   raw->count, raw->total_ns);
	} else if (raw->count) {
		seq_printf(m, "engine %u mode %s count %u total_ns %llu\n",
			   raw->engine, raw->pipelined ? "pipelined" : "serial",
			   raw->count, raw->total_ns);
		for (i = 0; !raw->pipelined && i < raw->count; i++)
			seq_printf(m, "%llu\n", raw->sample_ns[i]);
	}
	mutex_unlock(&raw->lock);
	return 0;
}

static ssize_t tern_debugfs_raw_nop_write(struct file *file,
					  const char __user *ubuf, size_t len,
					  loff_t *pos)
{
	struct tern_device *tdev = file_inode(file)->i_private;
	struct tern_raw_nop *raw = tdev->raw_nop;
	struct tern_slot_desc desc = {};
	unsigned int engine, count;
	char buf[48], mode[16], which[16];
	u64 *samples = NULL;
	bool pipelined;
	u64 total_ns;
	int ret, idx;

	ret = tern_debugfs_get_text(buf, sizeof(buf), ubuf, len);
	if (ret)
		return ret;
	if (sscanf(buf, "%15s %u %15s", which, &count, mode) != 3 ||
	    !count || count > TERN_RAW_NOP_MAX)
		return -EINVAL;
	if (!strcmp(which, "all"))
		engine = TERN_RAW_NOP_ALL;
	else if (kstrtouint(which, 10, &engine) || engine >= tdev->engine_count)
		return -EINVAL;
	if (!strcmp(mode, "serial") && engine != TERN_RAW_NOP_ALL)
		pipelined = false;
	else if (!strcmp(mode, "pipelined"))
		pipelined = true;
	else
		return -EINVAL;

	if (!pipelined) {
		samples = kvcalloc(count, sizeof(*samples), GFP_KERNEL);
		if (!samples)
			return -ENOMEM;
	}

	if (!drm_dev_enter(&tdev->drm, &idx)) {
		kvfree(samples);
		return -ENODEV;
	}
	mutex_lock(&raw->lock);
	desc.buf = raw->cmd_dma;
	desc.buf_size = sizeof(u32);
	desc.ctx_tag = 0;
	desc.flags = TERN_SLOT_FLAG_PRIVILEGED;
	if (engine == TERN_RAW_NOP_ALL)
		ret = tern_raw_nop_all(tdev, &desc, count, &total_ns);
	else
		ret = tern_sched_raw_run(&tdev->sched[engine], &desc, count,
					 pipelined, &total_ns, samples);
	if (!ret) {
		kvfree(raw->sample_ns);
		raw->sample_ns = samples;
		samples = NULL;
		raw->engine = engine;
		raw->pipelined = pipelined;
		raw->count = count;
		raw->total_ns = total_ns;
	}
	mutex_unlock(&raw->lock);
	drm_dev_exit(idx);
	kvfree(samples);
	return ret ?: len;
}

static void tern_debugfs_raw_nop_release(struct drm_device *drm, void *data)
{
	struct tern_raw_nop *raw = data;

	kvfree(raw->sample_ns);
	mutex_destroy(&raw->lock);
}

/* State of raw_nop, released with the device; false if out of memory. */
static bool tern_debugfs_raw_nop_init(struct tern_device *tdev)
{
	struct drm_device *drm = &tdev->drm;
	struct tern_raw_nop *raw;

	raw = drmm_kzalloc(drm, sizeof(*raw), GFP_KERNEL);
	if (!raw)
		return false;
	raw->cmd = dmam_alloc_coherent(drm->dev, sizeof(u32), &raw->cmd_dma,
				       GFP_KERNEL);
	if (!raw->cmd)
		return false;
	raw->cmd[0] = TERN_PKT_HEADER(TERN_OP_NOP, 1);
	mutex_init(&raw->lock);
	if (drmm_add_action_or_reset(drm, tern_debugfs_raw_nop_release, raw))
		return false;
	tdev->raw_nop = raw;
	return true;
}

/*
 * Set the tunable at @offset in &struct tern_sched_params (a u32) to @value
 * on every engine.
 */
static void tern_debugfs_update_param(struct tern_device *tdev, size_t offset,
				      u32 value)
{
	struct tern_sched_params params;
	unsigned int i;

	mutex_lock(&tdev->sched_params_lock);
	for (i = 0; i < tdev->engine_count; i++) {
		tern_sched_get_params(&tdev->sched[i], &params);
		*(u32 *)((u8 *)&params + offset) = value;
		tern_sched_set_params(&tdev->sched[i], &params);
	}
	mutex_unlock(&tdev->sched_params_lock);
}

static u32 tern_debugfs_get_param(struct tern_device *tdev, size_t offset)
{
	struct tern_sched_params params;

	tern_sched_get_params(&tdev->sched[0], &params);
	return *(u32 *)((u8 *)&params + offset);
}

static int tern_debugfs_show_param(struct seq_file *m, size_t offset)
{
	seq_printf(m, "%u\n", tern_debugfs_get_param(m->private, offset));
	return 0;
}

/* A write of a number 1 .. @max into the tunable at @offset. */
static ssize_t tern_debugfs_write_param(struct file *file,
					const char __user *ubuf, size_t len,
					size_t offset, u32 max)
{
	u32 value;
	int ret;

	ret = kstrtou32_from_user(ubuf, len, 10, &value);
	if (ret)
		return ret;
	if (!value || value > max)
		return -EINVAL;
	tern_debugfs_update_param(file_inode(file)->i_private, offset, value);
	return len;
}

static int tern_debugfs_policy_show(struct seq_file *m, void *data)
{
	u32 mode = tern_debugfs_get_param(m->private,
					  offsetof(struct tern_sched_params, mode));

	seq_printf(m, "%s\n", tern_sched_mode_name(mode));
	return 0;
}

static ssize_t tern_debugfs_policy_write(struct file *file,
					 const char __user *ubuf, size_t len,
					 loff_t *pos)
{
	char buf[16];
	int mode;
	int ret;

	ret = tern_debugfs_get_text(buf, sizeof(buf), ubuf, len);
	if (ret)
		return ret;
	mode = tern_sched_mode_parse(buf);
	if (mode < 0)
		return mode;
	tern_debugfs_update_param(file_inode(file)->i_private,
				  offsetof(struct tern_sched_params, mode), mode);
	return len;
}

static int tern_debugfs_quantum_show(struct seq_file *m, void *data)
{
	return tern_debugfs_show_param(m, offsetof(struct tern_sched_params, quantum_us));
}

static ssize_t tern_debugfs_quantum_write(struct file *file,
					  const char __user *ubuf, size_t len,
					  loff_t *pos)
{
	return tern_debugfs_write_param(file, ubuf, len,
					offsetof(struct tern_sched_params, quantum_us),
					TERN_QUANTUM_US_MAX);
}

static int tern_debugfs_starve_show(struct seq_file *m, void *data)
{
	return tern_debugfs_show_param(m, offsetof(struct tern_sched_params, starve_ms));
}

static ssize_t tern_debugfs_starve_write(struct file *file,
					 const char __user *ubuf, size_t len,
					 loff_t *pos)
{
	return tern_debugfs_write_param(file, ubuf, len,
					offsetof(struct tern_sched_params, starve_ms),
					TERN_STARVE_MS_MAX);
}

static ssize_t tern_debugfs_latency_write(struct file *file,
					  const char __user *ubuf, size_t len,
					  loff_t *pos)
{
	struct tern_device *tdev = file_inode(file)->i_private;
	unsigned int i;

	for (i = 0; i < tdev->engine_count; i++)
		tern_sched_clear_latency(&tdev->sched[i]);
	return len;
}

#define TERN_DEBUGFS_RW(name, show_fn, write_fn)			\
static int name##_open(struct inode *inode, struct file *file)		\
{									\
	return single_open(file, show_fn, inode->i_private);		\
}									\
static const struct file_operations name##_fops = {			\
	.owner = THIS_MODULE,						\
	.open = name##_open,						\
	.read = seq_read,						\
	.write = write_fn,						\
	.llseek = seq_lseek,						\
	.release = single_release,					\
}

TERN_DEBUGFS_RW(tern_debugfs_policy, tern_debugfs_policy_show,
		tern_debugfs_policy_write);
TERN_DEBUGFS_RW(tern_debugfs_quantum, tern_debugfs_quantum_show,
		tern_debugfs_quantum_write);
TERN_DEBUGFS_RW(tern_debugfs_starve, tern_debugfs_starve_show,
		tern_debugfs_starve_write);
TERN_DEBUGFS_RW(tern_debugfs_latency, tern_debugfs_preempt_latency,
		tern_debugfs_latency_write);
TERN_DEBUGFS_RW(tern_debugfs_raw_nop, tern_debugfs_raw_nop_show,
		tern_debugfs_raw_nop_write);

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
	if (engine >= tdev->engine_count || op > TERN_INJECT_RESET_STUCK)
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
	debugfs_create_file("sched_policy", 0600, drm->debugfs_root, tdev,
			    &tern_debugfs_policy_fops);
	debugfs_create_file("quantum_us", 0600, drm->debugfs_root, tdev,
			    &tern_debugfs_quantum_fops);
	debugfs_create_file("starve_ms", 0600, drm->debugfs_root, tdev,
			    &tern_debugfs_starve_fops);
	debugfs_create_file("preempt_latency", 0600, drm->debugfs_root, tdev,
			    &tern_debugfs_latency_fops);
	debugfs_create_u32("release_delay_us", 0600, drm->debugfs_root,
			   &tdev->release_delay_us);
	if (tern_debugfs_raw_nop_init(tdev))
		debugfs_create_file("raw_nop", 0600, drm->debugfs_root, tdev,
				    &tern_debugfs_raw_nop_fops);
}
