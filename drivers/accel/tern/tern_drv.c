// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 */

#include <linux/dmapool.h>
#include <linux/module.h>
#include <linux/pci.h>

#include <drm/drm_accel.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include <drm/tern_accel.h>

#include "tern_context.h"
#include "tern_debugfs.h"
#include "tern_device.h"
#include "tern_drv.h"
#include "tern_gem.h"
#include "tern_job.h"
#include "tern_paging.h"
#include "tern_sysfs.h"
#include "tern_ttm.h"
#include "tern_vm.h"

/**
 * DOC: tern driver overview
 *
 * tern drives a PCI compute accelerator with several compute engines and a
 * copy engine, each fed through a two-slot hardware queue.  The driver is
 * layered; each layer calls only the ones below it, and lower layers report
 * upwards through callbacks they were given:
 *
 * - this file: the drm_driver, the ioctl table, open/close, PCI probe and
 *   remove, fdinfo;
 * - tern_context.c, tern_job.c: contexts and the submit path (contexts are
 *   told about faults and hangs through &tern_sched_ctx_ops);
 * - tern_sched.c: the per-engine scheduler that fills the two slots with
 *   what the policy (tern_policy.c) picks, retires completed slots and
 *   preempts (the engine's interrupt reaches it through a callback);
 * - tern_engine.c, tern_device.c: registers, interrupts, resets.
 *
 * Memory (buffer objects, address spaces, binds, page tables, the queue of
 * page-table updates, residency and moves) and the command validator are
 * in tern_gem.c, tern_ttm.c, tern_vm.c, tern_vm_bind.c, tern_vm_move.c,
 * tern_residency.c, tern_pt.c, tern_bind.c, tern_paging.c and
 * tern_validate.c.
 *
 * Lock order (outer first):
 *
 * - &tern_file.lock (contexts of a file)
 * - &tern_context.submit_lock (closed flag, seqno, arm and push of a job)
 * - &tern_device.residency_lock (a submit or a map that moves LOCAL BOs
 *   into local memory)
 * - reservation objects of the VM and the BOs (locked together by one
 *   drm_exec transaction)
 * - &tern_device.contexts_lock (debugfs list, placement of new contexts)
 * - &tern_device.sched_params_lock (debugfs writes of the scheduler's
 *   tunables), or the raw_nop lock of debugfs then &tern_device.reset_lock
 *
 * and, apart from those, for the changes of an address space:
 *
 * - tern_vm_list_lock (PCI remove, the release of a VM, debugfs, the
 *   reaping of an unmap), or &tern_vm.bind_lock (the bind ioctls of an
 *   address space; never taken by the worker that runs the binds), never
 *   both
 * - &tern_vm.lock (bookkeeping, recording), or &tern_device.reset_lock
 *   (the TLB invalidation after an unmap, also under tern_vm_list_lock
 *   by the release of a VM), or &tern_bind_queue.lock (numbering and
 *   push of an update's job): never two of them
 * - &tern_bo.gpuva_lock (a BO's list of the address spaces that map it
 *   and of its mappings there), under &tern_vm.lock or alone
 *
 * and, for the moves of a BO (tern_ttm.c, tern_paging.c):
 *
 * - the BO's reservation object (with the ones TTM locks to evict, in a
 *   ww transaction)
 * - &tern_device.tt_dma_sem (read: mapping or unmapping the BO's pages
 *   for DMA; write: PCI remove, holding nothing else), then
 *   &tern_device.tt_dma_list_lock; or the &tern_bind_queue.lock of the
 *   paging queue or of the update queue (numbering and push of a paging
 *   job).  The two queues' locks share a lockdep class: they never nest.
 * - a move of a mapped BO (tern_vm_move.c), the reservation objects held:
 *   the runner role of the binds of each address space that maps it
 *   (&tern_vm.running, taken in the order of the address spaces'
 *   addresses), then &tern_vm.lock and &tern_bo.gpuva_lock as above.  A
 *   runner takes no reservation object, so waiting for one under them
 *   cannot deadlock.
 *
 * and, with interrupts off:
 *
 * - &tern_sched.lock (the scheduler's queues, policy and slots)
 * - &tern_hw_fence.lock (each hardware fence's own) or
 *   &tern_context.state_lock (a context's state and counters, and its
 *   list of jobs, which DRM_IOCTL_TERN_JOB_FENCE walks under
 *   &tern_context.submit_lock, and a job's release leaves holding nothing)
 * - &tern_device.latch_lock (latching counter reads)
 *
 * &tern_device.reset_lock is taken around an engine reset, by the watchdog
 * (holding nothing else) or by debugfs raw_nop, and around the TLB
 * invalidation after an unmap (by the bind worker).  Nothing sleeps under
 * the spinlocks; the scheduler's completion work and watchdog run on the
 * ordered &tern_device.wq and never concurrently.  They, run_job and the
 * bind worker (tern_vm_bind.c), and a move of a mapped BO while it holds
 * the address spaces (tern_vm_move.c), are fence-signalling sections
 * (dma_fence_begin_signalling()): nothing there allocates memory that
 * reclaim could wait for; the bind worker waits only for the fence of its
 * own update's job.
 *
 * PCI remove stops the hardware before it releases anything the hardware
 * can reach: see tern_remove().
 */

static int tern_get_info_ioctl(struct drm_device *drm, void *data,
			       struct drm_file *file)
{
	struct tern_device *tdev = to_tern_device(drm);
	struct drm_tern_get_info *args = data;
	unsigned int i;
	int idx;

	if (args->flags || args->pad)
		return -EINVAL;
	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;

	memset(args, 0, sizeof(*args));
	args->hw_version = tdev->hw_version;
	args->driver_version = TERN_DRIVER_MAJOR << 16 | TERN_DRIVER_MINOR;
	args->caps = tdev->caps & (DRM_TERN_CAP_SINGLE_USE | DRM_TERN_CAP_FAULT_INJECT);
	args->engine_count = tdev->engine_count;
	args->compute_engine_count = tdev->compute_count;
	for (i = 0; i < tdev->engine_count; i++)
		args->engine_class[i] = tdev->engines[i].class;
	args->buf_size_max = tdev->buf_size_max;
	args->max_contexts = TERN_MAX_CONTEXTS_PER_FILE;
	args->max_jobs_per_context = TERN_MAX_JOBS_PER_CONTEXT;
	args->max_bos_per_submit = TERN_MAX_BOS_PER_SUBMIT;
	args->max_syncs_per_submit = TERN_MAX_SYNCS_PER_SUBMIT;
	args->tlb_entries = tdev->tlb_entries;
	args->default_timeout_ms = TERN_DEFAULT_TIMEOUT_MS;
	args->max_timeout_ms = TERN_MAX_TIMEOUT_MS;
	args->local_mem_size = tdev->local_mem_size;
	args->max_bo_size = TERN_MAX_BO_SIZE;
	args->va_bits = TERN_VA_BITS;
	args->device_clock_ns = tern_device_clock_ns(tdev);
	args->max_queued_bytes = TERN_MAX_QUEUED_BYTES_PER_FILE;

	drm_dev_exit(idx);
	return 0;
}

static int tern_open(struct drm_device *drm, struct drm_file *file)
{
	struct tern_device *tdev = to_tern_device(drm);
	struct tern_file *tfile;
	int ret, idx;

	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;

	tfile = kzalloc(sizeof(*tfile), GFP_KERNEL);
	if (!tfile) {
		ret = -ENOMEM;
		goto out_exit;
	}

	tfile->tdev = tdev;
	tfile->client_id = file->client_id;
	mutex_init(&tfile->lock);
	xa_init_flags(&tfile->contexts, XA_FLAGS_ALLOC1);

	tfile->usage = kzalloc(sizeof(*tfile->usage), GFP_KERNEL);
	if (!tfile->usage) {
		ret = -ENOMEM;
		goto out_free;
	}
	kref_init(&tfile->usage->ref);
	atomic64_set(&tfile->usage->cmd_bytes, 0);
	atomic64_set(&tfile->usage->held_bytes, 0);

	ret = tern_vm_create(tdev, &tfile->vm);
	if (ret)
		goto out_free;

	file->driver_priv = tfile;
	drm_dev_exit(idx);
	return 0;

out_free:
	if (tfile->usage)
		tern_file_usage_put(tfile->usage);
	xa_destroy(&tfile->contexts);
	mutex_destroy(&tfile->lock);
	kfree(tfile);
out_exit:
	drm_dev_exit(idx);
	return ret;
}

static void tern_postclose(struct drm_device *drm, struct drm_file *file)
{
	struct tern_file *tfile = to_tern_file(file);

	/* cancels what did not start; jobs on the engines keep the VM alive */
	tern_context_destroy_all(tfile);
	tern_vm_close(tfile->vm);
	tern_vm_put(tfile->vm);
	tern_file_usage_put(tfile->usage);
	xa_destroy(&tfile->contexts);
	mutex_destroy(&tfile->lock);
	kfree(tfile);
}

static void tern_show_fdinfo(struct drm_printer *p, struct drm_file *file)
{
	struct tern_file *tfile = to_tern_file(file);
	struct tern_device *tdev = tfile->tdev;
	u64 busy[DRM_TERN_ENGINE_CLASS_COPY + 1];
	unsigned int compute = tdev->compute_count;
	unsigned int copy = tdev->engine_count - compute;
	u64 clock = 0;
	int idx;

	tern_context_busy_ns(tfile, busy);
	/* the copy engine's updates of the file's page tables are its work */
	busy[DRM_TERN_ENGINE_CLASS_COPY] += tern_vm_update_ns(tfile->vm);
	/* the device clock counts ns: cycles of a 1 GHz clock */
	if (drm_dev_enter(&tdev->drm, &idx)) {
		clock = tern_device_clock_ns(tdev);
		drm_dev_exit(idx);
	}
	drm_printf(p, "drm-engine-compute:\t%llu ns\n", busy[DRM_TERN_ENGINE_CLASS_COMPUTE]);
	if (compute > 1)
		drm_printf(p, "drm-engine-capacity-compute:\t%u\n", compute);
	drm_printf(p, "drm-cycles-compute:\t%llu\n", busy[DRM_TERN_ENGINE_CLASS_COMPUTE]);
	if (clock)
		drm_printf(p, "drm-total-cycles-compute:\t%llu\n", clock);
	drm_printf(p, "drm-engine-copy:\t%llu ns\n", busy[DRM_TERN_ENGINE_CLASS_COPY]);
	if (copy > 1)
		drm_printf(p, "drm-engine-capacity-copy:\t%u\n", copy);
	drm_printf(p, "drm-cycles-copy:\t%llu\n", busy[DRM_TERN_ENGINE_CLASS_COPY]);
	if (clock)
		drm_printf(p, "drm-total-cycles-copy:\t%llu\n", clock);
	tern_gem_show_memory_stats(p, file);
}

static const struct drm_ioctl_desc tern_ioctls[] = {
	DRM_IOCTL_DEF_DRV(TERN_GET_INFO, tern_get_info_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TERN_BO_CREATE, tern_bo_create_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TERN_BO_INFO, tern_bo_info_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TERN_VM_BIND, tern_vm_bind_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TERN_CONTEXT_CREATE, tern_context_create_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TERN_CONTEXT_DESTROY, tern_context_destroy_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TERN_CONTEXT_GET_STATE, tern_context_get_state_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TERN_SUBMIT, tern_submit_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TERN_WAIT, tern_context_wait_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TERN_SUBMIT_MANY, tern_submit_many_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TERN_VM_BIND_OPS, tern_vm_bind_ops_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TERN_VM_GET_STATE, tern_vm_get_state_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TERN_JOB_FENCE, tern_job_fence_ioctl, DRM_RENDER_ALLOW),
};

static const struct file_operations tern_fops = {
	.owner = THIS_MODULE,
	DRM_ACCEL_FOPS,
	.show_fdinfo = drm_show_fdinfo,
};

static const struct drm_driver tern_drm_driver = {
	.driver_features = DRIVER_GEM | DRIVER_COMPUTE_ACCEL |
			   DRIVER_SYNCOBJ | DRIVER_SYNCOBJ_TIMELINE |
			   DRIVER_GEM_GPUVA,
	.open = tern_open,
	.postclose = tern_postclose,
	.show_fdinfo = tern_show_fdinfo,
	.gem_prime_import_sg_table = tern_gem_prime_import_sg_table,
	.ioctls = tern_ioctls,
	.num_ioctls = ARRAY_SIZE(tern_ioctls),
	.fops = &tern_fops,
	.name = TERN_DRIVER_NAME,
	.desc = TERN_DRIVER_DESC,
	.major = TERN_DRIVER_MAJOR,
	.minor = TERN_DRIVER_MINOR,
};

static void tern_destroy_wq(struct drm_device *drm, void *wq)
{
	destroy_workqueue(wq);
}

static void tern_destroy_cmd_pool(struct drm_device *drm, void *data)
{
	struct tern_device *tdev = to_tern_device(drm);

	/* probe failed, or jobs outlived PCI remove (which said so) */
	dma_pool_destroy(tdev->cmd_pool);
}

static void tern_scheds_release(struct drm_device *drm, void *data)
{
	struct tern_device *tdev = to_tern_device(drm);
	unsigned int i;

	/*
	 * Every file is closed and every fence signalled (PCI remove stopped
	 * the schedulers); let drm_sched free the last jobs, then tear it down.
	 */
	drain_workqueue(tdev->sched_wq);
	for (i = 0; i < tdev->engine_count; i++)
		tern_sched_fini(&tdev->sched[i]);
}

static int tern_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct tern_device *tdev;
	struct drm_device *drm;
	unsigned int i;
	int ret;

	tdev = devm_drm_dev_alloc(&pdev->dev, &tern_drm_driver,
				  struct tern_device, drm);
	if (IS_ERR(tdev))
		return PTR_ERR(tdev);
	drm = &tdev->drm;
	tdev->pdev = pdev;
	pci_set_drvdata(pdev, tdev);
	INIT_LIST_HEAD(&tdev->contexts);
	spin_lock_init(&tdev->latch_lock);
	atomic_set(&tdev->live_jobs, 0);
	atomic_set(&tdev->releasing_contexts, 0);
	init_llist_head(&tdev->free_jobs);
	INIT_DELAYED_WORK(&tdev->free_work, tern_job_free_work);
	init_waitqueue_head(&tdev->jobs_idle);
	ret = drmm_mutex_init(drm, &tdev->contexts_lock);
	if (ret)
		return ret;
	ret = drmm_mutex_init(drm, &tdev->reset_lock);
	if (ret)
		return ret;
	ret = drmm_mutex_init(drm, &tdev->sched_params_lock);
	if (ret)
		return ret;

	tdev->wq = alloc_ordered_workqueue("tern-%s", WQ_MEM_RECLAIM,
					   pci_name(pdev));
	if (!tdev->wq)
		return -ENOMEM;
	ret = drmm_add_action_or_reset(drm, tern_destroy_wq, tdev->wq);
	if (ret)
		return ret;
	/*
	 * Devcoredumps are formatted (vmalloc, GFP_KERNEL) apart from @wq,
	 * which signals fences: memory reclaim may wait for those.
	 */
	tdev->dump_wq = alloc_workqueue("tern-dump-%s", WQ_UNBOUND, 1,
					pci_name(pdev));
	if (!tdev->dump_wq)
		return -ENOMEM;
	ret = drmm_add_action_or_reset(drm, tern_destroy_wq, tdev->dump_wq);
	if (ret)
		return ret;
	tdev->sched_wq = alloc_ordered_workqueue("tern-sched-%s", WQ_MEM_RECLAIM,
						 pci_name(pdev));
	if (!tdev->sched_wq)
		return -ENOMEM;
	ret = drmm_add_action_or_reset(drm, tern_destroy_wq, tdev->sched_wq);
	if (ret)
		return ret;

	/*
	 * Destroyed at PCI remove once every job is freed; a job still
	 * waiting for a foreign fence then keeps it until the DRM device,
	 * which it holds, is released.
	 */
	tdev->cmd_pool = dma_pool_create("tern-cmd", &pdev->dev,
					 TERN_CMD_POOL_BLOCK,
					 TERN_RESUME_RECORD_SIZE, 0);
	if (!tdev->cmd_pool)
		return -ENOMEM;
	ret = drmm_add_action_or_reset(drm, tern_destroy_cmd_pool, NULL);
	if (ret)
		return ret;

	ret = tern_device_init(tdev);
	if (ret)
		return ret;

	/* before the memory manager, whose moves use the paging buffers */
	ret = tern_paging_init(tdev);
	if (ret)
		return ret;
	ret = tern_ttm_init(tdev);
	if (ret)
		return ret;

	for (i = 0; i < tdev->engine_count; i++) {
		ret = tern_engine_init(tdev, &tdev->engines[i], i);
		if (ret)
			return ret;
	}
	ret = tern_engines_request_err_irq(tdev);
	if (ret)
		return ret;

	for (i = 0; i < tdev->engine_count; i++) {
		ret = tern_sched_init(tdev, &tdev->sched[i], &tdev->engines[i],
				      &tern_job_sched_ops);
		if (ret) {
			while (i--)
				tern_sched_fini(&tdev->sched[i]);
			return ret;
		}
	}
	ret = drmm_add_action_or_reset(drm, tern_scheds_release, NULL);
	if (ret)
		return ret;
	ret = tern_bind_init(tdev);
	if (ret)
		return ret;

	for (i = 0; i < tdev->engine_count; i++)
		tern_sched_start(&tdev->sched[i]);
	tern_engines_enable_err_irq(tdev);

	tern_debugfs_init(tdev);

	ret = drm_dev_register(drm, 0);
	if (ret)
		goto err_stop;

	drm_info(&tdev->drm, "tern %u.%u: %u engines (%u compute), %llu MiB local memory\n",
		 TERN_VERSION_MAJOR(tdev->hw_version),
		 TERN_VERSION_MINOR(tdev->hw_version), tdev->engine_count,
		 tdev->compute_count, tdev->local_mem_size >> 20);
	return 0;

err_stop:
	tern_engines_disable_err_irq(tdev);
	for (i = 0; i < tdev->engine_count; i++)
		tern_sched_quiesce(&tdev->sched[i]);
	tern_device_fini(tdev);
	for (i = 0; i < tdev->engine_count; i++)
		tern_sched_cancel_jobs(&tdev->sched[i], -ENODEV);
	return ret;
}

#define TERN_REMOVE_JOBS_TIMEOUT	(10 * HZ)

static void tern_remove(struct pci_dev *pdev)
{
	struct tern_device *tdev = pci_get_drvdata(pdev);
	unsigned int i;

	/*
	 * No new ioctl gets in, the ones inside have left; and every CPU
	 * mapping of the device's BOs is zapped (drm_dev_unplug() does it
	 * after the wait).  Mappings of local memory then do not outlive
	 * BAR2: tern_gem_fault() maps it only inside drm_dev_enter(), so a
	 * new fault of a local BO gets a page of zeroes; system pages fault
	 * back in as they were.
	 */
	drm_dev_unplug(&tdev->drm);
	/*
	 * Stop the hardware before anything it can reach is released:
	 * interrupts masked and their handlers done, the scheduler's work
	 * items done, then a device reset (the engines abandon their runs and
	 * make no more memory accesses).  Only then do the jobs signal
	 * -ENODEV and get freed, with their DMA buffers and the pages and
	 * page tables their address spaces pinned.
	 */
	tern_engines_disable_err_irq(tdev);
	for (i = 0; i < tdev->engine_count; i++)
		tern_sched_quiesce(&tdev->sched[i]);
	tern_device_fini(tdev);
	for (i = 0; i < tdev->engine_count; i++)
		tern_sched_cancel_jobs(&tdev->sched[i], -ENODEV);
	/*
	 * Let every job be freed now, while the module is pinned by the
	 * device: a job's free runs driver code and may drop the last
	 * references of its context and address space, which must not
	 * happen after the module is gone nor end in the release of the
	 * DRM device on the scheduler workqueue.  Jobs still waiting for
	 * in-fences are pushed (and cancelled) as those signal; no new job
	 * can be submitted after drm_dev_unplug().
	 */
	if (!wait_event_timeout(tdev->jobs_idle, !atomic_read(&tdev->live_jobs),
				TERN_REMOVE_JOBS_TIMEOUT))
		drm_warn(&tdev->drm, "%d jobs still wait for foreign fences\n",
			 atomic_read(&tdev->live_jobs));
	/* the free work may still be returning from the last release */
	flush_delayed_work(&tdev->free_work);
	/*
	 * A dma_pool has a sysfs file on the device, which must go before the
	 * device does: destroyed here unless a job still holds a block.
	 */
	if (!atomic_read(&tdev->live_jobs)) {
		dma_pool_destroy(tdev->cmd_pool);
		tdev->cmd_pool = NULL;
	}
	/*
	 * Contexts whose last reference went with a job are freed from a work
	 * item: done before remove returns, their files' address spaces (and
	 * so this device and its minor) go with the files' last close.
	 */
	if (!wait_event_timeout(tdev->jobs_idle,
				!atomic_read(&tdev->releasing_contexts),
				TERN_REMOVE_JOBS_TIMEOUT))
		drm_warn(&tdev->drm, "%d contexts still being released\n",
			 atomic_read(&tdev->releasing_contexts));
	/* the page tables of address spaces that open files still hold */
	tern_vm_unplug(tdev);
	/* no paging buffer runs after drm_dev_unplug(): their memory goes */
	tern_paging_unplug(tdev);
	/* and the pages of the BOs that outlive the device are unmapped */
	tern_ttm_unplug(tdev);
	/* devcoredump snapshots still being formatted */
	flush_workqueue(tdev->dump_wq);
}

static const struct pci_device_id tern_pci_ids[] = {
	{ PCI_DEVICE(TERN_PCI_VENDOR_ID, TERN_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, tern_pci_ids);

static struct pci_driver tern_pci_driver = {
	.name = KBUILD_MODNAME,
	.id_table = tern_pci_ids,
	.probe = tern_probe,
	.remove = tern_remove,
	.dev_groups = tern_sysfs_groups,
};
module_pci_driver(tern_pci_driver);

MODULE_DESCRIPTION("tern compute accelerator driver");
MODULE_AUTHOR("The tern authors");
MODULE_LICENSE("Dual MIT/GPL");
MODULE_IMPORT_NS(DMA_BUF);
