// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 */

#include <linux/capability.h>
#include <linux/dma-fence.h>
#include <linux/err.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_print.h>

#include <drm/tern_accel.h>

#include "tern_context.h"
#include "tern_device.h"
#include "tern_drv.h"
#include "tern_gem.h"
#include "tern_vm.h"

/**
 * DOC: contexts
 *
 * A context is a queue of work for one engine, created by an open file with
 * a priority, an engine class and a hang timeout.  At creation it is bound,
 * for its whole life, to the engine the caller named
 * (DRM_TERN_CONTEXT_CREATE_ENGINE) or else to the engine of its class that
 * has the fewest contexts at that moment, and gets a drm_sched entity on
 * that engine's scheduler.
 *
 * A context is reference counted: its handle in the file holds one
 * reference and every job that has not been freed holds one, so a context
 * destroyed with work in flight lives until that work is done.  Destroying
 * it (the ioctl, or closing the file) cancels its jobs that did not start
 * and lets the ones on the engine finish.
 *
 * The scheduler reports what happens to the context's jobs through
 * &tern_sched_ctx_ops: a fault moves it to FAULTED, a hang to BANNED (both
 * refuse further submissions with -EIO), a reset caused by another context
 * to RESET (still usable; the interrupted job runs again).
 */

/*
 * Every entity has the same drm_sched priority: drm_sched only resolves
 * dependencies and hands ready jobs over in the order they became ready;
 * the context's priority is tern's scheduler's business (tern_policy.c).
 * With drm_sched's priority run queues, a stream of HIGH submissions would
 * hold back the hand-over of a LOW job indefinitely, out of reach of the
 * policy's starvation bound.
 */
#define TERN_DRM_SCHED_PRIORITY	DRM_SCHED_PRIORITY_NORMAL

/* every flag of DRM_IOCTL_TERN_CONTEXT_CREATE that this version knows */
#define TERN_CONTEXT_CREATE_FLAGS	(DRM_TERN_CONTEXT_CREATE_ENGINE | \
					 DRM_TERN_CONTEXT_CREATE_PROGRESS | \
					 DRM_TERN_CONTEXT_CREATE_PROGRESS_VA)

static struct tern_context *sctx_to_ctx(struct tern_sched_ctx *sctx)
{
	return container_of(sctx, struct tern_context, sctx);
}

static void tern_context_job_completed(struct tern_sched_ctx *sctx,
				       struct tern_sched_job *job, u64 run_ns)
{
	struct tern_context *ctx = sctx_to_ctx(sctx);

	spin_lock(&ctx->state_lock);
	ctx->jobs_completed++;
	ctx->busy_ns += run_ns;
	spin_unlock(&ctx->state_lock);
}

static void tern_context_job_faulted(struct tern_sched_ctx *sctx,
				     struct tern_sched_job *job,
				     const struct tern_fault_info *fault,
				     u64 run_ns)
{
	struct tern_context *ctx = sctx_to_ctx(sctx);

	spin_lock(&ctx->state_lock);
	ctx->busy_ns += run_ns;
	if (ctx->state != DRM_TERN_CONTEXT_FAULTED &&
	    ctx->state != DRM_TERN_CONTEXT_BANNED) {
		ctx->state = DRM_TERN_CONTEXT_FAULTED;
		ctx->reason = DRM_TERN_REASON_FAULT;
		ctx->fault_kind = TERN_FAULT_KIND(fault->info);
		ctx->fault_offset = TERN_FAULT_OFFSET(fault->info);
		ctx->fault_addr = fault->addr;
		ctx->fault_seqno = job->seqno;
		tern_progress_set_state(&ctx->progress, ctx->state);
	}
	spin_unlock(&ctx->state_lock);
}

static void tern_context_job_hung(struct tern_sched_ctx *sctx,
				  struct tern_sched_job *job)
{
	struct tern_context *ctx = sctx_to_ctx(sctx);

	spin_lock(&ctx->state_lock);
	ctx->reset_count++;
	if (ctx->state != DRM_TERN_CONTEXT_FAULTED &&
	    ctx->state != DRM_TERN_CONTEXT_BANNED) {
		ctx->state = DRM_TERN_CONTEXT_BANNED;
		ctx->reason = DRM_TERN_REASON_HANG;
		ctx->fault_seqno = job->seqno;
		tern_progress_set_state(&ctx->progress, ctx->state);
	}
	spin_unlock(&ctx->state_lock);
}

static void tern_context_job_reset(struct tern_sched_ctx *sctx,
				   struct tern_sched_job *job)
{
	struct tern_context *ctx = sctx_to_ctx(sctx);

	spin_lock(&ctx->state_lock);
	ctx->reset_count++;
	if (ctx->state == DRM_TERN_CONTEXT_ACTIVE) {
		ctx->state = DRM_TERN_CONTEXT_RESET;
		ctx->reason = DRM_TERN_REASON_INNOCENT_RESET;
		tern_progress_set_state(&ctx->progress, ctx->state);
	}
	spin_unlock(&ctx->state_lock);
}

static void tern_context_job_preempted(struct tern_sched_ctx *sctx,
				       struct tern_sched_job *job, u64 run_ns)
{
	struct tern_context *ctx = sctx_to_ctx(sctx);

	spin_lock(&ctx->state_lock);
	ctx->preemptions++;
	ctx->busy_ns += run_ns;
	spin_unlock(&ctx->state_lock);
}

static void tern_context_job_finished(struct tern_sched_ctx *sctx, u32 seqno,
				      int error)
{
	tern_progress_finished(&sctx_to_ctx(sctx)->progress, seqno, error);
}

static const struct tern_sched_ctx_ops tern_context_sched_ops = {
	.completed = tern_context_job_completed,
	.faulted = tern_context_job_faulted,
	.hung = tern_context_job_hung,
	.reset = tern_context_job_reset,
	.preempted = tern_context_job_preempted,
	.finished = tern_context_job_finished,
};

/* The progress record of a new context, and its page if @page. */
static int tern_context_progress_init(struct tern_context *ctx,
				      struct drm_file *file, bool page,
				      u64 *offset)
{
	void *vaddr = NULL;
	struct tern_bo *bo;

	*offset = 0;
	if (page) {
		bo = tern_bo_create_kernel(&ctx->tdev->drm, file,
					   DRM_TERN_PROGRESS_SIZE, &vaddr, offset);
		if (IS_ERR(bo))
			return PTR_ERR(bo);
		ctx->progress_bo = bo;
		ctx->progress_file = file;
	}
	tern_progress_init(&ctx->progress, vaddr);
	return 0;
}

/* The handle is gone: the file may no longer map the page. */
static void tern_context_progress_revoke(struct tern_context *ctx)
{
	if (ctx->progress_file) {
		tern_bo_revoke_file(ctx->progress_bo, ctx->progress_file);
		ctx->progress_file = NULL;
	}
}

/* No job of the context is left: the page is final. */
static void tern_context_progress_fini(struct tern_context *ctx)
{
	void *page = ctx->progress.page;

	tern_context_progress_revoke(ctx);
	tern_progress_close(&ctx->progress);
	if (ctx->progress_bo)
		tern_bo_free_kernel(ctx->progress_bo, page);
}

static void tern_context_free(struct tern_context *ctx, bool deferred)
{
	struct tern_device *tdev = ctx->tdev;

	mutex_lock(&tdev->contexts_lock);
	list_del(&ctx->link);
	mutex_unlock(&tdev->contexts_lock);

	/* no job is left: the entity is idle, nothing is killed */
	WARN_ON(!list_empty(&ctx->jobs));
	drm_sched_entity_fini(&ctx->entity);
	tern_sched_ctx_fini(&ctx->sctx);
	tern_context_progress_fini(ctx);
	/* a PCI remove waits for these; the device is alive until the put */
	if (deferred && atomic_dec_and_test(&tdev->releasing_contexts))
		wake_up_all(&tdev->jobs_idle);
	/* may be the last reference of the DRM device */
	tern_vm_put(ctx->vm);
	mutex_destroy(&ctx->submit_lock);
	/* a lookup may still be reading ctx->ref */
	kfree_rcu(ctx, rcu);
	module_put(THIS_MODULE);
}

static void tern_context_release_work(struct work_struct *work)
{
	tern_context_free(container_of(work, struct tern_context, release_work),
			  true);
}

/* The handle held the last reference: free the context at once. */
static void tern_context_release_now(struct kref *ref)
{
	tern_context_free(container_of(ref, struct tern_context, ref), false);
}

/*
 * The last reference often goes in drm_sched's free_job, on the workqueue
 * that the DRM device's release drains, and the address space's release
 * waits for fences: release the context from a work item of its own, which
 * keeps the module until it ran.
 */
static void tern_context_release(struct kref *ref)
{
	struct tern_context *ctx = container_of(ref, struct tern_context, ref);

	atomic_inc(&ctx->tdev->releasing_contexts);
	INIT_WORK(&ctx->release_work, tern_context_release_work);
	queue_work(system_unbound_wq, &ctx->release_work);
}

/**
 * tern_context_put() - drop a reference to a context
 * @ctx: the context
 */
void tern_context_put(struct tern_context *ctx)
{
	kref_put(&ctx->ref, tern_context_release);
}

/**
 * tern_context_lookup() - find a context of a file and take a reference
 * @tfile: the file
 * @handle: the context's handle
 *
 * Without the file's lock: the contexts are freed after an RCU grace
 * period, and a context whose last reference is gone is not taken.  A
 * handle reserved by a creation in progress is no context yet (NULL).
 *
 * Return: the context, or NULL if the file has no such context.
 */
struct tern_context *tern_context_lookup(struct tern_file *tfile, u32 handle)
{
	struct tern_context *ctx;

	rcu_read_lock();
	ctx = xa_load(&tfile->contexts, handle);
	if (ctx && !kref_get_unless_zero(&ctx->ref))
		ctx = NULL;
	rcu_read_unlock();
	return ctx;
}

/**
 * tern_context_usable() - may the context take more work?
 * @ctx: the context
 *
 * Return: false once the context faulted or was banned.
 */
bool tern_context_usable(struct tern_context *ctx)
{
	unsigned long flags;
	bool usable;

	spin_lock_irqsave(&ctx->state_lock, flags);
	usable = ctx->state == DRM_TERN_CONTEXT_ACTIVE ||
		 ctx->state == DRM_TERN_CONTEXT_RESET;
	spin_unlock_irqrestore(&ctx->state_lock, flags);
	return usable;
}

/*
 * The engine a new context runs on: with DRM_TERN_CONTEXT_CREATE_ENGINE the
 * one the caller named, which must exist and be of @class (ERR_PTR(-EINVAL)
 * otherwise); else the engine of @class with the fewest contexts, leaving
 * out engines lost to a failed reset (NULL if the device has none).
 * Either way the engine's count of contexts counts the new one before
 * anyone else looks, so that contexts created at the same time spread over
 * the engines; the caller gives it back if the creation fails.
 */
static struct tern_sched *
tern_context_pick_engine(struct tern_device *tdev,
			 const struct drm_tern_context_create *args)
{
	u32 class = args->engine_class;
	struct tern_sched *best = NULL;
	unsigned int i;

	if (args->flags & DRM_TERN_CONTEXT_CREATE_ENGINE) {
		if (args->engine >= tdev->engine_count)
			return ERR_PTR(-EINVAL);
		/* a user index: no speculative access past the engines */
		i = array_index_nospec(args->engine, tdev->engine_count);
		if (tdev->engines[i].class != class)
			return ERR_PTR(-EINVAL);
		atomic_inc(&tdev->sched[i].ctx_count);
		return &tdev->sched[i];
	}

	mutex_lock(&tdev->contexts_lock);
	for (i = 0; i < tdev->engine_count; i++) {
		struct tern_sched *s = &tdev->sched[i];

		if (tdev->engines[i].class != class || READ_ONCE(s->stopped))
			continue;
		if (!best || atomic_read(&s->ctx_count) < atomic_read(&best->ctx_count))
			best = s;
	}
	if (best)
		atomic_inc(&best->ctx_count);
	mutex_unlock(&tdev->contexts_lock);
	return best;
}

/*
 * A context above the defaults (priority above NORMAL, weight above
 * DRM_TERN_WEIGHT_DEFAULT) takes device time from every other user of the
 * engine, so it needs CAP_SYS_NICE, as raising a task's priority does;
 * lowering is free.  This is amdgpu_ctx_priority_permit()'s rule without its
 * DRM-master exception: an accel file is never a DRM master.
 */
static int tern_context_permit(u32 priority, u32 weight)
{
	if (priority <= DRM_TERN_PRIORITY_NORMAL &&
	    weight <= DRM_TERN_WEIGHT_DEFAULT)
		return 0;
	if (capable(CAP_SYS_NICE))
		return 0;
	return -EACCES;
}

/**
 * tern_context_create_ioctl() - DRM_IOCTL_TERN_CONTEXT_CREATE
 * @drm: the DRM device
 * @data: struct drm_tern_context_create
 * @file: the DRM file
 *
 * Return: 0 or a negative errno, as documented in the uAPI.
 */
int tern_context_create_ioctl(struct drm_device *drm, void *data,
			      struct drm_file *file)
{
	struct tern_device *tdev = to_tern_device(drm);
	struct tern_file *tfile = to_tern_file(file);
	struct drm_tern_context_create *args = data;
	struct drm_gpu_scheduler *sched_list[1];
	struct tern_context *ctx;
	struct tern_sched *sched;
	bool entered = true;
	u32 timeout_ms;
	int ret, idx;

	if ((args->flags & ~TERN_CONTEXT_CREATE_FLAGS) ||
	    ((args->flags & DRM_TERN_CONTEXT_CREATE_PROGRESS_VA) &&
	     !(args->flags & DRM_TERN_CONTEXT_CREATE_PROGRESS)) ||
	    (!(args->flags & DRM_TERN_CONTEXT_CREATE_PROGRESS_VA) &&
	     args->progress_va) ||
	    args->priority > DRM_TERN_PRIORITY_HIGH ||
	    args->engine_class > DRM_TERN_ENGINE_CLASS_COPY ||
	    args->timeout_ms > TERN_MAX_TIMEOUT_MS ||
	    args->weight > DRM_TERN_WEIGHT_MAX || args->pad)
		return -EINVAL;
	ret = tern_context_permit(args->priority, args->weight);
	if (ret)
		return ret;
	timeout_ms = args->timeout_ms ?: TERN_DEFAULT_TIMEOUT_MS;

	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;

	sched = tern_context_pick_engine(tdev, args);
	if (IS_ERR_OR_NULL(sched)) {
		ret = sched ? PTR_ERR(sched) : -ENODEV;
		goto out_exit;
	}

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx) {
		ret = -ENOMEM;
		goto out_uncount;
	}
	kref_init(&ctx->ref);
	__module_get(THIS_MODULE);	/* dropped when the context is freed */
	ctx->tdev = tdev;
	ctx->priority = args->priority;
	ctx->engine_class = args->engine_class;
	ctx->timeout_ms = timeout_ms;
	ctx->weight = args->weight ?: DRM_TERN_WEIGHT_DEFAULT;
	ctx->sched = sched;
	ctx->sctx.ops = &tern_context_sched_ops;
	ctx->sctx.tag = atomic_inc_return(&tdev->next_ctx_tag);
	ctx->sctx.timeout_ns = (u64)timeout_ms * NSEC_PER_MSEC;
	ctx->fence_context = dma_fence_context_alloc(1);
	mutex_init(&ctx->submit_lock);
	spin_lock_init(&ctx->state_lock);
	atomic_set(&ctx->pending, 0);
	INIT_LIST_HEAD(&ctx->jobs);
	INIT_LIST_HEAD(&ctx->link);
	ret = tern_context_progress_init(ctx, file,
					 args->flags & DRM_TERN_CONTEXT_CREATE_PROGRESS,
					 &args->progress_offset);
	if (ret)
		goto out_free;

	sched_list[0] = &sched->drm->base;
	ret = drm_sched_entity_init(&ctx->entity,
				    TERN_DRM_SCHED_PRIORITY,
				    sched_list, 1, NULL);
	if (ret)
		goto out_free;
	tern_sched_ctx_init(sched, &ctx->sctx, ctx->priority, ctx->weight);

	/*
	 * The handle is reserved (a lookup finds nothing) until the last step
	 * that can fail, the page's mapping, made without tern locks held, is
	 * done; then the context is published.
	 */
	mutex_lock(&tfile->lock);
	if (tfile->context_count >= TERN_MAX_CONTEXTS_PER_FILE) {
		ret = -EMFILE;
		goto out_unlock;
	}
	/*
	 * Not xa_limit_32b: erasing index 0 (a destroy of handle 0) marks it
	 * free even in an XA_FLAGS_ALLOC1 array, and 0 is no valid handle.
	 */
	ret = xa_alloc_cyclic(&tfile->contexts, &ctx->handle, NULL,
			      XA_LIMIT(1, U32_MAX), &tfile->next_context,
			      GFP_KERNEL);
	if (ret < 0)
		goto out_unlock;
	tfile->context_count++;
	mutex_unlock(&tfile->lock);

	if (args->flags & DRM_TERN_CONTEXT_CREATE_PROGRESS_VA) {
		/*
		 * Not inside drm_dev_enter(): the map waits for the binds
		 * queued before it, which may wait for jobs that PCI remove
		 * ends once no ioctl is inside.  If the device went meanwhile,
		 * the mapping (its BO pinned) stays with the address space
		 * until the file is closed.
		 */
		drm_dev_exit(idx);
		ret = tern_vm_map_read_only(tfile->vm, ctx->progress_bo,
					    args->progress_va,
					    DRM_TERN_PROGRESS_SIZE);
		entered = drm_dev_enter(drm, &idx);
		if (!ret && !entered)
			ret = -ENODEV;
		if (ret)
			goto out_unreserve;
	}

	mutex_lock(&tfile->lock);
	/*
	 * Complete before it is published: tern_context_lookup() takes it
	 * from the array without the file's lock, and the store orders the
	 * writes before it.
	 */
	ctx->vm = tern_vm_get(tfile->vm);
	/* into the reserved entry: no allocation, nothing to fail */
	WARN_ON(xa_store(&tfile->contexts, ctx->handle, ctx, GFP_KERNEL));
	mutex_lock(&tdev->contexts_lock);
	list_add_tail(&ctx->link, &tdev->contexts);
	mutex_unlock(&tdev->contexts_lock);
	mutex_unlock(&tfile->lock);

	args->handle = ctx->handle;
	args->engine = sched->eng->id;
	drm_dev_exit(idx);
	return 0;

out_unreserve:
	mutex_lock(&tfile->lock);
	xa_erase(&tfile->contexts, ctx->handle);
	tfile->context_count--;
out_unlock:
	mutex_unlock(&tfile->lock);
	drm_sched_entity_destroy(&ctx->entity);
	tern_sched_ctx_fini(&ctx->sctx);
out_free:
	tern_context_progress_fini(ctx);
	mutex_destroy(&ctx->submit_lock);
	kfree(ctx);
	module_put(THIS_MODULE);
out_uncount:
	atomic_dec(&sched->ctx_count);
out_exit:
	if (entered)
		drm_dev_exit(idx);
	return ret;
}

/* The handle is gone: cancel what did not start, drop the handle's reference. */
static void tern_context_close(struct tern_context *ctx)
{
	/* a submit that holds a reference pushes before this, or not at all */
	mutex_lock(&ctx->submit_lock);
	ctx->closed = true;
	mutex_unlock(&ctx->submit_lock);

	tern_context_progress_revoke(ctx);
	tern_sched_ctx_cancel(&ctx->sctx, -ECANCELED);
	/*
	 * The entity stays until the context is freed: its flush would wait,
	 * killable only, until every job of it got past its in-fences, which
	 * may be another context's job that waits for this very process, and
	 * killing its jobs would let their fences signal out of order.  Jobs
	 * still waiting for in-fences reach run_job once those signalled and
	 * are cancelled there, in order, like the others.
	 */
	atomic_dec(&ctx->sched->ctx_count);
	/*
	 * In process context here: when no job holds the context any more,
	 * it goes before the ioctl or the file's release returns (a device
	 * removed and rescanned right after gets its minor back).
	 */
	kref_put(&ctx->ref, tern_context_release_now);
}

/* Keep the device time of a context that leaves the file; file lock held. */
static void tern_context_retire(struct tern_file *tfile, struct tern_context *ctx)
{
	unsigned long flags;

	lockdep_assert_held(&tfile->lock);
	tfile->context_count--;
	spin_lock_irqsave(&ctx->state_lock, flags);
	tfile->retired_busy_ns[ctx->engine_class] += ctx->busy_ns;
	spin_unlock_irqrestore(&ctx->state_lock, flags);
}

/**
 * tern_context_destroy_ioctl() - DRM_IOCTL_TERN_CONTEXT_DESTROY
 * @drm: the DRM device
 * @data: struct drm_tern_context_destroy
 * @file: the DRM file
 *
 * Return: 0 or a negative errno, as documented in the uAPI.
 */
int tern_context_destroy_ioctl(struct drm_device *drm, void *data,
			       struct drm_file *file)
{
	struct tern_file *tfile = to_tern_file(file);
	struct drm_tern_context_destroy *args = data;
	struct tern_context *ctx;

	if (args->pad)
		return -EINVAL;

	mutex_lock(&tfile->lock);
	/* a handle reserved by a creation in progress is no context yet */
	ctx = xa_load(&tfile->contexts, args->handle);
	if (ctx) {
		xa_erase(&tfile->contexts, args->handle);
		tern_context_retire(tfile, ctx);
	}
	mutex_unlock(&tfile->lock);
	if (!ctx)
		return -ENOENT;

	tern_context_close(ctx);
	return 0;
}

/**
 * tern_context_destroy_all() - destroy every context of a closing file
 * @tfile: the file
 */
void tern_context_destroy_all(struct tern_file *tfile)
{
	struct tern_context *ctx;
	unsigned long handle;

	mutex_lock(&tfile->lock);
	xa_for_each(&tfile->contexts, handle, ctx) {
		xa_erase(&tfile->contexts, handle);
		tern_context_retire(tfile, ctx);
		tern_context_close(ctx);
	}
	mutex_unlock(&tfile->lock);
}

/**
 * tern_context_get_state_ioctl() - DRM_IOCTL_TERN_CONTEXT_GET_STATE
 * @drm: the DRM device
 * @data: struct drm_tern_context_get_state
 * @file: the DRM file
 *
 * Return: 0 or a negative errno, as documented in the uAPI.
 */
int tern_context_get_state_ioctl(struct drm_device *drm, void *data,
				 struct drm_file *file)
{
	struct drm_tern_context_get_state *args = data;
	struct tern_context *ctx;
	unsigned long flags;

	if (args->flags)
		return -EINVAL;

	ctx = tern_context_lookup(to_tern_file(file), args->handle);
	if (!ctx)
		return -ENOENT;

	spin_lock_irqsave(&ctx->state_lock, flags);
	args->state = ctx->state;
	args->reason = ctx->reason;
	args->fault_kind = ctx->fault_kind;
	args->fault_offset = ctx->fault_offset;
	args->fault_addr = ctx->fault_addr;
	args->fault_seqno = ctx->fault_seqno;
	args->reset_count = ctx->reset_count;
	args->jobs_submitted = ctx->jobs_submitted;
	args->jobs_completed = ctx->jobs_completed;
	args->busy_ns = ctx->busy_ns;
	args->preemptions = ctx->preemptions;
	args->paging_bytes_in = ctx->paging.bytes_in;
	args->paging_bytes_out = ctx->paging.bytes_out;
	args->evictions = ctx->paging.evictions;
	args->paging_ns = ctx->paging.ns;
	spin_unlock_irqrestore(&ctx->state_lock, flags);

	tern_context_put(ctx);
	return 0;
}

/**
 * tern_context_seqno_submitted() - was a job of this seqno submitted?
 * @ctx: the context
 * @seqno: a seqno from user space
 *
 * Seqnos count from 1 and skip 0 when they wrap: the last
 * &tern_context.jobs_submitted of them, up to
 * &tern_context.submitted_seqno, were handed out (at most 2^31 back, where
 * "before" still has a meaning).
 *
 * Return: true if @seqno is one of them.
 */
bool tern_context_seqno_submitted(struct tern_context *ctx, u32 seqno)
{
	unsigned long flags;
	u64 submitted;
	u32 behind;

	if (!seqno)
		return false;
	/* both counted together, once the job is queued */
	spin_lock_irqsave(&ctx->state_lock, flags);
	submitted = ctx->jobs_submitted;
	behind = ctx->submitted_seqno - seqno;
	spin_unlock_irqrestore(&ctx->state_lock, flags);
	return behind < min_t(u64, submitted, 1u << 31);
}

/**
 * tern_context_wait_ioctl() - DRM_IOCTL_TERN_WAIT
 * @drm: the DRM device
 * @data: struct drm_tern_wait
 * @file: the DRM file
 *
 * Sleeps on the context's progress record, interruptibly and outside
 * drm_dev_enter(): a PCI remove signals the jobs of the engines (-ENODEV),
 * which ends the wait; a job that still waits for in-fences signals once
 * those did.
 *
 * Return: 0 or a negative errno, as documented in the uAPI.
 */
int tern_context_wait_ioctl(struct drm_device *drm, void *data,
			    struct drm_file *file)
{
	struct drm_tern_wait *args = data;
	struct tern_context *ctx;
	unsigned long flags;
	ktime_t timeout;
	int ret, error, idx;

	args->error = 0;
	if (args->flags)
		return -EINVAL;

	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	ctx = tern_context_lookup(to_tern_file(file), args->context);
	drm_dev_exit(idx);
	if (!ctx)
		return -ENOENT;

	if (!tern_context_seqno_submitted(ctx, args->seqno)) {
		ret = -EINVAL;
		goto out_put;
	}
	if (!tern_progress_done(&ctx->progress, args->seqno)) {
		timeout = ktime_sub(ns_to_ktime(args->timeout_ns), ktime_get());
		if (ktime_to_ns(timeout) <= 0) {
			ret = -ETIME;
			goto out_put;
		}
		ret = wait_event_interruptible_hrtimeout(ctx->progress.wq,
							 tern_progress_done(&ctx->progress,
									    args->seqno),
							 timeout);
		if (ret)
			goto out_put;
	}
	spin_lock_irqsave(&ctx->sched->lock, flags);
	ret = tern_progress_outcome(&ctx->progress.rec, args->seqno, &error);
	spin_unlock_irqrestore(&ctx->sched->lock, flags);
	args->error = error;
out_put:
	tern_context_put(ctx);
	return ret;
}

/**
 * tern_context_next_seqno() - the seqno the context's next job gets
 * @ctx: the context, its submit lock held
 *
 * 0 means "none" on the progress record: it is skipped when seqnos wrap.
 *
 * Return: the seqno.
 */
u32 tern_context_next_seqno(const struct tern_context *ctx)
{
	lockdep_assert_held(&ctx->submit_lock);
	return ctx->next_seqno + 1 ?: 1;
}

/**
 * tern_context_busy_ns() - device time used by a file, per engine class
 * @tfile: the file
 * @busy_ns_per_class: array of DRM_TERN_ENGINE_CLASS_COPY + 1 entries,
 *	filled in
 *
 * Destroyed contexts count with the time they had used when destroyed.
 */
void tern_context_busy_ns(struct tern_file *tfile, u64 *busy_ns_per_class)
{
	struct tern_context *ctx;
	unsigned long handle, flags;

	mutex_lock(&tfile->lock);
	busy_ns_per_class[DRM_TERN_ENGINE_CLASS_COMPUTE] =
		tfile->retired_busy_ns[DRM_TERN_ENGINE_CLASS_COMPUTE];
	busy_ns_per_class[DRM_TERN_ENGINE_CLASS_COPY] =
		tfile->retired_busy_ns[DRM_TERN_ENGINE_CLASS_COPY];
	xa_for_each(&tfile->contexts, handle, ctx) {
		spin_lock_irqsave(&ctx->state_lock, flags);
		busy_ns_per_class[ctx->engine_class] += ctx->busy_ns;
		spin_unlock_irqrestore(&ctx->state_lock, flags);
	}
	mutex_unlock(&tfile->lock);
}

static const char *const tern_context_state_names[] = {
	[DRM_TERN_CONTEXT_ACTIVE] = "active",
	[DRM_TERN_CONTEXT_RESET] = "reset",
	[DRM_TERN_CONTEXT_FAULTED] = "faulted",
	[DRM_TERN_CONTEXT_BANNED] = "banned",
};

/**
 * tern_context_debugfs_show() - list every context of the device
 * @tdev: the device
 * @p: where to print
 */
void tern_context_debugfs_show(struct tern_device *tdev, struct drm_printer *p)
{
	struct tern_context *ctx;
	unsigned long flags;

	mutex_lock(&tdev->contexts_lock);
	list_for_each_entry(ctx, &tdev->contexts, link) {
		spin_lock_irqsave(&ctx->state_lock, flags);
		drm_printf(p, "ctx tag %u handle %u vm %u engine %u ",
			   ctx->sctx.tag, ctx->handle, tern_vm_id(ctx->vm),
			   ctx->sched->eng->id);
		drm_printf(p, "prio %u weight %u timeout %ums: ", ctx->priority,
			   ctx->weight, ctx->timeout_ms);
		drm_printf(p, "%s reason %u, jobs %llu/%llu (pending %d, ",
			   tern_context_state_names[ctx->state], ctx->reason,
			   ctx->jobs_completed, ctx->jobs_submitted,
			   atomic_read(&ctx->pending));
		drm_printf(p, "in drm_sched %d, finished up to %u), ",
			   atomic_read(&ctx->sched_jobs),
			   READ_ONCE(ctx->progress.rec.completed));
		drm_printf(p, "busy %llu ns, resets %u, preemptions %llu",
			   ctx->busy_ns, ctx->reset_count, ctx->preemptions);
		if (ctx->paging.bytes_in || ctx->paging.bytes_out)
			drm_printf(p, ", paged in %llu out %llu bytes, %llu evictions, %llu ns",
				   ctx->paging.bytes_in, ctx->paging.bytes_out,
				   ctx->paging.evictions, ctx->paging.ns);
		if (ctx->state == DRM_TERN_CONTEXT_FAULTED)
			drm_printf(p, ", fault kind %u addr 0x%llx dword %u job %u",
				   ctx->fault_kind, ctx->fault_addr,
				   ctx->fault_offset, ctx->fault_seqno);
		spin_unlock_irqrestore(&ctx->state_lock, flags);
		drm_printf(p, "\n");
	}
	mutex_unlock(&tdev->contexts_lock);
}
