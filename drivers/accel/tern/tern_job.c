// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 */

#include <linux/delay.h>
#include <linux/dma-fence-chain.h>
#include <linux/dma-fence-unwrap.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/dmapool.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>
#include <drm/drm_exec.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>
#include <drm/drm_syncobj.h>

#include <drm/tern_accel.h>

#include "tern_context.h"
#include "tern_device.h"
#include "tern_drv.h"
#include "tern_job.h"
#include "tern_residency.h"
#include "tern_sync.h"
#include "tern_trace.h"
#include "tern_ttm.h"
#include "tern_validate.h"
#include "tern_vm.h"

/**
 * DOC: submission
 *
 * DRM_IOCTL_TERN_SUBMIT turns a user command buffer into a job:
 *
 * 1. the buffer is copied into a kernel-owned DMA buffer (coherent, so the
 *    device reads exactly what was validated) and tern_validate_cmdbuf()
 *    checks every packet of that copy: the user cannot change it afterwards;
 * 2. the BO handles are looked up and referenced until the job is freed;
 * 3. a drm_sched job is set up on the context's entity, with the in-syncobjs
 *    as dependencies;
 * 4. under the context's submit lock the job gets its seqno and hardware
 *    fence, is armed, its finished fence is added to the address space's
 *    reservation object (BOOKKEEP: unmapping waits for it) and to each BO's
 *    (WRITE), it joins the context's list of jobs (for
 *    DRM_IOCTL_TERN_JOB_FENCE, until it is released), and it is pushed to
 *    the entity;
 * 5. the out-syncobjs get the finished fence.
 *
 * drm_sched calls tern_job_run() once the dependencies signalled; it hands
 * the job to the engine's scheduler.  tern_job_free() runs after the finished
 * fence signalled and releases the DMA buffer, the BOs and the context.
 * Every failure before step 4 unwinds completely and has its own errno.
 */

/*
 * The DMA buffer holds the command buffer and, when the pages it takes
 * have room after it, the job's resume record, which the device writes
 * when it preempts the job and reads when the job resumes (64 bytes,
 * 64-byte aligned; the CPU never reads it).  Nearly every job fits in one
 * block of the device's dma_pool, record included: no allocation from the
 * page allocator and no mapping of its own.  A larger buffer gets its own
 * coherent pages; its record goes after it if they have room, or into a
 * small mapping of its own, so that a buffer of a power-of-two size does
 * not take twice its pages.  A pool block is not zeroed: the copy
 * overwrites the command bytes, and the device reads the record only after
 * it wrote it.
 */
static bool tern_job_record_inline(u32 cmd_size)
{
	return ALIGN(cmd_size, TERN_RESUME_RECORD_SIZE) + TERN_RESUME_RECORD_SIZE <=
	       PAGE_SIZE << get_order(cmd_size);
}

static size_t tern_job_cmd_alloc_size(u32 cmd_size)
{
	if (!tern_job_record_inline(cmd_size))
		return cmd_size;
	return ALIGN(cmd_size, TERN_RESUME_RECORD_SIZE) + TERN_RESUME_RECORD_SIZE;
}

/*
 * Coherent memory for command copies: a block of the device's pool when
 * @size fits in one, else whole pages of its own.
 */
static void *tern_cmd_mem_alloc(struct tern_device *tdev, size_t size,
				dma_addr_t *dma)
{
	if (size <= TERN_CMD_POOL_BLOCK)
		return dma_pool_alloc(tdev->cmd_pool, GFP_KERNEL | __GFP_NOWARN,
				      dma);
	return dma_alloc_coherent(tdev->drm.dev, size, dma,
				  GFP_KERNEL | __GFP_NOWARN);
}

static void tern_cmd_mem_free(struct tern_device *tdev, size_t size,
			      void *cpu, dma_addr_t dma)
{
	if (size <= TERN_CMD_POOL_BLOCK)
		dma_pool_free(tdev->cmd_pool, cpu, dma);
	else
		dma_free_coherent(tdev->drm.dev, size, cpu, dma);
}

/*
 * What tern_cmd_mem_alloc() takes for @size: a pool block's page, or whole
 * pages in a power of two.  A job is charged what was allocated, not only
 * what was asked for.
 */
static size_t tern_cmd_mem_charge(size_t size)
{
	if (size <= TERN_CMD_POOL_BLOCK)
		return TERN_CMD_POOL_BLOCK;
	return PAGE_SIZE << get_order(size);
}

/* A job with a copy of its own: the copy, and the record if apart. */
static size_t tern_job_own_charge(u32 cmd_size)
{
	return tern_cmd_mem_charge(tern_job_cmd_alloc_size(cmd_size)) +
	       (tern_job_record_inline(cmd_size) ? 0 : TERN_RESUME_RECORD_SIZE);
}

/* The resume record of a job whose buffer left no room for it. */
static int tern_job_map_resume(struct tern_device *tdev, struct tern_job *job)
{
	void *rec = kzalloc(TERN_RESUME_RECORD_SIZE, GFP_KERNEL);
	dma_addr_t dma;

	if (!rec)
		return -ENOMEM;
	dma = dma_map_single(tdev->drm.dev, rec, TERN_RESUME_RECORD_SIZE,
			     DMA_BIDIRECTIONAL);
	if (dma_mapping_error(tdev->drm.dev, dma)) {
		kfree(rec);
		return -ENOMEM;
	}
	job->resume = rec;
	job->resume_dma = dma;
	return 0;
}

static void tern_cmd_block_release(struct kref *ref)
{
	struct tern_cmd_block *block = container_of(ref, struct tern_cmd_block,
						    ref);
	struct tern_device *tdev = block->tdev;

	tern_cmd_mem_free(tdev, block->size, block->cpu, block->dma);
	kfree(block);
}

static void tern_cmd_block_put(struct tern_cmd_block *block)
{
	if (block)
		kref_put(&block->ref, tern_cmd_block_release);
}

/* Room for @count command copies of @cmd_bytes in all, and their records. */
static struct tern_cmd_block *tern_cmd_block_alloc(struct tern_device *tdev,
						   size_t cmd_bytes,
						   unsigned int count)
{
	struct tern_cmd_block *block = kzalloc(sizeof(*block), GFP_KERNEL);

	if (!block)
		return NULL;
	block->size = ALIGN(cmd_bytes, TERN_RESUME_RECORD_SIZE) +
		      (size_t)count * TERN_RESUME_RECORD_SIZE;
	block->cpu = tern_cmd_mem_alloc(tdev, block->size, &block->dma);
	if (!block->cpu) {
		kfree(block);
		return NULL;
	}
	kref_init(&block->ref);
	block->tdev = tdev;
	return block;
}

/**
 * struct tern_cmd_place - where in a &tern_cmd_block a job's copy goes
 * @block: the block
 * @cmd_off: byte offset of the command copy
 * @rec_off: byte offset of the resume record
 * @charge: bytes the job counts against its file's limits
 * @more: a later entry of the group follows: queue the job without
 *	running the policy, which the caller kicks after the group
 */
struct tern_cmd_place {
	struct tern_cmd_block *block;
	size_t cmd_off;
	size_t rec_off;
	size_t charge;
	bool more;
};

static struct tern_job *to_tern_job(struct drm_sched_job *sched_job)
{
	return container_of(sched_job, struct tern_job, base);
}

static void tern_job_put_deps(struct tern_job *job)
{
	while (job->dep_count)
		dma_fence_put(job->deps[--job->dep_count]);
	kvfree(job->deps);
	job->deps = NULL;
}

/*
 * The job no longer counts against its context's job limit and its file's
 * command-buffer bytes: its fence signalled (a process that waited for it
 * may submit at once), or it is released without having run.
 */
static void tern_job_uncharge(struct tern_job *job)
{
	if (job->counted) {
		atomic_dec(&job->ctx->pending);
		job->counted = false;
	}
	if (job->charged) {
		atomic64_sub(job->charge, &job->usage->cmd_bytes);
		job->charged = false;
	}
}

/*
 * Charge a new job's memory to the file's jobs not yet freed.  Over the
 * bound, let the finished ones be freed first (a direct-path release may
 * be waiting for the free work), then try once more.
 */
static bool tern_job_charge_held(struct tern_device *tdev,
				 struct tern_file_usage *usage, u64 bytes)
{
	if (atomic64_add_return(bytes, &usage->held_bytes) <=
	    TERN_MAX_HELD_BYTES_PER_FILE)
		return true;
	atomic64_sub(bytes, &usage->held_bytes);
	tern_job_reap(tdev);
	flush_delayed_work(&tdev->free_work);
	if (atomic64_add_return(bytes, &usage->held_bytes) <=
	    TERN_MAX_HELD_BYTES_PER_FILE)
		return true;
	atomic64_sub(bytes, &usage->held_bytes);
	return false;
}

static void tern_job_release(struct tern_job *job)
{
	struct tern_device *tdev = job->ctx->tdev;
	u32 i;

	/*
	 * Listed once armed, before it was pushed: only its neighbours'
	 * removals rewrite the link since, never to point at itself.
	 */
	if (!list_empty(&job->ctx_link)) {
		unsigned long flags;

		/* DRM_IOCTL_TERN_JOB_FENCE takes its fence under this lock */
		spin_lock_irqsave(&job->ctx->state_lock, flags);
		list_del(&job->ctx_link);
		spin_unlock_irqrestore(&job->ctx->state_lock, flags);
	}
	if (job->scheduled)
		drm_sched_job_cleanup(&job->base);
	tern_job_put_deps(job);
	for (i = 0; i < job->bo_count; i++)
		drm_gem_object_put(job->bos[i]);	/* NULL-safe */
	kvfree(job->bos);
	if (job->block)
		tern_cmd_block_put(job->block);
	else if (job->cmd)
		tern_cmd_mem_free(tdev, tern_job_cmd_alloc_size(job->cmd_size),
				  job->cmd, job->cmd_dma);
	if (job->resume) {
		dma_unmap_single(tdev->drm.dev, job->resume_dma,
				 TERN_RESUME_RECORD_SIZE, DMA_BIDIRECTIONAL);
		kfree(job->resume);
	}
	tern_job_uncharge(job);
	if (job->usage) {
		atomic64_sub(job->charge, &job->usage->held_bytes);
		tern_file_usage_put(job->usage);
	}
	if (job->hw.fence) {
		if (job->hw.fence->ops)
			dma_fence_put(job->hw.fence);
		else
			kfree(container_of(job->hw.fence, struct tern_hw_fence,
					   base));
	}
	/*
	 * While the job holds its context, the device is there (the context
	 * holds the address space, which holds the DRM device): tell a
	 * waiting PCI remove now, the context reference may be the last.
	 */
	if (atomic_dec_and_test(&tdev->live_jobs))
		wake_up_all(&tdev->jobs_idle);
	tern_context_put(job->ctx);
	kfree(job);
}

/*
 * The hardware fence signalled (runs where it signals, with the
 * scheduler's lock held): uncharge the job, and put a job that did not go
 * through drm_sched on the list of jobs to free.  The next submission
 * frees them (tern_job_reap()); the free work is only a fallback for when
 * none comes, and runs TERN_JOB_FREE_DELAY after the list stopped being
 * empty, so a stream of jobs wakes no thread per job.  drm_sched adds its
 * own callback after this one, and the free that follows it cannot
 * overtake this callback.
 */
static void tern_job_signalled(struct dma_fence *fence, struct dma_fence_cb *cb)
{
	struct tern_job *job = container_of(cb, struct tern_job, signal_cb);
	struct tern_device *tdev = job->ctx->tdev;

	tern_job_uncharge(job);
	if (!job->scheduled && llist_add(&job->free_node, &tdev->free_jobs))
		queue_delayed_work(system_unbound_wq, &tdev->free_work,
				   TERN_JOB_FREE_DELAY);
}

/*
 * Release every job on the free list, counting each in @count first: the
 * last release may drop what keeps @tdev.
 */
static void tern_job_release_listed(struct tern_device *tdev,
				    atomic64_t *count)
{
	struct llist_node *done = llist_del_all(&tdev->free_jobs);
	struct tern_job *job, *next;

	llist_for_each_entry_safe(job, next, done, free_node) {
		atomic64_inc(count);
		tern_job_release(job);
	}
}

/**
 * tern_job_reap() - release the finished jobs waiting on the free list
 * @tdev: the device
 *
 * Called by the submit ioctls before they allocate, so that a stream of
 * jobs releases the finished ones in the submitting thread, with its
 * caches warm, instead of waking the free work for each.  Does nothing
 * while the debugfs knob release_delay_us holds releases back.
 *
 * Context: process context, no lock held; may sleep.
 */
void tern_job_reap(struct tern_device *tdev)
{
	if (llist_empty(&tdev->free_jobs) || READ_ONCE(tdev->release_delay_us))
		return;
	/*
	 * The free work's timer goes with the jobs it was armed for: a job
	 * listed from now on arms it again.  Left pending, it could fire
	 * after the last job, and the device or module it needs, went.  (A
	 * signaller racing this may still arm it for a list emptied here: it
	 * then finds nothing, and PCI remove flushes it once every signaller
	 * is stopped.)
	 */
	cancel_delayed_work(&tdev->free_work);
	tern_job_release_listed(tdev, &tdev->jobs_reaped);
}

/*
 * Hand the job to its engine's scheduler; it may be freed once there.
 * With @queue_only the policy does not run yet: the caller kicks it.
 */
static void tern_job_push_queue(struct tern_job *job, bool queue_only)
{
	if (dma_fence_add_callback(job->hw.fence, &job->signal_cb,
				   tern_job_signalled)) {
		/* only the scheduler signals it, once pushed; never lose it */
		WARN_ON_ONCE(1);
		tern_job_signalled(job->hw.fence, &job->signal_cb);
		return;
	}
	if (queue_only)
		tern_sched_queue(job->ctx->sched, &job->hw);
	else
		tern_sched_push(job->ctx->sched, &job->hw);
}

static void tern_job_push(struct tern_job *job)
{
	tern_job_push_queue(job, false);
}

static struct dma_fence *tern_job_run(struct drm_sched_job *sched_job)
{
	struct tern_job *job = to_tern_job(sched_job);
	bool fence_cookie = dma_fence_begin_signalling();

	/*
	 * A failed dependency (an in-fence that signalled with an error, or
	 * the entity killed): do not run, signal that error, in order.
	 */
	job->hw.error = sched_job->s_fence->finished.error ?:
			tern_sync_fences_error(job->deps, job->dep_count);
	tern_job_put_deps(job);
	dma_fence_get(job->hw.fence);
	tern_job_push(job);
	/* after the push: a job submitted next may now bypass drm_sched */
	atomic_dec_return_release(&job->ctx->sched_jobs);
	dma_fence_end_signalling(fence_cookie);
	return job->hw.fence;
}

static void tern_job_free(struct drm_sched_job *sched_job)
{
	tern_job_release(to_tern_job(sched_job));
}

/**
 * tern_job_free_work() - release the finished jobs that did not go through
 *	drm_sched
 * @work: &tern_device.free_work
 *
 * The fallback of tern_job_reap(): releases every job finished since it
 * last ran, when no submission did (the hardware fence's callback only
 * lists the job: it runs where the fence signals, with the scheduler's
 * lock held).
 */
void tern_job_free_work(struct work_struct *work)
{
	struct tern_device *tdev = container_of(to_delayed_work(work),
						struct tern_device, free_work);
	u32 delay = READ_ONCE(tdev->release_delay_us);

	if (delay)
		fsleep(min_t(u32, delay, TERN_RELEASE_DELAY_MAX_US));
	atomic64_inc(&tdev->free_work_runs);
	tern_job_release_listed(tdev, &tdev->jobs_freed_by_work);
}

static enum drm_gpu_sched_stat tern_job_timedout(struct drm_sched_job *sched_job)
{
	/*
	 * The schedulers are created with MAX_SCHEDULE_TIMEOUT: hangs are
	 * found by the scheduler's progress watchdog, which knows whether a long
	 * job still advances.  drm_sched never calls this.
	 */
	return DRM_GPU_SCHED_STAT_NOMINAL;
}

/* drm_sched backend of the jobs: dependencies resolved -> the scheduler */
const struct drm_sched_backend_ops tern_job_sched_ops = {
	.run_job = tern_job_run,
	.timedout_job = tern_job_timedout,
	.free_job = tern_job_free,
};

/*
 * Lock the reservation objects a job's fence goes into, the VM's and its
 * BOs', with a slot reserved in each: one drm_exec transaction, which
 * backs off on contention.  On success the caller ends it with
 * drm_exec_fini(); on error nothing is locked.
 */
static int tern_job_lock_resvs(struct tern_job *job, struct drm_exec *exec)
{
	unsigned int i;
	int ret = 0;

	/* a BO listed twice is locked once */
	drm_exec_init(exec, DRM_EXEC_INTERRUPTIBLE_WAIT |
		      DRM_EXEC_IGNORE_DUPLICATES, job->bo_count + 1);
	drm_exec_until_all_locked(exec) {
		ret = tern_vm_lock_resv(job->ctx->vm, exec, 1);
		drm_exec_retry_on_contention(exec);
		for (i = 0; !ret && i < job->bo_count; i++) {
			ret = drm_exec_prepare_obj(exec, job->bos[i], 1);
			drm_exec_retry_on_contention(exec);
		}
		if (ret)
			break;
	}
	if (ret)
		drm_exec_fini(exec);
	return ret;
}

/* Add what a job's residency moved to its context's counters. */
static void tern_job_count_paging(struct tern_context *ctx,
				  const struct tern_ttm_mover *m)
{
	unsigned long flags;

	if (!m->bytes_in && !m->bytes_out)
		return;
	spin_lock_irqsave(&ctx->state_lock, flags);
	ctx->paging.bytes_in += m->bytes_in;
	ctx->paging.bytes_out += m->bytes_out;
	ctx->paging.evictions += m->evictions;
	ctx->paging.ns += m->paging_ns;
	spin_unlock_irqrestore(&ctx->state_lock, flags);
}

/*
 * Lock the job's reservation objects (tern_job_lock_resvs()) and make its
 * BOs resident (tern_residency_validate()).  A residency that must wait
 * for local memory drops the locks, sleeps a little and tries again, for
 * up to TERN_RESIDENCY_RETRY_MS: then -EAGAIN.  On success the caller ends
 * the transaction with drm_exec_fini(); on error nothing is locked.
 */
static int tern_job_lock_resident(struct tern_device *tdev, struct tern_job *job,
				  struct drm_exec *exec)
{
	struct tern_ttm_mover m = {
		.ctx = {
			.interruptible = true,
			/* a page-out that does not fit fails, not the OOM killer */
			.gfp_retry_mayfail = true,
		},
	};
	bool serial = false;
	unsigned long end;
	int ret;

	ret = tern_job_lock_resvs(job, exec);
	if (ret || !tern_residency_needed(job->bos, job->bo_count))
		return ret;

	tern_ttm_mover_begin(tdev, &m);
	/*
	 * Moving LOCAL BOs in takes local memory: one submit at a time,
	 * outside the reservations (which it locks again).
	 */
	if (tern_residency_must_move(job->bos, job->bo_count)) {
		drm_exec_fini(exec);
		if (mutex_lock_interruptible(&tdev->residency_lock)) {
			ret = -ERESTARTSYS;
			goto out;
		}
		serial = true;
		ret = tern_job_lock_resvs(job, exec);
		if (ret)
			goto out;
	}
	end = jiffies + msecs_to_jiffies(TERN_RESIDENCY_RETRY_MS);
	for (;;) {
		ret = tern_residency_validate(tdev, job->bos, job->bo_count, &m,
					      serial);
		if (ret != -EAGAIN)
			break;
		drm_exec_fini(exec);
		if (time_after(jiffies, end))
			goto out;
		/* PCI remove waits for this ioctl */
		if (drm_dev_is_unplugged(&tdev->drm)) {
			ret = -ENODEV;
			goto out;
		}
		atomic64_inc(&tdev->paging.residency_retries);
		/* the lock is kept: what was paged in stays for the retry */
		if (msleep_interruptible(10)) {
			ret = -ERESTARTSYS;
			goto out;
		}
		ret = tern_job_lock_resvs(job, exec);
		if (ret)
			goto out;
	}
	if (ret)
		drm_exec_fini(exec);
out:
	if (serial)
		mutex_unlock(&tdev->residency_lock);
	tern_ttm_mover_end(tdev, &m);
	/* what moved, moved, even for a job that is not queued after all */
	tern_job_count_paging(job->ctx, &m);
	return ret;
}

/*
 * Look up the in-syncobjs' fences (references in @job->deps).  Return 0
 * and whether all of them signalled already, or a negative errno.
 */
static int tern_job_get_in_syncs(struct tern_job *job, struct drm_file *file,
				 const struct drm_tern_submit *args,
				 bool *signalled)
{
	*signalled = true;
	if (!args->in_sync_count)
		return 0;
	job->deps = kvmalloc_array(args->in_sync_count, sizeof(*job->deps),
				   GFP_KERNEL);
	if (!job->deps)
		return -ENOMEM;
	return tern_sync_in_fences(file, args->in_syncs, args->in_sync_count,
				   job->deps, &job->dep_count, signalled);
}

/* The job waits for its dependencies in drm_sched: set it up there. */
static int tern_job_sched_init(struct tern_job *job, struct tern_file *tfile)
{
	int ret;
	u32 i;

	ret = drm_sched_job_init(&job->base, &job->ctx->entity, 1, tfile,
				 tfile->client_id);
	if (ret)
		return ret;
	for (i = 0; i < job->dep_count; i++) {
		/* takes over a reference of its own */
		ret = drm_sched_job_add_dependency(&job->base,
						   dma_fence_get(job->deps[i]));
		if (ret) {
			drm_sched_job_cleanup(&job->base);
			return ret;
		}
	}
	job->scheduled = true;
	return 0;
}

static int tern_submit_check_args(struct tern_device *tdev,
				  const struct drm_tern_submit *args)
{
	if (args->flags || args->pad)
		return -EINVAL;
	if (!args->cmdbuf_size || args->cmdbuf_size % 4)
		return -EINVAL;
	if (args->cmdbuf_size > tdev->buf_size_max)
		return -E2BIG;
	if (args->bo_count > TERN_MAX_BOS_PER_SUBMIT ||
	    args->in_sync_count > TERN_MAX_SYNCS_PER_SUBMIT ||
	    args->out_sync_count > TERN_MAX_SYNCS_PER_SUBMIT)
		return -EINVAL;
	return 0;
}

/*
 * Everything a job needs that can fail, before the point of no return: the
 * validated copy of the command buffer, the BOs, the in-fences.  On error
 * the job is released (the caller only drops the context reference it
 * gave, which the job then holds, on success or failure).
 */
static struct tern_job *tern_job_create(struct tern_device *tdev,
					struct tern_file *tfile,
					struct drm_file *file,
					struct tern_context *ctx,
					struct drm_tern_submit *args,
					const struct tern_cmd_place *place,
					bool *deps_signalled)
{
	struct tern_validate_error verr = {};
	struct tern_hw_fence *hw_fence;
	struct tern_job *job;
	int ret;

	if (atomic_inc_return(&ctx->pending) > TERN_MAX_JOBS_PER_CONTEXT) {
		atomic_dec(&ctx->pending);
		tern_context_put(ctx);
		return ERR_PTR(-EAGAIN);
	}
	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job) {
		atomic_dec(&ctx->pending);
		tern_context_put(ctx);
		return ERR_PTR(-ENOMEM);
	}
	job->ctx = ctx;	/* the job owns the reference and the pending count now */
	INIT_LIST_HEAD(&job->ctx_link);
	job->counted = true;
	atomic_inc(&tdev->live_jobs);

	job->cmd_size = args->cmdbuf_size;
	job->charge = place ? place->charge : tern_job_own_charge(job->cmd_size);
	if (!tern_job_charge_held(tdev, tfile->usage, job->charge)) {
		ret = -EAGAIN;
		goto err;
	}
	if (atomic64_add_return(job->charge, &tfile->usage->cmd_bytes) >
	    TERN_MAX_QUEUED_BYTES_PER_FILE) {
		atomic64_sub(job->charge, &tfile->usage->cmd_bytes);
		atomic64_sub(job->charge, &tfile->usage->held_bytes);
		ret = -EAGAIN;
		goto err;
	}
	kref_get(&tfile->usage->ref);
	job->usage = tfile->usage;
	job->charged = true;	/* until the fence signals or the job is freed */
	if (place) {
		kref_get(&place->block->ref);
		job->block = place->block;
		job->cmd = job->block->cpu + place->cmd_off;
		job->cmd_dma = job->block->dma + place->cmd_off;
		job->resume_dma = job->block->dma + place->rec_off;
		job->hw.resume_cpu = job->block->cpu + place->rec_off;
		job->hw.batch_key = job->block;
	} else {
		job->cmd = tern_cmd_mem_alloc(tdev,
					      tern_job_cmd_alloc_size(job->cmd_size),
					      &job->cmd_dma);
	}
	if (!job->cmd) {
		ret = -ENOMEM;
		goto err;
	}
	if (place) {
		/* its record is in the block */
	} else if (tern_job_record_inline(job->cmd_size)) {
		job->resume_dma = job->cmd_dma +
				  ALIGN(job->cmd_size, TERN_RESUME_RECORD_SIZE);
		job->hw.resume_cpu = (void *)job->cmd +
				     ALIGN(job->cmd_size, TERN_RESUME_RECORD_SIZE);
	} else {
		ret = tern_job_map_resume(tdev, job);
		if (ret)
			goto err;
		job->hw.resume_cpu = job->resume;
	}
	if (copy_from_user(job->cmd, u64_to_user_ptr(args->cmdbuf),
			   job->cmd_size)) {
		ret = -EFAULT;
		goto err;
	}
	ret = tern_validate_cmdbuf_class(job->cmd, job->cmd_size / 4,
					 ctx->sched->eng->class, &verr);
	if (!ret && job->block)
		job->hw.batchable =
			tern_validate_batchable(job->cmd, job->cmd_size / 4);
	if (ret) {
		args->error_offset = verr.offset;
		args->error_opcode = verr.opcode;
		drm_dbg(&tdev->drm, "command buffer refused at dword %u (opcode 0x%02x): %s\n",
			verr.offset, verr.opcode, verr.reason ?: "invalid");
		goto err;
	}

	if (args->bo_count) {
		ret = drm_gem_objects_lookup(file, u64_to_user_ptr(args->bo_handles),
					     args->bo_count, &job->bos);
		/*
		 * Even when a handle is bad, the objects found before it are
		 * referenced in the (zeroed) array: release puts those.
		 */
		if (job->bos)
			job->bo_count = args->bo_count;
		if (ret)
			goto err;
	}

	hw_fence = kzalloc(sizeof(*hw_fence), GFP_KERNEL);
	if (!hw_fence) {
		ret = -ENOMEM;
		goto err;
	}
	job->hw.fence = &hw_fence->base;

	ret = tern_job_get_in_syncs(job, file, args, deps_signalled);
	if (ret)
		goto err;
	return job;

err:
	tern_job_release(job);
	return ERR_PTR(ret);
}

/* Under the submit lock: seqno, hardware fence, what goes into the slot. */
static void tern_job_arm(struct tern_job *job)
{
	struct tern_context *ctx = job->ctx;

	lockdep_assert_held(&ctx->submit_lock);
	WRITE_ONCE(ctx->next_seqno, tern_context_next_seqno(ctx));
	job->hw.seqno = ctx->next_seqno;
	tern_sched_fence_init(ctx->sched,
			      container_of(job->hw.fence, struct tern_hw_fence, base),
			      ctx->fence_context, job->hw.seqno);
	job->hw.ctx = &ctx->sctx;
	job->hw.cmd = job->cmd;
	job->hw.desc.buf = job->cmd_dma;
	job->hw.desc.buf_size = job->cmd_size;
	job->hw.own_size = job->cmd_size;
	job->hw.batch_jobs = 1;
	job->hw.desc.resume = job->resume_dma;
	job->hw.desc.root = tern_vm_root(ctx->vm);
	job->hw.desc.ctx_tag = ctx->sctx.tag;
	INIT_LIST_HEAD(&job->hw.pjob.link);
}

/*
 * Queue one job (see "DOC: submission"), inside drm_dev_enter().  Fills
 * in @args' outputs.
 */
static int tern_submit_one(struct tern_device *tdev, struct drm_file *file,
			   struct drm_tern_submit *args,
			   const struct tern_cmd_place *place,
			   struct tern_sched **kick)
{
	struct tern_out_sync small_out[TERN_SYNC_INLINE] = {};
	struct tern_file *tfile = to_tern_file(file);
	struct tern_out_sync *out = NULL;
	struct dma_fence *done;
	struct drm_exec exec;
	struct tern_context *ctx;
	bool deps_signalled;
	struct tern_job *job;
	unsigned long flags;
	unsigned int i;
	int ret;

	args->seqno = 0;
	args->error_offset = 0;
	args->error_opcode = 0;
	ret = tern_submit_check_args(tdev, args);
	if (ret)
		return ret;

	ctx = tern_context_lookup(tfile, args->context);
	if (!ctx)
		return -ENOENT;
	if (!tern_context_usable(ctx)) {
		tern_context_put(ctx);
		return -EIO;
	}
	/* from here the job holds the context reference */
	job = tern_job_create(tdev, tfile, file, ctx, args, place, &deps_signalled);
	if (IS_ERR(job))
		return PTR_ERR(job);

	out = tern_sync_out_get(file, args->out_syncs, args->out_sync_count,
				small_out);
	if (IS_ERR(out)) {
		ret = PTR_ERR(out);
		out = NULL;
		goto out_release;
	}
	/*
	 * The context's destruction takes the submit lock to mark it closed
	 * before it cancels its jobs: a job is pushed before that, or not at
	 * all.
	 */
	ret = mutex_lock_interruptible(&ctx->submit_lock);
	if (ret)
		goto out_release;
	if (ctx->closed) {
		ret = -ENOENT;
		goto out_unlock;
	}
	/*
	 * A job whose in-fences all signalled goes to the engine's scheduler
	 * from here, unless an earlier job of the context still waits in
	 * drm_sched: it must not overtake that one.
	 */
	if (!deps_signalled || atomic_read_acquire(&ctx->sched_jobs)) {
		ret = tern_job_sched_init(job, tfile);
		if (ret)
			goto out_unlock;
	}
	ret = tern_job_lock_resident(tdev, job, &exec);
	if (ret)
		goto out_unlock;

	/* point of no return: nothing below fails */
	tern_job_arm(job);
	if (job->scheduled) {
		drm_sched_job_arm(&job->base);
		done = dma_fence_get(&job->base.s_fence->finished);
		/*
		 * A job that depends on this one must wait for it to finish,
		 * not only to reach the engine: the scheduler reorders work
		 * of different contexts on an engine by priority and share.
		 */
		set_bit(DRM_SCHED_FENCE_DONT_PIPELINE, &done->flags);
	} else {
		done = dma_fence_get(job->hw.fence);
	}
	dma_resv_add_fence(tern_vm_resv(ctx->vm), done, DMA_RESV_USAGE_BOOKKEEP);
	for (i = 0; i < job->bo_count; i++)
		dma_resv_add_fence(job->bos[i]->resv, done, DMA_RESV_USAGE_WRITE);
	drm_exec_fini(&exec);

	spin_lock_irqsave(&ctx->state_lock, flags);
	ctx->jobs_submitted++;
	ctx->submitted_seqno = job->hw.seqno;
	list_add_tail(&job->ctx_link, &ctx->jobs);
	spin_unlock_irqrestore(&ctx->state_lock, flags);

	trace_tern_job_submit(ctx->sctx.tag, job->hw.seqno, ctx->sched->eng->id,
			      job->cmd_size, job->bo_count);
	args->seqno = job->hw.seqno;
	/* the job may be finished and freed once pushed */
	if (job->scheduled) {
		atomic_inc(&ctx->sched_jobs);
		drm_sched_entity_push_job(&job->base);
	} else {
		job->hw.error = tern_sync_fences_error(job->deps, job->dep_count);
		tern_job_put_deps(job);
		if (place && place->more && kick) {
			/* the engine outlives the ioctl, the job may not */
			*kick = ctx->sched;
			tern_job_push_queue(job, true);
		} else {
			tern_job_push(job);
		}
	}
	mutex_unlock(&ctx->submit_lock);

	tern_sync_out_signal(out, args->out_sync_count, done);
	tern_sync_out_free(out, args->out_sync_count, small_out);
	dma_fence_put(done);
	return 0;

out_unlock:
	mutex_unlock(&ctx->submit_lock);
out_release:
	tern_sync_out_free(out, args->out_sync_count, small_out);
	tern_job_release(job);
	return ret;
}

/**
 * tern_submit_ioctl() - DRM_IOCTL_TERN_SUBMIT
 * @drm: the DRM device
 * @data: struct drm_tern_submit
 * @file: the DRM file
 *
 * See "DOC: submission".
 *
 * Return: 0 or a negative errno, as documented in the uAPI.
 */
int tern_submit_ioctl(struct drm_device *drm, void *data, struct drm_file *file)
{
	int ret, idx;

	tern_job_reap(to_tern_device(drm));
	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	ret = tern_submit_one(to_tern_device(drm), file, data, NULL, NULL);
	drm_dev_exit(idx);
	return ret;
}

/*
 * The fence a job not released yet gave its out-syncobjs, or NULL; a
 * reference.  Under the context's state lock, which its release takes.
 */
static struct dma_fence *tern_job_find_fence(struct tern_context *ctx,
					     u32 seqno)
{
	struct dma_fence *fence = NULL;
	struct tern_job *job;
	unsigned long flags;
	u32 first, last;

	spin_lock_irqsave(&ctx->state_lock, flags);
	if (list_empty(&ctx->jobs))
		goto out;
	first = list_first_entry(&ctx->jobs, struct tern_job, ctx_link)->hw.seqno;
	last = list_last_entry(&ctx->jobs, struct tern_job, ctx_link)->hw.seqno;
	/* a job released already, most often: no walk with interrupts off */
	if ((s32)(seqno - first) < 0 || (s32)(seqno - last) > 0)
		goto out;
	/* from the nearer end of the list, in seqno order */
	if (seqno - first < last - seqno) {
		list_for_each_entry(job, &ctx->jobs, ctx_link)
			if ((s32)(job->hw.seqno - seqno) >= 0)
				break;
	} else {
		list_for_each_entry_reverse(job, &ctx->jobs, ctx_link)
			if ((s32)(job->hw.seqno - seqno) <= 0)
				break;
	}
	if (job->hw.seqno == seqno)
		fence = dma_fence_get(job->scheduled ?
				      &job->base.s_fence->finished :
				      job->hw.fence);
out:
	spin_unlock_irqrestore(&ctx->state_lock, flags);
	return fence;
}

/*
 * The fence of job @seqno of @ctx into *@fencep (a reference): the job's
 * own until it is released, then a signalled one with its outcome.
 */
static int tern_job_fence(struct tern_context *ctx, u32 seqno,
			  struct dma_fence **fencep)
{
	struct dma_fence *fence;
	unsigned long flags;
	int ret, error;

	/*
	 * Under the submit lock every armed job is listed (or released), and
	 * the context's destruction, which may release jobs that never ran,
	 * has not begun unless it is closed.
	 */
	ret = mutex_lock_interruptible(&ctx->submit_lock);
	if (ret)
		return ret;
	if (ctx->closed) {
		mutex_unlock(&ctx->submit_lock);
		return -ENOENT;
	}
	if (!tern_context_seqno_submitted(ctx, seqno)) {
		mutex_unlock(&ctx->submit_lock);
		return -EINVAL;
	}
	fence = tern_job_find_fence(ctx, seqno);
	mutex_unlock(&ctx->submit_lock);
	if (fence) {
		*fencep = fence;
		return 0;
	}

	/*
	 * Released, so its hardware fence signalled: the scheduler records
	 * the outcome under its lock in the same hold as that signal, which
	 * may still be going on when the job's release already ran.
	 */
	spin_lock_irqsave(&ctx->sched->lock, flags);
	ret = tern_progress_outcome(&ctx->progress.rec, seqno, &error);
	spin_unlock_irqrestore(&ctx->sched->lock, flags);
	if (WARN_ON_ONCE(ret == -EBUSY))
		ret = -ENODATA;
	if (ret)
		return ret;
	fence = tern_sched_fence_done(ctx->sched, ctx->fence_context, seqno,
				      error);
	if (!fence)
		return -ENOMEM;
	*fencep = fence;
	return 0;
}

/**
 * tern_job_fence_ioctl() - DRM_IOCTL_TERN_JOB_FENCE
 * @drm: the DRM device
 * @data: struct drm_tern_job_fence
 * @file: the DRM file
 *
 * Gives a syncobj the fence of a job submitted without an out-syncobj for
 * it: the job's own fence while the job is not released, a signalled one
 * with its outcome after.
 *
 * Return: 0 or a negative errno, as documented in the uAPI.
 */
int tern_job_fence_ioctl(struct drm_device *drm, void *data,
			 struct drm_file *file)
{
	struct drm_tern_job_fence *args = data;
	struct tern_out_sync out = {};
	struct tern_context *ctx;
	struct dma_fence *fence;
	int ret, idx;

	if (args->flags)
		return -EINVAL;
	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	ctx = tern_context_lookup(to_tern_file(file), args->context);
	if (!ctx) {
		ret = -ENOENT;
		goto out_exit;
	}
	/* as an out-sync of SUBMIT: installing the fence cannot fail */
	ret = tern_sync_out_init(file, args->syncobj, args->point, &out);
	if (!ret)
		ret = tern_job_fence(ctx, args->seqno, &fence);
	if (!ret) {
		tern_sync_out_signal(&out, 1, fence);
		dma_fence_put(fence);
	}
	tern_sync_out_free(&out, 1, &out);
	tern_context_put(ctx);
out_exit:
	drm_dev_exit(idx);
	return ret;
}

/* What DRM_IOCTL_TERN_SUBMIT_MANY writes back into each entry it took. */
struct tern_submit_out {
	u32 seqno;
	u32 error_offset;
	u32 error_opcode;
};

static_assert(offsetof(struct drm_tern_submit, error_offset) ==
	      offsetof(struct drm_tern_submit, seqno) + 4);
static_assert(offsetof(struct drm_tern_submit, error_opcode) ==
	      offsetof(struct drm_tern_submit, seqno) + 8);

/*
 * A group of entries whose copies go into one &tern_cmd_block: consecutive,
 * on one context, each without in-syncs (it goes to the scheduler from the
 * ioctl), each a plausible size, TERN_BATCH_MAX_JOBS and
 * TERN_BATCH_MAX_BYTES at most.  The checks that refuse an entry are
 * still those of tern_submit_one().
 */
static bool tern_submit_groupable(const struct drm_tern_submit *sub,
				  const struct tern_device *tdev)
{
	return !sub->in_sync_count && sub->cmdbuf_size &&
	       !(sub->cmdbuf_size % 4) && sub->cmdbuf_size <= tdev->buf_size_max;
}

/*
 * The block of the group starting at entry @first (NULL when the group
 * is a single entry, or the memory is not there: those entries get copies
 * of their own); *@end is the entry after the group.
 */
static struct tern_cmd_block *tern_submit_group(struct tern_device *tdev,
						const struct drm_tern_submit *subs,
						u32 first, u32 count, u32 *end)
{
	size_t bytes = subs[first].cmdbuf_size;
	u32 i = first + 1;

	if (tern_submit_groupable(&subs[first], tdev)) {
		while (i < count && i - first < TERN_BATCH_MAX_JOBS &&
		       subs[i].context == subs[first].context &&
		       tern_submit_groupable(&subs[i], tdev) &&
		       bytes + subs[i].cmdbuf_size <= TERN_BATCH_MAX_BYTES) {
			bytes += subs[i].cmdbuf_size;
			i++;
		}
	}
	*end = i;
	if (i - first < 2)
		return NULL;
	return tern_cmd_block_alloc(tdev, bytes, i - first);
}

/* What entries @first .. @end - 1 of a group are charged. */
static size_t tern_submit_group_charge(const struct drm_tern_submit *subs,
				       u32 first, u32 end)
{
	size_t charge = 0;

	for (; first < end; first++)
		charge += subs[first].cmdbuf_size + TERN_RESUME_RECORD_SIZE;
	return charge;
}

/**
 * tern_submit_many_ioctl() - DRM_IOCTL_TERN_SUBMIT_MANY
 * @drm: the DRM device
 * @data: struct drm_tern_submit_many
 * @file: the DRM file
 *
 * Each entry is queued as DRM_IOCTL_TERN_SUBMIT queues it, in array order,
 * until one fails: what this saves is the system call, the copy of the
 * ioctl argument and drm_dev_enter() per job, not any check.
 *
 * Return: 0 when at least one entry was queued (&drm_tern_submit_many.error
 * tells why the rest was not), else a negative errno.
 */
int tern_submit_many_ioctl(struct drm_device *drm, void *data,
			   struct drm_file *file)
{
	struct tern_device *tdev = to_tern_device(drm);
	struct drm_tern_submit_many *args = data;
	struct tern_cmd_block *block = NULL;
	struct tern_sched *kick = NULL;
	struct drm_tern_submit *subs;
	u32 i, done = 0, group_end = 0;
	void __user *uout;
	size_t cmd_off = 0;
	int ret = 0, idx;

	args->submitted = 0;
	args->error = 0;
	if (args->flags || args->pad || args->stride != sizeof(*subs) ||
	    !args->count || args->count > DRM_TERN_SUBMIT_MANY_MAX)
		return -EINVAL;

	subs = kvmalloc_array(args->count, sizeof(*subs), GFP_KERNEL);
	if (!subs)
		return -ENOMEM;
	if (copy_from_user(subs, u64_to_user_ptr(args->submits),
			   array_size(args->count, sizeof(*subs)))) {
		kvfree(subs);
		return -EFAULT;
	}

	tern_job_reap(tdev);
	if (!drm_dev_enter(drm, &idx)) {
		kvfree(subs);
		return -ENODEV;
	}
	for (i = 0; i < args->count; i++) {
		struct tern_cmd_place place, *pl = NULL;

		/* a killed process stops queueing */
		if (done && fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		if (i == group_end) {
			tern_cmd_block_put(block);
			block = tern_submit_group(tdev, subs, i, args->count,
						  &group_end);
			cmd_off = 0;
		}
		if (block) {
			place.block = block;
			place.cmd_off = cmd_off;
			place.rec_off = block->size -
					(group_end - i) * TERN_RESUME_RECORD_SIZE;
			/* the first job counts what the block took beyond */
			place.charge = cmd_off ?
				tern_submit_group_charge(subs, i, i + 1) :
				tern_cmd_mem_charge(block->size) -
				tern_submit_group_charge(subs, i + 1, group_end);
			cmd_off += subs[i].cmdbuf_size;
			place.more = i + 1 < group_end;
			pl = &place;
		}
		ret = tern_submit_one(tdev, file, &subs[i], pl, &kick);
		/* the group's jobs are queued: now the policy may batch them */
		if (kick && (ret || !pl || !pl->more)) {
			tern_sched_kick(kick);
			kick = NULL;
		}
		if (ret)
			break;
		done++;
	}
	if (kick)
		tern_sched_kick(kick);
	tern_cmd_block_put(block);
	drm_dev_exit(idx);

	/* a restart would queue the first @done entries again */
	if (done && (ret == -ERESTARTSYS || ret == -EINTR))
		ret = -EINTR;
	args->submitted = done;
	/* the kernel's restart code never reaches userspace */
	args->error = ret == -ERESTARTSYS ? -EINTR : ret;

	/* the seqnos of the queued entries, the refusal of the one after */
	uout = u64_to_user_ptr(args->submits) +
	       offsetof(struct drm_tern_submit, seqno);
	for (i = 0; i < min(done + 1, args->count); i++) {
		struct tern_submit_out o = {
			.seqno = subs[i].seqno,
			.error_offset = subs[i].error_offset,
			.error_opcode = subs[i].error_opcode,
		};

		if (copy_to_user(uout + (size_t)i * sizeof(*subs), &o,
				 sizeof(o))) {
			kvfree(subs);
			return -EFAULT;
		}
	}
	kvfree(subs);
	return done ? 0 : ret;
}
